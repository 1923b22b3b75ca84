//! The generators: the filesets' shared state, one source per thread instance, and the
//! preallocation source.

use super::parse::{Flowop, Kind, SizeSpec};
use super::sync::SemTable;
use crate::error::Result;
use crate::units::SimTime;
use crate::workload::{FileAttrs, Next, Op, Request, RequestSource};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};
use rand_pcg::Pcg64Mcg;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

/// Bits of a content id that number the 4 KiB block within the file.
pub(super) const BLOCK_BITS: u32 = 20;
/// Bits of a content id that number the file's write (version) of the block.
pub(super) const VERSION_BITS: u32 = 12;
/// Bytes per preallocation write (Filebench allocates files in 1 MiB writes).
pub(super) const PREALLOC_CHUNK: u64 = 1 << 20;

/// File id of entry `entry` of fileset `set`: the fileset index in the high 8 bits.
pub(super) fn file_id(set: usize, entry: u32) -> u32 {
    ((set as u32) << 24) | entry
}

/// The file's key, the high 32 bits of its content ids: never 0.
pub(super) fn file_key(set: usize, entry: u32) -> u64 {
    ((set as u64 + 1) << 24) | u64::from(entry)
}

/// Content id of the block holding byte `offset` of a file, written as version `version`.
pub(super) fn content_id(key: u64, version: u32, offset: u64) -> u64 {
    let v = u64::from(version) & ((1 << VERSION_BITS) - 1);
    let b = (offset / 4096) & ((1 << BLOCK_BITS) - 1);
    (key << 32) | (v << BLOCK_BITS) | b
}

/// Sizes of `n` entries: fixed, or drawn from Filebench's gamma (shape `gamma`, scale
/// `mean / gamma`, so the mean is `mean` and the variance `mean² / gamma`), rounded to bytes
/// and clamped to 4 GiB.
pub(super) fn entry_sizes(spec: SizeSpec, n: u32, rng: &mut Pcg64Mcg) -> Vec<u64> {
    match spec {
        SizeSpec::Fixed(s) => vec![s; n as usize],
        SizeSpec::Gamma { mean, shape } => match Gamma::new(shape, mean / shape) {
            Ok(g) => (0..n)
                .map(|_| {
                    let v: f64 = g.sample(rng);
                    // `as` saturates, so a huge draw cannot wrap.
                    (v.round() as u64).min(super::parse::MAX_FILE_BYTES)
                })
                .collect(),
            // The parser only admits mean > 0 and shape > 0, for which Gamma::new succeeds.
            Err(_) => vec![mean.round() as u64; n as usize],
        },
    }
}

/// One file entry.
#[derive(Debug, Clone)]
pub(super) struct FileState {
    /// Size Filebench assigned the entry (what writewholefile writes).
    pub target: u64,
    /// Current size.
    pub size: u64,
    /// Open descriptors (deletefile skips open files; see the module docs).
    pub open: u32,
    /// Next write's version.
    pub version: u32,
    /// Written since created (a file never written was never seen by the file system, so
    /// deleting it issues nothing).
    pub written: bool,
}

/// One fileset's state.
#[derive(Debug, Clone)]
pub(super) struct SetState {
    /// Entries.
    pub files: Vec<FileState>,
    /// Entries that exist.
    pub exist: BTreeSet<u32>,
    /// Entries that do not.
    pub absent: BTreeSet<u32>,
    /// Attributes of its files.
    pub attrs: FileAttrs,
}

/// Which entries [`SetState::pick`] may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pick {
    /// An existing file.
    Exists,
    /// An existing file nobody has open.
    ExistsClosed,
    /// An entry that does not exist.
    Absent,
}

impl SetState {
    /// Filebench's `fileset_pick`: a uniformly random entry index, then the first entry of the
    /// wanted kind at or after it, wrapping around.
    pub fn pick(&self, how: Pick, rng: &mut Pcg64Mcg) -> Option<u32> {
        let n = self.files.len() as u32;
        let r = rng.random_range(0..n);
        let set = if how == Pick::Absent {
            &self.absent
        } else {
            &self.exist
        };
        let ok = |e: &&u32| how != Pick::ExistsClosed || self.files[**e as usize].open == 0;
        set.range(r..)
            .find(ok)
            .or_else(|| set.range(..r).find(ok))
            .copied()
    }

    /// The next existing entry after `after` (from the first when `None`), wrapping.
    pub fn next_existing(&self, after: Option<u32>) -> Option<u32> {
        let from = after.map_or(0, |a| a + 1);
        self.exist
            .range(from..)
            .next()
            .or_else(|| self.exist.iter().next())
            .copied()
    }
}

/// The state every stream of a workload shares.
pub(super) type Shared = Arc<Mutex<Vec<SetState>>>;

fn lock<T>(s: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    s.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An open file.
#[derive(Debug, Clone, Copy)]
struct Handle {
    set: usize,
    entry: u32,
    /// Position of sequential reads and writes.
    pos: u64,
}

/// A request decided but not yet issued; its effect on the file's size applies when issued.
#[derive(Debug, Clone, Copy)]
struct Pending {
    op: Op,
    set: usize,
    entry: u32,
    offset: u64,
    len: u64,
    /// Issued without waiting for it (`aiowrite`).
    asynchronous: bool,
    /// Open flags of the flowop (`dsync`, `directio`): [`FileAttrs::DSYNC`] | [`FileAttrs::DIRECT`].
    flags: u8,
}

/// The semaphores every stream of a workload shares.
pub(super) type SharedSems = Arc<Mutex<SemTable>>;

/// Asynchronous writes a thread may have outstanding before `aiowait` blocks: Filebench's
/// `MAXREAP`. On Linux (no `aio_waitn`) `aiowait` reaps the completed writes without waiting
/// and loops only while more than `MAXREAP` are outstanding.
pub(super) const AIO_MAXREAP: u32 = 4096;

/// What the flowops of one thread share with its stream.
#[derive(Debug)]
pub(super) struct ThreadSpec {
    /// The loop.
    pub flowops: Vec<Flowop>,
    /// Run time, ns.
    pub runtime_ns: u64,
    /// Per flowop: the semaphores a `sempost` posts to, in order (empty for other flowops).
    pub targets: Vec<Vec<usize>>,
    /// Simulated time of one iteration of the `hog` loop, ns.
    pub hog_ns_per_iteration: f64,
}

/// What one execution of a flowop leads to.
enum Step {
    /// Done (any I/O it decided is queued).
    Go,
    /// Done, and the thread is busy for this many ns (`hog`).
    Busy(u64),
    /// Blocked on a semaphore: not done, the thread waits until its operation completes.
    Blocked,
    /// Done, and the thread waits until at most this many of its requests are in flight.
    Drain(u32),
}

/// One Filebench thread instance: loops over its flowops until the run time has elapsed.
pub(super) struct ThreadSource {
    spec: Arc<ThreadSpec>,
    world: Shared,
    rng: Pcg64Mcg,
    pc: usize,
    iter: u32,
    fds: BTreeMap<u32, Handle>,
    /// Files opened by flowops that name a fileset but no descriptor, per flowop.
    private: Vec<Option<Handle>>,
    queue: VecDeque<Pending>,
    start: Option<SimTime>,
    issued_this_pass: bool,
    done: bool,
    /// This thread's stream index in the workload (what semaphores queue and wake).
    me: u32,
    sems: SharedSems,
    /// Per flowop: the semaphore of this instance's `semblock` (None for other flowops).
    own_sems: Vec<Option<usize>>,
    /// Progress through the current semaphore flowop: for `semblock`, whether `hw` was
    /// raised; for `sempost`, the next target.
    sem_step: usize,
    /// Waiting for a queued semaphore operation to complete.
    blocked: bool,
    /// Busy (`hog`) until then.
    busy_until: Option<SimTime>,
    /// Streams this thread's posts woke, for the host.
    woken: Vec<u32>,
}

impl ThreadSource {
    pub(super) fn new(
        spec: Arc<ThreadSpec>,
        world: Shared,
        seed: u64,
        me: u32,
        sems: SharedSems,
        own_sems: Vec<Option<usize>>,
    ) -> ThreadSource {
        let n = spec.flowops.len();
        ThreadSource {
            spec,
            world,
            rng: Pcg64Mcg::seed_from_u64(seed),
            pc: 0,
            iter: 0,
            fds: BTreeMap::new(),
            private: vec![None; n],
            queue: VecDeque::new(),
            start: None,
            issued_this_pass: false,
            done: false,
            me,
            sems,
            own_sems,
            sem_step: 0,
            blocked: false,
            busy_until: None,
            woken: Vec::new(),
        }
    }

    fn close(world: &mut [SetState], h: Handle) {
        let f = &mut world[h.set].files[h.entry as usize];
        f.open = f.open.saturating_sub(1);
    }

    fn bind_fd(&mut self, world: &mut [SetState], fd: u32, set: usize, entry: u32) {
        world[set].files[entry as usize].open += 1;
        if let Some(old) = self.fds.insert(fd, Handle { set, entry, pos: 0 }) {
            Self::close(world, old);
        }
    }

    /// The file an I/O flowop works on, opening one when Filebench would (a descriptor not
    /// yet open with a fileset named, or a flowop's own file); `None` when there is none.
    fn target(&mut self, world: &mut [SetState], idx: usize) -> Option<Handle> {
        let f = &self.spec.flowops[idx];
        if let Some(fd) = f.fd {
            if let Some(h) = self.fds.get(&fd) {
                return Some(*h);
            }
            let set = f.fileset?;
            let e = world[set].pick(Pick::Exists, &mut self.rng)?;
            self.bind_fd(world, fd, set, e);
            return self.fds.get(&fd).copied();
        }
        let set = f.fileset?;
        let cur = self.private[idx];
        let next = if f.opennext {
            world[set].next_existing(cur.map(|h| h.entry))
        } else if let Some(h) = cur {
            return Some(h);
        } else {
            world[set].pick(Pick::Exists, &mut self.rng)
        }?;
        if let Some(old) = cur {
            if old.entry == next {
                return Some(old);
            }
            Self::close(world, old);
        }
        world[set].files[next as usize].open += 1;
        let h = Handle {
            set,
            entry: next,
            pos: 0,
        };
        self.private[idx] = Some(h);
        Some(h)
    }

    fn store(&mut self, idx: usize, h: Handle) {
        match self.spec.flowops[idx].fd {
            Some(fd) => {
                self.fds.insert(fd, h);
            }
            None => self.private[idx] = Some(h),
        }
    }

    fn push(&mut self, op: Op, h: Handle, offset: u64, len: u64) {
        let f = &self.spec.flowops[self.pc];
        let flags = if f.dsync { FileAttrs::DSYNC } else { 0 }
            | if f.directio { FileAttrs::DIRECT } else { 0 };
        self.queue.push_back(Pending {
            flags,
            op,
            set: h.set,
            entry: h.entry,
            offset,
            len,
            asynchronous: false,
        });
    }

    /// A random offset, a multiple of `iosize`, for an `iosize` transfer in the first `wss`
    /// bytes (0 when `wss` < `iosize`).
    fn random_offset(&mut self, wss: u64, iosize: u64) -> u64 {
        let slots = wss.saturating_sub(iosize) / iosize;
        self.rng.random_range(0..=slots) * iosize
    }

    /// Execute flowop `pc` once.
    fn exec(&mut self) -> Step {
        let idx = self.pc;
        let spec = Arc::clone(&self.spec);
        let f = &spec.flowops[idx];
        match f.kind {
            Kind::Hog => {
                let ns = (f.value as f64 * spec.hog_ns_per_iteration).round();
                return Step::Busy(ns.min(u64::MAX as f64) as u64);
            }
            // Linux Filebench: reap what completed; wait only above MAXREAP outstanding.
            Kind::AioWait => return Step::Drain(AIO_MAXREAP),
            Kind::SemBlock => {
                let id = self.own_sems[idx].expect("every semblock instance has a semaphore");
                let sems_arc = Arc::clone(&self.sems);
                let mut sems = lock(&sems_arc);
                if self.sem_step == 0 {
                    sems.block_post_hw(id, f.value, &mut self.woken);
                    self.sem_step = 1;
                }
                if sems.block_take_lw(id, f.value) {
                    self.sem_step = 0;
                    return Step::Go;
                }
                return Step::Blocked;
            }
            Kind::SemPost => {
                let sems_arc = Arc::clone(&self.sems);
                let mut sems = lock(&sems_arc);
                let targets = &spec.targets[idx];
                while let Some(&id) = targets.get(self.sem_step) {
                    if !sems.post(id, f.value, f.blocking, self.me, &mut self.woken) {
                        return Step::Blocked;
                    }
                    self.sem_step += 1;
                }
                self.sem_step = 0;
                return Step::Go;
            }
            _ => {}
        }
        self.exec_file(idx, f);
        Step::Go
    }

    /// Execute file flowop `idx` once.
    fn exec_file(&mut self, idx: usize, f: &Flowop) {
        let world_arc = Arc::clone(&self.world);
        let mut world = lock(&world_arc);
        match f.kind {
            Kind::CreateFile => {
                let set = f.fileset.expect("parser requires filesetname");
                if let Some(e) = world[set].pick(Pick::Absent, &mut self.rng) {
                    let s = &mut world[set];
                    s.absent.remove(&e);
                    s.exist.insert(e);
                    let file = &mut s.files[e as usize];
                    file.size = 0;
                    file.written = false;
                    let fd = f.fd.expect("parser requires fd");
                    self.bind_fd(&mut world, fd, set, e);
                }
            }
            Kind::DeleteFile => {
                let set = f.fileset.expect("parser requires filesetname");
                if let Some(e) = world[set].pick(Pick::ExistsClosed, &mut self.rng) {
                    let s = &mut world[set];
                    s.exist.remove(&e);
                    s.absent.insert(e);
                    let file = &mut s.files[e as usize];
                    file.size = 0;
                    if std::mem::take(&mut file.written) {
                        let h = Handle {
                            set,
                            entry: e,
                            pos: 0,
                        };
                        self.push(Op::Delete, h, 0, 0);
                    }
                }
            }
            Kind::OpenFile => {
                let set = f.fileset.expect("parser requires filesetname");
                if let Some(e) = world[set].pick(Pick::Exists, &mut self.rng) {
                    let fd = f.fd.expect("parser requires fd");
                    self.bind_fd(&mut world, fd, set, e);
                }
            }
            Kind::CloseFile => {
                if let Some(h) = f.fd.and_then(|fd| self.fds.remove(&fd)) {
                    Self::close(&mut world, h);
                }
            }
            // No I/O: see the module docs (hog, aiowait and the semaphores are in `exec`).
            // fsync of the file open on `fd` (Filebench's flowoplib_fsync: none open, no-op).
            Kind::Fsync => {
                if let Some(h) = f.fd.and_then(|fd| self.fds.get(&fd)).copied() {
                    if world[h.set].files[h.entry as usize].written {
                        self.push(Op::Sync, h, 0, 0);
                    }
                }
            }
            Kind::StatFile
            | Kind::AioWait
            | Kind::Hog
            | Kind::SemBlock
            | Kind::SemPost
            | Kind::EventLimit => {}
            Kind::AppendFile | Kind::AppendFileRand => {
                let Some(h) = self.target(&mut world, idx) else {
                    return;
                };
                let len = if f.kind == Kind::AppendFile {
                    f.iosize
                } else {
                    // Filebench: uniform on 0..=iosize, a zero-length append is skipped.
                    self.rng.random_range(0..=f.iosize)
                };
                if len > 0 {
                    let size = world[h.set].files[h.entry as usize].size;
                    self.push(Op::Write, h, size, len);
                }
            }
            Kind::WriteWholeFile => {
                let Some(h) = self.target(&mut world, idx) else {
                    return;
                };
                let src = f
                    .srcfd
                    .and_then(|fd| self.fds.get(&fd))
                    .copied()
                    .unwrap_or(h);
                let total = world[src.set].files[src.entry as usize].target;
                let mut off = 0;
                while off < total {
                    let len = f.iosize.min(total - off);
                    self.push(Op::Write, h, off, len);
                    off += len;
                }
            }
            Kind::ReadWholeFile => {
                let Some(h) = self.target(&mut world, idx) else {
                    return;
                };
                let total = world[h.set].files[h.entry as usize].size;
                let mut off = 0;
                while off < total {
                    let len = f.iosize.min(total - off);
                    self.push(Op::Read, h, off, len);
                    off += len;
                }
            }
            Kind::Read | Kind::Write | Kind::AioWrite => {
                let Some(mut h) = self.target(&mut world, idx) else {
                    return;
                };
                let size = world[h.set].files[h.entry as usize].size;
                let wss = if f.workingset > 0 { f.workingset } else { size };
                if f.kind == Kind::Read {
                    let wss = wss.min(size);
                    if wss == 0 {
                        return;
                    }
                    let (off, len) = if f.random {
                        let off = self.random_offset(wss, f.iosize);
                        (off, f.iosize.min(size - off))
                    } else {
                        if h.pos >= wss {
                            h.pos = 0;
                        }
                        let len = f.iosize.min(wss - h.pos);
                        (h.pos, len)
                    };
                    h.pos = off + len;
                    self.push(Op::Read, h, off, len);
                } else {
                    let off = if f.random {
                        self.random_offset(wss, f.iosize)
                    } else {
                        if f.workingset > 0 && h.pos + f.iosize > f.workingset {
                            h.pos = 0;
                        }
                        h.pos
                    };
                    h.pos = off + f.iosize;
                    self.push(Op::Write, h, off, f.iosize);
                    if f.kind == Kind::AioWrite {
                        if let Some(p) = self.queue.back_mut() {
                            p.asynchronous = true;
                        }
                    }
                }
                self.store(idx, h);
            }
        }
    }

    /// Advance to the next flowop execution; `false` when a whole pass issued nothing.
    fn advance(&mut self) -> bool {
        self.iter += 1;
        if self.iter < self.spec.flowops[self.pc].iters {
            return true;
        }
        self.iter = 0;
        self.pc += 1;
        if self.pc < self.spec.flowops.len() {
            return true;
        }
        self.pc = 0;
        std::mem::replace(&mut self.issued_this_pass, false)
    }

    fn issue(&mut self, p: Pending, now: SimTime) -> Request {
        let mut world = lock(&self.world);
        let s = &mut world[p.set];
        let attrs = s.attrs;
        let file = &mut s.files[p.entry as usize];
        let key = file_key(p.set, p.entry);
        let content = if p.op == Op::Write {
            let c = content_id(key, file.version, p.offset);
            file.version = file.version.wrapping_add(1);
            file.size = file.size.max(p.offset + p.len);
            file.written = true;
            c
        } else {
            0
        };
        Request {
            time: now,
            op: p.op,
            offset: p.offset,
            len: p.len,
            content,
            file: file_id(p.set, p.entry),
            attrs: attrs.with_flags(p.flags),
            placement: None,
        }
    }
}

impl ThreadSource {
    /// The thread's run time is over: it ends, withdrawing any queued semaphore operation.
    fn finish(&mut self) -> Next {
        if !self.done {
            self.done = true;
            lock(&self.sems).withdraw(self.me);
        }
        Next::Done
    }
}

impl RequestSource for ThreadSource {
    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>> {
        match self.next(now)? {
            Next::Issue(r) | Next::IssueAsync(r) => Ok(Some(r)),
            Next::Done => Ok(None),
            // A driver that cannot wait (tests, tools reading the requests in order) sees the
            // requests as if every wait were over at once.
            Next::Drain(_) | Next::Wait(_) => {
                if self.blocked {
                    Ok(None)
                } else {
                    self.busy_until = None;
                    self.next_request(now)
                }
            }
        }
    }

    fn next(&mut self, now: SimTime) -> Result<Next> {
        let start = *self.start.get_or_insert(now);
        let deadline = SimTime(start.0.saturating_add(self.spec.runtime_ns));
        if self.done || now >= deadline {
            return Ok(self.finish());
        }
        if let Some(t) = self.busy_until {
            if now < t {
                return Ok(Next::Wait(t.min(deadline)));
            }
            self.busy_until = None;
        }
        if self.blocked {
            if !lock(&self.sems).take_grant(self.me) {
                return Ok(Next::Wait(deadline));
            }
            // The queued operation completed: a semblock is done, a sempost goes on to its
            // next target.
            self.blocked = false;
            if self.spec.flowops[self.pc].kind == Kind::SemBlock {
                self.sem_step = 0;
                self.advance();
            } else {
                self.sem_step += 1;
            }
        }
        loop {
            if let Some(p) = self.queue.pop_front() {
                let r = self.issue(p, now);
                return Ok(if p.asynchronous {
                    Next::IssueAsync(r)
                } else {
                    Next::Issue(r)
                });
            }
            match self.exec() {
                Step::Go => {
                    let queued = !self.queue.is_empty();
                    self.issued_this_pass |= queued;
                    if !self.advance() && !queued {
                        // A whole pass found nothing to do (every file busy or absent, no
                        // I/O, no think time, no semaphore): a closed-loop thread that can
                        // never issue again ends.
                        return Ok(self.finish());
                    }
                }
                Step::Busy(ns) => {
                    self.issued_this_pass |= ns > 0;
                    let more = self.advance();
                    if ns > 0 {
                        let t = SimTime(now.0.saturating_add(ns));
                        self.busy_until = Some(t);
                        return Ok(Next::Wait(t.min(deadline)));
                    }
                    if !more {
                        return Ok(self.finish());
                    }
                }
                Step::Blocked => {
                    self.issued_this_pass = true;
                    self.blocked = true;
                    return Ok(Next::Wait(deadline));
                }
                Step::Drain(n) => {
                    if !self.advance() {
                        return Ok(self.finish());
                    }
                    return Ok(Next::Drain(n));
                }
            }
        }
    }

    fn take_woken(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.woken);
    }

    fn progress(&self, now: SimTime) -> Option<f64> {
        let start = self.start?;
        Some((now.0.saturating_sub(start.0) as f64 / self.spec.runtime_ns as f64).min(1.0))
    }
}

/// The preallocation phase: writes every preallocated file in full, in 1 MiB requests, as
/// version 0 of its blocks.
pub(super) struct PreallocSource {
    /// (fileset, entry, size) of each preallocated file, in order.
    files: Vec<(usize, u32, u64)>,
    attrs: Vec<FileAttrs>,
    next: usize,
    off: u64,
    done_bytes: u64,
    total_bytes: u64,
}

impl PreallocSource {
    pub(super) fn new(files: Vec<(usize, u32, u64)>, attrs: Vec<FileAttrs>) -> PreallocSource {
        let total_bytes = files.iter().map(|f| f.2).sum();
        PreallocSource {
            files,
            attrs,
            next: 0,
            off: 0,
            done_bytes: 0,
            total_bytes,
        }
    }
}

impl RequestSource for PreallocSource {
    fn next_request(&mut self, now: SimTime) -> Result<Option<Request>> {
        while let Some(&(set, entry, size)) = self.files.get(self.next) {
            if self.off >= size {
                self.next += 1;
                self.off = 0;
                continue;
            }
            let len = PREALLOC_CHUNK.min(size - self.off);
            let r = Request {
                time: now,
                op: Op::Write,
                offset: self.off,
                len,
                content: content_id(file_key(set, entry), 0, self.off),
                file: file_id(set, entry),
                attrs: self.attrs[set],
                placement: None,
            };
            self.off += len;
            self.done_bytes += len;
            return Ok(Some(r));
        }
        Ok(None)
    }

    fn progress(&self, _now: SimTime) -> Option<f64> {
        Some(if self.total_bytes == 0 {
            1.0
        } else {
            self.done_bytes as f64 / self.total_bytes as f64
        })
    }
}
