//! The F2FS-like file system (`[stack]`) on a zoned device (`[zns]`): sections on zones,
//! sequential writes only, cleaning that moves valid blocks and resets the zone; no device GC.

use crate::support::config;
use flashpress_core::sim::{open_workload, Simulation};
use flashpress_core::units::SimTime;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// A small zoned device: 2 channels x 1 plane x 32 blocks of 64 pages; a zone is one block
/// on each channel (128 blocks of 4 KiB, 32 zones). The file system takes 24 of them
/// (rs_ratio 0.2: 5 reserved sections, 19 of user space) with host compression (f2fsc,
/// ratio 1.5: a 16 KiB cluster is stored in 3 blocks).
const SMALL: &str = r#"
preset = "zns"
[nand]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 32
pages_per_block = 64
[zns]
channels_per_zone = 2
chips_per_zone = 1
blocks_per_plane = 1
max_open_zones = 4
max_active_zones = 4
[content]
mode = "model"
ratio = { type = "fixed", ratio = 1.5 }
[stack]
policy = "f2fsc"
[stack.fs]
partition_bytes = 12582912
segment_blocks = 128
rs_ratio = 0.2
mode = "lfs"
[stack.fs.meta]
node_writes = false
[stack.fs.bggc]
enabled = false
"#;

/// Random 16 KiB (one cluster) overwrites of a 9 MiB file (6.75 MiB stored: 71% of the user
/// space), 40 MiB written in all.
const RANDOM_OVERWRITE: &str = r#"
[workload]
type = "fio"
[[workload.jobs]]
name = "w"
rw = "randwrite"
bs = "16k"
size = "9m"
io_size = "40m"
iodepth = 1
"#;

fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |v, k| &v[k])
}

fn num(v: &Value, path: &str) -> u64 {
    get(v, path)
        .as_u64()
        .unwrap_or_else(|| panic!("summary.{path} is not a count: {}", get(v, path)))
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Seg {
    Free,
    Open,
    Closed,
    Cleaning,
}

/// An independent greedy log-structured cleaner, block by block: a warm log for user data
/// and a cold log for cleaning copies, each appending to a segment taken from the front of
/// the free-segment queue (freed segments join at the back); a log closes its segment when it
/// next needs a block and finds it full; before a log takes a free segment, while free
/// segments are at or below `reserved`, the closed segment with the fewest valid blocks (and
/// at least one invalid) is cleaned: its valid blocks, in address order, go to the cold log.
/// Among segments with the same valid count the one picked is the file system's (the last of
/// its list of segments with that count, a list kept by push and swap-remove), which this
/// model keeps the same way.
struct Greedy {
    s: u32,
    reserved: u64,
    state: Vec<Seg>,
    valid: Vec<u32>,
    owner: Vec<Option<u64>>,
    lists: Vec<Vec<u32>>,
    free_q: VecDeque<u32>,
    free: u64,
    logs: [Option<(u32, u32)>; 2],
    cleaning: bool,
    at: HashMap<u64, u32>,
    cleaned: u64,
    moved: u64,
    freed: u64,
}

const WARM: usize = 0;
const COLD: usize = 1;

impl Greedy {
    fn new(s: u32, segments: u32, reserved: u64) -> Greedy {
        Greedy {
            s,
            reserved,
            state: vec![Seg::Free; segments as usize],
            valid: vec![0; segments as usize],
            owner: vec![None; (segments * s) as usize],
            lists: vec![Vec::new(); s as usize + 1],
            free_q: (0..segments).collect(),
            free: segments as u64,
            logs: [None; 2],
            cleaning: false,
            at: HashMap::new(),
            cleaned: 0,
            moved: 0,
            freed: 0,
        }
    }

    fn list_remove(&mut self, seg: u32) {
        let l = &mut self.lists[self.valid[seg as usize] as usize];
        let i = l
            .iter()
            .position(|&x| x == seg)
            .expect("closed segment listed");
        l.swap_remove(i);
    }

    fn list_insert(&mut self, seg: u32) {
        self.lists[self.valid[seg as usize] as usize].push(seg);
    }

    fn make_free(&mut self, seg: u32) {
        self.state[seg as usize] = Seg::Free;
        self.free += 1;
        self.freed += 1;
        self.free_q.push_back(seg);
    }

    fn invalidate(&mut self, lba: u32) {
        let seg = lba / self.s;
        let st = self.state[seg as usize];
        if st == Seg::Closed {
            self.list_remove(seg);
        }
        self.owner[lba as usize] = None;
        self.valid[seg as usize] -= 1;
        match st {
            Seg::Closed | Seg::Cleaning if self.valid[seg as usize] == 0 => self.make_free(seg),
            Seg::Closed => self.list_insert(seg),
            _ => {}
        }
    }

    fn set_valid(&mut self, lba: u32, owner: u64) {
        let seg = lba / self.s;
        assert_eq!(self.state[seg as usize], Seg::Open);
        self.owner[lba as usize] = Some(owner);
        self.valid[seg as usize] += 1;
        self.at.insert(owner, lba);
    }

    fn alloc(&mut self, log: usize) -> u32 {
        loop {
            if let Some((seg, cursor)) = self.logs[log] {
                if cursor < self.s {
                    self.logs[log] = Some((seg, cursor + 1));
                    return seg * self.s + cursor;
                }
                self.logs[log] = None;
                if self.valid[seg as usize] == 0 {
                    self.make_free(seg);
                } else {
                    self.state[seg as usize] = Seg::Closed;
                    self.list_insert(seg);
                }
            }
            if !self.cleaning && self.free <= self.reserved {
                self.clean();
                if self.logs[log].is_some() {
                    continue;
                }
            }
            let seg = loop {
                let seg = self.free_q.pop_front().expect("a free segment");
                if self.state[seg as usize] == Seg::Free {
                    break seg;
                }
            };
            self.state[seg as usize] = Seg::Open;
            self.free -= 1;
            self.logs[log] = Some((seg, 0));
        }
    }

    fn clean(&mut self) {
        self.cleaning = true;
        while self.free <= self.reserved {
            let Some(v) = (0..self.s as usize).find(|&v| !self.lists[v].is_empty()) else {
                break;
            };
            let seg = self.lists[v].pop().expect("non-empty");
            self.state[seg as usize] = Seg::Cleaning;
            self.cleaned += 1;
            for lba in seg * self.s..(seg + 1) * self.s {
                if let Some(owner) = self.owner[lba as usize] {
                    let new = self.alloc(COLD);
                    self.set_valid(new, owner);
                    self.invalidate(lba);
                    self.moved += 1;
                }
            }
        }
        self.cleaning = false;
    }

    /// Write cluster `c` as `blocks` blocks: its old blocks are invalidated first.
    fn write_cluster(&mut self, c: u64, blocks: u64) {
        for j in 0..blocks {
            if let Some(&lba) = self.at.get(&(c * 16 + j)) {
                if self.owner[lba as usize] == Some(c * 16 + j) {
                    self.invalidate(lba);
                }
            }
        }
        for j in 0..blocks {
            let lba = self.alloc(WARM);
            self.set_valid(lba, c * 16 + j);
        }
    }
}

/// Random overwrites through the file system on the zoned device: the device does no GC and
/// refuses no command (every write was at its zone's write pointer), programs exactly the
/// blocks the file system wrote (device WAF 1), erases only by zone resets; the file
/// system's cleaning counts equal the independent greedy model's on the same write sequence.
#[test]
fn random_overwrites_clean_like_a_greedy_model_with_no_device_gc() {
    let cfg = config(&format!("{SMALL}{RANDOM_OVERWRITE}"));
    let rep = Simulation::new(cfg.clone()).unwrap().run().unwrap();
    let v: Value = serde_json::from_str(&rep.summary_json()).unwrap();

    // The device: no GC, no failed command, WAF 1, erases only by resets.
    assert_eq!(num(&v, "gc_invocations"), 0);
    assert_eq!(num(&v, "gc_pages_migrated"), 0);
    assert_eq!(num(&v, "zns.failed_commands"), 0);
    assert_eq!(num(&v, "requests_failed"), 0);
    let fs_written = num(&v, "stack.fs.fs_blocks_written");
    assert_eq!(num(&v, "nand_programs"), fs_written, "device WAF 1");
    assert_eq!(num(&v, "erases"), num(&v, "zns.reset_blocks_erased"));
    assert_eq!(num(&v, "zns.resets"), num(&v, "stack.zoned.zones_reset"));
    assert_eq!(num(&v, "stack.fs.counters.fs_blocks_trimmed"), 0);
    // One open zone per data log (hot, warm, cold; no node log without node writes), and no
    // zone left closed: a log writes its section to the end before it takes another.
    assert!(num(&v, "zns.zones_implicitly_open") <= 3);
    assert_eq!(num(&v, "zns.zones_closed"), 0);

    // The same write sequence through the model.
    let st = cfg.stack.as_ref().unwrap();
    let mut streams = open_workload(&cfg, flashpress_core::stack::user_bytes_of(st)).unwrap();
    assert_eq!(streams.len(), 1);
    let file_clusters = (9u64 << 20) / 16384;
    // 24 sections of 128 blocks; rs = ceil(0.2 x 24) = 5; F2FS's reserved segments
    // 100 / 20 + 1 + 6 = 12, clipped to the 5 of the overprovision.
    let mut m = Greedy::new(128, 24, 5);
    // fio lays the file out first (in order), then the job runs.
    for c in 0..file_clusters {
        m.write_cluster(c, 3);
    }
    let (cleaned0, moved0, freed0) = (m.cleaned, m.moved, m.freed);
    let mut writes = 0;
    while let Some(r) = streams[0].source.next_request(SimTime::ZERO).unwrap() {
        assert_eq!((r.offset % 16384, r.len), (0, 16384));
        m.write_cluster(r.offset / 16384, 3);
        writes += 1;
    }
    assert_eq!(writes, 40 * 64, "40 MiB of 16 KiB writes");
    assert_eq!(num(&v, "stack.fs.user_blocks_written"), writes * 4);
    assert_eq!(
        num(&v, "stack.fs.counters.clusters_host_compressed"),
        writes
    );
    let cleaned = m.cleaned - cleaned0;
    let moved = m.moved - moved0;
    let freed = m.freed - freed0;
    assert!(
        cleaned > 20,
        "the workload must make the file system clean: {cleaned}"
    );
    assert_eq!(num(&v, "stack.zoned.sections_cleaned"), cleaned);
    assert_eq!(num(&v, "stack.fs.cleaning_invocations"), cleaned);
    assert_eq!(num(&v, "stack.zoned.blocks_moved"), moved);
    assert_eq!(num(&v, "stack.zoned.zones_reset"), freed);
    assert_eq!(fs_written, writes * 3 + moved);
    let waf = get(&v, "stack.zoned.host_waf").as_f64().unwrap();
    assert!((waf - fs_written as f64 / (writes * 3) as f64).abs() < 1e-12);
}

/// Every combination the file system on zones cannot honour is refused, naming its key.
#[test]
fn refused_combinations_name_their_key() {
    let cases: &[(&str, &str, &str)] = &[
        ("[stack]\npolicy = \"baseline\"", "stack.policy", "policy `baseline` sends data to the device to compress"),
        ("[stack]\npolicy = \"coco\"", "stack.policy", "policy `coco`"),
        ("[stack]\npolicy = \"waltz_s\"", "stack.policy", "policy `waltz_s`"),
        ("[stack.stream_policy]\nw = \"tcs\"", "stack.stream_policy.w", "policy `tcs`"),
        ("[stack.space]\ntype = \"osa\"\nft_sc_per_s = 1.0\nft_c_per_s = 100.0\nts = 0.01\nrs_max = 0.1\ninterval_ms = 1000.0", "stack.space", "the zoned device saves none"),
        ("[stack.fs]\nmode = \"adaptive\"", "stack.fs.mode", "set mode = \"lfs\""),
        ("[stack.fs]\nsegment_blocks = 64", "stack.fs.segment_blocks", "expected the zone capacity, 128 blocks, got 64"),
        ("[stack.fs.meta]\nnode_writes = true", "stack.fs.meta.node_writes", "node_writes = false"),
        ("[zns]\nmax_open_zones = 3", "zns.max_open_zones", "at least 4, got 3"),
        ("[zns]\nmax_active_zones = 2\nmax_open_zones = 2", "zns.max_open_zones", "at least 4, got 2"),
        ("[zns]\noffline_zones = [3]", "zns.offline_zones", "does not skip worn"),
        ("[stack.ccsd]\nengine = false", "stack.ccsd", "remove [stack.ccsd]"),
        ("[nand]\npage_size = 8192", "nand.page_size", "4096-byte blocks"),
        // Compressed zones report their zone size (256 blocks here) as their capacity.
        ("[zns]\nzone_size = 1048576\n[zns.compression]\ncodec = \"lz4\"\nmin_saving = 0.1\nmax_chunks_per_page = 8\ncompress_us = 2.0\ndecompress_us = 1.0\n[ftl]\nwrite_buffer_pages = 16", "stack.fs.segment_blocks", "expected the capacity a compressed zone reports, its zone size, 256 blocks, got 128"),
    ];
    for (extra, key, message) in cases {
        // TOML tables may not repeat: merge the override into the base config's value.
        let base: toml::Table = toml::from_str(SMALL).unwrap();
        let over: toml::Table = toml::from_str(extra).unwrap();
        let merged = merge(base, over);
        let text = format!("{}{RANDOM_OVERWRITE}", toml::to_string(&merged).unwrap());
        let err = flashpress_core::config::SimConfig::from_toml_str(&text, "t")
            .and_then(|c| c.validate("t").map(|_| c))
            .err()
            .unwrap_or_else(|| panic!("{extra}: accepted"))
            .to_string();
        assert!(err.contains(key) && err.contains(message), "{extra}: {err}");
    }
}

fn merge(mut a: toml::Table, b: toml::Table) -> toml::Table {
    for (k, v) in b {
        match (a.remove(&k), v) {
            (Some(toml::Value::Table(x)), toml::Value::Table(y)) => {
                a.insert(k, toml::Value::Table(merge(x, y)));
            }
            (_, v) => {
                a.insert(k, v);
            }
        }
    }
    a
}

/// Background cleaning in idle time works on zones too: its victims' blocks move to the cold
/// log, their zones are reset, and every zone's write pointer ends where the file system's
/// sections say (the end-of-run invariant check).
#[test]
fn background_cleaning_resets_zones_in_idle_time() {
    let toml = format!(
        "{}{}",
        SMALL.replace(
            "[stack.fs.bggc]\nenabled = false",
            "[stack.fs.bggc]\nenabled = true\nmin_sleep_ms = 5.0\nmax_sleep_ms = 10.0\n\
             no_gc_sleep_ms = 50.0\nidle_ms = 2.0"
        ),
        // Overwrites at 5 per second: idle gaps of about 200 ms, longer than the stack's
        // 100 ms tick on which the background cleaner's wake-ups are taken.
        RANDOM_OVERWRITE.replace("iodepth = 1", "iodepth = 1\nrate_iops = 5")
    );
    let cfg = config(&toml);
    assert!(cfg.check.invariants);
    let rep = Simulation::new(cfg).unwrap().run().unwrap();
    let v: Value = serde_json::from_str(&rep.summary_json()).unwrap();
    let bg = num(&v, "stack.fs.counters.bggc_segments");
    assert!(bg > 0, "the background cleaner cleaned nothing");
    assert_eq!(num(&v, "zns.failed_commands"), 0);
    assert_eq!(num(&v, "gc_invocations"), 0);
    let fg = num(&v, "stack.fs.cleaning_invocations");
    assert_eq!(num(&v, "stack.zoned.sections_cleaned"), fg + bg);
    assert_eq!(
        num(&v, "stack.zoned.blocks_moved"),
        num(&v, "stack.fs.counters.cleaning_blocks_moved")
            + num(&v, "stack.fs.counters.bggc_blocks_moved")
    );
    assert_eq!(num(&v, "zns.resets"), num(&v, "stack.zoned.zones_reset"));
    assert_eq!(
        num(&v, "nand_programs"),
        num(&v, "stack.fs.fs_blocks_written")
    );
}
