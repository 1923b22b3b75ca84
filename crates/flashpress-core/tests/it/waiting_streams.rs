//! Closed-loop streams that do not only issue and wait (Filebench's threads): asynchronous
//! requests, draining, think times, and one stream waking another.

use crate::support::config;
use flashpress_core::error::Result;
use flashpress_core::sim::Simulation;
use flashpress_core::units::SimTime;
use flashpress_core::workload::{
    ContentHints, Drive, Next, Op, Request, RequestSource, Stream, NO_FILE,
};
use std::sync::{Arc, Mutex};

/// One scripted step.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A 4 KiB write at this page, waited for.
    Sync(u64),
    /// A 4 KiB write at this page, not waited for.
    Async(u64),
    Drain(u32),
    /// Wait until this absolute time (ns) unless woken.
    Until(u64),
    /// Wake this stream.
    Wake(u32),
}

/// Plays its steps in order; logs the time of every call.
struct Script {
    steps: Vec<Step>,
    at: usize,
    log: Arc<Mutex<Vec<(usize, u64)>>>,
    woken: Vec<u32>,
}

fn write(page: u64, now: SimTime) -> Request {
    Request {
        time: now,
        op: Op::Write,
        offset: page * 4096,
        len: 4096,
        content: 0,
        file: NO_FILE,
        attrs: Default::default(),
        placement: None,
    }
}

impl RequestSource for Script {
    fn next_request(&mut self, _now: SimTime) -> Result<Option<Request>> {
        unreachable!("the host asks closed-loop streams through next()")
    }

    fn next(&mut self, now: SimTime) -> Result<Next> {
        loop {
            self.log.lock().unwrap().push((self.at, now.0));
            let Some(&s) = self.steps.get(self.at) else {
                return Ok(Next::Done);
            };
            self.at += 1;
            return Ok(match s {
                Step::Sync(p) => Next::Issue(write(p, now)),
                Step::Async(p) => Next::IssueAsync(write(p, now)),
                Step::Drain(n) => Next::Drain(n),
                Step::Until(t) => {
                    if now.0 < t {
                        // Asked early (woken): this step is done.
                        Next::Wait(SimTime(t))
                    } else {
                        continue;
                    }
                }
                Step::Wake(j) => {
                    self.woken.push(j);
                    continue;
                }
            });
        }
    }

    fn take_woken(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.woken);
    }
}

fn stream(steps: Vec<Step>, log: &Arc<Mutex<Vec<(usize, u64)>>>) -> Stream {
    Stream {
        name: "script".into(),
        source: Box::new(Script {
            steps,
            at: 0,
            log: Arc::clone(log),
            woken: Vec::new(),
        }),
        drive: Drive::Closed { depth: 1 },
        group: 0,
        content: ContentHints::default(),
        layout_bytes: 0,
    }
}

/// Times (ns) at which the script was asked for each step index.
fn asked(log: &Arc<Mutex<Vec<(usize, u64)>>>, step: usize) -> Vec<u64> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(s, _)| *s == step)
        .map(|(_, t)| *t)
        .collect()
}

#[test]
fn async_requests_do_not_hold_the_stream_and_drain_waits_for_them() {
    let cfg = config("preset = \"tiny\"\n");
    let log = Arc::new(Mutex::new(Vec::new()));
    // Four async writes, drain to none in flight, then one synchronous write.
    let steps = vec![
        Step::Async(0),
        Step::Async(8),
        Step::Async(16),
        Step::Async(24),
        Step::Drain(0),
        Step::Sync(32),
    ];
    let rep = Simulation::with_streams(cfg, vec![stream(steps, &log)])
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(rep.summary.write.requests, 5);
    // Every async write and the drain are asked for at time 0.
    for s in 0..5 {
        assert_eq!(asked(&log, s), vec![0], "step {s}");
    }
    // The synchronous write comes once all four completed: not before the last completion,
    // which is after the first (the device takes time for each).
    let sync_at = asked(&log, 5);
    assert_eq!(sync_at.len(), 1);
    assert!(sync_at[0] > 0);
    let end = (rep.summary.sim_time_s * 1e9).round() as u64;
    assert!(
        end > sync_at[0],
        "the last write completes after it is issued"
    );
}

#[test]
fn a_waiting_stream_resumes_at_its_time_or_when_woken() {
    let cfg = config("preset = \"tiny\"\n");
    let log_a = Arc::new(Mutex::new(Vec::new()));
    let log_b = Arc::new(Mutex::new(Vec::new()));
    // A: waits until 5 ms, then wakes B and writes. B: waits until 1 s (unless woken), then
    // writes. B is woken at 5 ms, so its write is asked for at 5 ms, not 1 s.
    let a = vec![Step::Until(5_000_000), Step::Wake(1), Step::Sync(0)];
    let b = vec![Step::Until(1_000_000_000), Step::Sync(8)];
    let rep = Simulation::with_streams(cfg, vec![stream(a, &log_a), stream(b, &log_b)])
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(rep.summary.write.requests, 2);
    // (A step is logged when the script is asked while at it; a wait moves past its step.)
    assert_eq!(asked(&log_a, 0), vec![0]);
    assert_eq!(asked(&log_a, 1), vec![5_000_000]);
    assert_eq!(asked(&log_a, 2), vec![5_000_000]);
    assert_eq!(asked(&log_b, 0), vec![0]);
    assert_eq!(asked(&log_b, 1), vec![5_000_000]);
    // B's stale wake at 1 s is ignored: the run ends well before it.
    assert!(rep.summary.sim_time_s < 0.5, "{}", rep.summary.sim_time_s);
}
