//! The packets on a link behind the one whose arrival is scheduled, stored compactly.
//!
//! A link delivers in order, so only the head packet's arrival sits in the event queue; the
//! packets behind it wait here with their arrival time and the event sequence number reserved
//! when they started serialising (which keeps the order of equal-time events exactly as if
//! every arrival had been scheduled at once). On a long link this queue holds a bandwidth-delay
//! product of packets — millions on the inter-DC networks of LCMP's evaluation — so an entry
//! stores its time and sequence as differences from the packet before it on the link: 12 bytes
//! instead of 24. A difference wider than 32 bits takes a second entry, so every value
//! round-trips exactly (wrapping arithmetic: nothing is assumed of the order either).

use braid_core::Time;
use std::collections::VecDeque;

/// Marks an entry that carries the high 32 bits of the next entry's differences. Packet handles
/// are arena indices, far below it.
const WIDE: u32 = u32::MAX;

/// One entry: `[time difference (ps), sequence difference, packet]`, each difference from the
/// packet before it on the link; a `WIDE` entry carries the high halves of the next entry's.
type Entry = [u32; 3];

/// The packets on a link behind its head: `(arrival time, event sequence, packet handle)` in the
/// order they were put on it.
#[derive(Clone, Debug, Default)]
pub struct WireQueue {
    entries: VecDeque<Entry>,
    /// Arrival time (ps) and sequence of the last packet put on the link (queued here or the head).
    tail_ps: u64,
    tail_seq: u64,
}

impl WireQueue {
    /// No packet behind the head.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Note the packet that became the head (its arrival is in the event queue, not here): the
    /// next one pushed is stored relative to it.
    #[inline]
    pub fn set_head(&mut self, at: Time, seq: u64) {
        debug_assert!(self.entries.is_empty(), "a new head while packets wait behind the old one");
        self.tail_ps = at.ps();
        self.tail_seq = seq;
    }

    /// Arrival time and sequence of the last packet put on the link.
    #[inline]
    pub fn tail(&self) -> (Time, u64) {
        (Time::from_ps(self.tail_ps), self.tail_seq)
    }

    /// Queue `pkt`, arriving at `at` with event sequence `seq`, behind the last packet on the link.
    #[inline(always)]
    pub fn push(&mut self, at: Time, seq: u64, pkt: u32) {
        debug_assert!(pkt != WIDE, "packet handle {pkt} collides with the wide-entry marker");
        let dt = at.ps().wrapping_sub(self.tail_ps);
        let ds = seq.wrapping_sub(self.tail_seq);
        self.tail_ps = at.ps();
        self.tail_seq = seq;
        if (dt | ds) >> 32 != 0 || self.entries.len() + 2 > self.entries.capacity() {
            self.push_rare(dt, ds, pkt);
        } else {
            self.entries.push_back([dt as u32, ds as u32, pkt]);
        }
    }

    /// [`WireQueue::push`] of differences wider than 32 bits, or into a full buffer.
    #[inline(never)]
    fn push_rare(&mut self, dt: u64, ds: u64, pkt: u32) {
        if self.entries.len() + 2 > self.entries.capacity() {
            // By a quarter, not double: a long link's wire holds a bandwidth-delay product of
            // packets, and the wires together are most of a run's memory after the packets.
            self.entries.reserve_exact((self.entries.len() / 4).max(8));
        }
        if (dt | ds) >> 32 != 0 {
            self.entries.push_back([(dt >> 32) as u32, (ds >> 32) as u32, WIDE]);
        }
        self.entries.push_back([dt as u32, ds as u32, pkt]);
    }

    /// Take the packet behind the one that arrived at `prev_at` with sequence `prev_seq` (the
    /// head being delivered): its `(arrival time, sequence, packet)`.
    #[inline(always)]
    pub fn pop(&mut self, prev_at: Time, prev_seq: u64) -> Option<(Time, u64, u32)> {
        let [t, s, mut pkt] = self.entries.pop_front()?;
        let (mut dt, mut ds) = (t as u64, s as u64);
        if pkt == WIDE {
            let [lo_t, lo_s, p] =
                self.entries.pop_front().expect("a wide entry is followed by its packet's");
            (dt, ds, pkt) = ((dt << 32) | lo_t as u64, (ds << 32) | lo_s as u64, p);
        }
        Some((Time::from_ps(prev_at.ps().wrapping_add(dt)), prev_seq.wrapping_add(ds), pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Put `items` on a link one after the other (the first is the head) and deliver them: every
    /// value comes back exactly, in order.
    fn round_trip(items: &[(u64, u64, u32)]) {
        let mut w = WireQueue::default();
        let (t0, s0, _) = items[0];
        w.set_head(Time::from_ps(t0), s0);
        for &(t, s, p) in &items[1..] {
            w.push(Time::from_ps(t), s, p);
        }
        let (mut prev_t, mut prev_s) = (Time::from_ps(t0), s0);
        for &(t, s, p) in &items[1..] {
            let got = w.pop(prev_t, prev_s).expect("a packet behind the head");
            assert_eq!(got, (Time::from_ps(t), s, p));
            (prev_t, prev_s) = (got.0, got.1);
        }
        assert!(w.is_empty());
        assert_eq!(w.pop(prev_t, prev_s), None);
    }

    #[test]
    fn wide_differences_take_two_entries_and_round_trip() {
        // A 10 ms gap (beyond 32 bits of picoseconds), a sequence jump beyond 32 bits (origin
        // keys put the origin in the high bits), and an ordinary 1 µs step.
        let items = [
            (0, 5, 0),
            (10_000_000_000, 6, 1),
            (10_000_001_000, 6 + (7 << 40), 2),
            (10_000_002_000, 7 + (7 << 40), 3),
        ];
        round_trip(&items);
        let mut w = WireQueue::default();
        w.set_head(Time::ZERO, 5);
        w.push(Time::from_ps(1_000), 6, 9);
        assert_eq!(w.entries.len(), 1, "a narrow difference is one entry");
        w.push(Time::from_ps(10_000_000_000), 7, 10);
        assert_eq!(w.entries.len(), 3, "a wide difference is two entries");
    }

    proptest! {
        #[test]
        fn any_sequence_round_trips(head in (any::<u64>(), any::<u64>()),
                                    steps in proptest::collection::vec((0u64..3, any::<u64>(), any::<u64>(), 0u32..u32::MAX), 1..60)) {
            // Differences of every width: small, at the 32-bit edge, and arbitrary (wrapping).
            let mut items = vec![(head.0, head.1, 0)];
            for (kind, a, b, p) in steps {
                let (t, s, _) = *items.last().unwrap();
                let (dt, ds) = match kind { 0 => (a % 5_000_000, b % 1_000), 1 => ((1 << 32) - 1 + a % 3, (1 << 32) - 1 + b % 3), _ => (a, b) };
                items.push((t.wrapping_add(dt), s.wrapping_add(ds), p));
            }
            round_trip(&items);
        }

        /// Pushes and deliveries interleaved as on a link (the ring wraps and grows while
        /// packets wait): every delivery is the oldest packet pushed, exactly.
        #[test]
        fn interleaved_pushes_and_deliveries_keep_order(ops in proptest::collection::vec((any::<bool>(), 0u64..3, any::<u64>()), 1..400)) {
            let mut w = WireQueue::default();
            let mut model = std::collections::VecDeque::new();
            let (mut t, mut s, mut next_pkt) = (0u64, 0u64, 0u32);
            // The head: in flight, not in the queue.
            let mut head: Option<(Time, u64)> = None;
            for (push, kind, a) in ops {
                if push {
                    t = t.wrapping_add(match kind { 0 => a % 400_000, 1 => (1 << 32) + a % 7, _ => a });
                    s = s.wrapping_add(1 + a % 3);
                    if head.is_none() {
                        head = Some((Time::from_ps(t), s));
                        w.set_head(Time::from_ps(t), s);
                    } else {
                        w.push(Time::from_ps(t), s, next_pkt);
                        model.push_back((Time::from_ps(t), s, next_pkt));
                    }
                    next_pkt += 1;
                } else if let Some((ht, hs)) = head {
                    // The head arrives: the packet behind it (if any) becomes the head.
                    let got = w.pop(ht, hs);
                    prop_assert_eq!(got, model.pop_front());
                    head = got.map(|(t, s, _)| (t, s));
                }
            }
        }
    }
}
