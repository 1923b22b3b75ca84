//! Channel arbitration: one page transfer at a time per channel, first come first served, or
//! (a back end advanced lazily) into the first gap that fits among its recent transfers.

use super::Scheduler;
use crate::units::{PlaneId, SimTime};

/// Out-of-order channel arbitration: transfers kept per channel, and how long after its end.
const CHAN_KEEP: usize = 256;
const CHAN_WINDOW_NS: u64 = 20_000_000;

impl Scheduler {
    /// Reserve plane `pi`'s channel for one page transfer requested at `now`.
    #[inline]
    pub(super) fn channel(&mut self, pi: usize, now: SimTime) -> (SimTime, SimTime) {
        self.channel_for(pi, now, self.xfer_ns)
    }

    /// Reserve plane `pi`'s channel for a transfer of `xfer_ns` requested at `now`.
    #[inline]
    pub(super) fn channel_for(
        &mut self,
        pi: usize,
        now: SimTime,
        xfer_ns: u64,
    ) -> (SimTime, SimTime) {
        let ch = self.geo.channel_of(PlaneId(pi as u32)) as usize;
        if let Some(busy) = self.chan_busy.as_mut() {
            let list = &mut busy[ch];
            // Transfers that ended this long before the request no longer matter.
            while list.len() > CHAN_KEEP
                || list
                    .front()
                    .is_some_and(|&(_, e)| e.0 + CHAN_WINDOW_NS < now.0)
            {
                list.pop_front();
            }
            let mut start = now;
            let mut at = list.len();
            for (i, &(s, e)) in list.iter().enumerate() {
                if start + xfer_ns <= s {
                    at = i;
                    break;
                }
                start = start.max(e);
            }
            let end = start + xfer_ns;
            list.insert(at, (start, end));
            self.chan_free[ch] = self.chan_free[ch].max(end);
            return (start, end);
        }
        let start = now.max(self.chan_free[ch]);
        let end = start + xfer_ns;
        self.chan_free[ch] = end;
        (start, end)
    }
}
