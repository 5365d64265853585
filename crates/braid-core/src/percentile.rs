//! Braid's one percentile rule: **nearest rank**.
//!
//! The p-th percentile (p ∈ [0, 100]) of `n` values sorted ascending is the value at 1-based rank
//! `⌈p/100 · n⌉`, rank 1 for p = 0: always an observed value, never an interpolation. With no
//! values, or with p outside [0, 100] (NaN included), there is no percentile: `None`. A caller
//! that must print a number for "no data" chooses it at the call site (`unwrap_or(0.0)` for the
//! `summary.json` fields, NaN for figure captions), so the rule itself has one answer.
//!
//! Every percentile Braid prints follows this rule: [`percentile`] over sorted samples, and the
//! histograms (NIC OOD/RBO: [`Histogram`]; queue lengths in `braid-net`) through [`nearest_rank`]. The one
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

/// An exact histogram of small non-negative integers (counts indexed by value), with a tail
/// bucket for values past its range.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    max: u64,
    sum: u128,
}

impl Histogram {
    const CAP: u64 = 1 << 22;

    /// Add `other`'s samples (merging the partitions of a parallel run; the result is the
    /// histogram of both sample sets, whatever their order).
    pub fn merge(&mut self, other: &Histogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.max = self.max.max(other.max);
        self.sum += other.sum;
    }

    /// Record one sample.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let i = v.min(Self::CAP) as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.max = self.max.max(v);
        self.sum += v as u128;
    }
    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Largest sample.
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Nearest-rank percentile `p` in [0, 100] (Braid's one rule, [`nearest_rank`]); 0 when there
    /// is none (no samples, or `p` outside [0, 100]), as `summary.json` prints it.
    pub fn percentile(&self, p: f64) -> u64 {
        let Some(rank) = nearest_rank(self.n, p) else { return 0 };
        let mut acc = 0;
        for (v, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= rank {
                return v as u64;
            }
        }
        self.max
    }
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
