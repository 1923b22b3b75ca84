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
    load_streams(&super::tests::file_cfg(path), cap, seed).unwrap_or_else(|e| panic!("{e}"))
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

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// `zonemode=strided` sequential writes on a 16 MiB device, beside fio's iologs (`psync` on
/// a 16 MiB file): the window moves on by `zonerange + zoneskip` after `zonesize` bytes and
/// goes back to the start past the *file's* end (`__fill_io_u_zone`: `f->file_offset >=
/// f->real_file_size`), not past `size`; the job moves `io_size` (else `size`) bytes. With
/// `ioengine=null` fio's file is `size` bytes long (a diskless engine), so it wraps at `size`
/// there: a real engine is what flashpress simulates.
#[test]
fn strided_writes_are_fios() {
    let cases = [
        (
            "rw=write\nbs=64k\nsize=4m\nio_size=8m\nzonemode=strided\nzonesize=256k\nzoneskip=1m\n",
            "strided-write-io-size.txt",
        ),
        (
            "rw=write\nbs=64k\nsize=2m\nzonemode=strided\nzonesize=128k\nzonerange=512k\n",
            "strided-write-range.txt",
        ),
    ];
    for (job, log) in cases {
        let text = format!("[s]\nfilename=/dev/sdb\n{job}");
        let got = ops(&all(&mut streams(&text, 16 * MIB, 1)[0]));
        assert_eq!(got, iolog(log), "{log}");
    }
}

/// `zonemode=strided` random reads: fio draws its offsets from its own generator, so the
/// order is not compared, but its rule is (HOWTO `zonemode=strided`, `__fill_io_u_zone`):
/// `zonesize` bytes from each window of `zonerange` bytes, the windows in order, back to the
/// first past `size`; within a window fio's random map keeps a block from being read twice
/// (the iologs show it). The iologs here (`psync` on a 16 MiB file) show the same windows,
/// and the same counts.
#[test]
fn strided_random_reads_keep_fios_windows() {
    let cases = [
        // (job, window step, window length, blocks per window, windows before the wrap, log)
        (
            "rw=randread\nbs=64k\nsize=2m\nzonemode=strided\nzonesize=128k\nzonerange=512k\n",
            512 * KIB,
            512 * KIB,
            2,
            32,
            "strided-randread-range.txt",
        ),
        (
            "rw=randread\nbs=64k\nsize=4m\nio_size=2m\nzonemode=strided\nzonesize=256k\nzoneskip=1m\n",
            1280 * KIB,
            256 * KIB,
            4,
            13,
            "strided-randread-skip.txt",
        ),
    ];
    for (job, step, window, per, windows, log) in cases {
        let text = format!("[s]\nfilename=/dev/sdb\n{job}");
        let fio = iolog(log);
        for seed in [1, 2] {
            let got = ops(&all(&mut streams(&text, 16 * MIB, seed)[0]));
            assert_eq!(got.len(), fio.len(), "{log}");
            for (i, chunk) in got.chunks(per).enumerate() {
                let w = (i as u64 % windows) * step;
                let mut offs: Vec<u64> = chunk.iter().map(|x| x.1).collect();
                assert!(
                    offs.iter().all(|&o| o >= w && o + 64 * KIB <= w + window),
                    "{log}: visit {i} reads {offs:?} outside [{w}, {})",
                    w + window
                );
                offs.sort_unstable();
                offs.dedup();
                assert_eq!(offs.len(), per, "{log}: a block read twice in one visit");
            }
            // fio's own stream keeps the same rule (the check above, on fio's iolog).
            for (i, chunk) in fio.chunks(per).enumerate() {
                let w = (i as u64 % windows) * step;
                assert!(chunk.iter().all(|x| x.1 >= w && x.1 + x.2 <= w + window));
            }
        }
    }
}

/// `numjobs` clones with `offset_increment`: fio's `get_start_offset` (filesetup.c) starts
/// clone k at `offset + k * offset_increment`, the percentage forms taken of the job's
/// `size` for a file set up from it; the sum is aligned up (to `offset_align`, else the
/// block size) only when the `offset` or the increment is a percentage. Each clone writes its own `size` from its start.
/// fio 3.33's starts for each case (`--debug=io`, `ioengine=null`, bs=4k, size=64k):
#[test]
fn clone_starts_and_regions_are_fios() {
    let cases: [(&str, &[u64]); 7] = [
        ("numjobs=3\noffset_increment=100k", &[0, 100, 200]),
        // 6553 and 13107 bytes, aligned up to the block size, or to offset_align.
        ("numjobs=3\noffset_increment=10%", &[0, 8, 16]),
        (
            "numjobs=3\noffset_increment=10%\noffset_align=24k",
            &[0, 24, 24],
        ),
        (
            "numjobs=3\noffset=10%\noffset_increment=100k",
            &[8, 108, 208],
        ),
        ("numjobs=2\noffset_increment=10k\noffset_align=8k", &[0, 10]),
        (
            "numjobs=3\noffset=1m\noffset_increment=25%",
            &[1024, 1040, 1056],
        ),
        ("numjobs=2\noffset_increment=1m\nrw=randwrite", &[0, 1024]),
    ];
    for (opts, starts) in cases {
        let text = format!("[c]\nfilename=f.dat\nrw=write\nbs=4k\nsize=64k\n{opts}\n");
        let mut st = streams(&text, GIB, 1);
        assert_eq!(st.len(), starts.len(), "{opts}");
        for (k, s) in st.iter_mut().enumerate() {
            let got = ops(&all(s));
            let start = starts[k] * KIB;
            let mut offs: Vec<u64> = got.iter().map(|x| x.1).collect();
            if !opts.contains("randwrite") {
                assert_eq!(offs[0], start, "{opts}: clone {k}'s first write");
            }
            offs.sort_unstable();
            let want: Vec<u64> = (0..16).map(|i| start + i * 4 * KIB).collect();
            assert_eq!(offs, want, "{opts}: clone {k}'s region");
        }
    }
}

/// Options of item 5 of the comparison: `unified_rw_reporting` only shapes fio's report
/// (accepted, the stream unchanged: fio 3.33 writes blocks 0-15 either way, reporting them as
/// "mixed"); `bs_unaligned` (byte-granular lengths in fio: 2385, 1313, ... for
/// `bsrange=1k-7k`) is refused with its line; `ddir_seq_add` is no fio option (fio: "unrecognized
/// option"), and no flashpress one.
#[test]
fn reporting_and_unaligned_options_are_treated_as_fio_would() {
    let plain = "[j]\nfilename=/dev/sdb\nrw=write\nbs=4k\nsize=64k\n";
    let want: Vec<(Op, u64, u64)> = (0..16).map(|i| (Op::Write, i * 4096, 4096)).collect();
    let text = format!("{plain}unified_rw_reporting=1\n");
    assert_eq!(ops(&all(&mut streams(&text, GIB, 1)[0])), want);
    let load = |text: String| {
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
        match load_streams(&cfg, GIB, 1) {
            Ok(_) => panic!("expected a refusal"),
            Err(e) => e.to_string(),
        }
    };
    for opt in ["bs_unaligned", "blocksize_unaligned"] {
        let e = load(format!(
            "[j]\nfilename=/dev/sdb\nrw=write\nbsrange=1k-7k\nsize=64k\n{opt}\n"
        ));
        assert!(
            e.contains("job.fio:6") && e.contains(opt) && e.contains("512-byte"),
            "{e}"
        );
    }
    let e = load(format!("{plain}ddir_seq_add=8k\n"));
    assert!(
        e.contains("job.fio:6") && e.contains("unknown fio option `ddir_seq_add`"),
        "{e}"
    );
}

/// `rw=randread:4`: four sequential reads from each random offset; a run that reaches the
/// region's end ends the job there (fio 3.33 with `psync`, `bs=4k size=64k` on a 16 MiB
/// file: 0 1 2 3, 11 12 13 14, 13 14 15, then nothing: 11 reads). The random offsets are
/// fio's generator's, so the rule is checked over seeds: every read but a run's first
/// follows the one before, no run wraps to the region's start, and a job that stops short
/// of 16 reads stops right after the last block.
#[test]
fn a_random_run_that_reaches_the_end_ends_the_job() {
    let text = "[j]\nfilename=/dev/sdb\nrw=randread:4\nbs=4k\nsize=64k\n";
    let mut short = 0;
    for seed in 0..40 {
        let blocks: Vec<u64> = ops(&all(&mut streams(text, 16 * MIB, seed)[0]))
            .iter()
            .map(|x| x.1 / 4096)
            .collect();
        assert!(blocks.len() <= 16, "seed {seed}: {blocks:?}");
        for (i, b) in blocks.iter().enumerate() {
            if i % 4 != 0 {
                assert_eq!(*b, blocks[i - 1] + 1, "seed {seed}: {blocks:?}");
            }
        }
        if blocks.len() < 16 {
            short += 1;
            assert_eq!(blocks.last(), Some(&15), "seed {seed}: {blocks:?}");
        }
    }
    assert!(short > 0, "some seed reaches the end mid-run");
}

/// The same with mixed block sizes: a run's next block that would cross the region's end ends
/// the job as well (fio's `fill_io_u` fails an io_u past the file's end), never wrapping to the
/// region's start; every read stays inside the 64 KiB.
#[test]
fn a_random_run_whose_next_block_crosses_the_end_ends_the_job() {
    let text = "[j]\nfilename=/dev/sdb\nrw=randread:4\nbssplit=4k/50:8k/50\nsize=64k\n";
    let mut crossed = 0;
    for seed in 0..60 {
        let got = ops(&all(&mut streams(text, 16 * MIB, seed)[0]));
        for (i, x) in got.iter().enumerate() {
            assert!(x.1 + x.2 <= 64 * 1024, "seed {seed}: {got:?}");
            if i % 4 != 0 {
                let prev = got[i - 1];
                assert_eq!(x.1, prev.1 + prev.2, "seed {seed}: {got:?}");
            }
        }
        let last = got.last().unwrap();
        crossed += u64::from(last.1 + last.2 > 60 * 1024 && !got.len().is_multiple_of(4));
    }
    assert!(crossed > 0, "some seed ends a run at the region's end");
}
