//! Deduplication's mapping (`ftl.dedup`): logical pages share flash pages through content
//! entries, CAFTL's secondary map (Chen et al., FAST '11).
//!
//! A logical page maps to a *node*; the page FTL maps nodes (its "virtual pages") to flash.
//! A root node is a stored page: its fingerprint, how many logical pages resolve to it (the
//! reference count) and, through the page FTL, its flash page. GC moving a shared page moves
//! one root and updates one entry, never the logical pages that share it.
//!
//! When GC finds that a root duplicates another one already in the fingerprint index
//! (CAGC), the two merge without knowing which logical pages point at either: the loser
//! becomes a *stub* that forwards to the winner, and its pages' counts move to the winner. A
//! stub lives while logical pages or other stubs point at it (`links`). Lookups follow the
//! forwards (chains are short: a root merges only when GC meets it). When the node space
//! runs out, every logical page is pointed straight at its root and all stubs are freed
//! (compaction); roots never exceed the mapped logical pages, so compaction always frees
//! the slack.
//!
//! A flash page becomes invalid only when its count reaches zero. Every overwrite or TRIM of
//! a logical page is counted by the reference count its content had then (the seed's Fig. 6).

use super::fpindex::IndexOp;
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;

/// A strong fingerprint: the first 16 bytes of a page's BLAKE3 digest.
pub type Strong = [u8; 16];

/// A page's fingerprints from its bytes: XXH3-64 (the index key) and BLAKE3 (the check).
pub fn fingerprint_bytes(page: &[u8]) -> (u64, Strong) {
    let pre = xxhash_rust::xxh3::xxh3_64(page).max(1);
    let mut strong = [0u8; 16];
    strong.copy_from_slice(&blake3::hash(page).as_bytes()[..16]);
    (pre, strong)
}

/// Bytes of a node's record in the node table as a device would store it (CAFTL's secondary
/// map entry beside its flash page): the reference count and the forward to the root, 4 bytes
/// each. The simulator's own `Node` also keeps the stub link count and two flags.
pub const NODE_ENTRY_BYTES: u64 = 8;

/// Bytes of a logical page's entry in the node table: its node (CAFTL's primary map).
pub const LPN_ENTRY_BYTES: u64 = 4;

/// Marks "no node" in the maps.
pub const NONE: u32 = u32::MAX;

/// Buckets of [`DedupCounters::dropped_by_count`]: counts 1 to 7, and 8 or more.
pub const COUNT_BUCKETS: usize = 8;

/// Counters of the deduplicating mapping.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DedupCounters {
    /// Host pages hashed on the write path (inline mode).
    pub inline_hashed: u64,
    /// Of those, pages whose content was already stored: mapped to it, not programmed.
    pub inline_duplicates: u64,
    /// Valid pages GC hashed (gc mode).
    pub gc_hashed: u64,
    /// Of those, pages whose content was already stored elsewhere: merged, not rewritten.
    pub gc_duplicates: u64,
    /// GC migrations into the cold region (reference count above the threshold).
    pub gc_cold_migrations: u64,
    /// Stored pages invalidated outside the victim when a duplicate in the victim moved to the
    /// cold region in their place.
    pub gc_promoted: u64,
    /// Logical pages dropped (overwritten or trimmed), by the reference count their content
    /// had then: counts 1 to 7, and 8 or more in the last bucket.
    pub dropped_by_count: [u64; COUNT_BUCKETS],
    /// Stored pages whose count reached zero (their flash page became invalid).
    pub pages_freed: u64,
    /// Compactions of the node space (every logical page pointed straight at its root).
    pub compactions: u64,
    /// Pre-filter (XXH3) matches that the strong hash (BLAKE3) refuted: stored apart, not
    /// merged (fingerprint = "bytes"); a page GC meets again is counted again.
    pub prefilter_collisions: u64,
    /// Hash engine time spent fingerprinting (ns, summed over lanes).
    pub hash_busy_ns: u64,
    /// Time pages waited for a free hash lane (ns).
    pub hash_wait_ns: u64,
}

impl DedupCounters {
    /// `self - base`, field by field (the measured window).
    pub fn minus(&self, b: &DedupCounters) -> DedupCounters {
        let mut d = DedupCounters {
            inline_hashed: self.inline_hashed - b.inline_hashed,
            inline_duplicates: self.inline_duplicates - b.inline_duplicates,
            gc_hashed: self.gc_hashed - b.gc_hashed,
            gc_duplicates: self.gc_duplicates - b.gc_duplicates,
            gc_cold_migrations: self.gc_cold_migrations - b.gc_cold_migrations,
            gc_promoted: self.gc_promoted - b.gc_promoted,
            dropped_by_count: [0; COUNT_BUCKETS],
            pages_freed: self.pages_freed - b.pages_freed,
            compactions: self.compactions - b.compactions,
            prefilter_collisions: self.prefilter_collisions - b.prefilter_collisions,
            hash_busy_ns: self.hash_busy_ns - b.hash_busy_ns,
            hash_wait_ns: self.hash_wait_ns - b.hash_wait_ns,
        };
        for i in 0..COUNT_BUCKETS {
            d.dropped_by_count[i] = self.dropped_by_count[i] - b.dropped_by_count[i];
        }
        d
    }
}

/// `summary.dedup`: deduplication over the measured window, and the map at the end.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct DedupSummary {
    /// Counters over the window.
    #[serde(flatten)]
    pub counters: DedupCounters,
    /// Logical pages mapped at the end.
    pub mapped_pages: u64,
    /// Distinct pages stored at the end.
    pub stored_pages: u64,
    /// Logical pages mapped per page stored at the end (`null` when nothing is stored).
    pub ratio: Option<f64>,
    /// Of the logical pages dropped in the window, the share whose content had count 1
    /// (`null` when none were dropped).
    pub dropped_count1_share: Option<f64>,
    /// Bytes of the dedup map (logical map, nodes, fingerprint index) and the page map under
    /// it (8 bytes per node) at the end.
    pub map_bytes: u64,
    /// `map_bytes` per logical page mapped (`null` when none is).
    pub map_bytes_per_mapped_page: Option<f64>,
}

impl DedupSummary {
    /// The summary of window counters `c` and the map `d`.
    pub fn new(c: DedupCounters, d: &Dedup) -> DedupSummary {
        let dropped: u64 = c.dropped_by_count.iter().sum();
        let map_bytes = d.bytes() + d.nodes.len() as u64 * 8 + d.strong.len() as u64 * 16;
        DedupSummary {
            counters: c,
            mapped_pages: d.mapped,
            stored_pages: d.roots,
            ratio: (d.roots > 0).then(|| d.mapped as f64 / d.roots as f64),
            dropped_count1_share: (dropped > 0)
                .then(|| c.dropped_by_count[0] as f64 / dropped as f64),
            map_bytes,
            map_bytes_per_mapped_page: (d.mapped > 0).then(|| map_bytes as f64 / d.mapped as f64),
        }
    }
}

/// What GC does with one valid page of a victim (a root node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GcAction {
    /// Migrate it; `cold`: into the cold region.
    Migrate {
        /// Destination is the cold region.
        cold: bool,
    },
    /// A duplicate of a page stored elsewhere: not rewritten (it was hashed, read only).
    Drop,
    /// A duplicate whose merged count crossed the threshold while the stored copy is in the
    /// hot region: this copy moves to the cold region and the stored one (`other`, a node)
    /// becomes invalid instead (the seed: "migrated to the Cold Region before the victim
    /// flash block is erased").
    Promote {
        /// The node whose flash page is now invalid.
        other: u32,
    },
}

/// A node of the map (16 bytes: the fingerprints live in a parallel array, [`Dedup::fps`],
/// because every overwrite touches its old page's node but only index operations need a
/// fingerprint, and a smaller node array stays in cache more often).
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The root it forwards to ([`NONE`]: it is a root, or free).
    fwd: u32,
    /// Roots: logical pages resolving to it.
    refs: u32,
    /// Logical-map entries and stubs pointing at it.
    links: u32,
    /// Its page is in the cold region.
    cold: bool,
    /// The fingerprint index names it (saves probing the index for the others).
    indexed: bool,
}

const FREE_NODE: Node = Node {
    fwd: NONE,
    refs: 0,
    links: 0,
    cold: false,
    indexed: false,
};

/// The deduplicating map: logical page -> node -> (fingerprint, count, forward).
pub struct Dedup {
    l2v: Vec<u32>,
    /// One record per node, so a node's fields share a cache line (GC and overwrites visit
    /// nodes at random).
    nodes: Vec<Node>,
    /// Fingerprint of each node (roots; a stub keeps its old one).
    fps: Vec<u64>,
    free: Vec<u32>,
    index: FxHashMap<u64, u32>,
    /// With byte fingerprints: each node's strong hash (BLAKE3, first 16 bytes); empty
    /// otherwise.
    strong: Vec<Strong>,
    roots: u64,
    mapped: u64,
    /// With the fingerprint index on flash (`ftl.dedup.index_cache`): the index operations
    /// since the FTL last took them, in order; `None` with the index whole in DRAM.
    pub index_ops: Option<Vec<IndexOp>>,
    /// Counters since the last reset.
    pub counters: DedupCounters,
}

impl Dedup {
    /// Nodes for `logical` logical pages: one per page plus slack for stubs.
    pub fn nodes_for(logical: u64) -> u64 {
        logical + logical / 8 + 64
    }

    /// An empty map of `logical` logical pages over `nodes` nodes (> `logical`); `strong`:
    /// keep a strong hash per node (byte fingerprints).
    pub fn new(logical: u64, nodes: u64, strong: bool) -> Dedup {
        assert!(nodes > logical, "the node space needs slack for stubs");
        Dedup {
            l2v: vec![NONE; logical as usize],
            nodes: vec![FREE_NODE; nodes as usize],
            fps: vec![0; nodes as usize],
            free: (0..nodes as u32).rev().collect(),
            index: FxHashMap::default(),
            strong: if strong {
                vec![[0; 16]; nodes as usize]
            } else {
                Vec::new()
            },
            roots: 0,
            mapped: 0,
            index_ops: None,
            counters: DedupCounters::default(),
        }
    }

    /// Record an index operation for the bucket-page cache (with the index on flash).
    #[inline]
    pub fn record(&mut self, op: IndexOp) {
        if let Some(ops) = self.index_ops.as_mut() {
            ops.push(op);
        }
    }

    /// Logical pages.
    pub fn logical_pages(&self) -> u64 {
        self.l2v.len() as u64
    }

    /// Logical pages mapped.
    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// Stored (unique) pages: root nodes.
    pub fn stored(&self) -> u64 {
        self.roots
    }

    /// Bytes of this map (logical map, node arrays, fingerprint index) per mapped logical
    /// page; the page FTL's own map adds 8 bytes per node it maps.
    pub fn bytes(&self) -> u64 {
        let n = self.nodes.len() as u64;
        let per_node = (std::mem::size_of::<Node>() + std::mem::size_of::<u64>()) as u64;
        // hashbrown: one control byte per bucket, buckets = capacity * 8 / 7 rounded up to a
        // power of two.
        let buckets = (self.index.capacity() as u64 * 8 / 7).next_power_of_two();
        self.l2v.len() as u64 * 4 + n * per_node + buckets * (16 + 1)
    }

    /// Bytes of a map of `logical` logical pages over `nodes` nodes whose fingerprint index
    /// holds `indexed` entries, from the element sizes of its arrays; `strong`: byte
    /// fingerprints keep a strong hash per node.
    pub fn estimate_bytes(logical: u64, nodes: u64, strong: bool, indexed: u64) -> u64 {
        use std::mem::size_of;
        let per_node = size_of::<Node>()
            + size_of::<u64>() // fps
            + size_of::<u32>() // free list
            + if strong { size_of::<Strong>() } else { 0 };
        // hashbrown: buckets = entries * 8 / 7 rounded up to a power of two, each an entry
        // and one control byte.
        let buckets = if indexed > 0 {
            (indexed * 8 / 7).next_power_of_two()
        } else {
            0
        };
        logical * size_of::<u32>() as u64
            + nodes * per_node as u64
            + buckets * (size_of::<(u64, u32)>() as u64 + 1)
    }

    /// Bytes the invariant check allocates for a map of `nodes` nodes (counts per node).
    pub fn check_bytes(nodes: u64) -> u64 {
        nodes * 2 * std::mem::size_of::<u32>() as u64
    }

    /// The root a logical page resolves to.
    #[inline]
    pub fn resolve(&self, lpn: u32) -> Option<u32> {
        let v = self.l2v[lpn as usize];
        (v != NONE).then(|| self.root_of(v))
    }

    #[inline]
    fn root_of(&self, mut v: u32) -> u32 {
        while self.nodes[v as usize].fwd != NONE {
            v = self.nodes[v as usize].fwd;
        }
        v
    }

    /// Fingerprint of a node.
    pub fn fingerprint(&self, v: u32) -> u64 {
        self.fps[v as usize]
    }

    /// Reference count of a root.
    pub fn count(&self, v: u32) -> u32 {
        self.nodes[v as usize].refs
    }

    /// Whether root `r` holds the page whose strong hash is `s` (always, without byte
    /// fingerprints); counts a refuted pre-filter match.
    pub fn confirms(&mut self, r: u32, s: Option<Strong>) -> bool {
        match s {
            Some(s) if !self.strong.is_empty() && self.strong[r as usize] != s => {
                self.counters.prefilter_collisions += 1;
                false
            }
            _ => true,
        }
    }

    /// Keep node `v`'s strong hash (byte fingerprints).
    pub fn set_strong(&mut self, v: u32, s: Strong) {
        if let Some(x) = self.strong.get_mut(v as usize) {
            *x = s;
        }
    }

    /// The indexed root holding `fp`.
    #[inline]
    pub fn find(&self, fp: u64) -> Option<u32> {
        self.index.get(&fp).copied()
    }

    /// Point `lpn` at the stored root `r` (a duplicate write); returns the root the page
    /// held before whose count reached zero (its flash page is now invalid), if any.
    pub fn link(&mut self, lpn: u32, r: u32) -> Option<u32> {
        self.nodes[r as usize].refs += 1;
        self.nodes[r as usize].links += 1;
        let old = std::mem::replace(&mut self.l2v[lpn as usize], r);
        if old == NONE {
            self.mapped += 1;
            None
        } else {
            self.drop_node(old)
        }
    }

    /// Drop a logical page's mapping (overwrite or TRIM); returns the root whose count
    /// reached zero, if any.
    pub fn release(&mut self, lpn: u32) -> Option<u32> {
        let old = std::mem::replace(&mut self.l2v[lpn as usize], NONE);
        if old == NONE {
            return None;
        }
        self.mapped -= 1;
        self.drop_node(old)
    }

    /// Take `lpn`'s mapping off the logical map without dropping its reference yet (a write
    /// places its new page first, as the page FTL does, and then drops the old one with
    /// [`Dedup::drop_detached`]); makes sure a node is free for the new page first.
    pub fn detach(&mut self, lpn: u32) -> u32 {
        if self.free.is_empty() {
            self.compact();
        }
        let old = std::mem::replace(&mut self.l2v[lpn as usize], NONE);
        if old != NONE {
            self.mapped -= 1;
        }
        old
    }

    /// Drop the reference a [`Dedup::detach`]ed mapping held; returns the root whose count
    /// reached zero, if any.
    pub fn drop_detached(&mut self, v: u32) -> Option<u32> {
        if v == NONE {
            return None;
        }
        self.drop_node(v)
    }

    fn drop_node(&mut self, v: u32) -> Option<u32> {
        let r = self.root_of(v);
        let c = self.nodes[r as usize].refs;
        self.counters.dropped_by_count[(c as usize).clamp(1, COUNT_BUCKETS) - 1] += 1;
        self.nodes[r as usize].refs = c - 1;
        self.unlink(v);
        if c == 1 {
            debug_assert_eq!(
                self.nodes[r as usize].links, 0,
                "a root without pages has links"
            );
            self.roots -= 1;
            self.counters.pages_freed += 1;
            let f = self.fps[r as usize];
            if self.nodes[r as usize].indexed {
                self.index.remove(&f);
                self.record(IndexOp::Update(f));
            }
            self.free_node(r);
            return Some(r);
        }
        None
    }

    /// One pointer at `v` went away: free the stubs left with none.
    fn unlink(&mut self, mut v: u32) {
        loop {
            let n = &mut self.nodes[v as usize];
            n.links -= 1;
            let next = n.fwd;
            if n.links > 0 || next == NONE {
                return;
            }
            self.free_node(v);
            v = next;
        }
    }

    fn free_node(&mut self, v: u32) {
        let i = v as usize;
        self.nodes[i].fwd = NONE;
        self.nodes[i].refs = 0;
        self.nodes[i].links = 0;
        self.nodes[i].cold = false;
        self.nodes[i].indexed = false;
        self.free.push(v);
    }

    /// Map `lpn` to a new stored page with fingerprint `fp` (indexed when `index`); returns
    /// the new root, for the page FTL to place. The caller must have released or detached
    /// `lpn` first.
    pub fn store(&mut self, lpn: u32, fp: u64, index: bool) -> u32 {
        debug_assert_eq!(self.l2v[lpn as usize], NONE, "store over a mapped page");
        let v = match self.free.pop() {
            Some(v) => v,
            None => {
                self.compact();
                self.free.pop().expect("compaction frees the slack")
            }
        };
        let i = v as usize;
        self.nodes[i].refs = 1;
        self.nodes[i].links = 1;
        self.fps[i] = fp;
        self.nodes[i].fwd = NONE;
        self.nodes[i].cold = false;
        self.nodes[i].indexed = index;
        if index {
            self.index.insert(fp, v);
            self.record(IndexOp::Update(fp));
        }
        self.l2v[lpn as usize] = v;
        self.mapped += 1;
        self.roots += 1;
        v
    }

    /// Point every logical page straight at its root and free every stub.
    fn compact(&mut self) {
        self.counters.compactions += 1;
        for lpn in 0..self.l2v.len() {
            let v = self.l2v[lpn];
            if v != NONE && self.nodes[v as usize].fwd != NONE {
                self.l2v[lpn] = self.root_of(v);
            }
        }
        for n in self.nodes.iter_mut() {
            n.links = 0;
        }
        for &v in &self.l2v {
            if v != NONE {
                self.nodes[v as usize].links += 1;
            }
        }
        self.free.clear();
        for v in (0..self.nodes.len() as u32).rev() {
            let i = v as usize;
            if self.nodes[i].links == 0 {
                self.nodes[i].fwd = NONE;
                self.nodes[i].refs = 0;
                self.nodes[i].cold = false;
                self.nodes[i].indexed = false;
                self.free.push(v);
            }
        }
    }

    /// GC meets root `v` (a valid page of a victim). With `hash` (gc mode) it is hashed and
    /// looked up; a duplicate of another indexed root merges into it (or, see
    /// [`GcAction::Promote`], the other into it). `threshold`: with regions, a page whose
    /// count is above it goes to the cold region (`None`: no regions).
    pub fn gc_page(&mut self, v: u32, hash: bool, threshold: Option<u32>) -> GcAction {
        let cold_for = |c: u32| threshold.is_some_and(|t| c > t);
        let vi = v as usize;
        debug_assert_eq!(self.nodes[vi].fwd, NONE, "GC met a stub");
        if hash {
            self.counters.gc_hashed += 1;
            let f = self.fps[vi];
            let found = if self.nodes[vi].indexed {
                Some(v)
            } else {
                self.record(IndexOp::Lookup(f));
                self.index.get(&f).copied()
            };
            let refuted = match found {
                Some(r) if r != v && !self.strong.is_empty() => {
                    let s = self.strong[vi];
                    !self.confirms(r, Some(s))
                }
                _ => false,
            };
            match found {
                Some(r) if r != v && !refuted => {
                    self.counters.gc_duplicates += 1;
                    let total = self.nodes[r as usize].refs + self.nodes[vi].refs;
                    if cold_for(total) && !self.nodes[r as usize].cold {
                        // This copy moves to the cold region; the stored one forwards to it.
                        self.merge(r, v);
                        self.index.insert(f, v);
                        self.record(IndexOp::Update(f));
                        self.nodes[r as usize].indexed = false;
                        self.nodes[vi].indexed = true;
                        self.nodes[vi].cold = true;
                        self.counters.gc_promoted += 1;
                        self.counters.gc_cold_migrations += 1;
                        return GcAction::Promote { other: r };
                    }
                    self.merge(v, r);
                    return GcAction::Drop;
                }
                Some(_) => {}
                None => {
                    self.index.insert(f, v);
                    self.record(IndexOp::Update(f));
                    self.nodes[vi].indexed = true;
                }
            }
        }
        let cold = cold_for(self.nodes[vi].refs);
        self.nodes[vi].cold = cold;
        if cold {
            self.counters.gc_cold_migrations += 1;
        }
        GcAction::Migrate { cold }
    }

    /// Root `from` becomes a stub forwarding to root `to`.
    fn merge(&mut self, from: u32, to: u32) {
        let (f, t) = (from as usize, to as usize);
        self.nodes[t].refs += self.nodes[f].refs;
        self.nodes[f].refs = 0;
        self.nodes[f].fwd = to;
        self.nodes[t].links += 1;
        self.roots -= 1;
    }

    /// Whether a root's page is in the cold region.
    pub fn is_cold(&self, v: u32) -> bool {
        self.nodes[v as usize].cold
    }

    /// Check the map: every root's count equals the logical pages that resolve to it, every
    /// node's links equal the pointers at it, the index names roots by their fingerprints,
    /// and the totals agree. `is_stored(v)`: the page FTL maps root `v` to flash.
    pub fn check(&self, is_stored: impl Fn(u32) -> bool) -> Result<()> {
        let fail = |m: String| Err(Error::Invariant(format!("dedup: {m}")));
        let n = self.nodes.len();
        let mut refs = vec![0u32; n];
        let mut links = vec![0u32; n];
        let mut mapped = 0u64;
        for (lpn, &v) in self.l2v.iter().enumerate() {
            if v == NONE {
                continue;
            }
            mapped += 1;
            links[v as usize] += 1;
            let mut r = v;
            let mut hops = 0;
            while self.nodes[r as usize].fwd != NONE {
                r = self.nodes[r as usize].fwd;
                hops += 1;
                if hops > n {
                    return fail(format!("logical page {lpn}: forward chain has a cycle"));
                }
            }
            refs[r as usize] += 1;
        }
        let in_free: std::collections::BTreeSet<u32> = self.free.iter().copied().collect();
        if in_free.len() != self.free.len() {
            return fail("a node is on the free list twice".into());
        }
        let mut roots = 0u64;
        for v in 0..n {
            if self.nodes[v].fwd != NONE {
                links[self.nodes[v].fwd as usize] += 1;
            }
        }
        for v in 0..n {
            let free = in_free.contains(&(v as u32));
            let stub = self.nodes[v].fwd != NONE;
            if free {
                if links[v] != 0 || stub {
                    return fail(format!("free node {v} is still pointed at or forwards"));
                }
                continue;
            }
            if links[v] != self.nodes[v].links {
                return fail(format!(
                    "node {v}: {} pointers at it, links says {}",
                    links[v], self.nodes[v].links
                ));
            }
            if links[v] == 0 {
                return fail(format!("node {v} is neither free nor pointed at"));
            }
            if stub {
                continue;
            }
            roots += 1;
            if refs[v] != self.nodes[v].refs {
                return fail(format!(
                    "root {v}: {} logical pages resolve to it, its count is {}",
                    refs[v], self.nodes[v].refs
                ));
            }
            if !is_stored(v as u32) {
                return fail(format!("root {v} (count {}) has no flash page", refs[v]));
            }
        }
        let flagged = self.nodes.iter().filter(|n| n.indexed).count();
        if flagged != self.index.len() {
            return fail(format!(
                "{flagged} nodes flagged indexed, the index holds {}",
                self.index.len()
            ));
        }
        for (&f, &v) in &self.index {
            if !self.nodes[v as usize].indexed {
                return fail(format!("the index names node {v}, which is not flagged"));
            }
            if self.nodes[v as usize].fwd != NONE || self.nodes[v as usize].refs == 0 {
                return fail(format!("the index names node {v}, which is not a root"));
            }
            if self.fps[v as usize] != f {
                return fail(format!(
                    "the index files node {v} under another fingerprint"
                ));
            }
        }
        if roots != self.roots || mapped != self.mapped {
            return fail(format!(
                "{roots} roots and {mapped} mapped pages, totals say {} and {}",
                self.roots, self.mapped
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeMap;

    #[test]
    fn a_refuted_prefilter_match_is_not_merged() {
        let mut d = Dedup::new(4, 8, true);
        let (fp, a) = fingerprint_bytes(&[1u8; 4096]);
        let (_, b) = fingerprint_bytes(&[2u8; 4096]);
        let r = d.store(0, fp, true);
        d.set_strong(r, a);
        // Same pre-filter key, other bytes: refuted and counted.
        assert!(!d.confirms(r, Some(b)));
        assert!(d.confirms(r, Some(a)));
        assert_eq!(d.counters.prefilter_collisions, 1);
        // In GC: a root with the key but other bytes migrates instead of merging.
        let v = d.store(1, fp, false);
        d.set_strong(v, b);
        assert_eq!(d.gc_page(v, true, None), GcAction::Migrate { cold: false });
        assert_eq!(d.counters.gc_duplicates, 0);
        let w = d.store(2, fp, false);
        d.set_strong(w, a);
        assert_eq!(d.gc_page(w, true, None), GcAction::Drop);
        assert_eq!(d.resolve(2), Some(r));
        d.check(|x| x == r || x == v).unwrap();
    }

    /// Random writes (inline and not), TRIMs and GC visits on a map with little slack, checked
    /// after every step against a brute-force model: which content each logical page holds.
    /// Stored pages are a set of roots; GC merges and promotes; compaction must run.
    #[test]
    fn counts_match_a_brute_force_model_through_merges_and_compactions() {
        let logical = 40u64;
        let mut d = Dedup::new(logical, logical + 1, false);
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut model: BTreeMap<u32, u64> = BTreeMap::new();
        let mut stored: BTreeMap<u32, ()> = BTreeMap::new();
        for step in 0..20_000 {
            let lpn = rng.random_range(0..logical as u32);
            let fp = rng.random_range(1..40u64);
            match rng.random_range(0..10) {
                0..=3 => {
                    // A write stored as it comes (gc mode).
                    let old = d.detach(lpn);
                    let v = d.store(lpn, fp, false);
                    stored.insert(v, ());
                    if let Some(z) = d.drop_detached(old) {
                        stored.remove(&z);
                    }
                    model.insert(lpn, fp);
                }
                4..=5 => {
                    // An inline write: a duplicate links, a new content is stored and indexed.
                    match d.find(fp) {
                        Some(r) => {
                            if let Some(z) = d.link(lpn, r) {
                                stored.remove(&z);
                            }
                        }
                        None => {
                            if let Some(z) = d.release(lpn) {
                                stored.remove(&z);
                            }
                            let v = d.store(lpn, fp, true);
                            stored.insert(v, ());
                        }
                    }
                    model.insert(lpn, fp);
                }
                6 => {
                    if let Some(z) = d.release(lpn) {
                        stored.remove(&z);
                    }
                    model.remove(&lpn);
                }
                _ => {
                    // GC meets a random stored page.
                    let roots: Vec<u32> = stored.keys().copied().collect();
                    if let Some(&v) = roots.get(rng.random_range(0..roots.len().max(1))) {
                        match d.gc_page(v, true, Some(1)) {
                            GcAction::Drop => {
                                stored.remove(&v);
                            }
                            GcAction::Promote { other } => {
                                stored.remove(&other);
                            }
                            GcAction::Migrate { .. } => {}
                        }
                    }
                }
            }
            d.check(|v| stored.contains_key(&v))
                .unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(d.mapped(), model.len() as u64);
            for (&lpn, &fp) in &model {
                let r = d.resolve(lpn).expect("a mapped page resolves");
                assert_eq!(d.fingerprint(r), fp, "step {step}: page {lpn}");
            }
            assert_eq!(d.stored(), stored.len() as u64);
        }
        assert!(
            d.counters.compactions > 0,
            "the slack of one node must run out"
        );
        assert!(d.counters.gc_duplicates > 0 && d.counters.gc_promoted > 0);
    }
}
