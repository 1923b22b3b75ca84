//! Where a zone's logical blocks live in flash: ConfZNS's zone-to-channel and zone-to-way
//! mapping (Song et al., "ConfZNS: A Novel Emulation Framework for Zoned SSDs", CASE/HotStorage
//! '23). A zone spans `channels_per_zone` channels and `chips_per_zone` chips (ways) on each,
//! with every die and plane of those chips, and takes `blocks_per_plane` blocks of each of
//! those planes. Consecutive blocks of a zone go to consecutive planes of its span, channel
//! first, so a sequential write uses all its channels at once. The device's chip groups
//! (`channels / channels_per_zone` x `chips / chips_per_zone`) take zones in turn: zone `z`
//! is on group `z mod groups`, in block slot `z / groups` of each plane.

use crate::nand::Geometry;
use crate::units::{BlockId, PlaneId, Ppn};

/// The mapping rule's parameters (validated).
#[derive(Debug, Clone)]
pub struct ZoneMap {
    geo: Geometry,
    channels_per_zone: u32,
    chips_per_zone: u32,
    blocks_per_plane: u32,
    /// Planes a zone spans.
    planes: u32,
    groups: u32,
}

impl ZoneMap {
    /// For a geometry; the caller checked that the zone shape divides it.
    pub fn new(
        geo: &Geometry,
        channels_per_zone: u32,
        chips_per_zone: u32,
        blocks_per_plane: u32,
    ) -> ZoneMap {
        ZoneMap {
            geo: geo.clone(),
            channels_per_zone,
            chips_per_zone,
            blocks_per_plane,
            planes: channels_per_zone * chips_per_zone * geo.dies_per_chip * geo.planes_per_die,
            groups: (geo.channels / channels_per_zone) * (geo.chips_per_channel / chips_per_zone),
        }
    }

    /// Zones the array holds.
    pub fn zones(&self) -> u32 {
        self.groups * (self.geo.blocks_per_plane / self.blocks_per_plane)
    }

    /// Blocks of flash in a zone.
    pub fn zone_blocks(&self) -> u64 {
        self.planes as u64 * self.blocks_per_plane as u64
    }

    /// Pages of flash in a zone (its capacity).
    pub fn zone_pages(&self) -> u64 {
        self.planes as u64 * self.blocks_per_plane as u64 * self.geo.pages_per_block as u64
    }

    /// Plane `i` (of `planes`) of zone `z`'s span: channel first, then chip, die, plane.
    fn plane(&self, z: u32, i: u32) -> PlaneId {
        let g = z % self.groups;
        let chip_groups = self.geo.chips_per_channel / self.chips_per_zone;
        let (cg, wg) = (g / chip_groups, g % chip_groups);
        let ch = i % self.channels_per_zone;
        let rest = i / self.channels_per_zone;
        let chip = rest % self.chips_per_zone;
        let rest = rest / self.chips_per_zone;
        let die = rest % self.geo.dies_per_chip;
        let plane = rest / self.geo.dies_per_chip;
        self.geo.plane_id(
            cg * self.channels_per_zone + ch,
            wg * self.chips_per_zone + chip,
            die,
            plane,
        )
    }

    /// The flash page of zone `z`'s page `k` (`k` below [`ZoneMap::zone_pages`]). Pages go
    /// round the zone's planes (a page on each in turn), filling each plane's blocks in order.
    pub fn ppn(&self, z: u32, k: u64) -> Ppn {
        let i = (k % self.planes as u64) as u32;
        let r = (k / self.planes as u64) as u32;
        let ppb = self.geo.pages_per_block;
        let slot = (z / self.groups) * self.blocks_per_plane + r / ppb;
        let b = self.geo.block(self.plane(z, i), slot);
        Ppn(self.geo.first_ppn_of_block(b).0 + (r % ppb) as u64)
    }

    /// The blocks holding zone `z`'s first `pages` pages (what a reset erases).
    pub fn blocks_holding(&self, z: u32, pages: u64, out: &mut Vec<BlockId>) {
        out.clear();
        if pages == 0 {
            return;
        }
        let rows = pages.div_ceil(self.planes as u64) as u32;
        let ppb = self.geo.pages_per_block;
        for i in 0..self.planes {
            // Plane i holds pages i, i + planes, ...: its page rows below `rows`, fewer by one
            // when the last row stopped before it.
            let last_row_covers = (pages - 1) % self.planes as u64 >= i as u64;
            let r = if last_row_covers { rows } else { rows - 1 };
            if r == 0 {
                continue;
            }
            for j in 0..r.div_ceil(ppb) {
                let slot = (z / self.groups) * self.blocks_per_plane + j;
                out.push(self.geo.block(self.plane(z, i), slot));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NandConfig;

    fn geo(ch: u32, chips: u32, dies: u32, planes: u32, bpp: u32, ppb: u32) -> Geometry {
        let mut n: NandConfig = crate::config::SimConfig::preset("default").unwrap().nand;
        n.channels = ch;
        n.chips_per_channel = chips;
        n.dies_per_chip = dies;
        n.planes_per_die = planes;
        n.blocks_per_plane = bpp;
        n.pages_per_block = ppb;
        Geometry::new(&n)
    }

    /// Every page of every zone is a distinct flash page, the zones cover the array, and each
    /// zone stays inside the channels and chips of its group.
    #[test]
    fn zones_partition_the_array_within_their_groups() {
        for (g, cpz, wpz, bpz) in [
            (geo(4, 2, 2, 2, 8, 4), 4, 2, 1),
            (geo(4, 2, 2, 2, 8, 4), 1, 1, 2),
            (geo(4, 4, 1, 2, 6, 3), 2, 2, 3),
        ] {
            let m = ZoneMap::new(&g, cpz, wpz, bpz);
            let mut seen = vec![false; g.pages as usize];
            for z in 0..m.zones() {
                let mut chans = std::collections::BTreeSet::new();
                let mut chips = std::collections::BTreeSet::new();
                for k in 0..m.zone_pages() {
                    let p = m.ppn(z, k);
                    assert!(!seen[p.0 as usize], "page {} mapped twice", p.0);
                    seen[p.0 as usize] = true;
                    let pl = g.plane_of_ppn(p).0;
                    let ppc = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
                    chans.insert(pl / ppc);
                    chips.insert(pl % ppc / (g.dies_per_chip * g.planes_per_die));
                }
                assert_eq!(chans.len() as u32, cpz);
                assert_eq!(chips.len() as u32, wpz);
            }
            assert!(seen.iter().all(|&s| s), "every page belongs to a zone");
        }
    }

    /// A zone's first pages go to distinct channels (the stripe), and the blocks a reset
    /// erases are exactly the blocks its written pages are in.
    #[test]
    fn stripe_and_blocks_holding() {
        let g = geo(4, 2, 2, 2, 8, 4);
        let m = ZoneMap::new(&g, 4, 2, 2);
        let ppc = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
        let chans: Vec<u32> = (0..4)
            .map(|k| g.plane_of_ppn(m.ppn(1, k)).0 / ppc)
            .collect();
        let mut sorted = chans.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 4, "{chans:?}");
        let mut out = Vec::new();
        for pages in 0..=m.zone_pages() {
            m.blocks_holding(3, pages, &mut out);
            let mut want: Vec<u32> = (0..pages).map(|k| g.block_of(m.ppn(3, k)).0).collect();
            want.sort();
            want.dedup();
            let mut got: Vec<u32> = out.iter().map(|b| b.0).collect();
            got.sort();
            assert_eq!(got, want, "{pages} pages");
        }
    }
}
