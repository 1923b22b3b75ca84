//! The invariant check: mapping, reverse map, valid counts, block states and free lists agree.

use super::{BlockState, Ftl, NO_UNIT, UNMAPPED};
use crate::error::{Error, Result};

impl Ftl {
    /// Check every structural invariant; the first violation found is returned as an error.
    pub fn check_invariants(&self) -> Result<()> {
        let ppb = self.geo.pages_per_block as u64;
        let fail = |m: String| Err(Error::Invariant(m));
        let mut mapped = 0u64;
        for lpn in 0..self.l2p.len() {
            let ppn = self.l2p.get(lpn);
            if ppn == NO_UNIT {
                continue;
            }
            mapped += 1;
            if ppn >= self.geo.pages {
                return fail(format!(
                    "lpn {lpn} maps to ppn {ppn} past the array ({} pages)",
                    self.geo.pages
                ));
            }
            if self.p2l.get(ppn) != lpn {
                return fail(format!(
                    "lpn {lpn} -> ppn {ppn}, but ppn {ppn} -> lpn {}",
                    self.p2l.get(ppn)
                ));
            }
        }
        let mut valid_total = 0u64;
        for b in 0..self.geo.blocks as usize {
            let first = b as u64 * ppb;
            let wp = self.blocks.write_ptr[b];
            let mut valid = 0;
            for ppn in first..first + ppb {
                let lpn = self.p2l.get(ppn);
                if lpn == NO_UNIT {
                    continue;
                }
                if ppn - first >= wp as u64 {
                    return fail(format!(
                        "block {b}: page {} is valid past the write pointer {wp}",
                        ppn - first
                    ));
                }
                if lpn >= self.l2p.len() || self.l2p.get(lpn) != ppn {
                    return fail(format!(
                        "ppn {ppn} claims lpn {lpn}, which does not map back to it"
                    ));
                }
                valid += 1;
            }
            if valid != self.blocks.valid[b] {
                return fail(format!(
                    "block {b}: valid count {} but {valid} valid pages",
                    self.blocks.valid[b]
                ));
            }
            valid_total += valid as u64;
            let expect_wp_ok = match self.blocks.state[b] {
                BlockState::Free => wp == 0,
                BlockState::Open => (wp as u64) < ppb,
                BlockState::Sealed => wp as u64 == ppb,
            };
            if !expect_wp_ok {
                return fail(format!(
                    "block {b}: state {:?} with write pointer {wp}",
                    self.blocks.state[b]
                ));
            }
        }
        if valid_total != mapped {
            return fail(format!(
                "{mapped} mapped logical pages but {valid_total} valid physical pages"
            ));
        }
        if let Some(d) = self.dedup.as_ref() {
            d.check(|v| self.l2p.get(v as u64) != NO_UNIT)?;
            // The page map's entries from `tbase` on are translation pages, not nodes.
            let nodes = (0..self.tbase)
                .filter(|&v| self.l2p.get(v) != NO_UNIT)
                .count() as u64;
            if d.stored() != nodes {
                return fail(format!(
                    "dedup: {} stored pages but the page map maps {nodes} nodes",
                    d.stored()
                ));
            }
        }
        if let Some(f) = self.fdp.as_ref() {
            // Persistent isolation: a block holding a persistently isolated handle's data
            // holds no other handle's.
            for b in 0..self.geo.blocks as usize {
                let first = b as u64 * ppb;
                let mut seen: Option<u8> = None;
                for ppn in first..first + ppb {
                    let lpn = self.p2l.get(ppn);
                    if lpn == NO_UNIT || self.map.is_some() && lpn >= self.tbase {
                        continue;
                    }
                    let h = f.handle_of[ppn as usize];
                    match seen {
                        None => seen = Some(h),
                        Some(s)
                            if s != h && (f.persistent(s as usize) || f.persistent(h as usize)) =>
                        {
                            return fail(format!(
                                "block {b} holds data of handles {s} and {h}, one of them persistently isolated"
                            ));
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        let mut on_free_list = vec![false; self.geo.blocks as usize];
        for (p, list) in self.free.iter().enumerate() {
            for &b in list {
                if self.geo.plane_of_block(crate::units::BlockId(b)).0 as usize != p {
                    return fail(format!(
                        "block {b} on the free list of plane {p}, but it belongs to another plane"
                    ));
                }
                if std::mem::replace(&mut on_free_list[b as usize], true) {
                    return fail(format!("block {b} is on a free list twice"));
                }
                if self.blocks.state[b as usize] != BlockState::Free {
                    return fail(format!(
                        "block {b} is on a free list in state {:?}",
                        self.blocks.state[b as usize]
                    ));
                }
            }
        }
        for (b, st) in self.blocks.state.iter().enumerate() {
            if *st == BlockState::Free && !on_free_list[b] {
                return fail(format!("free block {b} is on no free list"));
            }
        }
        let mut open_seen = vec![false; self.geo.blocks as usize];
        for (slot, &b) in self.open.iter().enumerate() {
            if b == UNMAPPED {
                continue;
            }
            if self.blocks.state[b as usize] != BlockState::Open {
                return fail(format!(
                    "open slot {slot} holds block {b} in state {:?}",
                    self.blocks.state[b as usize]
                ));
            }
            if std::mem::replace(&mut open_seen[b as usize], true) {
                return fail(format!("block {b} is open in two slots"));
            }
        }
        for (b, st) in self.blocks.state.iter().enumerate() {
            if *st == BlockState::Open && !open_seen[b] {
                return fail(format!("block {b} is open but in no open slot"));
            }
        }
        Ok(())
    }

    /// Corrupt the reverse map (tests of the checker only).
    #[doc(hidden)]
    pub fn corrupt_for_test(&mut self) {
        if let Some(ppn) = (0..self.l2p.len())
            .map(|i| self.l2p.get(i))
            .find(|&p| p != NO_UNIT)
        {
            self.p2l.set(ppn, NO_UNIT);
        }
    }
}
