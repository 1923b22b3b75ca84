//! Host CPU cores as reservations. Compression on the write path runs in the file system's
//! writeback contexts (`compress_threads`, F2FS: one flusher per device), each occupying a
//! core while it works; decompression runs in the reading thread's context on any core.
//! A co-running CPU-bound job (sysbench primes in Waltz §6.4.3) gets the core time the I/O
//! stack leaves; its progress is reported as a fraction of what it gets alone.

use crate::units::SimTime;

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
}

/// The host's cores.
#[derive(Debug, Clone)]
pub struct Cpu {
    cores: Vec<SimTime>,
    writeback: Vec<SimTime>,
    /// Counters.
    pub counters: CpuCounters,
}

impl Cpu {
    /// `cores` idle cores, `compress_threads` writeback contexts.
    pub fn new(cores: u32, compress_threads: u32) -> Cpu {
        Cpu {
            cores: vec![SimTime::ZERO; cores as usize],
            writeback: vec![SimTime::ZERO; compress_threads as usize],
            counters: CpuCounters::default(),
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

    /// A compression task of `ns` core time whose input is ready at `at`, run by a writeback
    /// context on a core; returns when it is done.
    pub fn compress(&mut self, at: SimTime, ns: u64) -> SimTime {
        let w = Self::earliest(&self.writeback);
        let c = Self::earliest(&self.cores);
        let start = at.max(self.writeback[w]).max(self.cores[c]);
        let end = start + ns;
        self.writeback[w] = end;
        self.cores[c] = end;
        self.counters.compress_busy_ns += ns;
        self.counters.compress_tasks += 1;
        end
    }

    /// A decompression task of `ns` core time whose input is ready at `at`, on the first free
    /// core; returns when it is done.
    pub fn decompress(&mut self, at: SimTime, ns: u64) -> SimTime {
        let c = Self::earliest(&self.cores);
        let start = at.max(self.cores[c]);
        let end = start + ns;
        self.cores[c] = end;
        self.counters.decompress_busy_ns += ns;
        self.counters.decompress_tasks += 1;
        end
    }

    /// Core time the I/O stack used (ns).
    pub fn busy_ns(&self) -> u64 {
        self.counters.compress_busy_ns + self.counters.decompress_busy_ns
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
        assert_eq!(c.compress(SimTime(0), 100), SimTime(100));
        assert_eq!(c.compress(SimTime(0), 100), SimTime(200));
        // decompression uses the other cores meanwhile
        assert_eq!(c.decompress(SimTime(0), 50), SimTime(50));
        assert_eq!(c.counters.compress_tasks, 2);
        assert_eq!(c.busy_ns(), 250);
    }

    #[test]
    fn compute_job_gets_what_is_left() {
        let mut c = Cpu::new(2, 1);
        c.compress(SimTime(0), 500);
        // 2 cores x 1000 ns = 2000, the stack used 500: a 2-thread job gets 1500 of 2000.
        assert_eq!(c.compute_progress(2, 1000, c.busy_ns()), Some(0.75));
        // a 1-thread job still gets its whole core
        assert_eq!(c.compute_progress(1, 1000, c.busy_ns()), Some(1.0));
        assert_eq!(c.compute_progress(0, 1000, c.busy_ns()), None);
    }
}
