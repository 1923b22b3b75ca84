//! The CCSD's logical-to-physical map: one `u64` per logical block, in a two-level table
//! whose 64 Ki-entry leaves are allocated on the first write into their range, so a logical
//! space of billions of blocks costs memory only where data was written (8 bytes per
//! logical block of a touched leaf, plus 8 bytes per leaf slot).
//!
//! An entry packs the physical page (bits 0..32), the byte offset of the chunk in the page
//! (bits 32..48) and the chunk length in bytes (bits 48..64); [`UNMAPPED`] marks a block
//! holding no data (its length field, 0xFFFF, exceeds any chunk).

/// Entry of a logical block that holds no data.
pub const UNMAPPED: u64 = u64::MAX;

const LEAF_BITS: u32 = 16;
const LEAF: usize = 1 << LEAF_BITS;

/// Pack a chunk location.
#[inline]
pub fn pack(ppn: u32, offset: u32, len: u32) -> u64 {
    debug_assert!(offset < 1 << 16 && len < 1 << 16);
    ppn as u64 | (offset as u64) << 32 | (len as u64) << 48
}

/// Physical page of a mapped entry.
#[inline]
pub fn ppn(e: u64) -> u32 {
    e as u32
}

/// Byte offset of a mapped entry's chunk in its page.
#[inline]
pub fn offset(e: u64) -> u32 {
    (e >> 32) as u32 & 0xFFFF
}

/// Length in bytes of a mapped entry's chunk.
#[inline]
pub fn len(e: u64) -> u32 {
    (e >> 48) as u32
}

/// The two-level map.
pub struct Map {
    leaves: Vec<Option<Box<[u64]>>>,
}

impl Map {
    /// A map of `blocks` logical blocks, all unmapped, with no leaf allocated.
    pub fn new(blocks: u64) -> Map {
        let n = blocks.div_ceil(LEAF as u64) as usize;
        Map {
            leaves: (0..n).map(|_| None).collect(),
        }
    }

    /// Entry of `lba` (the caller keeps `lba` inside the logical space).
    #[inline]
    pub fn get(&self, lba: u64) -> u64 {
        match &self.leaves[(lba >> LEAF_BITS) as usize] {
            Some(l) => l[lba as usize & (LEAF - 1)],
            None => UNMAPPED,
        }
    }

    /// Set the entry of `lba`, allocating its leaf if needed; returns the old entry.
    #[inline]
    pub fn set(&mut self, lba: u64, e: u64) -> u64 {
        let leaf = self.leaves[(lba >> LEAF_BITS) as usize]
            .get_or_insert_with(|| vec![UNMAPPED; LEAF].into_boxed_slice());
        std::mem::replace(&mut leaf[lba as usize & (LEAF - 1)], e)
    }

    /// Unmap `lba` without allocating a leaf; returns the old entry.
    #[inline]
    pub fn unmap(&mut self, lba: u64) -> u64 {
        match &mut self.leaves[(lba >> LEAF_BITS) as usize] {
            Some(l) => std::mem::replace(&mut l[lba as usize & (LEAF - 1)], UNMAPPED),
            None => UNMAPPED,
        }
    }

    /// Every mapped `(lba, entry)`, in LBA order.
    pub fn mapped(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.leaves
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.as_ref().map(|l| (i, l)))
            .flat_map(|(i, l)| {
                l.iter()
                    .enumerate()
                    .filter(|(_, &e)| e != UNMAPPED)
                    .map(move |(j, &e)| (((i as u64) << LEAF_BITS) + j as u64, e))
            })
    }

    /// Leaves allocated so far.
    pub fn leaves_allocated(&self) -> usize {
        self.leaves.iter().filter(|l| l.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_allocates_lazily() {
        let mut m = Map::new(3 << 30);
        assert_eq!(m.leaves_allocated(), 0);
        assert_eq!(m.get(5 << 28), UNMAPPED);
        let e = pack(123_456_789, 4000, 96);
        assert_eq!((ppn(e), offset(e), len(e)), (123_456_789, 4000, 96));
        assert_eq!(m.set(5 << 28, e), UNMAPPED);
        assert_eq!(m.get(5 << 28), e);
        assert_eq!(m.leaves_allocated(), 1);
        assert_eq!(m.unmap(7), UNMAPPED);
        assert_eq!(m.leaves_allocated(), 1);
        assert_eq!(m.mapped().collect::<Vec<_>>(), vec![(5 << 28, e)]);
        assert_eq!(m.unmap(5 << 28), e);
        assert_eq!(m.mapped().count(), 0);
    }
}
