//! Host CPU cores as reservations. Compression on the write path runs in the file system's
//! writeback contexts (`compress_threads`, F2FS: one flusher per device), each occupying a
//! core while it works; decompression runs in the reading thread's context on any core.
//! A co-running CPU-bound job (sysbench primes in Waltz §6.4.3) gets the core time the I/O
//! stack leaves; its progress is reported as a fraction of what it gets alone.
//!
//! Memory: every task holds its uncompressed buffer (a cluster for F2FS's compression, the
//! device-compressed blocks for host decompression of CCSD data) while it runs on its core.
//! The counters integrate the bytes held over time (the mean) and [`BufferMeter`] keeps the
//! largest amount held at once: the footprint follows from how many tasks overlap, not from a
//! formula.

use std::collections::BTreeMap;

use crate::units::SimTime;

/// Host memory held by (de)compression tasks over time.
///
/// Tasks are reservations that may start in the future; a task never starts before the
/// earliest time a core is free, so changes before that time are final and are folded into
/// the running level and peak (memory stays bounded by the tasks still queued).
#[derive(Debug, Clone, Default)]
pub struct BufferMeter {
    deltas: BTreeMap<SimTime, i64>,
    level: i64,
    peak: i64,
}

impl BufferMeter {
    fn hold(&mut self, start: SimTime, end: SimTime, bytes: u64) {
        if bytes == 0 || end <= start {
            return;
        }
        *self.deltas.entry(start).or_insert(0) += bytes as i64;
        *self.deltas.entry(end).or_insert(0) -= bytes as i64;
    }

    /// Fold every change before `upto` (no task can start earlier any more).
    fn settle(&mut self, upto: SimTime) {
        while let Some((&t, &d)) = self.deltas.first_key_value() {
            if t >= upto {
                break;
            }
            self.deltas.pop_first();
            self.level += d;
            self.peak = self.peak.max(self.level);
        }
    }

    /// The most bytes held at once.
    pub fn peak_bytes(&self) -> u64 {
        let (mut level, mut peak) = (self.level, self.peak);
        for d in self.deltas.values() {
            level += d;
            peak = peak.max(level);
        }
        peak.max(0) as u64
    }

    /// Changes still queued (bounded by the tasks not yet settled).
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.deltas.len()
    }
}

/// Host CPU counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuCounters {
    /// Core time spent compressing (ns).
    pub compress_busy_ns: u64,
    /// Core time spent decompressing (ns).
    pub decompress_busy_ns: u64,
    /// Compression tasks (clusters) run on the host.
    pub compress_tasks: u64,
    /// Decompression tasks run on the host.
    pub decompress_tasks: u64,
    /// Core time of system calls the page cache served (the call, the VFS path, the copy)
    /// (ns).
    pub syscall_busy_ns: u64,
    /// System calls the page cache served on a core.
    pub syscall_tasks: u64,
    /// Buffer bytes held by running tasks, integrated over time (byte-ns; the mean is this
    /// over the measured time).
    pub buffer_byte_ns: u64,
}

impl CpuCounters {
    /// Core time the I/O stack used (ns): (de)compression and cached system calls.
    pub fn busy_ns(&self) -> u64 {
        self.compress_busy_ns + self.decompress_busy_ns + self.syscall_busy_ns
    }
}

/// The host's cores.
#[derive(Debug, Clone)]
pub struct Cpu {
    cores: Vec<SimTime>,
    writeback: Vec<SimTime>,
    /// Counters.
    pub counters: CpuCounters,
    /// Memory held by the tasks.
    pub buffers: BufferMeter,
}

impl Cpu {
    /// `cores` idle cores, `compress_threads` writeback contexts.
    pub fn new(cores: u32, compress_threads: u32) -> Cpu {
        Cpu {
            cores: vec![SimTime::ZERO; cores as usize],
            writeback: vec![SimTime::ZERO; compress_threads as usize],
            counters: CpuCounters::default(),
            buffers: BufferMeter::default(),
        }
    }

    /// Cores.
    pub fn cores(&self) -> usize {
        self.cores.len()
    }

    fn earliest(v: &[SimTime]) -> usize {
        let mut best = 0;
        for (i, t) in v.iter().enumerate() {
            if *t < v[best] {
                best = i;
            }
        }
        best
    }

    /// A compression task of `ns` core time holding `bytes` of buffer, whose input is ready at
    /// `at`, run by a writeback context on a core; returns when it is done.
    pub fn compress(&mut self, at: SimTime, ns: u64, bytes: u64) -> SimTime {
        let w = Self::earliest(&self.writeback);
        let c = Self::earliest(&self.cores);
        let start = at.max(self.writeback[w]).max(self.cores[c]);
        let end = start + ns;
        self.writeback[w] = end;
        self.cores[c] = end;
        self.counters.compress_busy_ns += ns;
        self.counters.compress_tasks += 1;
        self.held(start, end, bytes);
        end
    }

    /// A decompression task of `ns` core time holding `bytes` of buffer, whose input is ready
    /// at `at`, on the first free core; returns when it is done.
    pub fn decompress(&mut self, at: SimTime, ns: u64, bytes: u64) -> SimTime {
        let (start, end) = self.any_core(at, ns);
        self.counters.decompress_busy_ns += ns;
        self.counters.decompress_tasks += 1;
        self.held(start, end, bytes);
        end
    }

    /// A system call of `ns` core time (the page cache's lookup and copy) issued at `at`, on
    /// the first free core: callers beyond the host's cores wait for one, so cached I/O is
    /// bounded by the cores, not by how many threads issue it. Returns when it is done.
    pub fn syscall(&mut self, at: SimTime, ns: u64) -> SimTime {
        let (_, end) = self.any_core(at, ns);
        self.counters.syscall_busy_ns += ns;
        self.counters.syscall_tasks += 1;
        self.settle_buffers();
        end
    }

    /// Reserve `ns` on the first free core for work ready at `at`: (start, end).
    fn any_core(&mut self, at: SimTime, ns: u64) -> (SimTime, SimTime) {
        let c = Self::earliest(&self.cores);
        let start = at.max(self.cores[c]);
        let end = start + ns;
        self.cores[c] = end;
        (start, end)
    }

    /// Fold buffer changes no task can precede any more (before the earliest free core).
    fn settle_buffers(&mut self) {
        let frontier = self.cores[Self::earliest(&self.cores)];
        self.buffers.settle(frontier);
    }

    fn held(&mut self, start: SimTime, end: SimTime, bytes: u64) {
        self.counters.buffer_byte_ns += bytes * (end.0 - start.0);
        self.buffers.hold(start, end, bytes);
        self.settle_buffers();
    }

    /// Core time the I/O stack used (ns): (de)compression and cached system calls.
    pub fn busy_ns(&self) -> u64 {
        self.counters.busy_ns()
    }

    /// Progress of a co-running job of `threads` CPU-bound threads over `elapsed_ns` in which
    /// the I/O stack used `busy_ns` of core time, as a fraction of its progress on an
    /// otherwise idle host: it gets every core-nanosecond the I/O stack leaves, up to one
    /// core per thread.
    pub fn compute_progress(&self, threads: u32, elapsed_ns: u64, busy_ns: u64) -> Option<f64> {
        if threads == 0 || elapsed_ns == 0 {
            return None;
        }
        let want = threads as f64 * elapsed_ns as f64;
        let spare = self.cores.len() as f64 * elapsed_ns as f64 - busy_ns as f64;
        let alone = want.min(self.cores.len() as f64 * elapsed_ns as f64);
        Some((want.min(spare.max(0.0)) / alone).clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_writeback_context_serialises_compression() {
        let mut c = Cpu::new(4, 1);
        assert_eq!(c.compress(SimTime(0), 100, 16), SimTime(100));
        assert_eq!(c.compress(SimTime(0), 100, 16), SimTime(200));
        // decompression uses the other cores meanwhile
        assert_eq!(c.decompress(SimTime(0), 50, 16), SimTime(50));
        assert_eq!(c.counters.compress_tasks, 2);
        assert_eq!(c.busy_ns(), 250);
    }

    #[test]
    fn system_calls_beyond_the_cores_wait_for_one() {
        // 10 threads issue a 100-ns call each at t = 0 on 4 cores: 4 run at once, so the
        // calls end at 100, 100, 100, 100, 200, ..., 300 (ceil(10 / 4) = 3 rounds).
        let mut c = Cpu::new(4, 1);
        let ends: Vec<u64> = (0..10).map(|_| c.syscall(SimTime(0), 100).0).collect();
        assert_eq!(ends, vec![100, 100, 100, 100, 200, 200, 200, 200, 300, 300]);
        assert_eq!(c.counters.syscall_tasks, 10);
        assert_eq!(c.busy_ns(), 1000);
        // a call issued after the cores went idle starts at once
        assert_eq!(c.syscall(SimTime(1000), 50), SimTime(1050));
    }

    #[test]
    fn compute_job_gets_what_is_left() {
        let mut c = Cpu::new(2, 1);
        c.compress(SimTime(0), 500, 0);
        // 2 cores x 1000 ns = 2000, the stack used 500: a 2-thread job gets 1500 of 2000.
        assert_eq!(c.compute_progress(2, 1000, c.busy_ns()), Some(0.75));
        // a 1-thread job still gets its whole core
        assert_eq!(c.compute_progress(1, 1000, c.busy_ns()), Some(1.0));
        assert_eq!(c.compute_progress(0, 1000, c.busy_ns()), None);
    }

    /// Brute force: the bytes held at each nanosecond of the intervals, maximum and sum.
    fn brute(intervals: &[(u64, u64, u64)]) -> (u64, u128) {
        let end = intervals.iter().map(|i| i.1).max().unwrap_or(0);
        let mut peak = 0;
        let mut sum = 0u128;
        for t in 0..end {
            let held: u64 = intervals
                .iter()
                .filter(|i| i.0 <= t && t < i.1)
                .map(|i| i.2)
                .sum();
            peak = peak.max(held);
            sum += held as u128;
        }
        (peak, sum)
    }

    #[test]
    fn buffer_meter_matches_a_brute_force_sweep() {
        // Random tasks on 3 cores, 1 writeback context: the meter's peak and mean agree with
        // counting the bytes held at every nanosecond, and settled changes are dropped.
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        for _ in 0..20 {
            let mut c = Cpu::new(3, 1);
            let mut at = 0u64;
            let mut iv = Vec::new();
            for _ in 0..60 {
                at += next(40);
                let ns = 1 + next(90);
                let bytes = 4096 * (1 + next(4));
                let end = if next(2) == 0 {
                    c.compress(SimTime(at), ns, bytes)
                } else {
                    c.decompress(SimTime(at), ns, bytes)
                };
                iv.push((end.0 - ns, end.0, bytes));
            }
            let (peak, sum) = brute(&iv);
            let total = iv.iter().map(|i| i.1).max().unwrap();
            assert_eq!(c.buffers.peak_bytes(), peak);
            assert_eq!(u128::from(c.counters.buffer_byte_ns), sum);
            assert!(total > 0);
            assert!(c.buffers.pending() <= 2 * 60);
        }
    }

    #[test]
    fn one_writer_holds_one_cluster_and_eight_readers_eight() {
        // F2FS compresses in one writeback context: back-to-back clusters never overlap.
        let mut c = Cpu::new(16, 1);
        for i in 0..100 {
            c.compress(SimTime(i * 10), 50, 16384);
        }
        assert_eq!(c.buffers.peak_bytes(), 16384);
        // Eight readers decompressing at once hold eight clusters (the seed's 16 KB x 8).
        let mut c = Cpu::new(16, 1);
        for _ in 0..8 {
            c.decompress(SimTime(1000), 50, 16384);
        }
        assert_eq!(c.buffers.peak_bytes(), 8 * 16384);
    }
}
