//! The split FTL's groups (PR-SSD section 4.3): logical pages that did not compress are
//! buffered `pieces` at a time and written as `pieces` VPNs, the `i`-th holding unit `i` of
//! each, so that a read of one page is `pieces` partial reads on as many channels.

use super::map::{self, UNMAPPED};
use super::{Chunk, Effects, PagePacker, SPLIT_LEN};
use crate::error::{Error, Result};

/// Groups of split pages (PR-SSD section 4.3): `pieces` logical pages buffered and written
/// as `pieces` flash pages, the `i`-th holding unit `i` of each. A member that goes releases
/// its piece in every VPN of the group, so the group's VPNs are freed together when its last
/// member goes. At most `capacity` groups exist (the split table's size); the caller reserves
/// `pieces - 1` VPNs for each, which is what a group of one live page holds beyond it.
pub(super) struct Groups {
    pub(super) pieces: u32,
    pub(super) unit: u32,
    /// VPNs of group `g` at `g * pieces..` (of a closed group).
    pub(super) vpns: Vec<u32>,
    /// Members still mapped, per group.
    pub(super) live: Vec<u8>,
    /// Free group ids (lowest last).
    pub(super) free: Vec<u32>,
    /// The group being filled in DRAM and its members by slot.
    pub(super) pending: Option<u32>,
    pub(super) members: Vec<u64>,
    /// The group closed last and its members by slot (for [`PagePacker::unsplit`]).
    pub(super) closed: Option<(u32, Vec<u64>)>,
    /// Logical pages mapped split (closed groups and the pending one).
    pub(super) split_live: u64,
    /// Per closed group, the slots of its members still mapped (a bit each).
    pub(super) slots: Vec<u8>,
}

impl PagePacker {
    /// Split pages that do not compress into `page / unit` pieces, with at most
    /// `max_split_pages` of them split at once. The VPN pool must hold `pieces - 1` VPNs for
    /// each of the `max_split_pages / pieces` groups beyond one per logical page.
    pub fn with_split(mut self, unit: u32, max_split_pages: u64) -> PagePacker {
        let pieces = self.page / unit;
        let capacity = (max_split_pages / pieces as u64) as u32;
        assert!(
            (2..=8).contains(&pieces)
                && self.live.len() as u64 > self.map_len() + (pieces as u64 - 1) * capacity as u64,
            "split bounds are checked by config validation"
        );
        self.groups = Some(Groups {
            pieces,
            unit,
            vpns: vec![UNMAPPED as u32; capacity as usize * pieces as usize],
            live: vec![0; capacity as usize],
            free: (0..capacity).rev().collect(),
            pending: None,
            members: Vec::with_capacity(pieces as usize),
            closed: None,
            split_live: 0,
            slots: vec![0; capacity as usize],
        });
        self
    }

    /// The split-table entry of slot `slot` of group `g`, as the map cache keys it: after the
    /// logical pages' entries, `pieces` per group.
    #[inline]
    pub(super) fn split_key_of(&self, g: u32, slot: u32) -> u64 {
        self.logical + g as u64 * self.pieces() as u64 + slot as u64
    }

    /// The split-table entry of split chunk `c` (its group and slot), as the map cache keys
    /// it (a demand-paged map, `ftl.map_cache`).
    #[inline]
    pub fn split_key(&self, c: Chunk) -> u64 {
        debug_assert!(c.split());
        self.split_key_of(c.vpn, c.offset)
    }

    /// The split-table entries of the group closed last (one per member).
    pub fn closed_keys(&self) -> impl Iterator<Item = u64> + '_ {
        let g = self.groups.as_ref().and_then(|g| g.closed.as_ref());
        let n = g.map_or(0, |c| c.1.len() as u32);
        let g = g.map_or(0, |c| c.0);
        (0..n).map(move |slot| self.split_key_of(g, slot))
    }

    fn map_len(&self) -> u64 {
        self.logical
    }

    /// Release a split page's entry: its slot of the pending group, or its piece in each VPN
    /// of its closed group.
    pub(super) fn release_split(&mut self, e: u64, fx: &mut Effects) {
        let (g, slot) = (map::ppn(e), map::offset(e) as usize);
        let gr = self
            .groups
            .as_mut()
            .expect("split entries need split groups");
        gr.split_live -= 1;
        gr.live[g as usize] -= 1;
        if gr.pending == Some(g) {
            gr.members.swap_remove(slot);
            if let Some(&moved) = gr.members.get(slot) {
                self.map.set(moved, map::pack(g, slot as u32, SPLIT_LEN));
                fx.remapped.push(moved);
            }
            if gr.members.is_empty() {
                gr.pending = None;
                gr.free.push(g);
            }
            return;
        }
        let k = gr.pieces as usize;
        gr.slots[g as usize] &= !(1u8 << slot);
        let mut vpns = [0u32; 8];
        vpns[..k].copy_from_slice(&gr.vpns[g as usize * k..][..k]);
        if gr.live[g as usize] == 0 {
            gr.free.push(g);
            gr.vpns[g as usize * k..][..k].fill(UNMAPPED as u32);
        }
        for &v in &vpns[..k] {
            self.release(v, fx);
        }
    }

    /// Whether a page that did not compress can be written split now (split is on and the
    /// split table has room).
    #[inline]
    pub fn can_split(&self) -> bool {
        self.groups
            .as_ref()
            .is_some_and(|g| g.pending.is_some() || !g.free.is_empty())
    }

    /// Pieces a split page has (0 without split).
    #[inline]
    pub fn pieces(&self) -> u32 {
        self.groups.as_ref().map_or(0, |g| g.pieces)
    }

    /// Whether split chunk `c`'s group is still being filled in DRAM.
    #[inline]
    pub fn split_pending(&self, c: Chunk) -> bool {
        debug_assert!(c.split());
        self.groups
            .as_ref()
            .is_some_and(|g| g.pending == Some(c.vpn))
    }

    /// Piece `i` of split chunk `c` (whose group is closed): unit `i` of the page, stored at
    /// the page's slot in the group's `i`-th VPN.
    #[inline]
    pub fn piece(&self, c: Chunk, i: u32) -> Chunk {
        let g = self
            .groups
            .as_ref()
            .expect("split chunks need split groups");
        Chunk {
            vpn: g.vpns[(c.vpn * g.pieces + i) as usize],
            offset: c.offset * g.unit,
            len: g.unit,
        }
    }

    /// Logical pages mapped split now.
    pub fn split_live(&self) -> u64 {
        self.groups.as_ref().map_or(0, |g| g.split_live)
    }

    /// Write logical page `lpn`, which did not compress, split: it joins the group being
    /// filled; when the group has `pieces` pages it closes, taking `pieces` VPNs (the last of
    /// `fx.write`, with `fx.group` set). Needs [`PagePacker::can_split`].
    pub fn write_split(&mut self, lpn: u64, fx: &mut Effects) -> Result<Chunk> {
        self.drop_old(lpn, fx);
        let gr = self.groups.as_mut().expect("split is on");
        let g = match gr.pending {
            Some(g) => g,
            None => {
                let g = gr.free.pop().ok_or_else(|| {
                    Error::Invariant("split table full: the caller checks can_split".into())
                })?;
                gr.pending = Some(g);
                g
            }
        };
        let slot = gr.members.len() as u32;
        gr.members.push(lpn);
        gr.live[g as usize] += 1;
        gr.split_live += 1;
        let live = gr.split_live;
        let full = gr.members.len() as u32 == gr.pieces;
        self.counters.split_live_max = self.counters.split_live_max.max(live);
        let chunk = Chunk {
            vpn: g,
            offset: slot,
            len: SPLIT_LEN,
        };
        self.map.set(lpn, map::pack(g, slot, SPLIT_LEN));
        if full {
            let k = self.pieces();
            for i in 0..k {
                let vpn = self.take()?;
                self.live[vpn as usize] = k as u8;
                fx.write.push(vpn);
                let gr = self.groups.as_mut().expect("split is on");
                gr.vpns[(g * k + i) as usize] = vpn;
                if let Some(r) = self.rev.as_mut() {
                    r.group[vpn as usize] = g;
                }
            }
            let gr = self.groups.as_mut().expect("split is on");
            gr.slots[g as usize] = ((1u16 << k) - 1) as u8;
            gr.pending = None;
            gr.closed = Some((g, std::mem::take(&mut gr.members)));
            fx.group = Some(g);
            self.counters.split_groups += 1;
            self.counters.split_pages += k as u64;
        }
        Ok(chunk)
    }

    /// The members of the group closed last, by slot.
    pub fn closed_members(&self) -> &[u64] {
        self.groups
            .as_ref()
            .and_then(|g| g.closed.as_ref())
            .map_or(&[], |c| &c.1)
    }

    /// Store the group closed last as pages of their own after all: member `k` becomes the
    /// whole of the group's `k`-th VPN (the same VPNs are written either way).
    pub fn unsplit(&mut self) {
        let gr = self.groups.as_mut().expect("split is on");
        let (g, members) = gr.closed.take().expect("a group closed");
        let k = gr.pieces as usize;
        debug_assert_eq!(gr.live[g as usize] as usize, k, "no member left yet");
        let mut vpns = [0u32; 8];
        vpns[..k].copy_from_slice(&gr.vpns[g as usize * k..][..k]);
        gr.vpns[g as usize * k..][..k].fill(UNMAPPED as u32);
        gr.live[g as usize] = 0;
        gr.slots[g as usize] = 0;
        gr.free.push(g);
        gr.split_live -= k as u64;
        for (&lpn, &vpn) in members.iter().zip(&vpns[..k]) {
            self.live[vpn as usize] = 1;
            self.map.set(lpn, map::pack(vpn, 0, self.page));
            if let Some(r) = self.rev.as_mut() {
                r.group[vpn as usize] = super::NO_GROUP;
            }
            self.record(vpn, lpn);
        }
        // Keep the vector for the next group.
        let gr = self.groups.as_mut().expect("split is on");
        if gr.members.is_empty() {
            gr.members = members;
            gr.members.clear();
        }
        self.counters.split_groups -= 1;
        self.counters.split_pages -= k as u64;
        self.counters.unsplit_groups += 1;
        self.counters.raw_pages += k as u64;
    }
}
