//! fio's `verify=meta` with `verify_pattern` (fio 3.33: `meta` is `VERIFY_HDR_ONLY`): a
//! 40-byte verify header at the start of every `verify_interval` chunk, the pattern after it.
//! Every block differs (no duplicates) and compresses like the pattern but for its headers.

use crate::support::config;
use flashpress_core::config::FioWorkload;
use flashpress_core::sim::Simulation;
use flashpress_core::stats::Summary;

fn run(job: &str, extra: &str) -> Summary {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, job).unwrap();
    let cfg = config(&format!(
        "preset = \"tiny\"\n[precondition]\nfill_fraction = 0.0\naging_fraction = 0.0\n{extra}\n\
         [workload]\ntype = \"fio\"\npath = '{}'\n",
        path.display()
    ));
    Simulation::new(cfg).unwrap().run().unwrap().summary
}

fn hints(job: &str) -> flashpress_core::Result<Vec<flashpress_core::workload::ContentHints>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, job).unwrap();
    let cfg = FioWorkload {
        path: Some(path),
        global: Default::default(),
        jobs: Vec::new(),
        args: Vec::new(),
        vars: Default::default(),
    };
    let l = flashpress_core::workload::fio::load(&cfg, 1 << 30, 1, false, None)?;
    Ok(l.streams.into_iter().map(|s| s.content).collect())
}

const JOB: &str = "[w]\nrw=write\nbs=64k\nsize=1m\nverify=meta\nverify_pattern=0xaa555aa5\n";

#[test]
fn the_compressible_share_is_the_pattern_share_of_each_chunk() {
    // (interval - 40) / interval, in whole percent: 512 -> 92, 4096 -> 99, 64k (the
    // default: the block) -> 99.
    for (interval, pct) in [
        ("verify_interval=512\n", 92),
        ("verify_interval=4k\n", 99),
        ("", 99),
        // Larger than the block: fio cuts it to the smallest write (64k).
        ("verify_interval=128k\n", 99),
    ] {
        let h = hints(&format!("{JOB}{interval}")).unwrap();
        assert_eq!(h[0].compress_percentage, Some(pct), "{interval}");
        assert_eq!(h[0].pattern, None, "blocks are not the bare pattern");
    }
}

#[test]
fn headed_blocks_never_deduplicate_and_are_verified() {
    let dedup = "[ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n";
    // With verify=pattern, all 256 blocks are the same 4 KiB: 255 duplicates.
    let s = run(
        "[w]\nrw=write\nbs=64k\nsize=1m\nverify=pattern\nverify_pattern=0xaa555aa5\n",
        dedup,
    );
    assert_eq!(s.dedup.unwrap().counters.inline_duplicates, 255);
    // With verify=meta each block carries headers: none is a duplicate. The verify pass
    // reads all 256 back, checked by content id.
    let s = run(&format!("{JOB}verify_interval=512\n"), dedup);
    assert_eq!(s.dedup.unwrap().counters.inline_duplicates, 0);
    assert_eq!(s.host_read_bytes, 1 << 20);
    assert_eq!(s.verified_page_reads, 256);
}

#[test]
fn bad_verify_intervals_are_refused_with_their_line() {
    for (v, want) in [
        ("verify_interval=40", "give more than 40 bytes"),
        ("verify_interval=3000", "divide every block size"),
        ("verify_interval=zz", "expected a byte count"),
    ] {
        let e = hints(&format!("{JOB}{v}\n")).unwrap_err().to_string();
        assert!(e.contains("job.fio:7:") && e.contains(want), "{v}: {e}");
    }
    let e = hints(&format!(
        "{JOB}verify_interval=512\nbuffer_compress_percentage=50\n"
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("give one or the other"), "{e}");
    // Varying sizes with no interval: fio takes the smallest write, 4 KiB, which divides
    // 64 KiB (99%); 6 KiB is not a multiple of 4 KiB, so chunks would be cut short.
    let ranged = "[w]\nrw=write\nsize=1m\nverify=meta\nverify_pattern=0x01\n";
    let h = hints(&format!("{ranged}bsrange=4k-64k\n")).unwrap();
    assert_eq!(h[0].compress_percentage, Some(99));
    let e = hints(&format!("{ranged}bsrange=4k-6k\n"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("job.fio:5:") && e.contains("interval of 4096 bytes"),
        "{e}"
    );
}

/// The other verify kinds with `verify_pattern` (fio 3.33, `xxd` of its 4 KiB blocks): the
/// header is followed by the kind's checksum before the pattern resumes, so the pattern's share
/// of a 512-byte chunk is (512 - H) / 512 with H = 56 for md5, 44 for crc32c, 104 for
/// sha256, 41 for crc7, 40 for `verify_pattern` without `verify` (fio's VERIFY_PATTERN);
/// `pattern` and `null` write the pattern alone.
#[test]
fn every_verify_kind_writes_its_header_and_checksum() {
    let base = "[w]\nrw=write\nbs=64k\nsize=1m\nverify_pattern=0xaa555aa5\nverify_interval=512\n";
    for (kind, pct) in [
        ("verify=md5\n", Some(89)),
        ("verify=crc32c\n", Some(91)),
        ("verify=sha256\n", Some(79)),
        ("verify=crc7\n", Some(91)),
        ("", Some(92)),
        ("verify=pattern\n", None),
        ("verify=null\n", None),
    ] {
        let h = hints(&format!("{base}{kind}")).unwrap();
        assert_eq!(h[0].compress_percentage, pct, "{kind}");
        assert_eq!(h[0].pattern.is_some(), pct.is_none(), "{kind}");
    }
    // Headed blocks are all different; verified by content id.
    let dedup = "[ftl.dedup]\nmode = \"inline\"\nhash_us = 14.0\n";
    for kind in ["verify=md5\n", ""] {
        let s = run(&format!("{base}{kind}"), dedup);
        assert_eq!(s.dedup.unwrap().counters.inline_duplicates, 0, "{kind}");
        assert_eq!(s.verified_page_reads, 256, "{kind}");
    }
    let e = hints(&format!("{base}verify=sha257\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("verify=sha257"), "{e}");
}
