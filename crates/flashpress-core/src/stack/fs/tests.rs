use super::*;
use crate::config::{ContentConfig, ContentMode, PolicyKind};
use crate::error::Error;
use crate::stack::bio::{BioDone, Smart, SpaceReport};
use crate::workload::{ContentHints, FileType};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

const UNMAPPED: u64 = u64::MAX;

/// Test double of the device: fixed latencies, an LBA -> (content id, flags) map.
struct TestDisk {
    map: Vec<u64>,
    flags: Vec<BioFlags>,
    writes: u64,
}

impl TestDisk {
    fn new(blocks: u64) -> TestDisk {
        TestDisk {
            map: vec![UNMAPPED; blocks as usize],
            flags: vec![BioFlags::NONE; blocks as usize],
            writes: 0,
        }
    }
}

impl Disk for TestDisk {
    fn submit(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        _content: Option<&mut ContentModel>,
    ) -> Result<BioDone> {
        let (a, n) = (bio.lba as usize, bio.blocks as usize);
        if n == 0 || a + n > self.map.len() {
            return Err(Error::State(format!("bio out of range: {a}+{n}")));
        }
        let mut d = BioDone {
            done: now,
            ..BioDone::default()
        };
        match bio.op {
            BioOp::Write => {
                if bio.content.len() != n {
                    return Err(Error::State("content ids do not match blocks".into()));
                }
                self.map[a..a + n].copy_from_slice(bio.content);
                self.flags[a..a + n].fill(bio.flags);
                self.writes += n as u64;
                d.done = now + 100_000;
            }
            BioOp::Read => {
                if self.map[a..a + n].contains(&UNMAPPED) {
                    return Err(Error::State(format!("read of unmapped block in {a}+{n}")));
                }
                let dev = self.flags[a..a + n]
                    .iter()
                    .filter(|f| **f == BioFlags::NONE)
                    .count() as u32;
                d.device_compressed_blocks = dev;
                if bio.flags.has(BioFlags::HOST_DECOMPRESS) {
                    d.host_decompress_bytes = dev as u64 * BLOCK;
                }
                d.done = now + 50_000;
            }
            BioOp::Trim => {
                self.map[a..a + n].fill(UNMAPPED);
                d.done = now + 10_000;
            }
        }
        Ok(d)
    }
    fn logical_blocks(&self) -> u64 {
        self.map.len() as u64
    }
    fn space(&self) -> SpaceReport {
        SpaceReport::default()
    }
    fn smart(&self) -> Smart {
        Smart::default()
    }
    fn advance(&mut self, _now: SimTime) {}
}

fn stack(segs: u64, seg_blocks: u32, rs: f64, ssr: f64) -> StackConfig {
    let mut c = StackConfig::default();
    c.fs.partition_bytes = segs * seg_blocks as u64 * BLOCK;
    c.fs.segment_blocks = seg_blocks;
    c.fs.rs_ratio = rs;
    c.fs.ssr_ratio = Some(ssr);
    c
}

/// Device blocks a partition of `p` blocks with `extra` extra reserved blocks needs, the
/// checkpoint, SIT and NAT areas included.
fn disk_blocks(st: &StackConfig, p: u64, extra: u64) -> u64 {
    let s = st.fs.segment_blocks as u64;
    p + extra + node::meta_blocks(p + extra / s * s, (p + extra) / s)
}

fn content_model() -> ContentModel {
    let cc = ContentConfig {
        mode: ContentMode::Model,
        ..ContentConfig::default()
    };
    ContentModel::from_content_config(&cc, 7, &vec![ContentHints::default(); 3], "test")
        .unwrap()
        .unwrap()
}

/// Expected content of a file: per block, the last written id.
type Expect = HashMap<u64, Vec<Option<u64>>>;

struct H {
    st: StackConfig,
    fs: Fs,
    disk: TestDisk,
    cpu: Cpu,
    content: Option<ContentModel>,
    policy: Policy,
    expect: Expect,
}

impl H {
    fn new(st: StackConfig, extra_blocks: u64, with_content: bool, kind: PolicyKind) -> H {
        let p = st.fs.partition_bytes / BLOCK;
        let mut content = with_content.then(content_model);
        let d = disk_blocks(&st, p, extra_blocks);
        let fs = Fs::new(&st, d, extra_blocks, content.as_mut()).unwrap();
        H {
            disk: TestDisk::new(d),
            cpu: Cpu::new(4, 1),
            policy: Policy::new(kind, &st),
            st,
            fs,
            content,
            expect: HashMap::new(),
        }
    }

    /// Run `f` on the file system with a context over the harness's disk, cores, content
    /// model and policy.
    fn with_fs<R>(&mut self, f: impl FnOnce(&mut Fs, &mut FsCtx<'_>) -> R) -> R {
        let mut ctx = FsCtx {
            disk: &mut self.disk,
            cpu: &mut self.cpu,
            content: self.content.as_mut(),
            policy: &self.policy,
        };
        f(&mut self.fs, &mut ctx)
    }

    fn submit(&mut self, stream: usize, req: &Request) -> FsDone {
        let d = self
            .with_fs(|fs, ctx| fs.submit(ctx, stream, req, req.time))
            .unwrap();
        assert!(d.done >= req.time);
        let key = if req.file == NO_FILE {
            NS_STREAM | stream as u64
        } else {
            NS_FILE | req.file as u64
        };
        if d.failed {
            return d;
        }
        match req.op {
            Op::Write => {
                let b0 = req.offset / BLOCK;
                let b1 = (req.offset + req.len).div_ceil(BLOCK);
                let v = self.expect.entry(key).or_default();
                if v.len() < b1 as usize {
                    v.resize(b1 as usize, None);
                }
                for b in b0..b1 {
                    v[b as usize] = Some(req.content.wrapping_add(b - b0));
                }
            }
            Op::Trim => {
                if let Some(v) = self.expect.get_mut(&key) {
                    let b0 = req.offset.div_ceil(BLOCK) as usize;
                    let b1 = (((req.offset + req.len) / BLOCK) as usize).min(v.len());
                    for x in v.iter_mut().take(b1).skip(b0) {
                        *x = None;
                    }
                }
            }
            Op::Delete => {
                self.expect.remove(&key);
            }
            Op::Read | Op::Sync => {}
            Op::Append
            | Op::ZoneOpen
            | Op::ZoneClose
            | Op::ZoneFinish
            | Op::ZoneReset
            | Op::RuhUpdate => {}
        }
        d
    }

    fn write(&mut self, stream: usize, file: u32, block: u64, n: u64, id: u64, t: u64) -> FsDone {
        self.submit(
            stream,
            &Request {
                time: SimTime(t),
                op: Op::Write,
                offset: block * BLOCK,
                len: n * BLOCK,
                content: id,
                file,
                attrs: FileAttrs::default(),
                placement: None,
            },
        )
    }

    /// Every expected block is where the file system says, with the right content on the
    /// device; the metadata invariants hold.
    fn verify(&self) {
        self.fs.check_invariants().unwrap();
        let cb = self.fs.cb as usize;
        for (key, v) in &self.expect {
            let fi = self.fs.by_key[key];
            let f = &self.fs.files[fi as usize];
            for (i, e) in v.iter().enumerate() {
                let has = i < f.kind.len() && f.kind[i] & DATA != 0;
                assert_eq!(has, e.is_some(), "file {key:x} block {i}: data presence");
                let Some(id) = *e else { continue };
                assert_eq!(f.content[i], id, "file {key:x} block {i}: content id");
                let c0 = i / cb * cb;
                if f.compressed(c0) {
                    let sid = f.stored_id(c0);
                    for j in c0 + 1..=c0 + f.stored(c0, cb) {
                        assert_eq!(self.disk.map[f.addr[j] as usize], sid);
                        assert_eq!(
                            self.disk.flags[f.addr[j] as usize],
                            BioFlags::HOST_COMPRESSED
                        );
                    }
                } else {
                    assert_eq!(self.disk.map[f.addr[i] as usize], id, "block {i} on disk");
                }
            }
        }
    }

    /// Random 4 KiB overwrites of the first `blocks` blocks of stream 0's file.
    fn random_overwrites(&mut self, blocks: u64, n: u64, seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        for k in 0..n {
            let b = rng.random_range(0..blocks);
            let d = self.write(0, NO_FILE, b, 1, (1 << 40) + k, k * 1000);
            assert!(!d.failed);
        }
    }
}

#[test]
fn written_data_reads_back_after_cleaning_ssr_rmw_and_deletes() {
    let mut st = stack(32, 16, 0.1, 0.2);
    // checkpoints every 5 ms: node blocks are written, cleaned and moved too
    st.fs.meta.cp_interval_ms = 5.0;
    let mut h = H::new(st, 0, true, PolicyKind::WaltzS);
    let mut rng = Pcg64::seed_from_u64(1);
    let mut id: u64 = 1000;
    let temps = [60.0, 80.0, 90.0];
    for k in 0..6000u64 {
        if k % 97 == 0 {
            h.policy.on_smart(temps[rng.random_range(0..3)]);
        }
        let t = k * 10_000;
        let file = rng.random_range(0..6u32);
        let hot = [Hotness::Hot, Hotness::Warm, Hotness::Cold][file as usize % 3];
        let ty = if file == 5 {
            FileType::Media
        } else {
            FileType::Text
        };
        let attrs = FileAttrs::new(hot, ty);
        let r = rng.random_range(0..100);
        let req = if r < 45 {
            let off = rng.random_range(0..40 * BLOCK);
            let len = rng.random_range(1..12 * BLOCK);
            id += 100;
            Request {
                time: SimTime(t),
                op: Op::Write,
                offset: off,
                len,
                content: id,
                file,
                attrs,
                placement: None,
            }
        } else if r < 65 {
            let b = rng.random_range(0..60);
            id += 100;
            Request {
                time: SimTime(t),
                op: Op::Write,
                offset: b * BLOCK,
                len: rng.random_range(1..6) * BLOCK,
                content: id,
                file: NO_FILE,
                attrs,
                placement: None,
            }
        } else if r < 85 {
            Request {
                time: SimTime(t),
                op: Op::Read,
                offset: rng.random_range(0..40 * BLOCK),
                len: rng.random_range(1..16 * BLOCK),
                content: 0,
                file,
                attrs,
                placement: None,
            }
        } else if r < 95 {
            Request {
                time: SimTime(t),
                op: Op::Trim,
                offset: rng.random_range(0..40 * BLOCK),
                len: rng.random_range(1..8 * BLOCK),
                content: 0,
                file,
                attrs,
                placement: None,
            }
        } else {
            Request {
                time: SimTime(t),
                op: Op::Delete,
                offset: 0,
                len: 0,
                content: 0,
                file,
                attrs,
                placement: None,
            }
        };
        let stream = (file % 2) as usize;
        let d = h.submit(stream, &req);
        assert!(!d.failed, "request {k} {req:?} failed");
        if k % 500 == 0 {
            h.verify();
        }
    }
    h.verify();
    let c = h.fs.counters();
    assert!(c.cleaning_invocations > 0, "{c:?}");
    assert!(c.ssr_blocks > 0, "{c:?}");
    assert!(c.rmw_clusters > 0, "{c:?}");
    assert!(c.clusters_host_compressed > 0, "{c:?}");
    assert!(c.files_deleted > 0, "{c:?}");
    assert!(c.decompress_blocks_host > 0 && c.decompress_blocks_device > 0);
    assert!(c.compress_blocks_skipped > 0, "{c:?}");
    assert!(c.checkpoints >= 10 && c.node_blocks_written > 0, "{c:?}");
    assert_eq!(c.fs_blocks_written, h.disk.writes);
}

/// Blocks moved per cleaned segment, random 4 KiB overwrites with data at `u` of the
/// partition.
fn moved_per_segment(u: f64) -> f64 {
    let (segs, sb) = (128u64, 64u32);
    let mut h = H::new(stack(segs, sb, 0.05, 0.0), 0, false, PolicyKind::Baseline);
    let blocks = (u * (segs * sb as u64) as f64) as u64;
    for b in (0..blocks).step_by(64) {
        assert!(!h.write(0, NO_FILE, b, 64.min(blocks - b), b, 0).failed);
    }
    let c0 = h.fs.counters();
    h.random_overwrites(blocks, 4 * blocks, 9);
    h.verify();
    let c = h.fs.counters();
    let cleaned = c.cleaning_invocations - c0.cleaning_invocations;
    assert!(cleaned > 0);
    (c.cleaning_blocks_moved - c0.cleaning_blocks_moved) as f64 / cleaned as f64
}

#[test]
fn greedy_cleaning_cost_is_below_utilisation_and_grows_with_it() {
    let sb = 64.0;
    let m: Vec<f64> = [0.5, 0.7, 0.9]
        .iter()
        .map(|&u| moved_per_segment(u))
        .collect();
    // Greedy takes below-average segments: the data spread over the segments not kept free
    // (cleaning keeps F2FS's reserved segments free: 7 of 128 here, the overprovision).
    let held = 128.0 - 7.0;
    for (u, m) in [0.5, 0.7, 0.9].iter().zip(&m) {
        assert!(*m < u * sb * 128.0 / held, "u = {u}: {m} moved per segment");
    }
    assert!(m[0] < m[1] && m[1] < m[2], "{m:?}");
}

#[test]
fn host_compression_stores_the_compressed_size_and_rmw_recompresses() {
    // Codec time at the measured MB/s, whatever the ratio (the ratio's effect is
    // `codec::cost::generated_content_factor`, tested there and in test_stack.py).
    let mut st = stack(64, 64, 0.05, 0.0);
    st.cpu.ratio_speed = false;
    let mut h = H::new(st, 0, true, PolicyKind::F2fsc);
    let mut indep = content_model();
    let m = indep.add_measure(CodecKind::Zstd(3), 16384, "t").unwrap();
    let id0 = 5000;
    h.write(0, 3, 0, 32, id0, 0);
    let mut expect_blocks = 0u64;
    let mut compressed = 0;
    for c in 0..8u64 {
        let size = indep.unit_size(m, 0, id0 + 4 * c, 4);
        let stored = (size as u64).div_ceil(BLOCK);
        let f = &h.fs.files[h.fs.by_key[&(NS_FILE | 3)] as usize];
        if stored < 4 {
            compressed += 1;
            expect_blocks += stored;
            assert_eq!(f.stored(4 * c as usize, 4) as u64, stored);
        } else {
            expect_blocks += 4;
        }
    }
    let c = h.fs.counters();
    assert!(compressed > 0);
    assert_eq!(c.fs_blocks_written, expect_blocks);
    assert_eq!(c.clusters_host_compressed, compressed);
    assert_eq!(c.compress_blocks_host, 32);
    h.verify();
    // Partial update of a compressed cluster: read, decompress, recompress.
    let fi = h.fs.by_key[&(NS_FILE | 3)] as usize;
    let c0 = (0..8).find(|c| h.fs.files[fi].compressed(4 * c)).unwrap() * 4;
    let stored = h.fs.files[fi].stored(c0, 4) as u64;
    let (cpu0, cnt0) = (h.cpu.counters, h.fs.counters());
    let d = h.write(0, 3, c0 as u64 + 1, 1, 90_000, 1_000_000_000);
    assert!(!d.failed);
    let (cpu1, cnt1) = (h.cpu.counters, h.fs.counters());
    assert_eq!(cnt1.rmw_clusters - cnt0.rmw_clusters, 1);
    assert_eq!(cnt1.fs_blocks_read - cnt0.fs_blocks_read, stored);
    let cost = h.st.host_cost();
    let ov = (h.st.cpu.per_cluster_overhead_us * 1e3) as u64;
    assert_eq!(
        cpu1.decompress_busy_ns - cpu0.decompress_busy_ns,
        cost.decompress_ns(16384) + ov
    );
    assert_eq!(
        cpu1.compress_busy_ns - cpu0.compress_busy_ns,
        cost.compress_ns(16384) + ov
    );
    // the read takes 50 µs, then decompression, compression and the 100 µs write
    assert!(d.done.0 >= 1_000_000_000 + 150_000 + cost.decompress_ns(16384));
    h.verify();
    // A read of a compressed cluster decompresses it on the host.
    let r = Request {
        time: SimTime(2_000_000_000),
        op: Op::Read,
        offset: 0,
        len: 32 * BLOCK,
        content: 0,
        file: 3,
        attrs: FileAttrs::default(),
        placement: None,
    };
    let before = h.cpu.counters.decompress_tasks;
    assert!(!h.submit(0, &r).failed);
    assert!(h.cpu.counters.decompress_tasks - before >= compressed);
}

/// Cleaning copies per user block written: data at 85% of the user space, random
/// overwrites.
fn moved_per_written(rs: f64, extra_segments: u64) -> (f64, H) {
    let (segs, sb) = (128u64, 64u32);
    let mut h = H::new(
        stack(segs, sb, rs, 0.0),
        64 * sb as u64,
        false,
        PolicyKind::Baseline,
    );
    assert_eq!(h.fs.set_extra_rs_segments(extra_segments), extra_segments);
    let blocks = (0.85 * h.fs.user_blocks() as f64) as u64;
    for b in (0..blocks).step_by(64) {
        assert!(!h.write(0, NO_FILE, b, 64.min(blocks - b), b, 0).failed);
    }
    let c0 = h.fs.counters();
    h.random_overwrites(blocks, 3 * blocks, 11);
    h.verify();
    let c = h.fs.counters();
    let moved = (c.cleaning_blocks_moved - c0.cleaning_blocks_moved) as f64;
    (
        moved / (c.user_blocks_written - c0.user_blocks_written) as f64,
        h,
    )
}

#[test]
fn more_reserved_space_means_less_cleaning() {
    let (a, _) = moved_per_written(0.05, 0);
    let (b, _) = moved_per_written(0.2, 0);
    assert!(b < a, "rs 20%: {b}, rs 5%: {a}");
}

#[test]
fn extra_reserved_space_reduces_cleaning_and_shrinking_keeps_data() {
    let (a, _) = moved_per_written(0.05, 0);
    let (b, mut h) = moved_per_written(0.05, 32);
    assert!(b < a, "with extra: {b}, without: {a}");
    assert_eq!(h.fs.segments_total(), 128 + 32);
    let n_part = h.fs.seg.n_part as usize;
    let holding = (n_part..n_part + 64)
        .filter(|&s| !matches!(h.fs.seg.state[s], SegState::Free | SegState::Disabled))
        .count() as u64;
    assert!(holding > 0);
    let left = h.fs.set_extra_rs_segments(0);
    assert_eq!(left, holding, "only free extra segments are withdrawn");
    assert_eq!(h.fs.extra_rs_segments(), left);
    h.verify();
    // Extra segments holding data go away as cleaning empties them.
    let blocks = (0.85 * h.fs.user_blocks() as f64) as u64;
    h.random_overwrites(blocks, 3 * blocks, 12);
    h.verify();
    assert!(h.fs.extra_rs_segments() < left);
    // Growing again gives them back.
    assert_eq!(h.fs.set_extra_rs_segments(10), 10);
    h.verify();
}

#[test]
fn enospc_is_counted_not_a_panic() {
    let mut h = H::new(stack(16, 16, 0.1, 0.05), 0, true, PolicyKind::Baseline);
    let user = h.fs.user_blocks();
    let mut failed = 0;
    for k in 0..(user / 8 + 4) {
        if h.write(0, k as u32, 0, 8, k * 8, k).failed {
            failed += 1;
        }
    }
    assert!(failed > 0);
    assert_eq!(h.fs.counters().enospc, failed);
    assert!(h.fs.valid_blocks() <= user);
    h.verify();
    // Beyond the largest file: refused as well.
    let d = h.write(1, NO_FILE, 1 << 40, 1, 1, 0);
    assert!(d.failed);
    // Reading a missing file or past EOF completes at once.
    let r = Request {
        time: SimTime(77),
        op: Op::Read,
        offset: 1 << 30,
        len: 4096,
        content: 0,
        file: 9999,
        attrs: FileAttrs::default(),
        placement: None,
    };
    assert_eq!(
        h.submit(0, &r),
        FsDone {
            done: SimTime(77 + super::FS_CALL_NS),
            failed: false
        }
    );
    // Deleting frees space for new writes.
    for k in 0..4u32 {
        let del = Request {
            time: SimTime(100),
            op: Op::Delete,
            offset: 0,
            len: 0,
            content: 0,
            file: k,
            attrs: FileAttrs::default(),
            placement: None,
        };
        assert!(!h.submit(0, &del).failed);
    }
    assert!(!h.write(0, 500, 0, 8, 1, 200).failed);
    h.verify();
}

#[test]
fn fill_reaches_the_fraction_and_new_checks_the_device_size() {
    let st = stack(64, 64, 0.05, 0.02);
    let mut h = H::new(st.clone(), 0, true, PolicyKind::Baseline);
    let n = h
        .with_fs(|fs, ctx| fs.fill(ctx, 0.6, &mut crate::interrupt::Interrupt::none()))
        .unwrap();
    let target = (0.6 * h.fs.user_blocks() as f64) as u64;
    assert_eq!(n, target);
    // The fill ends with a checkpoint: the data plus one inode per 1024-block fill file (each
    // file's blocks fit in its inode's 923 addresses and one direct node).
    let files = target.div_ceil(1024);
    let nodes = (target / 1024) * 2
        + if target % 1024 > 923 {
            2
        } else if !target.is_multiple_of(1024) {
            1
        } else {
            0
        };
    assert_eq!(h.fs.counters().node_blocks_written, nodes);
    assert_eq!(h.fs.counters().checkpoints, 1);
    assert!(files > 0);
    assert_eq!(h.fs.valid_blocks(), target + nodes);
    h.fs.check_invariants().unwrap();
    let p = st.fs.partition_bytes / BLOCK;
    match Fs::new(&st, p + 10, 64, None) {
        Err(Error::Config { key, .. }) => assert_eq!(key, "stack.fs.partition_bytes"),
        other => panic!("expected a config error, got {other:?}"),
    }
}

/// A device that only takes time (for timing the file system alone).
struct NullDisk(u64);

impl Disk for NullDisk {
    fn submit(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        _content: Option<&mut ContentModel>,
    ) -> Result<BioDone> {
        Ok(BioDone {
            done: now + 20_000 + bio.blocks as u64 * 1_000,
            ..BioDone::default()
        })
    }
    fn logical_blocks(&self) -> u64 {
        self.0
    }
    fn space(&self) -> SpaceReport {
        SpaceReport::default()
    }
    fn smart(&self) -> Smart {
        Smart::default()
    }
    fn advance(&mut self, _now: SimTime) {}
}

/// Wall-clock cost of the file system per written block:
/// `cargo test -p flashpress-core --lib fs::tests::timing -- --ignored --nocapture`.
#[test]
#[ignore]
fn timing_ns_per_written_block() {
    use std::time::Instant;
    let cases = [
        (
            "baseline random 4K",
            PolicyKind::Baseline,
            false,
            1u64,
            true,
            0.02,
        ),
        (
            "baseline random 4K, no SSR",
            PolicyKind::Baseline,
            false,
            1,
            true,
            0.0,
        ),
        (
            "baseline sequential 128K",
            PolicyKind::Baseline,
            false,
            32,
            false,
            0.02,
        ),
        ("f2fsc random 16K", PolicyKind::F2fsc, true, 4, true, 0.02),
    ];
    for (name, kind, with_content, req_blocks, random, ssr) in cases {
        let st = stack(4096, 512, 0.05, ssr); // 8 GiB partition
        let p = st.fs.partition_bytes / BLOCK;
        let mut content = with_content.then(content_model);
        let mut fs = Fs::new(&st, 2 * p, 0, content.as_mut()).unwrap();
        let mut disk = NullDisk(2 * p);
        let mut cpu = Cpu::new(16, 1);
        let policy = Policy::new(kind, &st);
        let mut ctx = FsCtx {
            disk: &mut disk,
            cpu: &mut cpu,
            content: content.as_mut(),
            policy: &policy,
        };
        let span = (0.9 * fs.user_blocks() as f64) as u64 / req_blocks;
        let t0 = Instant::now();
        let filled = fs
            .fill(&mut ctx, 0.0, &mut crate::interrupt::Interrupt::none())
            .unwrap();
        // stream file over 90% of the user space, then overwrite it
        let mut rng = Pcg64::seed_from_u64(3);
        let n_req = 2 * span;
        let mut t = 0u64;
        for k in 0..n_req {
            let slot = if random || k < span {
                if k < span {
                    k
                } else {
                    rng.random_range(0..span)
                }
            } else {
                k % span
            };
            let req = Request {
                time: SimTime(t),
                op: Op::Write,
                offset: slot * req_blocks * BLOCK,
                len: req_blocks * BLOCK,
                content: k * req_blocks,
                file: NO_FILE,
                attrs: FileAttrs::default(),
                placement: None,
            };
            let d = fs.submit(&mut ctx, 0, &req, SimTime(t)).unwrap();
            assert!(!d.failed);
            t = d.done.0;
        }
        let el = t0.elapsed();
        let c = fs.counters();
        eprintln!(
            "{name}: {:.1} ns per user block written ({} blocks, {} fs blocks, {} moved, {} ssr, fill {filled})",
            el.as_nanos() as f64 / c.user_blocks_written as f64,
            c.user_blocks_written,
            c.fs_blocks_written,
            c.cleaning_blocks_moved,
            c.ssr_blocks
        );
        fs.check_invariants().unwrap();
    }
}

// ---- adaptive logging, background cleaning, node writes ------------------------------------

impl H {
    fn trim(&mut self, block: u64, t: u64) {
        let req = Request::new(SimTime(t), Op::Trim, block * BLOCK, BLOCK);
        assert!(!self.submit(0, &req).failed);
    }

    fn tick(&mut self, t: u64) {
        self.with_fs(|fs, ctx| fs.on_tick(ctx, SimTime(t))).unwrap();
    }
}

/// `k` full segments of stream 0's file (blocks `[0, k·s)`), then in each the blocks with
/// `b % 4 < holes` punched: every one of them holds `(4 - holes) / 4` valid blocks.
fn segments_at(mode: crate::config::FsMode, k: u64, holes: u64) -> H {
    let (segs, sb) = (128u64, 64u32);
    let mut st = stack(segs, sb, 0.2, 0.0);
    st.fs.mode = mode;
    st.fs.ssr_ratio = None;
    st.fs.meta.node_writes = false;
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    let n = k * sb as u64;
    for b in (0..n).step_by(64) {
        assert!(!h.write(0, NO_FILE, b, 64, b, 0).failed);
    }
    for b in (0..n).filter(|b| b % 4 < holes) {
        h.trim(b, 0);
    }
    h
}

/// Write new blocks (after the first `k` segments' worth) one at a time until `after` blocks
/// have been written past the first cleaning or thread-logged block; returns the free
/// segments at the first such event and the blocks written from it on.
fn write_until(h: &mut H, k: u64, after: u64) -> (u64, u64) {
    let mut b = k * 64;
    let mut at = None;
    let mut n = 0;
    loop {
        let free = h.fs.free_segments();
        let d = h.write(0, NO_FILE, b, 1, 1 << 30 | b, 0);
        assert!(
            !d.failed,
            "block {b}: valid {} user {} free {} {:?}",
            h.fs.valid_blocks(),
            h.fs.user_blocks(),
            h.fs.free_segments(),
            h.fs.counters()
        );
        b += 1;
        let c = h.fs.counters();
        if at.is_none() && (c.cleaning_invocations > 0 || c.ssr_blocks > 0) {
            at = Some(free);
        }
        if let Some(free_at) = at {
            n += 1;
            if n == after {
                return (free_at, n);
            }
        }
    }
}

/// The analytic cost of cleaning: a segment of utilisation `u` gives `(1 - u)·s` free blocks
/// for `u·s` moves, `u / (1 - u)` moves per freed block; thread logging writes into those
/// holes with no move. Every dirty segment is built at utilisation `u`, so greedy's victims
/// are exactly at `u`.
#[test]
fn ssr_writes_holes_without_moves_where_cleaning_costs_u_over_1_minus_u() {
    use crate::config::FsMode;
    let k = 80;
    let mut lfs_cost = Vec::new();
    for (holes, u) in [(3u64, 0.25), (2, 0.5), (1, 0.75)] {
        // mode = lfs: greedy foreground cleaning once free segments reach the reserved ones
        let mut h = segments_at(FsMode::Lfs, k, holes);
        let reserved = h.fs.reserved_segments();
        assert_eq!(reserved, 12, "mkfs: 100 / 20 + 1 + 6");
        let c0 = h.fs.counters();
        let (free_at, n) = write_until(&mut h, k, 300);
        assert_eq!(
            free_at, reserved,
            "cleaning starts at the reserved segments"
        );
        let c = h.fs.counters();
        let victims = c.cleaning_invocations - c0.cleaning_invocations;
        let moved = (c.cleaning_blocks_moved - c0.cleaning_blocks_moved) as f64;
        assert_eq!(
            moved,
            victims as f64 * u * 64.0,
            "u = {u}: every victim at u"
        );
        let per_write = moved / n as f64;
        let expect = u / (1.0 - u);
        // within two victims' moves of the analytic cost (the cold log's first segment and
        // the last victim's unused holes)
        assert!(
            (per_write - expect).abs() * n as f64 <= 2.0 * u * 64.0 + 1.0,
            "u = {u}: {per_write} moves per block written, analytic {expect}"
        );
        assert_eq!(c.ssr_blocks, 0);
        lfs_cost.push(per_write);
        h.verify();
        // mode = adaptive: the same writes go into the holes once need-SSR holds
        let mut h = segments_at(FsMode::Adaptive, k, holes);
        let (free_at, n) = write_until(&mut h, k, 300);
        assert_eq!(
            free_at,
            2 * reserved,
            "need_SSR: free <= min_ssr + reserved"
        );
        let c = h.fs.counters();
        assert_eq!(c.cleaning_blocks_moved, 0, "u = {u}");
        assert_eq!(c.ssr_blocks, n, "u = {u}");
        h.verify();
    }
    // The crossover: cleaning costs less than one move per block below u = 1/2 and more
    // above; thread logging costs none at any u.
    assert!(lfs_cost[0] < 1.0 && lfs_cost[2] > 1.0, "{lfs_cost:?}");
}

#[test]
fn cost_benefit_takes_the_old_emptyish_segment_greedy_the_young_emptier_one() {
    let mut st = stack(32, 64, 0.1, 0.0);
    st.fs.meta.node_writes = false;
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    // A: written at 0 s, half valid; C: at 0.5 s, 3/4 valid; B: at 1 s, 1/4 valid.
    let plan = [
        (0u64, 0u64, 2u64),
        (1, 500_000_000, 1),
        (2, 1_000_000_000, 3),
    ];
    for &(seg, t, holes) in &plan {
        assert!(!h.write(0, NO_FILE, seg * 64, 64, seg * 64, t).failed);
        for b in (seg * 64..seg * 64 + 64).filter(|b| b % 4 < holes) {
            h.trim(b, t);
        }
    }
    // close the last segment
    assert!(!h.write(0, NO_FILE, 3 * 64, 1, 9999, 1_000_000_000).failed);
    let seg_of = |h: &H, b: usize| h.fs.files[h.fs.stream_files[0] as usize].addr[b] / 64;
    let (a, c, b) = (seg_of(&h, 3), seg_of(&h, 64 + 3), seg_of(&h, 128 + 3));
    // By hand, (1 - u)·age/(1 + u) with age 100 (oldest) .. 0 (youngest): A 0.5·100/1.5 =
    // 33.3, C 0.25·50/1.75 = 7.1, B 0.
    assert_eq!(h.fs.cb_victim(), Some(a));
    assert_ne!(a, c);
    assert_eq!(h.fs.seg.take_min_valid(SegState::Closed), Some(b));
}

#[test]
fn background_cleaning_frees_segments_in_idle_gaps_only() {
    let mut st = stack(64, 64, 0.1, 0.0);
    st.fs.meta.node_writes = false;
    st.fs.bggc.min_sleep_ms = 10.0;
    st.fs.bggc.max_sleep_ms = 20.0;
    st.fs.bggc.no_gc_sleep_ms = 100.0;
    st.fs.bggc.idle_ms = 5.0;
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    let ms = 1_000_000u64;
    // 40 segments at staggered times, then half of each segment's blocks punched
    for seg in 0..40u64 {
        assert!(!h.write(0, NO_FILE, seg * 64, 64, seg * 64, seg).failed);
    }
    for b in (0..40 * 64u64).filter(|b| b % 2 == 0) {
        h.trim(b, 40);
    }
    // Busy: a request every millisecond for 100 ms; the cleaner wakes but never cleans.
    for i in 0..100u64 {
        let t = 1 + i * ms;
        h.tick(t);
        assert!(!h.write(0, NO_FILE, 3000 + i % 50, 1, 50_000 + i, t).failed);
    }
    let c = h.fs.counters();
    assert!(c.bggc_wakeups >= 5, "{c:?}");
    assert_eq!(c.bggc_segments, 0, "{c:?}");
    // Idle for a second: it cleans, one segment per wake-up, freeing segments.
    let free0 = h.fs.free_segments();
    let mut t = 101 * ms;
    while t < 1100 * ms {
        h.tick(t);
        t += ms;
    }
    let c = h.fs.counters();
    assert!(c.bggc_segments >= 10, "{c:?}");
    // each victim was half valid: moves = 32 per segment; two victims free one segment net
    assert_eq!(c.bggc_blocks_moved, 32 * c.bggc_segments, "{c:?}");
    assert!(
        h.fs.free_segments() >= free0 + c.bggc_segments / 2 - 1,
        "free {} -> {}, {c:?}",
        free0,
        h.fs.free_segments()
    );
    assert_eq!(c.cleaning_invocations, 0, "no foreground cleaning");
    h.verify();
}

/// Node index of data block `b` by hand: the inode holds 923 addresses, a direct node 1018.
fn node_of(b: u64) -> u64 {
    if b < 923 {
        0
    } else {
        1 + (b - 923) / 1018
    }
}

#[test]
fn each_dirtied_node_block_is_written_once_per_checkpoint() {
    let mut st = stack(128, 512, 0.1, 0.0);
    st.fs.meta.cp_interval_ms = 10.0;
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    // sequential 5000 blocks, then sync: the inode and ceil(4077 / 1018) = 5 direct nodes
    for b in (0..5000u64).step_by(100) {
        assert!(!h.write(0, NO_FILE, b, 100, b, 0).failed);
    }
    let sync = |h: &mut H, t: u64| h.with_fs(|fs, ctx| fs.sync(ctx, SimTime(t))).unwrap();
    sync(&mut h, 1000);
    let c = h.fs.counters();
    assert_eq!(c.node_blocks_written, 6);
    assert_eq!(c.checkpoints, 1);
    // random 4 KiB overwrites: one node block per distinct node touched, per checkpoint
    let mut rng = Pcg64::seed_from_u64(5);
    let c0 = h.fs.counters();
    let mut touched = std::collections::BTreeSet::new();
    for k in 0..300u64 {
        let b = rng.random_range(0..20_000u64);
        touched.insert(node_of(b));
        assert!(!h.write(0, NO_FILE, b, 1, 7 << 30 | k, 2000 + k).failed);
    }
    sync(&mut h, 5000);
    let c = h.fs.counters();
    assert_eq!(
        c.node_blocks_written - c0.node_blocks_written,
        touched.len() as u64
    );
    // every block the file system wrote is data, node or checkpoint, and reached the disk
    assert_eq!(
        c.fs_blocks_written,
        c.user_blocks_written + c.node_blocks_written + c.cp_blocks_written
    );
    assert_eq!(c.fs_blocks_written, h.disk.writes);
    assert!(c.cp_blocks_written >= 2 * node::CP_PACK_BLOCKS);
    // periodic checkpoints: every 10 ms of requests
    let c0 = h.fs.counters();
    for k in 0..35u64 {
        let t = 100_000_000 + k * 1_000_000;
        assert!(!h.write(0, NO_FILE, k, 1, 9 << 30 | k, t).failed);
    }
    let c = h.fs.counters();
    assert_eq!(c.checkpoints - c0.checkpoints, 4, "{c:?}"); // at 100, 110, 120, 130 ms
    h.verify();
}

#[test]
fn excess_dirty_nodes_forces_a_checkpoint_when_set() {
    let mut st = stack(64, 512, 0.1, 0.0);
    st.fs.meta.excess_dirty_nodes = Some(3);
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    // blocks in the inode, then in direct nodes 1 and 2: three dirty nodes
    for (k, b) in [0u64, 1000, 2000].into_iter().enumerate() {
        assert!(!h.write(0, NO_FILE, b, 1, b, k as u64).failed);
    }
    assert_eq!(h.fs.counters().checkpoints, 0);
    // the next request finds three dirty nodes: a checkpoint writes them
    assert!(!h.write(0, NO_FILE, 1, 1, 77, 10).failed);
    let c = h.fs.counters();
    assert_eq!((c.checkpoints, c.node_blocks_written), (1, 3));
    h.verify();
}

/// COCO's two tag sources and two readings of the rest, on files whose hotness and type are
/// known: the blocks of each path (device: no flag on the disk, host: F2FS compression,
/// skipped: stored raw with the incompressible label) are exactly those of the files the
/// split assigns to it. Content compresses 3:1, above Tc = 2, so only tags and media decide.
#[test]
fn coco_sends_each_file_down_the_path_its_tag_and_rest_choose() {
    use crate::config::{CocoRest, RatioDist};
    // (hotness the workload gives, file type): F2FS's own tags make `db` hot, media cold.
    let files = [
        (Hotness::Hot, FileType::Data),
        (Hotness::Warm, FileType::Text),
        (Hotness::Cold, FileType::Log),
        (Hotness::Warm, FileType::Db),
        (Hotness::Cold, FileType::Media),
        (Hotness::Hot, FileType::Log),
    ];
    const BLOCKS: u64 = 32;
    for tags in [false, true] {
        for rest in [CocoRest::Uncompressed, CocoRest::Host] {
            let mut st = stack(64, 64, 0.05, 0.0);
            st.coco.tags = tags;
            st.coco.rest = rest;
            let cc = ContentConfig {
                mode: ContentMode::Model,
                ratio: RatioDist::Fixed { ratio: 3.0 },
                ..ContentConfig::default()
            };
            let mut h = H::new(st, 0, false, PolicyKind::Coco);
            let mut cm = ContentModel::from_content_config(&cc, 7, &[ContentHints::default()], "t")
                .unwrap()
                .unwrap();
            let d = h.disk.map.len() as u64;
            h.fs = Fs::new(&h.st, d, 0, Some(&mut cm)).unwrap();
            h.content = Some(cm);
            let (mut device, mut host, mut skipped) = (0, 0, 0);
            for (i, &(hot, ty)) in files.iter().enumerate() {
                let is_hot = if tags {
                    ty == FileType::Db
                } else {
                    hot == Hotness::Hot
                };
                if ty == FileType::Media {
                    skipped += BLOCKS;
                } else if !is_hot {
                    device += BLOCKS;
                } else if rest == CocoRest::Host {
                    host += BLOCKS;
                } else {
                    skipped += BLOCKS;
                }
                let r = Request {
                    time: SimTime(i as u64 * 10_000_000),
                    op: Op::Write,
                    offset: 0,
                    len: BLOCKS * BLOCK,
                    content: 1000 * (i as u64 + 1),
                    file: i as u32,
                    attrs: FileAttrs::new(hot, ty),
                    placement: None,
                };
                assert!(!h.submit(0, &r).failed);
            }
            let c = h.fs.counters();
            let what = format!("tags {tags}, rest {rest:?}");
            assert_eq!(c.compress_blocks_device, device, "{what}: device");
            assert_eq!(c.compress_blocks_host, host, "{what}: host");
            assert_eq!(c.compress_blocks_skipped, skipped, "{what}: skipped");
            let on_disk = |f: BioFlags| {
                (0..h.disk.map.len())
                    .filter(|&b| h.disk.flags[b] == f)
                    // The files' content ids (node and metadata blocks have their own).
                    .filter(|&b| (1000..1_000_000).contains(&h.disk.map[b]))
                    .count() as u64
            };
            assert_eq!(
                on_disk(BioFlags::NONE),
                device,
                "{what}: device blocks on disk"
            );
            assert_eq!(
                on_disk(BioFlags::INCOMPRESSIBLE),
                skipped,
                "{what}: raw blocks"
            );
            // 3:1 clusters of four blocks keep two blocks each.
            assert_eq!(
                on_disk(BioFlags::HOST_COMPRESSED),
                host / 2,
                "{what}: host blocks"
            );
            h.verify();
        }
    }
}

#[test]
fn node_blocks_a_write_dirties_count_against_the_space_it_may_use() {
    // A write into a file's next direct node dirties a node block that did not exist. The
    // space check counts it, so the checkpoint that writes it still fits the user space (it
    // once overflowed by one block: Filebench webserver's growing log at 90% fill).
    let mut st = stack(64, 64, 0.05, 0.0);
    st.fs.meta.cp_interval_ms = 1e9;
    let mut h = H::new(st, 0, false, PolicyKind::Baseline);
    let user = h.fs.user_blocks();
    let sync = |h: &mut H, t: u64| {
        h.with_fs(|fs, ctx| fs.sync(ctx, SimTime(t))).unwrap();
        h.fs.check_invariants().unwrap();
    };
    // file 1 fills its inode's 923 addresses; file 2 fills the space but one block
    let a = node::ADDRS_PER_INODE;
    assert!(!h.write(0, 1, 0, a, 1 << 20, 0).failed);
    let nodes = |len: u64| 1 + len.saturating_sub(a).div_ceil(node::ADDRS_PER_BLOCK);
    let len2 = (0..user)
        .rev()
        .find(|&l| a + 1 + l + nodes(l) == user - 1)
        .unwrap();
    assert!(!h.write(0, 2, 0, len2, 2 << 20, 1).failed);
    sync(&mut h, 10);
    assert_eq!(h.fs.counters().node_blocks_written, 2 + nodes(len2) - 1);
    // one free block, but file 1's next block needs it and a new direct node block
    assert!(h.write(0, 1, a, 1, 3 << 20, 20).failed);
    sync(&mut h, 30);
    // the overwrite of a block in an existing node needs no new one and fits
    assert!(!h.write(0, 1, 0, 1, 4 << 20, 40).failed);
    sync(&mut h, 50);
    h.verify();
}
