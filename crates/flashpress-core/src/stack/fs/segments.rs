//! Segment table: per-block validity bitmap and reverse map, per-segment valid counts and
//! states, the free-segment queue and the valid-count buckets that greedy cleaning and thread
//! logging pick from.

use std::collections::VecDeque;

/// No block address / no segment.
pub(super) const NONE: u32 = u32::MAX;
/// Reverse-map entry of an invalid slot.
pub(super) const NO_OWNER: u64 = u64::MAX;

/// State of one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SegState {
    /// No valid block, in the free queue.
    Free,
    /// A log's current segment (appending, or filling holes under thread logging).
    Open,
    /// Written and closed; in the bucket of its valid count.
    Closed,
    /// The victim being cleaned.
    Cleaning,
    /// An extra reserved segment not granted (or withdrawn): not usable.
    Disabled,
}

/// Owner of a valid slot: (file index, block index in the file).
#[inline]
pub(super) fn pack(file: u32, idx: u32) -> u64 {
    (file as u64) << 32 | idx as u64
}

/// Inverse of [`pack`].
#[inline]
pub(super) fn unpack(o: u64) -> (u32, u32) {
    ((o >> 32) as u32, o as u32)
}

/// The segment table.
#[derive(Debug, Clone)]
pub(super) struct Segments {
    /// Blocks per segment.
    pub s: u32,
    /// Segments of the partition.
    pub n_part: u32,
    /// Segments of the partition plus the most extra reserved segments.
    pub n_all: u32,
    pub state: Vec<SegState>,
    pub valid: Vec<u32>,
    pub bitmap: Vec<u64>,
    pub owner: Vec<u64>,
    bucket_pos: Vec<u32>,
    buckets: Vec<Vec<u32>>,
    min_bucket: usize,
    free_q: VecDeque<u32>,
    /// Free (usable) segments.
    pub free: u64,
    /// Valid blocks over all segments.
    pub total_valid: u64,
    /// Segments that became free since the last discard.
    pub newly_freed: Vec<u32>,
    /// Extra segments usable now.
    pub extra_enabled: u64,
    /// Extra segments granted.
    pub extra_target: u64,
    /// Current time (ns), set by the file system before it writes: the age of new blocks.
    pub clock: u64,
    /// Mean write time of each segment's valid blocks (ns; F2FS's SIT `mtime`, the age of
    /// cost-benefit cleaning).
    pub mtime: Vec<u64>,
    /// Segments whose SIT entry changed since the last checkpoint (in order of change).
    pub sit_dirty: Vec<u32>,
    sit_dirty_bit: Vec<bool>,
}

impl Segments {
    pub fn new(s: u32, n_part: u32, n_extra: u32) -> Segments {
        let n_all = n_part + n_extra;
        let blocks = n_all as usize * s as usize;
        let mut state = vec![SegState::Free; n_all as usize];
        for st in state.iter_mut().skip(n_part as usize) {
            *st = SegState::Disabled;
        }
        Segments {
            s,
            n_part,
            n_all,
            state,
            valid: vec![0; n_all as usize],
            bitmap: vec![0; blocks.div_ceil(64)],
            owner: vec![NO_OWNER; blocks],
            bucket_pos: vec![NONE; n_all as usize],
            buckets: vec![Vec::new(); s as usize + 1],
            min_bucket: s as usize + 1,
            free_q: (0..n_part).collect(),
            free: n_part as u64,
            total_valid: 0,
            newly_freed: Vec::new(),
            extra_enabled: 0,
            extra_target: 0,
            clock: 0,
            mtime: vec![0; n_all as usize],
            sit_dirty: Vec::new(),
            sit_dirty_bit: vec![false; n_all as usize],
        }
    }

    #[inline]
    fn sit_touch(&mut self, seg: u32) {
        if !self.sit_dirty_bit[seg as usize] {
            self.sit_dirty_bit[seg as usize] = true;
            self.sit_dirty.push(seg);
        }
    }

    /// Forget the dirty SIT entries (a checkpoint wrote them).
    pub fn sit_clean(&mut self) {
        for &seg in &self.sit_dirty {
            self.sit_dirty_bit[seg as usize] = false;
        }
        self.sit_dirty.clear();
    }

    #[inline]
    pub fn seg_of(&self, lba: u32) -> u32 {
        lba / self.s
    }

    #[inline]
    pub fn is_valid(&self, lba: u32) -> bool {
        self.bitmap[lba as usize / 64] >> (lba % 64) & 1 == 1
    }

    fn bucket_insert(&mut self, seg: u32) {
        let v = self.valid[seg as usize] as usize;
        self.bucket_pos[seg as usize] = self.buckets[v].len() as u32;
        self.buckets[v].push(seg);
        if v < self.min_bucket {
            self.min_bucket = v;
        }
    }

    fn bucket_remove(&mut self, seg: u32) {
        let v = self.valid[seg as usize] as usize;
        let pos = self.bucket_pos[seg as usize] as usize;
        let b = &mut self.buckets[v];
        b.swap_remove(pos);
        if pos < b.len() {
            let moved = b[pos];
            self.bucket_pos[moved as usize] = pos as u32;
        }
        self.bucket_pos[seg as usize] = NONE;
    }

    /// Mark `lba` valid, owned by `owner`. The slot must be invalid.
    #[inline]
    pub fn set_valid(&mut self, lba: u32, owner: u64) {
        let seg = self.seg_of(lba);
        let closed = self.state[seg as usize] == SegState::Closed;
        if closed {
            self.bucket_remove(seg);
        }
        self.bitmap[lba as usize / 64] |= 1 << (lba % 64);
        self.owner[lba as usize] = owner;
        // F2FS's update_segment_mtime: the running mean over the segment's valid blocks.
        let v = self.valid[seg as usize] as u64;
        let m = &mut self.mtime[seg as usize];
        // In 64 bits where the product fits (always, for runs shorter than centuries of
        // simulated time): a 128-bit division per written block costs a library call.
        *m = match m.checked_mul(v).and_then(|x| x.checked_add(self.clock)) {
            Some(x) => x / (v + 1),
            None => ((*m as u128 * v as u128 + self.clock as u128) / (v as u128 + 1)) as u64,
        };
        self.valid[seg as usize] += 1;
        self.sit_touch(seg);
        self.total_valid += 1;
        if closed {
            self.bucket_insert(seg);
        }
    }

    /// Invalidate `lba` (which must be valid); a closed or cleaned segment left without
    /// valid blocks becomes free.
    #[inline]
    pub fn invalidate(&mut self, lba: u32) {
        let seg = self.seg_of(lba);
        let st = self.state[seg as usize];
        if st == SegState::Closed {
            self.bucket_remove(seg);
        }
        self.bitmap[lba as usize / 64] &= !(1 << (lba % 64));
        self.owner[lba as usize] = NO_OWNER;
        self.valid[seg as usize] -= 1;
        self.total_valid -= 1;
        self.sit_touch(seg);
        match st {
            SegState::Closed | SegState::Cleaning if self.valid[seg as usize] == 0 => {
                self.make_free(seg)
            }
            SegState::Closed => self.bucket_insert(seg),
            _ => {}
        }
    }

    /// Move the owner of a valid slot (cleaning).
    #[inline]
    pub fn owner_of(&self, lba: u32) -> u64 {
        self.owner[lba as usize]
    }

    fn is_extra(&self, seg: u32) -> bool {
        seg >= self.n_part
    }

    /// A segment without valid blocks returns to the pool (or is withdrawn, if it is an
    /// extra segment beyond the granted count).
    fn make_free(&mut self, seg: u32) {
        debug_assert_eq!(self.valid[seg as usize], 0);
        self.newly_freed.push(seg);
        if self.is_extra(seg) && self.extra_enabled > self.extra_target {
            self.state[seg as usize] = SegState::Disabled;
            self.extra_enabled -= 1;
        } else {
            self.state[seg as usize] = SegState::Free;
            self.free += 1;
            self.free_q.push_back(seg);
        }
    }

    /// A log is done with its current segment.
    pub fn close(&mut self, seg: u32) {
        if self.valid[seg as usize] == 0 {
            self.make_free(seg);
        } else {
            self.state[seg as usize] = SegState::Closed;
            self.bucket_insert(seg);
        }
    }

    /// Take the oldest free segment, opening it.
    pub fn pop_free(&mut self) -> Option<u32> {
        while let Some(seg) = self.free_q.pop_front() {
            if self.state[seg as usize] == SegState::Free {
                self.state[seg as usize] = SegState::Open;
                self.free -= 1;
                return Some(seg);
            }
        }
        None
    }

    /// The closed segment with the fewest valid blocks, if it has an invalid slot; it is
    /// taken out of the buckets and given state `to`.
    pub fn take_min_valid(&mut self, to: SegState) -> Option<u32> {
        while self.min_bucket < self.s as usize && self.buckets[self.min_bucket].is_empty() {
            self.min_bucket += 1;
        }
        if self.min_bucket >= self.s as usize {
            return None;
        }
        let seg = *self.buckets[self.min_bucket].last()?;
        self.bucket_remove(seg);
        self.state[seg as usize] = to;
        Some(seg)
    }

    /// Take closed segment `seg` (one with an invalid slot) out of the buckets, giving it
    /// state `to` (a victim chosen by another policy than fewest-valid).
    pub fn take(&mut self, seg: u32, to: SegState) {
        debug_assert_eq!(self.state[seg as usize], SegState::Closed);
        self.bucket_remove(seg);
        self.state[seg as usize] = to;
    }

    /// Closed segments with at least one invalid slot, by valid count.
    pub fn dirty_closed(&self) -> impl Iterator<Item = u32> + '_ {
        self.buckets[..self.s as usize].iter().flatten().copied()
    }

    /// A victim whose cleaning stopped early goes back to the closed set.
    pub fn uncleaned(&mut self, seg: u32) {
        if self.state[seg as usize] == SegState::Cleaning {
            self.state[seg as usize] = SegState::Closed;
            self.bucket_insert(seg);
        }
    }

    /// First invalid slot of segment `seg` at or after offset `from`, as an offset.
    pub fn next_hole(&self, seg: u32, from: u32) -> Option<u32> {
        let base = seg as usize * self.s as usize;
        let end = base + self.s as usize;
        let mut i = base + from as usize;
        while i < end {
            let w = i / 64;
            let word = !self.bitmap[w] >> (i % 64);
            if word != 0 {
                let j = i + word.trailing_zeros() as usize;
                return (j < end).then(|| (j - base) as u32);
            }
            i = (w + 1) * 64;
        }
        None
    }

    /// Grant `n` extra segments (clipped to the most there are); shrinking withdraws free
    /// extra segments only, the rest as they become free. Returns the extra segments usable.
    pub fn set_extra(&mut self, n: u64) -> u64 {
        let n_extra = (self.n_all - self.n_part) as u64;
        let n = n.min(n_extra);
        self.extra_target = n;
        if n > self.extra_enabled {
            for seg in self.n_part..self.n_all {
                if self.extra_enabled >= n {
                    break;
                }
                if self.state[seg as usize] == SegState::Disabled {
                    self.state[seg as usize] = SegState::Free;
                    self.free += 1;
                    self.extra_enabled += 1;
                    self.free_q.push_back(seg);
                }
            }
        } else {
            for seg in (self.n_part..self.n_all).rev() {
                if self.extra_enabled <= n {
                    break;
                }
                if self.state[seg as usize] == SegState::Free {
                    self.state[seg as usize] = SegState::Disabled;
                    self.free -= 1;
                    self.extra_enabled -= 1;
                }
            }
        }
        self.extra_enabled
    }

    /// Check the table's own consistency; returns a description of the first violation.
    pub fn check(&self) -> std::result::Result<(), String> {
        let s = self.s as usize;
        let mut free = 0u64;
        let mut total = 0u64;
        let mut extra = 0u64;
        for seg in 0..self.n_all as usize {
            let mut pop = 0u32;
            let mut owned = 0u32;
            for lba in seg * s..(seg + 1) * s {
                let bit = self.is_valid(lba as u32);
                pop += bit as u32;
                owned += (self.owner[lba] != NO_OWNER) as u32;
                if bit != (self.owner[lba] != NO_OWNER) {
                    return Err(format!("slot {lba}: bitmap and reverse map disagree"));
                }
            }
            if pop != self.valid[seg] || owned != pop {
                return Err(format!(
                    "segment {seg}: valid count {} but bitmap popcount {pop}, owners {owned}",
                    self.valid[seg]
                ));
            }
            total += pop as u64;
            let st = self.state[seg];
            if seg >= self.n_part as usize && st != SegState::Disabled {
                extra += 1;
            }
            match st {
                SegState::Free | SegState::Disabled if pop != 0 => {
                    return Err(format!("segment {seg}: {st:?} with {pop} valid blocks"))
                }
                SegState::Free => free += 1,
                SegState::Closed => {
                    let p = self.bucket_pos[seg] as usize;
                    if self.buckets[pop as usize].get(p) != Some(&(seg as u32)) {
                        return Err(format!("segment {seg}: not in bucket {pop}"));
                    }
                }
                _ => {
                    if self.bucket_pos[seg] != NONE {
                        return Err(format!("segment {seg}: {st:?} but in a bucket"));
                    }
                }
            }
        }
        if free != self.free {
            return Err(format!("free count {} but {free} free segments", self.free));
        }
        if total != self.total_valid {
            return Err(format!("valid total {} but {total}", self.total_valid));
        }
        if extra != self.extra_enabled {
            return Err(format!(
                "extra segments enabled {} but {extra} usable",
                self.extra_enabled
            ));
        }
        let in_q = self
            .free_q
            .iter()
            .filter(|&&q| self.state[q as usize] == SegState::Free)
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u64;
        if in_q != free {
            return Err(format!("{free} free segments but {in_q} in the free queue"));
        }
        Ok(())
    }
}
