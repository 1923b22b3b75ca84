//! Stopping long loops early. The loops that run before or between [`crate::sim::Simulation`]
//! steps (preconditioning and aging, a stack's file layout and fill) poll an [`Interrupt`];
//! every few milliseconds of wall time it calls the caller's hook, and an error from the hook
//! (a front end's Ctrl-C: [`Error::Interrupted`]) ends the loop and the call. Within a step,
//! the simulation polls a hook it was given ([`crate::sim::Simulation::set_interrupt`])
//! between events, and the content model polls it before each codec call (a `zstd-22` unit
//! takes milliseconds, an event may compress hundreds).
//!
//! [`Error::Interrupted`]: crate::error::Error::Interrupted

use crate::error::Result;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Wall time between two calls of the hook: well under the 0.2 s a Ctrl-C may take.
pub const POLL_EVERY: Duration = Duration::from_millis(10);

/// Loop iterations between two readings of the clock (an iteration is a page or a 4 KiB
/// block written: microseconds, so the hook still runs every [`POLL_EVERY`] or so).
const ITERATIONS_PER_CLOCK: u32 = 64;

/// The caller's check: `Err` stops the loop that polled it.
pub type Hook<'a> = &'a (dyn Fn() -> Result<()> + Sync + 'a);

/// A check a simulation keeps across the calls of one step.
pub type SharedHook = Arc<dyn Fn() -> Result<()> + Send + Sync>;

enum HookRef<'a> {
    Borrowed(Hook<'a>),
    Shared(SharedHook),
}

/// A hook and when it is next due.
pub struct Interrupt<'a> {
    hook: Option<HookRef<'a>>,
    count: u32,
    next: Instant,
}

impl<'a> Interrupt<'a> {
    /// No hook: polling never fails (Rust callers, tests).
    pub fn none() -> Interrupt<'static> {
        Interrupt {
            hook: None,
            count: 0,
            next: Instant::now(),
        }
    }

    /// Call `hook` about every [`POLL_EVERY`] of wall time while loops poll.
    pub fn new(hook: Hook<'a>) -> Interrupt<'a> {
        Interrupt {
            hook: Some(HookRef::Borrowed(hook)),
            count: 0,
            next: Instant::now() + POLL_EVERY,
        }
    }

    /// [`Interrupt::new`] with a hook the interrupt shares.
    pub fn shared(hook: SharedHook) -> Interrupt<'static> {
        Interrupt {
            hook: Some(HookRef::Shared(hook)),
            count: 0,
            next: Instant::now() + POLL_EVERY,
        }
    }

    /// [`Interrupt::poll`] for an iteration that takes long on its own (a codec call): read
    /// the clock every time.
    #[inline]
    pub fn poll_slow(&mut self) -> Result<()> {
        self.poll_by(ITERATIONS_PER_CLOCK)
    }

    /// Call once per loop iteration; `Err` from the hook when it is due and says stop.
    #[inline]
    pub fn poll(&mut self) -> Result<()> {
        self.poll_by(1)
    }

    /// [`Interrupt::poll`] for an iteration worth `n` small ones (4 KiB blocks written).
    #[inline]
    pub fn poll_by(&mut self, n: u32) -> Result<()> {
        self.count = self.count.saturating_add(n);
        if self.count < ITERATIONS_PER_CLOCK {
            return Ok(());
        }
        self.count = 0;
        self.check_due()
    }

    #[cold]
    fn check_due(&mut self) -> Result<()> {
        let Some(hook) = &self.hook else {
            return Ok(());
        };
        let now = Instant::now();
        if now < self.next {
            return Ok(());
        }
        self.next = now + POLL_EVERY;
        match hook {
            HookRef::Borrowed(h) => h(),
            HookRef::Shared(h) => h(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn polls_the_hook_by_wall_time_and_stops_on_its_error() {
        let calls = AtomicU32::new(0);
        let hook = || {
            if calls.fetch_add(1, Ordering::SeqCst) + 1 >= 3 {
                Err(Error::Interrupted)
            } else {
                Ok(())
            }
        };
        // The clock starts before the hook's first due time is set from it.
        let start = Instant::now();
        let mut stop = Interrupt::new(&hook);
        let mut n = 0u64;
        let e = loop {
            n += 1;
            if let Err(e) = stop.poll() {
                break e;
            }
        };
        assert!(matches!(e, Error::Interrupted));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
        // Three calls, each at least POLL_EVERY after the previous one (the first too).
        assert!(start.elapsed() >= POLL_EVERY * 3);
        assert!(n > 3 * u64::from(ITERATIONS_PER_CLOCK));
    }

    #[test]
    fn a_shared_hook_polled_slowly_reads_the_clock_every_time() {
        let calls = Arc::new(AtomicU32::new(0));
        let c = Arc::clone(&calls);
        let mut stop = Interrupt::shared(Arc::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
            Err(Error::Interrupted)
        }));
        std::thread::sleep(POLL_EVERY);
        // Due: the very next slow poll calls the hook (no count of cheap iterations first).
        assert!(matches!(stop.poll_slow(), Err(Error::Interrupted)));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn no_hook_never_stops() {
        let mut stop = Interrupt::none();
        for _ in 0..10_000 {
            stop.poll().unwrap();
        }
    }
}
