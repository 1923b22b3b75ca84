//! The controller's hash engine (`ftl.dedup`): `lanes` units that fingerprint one page in
//! `hash_us` each, taken first come first served (the earliest free lane, lowest index on a
//! tie). Inline deduplication books it for each written page when its data arrives; dedup in
//! GC books it for each valid page GC reads out. A run uses one mode, so bookings come in
//! time order and "free at" arithmetic on the lanes is that FIFO.

use crate::units::SimTime;

/// Hash lanes and what they did.
#[derive(Debug, Clone)]
pub struct HashEngine {
    ns: u64,
    lanes: Vec<SimTime>,
    /// Pages hashed since the last reset.
    pub pages: u64,
    /// Lane time spent hashing since the last reset (ns).
    pub busy_ns: u64,
    /// Time pages waited for a free lane since the last reset (ns).
    pub wait_ns: u64,
}

impl HashEngine {
    /// `lanes` lanes of `ns` per page.
    pub fn new(ns: u64, lanes: u32) -> HashEngine {
        HashEngine {
            ns,
            lanes: vec![SimTime::ZERO; lanes.max(1) as usize],
            pages: 0,
            busy_ns: 0,
            wait_ns: 0,
        }
    }

    /// Hash a page whose data is at the controller at `at`; returns when its fingerprint is
    /// known.
    #[inline]
    pub fn run(&mut self, at: SimTime) -> SimTime {
        let (i, free) = self
            .lanes
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, t)| (t, i))
            .expect("at least one lane");
        let start = at.max(free);
        let end = start + self.ns;
        self.lanes[i] = end;
        self.pages += 1;
        self.busy_ns += self.ns;
        self.wait_ns += start.0 - at.0;
        end
    }

    /// Forget timing and counts.
    pub fn reset(&mut self) {
        self.lanes.iter_mut().for_each(|l| *l = SimTime::ZERO);
        self.pages = 0;
        self.busy_ns = 0;
        self.wait_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_first_come_first_served() {
        let mut h = HashEngine::new(14_000, 2);
        assert_eq!(h.run(SimTime(0)), SimTime(14_000));
        assert_eq!(h.run(SimTime(1_000)), SimTime(15_000));
        // Both busy: the third waits for lane 0 (free at 14 us).
        assert_eq!(h.run(SimTime(2_000)), SimTime(28_000));
        assert_eq!(h.wait_ns, 12_000);
        assert_eq!(h.busy_ns, 42_000);
        // After an idle stretch a page starts at once.
        assert_eq!(h.run(SimTime(100_000)), SimTime(114_000));
    }
}
