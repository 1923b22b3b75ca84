//! The request generator behind each fio job clone.

use super::history::{HistList, Oldest};
use super::zoned::{Strided, ZbdIo, ZbdJob, ZoneMode};
use crate::error::{Error, Result};
use crate::units::SimTime;
use crate::workload::{FileAttrs, Next, Op, Request, RequestSource};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::sync::{Arc, Mutex};

/// Block size rule of one data direction (bytes, multiples of 512).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum BsSpec {
    /// `bs=4k`.
    Fixed(u64),
    /// `bsrange=min-max`.
    Range(u64, u64),
    /// `bssplit`: (size, percent) as fio reads them (shares need not sum to 100).
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

/// A zone's extent in `zoned` (percent of the region) or `zoned_abs` (bytes) distributions;
/// `None` in a zone list: what the other zones leave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum ZoneRange {
    Percent(u32),
    Bytes(u64),
}

/// `random_distribution`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Dist {
    /// Uniform.
    Random,
    /// `zipf:θ`.
    Zipf(f64),
    /// `pareto:h`.
    Pareto(f64),
    /// `normal:dev` (percent).
    Normal(f64),
    /// `zoned:a/r:...` or `zoned_abs:a/size:...`: (access percent, extent), in order from
    /// the region's start.
    Zoned(Vec<(u32, Option<ZoneRange>)>),
}

/// What a job's requests do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Mix {
    /// Reads and writes, `read_pct` percent reads.
    Rw { read_pct: u32 },
    /// Trims only (`trim`, `randtrim`).
    Trim,
    /// Each block trimmed, then written (`trimwrite`, `randtrimwrite`).
    TrimWrite,
}

/// Rate limits per direction (read, write, trim); 0 = none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rate {
    /// `rate`: bytes per second.
    pub bytes: [u64; 3],
    /// `rate_iops`: I/Os per second.
    pub iops: [u64; 3],
    /// `rate_min`: bytes per second below which the job fails (checked every `cycle_ns`).
    pub min_bytes: [u64; 3],
    /// `rate_process=poisson`: exponential gaps of the same mean instead of even ones.
    pub poisson: bool,
    /// `rate_cycle` in ns.
    pub cycle_ns: u64,
}

impl Rate {
    fn limited(&self) -> bool {
        self.bytes.iter().chain(self.iops.iter()).any(|&r| r > 0)
    }
}

/// Steady-state metric (fio's `ss=`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum SsMetric {
    Iops,
    IopsSlope,
    Bw,
    BwSlope,
    /// Mean completion latency (ns) of the I/Os completed in each interval.
    Lat,
    LatSlope,
}

impl SsMetric {
    /// Whether the metric needs completion latencies fed back to the job.
    pub(super) fn latency(self) -> bool {
        matches!(self, SsMetric::Lat | SsMetric::LatSlope)
    }
}

/// What one steady-state interval saw: I/Os and bytes issued, and the completion latencies
/// (sum, count) of the I/Os completed in it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct SsSample {
    pub ios: u64,
    pub bytes: u64,
    pub lat_sum_ns: u128,
    pub lat_n: u64,
}

/// fio's steady-state criterion over a window of samples (steadystate.c): the largest
/// deviation from the mean (`iops`, `bw`, `lat`), or the magnitude of the least-squares
/// slope per interval (`*_slope`), as a percentage of the mean when `percent`. `None`
/// while the mean is 0 (nothing to judge).
pub(super) fn ss_criterion(xs: &[f64], slope: bool, percent: bool) -> Option<f64> {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean <= 0.0 || !mean.is_finite() {
        return None;
    }
    let value = if slope {
        let mx = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, x) in xs.iter().enumerate() {
            sxy += (i as f64 - mx) * (x - mean);
            sxx += (i as f64 - mx) * (i as f64 - mx);
        }
        (sxy / sxx).abs()
    } else {
        xs.iter().map(|x| (x - mean).abs()).fold(0.0, f64::max)
    };
    Some(if percent { value / mean * 100.0 } else { value })
}

/// fio's `latency_target` (with `latency_window`, `latency_percentile`, `latency_run`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LatTarget {
    /// An I/O whose latency (submission to completion) exceeds this misses the target.
    pub target_ns: u64,
    /// Each depth is judged over a window this long.
    pub window_ns: u64,
    /// The share of a window's I/Os (percent) that must meet the target.
    pub percentile: f64,
    /// `latency_run`: keep adjusting the depth instead of ending once it settles.
    pub run: bool,
}

/// fio's queue-depth search for `latency_target` (target.c and io_u.c): start at depth 1;
/// a window whose I/Os meet the target doubles the depth (or bisects towards the lowest
/// depth that failed); an I/O over the target (`latency_percentile=100`), or a window
/// under the percentile, bisects down towards the highest depth that succeeded, after the
/// I/Os in flight complete. Once a success leaves the depth unchanged, one more window runs
/// at it and the job ends (unless `latency_run`).
#[derive(Debug, Clone)]
struct LatSearch {
    t: LatTarget,
    /// The job's `iodepth`: the most the search may use.
    max: u32,
    qd: u32,
    qd_low: u32,
    qd_high: u32,
    /// The current window's start, and its I/Os completed and over the target.
    cycle_start: SimTime,
    ios: u64,
    failed: u64,
    /// The depth settled: this is the final window.
    end_run: bool,
    /// Waiting for the I/Os in flight before the next window (fio's `io_u_quiesce`).
    quiesce: bool,
    /// The search is over: the job ends.
    done: bool,
    /// An I/O at depth 1 missed the target: fio ends the job with an error.
    fatal: Option<u64>,
}

impl LatSearch {
    fn new(t: LatTarget, max: u32) -> LatSearch {
        LatSearch {
            t,
            max,
            qd: 1,
            qd_low: 1,
            qd_high: max,
            cycle_start: SimTime::ZERO,
            ios: 0,
            failed: 0,
            end_run: false,
            quiesce: false,
            done: false,
            fatal: None,
        }
    }

    fn new_cycle(&mut self, now: SimTime) {
        self.cycle_start = now;
        self.ios = 0;
        self.failed = 0;
    }

    /// fio's `__lat_target_failed`: bisect down (after a quiesce); false at depth 1.
    fn failed_down(&mut self) -> bool {
        if self.qd == 1 {
            return false;
        }
        self.qd_high = self.qd;
        if self.qd == self.qd_low {
            self.qd_low -= 1;
        }
        self.qd = (self.qd + self.qd_low) / 2;
        self.quiesce = true;
        true
    }

    /// fio's `lat_target_success`.
    fn success(&mut self, now: SimTime) {
        let qd = self.qd;
        self.qd_low = qd;
        self.qd = if self.qd_high != self.max {
            (qd + self.qd_high) / 2
        } else {
            qd.saturating_mul(2)
        }
        .min(self.max);
        if !self.t.run && self.qd == qd {
            if self.end_run {
                self.done = true;
            } else {
                self.end_run = true;
                self.quiesce = true;
            }
        }
        if !self.quiesce {
            self.new_cycle(now);
        }
    }

    /// A read, write or trim completed at `now` after `lat` ns.
    fn on_completion(&mut self, lat: u64, now: SimTime) {
        let over = lat > self.t.target_ns;
        if self.quiesce {
            // fio accounts the I/Os it reaps while quiescing before the new window starts:
            // only a miss at percentile 100 acts (another step down).
            if over && self.t.percentile >= 100.0 && !self.failed_down() {
                self.fatal = Some(lat);
            }
            return;
        }
        self.ios += 1;
        if over {
            if self.t.percentile >= 100.0 {
                if !self.failed_down() {
                    self.fatal = Some(lat);
                }
                return;
            }
            self.failed += 1;
        }
        // fio's lat_target_check, after each reap.
        if now.0.saturating_sub(self.cycle_start.0) < self.t.window_ns || self.ios == 0 {
            return;
        }
        let ok = (self.ios - self.failed) as f64 / self.ios as f64 * 100.0;
        if ok >= self.t.percentile {
            self.success(now);
        } else if !self.failed_down() {
            // At depth 1 fio's check ignores the failure; the window goes on.
        }
    }
}

/// fio's steady-state detection: the job ends once the last `dur_ns` of samples (one per
/// `interval_ns`, after `ramp_ns`) meet the criterion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct SteadyState {
    pub metric: SsMetric,
    pub limit: f64,
    pub percent: bool,
    pub dur_ns: u64,
    pub ramp_ns: u64,
    pub interval_ns: u64,
}

/// Jobs of one `flow_id`: fio keeps each job's share of their I/Os near its `flow` weight's
/// share of the group's weights.
#[derive(Debug, Default)]
pub(super) struct FlowGroup {
    /// I/Os issued by every job of the group.
    pub counter: u64,
    /// Weights of the jobs still running.
    pub total_weight: u64,
    /// Streams waiting for their share to come round.
    pub waiting: Vec<u32>,
}

/// Everything a clone needs, resolved from the job's options and the file layout.
#[derive(Debug, Clone)]
pub(super) struct SourceSpec {
    pub mix: Mix,
    /// Random offsets (`rand*`) rather than sequential.
    pub random: bool,
    /// Block size rule per direction: read, write, trim.
    pub bs: [BsSpec; 3],
    /// Smallest and largest block size in use.
    pub min_bs: u64,
    pub max_bs: u64,
    /// Unit of random offsets (`blockalign`, else the smallest block size).
    pub align: u64,
    /// fio's `ba[ddir]` per direction: `blockalign`, else that direction's smallest block
    /// size. Uniform random offsets are multiples of it.
    pub ba: [u64; 3],
    /// Device byte address of each of the clone's files (one unless `nrfiles` > 1).
    pub files: Vec<u64>,
    /// `file_service_type`: switch files after this many I/Os (`roundrobin[:N]`), or 0:
    /// finish each file's region before the next (`sequential`).
    pub file_rr: u64,
    /// The I/O region inside each file: start and length in bytes.
    pub region_start: u64,
    pub region_len: u64,
    /// Each file's size (fio's `real_file_size`, bytes from the file's base): the device's
    /// logical bytes for a job on the device. Sequential gaps wrap against it.
    pub file_ends: Vec<u64>,
    /// Bytes to transfer (`io_size`, else `size`; `None` for `time_based`), each of `loops`
    /// times.
    pub io_limit: Option<u64>,
    /// `io_size` was given: rounds go on after `loops` until `io_limit` bytes are done.
    pub io_size_set: bool,
    /// fio's `size`: the bytes one round (`do_io`) issues at most.
    pub size_bytes: u64,
    /// `loops`: at least this many rounds (fio's `keep_running`).
    pub loops: u64,
    /// Requests per loop before the job ends.
    pub number_ios: Option<u64>,
    /// Run time limit, ns (with the ramp time), from the end of the start delay.
    pub runtime_ns: Option<u64>,
    pub time_based: bool,
    /// Offset distribution for random jobs.
    pub dist: Dist,
    /// fio's random map: uniform random visits every block once per pass.
    pub randommap: bool,
    /// fio has a random map for the job's files (`file_randommap`), so `verify` reads back
    /// in the order written (see [`FioSource::hist_list`]).
    pub verify_write_order: bool,
    /// `random_generator=lfsr`: fio's LFSR gives the blocks' order, every pass the same (fio's
    /// `fio_file_reset` restarts the LFSR from the same seed: `lfsr_reset`).
    pub lfsr: bool,
    /// Where the LFSR's seed comes from (`randrepeat`, `randseed`).
    pub lfsr_seed: LfsrSeed,
    /// Where `random_generator=lfsr` was set, to name in an error about its seed.
    pub lfsr_at: Option<super::parse::Origin>,
    /// `dedupe_percentage`.
    pub dedupe_pct: u32,
    /// `dedupe_working_set_percentage` under `dedupe_mode=working_set`.
    pub dedupe_ws_pct: Option<u32>,
    /// Working set size in 4 KiB blocks (from the laid-out size), see [`FioSource::next_content`].
    pub dedupe_working_set: Option<u64>,
    /// `dedupe_global`: the working set is shared with the other jobs that set it.
    pub dedupe_global: bool,
    /// `buffer_pattern` / `verify_pattern`: the content id of the pattern's first block,
    /// which every write starts with (fio fills each buffer from the pattern's start).
    pub pattern_id: Option<u64>,
    /// `percentage_random` per direction (read, write).
    pub pct_random: [u32; 2],
    /// `rw=...:N`: sequential jobs: bytes skipped after each I/O (negative: backwards);
    /// random jobs: I/Os before a new random offset.
    pub modifier: Option<i64>,
    /// `fsync=N`: a flush after every N writes (0: never).
    pub sync_every: u64,
    /// `end_fsync`: a flush when the job's I/O is done.
    pub end_fsync: bool,
    /// Open flags (`sync`, `direct`, `writefua`).
    pub open_flags: u8,
    pub rate: Rate,
    /// `thinktime` ns after every `thinktime_blocks` I/Os (the I/Os in flight complete
    /// first, as fio quiesces).
    pub thinktime_ns: u64,
    pub thinktime_blocks: u64,
    /// `startdelay` range, ns.
    pub startdelay: (u64, u64),
    /// `ramp_time` ns: I/Os issued in it are left out of the statistics.
    pub ramp_ns: u64,
    /// The ramp is this stream's own (the recorder leaves its I/Os out); false when every
    /// job shares one ramp from the run's start, which is then the run's warm-up.
    pub ramp_per_stream: bool,
    pub steady: Option<SteadyState>,
    /// `latency_target`: the queue-depth search.
    pub lat_target: Option<LatTarget>,
    /// `iodepth` (the most a `latency_target` search uses).
    pub iodepth: u32,
    /// `flow_sleep` ns (0: wait until another job of the group issues).
    pub flow_sleep_ns: u64,
    /// `verify`: after each loop's writes, read back what the loop wrote (see
    /// [`FioSource::hist_list`] for the order).
    pub verify: bool,
    /// `verify_backlog`: besides, read back every this many written blocks as the job goes
    /// (0: off), `verify_batch` of them at a time.
    pub verify_backlog: u64,
    pub verify_batch: u64,
    /// `zonemode` and its options.
    pub zone: super::zoned::ZoneOpts,
    /// `sg_write_mode` (ioengine=sg): which SCSI command the job's writes are.
    pub sg_mode: super::sg::SgMode,
    /// `continue_on_error` covers a failed sg command: the job goes on after it.
    pub sg_continue: bool,
    /// The pattern the job's write buffer holds (`buffer_pattern`/`verify_pattern`; zeros
    /// for WRITE SAME NDOB).
    pub pattern: Option<crate::content::Pattern>,
}

impl SourceSpec {
    /// Whether the random map must be fio's bitmap (directions with different block sizes,
    /// ranges, splits or alignments) rather than a permutation of equal blocks, which visits
    /// each block once per pass exactly as the bitmap would.
    fn needs_axmap(&self) -> bool {
        let used: Vec<usize> = match self.mix {
            Mix::Rw { read_pct: 100 } => vec![0],
            Mix::Rw { read_pct: 0 } => vec![1],
            Mix::Rw { .. } => vec![0, 1],
            Mix::Trim => vec![2],
            Mix::TrimWrite => vec![1, 2],
        };
        used.iter().any(|&d| {
            !matches!(self.bs[d], BsSpec::Fixed(_))
                || self.bs[d].min() != self.min_bs
                || self.ba[d] != self.min_bs
        })
    }
}

/// Jobs that end together (fio's `exitall`): once a job whose `exitall` names this scope
/// finishes, every other job of the scope stops (fio's `fio_terminate_threads`): it issues
/// nothing more, not even a verify pass, and its I/O in flight completes.
#[derive(Debug, Default)]
pub(super) struct ExitScope {
    /// A job of the scope with `exitall` has finished.
    pub over: bool,
    /// Stream indices of the scope's jobs, to wake when it is over.
    pub members: Vec<u32>,
}

/// A clone's flow group membership.
#[derive(Debug, Clone)]
pub(super) struct Flow {
    pub group: Arc<Mutex<FlowGroup>>,
    pub weight: u64,
}

fn lock(g: &Mutex<FlowGroup>) -> std::sync::MutexGuard<'_, FlowGroup> {
    g.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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

/// The seed of a job's LFSR, as fio 3.33 derives `td->rand_seeds[FIO_RAND_BLOCK_OFF]`
/// (init.c `setup_random_seeds` and `td_fill_rand_seeds_internal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LfsrSeed {
    /// `randrepeat=1` (fio's default): `FIO_RANDSEED * thread_number`, whatever `randseed`.
    Repeat,
    /// `randrepeat=0` with `randseed=N`: fio's chain from N.
    Seed(u64),
    /// `randrepeat=0` without `randseed`: fio seeds from the system's RNG; flashpress from
    /// the run's seed (a run is always repeatable).
    Run,
}

impl LfsrSeed {
    /// `td->rand_seeds[FIO_RAND_BLOCK_OFF]` for fio's job number `thread_number` (1 for the
    /// first job, counting every clone); `run` stands in for the system's RNG, re-derived
    /// (splitmix64) while it would be the all-ones state of an LFSR over `nums` blocks, which
    /// fio's system RNG would also not be asked to repeat: such a seed is fio's to refuse
    /// only when the job file fixes it ([`Lfsr::seed_refused`]).
    pub(super) fn value(self, thread_number: u64, run: u64, nums: u64) -> u64 {
        const FIO_RANDSEED: u64 = 0xb189_9bed;
        const GOLDEN: u64 = 0x9e37_0001;
        const FIO_RAND_BLOCK_OFF: u64 = 6;
        match self {
            LfsrSeed::Repeat => FIO_RANDSEED.wrapping_mul(thread_number),
            LfsrSeed::Seed(s) => {
                // seed *= GOLDEN four times, then rand_seeds[i] = seed * thread_number + i,
                // seed *= GOLDEN after each i.
                let mut s = s;
                for _ in 0..4 + FIO_RAND_BLOCK_OFF {
                    s = s.wrapping_mul(GOLDEN);
                }
                s.wrapping_mul(thread_number)
                    .wrapping_add(FIO_RAND_BLOCK_OFF)
            }
            LfsrSeed::Run => {
                let mut s = run;
                while Lfsr::seed_refused(nums, s) {
                    s = super::splitmix64(s);
                }
                s
            }
        }
    }
}

/// fio's LFSR (lib/lfsr.c, fio 3.33): a maximal-length Galois LFSR of the smallest width
/// whose states exceed the block count (`find_lfsr`), stepped as `__LFSR_NEXT` does and
/// skipping states past the last block, so a pass visits every block once.
#[derive(Debug, Clone)]
pub(super) struct Lfsr {
    max_val: u64,
    xormask: u64,
    cached_bit: u64,
    last_val: u64,
    num_vals: u64,
    /// `prepare_spin` sets `cycle_length` to 1 (spin 0 has no sub-cycle, plus the "first
    /// time only" increment), so the very first `lfsr_next` steps twice; `lfsr_reset` does
    /// not restore it, so later passes step once.
    cycle_length: u64,
    seed: u64,
}

/// lib/lfsr.c `lfsr_taps`: the taps of the n-bit LFSR, n = 3..=63.
const LFSR_TAPS: [&[u8]; 64] = [
    &[],
    &[],
    &[],
    &[3, 2],
    &[4, 3],
    &[5, 3],
    &[6, 5],
    &[7, 6],
    &[8, 6, 5, 4],
    &[9, 5],
    &[10, 7],
    &[11, 9],
    &[12, 6, 4, 1],
    &[13, 4, 3, 1],
    &[14, 5, 3, 1],
    &[15, 14],
    &[16, 15, 13, 4],
    &[17, 14],
    &[18, 11],
    &[19, 6, 2, 1],
    &[20, 17],
    &[21, 19],
    &[22, 21],
    &[23, 18],
    &[24, 23, 22, 17],
    &[25, 22],
    &[26, 6, 2, 1],
    &[27, 5, 2, 1],
    &[28, 25],
    &[29, 27],
    &[30, 6, 4, 1],
    &[31, 28],
    &[32, 31, 29, 1],
    &[33, 20],
    &[34, 27, 2, 1],
    &[35, 33],
    &[36, 25],
    &[37, 5, 4, 3, 2, 1],
    &[38, 6, 5, 1],
    &[39, 35],
    &[40, 38, 21, 19],
    &[41, 38],
    &[42, 41, 20, 19],
    &[43, 42, 38, 37],
    &[44, 43, 18, 17],
    &[45, 44, 42, 41],
    &[46, 45, 26, 25],
    &[47, 42],
    &[48, 47, 21, 20],
    &[49, 40],
    &[50, 49, 24, 23],
    &[51, 50, 36, 35],
    &[52, 49],
    &[53, 52, 38, 37],
    &[54, 53, 18, 17],
    &[55, 31],
    &[56, 55, 35, 34],
    &[57, 50],
    &[58, 39],
    &[59, 58, 38, 37],
    &[60, 59],
    &[61, 60, 46, 45],
    &[62, 61, 6, 5],
    &[63, 62],
];

impl Lfsr {
    /// `lfsr_init(fl, nums, seed, 0)` over `nums` blocks (at least 1; fewer than 2^63).
    pub(super) fn new(nums: u64, seed: u64) -> Lfsr {
        let nums = nums.max(1);
        let bits = (3..64).find(|&i| (1u64 << i) > nums).unwrap_or(63);
        let taps = LFSR_TAPS[bits];
        let xormask = taps.iter().fold(0u64, |m, &t| m | 1u64 << (t - 1));
        let mut l = Lfsr {
            max_val: nums - 1,
            xormask,
            cached_bit: 1u64 << (taps[0] - 1),
            last_val: 0,
            num_vals: 0,
            cycle_length: 1,
            seed,
        };
        l.reset();
        l
    }

    /// fio's `lfsr_reset` fails when the seed's low bits are all ones (the state an XNOR
    /// LFSR never leaves), and the job fails ("failed initializing LFSR"): the loader
    /// refuses such a job before building its LFSR.
    pub(super) fn seed_refused(nums: u64, seed: u64) -> bool {
        let l = Lfsr::new(nums, 0);
        let bitmask = (l.cached_bit << 1) - 1;
        seed & bitmask == bitmask
    }

    /// `lfsr_reset` with the job's seed.
    pub(super) fn reset(&mut self) {
        let bitmask = (self.cached_bit << 1) - 1;
        self.num_vals = 0;
        self.last_val = self.seed & bitmask;
        assert!(
            self.last_val != bitmask,
            "the loader refuses an all-ones LFSR seed"
        );
    }

    #[inline]
    fn step(&mut self) {
        let v = self.last_val;
        self.last_val = ((v >> 1) | self.cached_bit) ^ ((v & 1).wrapping_sub(1) & self.xormask);
    }

    /// `lfsr_next`: the next block of this pass, `None` once all were visited.
    pub(super) fn next(&mut self) -> Option<u64> {
        if self.num_vals > self.max_val {
            return None;
        }
        self.num_vals += 1;
        loop {
            if self.cycle_length > 0 {
                self.cycle_length -= 1;
                if self.cycle_length == 0 {
                    self.step();
                }
            }
            self.step();
            if self.last_val <= self.max_val {
                return Some(self.last_val);
            }
        }
    }
}

/// fio's random map, as a deterministic full-period permutation: a bijection on
/// `[0, 2^bits)` (xor, odd multiply and xorshift rounds, keyed per pass) with cycle-walking to
/// `[0, n)`, so every block is visited exactly once per pass in a scrambled order. The order
/// is a pure function of the pass's keys, so a clone replays it ([`super::history::HistList`]
/// reads a pass's writes back that way).
#[derive(Debug, Clone)]
pub(super) struct RandomMap {
    n: u64,
    bits: u32,
    mask: u64,
    pub(super) counter: u64,
    keys: [u64; 3],
    /// Passes begun before this one (each [`RandomMap::reset`] starts one).
    pub(super) pass: u64,
}

impl RandomMap {
    pub(super) fn new(n: u64, rng: &mut Pcg64Mcg) -> RandomMap {
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
            pass: 0,
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

    /// The next block of this pass; `None` once every block was visited (fio: the random
    /// map is used up and the pass ends).
    pub(super) fn next(&mut self) -> Option<u64> {
        while self.counter <= self.mask {
            let v = self.permute(self.counter);
            self.counter += 1;
            if v < self.n {
                return Some(v);
            }
        }
        None
    }

    /// A new pass in a fresh order.
    pub(super) fn reset(&mut self, rng: &mut Pcg64Mcg) {
        self.counter = 0;
        self.pass += 1;
        self.keys = [rng.random(), rng.random(), rng.random()];
    }
}

/// fio's random map itself (`f->io_axmap`, lib/axmap.c), for jobs whose directions use
/// different block sizes or alignments: one bit per `rw_min_bs` of the region. As in fio
/// (`__get_next_rand_offset` in io_u.c), a direction draws a block index `b` in its own unit
/// (`ba[ddir]`), takes the next free bit after `b` when `b` is busy (`axmap_next_free`,
/// wrapping to bit 0), and the pass ends when that index lies past the region; the I/O then
/// marks `len / min_bs[ddir]` bits from `offset / min_bs[ddir]` and is cut at the first
/// busy one (`mark_random_map`). Mixing units is fio's own rule: it is why a
/// `bssplit=4k/50:16k/50,64k/100` randrw job stops after about half its size.
#[derive(Debug, Clone)]
pub(super) struct Axmap {
    bits: Vec<u64>,
    n: u64,
    set: u64,
}

impl Axmap {
    pub(super) fn new(n: u64) -> Axmap {
        Axmap {
            bits: vec![0; n.div_ceil(64) as usize],
            n,
            set: 0,
        }
    }
    pub(super) fn is_set(&self, b: u64) -> bool {
        // fio's axmap_isset: a bit past the map counts as set.
        b >= self.n || self.bits[(b / 64) as usize] >> (b % 64) & 1 == 1
    }
    /// fio's `axmap_next_free`: the first free bit after `b`, wrapping to 0; `None` when the
    /// map is full (or `b` lies past it).
    pub(super) fn next_free(&self, b: u64) -> Option<u64> {
        if b >= self.n || self.set >= self.n {
            return None;
        }
        let scan = |from: u64, to: u64| -> Option<u64> {
            let mut u = from;
            while u < to {
                let w = self.bits[(u / 64) as usize];
                let free = !w & (u64::MAX << (u % 64));
                if free != 0 {
                    let hit = (u / 64) * 64 + u64::from(free.trailing_zeros());
                    return (hit < to).then_some(hit);
                }
                u = (u / 64 + 1) * 64;
            }
            None
        };
        scan(b + 1, self.n).or_else(|| scan(0, self.n))
    }
    /// fio's `axmap_set_nr`: set up to `nr` bits from `b`, stopping at the first busy one or
    /// the map's end; how many were set.
    pub(super) fn set_nr(&mut self, b: u64, nr: u64) -> u64 {
        let mut k = 0;
        while k < nr && !self.is_set(b + k) {
            let u = b + k;
            self.bits[(u / 64) as usize] |= 1 << (u % 64);
            self.set += 1;
            k += 1;
        }
        k
    }
    pub(super) fn reset(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.set = 0;
    }
}

/// Which generator draws a uniform random job's offsets, as fio's `init_random_map`
/// (filesetup.c) chooses: the LFSR when `random_generator=lfsr` (with or without a random
/// map), else the random map (an axmap when directions differ in block size or alignment,
/// else the permutation map), else none (`norandommap`). One decision for the generator and
/// the memory estimate ([`FioSource::region_parts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RandomOffsets {
    Lfsr,
    Axmap,
    Map,
    Uniform,
}

impl RandomOffsets {
    /// `None` for sequential jobs and random ones with another distribution.
    fn of(spec: &SourceSpec) -> Option<RandomOffsets> {
        (spec.random && matches!(spec.dist, Dist::Random)).then(|| {
            if spec.lfsr {
                RandomOffsets::Lfsr
            } else if !spec.randommap {
                RandomOffsets::Uniform
            } else if spec.needs_axmap() {
                RandomOffsets::Axmap
            } else {
                RandomOffsets::Map
            }
        })
    }
}

/// Offset generator (block indices in `[0, n)`, units of `align`).
#[derive(Debug, Clone)]
enum Offsets {
    Sequential,
    Uniform,
    Map(RandomMap),
    /// `random_generator=lfsr`: block indices in units of the smallest block size.
    Lfsr(Lfsr),
    Axmap(Axmap),
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
    /// fio's zoned distributions: a zone chosen by its cumulative access share, then a
    /// uniform block inside it. (cumulative percent, first block, blocks).
    Zoned(Vec<(u32, u64, u64)>),
}

/// The zones of a `zoned`/`zoned_abs` distribution as block ranges of a region of `n`
/// blocks of `unit` bytes (fio: zones in order from the start; a zone without an extent
/// takes what the others leave; extents beyond the region are cut at its end).
fn zone_table(zones: &[(u32, Option<ZoneRange>)], n: u64, unit: u64) -> Vec<(u32, u64, u64)> {
    let given: u64 = zones
        .iter()
        .filter_map(|z| z.1)
        .map(|r| match r {
            ZoneRange::Percent(p) => n * u64::from(p) / 100,
            ZoneRange::Bytes(b) => b / unit,
        })
        .sum();
    let open = zones.iter().filter(|z| z.1.is_none()).count() as u64;
    let rest = n.saturating_sub(given);
    let mut out = Vec::new();
    let (mut start, mut cum) = (0u64, 0u32);
    for z in zones {
        let len = match z.1 {
            Some(ZoneRange::Percent(p)) => n * u64::from(p) / 100,
            Some(ZoneRange::Bytes(b)) => b / unit,
            None => rest / open.max(1),
        };
        // A zone past the region's end shrinks to its last block.
        let first = start.min(n - 1);
        let len = len.min(n - first).max(1);
        cum += z.0;
        out.push((cum, first, len));
        start = start.saturating_add(len);
    }
    out
}

/// Where the job is in its life.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Doing its I/O.
    Run,
    /// Reading back what it wrote (`verify`).
    Verify,
    /// Its final flush (`end_fsync`).
    EndSync,
    Done,
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
    rng_time: Pcg64Mcg,
    /// Next sequential position per file and direction, relative to the region start (the
    /// sequential runs of random jobs).
    last_pos: Vec<[u64; 3]>,
    /// fio's `f->last_pos[ddir]` for sequential jobs: bytes from the file's base.
    fio_pos: Vec<[u64; 3]>,
    /// Files whose offsets ran out in this pass (fio marks them done).
    files_done: Vec<bool>,
    /// Rounds finished (fio's `do_io` calls in `thread_main`), bytes the current one issued
    /// (fio's `bytes_issued`: the job's I/O and its `verify_backlog` reads), whether none of
    /// the job's I/O has been issued since one ended, and the verify reads' bytes.
    loops_done: u64,
    round_issued: u64,
    round_fresh: bool,
    verify_bytes: u64,
    /// The file in use, I/Os on it since the last switch, and bytes done on it.
    file: usize,
    file_ios: u64,
    file_bytes: u64,
    /// I/Os left in the current sequential run of a random job with `rw=rand...:N`.
    run_left: u64,
    /// When the job was first asked, and when its I/O starts (after `startdelay`).
    asked: Option<SimTime>,
    begin: Option<SimTime>,
    bytes: u64,
    ios: u64,
    /// Per direction, for rates: bytes and I/Os issued, the next allowed time (poisson).
    dir_bytes: [u64; 3],
    dir_ios: [u64; 3],
    next_at: [u64; 3],
    /// Bytes per direction at the start of the current `rate_cycle` (rate_min), and its start.
    cycle_bytes: [u64; 3],
    cycle_start: u64,
    /// Direction drawn for the next request but held back by a rate limit or flow.
    held: Option<usize>,
    /// Content namespace: `(stream_index + 1) << 40`; ids are `base | counter`.
    content_base: u64,
    /// Content ids issued so far (the counter of the last one).
    issued: u64,
    /// `dedupe_global`: the content namespaces of every clone sharing working sets, and this
    /// clone's place among them.
    global_ws: Option<(Arc<Vec<u64>>, usize)>,
    /// Writes since the last flush (`fsync=N`).
    unsynced: u64,
    /// I/Os since the last think time, and whether the drain before it is done.
    since_think: u64,
    thinking: bool,
    /// `trimwrite`: the write that follows a trim of the same block.
    pending_write: Option<(u64, u64)>,
    /// `fdp=1`: the placement identifiers writes are tagged with.
    placement: Option<super::fdp::Picker>,
    /// Writes not yet read back, by file and offset (fio's history tree), for a verifying
    /// job without a random map.
    tree: Option<super::history::HistTree>,
    /// Writes not yet read back, in the order they were issued (fio's history list: see
    /// [`FioSource::hist_list`]), and how many more reads the current `verify_backlog`
    /// batch takes (fio's `verify_batch`).
    backlog: super::history::HistList,
    backlog_reads: u64,
    /// The last I/O issued was a read (fio's `last_ddir`, which `verify_backlog` checks).
    last_read: bool,
    /// A loop ended: its verify pass is due before the next loop's I/O.
    verify_due: bool,
    /// The current verify pass is a loop's, after which the job runs on (not the last).
    verify_resume: bool,
    /// The I/O counters were reset at the end of the ramp.
    ramp_reset: bool,
    phase: Phase,
    /// Steady state: samples (I/Os, bytes) per interval, the current interval's index and
    /// counts.
    ss_samples: std::collections::VecDeque<SsSample>,
    ss_interval: u64,
    ss_cur: SsSample,
    /// `latency_target`'s search, and whether the host is answering its drain.
    lat: Option<LatSearch>,
    drained: bool,
    flow: Option<Flow>,
    flow_own: u64,
    /// The `exitall` scopes this clone belongs to, and the one it ends when it finishes
    /// (`exitall`), once.
    exits: Vec<Arc<Mutex<ExitScope>>>,
    exit_trigger: Option<Arc<Mutex<ExitScope>>>,
    stream_index: u32,
    woken: Vec<u32>,
    /// `zonemode=strided`: the window and positions, and its random map.
    strided: Option<Strided>,
    strided_map: Option<Axmap>,
    /// `zonemode=zbd`: this clone's view of the device's zones.
    zbd: Option<ZbdJob>,
    /// Zones the next I/O resets first (device bytes of their starts).
    zone_resets: Vec<u64>,
    /// A pass begins: a verifying zbd job resets its region's zones (fio's `zbd_file_reset`).
    zbd_pass_start: bool,
    /// Requests to issue before anything else: a zone reset and the write behind it.
    zone_queue: std::collections::VecDeque<Request>,
    /// What the run's jobs wrote to each sector, when a job's writes are SCSI VERIFY
    /// commands (`sg_write_mode`), and the job's name for its notes.
    sg: Option<(Arc<Mutex<super::sg::SgShared>>, String)>,
    /// A command failed and fio ends the job (no `continue_on_error`).
    sg_failed: bool,
}

const CONTENT_MASK: u64 = (1 << 40) - 1;

/// The device address of byte `rel` of file `f`'s region (the file's start plus the job's
/// region start).
fn address(spec: &SourceSpec, f: usize, rel: u64) -> u64 {
    spec.files.get(f).copied().unwrap_or(0) + spec.region_start + rel
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: verifying jobs keep fio's plain list (the reference the replay is checked against).
    pub(super) static FORCE_QUEUE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests: replayed history lists built on this thread.
    pub(super) static REPLAYS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Tests: packed history lists built on this thread.
    pub(super) static PACKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn force_queue() -> bool {
    #[cfg(test)]
    {
        FORCE_QUEUE.with(std::cell::Cell::get)
    }
    #[cfg(not(test))]
    {
        false
    }
}

impl FioSource {
    /// Whether the writes awaiting verification are kept in issue order (fio's history
    /// list) rather than by offset (fio's history tree). fio's `log_io_piece` (iolog.c)
    /// appends each write to a list when the file has a random map (`file_randommap`: a
    /// random job without `norandommap` or the LFSR generator), since the map keeps a block from being written
    /// twice in a pass; otherwise it sorts the write into a tree by file and offset,
    /// dropping an older write it overlaps ([`super::history`]). `verify_backlog` and the
    /// verify pass read either from its start (`get_next_verify`, verify.c). The tree costs
    /// two bits per 512 bytes of the region; the list one bit per block of the region while
    /// every write comes from the permutation map ([`FioSource::replays`]), else 4 bytes per
    /// write awaiting its read ([`FioSource::packing`]; 16 where that does not fit).
    fn hist_list(spec: &SourceSpec) -> bool {
        spec.verify_write_order
    }

    /// How the history list of `spec` packs its writes when it is fio's list (see
    /// [`super::history::HistList`]): in units of the largest size dividing every offset
    /// and length the job's random map can give (block alignments, block sizes, the
    /// region's length, which a large block near the end moves back from); `None` for a
    /// zoned job (its offsets move with the zones) or when 32 bits are too few.
    fn packing(spec: &SourceSpec) -> Option<super::history::Packing> {
        if spec.zone.mode != ZoneMode::None {
            return None;
        }
        let mut unit = spec.align.max(1);
        let mut g = |v: u64| unit = gcd(unit, v);
        g(spec.region_len);
        for d in 0..3 {
            g(spec.ba[d]);
            match &spec.bs[d] {
                BsSpec::Fixed(b) => g(*b),
                BsSpec::Range(lo, hi) => {
                    g(*lo);
                    g(*hi);
                }
                BsSpec::Split(v) => v.iter().for_each(|&(b, _)| g(b)),
            }
        }
        let max_len = spec.bs.iter().map(BsSpec::max).max().unwrap_or(0);
        let files = spec.files.len().max(1) as u64;
        super::history::Packing::new(unit, spec.region_len, max_len, files)
    }

    /// Whether every write (and `trimwrite` trim) of `spec` is a block the permutation map
    /// drew (its offsets are [`Offsets::Map`]), so the history list can replay the map's
    /// order ([`super::history::HistList`]): no sequential runs (`rw=randwrite:N`,
    /// `percentage_random`) and no zone mode moving offsets.
    fn replays(spec: &SourceSpec) -> bool {
        // The history list's jobs only (not the LFSR's, whose verify uses the tree).
        FioSource::hist_list(spec)
            && RandomOffsets::of(spec) == Some(RandomOffsets::Map)
            && spec.modifier.is_none()
            && spec.pct_random[1] == 100
            && spec.zone.mode == ZoneMode::None
    }

    /// The structures a clone of `spec` sizes from its region, for the memory estimate
    /// ([`crate::estimate`]): (name, bytes, how), from the same conditions and element widths
    /// as [`FioSource::new`] and the history's growth rules. A `time_based` job whose
    /// history list is fio's queue, or that wraps its passes with no `verify_backlog` to
    /// read them, keeps more: see the memory section of `docs/workloads/fio.md`.
    pub(super) fn region_parts(spec: &SourceSpec) -> Vec<(&'static str, u64, String)> {
        use std::mem::size_of;
        let mut out = Vec::new();
        let nfiles = spec.files.len().max(1) as u64;
        let nblocks = (spec.region_len / spec.align).max(1);
        let words = |bits: u64| bits.div_ceil(64) * size_of::<u64>() as u64;
        let kind = RandomOffsets::of(spec);
        let ax_bits = (spec.region_len / spec.min_bs).max(1);
        if kind == Some(RandomOffsets::Axmap) {
            out.push((
                "fio.random_map",
                words(ax_bits),
                format!("{ax_bits} bits (one per {} B of the region)", spec.min_bs),
            ));
        }
        if spec.zone.mode == ZoneMode::Strided && spec.random && spec.randommap {
            let bits = (spec.zone.range / spec.min_bs).max(1);
            out.push((
                "fio.random_map",
                words(bits),
                format!("{bits} bits (one per {} B of a zone range)", spec.min_bs),
            ));
        }
        if spec.verify && !FioSource::hist_list(spec) {
            let units = spec.region_len.div_ceil(super::history::UNIT).max(1) * nfiles;
            out.push((
                "fio.verify_tree",
                2 * words(units),
                format!("2 x {units} bits (per 512 B of {nfiles} file(s)' regions)"),
            ));
        } else if spec.verify {
            if FioSource::replays(spec) {
                // One pass's bitmap; a time_based job that wraps with reads pending has the
                // next pass's too.
                let passes = 1 + u64::from(spec.time_based && spec.verify_backlog > 0);
                out.push((
                    "fio.verify_list",
                    passes * HistList::pass_bytes(nblocks, nfiles),
                    format!("{passes} x {nblocks} blocks x {nfiles} file(s), 1 bit each"),
                ));
            } else {
                // fio's queue: at most the writes of one loop (each of min_bs bytes at
                // least), and on the random map's path each marks a bit of it; the
                // VecDeque's capacity is the next power of two.
                let mut n = spec.size_bytes / spec.min_bs.max(1);
                if matches!(kind, Some(RandomOffsets::Axmap | RandomOffsets::Map)) {
                    n = n.min(ax_bits);
                }
                let cap = n.max(1).next_power_of_two();
                let each = if FioSource::packing(spec).is_some() {
                    size_of::<u32>()
                } else {
                    size_of::<(u64, u64)>()
                } as u64;
                out.push((
                    "fio.verify_list",
                    cap * each,
                    format!("{cap} slots for {n} writes x {each} B"),
                ));
            }
        }
        let per_file = 2 * size_of::<[u64; 3]>() + size_of::<bool>() + 2 * size_of::<u64>();
        if nfiles > 1 {
            out.push((
                "fio.files",
                nfiles * per_file as u64,
                format!("{nfiles} files x {per_file} B"),
            ));
        }
        out
    }

    pub(super) fn new(
        spec: &SourceSpec,
        seed: u64,
        stream_index: u64,
        zipf: &mut Option<ZipfTable>,
        flow: Option<Flow>,
        zbd: Option<ZbdJob>,
    ) -> FioSource {
        let sub = |k: u64| Pcg64Mcg::seed_from_u64(super::splitmix64(seed.wrapping_add(k)));
        let mut rng_off = sub(3);
        let nblocks = (spec.region_len / spec.align).max(1);
        let offsets = if !spec.random {
            Offsets::Sequential
        } else {
            match &spec.dist {
                // fio's LFSR replaces the random map (`init_random_map`, filesetup.c):
                // `blocks = min(real_file_size, io_size) / rw_min_bs`.
                Dist::Random => match RandomOffsets::of(spec) {
                    Some(RandomOffsets::Lfsr) => Offsets::Lfsr(Lfsr::new(
                        (spec.region_len / spec.min_bs).max(1),
                        spec.lfsr_seed.value(
                            stream_index + 1,
                            seed,
                            (spec.region_len / spec.min_bs).max(1),
                        ),
                    )),
                    Some(RandomOffsets::Axmap) => {
                        Offsets::Axmap(Axmap::new((spec.region_len / spec.min_bs).max(1)))
                    }
                    Some(RandomOffsets::Map) => Offsets::Map(RandomMap::new(nblocks, &mut rng_off)),
                    Some(RandomOffsets::Uniform) | None => Offsets::Uniform,
                },
                Dist::Zipf(theta) => {
                    let table = *zipf.get_or_insert_with(|| ZipfTable::new(nblocks, *theta));
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
                    let stddev = if *dev > 0.0 {
                        ((nblocks as f64 * 100.0 / dev).ceil() as u64).min(nblocks / 2)
                    } else {
                        0
                    };
                    Offsets::Normal { stddev }
                }
                Dist::Zoned(z) => Offsets::Zoned(zone_table(z, nblocks, spec.align)),
            }
        };
        let nfiles = spec.files.len().max(1);
        let tree = (spec.verify && !FioSource::hist_list(spec))
            .then(|| super::history::HistTree::new(nfiles, spec.region_len));
        let backlog = if spec.verify && FioSource::replays(spec) && !force_queue() {
            assert!(matches!(offsets, Offsets::Map(_)), "a replay needs the map");
            #[cfg(test)]
            REPLAYS.with(|c| c.set(c.get() + 1));
            super::history::HistList::replay(nblocks, nfiles)
        } else {
            match FioSource::packing(spec) {
                Some(p) if spec.verify && FioSource::hist_list(spec) && !force_queue() => {
                    #[cfg(test)]
                    PACKED.with(|c| c.set(c.get() + 1));
                    super::history::HistList::packed(p)
                }
                _ => super::history::HistList::queue(),
            }
        };
        if let Some(f) = &flow {
            lock(&f.group).total_weight += f.weight;
        }
        FioSource {
            nblocks,
            offsets,
            rng_ddir: sub(1),
            rng_bs: sub(2),
            rng_off,
            rng_dedupe: sub(4),
            rng_seq: sub(5),
            rng_time: sub(6),
            last_pos: vec![[0, 0, 0]; nfiles],
            fio_pos: vec![[spec.region_start; 3]; nfiles],
            files_done: vec![false; nfiles],
            loops_done: 0,
            round_issued: 0,
            round_fresh: false,
            verify_bytes: 0,
            file: 0,
            file_ios: 0,
            file_bytes: 0,
            run_left: 0,
            asked: None,
            begin: None,
            bytes: 0,
            ios: 0,
            dir_bytes: [0; 3],
            dir_ios: [0; 3],
            next_at: [0; 3],
            cycle_bytes: [0; 3],
            cycle_start: 0,
            held: None,
            content_base: FioSource::content_base(stream_index),
            // Fresh ids start after the working set's.
            issued: spec.dedupe_working_set.unwrap_or(0),
            global_ws: None,
            unsynced: 0,
            since_think: 0,
            thinking: false,
            pending_write: None,
            placement: None,
            tree,
            backlog,
            backlog_reads: 0,
            last_read: false,
            verify_due: false,
            verify_resume: false,
            ramp_reset: false,
            phase: Phase::Run,
            ss_samples: std::collections::VecDeque::new(),
            ss_interval: 0,
            ss_cur: SsSample::default(),
            lat: spec
                .lat_target
                .map(|t| LatSearch::new(t, spec.iodepth.max(1))),
            drained: false,
            flow,
            flow_own: 0,
            exits: Vec::new(),
            exit_trigger: None,
            stream_index: stream_index as u32,
            woken: Vec::new(),
            strided: (spec.zone.mode == ZoneMode::Strided).then(|| Strided::new(&spec.zone, spec)),
            strided_map: (spec.zone.mode == ZoneMode::Strided && spec.random && spec.randommap)
                .then(|| Axmap::new((spec.zone.range / spec.min_bs).max(1))),
            zbd,
            zone_resets: Vec::new(),
            zbd_pass_start: true,
            zone_queue: std::collections::VecDeque::new(),
            sg: None,
            sg_failed: false,
            spec: spec.clone(),
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
                let mut pick = 4096;
                // fio (get_next_buflen): entries of 0% are skipped; when the shares sum to
                // less than 100, the rest falls to the last entry with a share; past 100,
                // the later entries are never reached.
                for &(bs, p) in v {
                    if p == 0 {
                        continue;
                    }
                    pick = bs;
                    acc += p;
                    if r < acc {
                        return bs;
                    }
                }
                pick
            }
        }
    }

    /// The next block of a non-uniform distribution (or of the permutation map); `None` when
    /// the map is used up for this pass.
    fn next_block(&mut self) -> Option<u64> {
        let n = self.nblocks;
        let rng = &mut self.rng_off;
        Some(match &mut self.offsets {
            Offsets::Sequential | Offsets::Axmap(_) => 0,
            Offsets::Uniform => rng.random_range(0..n),
            Offsets::Map(m) => return m.next(),
            Offsets::Lfsr(l) => return l.next(),
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
            Offsets::Zoned(zones) => {
                let r = rng.random_range(0..100u32);
                let z = zones.iter().find(|z| r < z.0).or(zones.last()).copied();
                match z {
                    Some((_, first, len)) => first + rng.random_range(0..len.max(1)),
                    None => 0,
                }
            }
        })
    }

    /// Content id of a write of `len` bytes: the pattern's first block when the job writes a
    /// pattern; else fresh ids, or with probability
    /// `dedupe_pct / 100` a run of ids that repeats earlier content: in `repeat` mode a run
    /// this stream issued before, in `working_set` mode a run inside the working set (ids
    /// `1..=W`, which fresh ids never use).
    fn next_content(&mut self, len: u64) -> u64 {
        match self.spec.pattern_id {
            Some(id) => id,
            None => self.drawn_content(len),
        }
    }

    /// [`FioSource::next_content`] of a job without a pattern: fresh ids or a repeat. A file
    /// the job lays out draws its pieces here too, before the job's writes
    /// ([`RequestSource::setup_content`]), as fio's `extend_file` fills them with the job's
    /// `fill_io_buffer` from the buffer state its writes then continue.
    fn drawn_content(&mut self, len: u64) -> u64 {
        let blocks = len.div_ceil(4096).max(1);
        let pool = match self.spec.dedupe_working_set {
            Some(w) => w,
            None => self.issued,
        };
        let dedupe = self.spec.dedupe_pct > 0
            && pool >= blocks
            && self.rng_dedupe.random_range(0..100u32) < self.spec.dedupe_pct;
        if dedupe {
            if let Some((bases, me)) = &self.global_ws {
                // fio's global working set (init_dedupe_working_set_seeds): the W slots
                // are cut into runs of max(W / N, 1) for the N sharing clones, run `c`
                // holding the first unique blocks of clone `me + c` (mod N). A request's
                // blocks stay in one run.
                let n = bases.len() as u64;
                let per = (pool / n).max(1);
                if per >= blocks {
                    let runs = pool / per;
                    let c = self.rng_dedupe.random_range(0..runs);
                    let k = self.rng_dedupe.random_range(1..=per - blocks + 1);
                    let owner = bases[((*me as u64 + c) % n) as usize];
                    return owner | (k & CONTENT_MASK);
                }
            }
        }
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

    fn request(&self, now: SimTime, op: Op, addr: u64, len: u64, content: u64) -> Request {
        Request {
            time: now,
            op,
            offset: addr,
            len,
            content,
            file: crate::workload::NO_FILE,
            attrs: FileAttrs(self.spec.open_flags),
            placement: None,
        }
    }

    /// Whether the job's runtime is over.
    fn runtime_over(&self, now: SimTime, begin: SimTime) -> bool {
        self.spec
            .runtime_ns
            .is_some_and(|rt| now.0.saturating_sub(begin.0) >= rt)
    }

    /// Whether the job has done what its size asks (not cut short by its runtime): fio's
    /// `keep_running` (backend.c) is false at a round's end, or `number_ios` is reached.
    /// `keep_running` runs `loops` rounds, then more only with `io_size`, while the bytes
    /// read and written (verify reads included: fio's `io_bytes`) fall short of it by at
    /// least the largest block.
    fn sized_done(&self) -> bool {
        let n_done = self
            .spec
            .number_ios
            .is_some_and(|n| self.ios >= n.saturating_mul(self.spec.loops));
        if n_done {
            return true;
        }
        if !self.round_fresh || self.loops_done < self.spec.loops {
            return false;
        }
        let Some(limit) = self.spec.io_limit.filter(|_| self.spec.io_size_set) else {
            return true;
        };
        let done = self.bytes + self.verify_bytes;
        let max_bs = self.spec.bs.iter().map(BsSpec::max).max().unwrap_or(0);
        !(done < limit && limit - done >= max_bs)
    }

    /// Whether the job's I/O is done.
    fn io_done(&self, now: SimTime, begin: SimTime) -> bool {
        self.runtime_over(now, begin) || self.sized_done()
    }

    /// The bytes a round issues at most (fio's `do_io`: `size`; `io_size` when larger for a
    /// random writer without a random map; twice that with `verify_backlog`, whose reads it
    /// counts), and whether the job's own I/O reached `io_limit` times `loops`
    /// (`io_issue_bytes_exceeded`, verify reads not counted).
    fn round_over(&self) -> bool {
        let writes = !matches!(self.spec.mix, Mix::Rw { read_pct: 100 } | Mix::Trim);
        let mut cap = self.spec.size_bytes;
        if writes && self.spec.random && !self.spec.randommap {
            cap = cap.max(self.spec.io_limit.unwrap_or(0));
        }
        if self.spec.verify_backlog > 0 {
            cap = cap.saturating_add(self.spec.size_bytes);
        }
        !self.spec.time_based && (self.round_issued >= cap || self.issued_over())
    }

    /// The job's own I/O reached `io_limit` times `loops` (fio's `io_issue_bytes_exceeded`):
    /// no round issues anything more.
    fn issued_over(&self) -> bool {
        self.spec
            .io_limit
            .is_some_and(|l| self.bytes >= l.saturating_mul(self.spec.loops))
    }

    /// Close the steady-state intervals that ended by `now` (the job's I/O began at
    /// `begin`); during `ss_ramp` nothing is counted.
    fn ss_advance(&mut self, now: SimTime, begin: SimTime) -> bool {
        let Some(ss) = self.spec.steady else {
            return false;
        };
        let since = now.0.saturating_sub(begin.0);
        if since < ss.ramp_ns {
            self.ss_cur = SsSample::default();
            return false;
        }
        let idx = (since - ss.ramp_ns) / ss.interval_ns;
        let want = (ss.dur_ns / ss.interval_ns) as usize;
        while self.ss_interval < idx {
            self.ss_samples.push_back(std::mem::take(&mut self.ss_cur));
            self.ss_interval += 1;
            if self.ss_samples.len() > want {
                self.ss_samples.pop_front();
            }
        }
        true
    }

    /// fio's steady-state check at `now`: close the intervals that ended, then test the
    /// last `dur` of them (I/Os and bytes are counted when issued; latencies when the I/O
    /// completes, as the mean completion latency of each interval's completions, 0 for an
    /// interval with none, as fio's steadystate_check computes it).
    fn steady_reached(&mut self, now: SimTime, begin: SimTime) -> bool {
        if !self.ss_advance(now, begin) {
            return false;
        }
        let ss = self.spec.steady.expect("ss_advance checked");
        if self.ss_samples.len() < (ss.dur_ns / ss.interval_ns) as usize {
            return false;
        }
        let secs = ss.interval_ns as f64 / 1e9;
        let xs: Vec<f64> = self
            .ss_samples
            .iter()
            .map(|s| match ss.metric {
                SsMetric::Iops | SsMetric::IopsSlope => s.ios as f64 / secs,
                SsMetric::Bw | SsMetric::BwSlope => s.bytes as f64 / secs,
                SsMetric::Lat | SsMetric::LatSlope if s.lat_n == 0 => 0.0,
                SsMetric::Lat | SsMetric::LatSlope => (s.lat_sum_ns / u128::from(s.lat_n)) as f64,
            })
            .collect();
        let slope = matches!(
            ss.metric,
            SsMetric::IopsSlope | SsMetric::BwSlope | SsMetric::LatSlope
        );
        ss_criterion(&xs, slope, ss.percent).is_some_and(|v| v <= ss.limit)
    }

    /// The earliest time direction `d` may issue under `rate`/`rate_iops` (fio's linear
    /// rate process: bytes done / rate after the start; poisson: exponential gaps).
    fn rate_time(&mut self, d: usize, begin: SimTime) -> u64 {
        let r = self.spec.rate;
        let mut t = 0u64;
        if r.poisson {
            return self.next_at[d];
        }
        if r.bytes[d] > 0 {
            let ns =
                (u128::from(self.dir_bytes[d]) * 1_000_000_000 / u128::from(r.bytes[d])) as u64;
            t = t.max(begin.0.saturating_add(ns));
        }
        if r.iops[d] > 0 {
            let ns = (u128::from(self.dir_ios[d]) * 1_000_000_000 / u128::from(r.iops[d])) as u64;
            t = t.max(begin.0.saturating_add(ns));
        }
        t
    }

    /// After issuing `len` bytes in direction `d` at `now`: the poisson process's next time.
    fn after_issue_rate(&mut self, d: usize, len: u64, now: SimTime) {
        let r = self.spec.rate;
        if !r.poisson {
            return;
        }
        let mean_ns = if r.iops[d] > 0 {
            1e9 / r.iops[d] as f64
        } else if r.bytes[d] > 0 {
            len as f64 * 1e9 / r.bytes[d] as f64
        } else {
            return;
        };
        let u: f64 = self.rng_time.random();
        let gap = -(1.0 - u).ln() * mean_ns;
        self.next_at[d] = self.next_at[d].max(now.0).saturating_add(gap as u64);
    }

    /// `rate_min`: every `rate_cycle`, each direction with a minimum must have moved at
    /// least that many bytes per second over the cycle. Checked as each request is issued,
    /// counting it: fio (`check_min_rate` in backend.c) checks when an I/O completes, over
    /// the bytes done including it, so a job paced below one block per cycle (`rate=1250
    /// ratemin=1024` with 4 KiB blocks) is measured over the gap up to its next block, never
    /// over an empty cycle in the middle of a gap.
    fn check_rate_min(&mut self, now: SimTime, begin: SimTime) -> Result<()> {
        let r = self.spec.rate;
        if r.min_bytes.iter().all(|&m| m == 0) {
            return Ok(());
        }
        let cycle = r.cycle_ns;
        let t = now.0.saturating_sub(begin.0);
        // fio (__check_min_rate): a 2 s settle period first.
        if t < 2_000_000_000 {
            self.cycle_bytes = self.dir_bytes;
            self.cycle_start = t;
            return Ok(());
        }
        if t < self.cycle_start.saturating_add(cycle) {
            return Ok(());
        }
        for d in 0..3 {
            let m = r.min_bytes[d];
            // fio checks only the directions that have moved bytes.
            if m == 0 || self.dir_bytes[d] == 0 {
                continue;
            }
            let moved = self.dir_bytes[d] - self.cycle_bytes[d];
            let secs = (t - self.cycle_start) as f64 / 1e9;
            if (moved as f64) < m as f64 * secs {
                return Err(Error::Workload(format!(
                    "fio job clone {}: {} rate {:.0} B/s over the last {:.3} s is below rate_min={m} B/s (fio ends such a job with an error)",
                    self.stream_index,
                    ["read", "write", "trim"][d],
                    moved as f64 / secs,
                    secs
                )));
            }
        }
        self.cycle_bytes = self.dir_bytes;
        self.cycle_start = t;
        Ok(())
    }

    /// Choose the direction of the next request (read 0, write 1, trim 2).
    fn draw_dir(&mut self) -> usize {
        match self.spec.mix {
            Mix::Trim => 2,
            Mix::TrimWrite => 2,
            Mix::Rw { read_pct: 100 } => 0,
            Mix::Rw { read_pct: 0 } => 1,
            Mix::Rw { read_pct } => usize::from(self.rng_ddir.random_range(0..100u32) >= read_pct),
        }
    }

    /// fio's `get_next_buflen` for an I/O at `off` (relative to the region): a fixed size is
    /// taken as is; otherwise the size must fit before the region's end (`io_u_fits`), the
    /// draw is repeated until one does, and `None` when not even the smallest fits.
    fn next_len_at(&mut self, d: usize, off: u64) -> Option<u64> {
        let (lo, hi) = (self.spec.bs[d].min(), self.spec.bs[d].max());
        if lo == hi {
            return Some(lo);
        }
        let region = self.spec.region_len;
        let fits = |len: u64| off.saturating_add(len) <= region;
        if !fits(lo) {
            return None;
        }
        for _ in 0..10_000 {
            let len = match &self.spec.bs[d] {
                BsSpec::Split(v) => {
                    // fio: the first entry whose cumulative share covers the draw and that
                    // fits; without one, the last entry (drawn again if it does not fit).
                    let r = self.rng_bs.random_range(0..100u32);
                    let mut acc = 0;
                    let mut pick = lo;
                    for &(bs, p) in v {
                        if p == 0 {
                            continue;
                        }
                        pick = bs;
                        acc += p;
                        if r < acc && fits(bs) {
                            break;
                        }
                    }
                    pick
                }
                _ => self.next_len(d),
            };
            if fits(len) {
                return Some(len);
            }
        }
        Some(lo)
    }

    /// The next I/O in direction `d` on the current file: offset relative to the region and
    /// length; `None` when the file's offsets ran out for this pass (fio's `fill_io_u`
    /// failing, after which fio marks the file done).
    fn next_io(&mut self, d: usize) -> Option<(u64, u64)> {
        if self.strided.is_some() {
            return self.next_strided(d);
        }
        let Some(zbd) = self.zbd.as_ref() else {
            return self.next_io_raw(d);
        };
        let f = self.file;
        let base = self.spec.files.get(f).copied().unwrap_or(0);
        if !self.spec.random {
            self.fio_pos[f][d] = zbd.skip_capacity_gap(d, base + self.fio_pos[f][d]) - base;
        }
        if std::mem::take(&mut self.zbd_pass_start) {
            let resets = self.zbd.as_mut().expect("zbd").file_reset();
            self.zone_resets.extend(resets);
        }
        let (rel, len) = self.next_io_raw(d)?;
        let at = base + self.spec.region_start;
        match self.zbd.as_mut().expect("zbd").adjust(d, at + rel, len) {
            ZbdIo::Eof => None,
            ZbdIo::Io { addr, len, reset } => {
                let rel = addr - at;
                // fio's last position follows the I/O where the zone put it.
                if self.spec.random {
                    self.last_pos[f][d] = rel + len;
                } else {
                    self.fio_pos[f][d] = addr - base + len;
                }
                self.zone_resets.extend(reset);
                Some((rel, len))
            }
        }
    }

    /// fio's offset in `zonemode=strided` (see [`super::zoned`]): relative to the region's
    /// start, inside the current window.
    fn next_strided(&mut self, d: usize) -> Option<(u64, u64)> {
        let f = self.file;
        let start = self.spec.region_start;
        let end = self.spec.file_ends.get(f).copied().unwrap_or(u64::MAX);
        let st = self.strided.as_mut().expect("strided");
        if st.before_io(f, d, start, end) {
            if let Some(m) = self.strided_map.as_mut() {
                m.reset();
            }
        }
        let st = self.strided.as_ref().expect("strided");
        let window = st.file_offset[f];
        let range = st.range;
        let pct = self.spec.pct_random[d.min(1)];
        let random = self.spec.random
            && (pct == 100 || pct > 0 && self.rng_seq.random_range(0..100u32) < pct);
        let off = if random {
            let ba = self.spec.ba[d].max(1);
            let min_d = self.spec.bs[d].min();
            let lastb = range.saturating_sub(min_d.saturating_sub(ba)) / ba;
            if lastb == 0 {
                return None;
            }
            let mut b = self.rng_off.random_range(0..lastb);
            if let Some(m) = &self.strided_map {
                if m.is_set(b) {
                    b = m.next_free(b)?;
                }
            }
            window + b * ba
        } else {
            st.last_pos[f][d]
        };
        if off - window >= self.spec.region_len.max(range) || off >= end {
            return None;
        }
        let len = self.next_len(d);
        if off + len > end {
            return None;
        }
        if let Some(m) = self.strided_map.as_mut() {
            let min_d = self.spec.bs[d].min();
            m.set_nr((off - window) / min_d, len.div_ceil(min_d));
        }
        let st = self.strided.as_mut().expect("strided");
        st.last_pos[f][d] = off + len;
        st.zone_bytes += len;
        Some((off - start, len))
    }

    /// The next I/O of the job's own offset rules (before any zone mode moves it).
    fn next_io_raw(&mut self, d: usize) -> Option<(u64, u64)> {
        let region = self.spec.region_len;
        let f = self.file;
        let pct = self.spec.pct_random[d.min(1)];
        let mut random = self.spec.random
            && (pct == 100 || pct > 0 && self.rng_seq.random_range(0..100u32) < pct);
        if random {
            if let Some(n) = self.spec.modifier {
                // `randread:N`: N sequential I/Os from each random offset.
                if self.run_left > 0 {
                    self.run_left -= 1;
                    random = false;
                } else {
                    self.run_left = (n as u64).saturating_sub(1);
                }
            }
        }
        if random && matches!(self.offsets, Offsets::Uniform | Offsets::Axmap(_)) {
            return self.next_uniform(d);
        }
        if random {
            let len = self.next_len(d);
            // fio's `get_next_block`: `offset = b * ba[ddir]`.
            let unit = if matches!(self.offsets, Offsets::Lfsr(_)) {
                self.spec.ba[d].max(1)
            } else {
                self.spec.align
            };
            let off = self.next_block()? * unit;
            // A large block near the end moves back so it stays in the region.
            let off = off.min(region - len);
            self.last_pos[f][d] = off + len;
            return Some((off, len));
        }
        if self.spec.random {
            // The sequential part of a random job continues from its last I/O. One past the
            // region ends the pass, as in fio (`get_next_offset`, io_u.c: an offset at or past
            // `io_size` fails the io_u, and the job's round ends; fio 3.33 with `psync` issues
            // 11 reads for `rw=randread:4 bs=4k size=64k`, its third run ending at the last
            // block). A block that would cross the region's end ends it too (fio's
            // `fill_io_u`: an offset + length past the file fails the io_u). With
            // `ioengine=null` fio's file ends at the region, and it draws a new random block
            // there instead.
            let len = self.next_len(d);
            let pos = self.last_pos[f][d];
            if pos >= region || pos + len > region {
                return None;
            }
            self.last_pos[f][d] = pos + len;
            return Some((pos, len));
        }
        self.next_seq(d)
    }

    /// fio's uniform random offset (`__get_next_rand_offset` and `last_block` in io_u.c): a
    /// block index in `[0, lastb)` of `ba[ddir]` units, where `lastb` leaves room for the
    /// direction's smallest block; with the random map, a busy block moves to the next free
    /// one, and the pass ends when that lies past the region.
    fn next_uniform(&mut self, d: usize) -> Option<(u64, u64)> {
        let region = self.spec.region_len;
        let ba = self.spec.ba[d].max(1);
        let min_d = self.spec.bs[d].min();
        let lastb = region.saturating_sub(min_d.saturating_sub(ba)) / ba;
        if lastb == 0 {
            return None;
        }
        let mut b = self.rng_off.random_range(0..lastb);
        if let Offsets::Axmap(m) = &self.offsets {
            if m.is_set(b) {
                b = m.next_free(b)?;
            }
        }
        let off = b.checked_mul(ba)?;
        if off >= region {
            return None;
        }
        let mut len = self.next_len_at(d, off)?;
        // fill_io_u: an I/O past the file's end fails.
        let end = self
            .spec
            .file_ends
            .get(self.file)
            .copied()
            .unwrap_or(u64::MAX);
        if self.spec.region_start + off + len > end {
            return None;
        }
        if let Offsets::Axmap(m) = &mut self.offsets {
            // mark_random_map: the I/O is cut at the first block already done.
            let k = m.set_nr(off / min_d, len.div_ceil(min_d));
            if k == 0 {
                return None;
            }
            len = len.min(k * min_d);
        }
        self.last_pos[self.file][d] = off + len;
        Some((off, len))
    }

    /// fio's sequential offset (`get_next_seq_offset`, then `get_next_offset`'s and
    /// `fill_io_u`'s checks, io_u.c), in its own terms: `last_pos` counts from the file's
    /// base, `file_offset` is the region's start, `io_size` its length and `real_file_size`
    /// the file's size. A gap (`rw=write:8k`) is added after each I/O but the first; a
    /// position at or past the file's size wraps (forwards to `file_offset`, backwards to
    /// `min(io_size, real_file_size)` plus the gap); an offset at or past `io_size`, or an
    /// I/O past the file's end, ends the file's pass. The mixed comparisons (a relative
    /// position against the file's absolute size) are fio's own.
    fn next_seq(&mut self, d: usize) -> Option<(u64, u64)> {
        let f = self.file;
        let s = self.spec.region_start;
        let l = self.spec.region_len;
        let r = self.spec.file_ends.get(f).copied().unwrap_or(u64::MAX);
        let add = self.spec.modifier.unwrap_or(0);
        let nfiles = self.spec.files.len().max(1) as u64;
        let mut lp = self.fio_pos[f][d];
        let mixed = matches!(self.spec.mix, Mix::Rw { read_pct } if read_pct > 0 && read_pct < 100);
        let io_over_size = self
            .spec
            .io_limit
            .is_some_and(|x| x > l.saturating_mul(nfiles));
        if lp >= l.saturating_add(s)
            && ((self.spec.time_based && nfiles == 1) || (mixed && io_over_size))
        {
            lp = s;
        }
        if lp >= r {
            return None;
        }
        let rewind_to = if r > l { l } else { r };
        if lp == s && s != 0 && add < 0 {
            // "Only rewind if we already hit the end".
            lp = rewind_to;
        }
        let mut pos = lp.wrapping_sub(s);
        if pos != 0 && add != 0 {
            pos = pos.wrapping_add(add as u64);
            if pos >= r {
                pos = if add > 0 {
                    s
                } else {
                    rewind_to.wrapping_add(add as u64)
                };
            }
        }
        if pos >= l {
            return None;
        }
        let abs = pos.checked_add(s)?;
        if abs >= r {
            return None;
        }
        let len = self.next_len_at(d, pos)?;
        if abs.saturating_add(len) > r {
            return None;
        }
        self.fio_pos[f][d] = abs + len;
        Some((pos, len))
    }

    /// Every file's position and random map back to the start of a pass (fio's
    /// `fio_file_reset`).
    fn reset_positions(&mut self) {
        self.zbd_pass_start = true;
        let s = self.spec.region_start;
        self.fio_pos.iter_mut().for_each(|p| *p = [s; 3]);
        self.last_pos.iter_mut().for_each(|p| *p = [0; 3]);
        self.files_done.iter_mut().for_each(|x| *x = false);
        self.file = 0;
        self.file_ios = 0;
        self.file_bytes = 0;
        self.run_left = 0;
        match &mut self.offsets {
            Offsets::Map(m) => m.reset(&mut self.rng_off),
            Offsets::Lfsr(l) => l.reset(),
            Offsets::Axmap(m) => m.reset(),
            _ => {}
        }
    }

    /// The next I/O of the pass in direction `d`, moving past files that are done; when every
    /// file is done the pass ends: a new one starts when the job has more to do than its
    /// files hold (`io_size`, a `size` over `filesize`, `time_based`), otherwise the loop
    /// ends (fio's `keep_running`). `None`: nothing more to issue in this loop.
    fn next_in_pass(&mut self, d: usize) -> Option<(u64, u64)> {
        let n = self.files_done.len();
        for _ in 0..=n {
            if let Some(io) = self.next_io(d) {
                return Some(io);
            }
            self.files_done[self.file] = true;
            match (1..=n)
                .map(|k| (self.file + k) % n)
                .find(|&i| !self.files_done[i])
            {
                Some(i) => {
                    self.file = i;
                    self.file_ios = 0;
                    self.file_bytes = 0;
                }
                None => break,
            }
        }
        // fio's do_io ends when its files are done (the round is over), but a time_based
        // job starts them over (`get_next_rand_block`, `get_next_seq_offset`).
        self.reset_positions();
        if self.spec.time_based {
            if let Some(io) = self.next_io(d) {
                return Some(io);
            }
        }
        None
    }

    /// Move to the next file when `file_service_type` says so.
    fn after_io_file(&mut self, len: u64) {
        let n = self.spec.files.len();
        if n <= 1 {
            return;
        }
        self.file_ios += 1;
        self.file_bytes += len;
        let switch = match self.spec.file_rr {
            0 => self.file_bytes >= self.spec.region_len,
            k => self.file_ios >= k,
        };
        if switch {
            // The next file whose pass is not done.
            if let Some(i) = (1..=n)
                .map(|k| (self.file + k) % n)
                .find(|&i| !self.files_done[i])
            {
                self.file = i;
            }
            self.file_ios = 0;
            self.file_bytes = 0;
        }
    }

    /// Writes awaiting their read back (fio's `io_hist_len`).
    fn hist_len(&self) -> u64 {
        match &self.tree {
            Some(t) => t.len(),
            None => self.backlog.len(),
        }
    }

    /// Take the next write to read back, from the start of the history list or tree (fio's
    /// `get_next_verify`), as a read of the bytes that write wrote.
    fn next_verify(&mut self, now: SimTime) -> Option<Request> {
        let (addr, len) = match &mut self.tree {
            Some(t) => {
                let (f, rel, len) = t.pop_first()?;
                (address(&self.spec, f, rel), len)
            }
            None => match self.backlog.pop()? {
                Oldest::Addr(a, l) => (a, l),
                Oldest::Rel(f, rel, l) => (address(&self.spec, f, rel), l),
                Oldest::Block(f, b) => {
                    let a = self.spec.align;
                    (address(&self.spec, f, b * a), a)
                }
            },
        };
        self.last_read = true;
        self.verify_bytes += len;
        Some(self.request(now, Op::Read, addr, len, 0))
    }

    /// Join `exitall` scopes: those this clone stops with, and the one its end stops.
    /// Tag every write with a placement identifier from `p` (fio's `fdp=1`).
    /// Share the dedupe working set (`dedupe_global`) with the clones whose content
    /// namespaces are `bases`, this clone being `bases[me]`.
    pub(super) fn set_global_dedupe(&mut self, bases: Arc<Vec<u64>>, me: usize) {
        self.global_ws = Some((bases, me));
    }

    /// This clone's content namespace (the high bits of its content ids).
    pub(super) fn content_base(stream_index: u64) -> u64 {
        (stream_index.wrapping_add(1)) << 40
    }

    pub(super) fn set_placement(&mut self, p: super::fdp::Picker) {
        self.placement = Some(p);
    }

    /// Share the run's sector map (see [`super::sg`]): this clone's writes, trims and
    /// WRITE SAMEs go into it, and its VERIFY commands compare against it.
    pub(super) fn set_sg(&mut self, shared: Arc<Mutex<super::sg::SgShared>>, job: String) {
        self.sg = Some((shared, job));
    }

    /// The sector map hears of request `r` (direction `d`); a VERIFY becomes a device read
    /// of its range, flagged to fail when it miscompares.
    fn sg_issue(&mut self, d: usize, r: &mut Request) {
        use super::sg::{Bytchk, Fill, SgMode};
        let Some((shared, job)) = &self.sg else {
            return;
        };
        let mut g = shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fill = |spec: &SourceSpec| match &spec.pattern {
            Some(p) => Fill::Pattern(p.clone(), 0),
            None => Fill::Data,
        };
        match (d, self.spec.sg_mode) {
            (1, m @ SgMode::Verify(b)) => {
                // Timed as a read of the range (the device reads its medium to check it).
                r.op = Op::Read;
                let sent = (b != Bytchk::Medium).then(|| fill(&self.spec));
                r.content = 0;
                if g.verify(
                    job,
                    m,
                    r.offset,
                    r.len,
                    sent.as_ref(),
                    self.spec.sg_continue,
                ) {
                    // The job hears of it when the command completes (`failed`).
                    r.attrs = r.attrs.with_check_condition();
                }
            }
            (1, _) => {
                let f = fill(&self.spec);
                g.medium.write(r.offset, r.len, f);
            }
            // A trimmed sector reads as zeros.
            (2, _) => g.medium.write(r.offset, r.len, Fill::Zero),
            _ => {}
        }
    }

    pub(super) fn set_exit(
        &mut self,
        member_of: Vec<Arc<Mutex<ExitScope>>>,
        trigger: Option<Arc<Mutex<ExitScope>>>,
    ) {
        for s in &member_of {
            s.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .members
                .push(self.stream_index);
        }
        self.exits = member_of;
        self.exit_trigger = trigger;
    }

    /// Leave the run phase: the last loop's verify pass (unless the job was cut short:
    /// `verify` false), then the final flush, then done.
    fn end_run(&mut self, verify: bool) {
        if let Some(f) = &self.flow {
            let mut g = lock(&f.group);
            g.total_weight = g.total_weight.saturating_sub(f.weight);
            self.woken.append(&mut g.waiting);
        }
        self.verify_due = false;
        self.verify_resume = false;
        self.phase = if self.spec.verify && verify {
            Phase::Verify
        } else if self.spec.end_fsync {
            Phase::EndSync
        } else {
            Phase::Done
        };
    }

    /// A verify pass is over: what it read is verified (fio's `do_verify` consumes the
    /// history); the job runs its next loop, or flushes and ends.
    fn end_verify(&mut self) {
        // The backlog's pending batch was read in the pass.
        self.backlog_reads = 0;
        self.phase = if std::mem::take(&mut self.verify_resume) {
            Phase::Run
        } else if self.spec.end_fsync {
            Phase::EndSync
        } else {
            Phase::Done
        };
    }

    fn step(&mut self, now: SimTime) -> Result<Next> {
        if self.phase != Phase::Done
            && self.exits.iter().any(|e| {
                e.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .over
            })
        {
            // Another job's `exitall` ended this one.
            self.phase = Phase::Done;
        }
        if self.sg_failed {
            // fio's sg engine: a command ended with CHECK CONDITION is `io_u->error = EIO`
            // and `td_verror(td, io_u->error, "xfer")`; without continue_on_error the job
            // stops (no verify pass, no end_fsync), its I/O in flight completing.
            self.phase = Phase::Done;
        }
        if self.phase == Phase::Done {
            if let Some(t) = self.exit_trigger.take() {
                let mut g = t.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                g.over = true;
                let me = self.stream_index;
                self.woken
                    .extend(g.members.iter().copied().filter(|&m| m != me));
            }
        }
        let asked = *self.asked.get_or_insert(now);
        let begin = match self.begin {
            Some(b) => b,
            None => {
                let (lo, hi) = self.spec.startdelay;
                let delay = if hi > lo {
                    self.rng_time.random_range(lo..=hi)
                } else {
                    lo
                };
                let b = SimTime(asked.0.saturating_add(delay));
                self.begin = Some(b);
                if let Some(l) = &mut self.lat {
                    // fio starts the search over at the end of ramp_time.
                    l.new_cycle(SimTime(b.0.saturating_add(self.spec.ramp_ns)));
                }
                self.cycle_start = 0;
                self.next_at = [b.0; 3];
                b
            }
        };
        if now < begin {
            return Ok(Next::Wait(begin));
        }
        if let Some(l) = &mut self.lat {
            if let Some(lat) = l.fatal {
                return Err(Error::Workload(format!(
                    "fio job clone {}: latency of {lat} ns exceeds latency_target={} ns at queue depth 1 (fio ends such a job with an error)",
                    self.stream_index, l.t.target_ns
                )));
            }
            // The host asks again only once at most the drain's count is in flight, so
            // an answer to a drain is the drain done (no count of our own to drift).
            let drained = std::mem::take(&mut self.drained);
            if self.phase == Phase::Run {
                if l.done {
                    self.end_run(true);
                } else if l.quiesce {
                    if !drained {
                        self.drained = true;
                        return Ok(Next::Drain(0));
                    }
                    l.quiesce = false;
                    l.new_cycle(now);
                } else if !drained {
                    // fio's queue_full: no more than the search's depth in flight.
                    self.drained = true;
                    return Ok(Next::Drain(l.qd - 1));
                }
            }
        }
        loop {
            match self.phase {
                Phase::Done => return Ok(Next::Done),
                Phase::EndSync => {
                    self.phase = Phase::Done;
                    return Ok(Next::Issue(self.request(now, Op::Sync, 0, 0, 0)));
                }
                Phase::Verify => match self.next_verify(now) {
                    Some(r) => return Ok(Next::Issue(r)),
                    None => self.end_verify(),
                },
                Phase::Run => break,
            }
        }
        if let Some(r) = self.zone_queue.pop_front() {
            return Ok(Next::Issue(r));
        }
        if self.spec.sync_every > 0 && self.unsynced >= self.spec.sync_every {
            self.unsynced = 0;
            return Ok(Next::Issue(self.request(now, Op::Sync, 0, 0, 0)));
        }
        if self.round_fresh && self.issued_over() {
            // Every round left would be empty (and verify nothing): skip them.
            self.loops_done = self.loops_done.max(self.spec.loops);
        }
        if self.io_done(now, begin) && self.pending_write.is_none() {
            // fio's thread_main: a job whose runtime ran out before its loops were done
            // is terminated (`td->terminate`) and leaves the loop before `do_verify`.
            let cut = !self.sized_done();
            self.end_run(!cut);
            return self.step(now);
        }
        if self.steady_reached(now, begin) {
            // fio's steady state, once attained, terminates the job (no verify pass).
            self.end_run(false);
            return self.step(now);
        }
        if self.pending_write.is_none() && std::mem::take(&mut self.verify_due) {
            // A loop is over and the job runs on: its verify pass first (fio's
            // thread_main: `while (keep_running(td)) { do_io(td); ... do_verify(td); }`,
            // verifying after every loop when `do_verify` and `verify` are set).
            self.verify_resume = true;
            self.phase = Phase::Verify;
            return self.step(now);
        }
        if self.spec.ramp_ns > 0
            && !self.ramp_reset
            && now.0 >= begin.0.saturating_add(self.spec.ramp_ns)
        {
            // fio's reset_all_stats at the end of ramp_time: size and number_ios count from here.
            self.ramp_reset = true;
            self.bytes = 0;
            self.ios = 0;
            self.round_issued = 0;
            self.verify_bytes = 0;
        }
        if self.spec.thinktime_ns > 0 && self.since_think >= self.spec.thinktime_blocks {
            if !self.thinking {
                // fio quiesces (waits for the I/Os in flight) before it thinks.
                self.thinking = true;
                return Ok(Next::Drain(0));
            }
            self.thinking = false;
            self.since_think = 0;
            return Ok(Next::Wait(SimTime(
                now.0.saturating_add(self.spec.thinktime_ns),
            )));
        }
        if let Some((addr, len)) = self.pending_write {
            self.pending_write = None;
            let r = self.issue(now, 1, addr, len);
            self.check_rate_min(now, begin)?;
            return Ok(Next::Issue(r));
        }
        if self.spec.verify_backlog > 0 {
            // fio's check_get_verify (io_u.c): a batch of `verify_backlog_batch` reads starts
            // when the writes awaiting their read are a non-zero multiple of
            // `verify_backlog` and the last I/O was not a read; a read taken from an empty
            // history leaves the batch for later.
            let n = self.hist_len();
            if self.backlog_reads == 0
                && n > 0
                && n.is_multiple_of(self.spec.verify_backlog)
                && !self.last_read
            {
                self.backlog_reads = self.spec.verify_batch;
            }
            if self.backlog_reads > 0 {
                if let Some(r) = self.next_verify(now) {
                    self.backlog_reads -= 1;
                    // fio's do_io counts these reads in the round's bytes.
                    self.round_issued += r.len;
                    if self.round_over() {
                        self.end_loop();
                    }
                    return Ok(Next::Issue(r));
                }
            }
        }
        let mut d = match self.held.take() {
            Some(d) => d,
            None => self.draw_dir(),
        };
        if self.spec.rate.limited() {
            let t = self.rate_time(d, begin);
            if t > now.0 {
                // fio's rate_ddir: when the other direction of a mixed job is behind its
                // rate, switch to it; when both are ahead, sleep until the sooner one.
                let other = match self.spec.mix {
                    Mix::Rw { read_pct } if read_pct > 0 && read_pct < 100 => Some(1 - d),
                    _ => None,
                };
                match other.map(|o| (o, self.rate_time(o, begin))) {
                    Some((o, to)) if to <= now.0 => d = o,
                    Some((o, to)) if to < t => {
                        self.held = Some(o);
                        return Ok(Next::Wait(SimTime(to)));
                    }
                    _ => {
                        self.held = Some(d);
                        return Ok(Next::Wait(SimTime(t)));
                    }
                }
            }
        }
        if let Some(f) = self.flow.clone() {
            let mut g = lock(&f.group);
            // fio: a job whose share of the group's I/Os exceeds its weight's share waits.
            let exceeded = g.counter > 0
                && u128::from(self.flow_own) * u128::from(g.total_weight)
                    > u128::from(f.weight) * u128::from(g.counter);
            if exceeded {
                self.held = Some(d);
                if !g.waiting.contains(&self.stream_index) {
                    g.waiting.push(self.stream_index);
                }
                // Woken when another job of the group issues; the timed wake is fio's
                // flow_sleep, or a fallback re-check.
                let sleep = if self.spec.flow_sleep_ns > 0 {
                    self.spec.flow_sleep_ns
                } else {
                    1_000_000
                };
                return Ok(Next::Wait(SimTime(now.0.saturating_add(sleep))));
            }
            g.counter += 1;
            self.flow_own += 1;
            g.waiting.retain(|&s| s != self.stream_index);
            self.woken.append(&mut g.waiting);
        }
        let Some((rel, len)) = self.next_in_pass(d) else {
            // This loop's offsets ran out before its size: the loop ends (fio's do_io
            // stops when get_io_u finds no I/O to fill). A loop that could issue nothing
            // at all ends the job: every further loop would be as empty.
            let empty = self.round_issued == 0;
            self.end_loop();
            if let Some(f) = &self.flow {
                let mut g = lock(&f.group);
                g.counter = g.counter.saturating_sub(1);
                self.flow_own = self.flow_own.saturating_sub(1);
            }
            if empty || self.io_done(now, begin) {
                self.held = None;
                self.end_run(true);
            } else {
                self.held = Some(d);
            }
            return self.step(now);
        };
        let addr = self
            .spec
            .files
            .first()
            .map_or(0, |_| self.spec.files[self.file])
            + self.spec.region_start
            + rel;
        let f = self.file;
        // trimwrite: the write that follows the trim is logged with it.
        if self.spec.verify && (d == 1 || (d == 2 && self.spec.mix == Mix::TrimWrite)) {
            match (&mut self.tree, &mut self.backlog, &self.offsets) {
                (Some(t), _, _) => t.insert(f, rel, len),
                (None, l @ HistList::Replay(_), Offsets::Map(m)) => {
                    let a = self.spec.align;
                    assert!(
                        rel.is_multiple_of(a) && len == a,
                        "a replayed history list logs whole map blocks ({rel}+{len}, block {a})"
                    );
                    l.push_block(f, rel / a, m);
                }
                (None, l, _) => {
                    let spec = &self.spec;
                    l.push(f, rel, addr, len, |f, r| address(spec, f, r));
                }
            }
        }
        if d == 2 && self.spec.mix == Mix::TrimWrite {
            self.pending_write = Some((addr, len));
        }
        self.after_io_file(len);
        let r = self.issue(now, d, addr, len);

        if self.round_over() {
            self.end_loop();
        }
        self.check_rate_min(now, begin)?;
        if !self.zone_resets.is_empty() {
            // fio waits for the I/O in flight, resets the zones, then writes.
            let len = self.zbd.as_ref().map_or(0, ZbdJob::zone_size);
            for zone in std::mem::take(&mut self.zone_resets) {
                self.zone_queue
                    .push_back(self.request(now, Op::ZoneReset, zone, len, 0));
            }
            self.zone_queue.push_back(r);
            return Ok(Next::Drain(0));
        }
        Ok(Next::Issue(r))
    }

    /// A loop is over (its bytes done, or its offsets used up): count it, and start the next
    /// from the files' starts (fio's `clear_io_state` between loops).
    fn end_loop(&mut self) {
        self.loops_done += 1;
        self.verify_due = self.spec.verify;
        self.round_issued = 0;
        self.round_fresh = true;
        self.reset_positions();
    }

    /// Count and build a request of direction `d`.
    fn issue(&mut self, now: SimTime, d: usize, addr: u64, len: u64) -> Request {
        let (op, content) = match d {
            0 => (Op::Read, 0),
            1 => (Op::Write, self.next_content(len)),
            _ => (Op::Trim, 0),
        };
        // trimwrite: a block's trim and write count once towards size and number_ios.
        if !(d == 2 && self.spec.mix == Mix::TrimWrite) {
            self.bytes = self.bytes.saturating_add(len);
            self.round_issued = self.round_issued.saturating_add(len);
            self.ios += 1;
        }
        self.dir_bytes[d] += len;
        self.dir_ios[d] += 1;
        self.last_read = d == 0;
        self.round_fresh = false;
        self.after_issue_rate(d, len, now);
        self.unsynced += u64::from(d == 1);
        self.since_think += 1;
        self.ss_cur.ios += 1;
        self.ss_cur.bytes += len;
        let mut r = self.request(now, op, addr, len, content);
        if op == Op::Write {
            r.placement = self.placement.as_mut().map(super::fdp::Picker::next);
        }
        self.sg_issue(d, &mut r);
        r
    }
}

impl RequestSource for FioSource {
    fn setup_content(&mut self, len: u64) -> u64 {
        self.drawn_content(len)
    }

    fn next(&mut self, now: SimTime) -> Result<Next> {
        self.step(now)
    }

    fn wants_completions(&self) -> bool {
        self.lat.is_some()
            || self.spec.steady.is_some_and(|s| s.metric.latency())
            || self.sg.is_some()
                && matches!(self.spec.sg_mode, super::sg::SgMode::Verify(_))
                && !self.spec.sg_continue
    }

    /// fio learns of a failed sg command when it completes (the `io_u`'s error is seen in
    /// `io_completed`, io_u.c, which ends the job without `continue_on_error`): the commands
    /// issued before then complete, and none is issued after.
    /// Only a VERIFY miscompare ends the job here: the other failures a device reports (a
    /// zone's write error, a full file system, a shut-down device) leave a job running as
    /// they do for jobs that do not watch their completions.
    fn failed(&mut self, _now: SimTime) {
        if self.sg.is_some() && matches!(self.spec.sg_mode, super::sg::SgMode::Verify(_)) {
            self.sg_failed |= !self.spec.sg_continue;
        }
    }

    fn completed(&mut self, op: Op, latency_ns: u64, now: SimTime) {
        // fio counts reads, writes and trims (its ddir_rw), not flushes.
        if !matches!(op, Op::Read | Op::Write | Op::Trim) {
            return;
        }
        let Some(begin) = self.begin else {
            return;
        };
        if self.spec.steady.is_some_and(|s| s.metric.latency()) && self.ss_advance(now, begin) {
            self.ss_cur.lat_sum_ns += u128::from(latency_ns);
            self.ss_cur.lat_n += 1;
        }
        let in_ramp = now.0 < begin.0.saturating_add(self.spec.ramp_ns);
        if let Some(l) = &mut self.lat {
            // fio resets the search at the end of ramp_time (reset_all_stats): it starts
            // there, and I/Os of the ramp do not count.
            if in_ramp || self.phase != Phase::Run {
                return;
            }
            l.on_completion(latency_ns, now);
            if l.quiesce {
                // A drain answered before is not this one: the job drains to 0 first.
                self.drained = false;
            }
        }
    }

    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>> {
        // A driver that cannot wait (tests, tools reading the requests in order) sees the
        // requests as if every wait were over at once.
        let mut t = now;
        for _ in 0..1_000_000 {
            match self.step(t)? {
                Next::Issue(r) | Next::IssueAsync(r) => return Ok(Some(r)),
                Next::Done => return Ok(None),
                Next::Drain(_) => {}
                Next::Wait(u) => t = t.max(u),
            }
        }
        Err(Error::Workload(
            "fio source made no progress in a million steps".into(),
        ))
    }

    fn take_woken(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.woken);
    }

    fn ramp_end(&self) -> Option<SimTime> {
        if !self.spec.ramp_per_stream {
            return None;
        }
        match (self.spec.ramp_ns, self.begin) {
            (0, _) | (_, None) => None,
            (r, Some(b)) => Some(SimTime(b.0.saturating_add(r))),
        }
    }

    fn progress(&self, now: SimTime) -> Option<f64> {
        let mut p: f64 = 0.0;
        let loops = self.spec.loops as f64;
        if let Some(l) = self.spec.io_limit {
            p = p.max(self.bytes as f64 / (l as f64 * loops));
        }
        if let Some(n) = self.spec.number_ios {
            p = p.max(self.ios as f64 / (n as f64 * loops));
        }
        if let (Some(rt), Some(start)) = (self.spec.runtime_ns, self.begin) {
            p = p.max(now.0.saturating_sub(start.0) as f64 / rt as f64);
        }
        if self.phase != Phase::Run && !self.verify_resume {
            p = 1.0;
        }
        Some(p.min(1.0))
    }
}
