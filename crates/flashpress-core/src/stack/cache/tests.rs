//! The page cache against a recording file system: hit ratios of known access patterns,
//! coalescing, expiry, fsync durability and error reporting, computed independently here.

use super::*;
use crate::config::CacheConfig;
use crate::error::Result;
use std::collections::BTreeMap;

/// Device time of every backend request (ns).
const IO_NS: u64 = 100_000;

#[derive(Debug, Clone)]
struct Call {
    op: Op,
    file: u32,
    offset: u64,
    len: u64,
    ids: Vec<u64>,
    at: SimTime,
    done: SimTime,
}

/// A file system that stores what it is given and records every request.
#[derive(Default)]
struct Rec {
    /// File -> (size, content id per page).
    files: BTreeMap<u32, (u64, BTreeMap<u64, u64>)>,
    calls: Vec<Call>,
    fail_writes: bool,
    /// Pages per compressed cluster (None: nothing compressed).
    cluster: Option<u64>,
    /// A serial device: each written page takes this long, one request after another
    /// (None: every request takes `IO_NS`, all in parallel).
    page_ns: Option<u64>,
    busy: SimTime,
}

impl Backend for Rec {
    fn submit(
        &mut self,
        _stream: usize,
        req: &Request,
        ids: Option<&[u64]>,
        now: SimTime,
    ) -> Result<FsDone> {
        let done = match self.page_ns {
            Some(ns) if req.op == Op::Write => {
                let start = now.max(self.busy);
                self.busy = start + req.len.div_ceil(PAGE) * ns;
                self.busy
            }
            _ => now + IO_NS,
        };
        let mut got = vec![];
        let failed = req.op == Op::Write && self.fail_writes;
        if req.op == Op::Write && !failed {
            let f = self.files.entry(req.file).or_default();
            f.0 = f.0.max(req.offset + req.len);
            let p0 = req.offset / PAGE;
            for p in p0..(req.offset + req.len).div_ceil(PAGE) {
                let id = ids.map_or(req.content + (p - p0), |v| v[(p - p0) as usize]);
                f.1.insert(p, id);
                got.push(id);
            }
        }
        if req.op == Op::Delete {
            self.files.remove(&req.file);
        }
        self.calls.push(Call {
            op: req.op,
            file: req.file,
            offset: req.offset,
            len: req.len,
            ids: got,
            at: now,
            done,
        });
        Ok(FsDone { done, failed })
    }

    fn file_size(&self, key: u64) -> Option<u64> {
        self.files.get(&(key as u32)).map(|f| f.0)
    }

    fn compressed_cluster(&self, key: u64, page: u64) -> Option<(u64, u64)> {
        let cb = self.cluster?;
        self.files.get(&(key as u32))?;
        Some((page / cb * cb, page / cb * cb + cb))
    }

    fn on_core(&mut self, at: SimTime, ns: u64) -> SimTime {
        // as many cores as callers (the core limit is `Cpu`'s, tested there)
        at + ns
    }
}

impl Rec {
    fn count(&self, op: Op) -> usize {
        self.calls.iter().filter(|c| c.op == op).count()
    }
}

fn cfg(capacity_pages: u64) -> CacheConfig {
    // Capacities in whole MiB: 256 pages each.
    assert_eq!(capacity_pages % 256, 0);
    CacheConfig {
        capacity_mib: capacity_pages / 256,
        ..CacheConfig::default()
    }
}

fn req(op: Op, file: u32, offset: u64, len: u64, content: u64, flags: u8) -> Request {
    Request {
        time: SimTime::ZERO,
        op,
        offset,
        len,
        content,
        file,
        attrs: FileAttrs(flags),
        placement: None,
    }
}

fn submit(c: &mut PageCache, be: &mut Rec, r: Request, t: u64) -> FsDone {
    c.submit(be, r.file as u64, 0, &r, SimTime(t)).unwrap()
}

/// A file of `pages` pages on the file system (written directly, not through the cache).
fn stored_file(be: &mut Rec, file: u32, pages: u64) {
    be.submit(
        0,
        &req(Op::Write, file, 0, pages * PAGE, 1000, 0),
        None,
        SimTime::ZERO,
    )
    .unwrap();
    be.calls.clear();
}

#[test]
fn cyclic_scan_hits_nothing_above_capacity_and_everything_after_the_first_pass_below() {
    let cap = 512;
    for (n, passes) in [(cap + 1, 4u64), (2 * cap, 3), (cap, 4), (cap / 2, 5)] {
        let mut be = Rec::default();
        stored_file(&mut be, 1, n);
        let mut c = PageCache::new(&cfg(cap)).unwrap();
        for pass in 0..passes {
            for p in 0..n {
                submit(
                    &mut c,
                    &mut be,
                    req(Op::Read, 1, p * PAGE, PAGE, 0, 0),
                    pass * 1000 + p,
                );
            }
        }
        let k = c.counters();
        // LRU under a cyclic scan: a page is evicted just before it is needed again when
        // the loop is longer than the cache; all of it stays when it fits.
        let (hits, misses) = if n > cap {
            (0, passes * n)
        } else {
            ((passes - 1) * n, n)
        };
        assert_eq!((k.read_hits, k.read_misses), (hits, misses), "n = {n}");
        assert_eq!(be.count(Op::Read) as u64, misses);
        assert!(c.pages() <= cap);
    }
}

#[test]
fn small_appends_to_one_page_coalesce_into_one_write_back() {
    for (k, s) in [(8u64, 512u64), (3, 1000), (1, 4096)] {
        let mut be = Rec::default();
        let mut c = PageCache::new(&cfg(1024)).unwrap();
        for i in 0..k {
            submit(
                &mut c,
                &mut be,
                req(Op::Write, 7, i * s, s, 50 + i, 0),
                i * 10,
            );
        }
        assert_eq!(be.calls.len(), 0, "buffered writes do no I/O");
        let d = submit(&mut c, &mut be, req(Op::Sync, 7, 0, 0, 0, 0), 1_000);
        let k2 = c.counters();
        assert_eq!(k2.pages_written, k);
        assert_eq!(k2.pages_coalesced, k - 1);
        assert_eq!(k2.bytes_coalesced, (k - 1) * s);
        assert_eq!(k2.pages_written_back, 1);
        assert_eq!(be.count(Op::Write), 1);
        let w = &be.calls[0];
        // One write of the file's bytes so far, holding the last append's content.
        assert_eq!(
            (w.offset, w.len, w.ids.clone()),
            (0, k * s, vec![50 + k - 1])
        );
        assert!(d.done >= w.done && !d.failed);
    }
}

#[test]
fn dirty_data_is_written_back_when_it_expires() {
    let mut be = Rec::default();
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    let s = 1_000_000_000u64;
    submit(&mut c, &mut be, req(Op::Write, 3, 0, 3 * PAGE, 9, 0), s / 2);
    // The flusher wakes every 5 s (dirty_writeback_centisecs = 500); the file expires 30 s
    // (dirty_expire_centisecs = 3000) after it was dirtied, so the first wake-up at or after
    // 30.5 s writes it: the one at 35 s.
    for t in 1..=40 {
        c.on_time(&mut be, SimTime(t * s)).unwrap();
        let written = be.count(Op::Write);
        assert_eq!(written, usize::from(t >= 35), "at {t} s");
    }
    assert_eq!(be.calls[0].at, SimTime(35 * s));
    assert_eq!(c.dirty_pages(), 0);
    assert_eq!(c.counters().expired_writebacks, 1);
    // Clean pages stay cached: a read is a hit.
    submit(&mut c, &mut be, req(Op::Read, 3, 0, 3 * PAGE, 0, 0), 41 * s);
    assert_eq!(c.counters().read_hits, 3);
    assert_eq!(be.count(Op::Read), 0);
}

#[test]
fn fsync_makes_every_dirty_page_of_the_file_durable_before_it_returns() {
    let mut be = Rec::default();
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    // Scattered writes to file 1 (three runs of pages), one to file 2.
    let writes = [(0u64, 2u64, 100u64), (10, 1, 200), (5, 3, 300), (6, 1, 400)];
    for (i, &(p, n, id)) in writes.iter().enumerate() {
        submit(
            &mut c,
            &mut be,
            req(Op::Write, 1, p * PAGE, n * PAGE, id, 0),
            i as u64,
        );
    }
    submit(&mut c, &mut be, req(Op::Write, 2, 0, PAGE, 900, 0), 10);
    let d = submit(&mut c, &mut be, req(Op::Sync, 1, 0, 0, 0, 0), 100);
    // Independent expectation: the last id written to each page.
    let mut want: BTreeMap<u64, u64> = BTreeMap::new();
    for &(p, n, id) in &writes {
        for j in 0..n {
            want.insert(p + j, id + j);
        }
    }
    assert_eq!(be.files[&1].1, want);
    assert!(
        !be.files.contains_key(&2),
        "fsync of file 1 leaves file 2 dirty"
    );
    assert_eq!(c.dirty_pages_of(1), 0);
    assert_eq!(c.dirty_pages_of(2), 1);
    let last = be.calls.iter().map(|x| x.done).max().unwrap();
    assert!(
        d.done >= last,
        "fsync returned at {:?} before {:?}",
        d.done,
        last
    );
    // Runs of consecutive pages: [0, 2), [5, 8), [10, 11).
    assert_eq!(be.count(Op::Write), 3);
    assert_eq!(c.counters().fsyncs, 1);
}

#[test]
fn a_failed_write_back_fails_the_next_fsync_once() {
    let mut be = Rec {
        fail_writes: true,
        ..Rec::default()
    };
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    let s = 1_000_000_000u64;
    submit(&mut c, &mut be, req(Op::Write, 4, 0, PAGE, 1, 0), 0);
    // The flusher's write-back fails (nobody waits for it) ...
    c.on_time(&mut be, SimTime(35 * s)).unwrap();
    assert_eq!(c.counters().writeback_errors, 1);
    // ... and the error surfaces on the file's next fsync, once (errseq semantics).
    let d1 = submit(&mut c, &mut be, req(Op::Sync, 4, 0, 0, 0, 0), 36 * s);
    let d2 = submit(&mut c, &mut be, req(Op::Sync, 4, 0, 0, 0, 0), 37 * s);
    assert!(d1.failed && !d2.failed);
    assert_eq!(c.counters().fsync_errors, 1);
}

#[test]
fn a_compressed_cluster_is_cached_whole_on_a_miss() {
    let mut be = Rec {
        cluster: Some(4),
        ..Rec::default()
    };
    stored_file(&mut be, 5, 8);
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    submit(&mut c, &mut be, req(Op::Read, 5, PAGE, PAGE, 0, 0), 0);
    assert_eq!(be.count(Op::Read), 1);
    assert_eq!(c.counters().cluster_pages_inserted, 3);
    // The rest of the cluster is a hit without a file-system read (no decompression).
    submit(&mut c, &mut be, req(Op::Read, 5, 0, 4 * PAGE, 0, 0), 10);
    assert_eq!(be.count(Op::Read), 1);
    assert_eq!(c.counters().read_hits, 4);
    // The next cluster is not cached.
    submit(&mut c, &mut be, req(Op::Read, 5, 4 * PAGE, PAGE, 0, 0), 20);
    assert_eq!(be.count(Op::Read), 2);
}

#[test]
fn dsync_writes_and_direct_io_reach_the_file_system_before_returning() {
    let mut be = Rec::default();
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    let d = submit(
        &mut c,
        &mut be,
        req(Op::Write, 6, 0, 2 * PAGE, 1, FileAttrs::DSYNC),
        0,
    );
    assert_eq!(be.count(Op::Write), 1);
    assert!(d.done >= be.calls[0].done);
    assert_eq!(c.dirty_pages(), 0);
    // A buffered write, then a direct read of it: the dirty page is written back first.
    submit(&mut c, &mut be, req(Op::Write, 6, 2 * PAGE, PAGE, 5, 0), 10);
    submit(
        &mut c,
        &mut be,
        req(Op::Read, 6, 0, 3 * PAGE, 0, FileAttrs::DIRECT),
        20,
    );
    assert_eq!(be.count(Op::Write), 2);
    assert_eq!(be.count(Op::Read), 1);
    assert_eq!(be.files[&6].1.get(&2), Some(&5));
    // A direct write bypasses the cache.
    submit(
        &mut c,
        &mut be,
        req(Op::Write, 6, 0, PAGE, 7, FileAttrs::DIRECT),
        30,
    );
    assert_eq!(be.count(Op::Write), 3);
    assert_eq!(c.counters().direct_ios, 2);
}

#[test]
fn dirty_data_above_the_background_ratio_is_written_back_at_once() {
    let mut be = Rec::default();
    // 1024 pages: background 10% = 102 pages, dirty_ratio 20% = 204 pages.
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    for f in 0..10u32 {
        submit(
            &mut c,
            &mut be,
            req(Op::Write, f, 0, 10 * PAGE, 1, 0),
            f as u64,
        );
    }
    assert_eq!(
        be.count(Op::Write),
        0,
        "100 dirty pages are below the background ratio"
    );
    submit(&mut c, &mut be, req(Op::Write, 10, 0, 10 * PAGE, 1, 0), 20);
    // 110 > 102: the oldest file (file 0) goes first, and that is enough.
    assert_eq!(be.count(Op::Write), 1);
    assert_eq!(be.calls[0].file, 0);
    assert_eq!(c.dirty_pages(), 100);
}

#[test]
fn a_partial_write_of_an_uncached_page_reads_it_first() {
    let mut be = Rec::default();
    stored_file(&mut be, 8, 2);
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    // 100 bytes in the middle of page 1: read it, then dirty it.
    submit(&mut c, &mut be, req(Op::Write, 8, PAGE + 10, 100, 3, 0), 0);
    assert_eq!(be.count(Op::Read), 1);
    assert_eq!(c.counters().fill_reads, 1);
    // A whole-page write needs no read.
    submit(&mut c, &mut be, req(Op::Write, 8, 0, PAGE, 4, 0), 10);
    assert_eq!(be.count(Op::Read), 1);
}

/// Linux's control line, written out independently: the pause after dirtying `pages` pages at
/// `nr` dirty + write-back pages, with the limits of a 1024-page cache (background 10% = 102
/// pages, dirty_ratio 20% = 204) and the initial 100 MB/s bandwidth.
fn linux_pause_ns(nr: f64, pages: f64) -> f64 {
    let (bg, limit) = (102.0, 204.0);
    let freerun = (bg + limit) / 2.0;
    if nr <= freerun {
        return 0.0;
    }
    let setpoint = (freerun + limit) / 2.0;
    let pos = 1.0 + ((setpoint - nr) / (limit - setpoint)).powi(3);
    let bw = 100.0 * 1024.0 * 1024.0 / 4096.0;
    (pages / (bw * pos) * 1e9).min(2e8)
}

#[test]
fn writers_run_free_below_freerun_and_are_paced_by_the_control_line_above_it() {
    // A device so slow that nothing written back completes during the test: every page
    // written stays dirty or under write-back, so the count is known.
    let mut be = Rec {
        page_ns: Some(10_000_000_000),
        ..Rec::default()
    };
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    let cpu = c.cpu_ns(1);
    let mut t = 0;
    for i in 0..200u64 {
        let d = submit(&mut c, &mut be, req(Op::Write, 1, i * PAGE, PAGE, 1, 0), t);
        let nr = (i + 1) as f64;
        let want = linux_pause_ns(nr, 1.0);
        let got = (d.done.0 - t - cpu) as f64;
        assert!(
            (got - want).abs() <= 1.0,
            "page {i}: paused {got} ns, Linux's control line says {want}"
        );
        assert_eq!(c.dirty_pages() + c.writeback_pages(), i + 1);
        t = d.done.0;
    }
    // Free until 153 pages (freerun), paced from the 154th.
    assert_eq!(c.counters().dirty_throttle_pauses, 200 - 153);
}

#[test]
fn a_sustained_writer_through_the_cache_runs_at_the_devices_pace() {
    // 5,000 pages through a 1024-page cache onto a device that writes a page in 100 us
    // (40 MB/s): in memory the writes would take 5,000 x ~1.5 us; bounded by the device
    // they take about 5,000 x 100 us, less the dirty data left in the cache at the end.
    let page_ns = 100_000;
    let mut be = Rec {
        page_ns: Some(page_ns),
        ..Rec::default()
    };
    let mut c = PageCache::new(&cfg(1024)).unwrap();
    let n = 5_000u64;
    let mut t = 0;
    let mut worst = 0;
    for i in 0..n {
        let d = submit(&mut c, &mut be, req(Op::Write, 1, i * PAGE, PAGE, 1, 0), t);
        t = d.done.0;
        worst = worst.max(c.dirty_pages() + c.writeback_pages());
    }
    // Never more than the limit (204 pages) plus the write that crossed it.
    assert!(worst <= 205, "dirty + write-back peaked at {worst} pages");
    // The device wrote everything but what is still dirty or in flight (<= 205 pages).
    let device_bound = (n - 205) * page_ns;
    assert!(
        t >= device_bound,
        "the writer finished at {t} ns, before the device could have written {} pages ({device_bound} ns)",
        n - 205
    );
    assert!(
        t <= n * page_ns + 2 * MAX_PAUSE_NS,
        "the writer finished at {t} ns, far behind the device"
    );
    assert!(c.counters().dirty_throttle_ns > 0);
    // The bandwidth estimate moves from the initial 100 MB/s toward the device's 40.96 MB/s
    // (it averages over 4 s, and the run is 0.5 s long: two 200 ms samples).
    let dev = PAGE as f64 * 1e9 / page_ns as f64;
    assert!(c.write_bandwidth() < 100.0 * 1024.0 * 1024.0);
    assert!(
        c.write_bandwidth() > dev,
        "{} vs {dev}",
        c.write_bandwidth()
    );
}
