//! The zone state machine against the specification's table (every transition and every
//! error case), against an independent reference model on random command sequences, and the
//! zoned device end to end.

use super::state::{ZoneAction, ZoneError, ZoneState, Zones};
use crate::config::SimConfig;
use crate::sim::Simulation;
use crate::units::SimTime;
use crate::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};
use rand::{Rng, SeedableRng};
use ZoneAction::*;
use ZoneState::*;

const CAP: u64 = 4;

/// Zone 0 of fresh zones (no limits) brought to `s` by commands.
fn in_state(s: ZoneState, wp: u64) -> Zones {
    let mut z = Zones::new(2, CAP, 0, 0);
    match s {
        Empty => {}
        ImplicitlyOpen => z.write(0, 0, wp).unwrap(),
        ExplicitlyOpen => {
            z.manage(0, Open).unwrap();
            if wp > 0 {
                z.write(0, 0, wp).unwrap();
            }
        }
        Closed => {
            z.write(0, 0, wp).unwrap();
            z.manage(0, Close).unwrap();
        }
        Full => {
            z.manage(0, Finish).unwrap();
        }
        ReadOnly | Offline => z.set_media_state(0, s),
    }
    assert_eq!(z.zone(0).state, s);
    z
}

/// What a command does, in the specification's terms.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmd {
    /// Write `n` blocks at `at`.
    Write(u64, u64),
    /// Zone Append of `n` blocks.
    Append(u64),
    Mgmt(ZoneAction),
}

fn apply(z: &mut Zones, c: Cmd) -> Result<(), ZoneError> {
    match c {
        Cmd::Write(at, n) => z.write(0, at, n),
        Cmd::Append(n) => z.append(0, n).map(|_| ()),
        Cmd::Mgmt(a) => z.manage(0, a).map(|_| ()),
    }
}

/// The NVMe ZNS state table (ZNS Command Set 1.1, Figure "Zone State Machine" and the
/// command sections), one row per (state, command): the state after, or the status.
#[test]
fn transitions_follow_the_specification_table() {
    use Cmd::*;
    let e = |x: ZoneError| Err::<ZoneState, ZoneError>(x);
    #[rustfmt::skip]
    let table: &[(ZoneState, u64, Cmd, Result<ZoneState, ZoneError>)] = &[
        // Write at the write pointer
        (Empty, 0, Write(0, 1), Ok(ImplicitlyOpen)),
        (ImplicitlyOpen, 1, Write(1, 1), Ok(ImplicitlyOpen)),
        (ExplicitlyOpen, 1, Write(1, 1), Ok(ExplicitlyOpen)),
        (Closed, 1, Write(1, 1), Ok(ImplicitlyOpen)),
        (ImplicitlyOpen, 1, Write(1, 3), Ok(Full)),
        (ExplicitlyOpen, 0, Write(0, 4), Ok(Full)),
        (Full, 0, Write(4, 1), e(ZoneError::ZoneIsFull)),
        (ReadOnly, 0, Write(0, 1), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Write(0, 1), e(ZoneError::ZoneIsOffline)),
        // Write elsewhere, or past the capacity
        (Empty, 0, Write(1, 1), e(ZoneError::ZoneInvalidWrite)),
        (ImplicitlyOpen, 2, Write(1, 1), e(ZoneError::ZoneInvalidWrite)),
        (Closed, 2, Write(3, 1), e(ZoneError::ZoneInvalidWrite)),
        (Empty, 0, Write(0, 5), e(ZoneError::ZoneBoundary)),
        (ImplicitlyOpen, 3, Write(3, 2), e(ZoneError::ZoneBoundary)),
        // Zone Append
        (Empty, 0, Append(2), Ok(ImplicitlyOpen)),
        (Closed, 1, Append(1), Ok(ImplicitlyOpen)),
        (ExplicitlyOpen, 2, Append(2), Ok(Full)),
        (ImplicitlyOpen, 3, Append(2), e(ZoneError::ZoneBoundary)),
        (Full, 0, Append(1), e(ZoneError::ZoneIsFull)),
        (ReadOnly, 0, Append(1), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Append(1), e(ZoneError::ZoneIsOffline)),
        // Open Zone
        (Empty, 0, Mgmt(Open), Ok(ExplicitlyOpen)),
        (ImplicitlyOpen, 1, Mgmt(Open), Ok(ExplicitlyOpen)),
        (ExplicitlyOpen, 1, Mgmt(Open), Ok(ExplicitlyOpen)),
        (Closed, 1, Mgmt(Open), Ok(ExplicitlyOpen)),
        (Full, 0, Mgmt(Open), e(ZoneError::InvalidZoneStateTransition)),
        (ReadOnly, 0, Mgmt(Open), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Mgmt(Open), e(ZoneError::ZoneIsOffline)),
        // Close Zone
        (Empty, 0, Mgmt(Close), e(ZoneError::InvalidZoneStateTransition)),
        (ImplicitlyOpen, 1, Mgmt(Close), Ok(Closed)),
        (ExplicitlyOpen, 1, Mgmt(Close), Ok(Closed)),
        (ExplicitlyOpen, 0, Mgmt(Close), Ok(Empty)),
        (Closed, 1, Mgmt(Close), Ok(Closed)),
        (Full, 0, Mgmt(Close), e(ZoneError::InvalidZoneStateTransition)),
        (ReadOnly, 0, Mgmt(Close), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Mgmt(Close), e(ZoneError::ZoneIsOffline)),
        // Finish Zone
        (Empty, 0, Mgmt(Finish), Ok(Full)),
        (ImplicitlyOpen, 1, Mgmt(Finish), Ok(Full)),
        (ExplicitlyOpen, 0, Mgmt(Finish), Ok(Full)),
        (Closed, 1, Mgmt(Finish), Ok(Full)),
        (Full, 0, Mgmt(Finish), Ok(Full)),
        (ReadOnly, 0, Mgmt(Finish), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Mgmt(Finish), e(ZoneError::ZoneIsOffline)),
        // Reset Zone
        (Empty, 0, Mgmt(Reset), Ok(Empty)),
        (ImplicitlyOpen, 1, Mgmt(Reset), Ok(Empty)),
        (ExplicitlyOpen, 1, Mgmt(Reset), Ok(Empty)),
        (Closed, 1, Mgmt(Reset), Ok(Empty)),
        (Full, 0, Mgmt(Reset), Ok(Empty)),
        (ReadOnly, 0, Mgmt(Reset), e(ZoneError::ZoneIsReadOnly)),
        (Offline, 0, Mgmt(Reset), e(ZoneError::ZoneIsOffline)),
    ];
    for &(from, wp, cmd, want) in table {
        let mut z = in_state(from, wp);
        let before = z.zone(0);
        let got = apply(&mut z, cmd).map(|_| z.zone(0).state);
        assert_eq!(got, want, "{from:?} (wp {wp}) {cmd:?}");
        if got.is_err() {
            assert_eq!(z.zone(0), before, "a failed command changes nothing");
        }
        match z.zone(0).state {
            Empty => assert_eq!(z.zone(0).wp, 0),
            Full => assert_eq!(z.zone(0).wp, CAP),
            _ => {}
        }
        z.check().unwrap();
    }
}

/// The open and active limits: Too Many Active Zones, Too Many Open Zones, and the implicit
/// close of an implicitly opened zone that frees an open resource.
#[test]
fn resource_limits() {
    // One active zone: an empty zone cannot become open, by write, append, open or finish.
    let mut z = Zones::new(3, CAP, 0, 1);
    z.write(0, 0, 1).unwrap();
    assert_eq!(z.write(1, 0, 1), Err(ZoneError::TooManyActiveZones));
    assert_eq!(z.append(1, 1), Err(ZoneError::TooManyActiveZones));
    assert_eq!(z.manage(1, Open), Err(ZoneError::TooManyActiveZones));
    assert_eq!(z.manage(1, Finish), Err(ZoneError::TooManyActiveZones));
    // Closed, the zone still holds its active resource.
    z.manage(0, Close).unwrap();
    assert_eq!(z.write(1, 0, 1), Err(ZoneError::TooManyActiveZones));
    // Finished, it frees it.
    z.manage(0, Finish).unwrap();
    z.write(1, 0, 1).unwrap();

    // One open zone, explicitly opened: nothing else may open.
    let mut z = Zones::new(3, CAP, 1, 0);
    z.manage(0, Open).unwrap();
    assert_eq!(z.write(1, 0, 1), Err(ZoneError::TooManyOpenZones));
    assert_eq!(z.manage(1, Open), Err(ZoneError::TooManyOpenZones));
    assert_eq!(z.manage(1, Finish), Err(ZoneError::TooManyOpenZones));
    // Implicitly opened instead: a write elsewhere closes it (null_blk's null_check_open).
    let mut z = Zones::new(3, CAP, 1, 0);
    z.write(0, 0, 1).unwrap();
    z.write(1, 0, 2).unwrap();
    assert_eq!(z.zone(0).state, Closed);
    assert_eq!(z.zone(1).state, ImplicitlyOpen);
    z.manage(2, Open).unwrap();
    assert_eq!(z.zone(1).state, Closed);
    assert_eq!(z.open_counts(), (0, 1));
    z.check().unwrap();
}

/// An independent reference: the state of each zone and its write pointer, with the
/// resources counted from the states at each step, written from the specification's text.
#[derive(Clone)]
struct Reference {
    zones: Vec<(ZoneState, u64)>,
    max_open: usize,
    max_active: usize,
}

impl Reference {
    fn count(&self, f: impl Fn(ZoneState) -> bool) -> usize {
        self.zones.iter().filter(|z| f(z.0)).count()
    }

    /// Make zone `i` (empty or closed) open-able, closing the first implicitly open zone if
    /// the open limit is reached.
    fn resources(&mut self, i: usize) -> Result<(), ZoneError> {
        let open = self.count(|s| s == ImplicitlyOpen || s == ExplicitlyOpen);
        let active = open + self.count(|s| s == Closed);
        if self.zones[i].0 == Empty && self.max_active > 0 && active >= self.max_active {
            return Err(ZoneError::TooManyActiveZones);
        }
        if self.max_open > 0 && open >= self.max_open {
            let Some(j) = self.zones.iter().position(|z| z.0 == ImplicitlyOpen) else {
                return Err(ZoneError::TooManyOpenZones);
            };
            self.zones[j].0 = Closed; // implicitly opened zones always hold data
        }
        Ok(())
    }

    fn write(&mut self, i: usize, at: Option<u64>, n: u64) -> Result<(), ZoneError> {
        let (s, wp) = self.zones[i];
        match s {
            Full => return Err(ZoneError::ZoneIsFull),
            ReadOnly => return Err(ZoneError::ZoneIsReadOnly),
            Offline => return Err(ZoneError::ZoneIsOffline),
            _ => {}
        }
        if at.is_some_and(|a| a != wp) {
            return Err(ZoneError::ZoneInvalidWrite);
        }
        if wp + n > CAP {
            return Err(ZoneError::ZoneBoundary);
        }
        if s == Empty || s == Closed {
            self.resources(i)?;
        }
        let wp = wp + n;
        let s = if wp == CAP {
            Full
        } else if s == ExplicitlyOpen {
            ExplicitlyOpen
        } else {
            ImplicitlyOpen
        };
        self.zones[i] = (s, wp);
        Ok(())
    }

    fn manage(&mut self, i: usize, a: ZoneAction) -> Result<(), ZoneError> {
        let (s, wp) = self.zones[i];
        if s == ReadOnly {
            return Err(ZoneError::ZoneIsReadOnly);
        }
        if s == Offline {
            return Err(ZoneError::ZoneIsOffline);
        }
        let next = match a {
            Open => match s {
                Full => return Err(ZoneError::InvalidZoneStateTransition),
                Empty | Closed => {
                    self.resources(i)?;
                    (ExplicitlyOpen, wp)
                }
                _ => (ExplicitlyOpen, wp),
            },
            Close => match s {
                Empty | Full => return Err(ZoneError::InvalidZoneStateTransition),
                _ if wp == 0 => (Empty, 0),
                _ => (Closed, wp),
            },
            Finish => {
                if s == Empty || s == Closed {
                    self.resources(i)?;
                }
                (Full, CAP)
            }
            Reset => (Empty, 0),
        };
        self.zones[i] = next;
        Ok(())
    }
}

/// Random command sequences: the state machine and the reference agree on every status and
/// every zone's state and write pointer after every command.
#[test]
fn random_commands_match_the_reference() {
    for (seed, max_open, max_active) in [
        (1u64, 2u32, 3u32),
        (2, 1, 1),
        (3, 0, 2),
        (4, 3, 0),
        (5, 0, 0),
    ] {
        let n = 5;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut z = Zones::new(n, CAP, max_open, max_active);
        let mut r = Reference {
            zones: vec![(Empty, 0); n as usize],
            max_open: max_open as usize,
            max_active: max_active as usize,
        };
        // Zone 4 starts read-only in some runs, offline in others.
        let media = if seed % 2 == 0 { ReadOnly } else { Offline };
        z.set_media_state(4, media);
        r.zones[4].0 = media;
        let mut failures = 0;
        for step in 0..20_000 {
            let i = rng.random_range(0..n);
            let k = rng.random_range(0..6);
            let len = rng.random_range(0..=2u64).max(1);
            let (got, want) = match k {
                0 => {
                    // at the write pointer mostly, elsewhere sometimes
                    let wp = z.zone(i).wp;
                    let at = if rng.random_bool(0.8) {
                        wp
                    } else {
                        rng.random_range(0..=CAP)
                    };
                    (z.write(i, at, len), r.write(i as usize, Some(at), len))
                }
                1 => (z.append(i, len).map(|_| ()), r.write(i as usize, None, len)),
                k => {
                    let a = [Open, Close, Finish, Reset][k - 2];
                    (z.manage(i, a).map(|_| ()), r.manage(i as usize, a))
                }
            };
            assert_eq!(got, want, "seed {seed} step {step}: zone {i} command {k}");
            failures += got.is_err() as u32;
            for j in 0..n {
                let zz = z.zone(j);
                assert_eq!(
                    (zz.state, zz.wp),
                    r.zones[j as usize],
                    "seed {seed} step {step} zone {j}"
                );
            }
            z.check().unwrap();
        }
        assert!(
            failures > 100,
            "the sequence exercises failures ({failures})"
        );
    }
}

/// A zoned device: 2 channels x 1 chip x 1 die x 2 planes, 16 blocks x 8 pages per plane,
/// zones of 4 planes x 2 blocks (64 pages = 256 KiB), so 8 zones, at most 2 open.
pub(super) fn zoned_config() -> SimConfig {
    let mut c = SimConfig::preset("tiny").unwrap();
    c.nand.blocks_per_plane = 16;
    c.nand.pages_per_block = 8;
    c.precondition.fill_fraction = 0.0;
    c.check.verify = false;
    c.zns = Some(crate::config::ZnsConfig {
        channels_per_zone: 2,
        chips_per_zone: 1,
        blocks_per_plane: 2,
        zone_size: None,
        max_open_zones: 2,
        max_active_zones: 3,
        read_only_zones: vec![6],
        offline_zones: vec![7],
        compression: None,
    });
    c
}

struct List(std::vec::IntoIter<Request>);

impl RequestSource for List {
    fn next_request(&mut self, _now: SimTime) -> crate::error::Result<Option<Request>> {
        Ok(self.0.next())
    }
}

pub(super) fn req(op: Op, offset: u64, len: u64) -> Request {
    Request::new(SimTime::ZERO, op, offset, len)
}

pub(super) fn run(cfg: SimConfig, reqs: Vec<Request>) -> crate::stats::Summary {
    run_driven(cfg, reqs, Drive::Closed { depth: 1 })
}

/// Each request at its time (open loop).
pub(super) fn run_open(cfg: SimConfig, reqs: Vec<Request>) -> crate::stats::Summary {
    run_driven(cfg, reqs, Drive::Open)
}

fn run_driven(cfg: SimConfig, reqs: Vec<Request>, drive: Drive) -> crate::stats::Summary {
    let s = Stream {
        name: "zoned".into(),
        source: Box::new(List(reqs.into_iter())),
        drive,
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    };
    Simulation::with_streams(cfg, vec![s])
        .unwrap()
        .run()
        .unwrap()
        .summary
}

/// Sequential writes fill two zones, reads come back from flash, a reset erases exactly the
/// written blocks and the zone is written again; every refused command is counted by status.
#[test]
fn device_writes_resets_and_counts_failures() {
    let cfg = zoned_config();
    let zone = 256 * 1024; // 64 pages of 4 KiB; the capacity is a power of two already
    let mut r = Vec::new();
    for z in 0..2u64 {
        for k in 0..16 {
            r.push(req(Op::Write, z * zone + k * 16384, 16384));
        }
    }
    r.push(req(Op::Read, 0, 65536));
    r.push(req(Op::Read, zone - 4096, 8192)); // across zones: Zone Boundary Error
    r.push(req(Op::Write, 0, 4096)); // zone 0 is full
    r.push(req(Op::Write, 2 * zone + 4096, 4096)); // not at the write pointer
    r.push(req(Op::Append, 2 * zone + 4096, 4096)); // an append not at the zone start
    r.push(req(Op::Write, 6 * zone, 4096)); // read-only
    r.push(req(Op::Read, 7 * zone, 4096)); // offline
    r.push(req(Op::ZoneReset, 0, zone));
    r.push(req(Op::Append, 0, 8192));
    r.push(req(Op::Append, 0, 8192));
    r.push(req(Op::Write, 0, 4096)); // the write pointer is at 4 pages now
    r.push(req(Op::Write, 16384, 4096));
    r.push(req(Op::Read, 32768, 4096)); // above the write pointer: no flash read
    r.push(req(Op::ZoneOpen, 3 * zone, zone)); // 2 open limit; zone 0 implicitly open: closed
    r.push(req(Op::ZoneOpen, 4 * zone, zone)); // active limit 3 (zones 0, 3, 4 active)
    r.push(req(Op::ZoneOpen, 5 * zone, zone)); // Too Many Active Zones
    r.push(req(Op::ZoneFinish, 3 * zone, zone));
    r.push(req(Op::ZoneClose, 3 * zone, zone)); // full: invalid transition
    let s = run(cfg, r);
    let z = s.zns.as_ref().expect("zns summary");
    assert_eq!(z.zones, 8);
    assert_eq!(z.zone_capacity_bytes, zone);
    assert_eq!(z.counters.writes, 32 + 1);
    assert_eq!(z.counters.appends, 2);
    assert_eq!(z.counters.resets, 1);
    // Zone 0 held 64 pages on 4 planes x 2 blocks: 8 blocks erased, the device's only erases.
    assert_eq!(z.counters.reset_blocks_erased, 8);
    assert_eq!(s.erases, 8);
    assert_eq!(s.controller.as_ref().unwrap().counters.zone_reset_erases, 8);
    assert_eq!(s.gc_invocations, 0);
    // Every page programmed is a page the host wrote: WAF 1.
    assert_eq!(s.nand_programs * 4096, s.host_write_bytes);
    assert_eq!(s.waf, Some(1.0));
    assert_eq!(
        s.nand_reads, 16,
        "the 64 KiB read; the others fail or read nothing"
    );
    assert_eq!(s.unmapped_page_reads, 1);
    assert_eq!(z.counters.failed_zone_boundary_error, 1);
    assert_eq!(z.counters.failed_zone_is_full, 1);
    assert_eq!(z.counters.failed_zone_invalid_write, 2);
    assert_eq!(z.counters.failed_invalid_field, 1);
    assert_eq!(z.counters.failed_zone_is_read_only, 1);
    assert_eq!(z.counters.failed_zone_is_offline, 1);
    assert_eq!(z.counters.failed_too_many_active_zones, 1);
    assert_eq!(z.counters.failed_invalid_zone_state_transition, 1);
    assert_eq!(z.failed_commands, 9);
    assert_eq!(s.requests_failed, 9);
    assert_eq!(
        (
            z.zones_full,
            z.zones_closed,
            z.zones_explicitly_open,
            z.zones_empty
        ),
        (2, 1, 1, 2),
        "zone 1 and 3 full, 0 closed, 4 open, 2 and 5 empty"
    );
}

/// The write after a reset waits for the zone's erase on its plane.
#[test]
fn a_write_after_a_reset_waits_for_the_erase() {
    let zone = 256 * 1024u64;
    let mut r: Vec<Request> = (0..4).map(|k| req(Op::Write, k * 65536, 65536)).collect();
    r.push(req(Op::ZoneReset, 0, zone));
    r.push(req(Op::Write, 0, 4096));
    let s = run(zoned_config(), r);
    assert_eq!(
        s.controller
            .as_ref()
            .unwrap()
            .counters
            .programs_waiting_for_erase,
        1
    );
    let erase_us = 1500.0;
    let max = s.write.latency_us.as_ref().unwrap().max;
    assert!(
        max >= erase_us,
        "the last write waited for an erase: max {max} us"
    );
}

/// Bad zone configurations are refused naming the key.
#[test]
fn bad_zone_configs_are_refused() {
    type Edit = fn(&mut SimConfig);
    let cases: &[(Edit, &str, &str)] = &[
        (
            |c| c.zns.as_mut().unwrap().channels_per_zone = 3,
            "zns.channels_per_zone",
            "divisor of nand.channels = 2",
        ),
        (
            |c| c.zns.as_mut().unwrap().blocks_per_plane = 5,
            "zns.blocks_per_plane",
            "divisor",
        ),
        (
            |c| c.zns.as_mut().unwrap().zone_size = Some(4096),
            "zns.zone_size",
            "at least the zone capacity",
        ),
        (
            |c| c.zns.as_mut().unwrap().offline_zones = vec![8],
            "zns.offline_zones",
            "zone 8 does not exist",
        ),
        (
            |c| c.zns.as_mut().unwrap().offline_zones = vec![6],
            "zns.offline_zones",
            "also in zns.read_only_zones",
        ),
        (
            |c| c.zns.as_mut().unwrap().max_open_zones = 4,
            "zns.max_open_zones",
            "at most zns.max_active_zones",
        ),
        (
            |c| {
                c.precondition.fill_fraction = 0.5;
                c.precondition.aging_fraction = 1.0;
            },
            "precondition.aging_fraction",
            "never overwritten in place",
        ),
    ];
    for (edit, key, msg) in cases {
        let mut c = zoned_config();
        edit(&mut c);
        let e = c.validate("t.toml").unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(msg), "{key}: {e}");
    }
}

/// flashpress's csv trace carries zone commands (`A`, `ZO`, `ZC`, `ZF`, `ZR`): a trace that
/// appends to zone 2, finishes it, resets it and writes it again runs as written.
#[test]
fn a_csv_trace_drives_zone_commands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zones.csv");
    let zone = 256 * 1024u64;
    let z2 = 2 * zone;
    let lines = [
        "time,op,offset,len,content".to_string(),
        format!("0,A,{z2},16384,"),
        format!("0,A,{z2},16384,"),
        format!("0,ZO,{},{zone},", z2 + 4096),
        format!("0,ZF,{z2},{zone},"),
        format!("0,A,{z2},4096,"), // full
        format!("0,ZR,{z2},{zone},"),
        format!("0,W,{z2},4096,7"),
        format!("0,ZC,{z2},{zone},"),
        format!("0,R,{z2},8192,"),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let mut cfg = zoned_config();
    cfg.workload = crate::config::WorkloadConfig::Trace(
        toml::from_str(&format!(
            "path = {:?}\nformat = \"csv\"\nreplay = \"afap\"\nqueue_depth = 1\n",
            path.display().to_string()
        ))
        .unwrap(),
    );
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    let z = s.zns.unwrap();
    assert_eq!(
        (
            z.counters.appends,
            z.counters.opens,
            z.counters.finishes,
            z.counters.resets
        ),
        (2, 1, 1, 1)
    );
    assert_eq!(
        (z.counters.writes, z.counters.closes, z.counters.reads),
        (1, 1, 1)
    );
    assert_eq!(z.counters.failed_zone_is_full, 1);
    assert_eq!(z.failed_commands, 1);
    // 8 pages appended on 4 planes: the first row of 2 blocks per plane... one block each.
    assert_eq!(z.counters.reset_blocks_erased, 4);
    assert_eq!(s.nand_programs, 9);
    assert_eq!((s.nand_reads, s.unmapped_page_reads), (1, 1));
    assert_eq!(z.zones_closed, 1);
}

/// Verify mode on zones: reads check what each zone page holds through the zone mapping
/// against what the host wrote there; a reset zone is expected to hold nothing (fio's rule: a
/// reset forgets the zone's writes); a changed page fails the read, naming the page.
#[test]
fn verify_checks_zone_pages_and_a_reset_discards_what_they_held() {
    use crate::engine::EventQueue;
    use crate::error::Error;
    let mut cfg = zoned_config();
    cfg.check.verify = true;
    cfg.validate("t.toml").unwrap();
    let mut dev = crate::device::Device::new(&cfg, None).unwrap();
    let mut q = EventQueue::new();
    let zone = 256 * 1024u64;
    // Each command runs to its end (a reset waits for the zone's programs).
    let mut submit = |dev: &mut crate::device::Device, op: Op, off: u64, len: u64, id: u64| {
        let r = dev.submit(&req(op, off, len), id, SimTime::ZERO, 0, &mut q, None);
        let failed = !dev.failed.is_empty();
        dev.failed.clear();
        assert!(!failed, "{op:?} at {off} refused by the zone state machine");
        loop {
            let ta = dev.next_arrival();
            match (ta, q.peek_time()) {
                (Some(a), t) if t.is_none_or(|t| a <= t) => dev.process_arrivals(a, &mut q),
                (_, Some(_)) | (Some(_), None) => match q.pop().unwrap() {
                    (t, crate::engine::Event::Flash(p, g)) => dev.on_flash(p, g, t, &mut q),
                    (t, crate::engine::Event::DeviceReq(s)) => dev.on_request(s, t, &mut q),
                    (_, e) => unreachable!("{e:?}"),
                },
                (None, None) => break,
            }
        }
        dev.completed.clear();
        r
    };
    // Zone 0: 16 pages written at the write pointer; zone 1: 8 pages appended.
    submit(&mut dev, Op::Write, 0, 16 * 4096, 100).unwrap();
    submit(&mut dev, Op::Append, zone, 8 * 4096, 500).unwrap();
    submit(&mut dev, Op::Read, 0, 16 * 4096, 0).unwrap();
    // 8 pages below zone 1's write pointer and 2 above it (nothing expected, nothing held).
    submit(&mut dev, Op::Read, zone, 10 * 4096, 0).unwrap();
    assert_eq!(dev.counters.verified_page_reads, 16 + 10);
    // A flash page of zone 0 that changed under the host: the read of it fails, its
    // neighbour still passes.
    dev.zns.as_mut().unwrap().corrupt_page_for_test(0, 5);
    let e = submit(&mut dev, Op::Read, 5 * 4096, 4096, 0).unwrap_err();
    assert!(matches!(e, Error::Verify(_)), "{e}");
    assert!(e.to_string().contains("logical page 5 read"), "{e}");
    submit(&mut dev, Op::Read, 4 * 4096, 4096, 0).unwrap();
    // A reset discards zone 0's data and what the host expected of it: reading it back
    // checks nothing is there; written again, it holds the new data.
    submit(&mut dev, Op::ZoneReset, 0, zone, 0).unwrap();
    submit(&mut dev, Op::Read, 0, 16 * 4096, 0).unwrap();
    submit(&mut dev, Op::Write, 0, 8 * 4096, 900).unwrap();
    submit(&mut dev, Op::Read, 0, 8 * 4096, 0).unwrap();
    // Zone 1's page 3 holds 503 (page 3 of the append of 500): a host expecting anything
    // else there fails.
    assert_eq!(dev.zns.as_ref().unwrap().content_of(64 + 3), 503);
    assert_eq!(dev.zns.as_ref().unwrap().content_of(5), 905);
    dev.corrupt_shadow_for_test();
    let e = submit(&mut dev, Op::Read, zone, 4096, 0).unwrap_err();
    assert!(e.to_string().contains("logical page 64 read"), "{e}");
}

/// fio's `verify` on a `zonemode=zbd` job runs on the zoned device: every page written is
/// read back and checked, and each later pass resets the zones first.
#[test]
fn a_fio_zbd_job_with_verify_checks_every_page_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.fio");
    // 4 zones of 256 KiB (64 pages), written twice over in 64 KiB blocks, each pass
    // verified after it.
    std::fs::write(
        &path,
        "[v]\nfilename=/dev/nvme0n1\nzonemode=zbd\nrw=write\nbs=64k\nsize=1m\nloops=2\nverify=crc32c\n",
    )
    .unwrap();
    let mut cfg = zoned_config();
    cfg.zns.as_mut().unwrap().read_only_zones.clear();
    cfg.zns.as_mut().unwrap().offline_zones.clear();
    cfg.workload = crate::config::WorkloadConfig::Fio(crate::config::FioWorkload {
        path: Some(path),
        global: Default::default(),
        jobs: Vec::new(),
        args: Vec::new(),
        vars: Default::default(),
    });
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    let z = s.zns.as_ref().unwrap();
    assert_eq!(z.failed_commands, 0);
    // 2 passes of 16 writes of 16 pages; the second pass resets the 4 zones first. The job
    // verifies after each loop, as fio does: every page the 4 zones hold then, twice.
    assert_eq!((z.counters.writes, z.counters.resets), (32, 4));
    assert_eq!(s.verified_page_reads, 2 * 4 * 64);
    assert_eq!(s.read.requests, 2 * 4 * 64 / 16);
}
