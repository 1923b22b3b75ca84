//! The DRAM write buffer: `capacity` page slots. A host page takes a slot as soon as one is
//! free and is acknowledged then; its slot frees when the page has been programmed. Pages
//! that find the buffer full wait, first come first served, for the next slot to free.

use crate::units::{Ppn, SimTime};
use std::collections::VecDeque;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn w(req: u32) -> Waiter {
        Waiter {
            req,
            ppn: Ppn(req as u64),
            since: SimTime(req as u64),
        }
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
