//! The CCSD's logical-to-physical map: one `u64` per logical block, in a two-level table
//! ([`Sparse`]) whose 64 Ki-entry leaves are allocated on the first write into their range, so
//! a logical space of billions of blocks costs memory only where data was written (8 bytes
//! per logical block of a touched leaf, plus 8 bytes per leaf slot).
//!
//! An entry packs the physical page (bits 0..32), the byte offset of the chunk in the page
//! (bits 32..48) and the chunk length in bytes (bits 48..64); [`UNMAPPED`] marks a block
//! holding no data (its length field, 0xFFFF, exceeds any chunk).

/// Bytes of one entry (page, offset, length), as the CCSD stores it.
pub const ENTRY_BYTES: u64 = std::mem::size_of::<u64>() as u64;

/// Entry of a logical block that holds no data.
pub const UNMAPPED: u64 = u64::MAX;

use strength_reduce::StrengthReducedU64;

/// Entries per leaf of the map.
const LEAF: u64 = 1 << 16;

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

/// A two-level array of `T` whose leaves (of a length fixed at creation) are allocated on
/// the first write into their range and may be dropped again when their range holds nothing
/// needed; an entry never written (or in a dropped leaf) reads as the array's fill value.
/// Memory: `T` per entry of an allocated leaf plus 8 bytes per leaf slot.
pub struct Sparse<T> {
    leaves: Vec<Option<Box<[T]>>>,
    leaf: StrengthReducedU64,
    fill: T,
}

impl<T: Copy + PartialEq> Sparse<T> {
    /// `n` entries, all `fill`, in leaves of `leaf` entries, with no leaf allocated.
    pub fn new(n: u64, leaf: u64, fill: T) -> Sparse<T> {
        assert!(leaf > 0, "a sparse array's leaves hold at least one entry");
        Sparse {
            leaves: (0..n.div_ceil(leaf)).map(|_| None).collect(),
            leaf: StrengthReducedU64::new(leaf),
            fill,
        }
    }

    /// (leaf, index in the leaf) of entry `i`.
    #[inline]
    fn at(&self, i: u64) -> (usize, usize) {
        let (l, j) = StrengthReducedU64::div_rem(i, self.leaf);
        (l as usize, j as usize)
    }

    /// Entry `i` (the caller keeps `i` below `n`).
    #[inline]
    pub fn get(&self, i: u64) -> T {
        let (l, j) = self.at(i);
        match &self.leaves[l] {
            Some(l) => l[j],
            None => self.fill,
        }
    }

    /// Set entry `i`, allocating its leaf if needed; returns the old entry.
    #[inline]
    pub fn set(&mut self, i: u64, v: T) -> T {
        let (fill, len) = (self.fill, self.leaf.get() as usize);
        let (l, j) = self.at(i);
        let leaf = self.leaves[l].get_or_insert_with(|| vec![fill; len].into_boxed_slice());
        std::mem::replace(&mut leaf[j], v)
    }

    /// Entry `i` to change in place, allocating its leaf if needed.
    #[inline]
    pub fn get_mut(&mut self, i: u64) -> &mut T {
        let (fill, len) = (self.fill, self.leaf.get() as usize);
        let (l, j) = self.at(i);
        &mut self.leaves[l].get_or_insert_with(|| vec![fill; len].into_boxed_slice())[j]
    }

    /// Set entry `i` back to the fill value without allocating a leaf; returns the old entry.
    #[inline]
    pub fn clear(&mut self, i: u64) -> T {
        let fill = self.fill;
        let (l, j) = self.at(i);
        match &mut self.leaves[l] {
            Some(l) => std::mem::replace(&mut l[j], fill),
            None => fill,
        }
    }

    /// Free leaf `l` (entries `l * leaf ..`): they all read as the fill value again.
    pub fn drop_leaf(&mut self, l: usize) {
        self.leaves[l] = None;
    }

    /// Every `(index, entry)` that is not the fill value, in index order.
    pub fn entries(&self) -> impl Iterator<Item = (u64, T)> + '_ {
        let (fill, len) = (self.fill, self.leaf.get());
        self.leaves
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.as_ref().map(|l| (i, l)))
            .flat_map(move |(i, l)| {
                l.iter()
                    .enumerate()
                    .filter(move |(_, &e)| e != fill)
                    .map(move |(j, &e)| (i as u64 * len + j as u64, e))
            })
    }

    /// Leaves allocated now.
    pub fn leaves_allocated(&self) -> usize {
        self.leaves.iter().filter(|l| l.is_some()).count()
    }
}

/// The two-level map: a [`Sparse`] array of entries, [`UNMAPPED`] where never written.
pub struct Map(Sparse<u64>);

impl Map {
    /// A map of `blocks` logical blocks, all unmapped, with no leaf allocated.
    pub fn new(blocks: u64) -> Map {
        Map(Sparse::new(blocks, LEAF, UNMAPPED))
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

    /// Leaves of a length that is no power of two (a flash block's pages) index like a flat
    /// array, and a dropped leaf reads as the fill value again while its neighbours keep
    /// theirs.
    #[test]
    fn uneven_leaves_index_like_a_flat_array_and_drop_alone() {
        let n = 768 * 5 + 100;
        let mut s = Sparse::new(n, 768, u32::MAX);
        let mut flat = vec![u32::MAX; n as usize];
        for i in (0..n).step_by(7) {
            assert_eq!(s.set(i, i as u32 * 3), u32::MAX);
            flat[i as usize] = i as u32 * 3;
        }
        assert_eq!(s.leaves_allocated(), 6);
        assert!((0..n).all(|i| s.get(i) == flat[i as usize]));
        let want: Vec<(u64, u32)> = (0..n).step_by(7).map(|i| (i, i as u32 * 3)).collect();
        assert_eq!(s.entries().collect::<Vec<_>>(), want);
        s.drop_leaf(2);
        flat[768 * 2..768 * 3].fill(u32::MAX);
        assert_eq!(s.leaves_allocated(), 5);
        assert!((0..n).all(|i| s.get(i) == flat[i as usize]));
        assert_eq!(s.clear(768 * 2 + 7), u32::MAX);
        assert_eq!(s.leaves_allocated(), 5);
    }
}
