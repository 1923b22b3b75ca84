//! The zoned device as the storage stack's [`Disk`]: the F2FS-like file system's block I/Os
//! become zoned commands at the write pointer (F2FS's zoned block device mode: sections on
//! zones, only sequential writes, cleaning that resets zones).
//!
//! The file system addresses zone capacity only: its LBA `z * cap + k` (`cap` the zone's
//! writable blocks) is block `k` of zone `z`, at device offset `z * zone_size + k` (as F2FS
//! with a zone capacity below the zone size uses only the section's usable blocks). A write
//! not at its zone's write pointer, one that crosses a zone's capacity, a discard (a zoned
//! disk takes none: a freed section is reset) or any command the device refuses is the file
//! system's bug and an error, never moved to where it would fit.
//!
//! The [`Disk`] interface is synchronous (a submit returns the completion time), the device
//! event-driven: the disk keeps the device's event queue and runs it up to each command's
//! arrival, submits it, and runs on until it completes. The stack submits at queue depth > 1
//! (fio's iodepth, several jobs): a command may arrive before the device's present, which
//! the previous command's run-ahead passed. It arrives at its own time all the same, and the
//! controller's back end queues its work the way the CCSD's does after a run-ahead
//! ([`crate::device::sched::Scheduler::allow_out_of_order`]): on each plane at the command's
//! time unless the back end already decided something for that plane later, then at that
//! later time; each channel transfer in the first gap that fits. So commands to different
//! dies overlap as on the device, and what the back end already decided never changes. A
//! zone's writes reach the flash in the order the file system issued them (each plane's
//! queue is in handover order, and a plane's handovers are in time order).

use super::ZoneState;
use crate::config::SimConfig;
use crate::content::ContentModel;
use crate::device::Device;
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::stack::bio::{Bio, BioDone, BioOp, Disk, Smart, SpaceReport, BLOCK};
use crate::units::{BlockId, SimTime};
use crate::workload::{Op, Request};

/// A zoned device serving a storage stack.
pub struct ZonedDisk {
    dev: Device,
    q: EventQueue,
    /// The device's present: the time of the last event it ran.
    now: SimTime,
    /// Writable blocks per zone (the zone capacity, in 4 KiB blocks).
    cap: u64,
    /// Blocks per zone span (the zone size).
    size: u64,
    zones: u64,
    blocks: Vec<BlockId>,
}

impl ZonedDisk {
    /// The zoned device of a validated config (`cfg.zns` set, 4 KiB pages); `content`: the
    /// run's content model, which compressed zones size their blocks by.
    pub fn new(cfg: &SimConfig, content: Option<&mut ContentModel>) -> Result<ZonedDisk> {
        let z = cfg.zns.as_ref().ok_or_else(|| {
            Error::State("a zoned disk needs a [zns] device in the config".into())
        })?;
        let mut dev = Device::new(cfg, content)?;
        dev.sched.allow_out_of_order();
        if dev.page_size() != BLOCK {
            return Err(Error::config(
                "config",
                "nand.page_size",
                format!(
                    "a zoned device under [stack] needs 4096-byte logical blocks, got {}",
                    dev.page_size()
                ),
            ));
        }
        let zns = dev.zns.as_ref().expect("zoned device");
        let cap = zns.zones.cap();
        let size = z.zone_size_bytes(&cfg.nand) / BLOCK;
        let zones = zns.zones.len() as u64;
        Ok(ZonedDisk {
            dev,
            q: EventQueue::new(),
            now: SimTime::ZERO,
            cap,
            size,
            zones,
            blocks: Vec::new(),
        })
    }

    /// The device (zone states, counters, NAND).
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// Run the device's events up to and including `t` (`None`: until none is left).
    fn run_to(&mut self, t: Option<SimTime>) {
        while let Some(at) = self.next_event() {
            if t.is_some_and(|t| at > t) {
                break;
            }
            self.step();
        }
    }

    fn next_event(&mut self) -> Option<SimTime> {
        match (self.dev.next_arrival(), self.q.peek_time()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the device has an event to run.
    fn has_event(&self) -> bool {
        self.dev.next_arrival().is_some() || !self.q.is_empty()
    }

    /// Run the device's next event (page commands reaching the controller first among
    /// events of the same instant, as the simulation does).
    fn step(&mut self) {
        if let Some(ta) = self.dev.next_arrival() {
            if self.q.peek_time().is_none_or(|th| ta <= th) {
                self.now = self.now.max(ta);
                self.dev.process_arrivals(ta, &mut self.q);
                return;
            }
        }
        let Some((t, ev)) = self.q.pop() else {
            return;
        };
        self.now = self.now.max(t);
        match ev {
            Event::Flash(plane, gen) => self.dev.on_flash(plane, gen, t, &mut self.q),
            Event::DeviceReq(slot) => self.dev.on_request(slot, t, &mut self.q),
            other => unreachable!("the zoned disk's queue holds device events only: {other:?}"),
        }
    }

    /// Submit `req` at `now` and run the device until it completes; its completion time. A
    /// command the device refuses is an error naming it.
    fn command(
        &mut self,
        req: &Request,
        ids: &[u64],
        now: SimTime,
        stream: u32,
        content: Option<&mut ContentModel>,
    ) -> Result<SimTime> {
        self.run_to(Some(now));
        // Page commands of earlier commands still on their way to the controller go first:
        // the device hands page commands over in arrival order.
        while self.dev.next_arrival().is_some() {
            self.step();
        }
        let at = now;
        self.dev.completed.clear();
        let before = self.dev.zns.as_ref().expect("zoned").counters;
        self.dev
            .submit_zoned_pages(req, ids, at, stream, &mut self.q, content)?;
        if !self.dev.failed.is_empty() {
            self.dev.failed.clear();
            let after = self.dev.zns.as_ref().expect("zoned").counters;
            let status = super::ZoneError::ALL
                .into_iter()
                .find(|&e| {
                    let mut c = before;
                    c.fail(e);
                    c == after
                })
                .map_or("unknown", |e| e.name());
            return Err(Error::State(format!(
                "the file system's {:?} of {} bytes at device offset {} failed on the zoned \
                 device ({status})",
                req.op, req.len, req.offset
            )));
        }
        while self.dev.completed.is_empty() {
            if !self.has_event() {
                return Err(Error::State(format!(
                    "the zoned device never completed the file system's {:?} at offset {}",
                    req.op, req.offset
                )));
            }
            self.step();
        }
        let done = self
            .dev
            .completed
            .iter()
            .map(|c| c.done)
            .max()
            .expect("one");
        self.dev.completed.clear();
        Ok(done)
    }

    /// Zone and block in it of file-system LBA `lba`.
    fn locate(&self, lba: u64) -> (u64, u64) {
        (lba / self.cap, lba % self.cap)
    }

    /// After the untimed layout and fill: run their work to the end, then forget its timing
    /// and counters (zone states and wear stay).
    pub fn reset_after_fill(&mut self) {
        self.run_to(None);
        self.dev.reset_after_precondition();
        self.q = EventQueue::new();
        self.now = SimTime::ZERO;
    }

    /// Whether the device has nothing queued or running at `t`.
    pub fn idle_at(&self, t: SimTime) -> bool {
        !self.has_event() && self.dev.sched.last_activity() <= t
    }

    /// Check the zone state machine's counts and the device's invariants.
    pub fn check_invariants(&self) -> Result<()> {
        self.dev.check_invariants()
    }
}

impl Disk for ZonedDisk {
    fn submit(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        content: Option<&mut ContentModel>,
    ) -> Result<BioDone> {
        let end = bio.lba.checked_add(bio.blocks as u64);
        if bio.blocks == 0 || end.is_none_or(|e| e > self.logical_blocks()) {
            return Err(Error::State(format!(
                "block I/O of {} blocks at LBA {} outside the zoned device's {} writable blocks",
                bio.blocks,
                bio.lba,
                self.logical_blocks()
            )));
        }
        let (z, k) = self.locate(bio.lba);
        let n = bio.blocks as u64;
        if k + n > self.cap {
            return Err(Error::State(format!(
                "block I/O of {n} blocks at LBA {} crosses the end of zone {z} (capacity {} blocks)",
                bio.lba, self.cap
            )));
        }
        let offset = (z * self.size + k) * BLOCK;
        let op = match bio.op {
            BioOp::Read => Op::Read,
            BioOp::Write => {
                // Compression flags are the host's business: a zoned device stores what it is
                // given (host-compressed blocks are just fewer blocks; validation refused the
                // policies that would ask it to compress).
                let zone = self.dev.zns.as_ref().expect("zoned").zones.zone(z as u32);
                if zone.wp != k {
                    return Err(Error::State(format!(
                        "the file system wrote {n} blocks at block {k} of zone {z}, whose write \
                         pointer is at block {} ({:?}): a zoned device takes writes only at \
                         the write pointer",
                        zone.wp, zone.state
                    )));
                }
                Op::Write
            }
            BioOp::Trim => {
                return Err(Error::State(format!(
                    "the file system discarded {n} blocks at LBA {} on a zoned device, which \
                     takes no discard (a freed section is reset instead)",
                    bio.lba
                )))
            }
        };
        let req = Request::new(now, op, offset, n * BLOCK);
        // Each block's own content id goes to the device (reads and trims carry none).
        let done = self.command(&req, bio.content, now, bio.stream, content)?;
        Ok(BioDone {
            done,
            ..BioDone::default()
        })
    }

    fn logical_blocks(&self) -> u64 {
        self.zones * self.cap
    }

    fn space(&self) -> SpaceReport {
        let zns = self.dev.zns.as_ref().expect("zoned");
        let written: u64 = (0..zns.zones.len())
            .map(|z| zns.zones.zone(z).written)
            .sum();
        // Compressed zones hold their blocks in fewer flash pages.
        let flash: u64 = (0..zns.zones.len())
            .map(|z| zns.flash_pages(z, self.dev.compression.as_ref()))
            .sum();
        SpaceReport {
            logical_bytes: written * BLOCK,
            physical_bytes: flash * BLOCK,
            physical_capacity_bytes: self.logical_blocks() * BLOCK,
        }
    }

    /// A zoned device here has no thermal model: it never throttles or shuts down, and reads
    /// no temperature (NaN).
    fn smart(&self) -> Smart {
        Smart {
            temperature_c: f64::NAN,
            throttled: false,
            shutdown: false,
        }
    }

    fn advance(&mut self, now: SimTime) {
        self.run_to(Some(now));
    }

    fn zone_blocks(&self) -> Option<u64> {
        Some(self.cap)
    }

    fn zone_admit(
        &mut self,
        zone: u64,
        stream: u32,
        id: u64,
        content: Option<&mut ContentModel>,
    ) -> Result<bool> {
        if zone >= self.zones {
            return Err(Error::State(format!(
                "zone {zone} asked to take a block, but the device has {} zones",
                self.zones
            )));
        }
        Ok(self
            .dev
            .zone_admit(zone as u32, stream as usize, id, content))
    }

    fn finish_zone(&mut self, zone: u64, now: SimTime) -> Result<BioDone> {
        if zone >= self.zones {
            return Err(Error::State(format!(
                "zone {zone} finished, but the device has {} zones",
                self.zones
            )));
        }
        let req = Request::new(now, Op::ZoneFinish, zone * self.size * BLOCK, 0);
        let done = self.command(&req, &[], now, 0, None)?;
        Ok(BioDone {
            done,
            ..BioDone::default()
        })
    }

    fn reset_zone(&mut self, zone: u64, now: SimTime) -> Result<BioDone> {
        if zone >= self.zones {
            return Err(Error::State(format!(
                "zone {zone} reset, but the device has {} zones",
                self.zones
            )));
        }
        // A host waits for its writes to a zone to reach the flash before resetting it.
        let zns = self.dev.zns.as_ref().expect("zoned");
        let pages = zns.flash_pages(zone as u32, self.dev.compression.as_ref());
        let mut blocks = std::mem::take(&mut self.blocks);
        zns.map().blocks_holding(zone as u32, pages, &mut blocks);
        while blocks.iter().any(|&b| self.dev.sched.programs_pending(b)) && self.has_event() {
            self.step();
        }
        self.blocks = blocks;
        if zns_state(&self.dev, zone) == ZoneState::Empty {
            return Err(Error::State(format!(
                "the file system reset zone {zone}, which holds no data"
            )));
        }
        let req = Request::new(now, Op::ZoneReset, zone * self.size * BLOCK, 0);
        let done = self.command(&req, &[], now, 0, None)?;
        Ok(BioDone {
            done,
            ..BioDone::default()
        })
    }
}

fn zns_state(dev: &Device, zone: u64) -> ZoneState {
    dev.zns
        .as_ref()
        .expect("zoned")
        .zones
        .zone(zone as u32)
        .state
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2 channels x 1 plane x 8 blocks of 16 pages; a zone is one block per channel (32
    /// blocks of 4 KiB), 8 zones.
    fn disk() -> ZonedDisk {
        disk_with("")
    }

    /// [`disk`] with `extra` TOML appended (further tables).
    fn disk_with(extra: &str) -> ZonedDisk {
        let toml = r#"
preset = "zns"
[nand]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 8
pages_per_block = 16
[zns]
channels_per_zone = 2
chips_per_zone = 1
blocks_per_plane = 1
"#;
        let cfg = SimConfig::from_toml_str(&format!("{toml}{extra}"), "t").unwrap();
        ZonedDisk::new(&cfg, None).unwrap()
    }

    fn write(d: &mut ZonedDisk, lba: u64, n: u32, now: u64) -> Result<BioDone> {
        let ids: Vec<u64> = (0..n as u64).map(|i| 100 + i).collect();
        let bio = Bio {
            op: BioOp::Write,
            lba,
            blocks: n,
            flags: crate::stack::bio::BioFlags::NONE,
            stream: 0,
            content: &ids,
        };
        d.submit(&bio, SimTime(now), None)
    }

    fn err(r: Result<BioDone>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn writes_go_to_the_write_pointer_and_anything_else_is_an_error() {
        let mut d = disk();
        assert_eq!((d.zone_blocks(), d.logical_blocks()), (Some(32), 256));
        let done = write(&mut d, 0, 4, 0).unwrap();
        assert!(done.done > SimTime::ZERO && !done.failed);
        // Zone 1 starts at LBA 32; its block 0 sits at the zone's device offset.
        write(&mut d, 32, 2, 0).unwrap();
        let e = err(write(&mut d, 5, 1, 0));
        assert!(
            e.contains("block 5 of zone 0, whose write pointer is at block 4"),
            "{e}"
        );
        let e = err(write(&mut d, 30, 4, 0));
        assert!(e.contains("crosses the end of zone 0"), "{e}");
        let trim = Bio {
            op: BioOp::Trim,
            lba: 0,
            blocks: 4,
            flags: crate::stack::bio::BioFlags::NONE,
            stream: 0,
            content: &[],
        };
        let e = err(d.submit(&trim, SimTime(0), None));
        assert!(e.contains("takes no discard"), "{e}");
        // The refused writes never reached the device: its commands all succeeded.
        let c = d.device().zns.as_ref().unwrap().counters;
        assert_eq!((c.writes, c.failed()), (2, 0));
        assert_eq!(d.device().zns.as_ref().unwrap().zones.zone(0).wp, 4);
        assert_eq!(d.space().logical_bytes, 6 * BLOCK);
    }

    /// Each block of a multi-block write reaches the device with its own content id (a
    /// file's blocks hold unrelated data): with verify on, the zoned device holds block `i`'s
    /// id at block `i` of the zone, and reads of every block pass verify.
    #[test]
    fn each_block_of_a_write_keeps_its_own_content_id() {
        let mut d = disk_with("[check]\nverify = true\n");
        let ids = [9_001u64, 17, 4_242, 3, 77_777, 5, 600, 12];
        let bio = Bio {
            op: BioOp::Write,
            lba: 32,
            blocks: ids.len() as u32,
            flags: crate::stack::bio::BioFlags::NONE,
            stream: 0,
            content: &ids,
        };
        d.submit(&bio, SimTime(0), None).unwrap();
        let zns = d.device().zns.as_ref().unwrap();
        // Zone 1 (zone size 32 blocks) holds them from its block 0.
        let held: Vec<u64> = (0..8).map(|k| zns.content_of(32 + k)).collect();
        assert_eq!(held, ids);
        let read = Bio {
            op: BioOp::Read,
            lba: 32,
            blocks: 8,
            flags: crate::stack::bio::BioFlags::NONE,
            stream: 0,
            content: &[],
        };
        d.submit(&read, SimTime(0), None).unwrap();
        assert_eq!(d.device().counters.verified_page_reads, 8);
        // A write with fewer ids than blocks is the caller's bug, refused by name.
        let bad = Bio {
            content: &ids[..3],
            lba: 40,
            ..bio
        };
        let e = err(d.submit(&bad, SimTime(0), None));
        assert!(e.contains("came with 3 content ids"), "{e}");
    }

    #[test]
    fn a_reset_erases_the_zone_through_the_controller() {
        let mut d = disk();
        let e = err(d.reset_zone(0, SimTime(0)));
        assert!(e.contains("holds no data"), "{e}");
        // Fill zone 0 (two blocks of 16 pages), then reset it and write it again from 0.
        write(&mut d, 0, 32, 0).unwrap();
        let t = d.reset_zone(0, SimTime(0)).unwrap().done;
        let z = d.device().zns.as_ref().unwrap();
        assert_eq!((z.counters.resets, z.counters.reset_blocks_erased), (1, 2));
        assert_eq!(z.zones.zone(0).state, ZoneState::Empty);
        let again = write(&mut d, 0, 1, t.0).unwrap().done;
        d.advance(SimTime(u64::MAX / 4));
        assert_eq!(d.device().nand.counters.erases, 2);
        // The program waited for the erase of its block (5 ms in the zns preset).
        assert!(
            again.0 - t.0 >= 5_000_000,
            "{again:?} after the reset at {t:?}"
        );
        let e = err(d.reset_zone(8, SimTime(0)));
        assert!(e.contains("the device has 8 zones"), "{e}");
    }

    /// 4 channels of one die each, a zone on one channel (one block of 16 pages), reads of
    /// one timing: a 4 KiB read on an idle device takes command overhead 1000 ns + sense
    /// 60 us + channel transfer 4096 B / 1024 MB/s = 4000 ns + link 4096 B / 4096 MB/s =
    /// 1000 ns: L = 66 000 ns. Zones 0..4 (one per channel) hold 16 pages each.
    fn four_dies() -> ZonedDisk {
        let toml = r#"
preset = "zns"
[nand]
channels = 4
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 8
pages_per_block = 16
read_latency_us = [60.0, 60.0, 60.0]
channel_mb_per_s = 1024.0
[host]
link_mb_per_s = 4096.0
command_overhead_ns = 1000
[zns]
channels_per_zone = 1
chips_per_zone = 1
blocks_per_plane = 1
"#;
        let cfg = SimConfig::from_toml_str(toml, "t").unwrap();
        let mut d = ZonedDisk::new(&cfg, None).unwrap();
        for z in 0..4 {
            write(&mut d, z * 16, 16, 0).unwrap();
        }
        d.reset_after_fill();
        d
    }

    /// 16 one-page reads by `streams` closed-loop readers (1 or 4), each reading its next
    /// page once its last read completed, submitted to the disk in time order (as the stack
    /// does): at 1, the reader goes round the 4 zones (zone k % 4, page k / 4); at 4, reader
    /// `s` reads zone `s`. Every read's completion, in submission order.
    fn read_loop(d: &mut ZonedDisk, streams: u64) -> Vec<SimTime> {
        let per = 16 / streams;
        let mut next = vec![(SimTime::ZERO, 0u64); streams as usize];
        let mut out = Vec::new();
        while let Some(s) = (0..streams as usize)
            .filter(|&s| next[s].1 < per)
            .min_by_key(|&s| (next[s].0, s))
        {
            let (t, k) = next[s];
            let (z, page) = if streams == 1 {
                (k % 4, k / 4)
            } else {
                (s as u64, k)
            };
            let bio = Bio {
                op: BioOp::Read,
                lba: z * 16 + page,
                blocks: 1,
                flags: crate::stack::bio::BioFlags::NONE,
                stream: 0,
                content: &[],
            };
            let done = d.submit(&bio, t, None).unwrap().done;
            out.push(done);
            next[s] = (done, k + 1);
        }
        out
    }

    /// At queue depth 4 the reads of 4 readers on 4 dies overlap: 16 reads take 4 read
    /// latencies plus the 3 link transfers by which the 4 readers' data queue for the host
    /// link in the first round (their skew then persists), against 16 latencies at queue
    /// depth 1. Hand sums: QD1 16 x 66 000 ns; QD4 4 x 66 000 + 3 x 1000 ns.
    #[test]
    fn reads_on_different_dies_overlap_at_queue_depth_above_one() {
        let l = 66_000u64;
        let qd1 = read_loop(&mut four_dies(), 1);
        assert_eq!(qd1.iter().max().unwrap().0, 16 * l);
        // Each read on an idle device: exactly L after the last.
        for w in qd1.windows(2) {
            assert_eq!(w[1].0 - w[0].0, l);
        }
        let qd4 = read_loop(&mut four_dies(), 4);
        assert_eq!(qd4.len(), 16);
        assert_eq!(qd4.iter().max().unwrap().0, 4 * l + 3 * 1000);
        // The first round: all four submitted at 0, their data one link transfer apart.
        assert_eq!(
            qd4[..4].iter().map(|t| t.0).collect::<Vec<_>>(),
            [l, l + 1000, l + 2000, l + 3000]
        );
        // Deterministic: the same submissions give the same completions.
        assert_eq!(read_loop(&mut four_dies(), 4), qd4);
    }

    /// Writes to different zones overlap too, and a zone's writes reach the flash in the
    /// order they were issued: of three writes queued to one zone (one plane) at once, each
    /// programs its 4 pages after the one before it has programmed its own.
    #[test]
    fn queued_writes_to_one_zone_program_in_order_and_zones_overlap() {
        let mut d = four_dies();
        // Zones 4..8 are empty, zone z + 4 on channel z. Four writes of 4 pages at 0.
        let mut done = Vec::new();
        for z in 4..8 {
            done.push(write(&mut d, z * 16, 4, 0).unwrap().done);
        }
        // Two more to zone 4 at 0 (queued behind the first, at the write pointer).
        let a = write(&mut d, 4 * 16 + 4, 4, 0).unwrap().done;
        let b = write(&mut d, 4 * 16 + 8, 4, 0).unwrap().done;
        // zns preset: 250 us a program, every page type.
        let program = 250_000;
        assert!(
            a.0 >= done[0].0 + 4 * program && b.0 >= a.0 + 4 * program,
            "{done:?} {a:?} {b:?}"
        );
        // The four zones' writes ran side by side: each within one program of the first.
        assert!(done.iter().all(|t| t.0 < done[0].0 + program), "{done:?}");
        d.advance(SimTime(u64::MAX / 4));
        assert_eq!(d.device().zns.as_ref().unwrap().zones.zone(4).wp, 12);
        d.check_invariants().unwrap();
    }
}
