//! The reverse map (physical unit -> logical unit) in entries only as wide as the logical
//! units need: `bits = ceil(log2(logical units + 1))`, the all-ones value meaning "no logical
//! unit" ([`UNMAPPED`] at the interface). The reverse map has an entry per physical unit,
//! over-provisioning included, so 32-bit entries made it the largest array of a big device;
//! 29 bits at 1 TiB of 4 KiB units keep the maps within 2 GiB per TiB.

use super::UNMAPPED;

/// Bit-packed `u32` entries over a byte array (read and written as unaligned `u64`s).
pub struct RevMap {
    bytes: Vec<u8>,
    bits: u32,
    mask: u64,
}

impl RevMap {
    /// Bits per entry for values `0..values` plus the "none" value.
    pub fn bits_for(values: u64) -> u32 {
        (64 - values.leading_zeros()).clamp(1, 32)
    }

    /// Bytes of `n` entries for values `0..values` (the memory estimate).
    pub fn bytes_for(n: u64, values: u64) -> u64 {
        (n * Self::bits_for(values) as u64).div_ceil(8) + 8
    }

    /// `n` entries for values `0..values`, all [`UNMAPPED`].
    pub fn new(n: u64, values: u64) -> RevMap {
        let bits = Self::bits_for(values);
        RevMap {
            bytes: vec![0xff; Self::bytes_for(n, values) as usize],
            bits,
            mask: (1u64 << bits) - 1,
        }
    }

    #[inline]
    fn word(&self, i: u64) -> (usize, u32, u64) {
        let bit = i * self.bits as u64;
        let at = (bit >> 3) as usize;
        let w = u64::from_le_bytes(self.bytes[at..at + 8].try_into().expect("8 bytes"));
        (at, (bit & 7) as u32, w)
    }

    /// Entry `i`: a logical unit, or [`UNMAPPED`].
    #[inline]
    pub fn get(&self, i: u64) -> u32 {
        let (_, shift, w) = self.word(i);
        let v = (w >> shift) & self.mask;
        if v == self.mask {
            UNMAPPED
        } else {
            v as u32
        }
    }

    /// Set entry `i` to `v` (a logical unit below the bound given at construction, or
    /// [`UNMAPPED`]).
    #[inline]
    pub fn set(&mut self, i: u64, v: u32) {
        let v = if v == UNMAPPED { self.mask } else { v as u64 };
        debug_assert!(
            v <= self.mask,
            "reverse-map value {v} wider than {} bits",
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn widths_hold_every_value_and_the_none_value() {
        assert_eq!(RevMap::bits_for(0), 1);
        assert_eq!(RevMap::bits_for(1), 1);
        assert_eq!(RevMap::bits_for(2), 2);
        assert_eq!(RevMap::bits_for((1 << 28) - 1), 28);
        assert_eq!(RevMap::bits_for(1 << 28), 29);
        assert_eq!(RevMap::bits_for(u32::MAX as u64), 32);
    }

    #[test]
    fn random_writes_read_back_as_a_plain_array_would() {
        // A Vec<u32> is the reference, for widths from 1 to 32 bits.
        for values in [
            1u64,
            2,
            5,
            1000,
            1 << 20,
            (1 << 31) + 7,
            u32::MAX as u64 - 1,
        ] {
            let n = 3001;
            let mut m = RevMap::new(n, values);
            let mut want = vec![UNMAPPED; n as usize];
            let mut rng = Pcg64Mcg::seed_from_u64(values);
            for _ in 0..20_000 {
                let i = rng.random_range(0..n);
                let v = if rng.random_range(0..4) == 0 {
                    UNMAPPED
                } else {
                    rng.random_range(0..values) as u32
                };
                m.set(i, v);
                want[i as usize] = v;
            }
            for i in 0..n {
                assert_eq!(m.get(i), want[i as usize], "values {values}, entry {i}");
            }
        }
    }
}
