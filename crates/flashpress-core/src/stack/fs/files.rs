//! Files: per file block its address, content id and slot kind; per cluster whether it is
//! stored host-compressed (F2FS layout: the first slot holds `COMPRESS_ADDR`, the next ones
//! the compressed blocks' addresses, the rest nothing).

use super::segments::NONE;
use crate::workload::FileAttrs;

/// Slot kind (low 3 bits of [`File::kind`]): no block.
pub(super) const K_HOLE: u8 = 0;
/// Raw block written without a flag: the device compressed it.
pub(super) const K_DEV: u8 = 1;
/// Raw block written with the incompressible label by the placement policy (skip).
pub(super) const K_SKIP: u8 = 2;
/// Raw block of a cluster the host tried to compress without saving a block.
pub(super) const K_HRAW: u8 = 3;
/// Stored block of a host-compressed cluster.
pub(super) const K_STORED: u8 = 4;
/// First slot of a host-compressed cluster (`COMPRESS_ADDR`): no block.
pub(super) const K_HEAD: u8 = 5;
/// Unused slot of a host-compressed cluster: no block.
pub(super) const K_NULL: u8 = 6;
/// Flag bit: the file block holds data (its content id is meaningful).
pub(super) const DATA: u8 = 0x10;
/// Mask of the slot kind.
pub(super) const KIND: u8 = 0x07;

/// Whether a slot kind has a block on the disk.
#[inline]
pub(super) fn has_block(kind: u8) -> bool {
    matches!(kind & KIND, K_DEV | K_SKIP | K_HRAW | K_STORED)
}

/// One file.
#[derive(Debug, Clone)]
pub(super) struct File {
    /// Namespace key (see `Fs::file_key`).
    pub key: u64,
    /// Whether the file exists (indices of deleted files are reused).
    pub live: bool,
    pub attrs: FileAttrs,
    /// Workload stream whose content model the blocks belong to.
    pub stream: u32,
    /// Size in bytes.
    pub size: u64,
    /// Reads and writes so far.
    pub accesses: u32,
    /// Host-codec ratio of the first blocks, once written and measured.
    pub sample_ratio: Option<f64>,
    /// Per file block: block address, or [`NONE`].
    pub addr: Vec<u32>,
    /// Per file block: content id of its data.
    pub content: Vec<u64>,
    /// Per file block: slot kind | [`DATA`].
    pub kind: Vec<u8>,
}

impl File {
    pub fn new(key: u64, attrs: FileAttrs, stream: u32) -> File {
        File {
            key,
            live: true,
            attrs,
            stream,
            size: 0,
            accesses: 0,
            sample_ratio: None,
            addr: Vec::new(),
            content: Vec::new(),
            kind: Vec::new(),
        }
    }

    /// Grow the block arrays to at least `blocks` (a multiple of the cluster size `cb`).
    /// Capacity grows by an eighth rather than doubling: a file laid out or appended in
    /// pieces ends at most 12.5% over its size (13 bytes per block; a 23 GiB file's arrays
    /// would otherwise reach 2^23 blocks for its 6.0 M), still with amortised copying.
    pub fn ensure(&mut self, blocks: u64, cb: u64) {
        let want = blocks.div_ceil(cb) * cb;
        if (self.addr.len() as u64) < want {
            let cap = self.addr.capacity() as u64;
            if want > cap {
                let to = want.max(cap + cap / 8) as usize;
                let len = self.addr.len();
                self.addr.reserve_exact(to - len);
                self.content.reserve_exact(to - len);
                self.kind.reserve_exact(to - len);
            }
            self.addr.resize(want as usize, NONE);
            self.content.resize(want as usize, 0);
            self.kind.resize(want as usize, K_HOLE);
        }
    }

    /// Blocks the arrays cover.
    #[inline]
    pub fn len(&self) -> u64 {
        self.addr.len() as u64
    }

    /// Whether cluster `c` (first block `c0`) is stored host-compressed.
    #[inline]
    pub fn compressed(&self, c0: usize) -> bool {
        self.kind[c0] & KIND == K_HEAD
    }

    /// Stored blocks of the compressed cluster whose first slot is `c0`.
    pub fn stored(&self, c0: usize, cb: usize) -> usize {
        self.kind[c0 + 1..c0 + cb]
            .iter()
            .take_while(|k| *k & KIND == K_STORED)
            .count()
    }

    /// Data blocks of the cluster at `c0`.
    pub fn data_blocks(&self, c0: usize, cb: usize) -> usize {
        self.kind[c0..c0 + cb]
            .iter()
            .filter(|k| *k & DATA != 0)
            .count()
    }

    /// Content id the stored blocks of the cluster at `c0` are written with: the id of its
    /// first slot (they are not the original bytes; the device stores them raw). Stable until
    /// the cluster is rewritten, whatever holes are punched into it.
    pub fn stored_id(&self, c0: usize) -> u64 {
        self.content[c0]
    }
}
