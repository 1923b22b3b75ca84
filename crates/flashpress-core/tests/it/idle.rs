//! Idle stretches of a `[stack]` run: their ticks are skipped only where that changes nothing,
//! so a run gives the same bytes with the skip as with a tick at every thermal step.

use crate::support::config;
use flashpress_core::sim::Simulation;

/// Summary JSON, timeline columns as bits, stack ticks run, SMART readings as bits.
type Outcome = (String, Vec<(String, Vec<u64>)>, u64, Vec<u64>);

/// The `waltz` preset cut down (64 blocks per plane, a 1 GiB partition) replaying `trace`
/// (disksim, times in ns) with `extra` TOML appended; returns the summary JSON, the timeline
/// as bits, the stack ticks run and the SMART temperature the policy had read when each
/// request arrived (as bits).
fn run(trace: &str, extra: &str, skip: bool) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gap.trace");
    std::fs::write(&p, trace).unwrap();
    let cfg = config(&format!(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack.fs]\npartition_bytes = 1073741824\n\
         {extra}\n[workload]\ntype = \"trace\"\npath = \"{}\"\nformat = \"disksim\"\ntime_unit = \"ns\"\n\
         sector_size = 512\nreplay = \"timed\"\nqueue_depth = 1\ntime_scale = 1.0\n\
         address_mode = \"strict\"\nblkparse_action = \"D\"\n",
        p.display()
    ));
    let mut sim = Simulation::new(cfg).unwrap();
    sim.set_skip_idle_ticks(skip);
    // One event at a time: the reading a request's placement sees is taken when it arrives.
    let mut readings = Vec::new();
    let mut issued = 0;
    while !sim.step(1).unwrap() {
        let p = sim.progress();
        if p.requests_issued != issued {
            issued = p.requests_issued;
            readings.push(sim.stack().unwrap().smart_c().to_bits());
        }
    }
    let ticks = sim.stack_ticks();
    let rep = sim.finish().unwrap();
    let timeline = rep
        .timeline
        .iter()
        .map(|c| {
            (
                c.name.to_string(),
                c.values.iter().map(|v| v.to_bits()).collect(),
            )
        })
        .collect();
    (rep.summary_json(), timeline, ticks, readings)
}

/// Two bursts of writes (and a read), the second `gap_ms` milliseconds after the first.
fn bursts(gap_ms: u64) -> String {
    let g = gap_ms * 1_000_000;
    let mut t = String::new();
    for k in 0..40u64 {
        t += &format!("{} 0 {} 256 0\n", k * 2_000_000, k * 256);
    }
    t += &format!("{} 0 0 256 1\n", 100_000_000);
    for k in 0..40u64 {
        t += &format!("{} 0 {} 256 0\n", g + k * 2_000_000, (k + 40) * 256);
    }
    t
}

#[test]
fn skipping_idle_ticks_gives_the_same_bytes_as_ticking_every_step() {
    // (what the case exercises, extra TOML, from the first burst to the second in ms)
    let cases: &[(&str, &str, u64)] = &[
        ("baseline: cooling to the idle plateau", "", 20_000_000),
        (
            "waltz_p: SMART reads every second, the OSA space policy",
            "[stack]\npolicy = \"waltz_p\"\n[stack.space]\ntype = \"osa\"\nft_sc_per_s = 1.0\n\
             ft_c_per_s = 1.0\nts = 0.01\nrs_max = 0.1\ninterval_ms = 1000.0\n",
            20_000_000,
        ),
        (
            "tcs: SMART reads every 300 ms, off the tick grid",
            "[stack]\npolicy = \"tcs\"\n[stack.tcs]\nsmart_interval_ms = 300.0\n",
            20_000_000,
        ),
        (
            // The timeline has settled (its ticks skip), the temperature still moves by more
            // than a rounding step per tick; the last SMART read before the next request is
            // at 7999.8 s, not at the last tick before it (7999.9 s).
            "tcs: the reading the next request sees is the last read's",
            "[stack]\npolicy = \"tcs\"\n[stack.tcs]\nsmart_interval_ms = 300.0\n",
            8_000_050,
        ),
        (
            "a hot start: throttled, released while cooling in the gap",
            "[stack.ccsd.thermal]\ninitial_c = 80.0\n",
            20_000_000,
        ),
        (
            "leakage: power follows temperature, stepped, not closed form",
            "[stack.ccsd.thermal]\nleak_w = 0.5\n",
            20_000_000,
        ),
        (
            "the page cache's periodic flusher",
            "[stack.cache]\nenabled = true\ncapacity_mib = 64\n",
            20_000_000,
        ),
    ];
    for &(what, extra, gap_ms) in cases {
        let trace = bursts(gap_ms);
        let (s_skip, tl_skip, ticks_skip, r_skip) = run(&trace, extra, true);
        let (s_all, tl_all, ticks_all, r_all) = run(&trace, extra, false);
        // Without the skip, a tick at every 100 ms step of the run.
        assert!(
            ticks_all >= gap_ms / 100,
            "{what}: {ticks_all} ticks without the skip"
        );
        // The skip took effect...
        assert!(
            ticks_skip * 5 < ticks_all,
            "{what}: {ticks_skip} ticks with the skip, {ticks_all} without"
        );
        // ...and changed nothing.
        assert_eq!(s_skip, s_all, "{what}: summaries differ");
        assert_eq!(tl_skip, tl_all, "{what}: timelines differ");
        assert_eq!(r_skip, r_all, "{what}: SMART readings differ");
    }
}
