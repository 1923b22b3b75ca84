//! The dedup layer's fingerprint index under a DRAM budget (`ftl.dedup.index_cache = { type =
//! "demand" }`): CAGC's fingerprint lookups that miss controller DRAM cost a flash read (Wu
//! et al., ICCD '21; CAFTL, Chen et al., FAST '11, keeps the same index on flash).
//!
//! The index (fingerprint -> stored page) is a hash table of bucket pages on flash: a
//! fingerprint's entry lives in bucket page [`bucket_of`], each page holding
//! `page_size / INDEX_ENTRY_BYTES` entries, and there are enough pages for one entry per
//! node of the dedup map (the most roots it can hold). A hash spreads fingerprints over the
//! buckets, so one page's entries have no locality: the DRAM budget caches whole bucket pages
//! (`dram_bytes / page_size` of them) with the map cache's replacement ([`MapCache`] over
//! bucket numbers, one entry per "translation page"):
//!
//! - a lookup (inline dedup: every host page written; gc mode: every valid page GC hashes
//!   that the node table does not already mark as indexed) whose bucket is not in DRAM reads
//!   it from flash before the dedup decision, unless the bucket page was never written;
//! - an insert or removal changes its bucket: a cached bucket becomes dirty, an uncached one
//!   is read, merged and written back (as GC updates of uncached page-map entries);
//! - evicting a dirty bucket writes it back; the bucket pages are the FTL's translation
//!   pages (logical pages past the page map's, in the translation stream, moved by GC).
//!
//! The node table (logical page -> node, reference counts, forwards) stays in DRAM.
//! Buckets do not overflow: a page holds however many of its fingerprints are stored.

use super::mapcache::{MapCache, MapCacheCounters};
use crate::config::{MapCacheConfig, MapCachePolicy, SimConfig};

/// Bytes of one index entry: an 8-byte fingerprint key and a 4-byte page address.
pub const INDEX_ENTRY_BYTES: u64 = 12;

/// Index entries one bucket page holds.
pub fn entries_per_bucket(cfg: &SimConfig) -> u64 {
    (cfg.nand.page_size as u64 / INDEX_ENTRY_BYTES).max(1)
}

/// Bucket pages of the whole index: one entry per node of the dedup map.
pub fn index_pages(cfg: &SimConfig) -> u64 {
    if cfg.ftl.dedup().is_none() {
        return 0;
    }
    super::dedup::Dedup::nodes_for(super::logical_pages(cfg)).div_ceil(entries_per_bucket(cfg))
}

/// Bytes of the whole index in DRAM (its bucket pages).
pub fn index_bytes(cfg: &SimConfig) -> u64 {
    index_pages(cfg) * cfg.nand.page_size as u64
}

/// The demand-paged index a config asks for, if it caches less than the whole index:
/// (bucket pages held, policy).
pub fn demand(cfg: &SimConfig) -> Option<(u64, MapCachePolicy)> {
    match cfg.ftl.dedup()?.index_cache {
        MapCacheConfig::Demand { dram_bytes, policy } if dram_bytes < index_bytes(cfg) => {
            Some((dram_bytes / cfg.nand.page_size as u64, policy))
        }
        _ => None,
    }
}

/// Bucket pages on flash (0 with the whole index in DRAM).
pub fn flash_pages(cfg: &SimConfig) -> u64 {
    match demand(cfg) {
        Some(_) => index_pages(cfg),
        None => 0,
    }
}

/// The cache of bucket pages for a config that asks for one.
pub fn build(cfg: &SimConfig) -> Option<MapCache> {
    demand(cfg).map(|(cap, policy)| MapCache::new(index_pages(cfg), cap, 1, policy))
}

/// The bucket page of fingerprint `fp` in an index of `pages` pages (a multiplicative hash,
/// so that consecutive content ids spread too).
#[inline]
pub fn bucket_of(fp: u64, pages: u32) -> u32 {
    ((fp.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % pages as u64) as u32
}

/// What the dedup map did to its index, for the cache to account (in order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOp {
    /// A lookup of a fingerprint (the dedup decision waits for it).
    Lookup(u64),
    /// An insert or removal of a fingerprint's entry.
    Update(u64),
}

/// `summary.map_cache.fingerprint_index`: the index's bucket-page cache over the window.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IndexCacheSummary {
    /// Bucket pages the DRAM budget holds.
    pub cached_pages: u64,
    /// Bucket pages of the whole index.
    pub index_pages: u64,
    /// Index entries one bucket page holds.
    pub entries_per_page: u64,
    /// Fingerprint lookups (inline writes, pages GC hashed).
    pub lookups: u64,
    /// Of those, whose bucket page was in DRAM.
    pub hits: u64,
    /// hits / lookups (1 with no lookups).
    pub hit_ratio: f64,
    /// Bucket pages evicted, of which dirty (written back).
    pub evictions: u64,
    /// Evicted bucket pages that were dirty.
    pub dirty_evictions: u64,
    /// Inserts and removals in bucket pages not in DRAM (read, merged, written back).
    pub uncached_updates: u64,
    /// Bucket pages read: lookups that missed and stored copies write-backs merge with.
    pub translation_reads: u64,
    /// Of those, reads a lookup waited for.
    pub lookup_reads: u64,
    /// Bucket pages programmed (write-backs).
    pub translation_writes: u64,
    /// Bucket pages GC moved.
    pub translation_gc_migrations: u64,
}

impl IndexCacheSummary {
    /// The summary of window counters `c`.
    pub fn new(cfg: &SimConfig, c: MapCacheCounters) -> IndexCacheSummary {
        IndexCacheSummary {
            cached_pages: demand(cfg).map_or(0, |d| d.0),
            index_pages: index_pages(cfg),
            entries_per_page: entries_per_bucket(cfg),
            lookups: c.lookups,
            hits: c.hits,
            hit_ratio: if c.lookups == 0 {
                1.0
            } else {
                c.hits as f64 / c.lookups as f64
            },
            evictions: c.evictions,
            dirty_evictions: c.dirty_evictions,
            uncached_updates: c.gc_uncached_updates,
            translation_reads: c.translation_reads,
            lookup_reads: c.translation_lookup_reads,
            translation_writes: c.translation_writes,
            translation_gc_migrations: c.translation_gc_migrations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_spread_consecutive_fingerprints() {
        let pages = 37u32;
        let mut per = vec![0u32; pages as usize];
        for fp in 1..=37_000u64 {
            per[bucket_of(fp, pages) as usize] += 1;
        }
        // 1000 per bucket on average: none empty, none more than twice that.
        assert!(per.iter().all(|&n| n > 500 && n < 2000), "{per:?}");
    }
}
