//! Helpers for the headline workload metrics: FCT slowdown binned by flow size, and JCT per job.
//!
//! **Percentiles** follow Braid's one rule, nearest rank ([`braid_core::percentile`]): the p-th
//! percentile of `n` sorted values is the value at 1-based rank `⌈p/100 · n⌉` (rank 1 for p = 0),
//! `None` for an empty bin. The LCMP artifact's analysis script indexes differently (`a[int(n·p)]`,
//! 0-based: one rank higher when `n·p` is an integer, e.g. the maximum for p99 of 100 values);
//! [`lcmp_artifact_percentile`] reproduces that rule, under its own name, for side-by-side
//! comparisons with the artifact's numbers.
//!
//! **Slowdown bins**: (a) equal-count bins as the LCMP paper plots them (the artifact's analysis
//! script: flows sorted by size, cut into 20 bins of 5 % of the flows each; per bin the largest
//! size, p50 and p99 of the slowdown); (b) fixed size edges. Slowdown itself (FCT / ideal FCT,
//! clamped ≥ 1 in the LCMP scripts) is computed by the caller.
//!
//! **JCT**: per job, from the earliest actual start to the latest completion among its flows and
//! the flows of every job nested in it; a job with an unfinished flow has no JCT.

use crate::workload::{Workload, NO_JOB};
use braid_core::percentile::percentile;
use braid_core::Time;

/// The LCMP artifact's percentile rule, *not* Braid's: `sorted[int(n · p/100)]` (0-based index,
/// clamped to the last value) as the artifact's analysis script computes it. It agrees with the
/// nearest rank except when `n · p/100` is a positive integer, where it takes the next value. `None` when
/// `sorted` is empty or `p` is outside `[0, 100]`, as [`braid_core::percentile::percentile`].
pub fn lcmp_artifact_percentile(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let i = ((p / 100.0) * n as f64).floor() as usize;
    Some(sorted[i.min(n - 1)])
}

/// The flow sets of [`artifact_slowdown_stats`]: every flow, then three size bins (bytes, lower
/// edge inclusive, upper exclusive; 1 KB = 1000 B).
pub const ARTIFACT_STAT_SETS: &[(&str, u64, u64)] = &[
    ("all", 0, u64::MAX),
    ("<100KB", 0, 100_000),
    ("100KB-1MB", 100_000, 1_000_000),
    (">=1MB", 1_000_000, u64::MAX),
];

/// FCT-slowdown percentiles computed the LCMP artifact's way (`docs/ns3-equivalence.md`, the two
/// slowdowns): `pairs` are (size, slowdown against the artifact's ideal, already clamped at ≥ 1);
/// the largest flow is dropped (its script drops its last line after sorting by size), then per
/// set of [`ARTIFACT_STAT_SETS`] the count and p50 / p95 / p99 by [`lcmp_artifact_percentile`].
pub fn artifact_slowdown_stats(
    pairs: &[(u64, f64)],
) -> Vec<(&'static str, usize, [Option<f64>; 3])> {
    let mut v = sorted_by_size(pairs);
    v.pop();
    ARTIFACT_STAT_SETS
        .iter()
        .map(|&(name, lo, hi)| {
            let mut s: Vec<f64> = v.iter().filter(|p| p.0 >= lo && p.0 < hi).map(|p| p.1).collect();
            s.sort_by(|a, b| a.total_cmp(b));
            (name, s.len(), [50.0, 95.0, 99.0].map(|p| lcmp_artifact_percentile(&s, p)))
        })
        .collect()
}

/// Slowdown statistics of one flow-size bin.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeBin {
    /// Smallest size in the bin (equal-count bins) or the bin's lower edge, exclusive except for
    /// the first bin (fixed edges).
    pub lo: u64,
    /// Largest size in the bin (equal-count bins) or the bin's upper edge, inclusive (fixed edges;
    /// `u64::MAX` for the last bin).
    pub hi: u64,
    /// Number of flows in the bin.
    pub count: usize,
    /// Median slowdown (nearest rank), `None` for an empty bin.
    pub p50: Option<f64>,
    /// 99th-percentile slowdown (nearest rank), `None` for an empty bin.
    pub p99: Option<f64>,
}

fn stats(lo: u64, hi: u64, slowdowns: &mut [f64]) -> SizeBin {
    slowdowns.sort_by(|a, b| a.total_cmp(b));
    SizeBin {
        lo,
        hi,
        count: slowdowns.len(),
        p50: percentile(slowdowns, 50.0),
        p99: percentile(slowdowns, 99.0),
    }
}

fn sorted_by_size(pairs: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = pairs.iter().copied().filter(|p| !p.1.is_nan()).collect();
    // Stable: flows of equal size keep their input order, as the LCMP script's sort does.
    v.sort_by_key(|p| p.0);
    v
}

/// Equal-count bins: sort (size, slowdown) pairs by size and cut them into `bins` groups of
/// `⌊i·n/bins⌋ .. ⌊(i+1)·n/bins⌋` flows; empty groups (when n < bins) are skipped. NaN slowdowns are
/// dropped. The LCMP figures use `bins = 20`.
pub fn slowdown_equal_count_bins(pairs: &[(u64, f64)], bins: usize) -> Vec<SizeBin> {
    let v = sorted_by_size(pairs);
    let n = v.len();
    let bins = bins.max(1);
    let mut out = Vec::new();
    for b in 0..bins {
        let (l, r) = (b * n / bins, (b + 1) * n / bins);
        if l == r {
            continue;
        }
        let mut s: Vec<f64> = v[l..r].iter().map(|p| p.1).collect();
        out.push(stats(v[l].0, v[r - 1].0, &mut s));
    }
    out
}

/// Fixed-edge bins: with ascending `edges` `[e0, e1, …, ek]`, bin 0 holds sizes `≤ e0`, bin i holds
/// `e(i−1) < size ≤ ei`, and a last bin holds sizes `> ek` — `k + 2` bins, empty ones included (with
/// `None` percentiles). NaN slowdowns are dropped. Unsorted edges are an error.
pub fn slowdown_fixed_bins(pairs: &[(u64, f64)], edges: &[u64]) -> Result<Vec<SizeBin>, String> {
    if edges.windows(2).any(|w| w[1] <= w[0]) {
        return Err(format!("size-bin edges must be strictly increasing, got {edges:?}"));
    }
    let mut groups: Vec<Vec<f64>> = vec![Vec::new(); edges.len() + 1];
    for &(size, s) in pairs {
        if s.is_nan() {
            continue;
        }
        let b = edges.partition_point(|&e| e < size);
        groups[b].push(s);
    }
    Ok(groups
        .iter_mut()
        .enumerate()
        .map(|(b, g)| {
            let lo = if b == 0 { 0 } else { edges[b - 1] };
            let hi = if b < edges.len() { edges[b] } else { u64::MAX };
            stats(lo, hi, g)
        })
        .collect())
}

/// Completion of one job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobResult {
    /// Index into [`Workload::jobs`].
    pub job: u32,
    /// The job's name.
    pub name: String,
    /// Flows of the job (including nested jobs).
    pub flows: usize,
    /// Of those, how many completed.
    pub completed: usize,
    /// Earliest actual start among the job's flows that started.
    pub start: Option<Time>,
    /// Latest completion, when every flow completed.
    pub finish: Option<Time>,
    /// `finish − start`, when every flow completed.
    pub jct: Option<Time>,
}

/// JCT per job. `started[i]` / `finished[i]` are flow `i`'s actual start and completion (`None`
/// when it never started / completed); slices shorter than the flow list count as `None`.
pub fn jct_per_job(
    wl: &Workload,
    started: &[Option<Time>],
    finished: &[Option<Time>],
) -> Vec<JobResult> {
    let nj = wl.jobs.len();
    let mut res: Vec<JobResult> = wl
        .jobs
        .iter()
        .enumerate()
        .map(|(j, job)| JobResult {
            job: j as u32,
            name: job.name.clone(),
            flows: 0,
            completed: 0,
            start: None,
            finish: None,
            jct: None,
        })
        .collect();
    let mut latest: Vec<Option<Time>> = vec![None; nj];
    for (i, f) in wl.flows.iter().enumerate() {
        let s = started.get(i).copied().flatten();
        let e = finished.get(i).copied().flatten();
        let mut j = f.tag;
        let mut hops = 0;
        while j != NO_JOB && (j as usize) < nj && hops <= nj {
            let r = &mut res[j as usize];
            r.flows += 1;
            if let Some(s) = s {
                r.start = Some(r.start.map_or(s, |x| x.min(s)));
            }
            if let Some(e) = e {
                r.completed += 1;
                latest[j as usize] = Some(latest[j as usize].map_or(e, |x| x.max(e)));
            }
            j = wl.jobs[j as usize].parent;
            hops += 1;
        }
    }
    for (r, l) in res.iter_mut().zip(latest) {
        if r.flows > 0 && r.completed == r.flows {
            r.finish = l;
            if let (Some(s), Some(e)) = (r.start, l) {
                r.jct = Some(e.saturating_sub(s));
            }
        }
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_stats_drop_the_largest_flow_and_index_the_artifact_way() {
        // 101 flows: sizes 1..=101 KB (×1000 B), slowdown = size in KB; the 101 KB one is dropped.
        let pairs: Vec<(u64, f64)> = (1..=101u64).rev().map(|k| (k * 1000, k as f64)).collect();
        let st = artifact_slowdown_stats(&pairs);
        assert_eq!(st[0].0, "all");
        assert_eq!(st[0].1, 100);
        // sorted[int(100 · 0.5)] = sorted[50] = 51; p99 → sorted[99] = 100.
        assert_eq!(st[0].2, [Some(51.0), Some(96.0), Some(100.0)]);
        assert_eq!(st[1].1, 99); // < 100 KB: 1..=99
        assert_eq!(st[2].1, 1); // 100 KB
        assert_eq!(st[3].1, 0);
        assert_eq!(st[3].2, [None, None, None]);
    }

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=100).map(|x| x as f64).collect();
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(lcmp_artifact_percentile(&v, 99.0), Some(100.0));
        assert_eq!(lcmp_artifact_percentile(&v, 50.0), Some(51.0));
        let mut w = vec![3.0, 1.0, 2.0];
        w.sort_by(f64::total_cmp);
        assert_eq!(percentile(&w, 50.0), Some(2.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&w, 101.0), None);
    }

    #[test]
    fn equal_count_bins() {
        // 1000 flows of sizes 1..=1000, slowdown = size / 100
        let pairs: Vec<(u64, f64)> = (1..=1000u64).rev().map(|s| (s, s as f64 / 100.0)).collect();
        let bins = slowdown_equal_count_bins(&pairs, 20);
        assert_eq!(bins.len(), 20);
        assert!(bins.iter().all(|b| b.count == 50));
        assert_eq!(bins[0].lo, 1);
        assert_eq!(bins[0].hi, 50);
        assert_eq!(bins[0].p50, Some(0.25));
        assert_eq!(bins[0].p99, Some(0.50));
        assert_eq!(bins[19].hi, 1000);
        assert_eq!(slowdown_equal_count_bins(&pairs[..5], 20).len(), 5);
        assert!(slowdown_equal_count_bins(&[], 20).is_empty());
    }

    #[test]
    fn fixed_bins() {
        let pairs = [(10u64, 1.0), (100, 2.0), (101, 3.0), (5000, 4.0), (1_000_000, 5.0)];
        let bins = slowdown_fixed_bins(&pairs, &[100, 1000, 10_000]).unwrap();
        assert_eq!(bins.len(), 4);
        assert_eq!(bins.iter().map(|b| b.count).collect::<Vec<_>>(), vec![2, 1, 1, 1]);
        assert_eq!(bins[0].p99, Some(2.0));
        assert_eq!(bins[3].hi, u64::MAX);
        let none = slowdown_fixed_bins(&pairs, &[1, 2, 100_000_000]).unwrap();
        assert_eq!(none[1].count, 0);
        assert_eq!(none[1].p50, None);
        assert!(slowdown_fixed_bins(&pairs, &[10, 5]).is_err());
    }

    #[test]
    fn jct_with_nested_jobs() {
        let mut wl = Workload::new();
        let top = wl.add_job("train", NO_JOB);
        let p0 = wl.add_job("iter0", top);
        let p1 = wl.add_job("iter1", top);
        wl.add_flow(0, 1, 1, Time::ZERO, &[], p0);
        wl.add_flow(1, 0, 1, Time::ZERO, &[], p0);
        wl.add_flow(0, 1, 1, Time::ZERO, &[0, 1], p1);
        wl.add_flow(1, 2, 1, Time::ZERO, &[], NO_JOB);
        let us = |x| Some(Time::from_us(x));
        let r = jct_per_job(&wl, &[us(1), us(2), us(10), us(0)], &[us(5), us(8), us(20), None]);
        assert_eq!(r[p0 as usize].jct, Some(Time::from_us(7)));
        assert_eq!(r[p1 as usize].jct, Some(Time::from_us(10)));
        assert_eq!(r[top as usize].jct, Some(Time::from_us(19)));
        assert_eq!(r[top as usize].flows, 3);
        let r = jct_per_job(&wl, &[us(1), us(2), us(10)], &[us(5), us(8)]);
        assert_eq!(r[top as usize].jct, None);
        assert_eq!(r[top as usize].completed, 2);
        assert_eq!(r[p0 as usize].jct, Some(Time::from_us(7)));
    }
}
