//! The controller's back end against independent models: a brute-force event model of random
//! reads, the plane-time bound of steady random writes, read tails during sustained GC under
//! each policy, and bad input.

use crate::support::{config, run_uniform, uniform_stream};
use flashpress_core::config::SimConfig;
use flashpress_core::sim::Simulation;
use flashpress_core::units::{Lpn, SimTime};
use flashpress_core::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};
use flashpress_core::Error;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Reads of the given logical pages, in order.
struct Reads {
    pages: Vec<u64>,
    next: usize,
    page_size: u64,
}

impl RequestSource for Reads {
    fn next_request(&mut self, _now: SimTime) -> flashpress_core::Result<Option<Request>> {
        let Some(&p) = self.pages.get(self.next) else {
            return Ok(None);
        };
        self.next += 1;
        Ok(Some(Request {
            time: SimTime::ZERO,
            op: Op::Read,
            offset: p * self.page_size,
            len: self.page_size,
            content: 0,
            file: flashpress_core::workload::NO_FILE,
            attrs: Default::default(),
            placement: None,
        }))
    }
}

/// A TLC device whose page types read at different speeds, every logical page written (no
/// GC during the reads), ECC decode on.
const READ_DEVICE: &str = r#"
preset = "tiny"
[nand]
channels = 2
chips_per_channel = 2
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 32
pages_per_block = 48
cell = "tlc"
read_latency_us = [50.0, 67.0, 89.0]
program_latency_us = [500.0, 900.0, 1400.0]
erase_latency_us = 3000.0
channel_mb_per_s = 200.0
[controller]
ecc_decode_us = 3.0
[precondition]
fill_fraction = 1.0
aging_fraction = 0.0
"#;

/// The brute-force model: every pending action in one list, the earliest taken by a linear
/// scan ((time, commands before other actions, creation order)); each plane a FIFO of
/// reads holding the plane from sensing until its data has left on the channel; a channel
/// and the host link each granted first come first served, one transfer at a time.
fn brute_force(cfg: &SimConfig, ppns: &[(usize, usize, u64)], depth: usize) -> (u128, u64, u64) {
    #[derive(Clone, Copy, Debug)]
    enum A {
        Arrive(usize),
        SenseEnd(usize),
        PlaneFree(usize),
        LinkReady(usize),
        Complete(usize),
    }
    let xfer = (cfg.nand.page_size as f64 * 1e3 / cfg.nand.channel_mb_per_s).round() as u64;
    let link = (cfg.nand.page_size as f64 * 1e3 / cfg.host.link_mb_per_s).round() as u64;
    let ecc = (cfg.controller.ecc_decode_us * 1e3).round() as u64;
    let overhead = cfg.host.command_overhead_ns;
    let planes = ppns.iter().map(|p| p.0).max().unwrap() + 1;
    let channels = ppns.iter().map(|p| p.1).max().unwrap() + 1;
    let mut pending: Vec<(u64, u8, u64, A)> = Vec::new();
    let mut seq = 0u64;
    let mut push = |pending: &mut Vec<(u64, u8, u64, A)>, t: u64, a: A| {
        let class = u8::from(!matches!(a, A::Arrive(_)));
        pending.push((t, class, seq, a));
        seq += 1;
    };
    let mut queue: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); planes];
    let mut plane_busy = vec![false; planes];
    let mut chan_free = vec![0u64; channels];
    let mut link_free = 0u64;
    let mut issued_at = vec![0u64; ppns.len()];
    let mut next = 0usize;
    let (mut sum, mut max, mut end) = (0u128, 0u64, 0u64);
    for _ in 0..depth.min(ppns.len()) {
        issued_at[next] = 0;
        push(&mut pending, overhead, A::Arrive(next));
        next += 1;
    }
    while !pending.is_empty() {
        let i = (0..pending.len())
            .min_by_key(|&i| (pending[i].0, pending[i].1, pending[i].2))
            .unwrap();
        let (t, _, _, a) = pending.swap_remove(i);
        match a {
            A::Arrive(r) => {
                let p = ppns[r].0;
                queue[p].push_back(r);
                if !plane_busy[p] {
                    let r = queue[p].pop_front().unwrap();
                    plane_busy[p] = true;
                    push(&mut pending, t + ppns[r].2, A::SenseEnd(r));
                }
            }
            A::SenseEnd(r) => {
                let (p, ch) = (ppns[r].0, ppns[r].1);
                let start = t.max(chan_free[ch]);
                chan_free[ch] = start + xfer;
                push(&mut pending, start + xfer, A::PlaneFree(p));
                push(&mut pending, start + xfer + ecc, A::LinkReady(r));
            }
            A::PlaneFree(p) => {
                plane_busy[p] = false;
                if let Some(r) = queue[p].pop_front() {
                    plane_busy[p] = true;
                    push(&mut pending, t + ppns[r].2, A::SenseEnd(r));
                }
            }
            A::LinkReady(r) => {
                let start = t.max(link_free);
                link_free = start + link;
                push(&mut pending, link_free, A::Complete(r));
            }
            A::Complete(r) => {
                let lat = t - issued_at[r];
                sum += lat as u128;
                max = max.max(lat);
                end = end.max(t);
                if next < ppns.len() {
                    issued_at[next] = t;
                    push(&mut pending, t + overhead, A::Arrive(next));
                    next += 1;
                }
            }
        }
    }
    (sum, max, end)
}

#[test]
fn random_reads_at_queue_depth_n_match_a_brute_force_event_model() {
    for (depth, seed, policy) in [
        (1, 1, "fcfs"),
        (4, 2, "read_first"),
        (16, 3, "fcfs"),
        (64, 4, "read_first"),
    ] {
        let mut cfg = config(READ_DEVICE);
        cfg.controller.scheduler = serde_json::from_value(serde_json::json!(policy)).unwrap();
        let lp = flashpress_core::ftl::logical_pages(&cfg);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let pages: Vec<u64> = (0..3000).map(|_| rng.random_range(0..lp)).collect();
        let stream = Stream {
            name: "reads".into(),
            source: Box::new(Reads {
                pages: pages.clone(),
                next: 0,
                page_size: cfg.nand.page_size as u64,
            }),
            drive: Drive::Closed { depth },
            group: 0,
            content: ContentHints::default(),
            layout_bytes: 0,
        };
        let sim = Simulation::with_streams(cfg.clone(), vec![stream]).unwrap();
        // Where each read goes (the mapping is the FTL's; the timing model is the test's).
        let dev = sim.device().unwrap();
        let g = &dev.nand.geo;
        let ppns: Vec<(usize, usize, u64)> = pages
            .iter()
            .map(|&l| {
                let ppn = dev.ftl.lookup(Lpn(l)).expect("filled");
                let plane = g.plane_of_ppn(ppn);
                let ty = (g.page_in_block(ppn) % 3) as usize;
                let t_r = (cfg.nand.read_latency_us[ty] * 1e3).round() as u64;
                (plane.0 as usize, g.channel_of(plane) as usize, t_r)
            })
            .collect();
        let (sum, max, end) = brute_force(&cfg, &ppns, depth as usize);
        let s = sim.run().unwrap().summary;
        let lat = s.read.latency_us.unwrap();
        assert_eq!(s.read.requests, 3000);
        assert_eq!(
            lat.mean,
            sum as f64 / 3000.0 * 1e-3,
            "QD {depth}: mean latency"
        );
        assert_eq!(lat.max, max as f64 * 1e-3, "QD {depth}: max latency");
        assert_eq!(s.sim_time_s, SimTime(end).as_secs_f64(), "QD {depth}: end");
        if depth == 1 {
            // QD 1: every read is overhead + tR + transfer + ECC + link, exactly.
            let xfer = 20_480u64; // 4096 B at 200 MB/s
            let link = (4096.0 * 1e3 / 3940.0f64).round() as u64;
            let exact: u128 = ppns
                .iter()
                .map(|p| (1_000 + p.2 + xfer + 3_000 + link) as u128)
                .sum();
            assert_eq!(sum, exact);
        }
    }
}

/// Plane time a host write costs at write amplification `waf` (ns): its share of programs,
/// copyback reads and erases, and the host page's own transfer into its plane.
fn plane_ns_per_write(cfg: &SimConfig, waf: f64) -> f64 {
    let t_r = cfg.nand.read_latency_us[0] * 1e3;
    let t_p = cfg.nand.program_latency_us[0] * 1e3;
    let t_e = cfg.nand.erase_latency_us * 1e3;
    let xfer = cfg.nand.page_size as f64 * 1e3 / cfg.nand.channel_mb_per_s;
    waf * t_p + (waf - 1.0) * t_r + waf / cfg.nand.pages_per_block as f64 * t_e + xfer
}

const WRITE_DEVICE: &str = r#"
preset = "tiny"
[nand]
channels = 4
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 128
pages_per_block = 64
cell = "mlc"
read_latency_us = [75.0, 75.0]
program_latency_us = [750.0, 750.0]
erase_latency_us = 3800.0
channel_mb_per_s = 333.0
[ftl]
op_ratio = 0.07
[precondition]
fill_fraction = 0.9
aging_fraction = 1.0
"#;

#[test]
fn steady_random_writes_with_dynamic_allocation_and_yielding_gc_reach_the_plane_time_bound() {
    let toml = format!(
        "{WRITE_DEVICE}\n[ftl.gc]\npreemptible = true\n[controller]\nscheduler = \"read_first\"\n"
    )
    .replace(
        "op_ratio = 0.07\n",
        "op_ratio = 0.07\nstriping = \"least_busy\"\n",
    );
    let cfg = config(&toml);
    let s = run_uniform(&toml, 60_000, 0.0, 32, 7);
    let waf = s.waf.unwrap();
    let planes = 8.0;
    let bound = planes / (plane_ns_per_write(&cfg, waf) * 1e-9);
    // Over the time until the flash went quiet: GC that yielded and ran after the last
    // request completed is work these writes caused, and must not flatter the rate.
    let ctl = s.controller.unwrap();
    assert!(ctl.flash_quiet_s >= s.sim_time_s);
    let iops = s.write.requests as f64 / ctl.flash_quiet_s;
    let share = iops / bound;
    eprintln!(
        "{iops:.0} write IOPS until the flash went quiet, {:.1}% of the bound {bound:.0} (WAF {waf:.3})",
        share * 100.0
    );
    assert!(
        (0.85..=1.0).contains(&share),
        "{iops:.0} IOPS is {:.1}% of the plane-time bound {bound:.0} (WAF {waf:.3})",
        share * 100.0
    );
    assert!(
        ctl.plane_busy_fraction <= 1.0,
        "{}",
        ctl.plane_busy_fraction
    );
    // A static stripe with FCFS GC episodes on the same device convoys behind GC.
    let fcfs = run_uniform(
        &format!("{WRITE_DEVICE}\n[ftl.gc]\npreemptible = false\n[controller]\nscheduler = \"fcfs\"\n[controller.suspend]\nenabled = false\n"),
        60_000,
        0.0,
        32,
        7,
    );
    assert!(
        fcfs.write.iops < 0.6 * s.write.iops,
        "fcfs {} vs realistic {}",
        fcfs.write.iops,
        s.write.iops
    );
}

/// 30% reads, 70% writes at QD 16 on a full device: GC runs all the time.
fn gc_mix(controller: &str) -> flashpress_core::stats::Summary {
    let toml = format!("{WRITE_DEVICE}\n{controller}\n").replace(
        "op_ratio = 0.07\n",
        "op_ratio = 0.07\nstriping = \"least_busy\"\n",
    );
    run_uniform(&toml, 40_000, 0.3, 16, 11)
}

#[test]
fn read_tails_during_sustained_gc_follow_the_policy() {
    let fcfs = gc_mix(
        "[ftl.gc]\npreemptible = false\n[controller]\nscheduler = \"fcfs\"\n[controller.suspend]\nenabled = false\n",
    );
    // The starvation bound out of the way, so what is measured is read priority alone (with
    // it, writes and GC that waited 10 ms go first and the tail grows: see the README).
    let read_first = gc_mix(
        "[ftl.gc]\npreemptible = true\n[controller]\nscheduler = \"read_first\"\nstarvation_us = 1e8\n[controller.suspend]\nenabled = false\n",
    );
    assert_eq!(
        read_first
            .controller
            .unwrap()
            .counters
            .starvation_promotions,
        0
    );
    let suspend = gc_mix(
        "[ftl.gc]\npreemptible = true\n[controller]\nscheduler = \"read_first\"\n[controller.suspend]\nenabled = true\nmax_per_op = 64\n",
    );
    let p99 = |s: &flashpress_core::stats::Summary| {
        let d = s.read.during_gc.unwrap();
        assert!(
            d.requests >= 1000,
            "GC must be sustained: {} of {} reads overlapped it",
            d.requests,
            s.read.requests
        );
        d.latency_us.unwrap().p99
    };
    let (f, r, s) = (p99(&fcfs), p99(&read_first), p99(&suspend));
    eprintln!("read p99 during GC: fcfs {f:.0} us, read_first {r:.0} us, suspend {s:.0} us");
    // Suspension: one erase suspend latency (the longer of the two) and a few reads and
    // transfers (75 us sense + 12.3 us transfer each) queued on the plane.
    let read_xfer = 75.0 + 4096.0 * 1e3 / 333.0 * 1e-3;
    assert!(s <= 700.0 + 8.0 * read_xfer, "suspend p99 {s}");
    // Read priority only: one program or erase runs to its end first.
    assert!(r <= 3800.0 + 8.0 * read_xfer, "read_first p99 {r}");
    assert!(s < r && r < f, "fcfs {f} > read_first {r} > suspend {s}");
    let c = suspend.controller.unwrap().counters;
    assert!(c.erase_suspensions + c.program_suspensions > 0);
}

#[test]
fn verify_mode_passes_under_every_policy_with_gc_rmw_and_a_write_buffer() {
    for ctl in [
        "[controller]\nscheduler = \"fcfs\"\n[controller.suspend]\nenabled = false\n[ftl.gc]\npreemptible = false\n",
        "[controller]\nscheduler = \"read_first\"\n[controller.suspend]\nenabled = true\n[ftl.gc]\npreemptible = true\nstep_pages = 1\nbackground = true\n",
        "[controller]\nscheduler = \"read_first\"\nstarvation_us = 50.0\n[controller.suspend]\nenabled = true\nresume_us = 3.0\nmax_per_op = 1\n[ftl.gc]\ncopyback = false\n# buffer\n",
    ] {
        let toml = format!("{WRITE_DEVICE}\n[check]\nverify = true\ninvariants = true\n{ctl}");
        let mut cfg = config(&toml);
        if ctl.contains("# buffer") {
            cfg.ftl.write_buffer_pages = 8;
        }
        let stream = uniform_stream(&cfg, 20_000, 0.5, 16, 5);
        let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
        while !sim.step(1 << 16).unwrap() {}
        assert!(sim.device().unwrap().sched.quiescent(), "{ctl}");
        assert_eq!(sim.device().unwrap().in_flight(), 0, "{ctl}");
        let s = sim.finish().unwrap().summary;
        assert_eq!(s.requests_completed, 20_000, "{ctl}");
        assert!(s.verified_page_reads > 0);
    }
}

#[test]
fn bad_controller_values_are_errors_naming_the_key() {
    for (toml, key, words) in [
        (
            "[controller.suspend]\nprogram_suspend_us = 300.0\n",
            "controller.suspend.program_suspend_us",
            "shorter than the shortest program",
        ),
        (
            "[controller.suspend]\nerase_suspend_us = 1500.0\n",
            "controller.suspend.erase_suspend_us",
            "shorter than the shortest erase",
        ),
        (
            "[ftl.gc]\nstep_pages = 0\n",
            "ftl.gc.step_pages",
            "expected 1 to 16384",
        ),
        (
            "[controller]\nscheduler = \"priority\"\n",
            "controller.scheduler",
            "unknown variant",
        ),
        (
            "[controller]\nstarvation_us = 0.0\n",
            "controller.starvation_us",
            "expected 0.01 to 1e8 us",
        ),
        (
            "[controller]\necc_decode_us = -1.0\n",
            "controller.ecc_decode_us",
            "expected 0 to 1e6 us",
        ),
        (
            "[controller.suspend]\nmax_per_op = 0\n",
            "controller.suspend.max_per_op",
            "expected 1 to 1024",
        ),
        (
            "[ftl.gc]\nhard_floor = 0.05\n",
            "ftl.gc.hard_floor",
            "less than ftl.gc.threshold",
        ),
        (
            "[controller.suspend]\nresume_us = -1.0\n",
            "controller.suspend.resume_us",
            "expected 0 to 1e6 us",
        ),
    ] {
        let err = SimConfig::from_toml_str(&format!("preset = \"tiny\"\n{toml}"), "t.toml")
            .expect_err(toml);
        let msg = err.to_string();
        assert!(matches!(err, Error::Config { .. }), "{toml}: {err:?}");
        assert!(msg.contains(key), "{toml}: {msg}");
        assert!(msg.contains(words), "{toml}: {msg}");
    }
}

/// Random reads, full-page and multi-page writes, and partial-page writes.
struct Mixed {
    pages: u64,
    left: u64,
    read: f64,
    partial: f64,
    rng: Pcg64Mcg,
}

impl RequestSource for Mixed {
    fn next_request(&mut self, _now: SimTime) -> flashpress_core::Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let r = &mut self.rng;
        let op = if r.random::<f64>() < self.read {
            Op::Read
        } else {
            Op::Write
        };
        let (offset, len) = if r.random::<f64>() < self.partial {
            let o = r.random_range(0..8u64) * 512;
            let l = r.random_range(1..=(4096 - o) / 512) * 512;
            (r.random_range(0..self.pages) * 4096 + o, l)
        } else {
            let n = r.random_range(1..=3u64);
            (r.random_range(0..self.pages - n) * 4096, n * 4096)
        };
        Ok(Some(Request {
            time: SimTime::ZERO,
            op,
            offset,
            len,
            content: 0,
            file: flashpress_core::workload::NO_FILE,
            attrs: Default::default(),
            placement: None,
        }))
    }
}

/// Every controller setting at random on a small device under a mixed load, verify and the
/// invariants on; debug builds also check that every program runs in the life of its block
/// it was allocated in (before the erase it precedes, after the one it follows).
#[test]
fn random_controller_settings_lose_nothing_and_keep_erase_order() {
    let mut rng = Pcg64Mcg::seed_from_u64(2026);
    for it in 0..24 {
        let pick = |rng: &mut Pcg64Mcg, xs: &[&str]| xs[rng.random_range(0..xs.len())].to_string();
        let toml = format!(
            r#"preset = "tiny"
seed = {seed}
[nand]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 48
pages_per_block = {ppb}
[ftl]
op_ratio = 0.12
striping = "{stripe}"
write_buffer_pages = {buf}
[ftl.gc]
victim = "{victim}"
threshold = 0.06
hard_floor = {floor}
background = {bg}
background_threshold = 0.12
copyback = {cb}
preemptible = {pre}
step_pages = {step}
[controller]
scheduler = "{pol}"
starvation_us = {starv}
ecc_decode_us = {ecc}
[controller.suspend]
enabled = {susp}
max_per_op = {maxp}
resume_us = {resume}
[precondition]
fill_fraction = 0.9
aging_fraction = 0.5
[check]
verify = true
invariants = true
"#,
            seed = rng.random_range(0..1000u32),
            ppb = pick(&mut rng, &["8", "16", "32"]),
            stripe = pick(&mut rng, &["channel_first", "least_busy"]),
            buf = pick(&mut rng, &["0", "8"]),
            victim = pick(&mut rng, &["greedy", "random", "cost_benefit", "fifo"]),
            floor = pick(&mut rng, &["0.0", "0.02", "0.04"]),
            bg = pick(&mut rng, &["true", "false"]),
            cb = pick(&mut rng, &["true", "false"]),
            pre = pick(&mut rng, &["true", "false"]),
            step = rng.random_range(1..=8),
            pol = pick(&mut rng, &["fcfs", "read_first"]),
            starv = pick(&mut rng, &["50.0", "500.0", "10000.0"]),
            ecc = pick(&mut rng, &["0.0", "3.0"]),
            susp = pick(&mut rng, &["true", "false"]),
            maxp = rng.random_range(1..=4),
            resume = pick(&mut rng, &["0.0", "5.0"]),
        );
        let cfg = config(&toml);
        let n = 4000;
        let stream = Stream {
            name: "mixed".into(),
            source: Box::new(Mixed {
                pages: flashpress_core::ftl::logical_pages(&cfg),
                left: n,
                read: 0.3,
                partial: 0.2,
                rng: Pcg64Mcg::seed_from_u64(it),
            }),
            drive: Drive::Closed {
                depth: rng.random_range(1..=48),
            },
            group: 0,
            content: ContentHints::default(),
            layout_bytes: 0,
        };
        let mut sim = Simulation::with_streams(cfg, vec![stream]).unwrap();
        while !sim.step(1 << 16).unwrap() {}
        let d = sim.device().unwrap();
        assert!(d.sched.quiescent(), "{toml}");
        assert_eq!(d.in_flight(), 0, "{toml}");
        let s = sim.finish().unwrap().summary;
        assert_eq!(s.requests_completed, n, "{toml}");
        assert!(s.gc_blocks_erased > 0, "GC ran: {toml}");
    }
}

/// Reads and a write submitted at the same instant: what reaches the controller first is
/// served first, whatever the order of submission.
#[test]
fn requests_submitted_at_one_instant_are_timed_by_arrival_not_submission_order() {
    struct Fixed(std::vec::IntoIter<(Op, u64)>);
    impl RequestSource for Fixed {
        fn next_request(&mut self, _now: SimTime) -> flashpress_core::Result<Option<Request>> {
            Ok(self.0.next().map(|(op, page)| Request {
                time: SimTime::ZERO,
                op,
                offset: page * 4096,
                len: 4096,
                content: 0,
                file: flashpress_core::workload::NO_FILE,
                attrs: Default::default(),
                placement: None,
            }))
        }
    }
    let run = |reqs: Vec<(Op, u64)>| {
        let cfg = config(
            "preset = \"tiny\"\n[nand]\nchannels = 1\nplanes_per_die = 1\n[controller.suspend]\nenabled = false\n[precondition]\nfill_fraction = 0.5\naging_fraction = 0.0\n",
        );
        let stream = Stream {
            name: "fixed".into(),
            source: Box::new(Fixed(reqs.into_iter())),
            drive: Drive::Closed { depth: 2 },
            group: 0,
            content: ContentHints::default(),
            layout_bytes: 0,
        };
        let s = Simulation::with_streams(cfg, vec![stream])
            .unwrap()
            .run()
            .unwrap()
            .summary;
        (
            s.read.latency_us.unwrap().max,
            s.write.latency_us.unwrap().max,
        )
    };
    let write_first = run(vec![(Op::Write, 1000), (Op::Read, 10)]);
    let read_first = run(vec![(Op::Read, 10), (Op::Write, 1000)]);
    assert_eq!(write_first, read_first);
    // the read's command arrives at 1 us, before the write's data: it is served first
    let link = (4096.0 * 1e3 / 3940.0f64).round();
    assert_eq!(read_first.0, (1_000.0 + 25_000.0 + 10_240.0 + link) * 1e-3);
}

/// 10,000 random page writes all at time 0 on the 16 MiB `tiny` device: every page is mapped
/// when its write reaches the controller, more than the device has spare, and each block GC
/// could clean still has programs queued. The run ends with a workload error saying so (it
/// panicked: "no plane can take a write"). A real controller would hold the writes back
/// until space frees (not modelled).
#[test]
fn writes_outrunning_the_free_blocks_end_in_an_error_not_a_panic() {
    let cfg = SimConfig::preset("tiny").unwrap();
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let script = (0..10_000)
        .map(|_| (Op::Write, rng.random_range(0..3000u64) * 4096, 4096, 0))
        .collect();
    let Err(e) = crate::support::script_sim(&cfg, script, Drive::Open).run() else {
        panic!("expected the run to stop");
    };
    assert!(matches!(e, Error::Workload(_)), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("no plane can take a page write"), "{msg}");
    assert!(msg.contains("ftl.op_ratio"), "{msg}");
}
