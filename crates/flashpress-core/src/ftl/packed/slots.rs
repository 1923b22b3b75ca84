//! The packed FTL's DRAM page slots for a device that reserves NAND time when a request
//! arrives (the CCSD): a page being filled takes a slot, which frees when its program ends.

use crate::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Page slots with the times at which their pages finish programming.
pub struct ReservedBuffer {
    capacity: usize,
    busy_until: BinaryHeap<Reverse<SimTime>>,
}

impl ReservedBuffer {
    /// An empty buffer of `capacity` pages. The heap grows with the pages in flight rather
    /// than reserving `capacity` up front: a buffer of billions of slots costs only what a
    /// run fills of it.
    pub fn new(capacity: usize) -> ReservedBuffer {
        ReservedBuffer {
            capacity,
            busy_until: BinaryHeap::new(),
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
    fn a_huge_buffer_reserves_nothing_up_front() {
        // 2^31 slots used to reserve 17 GB before the first page arrived.
        let mut b = ReservedBuffer::new(1 << 31);
        assert_eq!(b.busy_until.capacity(), 0);
        assert_eq!(b.acquire(SimTime(0)), (SimTime(0), false));
        b.release_at(SimTime(5));
        assert!(b.busy_until.capacity() < 1 << 10);
    }
}
