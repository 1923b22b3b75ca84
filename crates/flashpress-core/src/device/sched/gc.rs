//! GC steps on a plane: a job's migrations (copyback, or read out and programmed back) and
//! its erase, in steps of `step_pages` that yield to host commands, or as one stretch when
//! nothing can cut in.

use super::plane::{Act, GcOp, NONE};
use super::{program_ns, Scheduler};
use crate::config::SchedPolicy;
use crate::engine::EventQueue;
use crate::nand::Nand;
use crate::units::{Ppn, SimTime};

impl Scheduler {
    pub(super) fn start_gc(
        &mut self,
        pi: usize,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let p = self.p;
        let pl = &mut self.planes[pi];
        let head = pl.gc.front().expect("picked GC with an empty GC queue");
        let yields = head.background || p.preemptible;
        if !pl.gc_started || pl.step_left == 0 {
            pl.gc_started = true;
            pl.step_left = if yields { p.step_pages } else { u32::MAX };
            self.counters.gc_steps += 1;
            if pl.erased_free <= p.floor_blocks {
                self.counters.gc_steps_at_floor += 1;
            }
        }
        let until;
        match head.op {
            GcOp::Whole(b) => {
                pl.gc.pop_front();
                let batch = pl.whole.pop_front().expect("a whole job has its sums");
                nand.count_copyback_batch(&batch, true);
                nand.count_erase(b, true);
                let d = batch.ns + nand.erase_ns();
                self.loads.sub_queued(pi, d);
                until = now + d;
                pl.act = Act::GcArray {
                    array_start: now,
                    ops: batch.n as u32 + 1,
                    erase: b.0,
                    suspendable: false,
                    is_erase: false,
                };
            }
            GcOp::Erase(b) => {
                pl.gc.pop_front();
                nand.count_erase(b, true);
                self.loads.sub_queued(pi, nand.erase_ns());
                // Dedup in GC: not before the victim's pages are all hashed.
                let start = now.max(pl.hash_ready);
                until = start + nand.erase_ns();
                pl.act = Act::GcArray {
                    array_start: start,
                    ops: 1,
                    erase: b.0,
                    suspendable: p.suspend,
                    is_erase: true,
                };
            }
            GcOp::Migrate { src, dst } if !head.copyback && src == Ppn::NONE => {
                // Its data is already in controller memory: straight to the transfer in.
                pl.gc.pop_front();
                pl.step_left -= 1;
                self.loads.sub_queued(pi, program_ns(nand, dst));
                until = now;
                pl.act = Act::GcOut { dst };
            }
            GcOp::Migrate { src, dst } if !head.copyback => {
                pl.gc.pop_front();
                pl.step_left -= 1;
                let t = nand.read_ns(src);
                nand.count_read(src, true);
                self.loads.sub_queued(pi, t + program_ns(nand, dst));
                until = now + t;
                pl.act = Act::GcSense { dst };
            }
            GcOp::Migrate { src, dst }
                if pl.step_left > 0 && (p.suspend || p.policy == SchedPolicy::ReadFirst) =>
            {
                // A copyback where reads may cut in (read_first) or suspend it: one at a
                // time, as the loop below does it, without asking the queue again.
                until = now + self.take_copyback(pi, src, dst, nand);
                self.planes[pi].act = Act::GcArray {
                    array_start: now,
                    ops: 1,
                    erase: NONE,
                    suspendable: p.suspend,
                    is_erase: false,
                };
            }
            GcOp::Migrate { .. } => {
                // Copybacks: one at a time where reads may cut in (read_first) or suspend
                // them; under fcfs without suspension nothing can, so the whole step (and,
                // for a job that does not yield, its erase) runs as one stretch.
                let one = p.suspend || p.policy == SchedPolicy::ReadFirst;
                let mut t = now;
                let mut ops = 0;
                let mut erase = NONE;
                while let Some(e) = self.planes[pi].gc.front() {
                    match e.op {
                        GcOp::Migrate { src, dst }
                            if self.planes[pi].step_left > 0 && e.seq == head.seq =>
                        {
                            if !e.copyback {
                                break;
                            }
                            t = t + self.take_copyback(pi, src, dst, nand);
                            ops += 1;
                        }
                        GcOp::Erase(b) if !yields && !one && e.seq == head.seq => {
                            self.planes[pi].gc.pop_front();
                            nand.count_erase(b, true);
                            self.loads.sub_queued(pi, nand.erase_ns());
                            t = t + nand.erase_ns();
                            ops += 1;
                            erase = b.0;
                            break;
                        }
                        _ => break,
                    }
                    if one {
                        break;
                    }
                }
                until = t;
                self.planes[pi].act = Act::GcArray {
                    array_start: now,
                    ops,
                    erase,
                    suspendable: p.suspend,
                    is_erase: false,
                };
            }
        }
        self.loads.set_until(pi, until);
        let pl = &mut self.planes[pi];
        pl.op_suspends = 0;
        pl.gc_interval(now, until);
        self.arm(pi, until, q);
        if !self.planes[pi].reads.is_empty() {
            self.maybe_suspend(pi, now, q);
        }
    }

    /// Take the copyback `src` -> `dst` at the head of plane `pi`'s GC queue into the step
    /// in progress and count it: its array time (ns). (Inlined by force: called from two
    /// places, the call itself cost about 100 M instructions on the `make bench` trace.)
    #[inline(always)]
    fn take_copyback(&mut self, pi: usize, src: Ppn, dst: Ppn, nand: &mut Nand) -> u64 {
        let pl = &mut self.planes[pi];
        pl.gc.pop_front();
        pl.step_left -= 1;
        #[cfg(debug_assertions)]
        self.lives.programs(dst, self.geo.block_of(dst).0 as usize);
        let d = nand.count_copyback(src, dst, true);
        self.loads.sub_queued(pi, d);
        d
    }
}
