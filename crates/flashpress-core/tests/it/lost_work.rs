//! No lost work: a long mixed run after a fill completes every request, the FTL's invariants
//! hold, and verify mode confirms every read returns what was last written.

use crate::support::{config, uniform_stream};
use flashpress_core::sim::Simulation;
use flashpress_core::Error;

#[test]
fn million_mixed_requests_after_fill_complete_and_verify() {
    let cfg = config(
        "preset = \"bench-mlc-2g\"\n[check]\nverify = true\ninvariants = true\n\
         [workload]\ntype = \"fio\"\n[[workload.jobs]]\nrw = \"randrw\"\n",
    );
    let stream = uniform_stream(&cfg, 1_000_000, 0.7, 32, 5);
    let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
    while !sim.step(100_000).unwrap() {}
    sim.device().unwrap().ftl.check_invariants().unwrap();
    let s = sim.finish().unwrap().summary;
    assert_eq!(s.requests_issued, 1_000_000);
    assert_eq!(s.requests_completed, s.requests_issued);
    assert_eq!(s.read.requests + s.write.requests, 1_000_000);
    // every read page was checked (reads are single pages here)
    assert_eq!(s.verified_page_reads, s.read.requests);
    assert!(s.gc_blocks_erased > 0, "the run must exercise GC");
    let r = s.read.requests as f64 / 1e6;
    assert!((r - 0.7).abs() < 0.01, "read fraction {r}");
}

#[test]
fn finish_reports_a_corrupted_reverse_map() {
    let cfg = config("preset = \"tiny\"\n[precondition]\nfill_fraction = 0.5\n");
    let stream = uniform_stream(&cfg, 1000, 0.0, 4, 1);
    let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
    while !sim.step(10_000).unwrap() {}
    sim.device().unwrap().ftl.check_invariants().unwrap();
    sim.device_mut_for_test().ftl.corrupt_for_test();
    assert!(matches!(sim.finish(), Err(Error::Invariant(_))));
}

#[test]
fn verify_mode_catches_a_wrong_read() {
    let cfg = config("preset = \"tiny\"\n[precondition]\nfill_fraction = 0.5\n");
    let stream = uniform_stream(&cfg, 200, 1.0, 1, 1);
    let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
    sim.device_mut_for_test().corrupt_shadow_for_test();
    let err = loop {
        match sim.step(10_000) {
            Ok(true) => panic!("verify mode missed corrupted content"),
            Ok(false) => {}
            Err(e) => break e,
        }
    };
    assert!(matches!(err, Error::Verify(_)), "{err}");
}

#[test]
fn finishing_early_is_an_error_not_a_panic() {
    let cfg = config("preset = \"tiny\"\n");
    let stream = uniform_stream(&cfg, 1000, 0.0, 4, 1);
    let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
    assert!(!sim.step(10).unwrap());
    assert!(matches!(sim.finish(), Err(Error::State(_))));
}
