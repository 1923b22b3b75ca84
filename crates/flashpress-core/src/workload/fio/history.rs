//! fio's history of writes a verifying job has issued and not yet read back: the tree, sorted by
//! file and offset (fio's `log_io_piece`, iolog.c, for a job without a random map), and the
//! list, in issue order (a job with a random map: [`HistList`]).
//!
//! For the tree, fio keeps one node per write (`io_piece`: offset and length). A new write that overlaps
//! older ones removes each of them whole (the older write's bytes outside the overlap are then
//! never read back), and `get_next_verify` (verify.c) reads the tree from its first node,
//! each node with its own length. Here the tree is two bits per 512-byte unit of the job's
//! files: whether the unit belongs to a node, and whether a node starts there. A node ends at
//! the next start, the first unit outside every node or its file's end. That is the same
//! set of nodes in a bounded space (the job's regions), whatever the number of writes.

/// Bytes per unit.
pub(super) const UNIT: u64 = 512;

pub(super) struct HistTree {
    /// Units per file (the file's region).
    per_file: u64,
    total: u64,
    held: Vec<u64>,
    starts: Vec<u64>,
    /// Nodes in the tree (fio's `io_hist_len`).
    nodes: u64,
    /// No node starts below this unit.
    low: u64,
}

fn get(w: &[u64], u: u64) -> bool {
    w[(u / 64) as usize] >> (u % 64) & 1 == 1
}

fn put(w: &mut [u64], u: u64, on: bool) {
    let bit = 1u64 << (u % 64);
    if on {
        w[(u / 64) as usize] |= bit;
    } else {
        w[(u / 64) as usize] &= !bit;
    }
}

impl HistTree {
    /// A tree over `files` files whose regions are `region_len` bytes each.
    pub(super) fn new(files: usize, region_len: u64) -> HistTree {
        let per_file = region_len.div_ceil(UNIT).max(1);
        let total = per_file * files.max(1) as u64;
        let words = total.div_ceil(64) as usize;
        HistTree {
            per_file,
            total,
            held: vec![0; words],
            starts: vec![0; words],
            nodes: 0,
            low: total,
        }
    }

    /// Nodes awaiting their read (fio's `io_hist_len`).
    pub(super) fn len(&self) -> u64 {
        self.nodes
    }

    /// The end (exclusive) of the node starting at `s`.
    fn node_end(&self, s: u64) -> u64 {
        let file_end = (s / self.per_file + 1) * self.per_file;
        let mut e = s + 1;
        while e < file_end && get(&self.held, e) && !get(&self.starts, e) {
            e += 1;
        }
        e
    }

    /// The start of the node holding unit `u` (which a node holds).
    fn node_start(&self, u: u64) -> u64 {
        let mut s = u;
        while !get(&self.starts, s) {
            s -= 1;
        }
        s
    }

    fn remove(&mut self, s: u64) -> u64 {
        let e = self.node_end(s);
        for u in s..e {
            put(&mut self.held, u, false);
            put(&mut self.starts, u, false);
        }
        self.nodes -= 1;
        e
    }

    /// Log a write of `len` bytes at `rel` in file `f`'s region: older writes it overlaps
    /// are dropped whole, as fio's `log_io_piece` drops them.
    pub(super) fn insert(&mut self, f: usize, rel: u64, len: u64) {
        let base = f as u64 * self.per_file;
        let u0 = base + rel / UNIT;
        let u1 = (base + (rel + len).div_ceil(UNIT)).min(base + self.per_file);
        if u0 >= u1 {
            return;
        }
        // The node holding the write's first unit, then every node starting inside it.
        if get(&self.held, u0) {
            let s = self.node_start(u0);
            self.remove(s);
        }
        let mut u = u0;
        while u < u1 {
            if get(&self.starts, u) {
                u = self.remove(u);
            } else {
                u += 1;
            }
        }
        for u in u0..u1 {
            put(&mut self.held, u, true);
        }
        put(&mut self.starts, u0, true);
        self.nodes += 1;
        self.low = self.low.min(u0);
    }

    /// Take the first node (lowest file, then offset): (file, offset in its region, bytes).
    pub(super) fn pop_first(&mut self) -> Option<(usize, u64, u64)> {
        let mut u = self.low;
        while u < self.total && !get(&self.starts, u) {
            if u.is_multiple_of(64) && self.starts[(u / 64) as usize] == 0 {
                u += 64;
            } else {
                u += 1;
            }
        }
        if u >= self.total {
            self.low = self.total;
            return None;
        }
        let e = self.remove(u);
        self.low = e;
        let f = u / self.per_file;
        let rel = (u - f * self.per_file) * UNIT;
        Some((f as usize, rel, (e - u) * UNIT))
    }
}

/// fio's history list: the writes a verifying job with a random map has issued and not yet
/// read back, in the order it issued them (fio's `log_io_piece` appends to `io_hist_list`
/// when `file_randommap`; `get_next_verify` takes from its head).
///
/// fio keeps 16+ bytes per write. A job whose writes all come from the permutation map
/// (equal blocks: [`super::gen::RandomMap`]) writes each block at most once per pass, in the
/// pass's permutation order, so the list is a bitmap per pass instead: one bit per
/// (block, file) marking the writes that await their read, and a replay of the pass's
/// permutation as the read cursor (reads of a `randrw` job and cycle-walking skip blocks
/// whose bit is clear). That is `blocks x files` bits per pass with writes pending (one
/// pass, two where a `time_based` job wraps with reads pending), whatever the number of
/// writes. Other jobs with a random map (block sizes that vary, sequential runs inside a
/// random job) keep fio's list, each write packed in 32 bits (file, offset and length in
/// units of the largest size that divides every offset and length the job can issue) when
/// those fit, else as (address, length) pairs of 16 bytes, as do zoned jobs.
pub(super) enum HistList {
    /// Writes drawn from the permutation map, replayed in its order.
    Replay(Replay),
    /// Any other writes, packed, in issue order.
    Packed(Packed),
    /// Any other writes: (device byte address, bytes), in issue order.
    Queue(std::collections::VecDeque<(u64, u64)>),
}

/// The packing of a [`HistList::Packed`]: `(file << (off_bits + len_bits)) | (offset /
/// unit) << len_bits | length / unit`, offset relative to the file's region.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Packing {
    pub unit: u64,
    pub off_bits: u32,
    pub len_bits: u32,
}

impl Packing {
    /// The packing of writes at offsets below `region` + 1 unit, at most `max_len` bytes
    /// long, over `files` files, every offset and length a multiple of `unit`; `None` when
    /// that takes more than 32 bits.
    pub(super) fn new(unit: u64, region: u64, max_len: u64, files: u64) -> Option<Packing> {
        let bits = |n: u64| 64 - n.leading_zeros();
        let unit = unit.max(1);
        let off_bits = bits(region / unit + 1);
        let len_bits = bits(max_len / unit);
        let file_bits = bits(files.max(1) - 1);
        (off_bits + len_bits + file_bits <= 32).then_some(Packing {
            unit,
            off_bits,
            len_bits,
        })
    }

    fn pack(&self, file: usize, rel: u64, len: u64) -> Option<u32> {
        let (o, l) = (rel / self.unit, len / self.unit);
        let fits = rel.is_multiple_of(self.unit)
            && len.is_multiple_of(self.unit)
            && o >> self.off_bits == 0
            && l >> self.len_bits == 0;
        let v = ((file as u64) << (self.off_bits + self.len_bits)) | o << self.len_bits | l;
        (fits && v >> 32 == 0).then_some(v as u32)
    }

    fn unpack(&self, v: u32) -> (usize, u64, u64) {
        let v = u64::from(v);
        let l = v & ((1 << self.len_bits) - 1);
        let o = (v >> self.len_bits) & ((1 << self.off_bits) - 1);
        let f = v >> (self.off_bits + self.len_bits);
        (f as usize, o * self.unit, l * self.unit)
    }
}

/// A [`HistList`] of packed writes; a write that does not fit the packing turns the list into
/// a [`HistList::Queue`] (`addr` maps a write back to its device address).
pub(super) struct Packed {
    packing: Packing,
    q: std::collections::VecDeque<u32>,
}

/// A [`HistList`] of writes drawn from the permutation map.
pub(super) struct Replay {
    /// Blocks per file (the map's size) and files.
    blocks: u64,
    files: u64,
    /// The passes with writes awaiting their read, oldest first.
    passes: std::collections::VecDeque<PassBits>,
    /// A cleared bitmap kept for the next pass.
    spare: Option<Vec<u64>>,
    len: u64,
}

struct PassBits {
    /// The pass's map, its counter the read cursor.
    map: super::gen::RandomMap,
    /// Bit `block * files + file`: that write awaits its read.
    bits: Vec<u64>,
    pending: u64,
}

impl HistList {
    /// fio's list as it is.
    pub(super) fn queue() -> HistList {
        HistList::Queue(std::collections::VecDeque::new())
    }

    /// fio's list, each write packed as `packing` says.
    pub(super) fn packed(packing: Packing) -> HistList {
        HistList::Packed(Packed {
            packing,
            q: std::collections::VecDeque::new(),
        })
    }

    /// A list for writes drawn from a permutation map of `blocks` blocks, over `files` files.
    pub(super) fn replay(blocks: u64, files: usize) -> HistList {
        HistList::Replay(Replay {
            blocks,
            files: files.max(1) as u64,
            passes: std::collections::VecDeque::new(),
            spare: None,
            len: 0,
        })
    }

    /// The bytes one pass's bitmap takes for `blocks` blocks over `files` files.
    pub(super) fn pass_bytes(blocks: u64, files: u64) -> u64 {
        blocks.saturating_mul(files.max(1)).div_ceil(64) * std::mem::size_of::<u64>() as u64
    }

    /// Writes awaiting their read (fio's `io_hist_len`).
    pub(super) fn len(&self) -> u64 {
        match self {
            HistList::Replay(r) => r.len,
            HistList::Packed(p) => p.q.len() as u64,
            HistList::Queue(q) => q.len() as u64,
        }
    }

    /// Log a write of `len` bytes at `rel` in file `file`'s region, device address `addr`;
    /// `address(file, rel)` is the device address of a write already logged.
    pub(super) fn push(
        &mut self,
        file: usize,
        rel: u64,
        addr: u64,
        len: u64,
        address: impl Fn(usize, u64) -> u64,
    ) {
        if let HistList::Packed(p) = self {
            match p.packing.pack(file, rel, len) {
                Some(v) => return p.q.push_back(v),
                None => {
                    // Not what the packing foresaw: fio's plain list from here on.
                    let q = std::mem::take(&mut p.q)
                        .into_iter()
                        .map(|v| {
                            let (f, r, l) = p.packing.unpack(v);
                            (address(f, r), l)
                        })
                        .collect();
                    *self = HistList::Queue(q);
                }
            }
        }
        match self {
            HistList::Queue(q) => q.push_back((addr, len)),
            HistList::Packed(_) => unreachable!("turned into a queue above"),
            HistList::Replay(_) => panic!("a replayed history list takes map blocks only"),
        }
    }

    /// Log the write of block `block` of file `file` that `map` has just drawn.
    pub(super) fn push_block(&mut self, file: usize, block: u64, map: &super::gen::RandomMap) {
        let HistList::Replay(r) = self else {
            panic!("a history queue takes addresses, not map blocks");
        };
        assert!(
            block < r.blocks && (file as u64) < r.files,
            "history list: block {block} of file {file} outside {} blocks x {} files",
            r.blocks,
            r.files
        );
        if r.passes.back().is_none_or(|p| p.map.pass != map.pass) {
            let words = Self::pass_bytes(r.blocks, r.files) as usize / std::mem::size_of::<u64>();
            let bits = r.spare.take().unwrap_or_else(|| vec![0; words]);
            let mut m = map.clone();
            m.counter = 0;
            r.passes.push_back(PassBits {
                map: m,
                bits,
                pending: 0,
            });
        }
        let p = r.passes.back_mut().expect("pushed above");
        let i = block * r.files + file as u64;
        let w = &mut p.bits[(i / 64) as usize];
        assert!(
            *w >> (i % 64) & 1 == 0,
            "history list: block {block} of file {file} written twice in one pass of the map"
        );
        *w |= 1 << (i % 64);
        p.pending += 1;
        r.len += 1;
    }

    /// Take the oldest write: `Addr(address, bytes)` of a queue, `Rel(file, offset in its
    /// region, bytes)` of a packed list, `Block(file, block)` of a replay.
    pub(super) fn pop(&mut self) -> Option<Oldest> {
        match self {
            HistList::Queue(q) => q.pop_front().map(|(a, l)| Oldest::Addr(a, l)),
            HistList::Packed(p) => p.q.pop_front().map(|v| {
                let (f, r, l) = p.packing.unpack(v);
                Oldest::Rel(f, r, l)
            }),
            HistList::Replay(r) => {
                while let Some(p) = r.passes.front_mut() {
                    if p.pending == 0 {
                        let done = r.passes.pop_front().expect("front exists");
                        r.spare = Some(done.bits);
                        continue;
                    }
                    // A write is pending past the cursor, so the pass's order reaches it.
                    while let Some(b) = p.map.next() {
                        for f in 0..r.files {
                            let i = b * r.files + f;
                            let w = &mut p.bits[(i / 64) as usize];
                            if *w >> (i % 64) & 1 == 1 {
                                *w &= !(1 << (i % 64));
                                p.pending -= 1;
                                r.len -= 1;
                                return Some(Oldest::Block(f as usize, b));
                            }
                        }
                    }
                    panic!("history list: a pass's order ended with writes pending");
                }
                None
            }
        }
    }
}

/// The oldest write of a [`HistList`].
pub(super) enum Oldest {
    Addr(u64, u64),
    Rel(usize, u64, u64),
    Block(usize, u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// fio's tree written out plainly: a list of (file, offset, len) nodes.
    fn reference(writes: &[(usize, u64, u64)]) -> Vec<(usize, u64, u64)> {
        let mut nodes: Vec<(usize, u64, u64)> = Vec::new();
        for &(f, o, l) in writes {
            nodes.retain(|&(nf, no, nl)| !(nf == f && no < o + l && o < no + nl));
            nodes.push((f, o, l));
        }
        nodes.sort_unstable();
        nodes
    }

    #[test]
    fn nodes_come_out_by_offset_each_with_its_length_and_overlaps_drop_older_writes() {
        let mut rng = 0x1234_5678_9abc_def0u64;
        let mut next = |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for _ in 0..200 {
            let mut t = HistTree::new(2, 64 << 10);
            let mut writes = Vec::new();
            for _ in 0..(1 + next(40)) {
                let f = next(2) as usize;
                let len = (1 + next(16)) * 1024;
                let off = next((64 << 10) - len + 1) / 512 * 512;
                t.insert(f, off, len);
                writes.push((f, off, len));
            }
            let want = reference(&writes);
            assert_eq!(t.len(), want.len() as u64);
            let mut got = Vec::new();
            while let Some(n) = t.pop_first() {
                got.push(n);
            }
            assert_eq!(got, want);
            assert_eq!(t.len(), 0);
        }
    }

    /// The replayed list against fio's plain list (a queue of every write): maps of a few
    /// sizes, several files, reads that take map blocks without logging them, reads back
    /// taken at random moments, and passes that begin with writes of the last still pending.
    #[test]
    fn the_replayed_list_gives_the_writes_in_the_order_they_were_logged() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut replayed_some = 0;
        for case in 0..300u64 {
            let blocks = 1 + rng.random_range(0..200u64);
            let files = 1 + rng.random_range(0..3usize);
            let mut map = super::super::gen::RandomMap::new(blocks, &mut rng);
            let mut list = HistList::replay(blocks, files);
            let mut plain = std::collections::VecDeque::new();
            let read_pct = [0, 30, 70][case as usize % 3];
            let pop_pct = rng.random_range(0..50u32);
            for _ in 0..rng.random_range(0..600u32) {
                if rng.random_range(0..100u32) < pop_pct {
                    let got = match list.pop() {
                        Some(Oldest::Block(f, b)) => Some((f, b)),
                        Some(Oldest::Addr(..) | Oldest::Rel(..)) => panic!("a replay gives blocks"),
                        None => None,
                    };
                    assert_eq!(got, plain.pop_front());
                    replayed_some += usize::from(got.is_some());
                    continue;
                }
                if rng.random_range(0..100u32) < 2 {
                    // A loop ends before its pass does (fio's clear_io_state).
                    map.reset(&mut rng);
                }
                let Some(b) = map.next() else {
                    map.reset(&mut rng);
                    continue;
                };
                if rng.random_range(0..100u32) >= read_pct {
                    let f = rng.random_range(0..files);
                    list.push_block(f, b, &map);
                    plain.push_back((f, b));
                }
                assert_eq!(list.len(), plain.len() as u64);
            }
            while let Some(want) = plain.pop_front() {
                match list.pop() {
                    Some(Oldest::Block(f, b)) => assert_eq!((f, b), want),
                    _ => panic!("case {case}: the replay lost {want:?}"),
                }
            }
            assert!(list.pop().is_none() && list.len() == 0);
        }
        assert!(replayed_some > 1000, "{replayed_some}");
    }

    /// A packed list gives back what it was given, in order; a write the packing did not
    /// foresee turns it into fio's plain list, with the writes before it in their order.
    #[test]
    fn a_packed_list_keeps_its_order_and_falls_back_to_pairs() {
        let p = Packing::new(4096, 1 << 20, 16384, 2).expect("fits");
        assert!(Packing::new(512, 1 << 40, 1 << 20, 1).is_none());
        let address = |f: usize, r: u64| (f as u64) << 30 | r;
        let mut l = HistList::packed(p);
        let writes = [
            (0, 0, 4096),
            (1, 8192, 16384),
            (0, 1 << 20, 4096),
            (1, 4096, 8192),
        ];
        for &(f, r, n) in &writes {
            l.push(f, r, address(f, r), n, address);
        }
        assert!(matches!(l, HistList::Packed(_)));
        let pop = |l: &mut HistList| match l.pop() {
            Some(Oldest::Rel(f, r, n)) => Some((address(f, r), n)),
            Some(Oldest::Addr(a, n)) => Some((a, n)),
            Some(Oldest::Block(..)) => panic!("no blocks here"),
            None => None,
        };
        assert_eq!(pop(&mut l), Some((0, 4096)));
        // 512 B is not a multiple of the unit.
        l.push(0, 512, 512, 4096, address);
        assert!(matches!(l, HistList::Queue(_)));
        let rest: Vec<_> = std::iter::from_fn(|| pop(&mut l)).collect();
        let mut want: Vec<_> = writes[1..]
            .iter()
            .map(|&(f, r, n)| (address(f, r), n))
            .collect();
        want.push((512, 4096));
        assert_eq!(rest, want);
    }
}
