//! Packing for a plain SSD that compresses in its controller (PR-SSD section 2.2, Fig. 3a;
//! section 4.2.3): compressed logical pages are merged in a page-sized DRAM buffer and written
//! together; a page that does not compress is written alone.
//!
//! The packer maps a logical page to a chunk of a *virtual page* (VPN): the page as the
//! controller filled it. The page FTL ([`crate::ftl::Ftl`]) maps VPNs to flash pages and its
//! GC moves a flash page whole, so a chunk keeps its VPN, offset and length for life and GC
//! needs no reverse map of chunks: "if a single valid bit exists in the merged physical
//! page, it should be copied to the free block". Per VPN the packer counts the chunks still
//! mapped into it (the seed's valid bitmap, as a count); at zero the VPN is freed and the
//! caller trims it in the page FTL, which invalidates its flash page.
//!
//! Memory: 8 bytes of map entry per logical page of a touched 64 Ki-page range
//! ([`super::map`]) plus 5 bytes per VPN (a chunk count and a slot in the free pool).

use super::fits;

mod split;
use super::map::{self, Map, UNMAPPED};
use crate::error::{Error, Result};
use split::Groups;

/// The VPN field of a logical page that holds only zeros (nothing stored).
pub const ZERO_VPN: u32 = u32::MAX;

/// The length field of a split logical page's map entry (above any page size); its VPN field
/// holds its group and its offset field its slot in the group.
const SPLIT_LEN: u32 = 0xFFFE;

/// Counters of the packer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PackerCounters {
    /// Logical pages stored in less than a page (merged with others).
    pub chunks: u64,
    /// Logical pages stored in a page of their own.
    pub raw_pages: u64,
    /// Logical pages of zeros only: nothing stored.
    pub zero_pages: u64,
    /// Bytes of the chunks written.
    pub chunk_bytes: u64,
    /// Merged pages closed for writing (each one flash page program).
    pub merged_pages: u64,
    /// Bytes of merged pages left empty when they were closed.
    pub pad_bytes: u64,
    /// Logical pages written split (into groups written as vertical packages).
    pub split_pages: u64,
    /// Groups of split pages written split.
    pub split_groups: u64,
    /// Groups written as pages of their own because no flash pages of one page type on
    /// different channels could take them.
    pub unsplit_groups: u64,
    /// Most logical pages split at once (the split mapping table's entries in use).
    pub split_live_max: u64,
}

/// VPNs a call leaves for the caller: pages to write now (closed merged pages and raw pages),
/// and pages whose last chunk went (trim them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    /// VPNs whose data is complete: write each to flash.
    pub write: Vec<u32>,
    /// VPNs no logical page maps into any more: discard each.
    pub freed: Vec<u32>,
    /// Logical pages whose map entry this call changed besides the one it wrote or trimmed
    /// (a member of the split group being filled moved to the slot of one that left).
    pub remapped: Vec<u64>,
    /// A group of split pages closed: the last `pieces` VPNs of `write` are its flash pages,
    /// piece `i` of every member in the `i`-th (write them on different channels, or call
    /// [`PagePacker::unsplit`]).
    pub group: Option<u32>,
}

impl Effects {
    /// Empty the lists for the next call.
    pub fn clear(&mut self) {
        self.write.clear();
        self.freed.clear();
        self.remapped.clear();
        self.group = None;
    }
}

/// The page currently being filled in DRAM.
#[derive(Debug, Clone, Copy)]
struct Open {
    vpn: u32,
    fill: u32,
    chunks: u32,
}

/// Where a logical page's data is. A split page's chunk names its group (`vpn`) and its slot
/// in it (`offset`); [`PagePacker::piece`] gives the chunk of each of its pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// The virtual page holding it (a split page: its group).
    pub vpn: u32,
    /// Byte offset in the page (a split page: its slot in the group).
    pub offset: u32,
    /// Bytes (the page size for a page stored as written).
    pub len: u32,
}

impl Chunk {
    /// Stored split: one piece in each VPN of a group.
    #[inline]
    pub fn split(&self) -> bool {
        self.len == SPLIT_LEN
    }

    /// Stored in less than a page (shares its page with others or could).
    #[inline]
    pub fn merged(&self, page: u32) -> bool {
        self.len < page
    }

    /// Nothing stored: the logical page holds only zeros.
    #[inline]
    pub fn zero(&self) -> bool {
        self.vpn == ZERO_VPN
    }
}

/// Per VPN the logical pages placed in it since it was taken, and the split group it is a
/// page of (`NO_GROUP`: none).
struct Residents {
    slots: Vec<u32>,
    len: Vec<u8>,
    group: Vec<u32>,
}

/// A VPN that is no split group's page.
const NO_GROUP: u32 = u32::MAX;

/// The packer.
pub struct PagePacker {
    page: u32,
    max_chunks: u32,
    map: Map,
    live: Vec<u8>,
    free: Vec<u32>,
    open: Option<Open>,
    groups: Option<Groups>,
    logical: u64,
    /// With a demand-paged map (`ftl.map_cache`): per VPN the logical pages placed in it
    /// since it was taken (`max_chunks` slots each, stale ones included), as PR-SSD's reverse
    /// map per flash page, and the split group it belongs to, so that GC moving a VPN can
    /// update their map entries (a split group's: its members' split-table entries).
    rev: Option<Residents>,
    /// Logical pages mapped.
    pub mapped: u64,
    /// Counters since the last reset.
    pub counters: PackerCounters,
}

impl PagePacker {
    /// A packer of `logical` logical pages over `vpns` virtual pages of `page` bytes,
    /// merging at most `max_chunks` compressed pages per page. Needs `vpns > logical`: every
    /// mapped VPN holds a mapped logical page, except the open one.
    pub fn new(page: u32, max_chunks: u32, logical: u64, vpns: u32) -> PagePacker {
        assert!(
            (vpns as u64) > logical && page < 1 << 16 && (1..=255).contains(&max_chunks),
            "packer bounds are checked by config validation"
        );
        PagePacker {
            page,
            max_chunks,
            map: Map::new(logical),
            live: vec![0; vpns as usize],
            // Lowest VPN first, so the page FTL sees its logical pages filled from 0.
            free: (0..vpns).rev().collect(),
            open: None,
            groups: None,
            logical,
            rev: None,
            mapped: 0,
            counters: PackerCounters::default(),
        }
    }

    /// Keep per VPN the logical pages placed in it ([`PagePacker::residents`]): a packed
    /// map paged by `ftl.map_cache` needs them when GC moves a VPN.
    pub fn with_residents(mut self) -> PagePacker {
        let vpns = self.live.len();
        self.rev = Some(Residents {
            slots: vec![0; vpns * self.max_chunks as usize],
            len: vec![0; vpns],
            group: vec![NO_GROUP; vpns],
        });
        self
    }

    /// Simulator bytes per VPN of [`PagePacker::with_residents`]: `max_chunks` slots, a
    /// count and a split group.
    pub fn residents_bytes_per_vpn(max_chunks: u32) -> usize {
        max_chunks as usize * std::mem::size_of::<u32>() + 1 + std::mem::size_of::<u32>()
    }

    /// The map-cache entries whose flash page field GC moving `vpn` changes, each once, into
    /// `out`: the logical pages whose chunks are in it, or for a page of a split group the
    /// split-table entries of the group's members still mapped ([`PagePacker::split_key`]).
    pub fn residents(&self, vpn: u32, out: &mut Vec<u32>) {
        out.clear();
        let Some(r) = self.rev.as_ref() else {
            return;
        };
        let g = r.group[vpn as usize];
        if g != NO_GROUP {
            let gr = self.groups.as_ref().expect("split groups");
            let mask = gr.slots[g as usize];
            for slot in 0..gr.pieces {
                if mask >> slot & 1 == 1 {
                    out.push(self.split_key_of(g, slot) as u32);
                }
            }
            return;
        }
        let k = self.max_chunks as usize;
        let base = vpn as usize * k;
        for &l in &r.slots[base..base + r.len[vpn as usize] as usize] {
            let e = self.map.get(l as u64);
            if e != UNMAPPED && map::len(e) != SPLIT_LEN && map::ppn(e) == vpn && !out.contains(&l)
            {
                out.push(l);
            }
        }
    }

    #[inline]
    fn record(&mut self, vpn: u32, lpn: u64) {
        if let Some(r) = self.rev.as_mut() {
            let k = self.max_chunks as usize;
            let n = &mut r.len[vpn as usize];
            r.slots[vpn as usize * k + *n as usize] = lpn as u32;
            *n += 1;
        }
    }

    /// Where logical page `lpn` is stored, if it is mapped.
    #[inline]
    pub fn lookup(&self, lpn: u64) -> Option<Chunk> {
        let e = self.map.get(lpn);
        (e != UNMAPPED).then(|| Chunk {
            vpn: map::ppn(e),
            offset: map::offset(e),
            len: map::len(e),
        })
    }

    /// The page being filled, if any.
    #[inline]
    pub fn open_vpn(&self) -> Option<u32> {
        self.open.map(|o| o.vpn)
    }

    /// Whether `vpn` is the page being filled (its data is still only in DRAM).
    #[inline]
    pub fn is_open(&self, vpn: u32) -> bool {
        self.open.is_some_and(|o| o.vpn == vpn)
    }

    /// Write logical page `lpn` as `len` bytes: nothing (`len` = 0: zeros only), a chunk
    /// (`len` < page) into the page being filled, or a page of its own (`len` = page).
    pub fn write(&mut self, lpn: u64, len: u32, fx: &mut Effects) -> Result<Chunk> {
        debug_assert!(len <= self.page);
        // The old data goes first, so that its page can take the new data: with every
        // logical page in a page of its own and the open page empty, all VPNs are in use.
        // A VPN freed here and taken again below is in both `fx.freed` and `fx.write`: the
        // caller discards before it writes.
        self.drop_old(lpn, fx);
        let chunk = if len == 0 {
            self.counters.zero_pages += 1;
            Chunk {
                vpn: ZERO_VPN,
                offset: 0,
                len: 0,
            }
        } else if len == self.page {
            self.counters.raw_pages += 1;
            let vpn = self.take()?;
            self.live[vpn as usize] += 1;
            self.record(vpn, lpn);
            fx.write.push(vpn);
            Chunk {
                vpn,
                offset: 0,
                len,
            }
        } else {
            self.counters.chunks += 1;
            self.counters.chunk_bytes += len as u64;
            if let Some(o) = self.open {
                if !fits(o.fill, o.chunks, len, self.page, self.max_chunks) {
                    self.close(fx);
                }
            }
            if self.open.is_none() {
                let vpn = self.take()?;
                self.open = Some(Open {
                    vpn,
                    fill: 0,
                    chunks: 0,
                });
            }
            let o = self.open.as_mut().expect("opened above");
            let c = Chunk {
                vpn: o.vpn,
                offset: o.fill,
                len,
            };
            o.fill += len;
            o.chunks += 1;
            let full = o.fill == self.page || o.chunks == self.max_chunks;
            self.live[c.vpn as usize] += 1;
            self.record(c.vpn, lpn);
            if full {
                self.close(fx);
            }
            c
        };
        self.map
            .set(lpn, map::pack(chunk.vpn, chunk.offset, chunk.len));
        Ok(chunk)
    }

    /// Discard logical page `lpn`.
    pub fn trim(&mut self, lpn: u64, fx: &mut Effects) {
        let old = self.map.unmap(lpn);
        if old != UNMAPPED {
            self.mapped -= 1;
            self.release_entry(old, fx);
        }
    }

    /// Release the old data of `lpn`, which is about to be written.
    fn drop_old(&mut self, lpn: u64, fx: &mut Effects) {
        let old = self.map.get(lpn);
        if old == UNMAPPED {
            self.mapped += 1;
        } else {
            self.release_entry(old, fx);
        }
    }

    /// Release what a map entry holds: nothing for zeros, its share of a VPN for a chunk,
    /// its slot of the pending group or its piece in each VPN of a closed group.
    fn release_entry(&mut self, e: u64, fx: &mut Effects) {
        if map::len(e) != SPLIT_LEN {
            if map::ppn(e) != ZERO_VPN {
                self.release(map::ppn(e), fx);
            }
            return;
        }
        self.release_split(e, fx);
    }

    /// Close the page being filled, if any, for writing.
    pub fn flush(&mut self, fx: &mut Effects) {
        if self.open.is_some() {
            self.close(fx);
        }
    }

    fn close(&mut self, fx: &mut Effects) {
        let o = self.open.take().expect("a page is open");
        self.counters.merged_pages += 1;
        self.counters.pad_bytes += (self.page - o.fill) as u64;
        if self.live[o.vpn as usize] == 0 {
            // Every chunk of it was overwritten while it filled: nothing to write.
            self.free.push(o.vpn);
        } else {
            fx.write.push(o.vpn);
        }
    }

    fn take(&mut self) -> Result<u32> {
        let vpn = self.free.pop().ok_or_else(|| {
            Error::Invariant(format!(
                "compressed mapping: no free virtual page with {} logical pages mapped",
                self.mapped
            ))
        })?;
        if let Some(r) = self.rev.as_mut() {
            r.len[vpn as usize] = 0;
            r.group[vpn as usize] = NO_GROUP;
        }
        Ok(vpn)
    }

    fn release(&mut self, vpn: u32, fx: &mut Effects) {
        let l = &mut self.live[vpn as usize];
        *l -= 1;
        if *l == 0 && !self.is_open(vpn) {
            self.free.push(vpn);
            fx.freed.push(vpn);
        }
    }

    /// Forget counters (after preconditioning).
    pub fn reset_counters(&mut self) {
        self.counters = PackerCounters::default();
    }

    /// Every mapped logical page with its chunk, in logical order.
    pub fn mapped_chunks(&self) -> impl Iterator<Item = (u64, Chunk)> + '_ {
        self.map.mapped().map(|(l, e)| {
            (
                l,
                Chunk {
                    vpn: map::ppn(e),
                    offset: map::offset(e),
                    len: map::len(e),
                },
            )
        })
    }

    /// Bytes [`PagePacker::check`] allocates for `vpns` virtual pages holding `mapped`
    /// logical pages: a count and a flag per virtual page, a span per mapped chunk. The spans'
    /// vector grows by doubling, but a large vector grows by remapping its pages, and only the
    /// pages written are resident: the spans count at their length, not the capacity.
    pub fn check_bytes(vpns: u64, mapped: u64) -> u64 {
        use std::mem::size_of;
        vpns * (size_of::<u32>() + size_of::<bool>()) as u64
            + mapped * size_of::<(u32, u32, u32)>() as u64
    }

    /// Check the map, the chunk counts and the free pool against each other: every VPN's
    /// count equals the chunks mapped into it, chunks of one VPN do not overlap and fit the
    /// page, and a VPN is free exactly when nothing maps into it and it is not open.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Invariant(format!("compressed mapping: {m}")));
        let n = self.live.len();
        let mut count = vec![0u32; n];
        let mut spans: Vec<(u32, u32, u32)> = Vec::new();
        let mut mapped = 0u64;
        let mut members: Vec<Vec<(u32, u64)>> = Vec::new();
        for (lpn, c) in self.mapped_chunks() {
            mapped += 1;
            if c.split() {
                let Some(gr) = self.groups.as_ref().filter(|g| c.vpn < g.live.len() as u32) else {
                    return bad(format!("logical page {lpn}: split into no group ({c:?})"));
                };
                members.resize(gr.live.len(), Vec::new());
                members[c.vpn as usize].push((c.offset, lpn));
                if gr.pending != Some(c.vpn) {
                    for i in 0..gr.pieces {
                        let p = self.piece(c, i);
                        if p.vpn as usize >= n {
                            return bad(format!("logical page {lpn}: piece {i} in no page"));
                        }
                        count[p.vpn as usize] += 1;
                        spans.push((p.vpn, p.offset, p.offset + p.len));
                    }
                }
                continue;
            }
            if c.zero() {
                if c.len != 0 {
                    return bad(format!(
                        "logical page {lpn}: a zero page with {} bytes",
                        c.len
                    ));
                }
                continue;
            }
            if c.vpn as usize >= n || c.len == 0 || c.offset + c.len > self.page {
                return bad(format!("logical page {lpn}: chunk {c:?} does not fit"));
            }
            count[c.vpn as usize] += 1;
            spans.push((c.vpn, c.offset, c.offset + c.len));
        }
        if mapped != self.mapped {
            return bad(format!(
                "{mapped} pages mapped, the counter says {}",
                self.mapped
            ));
        }
        if let Some(gr) = &self.groups {
            members.resize(gr.live.len(), Vec::new());
            let mut split = 0u64;
            for (g, m) in members.iter_mut().enumerate() {
                m.sort_unstable();
                split += m.len() as u64;
                if m.len() != gr.live[g] as usize
                    || m.iter()
                        .enumerate()
                        .any(|(i, x)| x.0 != i as u32 && gr.pending == Some(g as u32))
                {
                    return bad(format!(
                        "split group {g}: members {m:?}, counted {}",
                        gr.live[g]
                    ));
                }
                if gr.pending == Some(g as u32) {
                    let want: Vec<u64> = m.iter().map(|x| x.1).collect();
                    if want != gr.members {
                        return bad(format!(
                            "pending group {g}: {want:?} against {:?}",
                            gr.members
                        ));
                    }
                }
                let free = gr.free.contains(&(g as u32));
                if free != (m.is_empty() && gr.pending != Some(g as u32)) {
                    return bad(format!(
                        "split group {g}: free {free} with {} members",
                        m.len()
                    ));
                }
            }
            if split != gr.split_live {
                return bad(format!("{split} pages split, counted {}", gr.split_live));
            }
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            if w[0].0 == w[1].0 && w[1].1 < w[0].2 {
                return bad(format!("chunks overlap in virtual page {}", w[0].0));
            }
        }
        let mut free = vec![false; n];
        for &v in &self.free {
            if free[v as usize] {
                return bad(format!("virtual page {v} twice in the free pool"));
            }
            free[v as usize] = true;
        }
        for v in 0..n {
            if count[v] != self.live[v] as u32 {
                return bad(format!(
                    "virtual page {v}: {} chunks mapped, counted {}",
                    count[v], self.live[v]
                ));
            }
            let should_be_free = count[v] == 0 && !self.is_open(v as u32);
            if free[v] != should_be_free {
                return bad(format!(
                    "virtual page {v}: free {} with {} chunks",
                    free[v], count[v]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
