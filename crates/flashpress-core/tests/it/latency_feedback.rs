//! Completion latencies fed back to fio jobs through the host (fio's `latency_target` and
//! `steadystate=lat`), and `dedupe_global`'s shared working sets found by a deduplicating
//! device: whole simulations against hand computations.

use crate::support::{config, NO_PRECONDITION};
use flashpress_core::sim::{open_workload_noted, Simulation};
use flashpress_core::workload::Op;
use std::collections::BTreeSet;

fn run(toml: &str) -> flashpress_core::stats::Summary {
    Simulation::new(config(toml))
        .unwrap_or_else(|e| panic!("{e}"))
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

fn fio(job: &str) -> String {
    format!(
        "preset = \"tiny\"\n{NO_PRECONDITION}[workload]\ntype = \"fio\"\n[[workload.jobs]]\n{job}"
    )
}

/// A target no depth misses: fio's search goes 1, 2, 4, 8 (`iodepth`), one window each,
/// then (8 again) one final window at 8 and ends: five windows of 10 ms, so the job ends at
/// 50 ms (plus the last window's closing completion and the drain) instead of running its
/// 1 s. Only the completions fed back end it.
#[test]
fn latency_target_search_ends_the_job_after_its_windows() {
    let s = run(&fio(
        "name = \"lt\"\nrw = \"randread\"\nsize = \"8m\"\niodepth = 8\ntime_based = true\n\
         runtime = \"1s\"\nlatency_target = \"1s\"\nlatency_window = \"10ms\"\n",
    ));
    assert!(
        (0.050..0.052).contains(&s.sim_time_s),
        "ended at {} s",
        s.sim_time_s
    );
    // Without the target the same job runs its second.
    let s = run(&fio(
        "name = \"lt\"\nrw = \"randread\"\nsize = \"8m\"\niodepth = 8\ntime_based = true\nruntime = \"100ms\"\n",
    ));
    assert!(s.sim_time_s >= 0.1, "{}", s.sim_time_s);
}

/// Random reads at depth 1 on an idle device take the same time each, so every 10 ms
/// interval's mean completion latency is the same: steady as soon as three intervals are
/// closed, at 30 ms.
#[test]
fn steadystate_on_latency_ends_a_steady_job() {
    let s = run(&fio(
        "name = \"ss\"\nrw = \"randread\"\nsize = \"8m\"\ntime_based = true\nruntime = \"1s\"\n\
         steadystate = \"lat:2%\"\nss_dur = \"30ms\"\nss_interval = \"10ms\"\n",
    ));
    assert!(
        (0.030..0.031).contains(&s.sim_time_s),
        "ended at {} s",
        s.sim_time_s
    );
}

/// Two jobs writing with half their blocks duplicates from a working set: with
/// `dedupe_global` some duplicates carry the other job's content, which the inline dedup
/// engine finds like any other: its duplicate count is the writes less the distinct contents
/// written (nothing is overwritten), and fewer distinct contents are written than without
/// (the two jobs' 102-block working sets become one of 102 shared blocks).
#[test]
fn dedupe_global_duplicates_cross_jobs_on_a_dedup_device() {
    let job = |global: &str| {
        format!(
            "preset = \"tiny\"\n{NO_PRECONDITION}[ftl.dedup]\nmode = \"inline\"\nhash_us = 1.0\n\
             [workload]\ntype = \"fio\"\n[workload.global]\nrw = \"write\"\nsize = \"4m\"\n\
             dedupe_percentage = 50\ndedupe_mode = \"working_set\"\n\
             dedupe_working_set_percentage = 10\n{global}\
             [[workload.jobs]]\nname = \"a\"\n[[workload.jobs]]\nname = \"b\"\n"
        )
    };
    let mut distinct_ws = Vec::new();
    for global in ["dedupe_global = true\n", ""] {
        let cfg = config(&job(global));
        let sim = Simulation::new(cfg.clone()).unwrap();
        let capacity = sim.device().unwrap().capacity_bytes();
        // The same streams, read by a brute-force model.
        let w = open_workload_noted(&cfg, capacity).unwrap();
        let (mut writes, mut ids, mut crossing, mut ws) =
            (0u64, BTreeSet::new(), 0u64, BTreeSet::new());
        for (i, mut s) in w.streams.into_iter().enumerate() {
            while let Some(r) = s
                .source
                .next_request(flashpress_core::units::SimTime::ZERO)
                .unwrap()
            {
                assert_eq!((r.op, r.len), (Op::Write, 4096));
                writes += 1;
                ids.insert(r.content);
                crossing += u64::from(r.content >> 40 != i as u64 + 1);
                if r.content & ((1 << 40) - 1) <= 102 {
                    ws.insert(r.content);
                }
            }
        }
        let s = sim.run().unwrap().summary;
        let dd = s.dedup.unwrap();
        assert_eq!(writes, 2048);
        assert_eq!(
            dd.counters.inline_duplicates,
            writes - ids.len() as u64,
            "{global:?}"
        );
        if global.is_empty() {
            assert_eq!(crossing, 0);
        } else {
            // A quarter of the writes (+- 4 sd of a binomial of 2048 x 1/4).
            assert!(
                (crossing as f64 - 512.0).abs() < 4.0 * (2048.0f64 * 0.25 * 0.75).sqrt(),
                "{crossing}"
            );
        }
        distinct_ws.push(ws.len());
    }
    // Shared, the working-set contents are the two jobs' first 51 blocks each, all drawn
    // (about 1,000 draws over 102 ids); apart, each job draws about 512 times over its own
    // 102 (204 x (1 - e^-5) = 203 expected).
    assert_eq!(distinct_ws[0], 102);
    assert!(distinct_ws[1] > 190, "{distinct_ws:?}");
}
