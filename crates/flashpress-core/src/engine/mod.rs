//! The event queue: typed events ordered by (time, sequence number), so events at the same
//! simulated time run in the order they were scheduled, on every machine.

use crate::units::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// An open-loop stream's next request arrives.
    Arrival(u32),
    /// A request of the stream completes.
    Completion(u32),
    /// Timeline sampling tick.
    Tick,
    /// Storage-stack tick: thermal model, SMART reads, space policy.
    StackTick,
    /// A plane timer of the SSD's back end: (plane, generation); stale generations are
    /// ignored.
    Flash(u32, u32),
    /// A device request slot whose data is all at the controller.
    DeviceReq(u32),
}

/// Min-queue of events by (time, sequence).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(SimTime, u64, Event)>>,
    seq: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedule `ev` at `t`.
    #[inline]
    pub fn push(&mut self, t: SimTime, ev: Event) {
        self.heap.push(Reverse((t, self.seq, ev)));
        self.seq += 1;
    }

    /// Earliest event, first scheduled first among equal times.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|Reverse((t, _, e))| (t, e))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// No events pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), Event::Tick);
        q.push(SimTime(1), Event::Completion(2));
        q.push(SimTime(5), Event::Arrival(0));
        q.push(SimTime(1), Event::Completion(1));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(1), Event::Completion(2)),
                (SimTime(1), Event::Completion(1)),
                (SimTime(5), Event::Tick),
                (SimTime(5), Event::Arrival(0)),
            ]
        );
    }
}
