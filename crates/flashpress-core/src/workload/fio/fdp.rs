//! fio's NVMe Flexible Data Placement options: `fdp=1` (or `dataplacement=fdp`) tags each
//! write of a job with a placement identifier taken from `fdp_pli` (or `plids`), a list of
//! indices into the device's placement identifiers (all of them when absent), chosen round
//! robin or at random (`fdp_pli_select` or `plid_select`), as fio's `fdp.c` does (fio 3.34
//! and later; `dataplacement`, `plids` and `plid_select` from fio 3.36). Reads and trims carry
//! none. The device is flashpress's `[fdp]`: index `i` is its reclaim unit handle `i`.

use super::parse::{Opt, Origin};
use crate::error::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Placement identifiers a job lists at most (fio's `FIO_MAX_DP_IDS`).
const MAX_IDS: usize = 128;

/// A job's placement options, before the device is known.
#[derive(Debug, Clone)]
pub(super) struct FdpSpec {
    /// Indices into the device's placement identifiers (`None`: every one of them).
    plis: Option<Vec<u16>>,
    random: bool,
    /// Where the indices (or `fdp=1`) were given, and as what, for errors about the device.
    at: Origin,
    shown: String,
}

/// Read the job's placement options from the last occurrence of each (`get`, by canonical
/// name); `None` when the job does not ask for placement.
pub(super) fn resolve<'a>(get: impl Fn(&str) -> Option<&'a Opt>) -> Result<Option<FdpSpec>> {
    let mut on_at: Option<&Opt> = None;
    if let Some(o) = get("fdp") {
        if o.flag()? {
            on_at = Some(o);
        }
    }
    if let Some(o) = get("dataplacement") {
        match o.value()?.trim() {
            "fdp" => on_at = on_at.or(Some(o)),
            "none" => {}
            "streams" => {
                return Err(o.err(
                    "NVMe streams directives are not modelled; dataplacement=fdp places writes through [fdp]'s reclaim unit handles",
                ))
            }
            v => return Err(o.err(format!("unknown dataplacement `{v}` (expected none, fdp or streams)"))),
        }
    }
    let Some(on) = on_at else {
        // fio ignores the lists without fdp=1; so does flashpress, but says so.
        if let Some(o) = get("fdp_pli") {
            return Err(o.err("placement identifiers without fdp=1 (or dataplacement=fdp) would be ignored: enable flexible data placement or drop the option"));
        }
        return Ok(None);
    };
    let (mut at, mut shown) = (on.at.clone(), on.shown());
    let plis = match get("fdp_pli") {
        None => None,
        Some(o) => {
            (at, shown) = (o.at.clone(), o.shown());
            let mut v = Vec::new();
            for p in o.value()?.split(',') {
                let p = p.trim();
                let n = parse_id(p).ok_or_else(|| {
                    o.err(format!(
                        "expected placement identifier indices from 0 to 65535, got `{p}`"
                    ))
                })?;
                v.push(n);
            }
            if v.len() > MAX_IDS {
                return Err(o.err(format!(
                    "at most {MAX_IDS} placement identifiers, got {}",
                    v.len()
                )));
            }
            Some(v)
        }
    };
    let random = match get("fdp_pli_select") {
        None => false,
        Some(o) => match o.value()?.trim() {
            "roundrobin" => false,
            "random" => true,
            "scheme" => return Err(o.err(
                "placement by offset ranges (dp_scheme) is not modelled: use roundrobin or random",
            )),
            v => {
                return Err(o.err(format!(
                    "unknown selection `{v}` (expected roundrobin or random)"
                )))
            }
        },
    };
    Ok(Some(FdpSpec {
        plis,
        random,
        at,
        shown,
    }))
}

/// A decimal or `0x` hexadecimal index, as fio's list parser takes them.
fn parse_id(s: &str) -> Option<u16> {
    let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    u16::try_from(v).ok()
}

/// The identifiers one job clone tags its writes with, in turn or at random.
#[derive(Debug, Clone)]
pub(super) struct Picker {
    ids: Vec<u16>,
    next: usize,
    rng: Option<Pcg64Mcg>,
}

impl FdpSpec {
    /// The picker of a clone seeded `seed`, on a device with `handles` placement identifiers
    /// (`[fdp]`: its handles in each reclaim group, group by group; 0 without).
    pub(super) fn picker(&self, handles: u32, seed: u64) -> Result<Picker> {
        if handles == 0 {
            return Err(self.at.err(format!(
                "`{}`: flexible data placement needs a device with it: add an [fdp] table to the config",
                self.shown
            )));
        }
        let ids: Vec<u16> = match &self.plis {
            None => (0..handles as u16).collect(),
            Some(v) => v.clone(),
        };
        if let Some(&bad) = ids.iter().find(|&&i| u32::from(i) >= handles) {
            return Err(self.at.err(format!(
                "`{}`: placement identifier index {bad}, but the device has {handles} (fdp.handles in each of fdp.reclaim_groups: indices 0 to {})",
                self.shown,
                handles - 1
            )));
        }
        Ok(Picker {
            ids,
            next: 0,
            rng: self
                .random
                .then(|| Pcg64Mcg::seed_from_u64(seed ^ 0x6664_705f_706c_6964)),
        })
    }
}

impl Picker {
    /// The placement identifier of the next write.
    pub(super) fn next(&mut self) -> u16 {
        match self.rng.as_mut() {
            Some(r) => self.ids[r.random_range(0..self.ids.len())],
            None => {
                let id = self.ids[self.next];
                self.next = (self.next + 1) % self.ids.len();
                id
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(k: &str, v: &str) -> Opt {
        Opt {
            key: k.into(),
            value: Some(v.into()),
            at: Origin::File {
                path: "j.fio".into(),
                line: 3,
            },
        }
    }

    fn spec(opts: &[Opt]) -> Result<Option<FdpSpec>> {
        resolve(|k| {
            opts.iter().rev().find(|o| {
                matches!(super::super::options::class_of(&o.key),
                    Some(super::super::options::Class::Honoured(c)) if c == k)
            })
        })
    }

    #[test]
    fn round_robin_walks_the_list_random_draws_from_it() {
        let s = spec(&[opt("fdp", "1"), opt("fdp_pli", "4,5,0x6")])
            .unwrap()
            .unwrap();
        let mut p = s.picker(8, 1).unwrap();
        let got: Vec<u16> = (0..7).map(|_| p.next()).collect();
        assert_eq!(got, [4, 5, 6, 4, 5, 6, 4]);
        // Without a list: every identifier of the device, in order.
        let s = spec(&[opt("dataplacement", "fdp")]).unwrap().unwrap();
        let mut p = s.picker(3, 1).unwrap();
        assert_eq!((0..4).map(|_| p.next()).collect::<Vec<_>>(), [0, 1, 2, 0]);
        let s = spec(&[
            opt("fdp", "1"),
            opt("plids", "1,3"),
            opt("plid_select", "random"),
        ])
        .unwrap()
        .unwrap();
        let mut p = s.picker(4, 9).unwrap();
        let got: Vec<u16> = (0..2000).map(|_| p.next()).collect();
        let ones = got.iter().filter(|&&i| i == 1).count();
        assert!(got.iter().all(|&i| i == 1 || i == 3));
        assert!((900..1100).contains(&ones), "{ones}");
    }

    #[test]
    fn bad_values_and_devices_are_refused_at_the_line() {
        let e = |opts: &[Opt], handles: u32| match spec(opts) {
            Err(e) => e.to_string(),
            Ok(Some(s)) => s.picker(handles, 1).unwrap_err().to_string(),
            Ok(None) => panic!("no placement"),
        };
        for (opts, handles, want) in [
            (
                vec![opt("fdp", "1"), opt("fdp_pli", "0,8")],
                8,
                "index 8, but the device has 8",
            ),
            (vec![opt("fdp", "1")], 0, "add an [fdp] table"),
            (vec![opt("fdp", "1"), opt("fdp_pli", "x")], 8, "got `x`"),
            (
                vec![opt("fdp", "1"), opt("fdp_pli", "65536")],
                8,
                "got `65536`",
            ),
            (
                vec![opt("fdp", "1"), opt("fdp_pli_select", "scheme")],
                8,
                "dp_scheme",
            ),
            (
                vec![opt("fdp", "1"), opt("fdp_pli_select", "next")],
                8,
                "unknown selection",
            ),
            (
                vec![opt("dataplacement", "streams")],
                8,
                "streams directives",
            ),
            (vec![opt("fdp_pli", "1")], 8, "without fdp=1"),
        ] {
            let m = e(&opts, handles);
            assert!(m.starts_with("j.fio:3:") && m.contains(want), "{m}");
        }
        assert!(spec(&[opt("fdp", "0")]).unwrap().is_none());
        assert!(spec(&[opt("dataplacement", "none")]).unwrap().is_none());
    }
}
