//! The request generator behind each fio job clone.

use crate::error::Result;
use crate::units::SimTime;
use crate::workload::{FileAttrs, Op, Request, RequestSource};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Block size rule of one data direction (bytes, multiples of 512).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum BsSpec {
    /// `bs=4k`.
    Fixed(u64),
    /// `bsrange=min-max`.
    Range(u64, u64),
    /// `bssplit`: (size, percent), percents summing to 100.
    Split(Vec<(u64, u32)>),
}

impl BsSpec {
    pub(super) fn min(&self) -> u64 {
        match self {
            BsSpec::Fixed(b) => *b,
            BsSpec::Range(lo, _) => *lo,
            BsSpec::Split(v) => v.iter().map(|e| e.0).min().unwrap_or(4096),
        }
    }
    pub(super) fn max(&self) -> u64 {
        match self {
            BsSpec::Fixed(b) => *b,
            BsSpec::Range(_, hi) => *hi,
            BsSpec::Split(v) => v.iter().map(|e| e.0).max().unwrap_or(4096),
        }
    }
}

/// `random_distribution`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Dist {
    /// Uniform.
    Random,
    /// `zipf:θ`.
    Zipf(f64),
    /// `pareto:h`.
    Pareto(f64),
    /// `normal:dev` (percent).
    Normal(f64),
}

/// Everything a clone needs, resolved from the job's options.
#[derive(Debug, Clone)]
pub(super) struct SourceSpec {
    /// Percentage of requests that read (100 read-only, 0 write-only).
    pub read_pct: u32,
    /// Random offsets (`rand*`) rather than sequential.
    pub random: bool,
    /// Block size rule per direction: read, write.
    pub bs: [BsSpec; 2],
    /// Smallest block size in use: the unit of random offsets.
    pub min_bs: u64,
    /// Region start, bytes.
    pub region_start: u64,
    /// Region length, bytes (a multiple of `min_bs`, at least the largest block size).
    pub region_len: u64,
    /// Bytes to transfer before the job ends (`None` for `time_based`).
    pub io_limit: Option<u64>,
    /// Requests before the job ends.
    pub number_ios: Option<u64>,
    /// Run time limit, ns.
    pub runtime_ns: Option<u64>,
    /// Offset distribution for random jobs.
    pub dist: Dist,
    /// fio's random map: uniform random visits every block once per pass.
    pub randommap: bool,
    /// `dedupe_percentage`.
    pub dedupe_pct: u32,
    /// `dedupe_mode=working_set`: duplicates are drawn from a working set of this many 4 KiB
    /// blocks (`dedupe_working_set_percentage` of `size`), the job's first content ids;
    /// `None` (`dedupe_mode=repeat`, fio's default): from every block the job wrote before.
    pub dedupe_working_set: Option<u64>,
    /// `percentage_random` per direction (read, write): the share of a random job's requests
    /// at random offsets; the others continue from the end of the previous request.
    pub pct_random: [u32; 2],
    /// `fsync=N` / `fdatasync=N`: a flush of the file after every N writes (0: never).
    pub sync_every: u64,
    /// Open flags (`sync`, `direct`): [`FileAttrs::DSYNC`] | [`FileAttrs::DIRECT`].
    pub open_flags: u8,
}

/// fio's `GR_PRIME_64` (hash.h): `__hash_u64(v) = v * GR_PRIME_64`, and `__hash_long` computes
/// the same product on 64-bit machines. fio scrambles zipf/pareto/normal ranks with it so the
/// hot blocks spread over the region instead of sitting at its start.
const GR_PRIME_64: u64 = 0x9e37_ffff_fffc_0001;

#[inline]
fn fio_hash(v: u64) -> u64 {
    v.wrapping_mul(GR_PRIME_64)
}

/// fio caps the terms of ζ(n) at 10M (`ZIPF_MAX_GEN`, lib/zipf.c) to bound set-up time.
const ZIPF_MAX_GEN: u64 = 10_000_000;

/// Precomputed ζ(n, θ) for a zipf job, shared by its clones.
#[derive(Debug, Clone, Copy)]
pub(super) struct ZipfTable {
    n: u64,
    theta: f64,
    zetan: f64,
}

impl ZipfTable {
    pub(super) fn new(n: u64, theta: f64) -> ZipfTable {
        let zetan = (1..=n.min(ZIPF_MAX_GEN))
            .map(|i| (1.0 / i as f64).powf(theta))
            .sum();
        ZipfTable { n, theta, zetan }
    }

    /// fio's `zipf_next` before hashing: the 1-based rank for a uniform `u` in [0, 1)
    /// (Gray et al.'s "Quickly generating billion-record synthetic databases" method).
    pub(super) fn rank(&self, u: f64) -> u64 {
        let n = self.n as f64;
        let theta = self.theta;
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        let alpha = 1.0 / (1.0 - theta);
        let eta = (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta2 / self.zetan);
        let z = u * self.zetan;
        if z < 1.0 {
            1
        } else if z < zeta2 {
            2
        } else {
            // `as` saturates and maps NaN to 0, so float corner cases cannot panic.
            1u64.saturating_add((n * (eta * u - eta + 1.0).powf(alpha)) as u64)
        }
    }
}

/// fio's random map, as a deterministic full-period permutation: a bijection on
/// `[0, 2^bits)` (xor, odd multiply and xorshift rounds, keyed per pass) with cycle-walking to
/// `[0, n)`, so every block is visited exactly once per pass in a scrambled order.
#[derive(Debug, Clone)]
struct RandomMap {
    n: u64,
    bits: u32,
    mask: u64,
    counter: u64,
    keys: [u64; 3],
}

impl RandomMap {
    fn new(n: u64, rng: &mut Pcg64Mcg) -> RandomMap {
        let bits = if n <= 1 {
            0
        } else {
            64 - (n - 1).leading_zeros()
        };
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        RandomMap {
            n,
            bits,
            mask,
            counter: 0,
            keys: [rng.random(), rng.random(), rng.random()],
        }
    }

    #[inline]
    fn permute(&self, mut x: u64) -> u64 {
        let shift = (self.bits / 2).max(1);
        for k in self.keys {
            x = (x ^ k) & self.mask;
            x = x.wrapping_mul(k | 1) & self.mask;
            x ^= x >> shift;
        }
        x
    }

    fn next(&mut self, rng: &mut Pcg64Mcg) -> u64 {
        loop {
            if self.counter > self.mask {
                // A pass is complete: start another in a fresh order.
                self.counter = 0;
                self.keys = [rng.random(), rng.random(), rng.random()];
            }
            let v = self.permute(self.counter);
            self.counter += 1;
            if v < self.n {
                return v;
            }
        }
    }
}

/// Offset generator (block indices in `[0, n)`, units of `min_bs`).
#[derive(Debug, Clone)]
enum Offsets {
    Sequential,
    Uniform,
    Map(RandomMap),
    /// fio lib/zipf.c `zipf_next`: rank, hashed, plus a per-job random offset, mod n.
    Zipf {
        table: ZipfTable,
        rand_off: u64,
    },
    /// fio lib/zipf.c `pareto_next`: `(n-1) * u^(ln h / ln(1-h))`, hashed, offset, mod n.
    Pareto {
        pow: f64,
        rand_off: u64,
    },
    /// fio lib/gauss.c `gauss_next`: mean of 12 uniform draws, optional jitter, hashed, mod n.
    Normal {
        stddev: u64,
    },
}

/// A fio job clone generating requests.
pub(super) struct FioSource {
    spec: SourceSpec,
    nblocks: u64,
    offsets: Offsets,
    rng_ddir: Pcg64Mcg,
    rng_bs: Pcg64Mcg,
    rng_off: Pcg64Mcg,
    rng_dedupe: Pcg64Mcg,
    rng_seq: Pcg64Mcg,
    /// Next sequential position per direction, relative to the region start (fio's last_pos).
    last_pos: [u64; 2],
    start: Option<SimTime>,
    bytes: u64,
    ios: u64,
    /// Content namespace: `(stream_index + 1) << 40`; ids are `base | counter`.
    content_base: u64,
    /// Content ids issued so far (the counter of the last one).
    issued: u64,
    /// Writes since the last flush (`fsync=N`).
    unsynced: u64,
}

const CONTENT_MASK: u64 = (1 << 40) - 1;

impl FioSource {
    pub(super) fn new(
        spec: &SourceSpec,
        seed: u64,
        stream_index: u64,
        zipf: &mut Option<ZipfTable>,
    ) -> FioSource {
        let sub = |k: u64| Pcg64Mcg::seed_from_u64(super::splitmix64(seed.wrapping_add(k)));
        let mut rng_off = sub(3);
        let nblocks = (spec.region_len / spec.min_bs).max(1);
        let offsets = if !spec.random {
            Offsets::Sequential
        } else {
            match spec.dist {
                Dist::Random if spec.randommap => {
                    Offsets::Map(RandomMap::new(nblocks, &mut rng_off))
                }
                Dist::Random => Offsets::Uniform,
                Dist::Zipf(theta) => {
                    let table = *zipf.get_or_insert_with(|| ZipfTable::new(nblocks, theta));
                    Offsets::Zipf {
                        table,
                        rand_off: rng_off.random(),
                    }
                }
                Dist::Pareto(h) => Offsets::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                    rand_off: rng_off.random(),
                },
                Dist::Normal(dev) => {
                    // fio: stddev = ceil(n * 100 / dev), at most n / 2; 0 without `:dev`.
                    let stddev = if dev > 0.0 {
                        ((nblocks as f64 * 100.0 / dev).ceil() as u64).min(nblocks / 2)
                    } else {
                        0
                    };
                    Offsets::Normal { stddev }
                }
            }
        };
        FioSource {
            spec: spec.clone(),
            nblocks,
            offsets,
            rng_ddir: sub(1),
            rng_bs: sub(2),
            rng_off,
            rng_dedupe: sub(4),
            rng_seq: sub(5),
            last_pos: [0, 0],
            start: None,
            bytes: 0,
            ios: 0,
            content_base: (stream_index.wrapping_add(1)) << 40,
            // Fresh ids start after the working set's.
            issued: spec.dedupe_working_set.unwrap_or(0),
            unsynced: 0,
        }
    }

    /// fio's get_next_buflen: `bsrange` draws `min + max * u`, rounded down to a multiple of
    /// the minimum and capped at the maximum; `bssplit` picks by cumulative percentage.
    fn next_len(&mut self, d: usize) -> u64 {
        match &self.spec.bs[d] {
            BsSpec::Fixed(b) => *b,
            BsSpec::Range(lo, hi) => {
                let u: f64 = self.rng_bs.random();
                let raw = lo.saturating_add((*hi as f64 * u) as u64);
                (raw / lo * lo).min(*hi)
            }
            BsSpec::Split(v) => {
                let r = self.rng_bs.random_range(0..100u32);
                let mut acc = 0;
                for &(bs, p) in v {
                    acc += p;
                    if r < acc {
                        return bs;
                    }
                }
                v.last().map_or(4096, |e| e.0)
            }
        }
    }

    fn next_block(&mut self) -> u64 {
        let n = self.nblocks;
        let rng = &mut self.rng_off;
        match &mut self.offsets {
            Offsets::Sequential => 0,
            Offsets::Uniform => rng.random_range(0..n),
            Offsets::Map(m) => m.next(rng),
            Offsets::Zipf { table, rand_off } => {
                let rank = table.rank(rng.random());
                fio_hash(rank.wrapping_sub(1)).wrapping_add(*rand_off) % n
            }
            Offsets::Pareto { pow, rand_off } => {
                let u: f64 = rng.random();
                let v = ((n - 1) as f64 * u.powf(*pow)) as u64;
                fio_hash(v).wrapping_add(*rand_off) % n
            }
            Offsets::Normal { stddev } => {
                let mut sum: u64 = 0;
                for _ in 0..12 {
                    sum += rng.random_range(0..=n);
                }
                let mut sum = sum.div_ceil(12);
                if *stddev > 0 {
                    let u: f64 = rng.random();
                    let mut dev = (*stddev as f64 * u) as i64 - (*stddev / 2) as i64;
                    // fio halves the jitter until the block fits (stopping at 0 here).
                    while dev != 0 && (sum as i64).saturating_add(dev) >= n as i64 {
                        dev /= 2;
                    }
                    sum = (sum as i64).saturating_add(dev).max(0) as u64;
                }
                fio_hash(sum) % n
            }
        }
    }

    /// Content id of a write of `len` bytes: fresh ids, or with probability
    /// `dedupe_pct / 100` a run of ids that repeats earlier content: in `repeat` mode a run
    /// this stream issued before, in `working_set` mode a run inside the working set (ids
    /// `1..=W`, which fresh ids never use).
    fn next_content(&mut self, len: u64) -> u64 {
        let blocks = len.div_ceil(4096).max(1);
        let pool = match self.spec.dedupe_working_set {
            Some(w) => w,
            None => self.issued,
        };
        let dedupe = self.spec.dedupe_pct > 0
            && pool >= blocks
            && self.rng_dedupe.random_range(0..100u32) < self.spec.dedupe_pct;
        let first = if dedupe {
            // Uniform over the pool's runs of `blocks` ids.
            self.rng_dedupe.random_range(1..=pool - blocks + 1)
        } else {
            let first = self.issued + 1;
            self.issued += blocks;
            first
        };
        self.content_base | (first & CONTENT_MASK).max(1)
    }
}

impl RequestSource for FioSource {
    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>> {
        let start = *self.start.get_or_insert(now);
        if let Some(rt) = self.spec.runtime_ns {
            if now.0.saturating_sub(start.0) >= rt {
                return Ok(None);
            }
        }
        if self.spec.sync_every > 0 && self.unsynced >= self.spec.sync_every {
            self.unsynced = 0;
            return Ok(Some(Request {
                time: now,
                op: Op::Sync,
                offset: 0,
                len: 0,
                content: 0,
                file: crate::workload::NO_FILE,
                attrs: FileAttrs(self.spec.open_flags),
            }));
        }
        if self.spec.io_limit.is_some_and(|l| self.bytes >= l)
            || self.spec.number_ios.is_some_and(|n| self.ios >= n)
        {
            return Ok(None);
        }
        let read = match self.spec.read_pct {
            100 => true,
            0 => false,
            p => self.rng_ddir.random_range(0..100u32) < p,
        };
        let d = usize::from(!read);
        let len = self.next_len(d);
        let region = self.spec.region_len;
        let pct = self.spec.pct_random[d];
        let random = self.spec.random
            && (pct == 100 || pct > 0 && self.rng_seq.random_range(0..100u32) < pct);
        let rel = if random {
            let off = self.next_block() * self.spec.min_bs;
            // A large block near the end moves back so it stays in the region.
            let off = off.min(region - len);
            self.last_pos[d] = off + len;
            off
        } else {
            let mut pos = self.last_pos[d];
            if pos + len > region {
                pos = 0;
            }
            self.last_pos[d] = pos + len;
            pos
        };
        let op = if read { Op::Read } else { Op::Write };
        let content = if read { 0 } else { self.next_content(len) };
        self.bytes = self.bytes.saturating_add(len);
        self.ios += 1;
        self.unsynced += u64::from(!read);
        Ok(Some(Request {
            time: now,
            op,
            offset: self.spec.region_start + rel,
            len,
            content,
            file: crate::workload::NO_FILE,
            attrs: FileAttrs(self.spec.open_flags),
        }))
    }

    fn progress(&self, now: SimTime) -> Option<f64> {
        let mut p: f64 = 0.0;
        if let Some(l) = self.spec.io_limit {
            p = p.max(self.bytes as f64 / l as f64);
        }
        if let Some(n) = self.spec.number_ios {
            p = p.max(self.ios as f64 / n as f64);
        }
        if let (Some(rt), Some(start)) = (self.spec.runtime_ns, self.start) {
            p = p.max(now.0.saturating_sub(start.0) as f64 / rt as f64);
        }
        Some(p.min(1.0))
    }
}
