//! The host page cache over the file system, with Linux-like writeback.
//!
//! - **Pages.** File data is cached in 4 KiB pages up to `capacity_mib`. Clean pages sit in
//!   one LRU list and are evicted from its cold end; dirty pages are not evictable (when
//!   nothing clean is left, the oldest dirty file is written back first).
//! - **Writes** dirty pages and return after the host CPU cost of the system call and the
//!   copy ([`CacheConfig::op_cpu_us`], [`CacheConfig::page_copy_us`]), run on a host core
//!   ([`Backend::on_core`]: threads beyond the cores wait, so cached I/O is bounded by the
//!   host's cores as on a real machine): several small writes
//!   into one page (one F2FS cluster) become one write-back. A write that covers part of a
//!   page the cache does not hold but the file has on the disk reads the page first, as
//!   Linux's `write_begin` does.
//! - **Writeback** as Linux's flusher (`mm/page-writeback.c`, `fs/fs-writeback.c`): every
//!   `dirty_writeback_centisecs` the files dirtied more than `dirty_expire_centisecs` ago are
//!   written back whole (Linux expires inodes by their `dirtied_when`); above
//!   `dirty_background_ratio` % of the cache dirty, the oldest dirty files are written back
//!   at once until the dirty data is below it (asynchronously: nobody waits).
//! - **Dirty throttling** as Linux's IO-less `balance_dirty_pages` (since 3.2): pages under
//!   write-back count as dirty until their I/O completes, and once dirty plus write-back
//!   pages pass the *freerun* point (halfway between `dirty_background_ratio` and
//!   `dirty_ratio`) a writer is paced: it pauses `pages / (write_bw x pos_ratio)` after its
//!   write, where `write_bw` is the measured write-back bandwidth (Linux's
//!   `wb_update_write_bandwidth`: 200 ms samples averaged over a 4 s period, starting at
//!   100 MB/s) and `pos_ratio = 1 + ((setpoint - dirty) / (limit - setpoint))^3` the global
//!   control line around the setpoint halfway between freerun and the limit; at the limit
//!   it waits in pauses of at most 200 ms until write-back brings the dirty data under it.
//!   So cached writers run at the device's pace once the dirty data reaches the limits.
//!   (Linux also splits the rate among the tasks dirtying at once, `dirty_ratelimit`; here
//!   each writer gets the whole rate and the control line brings the total back to it.)
//! - **fsync** ([`Op::Sync`]) writes back every dirty page of the file and waits for them and
//!   for the file's writeback already in flight. `O_DSYNC` writes ([`FileAttrs::DSYNC`])
//!   write back their own range before returning; `O_DIRECT` I/O ([`FileAttrs::DIRECT`])
//!   writes back the dirty pages of its range, drops the cached ones and goes to the file
//!   system directly.
//! - **Reads** of cached pages are hits (no I/O); missed pages are read through and
//!   inserted. For a cluster F2FS stored compressed the whole decompressed cluster is
//!   inserted (F2FS decompresses into the file's page cache), so later reads of it cost no
//!   decompression.
//! - **Errors.** A write-back that fails (file system full, device shut down) marks the file,
//!   as Linux's `AS_EIO`/`errseq`: the file's next fsync (or an `O_DSYNC` write) fails, once;
//!   the failure is counted, never dropped.
//!
//! The cache talks to the file system through [`Backend`], so it is tested against a
//! recording backend.

use crate::config::CacheConfig;
use crate::error::Result;
use crate::stack::fs::{FsDone, FS_CALL_NS};
use crate::units::{duration_ns, SimTime, MAX_OP_NS, MAX_PERIOD_NS};
use crate::workload::{FileAttrs, Op, Request};
use std::collections::{BTreeMap, BTreeSet};

/// Page size (bytes).
pub const PAGE: u64 = 4096;
const NIL: u32 = u32::MAX;

/// What the cache needs from the file system below it.
pub trait Backend {
    /// Serve `req` of `stream` at `now`; a write's page `i` holds content id `ids[i]` when
    /// given (else [`crate::content::nth_id`]`(req.content, i)`).
    fn submit(
        &mut self,
        stream: usize,
        req: &Request,
        ids: Option<&[u64]>,
        now: SimTime,
    ) -> Result<FsDone>;
    /// Size (bytes) of the stored file with key `key`, if it exists.
    fn file_size(&self, key: u64) -> Option<u64>;
    /// Pages `[c0, c1)` of the compressed cluster holding page `page` of file `key`.
    fn compressed_cluster(&self, key: u64, page: u64) -> Option<(u64, u64)>;
    /// Run `ns` of a system call's CPU time, ready at `at`, on a host core (waiting for one
    /// when every core is busy); returns when it is done.
    fn on_core(&mut self, at: SimTime, ns: u64) -> SimTime;
}

/// Page-cache counters (pages of 4 KiB unless named otherwise).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CacheCounters {
    /// Pages read requests found in the cache.
    pub read_hits: u64,
    /// Pages read requests did not find (read through the file system).
    pub read_misses: u64,
    /// Pages inserted beside missed pages because their compressed cluster was decompressed.
    pub cluster_pages_inserted: u64,
    /// Pages written by buffered write requests.
    pub pages_written: u64,
    /// Page writes into a page that was already dirty (absorbed: no write-back of their own).
    pub pages_coalesced: u64,
    /// Bytes of the writes absorbed into already-dirty pages.
    pub bytes_coalesced: u64,
    /// Pages read before a write covering part of them (Linux `write_begin`).
    pub fill_reads: u64,
    /// Dirty pages written back to the file system.
    pub pages_written_back: u64,
    /// Write-back requests submitted to the file system.
    pub writeback_ios: u64,
    /// Files written back because their dirty data expired (`dirty_expire_centisecs`).
    pub expired_writebacks: u64,
    /// Files written back in the background (above `dirty_background_ratio`).
    pub background_writebacks: u64,
    /// Files a writing process wrote back itself (above `dirty_ratio`, or no clean page left).
    pub throttled_writebacks: u64,
    /// Write-back requests the file system failed (file system full, device shut down).
    pub writeback_errors: u64,
    /// fsync / fdatasync requests.
    pub fsyncs: u64,
    /// fsyncs and `O_DSYNC` writes that returned a write-back error (EIO).
    pub fsync_errors: u64,
    /// Write requests opened `O_DSYNC`.
    pub dsync_writes: u64,
    /// Requests opened `O_DIRECT`.
    pub direct_ios: u64,
    /// Clean pages evicted (LRU).
    pub evictions: u64,
    /// Dirty pages dropped unwritten because their file was deleted or the range punched.
    pub dirty_pages_dropped: u64,
    /// Most dirty pages at once.
    pub dirty_pages_peak: u64,
    /// Writes a writer paused after because dirty and write-back pages were above freerun.
    pub dirty_throttle_pauses: u64,
    /// Time writers spent paused by dirty throttling (ns).
    pub dirty_throttle_ns: u64,
}

/// Linux's `MAX_PAUSE`: the longest one dirty-throttling pause (200 ms).
const MAX_PAUSE_NS: u64 = 200_000_000;
/// Linux's `BANDWIDTH_INTERVAL`: a write-back bandwidth sample spans at least 200 ms.
const BW_INTERVAL_NS: u64 = 200_000_000;
/// The period the write-back bandwidth is averaged over (`roundup_pow_of_two(3 * HZ)` at
/// HZ = 1000: 4.096 s).
const BW_PERIOD_NS: u64 = 4_096_000_000;
/// Linux's `INIT_BW`: the write-back bandwidth assumed before any is measured (100 MB/s).
const INIT_BW_PAGES_PER_S: f64 = 100.0 * 1024.0 * 1024.0 / PAGE as f64;

#[derive(Debug, Clone, Copy)]
struct Node {
    key: u64,
    page: u64,
    prev: u32,
    next: u32,
    id: u64,
    dirty: bool,
}

#[derive(Debug, Clone)]
struct FileMeta {
    stream: u32,
    file: u32,
    attrs: FileAttrs,
    /// Size including data not yet written back (bytes).
    size: u64,
    pages: BTreeMap<u64, u32>,
    dirty: BTreeSet<u64>,
    dirtied_at: Option<SimTime>,
    /// Completion of the file's latest write-back I/O.
    wb_done: SimTime,
    /// A write-back failed since the last fsync reported it.
    error: bool,
}

/// Why a file is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    Expired,
    Background,
    Throttled,
    Sync,
}

/// The page cache.
#[derive(Debug)]
pub struct PageCache {
    cap: u64,
    bg_pages: u64,
    hard_pages: u64,
    expire_ns: u64,
    period_ns: u64,
    op_ns: u64,
    copy_ns: u64,
    files: BTreeMap<u64, FileMeta>,
    /// Dirty files by (dirtied_at, key): the oldest first.
    order: BTreeSet<(SimTime, u64)>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Clean LRU: most recent at `head`.
    head: u32,
    tail: u32,
    pages: u64,
    dirty: u64,
    next_flush: SimTime,
    counters: CacheCounters,
    /// Write-back I/O in flight: (completion, pages), the earliest first.
    inflight: std::collections::BinaryHeap<std::cmp::Reverse<(SimTime, u64)>>,
    /// Pages under write-back (submitted, not yet complete).
    writeback_pages: u64,
    /// Measured write-back bandwidth (pages per second).
    write_bw: f64,
    /// Start of the current bandwidth sample and the pages completed in it.
    bw_since: SimTime,
    bw_pages: u64,
}

impl PageCache {
    /// A cache with `cfg`'s capacity and writeback parameters (validated by the config); an
    /// error names a duration that does not fit.
    pub fn new(cfg: &CacheConfig) -> Result<PageCache> {
        let centis = |key: &str, c: u64| duration_ns(key, c as f64, 1e7, MAX_PERIOD_NS);
        let expire_ns = centis(
            "stack.cache.dirty_expire_centisecs",
            cfg.dirty_expire_centisecs,
        )?;
        let period_ns = centis(
            "stack.cache.dirty_writeback_centisecs",
            cfg.dirty_writeback_centisecs,
        )?;
        let op = |key: &str, us: f64| duration_ns(key, us, 1e3, MAX_OP_NS);
        let op_ns = op("stack.cache.op_cpu_us", cfg.op_cpu_us)?;
        let copy_ns = op("stack.cache.page_copy_us", cfg.page_copy_us)?;
        let cap = (cfg.capacity_mib.saturating_mul(1 << 20) / PAGE).max(1);
        let pct = |r: f64| ((r / 100.0 * cap as f64).floor() as u64).clamp(1, cap);
        Ok(PageCache {
            cap,
            bg_pages: pct(cfg.dirty_background_ratio),
            hard_pages: pct(cfg.dirty_ratio),
            expire_ns,
            period_ns,
            op_ns,
            copy_ns,
            files: BTreeMap::new(),
            order: BTreeSet::new(),
            nodes: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            pages: 0,
            dirty: 0,
            next_flush: SimTime(period_ns),
            counters: CacheCounters::default(),
            inflight: std::collections::BinaryHeap::new(),
            writeback_pages: 0,
            write_bw: INIT_BW_PAGES_PER_S,
            bw_since: SimTime::ZERO,
            bw_pages: 0,
        })
    }

    /// Counters.
    pub fn counters(&self) -> CacheCounters {
        self.counters
    }

    /// Pages held (clean and dirty).
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Dirty pages held.
    pub fn dirty_pages(&self) -> u64 {
        self.dirty
    }

    /// Pages under write-back at the last request (submitted, not yet on the device).
    pub fn writeback_pages(&self) -> u64 {
        self.writeback_pages
    }

    /// The measured write-back bandwidth (bytes per second).
    pub fn write_bandwidth(&self) -> f64 {
        self.write_bw * PAGE as f64
    }

    /// Dirty pages of file `key`.
    pub fn dirty_pages_of(&self, key: u64) -> u64 {
        self.files.get(&key).map_or(0, |m| m.dirty.len() as u64)
    }

    /// When the periodic flusher next runs ([`PageCache::on_time`] at or after it).
    pub fn next_flush(&self) -> SimTime {
        self.next_flush
    }

    /// Run the periodic flusher if it is due at `now`: write back the files whose dirty
    /// data expired, then the oldest while above the background threshold.
    pub fn on_time(&mut self, be: &mut dyn Backend, now: SimTime) -> Result<()> {
        if now < self.next_flush {
            return Ok(());
        }
        while let Some(&(at, key)) = self.order.first() {
            if at.0.saturating_add(self.expire_ns) > now.0 {
                break;
            }
            self.counters.expired_writebacks += 1;
            self.writeback(be, key, None, now, Why::Expired)?;
        }
        self.background(be, now)?;
        // Linux re-arms the flusher a period after it ran.
        self.next_flush = SimTime(now.0.saturating_add(self.period_ns));
        Ok(())
    }

    /// Serve request `req` of `stream` (whose file has key `key`) at `now`.
    pub fn submit(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        stream: usize,
        req: &Request,
        now: SimTime,
    ) -> Result<FsDone> {
        match req.op {
            Op::Read if req.attrs.direct() => self.direct(be, key, stream, req, now),
            Op::Write if req.attrs.direct() => self.direct(be, key, stream, req, now),
            Op::Read => self.read(be, key, stream, req, now),
            Op::Write => self.write(be, key, stream, req, now),
            Op::Sync => self.fsync(be, key, now),
            Op::Delete => {
                self.drop_range(key, 0, u64::MAX);
                self.files.remove(&key);
                be.submit(stream, req, None, now)
            }
            Op::RuhUpdate => Err(crate::error::Error::Workload(
                "a reclaim unit handle update needs a flexible data placement device ([fdp]), \
                 not a file system"
                    .into(),
            )),
            Op::Append | Op::ZoneOpen | Op::ZoneClose | Op::ZoneFinish | Op::ZoneReset => {
                Err(crate::error::Error::Workload(format!(
                    "{:?}: zone commands need a zoned device ([zns]), not a file system",
                    req.op
                )))
            }
            Op::Trim => {
                let p0 = req.offset.div_ceil(PAGE);
                let p1 = req.offset.saturating_add(req.len) / PAGE;
                self.drop_range(key, p0, p1);
                be.submit(stream, req, None, now)
            }
        }
    }

    fn cpu_ns(&self, pages: u64) -> u64 {
        self.op_ns
            .saturating_add(self.copy_ns.saturating_mul(pages))
    }

    /// A system call that moves no data (an empty read or write, an fsync's entry) issued
    /// at `now`: its CPU time on a core, and never less than the file system's call time.
    fn call(&self, be: &mut dyn Backend, now: SimTime) -> SimTime {
        be.on_core(now, self.op_ns).max(now + FS_CALL_NS)
    }

    fn read(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        stream: usize,
        req: &Request,
        now: SimTime,
    ) -> Result<FsDone> {
        let stored = be.file_size(key);
        let size = self
            .files
            .get(&key)
            .map_or(0, |m| m.size)
            .max(stored.unwrap_or(0));
        let end = req.offset.saturating_add(req.len).min(size);
        if req.offset >= end {
            return Ok(FsDone {
                done: self.call(be, now),
                failed: false,
            });
        }
        let (p0, p1) = (req.offset / PAGE, end.div_ceil(PAGE));
        // Pages the file system holds: a page past them that the cache does not hold is
        // a hole (zeros, no I/O).
        let stored_pages = stored.unwrap_or(0).div_ceil(PAGE);
        let mut done = now;
        let mut failed = false;
        let mut p = p0;
        while p < p1 {
            if let Some(slot) = self.lookup(key, p) {
                self.counters.read_hits += 1;
                self.touch(slot);
                p += 1;
                continue;
            }
            let mut q = p;
            while q < p1 && self.lookup(key, q).is_none() {
                q += 1;
            }
            let to = q.min(stored_pages);
            if p < to {
                self.counters.read_misses += to - p;
                let mut spans = vec![(p, to)];
                for e in [p, to - 1] {
                    if let Some((c0, c1)) = be.compressed_cluster(key, e) {
                        spans.push((c0, c1.min(stored_pages)));
                    }
                }
                let r = Request {
                    time: now,
                    op: Op::Read,
                    offset: p * PAGE,
                    len: (to * PAGE).min(stored.unwrap_or(0)) - p * PAGE,
                    content: 0,
                    file: req.file,
                    attrs: req.attrs,
                    placement: None,
                };
                let d = be.submit(stream, &r, None, now)?;
                done = done.max(d.done);
                failed |= d.failed;
                self.meta(key, stream, req, stored);
                for (a, b) in spans {
                    for pg in a..b {
                        if self.lookup(key, pg).is_none() {
                            if !(p..to).contains(&pg) {
                                self.counters.cluster_pages_inserted += 1;
                            }
                            self.insert(be, key, pg, 0, false, now)?;
                        }
                    }
                }
            }
            p = q;
        }
        Ok(FsDone {
            done: be.on_core(done, self.cpu_ns(p1 - p0)),
            failed,
        })
    }

    fn write(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        stream: usize,
        req: &Request,
        now: SimTime,
    ) -> Result<FsDone> {
        if req.len == 0 {
            return Ok(FsDone {
                done: self.call(be, now),
                failed: false,
            });
        }
        let stored = be.file_size(key);
        self.meta(key, stream, req, stored);
        // Write-back places the data by the policy of the stream that wrote it last.
        if let Some(m) = self.files.get_mut(&key) {
            m.stream = stream as u32;
        }
        let end = req.offset.saturating_add(req.len);
        let (p0, p1) = (req.offset / PAGE, end.div_ceil(PAGE));
        let mut ready = now;
        let mut failed = false;
        // Partial pages not in the cache but on the disk are read first.
        let stored_pages = stored.unwrap_or(0).div_ceil(PAGE);
        let mut edges = Vec::with_capacity(2);
        if !req.offset.is_multiple_of(PAGE) {
            edges.push(p0);
        }
        if !end.is_multiple_of(PAGE) && edges.last() != Some(&(p1 - 1)) {
            edges.push(p1 - 1);
        }
        for pg in edges {
            if pg < stored_pages && self.lookup(key, pg).is_none() {
                self.counters.fill_reads += 1;
                let r = Request {
                    time: now,
                    op: Op::Read,
                    offset: pg * PAGE,
                    len: ((pg + 1) * PAGE).min(stored.unwrap_or(0)) - pg * PAGE,
                    content: 0,
                    file: req.file,
                    attrs: req.attrs,
                    placement: None,
                };
                let d = be.submit(stream, &r, None, now)?;
                ready = ready.max(d.done);
                failed |= d.failed;
                self.insert(be, key, pg, 0, false, now)?;
            }
        }
        for pg in p0..p1 {
            let id = crate::content::nth_id(req.content, pg - p0);
            match self.lookup(key, pg) {
                Some(slot) if self.nodes[slot as usize].dirty => {
                    let lo = req.offset.max(pg * PAGE);
                    let hi = end.min((pg + 1) * PAGE);
                    self.counters.pages_coalesced += 1;
                    self.counters.bytes_coalesced += hi - lo;
                    self.nodes[slot as usize].id = id;
                }
                Some(slot) => {
                    self.unlink(slot);
                    let n = &mut self.nodes[slot as usize];
                    n.dirty = true;
                    n.id = id;
                    self.mark_dirty(key, pg, now);
                }
                None => self.insert(be, key, pg, id, true, now)?,
            }
        }
        self.counters.pages_written += p1 - p0;
        self.counters.dirty_pages_peak = self.counters.dirty_pages_peak.max(self.dirty);
        if let Some(m) = self.files.get_mut(&key) {
            m.size = m.size.max(end);
        }
        let mut done = be.on_core(ready, self.cpu_ns(p1 - p0));
        if req.attrs.dsync() {
            self.counters.dsync_writes += 1;
            let d = self.writeback(be, key, Some((p0, p1)), done, Why::Sync)?;
            done = done.max(d.done);
            failed |= d.failed || self.take_error(key);
        }
        self.background(be, done)?;
        let paced = self.balance_dirty_pages(be, p1 - p0, done)?;
        if paced > done {
            self.counters.dirty_throttle_pauses += 1;
            self.counters.dirty_throttle_ns += paced.0 - done.0;
        }
        Ok(FsDone {
            done: paced,
            failed,
        })
    }

    /// `O_DIRECT`: write back and drop the cached pages of the range, then the file system.
    fn direct(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        stream: usize,
        req: &Request,
        now: SimTime,
    ) -> Result<FsDone> {
        self.counters.direct_ios += 1;
        let (p0, p1) = (
            req.offset / PAGE,
            req.offset.saturating_add(req.len).div_ceil(PAGE),
        );
        let mut start = now;
        if self.files.contains_key(&key) {
            let d = self.writeback(be, key, Some((p0, p1)), now, Why::Sync)?;
            start = start.max(d.done);
            if req.op == Op::Write {
                self.drop_range(key, p0, p1);
            }
        }
        let d = be.submit(stream, req, None, start)?;
        if req.op == Op::Write {
            if let Some(m) = self.files.get_mut(&key) {
                m.size = m.size.max(req.offset.saturating_add(req.len));
            }
        }
        Ok(d)
    }

    fn fsync(&mut self, be: &mut dyn Backend, key: u64, now: SimTime) -> Result<FsDone> {
        self.counters.fsyncs += 1;
        let mut done = self.call(be, now);
        if !self.files.contains_key(&key) {
            return Ok(FsDone {
                done,
                failed: false,
            });
        }
        let d = self.writeback(be, key, None, now, Why::Sync)?;
        done = done.max(d.done);
        let failed = self.take_error(key);
        Ok(FsDone { done, failed })
    }

    /// Report (and clear) file `key`'s write-back error.
    fn take_error(&mut self, key: u64) -> bool {
        match self.files.get_mut(&key) {
            Some(m) if m.error => {
                m.error = false;
                self.counters.fsync_errors += 1;
                true
            }
            _ => false,
        }
    }

    /// Write-back I/O completed by `now`: its pages stop counting as dirty, and the
    /// bandwidth estimate takes them in (Linux's `wb_update_write_bandwidth`).
    fn retire(&mut self, now: SimTime) {
        while let Some(&std::cmp::Reverse((at, pages))) = self.inflight.peek() {
            if at > now {
                break;
            }
            self.inflight.pop();
            self.writeback_pages -= pages;
            self.bw_pages += pages;
        }
        let elapsed = now.0.saturating_sub(self.bw_since.0);
        if elapsed >= BW_INTERVAL_NS {
            let sample = self.bw_pages as f64 * 1e9 / elapsed as f64;
            let e = elapsed.min(BW_PERIOD_NS) as f64;
            let period = BW_PERIOD_NS as f64;
            self.write_bw = (self.write_bw * (period - e) + sample * e) / period;
            self.bw_since = now;
            self.bw_pages = 0;
        }
    }

    /// Linux's IO-less `balance_dirty_pages` after a write that dirtied `pages` pages and
    /// returned at `now`: when the writer may go on.
    fn balance_dirty_pages(
        &mut self,
        be: &mut dyn Backend,
        pages: u64,
        now: SimTime,
    ) -> Result<SimTime> {
        let limit = self.hard_pages as f64;
        let freerun = (self.bg_pages as f64 + limit) / 2.0;
        let setpoint = (freerun + limit) / 2.0;
        let mut at = now;
        loop {
            self.retire(at);
            let nr = (self.dirty + self.writeback_pages) as f64;
            if nr <= freerun {
                return Ok(at);
            }
            if nr < limit {
                let x = (setpoint - nr) / (limit - setpoint);
                let pos_ratio = (1.0 + x * x * x).clamp(0.0, 2.0);
                let rate = (self.write_bw * pos_ratio).max(1.0);
                let pause = (pages as f64 / rate * 1e9).min(MAX_PAUSE_NS as f64) as u64;
                return Ok(SimTime(at.0.saturating_add(pause)));
            }
            // At the limit: start write-back if nothing is in flight to wait for, then
            // wait for it in pauses of at most MAX_PAUSE.
            if self.inflight.is_empty() {
                let before = self.dirty;
                self.background(be, at)?;
                if self.dirty == before && self.inflight.is_empty() {
                    // Nothing can be written back (every dirty page's I/O completed at once
                    // or failed): no progress to wait for.
                    return Ok(at);
                }
                continue;
            }
            let next = self.inflight.peek().map_or(at.0, |r| r.0 .0 .0);
            at = SimTime(next.min(at.0.saturating_add(MAX_PAUSE_NS)).max(at.0 + 1));
        }
    }

    /// Background writeback of the oldest dirty files while above the background threshold.
    fn background(&mut self, be: &mut dyn Backend, now: SimTime) -> Result<()> {
        while self.dirty > self.bg_pages {
            let Some(&(_, k)) = self.order.first() else {
                break;
            };
            self.counters.background_writebacks += 1;
            self.writeback(be, k, None, now, Why::Background)?;
        }
        Ok(())
    }

    /// Write back the dirty pages of file `key` (in `range` of pages, or all) at `now`, in
    /// runs of consecutive pages; returns when they (and the file's earlier write-back) are
    /// on the device.
    fn writeback(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        range: Option<(u64, u64)>,
        now: SimTime,
        why: Why,
    ) -> Result<FsDone> {
        let Some(m) = self.files.get(&key) else {
            return Ok(FsDone {
                done: now,
                failed: false,
            });
        };
        let (r0, r1) = range.unwrap_or((0, u64::MAX));
        let pages: Vec<u64> = m.dirty.range(r0..r1).copied().collect();
        let (stream, file, attrs, size) = (m.stream as usize, m.file, m.attrs, m.size);
        let mut done = if why == Why::Sync {
            now.max(m.wb_done)
        } else {
            now
        };
        let mut failed = false;
        let mut i = 0;
        while i < pages.len() {
            let mut j = i + 1;
            while j < pages.len() && pages[j] == pages[j - 1] + 1 {
                j += 1;
            }
            let (a, b) = (pages[i], pages[j - 1] + 1);
            let ids: Vec<u64> = pages[i..j]
                .iter()
                .map(|&p| self.nodes[self.lookup(key, p).expect("dirty page cached") as usize].id)
                .collect();
            let req = Request {
                time: now,
                op: Op::Write,
                offset: a * PAGE,
                len: (b * PAGE).min(size.max(a * PAGE + 1)) - a * PAGE,
                content: ids[0],
                file,
                attrs,
                placement: None,
            };
            let d = be.submit(stream, &req, Some(&ids), now)?;
            self.counters.writeback_ios += 1;
            self.counters.pages_written_back += b - a;
            // Under write-back until the I/O completes (Linux's NR_WRITEBACK).
            if d.done > now {
                self.inflight.push(std::cmp::Reverse((d.done, b - a)));
                self.writeback_pages += b - a;
            } else {
                self.bw_pages += b - a;
            }
            done = done.max(d.done);
            if d.failed {
                failed = true;
                self.counters.writeback_errors += 1;
            }
            for p in a..b {
                let slot = self.lookup(key, p).expect("dirty page cached");
                self.nodes[slot as usize].dirty = false;
                self.push_front(slot);
            }
            i = j;
        }
        self.dirty -= pages.len() as u64;
        let m = self.files.get_mut(&key).expect("file checked above");
        for p in &pages {
            m.dirty.remove(p);
        }
        m.wb_done = m.wb_done.max(done);
        m.error |= failed;
        if m.dirty.is_empty() {
            if let Some(at) = m.dirtied_at.take() {
                self.order.remove(&(at, key));
            }
        }
        Ok(FsDone { done, failed })
    }

    fn meta(&mut self, key: u64, stream: usize, req: &Request, stored: Option<u64>) {
        self.files.entry(key).or_insert_with(|| FileMeta {
            stream: stream as u32,
            file: req.file,
            attrs: req.attrs.file_only(),
            size: stored.unwrap_or(0),
            pages: BTreeMap::new(),
            dirty: BTreeSet::new(),
            dirtied_at: None,
            wb_done: SimTime::ZERO,
            error: false,
        });
    }

    fn lookup(&self, key: u64, page: u64) -> Option<u32> {
        self.files.get(&key)?.pages.get(&page).copied()
    }

    fn mark_dirty(&mut self, key: u64, page: u64, now: SimTime) {
        let m = self.files.get_mut(&key).expect("file of a cached page");
        m.dirty.insert(page);
        self.dirty += 1;
        if m.dirtied_at.is_none() {
            m.dirtied_at = Some(now);
            self.order.insert((now, key));
        }
    }

    /// Insert page `page` of file `key` (whose meta exists), evicting the least recently
    /// used clean page when full (writing back the oldest dirty file when none is clean).
    fn insert(
        &mut self,
        be: &mut dyn Backend,
        key: u64,
        page: u64,
        id: u64,
        dirty: bool,
        now: SimTime,
    ) -> Result<()> {
        while self.pages >= self.cap {
            if self.tail == NIL {
                let Some(&(_, k)) = self.order.first() else {
                    break;
                };
                self.counters.throttled_writebacks += 1;
                self.writeback(be, k, None, now, Why::Throttled)?;
                continue;
            }
            let slot = self.tail;
            let n = self.nodes[slot as usize];
            self.unlink(slot);
            self.release(n.key, n.page, slot);
            self.counters.evictions += 1;
        }
        let node = Node {
            key,
            page,
            prev: NIL,
            next: NIL,
            id,
            dirty,
        };
        let slot = match self.free.pop() {
            Some(s) => {
                self.nodes[s as usize] = node;
                s
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.files
            .get_mut(&key)
            .expect("meta before insert")
            .pages
            .insert(page, slot);
        self.pages += 1;
        if dirty {
            self.mark_dirty(key, page, now);
        } else {
            self.push_front(slot);
        }
        Ok(())
    }

    /// Forget the cached pages `[p0, p1)` of file `key` (dirty ones unwritten).
    fn drop_range(&mut self, key: u64, p0: u64, p1: u64) {
        let Some(m) = self.files.get(&key) else {
            return;
        };
        if p0 >= p1 {
            return;
        }
        let victims: Vec<(u64, u32)> = m.pages.range(p0..p1).map(|(&p, &s)| (p, s)).collect();
        for (p, slot) in victims {
            if self.nodes[slot as usize].dirty {
                self.counters.dirty_pages_dropped += 1;
                self.dirty -= 1;
                self.files.get_mut(&key).expect("file").dirty.remove(&p);
            } else {
                self.unlink(slot);
            }
            self.release(key, p, slot);
        }
        let m = self.files.get_mut(&key).expect("file");
        if m.dirty.is_empty() {
            if let Some(at) = m.dirtied_at.take() {
                self.order.remove(&(at, key));
            }
        }
    }

    fn release(&mut self, key: u64, page: u64, slot: u32) {
        if let Some(m) = self.files.get_mut(&key) {
            m.pages.remove(&page);
        }
        self.free.push(slot);
        self.pages -= 1;
    }

    fn touch(&mut self, slot: u32) {
        if !self.nodes[slot as usize].dirty {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    fn push_front(&mut self, slot: u32) {
        let old = self.head;
        {
            let n = &mut self.nodes[slot as usize];
            n.prev = NIL;
            n.next = old;
        }
        if old != NIL {
            self.nodes[old as usize].prev = slot;
        } else {
            self.tail = slot;
        }
        self.head = slot;
    }

    /// Take a clean page out of the LRU list.
    fn unlink(&mut self, slot: u32) {
        let (prev, next) = {
            let n = &self.nodes[slot as usize];
            (n.prev, n.next)
        };
        if prev != NIL {
            self.nodes[prev as usize].next = next;
        } else if self.head == slot {
            self.head = next;
        }
        if next != NIL {
            self.nodes[next as usize].prev = prev;
        } else if self.tail == slot {
            self.tail = prev;
        }
        let n = &mut self.nodes[slot as usize];
        n.prev = NIL;
        n.next = NIL;
    }
}

#[cfg(test)]
mod tests;
