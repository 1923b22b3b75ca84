//! A plane's operations in time: its timer moves the operation under way to its next phase
//! (sense, transfer, array time), a free plane takes what the policy picks (`fcfs`,
//! `read_first`), reads suspend a program or erase, and a host command's wait splits into
//! queueing and GC time.

use super::plane::{Act, HostCmd, Split, Suspended, NEVER, NONE};
use super::{PageDone, Scheduler};
use crate::config::SchedPolicy;
use crate::engine::{Event, EventQueue};
use crate::nand::Nand;
use crate::units::{PlaneId, Ppn, SimTime};

impl Scheduler {
    /// A plane timer fired.
    pub fn on_timer(
        &mut self,
        plane: u32,
        gen: u32,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let pi = plane as usize;
        if let Some(d) = self.decided.get_mut(pi) {
            *d = (*d).max(now);
        }
        {
            let pl = &mut self.planes[pi];
            if pl.gen != gen || pl.timer != now {
                return; // superseded
            }
            pl.timer = NEVER;
        }
        self.now = now;
        if self.planes[pi].suspend_at == now {
            self.suspend_now(pi, now);
            self.dispatch(pi, now, nand, q);
            return;
        }
        let act = self.planes[pi].act;
        match act {
            Act::Idle => {}
            Act::ReadSense => {
                let partial = self.planes[pi].cur.partial;
                let (_, end) = self.channel_for(pi, now, nand.read_xfer_ns(partial));
                nand.count_read_transfer(partial);
                let pl = &mut self.planes[pi];
                pl.act = Act::ReadOut;
                self.loads.set_until(pi, end);
                let cmd = pl.cur;
                let split = pl.cur_split;
                self.done.push(PageDone {
                    req: cmd.req,
                    done: end + self.p.ecc_ns,
                    split,
                    buffered: false,
                });
                // The data leaves by `end`; nothing can change that, so the plane is free
                // then. Look again only if something waits or background GC may start.
                self.free_at(pi, end, q);
                return;
            }
            Act::ReadOut => unreachable!("a read-out completes without an event"),
            Act::Program { .. } => {
                let pl = &mut self.planes[pi];
                let cmd = pl.cur;
                let split = pl.cur_split;
                pl.act = Act::Idle;
                self.loads.set_until(pi, now);
                self.done.push(PageDone {
                    req: cmd.req,
                    done: now,
                    split,
                    buffered: cmd.buffered,
                });
            }
            Act::GcSense { dst } => {
                let (_, out) = self.channel(pi, now);
                nand.count_transfer();
                // The page goes back in once the controller has decoded it (and, with dedup
                // in GC, hashed it); a page only read for its hash frees the plane once out.
                let mut end = out + self.p.ecc_ns;
                if self.gc_hash {
                    // Hashed in parallel with the migration: the page goes back in without
                    // waiting, the victim's erase waits for the hash.
                    let h = self.hash.as_mut().expect("dedup in GC has a hash engine");
                    let hashed = h.run(end);
                    let pl = &mut self.planes[pi];
                    pl.hash_ready = pl.hash_ready.max(hashed);
                    if dst == Ppn::NONE {
                        end = out;
                    }
                }
                let pl = &mut self.planes[pi];
                pl.act = Act::GcOut { dst };
                self.loads.set_until(pi, end);
                pl.gc_end = end;
                self.arm(pi, end, q);
                return;
            }
            Act::GcOut { dst } if dst == Ppn::NONE => {
                let pl = &mut self.planes[pi];
                pl.act = Act::Idle;
                self.loads.set_until(pi, now);
                pl.gc_since = now;
                if pl.gc.erase_next() {
                    pl.step_left = 0;
                }
            }
            Act::GcOut { dst } => {
                #[cfg(debug_assertions)]
                self.lives.programs(dst, self.geo.block_of(dst).0 as usize);
                let (_, loaded) = self.channel(pi, now);
                nand.count_transfer();
                nand.count_program(dst, true);
                let until = loaded + nand.program_ns(dst);
                let pl = &mut self.planes[pi];
                pl.act = Act::GcArray {
                    array_start: loaded,
                    ops: 1,
                    erase: NONE,
                    suspendable: self.p.suspend,
                    is_erase: false,
                };
                self.loads.set_until(pi, until);
                pl.gc_end = until;
                self.arm(pi, until, q);
                if !self.planes[pi].reads.is_empty() {
                    self.maybe_suspend(pi, now, q);
                }
                return;
            }
            Act::GcArray { erase, .. } => {
                let pl = &mut self.planes[pi];
                pl.act = Act::Idle;
                self.loads.set_until(pi, now);
                pl.gc_since = now;
                if erase != NONE {
                    let b = erase as usize;
                    #[cfg(debug_assertions)]
                    {
                        self.lives.done[b] += 1;
                    }
                    self.erases_queued[b] -= 1;
                    if self.erases_queued[b] == 0 && self.free_unerased[b] {
                        self.free_unerased[b] = false;
                        pl.erased_free += 1;
                    }
                    pl.gc_started = false;
                    pl.step_left = 0;
                } else if pl.gc.erase_next() {
                    // The erase is a step of its own.
                    pl.step_left = 0;
                }
            }
        }
        self.dispatch(pi, now, nand, q);
    }

    #[inline]
    pub(super) fn arm(&mut self, pi: usize, t: SimTime, q: &mut EventQueue) {
        let pl = &mut self.planes[pi];
        pl.gen = pl.gen.wrapping_add(1);
        pl.timer = t;
        q.push(t, Event::Flash(pi as u32, pl.gen));
    }

    /// The plane's activity ends at `t` with nothing left to do for it then: look at the
    /// plane again at `t` only if commands wait or background GC may want the idle time.
    #[inline]
    fn free_at(&mut self, pi: usize, t: SimTime, q: &mut EventQueue) {
        let pl = &mut self.planes[pi];
        pl.act = Act::Idle;
        self.loads.set_until(pi, t);
        if !pl.queues_empty() || self.p.background {
            self.arm(pi, t, q);
        }
    }

    /// Something was queued on plane `pi` at `now`: start it if the plane is free.
    #[inline]
    pub(super) fn kick(&mut self, pi: usize, now: SimTime, nand: &mut Nand, q: &mut EventQueue) {
        let pl = &self.planes[pi];
        if pl.act != Act::Idle || pl.timer != NEVER {
            return; // its timer will look at the queues
        }
        if self.loads.until(pi) > now {
            let t = self.loads.until(pi);
            self.arm(pi, t, q);
        } else {
            self.dispatch(pi, now, nand, q);
        }
    }

    /// A read was queued on plane `pi`: suspend the plane's program or erase for it if the
    /// policy allows.
    pub(super) fn maybe_suspend(&mut self, pi: usize, now: SimTime, q: &mut EventQueue) {
        if !self.p.suspend {
            return;
        }
        let pl = &self.planes[pi];
        if pl.suspend_at != NEVER || pl.suspended.is_some() || pl.op_suspends >= self.p.max_suspends
        {
            return;
        }
        let (array_start, is_erase) = match pl.act {
            Act::Program { array_start } => (array_start, false),
            Act::GcArray {
                array_start,
                suspendable: true,
                is_erase,
                ..
            } => (array_start, is_erase),
            _ => return,
        };
        let lat = if is_erase {
            self.p.erase_suspend_ns
        } else {
            self.p.program_suspend_ns
        };
        let at = now.max(array_start) + lat;
        if at >= self.loads.until(pi) {
            return; // it finishes before it could be suspended
        }
        let pl = &mut self.planes[pi];
        pl.suspend_at = at;
        pl.op_suspends += 1;
        if is_erase {
            self.counters.erase_suspensions += 1;
        } else {
            self.counters.program_suspensions += 1;
        }
        self.arm(pi, at, q);
    }

    fn suspend_now(&mut self, pi: usize, now: SimTime) {
        let pl = &mut self.planes[pi];
        let is_erase = matches!(pl.act, Act::GcArray { is_erase: true, .. });
        pl.suspended = Some(Suspended {
            act: pl.act,
            remaining_ns: self.loads.until(pi).0 - now.0,
            is_erase,
            cur: pl.cur,
            cur_split: pl.cur_split,
        });
        if pl.act.is_gc() {
            pl.gc_end = now;
        }
        pl.act = Act::Idle;
        self.loads.set_until(pi, now);
        pl.suspend_at = NEVER;
    }

    /// Plane `pi` is free at `now`: start what the policy picks, or go idle.
    fn dispatch(&mut self, pi: usize, now: SimTime, nand: &mut Nand, q: &mut EventQueue) {
        let pl = &self.planes[pi];
        if pl.step_left > 0
            && pl.gc_started
            && pl.reads.is_empty()
            && pl.suspended.is_none()
            && !pl.gc.is_empty()
        {
            // A GC step in progress and no read to cut in: both policies go on with the step
            // (what `choose` answers then, without its look at the other queues). Under
            // `read_first` or suspension this is every copyback after a step's first.
            self.start_gc(pi, now, nand, q);
            return;
        }
        if let Some(s) = self.planes[pi].suspended {
            if let Some(cmd) = self.planes[pi].reads.pop_front() {
                self.loads
                    .sub_queued(pi, nand.read_ns_as(cmd.ppn, cmd.partial));
                self.counters.reads_during_suspension += 1;
                self.start_read(pi, cmd, now, nand, q);
                return;
            }
            let pl = &mut self.planes[pi];
            pl.suspended = None;
            pl.cur = s.cur;
            pl.cur_split = s.cur_split;
            let gc = s.act.is_gc();
            nand.count_resume(self.p.resume_ns, s.is_erase, gc);
            let until = now + self.p.resume_ns + s.remaining_ns;
            pl.act = match s.act {
                Act::Program { .. } => Act::Program { array_start: now },
                Act::GcArray {
                    ops,
                    erase,
                    suspendable,
                    is_erase,
                    ..
                } => Act::GcArray {
                    array_start: now,
                    ops,
                    erase,
                    suspendable,
                    is_erase,
                },
                other => other,
            };
            self.loads.set_until(pi, until);
            if gc {
                pl.gc_interval(now, until);
            }
            self.arm(pi, until, q);
            return;
        }
        match self.choose(pi, now) {
            Pick::Read => {
                let cmd = self.planes[pi].reads.pop_front().expect("picked a read");
                self.loads
                    .sub_queued(pi, nand.read_ns_as(cmd.ppn, cmd.partial));
                self.start_read(pi, cmd, now, nand, q);
            }
            Pick::Write => {
                let cmd = self.planes[pi].writes.pop_front().expect("picked a write");
                self.loads.sub_queued(pi, nand.program_ns(cmd.ppn));
                self.start_program(pi, cmd, now, nand, q);
            }
            Pick::Gc => self.start_gc(pi, now, nand, q),
            Pick::Nothing => {
                let pl = &mut self.planes[pi];
                pl.act = Act::Idle;
                self.loads.set_until(pi, now);
                assert!(
                    pl.writes.is_empty(),
                    "plane {pi}: a host program waits for an erase that no GC job owns"
                );
                if self.p.background {
                    self.idle.push(PlaneId(pi as u32));
                }
            }
        }
    }

    fn choose(&mut self, pi: usize, now: SimTime) -> Pick {
        let pl = &self.planes[pi];
        let r = pl.reads.front();
        let w = pl
            .writes
            .front()
            .filter(|c| self.erases_queued[self.geo.block_of(c.ppn).0 as usize] == 0);
        let g = pl.gc.front();
        if r.is_none() && w.is_none() && g.is_none() {
            return Pick::Nothing;
        }
        let at_floor = pl.erased_free <= self.p.floor_blocks;
        // A preemptible job yields between steps to every host command; at the hard floor it
        // still lets reads go first (read_first) but no longer yields to writes.
        let preemptible = g.is_some_and(|e| e.background || self.p.preemptible);
        let yields = preemptible && !at_floor;
        // A step in progress, or a started non-preemptible job, runs on ahead of writes (and,
        // under fcfs, of reads; read_first still serves reads between its operations).
        let pinned = g.is_some() && pl.gc_started && (pl.step_left > 0 || !preemptible);
        match self.p.policy {
            SchedPolicy::ReadFirst => {
                if r.is_some() {
                    // GC's age counts from its last operation (or its arrival), so one old
                    // job cannot jump every one of its steps ahead of reads.
                    // A write at the head that waits for its block's erase waits for GC:
                    // GC then carries that write's age.
                    let blocked = pl.writes.front().filter(|_| w.is_none()).map(|c| c.ready);
                    let gc_age = blocked.map_or(pl.gc_since, |t| t.min(pl.gc_since));
                    let gc_waits = g.filter(|_| pinned || !yields || blocked.is_some());
                    let oldest = match (w.filter(|_| !pinned), gc_waits) {
                        (Some(w), Some(_)) => Some(if w.ready <= gc_age {
                            (w.ready, Pick::Write)
                        } else {
                            (gc_age, Pick::Gc)
                        }),
                        (Some(w), None) => Some((w.ready, Pick::Write)),
                        (None, Some(_)) => Some((gc_age, Pick::Gc)),
                        (None, None) => None,
                    };
                    return match oldest {
                        Some((t, pick)) if now.0 - t.0 >= self.p.starvation_ns => {
                            self.counters.starvation_promotions += 1;
                            pick
                        }
                        _ => Pick::Read,
                    };
                }
                if pinned {
                    return Pick::Gc;
                }
                match (w, g) {
                    (Some(w), Some(g)) => {
                        if yields || (!at_floor && w.seq < g.seq) {
                            Pick::Write
                        } else {
                            Pick::Gc
                        }
                    }
                    (Some(_), None) => Pick::Write,
                    (None, Some(_)) => Pick::Gc,
                    (None, None) => Pick::Nothing,
                }
            }
            SchedPolicy::Fcfs => {
                if pinned {
                    return Pick::Gc;
                }
                let host = match (r, w) {
                    (Some(r), Some(w)) => Some(if r.seq < w.seq {
                        (r.seq, Pick::Read)
                    } else {
                        (w.seq, Pick::Write)
                    }),
                    (Some(r), None) => Some((r.seq, Pick::Read)),
                    (None, Some(w)) => Some((w.seq, Pick::Write)),
                    (None, None) => None,
                };
                match (host, g) {
                    (Some((s, h)), Some(g)) => {
                        // At the floor GC goes before writes, whatever their order.
                        let floor_blocks_write = at_floor && preemptible && h == Pick::Write;
                        if yields || (s < g.seq && !floor_blocks_write) {
                            h
                        } else {
                            Pick::Gc
                        }
                    }
                    (Some((_, h)), None) => h,
                    (None, Some(_)) => Pick::Gc,
                    (None, None) => Pick::Nothing,
                }
            }
        }
    }

    #[inline]
    fn split(&self, pi: usize, cmd: &HostCmd, now: SimTime) -> Split {
        let pl = &self.planes[pi];
        let gc_ns = pl.gc_accrued(now).saturating_sub(cmd.gc_snap);
        let wait = now.0 - cmd.ready.0;
        Split {
            gc_ns: gc_ns.min(wait),
            queue_ns: wait - gc_ns.min(wait),
            during_gc: cmd.had_gc || pl.epoch != cmd.epoch,
        }
    }

    pub(super) fn start_read(
        &mut self,
        pi: usize,
        cmd: HostCmd,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let split = self.split(pi, &cmd, now);
        let t = nand.read_ns_as(cmd.ppn, cmd.partial);
        nand.count_read_as(cmd.ppn, false, cmd.partial);
        let pl = &mut self.planes[pi];
        pl.cur = cmd;
        pl.cur_split = split;
        pl.act = Act::ReadSense;
        self.loads.set_until(pi, now + t);
        if pl.suspended.is_none() {
            pl.op_suspends = 0;
        }
        self.arm(pi, now + t, q);
    }

    pub(super) fn start_program(
        &mut self,
        pi: usize,
        cmd: HostCmd,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let split = self.split(pi, &cmd, now);
        let b = self.geo.block_of(cmd.ppn).0 as usize;
        #[cfg(debug_assertions)]
        self.lives.programs(cmd.ppn, b);
        self.in_flight[b] -= 1;
        let (_, loaded) = self.channel(pi, now);
        nand.count_transfer();
        let t = nand.count_program_ns(cmd.ppn, false);
        let until = loaded + t;
        let pl = &mut self.planes[pi];
        pl.op_suspends = 0;
        if !self.p.suspend && !cmd.buffered {
            // Nothing can interrupt it: complete it now, and look at the plane again when it
            // is free only if there is a reason to.
            self.done.push(PageDone {
                req: cmd.req,
                done: until,
                split,
                buffered: false,
            });
            self.free_at(pi, until, q);
            return;
        }
        pl.cur = cmd;
        pl.cur_split = split;
        pl.act = Act::Program {
            array_start: loaded,
        };
        self.loads.set_until(pi, until);
        self.arm(pi, until, q);
        // Reads that queued while it waited its turn may suspend it.
        if !self.planes[pi].reads.is_empty() {
            self.maybe_suspend(pi, now, q);
        }
    }
}

#[derive(PartialEq, Eq)]
enum Pick {
    Read,
    Write,
    Gc,
    Nothing,
}
