//! fio's sg engine write modes beyond plain WRITE (`sg_write_mode`, engines/sg.c
//! `fio_sgio_prep`), and the 512-byte sectors a SCSI VERIFY compares.
//!
//! With `sg_write_mode` set, every write of an `ioengine=sg` job is another SCSI command:
//! - `verify_bytchk_00`: VERIFY with BYTCHK=00, "a medium verification with no data
//!   comparison" (fio HOWTO); no data out (`hdr->dxfer_len = 0`). It cannot miscompare.
//! - `verify_bytchk_01`: VERIFY with BYTCHK=01: the device compares the whole buffer sent
//!   (the job's block size) with the medium.
//! - `verify_bytchk_11`: VERIFY with BYTCHK=11: one logical block is sent
//!   (`hdr->dxfer_len = sd->bs`) and compared with every block of the range.
//! - `write_same_ndob`: WRITE SAME(16) with NDOB set: no data out (`dxfer_len = 0`); the
//!   range becomes "a pre-determined pattern such as all zeroes" (fio HOWTO), zeros on
//!   SBC devices.
//!
//! A VERIFY is timed as a device read of its range. Its comparison is the device's: a
//! difference ends the command with CHECK CONDITION (sense key MISCOMPARE), which fio's sg
//! engine turns into `io_u->error = EIO` (`fio_sgio_queue`: `else if (hdr->status)`) and
//! `td_verror(td, io_u->error, "xfer")`: fio reports err=5 (Input/output error) for the job
//! and ends it, unless `continue_on_error` covers write errors (the command is a write to fio:
//! `DDIR_WRITE`). fio does not count a failed I/O's bytes or latency (io_u.c,
//! `io_completed`), and neither does flashpress: the command is counted in `requests_failed`.
//!
//! The device keeps one content id per 4 KiB page, and the sg examples write and compare
//! 512-byte sectors, so the comparison is made here, on a map of what the run's fio jobs
//! wrote to each 512-byte sector of the device ([`Medium`]): a pattern at a byte phase, zeros,
//! or data equal to nothing else. A sector no job wrote holds what the device held before the
//! run: the preconditioning's data below the preconditioned bytes, zeros above them (a mapped
//! nothing reads as zeros).

use crate::content::Pattern;
use std::collections::BTreeMap;

/// fio's sg engine transfers and compares logical blocks; flashpress's devices take 512-byte
/// sectors (the smallest block size a fio job may give).
pub(super) const SECTOR: u64 = 512;

/// What BYTCHK asks the device to compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Bytchk {
    /// 00: the medium only, no data out.
    Medium,
    /// 01: the whole buffer sent, block for block.
    Full,
    /// 11: one block sent, compared with every block of the range.
    OneBlock,
}

/// A job's `sg_write_mode`: which SCSI command its writes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SgMode {
    /// WRITE(10/16), the default.
    Write,
    /// WRITE SAME(16) with NDOB: the range becomes zeros, no data out.
    WriteSameNdob,
    /// VERIFY(10/16) with this BYTCHK.
    Verify(Bytchk),
}

impl SgMode {
    /// fio's values (engines/sg.c `options[]`, `sg_write_mode`'s `posval`).
    pub(super) fn parse(v: &str) -> Result<SgMode, String> {
        Ok(match v.trim() {
            "write" => SgMode::Write,
            "write_same_ndob" => SgMode::WriteSameNdob,
            "verify_bytchk_00" => SgMode::Verify(Bytchk::Medium),
            "verify_bytchk_01" => SgMode::Verify(Bytchk::Full),
            "verify_bytchk_11" => SgMode::Verify(Bytchk::OneBlock),
            m @ ("write_and_verify" | "verify") => {
                return Err(format!(
                    "sg_write_mode={m}: WRITE AND VERIFY (a write the device then checks on its medium) is not modelled; use write, or a write job followed by a verify_bytchk_00 job"
                ))
            }
            m @ ("write_same" | "same") => {
                return Err(format!(
                    "sg_write_mode={m}: WRITE SAME with a data-out block (one 512-byte block repeated over the range) is not modelled; write_same_ndob (zeros) is"
                ))
            }
            "write_stream" => {
                return Err(
                    "sg_write_mode=write_stream: WRITE STREAM (stream_id) is not modelled".into(),
                )
            }
            m => {
                return Err(format!(
                    "sg_write_mode={m}: expected write, write_same_ndob, verify_bytchk_00, verify_bytchk_01 or verify_bytchk_11"
                ))
            }
        })
    }

    /// The SCSI command, for messages.
    pub(super) fn command(self) -> &'static str {
        match self {
            SgMode::Write => "WRITE",
            SgMode::WriteSameNdob => "WRITE SAME(16) NDOB",
            SgMode::Verify(Bytchk::Medium) => "VERIFY BYTCHK=00",
            SgMode::Verify(Bytchk::Full) => "VERIFY BYTCHK=01",
            SgMode::Verify(Bytchk::OneBlock) => "VERIFY BYTCHK=11",
        }
    }

    /// Bytes the command sends to the device for a range of `len` bytes.
    pub(super) fn data_out(self, len: u64) -> u64 {
        match self {
            SgMode::Write | SgMode::Verify(Bytchk::Full) => len,
            SgMode::WriteSameNdob | SgMode::Verify(Bytchk::Medium) => 0,
            SgMode::Verify(Bytchk::OneBlock) => SECTOR.min(len),
        }
    }
}

/// What a run of sectors holds.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Fill {
    /// Zero bytes (WRITE SAME NDOB, a trim, a never-written sector of an unfilled device).
    Zero,
    /// A pattern repeated, the run's first sector starting at byte `phase` of it.
    Pattern(Pattern, u64),
    /// Generated bytes (a write without a pattern, the preconditioning's data): equal to
    /// nothing a job compares, so runs of it join whatever wrote them (the map stays as
    /// small as the written extents).
    Data,
}

impl Fill {
    /// The fill of the sector `k` sectors into a run of this fill.
    fn advanced(&self, k: u64) -> Fill {
        match self {
            Fill::Pattern(p, ph) => {
                let l = p.bytes().len() as u64;
                Fill::Pattern(p.clone(), (ph + (k % l) * SECTOR) % l)
            }
            f => f.clone(),
        }
    }

    /// Whether sector `k` of a run of this fill and sector `j` of a run of `other` hold
    /// the same bytes.
    fn sector_eq(&self, k: u64, other: &Fill, j: u64) -> bool {
        match (self, other) {
            (Fill::Data, _) | (_, Fill::Data) => false,
            (Fill::Zero, Fill::Zero) => true,
            (Fill::Zero, Fill::Pattern(p, _)) | (Fill::Pattern(p, _), Fill::Zero) => {
                p.bytes().iter().all(|&b| b == 0)
            }
            (Fill::Pattern(a, pa), Fill::Pattern(b, pb)) => {
                let (la, lb) = (a.bytes().len() as u64, b.bytes().len() as u64);
                let (mut ia, mut ib) = (
                    ((pa + (k % la) * SECTOR) % la) as usize,
                    ((pb + (j % lb) * SECTOR) % lb) as usize,
                );
                for _ in 0..SECTOR {
                    if a.bytes()[ia] != b.bytes()[ib] {
                        return false;
                    }
                    ia = if ia + 1 == la as usize { 0 } else { ia + 1 };
                    ib = if ib + 1 == lb as usize { 0 } else { ib + 1 };
                }
                true
            }
        }
    }

    /// Sectors after which the fill's sector bytes repeat.
    fn period(&self) -> u64 {
        match self {
            Fill::Pattern(p, _) => {
                let l = p.bytes().len() as u64;
                l / gcd(l, SECTOR)
            }
            _ => 1,
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What the run's fio jobs wrote to each 512-byte sector of the device, as runs of equal
/// fill (start sector -> end sector, fill of the first sector).
#[derive(Debug, Default)]
pub(super) struct Medium {
    runs: BTreeMap<u64, (u64, Fill)>,
    /// Sectors below this one that no job wrote hold the preconditioning's data.
    preconditioned: u64,
}

/// The first sector whose bytes differ from what a VERIFY sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Miscompare {
    pub sector: u64,
}

impl Medium {
    /// A device whose first `preconditioned_bytes` were filled before the run.
    pub(super) fn new(preconditioned_bytes: u64) -> Medium {
        Medium {
            runs: BTreeMap::new(),
            preconditioned: preconditioned_bytes / SECTOR,
        }
    }

    /// `len` bytes at byte `addr` now hold `fill` (from its first sector on).
    pub(super) fn write(&mut self, addr: u64, len: u64, fill: Fill) {
        let (a, b) = (addr / SECTOR, (addr + len).div_ceil(SECTOR));
        if b <= a {
            return;
        }
        // Cut the runs that overlap [a, b): keep their parts outside it.
        let overlapping: Vec<u64> = self
            .runs
            .range(..b)
            .rev()
            .take_while(|(_, (e, _))| *e > a)
            .map(|(s, _)| *s)
            .collect();
        for s in overlapping {
            let (e, f) = self.runs.remove(&s).expect("run present");
            if s < a {
                self.runs.insert(s, (a, f.clone()));
            }
            if e > b {
                self.runs.insert(b, (e, f.advanced(b - s)));
            }
        }
        // Join the run before when this one continues it (sequential writes of a pattern
        // whose length divides a sector, zeros), so the map stays small.
        if let Some((&s, (e, f))) = self.runs.range(..a).next_back() {
            if *e == a && f.advanced(a - s) == fill {
                let f = f.clone();
                self.runs.insert(s, (b, f));
                return;
            }
        }
        self.runs.insert(a, (b, fill));
    }

    /// What a never-written sector `s` holds.
    fn unwritten(&self, s: u64) -> Fill {
        if s < self.preconditioned {
            Fill::Data
        } else {
            Fill::Zero
        }
    }

    /// Compare `len` bytes at `addr` with `sent` (`one_block`: its first sector against
    /// every sector, BYTCHK=11; else sector `k` of the range against sector `k` of `sent`).
    pub(super) fn compare(
        &self,
        addr: u64,
        len: u64,
        sent: &Fill,
        one_block: bool,
    ) -> Option<Miscompare> {
        let (a, b) = (addr / SECTOR, (addr + len).div_ceil(SECTOR));
        let mut s = a;
        // Pieces of [a, b): runs of the map, and the gaps between them.
        let mut pieces: Vec<(u64, u64, Fill)> = Vec::new();
        if let Some((&rs, (re, f))) = self.runs.range(..=a).next_back() {
            if *re > a {
                pieces.push((a, (*re).min(b), f.advanced(a - rs)));
                s = (*re).min(b);
            }
        }
        for (&rs, (re, f)) in self.runs.range(a + 1..b) {
            if rs > s {
                pieces.extend(self.gap(s, rs));
            }
            pieces.push((rs, (*re).min(b), f.clone()));
            s = (*re).min(b);
        }
        if s < b {
            pieces.extend(self.gap(s, b));
        }
        for (ps, pe, f) in pieces {
            // Sector bytes repeat with the fills' periods: comparing one common period
            // (at most the piece) checks them all.
            let cycle = lcm(f.period(), sent.period()).min(pe - ps);
            for k in 0..cycle {
                let j = if one_block { 0 } else { ps + k - a };
                if !f.sector_eq(k, sent, j) {
                    return Some(Miscompare { sector: ps + k });
                }
            }
        }
        None
    }

    /// The never-written sectors `[s, e)` as pieces (preconditioned below, zeros above).
    fn gap(&self, s: u64, e: u64) -> Vec<(u64, u64, Fill)> {
        let p = self.preconditioned.clamp(s, e);
        let mut out = Vec::new();
        if p > s {
            out.push((s, p, self.unwritten(s)));
        }
        if e > p {
            out.push((p, e, self.unwritten(p)));
        }
        out
    }
}

/// Notes of failed commands kept for the summary (the count goes on past them).
const NOTED_FAILURES: u64 = 10;

/// The medium and the failed commands, shared by the run's fio streams.
#[derive(Debug)]
pub(super) struct SgShared {
    pub medium: Medium,
    /// Commands the device ended with CHECK CONDITION.
    pub failed: u64,
    /// What the summary says about them (the first [`NOTED_FAILURES`], then a count).
    pub notes: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl SgShared {
    pub(super) fn new(preconditioned_bytes: u64) -> SgShared {
        SgShared {
            medium: Medium::new(preconditioned_bytes),
            failed: 0,
            notes: Default::default(),
        }
    }

    /// A VERIFY of `len` bytes at `addr` by job `job` sent `sent` (`None`: BYTCHK=00, no
    /// comparison). Returns whether the device fails it (a miscompare), noted for the summary.
    pub(super) fn verify(
        &mut self,
        job: &str,
        mode: SgMode,
        addr: u64,
        len: u64,
        sent: Option<&Fill>,
        goes_on: bool,
    ) -> bool {
        let one = mode == SgMode::Verify(Bytchk::OneBlock);
        let Some(m) = sent.and_then(|f| self.medium.compare(addr, len, f, one)) else {
            return false;
        };
        self.failed += 1;
        let mut notes = self
            .notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        notes.retain(|n| !n.starts_with("sg: "));
        if self.failed <= NOTED_FAILURES {
            notes.push(format!(
                "job `{job}`: {} of {len} bytes at byte {addr} miscompares at sector {} (byte {}): the device ends it with CHECK CONDITION, sense key MISCOMPARE; fio reports err=5 (Input/output error){} (counted in requests_failed)",
                mode.command(),
                m.sector,
                m.sector * SECTOR,
                if goes_on {
                    " and, under continue_on_error, goes on"
                } else {
                    " and ends the job"
                }
            ));
        }
        notes.push(format!(
            "sg: {} command(s) failed with CHECK CONDITION (a VERIFY that miscompared)",
            self.failed
        ));
        true
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(b: &[u8]) -> Fill {
        Fill::Pattern(Pattern::new(b), 0)
    }

    #[test]
    fn modes_parse_as_fio_names_them() {
        assert_eq!(SgMode::parse("write"), Ok(SgMode::Write));
        assert_eq!(
            SgMode::parse("verify_bytchk_11"),
            Ok(SgMode::Verify(Bytchk::OneBlock))
        );
        assert_eq!(
            SgMode::parse(" write_same_ndob "),
            Ok(SgMode::WriteSameNdob)
        );
        for bad in [
            "write_and_verify",
            "verify",
            "same",
            "write_same",
            "write_stream",
        ] {
            let e = SgMode::parse(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains("not modelled"), "{e}");
        }
        for bad in ["", "verify_bytchk_10", "WRITE", "verify_bytchk_01x"] {
            let e = SgMode::parse(bad).unwrap_err();
            assert!(e.contains("expected write, write_same_ndob"), "{e}");
        }
        // Bytes out per command of 10240 bytes (fio: dxfer_len).
        let out: Vec<u64> = [
            SgMode::Write,
            SgMode::WriteSameNdob,
            SgMode::Verify(Bytchk::Medium),
            SgMode::Verify(Bytchk::Full),
            SgMode::Verify(Bytchk::OneBlock),
        ]
        .iter()
        .map(|m| m.data_out(10240))
        .collect();
        assert_eq!(out, [10240, 0, 0, 10240, 512]);
    }

    /// A brute-force reference: the bytes of every sector, written one by one.
    struct Bytes(Vec<Option<Vec<u8>>>);

    impl Bytes {
        fn write(&mut self, addr: u64, len: u64, p: Option<&[u8]>) {
            for k in 0..len / SECTOR {
                let s = (addr / SECTOR + k) as usize;
                self.0[s] = Some(match p {
                    None => vec![0; SECTOR as usize],
                    Some(p) => (0..SECTOR)
                        .map(|i| p[((k * SECTOR + i) % p.len() as u64) as usize])
                        .collect(),
                });
            }
        }
    }

    #[test]
    fn the_map_agrees_with_a_sector_by_sector_reference() {
        use rand::{Rng, SeedableRng};
        let pats: [&[u8]; 4] = [&[1], &[0], &[0xaa, 0x55, 0x5a, 0xa5], &[1, 2, 3]];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for _ in 0..200 {
            let mut m = Medium::new(0);
            let mut r = Bytes(vec![Some(vec![0; 512]); 64]);
            for _ in 0..rng.random_range(1..12) {
                let a = rng.random_range(0..60u64);
                let n = rng.random_range(1..=(64 - a).min(9));
                let p = rng.random_range(0..5usize);
                let pp = pats.get(p).copied();
                m.write(a * SECTOR, n * SECTOR, pp.map_or(Fill::Zero, pat));
                r.write(a * SECTOR, n * SECTOR, pp);
            }
            for _ in 0..20 {
                let a = rng.random_range(0..64u64);
                let n = rng.random_range(1..=(64 - a));
                let p = pats[rng.random_range(0..4usize)];
                let one = rng.random_bool(0.5);
                let want = (0..n).find(|&k| {
                    let sent: Vec<u8> = (0..SECTOR)
                        .map(|i| {
                            let o = if one { i } else { k * SECTOR + i };
                            p[(o % p.len() as u64) as usize]
                        })
                        .collect();
                    r.0[(a + k) as usize].as_deref() != Some(&sent[..])
                });
                let got = m.compare(a * SECTOR, n * SECTOR, &pat(p), one);
                assert_eq!(got.map(|x| x.sector), want.map(|k| a + k), "{a} {n} {one}");
            }
        }
    }

    #[test]
    fn never_written_sectors_are_zeros_above_the_preconditioned_bytes() {
        let m = Medium::new(4096);
        // Sectors 0..8 hold preconditioning data, 8.. zeros.
        assert_eq!(
            m.compare(0, 512, &Fill::Zero, false),
            Some(Miscompare { sector: 0 })
        );
        assert_eq!(m.compare(4096, 8192, &Fill::Zero, false), None);
        assert_eq!(
            m.compare(3584, 1024, &pat(&[0]), true),
            Some(Miscompare { sector: 7 })
        );
        // Data equals nothing, not even itself.
        let mut m = Medium::new(0);
        m.write(0, 1024, Fill::Data);
        assert_eq!(
            m.compare(0, 1024, &Fill::Data, false),
            Some(Miscompare { sector: 0 })
        );
    }

    #[test]
    fn sequential_writes_of_one_pattern_stay_one_run() {
        let mut m = Medium::new(0);
        for k in 0..1000 {
            m.write(k * 512, 512, pat(&[1]));
        }
        assert_eq!(m.runs.len(), 1);
        // A 3-byte pattern written 512 bytes at a time restarts at its first byte each write:
        // runs do not continue (sector 1 starts at byte 0, not at byte 512 mod 3 = 2).
        let mut m = Medium::new(0);
        m.write(0, 512, pat(&[1, 2, 3]));
        m.write(512, 512, pat(&[1, 2, 3]));
        assert_eq!(m.runs.len(), 2);
        assert_eq!(m.compare(0, 1024, &pat(&[1, 2, 3]), true), None);
        assert_eq!(
            m.compare(0, 1024, &pat(&[1, 2, 3]), false),
            Some(Miscompare { sector: 1 })
        );
    }
}
