//! Braid's one percentile rule: **nearest rank**.
//!
//! The p-th percentile (p ∈ [0, 100]) of `n` values sorted ascending is the value at 1-based rank
//! `⌈p/100 · n⌉`, rank 1 for p = 0: always an observed value, never an interpolation. With no
//! values, or with p outside [0, 100] (NaN included), there is no percentile: `None`. A caller
//! that must print a number for "no data" chooses it at the call site (`unwrap_or(0.0)` for the
//! `summary.json` fields, NaN for figure captions), so the rule itself has one answer.
//!
//! Every percentile Braid prints follows this rule: [`percentile`] over sorted samples, and the
//! histograms of `braid-net` (NIC OOD/RBO, queue lengths) through [`nearest_rank`]. The one
//! exception is the LCMP artifact's own indexing, kept under its own name in `braid-workload`
//! (`lcmp_artifact_percentile`) for side-by-side comparisons with the artifact's scripts.
//! `docs/metrics.md` lists which output uses which.

/// The 1-based nearest rank of the p-th percentile among `count` values: `⌈p/100 · count⌉`
/// clamped to `[1, count]`. `None` when `count` is 0 or `p` is outside `[0, 100]`.
pub fn nearest_rank(count: u64, p: f64) -> Option<u64> {
    if count == 0 || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let rank = ((p / 100.0) * count as f64).ceil() as u64;
    Some(rank.clamp(1, count))
}

/// The nearest-rank percentile `p` (in `[0, 100]`) of `sorted` (ascending). `None` when `sorted`
/// is empty or `p` is outside `[0, 100]`.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let rank = nearest_rank(sorted.len() as u64, p)?;
    Some(sorted[rank as usize - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_of_one_to_hundred() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
    }

    #[test]
    fn small_samples_take_an_observed_value() {
        let w = [1.0, 2.0, 3.0];
        assert_eq!(percentile(&w, 50.0), Some(2.0));
        assert_eq!(percentile(&w, 99.0), Some(3.0));
        assert_eq!(nearest_rank(3, 34.0), Some(2));
    }

    #[test]
    fn empty_input_and_out_of_range_p_have_no_percentile() {
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(nearest_rank(0, 50.0), None);
        assert_eq!(percentile(&[1.0], 101.0), None);
        assert_eq!(percentile(&[1.0], -1.0), None);
        assert_eq!(percentile(&[1.0], f64::NAN), None);
    }
}
