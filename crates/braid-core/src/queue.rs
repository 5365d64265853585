//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Equal times pop in insertion order, so runs are deterministic. Events are small `Copy` values;
//! anything larger lives in an arena and travels as a handle.
//!
//! With [`EventQueue::use_origin_keys`] the tie-break among equal times is instead (origin,
//! that origin's own sequence): the caller names, before it schedules, which node the work
//! belongs to ([`EventQueue::set_origin`]). That order does not depend on how the nodes are
//! spread over queues, so a network split into partitions, each with its own queue, processes
//! every node's events in the same order as one queue holding them all (`braid run --threads`,
//! `docs/parallel.md`).

use crate::time::Time;
use dary_heap::QuaternaryHeap as BinaryHeap;
use std::cmp::Ordering;

struct Entry<E> {
    key: u128, // time in the high 64 bits, sequence in the low 64
    ev: E,
}
impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

/// A deterministic discrete-event queue.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
    /// Per-origin sequence counters (empty: one global sequence).
    origins: Vec<u64>,
    /// The origin of what is scheduled now (with origin keys).
    origin: u32,
    /// The sequence part of the key of the last popped event.
    last_seq: u64,
}

/// Bits of an origin-keyed sequence number left for the origin's own counter.
const ORIGIN_SHIFT: u32 = 40;

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), seq: 0, now: Time::ZERO, popped: 0, origins: Vec::new(), origin: 0, last_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }
    /// Break ties among equal times by (origin, per-origin sequence) instead of one global
    /// insertion sequence, for origins `0..n_origins` (at most 2^24, each with fewer than 2^40
    /// events). Call before anything is scheduled.
    pub fn use_origin_keys(&mut self, n_origins: usize) {
        assert!(self.heap.is_empty() && n_origins < (1 << 24), "use_origin_keys: queue not empty or too many origins");
        self.origins = vec![0; n_origins.max(1)];
    }
    /// Whether ties are broken by origin ([`EventQueue::use_origin_keys`]).
    #[inline]
    pub fn origin_keyed(&self) -> bool {
        !self.origins.is_empty()
    }
    /// Name the origin of the events scheduled from now on (with origin keys; ignored otherwise).
    #[inline]
    pub fn set_origin(&mut self, origin: u32) {
        self.origin = origin;
    }
    /// The sequence part of the key of the last popped event: with the time, a key no other
    /// event shares.
    #[inline]
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }
    /// Take over another queue's clock and count (merging partitions after a run): the later
    /// `now`, and the sum of events popped less `shared` events both queues processed.
    pub fn absorb(&mut self, other: &EventQueue<E>, shared: u64) {
        self.now = self.now.max(other.now);
        self.popped += other.popped - shared;
    }
    #[inline]
    fn next_seq(&mut self) -> u64 {
        if self.origins.is_empty() {
            let s = self.seq;
            self.seq += 1;
            s
        } else {
            let c = &mut self.origins[self.origin as usize];
            let s = ((self.origin as u64) << ORIGIN_SHIFT) | *c;
            *c += 1;
            s
        }
    }
    /// The time of the last popped event.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Schedule `ev` at `at`. Scheduling in the past is a bug; it is clamped to now.
    #[inline]
    pub fn push(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        let key = ((at.ps() as u128) << 64) | self.next_seq() as u128;
        self.heap.push(Entry { key, ev });
    }
    /// Take the next insertion sequence number without scheduling anything yet. An event later
    /// pushed with [`EventQueue::push_with_seq`] and this number sorts among equal-time events as
    /// if it had been pushed now (a link's wire queue uses this to keep the order of arrivals).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq()
    }
    /// Schedule `ev` at `at` with a sequence number from [`EventQueue::reserve_seq`].
    #[inline]
    pub fn push_with_seq(&mut self, at: Time, seq: u64, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.heap.push(Entry { key: ((at.ps() as u128) << 64) | seq as u128, ev });
    }
    /// Pop the earliest event and advance the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        let t = Time::from_ps((e.key >> 64) as u64);
        self.now = t;
        self.last_seq = e.key as u64;
        self.popped += 1;
        Some((t, e.ev))
    }
    /// The time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time::from_ps((e.key >> 64) as u64))
    }
    /// Pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// No pending events.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(Time::from_ps(5), 'a');
        q.push(Time::from_ps(3), 'b');
        q.push(Time::from_ps(5), 'c');
        q.push(Time::from_ps(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), Time::from_ps(5));
    }

    #[test]
    fn origin_keys_order_ties_by_origin_then_its_own_sequence() {
        let mut q = EventQueue::new();
        q.use_origin_keys(3);
        for (o, c) in [(2, 'a'), (0, 'b'), (2, 'c'), (1, 'd'), (0, 'e')] {
            q.set_origin(o);
            q.push(Time::from_ps(7), c);
        }
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(order, vec!['b', 'e', 'd', 'a', 'c']);
        // The same events spread over two queues, merged by key, come out the same.
        let (mut a, mut b) = (EventQueue::new(), EventQueue::new());
        a.use_origin_keys(3);
        b.use_origin_keys(3);
        for (o, c) in [(2, 'a'), (0, 'b'), (2, 'c'), (1, 'd'), (0, 'e')] {
            let q = if o == 1 { &mut b } else { &mut a };
            q.set_origin(o);
            q.push(Time::from_ps(7), c);
        }
        let mut keyed: Vec<(u64, char)> = Vec::new();
        for q in [&mut a, &mut b] {
            while let Some((_, c)) = q.pop() {
                keyed.push((q.last_seq(), c));
            }
        }
        keyed.sort();
        assert_eq!(keyed.iter().map(|x| x.1).collect::<Vec<_>>(), order);
    }
}
