//! fio's zone modes against fio's rules, computed here, and against fio's own iologs
//! (`crates/flashpress-core/tests/fio-iolog`, made by fio 3.33; see the README there).

use super::super::iolog_tests::{all, iolog};
use super::super::{load, FioLoad};
use super::ZonedDevice;
use crate::error::Result;
use crate::workload::{Op, Request};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

fn dev(zone_size: u64, capacity: u64, zones: u64, max_open: u32) -> ZonedDevice {
    ZonedDevice {
        zone_size,
        zone_capacity: capacity,
        zones,
        max_open_zones: max_open,
        compressed_zones: false,
        written: Vec::new(),
    }
}

fn run(text: &str, cap: u64, zoned: Option<ZonedDevice>) -> Result<FioLoad> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    load(&super::super::tests::file_cfg(path), cap, 7, false, zoned)
}

fn data_ops(rs: &[Request]) -> Vec<(Op, u64, u64)> {
    rs.iter()
        .filter(|r| matches!(r.op, Op::Read | Op::Write))
        .map(|r| (r.op, r.offset, r.len))
        .collect()
}

fn problem(r: Result<FioLoad>) -> String {
    match r {
        Err(e) => e.to_string(),
        Ok(_) => panic!("expected a refusal"),
    }
}

/// fio's sequential write in zbd mode, from its rules: writes at each zone's write pointer
/// from the region's start, a jump from a zone's capacity to the next zone's start, a new pass
/// from the region's start at its end, and a reset of each full zone before its first write
/// of the new pass. The write pointers, the resets and the offsets equal fio's own iolog of
/// the same job on zones it emulated (14 zone resets, fio's count).
#[test]
fn zbd_sequential_writes_follow_fios_write_pattern() {
    let (zs, cap, zones, bs) = (8 * MIB, 6 * MIB, 8, MIB);
    let text = "[zbd-seq]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=8m\nrw=write\nbs=1m\nio_size=128m\n";
    let mut l = run(text, zones * zs, Some(dev(zs, cap, zones, 14))).unwrap();
    let got = all(&mut l.streams[0]);

    // The rule, by hand.
    let mut want = Vec::new();
    let mut wp = vec![0u64; zones as usize];
    let mut resets = 0;
    'passes: loop {
        for z in 0..zones {
            for _ in 0..cap / bs {
                if want.iter().filter(|r: &&Request| r.op == Op::Write).count() as u64 * bs
                    >= 128 * MIB
                {
                    break 'passes;
                }
                if wp[z as usize] == cap {
                    wp[z as usize] = 0;
                    resets += 1;
                    want.push(Request {
                        op: Op::ZoneReset,
                        offset: z * zs,
                        len: zs,
                        ..got[0]
                    });
                }
                want.push(Request {
                    op: Op::Write,
                    offset: z * zs + wp[z as usize],
                    len: bs,
                    ..got[0]
                });
                wp[z as usize] += bs;
            }
        }
    }
    let shape = |rs: &[Request]| -> Vec<(Op, u64, u64)> {
        rs.iter().map(|r| (r.op, r.offset, r.len)).collect()
    };
    assert_eq!(shape(&got), shape(&want));
    assert_eq!(resets, 14);
    assert_eq!(got.iter().filter(|r| r.op == Op::ZoneReset).count(), 14);
    // fio's own stream of the job (its resets are not in an iolog).
    assert_eq!(data_ops(&got), iolog("zbd-seq-write.txt"));
}

/// fio's strided rule (`__fill_io_u_zone`): `zonesize` bytes in a window of `zonerange`
/// (default `zonesize`), then the window moves on by `zonerange + zoneskip`, back to the start
/// past the file's end; the job moves `size` bytes in all. As fio issues it (its iolog).
#[test]
fn strided_sequential_reads_skip_as_fio_does() {
    let text = "[profile]\nfilename=/dev/sdb\nrw=read\nbs=64k\nsize=16m\nzonemode=strided\nzonesize=256k\nzoneskip=2m\n";
    let mut l = run(text, 16 * MIB, None).unwrap();
    let got = data_ops(&all(&mut l.streams[0]));
    let (size, skip, bs, end) = (256 * KIB, 2 * MIB, 64 * KIB, 16 * MIB);
    let mut want = Vec::new();
    let mut window = 0;
    while (want.len() as u64) * bs < end {
        for k in 0..size / bs {
            want.push((Op::Read, window + k * bs, bs));
        }
        window += size + skip;
        if window >= end {
            window = 0;
        }
    }
    assert_eq!(got, want);
    assert_eq!(got, iolog("strided-read.txt"));
}

/// A window larger than the bytes per zone is only partly read; a zone size larger than
/// the window reads the window again; random I/O stays inside the window, each block of it
/// once per `zonerange` (the random map renewed), as fio's runs of the same jobs show.
#[test]
fn strided_windows_offsets_and_random_io() {
    // zonesize 128k < zonerange 512k, from offset 1m: 2 blocks of each 512k+1m stride,
    // wrapping to the offset once past the file's end (5 MiB).
    let text = "[j]\nfilename=/dev/sdb\nrw=read\nbs=64k\nsize=4m\noffset=1m\nzonemode=strided\nzonesize=128k\nzonerange=512k\nzoneskip=1m\n";
    let mut l = run(text, 5 * MIB, None).unwrap();
    let got: Vec<u64> = data_ops(&all(&mut l.streams[0]))
        .iter()
        .map(|r| r.1 / (64 * KIB))
        .collect();
    let cycle = [16, 17, 40, 41, 64, 65];
    assert_eq!(got.len(), 64);
    for (i, b) in got.iter().enumerate() {
        assert_eq!(*b, cycle[i % cycle.len()], "I/O {i}");
    }
    // Random: zonesize 256k over a 128k window: each window's two blocks twice (once per
    // renewal of the map), then the next window 128k + 1m on.
    let text = "[j]\nfilename=/dev/sdb\nrw=randread\nbs=64k\nsize=4m\nzonemode=strided\nzonesize=256k\nzonerange=128k\nzoneskip=1m\n";
    let mut l = run(text, 4 * MIB, None).unwrap();
    let got: Vec<u64> = data_ops(&all(&mut l.streams[0]))
        .iter()
        .map(|r| r.1 / (64 * KIB))
        .collect();
    assert_eq!(got.len(), 64);
    for (w, chunk) in got.chunks(2).enumerate() {
        let first = (w as u64 / 2 % 4) * 18;
        let mut c = chunk.to_vec();
        c.sort_unstable();
        assert_eq!(c, vec![first, first + 1], "pair {w}");
    }
}

/// Replays a zbd stream against the zone rules: every write at its zone's write pointer and
/// inside its capacity, a reset only of a zone, at most `max_open` zones partly written at
/// once. Returns writes per zone and resets.
fn check_zone_rules(
    rs: &[Request],
    zs: u64,
    cap: u64,
    zones: u64,
    max_open: usize,
) -> (Vec<u64>, u64) {
    let mut wp = vec![0u64; zones as usize];
    let mut writes = vec![0u64; zones as usize];
    let mut resets = 0;
    for r in rs {
        let z = (r.offset / zs) as usize;
        match r.op {
            Op::ZoneReset => {
                assert_eq!(r.offset % zs, 0);
                wp[z] = 0;
                resets += 1;
            }
            Op::Write => {
                assert_eq!(
                    r.offset,
                    z as u64 * zs + wp[z],
                    "write not at the write pointer"
                );
                assert!(wp[z] + r.len <= cap, "write past the zone capacity");
                wp[z] += r.len;
                writes[z] += 1;
                let open = wp.iter().filter(|&&w| w > 0 && w < cap).count();
                assert!(open <= max_open, "{open} zones open, limit {max_open}");
            }
            Op::Read => {
                assert!(
                    r.offset % zs + r.len <= wp[z],
                    "read beyond the write pointer"
                );
            }
            o => panic!("unexpected {o:?}"),
        }
    }
    (writes, resets)
}

/// fio's random writes in zbd mode: each goes to the write pointer of an open zone, the
/// zones open at most `max_open_zones` at a time, and over a long run every zone of the
/// region is written, none far more than the others.
#[test]
fn zbd_random_writes_go_to_open_zones_write_pointers() {
    let (zs, zones) = (4 * MIB, 16);
    let text = "[r]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=4m\nrw=randwrite\nbs=64k\nio_size=256m\nmax_open_zones=4\n";
    let mut l = run(text, zones * zs, Some(dev(zs, zs, zones, 14))).unwrap();
    let rs = all(&mut l.streams[0]);
    let (writes, resets) = check_zone_rules(&rs, zs, zs, zones, 4);
    let total: u64 = writes.iter().sum();
    assert_eq!(total, 256 * MIB / (64 * KIB));
    // Every zone filled at least once; writes beyond the device's size need resets.
    let mean = total / zones;
    eprintln!("writes per zone {writes:?}, resets {resets}");
    assert!(writes.iter().all(|&w| w >= 64), "{writes:?}");
    assert!(writes.iter().all(|&w| w <= 4 * mean), "{writes:?}");
    assert!(resets >= total * 64 * KIB / zs - zones);
}

/// Reads in zbd mode see only written blocks: a sequential read stops at the last write
/// pointer; random reads fall below the write pointers (fio's iolog of the same jobs: the
/// read job reads blocks 0 to 19 of a region written to 20 MiB).
#[test]
fn zbd_reads_stay_below_the_write_pointer() {
    let (zs, zones) = (8 * MIB, 4);
    let text = "[global]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=8m\nbs=1m\nsize=32m\n[a]\nrw=write\nio_size=20m\n[b]\nstonewall\nrw=read\n[c]\nstonewall\nrw=randread\nio_size=8m\n";
    let mut l = run(text, zones * zs, Some(dev(zs, zs, zones, 0))).unwrap();
    let mut rs = Vec::new();
    for s in l.streams.iter_mut() {
        rs.push(all(s));
    }
    let b: Vec<u64> = rs[1].iter().map(|r| r.offset / MIB).collect();
    assert_eq!(b, (0..20).collect::<Vec<u64>>());
    assert_eq!(rs[2].len(), 8);
    let flat: Vec<Request> = rs.concat();
    check_zone_rules(&flat, zs, zs, zones, 4);
}

/// zone_reset_threshold / zone_reset_frequency: once the valid data passes the threshold
/// of the region, every (1 / frequency)-th write resets the zone it goes to first (fio's
/// `zbd_dec_and_reset_write_cnt`), computed here by hand.
#[test]
fn zbd_reset_threshold_and_frequency() {
    let (zs, zones, bs) = (4 * MIB, 4, MIB);
    let text = "[t]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=4m\nrw=write\nbs=1m\nio_size=16m\nzone_reset_threshold=0.5\nzone_reset_frequency=0.25\n";
    let mut l = run(text, zones * zs, Some(dev(zs, zs, zones, 0))).unwrap();
    let got: Vec<(Op, u64)> = all(&mut l.streams[0])
        .iter()
        .map(|r| (r.op, r.offset))
        .collect();
    let mut want = Vec::new();
    let (mut wp, mut valid, mut cnt, mut pos) = (vec![0u64; zones as usize], 0u64, 4u64, 0u64);
    for _ in 0..16 {
        let z = (pos / zs) as usize;
        let mut reset = false;
        if valid >= zones * zs / 2 {
            cnt -= 1;
            if cnt == 0 {
                cnt = 4;
                reset = true;
            }
        }
        if reset || wp[z] + bs > zs {
            valid -= wp[z];
            wp[z] = 0;
            want.push((Op::ZoneReset, z as u64 * zs));
        }
        want.push((Op::Write, z as u64 * zs + wp[z]));
        pos = z as u64 * zs + wp[z] + bs;
        wp[z] += bs;
        valid += bs;
    }
    assert_eq!(got, want);
    assert!(got.iter().any(|g| g.0 == Op::ZoneReset));
}

/// Every combination fio refuses (or flashpress cannot honour) is refused, naming its key.
#[test]
fn bad_zone_options_are_refused_by_name() {
    let zoned = Some(dev(8 * MIB, 6 * MIB, 8, 14));
    let cases: &[(&str, Option<ZonedDevice>, &str)] = &[
        (
            "zonemode=zbd\nzonesize=8m\nrw=write\n",
            None,
            "`zonemode=zbd`: zonemode=zbd needs a zoned device",
        ),
        (
            "zonesize=8m\nrw=read\n",
            None,
            "`zonesize=8m`: zonemode=none",
        ),
        (
            "zonemode=strided\nrw=read\n",
            None,
            "`zonemode=strided`: zonemode=strided needs a positive zonesize",
        ),
        (
            "zonemode=bogus\n",
            None,
            "`zonemode=bogus`: unknown zonemode",
        ),
        (
            "zonemode=zbd\nzonesize=4m\nrw=write\n",
            zoned.clone(),
            "`zonesize=4m`: zonesize 4194304 does not match the device's zone size 8388608",
        ),
        (
            "zonemode=zbd\nmax_open_zones=32\nrw=randwrite\n",
            zoned.clone(),
            "`max_open_zones=32`: max_open_zones 32 is larger than the device's limit of 14",
        ),
        (
            "zonemode=zbd\njob_max_open_zones=2\nrw=randwrite\n",
            zoned.clone(),
            "`job_max_open_zones=2`: job_max_open_zones cannot be used without",
        ),
        (
            "zonemode=zbd\nmax_open_zones=5000\nrw=randwrite\n",
            zoned.clone(),
            "`max_open_zones=5000`: expected at most 4096",
        ),
        (
            "zonemode=zbd\nzone_reset_threshold=2\nrw=write\n",
            zoned.clone(),
            "`zone_reset_threshold=2`: expected a number between 0 and 1",
        ),
        (
            "zonemode=zbd\nzone_reset_frequency=x\nrw=write\n",
            zoned.clone(),
            "`zone_reset_frequency=x`: expected a number between 0 and 1",
        ),
        (
            "zonemode=zbd\nzonesize=8m\nzonerange=4m\nrw=write\n",
            zoned.clone(),
            "`zonerange=4m`: with zonemode=zbd, zonerange and zonesize must be identical",
        ),
        (
            "zonemode=zbd\nzonesize=8m\nbs=16m\nrw=write\n",
            zoned.clone(),
            "`bs=16m`: a block of 16777216 bytes exceeds the zone size",
        ),
        (
            "zonemode=zbd\nzoneskip=8m\nrw=write\n",
            zoned.clone(),
            "`zoneskip=8m`: zoneskip with zonemode=zbd is not supported",
        ),
        (
            "zonemode=zbd\nrw=trim\n",
            zoned.clone(),
            "`rw=trim`: trims with zonemode=zbd",
        ),
        (
            "zonemode=strided\nzonesize=1m\nread_beyond_wp=1\nrw=read\n",
            None,
            "`read_beyond_wp=1`: applies to zonemode=zbd only",
        ),
        (
            "zonemode=strided\nzonesize=1m\nrw=write\nverify=crc32c\n",
            None,
            "`verify=crc32c`: verify with zonemode=strided is not supported",
        ),
        (
            "zoneskip=1m\nrw=read\n",
            None,
            "`zoneskip=1m`: needs zonemode=strided or zonemode=zbd",
        ),
        (
            "zonemode=zbd\nrw=write\nsize=4m\n",
            zoned.clone(),
            "holds no whole zone of 8388608 bytes",
        ),
        (
            "zonemode=zbd\nrw=read\n",
            zoned.clone(),
            "`zonemode=zbd`: this zbd job only reads",
        ),
    ];
    for (opts, device, want) in cases {
        let text = format!("[j]\nfilename=/dev/nvme0n1\n{opts}");
        let msg = problem(run(&text, 64 * MIB, device.clone()));
        assert!(msg.contains(want), "{opts:?}: got {msg}");
        assert!(
            msg.contains("job.fio"),
            "{opts:?}: the file is named: {msg}"
        );
    }
}

/// With `verify`, fio resets the region's zones holding data at each pass's start (so no
/// reset has to destroy data it will verify mid-pass), and never reopens a full zone.
#[test]
fn zbd_verify_resets_the_region_at_each_pass() {
    let (zs, zones) = (4 * MIB, 4);
    let text = "[v]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=4m\nrw=write\nbs=1m\nloops=2\nverify=crc32c\n";
    let mut l = run(text, zones * zs, Some(dev(zs, zs, zones, 0))).unwrap();
    let got: Vec<(Op, u64)> = all(&mut l.streams[0])
        .iter()
        .filter(|r| r.op != Op::Read)
        .map(|r| (r.op, r.offset / MIB))
        .collect();
    let mut want: Vec<(Op, u64)> = (0..16).map(|b| (Op::Write, b)).collect();
    want.extend((0..4).map(|z| (Op::ZoneReset, z * 4)));
    want.extend((0..16).map(|b| (Op::Write, b)));
    assert_eq!(got, want);
}

/// A device `precondition.fill_fraction` filled, as fio sees it: the zones the fill writes
/// are those fio's own sequential writer fills with as many bytes (each zone to its capacity
/// from zone 0, the last partly: fio 3.33's iolog `zbd-fill.txt`), and a read-only job shaped
/// like fio's `examples/zbd-seq-read.fio` then reads exactly what fio read after that writer
/// (`zbd-read-filled.txt`): whole 1 MiB blocks below each write pointer, zone 4's last
/// 320 KiB left unread, nothing past it.
#[test]
fn a_read_only_zbd_job_on_a_filled_device_reads_what_fio_reads() {
    // 8 zones of 8 MiB, each 6 MiB of flash (4 planes x 3 blocks x 128 pages of 4 KiB).
    let mut cfg = crate::config::SimConfig::preset("tiny").unwrap();
    cfg.nand.blocks_per_plane = 24;
    cfg.nand.pages_per_block = 128;
    let z = crate::config::ZnsConfig {
        channels_per_zone: 2,
        chips_per_zone: 1,
        blocks_per_plane: 3,
        zone_size: Some(8 * MIB),
        max_open_zones: 0,
        max_active_zones: 0,
        read_only_zones: Vec::new(),
        offline_zones: Vec::new(),
        compression: None,
    };
    assert_eq!(
        (z.zones(&cfg.nand), z.zone_capacity_bytes(&cfg.nand)),
        (8, 6 * MIB)
    );
    // fio's writer wrote 27 MiB + 320 KiB = 6992 blocks of the 12288 (0.56905 x 12288 =
    // 6992.5, rounded down).
    let plan: Vec<u64> = crate::device::zns::fill_plan(&z, &cfg.nand, 0.56905)
        .into_iter()
        .map(|n| n * 4096)
        .collect();
    let mut fio_fill = vec![0u64; 8];
    for (op, off, len) in iolog("zbd-fill.txt") {
        assert_eq!(op, Op::Write);
        let zone = (off / (8 * MIB)) as usize;
        // Each write at the zone's write pointer: the zone is filled from its start.
        assert_eq!(off % (8 * MIB), fio_fill[zone], "write at {off}");
        fio_fill[zone] += len;
    }
    assert_eq!(plan, fio_fill);
    assert_eq!(
        plan,
        [6, 6, 6, 6, 3, 0, 0, 0]
            .iter()
            .map(|m| m * MIB)
            .zip([0, 0, 0, 0, 320 * KIB, 0, 0, 0])
            .map(|(a, b)| a + b)
            .collect::<Vec<u64>>()
    );

    let filled = ZonedDevice {
        written: plan,
        ..dev(8 * MIB, 6 * MIB, 8, 0)
    };
    let text = "[seqread]\nfilename=/dev/nvme0n1\nzonemode=zbd\nzonesize=8m\nrw=read\nbs=1m\noffset=16m\nsize=40m\nread_beyond_wp=0\n";
    let mut l = run(text, 64 * MIB, Some(filled)).unwrap();
    let got = all(&mut l.streams[0]);
    assert_eq!(data_ops(&got), iolog("zbd-read-filled.txt"));
    // By hand: zones 2 and 3 give 6 reads each, zone 4 three (its fourth 1 MiB block would
    // end past the write pointer at 3 MiB + 320 KiB), zones 5 to 6 are empty.
    let want: Vec<u64> = (0..6)
        .map(|b| 16 * MIB + b * MIB)
        .chain((0..6).map(|b| 24 * MIB + b * MIB))
        .chain((0..3).map(|b| 32 * MIB + b * MIB))
        .collect();
    assert_eq!(got.iter().map(|r| r.offset).collect::<Vec<_>>(), want);

    // The same job with the device empty in its zones: refused in one line.
    let e = problem(run(text, 64 * MIB, Some(dev(8 * MIB, 6 * MIB, 8, 0))));
    assert!(e.contains("zones 2 to 6 hold no data"), "{e}");
}
