//! The measured window (`stats.warmup_ms`): the summary counts what completes (or is booked)
//! after the warm-up, the simulation itself is unchanged, and event times stay absolute.

use crate::support::{config, timeline_col as col};
use flashpress_core::sim::Simulation;
use flashpress_core::stats::RunReport;

/// Sum over the timeline rows that end at or before `until_s` of a per-row count column.
fn rows_until(rep: &RunReport, name: &str, until_s: f64) -> f64 {
    let t = col(rep, "time_s");
    col(rep, name)
        .iter()
        .zip(&t)
        .filter(|(_, &ts)| ts <= until_s + 1e-12)
        .map(|(v, _)| *v)
        .sum()
}

/// Requests per row from a per-row IOPS column and the rows' lengths.
fn requests_until(rep: &RunReport, iops: &str, until_s: f64) -> f64 {
    let t = col(rep, "time_s");
    let v = col(rep, iops);
    let mut prev = 0.0;
    let mut n = 0.0;
    for (&ts, &x) in t.iter().zip(&v) {
        if ts <= until_s + 1e-12 {
            n += (x * (ts - prev)).round();
        }
        prev = ts;
    }
    n
}

/// 200 page writes arriving every millisecond (open loop) on the `tiny` preset, 10 ms rows.
fn paced_writes(warmup_ms: f64) -> RunReport {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("paced.trace");
    let lines: String = (0..200u64)
        .map(|k| format!("{} 0 {} 8 0\n", k * 1_000_000, k * 8))
        .collect();
    std::fs::write(&p, lines).unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n[stats]\ninterval_ms = 10.0\nwarmup_ms = {warmup_ms}\n\
         [workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\n\
         time_unit = \"ns\"\nsector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\n\
         address_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    Simulation::new(cfg).unwrap().run().unwrap()
}

#[test]
fn an_ssd_run_measures_what_completes_after_the_warm_up() {
    let whole = paced_writes(0.0);
    let rep = paced_writes(50.0);
    let s = &rep.summary;
    // Write k arrives at k ms and takes well under a millisecond (a 200 us SLC program), so
    // writes 50..199 complete in the window [50 ms, 199 ms + latency].
    assert_eq!(whole.summary.write.requests, 200);
    assert_eq!(s.write.requests, 150);
    assert_eq!(s.write.bytes, 150 * 4096);
    assert_eq!(s.window.from_s, 0.05);
    assert_eq!(s.window.to_s, whole.summary.sim_time_s);
    assert_eq!(s.sim_time_s, whole.summary.sim_time_s);
    let lat = s.window.to_s - 0.199;
    assert!(lat > 0.0 && lat < 1e-3, "last write took {lat} s");
    // one write per millisecond: 4096 B per ms over the window, to the last one's latency
    let want = 150.0 * 4096.0 / (0.149 + lat) / 1e6;
    assert!(
        (s.write.throughput_mb_s - want).abs() < 1e-9 * want,
        "{} vs {want}",
        s.write.throughput_mb_s
    );
    assert!((s.write.iops - 150.0 / (0.149 + lat)).abs() < 1e-6);
    // The warm-up does not change the run: the timeline is the same, row for row.
    assert_eq!(rep.timeline_csv(), whole.timeline_csv());
    // Window counts are the whole run's less the warm-up rows.
    for (name, total, window) in [
        (
            "nand_programs",
            whole.summary.nand_programs,
            s.nand_programs,
        ),
        ("nand_reads", whole.summary.nand_reads, s.nand_reads),
    ] {
        let warm = rows_until(&whole, name, 0.05);
        assert!(
            warm > 0.0 || name == "nand_reads",
            "{name}: nothing in the warm-up"
        );
        assert_eq!(window as f64, total as f64 - warm, "{name}");
    }
    assert_eq!(
        s.write.requests as f64,
        200.0 - requests_until(&whole, "write_iops", 0.05)
    );
    assert_eq!(s.requests_issued, 150);
    assert_eq!(s.requests_completed, 150);
    let e = &s.energy;
    assert!(e.total_j < whole.summary.energy.total_j && e.total_j > 0.0);
}

#[test]
fn a_warm_up_longer_than_the_run_leaves_an_empty_window() {
    let rep = paced_writes(10_000.0);
    let s = &rep.summary;
    assert_eq!(s.write.requests, 0);
    assert_eq!(s.write.throughput_mb_s, 0.0);
    assert_eq!(s.nand_programs, 0);
    assert_eq!(s.window.from_s, 10.0);
    assert_eq!(s.window.seconds, 0.0);
}

/// 128 KiB sequential writes from two jobs on the (reduced) `waltz` stack, starting hot.
fn stack_run(policy: &str, warmup_ms: f64) -> RunReport {
    let cfg = config(&format!(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stats]\ninterval_ms = 20.0\n\
         warmup_ms = {warmup_ms}\n[stack]\npolicy = \"{policy}\"\n[stack.fs]\n\
         partition_bytes = 1073741824\n[stack.ccsd.thermal]\ninitial_c = 76.5\n\
         [workload]\ntype = \"fio\"\n[workload.global]\nrw = \"write\"\nbs = \"128k\"\n\
         numjobs = 2\niodepth = 1\ndirect = 1\nsize = \"256m\"\nruntime = \"600ms\"\ntime_based = true\n\
         buffer_compress_percentage = 50\n[[workload.jobs]]\nname = \"w\"\n"
    ));
    Simulation::new(cfg).unwrap().run().unwrap()
}

#[test]
fn a_stack_run_counts_device_work_and_energy_over_the_window() {
    let whole = stack_run("baseline", 0.0);
    let rep = stack_run("baseline", 300.0);
    let (s, w) = (&rep.summary, &whole.summary);
    assert_eq!(rep.timeline_csv(), whole.timeline_csv());
    let (st, wst) = (s.stack.as_ref().unwrap(), w.stack.as_ref().unwrap());
    // Event times and levels stay absolute: the device throttles at the start.
    let first = wst
        .temperature
        .first_throttle_s
        .expect("starts at 76.5 °C and throttles");
    assert!(first < 0.3, "first throttle at {first} s");
    assert_eq!(st.temperature.first_throttle_s, Some(first));
    assert_eq!(st.temperature.max_c, wst.temperature.max_c);
    // Host bytes: the whole run's less the warm-up rows.
    let warm_reqs = requests_until(&whole, "write_iops", 0.3);
    assert!(warm_reqs > 0.0);
    assert_eq!(s.write.requests as f64, w.write.requests as f64 - warm_reqs);
    // Baseline: the engine compresses every block the file system writes, booked when it is
    // submitted. At most one request per job straddles the warm-up's end.
    let blocks = st.tasks.compress_device_blocks as f64;
    let want = s.write.bytes as f64 / 4096.0;
    assert!(
        (blocks - want).abs() <= 2.0 * 32.0,
        "{blocks} blocks compressed vs {want} written in the window"
    );
    assert!(st.tasks.compress_device_blocks < wst.tasks.compress_device_blocks);
    // Idle power over the window: idle_w x window, to one thermal step (100 ms x 5 W).
    let idle = st
        .device
        .counters
        .expect("the CCSD's counters")
        .energy_idle_j;
    let want_idle = 5.0 * s.window.seconds;
    assert!(
        (idle - want_idle).abs() <= 0.5 + 1e-9,
        "idle {idle} J vs {want_idle} J"
    );
    // Throttled over the window: no more than its length.
    assert!(st.temperature.throttled_s <= s.window.seconds + 0.1);
    assert!(st.energy.device_mean_w > 0.0);
    assert!(
        (st.energy.device_mean_w * s.window.seconds - st.energy.device_j).abs()
            < 1e-9 * st.energy.device_j
    );
}

/// Requests in flight when the warm-up ends complete in the window: they count as issued in it
/// too, so a run that completes everything reports as many completed as issued (a queue-depth
/// workload on `tiny` with a 1 ms warm-up once reported 6,947 completed of 6,939 issued).
#[test]
fn issued_and_completed_are_counted_over_the_same_window() {
    for warmup_ms in [0.3, 1.0, 2.5] {
        let cfg = config(&format!(
            "preset = \"tiny\"\n[stats]\nwarmup_ms = {warmup_ms}\n"
        ));
        let rep = Simulation::new(cfg).unwrap().run().unwrap();
        let s = &rep.summary;
        assert!(s.window.from_s > 0.0);
        assert_eq!(
            s.requests_completed, s.requests_issued,
            "warm-up {warmup_ms} ms"
        );
        assert_eq!(
            s.requests_completed,
            s.read.requests + s.write.requests + s.trim.requests + s.requests_failed,
            "warm-up {warmup_ms} ms"
        );
    }
}
