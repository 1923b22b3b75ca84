//! Collects per-request latency and per-interval samples while the run goes on.

use super::Column;
use crate::device::Device;
use crate::nand::NandCounters;
use crate::units::SimTime;
use crate::workload::Op;
use hdrhistogram::Histogram;
use std::collections::VecDeque;
use strength_reduce::StrengthReducedU64;

/// Largest latency the histograms resolve: one hour in ns.
pub const LATENCY_CAP_NS: u64 = 3_600_000_000_000;

/// The largest latency a histogram of 1 ns to [`LATENCY_CAP_NS`] at 3 significant digits
/// records as itself: the top of its last bucket, 2^42 - 1 ns (its 2,048 sub-buckets double
/// until they pass the cap). Larger latencies count as [`LATENCY_CAP_NS`].
const LATENCY_TOP_NS: u64 = (1 << 42) - 1;

/// A latency histogram (ns, 3 significant digits) that grows to the largest latency recorded
/// so far instead of holding the whole range to an hour from the start: 33,792 counters,
/// 264 KiB, each written when the histogram is made, where a run's latencies up to a second
/// need 21,504 and a histogram nothing is recorded in 2,048.
fn latency_histogram() -> Histogram<u64> {
    // Lowest discernible value 1 ns, growing (`auto`), as `new_with_bounds(1, 2, 3)` with
    // auto-resize on.
    Histogram::new(3).expect("valid histogram bounds")
}

/// Record `lat` as a histogram of fixed bounds 1 ns to [`LATENCY_CAP_NS`] does with
/// `saturating_record`: exactly up to [`LATENCY_TOP_NS`], as the cap above it. The bucket of
/// a value does not depend on a histogram's size, so every count, percentile and the CDF are
/// those of the fixed histogram.
#[inline]
fn record_latency(h: &mut Histogram<u64>, lat: u64) {
    let v = if lat > LATENCY_TOP_NS {
        LATENCY_CAP_NS
    } else {
        lat
    };
    h.record(v)
        .expect("a latency histogram grows to any latency up to the cap");
}

/// Per-op running totals.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpTotals {
    /// Requests.
    pub requests: u64,
    /// Bytes.
    pub bytes: u64,
    /// Sum of latencies (ns).
    pub latency_sum_ns: u128,
    /// Smallest latency (ns).
    pub latency_min_ns: u64,
    /// Largest latency (ns).
    pub latency_max_ns: u64,
}

/// Per-op latency split (sums over completed requests) and the requests that waited while a
/// GC job was on one of their planes.
#[derive(Debug, Clone, Copy, Default)]
pub struct SplitTotals {
    /// Sum of time waiting in queues for anything but GC (ns).
    pub queue_ns: u128,
    /// Sum of time waiting while the plane did GC work (ns).
    pub gc_ns: u128,
    /// Sum of time waiting for translation pages (ns; a demand-paged map).
    pub map_ns: u128,
    /// Requests that waited while a GC job was on one of their planes.
    pub during_gc: OpTotals,
}

#[derive(Debug, Clone, Copy, Default)]
struct Interval {
    read_bytes: u64,
    write_bytes: u64,
    read_reqs: u64,
    write_reqs: u64,
    read_lat_ns: u128,
    write_lat_ns: u128,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Sample {
    nand_reads: u64,
    nand_programs: u64,
    nand_erases: u64,
    gc_pages_migrated: u64,
    free_blocks: u64,
    array_busy_ns: u64,
    gc_busy_ns: u64,
    /// With `ftl.dedup`: logical pages mapped and pages stored.
    dedup_mapped: u64,
    dedup_stored: u64,
    /// Per demand-paged table ([`TABLE_COLUMNS`]: the map, the fingerprint index): cumulative
    /// lookups, hits, translation reads and writes.
    map: [[u64; 4]; 2],
}

/// The timeline columns of each demand-paged table (the map, the fingerprint index): (name,
/// unit, description) of its hit ratio, translation reads and translation writes.
const TABLE_COLUMNS: [[(&str, &str, &str); 3]; 2] = [
    [
        (
            "map_hit_ratio",
            "fraction",
            "map entries found in DRAM per entry looked up in the interval (ftl.map_cache)",
        ),
        (
            "map_translation_reads",
            "pages",
            "translation pages read in the interval (ftl.map_cache)",
        ),
        (
            "map_translation_writes",
            "pages",
            "translation pages programmed in the interval (ftl.map_cache)",
        ),
    ],
    [
        (
            "index_hit_ratio",
            "fraction",
            "fingerprint lookups whose bucket page was in DRAM per lookup in the interval (ftl.dedup.index_cache)",
        ),
        (
            "index_translation_reads",
            "pages",
            "bucket pages of the fingerprint index read in the interval (ftl.dedup.index_cache)",
        ),
        (
            "index_translation_writes",
            "pages",
            "bucket pages of the fingerprint index programmed in the interval (ftl.dedup.index_cache)",
        ),
    ],
];

/// Statistics gathered during a run.
///
/// Memory grows with activity, not with simulated time: intervals are stored sparsely, by
/// index, only where a request completed or a sample was taken (the simulation skips the
/// samples of idle stretches, see [`Recorder::timeline`]).
pub struct Recorder {
    interval_ns: u64,
    div_interval: StrengthReducedU64,
    /// Read latency histogram (ns).
    pub read_hist: Histogram<u64>,
    /// Write latency histogram (ns).
    pub write_hist: Histogram<u64>,
    /// Read totals.
    pub read: OpTotals,
    /// Write totals.
    pub write: OpTotals,
    /// Trim totals.
    pub trim: OpTotals,
    /// Latency split of reads (plain SSD only).
    pub read_split: SplitTotals,
    /// Latency split of writes (plain SSD only).
    pub write_split: SplitTotals,
    /// Latency histogram of reads that waited while GC was on their plane (ns).
    pub read_gc_hist: Histogram<u64>,
    /// Latency histogram of writes that waited while GC was on their plane (ns).
    pub write_gc_hist: Histogram<u64>,
    /// Latest completion time seen.
    pub last_completion: SimTime,
    /// Requests that failed.
    pub failed_requests: u64,
    /// Requests completing (or failing) before this time are the warm-up (`stats.warmup_ms`):
    /// they appear in the timeline's rows, not in the totals and histograms.
    measure_from: SimTime,
    /// Per stream, the end of its ramp (fio's `ramp_time`): its requests issued before then
    /// are left out like the warm-up's. Empty when no stream ramps.
    ramp_until: Vec<SimTime>,
    /// Completions of intervals that are over (no later submission can complete in them),
    /// by interval index, increasing; only intervals in which something completed.
    intervals: Vec<(u64, Interval)>,
    /// Completions of intervals requests may still complete in. Completion times are known at
    /// submission, so they arrive out of interval order; [`Recorder::sample_counts`] moves
    /// the intervals that are over to `intervals`, which keeps this map small.
    pending: VecDeque<(u64, Interval)>,
    /// Cumulative counters at the end of sampled intervals, by interval index, increasing.
    samples: Vec<(u64, Sample)>,
    /// The device deduplicates: the timeline gets its dedup columns.
    dedup_columns: bool,
    /// Per table of [`TABLE_COLUMNS`]: the device pages it, the timeline gets its cache columns.
    map_columns: [bool; 2],
    /// Streams whose sources are told of each completion (fio's latency-driven options),
    /// by stream index; empty when none is.
    watched: Vec<bool>,
    /// Completions of watched streams not yet handed back: (stream, done, latency ns, op).
    /// Completion times are known before the completion happens, so the host takes each
    /// only at its completion event ([`Recorder::take_completions`]).
    /// Completions of watched streams: (stream, done, latency ns, op; `None` for a request
    /// the device failed).
    feedback: Vec<(u32, SimTime, u64, Option<Op>)>,
}

impl Recorder {
    /// Empty recorder sampling every `interval_ns` (at least 1 ns).
    pub fn new(interval_ns: u64) -> Recorder {
        // Growing histograms (`record_latency`): latencies above an hour are clamped in the
        // percentiles (the exact maximum is kept separately).
        let h = latency_histogram;
        Recorder {
            interval_ns: interval_ns.max(1),
            div_interval: StrengthReducedU64::new(interval_ns.max(1)),
            read_hist: h(),
            write_hist: h(),
            read_split: SplitTotals::default(),
            write_split: SplitTotals::default(),
            read_gc_hist: h(),
            write_gc_hist: h(),
            read: OpTotals::default(),
            write: OpTotals::default(),
            trim: OpTotals::default(),
            last_completion: SimTime::ZERO,
            failed_requests: 0,
            measure_from: SimTime::ZERO,
            ramp_until: Vec::new(),
            intervals: Vec::new(),
            pending: VecDeque::new(),
            samples: Vec::new(),
            dedup_columns: false,
            map_columns: [false; 2],
            watched: Vec::new(),
            feedback: Vec::new(),
        }
    }

    /// Keep each completion of stream `stream` for [`Recorder::take_completions`].
    pub fn watch(&mut self, stream: u32) {
        let i = stream as usize;
        if self.watched.len() <= i {
            self.watched.resize(i + 1, false);
        }
        self.watched[i] = true;
    }

    /// Move into `out` the completions of watched stream `stream` done by `now`, as (done,
    /// latency ns, op, `None` for a failed request), in completion order (ties in the order
    /// the device reported them).
    pub fn take_completions(
        &mut self,
        stream: u32,
        now: SimTime,
        out: &mut Vec<(SimTime, u64, Option<Op>)>,
    ) {
        let start = out.len();
        self.feedback.retain(|&(s, done, lat, op)| {
            if s == stream && done <= now {
                out.push((done, lat, op));
                false
            } else {
                true
            }
        });
        out[start..].sort_by_key(|c| c.0);
    }

    /// Bytes one timeline interval can cost at the end of a run, for the memory estimate:
    /// its sample, its completions (kept, and copied by [`Recorder::timeline`]), its row
    /// index and position there, and one `f64` in each of the finished timeline's columns.
    pub fn bytes_per_interval() -> u64 {
        use std::mem::size_of;
        // The columns `timeline` builds, with the dedup and map cache ones and `time_s`.
        const COLUMNS: usize = 20;
        (size_of::<(u64, Sample)>()
            + 2 * size_of::<(u64, Interval)>()
            + size_of::<u64>()
            + size_of::<Option<usize>>()
            + COLUMNS * size_of::<f64>()) as u64
    }

    /// Bytes of the recorder's [`Recorder::HISTOGRAMS`] latency histograms once they have grown
    /// to hold latencies up to `longest_ns` (`record_latency` grows each to the largest
    /// latency it is given; above 2^42 - 1 ns, about 73 minutes, they stop growing): their counters, 8
    /// bytes each, from the library's own sizing rule. 2,048 counters each before anything
    /// is recorded, 21,504 for latencies under a second, 33,792 (264 KiB) at most.
    pub fn histogram_bytes(longest_ns: u64) -> u64 {
        // A histogram made for 1 ns to `high` has the counters a growing one resizes to when
        // it records `high` (both `buckets_to_cover(high)` rows); its least is 2.
        let high = longest_ns.clamp(2, LATENCY_TOP_NS);
        let h = Histogram::<u64>::new_with_bounds(1, high, 3).expect("valid histogram bounds");
        Self::HISTOGRAMS * h.distinct_values() as u64 * std::mem::size_of::<u64>() as u64
    }

    /// The latency histograms a recorder keeps: reads, writes, and each of them waiting on GC.
    pub const HISTOGRAMS: u64 = 4;

    /// Sampling interval (ns).
    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// Count only requests completing at or after `t` in the totals and histograms.
    pub fn measure_from(&mut self, t: SimTime) {
        self.measure_from = t;
    }

    /// Index of the interval `t` falls in.
    #[inline]
    pub fn interval_of(&self, t: SimTime) -> u64 {
        t.0 / self.div_interval
    }

    /// A request that failed (device shut down, file system full) at `done`: counted, and
    /// not in the throughput or latency figures.
    pub fn record_failed(&mut self, stream: u32, done: SimTime) {
        let s = stream & !crate::host::ASYNC_TAG;
        if self.watched.get(s as usize) == Some(&true) {
            // A watched stream hears of the failure at the completion (fio's sg engine
            // learns of a CHECK CONDITION there).
            self.feedback.push((s, done, 0, None));
        }
        self.failed_requests += (done >= self.measure_from) as u64;
        self.last_completion = self.last_completion.max(done);
    }

    /// Stream `stream`'s requests issued before `until` are its ramp (fio's `ramp_time`).
    pub fn set_ramp(&mut self, stream: u32, until: SimTime) {
        let i = stream as usize;
        if self.ramp_until.len() <= i {
            self.ramp_until.resize(i + 1, SimTime::ZERO);
        }
        self.ramp_until[i] = until;
    }

    /// Whether a request of `stream` (its index; the async tag bit is ignored) issued at
    /// `issued` and done at `done` counts in the totals.
    #[inline]
    fn measured(&self, stream: u32, issued: SimTime, done: SimTime) -> bool {
        done >= self.measure_from
            && self
                .ramp_until
                .get((stream & !crate::host::ASYNC_TAG) as usize)
                .is_none_or(|&t| issued >= t)
    }

    /// One request of stream `stream`, of `bytes`, issued at `issued`, completing at `done`.
    #[inline]
    pub fn record(&mut self, stream: u32, op: Op, bytes: u64, issued: SimTime, done: SimTime) {
        let lat = done.0 - issued.0;
        let s = stream & !crate::host::ASYNC_TAG;
        if self.watched.get(s as usize) == Some(&true) {
            self.feedback.push((s, done, lat, Some(op)));
        }
        if self.measured(stream, issued, done) {
            let t = match op {
                Op::Read => {
                    record_latency(&mut self.read_hist, lat);
                    &mut self.read
                }
                Op::Write | Op::Append => {
                    record_latency(&mut self.write_hist, lat);
                    &mut self.write
                }
                Op::Trim | Op::Delete | Op::Sync => &mut self.trim,
                // Zone management and handle updates move no data: counted with the other
                // data-less commands.
                Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset | Op::RuhUpdate => {
                    &mut self.trim
                }
            };
            if t.requests == 0 || lat < t.latency_min_ns {
                t.latency_min_ns = lat;
            }
            t.requests += 1;
            t.bytes += bytes;
            t.latency_sum_ns += lat as u128;
            t.latency_max_ns = t.latency_max_ns.max(lat);
        }
        self.last_completion = self.last_completion.max(done);
        let i = self.interval_of(done);
        let iv = self.pending_mut(i);
        match op {
            Op::Read => {
                iv.read_bytes += bytes;
                iv.read_reqs += 1;
                iv.read_lat_ns += lat as u128;
            }
            Op::Write | Op::Append => {
                iv.write_bytes += bytes;
                iv.write_reqs += 1;
                iv.write_lat_ns += lat as u128;
            }
            Op::Trim | Op::Delete | Op::Sync => {}
            Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset | Op::RuhUpdate => {}
        }
    }

    /// The not yet sampled interval `i`'s totals. Completions come nearly in time order, and
    /// only the intervals since the last sample are pending (a few), so this looks from the
    /// back of a short sorted list.
    #[inline]
    fn pending_mut(&mut self, i: u64) -> &mut Interval {
        // Nearly always the newest interval.
        if self.pending.back().is_some_and(|&(j, _)| j == i) {
            return &mut self.pending.back_mut().expect("checked above").1;
        }
        let at = match self.pending.iter().rposition(|&(j, _)| j <= i) {
            Some(k) if self.pending[k].0 == i => k,
            Some(k) => {
                self.pending.insert(k + 1, (i, Interval::default()));
                k + 1
            }
            None => {
                self.pending.push_front((i, Interval::default()));
                0
            }
        };
        &mut self.pending[at].1
    }

    /// The latency split of a request the SSD completed (after [`Recorder::record`]).
    #[inline]
    pub fn record_split(&mut self, c: &crate::device::Completed) {
        if !self.measured(c.stream, c.issued, c.done) {
            return;
        }
        let (t, h) = match c.op {
            Op::Read => (&mut self.read_split, &mut self.read_gc_hist),
            Op::Write | Op::Append => (&mut self.write_split, &mut self.write_gc_hist),
            Op::Trim | Op::Delete | Op::Sync => return,
            Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset | Op::RuhUpdate => return,
        };
        t.queue_ns += c.queue_ns as u128;
        t.gc_ns += c.gc_ns as u128;
        t.map_ns += c.map_ns as u128;
        if c.during_gc {
            let lat = c.done.0 - c.issued.0;
            record_latency(h, lat);
            let d = &mut t.during_gc;
            if d.requests == 0 || lat < d.latency_min_ns {
                d.latency_min_ns = lat;
            }
            d.requests += 1;
            d.bytes += c.len;
            d.latency_sum_ns += lat as u128;
            d.latency_max_ns = d.latency_max_ns.max(lat);
        }
    }

    /// Sample the device's cumulative counters at the end of interval `interval`.
    pub fn sample(&mut self, interval: u64, dev: &Device) {
        self.sample_counts(
            interval,
            &dev.nand.counters,
            dev.ftl.counters.gc_pages_migrated,
            dev.ftl.free_blocks(),
        );
        if let (Some(d), Some(last)) = (dev.ftl.dedup.as_ref(), self.samples.last_mut()) {
            self.dedup_columns = true;
            last.1.dedup_mapped = d.mapped();
            last.1.dedup_stored = d.stored();
        }
        if let Some(m) = dev.ftl.map.as_ref() {
            self.sample_map(0, &m.counters);
        }
        if let Some(m) = dev.ftl.index.as_ref() {
            self.sample_map(1, &m.counters);
        }
    }

    /// Add a demand-paged table's cumulative counters to the sample just taken: table 0 the
    /// map (the page or packed map of the plain SSD, the CCSD's chunk map; the timeline's
    /// `map_*` columns), 1 the fingerprint index (`index_*`).
    pub fn sample_map(&mut self, table: usize, c: &crate::ftl::mapcache::MapCacheCounters) {
        if let Some(last) = self.samples.last_mut() {
            self.map_columns[table] = true;
            last.1.map[table] = [c.lookups, c.hits, c.translation_reads, c.translation_writes];
        }
    }

    /// Take the sample of interval `interval` from NAND counters, units migrated by GC and
    /// free blocks. Call at or after the interval's end (no request submitted later can
    /// complete in it), with intervals increasing from call to call.
    pub fn sample_counts(
        &mut self,
        interval: u64,
        nand: &NandCounters,
        gc_migrated: u64,
        free_blocks: u64,
    ) {
        debug_assert!(
            self.samples.last().is_none_or(|&(j, _)| j < interval),
            "samples must be taken in increasing interval order"
        );
        self.samples.push((
            interval,
            Sample {
                nand_reads: nand.reads,
                nand_programs: nand.programs,
                nand_erases: nand.erases,
                gc_pages_migrated: gc_migrated,
                free_blocks,
                array_busy_ns: nand.array_busy_ns,
                gc_busy_ns: nand.gc_busy_ns,
                dedup_mapped: 0,
                dedup_stored: 0,
                map: [[0; 4]; 2],
            },
        ));
        while self.pending.front().is_some_and(|&(j, _)| j <= interval) {
            self.intervals.extend(self.pending.pop_front());
        }
    }

    /// Whether the last two samples hold the same counters (nothing happened between them).
    pub fn last_sample_repeats(&self) -> bool {
        matches!(self.samples.as_slice(), [.., (_, a), (_, b)] if a == b)
    }

    /// Drop the samples of interval `from` and later (to sample the end state again).
    pub fn forget_samples_from(&mut self, from: u64) {
        while self.samples.last().is_some_and(|&(i, _)| i >= from) {
            self.samples.pop();
        }
    }

    /// Interval of the last sample taken.
    pub fn last_sampled_interval(&self) -> Option<u64> {
        self.samples.last().map(|&(i, _)| i)
    }

    /// Intervals a run ending at `end` spans (at least one).
    pub fn intervals_until(&self, end: SimTime) -> u64 {
        let last_rec = self
            .pending
            .back()
            .map(|&(i, _)| i)
            .or(self.intervals.last().map(|&(i, _)| i))
            .map_or(0, |i| i + 1);
        end.0.div_ceil(self.interval_ns).max(last_rec).max(1)
    }

    /// Samples taken so far.
    pub fn samples_taken(&self) -> usize {
        self.samples.len()
    }

    /// Build the timeline columns for a run that ended at `end`, and for each row the
    /// position (in the order samples were taken) of the sample it shows, for callers that
    /// keep per-sample series of their own (the storage stack).
    ///
    /// Rows: the intervals (below the run's end) in which a request completed or a sample was
    /// taken, in order. The simulation samples every interval, except inside an idle stretch
    /// (no request in flight, none arrives, nothing else changes), where it samples only the
    /// first and the last interval: a busy run has one row per interval, an idle stretch of
    /// any length two rows, so a plot still shows it flat. `time_s` is always the end of the
    /// row's interval; the counter columns hold the change since the previous row's sample.
    pub fn timeline(&self, end: SimTime) -> (Vec<Column>, Vec<Option<usize>>) {
        let n = self.intervals_until(end);
        let recs: Vec<(u64, Interval)> = self
            .intervals
            .iter()
            .copied()
            .chain(self.pending.iter().copied())
            .take_while(|&(i, _)| i < n)
            .collect();
        // Rows: the intervals with a completion or a sample, increasing (both are sorted).
        let mut rows: Vec<u64> = Vec::with_capacity(recs.len().max(self.samples.len()));
        let (mut a, mut b) = (recs.iter().map(|r| r.0), self.samples.iter().map(|s| s.0));
        let (mut x, mut y) = (a.next(), b.next());
        loop {
            let next = match (x, y) {
                (Some(p), Some(q)) if p <= q => {
                    x = a.next();
                    if p == q {
                        y = b.next();
                    }
                    p
                }
                (_, Some(q)) => {
                    y = b.next();
                    q
                }
                (Some(p), None) => {
                    x = a.next();
                    p
                }
                (None, None) => break,
            };
            if next >= n {
                break;
            }
            rows.push(next);
        }

        let mut cols: Vec<(&'static str, &'static str, &'static str, Vec<f64>)> = vec![
            (
                "time_s",
                "s",
                "end of the interval (simulated time); one row per interval, except that a run \
                 of idle intervals (no request in flight, nothing changed) keeps only its first \
                 and last row",
                vec![],
            ),
            (
                "read_mb_s",
                "MB/s",
                "read bytes completed in the interval per second (10^6 B/s)",
                vec![],
            ),
            (
                "write_mb_s",
                "MB/s",
                "write bytes completed in the interval per second (10^6 B/s)",
                vec![],
            ),
            (
                "read_iops",
                "1/s",
                "read requests completed per second",
                vec![],
            ),
            (
                "write_iops",
                "1/s",
                "write requests completed per second",
                vec![],
            ),
            (
                "read_latency_mean_us",
                "us",
                "mean latency of reads completed in the interval",
                vec![],
            ),
            (
                "write_latency_mean_us",
                "us",
                "mean latency of writes completed in the interval",
                vec![],
            ),
            (
                "nand_reads",
                "pages",
                "NAND page reads issued in the interval (and in idle intervals left out just before it)",
                vec![],
            ),
            (
                "nand_programs",
                "pages",
                "NAND page programs issued in the interval (and in idle intervals left out just before it)",
                vec![],
            ),
            (
                "nand_erases",
                "blocks",
                "NAND block erases issued in the interval (and in idle intervals left out just before it)",
                vec![],
            ),
            (
                "gc_pages_migrated",
                "pages",
                "valid pages moved by GC in the interval (and in idle intervals left out just before it)",
                vec![],
            ),
            (
                "free_blocks",
                "blocks",
                "free blocks at the end of the interval",
                vec![],
            ),
            (
                "plane_busy_s",
                "s",
                "plane time in array operations dispatched since the previous row, summed over planes",
                vec![],
            ),
            (
                "gc_busy_s",
                "s",
                "of plane_busy_s, the time in GC's migrations and erases (GC episodes on the timeline)",
                vec![],
            ),
        ];
        for c in &mut cols {
            c.3.reserve_exact(rows.len());
        }
        let mut positions = Vec::with_capacity(rows.len());
        let zero = Sample::default();
        let mean = |sum: f64, n: u64| {
            if n == 0 {
                f64::NAN
            } else {
                sum / n as f64 * 1e-3
            }
        };
        let (mut ri, mut si) = (0usize, 0usize);
        let mut dedup: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut map: [[Vec<f64>; 3]; 2] = Default::default();
        for &i in &rows {
            let start = i.saturating_mul(self.interval_ns);
            let stop = start
                .saturating_add(self.interval_ns)
                .min(end.0.max(start.saturating_add(1)));
            let secs = (stop - start).max(1) as f64 * 1e-9;
            while ri < recs.len() && recs[ri].0 < i {
                ri += 1;
            }
            let iv = match recs.get(ri) {
                Some(&(j, v)) if j == i => v,
                _ => Interval::default(),
            };
            // `si`: samples of intervals up to `i`.
            while si < self.samples.len() && self.samples[si].0 <= i {
                si += 1;
            }
            let cur = si.checked_sub(1);
            let prev = match cur {
                Some(c) if self.samples[c].0 == i => c.checked_sub(1),
                c => c,
            };
            positions.push(cur);
            let cur = cur.map_or(&zero, |c| &self.samples[c].1);
            let prev = prev.map_or(&zero, |p| &self.samples[p].1);
            let vals = [
                stop as f64 * 1e-9,
                iv.read_bytes as f64 / secs / 1e6,
                iv.write_bytes as f64 / secs / 1e6,
                iv.read_reqs as f64 / secs,
                iv.write_reqs as f64 / secs,
                mean(iv.read_lat_ns as f64, iv.read_reqs),
                mean(iv.write_lat_ns as f64, iv.write_reqs),
                cur.nand_reads.saturating_sub(prev.nand_reads) as f64,
                cur.nand_programs.saturating_sub(prev.nand_programs) as f64,
                cur.nand_erases.saturating_sub(prev.nand_erases) as f64,
                cur.gc_pages_migrated.saturating_sub(prev.gc_pages_migrated) as f64,
                cur.free_blocks as f64,
                cur.array_busy_ns.saturating_sub(prev.array_busy_ns) as f64 * 1e-9,
                cur.gc_busy_ns.saturating_sub(prev.gc_busy_ns) as f64 * 1e-9,
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.3.push(v);
            }
            if self.dedup_columns {
                dedup.0.push(cur.dedup_mapped as f64);
                dedup.1.push(cur.dedup_stored as f64);
            }
            for (t, cols) in map.iter_mut().enumerate() {
                if !self.map_columns[t] {
                    continue;
                }
                let d = |k: usize| cur.map[t][k].saturating_sub(prev.map[t][k]);
                cols[0].push(if d(0) == 0 {
                    f64::NAN
                } else {
                    d(1) as f64 / d(0) as f64
                });
                cols[1].push(d(2) as f64);
                cols[2].push(d(3) as f64);
            }
        }
        if self.dedup_columns {
            let ratio = dedup
                .0
                .iter()
                .zip(&dedup.1)
                .map(|(&m, &s)| if s > 0.0 { m / s } else { f64::NAN })
                .collect();
            cols.push((
                "dedup_mapped_pages",
                "pages",
                "logical pages mapped at the end of the interval (ftl.dedup)",
                dedup.0,
            ));
            cols.push((
                "dedup_stored_pages",
                "pages",
                "distinct pages stored at the end of the interval (ftl.dedup)",
                dedup.1,
            ));
            cols.push((
                "dedup_ratio",
                "x",
                "logical pages mapped per page stored at the end of the interval (ftl.dedup)",
                ratio,
            ));
        }
        for (t, values) in map.into_iter().enumerate() {
            if self.map_columns[t] {
                for ((name, unit, description), v) in TABLE_COLUMNS[t].into_iter().zip(values) {
                    cols.push((name, unit, description, v));
                }
            }
        }
        let cols = cols
            .into_iter()
            .map(|(name, unit, description, values)| Column {
                name,
                unit,
                description,
                values,
            })
            .collect();
        (cols, positions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn percentiles_match_sorted_exact_values() {
        let mut rec = Recorder::new(1_000_000_000);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        let mut lats: Vec<u64> = (0..100_000)
            .map(|_| rng.random_range(1_000..50_000_000u64))
            .collect();
        for &l in &lats {
            rec.record(0, Op::Write, 4096, SimTime(0), SimTime(l));
        }
        lats.sort_unstable();
        for q in [0.5, 0.99, 0.999] {
            let exact = lats[((q * lats.len() as f64).ceil() as usize) - 1] as f64;
            let hdr = rec.write_hist.value_at_quantile(q) as f64;
            assert!(
                (hdr - exact).abs() / exact < 2e-3,
                "q {q}: hdr {hdr} exact {exact}"
            );
        }
        assert_eq!(rec.write.latency_max_ns, *lats.last().unwrap());
    }

    /// The growing histograms count as the library's histogram of fixed bounds 1 ns to an hour
    /// with `saturating_record` (what the recorder kept until it grew them): same buckets,
    /// counts, extremes, percentiles and CDF, for latencies from 0 to beyond what the fixed
    /// one resolves (clamped to the cap), and they stay small while latencies do.
    #[test]
    fn growing_histograms_count_as_fixed_bounds_do() {
        let fixed_hist = || Histogram::<u64>::new_with_bounds(1, LATENCY_CAP_NS, 3).unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let edges = [
            0,
            1,
            2,
            2047,
            2048,
            999_999_999,
            LATENCY_CAP_NS - 1,
            LATENCY_CAP_NS,
            LATENCY_CAP_NS + 1,
            LATENCY_TOP_NS - 1,
            LATENCY_TOP_NS,
            LATENCY_TOP_NS + 1,
            1 << 50,
            u64::MAX,
        ];
        for case in 0..4 {
            let (mut fixed, mut grown) = (fixed_hist(), latency_histogram());
            let lats: Vec<u64> = match case {
                0 => edges.to_vec(),
                // Powers of two spread a sample over every bucket, and past the top.
                1 => (0..5_000)
                    .map(|_| rng.random::<u64>() >> rng.random_range(0..64))
                    .collect(),
                2 => (0..5_000)
                    .map(|_| rng.random_range(0..5_000_000u64))
                    .collect(),
                _ => Vec::new(),
            };
            for &l in &lats {
                fixed.saturating_record(l);
                record_latency(&mut grown, l);
            }
            assert_eq!(grown.len(), fixed.len(), "case {case}");
            assert_eq!(
                (grown.min(), grown.max(), grown.min_nz()),
                (fixed.min(), fixed.max(), fixed.min_nz()),
                "case {case}"
            );
            assert_eq!(
                super::super::cdf(&grown),
                super::super::cdf(&fixed),
                "case {case}"
            );
            for q in [0.0, 0.001, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0] {
                assert_eq!(
                    grown.value_at_quantile(q),
                    fixed.value_at_quantile(q),
                    "case {case} q {q}"
                );
            }
            assert_eq!(
                grown.mean().to_bits(),
                fixed.mean().to_bits(),
                "case {case}"
            );
        }
        // The cap's own bucket is where the fixed histogram puts what it cannot resolve.
        let mut fixed = fixed_hist();
        fixed.saturating_record(LATENCY_TOP_NS + 1);
        assert_eq!(fixed.max(), fixed.highest_equivalent(LATENCY_CAP_NS));
        fixed.saturating_record(LATENCY_TOP_NS);
        assert_eq!(fixed.max(), fixed.highest_equivalent(LATENCY_TOP_NS));
        assert_eq!(fixed.distinct_values(), 33_792);
        // Small while latencies are: a second needs 21 of the fixed histogram's 33 bucket rows.
        let mut grown = latency_histogram();
        assert_eq!(grown.distinct_values(), 2_048);
        record_latency(&mut grown, 999_999_999);
        assert_eq!(grown.distinct_values(), 21_504);
    }

    /// The memory estimate's histogram term is what a recorder's histograms hold after
    /// recording latencies up to a given one: counted here from the recorder's own four
    /// histograms, grown by the recorder's own recording, at 8 bytes a counter.
    #[test]
    fn histogram_bytes_is_what_the_recorders_histograms_grow_to() {
        let held = |r: &Recorder| {
            [
                &r.read_hist,
                &r.write_hist,
                &r.read_gc_hist,
                &r.write_gc_hist,
            ]
            .iter()
            .map(|h| h.distinct_values() as u64 * 8)
            .sum::<u64>()
        };
        // Nothing recorded: 2,048 counters each.
        let r = Recorder::new(1_000_000);
        assert_eq!(held(&r), 4 * 2_048 * 8);
        assert_eq!(Recorder::histogram_bytes(0), held(&r));
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for longest in [
            1,
            2_047,
            2_048,
            100_000,
            999_999_999,
            1_000_000_000,
            LATENCY_CAP_NS,
            LATENCY_TOP_NS,
            LATENCY_TOP_NS + 1,
            u64::MAX,
        ] {
            let mut r = Recorder::new(1_000_000);
            // Smaller latencies first, as a run records them, then the longest, into each.
            for h in [
                &mut r.read_hist,
                &mut r.write_hist,
                &mut r.read_gc_hist,
                &mut r.write_gc_hist,
            ] {
                for _ in 0..100 {
                    record_latency(h, rng.random_range(0..=longest));
                }
                record_latency(h, longest);
            }
            assert_eq!(
                Recorder::histogram_bytes(longest),
                held(&r),
                "longest {longest}"
            );
        }
        // The figures the doc gives: under a second, and at most.
        assert_eq!(Recorder::histogram_bytes(999_999_999), 4 * 21_504 * 8);
        assert_eq!(Recorder::histogram_bytes(u64::MAX), 4 * 33_792 * 8);
    }
}
