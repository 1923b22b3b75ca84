//! The controller's flash back end: a command queue per plane, channels arbitrated one page
//! transfer at a time, a scheduling policy, program/erase suspension for reads, and GC run in
//! bounded steps between host commands.
//!
//! The FTL decides (mapping, allocation, GC victims) when a request reaches the controller;
//! this module decides *when* each resulting flash operation runs. Every decision is taken at
//! the simulated instant it would be taken in a controller, from what is queued then, so the
//! schedule is exact: a plane that finishes an operation picks its next command at that
//! nanosecond; a channel is requested when a transfer is about to happen and granted first
//! come first served (requests are made in time order, so "free at" arithmetic on the
//! channel is that FIFO). Ties are broken by event order, which is deterministic.
//!
//! - **Queues** per plane: host reads, host programs, GC operations. A plane runs one
//!   operation at a time; a read holds it until its data has left on the channel (one page
//!   register).
//! - **Policies** ([`SchedPolicy`]): `fcfs` serves queued commands in arrival order;
//!   `read_first` serves reads first unless a program or GC step has waited `starvation_us`.
//! - **Suspension** (Wu & He, FAST '12): a read arriving while its plane programs or erases
//!   suspends that operation `*_suspend_us` later, is served (with any other queued reads),
//!   and the operation resumes with `resume_us` of extra array time, at most `max_per_op`
//!   times per operation.
//! - **GC steps** (Lee et al., ISPASS 2011): a GC job (one victim: its migrations, then its
//!   erase) runs in steps of `step_pages` migrations, the erase a step of its own. With
//!   `preemptible` GC (and always for background GC) queued host commands go before the next
//!   step while the plane has more than `hard_floor` erased free blocks; at or below the
//!   floor GC does not yield. A non-preemptible job, once started, runs to its end (reads
//!   may still suspend its programs and erase).
//! - A program never lands in a block whose erase is still queued: such a host program waits
//!   (and GC, which owns that erase, then runs). GC never takes a block with host programs
//!   allocated and not yet started ([`FlashBackend::programs_in_flight`]), so a waiting
//!   program always belongs to the block's next life; debug builds check every program
//!   against the life of its block it was allocated in.
//!
//! Known simplification: programs of one block may run out of page order when host writes
//! and GC migrations share an open block and the policy reorders them.
//!
//! Files: `dispatch` (a plane's timer, the policy's pick, suspension and resume), `gc` (GC
//! steps), `channel` (channel arbitration), `plane` (a plane's queues and the operation under
//! way), `load` (activity ends and the least-busy search), `hash` (the dedup hash engine).

mod channel;
mod dispatch;
mod gc;
mod hash;
mod load;
mod plane;

pub use hash::HashEngine;

use crate::config::{SchedPolicy, SimConfig};
use crate::engine::EventQueue;
use crate::error::Result;
use crate::ftl::{FlashBackend, Ftl, GcKind};
use crate::nand::{Geometry, Nand};
use crate::units::{duration_ns, BlockId, PlaneId, Ppn, SimTime, MAX_OP_NS, MAX_PERIOD_NS};
use load::Loads;
use plane::{Act, HostCmd, Plane, NEVER, NONE};

pub use plane::Split;

/// Counters owned by the back end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchedCounters {
    /// Programs suspended for reads.
    pub program_suspensions: u64,
    /// Erases suspended for reads.
    pub erase_suspensions: u64,
    /// Reads served while their plane had an operation suspended.
    pub reads_during_suspension: u64,
    /// GC jobs (victim blocks) queued.
    pub gc_jobs: u64,
    /// GC steps run (a step: up to `step_pages` migrations, or an erase).
    pub gc_steps: u64,
    /// GC steps that ran with the plane at or below its hard floor of erased free blocks.
    pub gc_steps_at_floor: u64,
    /// `read_first`: times a program or GC step that had waited `starvation_us` went before
    /// a queued read.
    pub starvation_promotions: u64,
    /// Host programs that had to wait for their block's queued erase.
    pub programs_waiting_for_erase: u64,
    /// Block erases of zone resets queued (a zoned device; not GC jobs).
    pub zone_reset_erases: u64,
}

/// A page operation of a host request that finished.
#[derive(Debug, Clone, Copy)]
pub struct PageDone {
    /// Request slot of the device ([`NO_REQ`] for a buffered program).
    pub req: u32,
    /// When its data is at the controller (read) or programmed (program).
    pub done: SimTime,
    /// How its wait before dispatch divides.
    pub split: Split,
    /// A buffered program: frees a write-buffer slot.
    pub buffered: bool,
}

/// "No request": a program acknowledged from the write buffer.
pub const NO_REQ: u32 = NONE;

#[derive(Debug, Clone, Copy)]
struct Params {
    policy: SchedPolicy,
    starvation_ns: u64,
    ecc_ns: u64,
    suspend: bool,
    program_suspend_ns: u64,
    erase_suspend_ns: u64,
    resume_ns: u64,
    max_suspends: u32,
    preemptible: bool,
    step_pages: u32,
    floor_blocks: u32,
    background: bool,
}

impl Params {
    /// Whether a GC job is queued whole (one entry, durations summed once): nothing can cut
    /// into it (fcfs, no suspension, non-preemptible foreground GC, copyback).
    fn whole_job(&self, copyback: bool, background: bool) -> bool {
        copyback
            && !background
            && self.policy == SchedPolicy::Fcfs
            && !self.suspend
            && !self.preemptible
    }
}

/// Program time of a GC destination; a page read out only for its hash has none.
#[inline]
fn program_ns(nand: &Nand, dst: Ppn) -> u64 {
    if dst == Ppn::NONE {
        0
    } else {
        nand.program_ns(dst)
    }
}

/// Read time of a GC source; a program of data already in controller memory (the CCSD's
/// re-packed GC pages) has none.
#[inline]
fn read_ns(nand: &Nand, src: Ppn) -> u64 {
    if src == Ppn::NONE {
        0
    } else {
        nand.read_ns(src)
    }
}

/// A per-operation config duration in microseconds, checked ([`duration_ns`]).
fn ns(key: &str, us: f64) -> Result<u64> {
    duration_ns(key, us, 1e3, MAX_OP_NS)
}

/// The back end of the plain SSD's controller.
pub struct Scheduler {
    p: Params,
    geo: Geometry,
    planes: Vec<Plane>,
    /// Each plane's activity end and queued time, with the least-busy search over them.
    loads: Loads,
    chan_free: Vec<SimTime>,
    /// Per channel, when channel requests may come out of time order (a back end advanced
    /// lazily, the CCSD's): its recent transfers (start, end), sorted, so that a transfer
    /// requested at an earlier time takes the first gap that fits instead of queueing behind
    /// transfers booked while the back end ran ahead. `None`: requests come in time order.
    chan_busy: Option<Vec<std::collections::VecDeque<(SimTime, SimTime)>>>,
    /// Per plane, when commands may come out of time order (the same lazily advanced back
    /// ends): the latest instant at which the back end decided something for the plane. Work
    /// handed over for the plane at an earlier time is queued then instead ([`Scheduler::when`]):
    /// it cannot change what was already decided. Empty: commands come in time order.
    decided: Vec<SimTime>,
    /// Per block: erases queued and not yet run (a host program into the block waits while
    /// there are any: GC never takes a block with host programs in flight, so those are all
    /// programs of the block's next life).
    erases_queued: Vec<u8>,
    /// Per block: on its plane's free list with an erase still queued (not counted in
    /// `erased_free` until the erase runs).
    free_unerased: Vec<bool>,
    /// Per block: host programs allocated there and not yet started (GC skips such blocks).
    in_flight: Vec<u16>,
    /// Debug builds: every program runs in the life of its block it was allocated in.
    #[cfg(debug_assertions)]
    lives: Lives,
    seq: u64,
    now: SimTime,
    xfer_ns: u64,
    /// The hash engine (`ftl.dedup`); in gc mode GC reads out pages to it.
    pub hash: Option<HashEngine>,
    /// Dedup in GC: a migrated page goes back in only once its hash is known.
    gc_hash: bool,
    /// Page operations of host requests that finished since the caller last drained this.
    pub done: Vec<PageDone>,
    /// Planes that went idle with nothing queued (for background GC), since last drained.
    pub idle: Vec<PlaneId>,
    /// Counters since the last reset.
    pub counters: SchedCounters,
}

impl Scheduler {
    /// An idle back end for a validated config; an error names a duration that does not fit.
    pub fn new(cfg: &SimConfig, nand: &Nand) -> Result<Scheduler> {
        let geo = &nand.geo;
        let c = &cfg.controller;
        let g = &cfg.ftl.gc;
        let hash = match cfg.ftl.dedup() {
            Some(d) => Some(HashEngine::new(
                ns("ftl.dedup.hash_us", d.hash_us)?,
                d.hash_lanes,
            )),
            None => None,
        };
        Ok(Scheduler {
            p: Params {
                policy: c.scheduler,
                // A period, not an operation: only compared with waits.
                starvation_ns: duration_ns(
                    "controller.starvation_us",
                    c.starvation_us,
                    1e3,
                    MAX_PERIOD_NS,
                )?,
                ecc_ns: ns("controller.ecc_decode_us", c.ecc_decode_us)?,
                suspend: c.suspend.enabled,
                program_suspend_ns: ns(
                    "controller.suspend.program_suspend_us",
                    c.suspend.program_suspend_us,
                )?,
                erase_suspend_ns: ns(
                    "controller.suspend.erase_suspend_us",
                    c.suspend.erase_suspend_us,
                )?,
                resume_ns: ns("controller.suspend.resume_us", c.suspend.resume_us)?,
                max_suspends: c.suspend.max_per_op,
                preemptible: g.preemptible,
                step_pages: g.step_pages,
                floor_blocks: (g.hard_floor * cfg.nand.blocks_per_plane as f64).ceil() as u32,
                background: g.background,
            },
            planes: (0..geo.planes).map(|_| Plane::new()).collect(),
            loads: Loads::new(geo.planes as usize),
            chan_free: vec![SimTime::ZERO; geo.channels as usize],
            chan_busy: None,
            decided: Vec::new(),
            erases_queued: vec![0; geo.blocks as usize],
            free_unerased: vec![false; geo.blocks as usize],
            in_flight: vec![0; geo.blocks as usize],
            #[cfg(debug_assertions)]
            lives: Lives::new(geo),
            seq: 0,
            now: SimTime::ZERO,
            xfer_ns: nand.xfer_ns(),
            hash,
            gc_hash: cfg
                .ftl
                .dedup()
                .is_some_and(|d| d.mode == crate::config::DedupMode::Gc),
            done: Vec::new(),
            idle: Vec::new(),
            counters: SchedCounters::default(),
            geo: geo.clone(),
        })
    }

    /// Whether GC hashes the pages it reads out (dedup in GC).
    pub fn gc_hashes(&self) -> bool {
        self.gc_hash
    }

    /// Forget all timing (after preconditioning) and take the free-block counts from `ftl`.
    pub fn reset(&mut self, ftl: &Ftl) {
        self.reset_with(|p| ftl.free_in_plane(p) as u64);
    }

    /// Forget all timing and take each plane's erased free blocks from `free` (an FTL other
    /// than the page FTL: the CCSD's packed one).
    pub fn reset_with(&mut self, free: impl Fn(PlaneId) -> u64) {
        for (i, pl) in self.planes.iter_mut().enumerate() {
            let gen = pl.gen;
            *pl = Plane::new();
            // Timers of an earlier life must stay stale.
            pl.gen = gen.wrapping_add(1);
            pl.erased_free = free(PlaneId(i as u32)) as u32;
        }
        self.loads.reset();
        self.chan_free.iter_mut().for_each(|t| *t = SimTime::ZERO);
        if let Some(b) = self.chan_busy.as_mut() {
            b.iter_mut().for_each(|c| c.clear());
        }
        self.decided.iter_mut().for_each(|t| *t = SimTime::ZERO);
        self.erases_queued.iter_mut().for_each(|s| *s = 0);
        self.free_unerased.iter_mut().for_each(|s| *s = false);
        self.in_flight.iter_mut().for_each(|s| *s = 0);
        #[cfg(debug_assertions)]
        {
            self.lives = Lives::new(&self.geo);
        }
        self.now = SimTime::ZERO;
        self.done.clear();
        self.idle.clear();
        self.counters = SchedCounters::default();
        if let Some(h) = self.hash.as_mut() {
            h.reset();
        }
    }

    /// Commands may be handed over out of time order (a back end advanced lazily, run ahead
    /// to give a synchronous caller a completion time: the CCSD's, the zoned disk under the
    /// storage stack). A channel request takes the first gap that fits on its channel at or
    /// after its time; work for a plane is queued at its time unless the back end already
    /// decided something for that plane later, then at that later time ([`Scheduler::when`]).
    pub fn allow_out_of_order(&mut self) {
        self.chan_busy = Some(vec![Default::default(); self.chan_free.len()]);
        self.decided = vec![SimTime::ZERO; self.planes.len()];
    }

    /// When work for `plane` handed over at `t` is queued: `t`, or (out of order) the latest
    /// instant the back end already decided something for the plane, which becomes the
    /// plane's latest decision.
    #[inline]
    pub fn when(&mut self, plane: PlaneId, t: SimTime) -> SimTime {
        match self.decided.get_mut(plane.0 as usize) {
            Some(d) => {
                *d = (*d).max(t);
                *d
            }
            None => t,
        }
    }

    /// Per block, host programs allocated there and not yet started.
    pub fn programs_in_flight(&self) -> &[u16] {
        &self.in_flight
    }

    /// Whether a plane has queued or running GC work (tests and statistics).
    pub fn plane_has_gc(&self, plane: PlaneId) -> bool {
        self.planes[plane.0 as usize].has_gc()
    }

    /// When the last flash operation ended (at the end of a run: when the flash went quiet).
    pub fn last_activity(&self) -> SimTime {
        self.loads.last_until()
    }

    /// Whether every queue is empty and every plane idle (end of run).
    pub fn quiescent(&self) -> bool {
        self.planes
            .iter()
            .all(|p| p.queues_empty() && p.act == Act::Idle)
    }

    /// The FTL's view of the back end at `now`, for calls that may queue GC work.
    pub fn backend<'a>(
        &'a mut self,
        nand: &'a mut Nand,
        q: &'a mut EventQueue,
        now: SimTime,
    ) -> Backend<'a> {
        self.now = now;
        Backend {
            s: self,
            nand,
            q,
            now,
        }
    }

    #[inline]
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    #[inline]
    fn host_cmd(
        &mut self,
        pi: usize,
        ppn: Ppn,
        req: u32,
        buffered: bool,
        partial: bool,
        now: SimTime,
    ) -> HostCmd {
        let seq = self.next_seq();
        let pl = &self.planes[pi];
        HostCmd {
            ppn,
            req,
            ready: now,
            seq,
            gc_snap: pl.gc_accrued(now),
            epoch: pl.epoch,
            had_gc: pl.has_gc(),
            buffered,
            partial,
        }
    }

    /// The FTL allocated `ppn` to a host write whose program will be queued later: until it
    /// starts, GC does not take its block as a victim.
    #[inline]
    pub fn program_allocated(&mut self, ppn: Ppn) {
        self.unit_allocated(ppn, 1);
    }

    /// [`Scheduler::program_allocated`] for the `pages` NAND pages of one mapping unit, from
    /// `first` on: one block holds them all, so its block is found once.
    #[inline]
    pub fn unit_allocated(&mut self, first: Ppn, pages: u32) {
        let b = self.geo.block_of(first).0 as usize;
        #[cfg(debug_assertions)]
        for j in 0..pages as u64 {
            let ppn = Ppn(first.0 + j);
            debug_assert_eq!(self.geo.block_of(ppn).0 as usize, b, "a unit spans blocks");
            self.lives.allocated(ppn, b);
        }
        self.in_flight[b] = u16::try_from(pages)
            .ok()
            .and_then(|n| self.in_flight[b].checked_add(n))
            .expect("more programs in flight in one block than a u16 counts");
    }

    /// Whether host programs allocated in block `b` have not started yet.
    #[inline]
    pub fn programs_pending(&self, b: BlockId) -> bool {
        self.in_flight[b.0 as usize] != 0
    }

    /// Queue a host read of `ppn` (`partial`: of one unit of it) for request `req`, arriving
    /// at `now`.
    pub fn enqueue_read(
        &mut self,
        ppn: Ppn,
        partial: bool,
        req: u32,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let now = self.when(self.geo.plane_of_ppn(ppn), now);
        self.now = now;
        let pi = self.geo.plane_of_ppn(ppn).0 as usize;
        let cmd = self.host_cmd(pi, ppn, req, false, partial, now);
        if self.free_now(pi, now) {
            self.start_read(pi, cmd, now, nand, q);
            return;
        }
        let pl = &mut self.planes[pi];
        pl.reads.push_back(cmd);
        self.loads.add_queued(pi, nand.read_ns_as(ppn, partial));
        self.maybe_suspend(pi, now, q);
        self.kick(pi, now, nand, q);
    }

    /// Plane `pi` is idle at `now` with nothing queued: a command can start at once.
    #[inline]
    fn free_now(&self, pi: usize, now: SimTime) -> bool {
        let pl = &self.planes[pi];
        pl.act == Act::Idle && pl.timer == NEVER && self.loads.until(pi) <= now && pl.queues_empty()
    }

    /// Queue a host program of `ppn` (data at the controller at `now`) for request `req`;
    /// `buffered`: the request was already acknowledged from the write buffer.
    pub fn enqueue_program(
        &mut self,
        ppn: Ppn,
        req: u32,
        buffered: bool,
        now: SimTime,
        nand: &mut Nand,
        q: &mut EventQueue,
    ) {
        let now = self.when(self.geo.plane_of_ppn(ppn), now);
        self.now = now;
        let pi = self.geo.plane_of_ppn(ppn).0 as usize;
        let cmd = self.host_cmd(pi, ppn, req, buffered, false, now);
        if self.erases_queued[self.geo.block_of(ppn).0 as usize] != 0 {
            self.counters.programs_waiting_for_erase += 1;
        } else if self.free_now(pi, now) {
            self.start_program(pi, cmd, now, nand, q);
            return;
        }
        let pl = &mut self.planes[pi];
        pl.writes.push_back(cmd);
        self.loads.add_queued(pi, nand.program_ns(ppn));
        self.kick(pi, now, nand, q);
    }

    /// Of the planes `order` (the FTL's order number `id`: always the same planes for one
    /// number) walked round from index `from`, the index of the one whose running and queued
    /// work ends first by nominal durations (the first met of equals); O(log planes).
    pub fn least_loaded(&mut self, id: usize, order: &[PlaneId], from: usize) -> usize {
        self.loads.least_loaded(id, order, from, self.now)
    }
}

/// Debug builds: the life of each block (erases queued, erases done) and the lives each page
/// was allocated in, oldest first, so a program that would land in another life of its block
/// (before the erase it must follow, or after the erase it must precede) is caught where it
/// starts. A page can be allocated again (in its block's next life) before its previous
/// program has run: those wait in `more`.
#[cfg(debug_assertions)]
struct Lives {
    queued: Vec<u32>,
    done: Vec<u32>,
    alloc: Vec<u32>,
    more: std::collections::BTreeMap<u64, std::collections::VecDeque<u32>>,
}

#[cfg(debug_assertions)]
impl Lives {
    const FREE: u32 = u32::MAX;

    fn new(g: &Geometry) -> Lives {
        Lives {
            queued: vec![0; g.blocks as usize],
            done: vec![0; g.blocks as usize],
            alloc: vec![Self::FREE; g.pages as usize],
            more: Default::default(),
        }
    }

    fn allocated(&mut self, ppn: Ppn, b: usize) {
        let life = self.queued[b];
        let slot = &mut self.alloc[ppn.0 as usize];
        if *slot == Self::FREE {
            *slot = life;
        } else {
            self.more.entry(ppn.0).or_default().push_back(life);
        }
    }

    fn programs(&mut self, ppn: Ppn, b: usize) {
        let p = ppn.0 as usize;
        assert_ne!(
            self.alloc[p],
            Self::FREE,
            "page {} programmed, never allocated",
            ppn.0
        );
        assert_eq!(
            self.alloc[p], self.done[b],
            "page {} allocated in life {} of block {b} is programmed in life {}",
            ppn.0, self.alloc[p], self.done[b]
        );
        self.alloc[p] = match self.more.get_mut(&ppn.0) {
            Some(q) => {
                let next = q.pop_front().expect("no empty queues are kept");
                if q.is_empty() {
                    self.more.remove(&ppn.0);
                }
                next
            }
            None => Self::FREE,
        };
    }
}

/// The back end as the FTL sees it during one call.
pub struct Backend<'a> {
    s: &'a mut Scheduler,
    nand: &'a mut Nand,
    q: &'a mut EventQueue,
    now: SimTime,
}

impl FlashBackend for Backend<'_> {
    #[inline]
    fn least_loaded(&mut self, id: usize, order: &[PlaneId], from: usize) -> usize {
        self.s.least_loaded(id, order, from)
    }

    fn gc_job(&mut self, victim: BlockId, moves: &[(Ppn, Ppn)], copyback: bool, kind: GcKind) {
        let s = &mut *self.s;
        let background = kind == GcKind::Background;
        let whole = s.p.whole_job(copyback, background);
        #[cfg(debug_assertions)]
        {
            // (A job queued whole runs in FIFO order as one stretch; its pages are not
            // tracked one by one.)
            for &(_, dst) in moves.iter().filter(|m| !whole && m.1 != Ppn::NONE) {
                s.lives.allocated(dst, s.geo.block_of(dst).0 as usize);
            }
            s.lives.queued[victim.0 as usize] += 1;
        }
        let seq = s.next_seq();
        let pi = s.geo.plane_of_block(victim).0 as usize;
        let now = s.when(PlaneId(pi as u32), self.now);
        {
            let pl = &mut s.planes[pi];
            if !pl.has_gc() {
                pl.gc_since = now;
            }
            if whole {
                // Nothing can cut into it: one entry, its durations summed once.
                let batch = self.nand.copyback_batch(moves);
                pl.whole.push_back(batch);
                s.loads.add_queued(pi, batch.ns + self.nand.erase_ns());
            } else {
                let mut queued = 0;
                for &(src, dst) in moves {
                    queued += read_ns(self.nand, src) + program_ns(self.nand, dst);
                }
                queued += self.nand.erase_ns();
                s.loads.add_queued(pi, queued);
            }
            pl.gc
                .push_job(victim, moves, whole, seq, background, copyback);
            pl.epoch = pl.epoch.wrapping_add(1);
        }
        let v = victim.0 as usize;
        s.erases_queued[v] = s.erases_queued[v]
            .checked_add(1)
            .expect("255 erases of one block queued");
        s.free_unerased[v] = true;
        if kind == GcKind::ZoneReset {
            s.counters.zone_reset_erases += 1;
        } else {
            s.counters.gc_jobs += 1;
        }
        s.kick(pi, now, self.nand, self.q);
    }

    #[inline]
    fn programs_in_flight(&self) -> Option<&[u16]> {
        Some(&self.s.in_flight)
    }

    #[inline]
    fn block_opened(&mut self, block: BlockId) {
        let s = &mut *self.s;
        let b = block.0 as usize;
        if s.free_unerased[b] {
            s.free_unerased[b] = false;
        } else {
            let pi = s.geo.plane_of_block(block).0 as usize;
            let pl = &mut s.planes[pi];
            pl.erased_free = pl
                .erased_free
                .checked_sub(1)
                .expect("opened a block the back end did not count as free");
        }
    }
}

#[cfg(test)]
mod tests;
