//! Array shape and address arithmetic.

use crate::config::NandConfig;
use crate::units::{BlockId, PlaneId, Ppn};
use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

/// Shape of the array. Planes are numbered channel-major: channel, chip, die, plane, so the
/// planes of one channel are contiguous.
#[derive(Debug, Clone)]
pub struct Geometry {
    /// Channels.
    pub channels: u32,
    /// Chips per channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Planes in the array.
    pub planes: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Blocks in the array.
    pub blocks: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Pages in the array (may pass 2^32).
    pub pages: u64,
    /// Page size in bytes.
    pub page_size: u32,
    // Address arithmetic divides by these on every page operation; a hardware `div` costs
    // tens of cycles, the strength-reduced form a multiply and a shift.
    div_ppb: StrengthReducedU64,
    div_ppb32: StrengthReducedU32,
    div_pages_per_plane: StrengthReducedU64,
    div_blocks_per_plane: StrengthReducedU32,
    div_planes_per_channel: StrengthReducedU32,
}

impl Geometry {
    /// From a validated config.
    pub fn new(c: &NandConfig) -> Geometry {
        let planes_per_channel = c.chips_per_channel * c.dies_per_chip * c.planes_per_die;
        let planes = c.channels * planes_per_channel;
        let blocks = planes * c.blocks_per_plane;
        Geometry {
            channels: c.channels,
            chips_per_channel: c.chips_per_channel,
            dies_per_chip: c.dies_per_chip,
            planes_per_die: c.planes_per_die,
            planes,
            blocks_per_plane: c.blocks_per_plane,
            blocks,
            pages_per_block: c.pages_per_block,
            pages: blocks as u64 * c.pages_per_block as u64,
            page_size: c.page_size,
            div_ppb: StrengthReducedU64::new(c.pages_per_block as u64),
            div_ppb32: StrengthReducedU32::new(c.pages_per_block),
            div_pages_per_plane: StrengthReducedU64::new(
                c.pages_per_block as u64 * c.blocks_per_plane as u64,
            ),
            div_blocks_per_plane: StrengthReducedU32::new(c.blocks_per_plane),
            div_planes_per_channel: StrengthReducedU32::new(planes_per_channel),
        }
    }

    /// The same array seen in mapping units of `k` consecutive pages of a block, or with
    /// `per` units packed into each page (the page map's view, `ftl.mapping_unit`; one of
    /// `k`, `per` is 1): a "page" of the result is a unit, so its page numbers are unit slots
    /// (`ppn / k`, or `ppn * per + i` for the `i`-th unit of a page); blocks and planes are
    /// unchanged.
    pub fn in_units(&self, k: u32, per: u32) -> Geometry {
        assert!(
            k >= 1 && per >= 1 && (k == 1 || per == 1) && self.pages_per_block.is_multiple_of(k),
            "a unit of {k} pages ({per} per page) must tile a {}-page block",
            self.pages_per_block
        );
        let ppb = self.pages_per_block / k * per;
        Geometry {
            pages_per_block: ppb,
            pages: self.blocks as u64 * ppb as u64,
            page_size: self.page_size * k / per,
            div_ppb: StrengthReducedU64::new(ppb as u64),
            div_ppb32: StrengthReducedU32::new(ppb),
            div_pages_per_plane: StrengthReducedU64::new(ppb as u64 * self.blocks_per_plane as u64),
            ..self.clone()
        }
    }

    /// Plane id from (channel, chip, die, plane).
    pub fn plane_id(&self, channel: u32, chip: u32, die: u32, plane: u32) -> PlaneId {
        PlaneId(
            ((channel * self.chips_per_channel + chip) * self.dies_per_chip + die)
                * self.planes_per_die
                + plane,
        )
    }

    /// Channel a plane is on.
    #[inline]
    pub fn channel_of(&self, p: PlaneId) -> u32 {
        p.0 / self.div_planes_per_channel
    }

    /// Plane holding a block.
    #[inline]
    pub fn plane_of_block(&self, b: BlockId) -> PlaneId {
        PlaneId(b.0 / self.div_blocks_per_plane)
    }

    /// Block holding a page.
    #[inline]
    pub fn block_of(&self, p: Ppn) -> BlockId {
        // Below 2^32 (every array of less than 16 TiB of 4 KiB pages) the 32-bit division.
        match u32::try_from(p.0) {
            Ok(p) => BlockId(p / self.div_ppb32),
            Err(_) => BlockId((p.0 / self.div_ppb) as u32),
        }
    }

    /// Plane holding a page.
    #[inline]
    pub fn plane_of_ppn(&self, p: Ppn) -> PlaneId {
        PlaneId((p.0 / self.div_pages_per_plane) as u32)
    }

    /// Global id of block `i` of a plane.
    #[inline]
    pub fn block(&self, p: PlaneId, i: u32) -> BlockId {
        BlockId(p.0 * self.blocks_per_plane + i)
    }

    /// First page of a block.
    #[inline]
    pub fn first_ppn_of_block(&self, b: BlockId) -> Ppn {
        Ppn(b.0 as u64 * self.pages_per_block as u64)
    }

    /// Index of a page inside its block.
    #[inline]
    pub fn page_in_block(&self, p: Ppn) -> u32 {
        (p.0 % self.div_ppb) as u32
    }

    /// Physical capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.pages * self.page_size as u64
    }
}
