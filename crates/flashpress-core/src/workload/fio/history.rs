//! fio's history tree: the writes a verifying job has issued and not yet read back, sorted by
//! file and offset (fio's `log_io_piece`, iolog.c, for a job without a random map).
//!
//! fio keeps one node per write (`io_piece`: offset and length). A new write that overlaps
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
}
