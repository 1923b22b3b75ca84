//! Filebench's semaphore flowops, as `flowop_library.c` implements them with System V
//! semaphores (the Linux build the seeds ran).
//!
//! Every instance of a `semblock` flowop (one per thread instance that runs it) owns two
//! counting semaphores: the low-water count `lw`, starting at 0, and the high-water count
//! `hw`, starting at the flowop's `highwater` (default 1).
//!
//! - `semblock value=V`: `hw += V` (never blocks), then `lw -= V`, blocking until `lw >= V`.
//! - `sempost value=P target=T`: for every `semblock` instance named `T` in the whole
//!   workload, in turn: `lw += P`; with `blocking`, atomically `lw += P, hw -= P`, blocking
//!   until `hw >= P` (a poster blocked on one target has posted to the earlier ones).
//!
//! So a `semblock` thread passes once per `V` posts, and blocking posters run at most
//! `highwater + V` posts ahead of it. A blocked operation waits in a queue; whenever a count
//! rises, the queued operations that can now complete do, oldest first, as the kernel's
//! `semop` does, and their threads are woken.

use std::collections::{BTreeSet, VecDeque};

/// One `semblock` instance's pair of semaphores.
#[derive(Debug, Clone)]
pub(super) struct Sem {
    /// Low-water count (posts not yet consumed by the owner).
    pub lw: u64,
    /// High-water count (posts the blocking posters may still make).
    pub hw: u64,
    /// Stream of the thread instance that owns the `semblock`.
    pub owner: u32,
    /// The owner's `lw -= V` waiting to complete: `V`.
    owner_waits: Option<u64>,
    /// Blocking posts waiting to complete: (stream, P), oldest first.
    posters: VecDeque<(u32, u64)>,
}

impl Sem {
    /// A semaphore pair owned by stream `owner`, `hw` starting at `highwater`.
    pub fn new(owner: u32, highwater: u64) -> Sem {
        Sem {
            lw: 0,
            hw: highwater,
            owner,
            owner_waits: None,
            posters: VecDeque::new(),
        }
    }
}

/// Every semaphore of a workload, and which blocked threads' operations have completed.
#[derive(Debug, Clone, Default)]
pub(super) struct SemTable {
    /// Semaphores, by id.
    pub sems: Vec<Sem>,
    /// Streams whose blocked operation has completed since they last asked.
    granted: BTreeSet<u32>,
}

impl SemTable {
    /// Complete the queued operations of `id` that can complete now, oldest first, and
    /// record their threads in `woken`.
    fn settle(&mut self, id: usize, woken: &mut Vec<u32>) {
        let s = &mut self.sems[id];
        let mut i = 0;
        while i < s.posters.len() {
            let (who, p) = s.posters[i];
            if s.hw >= p {
                s.hw -= p;
                s.lw += p;
                s.posters.remove(i);
                self.granted.insert(who);
                woken.push(who);
            } else {
                i += 1;
            }
        }
        if let Some(v) = s.owner_waits {
            if s.lw >= v {
                s.lw -= v;
                s.owner_waits = None;
                self.granted.insert(s.owner);
                woken.push(s.owner);
            }
        }
    }

    /// The first half of `semblock value=V` by its owner: `hw += V`.
    pub fn block_post_hw(&mut self, id: usize, v: u64, woken: &mut Vec<u32>) {
        self.sems[id].hw += v;
        self.settle(id, woken);
    }

    /// The second half of `semblock value=V`: `lw -= V`; `false` when the owner must wait
    /// (it is then queued and woken once the count allows).
    pub fn block_take_lw(&mut self, id: usize, v: u64) -> bool {
        let s = &mut self.sems[id];
        if s.owner_waits.is_none() && s.lw >= v {
            s.lw -= v;
            true
        } else {
            s.owner_waits = Some(v);
            false
        }
    }

    /// `sempost value=P` from stream `me` to semaphore `id`; `false` when a blocking post
    /// must wait (it is then queued and completed once `hw` allows).
    pub fn post(
        &mut self,
        id: usize,
        p: u64,
        blocking: bool,
        me: u32,
        woken: &mut Vec<u32>,
    ) -> bool {
        let s = &mut self.sems[id];
        if blocking {
            if s.hw < p {
                s.posters.push_back((me, p));
                return false;
            }
            s.hw -= p;
        }
        s.lw += p;
        self.settle(id, woken);
        true
    }

    /// Whether stream `me`'s blocked operation has completed (consumes the grant).
    pub fn take_grant(&mut self, me: u32) -> bool {
        self.granted.remove(&me)
    }

    /// Stream `me` ends: withdraw its queued operations.
    pub fn withdraw(&mut self, me: u32) {
        for s in &mut self.sems {
            s.posters.retain(|&(who, _)| who != me);
            if s.owner == me {
                s.owner_waits = None;
            }
        }
        self.granted.remove(&me);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A poster blocked on `hw` completes when the owner's semblock raises `hw`, and the
    /// owner's `lw` wait completes after `V` posts.
    #[test]
    fn semop_arithmetic() {
        let mut t = SemTable {
            sems: vec![Sem::new(0, 2)],
            ..Default::default()
        };
        let mut woken = Vec::new();
        // Two blocking posts fit under highwater 2; the third waits.
        assert!(t.post(0, 1, true, 1, &mut woken));
        assert!(t.post(0, 1, true, 1, &mut woken));
        assert!(!t.post(0, 1, true, 2, &mut woken));
        assert_eq!((t.sems[0].lw, t.sems[0].hw), (2, 0));
        // semblock value=3: hw += 3 completes the queued post (lw 3, hw 2), then lw -= 3.
        t.block_post_hw(0, 3, &mut woken);
        assert_eq!(woken, vec![2]);
        assert!(t.take_grant(2));
        assert!(t.block_take_lw(0, 3));
        assert_eq!((t.sems[0].lw, t.sems[0].hw), (0, 2));
        // Next semblock waits for three more posts; a non-blocking post ignores hw.
        woken.clear();
        t.block_post_hw(0, 3, &mut woken);
        assert!(!t.block_take_lw(0, 3));
        assert!(t.post(0, 2, false, 1, &mut woken));
        assert!(woken.is_empty());
        assert!(t.post(0, 1, true, 1, &mut woken));
        assert_eq!(woken, vec![0]);
        assert!(t.take_grant(0));
        assert_eq!((t.sems[0].lw, t.sems[0].hw), (0, 4));
    }
}
