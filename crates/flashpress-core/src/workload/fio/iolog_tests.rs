//! Request streams beside fio's own: each expected stream here is an iolog that fio 3.33
//! wrote (`crates/flashpress-core/tests/fio-iolog`, see the README there for how each was
//! made), or a rule stated in fio's HOWTO or source, never flashpress's own output.

use super::{load_streams, FioWorkload};
use crate::units::SimTime;
use crate::workload::{Op, Request, Stream};
use std::collections::BTreeMap;

/// `op offset len` lines of a vendored fio iolog (bytes).
pub(super) fn iolog(name: &str) -> Vec<(Op, u64, u64)> {
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
                "trim" => Op::Trim,
                o => panic!("op {o}"),
            };
            (op, f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

pub(super) fn streams(text: &str, cap: u64, seed: u64) -> Vec<Stream> {
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
    load_streams(&cfg, cap, seed).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn all(s: &mut Stream) -> Vec<Request> {
    let mut out = Vec::new();
    while let Some(r) = s.source.next_request(SimTime::ZERO).unwrap() {
        out.push(r);
        assert!(out.len() < 1_000_000, "runaway stream");
    }
    out
}

pub(super) fn ops(rs: &[Request]) -> Vec<(Op, u64, u64)> {
    rs.iter().map(|r| (r.op, r.offset, r.len)).collect()
}

const GIB: u64 = 1 << 30;

/// `random_generator=lfsr` visits the blocks in fio's LFSR order (lib/lfsr.c): the taps of
/// the smallest LFSR whose states exceed the block count, the seed
/// `FIO_RANDSEED * thread_number` with `randrepeat=1` (whatever `randseed` says), fio's seed
/// chain from `randseed` with `randrepeat=0`, and a second pass that steps once from the
/// same seed where the first stepped twice (so 125 blocks are visited in two different
/// orders). Every case is fio 3.33's own iolog; the run's seed plays no part.
#[test]
fn lfsr_order_is_fios() {
    let cases = [
        (
            "[j]\nfilename=/dev/sdb\nrw=randwrite\nbs=4k\nsize=1m\nrandom_generator=lfsr\n",
            0,
            "lfsr-256.txt",
        ),
        (
            "[j]\nfilename=/dev/sdb\nrw=randread\nbs=8k\nsize=1000k\nio_size=2000k\nrandom_generator=lfsr\n",
            0,
            "lfsr-125x2.txt",
        ),
        (
            "[j]\nfilename=/dev/sdb\nrw=randwrite\nbs=4k\nsize=400k\nrandrepeat=0\nrandseed=12345\nrandom_generator=lfsr\n",
            0,
            "lfsr-seed.txt",
        ),
        (
            // The third job fio numbers: two clones of `a`, then `b`.
            "[global]\nrw=randread\nbs=4k\nsize=400k\nrandom_generator=lfsr\nfilename=/dev/sdb\n[a]\nnumjobs=2\n[b]\n",
            2,
            "lfsr-third.txt",
        ),
    ];
    for (text, stream, log) in cases {
        for seed in [1, 99] {
            let mut st = streams(text, GIB, seed);
            assert_eq!(ops(&all(&mut st[stream])), iolog(log), "{log} seed {seed}");
        }
    }
    // randseed does not move the LFSR while randrepeat is on (fio overwrites the block seed).
    let text =
        "[j]\nfilename=/dev/sdb\nrw=randwrite\nbs=4k\nsize=1m\nrandseed=5\nrandom_generator=lfsr\n";
    assert_eq!(
        ops(&all(&mut streams(text, GIB, 3)[0])),
        iolog("lfsr-256.txt")
    );
}

/// With `randrepeat=0` and no `randseed` fio seeds from the system's RNG; flashpress from the
/// run's seed: still a permutation of the blocks per pass, and the same for the same seed.
#[test]
fn lfsr_without_a_repeatable_seed_follows_the_runs_seed() {
    let text = "[j]\nfilename=/dev/sdb\nrw=randwrite\nbs=4k\nsize=1000k\nrandrepeat=0\nrandom_generator=lfsr\n";
    let run = |seed| -> Vec<u64> {
        ops(&all(&mut streams(text, GIB, seed)[0]))
            .iter()
            .map(|x| x.1 / 4096)
            .collect()
    };
    let a = run(1);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..250).collect::<Vec<_>>());
    assert_eq!(a, run(1));
    assert_ne!(a, run(2));
}
