//! `precondition.fill_fraction` on a zoned device: the zones a sequential host fills, their
//! states and write pointers computed by hand, the resources they hold, reads and verify of
//! the filled data, and fio's read-only zbd job on it.

use super::state::ZoneState::{self, *};
use super::tests::{req, run, zoned_config};
use crate::config::SimConfig;
use crate::sim::Simulation;
use crate::workload::{ContentHints, Drive, Op, Request, RequestSource, Stream};

const ZONE: u64 = 256 * 1024;
const PAGE: u64 = 4096;

/// [`zoned_config`] (8 zones of 64 blocks, at most 2 open and 3 active) with zone 1 read-only
/// and zone 7 offline: 6 writable zones, 384 blocks.
fn filled(fill: f64) -> SimConfig {
    let mut c = zoned_config();
    let z = c.zns.as_mut().unwrap();
    z.read_only_zones = vec![1];
    z.offline_zones = vec![7];
    c.precondition.fill_fraction = fill;
    c.precondition.aging_fraction = 0.0;
    c
}

struct List(std::vec::IntoIter<Request>);

impl RequestSource for List {
    fn next_request(
        &mut self,
        _now: crate::units::SimTime,
    ) -> crate::error::Result<Option<Request>> {
        Ok(self.0.next())
    }
}

fn sim(cfg: SimConfig, reqs: Vec<Request>) -> Simulation {
    let s = Stream {
        name: "zoned".into(),
        source: Box::new(List(reqs.into_iter())),
        drive: Drive::Closed { depth: 1 },
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    };
    Simulation::with_streams(cfg, vec![s]).unwrap()
}

/// 0.6 of 384 writable blocks is 230 (230.4 rounded down): zones 0, 2 and 3 full (64 blocks
/// each; zone 1 is read-only and skipped), zone 4 written to 230 - 192 = 38 blocks and
/// closed, zones 5 and 6 empty. None of it is in the run's counters.
#[test]
fn the_fill_writes_zones_in_order_full_then_one_closed() {
    let s = sim(filled(0.6), vec![req(Op::Read, 0, PAGE)]);
    let zns = s.device().unwrap().zns.as_ref().unwrap();
    let want: [(ZoneState, u64); 8] = [
        (Full, 64),
        (ReadOnly, 0),
        (Full, 64),
        (Full, 64),
        (Closed, 38),
        (Empty, 0),
        (Empty, 0),
        (Offline, 0),
    ];
    for (z, &(state, wp)) in want.iter().enumerate() {
        let zone = zns.zones.zone(z as u32);
        assert_eq!(
            (zone.state, zone.wp, zone.written),
            (state, wp, wp),
            "zone {z}"
        );
    }
    zns.zones.check().unwrap();
    assert_eq!(zns.zones.open_counts(), (0, 0));
    assert_eq!(zns.zones.closed(), 1);
    // The plan fio reads from the device is the same, in bytes.
    let cfg = filled(0.6);
    let plan = super::fill_plan(cfg.zns.as_ref().unwrap(), &cfg.nand, 0.6);
    assert_eq!(plan, vec![64, 0, 64, 64, 38, 0, 0, 0]);
    let out = s.run().unwrap().summary;
    assert_eq!(out.precondition.fill_pages, 230);
    assert_eq!(out.precondition.erases, 0);
    // The one page read is the run's only flash work: the fill's programs are not counted.
    assert_eq!((out.nand_programs, out.nand_reads, out.erases), (0, 1, 0));
    let z = out.zns.as_ref().unwrap();
    assert_eq!(
        (
            z.zones_full,
            z.zones_closed,
            z.zones_empty,
            z.zones_implicitly_open
        ),
        (3, 1, 2, 0)
    );
    assert_eq!((z.counters.writes, z.failed_commands), (0, 0));
}

/// Whole zones: 0.5 of 384 blocks is 192, exactly zones 0, 2 and 3, all full; 1.0 fills every
/// writable zone; 0 writes nothing.
#[test]
fn whole_and_no_zones() {
    for (fill, want) in [
        (0.5, vec![64, 0, 64, 64, 0, 0, 0, 0]),
        (1.0, vec![64, 0, 64, 64, 64, 64, 64, 0]),
        (0.0, vec![0; 8]),
    ] {
        let cfg = filled(fill);
        assert_eq!(
            super::fill_plan(cfg.zns.as_ref().unwrap(), &cfg.nand, fill),
            want,
            "{fill}"
        );
        let s = sim(cfg, vec![req(Op::Read, 0, PAGE)]);
        let zns = s.device().unwrap().zns.as_ref().unwrap();
        zns.zones.check().unwrap();
        assert_eq!(zns.zones.closed(), 0, "{fill}: no zone partly written");
        for (z, &n) in want.iter().enumerate() {
            assert_eq!(zns.zones.zone(z as u32).wp, n, "{fill}: zone {z}");
        }
    }
}

/// The filled zones behave as zones a host wrote: a full one refuses a write, the closed one
/// takes the next write at its write pointer (and holds the only active resource under a
/// limit of 1), a reset erases exactly the blocks the fill programmed.
#[test]
fn filled_zones_take_commands_as_written_zones() {
    let mut cfg = filled(0.6);
    let r = vec![
        req(Op::Write, 0, PAGE),                    // zone 0 full
        req(Op::Write, 4 * ZONE, PAGE),             // zone 4 not at its write pointer (38)
        req(Op::Write, 4 * ZONE + 38 * PAGE, PAGE), // closed -> implicitly open
        req(Op::ZoneReset, 2 * ZONE, ZONE),         // 64 pages on 4 planes x 2 blocks
        req(Op::Write, 2 * ZONE, PAGE),
    ];
    let s = run(cfg.clone(), r);
    let z = s.zns.as_ref().unwrap();
    assert_eq!(z.counters.failed_zone_is_full, 1);
    assert_eq!(z.counters.failed_zone_invalid_write, 1);
    assert_eq!((z.counters.writes, z.counters.resets), (2, 1));
    assert_eq!(z.counters.reset_blocks_erased, 8);
    assert_eq!(s.erases, 8);
    assert_eq!((z.zones_full, z.zones_implicitly_open), (2, 2));

    // Under one active zone the closed zone holds it: an empty zone cannot open.
    let zn = cfg.zns.as_mut().unwrap();
    zn.max_open_zones = 1;
    zn.max_active_zones = 1;
    let s = run(
        cfg,
        vec![
            req(Op::Write, 5 * ZONE, PAGE),
            req(Op::Write, 4 * ZONE + 38 * PAGE, PAGE),
        ],
    );
    let z = s.zns.as_ref().unwrap();
    assert_eq!(z.counters.failed_too_many_active_zones, 1);
    assert_eq!(z.counters.writes, 1);
}

/// Verify mode: reads of filled zones return what the fill wrote (every page checked), the
/// blocks above the closed zone's write pointer read as nothing; a page changed on flash is
/// caught.
#[test]
fn verify_reads_the_filled_data_back() {
    let mut cfg = filled(0.6);
    cfg.check.verify = true;
    let r = vec![
        req(Op::Read, 0, ZONE),
        req(Op::Read, 4 * ZONE, ZONE),
        req(Op::Write, 4 * ZONE + 38 * PAGE, PAGE),
        req(Op::Read, 4 * ZONE + 37 * PAGE, 2 * PAGE),
    ];
    let s = run(cfg.clone(), r.clone());
    // Every page read is checked, the 26 above zone 4's write pointer as reading nothing.
    assert_eq!(s.verified_page_reads, 64 + 64 + 2);
    assert_eq!(s.unmapped_page_reads, 64 - 38);
    assert_eq!(s.nand_reads, 64 + 38 + 2);
    assert_eq!(s.requests_failed, 0);

    let mut bad = sim(cfg, r);
    bad.device_mut_for_test()
        .zns
        .as_mut()
        .unwrap()
        .corrupt_page_for_test(4, 5);
    let e = bad.run().err().expect("caught").to_string();
    assert!(
        e.contains(&format!("logical page {} read", 4 * 64 + 5)),
        "{e}"
    );
}

/// fio's read-only zbd job (`examples/zbd-seq-read.fio`'s shape) on the filled device reads
/// below each zone's write pointer only: zones 2 and 3 whole, zone 4's 38 blocks in 64 KiB
/// reads while a whole block fits (fio's `zbd_adjust_block`: 9 reads, the 2 blocks left
/// unread), then stops at the empty zone 5; the same run twice gives the same summary.
#[test]
fn fios_read_only_zbd_job_reads_the_filled_zones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.fio");
    std::fs::write(
        &path,
        "[r]\nfilename=/dev/nvme0n1\nzonemode=zbd\nrw=read\nbs=16k\noffset=512k\nsize=1m\nread_beyond_wp=0\n",
    )
    .unwrap();
    let mut cfg = filled(0.6);
    cfg.check.verify = true;
    cfg.workload = crate::config::WorkloadConfig::Fio(crate::config::FioWorkload {
        path: Some(path),
        global: Default::default(),
        jobs: Vec::new(),
        args: Vec::new(),
        vars: Default::default(),
    });
    let once = || Simulation::new(cfg.clone()).unwrap().run().unwrap().summary;
    let s = once();
    // 16 KiB = 4 blocks: zones 2 and 3 take 16 reads each; zone 4 holds 38 blocks, 9 reads
    // of 4 (the 10th would end past the write pointer).
    assert_eq!(s.read.requests, 16 + 16 + 9);
    assert_eq!(s.verified_page_reads, (16 + 16 + 9) * 4);
    assert_eq!(s.unmapped_page_reads, 0);
    assert_eq!(s.zns.as_ref().unwrap().failed_commands, 0);
    let json = |s: &crate::stats::Summary| serde_json::to_string(s).unwrap();
    assert_eq!(json(&s), json(&once()), "deterministic");

    // Nothing written in the job's zones: the one-line refusal.
    cfg.precondition.fill_fraction = 0.1; // 38 blocks, all in zone 0
    let e = Simulation::new(cfg).err().expect("refused").to_string();
    assert!(e.contains("this zbd job only reads"), "{e}");
    assert!(e.contains("zones 2 to 5 hold no data"), "{e}");
    assert!(!e.contains('\n'), "one line: {e}");
}

/// The fill is refused where it would not mean what it says.
#[test]
fn fill_refusals_name_their_key() {
    let mut c = filled(0.5);
    c.precondition.aging_fraction = 0.5;
    let e = c.validate("t.toml").unwrap_err().to_string();
    assert!(e.contains("precondition.aging_fraction"), "{e}");
    // Aging without a fill does nothing on any device: accepted.
    let mut c = filled(0.0);
    c.precondition.aging_fraction = 0.5;
    c.validate("t.toml").unwrap();
}
