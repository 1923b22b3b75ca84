//! The timeline: one row per interval while something happens; an idle stretch keeps its first
//! and last interval only, so memory follows activity, not simulated time (a timestamp in the
//! wrong unit must not grow the timeline until the process is killed).

use crate::support::{config, timeline_col as col, uniform_stream};
use flashpress_core::sim::Simulation;
use flashpress_core::stats::RunReport;

/// A timed disksim trace (times in ns) of `lines` on the `tiny` preset (100 ms intervals),
/// with `extra` TOML appended.
fn trace_run(lines: &str, extra: &str) -> RunReport {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gap.trace");
    std::fs::write(&p, lines).unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n{extra}\n[workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\n\
         time_unit = \"ns\"\nsector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\n\
         address_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    Simulation::new(cfg).unwrap().run().unwrap()
}

/// `got` equals `want` to rounding (time_s is computed from integer ns).
fn assert_times(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

/// The counter columns add up to the run's totals, whatever rows were left out.
fn assert_counters_add_up(rep: &RunReport) {
    let s = &rep.summary;
    for (name, total) in [
        ("nand_programs", s.nand_programs),
        ("nand_reads", s.nand_reads),
        ("nand_erases", s.erases),
    ] {
        let sum: f64 = col(rep, name).iter().sum();
        assert_eq!(sum, total as f64, "{name}");
    }
    assert_eq!(
        *col(rep, "free_blocks").last().unwrap(),
        s.free_blocks_end as f64
    );
    let t = col(rep, "time_s");
    assert!(t.windows(2).all(|w| w[0] < w[1]), "time_s increases: {t:?}");
}

#[test]
fn an_enormous_second_timestamp_leaves_a_handful_of_rows() {
    // 10^18 ns (~32 years) after the first request: 10^10 intervals of 100 ms.
    let rep = trace_run("0 0 0 8 0\n1000000000000000000 0 8 8 1\n", "");
    let s = &rep.summary;
    assert_eq!(s.requests_completed, 2);
    assert!(s.sim_time_s >= 1e9, "sim time {}", s.sim_time_s);
    let t = col(&rep, "time_s");
    // the first interval, the first and the last of the idle stretch, the last interval
    assert_eq!(t.len(), 4, "time_s {t:?}");
    assert_times(&t[..3], &[0.1, 0.2, 1e9]);
    assert!(t[3] > 1e9 && t[3] <= 1e9 + 0.1, "{}", t[3]);
    assert_eq!(col(&rep, "write_iops")[0], 10.0); // one write in the first 0.1 s
    assert!(col(&rep, "read_iops")[3] > 0.0);
    assert_counters_add_up(&rep);
}

#[test]
fn requests_at_one_second_and_a_billion_seconds_stay_bounded() {
    let rep = trace_run(
        "0 0 0 8 0\n1050000000 0 8 8 0\n1000000000000000000 0 16 8 1\n",
        "",
    );
    assert_eq!(rep.summary.requests_completed, 3);
    let t = col(&rep, "time_s");
    assert_eq!(t.len(), 7, "time_s {t:?}");
    assert_times(&t[..6], &[0.1, 0.2, 1.0, 1.1, 1.2, 1e9]);
    assert!(t[6] > 1e9);
    // idle rows: nothing completed
    let w = col(&rep, "write_iops");
    assert_eq!(w, vec![10.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0]);
    assert!(col(&rep, "write_latency_mean_us")[1].is_nan());
    assert_counters_add_up(&rep);
}

#[test]
fn an_idle_gap_keeps_its_first_and_last_interval() {
    // two short bursts 10 s apart: intervals 0 and 100 busy, 1..=99 idle
    let mut lines = String::new();
    for i in 0..5u64 {
        lines += &format!("{} 0 {} 8 0\n", i * 1000, i * 8);
    }
    for i in 0..5u64 {
        lines += &format!("{} 0 {} 8 1\n", 10_050_000_000 + i * 1000, i * 8);
    }
    let rep = trace_run(&lines, "");
    let t = col(&rep, "time_s");
    assert_eq!(t.len(), 4, "time_s {t:?}");
    assert_times(&t[..3], &[0.1, 0.2, 10.0]);
    assert!(t[3] > 10.05 && t[3] < 10.1, "{}", t[3]);
    assert_eq!(col(&rep, "write_iops")[0], 50.0);
    assert_eq!(col(&rep, "read_iops")[1..3], [0.0, 0.0]);
    assert_counters_add_up(&rep);
}

#[test]
fn a_busy_run_has_one_row_per_interval() {
    let cfg = config("preset = \"tiny\"\n[stats]\ninterval_ms = 5.0\n");
    let stream = uniform_stream(&cfg, 20_000, 0.3, 8, 1);
    let rep = Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap();
    let end = rep.summary.sim_time_s;
    let t = col(&rep, "time_s");
    let n = ((end * 1e9).round() as u64).div_ceil(5_000_000) as usize;
    assert!(n > 20, "a run of {end} s is too short for this test");
    assert_eq!(t.len(), n);
    for (i, &x) in t.iter().enumerate() {
        let want = ((i + 1) as f64 * 0.005).min(end);
        assert!((x - want).abs() < 1e-9, "row {i}: {x} vs {want}");
    }
    assert_counters_add_up(&rep);
}

#[test]
fn a_stack_run_collapses_an_idle_gap_once_the_temperature_settles() {
    // The waltz preset (2 s intervals, thermal tau 573 s): two writes 10^5 s apart. The
    // temperature moves to its idle plateau over the gap; the timeline follows it until it
    // stops changing, then skips to the end of the gap.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gap.trace");
    std::fs::write(&p, "0 0 0 256 0\n100000000000000 0 256 256 0\n").unwrap();
    let cfg = config(&format!(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack.fs]\npartition_bytes = 1073741824\n\
         [workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\ntime_unit = \"ns\"\n\
         sector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\n\
         address_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    assert_eq!(rep.summary.requests_completed, 2);
    let t = col(&rep, "time_s");
    let temp = col(&rep, "temperature_c");
    let intervals = (rep.summary.sim_time_s / 2.0).ceil() as usize;
    assert!(
        t.len() < intervals / 5,
        "{} rows for {intervals} intervals",
        t.len()
    );
    // the gap's last interval is a row, at the temperature the device cooled to
    let k = t
        .iter()
        .position(|&x| (x - 100_000.0).abs() < 1e-6)
        .expect("row at 10^5 s");
    assert_eq!(k, t.len() - 2);
    // sampled every interval while it cools (consecutive rows 2 s apart), then one skip
    let skips: Vec<usize> = (1..t.len()).filter(|&i| t[i] - t[i - 1] > 2.5).collect();
    assert_eq!(skips, vec![k], "time_s {t:?}");
    assert!(
        (temp[k] - temp[k - 1]).abs() < 1e-3,
        "settled: {} vs {}",
        temp[k],
        temp[k - 1]
    );
    // the power heating the device over the idle gap is the preset's idle power (5 W, no
    // leakage), and the settled temperature is the first-order model's plateau
    // T_env + R P (23 °C + 2.363 °C/W x 5 W)
    let w = col(&rep, "device_w");
    // (plus the second write's work, a few µJ spread over the 10^5 s)
    assert!((w[k] - 5.0).abs() < 1e-3, "device_w {} over the gap", w[k]);
    assert!(
        (temp[k] - (23.0 + 2.363 * w[k])).abs() < 0.05,
        "plateau {} vs {}",
        temp[k],
        23.0 + 2.363 * w[k]
    );
    // writing 128 KiB draws more than idling
    assert!(w[0] > 5.0, "device_w {:?}", &w[..3]);
    // it moves one way towards the idle plateau (warming or cooling), without jumps
    let d: Vec<f64> = temp[1..=k].windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        d.iter().all(|&x| x >= -1e-9) || d.iter().all(|&x| x <= 1e-9),
        "temperature {temp:?}"
    );
    assert_counters_add_up(&rep);
}
