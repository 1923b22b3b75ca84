//! The split decision's memory of host read sizes (PR-SSD section 4.3.1): one bit per logical
//! page, or the sizes of the pages read last in an LRU.

use crate::config::{SplitConfig, SplitDecision};

/// The split decision's memory of host read sizes (PR-SSD section 4.3.1): whether a logical
/// page was last read by a host read larger than a page.
pub(super) enum History {
    /// One bit per logical page.
    Bit(Vec<u64>),
    /// The pages read last, at most the cache's capacity of them.
    Lru(lru::LruCache<u64, bool>),
    /// Split All: no decision.
    All,
}

impl History {
    pub(super) fn new(s: &SplitConfig, logical: u64) -> History {
        match s.decision {
            SplitDecision::Bit => History::Bit(vec![0; logical.div_ceil(64) as usize]),
            SplitDecision::Lru => {
                let n = s.lru_entries.expect("validated") as usize;
                History::Lru(lru::LruCache::new(
                    std::num::NonZeroUsize::new(n).expect("validated"),
                ))
            }
            SplitDecision::All => History::All,
        }
    }

    #[inline]
    pub(super) fn record(&mut self, lpn: u64, large: bool) {
        match self {
            History::Bit(b) => {
                let (w, m) = ((lpn / 64) as usize, 1u64 << (lpn % 64));
                if large {
                    b[w] |= m;
                } else {
                    b[w] &= !m;
                }
            }
            History::Lru(c) => {
                c.put(lpn, large);
            }
            History::All => {}
        }
    }

    /// Whether the page was last read by a host read larger than a page.
    #[inline]
    pub(super) fn large(&self, lpn: u64) -> bool {
        match self {
            History::Bit(b) => b[(lpn / 64) as usize] >> (lpn % 64) & 1 == 1,
            History::Lru(c) => c.peek(&lpn).copied().unwrap_or(false),
            History::All => false,
        }
    }
}
