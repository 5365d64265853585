//! LCMP's per-switch flow cache (`flow2output`, paper §3.1.2 steps 2 and 4): flow id → chosen
//! egress and last-seen time, with idle expiry and *amortised* garbage collection.
//!
//! Lookups treat an entry idle for longer than the timeout as absent (so expiry is exact whether
//! or not the collector has reached the entry yet). The collector never scans the table: every
//! insertion appends `(key, now)` to a FIFO, and each operation examines at most `budget` entries
//! at the head of the FIFO that are at least one timeout old — removing the ones whose entry has
//! been idle that long and re-queueing the others with the current time. Each live entry is
//! therefore examined at most once per timeout period, the FIFO stays in time order, and the cost
//! per packet is O(budget). (The artifact instead scans the whole map on every packet,
//! `docs/lcmp.md`, artifact profile.)
//!
//! The map uses a fixed, seedless hasher, so a run is deterministic; nothing iterates over it.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use braid_core::Time;

/// A fast multiplicative hasher for the 128-bit flow keys (keys are already well mixed), also
/// used for the simulator's other maps that are only looked up, never iterated (its path caches,
/// its routing tables' set pool): seedless, so runs are deterministic.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    #[inline]
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
        self.0 ^= self.0 >> 29;
    }
}

/// One cached decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheEntry {
    /// The chosen egress (the switch's local port index).
    pub port: u16,
    /// When a packet of the flow was last seen.
    pub last_seen: Time,
}

/// Outcome of [`FlowCache::lookup`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheLookup {
    /// A live entry: forward on this port (its last-seen time was refreshed).
    Hit(u16),
    /// No entry (never seen, or idle-expired).
    Miss,
    /// The entry pointed to a port that is down; it was invalidated (fast failover, §3.4).
    Invalidated(u16),
}

/// Counters of a flow cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that hit a live entry.
    pub hits: u64,
    /// Lookups that found nothing (new flows and expired entries).
    pub misses: u64,
    /// Entries found idle-expired at lookup.
    pub expired_at_lookup: u64,
    /// Entries invalidated because their port was down.
    pub invalidated: u64,
    /// Entries removed by the garbage collector.
    pub collected: u64,
    /// Entries examined by the garbage collector.
    pub gc_examined: u64,
    /// Largest number of entries held at once.
    pub peak_entries: u64,
    /// Entries × time held, integrated since the first insertion (entry-picoseconds): the mean
    /// number of entries over a span is this over the span ([`FlowCache::mean_entries`]).
    pub entry_ps: u128,
    /// Idle time of the entries the collector removed, summed (picoseconds) and at most.
    pub evicted_idle_ps_sum: u128,
    /// The longest idle time of an entry the collector removed.
    pub evicted_idle_max: Time,
    /// Insertions refused because the cache was at its capacity (`routing.flow_cache_capacity`).
    pub refused_full: u64,
}

/// The flow cache.
#[derive(Clone, Debug)]
pub struct FlowCache {
    map: HashMap<u128, CacheEntry, BuildHasherDefault<KeyHasher>>,
    fifo: VecDeque<(u128, Time)>,
    idle_timeout: Time,
    budget: u32,
    /// At most this many entries (`None`: unbounded).
    capacity: Option<usize>,
    /// First insertion and the last change of the entry count (for [`CacheStats::entry_ps`]).
    first_insert: Option<Time>,
    last_change: Time,
    /// Counters.
    pub stats: CacheStats,
}

impl FlowCache {
    /// An empty cache whose entries expire after `idle_timeout` without packets; the collector
    /// examines at most `budget` (≥ 1) entries per operation.
    pub fn new(idle_timeout: Time, budget: u32) -> FlowCache {
        FlowCache {
            map: HashMap::default(),
            fifo: VecDeque::new(),
            idle_timeout: idle_timeout.max(Time::from_ps(1)),
            budget: budget.max(1),
            capacity: None,
            first_insert: None,
            last_change: Time::ZERO,
            stats: CacheStats::default(),
        }
    }

    /// Hold at most `capacity` entries: [`FlowCache::insert`] refuses a new key beyond it (LCMP
    /// §4 sizes a DCI's cache at 50,000 entries; `routing.flow_cache_capacity`).
    pub fn with_capacity_limit(mut self, capacity: Option<usize>) -> FlowCache {
        self.capacity = capacity;
        self
    }

    /// Whether a new key would be refused now.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.capacity.is_some_and(|c| self.map.len() >= c)
    }

    /// Account the entry count held from the last change until `now`.
    #[inline]
    fn advance(&mut self, now: Time) {
        if self.first_insert.is_some() && now > self.last_change {
            self.stats.entry_ps += self.map.len() as u128 * (now - self.last_change).ps() as u128;
            self.last_change = now;
        }
    }

    /// The time-weighted mean number of entries from the first insertion until `now` (0 before).
    pub fn mean_entries(&self, now: Time) -> f64 {
        let Some(first) = self.first_insert else { return 0.0 };
        let tail = self.map.len() as u128 * now.saturating_sub(self.last_change).ps() as u128;
        let span = now.saturating_sub(first).ps();
        if span == 0 {
            self.map.len() as f64
        } else {
            (self.stats.entry_ps + tail) as f64 / span as f64
        }
    }

    /// Entries held (live or expired but not yet collected).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// No entries held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Look up `key` at `now`. `port_up(p)` tells whether local port `p` is up: an entry on a down
    /// port is invalidated. Runs one garbage-collection step.
    #[inline]
    pub fn lookup(&mut self, now: Time, key: u128, port_up: impl Fn(u16) -> bool) -> CacheLookup {
        self.gc_step(now);
        let timeout = self.idle_timeout;
        let r = match self.map.get_mut(&key) {
            None => CacheLookup::Miss,
            Some(e) if now.saturating_sub(e.last_seen) > timeout => {
                self.stats.expired_at_lookup += 1;
                self.advance(now);
                self.map.remove(&key);
                CacheLookup::Miss
            }
            Some(e) if !port_up(e.port) => {
                let p = e.port;
                self.stats.invalidated += 1;
                self.advance(now);
                self.map.remove(&key);
                return CacheLookup::Invalidated(p);
            }
            Some(e) => {
                e.last_seen = now;
                self.stats.hits += 1;
                return CacheLookup::Hit(e.port);
            }
        };
        self.stats.misses += 1;
        r
    }

    /// Record (or overwrite) the decision for `key`. Returns false, recording nothing, when `key`
    /// is new and the cache is at its capacity.
    #[inline]
    pub fn insert(&mut self, now: Time, key: u128, port: u16) -> bool {
        if let Some(e) = self.map.get_mut(&key) {
            *e = CacheEntry { port, last_seen: now };
            return true;
        }
        if self.is_full() {
            self.stats.refused_full += 1;
            return false;
        }
        if self.first_insert.is_none() {
            self.first_insert = Some(now);
            self.last_change = now;
        }
        self.advance(now);
        self.map.insert(key, CacheEntry { port, last_seen: now });
        self.fifo.push_back((key, now));
        self.stats.peak_entries = self.stats.peak_entries.max(self.map.len() as u64);
        true
    }

    /// The entry for `key`, if any (no refresh, no expiry check).
    pub fn peek(&self, key: u128) -> Option<CacheEntry> {
        self.map.get(&key).copied()
    }

    /// One amortised collection step: examine at most `budget` FIFO heads that are at least one
    /// idle timeout old.
    #[inline]
    pub fn gc_step(&mut self, now: Time) {
        for _ in 0..self.budget {
            let Some(&(key, queued)) = self.fifo.front() else { return };
            if now.saturating_sub(queued) < self.idle_timeout {
                return;
            }
            self.fifo.pop_front();
            self.stats.gc_examined += 1;
            if let Some(e) = self.map.get(&key) {
                let idle = now.saturating_sub(e.last_seen);
                if idle > self.idle_timeout {
                    self.advance(now);
                    self.map.remove(&key);
                    self.stats.collected += 1;
                    self.stats.evicted_idle_ps_sum += idle.ps() as u128;
                    self.stats.evicted_idle_max = self.stats.evicted_idle_max.max(idle);
                } else {
                    self.fifo.push_back((key, now));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_miss_refresh_and_expiry() {
        let mut c = FlowCache::new(Time::from_ms(2), 2);
        let up = |_| true;
        assert_eq!(c.lookup(Time::ZERO, 7, up), CacheLookup::Miss);
        c.insert(Time::ZERO, 7, 3);
        assert_eq!(c.lookup(Time::from_ms(1), 7, up), CacheLookup::Hit(3));
        // Refreshed at 1 ms: still live at 3 ms.
        assert_eq!(c.lookup(Time::from_ms(3), 7, up), CacheLookup::Hit(3));
        // Idle for more than 2 ms: gone (collected, or found expired at lookup).
        assert_eq!(c.lookup(Time::from_us(5_001), 7, up), CacheLookup::Miss);
        assert_eq!(c.stats.expired_at_lookup + c.stats.collected, 1);
        assert!(c.is_empty());
        // Expiry is exact even when the collector has not reached the entry: a budget-1 cache
        // whose FIFO head is a live flow still reports an idle entry behind it as expired.
        let mut c = FlowCache::new(Time::from_ms(2), 1);
        c.insert(Time::ZERO, 1, 0);
        c.insert(Time::from_us(1), 2, 0);
        for t in 1..=5u64 {
            assert_eq!(c.lookup(Time::from_us(1000 * t), 1, up), CacheLookup::Hit(0));
        }
        assert_eq!(c.lookup(Time::from_us(5_000), 2, up), CacheLookup::Miss);
    }

    #[test]
    fn occupancy_is_integrated_and_capacity_refuses_new_keys() {
        let mut c = FlowCache::new(Time::from_ms(2), 2).with_capacity_limit(Some(2));
        assert!(c.insert(Time::ZERO, 1, 0));
        assert!(c.insert(Time::from_us(100), 2, 0));
        assert!(!c.insert(Time::from_us(200), 3, 0), "full");
        assert!(c.insert(Time::from_us(300), 1, 1), "an existing key is updated");
        assert_eq!(c.stats.refused_full, 1);
        assert_eq!(c.stats.peak_entries, 2);
        // 1 entry for 100 µs, then 2 for 100 µs: mean 1.5 over 200 µs.
        assert!((c.mean_entries(Time::from_us(200)) - 1.5).abs() < 1e-9);
        // Both idle past the timeout: collected, with their idle times recorded.
        let t = Time::from_us(300 + 2_500);
        c.gc_step(t);
        c.gc_step(t);
        assert_eq!(c.stats.collected, 2);
        assert_eq!(c.stats.evicted_idle_max, Time::from_us(2_700));
        assert!(c.insert(t, 3, 0), "room again");
    }

    #[test]
    fn failover_invalidates() {
        let mut c = FlowCache::new(Time::from_ms(2), 2);
        c.insert(Time::ZERO, 1, 4);
        c.insert(Time::ZERO, 2, 5);
        let down4 = |p: u16| p != 4;
        assert_eq!(c.lookup(Time::from_us(1), 1, down4), CacheLookup::Invalidated(4));
        assert_eq!(c.lookup(Time::from_us(1), 2, down4), CacheLookup::Hit(5));
        assert_eq!(c.lookup(Time::from_us(2), 1, down4), CacheLookup::Miss);
        c.insert(Time::from_us(2), 1, 5);
        assert_eq!(c.lookup(Time::from_us(3), 1, down4), CacheLookup::Hit(5));
        assert_eq!(c.stats.invalidated, 1);
    }

    /// The collector removes idle entries without a full scan: each step examines at most
    /// `budget` entries, and a burst of old flows is cleared over a few later lookups.
    #[test]
    fn amortised_gc_bounds_work_and_memory() {
        let mut c = FlowCache::new(Time::from_us(100), 4);
        for k in 0..1000u128 {
            c.insert(Time::from_ns(k as u64), k, 0);
        }
        assert_eq!(c.len(), 1000);
        // One flow stays active.
        let mut t = Time::from_us(50);
        let mut steps = 0;
        while c.len() > 1 {
            t += Time::from_us(1);
            let before = c.stats.gc_examined;
            assert!(matches!(c.lookup(t, 5, |_| true), CacheLookup::Hit(0) | CacheLookup::Miss));
            if c.peek(5).is_none() {
                c.insert(t, 5, 0);
            }
            assert!(c.stats.gc_examined - before <= 4);
            steps += 1;
            assert!(steps < 1000, "collector made no progress");
        }
        // 999 idle entries removed in ~250 steps of 4, plus the re-queued active one.
        assert!(c.stats.collected >= 999);
        assert!(steps <= 400, "{steps}");
        assert!(c.fifo.len() <= 2);
    }
}
