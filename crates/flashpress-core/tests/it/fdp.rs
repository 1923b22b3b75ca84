//! NVMe Flexible Data Placement: placement identifiers in a csv trace steer writes to reclaim
//! unit handles; hot/cold separation lowers WAF as an independent greedy model with one
//! stream per handle says; without identifiers the device is the plain SSD; bad configs and
//! bad identifiers are refused by key or by line.

use crate::support::{config, uniform_stream};
use flashpress_core::config::{SimConfig, TraceFormat, WorkloadConfig};
use flashpress_core::sim::Simulation;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::collections::VecDeque;

/// One plane of 128 blocks of 32 SLC pages, 25 % over-provisioning, greedy GC: a device on
/// which per-plane greedy GC is the textbook single-pool greedy GC the model below runs.
const ONE_PLANE: &str = "preset = \"tiny\"\n[nand]\nchannels = 1\nplanes_per_die = 1\n\
    blocks_per_plane = 128\npages_per_block = 32\n[ftl]\nop_ratio = 0.25\n\
    [precondition]\nfill_fraction = 0.0\naging_fraction = 0.0\n[check]\nverify = false\n";

/// An independent model: a log-structured flash of `blocks` blocks of `ppb` pages with one
/// open block per stream, greedy GC (fewest valid pages, lowest index on ties) whenever a
/// host write needs a new block and fewer than `threshold` blocks are free, a moved page staying
/// in its own stream. Counts host writes and moves per stream.
struct Model {
    ppb: usize,
    threshold: usize,
    /// Per block: its stream, valid pages, pages written, logical page of each slot.
    stream: Vec<usize>,
    valid: Vec<usize>,
    written: Vec<usize>,
    slots: Vec<Vec<Option<usize>>>,
    free: VecDeque<usize>,
    open: Vec<Option<usize>>,
    /// Logical page -> (block, slot).
    at: Vec<Option<(usize, usize)>>,
    host: Vec<u64>,
    moved: Vec<u64>,
}

impl Model {
    fn new(blocks: usize, ppb: usize, threshold: usize, streams: usize, logical: usize) -> Model {
        Model {
            ppb,
            threshold,
            stream: vec![0; blocks],
            valid: vec![0; blocks],
            written: vec![0; blocks],
            slots: vec![vec![None; ppb]; blocks],
            free: (0..blocks).collect(),
            open: vec![None; streams],
            at: vec![None; logical],
            host: vec![0; streams],
            moved: vec![0; streams],
        }
    }

    /// Write `lpn` into stream `s`; a host write that needs a new block cleans first (a
    /// move takes a free block at once: GC keeps itself a reserve).
    fn place(&mut self, lpn: usize, s: usize, host: bool) {
        let b = match self.open[s] {
            Some(b) => b,
            None => {
                while host && self.free.len() < self.threshold {
                    if !self.gc() {
                        break;
                    }
                }
                // GC may have opened this stream's block for its moves.
                match self.open[s] {
                    Some(b) => b,
                    None => {
                        let b = self.free.pop_front().expect("a free block");
                        self.stream[b] = s;
                        self.open[s] = Some(b);
                        b
                    }
                }
            }
        };
        if let Some((ob, os)) = self.at[lpn].take() {
            self.valid[ob] -= 1;
            self.slots[ob][os] = None;
        }
        let slot = self.written[b];
        self.slots[b][slot] = Some(lpn);
        self.written[b] += 1;
        self.valid[b] += 1;
        self.at[lpn] = Some((b, slot));
        if self.written[b] == self.ppb {
            self.open[s] = None;
        }
    }

    fn write(&mut self, lpn: usize, s: usize) {
        self.host[s] += 1;
        self.place(lpn, s, true);
    }

    /// Clean the sealed block with the fewest valid pages; false if none has an invalid page.
    fn gc(&mut self) -> bool {
        let victim = (0..self.valid.len())
            .filter(|&b| self.written[b] == self.ppb && self.valid[b] < self.ppb)
            .min_by_key(|&b| (self.valid[b], b));
        let Some(v) = victim else {
            return false;
        };
        let s = self.stream[v];
        for slot in 0..self.ppb {
            if let Some(lpn) = self.slots[v][slot] {
                self.moved[s] += 1;
                self.place(lpn, s, false);
            }
        }
        assert_eq!(self.valid[v], 0);
        self.written[v] = 0;
        self.slots[v] = vec![None; self.ppb];
        self.free.push_back(v);
        true
    }
}

/// The hot/cold workload: every logical page written once in order, then `n` random
/// overwrites, 95 % of them to the first 10 % of the pages (hot). Each write is tagged with
/// its true temperature (1 hot, 0 cold) with probability `right`, else with the other one.
fn hot_cold(logical: usize, n: usize, right: f64, seed: u64) -> Vec<(usize, u16)> {
    let hot = logical / 10;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let tag = |rng: &mut Pcg64Mcg, is_hot: bool| {
        let t = if rng.random::<f64>() < right {
            is_hot
        } else {
            !is_hot
        };
        t as u16
    };
    let mut out: Vec<(usize, u16)> = (0..logical).map(|p| (p, tag(&mut rng, p < hot))).collect();
    for _ in 0..n {
        let p = if rng.random::<f64>() < 0.95 {
            rng.random_range(0..hot)
        } else {
            rng.random_range(hot..logical)
        };
        let t = tag(&mut rng, p < hot);
        out.push((p, t));
    }
    out
}

/// The writes as a csv trace with a `pid` column (`tagged`) or without, replayed one at a
/// time on `base` with `[fdp]` `handles`.
fn sim_of(
    dir: &std::path::Path,
    name: &str,
    base: &str,
    handles: &str,
    writes: &[(usize, u16)],
    tagged: bool,
) -> SimConfig {
    let mut text = String::from(if tagged {
        "time,op,offset,len,content,pid\n"
    } else {
        "time,op,offset,len,content\n"
    });
    for (i, &(p, t)) in writes.iter().enumerate() {
        text += &format!("{},W,{},4096,", i * 1000, p * 4096);
        if tagged {
            text += &format!(",{t}");
        }
        text += "\n";
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let mut cfg = config(&format!("{base}[fdp]\nhandles = {handles}\n"));
    let mut tr = flashpress_core::workload::trace::default_trace_config(path, TraceFormat::Csv);
    tr.replay = flashpress_core::config::Replay::Afap;
    tr.queue_depth = 1;
    cfg.workload = WorkloadConfig::Trace(tr);
    cfg.validate("test").unwrap();
    cfg
}

fn waf_of(s: &flashpress_core::stats::Summary) -> f64 {
    let f = s.fdp.as_ref().unwrap();
    let host: u64 = f.handles.iter().map(|h| h.host_bytes_written).sum();
    let media: u64 = f.handles.iter().map(|h| h.media_bytes_written).sum();
    media as f64 / host as f64
}

#[test]
fn hot_cold_handles_lower_waf_as_the_two_stream_greedy_model_says() {
    let dir = tempfile::tempdir().unwrap();
    let probe = config(ONE_PLANE);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let threshold = flashpress_core::ftl::gc_threshold_blocks(&probe) as usize;
    let n = 40_000;
    let mut wafs = Vec::new();
    // Tags right half the time carry no information; then better and better; then perfect.
    for (k, right) in [0.5, 0.8, 0.95, 1.0].into_iter().enumerate() {
        let writes = hot_cold(logical, n, right, 7);
        let cfg = sim_of(
            dir.path(),
            &format!("hc{k}.csv"),
            ONE_PLANE,
            "[\"persistently_isolated\", \"persistently_isolated\"]",
            &writes,
            true,
        );
        let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
        let mut m = Model::new(128, 32, threshold, 2, logical);
        for &(p, t) in &writes {
            m.write(p, t as usize);
        }
        let f = s.fdp.as_ref().unwrap();
        for h in 0..2 {
            // The host side is the trace's: exact.
            assert_eq!(f.handles[h].host_bytes_written, m.host[h] * 4096);
            let sim = f.handles[h].media_bytes_written as f64 / 4096.0;
            let model = (m.host[h] + m.moved[h]) as f64;
            assert!(
                (sim / model - 1.0).abs() < 0.03,
                "right = {right}, handle {h}: simulator {sim} media pages, model {model}"
            );
        }
        let model_waf = (m.host.iter().sum::<u64>() + m.moved.iter().sum::<u64>()) as f64
            / m.host.iter().sum::<u64>() as f64;
        let waf = waf_of(&s);
        assert!(
            (waf / model_waf - 1.0).abs() < 0.03,
            "right = {right}: WAF {waf}, model {model_waf}"
        );
        eprintln!(
            "right = {right}: WAF per handle (cold, hot) {:?}",
            f.handles.iter().map(|h| h.waf.unwrap()).collect::<Vec<_>>()
        );
        // The summary's own WAF agrees with the per-handle figures.
        assert!((s.waf.unwrap() - waf).abs() < 1e-9);
        wafs.push(waf);
    }
    // The same writes untagged: one stream (the model with every write in stream 0).
    let writes = hot_cold(logical, n, 1.0, 7);
    let cfg = sim_of(
        dir.path(),
        "mixed.csv",
        ONE_PLANE,
        "[\"persistently_isolated\", \"persistently_isolated\"]",
        &writes,
        false,
    );
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    let mut m = Model::new(128, 32, threshold, 1, logical);
    for &(p, _) in &writes {
        m.write(p, 0);
    }
    let mixed = waf_of(&s);
    let model_mixed = (m.host[0] + m.moved[0]) as f64 / m.host[0] as f64;
    assert!(
        (mixed / model_mixed - 1.0).abs() < 0.03,
        "mixed: WAF {mixed}, model {model_mixed}"
    );
    assert_eq!(s.fdp.as_ref().unwrap().handles[1].host_bytes_written, 0);
    // Random tags are no better than none; each better tagging lowers WAF.
    assert!(
        (wafs[0] / mixed - 1.0).abs() < 0.05,
        "{wafs:?} vs mixed {mixed}"
    );
    for w in wafs.windows(2) {
        assert!(w[1] < w[0], "WAF must fall as tags get better: {wafs:?}");
    }
    eprintln!("WAF by tag accuracy 0.5, 0.8, 0.95, 1: {wafs:?}; untagged {mixed}");
    assert!(wafs[3] < 0.85 * mixed, "{wafs:?} vs mixed {mixed}");
}

/// Two reclaim groups (the two dies of a device of one plane per die), two handles each:
/// placement identifier `2g + t` writes handle `t` (cold 0, hot 1) in group `g`. Each group
/// takes half the logical space with its own hot/cold writes (group 0 tagged perfectly,
/// group 1 at random), interleaved; each group's planes are a device of their own, so every
/// identifier's media writes are those of the two-stream greedy model run on its group's
/// writes alone, and the groups' WAFs differ as their tags do.
#[test]
fn reclaim_groups_are_each_the_two_stream_greedy_model() {
    let dir = tempfile::tempdir().unwrap();
    let base = ONE_PLANE.replace("[ftl]", "dies_per_chip = 2\n[ftl]");
    let probe = config(&base);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let threshold = flashpress_core::ftl::gc_threshold_blocks(&probe) as usize;
    let half = logical / 2;
    let n = 30_000;
    let groups = [hot_cold(half, n, 1.0, 11), hot_cold(half, n, 0.5, 12)];
    let mut writes = Vec::new();
    for i in 0..groups[0].len() {
        for (g, w) in groups.iter().enumerate() {
            let (p, t) = w[i];
            writes.push((g * half + p, 2 * g as u16 + t));
        }
    }
    let cfg = sim_of(
        dir.path(),
        "groups.csv",
        &base,
        "[\"persistently_isolated\", \"persistently_isolated\"]\nreclaim_groups = 2",
        &writes,
        true,
    );
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    let f = s.fdp.as_ref().unwrap();
    assert_eq!(f.reclaim_groups, 2);
    assert_eq!(
        f.reclaim_unit_bytes,
        32 * 4096,
        "one block of the group's one plane"
    );
    assert_eq!(f.handles.len(), 4);
    let mut wafs = Vec::new();
    for (g, w) in groups.iter().enumerate() {
        let mut m = Model::new(128, 32, threshold, 2, half);
        for &(p, t) in w {
            m.write(p, t as usize);
        }
        for t in 0..2 {
            let h = &f.handles[2 * g + t];
            assert_eq!(
                (h.handle, h.reclaim_group),
                ((2 * g + t) as u32, Some(g as u32))
            );
            assert_eq!(
                h.host_bytes_written,
                m.host[t] * 4096,
                "group {g} handle {t}"
            );
            let sim = h.media_bytes_written as f64 / 4096.0;
            let model = (m.host[t] + m.moved[t]) as f64;
            assert!(
                (sim / model - 1.0).abs() < 0.03,
                "group {g}, handle {t}: simulator {sim} media pages, model {model}"
            );
        }
        wafs.push(
            (m.host.iter().sum::<u64>() + m.moved.iter().sum::<u64>()) as f64
                / m.host.iter().sum::<u64>() as f64,
        );
    }
    assert!(
        wafs[0] < 0.9 * wafs[1],
        "perfect tags beat random ones: {wafs:?}"
    );
}

/// `reclaim_groups = 1` is the device without the key: tagged hot/cold writes give the same
/// summary byte for byte.
#[test]
fn one_reclaim_group_is_the_device_without_groups() {
    let dir = tempfile::tempdir().unwrap();
    let probe = config(ONE_PLANE);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let writes = hot_cold(logical, 5_000, 0.9, 3);
    let handles = "[\"persistently_isolated\", \"initially_isolated\"]";
    let run = |name: &str, h: &str| {
        let cfg = sim_of(dir.path(), name, ONE_PLANE, h, &writes, true);
        let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
        serde_json::to_string(&s).unwrap()
    };
    let a = run("a.csv", handles);
    let b = run("b.csv", &format!("{handles}\nreclaim_groups = 1"));
    assert!(a.contains("\"reclaim_groups\":1") && !a.contains("reclaim_group\":"));
    assert_eq!(a, b);
}

#[test]
fn untagged_writes_on_an_fdp_device_give_the_plain_ssd_summary() {
    for placement in ["single", "gc_separate"] {
        let base = format!(
            "preset = \"tiny\"\n[ftl]\nplacement = {{ type = \"{placement}\" }}\n\
             [precondition]\nfill_fraction = 0.8\naging_fraction = 1.0\n"
        );
        let run = |toml: &str| {
            let cfg = config(toml);
            let stream = uniform_stream(&cfg, 20_000, 0.3, 8, 5);
            let rep = Simulation::with_streams(cfg, vec![stream])
                .unwrap()
                .run()
                .unwrap();
            assert!(rep.summary.gc_invocations > 0, "the run must exercise GC");
            rep
        };
        let plain = run(&base);
        let fdp = run(&format!(
            "{base}[fdp]\nhandles = [\"initially_isolated\", \"persistently_isolated\"]\n"
        ));
        let mut v: serde_json::Value = serde_json::from_str(&fdp.summary_json()).unwrap();
        let f = v
            .as_object_mut()
            .unwrap()
            .remove("fdp")
            .expect("an fdp section");
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            serde_json::to_string(
                &serde_json::from_str::<serde_json::Value>(&plain.summary_json()).unwrap()
            )
            .unwrap(),
            "ftl.placement = {placement}"
        );
        assert_eq!(plain.timeline_csv(), fdp.timeline_csv());
        // Everything went through handle 0.
        assert_eq!(f["handles"][1]["host_bytes_written"], 0);
        assert_eq!(
            f["handles"][0]["host_bytes_written"].as_u64().unwrap(),
            plain.summary.write.bytes
        );
    }
}

#[test]
fn persistently_isolated_data_never_shares_a_block_initially_isolated_may() {
    // Two handles of each type, tagged writes at random: the FTL's invariant check (run by
    // the simulation with check.invariants) refuses a block mixing a persistently isolated
    // handle's data with another's; the initially isolated handles' GC moves share blocks.
    let dir = tempfile::tempdir().unwrap();
    let probe = config(ONE_PLANE);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    let writes: Vec<(usize, u16)> = (0..30_000)
        .map(|i| {
            let p = if i < logical {
                i
            } else {
                rng.random_range(0..logical)
            };
            (p, (p % 4) as u16)
        })
        .collect();
    let cfg = sim_of(
        dir.path(),
        "four.csv",
        ONE_PLANE,
        "[\"persistently_isolated\", \"persistently_isolated\", \"initially_isolated\", \"initially_isolated\"]",
        &writes,
        true,
    );
    let mut sim = Simulation::new(cfg).unwrap();
    while !sim.step(1 << 20).unwrap() {}
    let d = sim.device().unwrap();
    d.check_invariants().unwrap();
    let f = d.ftl.fdp.as_ref().unwrap();
    let c = &f.counters;
    assert!(c.iter().all(|h| h.gc_pages_migrated > 0), "{c:?}");
    // Handle 3's moves went to handle 2's GC destination: handle 3 opened blocks only for its
    // host writes, fewer than handle 2 (host writes and every initially isolated move).
    assert!(c[2].blocks_opened > c[3].blocks_opened, "{c:?}");
}

#[test]
fn bad_fdp_configs_and_placement_ids_are_refused_by_key_and_line() {
    let key_of = |toml: &str| match SimConfig::from_toml_str(toml, "c.toml") {
        Err(flashpress_core::Error::Config { key, msg, .. }) => (key, msg),
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("expected a config error"),
    };
    let (k, m) = key_of(&format!("{ONE_PLANE}[fdp]\nhandles = []\n"));
    assert_eq!(k, "fdp.handles");
    assert!(m.contains("got 0"), "{m}");
    // 128 blocks, 7 the GC reserve, 96 hold the logical space: room for 24 open blocks.
    let (k, m) = key_of(&format!(
        "{ONE_PLANE}[fdp]\nhandles = [{}]\n",
        vec!["\"initially_isolated\""; 25].join(", ")
    ));
    assert_eq!(k, "fdp.handles");
    assert!(
        m.contains("room for 24") && m.contains("at most 24 handles"),
        "{m}"
    );
    let (k, m) = key_of(&format!(
        "{}[fdp]\nhandles = [{}]\n",
        ONE_PLANE.replace("[ftl]\n", "[ftl]\nplacement = { type = \"gc_separate\" }\n"),
        vec!["\"initially_isolated\""; 13].join(", ")
    ));
    assert_eq!(k, "fdp.handles");
    assert!(
        m.contains("26 open blocks") && m.contains("at most 12 handles"),
        "{m}"
    );
    // 24 fit.
    config(&format!(
        "{ONE_PLANE}[fdp]\nhandles = [{}]\n",
        vec!["\"initially_isolated\""; 24].join(", ")
    ));
    let (k, _) = key_of(&format!("{ONE_PLANE}[fdp]\nhandles = [\"isolated\"]\n"));
    assert!(k.starts_with("fdp.handles"), "{k}");
    let (k, _) = key_of(&format!(
        "{ONE_PLANE}[fdp]\nhandles = [\"initially_isolated\"]\nreclaim_units = 3\n"
    ));
    assert_eq!(k, "fdp.reclaim_units");
    // Reclaim groups divide the dies (one here) and keep the identifiers to 128.
    let (k, m) = key_of(&format!(
        "{ONE_PLANE}[fdp]\nhandles = [\"initially_isolated\"]\nreclaim_groups = 2\n"
    ));
    assert_eq!(k, "fdp.reclaim_groups");
    assert!(m.contains("divisor of the array's 1 dies"), "{m}");
    let (k, m) = key_of(&format!(
        "{}[fdp]\nhandles = [{}]\nreclaim_groups = 8\n",
        ONE_PLANE.replace("[ftl]", "dies_per_chip = 8\n[ftl]"),
        vec!["\"initially_isolated\""; 17].join(", ")
    ));
    assert_eq!(k, "fdp.reclaim_groups");
    assert!(m.contains("136 placement identifiers"), "{m}");
    let (k, _) = key_of("preset = \"zns\"\n[fdp]\nhandles = [\"initially_isolated\"]\n");
    assert_eq!(k, "zns");
    let (k, _) = key_of(&format!(
        "{ONE_PLANE}[ftl.gc]\ncopyback = false\n[ftl.dedup]\nmode = \"gc\"\nhash_us = 14.0\n[fdp]\nhandles = [\"initially_isolated\"]\n"
    ));
    assert_eq!(k, "ftl.dedup");
    // Units smaller than the NAND page pack several logical units in a page: not with FDP.
    let (k, _) = key_of(
        "preset = \"tiny\"\n[nand]\nchannels = 1\nplanes_per_die = 1\nblocks_per_plane = 128\n\
         pages_per_block = 32\npage_size = 16384\n[ftl]\nop_ratio = 0.25\nmapping_unit = 4096\n\
         [ftl.gc]\ncopyback = false\n[precondition]\nfill_fraction = 0.0\n[fdp]\n\
         handles = [\"initially_isolated\"]\n",
    );
    assert_eq!(k, "ftl.mapping_unit");

    // A placement identifier on a device without [fdp]: the trace's file and line. (One past
    // the device's identifiers on a write is an event, see below.)
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = sim_of(
        dir.path(),
        "nofdp.csv",
        ONE_PLANE,
        "[\"initially_isolated\"]",
        &[(0, 0)],
        true,
    );
    cfg.fdp = None;
    match Simulation::new(cfg) {
        Err(flashpress_core::Error::Trace { line, msg, .. }) => {
            assert_eq!(line, 2);
            assert!(msg.contains("without flexible data placement"), "{msg}");
        }
        other => panic!("expected a trace error, got {:?}", other.err()),
    }
}

/// The options of fio's `examples/uring-cmd-fdp.fio` (fio 3.34 and later; Debian's 3.33
/// examples, which `make testdata` fetches, predate it), line for line.
const URING_CMD_FDP: &str = "[global]\nfilename=/dev/ng0n1\nioengine=io_uring_cmd\ncmd_type=nvme\n\
    iodepth=32\nbs=4K\nfdp=1\ntime_based=1\nruntime=1000\n\n\
    [write-heavy]\nrw=randrw\nrwmixwrite=90\nfdp_pli=0,1,2,3\noffset=0%\nsize=30%\n\n\
    [write-mid]\nrw=randrw\nrwmixwrite=30\nfdp_pli=4,5\noffset=30%\nsize=30%\n\n\
    [write-light]\nrw=randrw\nrwmixwrite=10\nfdp_pli=6\noffset=60%\nsize=30%\n";

#[test]
fn fios_fdp_example_tags_each_jobs_writes_round_robin_over_its_identifiers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("uring-cmd-fdp.fio");
    std::fs::write(&path, URING_CMD_FDP).unwrap();
    let run = |handles: usize| {
        // The example assumes at least 8 reclaim units; a 20 ms cap on its 1000 s runtime.
        let cfg = format!(
            "preset = \"tiny\"\n[ftl]\nop_ratio = 0.3\n[check]\nverify = false\n[fdp]\nhandles = [{}]\n\
             [workload]\ntype = \"fio\"\npath = \"{}\"\nglobal = {{ runtime = \"20ms\" }}\n",
            vec!["\"initially_isolated\""; handles].join(", "),
            path.display()
        );
        Simulation::new(config(&cfg))
    };
    let s = run(8).unwrap().run().unwrap().summary;
    let h: Vec<u64> = s
        .fdp
        .as_ref()
        .unwrap()
        .handles
        .iter()
        .map(|h| h.host_bytes_written / 4096)
        .collect();
    assert_eq!(h.iter().sum::<u64>() * 4096, s.write.bytes);
    let spread = |ids: &[usize]| {
        let v: Vec<u64> = ids.iter().map(|&i| h[i]).collect();
        v.iter().max().unwrap() - v.iter().min().unwrap()
    };
    // Round robin: a job's identifiers take turns; the heavy job writes most.
    assert!(h[0] > 0 && h[4] > 0 && h[6] > 0, "{h:?}");
    assert!(spread(&[0, 1, 2, 3]) <= 1 && spread(&[4, 5]) <= 1, "{h:?}");
    assert_eq!(h[7], 0);
    assert!(h[0] * 4 > h[4] * 2 && h[4] * 2 > h[6], "{h:?}");
    // On a device with fewer identifiers than the job lists: refused at the line.
    match run(6) {
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.contains("uring-cmd-fdp.fio:28:") && m.contains("index 6"),
                "{m}"
            );
        }
        Ok(_) => panic!("fdp_pli=6 on a device with 6 handles must be refused"),
    }
}

/// Four planes (four channels of one one-plane die), 64 blocks of 32 SLC pages each, 25 %
/// over-provisioning, greedy GC, `single` placement: GC's moves stay in their plane and in the
/// stream of the handle they were written through.
const FOUR_PLANES: &str = "preset = \"tiny\"\n[nand]\nchannels = 4\nplanes_per_die = 1\n\
    blocks_per_plane = 64\npages_per_block = 32\n[ftl]\nop_ratio = 0.25\n\
    [precondition]\nfill_fraction = 0.0\naging_fraction = 0.0\n[check]\nverify = false\n";

/// Bytes of one erase block of [`FOUR_PLANES`] (and [`ONE_PLANE`]).
const BLOCK: u64 = 32 * 4096;

impl Model {
    /// Invalidate `lpn` here if this plane holds it (it was rewritten on another plane).
    fn drop_page(&mut self, lpn: usize) {
        if let Some((b, slot)) = self.at[lpn].take() {
            self.valid[b] -= 1;
            self.slots[b][slot] = None;
        }
    }
}

/// The two-stream greedy model extended to reclaim units of `k` planes: one [`Model`] per
/// plane (in striping order); a handle's host writes go round robin over the `k` planes of its
/// reclaim unit, which holds `k` blocks of host writes; when they are written the handle's next
/// reclaim unit is the next `k` planes. Handle `h`'s first reclaim unit starts at plane
/// `h x k mod planes`. With `k` = every plane, the handles share one striping cursor (the
/// device's default, one reclaim unit per group).
struct RuModel {
    planes: Vec<Model>,
    home: Vec<Option<usize>>,
    k: usize,
    ru_pages: usize,
    /// Per handle: first plane of its reclaim unit, cursor in it, host pages written in it,
    /// reclaim units filled.
    start: Vec<usize>,
    cursor: Vec<usize>,
    used: Vec<usize>,
    filled: Vec<u64>,
    shared: usize,
}

impl RuModel {
    fn new(
        planes: usize,
        blocks: usize,
        ppb: usize,
        threshold: usize,
        k: usize,
        logical: usize,
    ) -> Self {
        RuModel {
            planes: (0..planes)
                .map(|_| Model::new(blocks, ppb, threshold, 2, logical))
                .collect(),
            home: vec![None; logical],
            k,
            ru_pages: k * ppb,
            start: (0..2).map(|h| h * k % planes).collect(),
            cursor: vec![0; 2],
            used: vec![0; 2],
            filled: vec![0; 2],
            shared: 0,
        }
    }

    fn write(&mut self, lpn: usize, h: usize) {
        let n = self.planes.len();
        let plane = if self.k == n {
            let p = self.shared;
            self.shared = (p + 1) % n;
            p
        } else {
            let p = (self.start[h] + self.cursor[h]) % n;
            self.cursor[h] = (self.cursor[h] + 1) % self.k;
            p
        };
        if let Some(p) = self.home[lpn] {
            if p != plane {
                self.planes[p].drop_page(lpn);
            }
        }
        self.planes[plane].write(lpn, h);
        self.home[lpn] = Some(plane);
        self.used[h] += 1;
        if self.used[h] == self.ru_pages {
            self.used[h] = 0;
            self.filled[h] += 1;
            self.start[h] = (self.start[h] + self.k) % n;
            self.cursor[h] = 0;
        }
    }

    fn media(&self, h: usize) -> u64 {
        self.planes.iter().map(|m| m.host[h] + m.moved[h]).sum()
    }
}

#[test]
fn reclaim_units_of_some_planes_match_the_greedy_model_at_ru_granularity() {
    let dir = tempfile::tempdir().unwrap();
    let probe = config(FOUR_PLANES);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let threshold = flashpress_core::ftl::gc_threshold_blocks(&probe) as usize;
    let writes = hot_cold(logical, 30_000, 1.0, 21);
    let handles = "[\"persistently_isolated\", \"persistently_isolated\"]";
    for k in [1usize, 2, 4] {
        let cfg = sim_of(
            dir.path(),
            &format!("ru{k}.csv"),
            FOUR_PLANES,
            &format!("{handles}\nru_bytes = {}", k as u64 * BLOCK),
            &writes,
            true,
        );
        let rep = Simulation::new(cfg).unwrap().run().unwrap();
        let s = &rep.summary;
        let f = s.fdp.as_ref().unwrap();
        assert_eq!(f.reclaim_unit_bytes, k as u64 * BLOCK);
        let mut m = RuModel::new(4, 64, 32, threshold, k, logical);
        for &(p, t) in &writes {
            m.write(p, t as usize);
        }
        for h in 0..2 {
            let host = f.handles[h].host_bytes_written / 4096;
            assert_eq!(host, m.planes.iter().map(|p| p.host[h]).sum::<u64>());
            // Every reclaim unit the host filled is one implicitly modified handle: by hand,
            // the handle's host pages over the reclaim unit's.
            assert_eq!(
                f.handles[h].reclaim_units_filled,
                host / (k as u64 * 32),
                "k = {k}"
            );
            assert_eq!(f.handles[h].reclaim_units_filled, m.filled[h]);
            // With one write in flight at a time the device's greedy GC is the model's, page
            // for page.
            assert_eq!(
                f.handles[h].media_bytes_written / 4096,
                m.media(h),
                "k = {k}, handle {h}: simulator vs model media pages"
            );
        }
        eprintln!(
            "reclaim unit of {k} blocks: WAF {:.3}, per handle {:?}",
            waf_of(s),
            f.handles.iter().map(|h| h.waf.unwrap()).collect::<Vec<_>>()
        );
        // The events table: one row per implicitly modified handle, in time order.
        let rows = rep.fdp_events().unwrap();
        assert_eq!(rows.len() as u64, f.events.implicitly_modified_ruh);
        assert_eq!(
            f.events.implicitly_modified_ruh,
            f.handles
                .iter()
                .map(|h| h.reclaim_units_filled)
                .sum::<u64>()
        );
        for h in 0..2u32 {
            assert_eq!(
                rows.iter().filter(|e| e.handle == h).count() as u64,
                f.handles[h as usize].reclaim_units_filled
            );
        }
        assert!(rows.windows(2).all(|w| w[0].time <= w[1].time));
        let csv = rep.fdp_events_csv().unwrap();
        assert!(csv.starts_with("time_ns,type,code,pid,reclaim_group,handle\n"));
        assert_eq!(csv.lines().count(), rows.len() + 1);
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .contains(",implicitly_modified_ruh,0x81,"));
    }
}

/// Without `ru_bytes` a reclaim unit is one block on every plane of its group: the same run
/// with that size written out is the same run, byte for byte (summary and events).
#[test]
fn the_default_reclaim_unit_is_one_block_on_every_plane_of_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let probe = config(FOUR_PLANES);
    let logical = flashpress_core::ftl::logical_pages(&probe) as usize;
    let writes = hot_cold(logical, 8_000, 0.9, 5);
    let handles = "[\"persistently_isolated\", \"initially_isolated\"]";
    let run = |name: &str, h: &str| {
        let cfg = sim_of(dir.path(), name, FOUR_PLANES, h, &writes, true);
        let rep = Simulation::new(cfg).unwrap().run().unwrap();
        (
            rep.summary_json(),
            rep.timeline_csv(),
            rep.fdp_events_csv().unwrap(),
        )
    };
    let a = run("a.csv", handles);
    let b = run("b.csv", &format!("{handles}\nru_bytes = {}", 4 * BLOCK));
    assert!(a
        .0
        .contains(&format!("\"reclaim_unit_bytes\": {}", 4 * BLOCK)));
    assert_eq!(a, b);
}

/// The csv lines `lines` (after the header with `pid`) replayed one at a time on `base` with
/// `[fdp]` `fdp`.
fn sim_lines(
    dir: &std::path::Path,
    name: &str,
    base: &str,
    fdp: &str,
    lines: &[String],
) -> SimConfig {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("time,op,offset,len,content,pid\n{}\n", lines.join("\n")),
    )
    .unwrap();
    let mut cfg = config(&format!("{base}[fdp]\nhandles = {fdp}\n"));
    let mut tr = flashpress_core::workload::trace::default_trace_config(path, TraceFormat::Csv);
    tr.replay = flashpress_core::config::Replay::Afap;
    tr.queue_depth = 1;
    cfg.workload = WorkloadConfig::Trace(tr);
    cfg.validate("test").unwrap();
    cfg
}

#[test]
fn a_reclaim_unit_handle_update_starts_a_new_reclaim_unit_and_logs_what_it_left() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    let w = |lines: &mut Vec<String>, t: u64, n: usize, pid: u16, from: usize| {
        for i in 0..n {
            lines.push(format!(
                "{},W,{},4096,,{pid}",
                t + i as u64 * 1000,
                (from + i) * 4096
            ));
        }
    };
    // Reclaim units of one block (32 pages). Handle 0: 10 pages, an update (its reclaim unit
    // holds 10 of 32: not fully written), at once another (nothing written since: nothing to
    // leave), 40 pages (the first 32 fill a reclaim unit: the device moves the handle on), an
    // update (8 of 32 written). Handle 1: 32 pages (one reclaim unit, filled), then an update of
    // its new, empty one.
    w(&mut lines, 1000, 10, 0, 0);
    lines.push("20000,RUHU,0,0,,0".into());
    lines.push("20001,RUHU,0,0,,0".into());
    w(&mut lines, 30_000, 40, 0, 100);
    lines.push("80000,RUHU,0,0,,0".into());
    w(&mut lines, 90_000, 32, 1, 500);
    lines.push("200000,RUHU,0,0,,1".into());
    let cfg = sim_lines(
        dir.path(),
        "ruhu.csv",
        FOUR_PLANES,
        &format!("[\"persistently_isolated\", \"persistently_isolated\"]\nru_bytes = {BLOCK}"),
        &lines,
    );
    let mut sim = Simulation::new(cfg.clone()).unwrap();
    while !sim.step(1 << 20).unwrap() {}
    // A closed block keeps its 10 (and 8) pages and takes no more: the FTL's invariants hold.
    sim.device().unwrap().check_invariants().unwrap();
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    let f = rep.summary.fdp.as_ref().unwrap();
    assert_eq!(f.handles[0].ruh_updates, 3);
    assert_eq!(f.handles[1].ruh_updates, 1);
    assert_eq!(f.events.ru_not_fully_written, 2);
    assert_eq!(f.events.implicitly_modified_ruh, 2);
    assert_eq!(f.handles[0].reclaim_units_filled, 1);
    assert_eq!(f.handles[1].reclaim_units_filled, 1);
    // Handle 0's 50 pages took three blocks: the first closed by the update after 10 pages,
    // the second filled by 32, the third took the last 8. Without the updates: two.
    assert_eq!(f.handles[0].blocks_opened, 3);
    assert_eq!(f.handles[1].blocks_opened, 1);
    // The updates complete as data-less commands.
    assert_eq!(rep.summary.write.requests, 82);
    assert_eq!(rep.summary.trim.requests, 4);
    let kinds: Vec<(FdpEventType, u32)> = rep
        .fdp_events()
        .unwrap()
        .iter()
        .map(|e| (e.kind, e.handle))
        .collect();
    use flashpress_core::ftl::fdp::FdpEventType;
    assert_eq!(
        kinds,
        [
            (FdpEventType::RuNotFullyWritten, 0),
            (FdpEventType::ImplicitlyModifiedRuh, 0),
            (FdpEventType::RuNotFullyWritten, 0),
            (FdpEventType::ImplicitlyModifiedRuh, 1),
        ]
    );
    // The same writes without the updates: two blocks for handle 0, no "not fully written".
    let plain: Vec<String> = lines
        .iter()
        .filter(|l| !l.contains("RUHU"))
        .cloned()
        .collect();
    let cfg = sim_lines(
        dir.path(),
        "plain.csv",
        FOUR_PLANES,
        &format!("[\"persistently_isolated\", \"persistently_isolated\"]\nru_bytes = {BLOCK}"),
        &plain,
    );
    let s = Simulation::new(cfg).unwrap().run().unwrap().summary;
    let f = s.fdp.as_ref().unwrap();
    assert_eq!(f.handles[0].blocks_opened, 2);
    assert_eq!(f.events.ru_not_fully_written, 0);
}

#[test]
fn a_write_with_an_identifier_the_device_lacks_goes_to_identifier_0_and_is_logged() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..12)
        .map(|i| format!("{},W,{},4096,,{}", i * 1000, i * 4096, [0, 1, 2, 7][i % 4]))
        .collect();
    let cfg = sim_lines(
        dir.path(),
        "pid.csv",
        FOUR_PLANES,
        "[\"initially_isolated\", \"initially_isolated\"]",
        &lines,
    );
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    let f = rep.summary.fdp.as_ref().unwrap();
    // Identifiers 2 and 7 do not exist: 6 writes, all through identifier 0 with its own 3.
    assert_eq!(f.events.invalid_placement_identifier, 6);
    assert_eq!(f.handles[0].host_bytes_written, 9 * 4096);
    assert_eq!(f.handles[1].host_bytes_written, 3 * 4096);
    let pids: Vec<(u16, u32)> = rep
        .fdp_events()
        .unwrap()
        .iter()
        .map(|e| (e.pid, e.handle))
        .collect();
    assert_eq!(pids, [(2, 0), (7, 0), (2, 0), (7, 0), (2, 0), (7, 0)]);
}

#[test]
fn bad_reclaim_unit_sizes_and_handle_updates_are_refused_by_key_and_line() {
    let key_of = |toml: &str| match SimConfig::from_toml_str(toml, "c.toml") {
        Err(flashpress_core::Error::Config { key, msg, .. }) => (key, msg),
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("expected a config error"),
    };
    let with = |ru: u64| {
        format!("{FOUR_PLANES}[fdp]\nhandles = [\"initially_isolated\"]\nru_bytes = {ru}\n")
    };
    for (ru, says) in [
        (0, "4096"),
        (BLOCK + 4096, "whole number of erase blocks of 131072 bytes"),
        (3 * BLOCK / 2, "whole number of erase blocks"),
        // Five blocks on a four-plane group: neither one per plane nor a whole stripe.
        (5 * BLOCK, "multiple of 524288 bytes"),
        // 64 blocks per plane, 4 of them the GC reserve, 1 the handle's open block.
        (4 * 60 * BLOCK, "larger than a reclaim group"),
    ] {
        let (k, m) = key_of(&with(ru));
        assert_eq!(k, "fdp.ru_bytes", "{ru}");
        assert!(m.contains(says), "{ru}: {m}");
    }
    // Three of four planes, and two whole stripes, are reclaim units.
    config(&with(3 * BLOCK));
    config(&with(8 * BLOCK));
    config(&with(4 * 59 * BLOCK));
    // A handle update: on a device without [fdp], naming an identifier the device lacks, with
    // an address, or without an identifier: refused at its line.
    let dir = tempfile::tempdir().unwrap();
    let bad = |name: &str, line: &str, fdp: bool| {
        let mut cfg = sim_lines(
            dir.path(),
            name,
            FOUR_PLANES,
            "[\"initially_isolated\"]",
            &["0,W,0,4096,,".to_string(), line.to_string()],
        );
        if !fdp {
            cfg.fdp = None;
        }
        match Simulation::new(cfg) {
            Err(flashpress_core::Error::Trace { line, msg, .. }) => {
                assert_eq!(line, 3);
                msg
            }
            other => panic!("expected a trace error, got {:?}", other.err()),
        }
    };
    assert!(bad("a.csv", "1,RUHU,0,0,,1", true).contains("placement identifier 1"));
    assert!(bad("b.csv", "1,RUHU,0,0,,0", false).contains("without flexible data placement"));
    assert!(bad("c.csv", "1,RUHU,4096,0,,0", true).contains("expected offset and len 0"));
    assert!(bad("d.csv", "1,RUHU,0,0,,", true).contains("needs the placement identifier"));
    assert!(bad("e.csv", "1,RUHU,0,0,5,0", true).contains("only a write carries a content id"));
}
