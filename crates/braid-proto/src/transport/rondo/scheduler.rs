//! The packet scheduler's skips (Rondo §4.3, Eq 7). A new-data transmission on path `p` carries
//! the `(skip_p + 1)`-th smallest unsent PSN, with
//! `skip_p = ⌊Σ_{q≠p} R_q · max(D_p − D_q, 0)⌋`: the packets the other paths deliver (at their
//! rates `R_q = W_q / RTT_q`) while a packet sent now on `p` is still on its way longer than on
//! `q` (forward delays `D`). The packet then arrives about when its PSN is due, and the receiver's
//! out-of-order degree stays near zero however the paths' delays differ (OOD ≈ R·ΔD without it).
//! Which delay differences feed it (EWMA estimates behind a stability gate, or arrival-aligned
//! first samples) is the sender's choice: the arithmetic is here, and so is the sender's skip
//! machinery that applies it — computing the skips after each window update or delay sample
//! (`compute_skips`, `set_skips`), the start-up estimate before the stability gate opens
//! (`unmeasured_skip`, `after_startup_sample`), and when a computed skip takes effect
//! (`settle_*`, `store_skip`, `effective_skip`).

use braid_core::Time;

use super::{PathState, RondoSender, MAX_ALIGNED_PATHS};

/// `skip_p` of Eq 7 over the paths `qs` (ascending; `p` itself excluded) that may be faster
/// than `p`, and, in the same pass, the largest `excess(q)` over them (0 when none is positive):
/// the lead by which a packet on `p` trails the fastest of the other paths, which
/// `transport.skip_expiry` reads. `rate(q)` is `R_q` in packets per second, `excess(q)` is
/// `max(D_p − D_q, 0)` in seconds; the skip is capped at `max_skip`. Leaving out paths that are
/// not faster (their terms are zero) gives the same skip bit for bit.
#[inline]
pub(crate) fn eq7_skip_and_lead_over(
    qs: impl Iterator<Item = usize>,
    rate: impl Fn(usize) -> f64,
    excess: impl Fn(usize) -> f64,
    max_skip: u32,
) -> (u32, f64) {
    let mut s = 0.0;
    let mut lead = 0.0f64;
    for q in qs {
        let e = excess(q);
        lead = lead.max(e);
        // A path that is not faster adds nothing (`+ 0.0` leaves the sum as it is), so its
        // rate is not computed.
        if e > 0.0 {
            s += rate(q) * e;
        }
    }
    // `s as u64` is `s.floor() as u64` for every float (negatives and NaN give 0 either way)
    // without the `floor` library call.
    ((s as u64).min(max_skip as u64) as u32, lead)
}

/// The members of bit set `m`, ascending.
pub(crate) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let q = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(q)
    })
}

impl RondoSender {
    /// The skip a new-data packet on path `p` takes now: Eq 7's, unless the smallest unsent
    /// PSN has been the smallest for more than twice `p`'s lead over the fastest path
    /// (`skip_expiry`): the paths with no skip, which take the smallest unsent PSN whenever they
    /// send, have then stopped sending, so it goes now.
    #[inline]
    pub(super) fn effective_skip(&self, now: Time, p: usize) -> u32 {
        if !self.sched_on {
            return 0;
        }
        let (skip, lead_s) = self.scheduled_skip(now, p);
        if skip > 0 && self.skip_expiry && (now - self.lowest_since).secs_f64() > 2.0 * lead_s {
            return 0;
        }
        skip
    }

    /// Eq 7's skip of path `p` and its lead: the scheduler's, and at start-up, for a path with
    /// no data echo yet, at least the lower bound its missing echo gives ([`Self::unmeasured_skip`]).
    #[inline]
    pub(super) fn scheduled_skip(&self, now: Time, p: usize) -> (u32, f64) {
        let own = self.skip_of(p);
        if self.paths[p].fwd_n == 0 && self.aligned.is_some() {
            let bound = self.unmeasured_skip(now, p);
            if bound.0 > own.0 {
                return bound;
            }
        }
        own
    }

    /// Path `p`'s Eq 7 skip and lead as the scheduler last set them (evaluated now if pending,
    /// [`Self::skips_pending`]).
    #[inline]
    pub(super) fn skip_of(&self, p: usize) -> (u32, f64) {
        let ps = &self.paths[p];
        if p < 64 && self.skips_pending & (1 << p) != 0 {
            self.pending_skip(p)
        } else {
            (ps.skip, ps.skip_lead_s)
        }
    }

    /// A pending row of Eq 7 evaluated from the start-up tables, as the evaluation that named it
    /// would have. (Without `skip_expiry` the lead is neither stored nor read.)
    #[inline(never)]
    pub(super) fn pending_skip(&self, p: usize) -> (u32, f64) {
        let Some(al) = &self.aligned else {
            unreachable!("skips are pending only while the start-up tables exist")
        };
        let (skip, lead_s) = al.skip_and_lead_at_last_rates(p, self.cfg_max_skip);
        #[cfg(debug_assertions)]
        {
            let (want, want_lead) = self.eager_skips[p];
            debug_assert!(
                skip == want && lead_s.to_bits() == want_lead.to_bits(),
                "path {p}'s pending skip changed since it was marked"
            );
        }
        (skip, lead_s)
    }

    /// Store the pending skips of the paths whose windows are open (the only ones a
    /// transmission decision reads, [`Self::open`]).
    pub(super) fn settle_open_skips(&mut self) {
        for p in bits(self.skips_pending) {
            if self.room(p) > 0.0 {
                self.settle_skip(p);
            }
        }
    }

    /// Store path `p`'s pending skip and lead.
    pub(super) fn settle_skip(&mut self, p: usize) {
        let (skip, lead_s) = self.pending_skip(p);
        self.store_skip(p, skip, lead_s);
        self.skips_pending &= !(1 << p);
    }

    /// Path `p`'s skip, and with `skip_expiry` (its only reader) its lead.
    #[inline]
    pub(super) fn store_skip(&mut self, p: usize, skip: u32, lead_s: f64) {
        let ps = &mut self.paths[p];
        ps.skip = skip;
        if self.skip_expiry {
            ps.skip_lead_s = lead_s;
        }
    }

    /// Store every pending skip (before the path samples read them).
    pub(super) fn settle_all_skips(&mut self) {
        for p in bits(self.skips_pending) {
            self.settle_skip(p);
        }
    }

    /// At start-up, a lower bound of the skip (and lead) of a path `p` with no data echo yet: its
    /// cumulative ACKs, carried back by faster paths, can open its window before its own first
    /// echo returns. Its oldest timestamped packet has then waited `now − sent` without an echo,
    /// so its round trip exceeds the shortest measured one by at least `waited − RTT_min`. With
    /// a path's extra delay the same both ways (a longer link is longer in both directions, and
    /// ACKs return on the logical path of their data) half of that is one way: `D_p ≥ D_min +
    /// (waited − RTT_min) / 2`, and Eq 7 is taken with that lower bound against the measured
    /// paths' forward-delay estimates. Without a measured path, or before the wait exceeds the
    /// shortest round trip, it takes no skip, as before any difference is known.
    #[cold]
    #[inline(never)]
    pub(super) fn unmeasured_skip(&self, now: Time, p: usize) -> (u32, f64) {
        let Some(&(_, sent)) = self.paths[p].ts_pending.front() else { return (0, 0.0) };
        let waited_s = now.saturating_sub(sent).secs_f64();
        // The start-up tables exist only for at most `MAX_ALIGNED_PATHS` paths: a bit set holds them.
        let (mut d_min_s, mut rtt_min_s) = (f64::INFINITY, f64::INFINITY);
        let mut measured = 0u64;
        for (q, qs) in self.paths.iter().enumerate().take(MAX_ALIGNED_PATHS) {
            if q != p && qs.fwd_n > 0 && qs.rtt_seeded {
                d_min_s = d_min_s.min(qs.fwd_s);
                rtt_min_s = rtt_min_s.min(qs.min_rtt.secs_f64());
                measured |= 1 << q;
            }
        }
        if measured == 0 || waited_s <= rtt_min_s {
            return (0, 0.0);
        }
        let d_p_s = d_min_s + 0.5 * (waited_s - rtt_min_s);
        eq7_skip_and_lead_over(
            bits(measured),
            |q| self.paths[q].rate_pps(),
            |q| (d_p_s - self.paths[q].fwd_s).max(0.0),
            self.cfg_max_skip,
        )
    }

    /// New data `psn` was taken while `lowest` was the smallest unsent PSN (`skip_expiry`
    /// only): when it was the smallest, the next one starts waiting now.
    ///
    /// The wait is timed from when a PSN became the smallest unsent, not from when a slower
    /// path first passed it over: a PSN that a path 40 µs slower than the fastest passes over
    /// is normally reached by the faster paths about 40 µs later, and timed from that pass, a
    /// path 20 µs slower (allowed twice its own lead) took it over first and delivered it 20 µs
    /// late — on Fig 13's delay scenario a NIC-level OOD of about R̄ × 20 µs ≈ 200 all run.
    #[inline]
    pub(super) fn note_lowest(&mut self, now: Time, psn: u32, lowest: u32) {
        if psn == lowest {
            self.lowest_since = now;
        }
    }

    /// Eq 7 for every path. Skips are recomputed from the EWMA estimates while every path's
    /// forward-delay estimate is stable (the last `stable_samples` samples within `stable_tol` of
    /// it); otherwise the previous skips stay in force, so one outlier does not switch the
    /// scheduler off and a real delay change is picked up once the new estimates settle. Before
    /// the gate first opens, skips come from the arrival-aligned differences ([`aligned`];
    /// `scheduler_start = "first-samples"`, the default) or are zero (`"stable"`).
    pub(super) fn compute_skips(&mut self) {
        if !self.scheduler {
            return;
        }
        let stable = self.stable_paths == self.paths.len();
        debug_assert_eq!(
            stable,
            self.paths.iter().all(|p| self.path_is_stable(p)),
            "stable_paths is off"
        );
        if stable {
            self.sched_stable = true;
            self.sched_on = true;
            // Past the gate the skips come from the EWMA estimates: the start-up tables are
            // not read again.
            self.release_startup_tables();
            self.set_skips(|ps, p, q| (ps[p].fwd_s - ps[q].fwd_s).max(0.0));
        } else if !self.sched_stable && self.aligned.as_ref().is_some_and(|a| a.check_ready()) {
            // Until the gate first opens: the arrival-aligned differences ([`aligned`]), which a
            // queue shared by all paths does not move.
            self.sched_on = true;
            let Some(al) = self.aligned.as_mut() else { unreachable!("checked") };
            let n = self.paths.len();
            // Each path's rate once (the start-up estimate keeps at most `MAX_ALIGNED_PATHS`),
            // not once per pair: the same quotients, so the same skips bit for bit.
            let mut rates = [0.0f64; MAX_ALIGNED_PATHS];
            for (r, ps) in rates.iter_mut().zip(&self.paths) {
                *r = ps.rate_pps();
            }
            if self.startup_skips_per_sample {
                // Every change of the tables is followed by this evaluation: each row is
                // evaluated when first read (`skips_pending`), with these rates.
                al.set_rates(&rates[..n]);
                // At most `MAX_ALIGNED_PATHS` (32) paths have start-up tables.
                self.skips_pending = (1u64 << n) - 1;
            } else {
                // Only the rows whose inputs changed since the last evaluation: a delay sample
                // moves the differences of its own path's pairs, an ACK the rate of its path.
                let stale = al.rows_to_recompute(&rates[..n]);
                // Only the paths a packet on `p` arrives later than contribute (the others'
                // terms are zero): kept as a bit set by the start-up estimate. One pass over
                // them gives both the skip and the lead `skip_expiry` reads.
                for p in bits(stale) {
                    let Some(al) = self.aligned.as_ref() else { unreachable!("checked") };
                    let (skip, lead_s) = al.skip_and_lead(p, &rates[..n], self.cfg_max_skip);
                    self.store_skip(p, skip, lead_s);
                }
            }
            // Debug builds check that every row is what evaluating it now gives, and keep that
            // for the pending rows' later reads to be checked against.
            #[cfg(debug_assertions)]
            {
                let Some(al) = self.aligned.as_ref() else { unreachable!("checked") };
                self.eager_skips =
                    (0..n).map(|p| al.skip_and_lead(p, &rates[..n], self.cfg_max_skip)).collect();
                for p in 0..n {
                    let (skip, lead_s) = self.eager_skips[p];
                    let (have, have_lead) = self.skip_of(p);
                    debug_assert_eq!(have, skip, "path {p}'s skip is stale");
                    debug_assert!(
                        !self.skip_expiry || have_lead.to_bits() == lead_s.to_bits(),
                        "path {p}'s lead is stale"
                    );
                }
            }
        }
    }

    /// Whether path `ps`'s forward-delay estimate is stable ([`PathState::is_stable`] with
    /// `stable_samples`).
    #[inline]
    pub(super) fn path_is_stable(&self, ps: &PathState) -> bool {
        ps.is_stable(self.cfg_stable_samples.max(1))
    }

    /// A delay sample went into the start-up tables: with `startup_skips = "per-sample"` (the
    /// default) the skips follow it at once, not only at the next update — the credits the
    /// first ACKs open would otherwise go unscheduled.
    pub(super) fn after_startup_sample(&mut self) {
        if self.startup_skips_per_sample && self.aligned.is_some() && !self.sched_stable {
            self.compute_skips();
        }
    }

    /// Release the start-up scheduler's tables for good.
    pub(super) fn release_startup_tables(&mut self) {
        // Both callers replace the skips at once: the gate's evaluation writes every path's
        // (`set_skips`), a finished flow drops its paths. The pending rows are not evaluated:
        // the sample that opened the gate has already changed the tables they would read.
        self.skips_pending = 0;
        self.aligned = None;
        self.aligned_paths = 0;
    }

    /// Eq 7 with `excess(paths, p, q)` = how much later than on path `q` a packet sent now on
    /// path `p` arrives (0 when not later).
    pub(super) fn set_skips(&mut self, excess: impl Fn(&[PathState], usize, usize) -> f64) {
        let n = self.paths.len();
        // Each path's rate once, not once per pair (the same quotients, so the same skips bit
        // for bit), and one pass per path for the skip and the lead together.
        // (On the stack for the usual few paths; `paths = N` allows up to `config::MAX_PATHS`.)
        let mut on_stack = [0.0f64; MAX_ALIGNED_PATHS];
        let mut on_heap = Vec::new();
        let rates: &mut [f64] = if n <= MAX_ALIGNED_PATHS {
            &mut on_stack[..n]
        } else {
            on_heap.resize(n, 0.0);
            &mut on_heap
        };
        for (r, ps) in rates.iter_mut().zip(&self.paths) {
            *r = ps.rate_pps();
        }
        for p in 0..n {
            let paths = &self.paths;
            let (skip, lead_s) = eq7_skip_and_lead_over(
                (0..n).filter(|&q| q != p),
                |q| rates[q],
                |q| excess(paths, p, q),
                self.cfg_max_skip,
            );
            self.store_skip(p, skip, lead_s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq 7 as written, over every other path: the reference the sender's sparse pass is held to.
    fn eq7_skip(
        p: usize,
        n: usize,
        rate: impl Fn(usize) -> f64,
        excess: impl Fn(usize) -> f64,
        max_skip: u32,
    ) -> u32 {
        let s: f64 = (0..n).filter(|&q| q != p).map(|q| rate(q) * excess(q)).sum();
        (s.floor() as u64).min(max_skip as u64) as u32
    }

    #[test]
    fn summing_only_the_later_paths_gives_the_same_skip() {
        let d: [f64; 4] = [20.0, 10.0, 35.0, 20.0];
        let r = [1.5, 2.25, 0.75, 3.0];
        for p in 0..4 {
            let full = eq7_skip(p, 4, |q| r[q], |q| (d[p] - d[q]).max(0.0), 4096);
            let later: u64 = (0..4).filter(|&q| d[p] > d[q]).fold(0, |m, q| m | 1 << q);
            let (sparse, _) =
                eq7_skip_and_lead_over(bits(later), |q| r[q], |q| (d[p] - d[q]).max(0.0), 4096);
            assert_eq!(full, sparse, "path {p}");
        }
        assert_eq!(bits(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
    }

    #[test]
    fn one_pass_gives_the_skip_and_the_lead_of_two() {
        let mut rng = braid_core::Rng::new(5);
        for _ in 0..500 {
            let n = 1 + rng.below(16) as usize;
            let d: Vec<f64> = (0..n).map(|_| rng.below(1000) as f64 * 1.3e-8).collect();
            let r: Vec<f64> = (0..n).map(|_| rng.below(1000) as f64 * 7.1e5).collect();
            for p in 0..n {
                let later: u64 = (0..n).filter(|&q| d[p] > d[q]).fold(0, |m, q| m | 1 << q);
                let excess = |q: usize| (d[p] - d[q]).max(0.0);
                let skip = eq7_skip(p, n, |q| r[q], excess, 64);
                let lead = (0..n).filter(|&q| q != p).map(excess).fold(0.0, f64::max);
                for (skip1, lead1) in [
                    eq7_skip_and_lead_over(bits(later), |q| r[q], excess, 64),
                    eq7_skip_and_lead_over((0..n).filter(|&q| q != p), |q| r[q], excess, 64),
                ] {
                    assert_eq!((skip, lead.to_bits()), (skip1, lead1.to_bits()));
                }
            }
        }
    }

    #[test]
    fn the_slow_path_skips_what_the_fast_ones_deliver_meanwhile() {
        // Two paths at 1 packet/µs; path 0 is 20 µs slower: 20 packets go on path 1 meanwhile
        // (times in µs and rates per µs: the arithmetic only needs consistent units).
        let d: [f64; 2] = [30.0, 10.0];
        let rate = |_q: usize| 1.0;
        let skip = |p: usize| eq7_skip(p, 2, rate, |q| (d[p] - d[q]).max(0.0), 4096);
        assert_eq!(skip(0), 20);
        assert_eq!(skip(1), 0, "the fast path skips nothing");
    }

    #[test]
    fn skips_sum_over_faster_paths_and_respect_the_cap() {
        // Path 0 is 10 µs slower than paths 1 (2 pkt/µs) and 2 (3 pkt/µs): 50 packets.
        let d: [f64; 3] = [20.0, 10.0, 10.0];
        let r = [1.0, 2.0, 3.0];
        assert_eq!(eq7_skip(0, 3, |q| r[q], |q| (d[0] - d[q]).max(0.0), 4096), 50);
        assert_eq!(eq7_skip(0, 3, |q| r[q], |q| (d[0] - d[q]).max(0.0), 7), 7);
        // Equal delays: no skip anywhere.
        assert_eq!(eq7_skip(1, 3, |q| r[q], |q| (d[1] - d[q]).max(0.0), 4096), 0);
    }
}
