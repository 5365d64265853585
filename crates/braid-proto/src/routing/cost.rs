//! LCMP's integer cost functions (paper §3.2 Alg. 1–2 and Eq. 2; §3.3 Eq. 3–5; §3.1 Eq. 1).
//!
//! Every function is integer-only, as the paper requires of the data plane: table lookups, adds,
//! multiplies by small weights and right shifts, saturated at 255. Each comes in the form the
//! paper describes (64-bit, no overflow, sub-millisecond delay resolution) and, where the LCMP
//! artifact computes something different, in the artifact's form (`*_artifact`), so the two
//! profiles of [`super::lcmp`] can be compared on identical inputs. The artifact's constants are
//! those its switch code uses (`docs/lcmp.md`, artifact profile).

use braid_core::Time;

/// Number of levels of every quantiser (capacity classes, queue levels, trend levels): `N = 10`
/// (paper Fig. 3).
pub const LEVELS: usize = 10;

/// The level-score table `levelScore[i] = 255·(i+1)/10`: 25, 51, 76, 102, 127, 153, 178, 204,
/// 229, 255 (paper Fig. 3, "Level score table").
pub const LEVEL_SCORE: [u8; LEVELS] = level_scores();

const fn level_scores() -> [u8; LEVELS] {
    let mut t = [0u8; LEVELS];
    let mut i = 0;
    while i < LEVELS {
        t[i] = (255 * (i + 1) / LEVELS) as u8;
        i += 1;
    }
    t
}

/// Saturate to a one-byte score.
#[inline]
pub fn sat8(x: u64) -> u8 {
    x.min(255) as u8
}

/// Alg. 1 (`CalcDelayCost`) on a delay of any resolution: `255` at or above `max_delay`, else the
/// linear map `delay · 255 / max_delay` (rounded down). With `max_delay = 2^S ms` and a delay in
/// whole milliseconds this is exactly the paper's `(delay · 255) ≫ S`.
#[inline]
pub fn delay_score(delay: Time, max_delay: Time) -> u8 {
    if max_delay == Time::ZERO || delay >= max_delay {
        return 255;
    }
    ((delay.ps() as u128 * 255) / max_delay.ps() as u128) as u8
}

/// Alg. 1 as the artifact computes it: the delay truncated to whole milliseconds (`(uint16)(ns /
/// 1e6)`), `255` when above `max_ms`, else `delay_ms · 255 / max_ms` — for the artifact's
/// `max_ms = 32 = 2^5` exactly its `(delay_ms · 255) ≫ 5`.
#[inline]
pub fn delay_score_artifact(delay: Time, max_ms: u64) -> u8 {
    let ms = (delay.ns() / 1_000_000).min(u16::MAX as u64);
    let max_ms = max_ms.max(1);
    if ms > max_ms {
        return 255;
    }
    sat8(ms * 255 / max_ms)
}

/// Alg. 2 (`CalcLinkCapCost`): capacity classes `max·(i+1)/10`; the highest class `i` the rate
/// reaches gives `255 − levelScore[i]`, and a rate below the first class gives 255. Computed on
/// bits per second in 64 bits (the artifact's whole-Gb/s truncation gives the same classes for
/// integral Gb/s rates).
#[inline]
pub fn capacity_score(rate_bps: u64, max_capacity_bps: u64) -> u8 {
    for i in (0..LEVELS).rev() {
        let thr = (max_capacity_bps as u128 * (i as u128 + 1) / LEVELS as u128) as u64;
        if rate_bps >= thr {
            return 255 - LEVEL_SCORE[i];
        }
    }
    255
}

/// Alg. 2 as the artifact computes it: the rate truncated to whole Gb/s compared with
/// `400·(i+1)/10` Gb/s.
#[inline]
pub fn capacity_score_artifact(rate_bps: u64) -> u8 {
    let gbps = rate_bps / 1_000_000_000;
    for i in (0..LEVELS).rev() {
        if gbps >= 400 * (i as u64 + 1) / LEVELS as u64 {
            return 255 - LEVEL_SCORE[i];
        }
    }
    255
}

/// Eq. 2: `C_path = min((w_dl·delayScore + w_lc·linkCapScore) ≫ S_path, 255)`.
#[inline]
pub fn path_cost(delay_score: u8, cap_score: u8, w_dl: u32, w_lc: u32, s_path: u32) -> u8 {
    sat8((w_dl as u64 * delay_score as u64 + w_lc as u64 * cap_score as u64) >> s_path.min(63))
}

/// Queue-level thresholds `capacity·i/10`, `i = 0..9` (paper Fig. 3, "Queue threshold"), in 64
/// bits.
pub fn queue_thresholds(capacity_bytes: u64) -> [u64; LEVELS] {
    let mut t = [0u64; LEVELS];
    for (i, x) in t.iter_mut().enumerate() {
        *x = (capacity_bytes as u128 * i as u128 / LEVELS as u128) as u64;
    }
    t
}

/// The artifact's queue thresholds: `5e9·i/10` stored in `uint32`, so the last one (4.5e9) wraps
/// to 205,032,704 (`docs/lcmp.md`, artifact profile).
pub fn queue_thresholds_artifact() -> [u64; LEVELS] {
    let mut t = [0u64; LEVELS];
    for (i, x) in t.iter_mut().enumerate() {
        *x = ((5_000_000_000u64 * i as u64 / LEVELS as u64) as u32) as u64;
    }
    t
}

/// Quantised queue level `Q`: 0 for an empty queue; otherwise `levelScore[i]` for the highest `i`
/// with `bytes ≥ thresholds[i]` (0 if none).
#[inline]
pub fn queue_level(bytes: u64, thresholds: &[u64; LEVELS]) -> u8 {
    if bytes == 0 {
        return 0;
    }
    for i in (0..LEVELS).rev() {
        if bytes >= thresholds[i] {
            return LEVEL_SCORE[i];
        }
    }
    0
}

/// Eq. 3, the shift-based EWMA of the queue-byte delta: `T ← T − (T ≫ K) + (Δ ≫ K)`, with
/// arithmetic (sign-preserving) shifts.
#[inline]
pub fn trend_update(trend: i64, delta: i64, k: u32) -> i64 {
    let k = k.min(62);
    trend - (trend >> k) + (delta >> k)
}

/// Trend thresholds of a port of rate `rate_bps`: `(i+1)/10` of the bytes the port sends in one
/// millisecond at line rate (paper Fig. 3, "Trend threshold"; `docs/lcmp.md`, artifact profile).
pub fn trend_thresholds(rate_bps: u64) -> [u64; LEVELS] {
    let per_ms = rate_bps / 8 / 1000;
    let mut t = [0u64; LEVELS];
    for (i, x) in t.iter_mut().enumerate() {
        *x = per_ms * (i as u64 + 1) / LEVELS as u64;
    }
    t
}

/// Trend level `T`: 0 for a non-positive trend; otherwise `levelScore[i]` for the highest `i` with
/// `trend ≥ thresholds[i] · interval / 1 ms` (0 if none). The interval is the time between the
/// two samples the trend was updated from (§3.3: "trend normalization uses the observed sampling
/// interval"). The artifact passes a whole number of milliseconds clamped to ≥ 1 (always 1).
#[inline]
pub fn trend_level(trend: i64, thresholds: &[u64; LEVELS], interval: Time) -> u8 {
    if trend <= 0 {
        return 0;
    }
    let t = trend as u128;
    for i in (0..LEVELS).rev() {
        let thr = thresholds[i] as u128 * interval.ps() as u128 / 1_000_000_000;
        if t >= thr {
            return LEVEL_SCORE[i];
        }
    }
    0
}

/// The duration counter: `+1` while `Q ≥ high`, `−1` (floored at 0) while `Q ≤ low`, unchanged
/// in between.
#[inline]
pub fn duration_update(counter: u32, q_level: u8, high: u8, low: u8) -> u32 {
    if q_level >= high {
        counter.saturating_add(1)
    } else if q_level <= low {
        counter.saturating_sub(1)
    } else {
        counter
    }
}

/// The duration penalty `D = min(counter ≫ shift, 255)`.
#[inline]
pub fn duration_penalty(counter: u32, shift: u32) -> u8 {
    sat8((counter as u64) >> shift.min(63))
}

/// Eq. 4–5: `C_cong = min((w_ql·Q + w_tl·T + w_dp·D) ≫ S_cong, 255)`.
#[inline]
pub fn congestion_cost(q: u8, t: u8, d: u8, w_ql: u32, w_tl: u32, w_dp: u32, s_cong: u32) -> u8 {
    sat8(
        (w_ql as u64 * q as u64 + w_tl as u64 * t as u64 + w_dp as u64 * d as u64)
            >> s_cong.min(63),
    )
}

/// Eq. 1 with the artifact's normalisation: `C = min((α·C_path + β·C_cong) ≫ S_total, 255)`.
#[inline]
pub fn total_cost(c_path: u8, c_cong: u8, alpha: u32, beta: u32, s_total: u32) -> u8 {
    sat8((alpha as u64 * c_path as u64 + beta as u64 * c_cong as u64) >> s_total.min(63))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_scores_match_the_spec() {
        assert_eq!(LEVEL_SCORE, [25, 51, 76, 102, 127, 153, 178, 204, 229, 255]);
    }

    /// The artifact's delay costs (`docs/lcmp.md`, artifact profile): 0→0, 1→7, 5→39, 10→79,
    /// 25→199, 32→255, >32→255.
    #[test]
    fn artifact_delay_costs() {
        let ms = Time::from_ms;
        let table = [
            (0, 0),
            (1, 7),
            (5, 39),
            (10, 79),
            (25, 199),
            (32, 255),
            (33, 255),
            (50, 255),
            (100, 255),
            (250, 255),
        ];
        for (d, c) in table {
            assert_eq!(delay_score_artifact(ms(d), 32), c, "{d} ms");
        }
        // Truncation to whole ms: 1 µs intra-DC links cost 0; 5.9 ms costs like 5 ms.
        assert_eq!(delay_score_artifact(Time::from_us(1), 32), 0);
        assert_eq!(delay_score_artifact(Time::from_us(5_900), 32), 39);
    }

    /// The paper's form agrees with the artifact on whole milliseconds below the saturation point
    /// and resolves fractions of a millisecond.
    #[test]
    fn paper_delay_costs() {
        let max = Time::from_ms(32);
        for d in 0..32u64 {
            assert_eq!(
                delay_score(Time::from_ms(d), max),
                delay_score_artifact(Time::from_ms(d), 32),
                "{d} ms"
            );
        }
        assert_eq!(delay_score(Time::from_ms(32), max), 255);
        assert_eq!(delay_score(Time::from_us(500), max), 3); // 0.5·255/32 = 3.98
                                                             // A 256 ms saturation point grades long-haul delays: 10, 50, 200 ms.
        let max = Time::from_ms(256);
        assert_eq!(delay_score(Time::from_ms(10), max), 9);
        assert_eq!(delay_score(Time::from_ms(50), max), 49);
        assert_eq!(delay_score(Time::from_ms(200), max), 199);
        assert_eq!(delay_score(Time::from_ms(300), max), 255);
    }

    /// The artifact's capacity costs (`docs/lcmp.md`, artifact profile): 25 G→255, 40 G→230,
    /// 100 G→204, 200 G→128, 400 G→0.
    #[test]
    fn capacity_costs() {
        let g = |x: u64| x * 1_000_000_000;
        let table = [
            (25, 255),
            (39, 255),
            (40, 230),
            (80, 204),
            (100, 204),
            (120, 179),
            (200, 128),
            (399, 26),
            (400, 0),
            (800, 0),
        ];
        for (r, c) in table {
            assert_eq!(capacity_score(g(r), g(400)), c, "{r} G");
            assert_eq!(capacity_score_artifact(g(r)), c, "{r} G");
        }
        // A fractional rate just below a class boundary stays in the lower class.
        assert_eq!(capacity_score(g(40) - 1, g(400)), 255);
        assert_eq!(capacity_score_artifact(g(40) - 1), 255);
    }

    /// `docs/lcmp.md`, artifact profile: DC1's DCI toward DC8 on the repository's 8-DC file, with
    /// the artifact's constants (w_dl 3, w_bw 1, S_static 2, α 3, β 1, S_total 2): C_static, C with
    /// no congestion and C with the largest reachable congestion cost (76).
    #[test]
    fn spec_table_2_8() {
        // (rate G, delay ms, delayCost, bwCost, C_static, C(cong=0), C(cong=76))
        let rows = [
            (25, 5, 39, 255, 93, 69, 88),
            (100, 10, 79, 204, 110, 82, 101),
            (200, 25, 199, 128, 181, 135, 154),
            (200, 250, 255, 128, 223, 167, 186),
            (100, 100, 255, 204, 242, 181, 200),
            (25, 50, 255, 255, 255, 191, 210),
        ];
        let max_cong = congestion_cost(25, 255, 0, 2, 1, 1, 2);
        assert_eq!(max_cong, 76);
        for (r, d, dc, bc, cs, c0, c76) in rows {
            let dcost = delay_score_artifact(Time::from_ms(d), 32);
            let bcost = capacity_score_artifact(r * 1_000_000_000);
            assert_eq!((dcost, bcost), (dc, bc), "{r} G {d} ms");
            let cst = path_cost(dcost, bcost, 3, 1, 2);
            assert_eq!(cst, cs, "{r} G {d} ms");
            assert_eq!(total_cost(cst, 0, 3, 1, 2), c0, "{r} G {d} ms");
            assert_eq!(total_cost(cst, max_cong, 3, 1, 2), c76, "{r} G {d} ms");
        }
    }

    /// `docs/lcmp.md`, topologies: on posCor, DC1's costs with no congestion are DC6 64, DC4 82,
    /// DC7 132, DC2 135, DC3 167, DC5 181 (artifact form, per next hop).
    #[test]
    fn poscor_artifact_costs() {
        let rows = [
            (40, 5, 64),
            (100, 10, 82),
            (40, 20, 132),
            (200, 25, 135),
            (200, 100, 167),
            (100, 40, 181),
        ];
        for (r, d, c) in rows {
            let cst = path_cost(
                delay_score_artifact(Time::from_ms(d), 32),
                capacity_score_artifact(r * 1_000_000_000),
                3,
                1,
                2,
            );
            assert_eq!(total_cost(cst, 0, 3, 1, 2), c, "{r} G {d} ms");
        }
    }

    /// The paper design on posCor with whole-path delays (DC1→DCx→DC8, two equal hops) and a
    /// 256 ms saturation point: delay scores 9/19/39/49/79/199 for 10/20/40/50/80/200 ms.
    #[test]
    fn poscor_paper_costs() {
        let max = Time::from_ms(256);
        // (via, rate G, path delay ms, C_path, C(cong=0))
        let rows = [
            ("DC6", 40, 10, 64, 48),
            ("DC4", 100, 20, 65, 48),
            ("DC2", 200, 50, 68, 51),
            ("DC7", 40, 40, 86, 64),
            ("DC5", 100, 80, 110, 82),
            ("DC3", 200, 200, 181, 135),
        ];
        for (via, r, d, cp, c) in rows {
            let cst = path_cost(
                delay_score(Time::from_ms(d), max),
                capacity_score(r * 1_000_000_000, 400_000_000_000),
                3,
                1,
                2,
            );
            assert_eq!(cst, cp, "{via}");
            assert_eq!(total_cost(cst, 0, 3, 1, 2), c, "{via}");
        }
    }

    #[test]
    fn queue_levels() {
        let a = queue_thresholds_artifact();
        assert_eq!(a[0], 0);
        assert_eq!(a[1], 500_000_000);
        assert_eq!(a[8], 4_000_000_000);
        assert_eq!(a[9], 205_032_704);
        // Effective artifact levels: {0, 25, 255}.
        assert_eq!(queue_level(0, &a), 0);
        assert_eq!(queue_level(1, &a), 25);
        assert_eq!(queue_level(128 << 20, &a), 25);
        assert_eq!(queue_level(205_032_704, &a), 255);
        assert_eq!(queue_level(600_000_000, &a), 255);
        // Paper: thresholds from a 128 MiB buffer, graded.
        let p = queue_thresholds(128 << 20);
        assert_eq!(p[1], 13_421_772);
        assert_eq!(queue_level(1, &p), 25);
        assert_eq!(queue_level(13_421_772, &p), 51);
        assert_eq!(queue_level(64 << 20, &p), 153);
        assert_eq!(queue_level(127 << 20, &p), 255);
    }

    #[test]
    fn trend_and_duration() {
        // EWMA converges to a constant delta; arithmetic shifts keep negative trends negative.
        let mut t = 0;
        for _ in 0..200 {
            t = trend_update(t, 8_000, 3);
        }
        assert!((7_900..=8_000).contains(&t), "{t}");
        assert_eq!(trend_update(0, -1, 3), -1);
        assert_eq!(trend_update(-8, 0, 3), -7);
        // 100 G: 12.5 MB per ms; thresholds 1.25 MB … 12.5 MB.
        let th = trend_thresholds(100_000_000_000);
        assert_eq!(th[0], 1_250_000);
        assert_eq!(th[9], 12_500_000);
        let ms = Time::from_ms(1);
        assert_eq!(trend_level(0, &th, ms), 0);
        assert_eq!(trend_level(1_249_999, &th, ms), 0);
        assert_eq!(trend_level(1_250_000, &th, ms), 25);
        assert_eq!(trend_level(12_500_000, &th, ms), 255);
        // Over a 100 µs interval the thresholds scale down tenfold.
        assert_eq!(trend_level(125_000, &th, Time::from_us(100)), 25);
        assert_eq!(trend_level(1_250_000, &th, Time::from_us(100)), 255);
        // Duration counter and penalty.
        assert_eq!(duration_update(0, 204, 204, 102), 1);
        assert_eq!(duration_update(5, 153, 204, 102), 5);
        assert_eq!(duration_update(5, 102, 204, 102), 4);
        assert_eq!(duration_update(0, 0, 204, 102), 0);
        assert_eq!(duration_penalty(7, 2), 1);
        assert_eq!(duration_penalty(10_000, 2), 255);
        // Eq. 4–5 and Eq. 1 saturate.
        assert_eq!(congestion_cost(255, 255, 255, 2, 1, 1, 2), 255);
        assert_eq!(congestion_cost(25, 0, 0, 2, 1, 1, 2), 12);
        assert_eq!(total_cost(255, 255, 3, 1, 2), 255);
        assert_eq!(total_cost(255, 0, 4, 0, 2), 255);
        assert_eq!(total_cost(0, 76, 0, 4, 2), 76);
    }
}
