//! The bare bound of the core speed benchmark: the page FTL's work with nothing else.
//!
//! `cargo run --release -p flashpress-core --example bare_loop -- TRACE`
//!
//! The `bench-mlc-2g` device's mapping, allocation and greedy GC over flat arrays, as the
//! core does them (`ftl/mod.rs`, `ftl/victim.rs`): a logical and a reverse page map of `u32`,
//! per-block valid counts and write pointers, one FIFO free list and one open block per
//! plane, writes striped round-robin over the 64 planes, foreground GC in a plane whose free
//! blocks fall below 13 (5% of 256) choosing the sealed block with the fewest valid pages
//! (lowest index first) and moving its valid pages into the same plane. No events, no
//! timing model, no statistics beyond the page counts, no trace parsing in the timed part:
//! TRACE (DiskSim ASCII writes, as `benchmarks/bench_core.py` writes them) is read into a
//! vector of (first page, pages) before the clock starts. The 64 planes are symmetric, so
//! visiting them in index order does the same work as the core's channel-first order.
//!
//! Prints one JSON object: requests, pages written by the host and by GC, WAF, the loop's
//! wall time and this process's peak RSS (VmHWM).

use std::collections::VecDeque;
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

    fn clean(&mut self, plane: usize, victim: usize) {
        let first = victim as u32 * PAGES_PER_BLOCK;
        for src in first..first + PAGES_PER_BLOCK {
            let lpn = self.p2l[src as usize];
            if lpn == UNMAPPED {
                continue;
            }
            let dst = self.take_page(plane);
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
    }

    fn pick_plane(&mut self) -> usize {
        loop {
            let plane = self.cursor as usize;
            self.cursor = (self.cursor + 1) % PLANES;
            if self.open[plane] != UNMAPPED {
                return plane;
            }
            while self.free[plane].len() < GC_THRESHOLD {
                match self.victim(plane) {
                    Some(v) => self.clean(plane, v),
                    None => break,
                }
            }
            if self.free[plane].len() >= 2 {
                return plane;
            }
        }
    }

    fn write(&mut self, lpn: u32) {
        let plane = self.pick_plane();
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
        let sector: u64 = f[2].parse()?;
        let sectors: u64 = f[3].parse()?;
        if !sector.is_multiple_of(8) || !sectors.is_multiple_of(8) || sectors == 0 {
            return Err(format!("{path}:{}: expected whole 4 KiB pages", i + 1).into());
        }
        out.push(((sector / 8) as u32, (sectors / 8) as u32));
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: bare_loop TRACE")?;
    let requests = read_trace(&path)?;
    let physical = (PLANES * BLOCKS_PER_PLANE * PAGES_PER_BLOCK) as u64;
    let logical = (physical as f64 * (1.0 - OP_RATIO)).floor() as usize;
    if let Some(&(p, n)) = requests.iter().find(|&&(p, n)| (p + n) as usize > logical) {
        return Err(format!("pages {p}..{} beyond the {logical} logical pages", p + n).into());
    }
    let mut ftl = Ftl::new(logical);
    let t0 = Instant::now();
    for &(first, n) in &requests {
        for lpn in first..first + n {
            ftl.write(lpn);
        }
    }
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
