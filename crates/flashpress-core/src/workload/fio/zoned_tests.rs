//! fio's zone modes against fio's rules, computed here, and against fio's own iologs
//! (`crates/flashpress-core/tests/fio-iolog`, made by fio 3.33; see the README there).

use super::super::{load, FioLoad};
use super::ZonedDevice;
use crate::config::FioWorkload;
use crate::error::{Error, Result};
use crate::units::SimTime;
use crate::workload::{Op, Request, Stream};
use std::collections::BTreeMap;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

fn dev(zone_size: u64, capacity: u64, zones: u64, max_open: u32) -> ZonedDevice {
    ZonedDevice {
        zone_size,
        zone_capacity: capacity,
        zones,
        max_open_zones: max_open,
    }
}

fn run(text: &str, cap: u64, zoned: Option<ZonedDevice>) -> Result<FioLoad> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    let cfg = FioWorkload {
        path: Some(path),
        global: BTreeMap::new(),
        jobs: Vec::new(),
        args: Vec::new(),
        vars: BTreeMap::new(),
    };
    load(&cfg, cap, 7, false, zoned)
}

fn all(s: &mut Stream) -> Vec<Request> {
    let mut out = Vec::new();
    while let Some(r) = s.source.next_request(SimTime::ZERO).unwrap() {
        out.push(r);
        assert!(out.len() < 1_000_000, "runaway stream");
    }
    out
}

/// `op offset len` lines of a vendored fio iolog.
fn iolog(name: &str) -> Vec<(Op, u64, u64)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fio-iolog")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let op = match f[0] {
                "read" => Op::Read,
                "write" => Op::Write,
                o => panic!("op {o}"),
            };
            (op, f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

fn data_ops(rs: &[Request]) -> Vec<(Op, u64, u64)> {
    rs.iter()
        .filter(|r| matches!(r.op, Op::Read | Op::Write))
        .map(|r| (r.op, r.offset, r.len))
        .collect()
}

fn problem(r: Result<FioLoad>) -> String {
    match r {
        Err(e @ Error::Config { .. }) => e.to_string(),
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("expected a refusal"),
    }
}

/// fio's sequential write in zbd mode, from its rules: writes at each zone's write pointer
/// from the region's start, a jump from a zone's capacity to the next zone's start, a new pass
/// from the region's start at its end, and a reset of each full zone before its first write
/// of the new pass. The write pointers, the resets and the offsets equal fio's own iolog of
/// the same job on zones it emulated (14 zone resets, fio's count).
#[test]
fn zbd_sequential_writes_follow_fios_write_pattern() {
    let (zs, cap, zones, bs) = (8 * MIB, 6 * MIB, 8, MIB);
    let text = "[zbd-seq]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=8m\nrw=write\nbs=1m\nio_size=128m\n";
    let mut l = run(text, zones * zs, Some(dev(zs, cap, zones, 14))).unwrap();
    let got = all(&mut l.streams[0]);

    // The rule, by hand.
    let mut want = Vec::new();
    let mut wp = vec![0u64; zones as usize];
    let mut resets = 0;
    'passes: loop {
        for z in 0..zones {
            for _ in 0..cap / bs {
                if want.iter().filter(|r: &&Request| r.op == Op::Write).count() as u64 * bs
                    >= 128 * MIB
                {
                    break 'passes;
                }
                if wp[z as usize] == cap {
                    wp[z as usize] = 0;
                    resets += 1;
                    want.push(Request {
                        op: Op::ZoneReset,
                        offset: z * zs,
                        len: zs,
                        ..got[0]
                    });
                }
                want.push(Request {
                    op: Op::Write,
                    offset: z * zs + wp[z as usize],
                    len: bs,
                    ..got[0]
                });
                wp[z as usize] += bs;
            }
        }
    }
    let shape = |rs: &[Request]| -> Vec<(Op, u64, u64)> {
        rs.iter().map(|r| (r.op, r.offset, r.len)).collect()
    };
    assert_eq!(shape(&got), shape(&want));
    assert_eq!(resets, 14);
    assert_eq!(got.iter().filter(|r| r.op == Op::ZoneReset).count(), 14);
    // fio's own stream of the job (its resets are not in an iolog).
    assert_eq!(data_ops(&got), iolog("zbd-seq-write.txt"));
}
