//! The host: drives workload streams against the device. Closed-loop streams keep `depth`
//! requests in flight and issue the next when one completes; open-loop streams issue each
//! request at its own arrival time. Streams run in stonewall groups, one group after another.
//!
//! A closed-loop stream may also answer [`Next::Wait`] (think time, or blocked until another
//! stream wakes it: Filebench's `hog` and semaphores), [`Next::IssueAsync`] (a request it does
//! not wait for) and [`Next::Drain`] (wait until few enough of its requests are in flight). Completions of
//! asynchronous requests carry [`ASYNC_TAG`] in their stream number, so a stream waiting for
//! its synchronous request is not asked again when an earlier asynchronous one completes.

use crate::content::ContentModel;
use crate::device::Device;
use crate::engine::{Event, EventQueue};
use crate::error::{Error, Result};
use crate::stack::Stack;
use crate::stats::Recorder;
use crate::units::SimTime;
use crate::workload::{Drive, Next, Op, Request, Stream, NO_FILE};

/// What the host submits to: the plain SSD, or a file system over a CCSD (`[stack]`).
pub enum Target {
    /// Block requests go straight to the SSD.
    Ssd(Box<Device>),
    /// Requests go through the file system of the storage stack.
    Stack(Box<Stack>),
}

impl Target {
    /// Bytes a stream may address with block-level requests.
    pub fn capacity_bytes(&self) -> u64 {
        match self {
            Target::Ssd(d) => d.capacity_bytes(),
            Target::Stack(s) => s.user_bytes(),
        }
    }
}

/// What the host acts on while it handles an event: the queue it schedules into, the target
/// it submits to, and the recorder that counts what completes.
pub struct World<'a> {
    /// Event queue.
    pub queue: &'a mut EventQueue,
    /// The device or storage stack.
    pub target: &'a mut Target,
    /// Statistics.
    pub rec: &'a mut Recorder,
    /// The content model, when `[content]` is on: it counts what written blocks compress to.
    pub content: Option<&'a mut ContentModel>,
}

/// Record the requests the SSD completed and schedule their completion events.
#[inline]
pub fn drain_device(w: &mut World<'_>) {
    // Called after every event; most events complete no request.
    if let Target::Ssd(d) = &*w.target {
        if d.completed.is_empty() && d.failed.is_empty() {
            return;
        }
        take_completions(w);
    }
}

#[inline(never)]
fn take_completions(w: &mut World<'_>) {
    if let Target::Ssd(d) = &mut *w.target {
        for c in &d.completed {
            w.rec.record(c.stream, c.op, c.len, c.issued, c.done);
            w.rec.record_split(c);
            w.queue.push(c.done, Event::Completion(c.stream));
        }
        d.completed.clear();
        if !d.failed.is_empty() {
            for &(stream, done) in &d.failed {
                w.rec.record_failed(stream, done);
                w.queue.push(done, Event::Completion(stream));
            }
            d.failed.clear();
        }
    }
}

/// Content ids the host assigns to writes that carry none (high bit set, so they never
/// collide with ids that sources give).
const HOST_CONTENT_BASE: u64 = 1 << 63;

/// Set in the stream number of a completion event whose request the stream did not wait for
/// ([`Next::IssueAsync`]).
pub const ASYNC_TAG: u32 = 1 << 31;

/// What a closed-loop stream waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// For a completion of a request it issued with [`Next::Issue`] (or it is being asked).
    Completion,
    /// For at most this many of its requests to be in flight ([`Next::Drain`]).
    Drained(u32),
    /// For a [`Event::Wake`] of its current generation ([`Next::Wait`]).
    Woken,
}

struct StreamState {
    stream: Stream,
    in_flight: u32,
    exhausted: bool,
    /// Closed loop: what the stream waits for, and the generation of its latest
    /// [`Next::Wait`] (older wake events are stale, except one at `until`).
    wait: Wait,
    generation: u32,
    /// The time its current [`Next::Wait`] ends.
    until: SimTime,
    /// The latest time of a wake event queued for it (ZERO when none is): a wait that ends
    /// then reuses that event, so a thread that blocks again and again until the end of its
    /// run does not queue one event per block.
    far_wake: SimTime,
    /// Open loop: the request waiting for its arrival event, and the trace time origin.
    pending: Option<Request>,
    origin: Option<SimTime>,
    last_arrival: SimTime,
    /// End offset of its last read and of its last write (`u64::MAX` before the first).
    last_end: [u64; 2],
    /// Its ramp end has been handed to the recorder (or it has none).
    ramp_known: bool,
}

/// Host-side counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostCounters {
    /// Requests submitted.
    pub issued: u64,
    /// Requests completed.
    pub completed: u64,
    /// Open-loop arrivals earlier than their predecessor.
    pub out_of_order: u64,
    /// Reads and writes that start where their stream's previous request of the same op
    /// ended (fio's sequential); the rest are random.
    pub sequential: [u64; 2],
}

/// Streams and their progress.
pub struct Host {
    streams: Vec<StreamState>,
    group: u32,
    last_group: u32,
    group_start: SimTime,
    next_content: u64,
    capacity: u64,
    /// Scratch list for [`crate::workload::RequestSource::take_woken`].
    woken: Vec<u32>,
    /// Scratch list for the completions handed to [`crate::workload::RequestSource::completed`].
    done: Vec<(SimTime, u64, Option<Op>)>,
    /// Some stream's source is told of its completions.
    feedback: bool,
    /// Counters.
    pub counters: HostCounters,
}

impl Host {
    /// Host over `streams` for a device of `capacity` logical bytes.
    pub fn new(streams: Vec<Stream>, capacity: u64) -> Result<Host> {
        if streams.is_empty() {
            return Err(Error::Workload(
                "the workload defines no jobs or streams".into(),
            ));
        }
        let last_group = streams.iter().map(|s| s.group).max().unwrap_or(0);
        if streams.len() >= ASYNC_TAG as usize {
            return Err(Error::Workload(format!(
                "the workload defines {} streams; at most {} are supported",
                streams.len(),
                ASYNC_TAG - 1
            )));
        }
        Ok(Host {
            streams: streams
                .into_iter()
                .map(|stream| StreamState {
                    stream,
                    in_flight: 0,
                    exhausted: false,
                    wait: Wait::Completion,
                    generation: 0,
                    until: SimTime::ZERO,
                    far_wake: SimTime::ZERO,
                    pending: None,
                    origin: None,
                    last_arrival: SimTime::ZERO,
                    last_end: [u64::MAX; 2],
                    ramp_known: false,
                })
                .collect(),
            group: 0,
            last_group,
            group_start: SimTime::ZERO,
            next_content: HOST_CONTENT_BASE,
            capacity,
            woken: Vec::new(),
            done: Vec::new(),
            feedback: false,
            counters: HostCounters::default(),
        })
    }

    /// Start the first group at time zero.
    pub fn start(&mut self, w: &mut World<'_>) -> Result<()> {
        for (i, s) in self.streams.iter().enumerate() {
            if s.stream.source.wants_completions() {
                w.rec.watch(i as u32);
                self.feedback = true;
            }
        }
        self.start_group(SimTime::ZERO, w)?;
        if self.finished() && self.counters.issued == 0 {
            // A run of nothing would write a summary that looks complete and means nothing.
            let names: Vec<&str> = self
                .streams
                .iter()
                .map(|s| s.stream.name.as_str())
                .collect();
            return Err(Error::Workload(format!(
                "the workload issued no requests (streams: {}); is the trace or job empty?",
                names.join(", ")
            )));
        }
        Ok(())
    }

    /// True once every group has finished.
    pub fn finished(&self) -> bool {
        self.group > self.last_group
    }

    /// Estimated fraction done, when the sources can tell.
    pub fn fraction(&self, now: SimTime) -> Option<f64> {
        if self.finished() {
            return Some(1.0);
        }
        let groups = self.last_group as f64 + 1.0;
        let mut sum = 0.0;
        let mut n: f64 = 0.0;
        for s in self.streams.iter().filter(|s| s.stream.group == self.group) {
            let p = if s.exhausted {
                Some(1.0)
            } else {
                s.stream.source.progress(now)
            };
            sum += p?;
            n += 1.0;
        }
        Some(((self.group as f64 + sum / n.max(1.0)) / groups).clamp(0.0, 1.0))
    }

    fn start_group(&mut self, now: SimTime, w: &mut World<'_>) -> Result<()> {
        loop {
            self.group_start = now;
            let mut any_active = false;
            for i in 0..self.streams.len() {
                if self.streams[i].stream.group != self.group {
                    continue;
                }
                match self.streams[i].stream.drive {
                    Drive::Closed { depth } => {
                        for _ in 0..depth {
                            if !self.advance(i, now, w)? {
                                break;
                            }
                        }
                    }
                    Drive::Open => self.schedule_arrival(i, now, w)?,
                }
                let s = &self.streams[i];
                any_active |= !(s.exhausted && s.in_flight == 0);
            }
            if any_active {
                return Ok(());
            }
            // Every stream of this group was empty: go straight to the next one.
            self.group += 1;
            if self.finished() {
                return Ok(());
            }
        }
    }

    fn check_range(&self, i: usize, r: &Request) -> Result<()> {
        // A flush addresses a whole file, a reclaim unit handle update a handle: no range.
        if matches!(r.op, Op::Sync | Op::RuhUpdate) {
            return Ok(());
        }
        if r.file != NO_FILE {
            // File-level request: offsets are inside the file, which the file system sizes.
            if r.len == 0 && r.op != Op::Delete {
                return Err(Error::Workload(format!(
                    "stream `{}` issued a {:?} of 0 bytes to file {}",
                    self.streams[i].stream.name, r.op, r.file
                )));
            }
            return Ok(());
        }
        let end = r.offset.checked_add(r.len);
        if r.len == 0 || end.is_none_or(|e| e > self.capacity) {
            return Err(Error::Workload(format!(
                "stream `{}` issued {:?} of {} bytes at offset {}, outside the device's {} logical bytes",
                self.streams[i].stream.name, r.op, r.len, r.offset, self.capacity
            )));
        }
        Ok(())
    }

    /// Ask closed-loop stream `i` what it does next at `now`, until it issues a request it
    /// waits for (`Ok(true)`), waits for something else or is exhausted (`Ok(false)`).
    fn advance(&mut self, i: usize, now: SimTime, w: &mut World<'_>) -> Result<bool> {
        loop {
            let next = self.streams[i].stream.source.next(now)?;
            self.wake_others(now, i, w);
            let s = &mut self.streams[i];
            match next {
                Next::Issue(req) => {
                    s.wait = Wait::Completion;
                    self.submit(i, req, now, w, false)?;
                    return Ok(true);
                }
                Next::IssueAsync(req) => self.submit(i, req, now, w, true)?,
                Next::Drain(n) => {
                    if s.in_flight > n {
                        s.wait = Wait::Drained(n);
                        return Ok(false);
                    }
                }
                Next::Wait(until) => {
                    s.wait = Wait::Woken;
                    s.generation = s.generation.wrapping_add(1);
                    s.until = until.max(now);
                    if s.far_wake != s.until {
                        w.queue.push(s.until, Event::Wake(i as u32, s.generation));
                        s.far_wake = s.far_wake.max(s.until);
                    }
                    return Ok(false);
                }
                Next::Done => {
                    s.wait = Wait::Completion;
                    s.exhausted = true;
                    return Ok(false);
                }
            }
        }
    }

    /// Schedule a wake event now for every waiting stream that stream `i`'s source woke.
    fn wake_others(&mut self, now: SimTime, i: usize, w: &mut World<'_>) {
        self.streams[i].stream.source.take_woken(&mut self.woken);
        // Most sources wake nobody.
        if self.woken.is_empty() {
            return;
        }
        for &j in &self.woken {
            if let Some(s) = self.streams.get(j as usize) {
                if s.wait == Wait::Woken && !s.exhausted {
                    w.queue.push(now, Event::Wake(j, s.generation));
                }
            }
        }
        self.woken.clear();
    }

    #[inline]
    fn submit(
        &mut self,
        i: usize,
        req: Request,
        now: SimTime,
        w: &mut World<'_>,
        asynchronous: bool,
    ) -> Result<()> {
        let tag = i as u32 | if asynchronous { ASYNC_TAG } else { 0 };
        self.check_range(i, &req)?;
        if !self.streams[i].ramp_known {
            // Known once the stream has started (fio's ramp runs from the job's start).
            self.streams[i].ramp_known = true;
            if let Some(t) = self.streams[i].stream.source.ramp_end() {
                w.rec.set_ramp(i as u32, t);
            }
        }
        let content = if matches!(req.op, Op::Write | Op::Append) && req.content == 0 {
            let c = self.next_content;
            // One id per 4 KiB block touched (at least one per page touched).
            let blocks = (req.offset + req.len).div_ceil(4096) - req.offset / 4096;
            self.next_content += match &*w.target {
                // A page of a whole number of 4 KiB blocks never spans more pages than
                // blocks (each page boundary is a block boundary); any other page size (2 KiB,
                // or 6 KiB: validation takes multiples of 512) may.
                Target::Ssd(d) if !d.page_size().is_multiple_of(4096) => {
                    blocks.max(d.pages_touched(req.offset, req.len))
                }
                _ => blocks,
            };
            c
        } else {
            req.content
        };
        if matches!(req.op, Op::Write | Op::Append) {
            if let Some(m) = w.content.as_deref_mut() {
                m.on_write(i, req.offset, req.len, content);
            }
        }
        match &mut *w.target {
            Target::Ssd(d) => {
                d.submit(&req, content, now, tag, w.queue, w.content.as_deref_mut())?;
                // The stream's next requests, when its source has them: the device warms
                // their map entries while this one's events run.
                let source = &mut self.streams[i].stream.source;
                for k in 0..2 {
                    match source.peek(k) {
                        Some(r) => d.prefetch(r, k + 1),
                        None => break,
                    }
                }
                drain_device(w);
            }
            Target::Stack(s) => {
                let r = Request { content, ..req };
                let out = s.submit(i, &r, now, w.content.as_deref_mut())?;
                if out.failed {
                    w.rec.record_failed(tag, out.done);
                } else {
                    w.rec.record(tag, req.op, req.len, now, out.done);
                }
                w.queue.push(out.done, Event::Completion(tag));
            }
        }
        let s = &mut self.streams[i];
        s.in_flight += 1;
        self.counters.issued += 1;
        if let Some(k) = match req.op {
            Op::Read => Some(0),
            Op::Write => Some(1),
            _ => None,
        } {
            self.counters.sequential[k] += (s.last_end[k] == req.offset) as u64;
            s.last_end[k] = req.offset + req.len;
        }
        Ok(())
    }

    /// Fetch the next request of open-loop stream `i` and schedule its arrival.
    fn schedule_arrival(&mut self, i: usize, now: SimTime, w: &mut World<'_>) -> Result<()> {
        let s = &mut self.streams[i];
        match s.stream.source.next_request(now)? {
            None => s.exhausted = true,
            Some(r) => {
                let origin = *s.origin.get_or_insert(r.time);
                let rel = r.time.0.saturating_sub(origin.0);
                let mut at = SimTime(self.group_start.0 + rel);
                if r.time < origin || at < s.last_arrival {
                    self.counters.out_of_order += 1;
                    at = s.last_arrival;
                }
                s.last_arrival = at;
                s.pending = Some(r);
                w.queue.push(at, Event::Arrival(i as u32));
            }
        }
        Ok(())
    }

    /// An open-loop arrival at `now`.
    pub fn on_arrival(&mut self, i: usize, now: SimTime, w: &mut World<'_>) -> Result<()> {
        let req = self.streams[i]
            .pending
            .take()
            .expect("arrival event without a pending request");
        self.submit(i, req, now, w, false)?;
        self.schedule_arrival(i, now, w)
    }

    /// A completion at `now` of a request of stream `tag` (the stream's index, with
    /// [`ASYNC_TAG`] set when the stream did not wait for the request).
    pub fn on_completion(&mut self, tag: usize, now: SimTime, w: &mut World<'_>) -> Result<()> {
        let asynchronous = tag & ASYNC_TAG as usize != 0;
        let i = tag & !(ASYNC_TAG as usize);
        self.counters.completed += 1;
        if self.feedback {
            let mut done = std::mem::take(&mut self.done);
            w.rec.take_completions(i as u32, now, &mut done);
            for &(_, lat, op) in &done {
                let source = &mut self.streams[i].stream.source;
                match op {
                    Some(op) => source.completed(op, lat, now),
                    None => source.failed(now),
                }
            }
            done.clear();
            self.done = done;
        }
        let s = &mut self.streams[i];
        s.in_flight -= 1;
        if matches!(s.stream.drive, Drive::Closed { .. }) && !s.exhausted {
            let ask = match s.wait {
                Wait::Completion => !asynchronous,
                Wait::Drained(n) => s.in_flight <= n,
                Wait::Woken => false,
            };
            if ask {
                s.wait = Wait::Completion;
                self.refill(i, now, w)?;
            }
        }
        self.end_group_if_done(i, now, w)
    }

    /// Ask closed-loop stream `i` for requests until `depth` are in flight or it waits for
    /// something else: after a wait or a drain the stream goes back to its full depth, not
    /// one request per completion.
    fn refill(&mut self, i: usize, now: SimTime, w: &mut World<'_>) -> Result<()> {
        let Drive::Closed { depth } = self.streams[i].stream.drive else {
            return Ok(());
        };
        loop {
            if !self.advance(i, now, w)? {
                return Ok(());
            }
            let s = &self.streams[i];
            if s.exhausted || s.in_flight >= depth || s.wait != Wait::Completion {
                return Ok(());
            }
        }
    }

    /// A wake event of stream `i`, generation `generation`, at `now`.
    pub fn on_wake(
        &mut self,
        i: usize,
        generation: u32,
        now: SimTime,
        w: &mut World<'_>,
    ) -> Result<()> {
        let s = &mut self.streams[i];
        if now >= s.far_wake {
            s.far_wake = SimTime::ZERO;
        }
        let current = s.generation == generation || now == s.until;
        if s.wait != Wait::Woken || !current || s.exhausted {
            return Ok(());
        }
        s.wait = Wait::Completion;
        self.refill(i, now, w)?;
        self.end_group_if_done(i, now, w)
    }

    /// Start the next group once stream `i`'s group has finished.
    fn end_group_if_done(&mut self, i: usize, now: SimTime, w: &mut World<'_>) -> Result<()> {
        let me = &self.streams[i];
        let group_done = me.exhausted
            && me.in_flight == 0
            && self
                .streams
                .iter()
                .filter(|s| s.stream.group == self.group)
                .all(|s| s.exhausted && s.in_flight == 0);
        if group_done {
            self.group += 1;
            if !self.finished() {
                self.start_group(now, w)?;
            }
        }
        Ok(())
    }
}
