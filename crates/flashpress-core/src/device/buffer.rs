//! The DRAM write buffer: `capacity` page slots. A host page takes a slot as soon as one is
//! free and is acknowledged then; its slot frees when the page has been programmed. Pages
//! that find the buffer full wait, first come first served, for the next slot to free.

use crate::units::{Ppn, SimTime};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A host page waiting for a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waiter {
    /// Request slot of the device.
    pub req: u32,
    /// Page to program once it has a slot.
    pub ppn: Ppn,
    /// When it reached the controller.
    pub since: SimTime,
}

/// Slots in use and the pages waiting for one.
pub struct WriteBuffer {
    capacity: usize,
    used: usize,
    waiting: VecDeque<Waiter>,
}

impl WriteBuffer {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: usize) -> WriteBuffer {
        WriteBuffer {
            capacity,
            used: 0,
            waiting: VecDeque::new(),
        }
    }

    /// A page arrived: `true` if it took a slot, `false` if it now waits.
    #[inline]
    pub fn arrive(&mut self, w: Waiter) -> bool {
        if self.used < self.capacity && self.waiting.is_empty() {
            self.used += 1;
            true
        } else {
            self.waiting.push_back(w);
            false
        }
    }

    /// A buffered page was programmed: its slot goes to the first waiter, if any.
    #[inline]
    pub fn release(&mut self) -> Option<Waiter> {
        match self.waiting.pop_front() {
            Some(w) => Some(w),
            None => {
                self.used -= 1;
                None
            }
        }
    }

    /// Empty the buffer.
    pub fn reset(&mut self) {
        self.used = 0;
        self.waiting.clear();
    }
}

/// The same buffer for a device that reserves NAND time when a request arrives (the CCSD):
/// slots with the times at which their pages finish programming.
pub struct ReservedBuffer {
    capacity: usize,
    busy_until: BinaryHeap<Reverse<SimTime>>,
}

impl ReservedBuffer {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: usize) -> ReservedBuffer {
        ReservedBuffer {
            capacity,
            busy_until: BinaryHeap::with_capacity(capacity + 1),
        }
    }

    /// Time a page whose data arrives at `at` gets a slot, and whether it had to wait.
    #[inline]
    pub fn acquire(&mut self, at: SimTime) -> (SimTime, bool) {
        // Slots whose program finished by `at` are free again.
        while let Some(&Reverse(t)) = self.busy_until.peek() {
            if t > at {
                break;
            }
            self.busy_until.pop();
        }
        if self.busy_until.len() < self.capacity {
            (at, false)
        } else {
            let Reverse(t) = self.busy_until.pop().expect("full buffer has entries");
            (t, true)
        }
    }

    /// The page in the slot just acquired finishes programming at `t`.
    #[inline]
    pub fn release_at(&mut self, t: SimTime) {
        self.busy_until.push(Reverse(t));
    }

    /// Empty the buffer.
    pub fn reset(&mut self) {
        self.busy_until.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(req: u32) -> Waiter {
        Waiter {
            req,
            ppn: Ppn(req),
            since: SimTime(req as u64),
        }
    }

    #[test]
    fn reserved_buffer_waits_for_the_earliest_program_when_full() {
        let mut b = ReservedBuffer::new(2);
        assert_eq!(b.acquire(SimTime(0)), (SimTime(0), false));
        b.release_at(SimTime(100));
        assert_eq!(b.acquire(SimTime(0)), (SimTime(0), false));
        b.release_at(SimTime(50));
        assert_eq!(b.acquire(SimTime(10)), (SimTime(50), true));
        b.release_at(SimTime(200));
        // at 120 the slot released at 100 is free again
        assert_eq!(b.acquire(SimTime(120)), (SimTime(120), false));
    }

    #[test]
    fn full_buffer_hands_freed_slots_to_waiters_in_order() {
        let mut b = WriteBuffer::new(2);
        assert!(b.arrive(w(1)));
        assert!(b.arrive(w(2)));
        assert!(!b.arrive(w(3)));
        assert!(!b.arrive(w(4)));
        assert_eq!(b.release(), Some(w(3)));
        assert_eq!(b.release(), Some(w(4)));
        assert_eq!(b.release(), None);
        assert_eq!(b.release(), None);
        // both slots free again
        assert!(b.arrive(w(5)));
        assert!(b.arrive(w(6)));
        assert!(!b.arrive(w(7)));
    }
}
