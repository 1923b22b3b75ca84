//! Workload sources for tests, written independently of the fio parser.

use flashpress_core::config::SimConfig;
use flashpress_core::stats::Summary;
use flashpress_core::units::SimTime;
use flashpress_core::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};
use flashpress_core::Result;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The TOML of a small TLC device in the shape of PR-SSD's Table 1 (16 KiB pages, 4 KiB
/// partial reads, its read and program latencies per page type, its bus and ECC decode), with
/// `channels` channels of `chips` chips of one die of two planes and `blocks` blocks per plane
/// of 48 pages. A string literal: a test appends its own tables with `concat!`.
macro_rules! tlc_device {
    ($channels:literal, $chips:literal, $blocks:literal) => {
        concat!(
            "preset = \"tiny\"\n[nand]\nchannels = ",
            $channels,
            "\nchips_per_channel = ",
            $chips,
            "\ndies_per_chip = 1\nplanes_per_die = 2\nblocks_per_plane = ",
            $blocks,
            "\npages_per_block = 48\npage_size = 16384\ncell = \"tlc\"\n",
            "read_latency_us = [56.0, 118.0, 180.0]\nprogram_latency_us = [700.0, 1050.0, 1400.0]\n",
            "erase_latency_us = 3500.0\nchannel_mb_per_s = 833.0\n",
            "[nand.partial_read]\nunit_bytes = 4096\nlatency_factor = 0.8\ncurrent_factor = 0.6\n",
            "[controller]\necc_decode_us = 20.0\n",
        )
    };
}

/// A config table for a device that starts empty: no preconditioning fill or aging.
pub const NO_PRECONDITION: &str = "[precondition]\nfill_fraction = 0.0\naging_fraction = 0.0\n";

/// Requests given in order as (operation, offset, length, time in ns); the time is used
/// when the stream is open loop.
pub struct Script(pub Vec<(Op, u64, u64, u64)>, pub usize);

impl RequestSource for Script {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        let Some(&(op, offset, len, t)) = self.0.get(self.1) else {
            return Ok(None);
        };
        self.1 += 1;
        Ok(Some(Request {
            time: SimTime(t),
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

/// A stream of `source` driven by `drive`, in group 0, with no content hints.
pub fn stream_of(name: &str, source: Box<dyn RequestSource + Send>, drive: Drive) -> Stream {
    Stream {
        name: name.into(),
        source,
        drive,
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    }
}

/// [`run_closed`] with the page map in `layout`.
pub fn run_closed_layout(
    cfg: &SimConfig,
    script: Vec<(Op, u64, u64, u64)>,
    layout: flashpress_core::ftl::MapLayout,
) -> Summary {
    let stream = stream_of(
        "script",
        Box::new(Script(script, 0)),
        Drive::Closed { depth: 1 },
    );
    flashpress_core::sim::Simulation::with_streams_layout(cfg.clone(), vec![stream], layout)
        .and_then(|s| s.run())
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

/// A simulation of `script` driven by `drive`, built (preconditioned) but not run.
pub fn script_sim(
    cfg: &SimConfig,
    script: Vec<(Op, u64, u64, u64)>,
    drive: Drive,
) -> flashpress_core::sim::Simulation {
    let stream = stream_of("script", Box::new(Script(script, 0)), drive);
    flashpress_core::sim::Simulation::with_streams(cfg.clone(), vec![stream]).unwrap()
}

/// `n` single-page requests at uniformly random pages of `[0, pages)`; a fraction
/// `read_fraction` of them reads, the rest writes.
pub struct UniformPages {
    pub pages: u64,
    pub page_size: u64,
    pub left: u64,
    pub read_fraction: f64,
    pub rng: Pcg64Mcg,
}

impl RequestSource for UniformPages {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let op = if self.rng.random::<f64>() < self.read_fraction {
            Op::Read
        } else {
            Op::Write
        };
        let page = self.rng.random_range(0..self.pages);
        Ok(Some(Request {
            time: SimTime::ZERO,
            op,
            offset: page * self.page_size,
            len: self.page_size,
            content: 0,
            file: flashpress_core::workload::NO_FILE,
            attrs: Default::default(),
            placement: None,
        }))
    }
}

/// A closed-loop stream of uniform random single-page requests over the whole logical space.
pub fn uniform_stream(
    cfg: &SimConfig,
    n: u64,
    read_fraction: f64,
    depth: u32,
    seed: u64,
) -> Stream {
    let pages = flashpress_core::ftl::logical_pages(cfg);
    Stream {
        name: "uniform".into(),
        source: Box::new(UniformPages {
            pages,
            page_size: cfg.nand.page_size as u64,
            left: n,
            read_fraction,
            rng: Pcg64Mcg::seed_from_u64(seed),
        }),
        drive: Drive::Closed { depth },
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    }
}

/// A config from TOML text over a preset.
pub fn config(toml: &str) -> SimConfig {
    SimConfig::from_toml_str(toml, "test").unwrap_or_else(|e| panic!("{e}"))
}

/// Run `n` uniform random single-page requests (a `read_fraction` of reads) at queue depth
/// `depth` on the config given as TOML, and return the summary.
pub fn run_uniform(
    toml: &str,
    n: u64,
    read_fraction: f64,
    depth: u32,
    seed: u64,
) -> flashpress_core::stats::Summary {
    let cfg = config(toml);
    let stream = uniform_stream(&cfg, n, read_fraction, depth, seed);
    flashpress_core::sim::Simulation::with_streams(cfg, vec![stream])
        .unwrap()
        .run()
        .unwrap()
        .summary
}

/// Run a request script at queue depth 1 and return its summary (panics on an error).
pub fn run_closed(cfg: &SimConfig, script: Vec<(Op, u64, u64, u64)>) -> Summary {
    script_sim(cfg, script, Drive::Closed { depth: 1 })
        .run()
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

/// A script of writes, each `(offset, length)` in bytes, with content id 0.
pub fn write_script(list: &[(u64, u64)]) -> Vec<(Op, u64, u64, u64)> {
    list.iter().map(|&(o, l)| (Op::Write, o, l, 0)).collect()
}

/// `n` requests on a 16 KiB-page device's first `pages` logical pages, seeded: 40% whole-page
/// writes, 20% 4 KiB sub-page writes, 5% trims, 15% 4 KiB and 20% whole-page reads.
pub fn mixed_16k_script(seed: u64, pages: u64, n: usize) -> Vec<(Op, u64, u64, u64)> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let lpn = rng.random_range(0..pages);
            let sub = rng.random_range(0..4u64) * 4096;
            match rng.random_range(0..20) {
                0..=7 => (Op::Write, lpn * 16384, 16384, 0),
                8..=11 => (Op::Write, lpn * 16384 + sub, 4096, 0),
                12 => (Op::Trim, lpn * 16384, 16384, 0),
                13..=15 => (Op::Read, lpn * 16384 + sub, 4096, 0),
                _ => (Op::Read, lpn * 16384, 16384, 0),
            }
        })
        .collect()
}

/// The values of timeline column `name` of a run's report.
pub fn timeline_col(rep: &flashpress_core::stats::RunReport, name: &str) -> Vec<f64> {
    rep.timeline
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no timeline column `{name}`"))
        .values
        .clone()
}
