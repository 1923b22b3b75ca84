//! Unit-number arrays in entries only as wide as their values need, for both maps of the page
//! FTL: `bits = ceil(log2(values + 1))` (at most [`MAX_BITS`]), the all-ones value meaning
//! "none" ([`NO_UNIT`] at the interface).
//!
//! The reverse map (physical unit -> logical unit) is always a [`UnitMap`]: it has an entry
//! per physical unit, over-provisioning included, so 32-bit entries made it the largest
//! array of a big device; 29 bits at 1 TiB of 4 KiB units keep the maps within 2 GiB per TiB.
//! The page map (logical unit -> physical unit) is a [`PageMap`]: a plain `Vec<u32>` while
//! the physical units number below [`PACK_FROM`] (2^28: its fastest layout, on every device
//! where its memory is small), a [`UnitMap`] of [`PageMap::bits`] bits per entry from there up
//! to 2^40 - 1 units (4 PiB of 4 KiB units), except from 2^31 to 2^32 - 2 units, where
//! entries need 32 bits and the `u32` array holds them as compactly. Packing from 2^28
//! rather than only where `u32` entries run out saves up to 3 bits of 32 on the devices whose
//! maps are gigabytes (29 bits at 1 TiB of 4 KiB units: 5% less memory in all), for the cost
//! of an unaligned read, shift and mask on each access.

use super::UNMAPPED;

/// No unit: an unmapped entry, as [`UnitMap::get`] and [`PageMap::get`] return it.
pub const NO_UNIT: u64 = u64::MAX;

/// Physical units from which the page map is packed in [`MapLayout::Auto`]: 2^28 (1 TiB of
/// 4 KiB units, whose `u32` map would be about 1 GiB), where entries need 29 bits; from 2^31
/// to 2^32 - 2 units entries need 32 bits, so the `u32` array is kept there.
pub const PACK_FROM: u64 = 1 << 28;

/// The widest entry: 2^40 - 1 units (the all-ones value is "none") are 4 PiB of 4 KiB units.
pub const MAX_BITS: u32 = 40;

/// Bit-packed entries over a byte array (read and written as unaligned `u64`s).
pub struct UnitMap {
    bytes: Vec<u8>,
    n: u64,
    bits: u32,
    mask: u64,
}

impl UnitMap {
    /// Bits per entry for values `0..values` plus the "none" value, at most [`MAX_BITS`]
    /// (validation keeps every map's values within it).
    pub fn bits_for(values: u64) -> u32 {
        (64 - values.leading_zeros()).clamp(1, MAX_BITS)
    }

    /// Bytes of `n` entries of `bits` bits (the memory estimate): 8 bytes of slack for the
    /// unaligned 64-bit access of the last entry.
    pub fn bytes_of(n: u64, bits: u32) -> u64 {
        (n * bits as u64).div_ceil(8) + 8
    }

    /// Bytes of `n` entries for values `0..values` (the memory estimate).
    pub fn bytes_for(n: u64, values: u64) -> u64 {
        Self::bytes_of(n, Self::bits_for(values))
    }

    /// `n` entries for values `0..values`, all none.
    pub fn new(n: u64, values: u64) -> UnitMap {
        Self::with_bits(n, Self::bits_for(values))
    }

    /// `n` entries of `bits` bits (1 to [`MAX_BITS`]), all none.
    pub fn with_bits(n: u64, bits: u32) -> UnitMap {
        assert!(
            (1..=MAX_BITS).contains(&bits),
            "unit map entries of {bits} bits"
        );
        UnitMap {
            bytes: vec![0xff; Self::bytes_of(n, bits) as usize],
            n,
            bits,
            mask: (1u64 << bits) - 1,
        }
    }

    /// Entries.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Bits per entry.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    #[inline]
    fn word(&self, i: u64) -> (usize, u32, u64) {
        let bit = i * self.bits as u64;
        let at = (bit >> 3) as usize;
        let w = u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"));
        (at, (bit & 7) as u32, w)
    }

    /// Entry `i`: a unit number, or [`NO_UNIT`]. (An entry of up to 40 bits at any bit
    /// offset 0..7 fits the 64-bit word read at its first byte.)
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        let (_, shift, w) = self.word(i);
        let v = (w >> shift) & self.mask;
        if v == self.mask {
            NO_UNIT
        } else {
            v
        }
    }

    /// Set entry `i` to `v` (a unit number below the bound given at construction, or
    /// [`NO_UNIT`]).
    #[inline]
    pub fn set(&mut self, i: u64, v: u64) {
        let v = if v == NO_UNIT { self.mask } else { v };
        debug_assert!(
            v <= self.mask,
            "unit map value {v} wider than {} bits",
            self.bits
        );
        let (at, shift, w) = self.word(i);
        let w = (w & !(self.mask << shift)) | (v << shift);
        self.bytes[at..at + 8].copy_from_slice(&w.to_le_bytes());
    }

    /// Hint that entry `i` will soon be read or written (the FTL's `prefetch` helper).
    #[inline]
    pub fn prefetch(&self, i: u64) {
        if let Some(b) = self.bytes.get(((i * self.bits as u64) >> 3) as usize) {
            super::prefetch::prefetch(b);
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.len()
    }
}

/// How the page map lays its entries out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MapLayout {
    /// `u32` entries while the physical units number below [`PACK_FROM`], packed entries of
    /// [`UnitMap::bits_for`] bits from there on where they are narrower than 32 bits (below
    /// 2^31 units) or `u32` cannot hold the units (from 2^32 - 1 units).
    #[default]
    Auto,
    /// Packed entries on any device, at least 33 bits wide (as a device of 2^32 units has):
    /// the layout of devices past 2^32 units, on devices small enough to run anywhere (tests
    /// compare it with the plain layout).
    Wide,
    /// Packed entries of [`UnitMap::bits_for`] bits on any device: the layout
    /// [`MapLayout::Auto`] picks from [`PACK_FROM`] units, on devices small enough to run
    /// anywhere (tests compare it with the plain layout).
    Packed,
}

/// The page map: physical unit of each logical unit (and of each translation page).
pub enum PageMap {
    /// One `u32` per entry, [`UNMAPPED`] for none.
    Narrow(Vec<u32>),
    /// Packed entries.
    Wide(UnitMap),
}

impl PageMap {
    /// Bits per entry for a map of `phys` physical units in `layout`: `None` for the `u32`
    /// layout.
    pub fn bits(phys: u64, layout: MapLayout) -> Option<u32> {
        match layout {
            MapLayout::Auto if phys < PACK_FROM => None,
            MapLayout::Auto if phys < UNMAPPED as u64 && UnitMap::bits_for(phys) >= 32 => None,
            MapLayout::Auto | MapLayout::Packed => Some(UnitMap::bits_for(phys)),
            MapLayout::Wide => Some(UnitMap::bits_for(phys).max(33)),
        }
    }

    /// Bytes of a map of `n` entries over `phys` physical units in `layout` (the memory
    /// estimate).
    pub fn bytes_for(n: u64, phys: u64, layout: MapLayout) -> u64 {
        match Self::bits(phys, layout) {
            None => n * size_of::<u32>() as u64,
            Some(bits) => UnitMap::bytes_of(n, bits),
        }
    }

    /// `n` entries over `phys` physical units in `layout`, all unmapped.
    pub fn new(n: u64, phys: u64, layout: MapLayout) -> PageMap {
        match Self::bits(phys, layout) {
            None => PageMap::Narrow(vec![UNMAPPED; n as usize]),
            Some(bits) => PageMap::Wide(UnitMap::with_bits(n, bits)),
        }
    }

    /// Entries.
    pub fn len(&self) -> u64 {
        match self {
            PageMap::Narrow(v) => v.len() as u64,
            PageMap::Wide(m) => m.len(),
        }
    }

    /// Whether it has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`: a physical unit, or [`NO_UNIT`].
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        match self {
            PageMap::Narrow(v) => {
                let p = v[i as usize];
                if p == UNMAPPED {
                    NO_UNIT
                } else {
                    p as u64
                }
            }
            PageMap::Wide(m) => m.get(i),
        }
    }

    /// Entry `i`, or `None` when `i` is past the map (a prefetch hint's bound check).
    #[inline]
    pub fn try_get(&self, i: u64) -> Option<u64> {
        match self {
            PageMap::Narrow(v) => {
                v.get(i as usize)
                    .map(|&p| if p == UNMAPPED { NO_UNIT } else { p as u64 })
            }
            PageMap::Wide(m) => (i < self.len()).then(|| m.get(i)),
        }
    }

    /// Set entry `i` to physical unit `v` or [`NO_UNIT`].
    #[inline]
    pub fn set(&mut self, i: u64, v: u64) {
        match self {
            PageMap::Narrow(m) => {
                debug_assert!(v == NO_UNIT || v < UNMAPPED as u64, "unit {v} in a u32 map");
                m[i as usize] = v as u32;
            }
            PageMap::Wide(m) => m.set(i, v),
        }
    }

    /// Hint that entry `i` (one past the map is ignored) will soon be read or written.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        match self {
            PageMap::Narrow(v) => {
                if let Some(e) = v.get(i as usize) {
                    super::prefetch::prefetch(e);
                }
            }
            PageMap::Wide(m) => m.prefetch(i),
        }
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        match self {
            PageMap::Narrow(v) => v.len() * size_of::<u32>(),
            PageMap::Wide(m) => m.heap_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn widths_hold_every_value_and_the_none_value() {
        assert_eq!(UnitMap::bits_for(0), 1);
        assert_eq!(UnitMap::bits_for(1), 1);
        assert_eq!(UnitMap::bits_for(2), 2);
        assert_eq!(UnitMap::bits_for((1 << 28) - 1), 28);
        assert_eq!(UnitMap::bits_for(1 << 28), 29);
        assert_eq!(UnitMap::bits_for(u32::MAX as u64), 32);
        assert_eq!(UnitMap::bits_for(1 << 32), 33);
        assert_eq!(UnitMap::bits_for((1 << 40) - 1), 40);
        // The page map: u32 entries below 2^28 physical units, packed from there (29 bits
        // for values up to 2^28 and the none value).
        assert_eq!(PageMap::bits((1 << 28) - 1, MapLayout::Auto), None);
        assert_eq!(PageMap::bits(1 << 28, MapLayout::Auto), Some(29));
        assert_eq!(PageMap::bits((1 << 31) - 1, MapLayout::Auto), Some(31));
        // 32-bit packed entries would save nothing: the u32 array up to 2^32 - 2 units.
        assert_eq!(PageMap::bits(1 << 31, MapLayout::Auto), None);
        assert_eq!(PageMap::bits(u32::MAX as u64 - 1, MapLayout::Auto), None);
        assert_eq!(PageMap::bits(u32::MAX as u64, MapLayout::Auto), Some(32));
        assert_eq!(PageMap::bits(1 << 32, MapLayout::Auto), Some(33));
        assert_eq!(PageMap::bits(1000, MapLayout::Wide), Some(33));
        assert_eq!(PageMap::bits(1000, MapLayout::Packed), Some(10));
        assert_eq!(PageMap::bits(1 << 39, MapLayout::Wide), Some(40));
    }

    /// Random sets and gets of `m` against a `Vec<u64>` reference holding `NO_UNIT` for none.
    fn against_reference(
        n: u64,
        values: u64,
        seed: u64,
        get: impl Fn(u64) -> u64,
        mut set: impl FnMut(u64, u64),
    ) {
        let mut want = vec![NO_UNIT; n as usize];
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        for k in 0..20_000u64 {
            let i = rng.random_range(0..n);
            let v = match rng.random_range(0..8) {
                0 => NO_UNIT,
                // The largest value and the values around 2^32, where a 32-bit cut shows.
                1 => values - 1,
                2 if values > 1 << 32 => (1u64 << 32) + (k % 3) - 1,
                _ => rng.random_range(0..values),
            };
            set(i, v);
            want[i as usize] = v;
            // Neighbours of the entry set keep their values.
            for j in i.saturating_sub(1)..(i + 2).min(n) {
                assert_eq!(
                    get(j),
                    want[j as usize],
                    "values {values}, entry {j} after setting {i}"
                );
            }
        }
        for i in 0..n {
            assert_eq!(get(i), want[i as usize], "values {values}, entry {i}");
        }
    }

    #[test]
    fn random_writes_read_back_as_a_plain_array_would() {
        // A Vec<u64> is the reference, for widths from 1 to 40 bits.
        for values in [
            1u64,
            2,
            5,
            1000,
            1 << 20,
            (1 << 31) + 7,
            u32::MAX as u64 - 1,
            u32::MAX as u64,
            1 << 32,
            (1 << 33) + 5,
            (1 << 36) - 3,
            (1 << 39) + 11,
            (1 << 40) - 1,
        ] {
            let n = 3001;
            let m = std::cell::RefCell::new(UnitMap::new(n, values));
            against_reference(
                n,
                values,
                values,
                |i| m.borrow().get(i),
                |i, v| m.borrow_mut().set(i, v),
            );
        }
    }

    #[test]
    fn both_page_map_layouts_read_back_as_a_plain_array_would() {
        for (phys, layout, bits) in [
            (5000, MapLayout::Auto, None),
            (5000, MapLayout::Wide, Some(33)),
            (5000, MapLayout::Packed, Some(13)),
            ((1 << 28) + 7, MapLayout::Auto, Some(29)),
            ((1 << 36) + 1, MapLayout::Auto, Some(37)),
            ((1 << 40) - 1, MapLayout::Auto, Some(40)),
        ] {
            let n = 2000;
            let m = std::cell::RefCell::new(PageMap::new(n, phys, layout));
            assert_eq!(PageMap::bits(phys, layout), bits);
            assert_eq!(m.borrow().len(), n);
            assert_eq!(
                m.borrow().heap_bytes() as u64,
                PageMap::bytes_for(n, phys, layout)
            );
            against_reference(
                n,
                phys,
                phys,
                |i| m.borrow().get(i),
                |i, v| m.borrow_mut().set(i, v),
            );
            assert_eq!(m.borrow().try_get(n), None);
        }
    }
}
