//! The event queue: a binary min-heap ordered by (time, insertion sequence).
//!
//! Equal times pop in insertion order, so runs are deterministic. Events are small `Copy` values;
//! anything larger lives in an arena and travels as a handle.

use crate::time::Time;
use std::cmp::Ordering;
use dary_heap::QuaternaryHeap as BinaryHeap;

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
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), seq: 0, now: Time::ZERO, popped: 0 }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
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
        let key = ((at.ps() as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, ev });
    }
    /// Take the next insertion sequence number without scheduling anything yet. An event later
    /// pushed with [`EventQueue::push_with_seq`] and this number sorts among equal-time events as
    /// if it had been pushed now (a link's wire queue uses this to keep the order of arrivals).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let s = self.seq;
        self.seq += 1;
        s
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
}
