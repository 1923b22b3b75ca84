//! fio's sg engine commands (`sg_write_mode`): SCSI VERIFY with BYTCHK 00/01/11 and WRITE
//! SAME with NDOB, against counts worked out by hand from fio's rules (engines/sg.c
//! `fio_sgio_prep`/`fio_sgio_queue`, the HOWTO's `sg_write_mode` and `continue_on_error`).
//!
//! Every job below runs after the one before (`stonewall`), addresses the device from byte
//! 0 (`filename=/dev/sdb`, no `offset`) and issues `number_ios` commands of `bs` bytes in
//! order. A VERIFY is timed as a read of its range; one that miscompares is failed
//! (`requests_failed`; `requests_completed` counts it too, as every finished request), left
//! out of the byte counts, and ends its job.

use crate::support::config;
use flashpress_core::sim::Simulation;
use flashpress_core::stats::Summary;

fn sim(text: &str, fill: f64, extra: &str) -> flashpress_core::error::Result<Simulation> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n[precondition]\nfill_fraction = {fill:?}\naging_fraction = 0.0\n{extra}\n\
         [workload]\ntype = \"fio\"\npath = '{}'\n",
        path.display()
    ));
    Simulation::new(cfg)
}

fn run_filled(text: &str, fill: f64, extra: &str) -> Summary {
    sim(text, fill, extra).unwrap().run().unwrap().summary
}

fn run_file(text: &str, extra: &str) -> Summary {
    run_filled(text, 0.0, extra)
}

fn run_file_err(text: &str, extra: &str) -> String {
    match sim(text, 0.0, extra) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

const GLOBAL: &str = "[global]\nfilename=/dev/sdb\nbuffer_pattern=0x01\nioengine=sg\nrw=write\nbs=512\nnumber_ios=20\nstonewall\n";

/// The jobs that failed, from the summary's notes.
fn failed_jobs(s: &Summary) -> Vec<String> {
    s.workload_notes
        .iter()
        .filter(|n| n.contains("miscompares"))
        .map(|n| n.split('`').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn the_passing_verify_jobs_pass() {
    // sg_verify.fio's jobs: 20 writes of 512 bytes of 0x01, then verifies of the same
    // 10240 bytes with BYTCHK 00 (20 x 512), 01 (20 x 512, 2 x 5120) and 11 (20 x 512,
    // 5 x 2048, 1 x 10240): 68 VERIFYs, every one passing.
    let text = format!(
        "{GLOBAL}[precon]\n[verify00]\nsg_write_mode=verify_bytchk_00\n\
         [verify01]\nsg_write_mode=verify_bytchk_01\n\
         [verify01-two_ios]\nsg_write_mode=verify_bytchk_01\nbs=5120\nnumber_ios=2\n\
         [verify11]\nsg_write_mode=verify_bytchk_11\n\
         [verify11-five_ios]\nsg_write_mode=verify_bytchk_11\nbs=2048\nnumber_ios=5\n\
         [verify11-one_ios]\nsg_write_mode=verify_bytchk_11\nbs=10240\nnumber_ios=1\n"
    );
    let s = run_file(&text, "");
    assert_eq!(s.requests_failed, 0, "{:?}", s.workload_notes);
    assert_eq!(s.requests_completed, 20 + 68);
    assert_eq!(s.host_write_bytes, 20 * 512);
    assert_eq!(s.host_read_bytes, 6 * 10240);
    assert!(failed_jobs(&s).is_empty());
}

#[test]
fn the_failing_verify_jobs_fail_where_the_file_says() {
    // sg_verify-fail.fio: verify01 passes (20 sectors); verify01-fail's 21st VERIFY covers
    // sector 20, which precon never wrote (zeros on a device that was not filled): it
    // miscompares; verify11-one_ios (10240 bytes) passes; verify11-fail (10752 bytes, 21
    // sectors) miscompares at sector 20.
    let text = format!(
        "{GLOBAL}[precon]\n[verify01]\nsg_write_mode=verify_bytchk_01\nnumber_ios=20\n\
         [verify01-fail]\nsg_write_mode=verify_bytchk_01\nnumber_ios=21\n\
         [verify11-one_ios]\nsg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10240\n\
         [verify11-fail]\nsg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10752\n"
    );
    for fill in [0.0, 0.5] {
        // On a preconditioned device sector 20 holds the preconditioning's data: it
        // miscompares all the same.
        let s = run_filled(&text, fill, "");
        assert_eq!(
            failed_jobs(&s),
            ["verify01-fail", "verify11-fail"],
            "{fill}"
        );
        assert_eq!(s.requests_failed, 2);
        // precon 20 writes; verify01 20; verify01-fail 21 (the last failed); verify11-one_ios
        // 1; verify11-fail 1 (failed). `requests_completed` counts failed requests too.
        assert_eq!(s.requests_completed, 20 + 20 + 21 + 1 + 1);
        assert_eq!(s.host_read_bytes, 10240 * 3);
        let notes = s.workload_notes.join("\n");
        assert!(
            notes.contains("at byte 10240 miscompares at sector 20"),
            "{notes}"
        );
        assert!(notes.contains("sg: 2 command(s) failed"), "{notes}");
    }
}

#[test]
fn write_same_ndob_writes_zeros_that_verify_as_zeros() {
    // sg_write_same_ndob.fio: 20 sectors of 0x01; WRITE SAME NDOB zeroes sectors 0..19;
    // 19 VERIFYs of zeros pass; the 20-sector verify reaches sector 19, still 0x01, and fails.
    let text = "[global]\nfilename=/dev/sdb\nbuffer_pattern=0x01\nioengine=sg\nrw=write\nbs=512\nstonewall\n\
         [precon]\nnumber_ios=20\n\
         [write_same_ndob]\nsg_write_mode=write_same_ndob\nnumber_ios=19\n\
         [verify-pass]\nsg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=19\n\
         [verify-fail]\nsg_write_mode=verify_bytchk_01\nbuffer_pattern=0x00\nnumber_ios=20\n";
    let s = run_file(text, "");
    assert_eq!(failed_jobs(&s), ["verify-fail"]);
    assert_eq!(s.requests_failed, 1);
    assert_eq!(s.requests_completed, 20 + 19 + 19 + 20);
    assert_eq!(s.host_write_bytes, 39 * 512);
    assert_eq!(s.host_read_bytes, 38 * 512);
    assert!(s.workload_notes.join("\n").contains(
        "job `verify-fail`: VERIFY BYTCHK=01 of 512 bytes at byte 9728 miscompares at sector 19"
    ));
}

#[test]
fn a_miscompare_ends_the_job_unless_continue_on_error_covers_writes() {
    // 8 sectors written; 16 one-sector VERIFYs: 8 pass, the 9th fails. fio ends the job
    // there (7 never issued); continue_on_error=write (or io, all, 1) goes on: 8 failures.
    // `requests_completed` counts the failed commands too.
    for (coe, done, failed) in [
        ("", 9, 1),
        ("continue_on_error=none\n", 9, 1),
        ("continue_on_error=read\n", 9, 1),
        ("continue_on_error=verify\n", 9, 1),
        ("continue_on_error=write\n", 16, 8),
        ("continue_on_error=io\n", 16, 8),
        ("continue_on_error=all\n", 16, 8),
        ("continue_on_error=1\n", 16, 8),
    ] {
        let text = format!(
            "[global]\nfilename=/dev/sdb\nbuffer_pattern=0x5a\nioengine=sg\nrw=write\nbs=512\nstonewall\n\
             [w]\nnumber_ios=8\n[v]\nsg_write_mode=verify_bytchk_01\nnumber_ios=16\n{coe}"
        );
        let s = run_file(&text, "");
        assert_eq!(
            (s.requests_completed, s.requests_failed),
            (8 + done, failed),
            "{coe}"
        );
    }
}

/// fio ends a job whose VERIFY failed when the command *completes*: the commands issued
/// while it was in flight still complete, and none is issued after the failure is seen.
/// 16 one-page VERIFYs of a 0x5a buffer over pages nothing wrote (zeros on a device that was
/// not filled): every one miscompares, and every one is answered from the map in the same
/// time. Counted by hand: at queue depth 1 the first fails and nothing else was issued (1
/// VERIFY, 1 failed); at depth 4 the closed loop issues four at once, the first's completion
/// ends the job, and the other three were already issued (4 VERIFYs, 4 failed). Stopping at
/// the issue instead would give 1 at both depths.
#[test]
fn a_miscompare_stops_the_job_at_its_completion() {
    for (qd, done) in [(1, 1), (4, 4)] {
        let text = format!(
            "[v]\nfilename=/dev/sdb\nbuffer_pattern=0x5a\nioengine=sg\nrw=write\nbs=4k\n\
             sg_write_mode=verify_bytchk_01\nnumber_ios=16\niodepth={qd}\n"
        );
        let s = run_file(&text, "");
        assert_eq!(
            (s.requests_completed, s.requests_failed),
            (done, done),
            "iodepth={qd}"
        );
    }
}

#[test]
fn verify_compares_bytes_not_ids() {
    // A 3-byte pattern restarts at each write: with 512-byte writes, every sector starts at
    // the pattern's first byte. BYTCHK=11 (one sector sent, compared with each) matches;
    // BYTCHK=01 of 1024 bytes sends a buffer whose second sector starts at byte
    // 512 mod 3 = 2 of the pattern, and so miscompares at the range's second sector.
    let head =
        "[global]\nfilename=/dev/sdb\nbuffer_pattern=0x010203\nioengine=sg\nrw=write\nstonewall\n\
                [w]\nbs=512\nnumber_ios=4\n";
    let s = run_file(
        &format!("{head}[v]\nsg_write_mode=verify_bytchk_11\nbs=1024\nnumber_ios=2\n"),
        "",
    );
    assert_eq!((s.requests_completed, s.requests_failed), (6, 0));
    let s = run_file(
        &format!("{head}[v]\nsg_write_mode=verify_bytchk_01\nbs=1024\nnumber_ios=2\n"),
        "",
    );
    assert_eq!((s.requests_completed, s.requests_failed), (5, 1));
    assert!(s
        .workload_notes
        .join("\n")
        .contains("miscompares at sector 1 "));
    // A pattern that differs only past its first sector's worth of bytes: 0x01 vs 0x0101 are
    // the same bytes, so they compare equal.
    let s = run_file(
        "[global]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nstonewall\n\
         [w]\nbuffer_pattern=0x01\nnumber_ios=2\n\
         [v]\nbuffer_pattern=0x0101\nsg_write_mode=verify_bytchk_01\nnumber_ios=2\n",
        "",
    );
    assert_eq!((s.requests_completed, s.requests_failed), (4, 0));
}

#[test]
fn never_written_zeros_verify_only_on_a_device_that_was_not_filled() {
    let text = "[v]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=4\nbuffer_pattern=0x00\nsg_write_mode=verify_bytchk_01\n";
    let s = run_file(text, "");
    assert_eq!((s.requests_completed, s.requests_failed), (4, 0));
    let s = run_filled(text, 0.5, "");
    assert_eq!((s.requests_completed, s.requests_failed), (1, 1));
}

#[test]
fn write_same_zeros_compress_and_dedupe_as_zeros() {
    // 64 KiB of WRITE SAME NDOB: 16 blocks of zeros, one content (the zero pattern), which
    // the codec shrinks to almost nothing.
    let text = "[z]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=64k\nnumber_ios=1\nbuffer_pattern=0x77\nsg_write_mode=write_same_ndob\n";
    let s = run_file(text, "[content]\nmode = \"bytes\"\ncodec = \"zstd\"\n");
    let c = s.content.unwrap();
    assert_eq!(c.blocks_written, 16);
    let zeros = zstd::bulk::compress(&[0u8; 4096], 1).unwrap().len() as u64;
    assert!(
        c.compressed_bytes <= 16 * zeros.max(32),
        "{}",
        c.compressed_bytes
    );
}

#[test]
fn bad_sg_values_are_refused_with_their_line() {
    for (opt, want) in [
        (
            "sg_write_mode=verify_bytchk_10",
            "expected write, write_same_ndob",
        ),
        (
            "sg_write_mode=write_same",
            "WRITE SAME with a data-out block",
        ),
        ("sg_write_mode=write_and_verify", "WRITE AND VERIFY"),
        ("sg_write_mode=write_stream", "WRITE STREAM"),
        ("sg_write_mode=", "expected write, write_same_ndob"),
    ] {
        let e = run_file_err(
            &format!("[v]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=1\n{opt}\n"),
            "",
        );
        assert!(e.contains("job.fio:7:") && e.contains(want), "{opt}: {e}");
    }
    // A comparing VERIFY needs the buffer's bytes: a pattern.
    let e = run_file_err(
        "[v]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=1\nsg_write_mode=verify_bytchk_11\n",
        "",
    );
    assert!(e.contains("give buffer_pattern"), "{e}");
    // The mode belongs to the sg engine.
    let e = run_file_err(
        "[v]\nfilename=/dev/sdb\nioengine=libaio\nrw=write\nbs=4k\nnumber_ios=1\nsg_write_mode=verify_bytchk_00\n",
        "",
    );
    assert!(e.contains("option of ioengine=sg"), "{e}");
    let e = run_file_err(
        "[v]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=1\nbuffer_pattern=1\nsg_write_mode=verify_bytchk_01\ncontinue_on_error=maybe\n",
        "",
    );
    assert!(e.contains("continue_on_error=maybe: expected none"), "{e}");
    // fio's verify would read back what the job wrote, and a VERIFY job writes nothing.
    let e = run_file_err(
        "[v]\nfilename=/dev/sdb\nioengine=sg\nrw=write\nbs=4k\nnumber_ios=1\nverify=md5\nsg_write_mode=verify_bytchk_00\n",
        "",
    );
    assert!(e.contains("write nothing for verify to read back"), "{e}");
}

#[test]
fn a_compressing_device_fails_the_same_commands() {
    // The device's compressed read path carries the failure too (and the dedup layer
    // finds the 0x01 sectors' pages duplicates, which changes nothing the VERIFY compares).
    let text = format!(
        "{GLOBAL}[precon]\n[verify01-fail]\nsg_write_mode=verify_bytchk_01\nnumber_ios=21\n\
         [verify11-fail]\nsg_write_mode=verify_bytchk_11\nnumber_ios=1\nbs=10752\n"
    );
    for extra in [
        "[ftl]\nwrite_buffer_pages = 4\n[ftl.compression]\ncodec = \"lz4\"\nmin_saving = 0.1\nmax_chunks_per_page = 20\ncompress_us = 12.0\ndecompress_us = 12.0\n[content]\nmode = \"model\"\ncodec = \"lz4\"\n",
        "[ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n",
    ] {
        let s = run_file(&text, extra);
        assert_eq!(
            failed_jobs(&s),
            ["verify01-fail", "verify11-fail"],
            "{extra}"
        );
        assert_eq!(
            (s.requests_completed, s.requests_failed),
            (42, 2),
            "{extra}"
        );
        assert_eq!(s.host_read_bytes, 10240, "{extra}");
    }
}
