//! Packing for a zoned device that compresses in its controller (CCZNS, Huang et al.: a
//! compression-capable ZNS SSD built on FEMU). A zone's logical blocks are written in order,
//! so its compressed blocks are laid in order into its flash pages: a block's chunk joins
//! the zone's open page when it fits ([`super::fits`], the packing rule of every packed page,
//! without straddling), else the open page closes (the rest of it padding) and the zone's
//! next flash page opens. A block that does not compress is a chunk of a whole page. Nothing
//! is overwritten until a reset drops the zone's entries, so a chunk's page, offset and
//! length stay fixed: the map entry is the one of the packed map ([`super::map`]), with the
//! page being the page's index in its zone.
//!
//! The zone's flash is full when every one of its pages has been programmed (the last one
//! closed full); a write whose chunks would not fit the pages left is refused before any of
//! them is placed ([`ZonePacker::fits_write`]).
//!
//! Memory: 8 bytes of map entry per logical block of a touched 64 Ki-block range, and 16
//! bytes per zone.

use super::fits;
use super::map::{self, Map, UNMAPPED};
use super::pages::{Chunk, PackerCounters, ZERO_VPN};

/// A zone's open page and the pages it has taken.
#[derive(Debug, Clone, Copy, Default)]
struct ZoneFill {
    /// Flash pages taken (closed, and the open one when `open`).
    taken: u32,
    /// Bytes in the open page.
    fill: u32,
    /// Chunks in the open page.
    chunks: u32,
    /// A page is open.
    open: bool,
}

/// The packer of a zoned device's compressed zones.
pub struct ZonePacker {
    page: u32,
    max_chunks: u32,
    /// Logical blocks (pages) per zone: the zone size.
    zone_blocks: u64,
    /// Flash pages per zone.
    flash_pages: u32,
    map: Map,
    zones: Vec<ZoneFill>,
    /// Per zone, the fill its blocks admitted by [`ZonePacker::admit`] give (a host that
    /// asks before it writes; equal to `zones` once they are written).
    planned: Vec<ZoneFill>,
    /// Counters since the last reset.
    pub counters: PackerCounters,
}

impl ZonePacker {
    /// `zones` zones of `zone_blocks` logical blocks over `flash_pages` flash pages each, of
    /// `page` bytes, at most `max_chunks` chunks to a page.
    pub fn new(
        page: u32,
        max_chunks: u32,
        zones: u32,
        zone_blocks: u64,
        flash_pages: u64,
    ) -> ZonePacker {
        assert!(
            page < 1 << 16 && (1..=255).contains(&max_chunks) && flash_pages < u32::MAX as u64,
            "packer bounds are checked by config validation"
        );
        ZonePacker {
            page,
            max_chunks,
            zone_blocks,
            flash_pages: flash_pages as u32,
            map: Map::new(zones as u64 * zone_blocks),
            zones: vec![ZoneFill::default(); zones as usize],
            planned: vec![ZoneFill::default(); zones as usize],
            counters: PackerCounters::default(),
        }
    }

    /// Whether chunks of `lens` bytes, in order, fit the flash zone `z` has left.
    pub fn fits_write(&self, z: u32, lens: impl Iterator<Item = u32>) -> bool {
        let mut f = self.zones[z as usize];
        for len in lens {
            match self.step(f, len) {
                Some(n) => f = n,
                None => return false,
            }
        }
        true
    }

    /// A zone's fill after a chunk of `len` bytes joins it, `None` if it does not fit.
    fn step(&self, mut f: ZoneFill, len: u32) -> Option<ZoneFill> {
        if len == 0 {
            return Some(f);
        }
        if f.open && fits(f.fill, f.chunks, len, self.page, self.max_chunks) {
            f.fill += len;
            f.chunks += 1;
        } else {
            if f.taken == self.flash_pages {
                return None;
            }
            f = ZoneFill {
                taken: f.taken + 1,
                fill: len,
                chunks: 1,
                open: true,
            };
        }
        if f.fill == self.page || f.chunks == self.max_chunks {
            f.open = false;
        }
        Some(f)
    }

    /// A host about to write the next block of zone `z` (after those it admitted before),
    /// `len` bytes stored: whether the zone takes it (then it is admitted). A zone whose
    /// flash the admitted blocks fill takes nothing more, zeros neither (the device makes it
    /// full).
    pub fn admit(&mut self, z: u32, len: u32) -> bool {
        let f = self.planned[z as usize];
        if f.taken == self.flash_pages && !f.open {
            return false;
        }
        match self.step(f, len) {
            Some(n) => {
                self.planned[z as usize] = n;
                true
            }
            None => false,
        }
    }

    /// Place block `k` of zone `z` as `len` bytes (0: zeros only, nothing stored; the page
    /// size: stored as written); the caller checked it fits. The zone pages this closed are
    /// pushed to `closed` (pages from the zone's first).
    pub fn write(&mut self, z: u32, k: u64, len: u32, closed: &mut Vec<u32>) -> Chunk {
        debug_assert!(len <= self.page && k < self.zone_blocks);
        let chunk = if len == 0 {
            self.counters.zero_pages += 1;
            Chunk {
                vpn: ZERO_VPN,
                offset: 0,
                len: 0,
            }
        } else {
            if len == self.page {
                self.counters.raw_pages += 1;
            } else {
                self.counters.chunks += 1;
                self.counters.chunk_bytes += len as u64;
            }
            let (page, max) = (self.page, self.max_chunks);
            let f = &mut self.zones[z as usize];
            if f.open && !fits(f.fill, f.chunks, len, page, max) {
                self.close(z, closed);
            }
            let f = &mut self.zones[z as usize];
            if !f.open {
                assert!(
                    f.taken < self.flash_pages,
                    "zone {z}: the caller checked the write fits"
                );
                *f = ZoneFill {
                    taken: f.taken + 1,
                    fill: 0,
                    chunks: 0,
                    open: true,
                };
            }
            let c = Chunk {
                vpn: f.taken - 1,
                offset: f.fill,
                len,
            };
            f.fill += len;
            f.chunks += 1;
            if f.fill == page || f.chunks == max {
                self.close(z, closed);
            }
            c
        };
        self.map.set(
            z as u64 * self.zone_blocks + k,
            map::pack(chunk.vpn, chunk.offset, chunk.len),
        );
        chunk
    }

    fn close(&mut self, z: u32, closed: &mut Vec<u32>) {
        let f = &mut self.zones[z as usize];
        debug_assert!(f.open);
        f.open = false;
        if f.chunks > 1 || f.fill < self.page {
            self.counters.merged_pages += 1;
        }
        self.counters.pad_bytes += (self.page - f.fill) as u64;
        closed.push(f.taken - 1);
    }

    /// Close zone `z`'s open page, if any (a Finish, or its flash full).
    pub fn flush(&mut self, z: u32, closed: &mut Vec<u32>) {
        if self.zones[z as usize].open {
            self.close(z, closed);
            let (f, p) = (self.zones[z as usize], &mut self.planned[z as usize]);
            if p.taken == f.taken {
                p.open = false;
            }
        }
    }

    /// Every flash page of zone `z` is programmed or closed: it can take nothing more.
    pub fn flash_full(&self, z: u32) -> bool {
        let f = self.zones[z as usize];
        f.taken == self.flash_pages && !f.open
    }

    /// Flash pages zone `z` has taken (closed or open).
    pub fn pages_taken(&self, z: u32) -> u64 {
        self.zones[z as usize].taken as u64
    }

    /// Whether page `p` of zone `z` is its open page (its data only in DRAM).
    pub fn is_open(&self, z: u32, p: u32) -> bool {
        let f = self.zones[z as usize];
        f.open && f.taken == p + 1
    }

    /// Zone `z`'s page `p` numbered among all zones' pages (zone x flash pages + page).
    pub fn page_index(&self, z: u32, p: u32) -> u32 {
        z * self.flash_pages + p
    }

    /// Where block `k` of zone `z` is, if written since the zone's last reset.
    pub fn lookup(&self, z: u32, k: u64) -> Option<Chunk> {
        let e = self.map.get(z as u64 * self.zone_blocks + k);
        (e != UNMAPPED).then(|| Chunk {
            vpn: map::ppn(e),
            offset: map::offset(e),
            len: map::len(e),
        })
    }

    /// A zone reset: its first `written` blocks and its open page are dropped.
    pub fn reset(&mut self, z: u32, written: u64) {
        let base = z as u64 * self.zone_blocks;
        for k in 0..written {
            self.map.unmap(base + k);
        }
        self.zones[z as usize] = ZoneFill::default();
        self.planned[z as usize] = ZoneFill::default();
    }

    /// Forget counters (after preconditioning).
    pub fn reset_counters(&mut self) {
        self.counters = PackerCounters::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks go into a zone's pages in order, a chunk that does not fit closes the page, the
    /// zone's flash is full once its last page closes, and a reset starts it over.
    #[test]
    fn chunks_fill_the_zone_pages_in_order() {
        let mut p = ZonePacker::new(4096, 3, 2, 16, 3);
        let mut closed = Vec::new();
        // 1500 + 1500 fit a page; the third 1500 does not (3000 + 1500 > 4096).
        for k in 0..3 {
            assert!(p.fits_write(1, std::iter::once(1500)));
            p.write(1, k, 1500, &mut closed);
        }
        assert_eq!(closed, vec![0]);
        assert_eq!(
            p.lookup(1, 2).unwrap(),
            Chunk {
                vpn: 1,
                offset: 0,
                len: 1500
            }
        );
        // A raw block closes page 1 and takes page 2, the zone's last: full.
        assert!(!p.fits_write(1, [4096, 4096].into_iter()));
        assert!(p.fits_write(1, std::iter::once(4096)));
        p.write(1, 3, 4096, &mut closed);
        assert_eq!(closed, vec![0, 1, 2]);
        assert!(p.flash_full(1) && !p.flash_full(0));
        assert_eq!(p.counters.pad_bytes, (4096 - 3000) + (4096 - 1500));
        // Zeros take no flash; the other zone is untouched; max_chunks closes a page.
        assert!(p.fits_write(1, std::iter::once(0)));
        for k in 0..3 {
            p.write(0, k, 100, &mut closed);
        }
        assert_eq!(closed.last(), Some(&0));
        assert!(!p.is_open(0, 0) && p.pages_taken(0) == 1);
        p.reset(1, 4);
        assert!(p.lookup(1, 0).is_none() && !p.flash_full(1) && p.pages_taken(1) == 0);
        assert!(p.lookup(0, 2).is_some());
    }
}
