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

#[test]
fn every_summary_field_has_a_unit_and_description() {
    fn leaves(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    leaves(&p, v, out);
                }
            }
            _ => out.push(prefix.to_string()),
        }
    }
    let mut keys = Vec::new();
    // Content on, so the `content.*` fields are present too; deduplication on, so the
    // `dedup.*` fields are.
    for toml in [
        "preset = \"tiny\"\n[content]\nmode = \"model\"\n",
        "preset = \"tiny\"\n[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\n",
        "preset = \"tiny\"\n[ftl]\nmap_cache = { type = \"demand\", dram_bytes = 8192, policy = \"lru\" }\n",
        "preset = \"tiny\"\n[ftl]\nop_ratio = 0.3\n[fdp]\nhandles = [\"initially_isolated\"]\n",
    ] {
        let cfg = config(toml);
        let stream = uniform_stream(&cfg, 2000, 0.5, 4, 1);
        let rep = Simulation::with_streams(cfg, vec![stream])
            .unwrap()
            .run()
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&rep.summary_json()).unwrap();
        leaves("", &v, &mut keys);
    }
    // A [stack] run, so the `stack.*` fields are present too.
    let cfg = config(
        "preset = \"waltz\"\n[nand]\nblocks_per_plane = 64\n[stack.fs]\npartition_bytes = 1073741824\n\
         [workload]\ntype = \"fio\"\n[[workload.jobs]]\nname = \"w\"\nrw = \"randwrite\"\n\
         bs = \"4k\"\nsize = \"64m\"\nnumber_ios = 2000\n",
    );
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    let v: serde_json::Value = serde_json::from_str(&rep.summary_json()).unwrap();
    leaves("", &v, &mut keys);
    assert!(keys.iter().any(|k| k.starts_with("dedup.")));
    assert!(keys.iter().any(|k| k.starts_with("map_cache.")));
    assert!(keys.iter().any(|k| k.starts_with("fdp.")));
    let described: Vec<&str> = flashpress_core::stats::stat_descriptions()
        .iter()
        .map(|d| d.0)
        .collect();
    for k in keys {
        // `read.*` describes the same fields under `write` and `trim`
        let generic = k
            .replacen("write.", "read.", 1)
            .replacen("trim.", "read.", 1);
        // a null object (e.g. latency of an op with no requests) is described field by field
        let ok = described.contains(&generic.as_str())
            || described
                .iter()
                .any(|d| d.starts_with(&format!("{generic}.")));
        assert!(ok, "summary field `{k}` has no unit/description");
    }
}
