//! Foreground greedy segment cleaning: when F2FS's `has_not_enough_free_secs` holds
//! ([`super::ssr`]), victims with the fewest valid blocks are read and their valid blocks
//! rewritten to the cold log, as they were written (host-compressed blocks stay compressed,
//! labels are kept), until it no longer holds. Moving a block dirties its node block (or, for
//! a node block, its NAT entry). The background cleaner ([`super::bggc`]) cleans one segment
//! at a time the same way.

use super::files::{File, KIND, K_DEV, K_HRAW, K_SKIP, K_STORED};
use super::segments::{unpack, SegState};
use super::{Fs, FsCtx, COLD};
use crate::error::Result;
use crate::stack::bio::BioFlags;
use crate::stack::policy::{DecompressSide, FileView};

fn view(f: &File) -> FileView {
    FileView {
        attrs: f.attrs,
        accesses: f.accesses,
        sample_ratio: f.sample_ratio,
    }
}

impl Fs {
    /// Clean until free segments suffice again, or no segment can give space back.
    /// Runs from the request's current floor time and moves it past the cleaning I/O.
    pub(super) fn clean(&mut self, ctx: &mut FsCtx<'_>) -> Result<()> {
        self.wflush(ctx)?;
        self.rflush(ctx)?;
        self.in_cleaning = true;
        let r = self.clean_loop(ctx);
        self.in_cleaning = false;
        r
    }

    fn clean_loop(&mut self, ctx: &mut FsCtx<'_>) -> Result<()> {
        let mut rounds = 0;
        while self.need_cleaning() && rounds < self.seg.n_all {
            rounds += 1;
            let Some(v) = self.seg.take_min_valid(SegState::Cleaning) else {
                break;
            };
            if self.clean_segment(ctx, v, false)? {
                self.seg.uncleaned(v);
                break;
            }
        }
        Ok(())
    }

    /// Clean victim `v` (taken, in state `Cleaning`): read its valid blocks as stored and
    /// rewrite them to the cold log from the current floor time, which moves past the I/O.
    /// Returns whether it stopped early for lack of space (the caller puts `v` back).
    pub(super) fn clean_segment(
        &mut self,
        ctx: &mut FsCtx<'_>,
        v: u32,
        background: bool,
    ) -> Result<bool> {
        let s = self.seg.s;
        let cb = self.cb as usize;
        if !background {
            self.counters.cleaning_invocations += 1;
        }
        let mut victim = std::mem::take(&mut self.victim);
        victim.clear();
        let mut off = 0;
        while let Some(h) = self.next_valid(v, off) {
            victim.push(v * s + h);
            off = h + 1;
        }
        // Read the valid blocks as they are stored.
        let t0 = self.t_floor;
        self.io_max = t0;
        for &lba in &victim {
            let (fi, idx) = unpack(self.seg.owner_of(lba));
            let f = &self.files[fi as usize];
            let flags = match f.kind[idx as usize] & KIND {
                K_STORED => BioFlags::HOST_COMPRESSED,
                K_DEV if ctx.policy.decompress_side(&view(f)) == DecompressSide::Host => {
                    self.counters.decompress_blocks_host += 1;
                    BioFlags::HOST_DECOMPRESS
                }
                K_DEV => {
                    self.counters.decompress_blocks_device += 1;
                    BioFlags::NONE
                }
                _ => BioFlags::NONE,
            };
            let stream = f.stream;
            self.rpush(ctx, lba, flags, stream, t0)?;
        }
        self.rflush(ctx)?;
        let tr = self.io_max;
        // Write them to the cold log with the flags they were written with.
        let mut stopped = false;
        for &lba in &victim {
            let owner = self.seg.owner_of(lba);
            let (fi, idx) = unpack(owner);
            let f = &self.files[fi as usize];
            let k = f.kind[idx as usize] & KIND;
            let (flags, id) = match k {
                K_STORED => {
                    let c0 = idx as usize / cb * cb;
                    (BioFlags::HOST_COMPRESSED, f.stored_id(c0))
                }
                K_SKIP | K_HRAW => (BioFlags::INCOMPRESSIBLE, f.content[idx as usize]),
                _ => (BioFlags::NONE, f.content[idx as usize]),
            };
            let stream = f.stream;
            let Some(new) = self.alloc(ctx, COLD, id, stream)? else {
                stopped = true;
                break;
            };
            self.seg.set_valid(new, owner);
            self.seg.invalidate(lba);
            if fi == self.nodes.file {
                self.node_moved(idx);
            } else {
                self.node_dirty(fi, idx);
            }
            self.files[fi as usize].addr[idx as usize] = new;
            if k == K_DEV {
                self.counters.compress_blocks_device += 1;
            }
            self.wpush(ctx, new, id, flags, stream, tr)?;
            if background {
                self.counters.bggc_blocks_moved += 1;
            } else {
                self.counters.cleaning_blocks_moved += 1;
            }
        }
        self.wflush(ctx)?;
        self.victim = victim;
        self.t_floor = self.t_floor.max(self.io_max);
        Ok(stopped)
    }

    /// First valid slot of segment `seg` at or after offset `from`.
    fn next_valid(&self, seg: u32, from: u32) -> Option<u32> {
        let s = self.seg.s as usize;
        let base = seg as usize * s;
        let end = base + s;
        let mut i = base + from as usize;
        while i < end {
            let w = i / 64;
            let word = self.seg.bitmap[w] >> (i % 64);
            if word != 0 {
                let j = i + word.trailing_zeros() as usize;
                return (j < end).then(|| (j - base) as u32);
            }
            i = (w + 1) * 64;
        }
        None
    }
}
