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
    /// A waiting closed-loop stream is due to be asked again: (stream, generation); stale
    /// generations are ignored.
    Wake(u32, u32),
}

/// A queued event, ordered by one packed key: time in the high 64 bits, sequence in the low
/// (one integer compare per heap step, and the payload never compared).
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u128,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

#[inline]
fn time_of(key: u128) -> SimTime {
    SimTime((key >> 64) as u64)
}

/// Min-queue of events by (time, sequence).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
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
        self.heap.push(Reverse(Entry {
            key: ((t.0 as u128) << 64) | self.seq as u128,
            ev,
        }));
        self.seq += 1;
    }

    /// Earliest event, first scheduled first among equal times.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.heap.pop().map(|Reverse(e)| (time_of(e.key), e.ev))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|Reverse(e)| time_of(e.key))
    }

    /// Time of the earliest pending event for which `skip` is false. The queue is left as it
    /// was: skipped events are taken out and put back with their sequence numbers, so the
    /// order of events does not change.
    pub fn next_time_except(&mut self, skip: impl Fn(Event) -> bool) -> Option<SimTime> {
        let mut held = Vec::new();
        let found = loop {
            match self.heap.peek() {
                None => break None,
                Some(&Reverse(e)) if !skip(e.ev) => break Some(time_of(e.key)),
                Some(_) => held.extend(self.heap.pop()),
            }
        };
        self.heap.extend(held);
        found
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

    #[test]
    fn next_time_except_looks_past_skipped_events_and_keeps_the_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(3), Event::StackTick);
        q.push(SimTime(3), Event::Tick);
        q.push(SimTime(7), Event::Arrival(0));
        q.push(SimTime(3), Event::Completion(1));
        let ticks = |e: Event| matches!(e, Event::Tick | Event::StackTick);
        assert_eq!(q.next_time_except(ticks), Some(SimTime(3)));
        assert_eq!(q.pop(), Some((SimTime(3), Event::StackTick)));
        assert_eq!(q.next_time_except(ticks), Some(SimTime(3)));
        assert_eq!(q.pop(), Some((SimTime(3), Event::Tick)));
        assert_eq!(q.pop(), Some((SimTime(3), Event::Completion(1))));
        q.push(SimTime(5), Event::Tick);
        assert_eq!(q.next_time_except(ticks), Some(SimTime(7)));
        assert_eq!(q.pop(), Some((SimTime(5), Event::Tick)));
        assert_eq!(q.pop(), Some((SimTime(7), Event::Arrival(0))));
        assert_eq!(q.next_time_except(ticks), None);
    }
}
