//! One plane's command queues and what it is doing now.

use crate::units::{BlockId, Ppn, SimTime};
use std::collections::VecDeque;

/// Marks "no request" (a GC command) and "no time".
pub(super) const NONE: u32 = u32::MAX;

/// A host command queued at a plane (a page read or a page program).
#[derive(Debug, Clone, Copy)]
pub(super) struct HostCmd {
    pub ppn: Ppn,
    /// Request slot of the device, or [`NONE`] for a program whose request was acknowledged
    /// from the write buffer.
    pub req: u32,
    /// Reached the plane's queue.
    pub ready: SimTime,
    /// Arrival order at the plane (first come first served compares these).
    pub seq: u64,
    /// The plane's GC time accrued when the command was queued.
    pub gc_snap: u64,
    /// The plane's GC job count when the command was queued.
    pub epoch: u32,
    /// GC work was queued or running on the plane when the command was queued.
    pub had_gc: bool,
    /// Releases a write-buffer slot when programmed.
    pub buffered: bool,
    /// A partial read: one unit of the page is sensed and moved (`nand.partial_read`).
    pub partial: bool,
}

/// How a host command's wait before dispatch divides.
#[derive(Debug, Clone, Copy, Default)]
pub struct Split {
    /// Waiting while the plane did GC work (ns).
    pub gc_ns: u64,
    /// Waiting for anything else (ns).
    pub queue_ns: u64,
    /// A GC job was on the plane while the command waited.
    pub during_gc: bool,
}

/// One GC operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GcOp {
    /// Copy `src` to `dst` (copyback, or read out and program back).
    Migrate { src: Ppn, dst: Ppn },
    /// Erase the job's victim (the last op of a job).
    Erase(BlockId),
    /// A whole copyback job that nothing can interrupt (fcfs, no suspension, non-preemptible
    /// GC): its copybacks (`Plane::whole`, front) and then the erase of the victim.
    Whole(BlockId),
}

/// A GC command at the head of a plane's GC queue.
#[derive(Debug, Clone, Copy)]
pub(super) struct GcEntry {
    pub op: GcOp,
    /// The job's arrival order.
    pub seq: u64,
    /// Background job (always yields between steps).
    pub background: bool,
    /// Migrations use copyback.
    pub copyback: bool,
}

/// One GC job queued at a plane; its migrations are in [`GcQueue`]'s `moves`, in order.
#[derive(Debug, Clone, Copy)]
struct GcJob {
    victim: BlockId,
    /// Migrations of the job still queued.
    moves: u32,
    /// A [`GcOp::Whole`] job (no migrations of its own in `moves`).
    whole: bool,
    seq: u64,
    background: bool,
    copyback: bool,
}

/// A plane's GC commands in order: one entry per job (its victim, order and kind) and one
/// (source, destination) pair per queued migration, so a queued migration costs 16 bytes.
#[derive(Debug, Clone, Default)]
pub(super) struct GcQueue {
    jobs: VecDeque<GcJob>,
    moves: VecDeque<(Ppn, Ppn)>,
}

impl GcQueue {
    /// Queue a job: `moves` migrations and then the erase of `victim`, or, `whole`, the one
    /// [`GcOp::Whole`] command (its copybacks are summed elsewhere; `moves` is then ignored).
    pub(super) fn push_job(
        &mut self,
        victim: BlockId,
        moves: &[(Ppn, Ppn)],
        whole: bool,
        seq: u64,
        background: bool,
        copyback: bool,
    ) {
        if !whole {
            self.moves.extend(moves.iter().copied());
        }
        self.jobs.push_back(GcJob {
            victim,
            moves: if whole {
                0
            } else {
                u32::try_from(moves.len()).expect("a GC job of more than 2^32 migrations")
            },
            whole,
            seq,
            background,
            copyback,
        });
    }

    /// The command at the head of the queue.
    #[inline]
    pub(super) fn front(&self) -> Option<GcEntry> {
        let j = self.jobs.front()?;
        let op = if j.whole {
            GcOp::Whole(j.victim)
        } else if j.moves > 0 {
            let &(src, dst) = self.moves.front().expect("a job's migrations are queued");
            GcOp::Migrate { src, dst }
        } else {
            GcOp::Erase(j.victim)
        };
        Some(GcEntry {
            op,
            seq: j.seq,
            background: j.background,
            copyback: j.copyback,
        })
    }

    /// Whether the command at the head of the queue is a job's erase (cheaper than
    /// [`GcQueue::front`] where only that is asked).
    #[inline]
    pub(super) fn erase_next(&self) -> bool {
        self.jobs.front().is_some_and(|j| !j.whole && j.moves == 0)
    }

    /// Remove the command at the head of the queue.
    #[inline]
    pub(super) fn pop_front(&mut self) {
        let j = self.jobs.front_mut().expect("pop from an empty GC queue");
        if j.whole || j.moves == 0 {
            self.jobs.pop_front();
        } else {
            j.moves -= 1;
            self.moves.pop_front();
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}

/// What the plane's array is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Act {
    /// Nothing (free since `Plane::until`).
    Idle,
    /// A host read (`Plane::cur`) senses until `until`, then moves its data out on the
    /// channel.
    ReadSense,
    /// A host read's data moves out on the channel until `until`.
    ReadOut,
    /// A host program (`Plane::cur`): data moved in over the channel until `array_start`,
    /// then the array programs until `until`.
    Program { array_start: SimTime },
    /// A GC migration without copyback senses `src` until `until`.
    GcSense { dst: Ppn },
    /// Its data moves out to the controller until `until`, then back in for `dst`.
    GcOut { dst: Ppn },
    /// GC array work: `ops` GC queue entries (copybacks, a program after a read-out, an
    /// erase) run as one stretch from `array_start` to `until`.
    GcArray {
        array_start: SimTime,
        ops: u32,
        /// The stretch ends with the erase of this block ([`NONE`]: no erase).
        erase: u32,
        /// A single program or erase that a read may suspend.
        suspendable: bool,
        /// The single op is an erase (suspend latency and resume current).
        is_erase: bool,
    },
}

impl Act {
    /// Work that GC owns (for the "waiting for GC" split).
    pub fn is_gc(self) -> bool {
        matches!(
            self,
            Act::GcSense { .. } | Act::GcOut { .. } | Act::GcArray { .. }
        )
    }
}

/// An operation suspended for reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Suspended {
    pub act: Act,
    pub remaining_ns: u64,
    pub is_erase: bool,
    /// The host command of a suspended program, and its wait split.
    pub cur: HostCmd,
    pub cur_split: Split,
}

/// A plane: three queues (host reads, host programs, GC) and the current activity.
#[derive(Debug, Clone)]
pub(super) struct Plane {
    pub reads: VecDeque<HostCmd>,
    pub writes: VecDeque<HostCmd>,
    pub gc: GcQueue,
    /// The copyback sums of the queued [`GcOp::Whole`] jobs, in order.
    pub whole: VecDeque<crate::nand::CopybackBatch>,
    pub act: Act,
    /// The host command of a read or program activity, with its wait split at dispatch.
    pub cur: HostCmd,
    pub cur_split: Split,
    /// Time of the armed timer event (`SimTime(u64::MAX)`: none) and its generation.
    pub timer: SimTime,
    pub gen: u32,
    pub suspended: Option<Suspended>,
    /// Time a pending suspension takes effect (`SimTime(u64::MAX)`: none).
    pub suspend_at: SimTime,
    /// Suspensions the current (or suspended) operation has taken.
    pub op_suspends: u32,
    /// Migrations left in the current GC step (0: at a step boundary).
    pub step_left: u32,
    /// The GC job at the head of the queue has started (non-preemptible jobs then run on).
    pub gc_started: bool,
    /// When GC on this plane last made progress (a step ended) or, idle, was queued: its
    /// age for `read_first`'s starvation bound.
    pub gc_since: SimTime,
    /// GC jobs queued on this plane so far.
    pub epoch: u32,
    /// GC time accrued before the last GC interval, and that interval.
    pub gc_closed: u64,
    pub gc_start: SimTime,
    pub gc_end: SimTime,
    /// Dedup in GC: when the hashes of the pages GC has read out are all known; the erase
    /// of a victim waits for them (a page may be discarded only once it is known to be a
    /// duplicate).
    pub hash_ready: SimTime,
    /// Free blocks whose erase has run (programs may go there at once).
    pub erased_free: u32,
}

pub(super) const NEVER: SimTime = SimTime(u64::MAX);

impl Plane {
    pub fn new() -> Plane {
        Plane {
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            gc: GcQueue::default(),
            whole: VecDeque::new(),
            act: Act::Idle,
            cur: HostCmd {
                ppn: Ppn(0),
                req: NONE,
                ready: SimTime::ZERO,
                seq: 0,
                gc_snap: 0,
                epoch: 0,
                had_gc: false,
                buffered: false,
                partial: false,
            },
            cur_split: Split::default(),
            timer: NEVER,
            gen: 0,
            suspended: None,
            suspend_at: NEVER,
            op_suspends: 0,
            step_left: 0,
            gc_started: false,
            gc_since: SimTime::ZERO,
            epoch: 0,
            gc_closed: 0,
            gc_start: SimTime::ZERO,
            gc_end: SimTime::ZERO,
            hash_ready: SimTime::ZERO,
            erased_free: 0,
        }
    }

    /// GC time accrued on this plane up to `t` (ns); `t` no earlier than the last GC
    /// interval's start.
    #[inline]
    pub fn gc_accrued(&self, t: SimTime) -> u64 {
        let upto = t.max(self.gc_start).min(self.gc_end);
        self.gc_closed + (upto.0 - self.gc_start.0)
    }

    /// Open a GC interval `[start, end)`, closing the previous one.
    #[inline]
    pub fn gc_interval(&mut self, start: SimTime, end: SimTime) {
        self.gc_closed += self.gc_end.0 - self.gc_start.0;
        self.gc_start = start;
        self.gc_end = end;
    }

    /// Whether there is GC work on the plane (queued or running).
    #[inline]
    pub fn has_gc(&self) -> bool {
        !self.gc.is_empty() || self.act.is_gc() || self.suspended.is_some_and(|s| s.act.is_gc())
    }

    /// Nothing queued and nothing suspended.
    #[inline]
    pub fn queues_empty(&self) -> bool {
        self.reads.is_empty()
            && self.writes.is_empty()
            && self.gc.is_empty()
            && self.suspended.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut GcQueue) -> Vec<(GcOp, u64)> {
        let mut out = Vec::new();
        while let Some(e) = q.front() {
            out.push((e.op, e.seq));
            q.pop_front();
        }
        out
    }

    #[test]
    fn gc_queue_gives_each_jobs_migrations_then_its_erase_in_order() {
        let mut q = GcQueue::default();
        let mv = |s, d| (Ppn(s), Ppn(d));
        q.push_job(BlockId(3), &[mv(10, 40), mv(12, 41)], false, 7, false, true);
        q.push_job(BlockId(5), &[mv(20, 42)], true, 8, false, true);
        q.push_job(BlockId(6), &[], false, 9, true, false);
        q.push_job(BlockId(4), &[mv(Ppn::NONE.0, 43)], false, 10, false, false);
        let m = |s, d| GcOp::Migrate {
            src: Ppn(s),
            dst: Ppn(d),
        };
        assert_eq!(
            q.front().map(|e| (e.background, e.copyback)),
            Some((false, true))
        );
        assert_eq!(
            drain(&mut q),
            vec![
                (m(10, 40), 7),
                (m(12, 41), 7),
                (GcOp::Erase(BlockId(3)), 7),
                (GcOp::Whole(BlockId(5)), 8),
                (GcOp::Erase(BlockId(6)), 9),
                (m(Ppn::NONE.0, 43), 10),
                (GcOp::Erase(BlockId(4)), 10),
            ]
        );
        assert!(q.is_empty());
    }
}
