//! The bare bound of the core speed benchmark: the page FTL's work with nothing else.
//!
//! `cargo run --release -p flashpress-core --example bare_loop -- TRACE [--timed]`
//!
//! The `bench-mlc-2g` device's mapping, allocation and greedy GC over flat arrays, as the
//! core does them (`ftl/mod.rs`, `ftl/victim.rs`): a logical and a reverse page map of `u32`,
//! per-block valid counts and write pointers, one FIFO free list and one open block per
//! plane, writes striped round-robin over the 32 planes, foreground GC in a plane whose free
//! blocks fall below 13 (5% of 256) choosing the sealed block with the fewest valid pages
//! (lowest index first) and moving its valid pages into the same plane. No events, no
//! timing model, no statistics beyond the page counts, no trace parsing in the timed part:
//! TRACE (DiskSim ASCII writes, as `benchmarks/bench_core.py` writes them) is read into a
//! vector of (first page, pages) before the clock starts. The 32 planes are symmetric, so
//! visiting them in index order does the same work as the core's channel-first order.
//!
//! Prints one JSON object: requests, pages written by the host and by GC, WAF, the loop's
//! wall time and this process's peak RSS (VmHWM).
//!
//! `bare_loop TRACE --timed` adds the `fcfs` controller's timing by reservations (busy-until
//! times, no event queue): the host's closed loop at queue depth 32 (request 33 on is issued
//! when the earliest of the 32 in flight completes), each request's command overhead and its
//! data over the host link (first come first served), each page's channel transfer and
//! program on its plane, each GC job (the victim's copybacks, read and program inside the
//! plane, then its erase) on its plane from the moment the write that triggered it is mapped,
//! and a request's completion when its last page is programmed. The durations are the
//! `bench-mlc-2g` preset's, converted as the core converts them (by page type). A plane serves
//! what is booked on it in booking order (the core's `fcfs` order but for GC queued while an
//! earlier request's data is still on the link); a channel transfer takes the first gap that
//! fits at or after its plane starts (the core grants transfers in the order they are
//! requested in time). It prints the simulated time, write IOPS, mean, p99 and maximum write
//! latency (p99 from an HDR histogram of 3 significant digits, as the core's) and the
//! transfers it booked ahead of one booked before them (where its order can differ from the
//! core's) beside the page counts. The preset is loaded before the clock starts.

use flashpress_core::config::{SchedPolicy, SimConfig, Striping, VictimPolicy};
use flashpress_core::units::{bytes_ns, duration_ns, ns_per_byte, MAX_OP_NS};
use hdrhistogram::Histogram;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::time::Instant;

#[path = "../crates/flashpress-core/examples/common/mod.rs"]
mod common;
use common::peak_rss_mib;

const PLANES: u32 = 8 * 2 * 2;
const BLOCKS_PER_PLANE: u32 = 256;
const PAGES_PER_BLOCK: u32 = 64;
const OP_RATIO: f64 = 0.07;
const GC_THRESHOLD: usize = 13; // ceil(0.05 * 256)
const UNMAPPED: u32 = u32::MAX;
/// Channels: the stripe order is channel-first, so the `k`-th plane of the round robin is on
/// channel `k % CHANNELS` (`ftl::stripe_order`).
const CHANNELS: usize = 8;
/// The host's queue depth (`bench_core.py` replays at 32).
const QUEUE_DEPTH: usize = 32;

/// Where the FTL's GC work goes: nowhere (the FTL-only loop) or onto the planes' times.
trait Flash {
    /// A copyback of the GC job being built, from page `src` to page `dst`.
    fn copyback(&mut self, src: u32, dst: u32);
    /// The GC job built since the last one (its copybacks, then the victim's erase) is
    /// queued on `plane`.
    fn gc_job(&mut self, plane: usize);
}

/// The FTL-only loop: no timing.
struct Untimed;

impl Flash for Untimed {
    #[inline(always)]
    fn copyback(&mut self, _: u32, _: u32) {}
    #[inline(always)]
    fn gc_job(&mut self, _: usize) {}
}

struct Ftl {
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u32>,
    write_ptr: Vec<u32>,
    sealed: Vec<bool>,
    free: Vec<VecDeque<u32>>,
    open: Vec<u32>,
    cursor: u32,
    host_pages: u64,
    gc_pages: u64,
    erases: u64,
}

impl Ftl {
    fn new(logical: usize) -> Ftl {
        let blocks = (PLANES * BLOCKS_PER_PLANE) as usize;
        Ftl {
            l2p: vec![UNMAPPED; logical],
            p2l: vec![UNMAPPED; blocks * PAGES_PER_BLOCK as usize],
            valid: vec![0; blocks],
            write_ptr: vec![0; blocks],
            sealed: vec![false; blocks],
            free: (0..PLANES)
                .map(|p| (p * BLOCKS_PER_PLANE..(p + 1) * BLOCKS_PER_PLANE).collect())
                .collect(),
            open: vec![UNMAPPED; PLANES as usize],
            cursor: 0,
            host_pages: 0,
            gc_pages: 0,
            erases: 0,
        }
    }

    #[inline(always)]
    fn take_page(&mut self, plane: usize) -> u32 {
        if self.open[plane] == UNMAPPED {
            self.open[plane] = self.free[plane].pop_front().expect("GC reserve exhausted");
        }
        let b = self.open[plane] as usize;
        let wp = self.write_ptr[b];
        self.write_ptr[b] = wp + 1;
        if wp + 1 == PAGES_PER_BLOCK {
            self.sealed[b] = true;
            self.open[plane] = UNMAPPED;
        }
        b as u32 * PAGES_PER_BLOCK + wp
    }

    fn victim(&self, plane: usize) -> Option<usize> {
        let lo = plane * BLOCKS_PER_PLANE as usize;
        let mut best = None;
        let mut best_valid = PAGES_PER_BLOCK;
        for b in lo..lo + BLOCKS_PER_PLANE as usize {
            if self.valid[b] < best_valid && self.sealed[b] {
                best = Some(b);
                best_valid = self.valid[b];
                if best_valid == 0 {
                    break;
                }
            }
        }
        best
    }

    fn clean<F: Flash>(&mut self, plane: usize, victim: usize, flash: &mut F) {
        let first = victim as u32 * PAGES_PER_BLOCK;
        for src in first..first + PAGES_PER_BLOCK {
            let lpn = self.p2l[src as usize];
            if lpn == UNMAPPED {
                continue;
            }
            let dst = self.take_page(plane);
            flash.copyback(src, dst);
            self.p2l[src as usize] = UNMAPPED;
            self.valid[victim] -= 1;
            self.l2p[lpn as usize] = dst;
            self.p2l[dst as usize] = lpn;
            self.valid[(dst / PAGES_PER_BLOCK) as usize] += 1;
            self.gc_pages += 1;
        }
        self.sealed[victim] = false;
        self.write_ptr[victim] = 0;
        self.free[plane].push_back(victim as u32);
        self.erases += 1;
        flash.gc_job(plane);
    }

    fn pick_plane<F: Flash>(&mut self, flash: &mut F) -> usize {
        loop {
            let plane = self.cursor as usize;
            self.cursor = (self.cursor + 1) % PLANES;
            if self.open[plane] != UNMAPPED {
                return plane;
            }
            while self.free[plane].len() < GC_THRESHOLD {
                match self.victim(plane) {
                    Some(v) => self.clean(plane, v, flash),
                    None => break,
                }
            }
            if self.free[plane].len() >= 2 {
                return plane;
            }
        }
    }

    /// Map a host write of `lpn`: its page (on round-robin plane `ppn / (BLOCKS_PER_PLANE *
    /// PAGES_PER_BLOCK)`).
    fn write<F: Flash>(&mut self, lpn: u32, flash: &mut F) -> u32 {
        let plane = self.pick_plane(flash);
        let ppn = self.take_page(plane);
        let old = self.l2p[lpn as usize];
        if old != UNMAPPED {
            self.p2l[old as usize] = UNMAPPED;
            self.valid[(old / PAGES_PER_BLOCK) as usize] -= 1;
        }
        self.l2p[lpn as usize] = ppn;
        self.p2l[ppn as usize] = lpn;
        self.valid[(ppn / PAGES_PER_BLOCK) as usize] += 1;
        self.host_pages += 1;
        ppn
    }
}

/// The `fcfs` controller's timing as reservations: when each plane, channel and the host link
/// are next free (ns).
struct Clock {
    /// Command overhead of a request at the controller.
    overhead_ns: u64,
    /// Host link time per byte.
    link_ns_per_byte: f64,
    /// Channel time of one page.
    xfer_ns: u64,
    /// Array read and program time by page type, and the page type of each page of a block.
    read_ns: [u64; 4],
    program_ns: [u64; 4],
    type_of_page: [u8; PAGES_PER_BLOCK as usize],
    erase_ns: u64,
    /// Array time of the copybacks of the GC job being built.
    job_ns: u64,
    /// The time the request being mapped was issued.
    now: u64,
    /// Per plane (round-robin index), when the work booked on it ends.
    plane_free: [u64; PLANES as usize],
    /// Per channel, its booked transfers (start, end) that end after `now`, in time order.
    chan: [VecDeque<(u64, u64)>; CHANNELS],
    /// When the host link is free.
    link_free: u64,
    /// Transfers booked ahead of one booked before them (where this loop's order can differ
    /// from the core's).
    booked_ahead: u64,
}

impl Clock {
    /// The `bench-mlc-2g` preset's durations, converted as the core converts them; an error if
    /// its geometry is no longer the one this loop is written for.
    fn from_preset() -> Result<Clock, Box<dyn std::error::Error>> {
        let cfg = SimConfig::preset("bench-mlc-2g")?;
        let n = &cfg.nand;
        let planes = n.channels * n.chips_per_channel * n.dies_per_chip * n.planes_per_die;
        let expect = (
            CHANNELS as u32,
            PLANES,
            BLOCKS_PER_PLANE,
            PAGES_PER_BLOCK,
            4096,
        );
        let got = (
            n.channels,
            planes,
            n.blocks_per_plane,
            n.pages_per_block,
            n.page_size,
        );
        if got != expect || cfg.ftl.op_ratio != OP_RATIO {
            return Err(format!(
                "bench-mlc-2g has (channels, planes, blocks per plane, pages per block, page \
                 size) {got:?} and OP {}; this loop is written for {expect:?} and OP {OP_RATIO}",
                cfg.ftl.op_ratio
            )
            .into());
        }
        // What this loop models and the FTL-only loop's WAF check cannot see: a preset that
        // changes any of it would part the timings silently.
        let (f, c) = (&cfg.ftl, &cfg.controller);
        let assumed = [
            (
                "controller.scheduler = \"fcfs\"",
                c.scheduler == SchedPolicy::Fcfs,
            ),
            ("controller.suspend.enabled = false", !c.suspend.enabled),
            ("controller.ecc_decode_us = 0", c.ecc_decode_us == 0.0),
            (
                "ftl.striping = \"channel_first\"",
                f.striping == Striping::ChannelFirst,
            ),
            ("ftl.write_buffer_pages = 0", f.write_buffer_pages == 0),
            (
                "ftl.gc.victim = \"greedy\"",
                f.gc.victim == VictimPolicy::Greedy,
            ),
            ("ftl.gc.threshold = 0.05", f.gc.threshold == 0.05),
            ("ftl.gc.background = false", !f.gc.background),
            ("ftl.gc.copyback = true", f.gc.copyback),
            ("ftl.gc.preemptible = false", !f.gc.preemptible),
        ];
        if let Some((key, _)) = assumed.iter().find(|(_, holds)| !holds) {
            return Err(format!(
                "bench-mlc-2g no longer has {key}, which this loop's timing assumes"
            )
            .into());
        }
        let us = |key: &str, v: f64| duration_ns(key, v, 1e3, MAX_OP_NS);
        let types = n.cell.page_types();
        let (mut read_ns, mut program_ns) = ([0; 4], [0; 4]);
        for i in 0..types {
            read_ns[i] = us("nand.read_latency_us", n.read_latency_us[i])?;
            program_ns[i] = us("nand.program_latency_us", n.program_latency_us[i])?;
        }
        let mut type_of_page = [0; PAGES_PER_BLOCK as usize];
        for (i, t) in type_of_page.iter_mut().enumerate() {
            *t = (i % types) as u8;
        }
        let chan_per_byte = ns_per_byte("nand.channel_mb_per_s", n.channel_mb_per_s)?;
        Ok(Clock {
            overhead_ns: duration_ns(
                "host.command_overhead_ns",
                cfg.host.command_overhead_ns as f64,
                1.0,
                MAX_OP_NS,
            )?,
            link_ns_per_byte: ns_per_byte("host.link_mb_per_s", cfg.host.link_mb_per_s)?,
            xfer_ns: bytes_ns(n.page_size as u64, chan_per_byte),
            read_ns,
            program_ns,
            type_of_page,
            erase_ns: us("nand.erase_latency_us", n.erase_latency_us)?,
            job_ns: 0,
            now: 0,
            plane_free: [0; PLANES as usize],
            chan: std::array::from_fn(|_| VecDeque::new()),
            link_free: 0,
            booked_ahead: 0,
        })
    }

    #[inline(always)]
    fn page_type(&self, ppn: u32) -> usize {
        self.type_of_page[(ppn % PAGES_PER_BLOCK) as usize] as usize
    }

    /// Book one page transfer on `ch` at or after `at`: the first gap that fits. Returns its end.
    #[inline]
    fn transfer(&mut self, ch: usize, at: u64) -> u64 {
        let (now, x) = (self.now, self.xfer_ns);
        let list = &mut self.chan[ch];
        // Every later booking asks at or after `now`: transfers ended by then no longer matter.
        while list.front().is_some_and(|&(_, e)| e <= now) {
            list.pop_front();
        }
        match list.back() {
            Some(&(_, e)) if e > at => {}
            _ => {
                // After everything booked (the usual case): no gap to look for.
                list.push_back((at, at + x));
                return at + x;
            }
        }
        let mut start = at;
        let mut pos = list.len();
        for (i, &(s, e)) in list.iter().enumerate() {
            if start + x <= s {
                pos = i;
                break;
            }
            start = start.max(e);
        }
        if pos < list.len() {
            // Ahead of a transfer booked before it: booking order is not time order here,
            // and the core grants transfers in time order, so the two can part from here on.
            self.booked_ahead += 1;
        }
        list.insert(pos, (start, start + x));
        start + x
    }

    /// Book the host program of `ppn` on round-robin plane `plane`, its data at the controller
    /// at `arrived`: the plane starts it when free, holds it while its channel moves the page
    /// in, then programs. Returns when it is programmed.
    #[inline]
    fn program(&mut self, plane: usize, ppn: u32, arrived: u64) -> u64 {
        let start = arrived.max(self.plane_free[plane]);
        let loaded = self.transfer(plane % CHANNELS, start);
        let end = loaded + self.program_ns[self.page_type(ppn)];
        self.plane_free[plane] = end;
        end
    }
}

impl Flash for Clock {
    #[inline(always)]
    fn copyback(&mut self, src: u32, dst: u32) {
        self.job_ns += self.read_ns[self.page_type(src)] + self.program_ns[self.page_type(dst)];
    }
    #[inline]
    fn gc_job(&mut self, plane: usize) {
        let start = self.now.max(self.plane_free[plane]);
        self.plane_free[plane] = start + self.job_ns + self.erase_ns;
        self.job_ns = 0;
    }
}

/// What the timed loop measures of the simulated run.
struct Timed {
    /// When the last request completed (ns).
    end_ns: u64,
    /// Sum of write latencies (ns).
    latency_sum_ns: u128,
    /// Write latencies (ns, 3 significant digits, as the core's histograms).
    hist: Histogram<u64>,
    latency_min_ns: u64,
    latency_max_ns: u64,
}

/// Replay `requests` (first page, pages) through `ftl` with the `fcfs` timing of `clock`: the
/// host keeps [`QUEUE_DEPTH`] requests in flight and issues the next one when the earliest
/// of them completes.
#[inline(never)]
fn run_timed(ftl: &mut Ftl, clock: &mut Clock, requests: &[(u32, u32)]) -> Timed {
    // Completion times of the requests in flight, earliest on top (which slot a request held
    // does not matter: requests are issued in trace order).
    let mut in_flight: BinaryHeap<Reverse<u64>> = BinaryHeap::with_capacity(QUEUE_DEPTH);
    // The link time of the last request's length (most requests have the same).
    let mut link = (0, 0);
    let mut pages: Vec<u32> = Vec::new();
    let mut t = Timed {
        end_ns: 0,
        latency_sum_ns: 0,
        hist: Histogram::new(3).expect("valid histogram bounds"),
        latency_min_ns: u64::MAX,
        latency_max_ns: 0,
    };
    for &(first, n) in requests {
        // The first requests go at time zero; each later one when the earliest in flight
        // completes.
        let now = match in_flight.len() {
            QUEUE_DEPTH => in_flight.pop().expect("full").0,
            _ => 0,
        };
        clock.now = now;
        // Mapped when submitted: GC jobs go on their planes now.
        pages.clear();
        for lpn in first..first + n {
            pages.push(ftl.write(lpn, clock));
        }
        // The command reaches the controller, then its data crosses the link.
        let cmd = now + clock.overhead_ns;
        if n != link.0 {
            link = (n, bytes_ns(n as u64 * 4096, clock.link_ns_per_byte));
        }
        let arrived = cmd.max(clock.link_free) + link.1;
        clock.link_free = arrived;
        let mut done = cmd;
        for &ppn in &pages {
            let plane = (ppn / (BLOCKS_PER_PLANE * PAGES_PER_BLOCK)) as usize;
            done = done.max(clock.program(plane, ppn, arrived));
        }
        in_flight.push(Reverse(done));
        let lat = done - now;
        t.latency_sum_ns += lat as u128;
        t.hist.record(lat).expect("the histogram grows");
        t.latency_min_ns = t.latency_min_ns.min(lat);
        t.latency_max_ns = t.latency_max_ns.max(lat);
        t.end_ns = t.end_ns.max(done);
    }
    t
}

/// Replay `requests` (first page, pages) through `ftl` without timing.
#[inline(never)]
fn run_ftl_only(ftl: &mut Ftl, requests: &[(u32, u32)]) {
    for &(first, n) in requests {
        for lpn in first..first + n {
            ftl.write(lpn, &mut Untimed);
        }
    }
}

/// (first page, pages) of each write in a DiskSim ASCII trace of 512-byte sectors.
fn read_trace(path: &str) -> Result<Vec<(u32, u32)>, Box<dyn std::error::Error>> {
    let reader = BufReader::new(File::open(path)?);
    let mut out = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line?;
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 5 || f[4] != "0" {
            return Err(format!("{path}:{}: expected `time dev sector nsectors 0`", i + 1).into());
        }
        let number = |k: usize, what: &str| {
            f[k].parse::<u64>()
                .map_err(|e| format!("{path}:{}: {what} `{}`: {e}", i + 1, f[k]))
        };
        let sector = number(2, "sector")?;
        let sectors = number(3, "sector count")?;
        if !sector.is_multiple_of(8) || !sectors.is_multiple_of(8) || sectors == 0 {
            return Err(format!("{path}:{}: expected whole 4 KiB pages", i + 1).into());
        }
        // Pages past u32 are past the device too; the caller's range check names the device.
        let (first, pages) = match (u32::try_from(sector / 8), u32::try_from(sectors / 8)) {
            (Ok(p), Ok(n)) if p.checked_add(n).is_some() => (p, n),
            _ => return Err(format!("{path}:{}: pages beyond 2^32", i + 1).into()),
        };
        out.push((first, pages));
    }
    if out.is_empty() {
        return Err(format!("{path}: no requests").into());
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: bare_loop TRACE [--timed]";
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or(usage)?;
    let timed = match args.next().as_deref() {
        None => false,
        Some("--timed") => true,
        Some(other) => return Err(format!("unknown option `{other}`; {usage}").into()),
    };
    if let Some(extra) = args.next() {
        return Err(format!("unexpected argument `{extra}`; {usage}").into());
    }
    let requests = read_trace(&path)?;
    let physical = (PLANES * BLOCKS_PER_PLANE * PAGES_PER_BLOCK) as u64;
    let logical = (physical as f64 * (1.0 - OP_RATIO)).floor() as usize;
    if let Some(&(p, n)) = requests.iter().find(|&&(p, n)| (p + n) as usize > logical) {
        return Err(format!("pages {p}..{} beyond the {logical} logical pages", p + n).into());
    }
    let mut ftl = Ftl::new(logical);
    if timed {
        let mut clock = Clock::from_preset()?;
        let t0 = Instant::now();
        let t = run_timed(&mut ftl, &mut clock, &requests);
        let run_s = t0.elapsed().as_secs_f64();
        let n = requests.len() as f64;
        let sim_s = t.end_ns as f64 * 1e-9;
        // As the core's summary: HDR's value at the quantile, kept within the exact range.
        let p99 = t
            .hist
            .value_at_quantile(0.99)
            .clamp(t.latency_min_ns, t.latency_max_ns) as f64
            * 1e-3;
        println!(
            "{{\"path\": \"bare-loop-timed\", \"requests\": {}, \"host_pages\": {}, \
             \"gc_pages_migrated\": {}, \"erases\": {}, \"waf\": {}, \"sim_time_s\": {}, \
             \"write_iops_simulated\": {}, \"write_mean_us\": {}, \"write_p99_us\": {}, \
             \"write_max_us\": {}, \"transfers_booked_ahead\": {}, \"run_wall_s\": {}, \
             \"requests_per_wall_s\": {}, \"peak_rss_mib\": {}}}",
            requests.len(),
            ftl.host_pages,
            ftl.gc_pages,
            ftl.erases,
            (ftl.host_pages + ftl.gc_pages) as f64 / ftl.host_pages as f64,
            sim_s,
            n / sim_s,
            t.latency_sum_ns as f64 / n * 1e-3,
            p99,
            t.latency_max_ns as f64 * 1e-3,
            clock.booked_ahead,
            run_s,
            n / run_s,
            peak_rss_mib()
        );
        return Ok(());
    }
    let t0 = Instant::now();
    run_ftl_only(&mut ftl, &requests);
    let run_s = t0.elapsed().as_secs_f64();
    println!(
        "{{\"path\": \"bare-loop\", \"requests\": {}, \"host_pages\": {}, \"gc_pages_migrated\": {}, \
         \"erases\": {}, \"waf\": {}, \"run_wall_s\": {}, \"requests_per_wall_s\": {}, \
         \"peak_rss_mib\": {}}}",
        requests.len(),
        ftl.host_pages,
        ftl.gc_pages,
        ftl.erases,
        (ftl.host_pages + ftl.gc_pages) as f64 / ftl.host_pages as f64,
        run_s,
        requests.len() as f64 / run_s,
        peak_rss_mib()
    );
    Ok(())
}
