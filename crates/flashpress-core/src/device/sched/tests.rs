//! The back end against timelines worked out by hand from the tiny preset's numbers:
//! SLC read 25 us, program 200 us, erase 1500 us, one page on the channel 10.24 us (4096 B at
//! 400 MB/s), planes 0 and 1 on channel 0.

use super::*;
use crate::config::SimConfig;
use crate::engine::{Event, EventQueue};
use crate::ftl::{FlashBackend, Ftl, GcKind};
use serde_json::json;

const XFER: u64 = 10_240;
const T_R: u64 = 25_000;
const T_P: u64 = 200_000;
const T_E: u64 = 1_500_000;

struct Rig {
    s: Scheduler,
    nand: Nand,
    q: EventQueue,
}

fn rig(over: serde_json::Value) -> Rig {
    let mut v = json!({"preset": "tiny"});
    if let (Some(b), Some(o)) = (v.as_object_mut(), over.as_object()) {
        for (k, x) in o {
            b.insert(k.clone(), x.clone());
        }
    }
    let cfg = SimConfig::from_value(v, "test", None).unwrap();
    let nand = Nand::new(&cfg.nand).unwrap();
    let ftl = Ftl::new(&cfg, &nand.geo, false);
    let mut s = Scheduler::new(&cfg, &nand).unwrap();
    s.reset(&ftl);
    Rig {
        s,
        nand,
        q: EventQueue::new(),
    }
}

fn controller(scheduler: &str, suspend: bool) -> serde_json::Value {
    json!({"controller": {"scheduler": scheduler, "starvation_us": 10000.0, "ecc_decode_us": 0.0,
        "suspend": {"enabled": suspend, "program_suspend_us": 100.0, "erase_suspend_us": 700.0,
                    "resume_us": 0.0, "max_per_op": 4}}})
}

impl Rig {
    /// Page `i` of block `b` of plane `p`.
    fn ppn(&self, p: u32, b: u32, i: u32) -> Ppn {
        let g = &self.nand.geo;
        Ppn(g.first_ppn_of_block(g.block(PlaneId(p), b)).0 + i as u64)
    }

    /// A host program of `ppn` for request `req`, allocated and queued at `t`.
    fn program(&mut self, ppn: Ppn, req: u32, t: SimTime) {
        self.s.program_allocated(ppn);
        self.s
            .enqueue_program(ppn, req, false, t, &mut self.nand, &mut self.q);
    }

    /// The FTL opened block `b` of plane 0.
    fn open_block(&mut self, b: u32) {
        let blk = self.nand.geo.block(PlaneId(0), b);
        let mut be = self.s.backend(&mut self.nand, &mut self.q, SimTime(0));
        be.block_opened(blk);
    }

    /// Run every event.
    fn run(&mut self) -> Vec<(u32, SimTime)> {
        let mut out = Vec::new();
        while let Some((t, ev)) = self.q.pop() {
            match ev {
                Event::Flash(p, g) => self.s.on_timer(p, g, t, &mut self.nand, &mut self.q),
                other => panic!("unexpected event {other:?}"),
            }
            out.extend(self.s.done.drain(..).map(|d| (d.req, d.done)));
        }
        out
    }

    /// Advance to `t` (processing earlier events), keeping finished pages.
    fn run_to(&mut self, t: SimTime, out: &mut Vec<(u32, SimTime)>) {
        while self.q.peek_time().is_some_and(|x| x <= t) {
            let (at, ev) = self.q.pop().unwrap();
            if let Event::Flash(p, g) = ev {
                self.s.on_timer(p, g, at, &mut self.nand, &mut self.q);
            }
            out.extend(self.s.done.drain(..).map(|d| (d.req, d.done)));
        }
    }
}

fn done_of(out: &[(u32, SimTime)], req: u32) -> u64 {
    out.iter()
        .find(|(r, _)| *r == req)
        .unwrap_or_else(|| panic!("request {req} never finished: {out:?}"))
        .1
         .0
}

#[test]
fn a_read_on_an_idle_plane_takes_sense_transfer_and_ecc() {
    let mut over = controller("read_first", true);
    over["controller"]["ecc_decode_us"] = json!(7.0);
    let mut r = rig(over);
    let ppn = r.ppn(0, 3, 5);
    r.s.enqueue_read(ppn, false, 1, SimTime(1_000), &mut r.nand, &mut r.q);
    r.s.done.clear();
    let out = r.run();
    assert_eq!(done_of(&out, 1), 1_000 + T_R + XFER + 7_000);
    assert_eq!(r.nand.counters.reads, 1);
    assert_eq!(r.nand.counters.array_busy_ns, T_R);
}

#[test]
fn reads_of_two_planes_on_one_channel_queue_for_the_bus_only() {
    let mut r = rig(controller("fcfs", false));
    let (a, b) = (r.ppn(0, 0, 0), r.ppn(1, 0, 0));
    r.s.enqueue_read(a, false, 1, SimTime(0), &mut r.nand, &mut r.q);
    r.s.enqueue_read(b, false, 2, SimTime(0), &mut r.nand, &mut r.q);
    let out = r.run();
    assert_eq!(done_of(&out, 1), T_R + XFER);
    assert_eq!(
        done_of(&out, 2),
        T_R + 2 * XFER,
        "the second waits for the channel"
    );
}

#[test]
fn a_read_suspends_a_program_and_the_program_resumes_with_its_remaining_time() {
    let mut r = rig(controller("read_first", true));
    let (w, rd) = (r.ppn(0, 0, 0), r.ppn(0, 5, 0));
    let mut out = Vec::new();
    r.program(w, 1, SimTime(0));
    r.run_to(SimTime(50_000), &mut out);
    r.s.enqueue_read(rd, false, 2, SimTime(50_000), &mut r.nand, &mut r.q);
    out.extend(r.run());
    // program: transfer 0..10.24 us, array from 10.24 us; the read at 50 us suspends it at
    // 150 us (100 us suspend latency) with 60.24 us left; the read senses 150..175 us and
    // moves out 175..185.24 us; the program resumes then and ends 60.24 us later.
    let suspend_at = 50_000 + 100_000;
    assert_eq!(done_of(&out, 2), suspend_at + T_R + XFER);
    let remaining = XFER + T_P - suspend_at;
    assert_eq!(done_of(&out, 1), suspend_at + T_R + XFER + remaining);
    assert_eq!(r.s.counters.program_suspensions, 1);
    // busy time and energy: the program's full array time once, plus the read
    assert_eq!(r.nand.counters.array_busy_ns, T_P + T_R);
}

#[test]
fn resume_latency_is_charged_as_array_time() {
    let mut over = controller("read_first", true);
    over["controller"]["suspend"]["resume_us"] = json!(5.0);
    let mut r = rig(over);
    let (w, rd) = (r.ppn(0, 0, 0), r.ppn(0, 5, 0));
    let mut out = Vec::new();
    r.program(w, 1, SimTime(0));
    r.run_to(SimTime(50_000), &mut out);
    r.s.enqueue_read(rd, false, 2, SimTime(50_000), &mut r.nand, &mut r.q);
    let e0 = r.nand.counters.program_energy_pj;
    out.extend(r.run());
    let remaining = XFER + T_P - 150_000;
    assert_eq!(done_of(&out, 1), 150_000 + T_R + XFER + 5_000 + remaining);
    assert_eq!(r.nand.counters.array_busy_ns, T_P + T_R + 5_000);
    // 3.3 V x 25 mA x 5 us
    assert_eq!(r.nand.counters.program_energy_pj - e0, 412_500);
}

#[test]
fn an_operation_that_would_end_before_the_suspend_point_is_not_suspended() {
    let mut r = rig(controller("read_first", true));
    let (w, rd) = (r.ppn(0, 0, 0), r.ppn(0, 5, 0));
    let mut out = Vec::new();
    r.program(w, 1, SimTime(0));
    // 150 us in, 60.24 us left: shorter than the 100 us suspend latency
    r.run_to(SimTime(150_000), &mut out);
    r.s.enqueue_read(rd, false, 2, SimTime(150_000), &mut r.nand, &mut r.q);
    out.extend(r.run());
    assert_eq!(done_of(&out, 1), XFER + T_P);
    assert_eq!(done_of(&out, 2), XFER + T_P + T_R + XFER);
    assert_eq!(r.s.counters.program_suspensions, 0);
}

#[test]
fn fcfs_serves_in_arrival_order_and_read_first_puts_reads_ahead() {
    for (policy, read_done) in [
        // fcfs: program 1 (0..210.24), program 3 (then), read 2 last
        ("fcfs", 2 * (XFER + T_P) + T_R + XFER),
        // read_first: the read goes as soon as program 1 ends
        ("read_first", XFER + T_P + T_R + XFER),
    ] {
        let mut r = rig(controller(policy, false));
        let (w1, w3, rd) = (r.ppn(0, 0, 0), r.ppn(0, 0, 1), r.ppn(0, 5, 0));
        r.program(w1, 1, SimTime(0));
        r.program(w3, 3, SimTime(1));
        r.s.enqueue_read(rd, false, 2, SimTime(2), &mut r.nand, &mut r.q);
        let mut out = r.run();
        out.extend(r.s.done.drain(..).map(|d| (d.req, d.done)));
        assert_eq!(done_of(&out, 2), read_done, "{policy}");
    }
}

#[test]
fn read_first_promotes_a_program_that_waited_past_the_starvation_bound() {
    let mut over = controller("read_first", false);
    over["controller"]["starvation_us"] = json!(60.0);
    let mut r = rig(over);
    let busy = r.ppn(0, 0, 0);
    let w = r.ppn(0, 0, 1);
    r.program(busy, 1, SimTime(0));
    r.program(w, 2, SimTime(0));
    for k in 0..10 {
        let rd = r.ppn(0, 5, k);
        r.s.enqueue_read(rd, false, 100 + k, SimTime(0), &mut r.nand, &mut r.q);
    }
    let out = r.run();
    // program 2 has waited 210.24 us > 60 us when program 1 ends: it goes before the reads
    assert_eq!(done_of(&out, 2), 2 * (XFER + T_P));
    assert_eq!(r.s.counters.starvation_promotions, 1);
    // without the bound it would have waited for all ten reads
    let mut r2 = rig(controller("read_first", false));
    r2.program(busy, 1, SimTime(0));
    r2.program(w, 2, SimTime(0));
    for k in 0..10 {
        let rd = r2.ppn(0, 5, k);
        r2.s.enqueue_read(rd, false, 100 + k, SimTime(0), &mut r2.nand, &mut r2.q);
    }
    let out2 = r2.run();
    assert_eq!(
        done_of(&out2, 2),
        (XFER + T_P) + 10 * (T_R + XFER) + XFER + T_P
    );
}

fn gc_job(r: &mut Rig, victim_block: u32, pages: u32) {
    let moves: Vec<(Ppn, Ppn)> = (0..pages)
        .map(|i| (r.ppn(0, victim_block, i), r.ppn(0, 40, i)))
        .collect();
    let victim = r.nand.geo.block(PlaneId(0), victim_block);
    let mut be = r.s.backend(&mut r.nand, &mut r.q, SimTime(0));
    be.gc_job(victim, &moves, true, GcKind::Foreground { first: true });
}

#[test]
fn preemptible_gc_lets_a_queued_write_in_after_each_step() {
    let mut over = controller("read_first", false);
    over["ftl"] = json!({"gc": {"preemptible": true, "step_pages": 4}});
    let mut r = rig(over);
    gc_job(&mut r, 7, 8);
    let w = r.ppn(0, 2, 0);
    r.program(w, 1, SimTime(1));
    let out = r.run();
    // first step: 4 copybacks of 225 us each, then the write
    assert_eq!(done_of(&out, 1), 4 * (T_R + T_P) + XFER + T_P);
    assert_eq!(
        r.s.counters.gc_steps, 3,
        "two migration steps and the erase"
    );
}

#[test]
fn non_preemptible_gc_runs_its_job_to_the_end_first() {
    let mut over = controller("read_first", false);
    over["ftl"] = json!({"gc": {"preemptible": false, "step_pages": 4}});
    let mut r = rig(over);
    gc_job(&mut r, 7, 8);
    let w = r.ppn(0, 2, 0);
    r.program(w, 1, SimTime(1));
    let out = r.run();
    assert_eq!(done_of(&out, 1), 8 * (T_R + T_P) + T_E + XFER + T_P);
    assert_eq!(r.nand.counters.gc_busy_ns, 8 * (T_R + T_P) + T_E);
}

#[test]
fn at_the_hard_floor_gc_stops_yielding() {
    let mut over = controller("read_first", false);
    // 64 blocks: a floor of 0.04 is 3 blocks
    over["ftl"] = json!({"gc": {"preemptible": true, "step_pages": 4, "hard_floor": 0.04}});
    let mut r = rig(over);
    // open blocks until only 3 erased free blocks are left in plane 0
    for b in 0..61 {
        r.open_block(b);
    }
    gc_job(&mut r, 7, 8);
    let w = r.ppn(0, 2, 0);
    r.program(w, 1, SimTime(1));
    let out = r.run();
    assert_eq!(done_of(&out, 1), 8 * (T_R + T_P) + T_E + XFER + T_P);
    assert_eq!(r.s.counters.gc_steps_at_floor, 3);
}

#[test]
fn a_program_into_a_block_whose_erase_is_queued_waits_for_the_erase() {
    let mut over = controller("read_first", false);
    over["ftl"] = json!({"gc": {"preemptible": true, "step_pages": 4}});
    let mut r = rig(over);
    gc_job(&mut r, 7, 8);
    // the FTL reopened the victim (still erase pending) and writes its first page
    r.open_block(7);
    let w = r.ppn(0, 7, 0);
    r.program(w, 1, SimTime(1));
    let out = r.run();
    assert_eq!(done_of(&out, 1), 8 * (T_R + T_P) + T_E + XFER + T_P);
    assert_eq!(r.s.counters.programs_waiting_for_erase, 1);
}

#[test]
fn a_read_suspends_a_gc_erase() {
    let mut over = controller("read_first", true);
    over["ftl"] = json!({"gc": {"preemptible": true, "step_pages": 4}});
    let mut r = rig(over);
    gc_job(&mut r, 7, 0); // nothing to migrate: just the erase, 0..1500 us
    let mut out = Vec::new();
    r.run_to(SimTime(100_000), &mut out);
    let rd = r.ppn(0, 5, 0);
    r.s.enqueue_read(rd, false, 2, SimTime(100_000), &mut r.nand, &mut r.q);
    out.extend(r.run());
    // suspended at 800 us (700 us erase suspend latency), read 800..835.24 us
    assert_eq!(done_of(&out, 2), 800_000 + T_R + XFER);
    assert_eq!(r.s.counters.erase_suspensions, 1);
    assert!(r.s.quiescent());
    assert_eq!(r.nand.counters.erases, 1);
}

#[test]
fn a_write_waiting_for_its_blocks_erase_lends_its_age_to_gc_under_the_starvation_bound() {
    let mut over = controller("read_first", false); // starvation_us = 10000
    over["ftl"] = json!({"gc": {"preemptible": true, "step_pages": 4}});
    let mut r = rig(over);
    // 1000 reads queued on plane 0 at t = 0: 35.24 ms of plane time
    for k in 0..1000u32 {
        let rd = r.ppn(0, 10 + k / 32, k % 32);
        r.s.enqueue_read(rd, false, 100 + k, SimTime(0), &mut r.nand, &mut r.q);
    }
    gc_job(&mut r, 7, 8);
    r.open_block(7);
    // a program into the reopened victim (waits for its erase), then one elsewhere
    for (ppn, req) in [(r.ppn(0, 7, 0), 1), (r.ppn(0, 2, 0), 2)] {
        r.program(ppn, req, SimTime(0));
    }
    let out = r.run();
    let last_read = (0..1000).map(|k| done_of(&out, 100 + k)).max().unwrap();
    // Without the bound both would wait for all 1000 reads (35.24 ms). With it, once the
    // blocked write has waited 10 ms, GC's operations go one at a time between reads until
    // the erase (8 copybacks and the erase: 3.3 ms of plane time), then the writes.
    assert!(done_of(&out, 1) < 20_000_000, "{}", done_of(&out, 1));
    assert!(done_of(&out, 2) < 20_000_000, "{}", done_of(&out, 2));
    assert!(last_read > done_of(&out, 2));
    assert!(r.s.counters.starvation_promotions >= 9);
}

#[test]
fn a_program_that_starts_with_reads_waiting_is_suspended_for_them() {
    let mut r = rig(controller("fcfs", true));
    let (r1, w, r2) = (r.ppn(0, 5, 0), r.ppn(0, 0, 0), r.ppn(0, 5, 1));
    r.s.enqueue_read(r1, false, 1, SimTime(0), &mut r.nand, &mut r.q);
    r.program(w, 2, SimTime(1));
    r.s.enqueue_read(r2, false, 3, SimTime(2), &mut r.nand, &mut r.q);
    let out = r.run();
    // read 1: 0..35.24 us; the program (first in line) moves its data 35.24..45.48 us and
    // programs from 45.48 us; read 2, already waiting, suspends it 100 us into the array
    // phase at 145.48 us and is out at 180.72 us; the program's last 100 us follow.
    let first_read = T_R + XFER;
    let suspend_at = first_read + XFER + 100_000;
    assert_eq!(done_of(&out, 3), suspend_at + T_R + XFER);
    assert_eq!(
        done_of(&out, 2),
        suspend_at + T_R + XFER + (first_read + XFER + T_P - suspend_at)
    );
    assert_eq!(r.s.counters.program_suspensions, 1);
}
