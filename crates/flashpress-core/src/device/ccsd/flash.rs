//! The CCSD's controller back end: the plain SSD's (`device::sched`: per-plane command
//! queues, channels, `fcfs` / `read_first`, suspension, GC jobs in steps, erase before
//! program) and its write buffer (`device::buffer`), driven by a private event queue that is
//! advanced lazily.
//!
//! The storage stack's [`Disk`](crate::stack::bio::Disk) interface is synchronous: a
//! submit returns the bio's completion time. So the back end runs its events up to the
//! time of each command it is handed ([`Flash::begin`], [`Flash::at`]), queues the command
//! then, and runs on past the caller's present only when the caller needs a completion: a
//! read's pages, an unbuffered write's programs, a host page waiting for a buffer slot
//! ([`Flash::wait`], [`PackedBackend::buffer_slot`]). A command handed over after such a
//! run-ahead with an earlier time is queued at its own time on its plane unless the back end
//! already decided something for that plane later; then at that later time: it cannot change
//! what the back end already decided (see docs/architecture.md, "The CCSD on the controller
//! back end").

use crate::config::SimConfig;
use crate::device::buffer::{Waiter, WriteBuffer};
use crate::device::sched::{Scheduler, NO_REQ};
use crate::engine::{Event, EventQueue};
use crate::error::Result;
use crate::ftl::packed::PackedBackend;
use crate::ftl::{FlashBackend, GcKind};
use crate::nand::Nand;
use crate::units::{BlockId, PlaneId, Ppn, SimTime};

/// The NAND array with its back end, write buffer and event queue.
pub struct Flash {
    /// The NAND array (timing, counters, wear).
    pub nand: Nand,
    sched: Scheduler,
    q: EventQueue,
    buffer: Option<WriteBuffer>,
    /// Completion of each host command the caller waits for, by tag (`None`: not yet).
    tags: Vec<Option<SimTime>>,
    /// Tags not yet completed.
    open: usize,
    /// When the page waiting for a buffer slot got one.
    granted: Option<SimTime>,
    now: SimTime,
    /// Time of the command being handed over.
    cur: SimTime,
}

impl Flash {
    /// An idle back end over `nand` for a validated config; `cfg.ftl.write_buffer_pages`
    /// page slots (0: writes complete when programmed).
    pub fn new(cfg: &SimConfig, nand: Nand) -> Result<Flash> {
        let mut sched = Scheduler::new(cfg, &nand)?;
        sched.allow_out_of_order();
        Ok(Flash {
            sched,
            q: EventQueue::new(),
            buffer: (cfg.ftl.write_buffer_pages > 0)
                .then(|| WriteBuffer::new(cfg.ftl.write_buffer_pages as usize)),
            tags: Vec::new(),
            open: 0,
            granted: None,
            now: SimTime::ZERO,
            cur: SimTime::ZERO,
            nand,
        })
    }

    /// Forget all timing and queued work (after an untimed fill); each plane's erased free
    /// blocks from `free`. NAND counters are the caller's to reset.
    pub fn reset(&mut self, free: impl Fn(PlaneId) -> u64) {
        self.sched.reset_with(free);
        self.q = EventQueue::new();
        if let Some(b) = self.buffer.as_mut() {
            b.reset();
        }
        self.tags.clear();
        self.open = 0;
        self.granted = None;
        self.now = SimTime::ZERO;
        self.cur = SimTime::ZERO;
    }

    /// Whether host writes are acknowledged from the write buffer.
    pub fn buffered(&self) -> bool {
        self.buffer.is_some()
    }

    /// A new command arrives at `t`: run every event up to it.
    pub fn begin(&mut self, t: SimTime) {
        self.run_to(t);
        self.cur = t;
    }

    /// The command's next step (a chunk in DRAM) at `t`, no earlier than its last.
    pub fn at(&mut self, t: SimTime) {
        self.run_to(t);
        self.cur = self.cur.max(t);
    }

    /// When work for `plane` handed over now is queued: the command's time, or the latest
    /// instant the back end already decided something for the plane.
    fn when(&mut self, plane: PlaneId) -> SimTime {
        self.sched.when(plane, self.cur)
    }

    /// The back end's own counters (suspensions, GC steps).
    pub fn sched(&self) -> &Scheduler {
        &self.sched
    }

    /// Whether no event is queued: nothing happens until a new command is handed over.
    pub fn idle(&self) -> bool {
        self.q.is_empty()
    }

    /// Run every event at or before `t`; the present becomes `t` if it was earlier.
    pub fn run_to(&mut self, t: SimTime) {
        while self.q.peek_time().is_some_and(|e| e <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Run the next event.
    fn step(&mut self) {
        let (t, ev) = self
            .q
            .pop()
            .expect("a CCSD waits for work its back end never queued");
        self.now = self.now.max(t);
        match ev {
            Event::Flash(plane, gen) => {
                self.sched
                    .on_timer(plane, gen, t, &mut self.nand, &mut self.q)
            }
            other => unreachable!("the CCSD's back end queued {other:?}"),
        }
        while let Some(pd) = self.sched.done.pop() {
            if pd.buffered {
                let buf = self
                    .buffer
                    .as_mut()
                    .expect("a buffered program has a buffer");
                if buf.release().is_some() {
                    self.granted = Some(pd.done);
                }
            } else if pd.req != NO_REQ {
                let slot = &mut self.tags[pd.req as usize];
                debug_assert!(slot.is_none(), "tag {} completed twice", pd.req);
                *slot = Some(pd.done);
                self.open -= 1;
            }
        }
        // The CCSD has no background GC (config validation).
        self.sched.idle.clear();
    }

    fn tag(&mut self) -> u32 {
        self.tags.push(None);
        self.open += 1;
        (self.tags.len() - 1) as u32
    }

    /// Queue a host read of `ppn` now; returns its tag.
    pub fn read(&mut self, ppn: Ppn) -> u32 {
        let tag = self.tag();
        let at = self.when(self.nand.geo.plane_of_ppn(ppn));
        self.sched
            .enqueue_read(ppn, false, tag, at, &mut self.nand, &mut self.q);
        tag
    }

    /// Queue a read of `ppn` now that no command waits for (a translation page's, demand-paged
    /// chunk map).
    pub fn read_untagged(&mut self, ppn: Ppn) {
        let at = self.when(self.nand.geo.plane_of_ppn(ppn));
        self.sched
            .enqueue_read(ppn, false, NO_REQ, at, &mut self.nand, &mut self.q);
    }

    /// Run until every tagged command has completed (the caller needs their times).
    pub fn wait(&mut self) {
        while self.open > 0 {
            self.step();
        }
    }

    /// When tagged command `tag` completed (after [`Flash::wait`]): its data at the
    /// controller (read) or programmed (program).
    pub fn done(&self, tag: u32) -> SimTime {
        self.tags[tag as usize].expect("waited for")
    }

    /// Completion of the latest tagged command, and forget the tags (after [`Flash::wait`]).
    pub fn take_last_done(&mut self) -> Option<SimTime> {
        debug_assert_eq!(self.open, 0);
        let last = self.tags.iter().flatten().max().copied();
        self.tags.clear();
        last
    }

    /// Forget the tags (after [`Flash::wait`]).
    pub fn clear_tags(&mut self) {
        debug_assert_eq!(self.open, 0);
        self.tags.clear();
    }
}

impl FlashBackend for Flash {
    #[inline]
    fn least_loaded(&mut self, id: usize, order: &[PlaneId], from: usize) -> usize {
        self.sched.least_loaded(id, order, from)
    }

    fn gc_job(&mut self, victim: BlockId, moves: &[(Ppn, Ppn)], copyback: bool, kind: GcKind) {
        let at = self.when(self.nand.geo.plane_of_block(victim));
        self.sched
            .backend(&mut self.nand, &mut self.q, at)
            .gc_job(victim, moves, copyback, kind);
    }

    fn block_opened(&mut self, block: BlockId) {
        let at = self.when(self.nand.geo.plane_of_block(block));
        self.sched
            .backend(&mut self.nand, &mut self.q, at)
            .block_opened(block);
    }

    #[inline]
    fn programs_in_flight(&self) -> Option<&[u16]> {
        Some(self.sched.programs_in_flight())
    }
}

impl PackedBackend for Flash {
    fn buffer_slot(&mut self) -> Option<SimTime> {
        let w = Waiter {
            req: NO_REQ,
            ppn: Ppn::NONE,
            since: self.cur,
        };
        if self.buffer.as_mut()?.arrive(w) {
            return Some(self.cur);
        }
        // Full: run ahead until a buffered program completes and hands its slot over.
        loop {
            self.step();
            if let Some(t) = self.granted.take() {
                self.cur = self.cur.max(t);
                return Some(self.cur);
            }
        }
    }

    fn program_host(&mut self, ppn: Ppn) {
        self.sched.program_allocated(ppn);
        let buffered = self.buffer.is_some();
        let req = if buffered { NO_REQ } else { self.tag() };
        let at = self.when(self.nand.geo.plane_of_ppn(ppn));
        self.sched
            .enqueue_program(ppn, req, buffered, at, &mut self.nand, &mut self.q);
    }

    fn write_back_map(&mut self, old: Option<Ppn>, new: Ppn) {
        // Both queued now: the back end has no chaining of one command after another.
        if let Some(old) = old {
            self.read_untagged(old);
        }
        self.sched.program_allocated(new);
        let at = self.when(self.nand.geo.plane_of_ppn(new));
        self.sched
            .enqueue_program(new, NO_REQ, false, at, &mut self.nand, &mut self.q);
    }
}
