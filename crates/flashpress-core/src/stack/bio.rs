//! The block I/O between the file system and the device, with the cooperative compression
//! framework's flags (Waltz §4.2, §4.5.1), and the [`Disk`] interface the file system
//! submits to.

use crate::content::ContentModel;
use crate::error::Result;
use crate::units::SimTime;

/// File-system block size: the unit of logical block addresses (LBAs) in the stack.
pub const BLOCK: u64 = 4096;

/// Operation of a block I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BioOp {
    /// Read `blocks` blocks.
    Read,
    /// Write `blocks` blocks.
    Write,
    /// Discard `blocks` blocks.
    Trim,
}

/// CCF flags of a block I/O. The default (no flag) asks the device for its transparent
/// compression on writes and decompression on reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct BioFlags(pub u8);

impl BioFlags {
    /// Write: the host already compressed these blocks; the device stores them as they are.
    /// Read: the blocks were host-compressed; the device returns them as they are.
    pub const HOST_COMPRESSED: BioFlags = BioFlags(1);
    /// Incompressible data (the top-LBA-bit label): neither side compresses.
    pub const INCOMPRESSIBLE: BioFlags = BioFlags(2);
    /// Read of device-compressed data that the host will decompress: the device returns the
    /// compressed chunks without running its engine (needs the CCF mount agreement).
    pub const HOST_DECOMPRESS: BioFlags = BioFlags(4);

    /// No flag.
    pub const NONE: BioFlags = BioFlags(0);

    /// Whether every flag of `f` is set.
    #[inline]
    pub fn has(self, f: BioFlags) -> bool {
        self.0 & f.0 == f.0
    }

    /// Union.
    #[inline]
    pub fn with(self, f: BioFlags) -> BioFlags {
        BioFlags(self.0 | f.0)
    }
}

/// One block I/O: `blocks` consecutive LBAs from `lba`.
#[derive(Debug, Clone, Copy)]
pub struct Bio<'a> {
    /// Operation.
    pub op: BioOp,
    /// First logical block address (4 KiB units).
    pub lba: u64,
    /// Number of blocks (> 0).
    pub blocks: u32,
    /// CCF flags.
    pub flags: BioFlags,
    /// Workload stream the data belongs to (for the content model's ratio).
    pub stream: u32,
    /// Writes: content id of each block (`len == blocks`); empty for reads and trims.
    pub content: &'a [u64],
}

/// What the device did with a block I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BioDone {
    /// Completion time (data at the host for reads; acknowledged for writes).
    pub done: SimTime,
    /// The device had shut down (thermal emergency): the I/O failed after the host's timeout.
    pub failed: bool,
    /// Reads: blocks of the range the device had compressed.
    pub device_compressed_blocks: u32,
    /// Reads with [`BioFlags::HOST_DECOMPRESS`]: uncompressed bytes the host must now
    /// decompress with the engine's codec (device-compressed blocks only).
    pub host_decompress_bytes: u64,
    /// Stored (compressed) bytes of those blocks.
    pub host_decompress_stored: u64,
}

/// The device's space report (the CCSD interface of Waltz §2.2 that OSA reads).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct SpaceReport {
    /// Logical bytes the device holds data for (mapped LBAs x 4 KiB).
    pub logical_bytes: u64,
    /// Physical bytes those occupy (stored chunk bytes).
    pub physical_bytes: u64,
    /// Physical capacity for user data (bytes).
    pub physical_capacity_bytes: u64,
}

impl SpaceReport {
    /// Space saved by compression: logical minus physical bytes.
    pub fn saved_bytes(&self) -> u64 {
        self.logical_bytes.saturating_sub(self.physical_bytes)
    }
}

/// SMART information the host can read.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Smart {
    /// Composite temperature (°C).
    pub temperature_c: f64,
    /// The engine is throttled.
    pub throttled: bool,
    /// The device has shut down.
    pub shutdown: bool,
}

/// A block device the file system submits to.
pub trait Disk {
    /// Serve `bio` arriving at `now`. Time-based state (temperature) must have been advanced
    /// to `now` with [`Disk::advance`].
    fn submit(
        &mut self,
        bio: &Bio<'_>,
        now: SimTime,
        content: Option<&mut ContentModel>,
    ) -> Result<BioDone>;

    /// Logical blocks the device exposes.
    fn logical_blocks(&self) -> u64;

    /// Space usage.
    fn space(&self) -> SpaceReport;

    /// SMART log.
    fn smart(&self) -> Smart;

    /// Advance time-based state (thermal model, throttling, shutdown) to `now`.
    fn advance(&mut self, now: SimTime);

    /// A zoned disk's writable blocks per zone (its zone capacity): zone `z` holds LBAs
    /// `[z * cap, (z + 1) * cap)`, written only sequentially at its write pointer and emptied
    /// only by [`Disk::reset_zone`]. `None` (the default): a conventional disk.
    fn zone_blocks(&self) -> Option<u64> {
        None
    }

    /// Whether zone `zone` takes one more block holding content `id` (of workload stream
    /// `stream`) after the blocks admitted to it before, as the next block at its write
    /// pointer; admitted when it does. A zone whose capacity follows what its data
    /// compresses to (a compressing zoned device) fills before its zone size when the data
    /// does not compress enough: the host then finishes the zone ([`Disk::finish_zone`]) and
    /// goes on in another. The default: every zone takes its whole capacity.
    fn zone_admit(
        &mut self,
        zone: u64,
        stream: u32,
        id: u64,
        content: Option<&mut ContentModel>,
    ) -> Result<bool> {
        let _ = (zone, stream, id, content);
        Ok(true)
    }

    /// Finish zone `zone` at `now` (it becomes full, taking no more writes until a reset):
    /// the host closes a section whose zone filled before its end.
    fn finish_zone(&mut self, zone: u64, now: SimTime) -> Result<BioDone> {
        let _ = now;
        Err(crate::error::Error::State(format!(
            "zone {zone} finished on a disk without zones"
        )))
    }

    /// Reset zone `zone` (its write pointer back to the start, its flash erased) at `now`.
    fn reset_zone(&mut self, zone: u64, now: SimTime) -> Result<BioDone> {
        let _ = now;
        Err(crate::error::Error::State(format!(
            "zone {zone} reset on a disk without zones"
        )))
    }
}
