//! Stateless per-packet selections: UCMP as the LCMP artifact implements it, WCMP, a weighted
//! UCMP, and RoCE adaptive routing (`docs/baselines.md`, switch routing; `docs/lcmp.md`, ECMP and
//! UCMP). ECMP itself is `hash % n` over the candidates with [`crate::hash::ecmp_hash`].
//!
//! Every function takes the candidates in the routing table's order and returns an index into
//! them; none allocates.

use braid_core::{Rng, Time};

/// What the control plane knows of one candidate next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathAttr {
    /// Rate of the next-hop link, bit/s.
    pub link_rate_bps: u64,
    /// Total one-way propagation delay of the best path through this next hop.
    pub path_delay: Time,
    /// Largest bottleneck rate among the paths through this next hop, bit/s.
    pub path_bottleneck_bps: u64,
}

/// The artifact's UCMP (`docs/lcmp.md`, ECMP and UCMP): keep the candidates whose link rate equals
/// the largest, and hash among them. (The artifact caches the choice per flow; the hash is
/// deterministic per flow, so the cache changes nothing but failure handling.)
pub fn ucmp(c: &[PathAttr], hash: u32) -> usize {
    ucmp_within(c, hash, |_| true)
}

/// The largest path delay a candidate may have under `routing.max_delay_spread = spread`: the
/// smallest of `c`'s path delays plus the spread (`Time::MAX` without one). LCMP scores, and ECMP
/// and UCMP hash over, only the candidates at or below it.
pub fn delay_limit(c: &[PathAttr], spread: Option<Time>) -> Time {
    match spread {
        Some(s) => c.iter().map(|a| a.path_delay).min().unwrap_or(Time::ZERO).saturating_add(s),
        None => Time::MAX,
    }
}

/// ECMP over the candidates `keep` accepts: `hash % n` among them.
pub fn ecmp_within(c: &[PathAttr], hash: u32, keep: impl Fn(&PathAttr) -> bool) -> usize {
    let n = c.iter().filter(|a| keep(a)).count().max(1);
    nth_matching(c, hash as usize % n, keep)
}

/// [`ucmp`] over the candidates `keep` accepts: the largest link rate among them, hashed.
pub fn ucmp_within(c: &[PathAttr], hash: u32, keep: impl Fn(&PathAttr) -> bool) -> usize {
    let max = c.iter().filter(|a| keep(a)).map(|a| a.link_rate_bps).max().unwrap_or(0);
    let n = c.iter().filter(|a| keep(a) && a.link_rate_bps == max).count().max(1);
    nth_matching(c, hash as usize % n, |a| keep(a) && a.link_rate_bps == max)
}

/// WCMP (`docs/baselines.md`, switch routing): weights ∝ path capacity, reduced to at most `table`
/// entries by rounding (each candidate keeps at least one), then `hash mod Σw` over cumulative
/// weights.
pub fn wcmp(c: &[PathAttr], hash: u32, table: u32) -> usize {
    weighted(c, hash, table, |_| true)
}

/// A weighted UCMP for static topologies (`docs/baselines.md`, switch routing, a guess there): each
/// path's uniform cost is its propagation delay; the paths within `slack_percent` % above the best
/// share the traffic with weights ∝ capacity.
pub fn ucmp_weighted(c: &[PathAttr], hash: u32, table: u32, slack_percent: u32) -> usize {
    let min = c.iter().map(|a| a.path_delay).min().unwrap_or(Time::ZERO);
    let limit =
        (min.ps() as u128 * (100 + slack_percent as u128) / 100).min(u64::MAX as u128) as u64;
    weighted(c, hash, table, |a| a.path_delay.ps() <= limit)
}

/// WCMP's weight of every candidate (∝ path capacity on a table of `table` entries, at least 1
/// each): what [`wcmp`] hashes over.
pub fn wcmp_weights(c: &[PathAttr], table: u32) -> Vec<u32> {
    let total: u128 = c.iter().map(|a| a.path_bottleneck_bps as u128).sum();
    c.iter().map(|a| weight(a, total, table).min(u32::MAX as u64) as u32).collect()
}

fn weight(a: &PathAttr, total: u128, table: u32) -> u64 {
    if total == 0 {
        return 1;
    }
    (((a.path_bottleneck_bps as u128 * table as u128 * 2 + total) / (2 * total)) as u64).max(1)
}

fn weighted(c: &[PathAttr], hash: u32, table: u32, eligible: impl Fn(&PathAttr) -> bool) -> usize {
    let total: u128 = c.iter().filter(|a| eligible(a)).map(|a| a.path_bottleneck_bps as u128).sum();
    let sum: u64 = c.iter().filter(|a| eligible(a)).map(|a| weight(a, total, table)).sum();
    if sum == 0 {
        return hash as usize % c.len().max(1);
    }
    let mut r = hash as u64 % sum;
    for (i, a) in c.iter().enumerate() {
        if !eligible(a) {
            continue;
        }
        let w = weight(a, total, table);
        if r < w {
            return i;
        }
        r -= w;
    }
    0
}

fn nth_matching<T>(c: &[T], mut k: usize, pred: impl Fn(&T) -> bool) -> usize {
    for (i, a) in c.iter().enumerate() {
        if pred(a) {
            if k == 0 {
                return i;
            }
            k -= 1;
        }
    }
    0
}

/// The 4-level queue quantisation of htsim's adaptive routing relative to a port's capacity:
/// `< 5 %`, `< 10 %`, `< 20 %`, `≥ 20 %`.
#[inline]
pub fn quantize4(bytes: u64, capacity: u64) -> u64 {
    let b = bytes as u128 * 100;
    let c = capacity.max(1) as u128;
    if b < 5 * c {
        0
    } else if b < 10 * c {
        1
    } else if b < 20 * c {
        2
    } else {
        3
    }
}

/// RoCE adaptive routing (`docs/baselines.md`, switch routing): the candidate with the smallest
/// load, ties broken uniformly at random. `load(i)` is candidate `i`'s queue bytes (or its
/// quantised level).
pub fn least_loaded(n: usize, load: impl Fn(usize) -> u64, rng: &mut Rng) -> usize {
    let mut min = u64::MAX;
    let mut ties = 0u64;
    for i in 0..n {
        let l = load(i);
        if l < min {
            min = l;
            ties = 1;
        } else if l == min {
            ties += 1;
        }
    }
    let k = if ties <= 1 { 0 } else { rng.below(ties) };
    let mut seen = 0;
    for i in 0..n {
        if load(i) == min {
            if seen == k {
                return i;
            }
            seen += 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(g: u64, d_ms: u64) -> PathAttr {
        PathAttr {
            link_rate_bps: g * 1_000_000_000,
            path_delay: Time::from_ms(d_ms),
            path_bottleneck_bps: g * 1_000_000_000,
        }
    }

    /// posCor DC1 toward DC8: 200/25, 200/100, 100/10, 100/40, 40/5, 40/20 (G, ms per hop).
    fn poscor() -> Vec<PathAttr> {
        vec![
            attr(200, 50),
            attr(200, 200),
            attr(100, 20),
            attr(100, 80),
            attr(40, 10),
            attr(40, 40),
        ]
    }

    fn shares(f: impl Fn(u32) -> usize, n: usize) -> Vec<f64> {
        let mut c = vec![0u64; n];
        let mut r = Rng::new(3);
        let m = 200_000;
        for _ in 0..m {
            c[f(r.next_u32())] += 1;
        }
        c.iter().map(|&x| x as f64 / m as f64).collect()
    }

    #[test]
    fn ucmp_spreads_over_the_max_capacity_links_only() {
        let s = shares(|h| ucmp(&poscor(), h), 6);
        assert!((s[0] - 0.5).abs() < 0.01 && (s[1] - 0.5).abs() < 0.01, "{s:?}");
        assert_eq!(s[2] + s[3] + s[4] + s[5], 0.0);
    }

    #[test]
    fn wcmp_weights_follow_capacity() {
        // 200:200:100:100:40:40 of 680 → 64-entry table: 19,19,9,9,4,4 (sum 64).
        let s = shares(|h| wcmp(&poscor(), h, 64), 6);
        let expect = [19.0, 19.0, 9.0, 9.0, 4.0, 4.0].map(|w| w / 64.0);
        for i in 0..6 {
            assert!((s[i] - expect[i]).abs() < 0.01, "{s:?}");
        }
    }

    #[test]
    fn ucmp_weighted_keeps_low_latency_paths() {
        // Best latency 10 ms; slack 100 % keeps ≤ 20 ms: the 40 G/10 ms and 100 G/20 ms paths, 40:100.
        let s = shares(|h| ucmp_weighted(&poscor(), h, 64, 100), 6);
        assert!(s[0] + s[1] + s[3] + s[5] == 0.0, "{s:?}");
        assert!((s[2] - 46.0 / 64.0).abs() < 0.01 && (s[4] - 18.0 / 64.0).abs() < 0.01, "{s:?}");
    }

    #[test]
    fn adaptive_picks_min_with_random_ties() {
        let q = [500u64, 100, 100, 900];
        let mut r = Rng::new(1);
        let mut c = [0u32; 4];
        for _ in 0..10_000 {
            c[least_loaded(4, |i| q[i], &mut r)] += 1;
        }
        assert_eq!(c[0] + c[3], 0);
        assert!(c[1] > 4_500 && c[2] > 4_500, "{c:?}");
        assert_eq!(least_loaded(4, |i| [3, 2, 1, 5][i], &mut r), 2);
        // Quantised: 4 levels of a 1 MB port.
        let cap = 1_000_000;
        assert_eq!(
            [0, 49_999, 50_000, 99_999, 100_000, 199_999, 200_000].map(|b| quantize4(b, cap)),
            [0, 0, 1, 1, 2, 2, 3]
        );
    }
}
