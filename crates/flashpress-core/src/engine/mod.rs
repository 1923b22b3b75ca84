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
///
/// [`EventQueue::pop`] leaves the event it returns at the top of the heap, marked taken, and
/// the next [`EventQueue::push`] (most events schedule another while they run: a plane's next
/// timer, a request's completion) overwrites it there with one sift-down, instead of a pop's
/// sift and a push's. Until then every other method first removes it.
///
/// An event pushed strictly earlier than every pending event (a completion whose data is
/// already at the host, due before any plane's timer) is the next one out: it waits in a
/// slot of its own, outside the heap, so it costs neither the push's sift up to the root
/// nor the pop's sift down from it. (An equal time is later in the order, since its
/// sequence number is the largest: it goes into the heap.) The slot is filled only when no
/// event is taken, and `pop` empties it first, so the two never meet.
/// The order of events is the same: the keys are unique, so the heap pops them in one order
/// whatever its layout, and the slot only ever holds the least key.
#[derive(Debug)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Entry>>,
    seq: u64,
    /// The heap's top was returned by `pop` and is no longer pending.
    taken: bool,
    /// The least pending event, when it was pushed earlier than all others (its key is less
    /// than every key in the heap); key [`EMPTY`] when there is none.
    front: Entry,
}

/// The key of an empty slot: greater than any event's (sequence numbers never reach it).
const EMPTY: u128 = u128::MAX;

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
            taken: false,
            front: Entry {
                key: EMPTY,
                ev: Event::Tick,
            },
        }
    }
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue::default()
    }

    /// Schedule `ev` at `t`.
    #[inline]
    pub fn push(&mut self, t: SimTime, ev: Event) {
        let e = Entry {
            key: ((t.0 as u128) << 64) | self.seq as u128,
            ev,
        };
        self.seq += 1;
        if self.taken {
            self.taken = false;
            // Sifted down into place when the handle drops.
            *self
                .heap
                .peek_mut()
                .expect("a taken event is still in the heap") = Reverse(e);
            return;
        }
        // The least pending key: the slot's, or the heap's top.
        let least = if self.front.key != EMPTY {
            self.front.key
        } else {
            self.heap.peek().map_or(EMPTY, |h| h.0.key)
        };
        if e.key > least {
            self.heap.push(Reverse(e));
            return;
        }
        if self.front.key != EMPTY {
            // The slot's event goes back to the heap, where it is the least.
            self.heap.push(Reverse(self.front));
        }
        self.front = e;
    }

    /// Remove the event `pop` returned, if it is still in the heap.
    #[inline]
    fn settle(&mut self) {
        if self.taken {
            self.taken = false;
            self.heap.pop();
        }
    }

    /// Earliest event, first scheduled first among equal times.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if self.front.key != EMPTY {
            let f = self.front;
            self.front.key = EMPTY;
            return Some((time_of(f.key), f.ev));
        }
        self.settle();
        let &Reverse(e) = self.heap.peek()?;
        self.taken = true;
        Some((time_of(e.key), e.ev))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<SimTime> {
        if self.front.key != EMPTY {
            return Some(time_of(self.front.key));
        }
        self.settle();
        self.heap.peek().map(|Reverse(e)| time_of(e.key))
    }

    /// Time of the earliest pending event for which `skip` is false. The queue is left as it
    /// was: skipped events are taken out and put back with their sequence numbers, so the
    /// order of events does not change.
    pub fn next_time_except(&mut self, skip: impl Fn(Event) -> bool) -> Option<SimTime> {
        if self.front.key != EMPTY && !skip(self.front.ev) {
            return Some(time_of(self.front.key));
        }
        self.settle();
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
        self.heap.len() - self.taken as usize + (self.front.key != EMPTY) as usize
    }

    /// No events pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// The queue against a brute-force reference (a list searched for the least (time, push
    /// order)) on random interleavings of pushes, pops, peeks and skips, with times drawn
    /// from a few values so that most events tie: the taken top overwritten by a push, or
    /// removed by whatever comes next, and an event pushed before every pending one (kept
    /// out of the heap, or putting the one kept there back), must not change what comes out.
    #[test]
    fn matches_a_brute_force_queue_on_random_operations() {
        use rand::{Rng, SeedableRng};
        // How often the pushes took the slot, and put an earlier slot event back: the test
        // must exercise both.
        let (mut slotted, mut displaced) = (0u32, 0u32);
        for seed in 0..200u64 {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
            let mut q = EventQueue::new();
            let mut model: Vec<(u64, u64, Event)> = Vec::new();
            let (mut now, mut order) = (0u64, 0u64);
            let spread = rng.random_range(1..6u64);
            for _ in 0..400 {
                match rng.random_range(0..10) {
                    0..=3 => {
                        // Mostly at or after the last popped time, sometimes before it, and
                        // sometimes strictly before (or at) every pending event.
                        let least = model.iter().map(|m| m.0).min();
                        let t = match rng.random_range(0..10) {
                            0 => rng.random_range(0..=now),
                            1 => least.map_or(now, |l| rng.random_range(0..=l)),
                            _ => now + rng.random_range(0..spread),
                        };
                        let had = q.front.key != EMPTY;
                        let ev = match rng.random_range(0..3) {
                            0 => Event::Tick,
                            1 => Event::Flash(rng.random_range(0..4), 0),
                            _ => Event::Completion(rng.random_range(0..4)),
                        };
                        q.push(SimTime(t), ev);
                        if q.front.key != EMPTY && q.front.key as u64 == q.seq - 1 {
                            // Only an event before every other pending one takes the slot.
                            assert!(least.is_none_or(|l| t < l), "seed {seed}");
                            slotted += 1;
                            displaced += had as u32;
                        }
                        model.push((t, order, ev));
                        order += 1;
                    }
                    4..=6 => {
                        let want = model
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, &(t, o, _))| (t, o))
                            .map(|(i, _)| i)
                            .map(|i| model.remove(i));
                        let got = q.pop();
                        assert_eq!(got, want.map(|(t, _, e)| (SimTime(t), e)), "seed {seed}");
                        if let Some((t, _)) = got {
                            now = t.0;
                        }
                    }
                    7 => {
                        let want = model.iter().map(|m| m.0).min().map(SimTime);
                        assert_eq!(q.peek_time(), want, "seed {seed}");
                    }
                    8 => {
                        let skip = |e: Event| matches!(e, Event::Tick);
                        let want = model
                            .iter()
                            .filter(|m| !skip(m.2))
                            .map(|m| m.0)
                            .min()
                            .map(SimTime);
                        assert_eq!(q.next_time_except(skip), want, "seed {seed}");
                    }
                    _ => {}
                }
                assert_eq!(q.len(), model.len(), "seed {seed}");
                assert_eq!(q.is_empty(), model.is_empty(), "seed {seed}");
            }
            while let Some(got) = q.pop() {
                let i = (0..model.len())
                    .min_by_key(|&i| (model[i].0, model[i].1))
                    .expect("the model has the event the queue gave");
                let (t, _, e) = model.remove(i);
                assert_eq!(got, (SimTime(t), e), "seed {seed}");
            }
            assert!(model.is_empty(), "seed {seed}");
        }
        assert!(slotted > 1000 && displaced > 100, "{slotted} {displaced}");
    }
}
