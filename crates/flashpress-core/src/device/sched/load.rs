//! Each plane's load for least-busy allocation, and the search for the least-busy plane.
//!
//! A plane's load at `now` is when its running and queued work ends by nominal durations:
//! `max(until, now) + queued`. Both parts change only through [`Loads`]' setters (the fields
//! are private to this module), which mark the plane dirty. For each plane order the FTL walks
//! (its stripe order, or one per FDP reclaim group) of more than [`SCAN_MAX`] planes, a
//! tournament tree over the order's positions answers "the first position, walking round
//! from `from`, whose load is least" in O(log n) after bringing the dirty planes' leaves up to
//! date. Smaller orders are scanned: a simulated write changes the loads of about five
//! planes before the next search, so at 32 planes keeping a tree up to date costs more than
//! the scan it saves (measured with callgrind on the `make bench` trace), and in a synthetic
//! loop (five changes a search, every plane busy) the two break even between 128 and 512
//! planes (docs/performance.md).
//!
//! The load depends on `now` only for planes whose work ended (`until <= now`): each leaf
//! is classified against the tree's time `t` as *busy* (`until > t`, load `until + queued`)
//! or *idle* (load `now + queued`), and each node keeps the least load of its busy leaves,
//! the least queue of its idle leaves, and the extreme `until` of each class, so a query at
//! another time reclassifies exactly the leaves whose class changed (time may also go back:
//! a lazily advanced back end asks at earlier instants).

use crate::units::{PlaneId, SimTime};

/// Orders of at most this many planes are scanned rather than searched in a tree.
pub(super) const SCAN_MAX: usize = 256;

const INF: u64 = u64::MAX;
const ABSENT: u32 = u32::MAX;

/// Per-plane loads and the search trees over the plane orders.
#[derive(Debug, Clone)]
pub(super) struct Loads {
    until: Vec<SimTime>,
    queued: Vec<u64>,
    /// Some order has a tree: changes are tracked for it (otherwise they need not be).
    tracking: bool,
    /// Planes whose load changed since the trees last looked (bit set and listed once).
    dirty_bits: Vec<u64>,
    dirty: Vec<u32>,
    /// Search trees by order number (built at the first search over that order).
    trees: Vec<Option<Tree>>,
    /// Orders of at most this many planes are scanned ([`SCAN_MAX`]; tests lower it).
    scan_max: usize,
}

impl Loads {
    pub fn new(planes: usize) -> Loads {
        Loads {
            until: vec![SimTime::ZERO; planes],
            queued: vec![0; planes],
            tracking: false,
            dirty_bits: vec![0; planes.div_ceil(64)],
            dirty: Vec::new(),
            trees: Vec::new(),
            scan_max: SCAN_MAX,
        }
    }

    /// Every plane idle since time zero with nothing queued; the trees are rebuilt.
    pub fn reset(&mut self) {
        self.until.iter_mut().for_each(|t| *t = SimTime::ZERO);
        self.queued.iter_mut().for_each(|q| *q = 0);
        self.dirty_bits.iter_mut().for_each(|w| *w = 0);
        self.dirty.clear();
        self.trees.clear();
        self.tracking = false;
    }

    #[inline]
    fn touch(&mut self, pi: usize) {
        if !self.tracking {
            return;
        }
        let (w, b) = (pi >> 6, 1u64 << (pi & 63));
        if self.dirty_bits[w] & b == 0 {
            self.dirty_bits[w] |= b;
            self.dirty.push(pi as u32);
        }
    }

    /// End of plane `pi`'s current activity; for an idle plane, when it became free.
    #[inline]
    pub fn until(&self, pi: usize) -> SimTime {
        self.until[pi]
    }

    #[inline]
    pub fn set_until(&mut self, pi: usize, t: SimTime) {
        if self.until[pi] != t {
            self.until[pi] = t;
            self.touch(pi);
        }
    }

    /// Nominal time of plane `pi`'s queued commands (ns).
    #[cfg(test)]
    pub fn queued(&self, pi: usize) -> u64 {
        self.queued[pi]
    }

    #[inline]
    pub fn add_queued(&mut self, pi: usize, ns: u64) {
        if ns != 0 {
            self.queued[pi] += ns;
            self.touch(pi);
        }
    }

    #[inline]
    pub fn sub_queued(&mut self, pi: usize, ns: u64) {
        if ns != 0 {
            self.queued[pi] = self.queued[pi]
                .checked_sub(ns)
                .expect("a plane's queued time went below zero");
            self.touch(pi);
        }
    }

    /// The search by a scan of `order` (a plane with no work left at `now` ends it).
    #[inline]
    fn scan(&self, order: &[PlaneId], from: usize, now: SimTime) -> usize {
        // Both slices the same length, so one bounds check per plane covers both.
        let until = &self.until[..];
        let queued = &self.queued[..until.len()];
        let load = |p: PlaneId| {
            let p = p.0 as usize;
            until[p].max(now).0 + queued[p]
        };
        let mut best = from;
        let mut best_t = load(order[from]);
        if best_t == now.0 {
            return best;
        }
        for range in [from + 1..order.len(), 0..from] {
            for (i, &p) in order[range.clone()].iter().enumerate() {
                let t = load(p);
                if t < best_t {
                    best = range.start + i;
                    best_t = t;
                    if t == now.0 {
                        return best;
                    }
                }
            }
        }
        best
    }

    /// The latest end of any plane's activity.
    pub fn last_until(&self) -> SimTime {
        self.until.iter().copied().max().unwrap_or(SimTime::ZERO)
    }

    /// Of the planes `order` (the caller's order number `id`, always the same planes for one
    /// id) walked round from index `from`, the index of the one whose load at `now` is least
    /// (the first met of equals).
    pub fn least_loaded(
        &mut self,
        id: usize,
        order: &[PlaneId],
        from: usize,
        now: SimTime,
    ) -> usize {
        if order.len() <= self.scan_max {
            return self.scan(order, from, now);
        }
        if self.trees.len() <= id {
            self.trees.resize_with(id + 1, || None);
        }
        if self.trees[id].is_none() {
            self.trees[id] = Some(Tree::new(order, self.until.len()));
            // A new tree is built from the current loads below (every leaf is computed).
            let tree = self.trees[id].as_mut().expect("just built");
            tree.t = now;
            tree.build(&self.until, &self.queued);
            self.tracking = true;
        }
        if !self.dirty.is_empty() {
            for &p in &self.dirty {
                let p = p as usize;
                self.dirty_bits[p >> 6] = 0;
                for tree in self.trees.iter_mut().flatten() {
                    tree.refresh(p, self.until[p], self.queued[p]);
                }
            }
            self.dirty.clear();
        }
        let tree = self.trees[id].as_mut().expect("built above");
        debug_assert!(
            tree.order.as_ref() == order,
            "plane order {id} changed between searches"
        );
        tree.search(from, now, &self.until, &self.queued)
    }
}

/// A tournament tree over the positions of one plane order.
#[derive(Debug, Clone)]
struct Tree {
    order: Box<[PlaneId]>,
    /// Plane -> position in `order` ([`ABSENT`]: not in it).
    pos: Vec<u32>,
    /// Leaves (a power of two, at least the order's length).
    size: usize,
    /// The time leaves are classified against.
    t: SimTime,
    /// Per node (root 1, leaves `size..`): least `until + queued` of busy leaves, least
    /// `queued` of idle leaves, least `until` of busy leaves, greatest `until` of idle leaves
    /// (0 when none: an idle leaf with `until` 0 never turns busy).
    busy_load: Vec<u64>,
    idle_queued: Vec<u64>,
    busy_until: Vec<u64>,
    idle_until: Vec<u64>,
}

impl Tree {
    fn new(order: &[PlaneId], planes: usize) -> Tree {
        assert!(!order.is_empty(), "least-busy search over no planes");
        let size = order.len().next_power_of_two();
        let mut pos = vec![ABSENT; planes];
        for (i, p) in order.iter().enumerate() {
            pos[p.0 as usize] = i as u32;
        }
        Tree {
            order: order.into(),
            pos,
            size,
            t: SimTime::ZERO,
            busy_load: vec![INF; 2 * size],
            idle_queued: vec![INF; 2 * size],
            busy_until: vec![INF; 2 * size],
            idle_until: vec![0; 2 * size],
        }
    }

    #[inline]
    fn set_leaf(&mut self, i: usize, until: SimTime, queued: u64) {
        if until > self.t {
            self.busy_load[i] = until.0 + queued;
            self.idle_queued[i] = INF;
            self.busy_until[i] = until.0;
            self.idle_until[i] = 0;
        } else {
            self.busy_load[i] = INF;
            self.idle_queued[i] = queued;
            self.busy_until[i] = INF;
            self.idle_until[i] = until.0;
        }
    }

    /// Recompute node `i` from its children; whether it changed.
    #[inline]
    fn pull(&mut self, i: usize) -> bool {
        let (l, r) = (2 * i, 2 * i + 1);
        let n = (
            self.busy_load[l].min(self.busy_load[r]),
            self.idle_queued[l].min(self.idle_queued[r]),
            self.busy_until[l].min(self.busy_until[r]),
            self.idle_until[l].max(self.idle_until[r]),
        );
        let old = (
            self.busy_load[i],
            self.idle_queued[i],
            self.busy_until[i],
            self.idle_until[i],
        );
        if n == old {
            return false;
        }
        (
            self.busy_load[i],
            self.idle_queued[i],
            self.busy_until[i],
            self.idle_until[i],
        ) = n;
        true
    }

    fn build(&mut self, until: &[SimTime], queued: &[u64]) {
        for (i, p) in self.order.clone().iter().enumerate() {
            let p = p.0 as usize;
            self.set_leaf(self.size + i, until[p], queued[p]);
        }
        for i in (1..self.size).rev() {
            self.pull(i);
        }
    }

    /// Plane `p`'s load changed: bring its leaf (if it is in this order) and the path above
    /// it up to date.
    #[inline]
    fn refresh(&mut self, p: usize, until: SimTime, queued: u64) {
        let at = self.pos[p];
        if at != ABSENT {
            self.update(self.size + at as usize, until, queued);
        }
    }

    #[inline]
    fn update(&mut self, leaf: usize, until: SimTime, queued: u64) {
        self.set_leaf(leaf, until, queued);
        let mut i = leaf / 2;
        while i >= 1 && self.pull(i) {
            i /= 2;
        }
    }

    fn search(&mut self, from: usize, now: SimTime, until: &[SimTime], queued: &[u64]) -> usize {
        if now != self.t {
            // Reclassify the leaves whose class differs at `now`.
            self.t = now;
            while self.busy_until[1] <= now.0 {
                let leaf = self.descend(|s, i| s.busy_until[i] <= now.0);
                self.reclassify(leaf, until, queued);
            }
            while self.idle_until[1] > now.0 {
                let leaf = self.descend(|s, i| s.idle_until[i] > now.0);
                self.reclassify(leaf, until, queued);
            }
        }
        let least = self.busy_load[1].min(now.0.saturating_add(self.idle_queued[1]));
        // The first position at or after `from`, else from 0, whose load is `least`.
        let fits =
            |s: &Tree, i: usize| s.busy_load[i] <= least || s.idle_queued[i] <= least - now.0;
        self.first_from(1, 0, self.size, from, &fits)
            .or_else(|| self.first_from(1, 0, self.size, 0, &fits))
            .expect("the least load is some leaf's")
    }

    fn reclassify(&mut self, leaf: usize, until: &[SimTime], queued: &[u64]) {
        let p = self.order[leaf - self.size].0 as usize;
        self.update(leaf, until[p], queued[p]);
    }

    /// The leftmost leaf under whose every ancestor `f` holds (`f` holds at the root).
    fn descend(&self, f: impl Fn(&Tree, usize) -> bool) -> usize {
        let mut i = 1;
        while i < self.size {
            i = if f(self, 2 * i) { 2 * i } else { 2 * i + 1 };
        }
        i
    }

    /// The first position at or after `lo` in node `i` (covering `[l, r)`) whose leaf
    /// satisfies `f`.
    fn first_from(
        &self,
        i: usize,
        l: usize,
        r: usize,
        lo: usize,
        f: &impl Fn(&Tree, usize) -> bool,
    ) -> Option<usize> {
        if r <= lo || !f(self, i) {
            return None;
        }
        if i >= self.size {
            return Some(i - self.size);
        }
        let mid = (l + r) / 2;
        self.first_from(2 * i, l, mid, lo, f)
            .or_else(|| self.first_from(2 * i + 1, mid, r, lo, f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    /// The definition, by brute force: every load of the order at `now`, the least, and the
    /// first position holding it walking round from `from`.
    fn brute(loads: &Loads, order: &[PlaneId], from: usize, now: SimTime) -> usize {
        let load: Vec<u64> = order
            .iter()
            .map(|p| loads.until[p.0 as usize].0.max(now.0) + loads.queued[p.0 as usize])
            .collect();
        let least = *load.iter().min().expect("a non-empty order");
        (0..order.len())
            .map(|k| (from + k) % order.len())
            .find(|&i| load[i] == least)
            .expect("the least is somewhere")
    }

    /// Random loads and random update sequences: the tree search and the scan pick the same
    /// position as the brute force, for the whole order and for disjoint sub-orders (FDP
    /// groups), from random starting indices, with time moving forward mostly and sometimes
    /// back (a lazily advanced back end), across a reset. Values come from small ranges so
    /// that equal loads (ties) are common.
    #[test]
    fn tree_and_scan_match_brute_force() {
        for seed in 0..40u64 {
            let mut rng = Pcg64::seed_from_u64(seed);
            let planes = rng.random_range(1..=150usize);
            let mut loads = Loads::new(planes);
            loads.scan_max = 0; // every order through its tree
            let mut whole: Vec<PlaneId> = (0..planes as u32).map(PlaneId).collect();
            whole.shuffle(&mut rng);
            let groups = rng.random_range(1..=planes.min(4));
            let parts: Vec<Vec<PlaneId>> = (0..groups)
                .map(|g| whole.iter().copied().skip(g).step_by(groups).collect())
                .collect();
            let spread = [3u64, 20, 1000][seed as usize % 3];
            let mut now = SimTime(rng.random_range(0..spread));
            let mut tied = 0;
            for step in 0..600 {
                // A few load changes, as the scheduler makes them.
                for _ in 0..rng.random_range(0..8) {
                    let p = rng.random_range(0..planes);
                    match rng.random_range(0..4) {
                        0 => loads.set_until(p, SimTime(now.0 + rng.random_range(0..spread))),
                        1 => loads.set_until(
                            p,
                            SimTime(now.0.saturating_sub(rng.random_range(0..spread))),
                        ),
                        2 => loads.add_queued(p, rng.random_range(0..spread)),
                        _ => {
                            let q = loads.queued(p);
                            loads.sub_queued(p, rng.random_range(0..=q));
                        }
                    }
                }
                if step == 300 && seed % 2 == 0 {
                    loads.reset();
                    loads.scan_max = 0;
                }
                now = match rng.random_range(0..10) {
                    0 => SimTime(now.0.saturating_sub(rng.random_range(0..spread))),
                    1..=3 => now,
                    _ => SimTime(now.0 + rng.random_range(0..spread)),
                };
                let id = rng.random_range(0..=groups);
                let order = if id == 0 { &whole } else { &parts[id - 1] };
                let from = rng.random_range(0..order.len());
                let want = brute(&loads, order, from, now);
                let at = format!("seed {seed} step {step}: order {id} from {from} at {now:?}");
                assert_eq!(loads.scan(order, from, now), want, "scan, {at}");
                assert_eq!(loads.least_loaded(id, order, from, now), want, "tree, {at}");
                let load = |p: &PlaneId| {
                    loads.until[p.0 as usize].0.max(now.0) + loads.queued[p.0 as usize]
                };
                let best = load(&order[want]);
                if order.iter().filter(|p| load(p) == best).count() > 1 {
                    tied += 1;
                }
            }
            if planes > 4 && spread < 1000 {
                assert!(tied > 0, "seed {seed}: no search had tied planes");
            }
        }
    }

    /// A hand-made state: loads 5, 3, 3, 7 at time 2 (plane 1 idle since 1 with 1 ns queued:
    /// `max(1, 2) + 1`). Walking from 0 or 3 the first 3 met is plane 1, from 2 it is plane 2;
    /// the tree and the scan agree.
    #[test]
    fn walks_round_and_keeps_the_first_of_equals() {
        let mut loads = Loads::new(4);
        loads.set_until(0, SimTime(5));
        loads.set_until(1, SimTime(1));
        loads.add_queued(1, 1);
        loads.set_until(2, SimTime(3));
        loads.set_until(3, SimTime(7));
        let order: Vec<PlaneId> = (0..4).map(PlaneId).collect();
        let now = SimTime(2);
        for (from, want) in [(0, 1), (1, 1), (2, 2), (3, 1)] {
            assert_eq!(loads.scan(&order, from, now), want);
            loads.scan_max = 0;
            assert_eq!(loads.least_loaded(0, &order, from, now), want);
            loads.scan_max = SCAN_MAX;
            assert_eq!(loads.least_loaded(0, &order, from, now), want);
        }
    }
}
