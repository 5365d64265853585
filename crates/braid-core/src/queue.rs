//! The event queue: events ordered by (time, insertion sequence).
//!
//! Equal times pop in insertion order, so runs are deterministic. Events are small `Copy` values;
//! anything larger lives in an arena and travels as a handle.
//!
//! It is a calendar queue (Brown, CACM 1988), not a general heap: almost every event of a packet
//! network is a serialisation time or a link delay ahead of the present, so the near future is
//! cut into a ring of `N_BUCKETS` buckets of one width (a power of two of picoseconds, 1.02 ns at
//! the start). Scheduling appends to the event's bucket; the bucket being consumed is sorted once,
//! when it is reached, and popped from its end; an event scheduled into it (or before it) is
//! inserted in order. Events beyond the ring's horizon wait in a 4-ary heap and move into the ring
//! as it turns. Ring buckets are lists threaded through one pool of nodes, so memory follows the
//! events pending, not the busiest moment of each bucket. As in Brown's queue, the width follows
//! the density of events: a network of a thousand hosts started together puts ~50 events in each
//! 1-ns bucket, and sorting them was an eighth of all the work; the calendar halves its width when
//! the buckets it consumes hold many events and doubles it when they hold few
//! ([`Calendar::retune`]). Every pop returns the least (time, sequence) key pending, exactly as a
//! heap would, whatever the width, so the order of events, and every output, is the heap's.
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

/// A pending event of the bucket being consumed or of the overflow heap, with its key as one
/// number for comparisons: time in picoseconds in the high 64 bits, sequence in the low 64.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    ev: E,
}
impl<E> Entry<E> {
    #[inline(always)]
    fn new(t_ps: u64, seq: u64, ev: E) -> Self {
        Entry { key: ((t_ps as u128) << 64) | seq as u128, ev }
    }
    #[inline(always)]
    fn t_ps(&self) -> u64 {
        (self.key >> 64) as u64
    }
    #[inline(always)]
    fn seq(&self) -> u64 {
        self.key as u64
    }
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

/// log2 of a calendar bucket's width in picoseconds at the start (1.024 ns), and the narrowest
/// and widest it becomes (128 ps, 4.2 µs horizon; 4.1 ns, 134 µs horizon).
const START_SHIFT: u32 = 10;
const MIN_SHIFT: u32 = 7;
const MAX_SHIFT: u32 = 12;
/// Buckets in the calendar's ring (a power of two): its horizon is `N_BUCKETS` bucket widths.
const N_BUCKETS: usize = 32768;
const RING_MASK: u64 = N_BUCKETS as u64 - 1;
/// The width is reconsidered after this many buckets consumed: halved when they held more than
/// `DENSE_EVENTS` events each on average, doubled when fewer than `SPARSE_EVENTS`.
const RETUNE_BUCKETS: u32 = 4096;
const DENSE_EVENTS: u32 = 12;
const SPARSE_EVENTS: u32 = 2;

/// A ring node: an event and its key as two words, stored as they are pushed (no 128-bit key is
/// built until the node leaves the ring). The link to the next node of its bucket is kept apart
/// (`Calendar::next`): walking a bucket's list and the free list chases those links, and 4-byte
/// links packed together miss the cache far less than links inside 32-byte nodes (with the link
/// in the node, 1.7 % fewer instructions but 4–5 % more wall time on (b) Rondo: BENCHMARKS.md,
/// "Tried and not kept").
#[derive(Clone, Copy)]
struct Node<E> {
    t_ps: u64,
    seq: u64,
    ev: E,
}
// An engine's event (a tag and two 32-bit words) with its key: 32 bytes, half a line.
const _: () = assert!(std::mem::size_of::<Node<[u32; 3]>>() == 32);

/// The calendar: the bucket being consumed (`current`, sorted by descending key), the ring of
/// later buckets within the horizon (unsorted lists threaded through one pool of nodes, with a
/// bitmap of the occupied buckets) and the heap of events beyond it. The pool holds at most as
/// many nodes as events were ever pending at once, so memory is the heap's, whatever the
/// burstiness. Invariant: `current` is empty only when the whole calendar is.
struct Calendar<E> {
    /// First node of each ring bucket's list, or `NIL` (fixed-size arrays: a masked index
    /// needs no bounds check).
    heads: Box<[u32; N_BUCKETS]>,
    occupied: Box<[u64; N_BUCKETS / 64]>,
    /// Absolute index of the bucket `current` holds.
    cur: u64,
    current: Vec<Entry<E>>,
    /// The node pool, and each node's successor in its bucket (or in the free list).
    nodes: Vec<Node<E>>,
    next: Vec<u32>,
    /// First free node, or `NIL`.
    free: u32,
    overflow: BinaryHeap<Entry<E>>,
    len: usize,
    /// log2 of the bucket width in picoseconds.
    shift: u32,
    /// Buckets still to consume before the width is reconsidered, and the events the buckets
    /// consumed since it last was held.
    retune_in: u32,
    window_events: u64,
    /// Buckets consumed between reconsiderations of the width (`RETUNE_BUCKETS`; tests set less).
    retune_every: u32,
}

/// No node.
const NIL: u32 = u32::MAX;

impl<E: Copy> Calendar<E> {
    fn new() -> Self {
        Calendar {
            heads: Box::new([NIL; N_BUCKETS]),
            occupied: Box::new([0; N_BUCKETS / 64]),
            cur: 0,
            current: Vec::new(),
            nodes: Vec::new(),
            next: Vec::new(),
            free: NIL,
            overflow: BinaryHeap::new(),
            len: 0,
            shift: START_SHIFT,
            retune_in: RETUNE_BUCKETS,
            window_events: 0,
            retune_every: RETUNE_BUCKETS,
        }
    }

    /// The bucket of a time: the time divided by the bucket width.
    #[inline(always)]
    fn bucket_of(&self, t_ps: u64) -> u64 {
        t_ps >> self.shift
    }

    #[inline(always)]
    fn push(&mut self, t_ps: u64, seq: u64, ev: E) {
        let b = self.bucket_of(t_ps);
        self.len += 1;
        // The common case: a later bucket within the horizon (`1 <= b - cur < N_BUCKETS`).
        if b.wrapping_sub(self.cur).wrapping_sub(1) < N_BUCKETS as u64 - 1
            && !self.current.is_empty()
        {
            self.put_in_ring(b, t_ps, seq, ev);
        } else {
            self.push_rare(b, Entry::new(t_ps, seq, ev));
        }
    }

    /// [`Calendar::push`] into an empty calendar, into (or before) the bucket being consumed, or
    /// beyond the horizon.
    #[inline(never)]
    fn push_rare(&mut self, b: u64, e: Entry<E>) {
        if self.current.is_empty() {
            // The calendar was empty: the event's bucket becomes the current one.
            self.cur = b;
            self.current.push(e);
        } else if b <= self.cur {
            let i = self.current.partition_point(|x| x.key > e.key);
            self.current.insert(i, e);
        } else {
            self.overflow.push(e);
        }
    }

    #[inline(always)]
    fn put_in_ring(&mut self, b: u64, t_ps: u64, seq: u64, ev: E) {
        let slot = (b & RING_MASK) as usize;
        let node = Node { t_ps, seq, ev };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.next[i as usize];
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            self.next.push(NIL);
            (self.nodes.len() - 1) as u32
        };
        self.next[i as usize] = self.heads[slot];
        self.heads[slot] = i;
        self.occupied[slot >> 6] |= 1 << (slot & 63);
    }

    /// Pop the least event if its time is at most `stop_ps`.
    #[inline]
    fn pop_until(&mut self, stop_ps: u64) -> Option<Entry<E>> {
        let e = *self.current.last()?;
        if e.t_ps() > stop_ps {
            return None;
        }
        self.current.pop();
        self.len -= 1;
        if self.current.is_empty() && self.len > 0 {
            self.advance();
        }
        Some(e)
    }

    #[inline]
    fn peek(&self) -> Option<&Entry<E>> {
        self.current.last()
    }

    /// The absolute index of the first occupied ring bucket after `cur`, if any.
    fn next_occupied(&self) -> Option<u64> {
        let start = ((self.cur + 1) & RING_MASK) as usize;
        let words = N_BUCKETS / 64;
        for k in 0..=words {
            let wi = ((start >> 6) + k) % words;
            let mut w = self.occupied[wi];
            if k == 0 {
                w &= !0u64 << (start & 63);
            } else if k == words {
                w &= !(!0u64 << (start & 63));
            }
            if w != 0 {
                let slot = wi * 64 + w.trailing_zeros() as usize;
                let dist = (slot + N_BUCKETS - start) as u64 & RING_MASK;
                return Some(self.cur + 1 + dist);
            }
        }
        None
    }

    /// `current` ran out: make the next occupied bucket (of the ring or, beyond it, of the
    /// overflow heap) current, bringing overflow events now within the horizon into the ring.
    #[cold]
    fn advance(&mut self) {
        if self.retune_in == 0 {
            self.retune();
        }
        let ring_next = self.next_occupied();
        let over_next = self.overflow.peek().map(|e| self.bucket_of(e.t_ps()));
        self.cur = match (ring_next, over_next) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return,
        };
        while self
            .overflow
            .peek()
            .is_some_and(|e| self.bucket_of(e.t_ps()) - self.cur < N_BUCKETS as u64)
        {
            let e = self.overflow.pop().expect("peeked");
            let t_ps = e.t_ps();
            self.put_in_ring(self.bucket_of(t_ps), t_ps, e.seq(), e.ev);
        }
        let slot = (self.cur & RING_MASK) as usize;
        let mut i = std::mem::replace(&mut self.heads[slot], NIL);
        while i != NIL {
            let n = &self.nodes[i as usize];
            self.current.push(Entry::new(n.t_ps, n.seq, n.ev));
            let next = std::mem::replace(&mut self.next[i as usize], self.free);
            self.free = i;
            i = next;
        }
        self.occupied[slot >> 6] &= !(1 << (slot & 63));
        self.retune_in -= 1;
        self.window_events += self.current.len() as u64;
        if self.current.len() > 1 {
            self.current.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
    }

    /// Between buckets (`current` empty), reconsider the width from the buckets consumed since
    /// last time: halve it when they held more than `DENSE_EVENTS` events each, double it when
    /// fewer than `SPARSE_EVENTS`, and then put every event of the ring back into the bucket of
    /// the new width (or into the heap, beyond the new horizon). Rare: it costs a pass over the
    /// pending events. The order of pops does not depend on the width.
    #[cold]
    #[inline(never)]
    fn retune(&mut self) {
        debug_assert!(self.current.is_empty());
        let (buckets, events) = (self.retune_every, self.window_events);
        self.retune_in = self.retune_every;
        self.window_events = 0;
        let shift = if events > DENSE_EVENTS as u64 * buckets as u64 && self.shift > MIN_SHIFT {
            self.shift - 1
        } else if events < SPARSE_EVENTS as u64 * buckets as u64 && self.shift < MAX_SHIFT {
            self.shift + 1
        } else {
            return;
        };
        // Every pending event lies beyond the consumed bucket `cur`: at or after the start of
        // bucket `cur + 1`, whose first picosecond names the consumed bucket of the new width
        // (none before the first bucket of the new width has passed, or at the end of time).
        let Some(start_ps) = (self.cur + 1).checked_mul(1 << self.shift) else {
            return;
        };
        if start_ps >> shift == 0 {
            return;
        }
        let mut pending: Vec<Entry<E>> = Vec::with_capacity(self.len - self.overflow.len());
        for slot in 0..N_BUCKETS {
            let mut i = std::mem::replace(&mut self.heads[slot], NIL);
            while i != NIL {
                let n = &self.nodes[i as usize];
                pending.push(Entry::new(n.t_ps, n.seq, n.ev));
                i = self.next[i as usize];
            }
        }
        self.occupied.fill(0);
        self.nodes.clear();
        self.next.clear();
        self.free = NIL;
        self.shift = shift;
        self.cur = (start_ps >> shift) - 1;
        for e in pending {
            let b = self.bucket_of(e.t_ps());
            debug_assert!(b > self.cur, "a pending event lies beyond the consumed bucket");
            if b - self.cur < N_BUCKETS as u64 {
                self.put_in_ring(b, e.t_ps(), e.seq(), e.ev);
            } else {
                self.overflow.push(e);
            }
        }
    }
}

/// A deterministic discrete-event queue.
pub struct EventQueue<E> {
    cal: Calendar<E>,
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

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            cal: Calendar::new(),
            seq: 0,
            now: Time::ZERO,
            popped: 0,
            origins: Vec::new(),
            origin: 0,
            last_seq: 0,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }
    /// Break ties among equal times by (origin, per-origin sequence) instead of one global
    /// insertion sequence, for origins `0..n_origins` (at most 2^24, each with fewer than 2^40
    /// events). Call before anything is scheduled.
    pub fn use_origin_keys(&mut self, n_origins: usize) {
        assert!(
            self.cal.len == 0 && n_origins < (1 << 24),
            "use_origin_keys: queue not empty or too many origins"
        );
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
    #[inline(always)]
    pub fn push(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        let seq = self.next_seq();
        self.cal.push(at.ps(), seq, ev);
    }
    /// Take the next insertion sequence number without scheduling anything yet. An event later
    /// pushed with [`EventQueue::push_with_seq`] and this number sorts among equal-time events as
    /// if it had been pushed now (a link's wire queue uses this to keep the order of arrivals).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq()
    }
    /// Schedule `ev` at `at` with a sequence number from [`EventQueue::reserve_seq`].
    #[inline(always)]
    pub fn push_with_seq(&mut self, at: Time, seq: u64, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.cal.push(at.ps(), seq, ev);
    }
    /// Pop the earliest event and advance the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.pop_until(Time::MAX)
    }
    /// Pop the earliest event if it is due by `stop` (its time ≤ `stop`), advancing the clock to
    /// its time; `None`, removing nothing, when the queue is empty or its earliest event is later.
    #[inline]
    pub fn pop_until(&mut self, stop: Time) -> Option<(Time, E)> {
        let e = self.cal.pop_until(stop.ps())?;
        let t = Time::from_ps(e.t_ps());
        self.now = t;
        self.last_seq = e.seq();
        self.popped += 1;
        Some((t, e.ev))
    }
    /// The next event to pop, if any (the engine prefetches what it names; an event scheduled
    /// before the next pop may still come first).
    #[inline]
    pub fn peek_event(&self) -> Option<&E> {
        self.cal.peek().map(|e| &e.ev)
    }
    /// The time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.cal.peek().map(|e| Time::from_ps(e.t_ps()))
    }
    /// Pending events.
    pub fn len(&self) -> usize {
        self.cal.len
    }
    /// No pending events.
    pub fn is_empty(&self) -> bool {
        self.cal.len == 0
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
    fn pop_until_takes_only_what_is_due_and_peek_names_the_next() {
        let mut q = EventQueue::new();
        q.push(Time::from_ps(5), 'a');
        q.push(Time::from_ps(9), 'b');
        assert_eq!(q.peek_event(), Some(&'a'));
        assert_eq!(q.pop_until(Time::from_ps(4)), None);
        assert_eq!(q.len(), 2, "an event not yet due stays");
        assert_eq!(q.pop_until(Time::from_ps(5)), Some((Time::from_ps(5), 'a')));
        assert_eq!(q.now(), Time::from_ps(5));
        assert_eq!(q.peek_event(), Some(&'b'));
        assert_eq!(q.pop_until(Time::from_ps(8)), None);
        assert_eq!(q.pop_until(Time::MAX), Some((Time::from_ps(9), 'b')));
        assert_eq!(q.pop_until(Time::MAX), None);
        assert_eq!(q.peek_event(), None);
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
    /// The calendar pops exactly what a heap of (time, sequence) keys pops, whatever the
    /// schedule: ties, events scheduled at the present and into the bucket being consumed,
    /// reserved sequence numbers, long idle gaps and events far beyond the ring's horizon.
    #[test]
    fn pops_in_key_order_like_a_heap() {
        use crate::rng::Rng;
        use std::collections::BTreeSet;
        let mut rng = Rng::new(11);
        let mut shifts = BTreeSet::new();
        for case in 0..200u64 {
            let mut q = EventQueue::new();
            // Half the cases reconsider the bucket width after every few buckets, so that it
            // changes often, with events pending in the ring and the heap.
            if case % 2 == 1 {
                q.cal.retune_every = 1 + (case as u32 / 2) % 5;
                q.cal.retune_in = q.cal.retune_every;
            }
            let mut reference: BTreeSet<(u64, u64, u32)> = BTreeSet::new();
            let mut reserved: Vec<u64> = Vec::new();
            let mut id = 0u32;
            let scale = [1u64, 1 << 10, 1 << 14, 1 << 20, 1 << 30][case as usize % 5];
            for _ in 0..2_000 {
                let now = q.now().ps();
                // Some cases keep the queue nearly empty (more pops than pushes), so that the
                // ring is often bare and the overflow heap decides the next bucket.
                let pushes = 3 + case % 4;
                match rng.below(10) {
                    r if r < pushes => {
                        let horizon = (N_BUCKETS as u64) << q.cal.shift;
                        let dt = match rng.below(8) {
                            0 => 0,
                            1 => rng.below(1 << 12),
                            2 => horizon - (1 << 18) + rng.below(1 << 19),
                            3 => rng.below(1 << 40),
                            _ => rng.below(scale * 64),
                        };
                        let at = Time::from_ps(now + dt);
                        if !reserved.is_empty() && rng.below(3) == 0 {
                            let seq =
                                reserved.swap_remove(rng.below(reserved.len() as u64) as usize);
                            q.push_with_seq(at, seq, id);
                            reference.insert((at.ps(), seq, id));
                        } else {
                            q.push(at, id);
                            reference.insert((at.ps(), q.seq - 1, id));
                        }
                        id += 1;
                    }
                    r if r == pushes => reserved.push(q.reserve_seq()),
                    _ => {
                        let want = reference.pop_first();
                        assert_eq!(q.peek_time().map(|t| t.ps()), want.map(|w| w.0), "case {case}");
                        let got = q.pop();
                        assert_eq!(
                            got.map(|(t, e)| (t.ps(), q.last_seq(), e)),
                            want,
                            "case {case}"
                        );
                    }
                }
                assert_eq!(q.len(), reference.len());
                shifts.insert(q.cal.shift);
            }
            while let Some(want) = reference.pop_first() {
                assert_eq!(
                    q.pop().map(|(t, e)| (t.ps(), q.last_seq(), e)),
                    Some(want),
                    "case {case}"
                );
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
        // The width was narrowed and widened along the way.
        assert!(
            shifts.first() < Some(&START_SHIFT) && shifts.last() > Some(&START_SHIFT),
            "widths seen: {shifts:?}"
        );
    }
}
