//! Simulated time cannot wrap: config durations that do not fit are refused naming their key,
//! longer latencies make requests slower (never faster), a run that needs more simulated
//! time than u64 ns holds ends with an error naming a key, and the stack's periodic work
//! costs time per decision, not per period.

use crate::support::{script_sim, NO_PRECONDITION};
use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use flashpress_core::workload::{Drive, Op};
use flashpress_core::Error;

fn tiny(extra: &str) -> SimConfig {
    SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{extra}"), "test").unwrap()
}

fn config_key(e: &Error) -> &str {
    match e {
        Error::Config { key, .. } => key,
        other => panic!("expected a config error, got {other}"),
    }
}

/// Values far past anything physical: each is refused at build time naming its own key (by
/// the config's ranges or, behind them, by the conversion to nanoseconds), never wrapped or
/// saturated into a different duration.
#[test]
fn durations_that_do_not_fit_are_refused_naming_their_key() {
    let cases = [
        (
            "[nand]\nprogram_latency_us = [1e20]\n",
            "nand.program_latency_us",
        ),
        ("[nand]\nread_latency_us = [1e20]\n", "nand.read_latency_us"),
        ("[nand]\nerase_latency_us = 1e13\n", "nand.erase_latency_us"),
        (
            "[nand]\nchannel_mb_per_s = 1e-300\n",
            "nand.channel_mb_per_s",
        ),
        ("[host]\nlink_mb_per_s = 1e-300\n", "host.link_mb_per_s"),
        (
            "[controller]\necc_decode_us = 1e13\n",
            "controller.ecc_decode_us",
        ),
        ("[stats]\ninterval_ms = 1e300\n", "stats.interval_ms"),
    ];
    for (toml, key) in cases {
        let cfg = SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{toml}"), "test");
        let e = match cfg {
            Err(e) => e,
            Ok(cfg) => match Simulation::new(cfg) {
                Err(e) => e,
                Ok(_) => panic!("{toml:?} was accepted"),
            },
        };
        // A list value is named by its element (`nand.program_latency_us[0]`).
        assert!(config_key(&e).starts_with(key), "{toml:?}: {e}");
    }
}

/// Write latency grows with the program latency, up to the longest the config's range allows
/// (1 s, hundreds of times any flash's; before the ranges and checked arithmetic, 1e20 us
/// wrapped into writes faster than the default's).
#[test]
fn longer_program_latencies_make_writes_slower() {
    let mut last = 0.0;
    for program_us in [200.0, 2e3, 2e4, 1e6] {
        let cfg = tiny(&format!(
            "[nand]\nprogram_latency_us = [{program_us:e}]\n{NO_PRECONDITION}"
        ));
        let script = (0..64u64).map(|i| (Op::Write, i * 4096, 4096, 0)).collect();
        let rep = script_sim(&cfg, script, Drive::Closed { depth: 1 })
            .run()
            .unwrap();
        let p50 = rep.summary.write.latency_us.unwrap().p50;
        assert!(
            p50 >= program_us && p50 > last,
            "program {program_us} us: write p50 {p50} us after {last} us"
        );
        last = p50;
    }
}

/// A request arriving just before the end of representable time: its completion would be
/// past it. The sums saturate at the horizon and the run ends with a config error naming the
/// longest per-operation duration, not a completion at a wrapped (earlier) time.
#[test]
fn a_run_past_the_end_of_simulated_time_fails_naming_a_key() {
    let cfg = tiny(NO_PRECONDITION);
    let late = u64::MAX - 1_000;
    let script = vec![(Op::Write, 0, 4096, 0), (Op::Write, 4096, 4096, late)];
    let Err(e) = script_sim(&cfg, script, Drive::Open).run() else {
        panic!("a completion past 2^64 ns was accepted");
    };
    assert_eq!(config_key(&e), "nand.erase_latency_us", "{e}");
    assert!(e.to_string().contains("584 years"), "{e}");
}

/// SMART read and space-policy step at the shortest periods the config's ranges allow (1 ms)
/// under the stack's 100 ms thermal step: the run completes. A smoke check only: with the
/// ranges' 1 ms floor even the old per-period loop would finish here; what made 1e-6 ms
/// periods loop 10^8 times per tick is now refused by the ranges (`config_fuzz` checks that).
#[test]
fn the_shortest_stack_periods_run() {
    let cfg = SimConfig::from_toml_str(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack]\npolicy = \"waltz_p\"\n\
         [stack.fs]\npartition_bytes = 268435456\n[stack.tcs]\nsmart_interval_ms = 1\n\
         [stack.space]\ntype = \"osa\"\nft_sc_per_s = 1.0\nft_c_per_s = 100.0\nts = 0.01\n\
         rs_max = 0.1\ninterval_ms = 1\n\
         [workload]\ntype = \"fio\"\n[workload.global]\nrw = \"write\"\nbs = \"128k\"\n\
         iodepth = 1\nsize = \"64m\"\nruntime = \"1s\"\ntime_based = true\n\
         [[workload.jobs]]\nname = \"w\"\n",
        "test",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    assert!(rep.summary.write.requests > 0);
    // Generous: the run takes well under a second; the old loop took minutes.
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

/// `tiny` writing 16 MiB in 1 MiB requests with content in `mode` under `codec`.
fn big_writes(mode: &str, codec: &str) -> SimConfig {
    tiny(&format!(
        "[content]\nmode = \"{mode}\"\ncodec = \"{codec}\"\n\
         ratio = {{ type = \"uniform\", min = 1.0, max = 4.0 }}\n\
         [workload]\ntype = \"fio\"\n[[workload.jobs]]\nname = \"w\"\nrw = \"randwrite\"\n\
         bs = \"1m\"\nsize = \"16m\"\n"
    ))
}

/// A hook that says stop on its first call and never after.
fn stop_once() -> (
    flashpress_core::interrupt::SharedHook,
    std::sync::Arc<std::sync::atomic::AtomicU32>,
) {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    let calls = Arc::new(AtomicU32::new(0));
    let c = Arc::clone(&calls);
    let hook: flashpress_core::interrupt::SharedHook = Arc::new(move || {
        if c.fetch_add(1, Ordering::SeqCst) == 0 {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    });
    (hook, calls)
}

/// An interrupt inside an event's codec loop (bytes mode: 256 codec calls per 1 MiB write,
/// the content model reads the clock before each) stops the step at once, and the simulation
/// refuses to go on from the half-done event.
#[test]
fn an_interrupt_inside_a_codec_loop_stops_the_step_and_the_run() {
    let mut sim = Simulation::new(big_writes("bytes", "zstd-19")).unwrap();
    let (hook, calls) = stop_once();
    sim.set_interrupt(Some(hook));
    let t0 = std::time::Instant::now();
    let e = loop {
        match sim.step(1 << 20) {
            Ok(true) => panic!("the run ended without polling its hook"),
            Ok(false) => continue,
            Err(e) => break e,
        }
    };
    assert!(matches!(e, Error::Interrupted), "{e}");
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    // The hook is first due 10 ms after it was set; the step ended within a few codec calls.
    assert!(t0.elapsed() < std::time::Duration::from_secs(5));
    assert!(sim.progress().requests_completed < 16);
    match sim.step(1) {
        Err(Error::State(msg)) => assert!(msg.contains("interrupted"), "{msg}"),
        other => panic!("expected a state error, got {other:?}"),
    }
}

/// An interrupt between events (content off: nothing polls inside them) stops the step, and
/// stepping on gives the same results as a run never interrupted.
#[test]
fn an_interrupt_between_events_can_be_resumed_to_the_same_results() {
    // Enough events for the clock to be read (every 64 events) after the hook is due.
    let cfg = many_small_writes;
    let whole = Simulation::new(cfg()).unwrap().run().unwrap();
    let mut sim = Simulation::new(cfg()).unwrap();
    let (hook, calls) = stop_once();
    sim.set_interrupt(Some(hook));
    let mut interrupted = 0;
    loop {
        match sim.step(1 << 20) {
            Ok(true) => break,
            Ok(false) => {}
            Err(Error::Interrupted) => interrupted += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(interrupted, 1);
    assert!(calls.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    let resumed = sim.finish().unwrap();
    assert_eq!(resumed.summary_json(), whole.summary_json());
    assert_eq!(resumed.timeline_csv(), whole.timeline_csv());
}

/// Many small random writes (the device's logical space 40 times over): a run of some
/// hundreds of milliseconds.
fn many_small_writes() -> SimConfig {
    tiny(
        "[workload]\ntype = \"fio\"\n[[workload.jobs]]\nname = \"w\"\nrw = \"randwrite\"\n\
         bs = \"4k\"\niodepth = 8\nloops = 40\n",
    )
}
