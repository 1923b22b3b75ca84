//! Per erase block, the logical blocks of the chunks written into it, in write order, so GC
//! finds a victim's chunks. Consecutive LBAs (a log-structured host writes runs of them, and
//! a page's chunks go in one after another) are stored as runs: three or more LBAs `a`,
//! `a + 1`, ..., `a + k - 1` as the three entries `[a, RUN, k]`. A list never takes more
//! entries than the plain list of its LBAs would (4 bytes per chunk at worst), and a run of
//! any length takes 12 bytes.

/// Marks a run: the entry before it is its first LBA, the entry after it its length. No LBA
/// takes this value (the CCSD's logical space ends below 2^32 - 1).
const RUN: u32 = u32::MAX;

/// One block's list.
#[derive(Debug, Clone, Default)]
pub struct LbaList(Vec<u32>);

impl LbaList {
    /// Bytes a run of consecutive LBAs takes, however long: a page's chunks as a
    /// log-structured host writes them (for the memory estimate).
    pub const RUN_BYTES: usize = 3 * std::mem::size_of::<u32>();

    /// Append `lba`.
    #[inline]
    pub fn push(&mut self, lba: u32) {
        debug_assert_ne!(lba, RUN, "LBA {lba} is the run marker");
        let v = &mut self.0;
        let n = v.len();
        if n >= 3 && v[n - 2] == RUN {
            // The list ends with a run [a, RUN, k]: extend it when `lba` follows it.
            if v[n - 3] as u64 + v[n - 1] as u64 == lba as u64 {
                v[n - 1] += 1;
                return;
            }
        } else if n >= 2 && !(n >= 3 && v[n - 3] == RUN) {
            // The list ends with two plain LBAs x, y (the one before last is not a run's
            // length): x, x + 1, x + 2 become the run [x, RUN, 3].
            let (x, y) = (v[n - 2] as u64, v[n - 1] as u64);
            if y == x + 1 && lba as u64 == y + 1 {
                v[n - 1] = RUN;
                v.push(3);
                return;
            }
        }
        v.push(lba);
    }

    /// The LBAs in write order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let v = &self.0;
        let mut i = 0;
        let mut run = 0..0u32;
        std::iter::from_fn(move || {
            if let Some(l) = run.next() {
                return Some(l);
            }
            let a = *v.get(i)?;
            if v.get(i + 1) == Some(&RUN) {
                run = a + 1..a + v[i + 2];
                i += 3;
            } else {
                i += 1;
            }
            Some(a)
        })
    }

    /// Whether no LBA is listed.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Forget every LBA, keeping the allocation.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// Random sequences mixing runs, repeats, descents and the largest LBAs list back exactly
    /// as pushed, in no more entries than the plain list, and runs cost three entries.
    #[test]
    fn lists_back_what_was_pushed_in_no_more_room() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for _ in 0..2000 {
            let mut l = LbaList::default();
            let mut want = Vec::new();
            let mut x = rng.random_range(0..RUN - 100);
            for _ in 0..rng.random_range(0..60) {
                x = match rng.random_range(0..6) {
                    0..=2 => x.saturating_add(1).min(RUN - 1),
                    3 => x,
                    4 => x.saturating_sub(1),
                    _ => rng.random_range(RUN - 8..RUN),
                };
                l.push(x);
                want.push(x);
                assert!(l.0.len() <= want.len());
            }
            assert_eq!(l.iter().collect::<Vec<_>>(), want);
        }
        let mut l = LbaList::default();
        (7..1000).for_each(|a| l.push(a));
        assert_eq!(l.0, vec![7, RUN, 993]);
        l.push(5);
        l.push(6);
        l.push(7);
        assert_eq!(l.0, vec![7, RUN, 993, 5, RUN, 3]);
        assert_eq!(l.iter().count(), 996);
        // A run's length followed by one LBA is not a plain pair.
        let mut l = LbaList::default();
        [10, 11, 12, 3, 4].iter().for_each(|&a| l.push(a));
        assert_eq!(l.0, vec![10, RUN, 3, 3, 4]);
        l.push(5);
        assert_eq!(l.0, vec![10, RUN, 3, 3, RUN, 3]);
        l.clear();
        assert!(l.is_empty() && l.iter().next().is_none());
    }
}
