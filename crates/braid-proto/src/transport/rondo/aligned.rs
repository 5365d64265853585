//! Arrival-aligned forward-delay differences between a flow's paths: the start-up estimate of
//! Rondo's packet scheduler (§4.3, Eq 7) before its stability gate first opens
//! (`scheduler_start = "first-samples"`).
//!
//! Eq 7 needs only the differences `D_p − D_q`. Two one-way delay samples taken at different
//! times differ also by whatever a shared queue did in between — at the start of an incast the
//! last hop's queue grows by tens of packets per packet time, so the first samples of a flow's
//! four paths differ by microseconds although the paths are identical. Samples that *arrived* at
//! the receiver close together, within `δ` of each other, left a shared FIFO queue close
//! together and waited in it for times that differ by at most about `δ`; their delay difference
//! is the paths' own difference (propagation plus unshared queues) up to `δ`. So each new sample
//! is paired with the other paths' samples of nearest arrival time, and a difference counts only
//! when it exceeds the pair's arrival gap.
//!
//! Data packets and probes are kept apart ([`StartupDelays`]): a probe waits behind all data in
//! the low-priority class, so only probe–probe pairs share a queue; a probe pair stands in for a
//! pair of paths until their data samples pair up (on a long path the first probe ACKs return
//! before the first data echo).
//!
//! A pair's estimate is the median of its last three pairings (see
//! [`AlignedDelays::resolved_excess`]): on paths of equal delay, a packet that met a passing burst
//! on its own path arrives microseconds late next to one that did not, and that single pairing
//! must not set a skip.
//!
//! Fixed memory per flow: a ring of the last [`RING`] samples per path and an `n × n` table of
//! the last three differences of each pair, sized when the sender is built.

use super::scheduler::{bits as scheduler_bits, eq7_skip_and_lead_over};

/// Samples kept per path.
pub const RING: usize = 32;

/// One path's recent samples: (arrival time at the receiver, one-way delay), seconds.
#[derive(Clone, Debug)]
struct Ring {
    buf: [(f64, f64); RING],
    len: usize,
    head: usize,
    /// Every sample arrived no earlier than the one pushed before it (a logical path is one
    /// FIFO route, so this holds unless a driver reorders echoes): then [`Ring::nearest`]
    /// searches by bisection instead of scanning.
    in_order: bool,
    /// The latest arrival of any sample pushed (−∞ before the first), including those the ring
    /// has since dropped: no sample it holds arrived later.
    latest_rx: f64,
}

impl Ring {
    fn new() -> Ring {
        Ring {
            buf: [(0.0, 0.0); RING],
            len: 0,
            head: 0,
            in_order: true,
            latest_rx: f64::NEG_INFINITY,
        }
    }

    fn push(&mut self, s: (f64, f64)) {
        if self.len > 0 && s.0 < self.buf[(self.head + RING - 1) % RING].0 {
            self.in_order = false;
        }
        self.latest_rx = self.latest_rx.max(s.0);
        self.buf[self.head] = s;
        self.head = (self.head + 1) % RING;
        self.len = (self.len + 1).min(RING);
    }

    /// The sample whose arrival is nearest `rx` (the first in the buffer on a tie).
    #[inline]
    fn nearest(&self, rx: f64) -> Option<(f64, f64)> {
        if self.in_order {
            self.nearest_in_order(rx)
        } else {
            self.nearest_by_scan(rx)
        }
    }

    /// [`Ring::nearest`] by scanning every sample.
    fn nearest_by_scan(&self, rx: f64) -> Option<(f64, f64)> {
        let (first, rest) = self.buf[..self.len].split_first()?;
        let mut best = *first;
        let mut best_gap = (first.0 - rx).abs();
        for &e in rest {
            let gap = (e.0 - rx).abs();
            if gap.total_cmp(&best_gap).is_lt() {
                best = e;
                best_gap = gap;
            }
        }
        Some(best)
    }

    /// [`Ring::nearest`] when the samples are in arrival order: bisect for `rx`, then take,
    /// among the samples at the smallest gap (they lie next to each other on either side of
    /// `rx`: the gap is monotone in the arrival time on each side), the one first in the
    /// buffer — the very sample the scan picks.
    fn nearest_in_order(&self, rx: f64) -> Option<(f64, f64)> {
        if self.len == 0 {
            return None;
        }
        // Chronological position `c` is buffer slot `(start + c) % RING`.
        let start = if self.len < RING { 0 } else { self.head };
        let slot = |c: usize| (start + c) % RING;
        let gap = |c: usize| (self.buf[slot(c)].0 - rx).abs();
        // Most queries are for an arrival at or after the newest sample (echoes return about in
        // arrival order): then `lo` is the end, found without the bisection.
        let newest_before = self.buf[slot(self.len - 1)].0 < rx;
        // ... and the newest is then the nearest, unless the one before it arrived as far from
        // `rx` (a tie, which the scan breaks by buffer order below).
        if newest_before
            && (self.len == 1 || gap(self.len - 2).total_cmp(&gap(self.len - 1)).is_ne())
        {
            return Some(self.buf[slot(self.len - 1)]);
        }
        let (mut lo, mut hi) = if newest_before { (self.len, self.len) } else { (0, self.len) };
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.buf[slot(mid)].0 < rx {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // `lo`: the first sample arriving at or after `rx`; `lo − 1` the last before it.
        let best_gap = match (lo > 0, lo < self.len) {
            (true, true) => {
                let (a, b) = (gap(lo - 1), gap(lo));
                if b.total_cmp(&a).is_lt() {
                    b
                } else {
                    a
                }
            }
            (true, false) => gap(lo - 1),
            (false, _) => gap(lo),
        };
        let mut best_slot = usize::MAX;
        let mut c = lo;
        while c > 0 && gap(c - 1).total_cmp(&best_gap).is_eq() {
            best_slot = best_slot.min(slot(c - 1));
            c -= 1;
        }
        let mut c = lo;
        while c < self.len && gap(c).total_cmp(&best_gap).is_eq() {
            best_slot = best_slot.min(slot(c));
            c += 1;
        }
        Some(self.buf[best_slot])
    }
}

/// Pairings kept per ordered pair of paths: the estimate is the median of the last three.
pub const PAIRINGS: usize = 3;

/// The last [`PAIRINGS`] resolved differences of one ordered pair of paths.
#[derive(Clone, Copy, Debug, Default)]
struct PairHistory {
    /// Resolved `D_p − D_q` of each pairing: the difference when it exceeds the pair's arrival
    /// gap, else 0 (seconds).
    resolved_s: [f64; PAIRINGS],
    /// Pairings seen (saturating).
    count: u32,
    /// [`PairHistory::median`] of the pairings kept, updated at each push (the scheduler reads
    /// every pair's estimate on every delay sample; pushes are rarer).
    estimate: f64,
}

impl PairHistory {
    fn push(&mut self, resolved_s: f64) {
        self.resolved_s.copy_within(0..PAIRINGS - 1, 1);
        self.resolved_s[0] = resolved_s;
        self.count = self.count.saturating_add(1);
        self.estimate = self.median();
    }

    /// The median of the pairings kept; with two, the smaller (a difference must be seen twice).
    fn median(&self) -> f64 {
        let r = &self.resolved_s;
        match self.count {
            0 => 0.0,
            1 => r[0],
            2 => r[0].min(r[1]),
            _ => r[0].max(r[1]).min(r[0].min(r[1]).max(r[2])),
        }
    }
}

/// Pairwise, arrival-aligned forward-delay differences of a flow's paths.
#[derive(Clone, Debug)]
pub struct AlignedDelays {
    n: usize,
    rings: Vec<Ring>,
    /// `pairs[p·n + q]`: the recent pairings of `p` with `q` (`D_p − D_q`).
    pairs: Vec<PairHistory>,
}

impl AlignedDelays {
    /// For `n` paths.
    pub fn new(n: usize) -> AlignedDelays {
        AlignedDelays { n, rings: vec![Ring::new(); n], pairs: vec![PairHistory::default(); n * n] }
    }

    /// A data packet on path `p` arrived at the receiver at `rx_s` after a one-way delay of
    /// `d_s` (both in the receiver's clock, seconds). Pairs it with every other path's sample of
    /// nearest arrival within `align_s`. Returns the paths it was paired with, as a bit set (at
    /// most 64 paths; bits of paths beyond are not set): only their pairs with `p` changed.
    pub fn add(&mut self, p: usize, rx_s: f64, d_s: f64, align_s: f64) -> u64 {
        let mut paired = 0u64;
        for q in 0..self.n {
            // Every sample of `q` arrived at or before its latest arrival, so when that is more
            // than `align_s` before `rx_s` so is the nearest one, and the pairing below would
            // fail its gap test (a float subtraction is monotone: the nearest gap is no smaller).
            if q == p || rx_s - self.rings[q].latest_rx > align_s {
                continue;
            }
            if let Some((rx_q, d_q)) = self.rings[q].nearest(rx_s) {
                let gap = (rx_s - rx_q).abs();
                if gap <= align_s {
                    let d = d_s - d_q;
                    self.pairs[p * self.n + q].push(if d > gap { d } else { 0.0 });
                    self.pairs[q * self.n + p].push(if -d > gap { -d } else { 0.0 });
                    if q < 64 {
                        paired |= 1 << q;
                    }
                }
            }
        }
        self.rings[p].push((rx_s, d_s));
        paired
    }

    /// Every path has been compared with at least one other (the tests' check; the start-up
    /// scheduler needs one pair, [`StartupDelays::check_ready`]).
    #[cfg(test)]
    fn ready(&self) -> bool {
        (0..self.n).all(|p| (0..self.n).any(|q| q != p && self.known(p, q)))
    }

    /// A difference of `p` and `q` has been measured.
    pub fn known(&self, p: usize, q: usize) -> bool {
        self.pairs[p * self.n + q].count > 0
    }

    /// `D_p − D_q` beyond the arrival gaps of its pairings: the median of the last three
    /// pairings' resolved differences (the smaller of two), so that one pairing of packets
    /// caught in a passing burst does not move the schedule; 0 when not known.
    pub fn resolved_excess(&self, p: usize, q: usize) -> f64 {
        self.pairs[p * self.n + q].estimate
    }
}

/// The start-up estimate: data–data pairs, else probe–probe pairs.
#[derive(Clone, Debug)]
pub struct StartupDelays {
    /// Pairs of data echoes.
    pub data: AlignedDelays,
    /// Pairs of probe echoes.
    pub probe: AlignedDelays,
    /// Some pair of paths has been compared, by data or by probes (set once: pairings are only
    /// added).
    compared_any: bool,
    /// `later[p]`: bit `q` set ⇔ [`StartupDelays::resolved_excess`]`(p, q) > 0` — the paths a
    /// packet on `p` arrives later than, the only terms of Eq 7 for `p` that are not zero
    /// (kept as pairings are added; at most 64 paths).
    later: Vec<u64>,
    /// `excess[p·n + q]` = [`StartupDelays::resolved_excess`]`(p, q)`, kept as pairings are
    /// added (the scheduler reads every pair on every delay sample; pairings change only in
    /// `add_*`, and only the pairs of the sample's path).
    excess: Vec<f64>,
    /// Bit `p`: row `p` of `excess` or `later` changed since [`StartupDelays::rows_to_recompute`]
    /// last ran.
    dirty_rows: u64,
    /// The path rates Eq 7 was last evaluated with (empty: never).
    skip_rates: Vec<f64>,
}

impl StartupDelays {
    /// For `n` paths.
    pub fn new(n: usize) -> StartupDelays {
        assert!(n <= 64, "the start-up scheduler keeps at most 64 paths");
        StartupDelays {
            data: AlignedDelays::new(n),
            probe: AlignedDelays::new(n),
            compared_any: false,
            later: vec![0; n],
            excess: vec![0.0; n * n],
            dirty_rows: 0,
            skip_rates: Vec::new(),
        }
    }

    /// A data packet's delay sample ([`AlignedDelays::add`] on the data pairs).
    pub fn add_data(&mut self, p: usize, rx_s: f64, d_s: f64, align_s: f64) {
        let paired = self.data.add(p, rx_s, d_s, align_s);
        self.refresh_later(p, paired);
    }

    /// A probe's delay sample ([`AlignedDelays::add`] on the probe pairs).
    pub fn add_probe(&mut self, p: usize, rx_s: f64, d_s: f64, align_s: f64) {
        let paired = self.probe.add(p, rx_s, d_s, align_s);
        self.refresh_later(p, paired);
    }

    /// After a sample of path `p` that paired with the paths of bit set `paired`: the pairs of
    /// `p` with those on either side (no other pair's pairings changed, so neither did its
    /// estimate).
    fn refresh_later(&mut self, p: usize, paired: u64) {
        let n = self.later.len();
        self.compared_any |= paired != 0;
        for q in scheduler_bits(paired) {
            debug_assert!(q != p && q < n);
            for (a, b) in [(p, q), (q, p)] {
                let e = if self.data.known(a, b) {
                    self.data.resolved_excess(a, b)
                } else {
                    self.probe.resolved_excess(a, b)
                };
                if e.to_bits() != self.excess[a * n + b].to_bits() {
                    self.dirty_rows |= 1 << a;
                }
                self.excess[a * n + b] = e;
                if e > 0.0 {
                    self.later[a] |= 1 << b;
                } else {
                    self.later[a] &= !(1 << b);
                }
            }
        }
    }

    /// The rows of Eq 7 to evaluate again for path rates `rates` (indexed by path): all of them
    /// the first time, then those whose differences changed since the last call and those that
    /// sum a rate that changed — every other row's inputs (its `later` bits, its differences,
    /// the rates it reads) are the bits it was last evaluated with, so its skip would come out
    /// the same. Remembers `rates` for the next call. (With `startup_skips = "per-update"`;
    /// the default evaluates rows when read, [`StartupDelays::set_rates`].)
    pub fn rows_to_recompute(&mut self, rates: &[f64]) -> u64 {
        let n = self.later.len();
        let rates = &rates[..n];
        if self.skip_rates.len() != n {
            self.skip_rates = rates.to_vec();
            self.dirty_rows = 0;
            return if n >= 64 { u64::MAX } else { (1 << n) - 1 };
        }
        let mut changed = 0u64;
        for (q, (old, &new)) in self.skip_rates.iter_mut().zip(rates).enumerate() {
            if old.to_bits() != new.to_bits() {
                changed |= 1 << q;
                *old = new;
            }
        }
        let mut stale = std::mem::take(&mut self.dirty_rows);
        if changed != 0 {
            for (p, &later) in self.later.iter().enumerate() {
                if later & changed != 0 {
                    stale |= 1 << p;
                }
            }
        }
        stale
    }

    /// The paths a packet on `p` arrives later than (`resolved_excess(p, q) > 0`), as a bit set.
    pub fn later_than(&self, p: usize) -> u64 {
        self.later[p]
    }

    /// Some pair of paths has been compared, by data or by probes: Eq 7 can then be evaluated
    /// from the differences known. A path compared with none is left out of the others' sums
    /// until it is: its first echo is later than theirs, so it is (by round trip) the slower
    /// one, and the slower path of a pair adds nothing to the faster one's skip.
    pub fn check_ready(&self) -> bool {
        self.compared_any
    }

    /// `D_p − D_q` beyond its error bound, from data pairs when they exist, else probe pairs.
    pub fn resolved_excess(&self, p: usize, q: usize) -> f64 {
        self.excess[p * self.later.len() + q]
    }

    /// Take `rates` as the rates every row is evaluated with from now on, all rows being due
    /// (the lazy evaluation's form of [`StartupDelays::rows_to_recompute`]: a row whose inputs
    /// did not change gives what it gave before).
    pub fn set_rates(&mut self, rates: &[f64]) {
        self.skip_rates.clear();
        self.skip_rates.extend_from_slice(&rates[..self.later.len()]);
        self.dirty_rows = 0;
    }

    /// [`StartupDelays::skip_and_lead`] with the rates last taken ([`StartupDelays::set_rates`]
    /// or [`StartupDelays::rows_to_recompute`]): a row evaluated later than that, while the
    /// differences are still those of that moment.
    #[inline]
    pub(crate) fn skip_and_lead_at_last_rates(&self, p: usize, max_skip: u32) -> (u32, f64) {
        self.skip_and_lead(p, &self.skip_rates, max_skip)
    }

    /// Eq 7's skip of path `p` and its lead over the fastest other path
    /// ([`eq7_skip_and_lead_over`]) from these differences and the paths' rates `rates`
    /// (packets per second, indexed by path): only the paths `p` arrives later than contribute.
    #[inline]
    pub(crate) fn skip_and_lead(&self, p: usize, rates: &[f64], max_skip: u32) -> (u32, f64) {
        let n = self.later.len();
        let row = &self.excess[p * n..(p + 1) * n];
        eq7_skip_and_lead_over(scheduler_bits(self.later[p]), |q| rates[q], |q| row[q], max_skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bisection picks exactly the sample the scan picks — on rings that wrapped, with
    /// repeated arrival times, ties between the two neighbours and queries outside the range.
    #[test]
    fn bisection_finds_the_samples_the_scan_finds() {
        let mut rng = braid_core::Rng::new(11);
        for case in 0..2_000 {
            let mut r = Ring::new();
            let n = 1 + rng.below(3 * RING as u64) as usize;
            let mut t = 0.0f64;
            for _ in 0..n {
                // Steps on a coarse grid make equal arrivals and exact ties common.
                t += rng.below(3) as f64 * 0.25e-6;
                r.push((t, rng.below(100) as f64 * 1e-7));
            }
            assert!(r.in_order);
            for _ in 0..20 {
                let rx = (rng.below(4 * n as u64 + 8) as f64 - 4.0) * 0.125e-6;
                let (a, b) = (r.nearest_in_order(rx), r.nearest_by_scan(rx));
                assert_eq!(
                    a.map(|x| (x.0.to_bits(), x.1.to_bits())),
                    b.map(|x| (x.0.to_bits(), x.1.to_bits())),
                    "case {case}, rx {rx}"
                );
            }
        }
        // An out-of-order push falls back to the scan.
        let mut r = Ring::new();
        r.push((2.0e-6, 1.0e-6));
        r.push((1.0e-6, 2.0e-6));
        assert!(!r.in_order);
        assert_eq!(r.nearest(1.1e-6), Some((1.0e-6, 2.0e-6)));
    }

    /// Pairing as §4.3's start-up estimate states it, with no shortcut: each other path's sample
    /// of nearest arrival (by a scan over its last `RING`), kept when the gap is within the
    /// window. [`AlignedDelays::add`] skips the paths whose latest arrival is already too far
    /// back; the pairs and their estimates must come out the same, with samples out of order
    /// too.
    #[test]
    fn skipping_paths_whose_latest_sample_is_too_old_pairs_the_same() {
        let mut rng = braid_core::Rng::new(5);
        for _ in 0..200 {
            let n = 2 + rng.below(10) as usize;
            let align_s = (1 + rng.below(8)) as f64 * 0.1e-6;
            let mut a = AlignedDelays::new(n);
            let mut rings: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
            let mut reference = vec![PairHistory::default(); n * n];
            let mut t = 0.0f64;
            for _ in 0..300 {
                t += rng.f64() * 0.3e-6;
                // Now and then an echo of an earlier arrival (a driver that reorders).
                let rx = if rng.below(10) == 0 { t - rng.f64() * 2e-6 } else { t };
                let p = rng.below(n as u64) as usize;
                let d = rng.f64() * 5e-6;
                let mut want = 0u64;
                for q in (0..n).filter(|&q| q != p) {
                    let Some(&(rx_q, d_q)) = rings[q]
                        .iter()
                        .min_by(|x, y| (x.0 - rx).abs().total_cmp(&(y.0 - rx).abs()))
                    else {
                        continue;
                    };
                    let gap = (rx - rx_q).abs();
                    if gap <= align_s {
                        let diff = d - d_q;
                        reference[p * n + q].push(if diff > gap { diff } else { 0.0 });
                        reference[q * n + p].push(if -diff > gap { -diff } else { 0.0 });
                        want |= 1 << q;
                    }
                }
                rings[p].push((rx, d));
                if rings[p].len() > RING {
                    rings[p].remove(0);
                }
                assert_eq!(a.add(p, rx, d, align_s), want);
                for (i, r) in reference.iter().enumerate() {
                    assert_eq!(a.pairs[i].count, r.count);
                    assert_eq!(a.pairs[i].estimate.to_bits(), r.estimate.to_bits());
                }
            }
        }
    }

    /// Refreshing only the pairs a sample paired with keeps every pair's estimate and the
    /// `later` bits as a refresh of all pairs would.
    #[test]
    fn the_pairs_a_sample_did_not_touch_keep_their_estimates() {
        let mut rng = braid_core::Rng::new(7);
        for _ in 0..50 {
            let n = 2 + rng.below(15) as usize;
            let mut s = StartupDelays::new(n);
            let mut t = 0.0f64;
            for _ in 0..200 {
                t += rng.below(4) as f64 * 0.2e-6;
                let p = rng.below(n as u64) as usize;
                let d = rng.below(50) as f64 * 0.1e-6;
                if rng.below(4) == 0 {
                    s.add_probe(p, t, d, 0.5e-6);
                } else {
                    s.add_data(p, t, d, 0.5e-6);
                }
                for a in 0..n {
                    let mut later = 0u64;
                    for b in (0..n).filter(|&b| b != a) {
                        let e = if s.data.known(a, b) {
                            s.data.resolved_excess(a, b)
                        } else {
                            s.probe.resolved_excess(a, b)
                        };
                        assert_eq!(
                            s.resolved_excess(a, b).to_bits(),
                            e.to_bits(),
                            "pair ({a}, {b})"
                        );
                        if e > 0.0 {
                            later |= 1 << b;
                        }
                    }
                    assert_eq!(s.later_than(a), later, "path {a}");
                }
            }
        }
    }

    #[test]
    fn only_rows_whose_inputs_moved_are_evaluated_again() {
        let mut s = StartupDelays::new(3);
        // Path 2 is 10 µs slower than paths 0 and 1.
        s.add_data(0, 10.0e-6, 5.0e-6, 1e-6);
        s.add_data(1, 10.1e-6, 5.0e-6, 1e-6);
        s.add_data(2, 10.2e-6, 15.0e-6, 1e-6);
        assert_eq!(s.later_than(2), 0b011);
        let rates = [1.0, 2.0, 3.0];
        assert_eq!(s.rows_to_recompute(&rates), 0b111, "the first evaluation takes every row");
        assert_eq!(s.rows_to_recompute(&rates), 0, "nothing moved");
        // Path 0's rate: only the row that sums it (path 2's).
        assert_eq!(s.rows_to_recompute(&[1.5, 2.0, 3.0]), 0b100);
        // Path 2's rate: no row sums it.
        assert_eq!(s.rows_to_recompute(&[1.5, 2.0, 4.0]), 0);
        // A sample that leaves every difference as it was moves no row; one that changes path
        // 2's difference to path 1 moves row 2.
        s.add_data(0, 20.0e-6, 5.0e-6, 1e-6);
        assert_eq!(s.rows_to_recompute(&[1.5, 2.0, 4.0]), 0);
        s.add_data(1, 20.1e-6, 5.0e-6, 1e-6);
        s.add_data(2, 20.2e-6, 17.0e-6, 1e-6);
        s.add_data(2, 30.2e-6, 17.0e-6, 1e-6);
        s.add_data(1, 30.1e-6, 5.0e-6, 1e-6);
        assert_ne!(s.rows_to_recompute(&[1.5, 2.0, 4.0]) & 0b100, 0);
    }

    /// The start-up skips need one compared pair, not every path: a path whose first echo is
    /// still on its way (here path 2, never sampled) is the slower one by round trip and adds
    /// nothing to the others' skips; the pair measured sets the slower path's skip at once.
    #[test]
    fn skips_start_from_the_first_pair_compared() {
        let mut s = StartupDelays::new(3);
        s.add_data(0, 10.0e-6, 6.0e-6, 1e-6);
        assert!(!s.check_ready(), "one sample compares nothing");
        s.add_data(1, 10.2e-6, 26.0e-6, 1e-6);
        assert!(s.check_ready(), "paths 0 and 1 were compared; path 2 has no sample yet");
        let rates = [1e9, 1e9, 1e9];
        let (skip1, lead1) = s.skip_and_lead(1, &rates, u32::MAX);
        assert_eq!(skip1, 20_000, "path 1 leaves the 20 µs path 0 delivers first");
        assert!((lead1 - 20.0e-6).abs() < 1e-12);
        assert_eq!(s.skip_and_lead(0, &rates, u32::MAX).0, 0);
        assert_eq!(s.skip_and_lead(2, &rates, u32::MAX).0, 0, "an unmeasured path has no row");
    }

    #[test]
    fn a_persistent_delay_difference_is_found_from_aligned_arrivals() {
        let mut a = AlignedDelays::new(2);
        // Path 0: 8 µs; path 1: 28 µs; samples arriving 0.3 µs apart.
        a.add(0, 30.0e-6, 8.0e-6, 1e-6);
        assert!(!a.ready());
        a.add(1, 30.3e-6, 28.0e-6, 1e-6);
        assert!(a.ready());
        assert!((a.resolved_excess(1, 0) - 20.0e-6).abs() < 1e-12);
        assert_eq!(a.resolved_excess(0, 1), 0.0);
    }

    #[test]
    fn a_shared_queue_growing_between_samples_is_not_a_path_difference() {
        // Two identical paths behind one FIFO that grows by 2.5 µs per 0.1 µs of sending: the
        // later-sent packet waits longer, but both leave the queue 0.1 µs apart, so the delay
        // difference (2.5 µs) is set against an arrival gap that covers it only if the queue
        // term is within the gap; here arrivals are far apart in time, so no pair forms.
        let mut a = AlignedDelays::new(2);
        a.add(0, 10.0e-6, 6.0e-6, 1e-6);
        a.add(1, 12.6e-6, 8.5e-6, 1e-6);
        assert!(!a.ready());
        // Arriving together, they differ by less than their gap.
        a.add(1, 10.4e-6, 6.3e-6, 1e-6);
        assert!(a.ready());
        assert_eq!(a.resolved_excess(1, 0), 0.0);
    }

    #[test]
    fn one_pairing_caught_in_a_burst_does_not_make_a_difference() {
        // Two paths of equal delay (8 µs); one pairing where path 1's packet met a burst (+5 µs).
        let mut a = AlignedDelays::new(2);
        a.add(0, 10.0e-6, 8.0e-6, 1e-6);
        a.add(1, 10.2e-6, 8.0e-6, 1e-6);
        a.add(0, 20.0e-6, 8.0e-6, 1e-6);
        a.add(1, 20.3e-6, 13.0e-6, 1e-6);
        assert_eq!(a.resolved_excess(1, 0), 0.0, "median of 0, 5 µs is not 5 µs");
        a.add(0, 30.0e-6, 8.0e-6, 1e-6);
        a.add(1, 30.1e-6, 8.05e-6, 1e-6);
        assert_eq!(a.resolved_excess(1, 0), 0.0);
        // A persistent 10 µs difference is taken once two of the last three pairings show it.
        for k in 0..2 {
            let t = 40.0e-6 + k as f64 * 10.0e-6;
            a.add(0, t, 8.0e-6, 1e-6);
            a.add(1, t + 0.2e-6, 18.0e-6, 1e-6);
        }
        assert!((a.resolved_excess(1, 0) - 10.0e-6).abs() < 1e-12, "{}", a.resolved_excess(1, 0));
        assert_eq!(a.resolved_excess(0, 1), 0.0);
    }
}
