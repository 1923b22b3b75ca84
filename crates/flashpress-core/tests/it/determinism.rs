//! Same config and seed give byte-identical results; another seed differs.

use crate::support::{config, uniform_stream};
use flashpress_core::sim::Simulation;

fn run(seed: u64) -> (String, String) {
    let cfg = config(&format!(
        "preset = \"tiny\"\nseed = {seed}\n[ftl.gc]\nvictim = \"random\"\n[precondition]\nfill_fraction = 0.8\naging_fraction = 1.0\n"
    ));
    let stream = uniform_stream(&cfg, 20_000, 0.3, 8, seed);
    let rep = Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap();
    (rep.summary_json(), rep.timeline_csv())
}

#[test]
fn same_seed_same_bytes_other_seed_differs() {
    let a = run(3);
    let b = run(3);
    assert_eq!(a, b);
    let c = run(4);
    assert_ne!(a.0, c.0);
}
