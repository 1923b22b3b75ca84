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

/// A two-level array of `T` whose 64 Ki-entry leaves are allocated on the first write into
/// their range; an entry never written reads as the array's fill value. Memory: `T` per
/// entry of a touched leaf plus 8 bytes per leaf slot.
pub struct Sparse<T> {
    leaves: Vec<Option<Box<[T]>>>,
    fill: T,
}

impl<T: Copy + PartialEq> Sparse<T> {
    /// `n` entries, all `fill`, with no leaf allocated.
    pub fn new(n: u64, fill: T) -> Sparse<T> {
        Sparse {
            leaves: (0..n.div_ceil(LEAF as u64)).map(|_| None).collect(),
            fill,
        }
    }

    /// Entry `i` (the caller keeps `i` below `n`).
    #[inline]
    pub fn get(&self, i: u64) -> T {
        match &self.leaves[(i >> LEAF_BITS) as usize] {
            Some(l) => l[i as usize & (LEAF - 1)],
            None => self.fill,
        }
    }

    /// Set entry `i`, allocating its leaf if needed; returns the old entry.
    #[inline]
    pub fn set(&mut self, i: u64, v: T) -> T {
        let fill = self.fill;
        let leaf = self.leaves[(i >> LEAF_BITS) as usize]
            .get_or_insert_with(|| vec![fill; LEAF].into_boxed_slice());
        std::mem::replace(&mut leaf[i as usize & (LEAF - 1)], v)
    }

    /// Set entry `i` back to the fill value without allocating a leaf; returns the old entry.
    #[inline]
    pub fn clear(&mut self, i: u64) -> T {
        let fill = self.fill;
        match &mut self.leaves[(i >> LEAF_BITS) as usize] {
            Some(l) => std::mem::replace(&mut l[i as usize & (LEAF - 1)], fill),
            None => fill,
        }
    }

    /// Every `(index, entry)` that is not the fill value, in index order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, T)> + '_ {
        let fill = self.fill;
        self.leaves
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.as_ref().map(|l| (i, l)))
            .flat_map(move |(i, l)| {
                l.iter()
                    .enumerate()
                    .filter(move |(_, &e)| e != fill)
                    .map(move |(j, &e)| (((i as u64) << LEAF_BITS) + j as u64, e))
            })
    }

    /// Leaves allocated so far.
    pub fn leaves_allocated(&self) -> usize {
        self.leaves.iter().filter(|l| l.is_some()).count()
    }
}

/// The two-level map: a [`Sparse`] array of entries, [`UNMAPPED`] where never written.
pub struct Map(Sparse<u64>);

impl Map {
    /// A map of `blocks` logical blocks, all unmapped, with no leaf allocated.
    pub fn new(blocks: u64) -> Map {
        Map(Sparse::new(blocks, UNMAPPED))
    }

    /// Entry of `lba` (the caller keeps `lba` inside the logical space).
    #[inline]
    pub fn get(&self, lba: u64) -> u64 {
        self.0.get(lba)
    }

    /// Set the entry of `lba`, allocating its leaf if needed; returns the old entry.
    #[inline]
    pub fn set(&mut self, lba: u64, e: u64) -> u64 {
        self.0.set(lba, e)
    }

    /// Unmap `lba` without allocating a leaf; returns the old entry.
    #[inline]
    pub fn unmap(&mut self, lba: u64) -> u64 {
        self.0.clear(lba)
    }

    /// Every mapped `(lba, entry)`, in LBA order.
    pub fn mapped(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.entries()
    }

    /// Leaves allocated so far.
    pub fn leaves_allocated(&self) -> usize {
        self.0.leaves_allocated()
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
