//! The victim seam: which sealed block of a plane GC cleans.
//!
//! Candidates are sealed (full, not open) blocks with at least one invalid page: cleaning a
//! fully valid block frees nothing. With mapping units smaller than the page, at least one
//! page's worth of invalid units: GC pads the last page it fills, so cleaning a block with
//! fewer could free nothing, and background GC would move the same units round for ever. Ties go to the lowest block index, so runs are deterministic.

use super::blocks::{BlockState, Blocks};
use crate::config::VictimPolicy;
use crate::units::{BlockId, SimTime};
use rand::Rng;
use rand_pcg::Pcg64Mcg;

/// Pick a victim in the blocks `first..first + count` (one plane) of `ppb` pages (unit
/// slots), or `None` if no block has `min_invalid` invalid ones. `in_flight`, when given, counts per block the host programs allocated
/// there and not yet started: such a block is not a candidate (its pages are not all on
/// flash yet, so it can be neither copied nor erased).
#[allow(clippy::too_many_arguments)]
pub fn select(
    policy: VictimPolicy,
    blocks: &Blocks,
    in_flight: Option<&[u16]>,
    first: u32,
    count: u32,
    ppb: u32,
    min_invalid: u32,
    now: SimTime,
    rng: &mut Pcg64Mcg,
) -> Option<BlockId> {
    // Candidates hold at most this many valid pages.
    let most = ppb - min_invalid;
    let range = first..first + count;
    let idle = |b: usize| in_flight.is_none_or(|f| f[b] == 0);
    let candidate = |b: u32| {
        blocks.state[b as usize] == BlockState::Sealed
            && blocks.valid[b as usize] <= most
            && idle(b as usize)
    };
    match policy {
        // Fewest valid pages: least copying per block freed.
        VictimPolicy::Greedy => {
            let (lo, hi) = (first as usize, (first + count) as usize);
            let mut best: Option<usize> = None;
            let mut best_valid = most + 1;
            for (i, (&v, &st)) in blocks.valid[lo..hi]
                .iter()
                .zip(&blocks.state[lo..hi])
                .enumerate()
            {
                if v < best_valid && st == BlockState::Sealed && idle(lo + i) {
                    best = Some(i);
                    best_valid = v;
                    if v == 0 {
                        break;
                    }
                }
            }
            best.map(|i| BlockId(first + i as u32))
        }
        VictimPolicy::Random => {
            let n = range.clone().filter(|&b| candidate(b)).count();
            if n == 0 {
                return None;
            }
            let k = rng.random_range(0..n);
            range.filter(|&b| candidate(b)).nth(k).map(BlockId)
        }
        // Rosenblum & Ousterhout (LFS, SOSP '91): benefit/cost = (1 - u) * age / (1 + u),
        // age = time since the block's contents last changed.
        VictimPolicy::CostBenefit => {
            let mut best: Option<(u32, f64)> = None;
            for b in range.filter(|&b| candidate(b)) {
                let u = blocks.valid[b as usize] as f64 / ppb as f64;
                let age = now.0.saturating_sub(blocks.mtime[b as usize].0) as f64 + 1.0;
                let score = (1.0 - u) * age / (1.0 + u);
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some((b, score));
                }
            }
            best.map(|(b, _)| BlockId(b))
        }
        // Oldest sealed block first (a circular log).
        VictimPolicy::Fifo => range
            .filter(|&b| candidate(b))
            .min_by_key(|&b| blocks.sealed_seq[b as usize])
            .map(BlockId),
    }
}
