//! Real inputs (fio's example job files from `make testdata`, MQSim's TPC-C trace vendored in
//! `testdata/traces`) run end to end, and the device features they exercise
//! (stonewall phases, timed replay, TRIM, write buffer, background GC) behave.

use crate::support::{config, run_uniform};
use flashpress_core::sim::Simulation;
use std::path::PathBuf;

/// `rel` under `fio/` (fio's examples, `$FLASHPRESS_TESTDATA/fio-examples`) or `traces/`
/// (`testdata/traces` of this repository).
fn input(rel: &str) -> String {
    let p = match rel.split_once('/') {
        Some(("fio", name)) => std::env::var_os("FLASHPRESS_TESTDATA")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/testdata")
            })
            .join("fio-examples")
            .join(name),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata")
            .join(rel),
    };
    p.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e} (fio's examples: run `make testdata`)", p.display()))
        .display()
        .to_string()
}

#[test]
fn ssd_test_fio_runs_its_four_phases_in_order() {
    // fio's own example, as it is; only the runtime is shortened through `workload.global`.
    let cfg = config(&format!(
        "[workload]\ntype = \"fio\"\npath = \"{}\"\n[workload.global]\nruntime = \"200ms\"\n[precondition]\nfill_fraction = 0.0\n",
        input("fio/ssd-test.fio")
    ));
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    let s = &rep.summary;
    assert_eq!(s.requests_completed, s.requests_issued);
    assert!(s.read.requests > 0 && s.write.requests > 0);
    // four 200 ms phases one after another (each ends with its in-flight requests)
    assert!(
        s.sim_time_s > 0.8 && s.sim_time_s < 0.9,
        "sim time {}",
        s.sim_time_s
    );
    // the sequential read phase reads a file nothing wrote: fio lays its 10 GiB out before
    // the jobs start (extend_file), so every read finds data
    assert_eq!(s.precondition.layout_bytes, 10 << 30);
    assert_eq!(s.unmapped_page_reads, 0);
    let tl = rep.timeline_columns();
    assert_eq!(tl[0].name, "time_s");
}

#[test]
fn every_block_device_fio_example_loads_and_runs_briefly() {
    for f in [
        "fio-rand-RW",
        "fio-rand-read",
        "fio-rand-write",
        "fio-seq-RW",
        "fio-seq-read",
        "fio-seq-write",
        "zipf",
    ] {
        let cfg = config(&format!(
            "[workload]\ntype = \"fio\"\npath = \"{}\"\n[workload.global]\nruntime = \"20ms\"\ntime_based = true\n\
             [precondition]\nfill_fraction = 0.0\n",
            input(&format!("fio/{f}.fio"))
        ));
        let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
        assert!(s.requests_completed > 0, "{f}");
        assert_eq!(s.requests_completed, s.requests_issued, "{f}");
    }
}

#[test]
fn tpcc_trace_replays_with_its_timestamps() {
    let cfg = config(&format!(
        "[workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\ntime_unit = \"ns\"\nsector_size = 512\n\
         replay = \"timed\"\nqueue_depth = 32\ntime_scale = 1.0\naddress_mode = \"wrap\"\nblkparse_action = \"D\"\n\
         [check]\nverify = true\n",
        input("traces/tpcc-small.trace")
    ));
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    assert_eq!(s.requests_completed, 6999);
    // open loop: the run lasts at least as long as the trace's span
    let text = std::fs::read_to_string(input("traces/tpcc-small.trace")).unwrap();
    let times: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    let span = (times.iter().max().unwrap() - times[0]) as f64 * 1e-9;
    assert!(s.sim_time_s >= span, "{} < {span}", s.sim_time_s);
    assert!(s.write.requests > 0 && s.read.requests > 0);
}

#[test]
fn blkparse_discards_trim_pages_and_verify_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.blkparse");
    std::fs::write(
        &p,
        "  8,0    0        1     0.000000000   100  D   W 0 + 64 [fio]\n\
           8,0    0        2     0.001000000   100  D   R 0 + 64 [fio]\n\
           8,0    0        3     0.002000000   100  D   D 0 + 32 [fio]\n\
           8,0    0        4     0.003000000   100  D   R 0 + 64 [fio]\n",
    )
    .unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n[workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"blkparse\"\ntime_unit = \"s\"\n\
         sector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\naddress_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    assert_eq!(
        s.trimmed_pages, 4,
        "32 sectors = 16 KiB = 4 pages discarded"
    );
    assert_eq!(
        s.unmapped_page_reads, 4,
        "the second read finds the trimmed pages unmapped"
    );
    assert_eq!(s.verified_page_reads, 16);
}

#[test]
fn write_buffer_acknowledges_writes_before_they_are_programmed() {
    let run = |buffer: u32| {
        // 200 single-page writes at QD1: a 256-page buffer never fills
        run_uniform(
            &format!("preset = \"tiny\"\n[ftl]\nwrite_buffer_pages = {buffer}\n"),
            200,
            0.0,
            1,
            3,
        )
    };
    let (plain, buffered) = (run(0), run(256));
    let (a, b) = (
        plain.write.latency_us.unwrap().mean,
        buffered.write.latency_us.unwrap().mean,
    );
    // unbuffered QD1 writes wait for the 200 us program; buffered ones only for the link
    assert!(a > 200.0 && b < 5.0, "unbuffered {a} us, buffered {b} us");
    assert_eq!(plain.nand_programs, buffered.nand_programs);
}

#[test]
fn background_gc_cleans_in_idle_time_and_cuts_tail_latency() {
    // Bursts of writes separated by idle gaps (open loop): background GC cleans during the gaps.
    let run = |background: bool| {
        let cfg = config(&format!(
            "preset = \"tiny\"\n[ftl.gc]\nbackground = {background}\nbackground_threshold = 0.3\n\
             [precondition]\nfill_fraction = 1.0\naging_fraction = 1.0\n"
        ));
        let lpns = flashpress_core::ftl::logical_pages(&cfg);
        let mut src = crate::support::UniformPages {
            pages: lpns,
            page_size: 4096,
            left: 6000,
            read_fraction: 0.0,
            rng: rand::SeedableRng::seed_from_u64(9),
        };
        let mut reqs = Vec::new();
        let mut i = 0u64;
        while let Some(mut r) =
            flashpress_core::workload::RequestSource::next_request(&mut src, Default::default())
                .unwrap()
        {
            // 20 writes 1 us apart, then 60 ms idle
            r.time = flashpress_core::units::SimTime((i / 20) * 60_000_000 + (i % 20) * 1_000);
            reqs.push(r);
            i += 1;
        }
        let stream = flashpress_core::workload::Stream {
            name: "bursts".into(),
            source: Box::new(VecSource(reqs.into_iter())),
            drive: flashpress_core::workload::Drive::Open,
            group: 0,
            content: Default::default(),
            layout_bytes: 0,
        };
        Simulation::with_streams(cfg, vec![stream])
            .unwrap()
            .run()
            .unwrap()
            .summary
    };
    let (fg, bg) = (run(false), run(true));
    assert_eq!(fg.gc_background_blocks, 0);
    assert!(bg.gc_background_blocks > 0);
    let (p_fg, p_bg) = (
        fg.write.latency_us.unwrap().p99,
        bg.write.latency_us.unwrap().p99,
    );
    assert!(
        p_bg < p_fg,
        "p99 with background GC {p_bg} us, without {p_fg} us"
    );
}

struct VecSource(std::vec::IntoIter<flashpress_core::workload::Request>);

impl flashpress_core::workload::RequestSource for VecSource {
    fn next_request(
        &mut self,
        _now: flashpress_core::units::SimTime,
    ) -> flashpress_core::Result<Option<flashpress_core::workload::Request>> {
        Ok(self.0.next())
    }
}

#[test]
fn gc_separate_placement_lowers_waf_under_skew() {
    // Hot/cold separation by write origin pays off when some data is rewritten far more often.
    let run = |placement: &str| {
        let cfg = config(&format!(
            "preset = \"tiny\"\n[ftl]\nplacement = {{ type = \"{placement}\" }}\n\
             [precondition]\nfill_fraction = 1.0\n\
             [workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randwrite\"\nbs = \"4k\"\n\
             random_distribution = \"zipf:1.2\"\nnumber_ios = 60000\niodepth = 4\n"
        ));
        Simulation::new(cfg)
            .unwrap()
            .run()
            .unwrap()
            .summary
            .waf
            .unwrap()
    };
    let (single, separate) = (run("single"), run("gc_separate"));
    assert!(
        separate < single,
        "gc_separate {separate} vs single {single}"
    );
}

#[test]
fn a_full_write_buffer_throttles_to_the_flash_rate() {
    let s = run_uniform(
        "preset = \"tiny\"\n[ftl]\nwrite_buffer_pages = 16\n",
        2000,
        0.0,
        1,
        3,
    );
    assert!(s.buffer_full_waits > 0);
    // The first 16 writes fill the buffer at once; the other 1984 drain at the flash rate:
    // 4 planes, each held for its page's transfer in (4096 B at 400 MB/s = 10.24 us) and its
    // 200 us program, so one page per 210.24 / 4 us.
    let expected = 2000.0 / (1984.0 * 210.24e-6 / 4.0);
    assert!(
        (s.write.iops - expected).abs() / expected < 0.01,
        "{} vs {expected}",
        s.write.iops
    );
}

#[test]
fn least_busy_allocation_steers_writes_around_gc() {
    let run = |striping: &str| {
        run_uniform(&format!(
            "preset = \"tiny\"\n[ftl]\nstriping = \"{striping}\"\n[precondition]\nfill_fraction = 1.0\naging_fraction = 1.0\n"
        ), 20_000, 0.0, 16, 8)
    };
    let (fixed, dynamic) = (run("channel_first"), run("least_busy"));
    assert!(
        dynamic.write.iops > fixed.write.iops * 1.05,
        "least_busy {} IOPS vs channel_first {}",
        dynamic.write.iops,
        fixed.write.iops
    );
}

#[test]
fn an_empty_trace_is_an_error_not_an_empty_result() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("empty.trace");
    std::fs::write(&p, "# nothing but a comment\n\n").unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n[workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\ntime_unit = \"ns\"\n\
         sector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\naddress_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    let err = Simulation::new(cfg)
        .err()
        .expect("an empty trace must not simulate");
    assert!(matches!(err, flashpress_core::Error::Workload(_)), "{err}");
    assert!(err.to_string().contains("empty.trace"), "{err}");
}

/// serde reports a bad value inside the `type`-tagged `[workload]` table at `workload`; the
/// config error names the key inside it.
#[test]
fn errors_inside_the_tagged_workload_table_name_the_dotted_key() {
    use flashpress_core::error::Error;
    let head = "preset = \"tiny\"\n[workload]\ntype = \"trace\"\npath = \"x.trace\"\nformat = \"blkparse\"\n\
                time_unit = \"s\"\nsector_size = 512\nreplay = \"afap\"\nqueue_depth = 8\ntime_scale = 1.0\n\
                address_mode = \"wrap\"\n";
    for (extra, key) in [
        ("blkparse_action = \"Z\"\n", "workload.blkparse_action"),
        ("blkparse_action = \"D\"\nbogus = 1\n", "workload.bogus"),
    ] {
        let text = format!("{head}{extra}");
        match flashpress_core::config::SimConfig::from_toml_str(&text, "bad.toml") {
            Err(Error::Config { key: k, .. }) => assert_eq!(k, key, "{extra}"),
            other => panic!("{extra}: expected a config error at {key}, got {other:?}"),
        }
    }
    let text =
        head.replace("queue_depth = 8", "queue_depth = \"eight\"") + "blkparse_action = \"D\"\n";
    match flashpress_core::config::SimConfig::from_toml_str(&text, "bad.toml") {
        Err(Error::Config { key: k, .. }) => assert_eq!(k, "workload.queue_depth"),
        other => panic!("expected a config error at workload.queue_depth, got {other:?}"),
    }
}

/// fio checks `rate_min` when an I/O completes, over the bytes done including it: a job paced
/// at 1250 B/s with 4 KiB blocks (one block every 3.3 s) meets `ratemin=1024` (fio 3.33 runs
/// it), where checking an empty one-second cycle in the middle of a gap failed it.
#[test]
fn rate_min_is_measured_up_to_the_next_block_as_fio_does() {
    let cfg = |ratemin: &str| {
        config(&format!(
            "preset = \"tiny\"\n[workload]\ntype = \"fio\"\njobs = [{{ name = \"r\", rw = \"read\", bs = \"4k\", \
             size = \"64k\", rate = \"1250\", ratemin = \"{ratemin}\", runtime = \"12s\", time_based = true }}]\n"
        ))
    };
    let rep = Simulation::new(cfg("1024")).unwrap().run().unwrap();
    // A block at 0 s and one every 4096 / 1250 = 3.28 s up to 12 s: 4 blocks.
    assert_eq!(rep.summary.read.requests, 4);
    // A minimum above the rate still fails, naming the option.
    let Err(err) = Simulation::new(cfg("2000")).unwrap().run() else {
        panic!("a rate_min above the rate must fail the job");
    };
    assert!(err.to_string().contains("below rate_min=2000"), "{err}");
}

#[test]
fn a_read_job_on_an_unwritten_file_reads_what_the_layout_wrote_outside_the_window() {
    // fio writes a file a job reads before the job starts (extend_file in filesetup.c):
    // the layout runs on the device before the run, untimed like preconditioning, and
    // only the job's reads are in the statistics.
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("r.fio");
    let run = |text: &str, fill: f64| {
        std::fs::write(&job, text).unwrap();
        let cfg = config(&format!(
            "preset = \"tiny\"\n[workload]\ntype = \"fio\"\npath = \"{}\"\n[precondition]\nfill_fraction = {fill}\n",
            job.display()
        ));
        Simulation::new(cfg).unwrap().run().unwrap().summary
    };
    let s = run("[r]\nrw=read\nbs=4k\nsize=1m\n", 0.0);
    assert_eq!(s.precondition.layout_bytes, 1 << 20);
    assert_eq!(s.read.requests, 256);
    assert_eq!(
        s.requests_issued, 256,
        "the layout's writes are not the job's"
    );
    assert_eq!(s.write.requests, 0);
    assert_eq!(s.unmapped_page_reads, 0, "every read finds laid-out data");
    assert!(s.nand_reads > 0);
    assert_eq!(
        s.nand_programs, 0,
        "the layout's programs are before the window"
    );
    // On a preconditioned device the file's pages are already written: nothing to lay out.
    let s = run("[r]\nrw=read\nbs=4k\nsize=1m\n", 0.5);
    assert_eq!(s.precondition.layout_bytes, 0);
    assert_eq!(s.unmapped_page_reads, 0);
    // A job on the device reads never-written addresses as a real SSD answers them.
    let s = run("[r]\nrw=read\nbs=4k\nsize=1m\nfilename=/dev/nvme0n1\n", 0.0);
    assert_eq!(s.precondition.layout_bytes, 0);
    assert!(s.unmapped_page_reads > 0);
}
