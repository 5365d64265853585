//! The packet scheduler's skips (Rondo §4.3, Eq 7). A new-data transmission on path `p` carries
//! the `(skip_p + 1)`-th smallest unsent PSN, with
//! `skip_p = ⌊Σ_{q≠p} R_q · max(D_p − D_q, 0)⌋`: the packets the other paths deliver (at their
//! rates `R_q = W_q / RTT_q`) while a packet sent now on `p` is still on its way longer than on
//! `q` (forward delays `D`). The packet then arrives about when its PSN is due, and the receiver's
//! out-of-order degree stays near zero however the paths' delays differ (OOD ≈ R·ΔD without it).
//! Which delay differences feed it (EWMA estimates behind a stability gate, or arrival-aligned
//! first samples) is the sender's choice; this is the arithmetic.

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
