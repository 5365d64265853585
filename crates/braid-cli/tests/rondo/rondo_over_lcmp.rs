//! Rondo over LCMP at inter-DC scale: on a two-path toy (one-way delays 5 ms
//! and 7 ms, 25 Gb/s each; `repro/scenarios/rondo-two-path-toy.toml`) one flow sprays its
//! logical paths over both LCMP candidates. Theory (Rondo §4.3): without the scheduler the
//! receiver's out-of-order degree is the data the flow sends during the delay difference,
//! `R·ΔD` (R = both paths' 50 Gb/s, ΔD = 2 ms: ~11,900 packets of 1,048 B on the wire); Eq 7's
//! skips cancel it, so in steady state OOD stays below 5 % of `R·ΔD` while both paths carry at
//! least 90 % of their capacity.

use std::path::Path;

use braid_cli::run::{run, RunResult};
use braid_cli::scenario;

/// Packets of `R·ΔD`: 50 Gb/s of 1,048-byte packets (1,000 B payload + 48 B header) for 2 ms.
const R_DELTA_D_PKTS: f64 = 50e9 / (1048.0 * 8.0) * 2e-3;
const PATH_RATE_BPS: f64 = 25e9;

fn toy(sets: &[&str]) -> RunResult {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc =
        scenario::load(&root.join("repro/scenarios/rondo-two-path-toy.toml"), &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    assert!(r.flows[0].finish_ns.is_some(), "the flow completes");
    r
}

/// The steady state: from half the flow's completion time to 90 % of it (the start-up ramp and
/// the tail excluded).
fn steady(r: &RunResult) -> (f64, f64) {
    let fct = r.flows[0].finish_ns.unwrap();
    (0.5 * fct, 0.9 * fct)
}

/// NIC-level OOD samples of the receiving host inside the steady state.
fn steady_ood(r: &RunResult) -> Vec<f64> {
    let (a, b) = steady(r);
    let v: Vec<f64> = r
        .sim
        .ood_series()
        .iter()
        .filter(|s| (s.0.ps() as f64 / 1e3) >= a && (s.0.ps() as f64 / 1e3) <= b)
        .map(|s| s.2 as f64)
        .collect();
    assert!(v.len() >= 10, "enough steady-state samples: {}", v.len());
    v
}

#[test]
fn the_scheduler_cancels_two_milliseconds_of_delay_difference_at_full_rate() {
    let r = toy(&[]);
    let ood = steady_ood(&r);
    let max = ood.iter().cloned().fold(0.0, f64::max);
    assert!(
        max < 0.05 * R_DELTA_D_PKTS,
        "steady-state max OOD {max} packets, R·ΔD = {R_DELTA_D_PKTS:.0}"
    );
    // Both physical paths at ≥ 90 % of their 25 Gb/s: logical paths grouped by the smallest
    // one-way delay they ever measured (5 ms or 7 ms: their propagation, whatever queue they
    // saw later), ACK rates summed, at every steady-state sample.
    let min_fwd = min_fwd_ns(&r);
    assert!(
        min_fwd.iter().any(|&d| d < 6e6) && min_fwd.iter().any(|&d| d > 6e6 && d.is_finite()),
        "LCMP placed logical paths on both routes: {min_fwd:?}"
    );
    let (a, b) = steady(&r);
    let mut times: Vec<u64> = r.sim.path_series().iter().map(|s| s.0.ps()).collect();
    times.dedup();
    let mut checked = 0;
    for t in times.into_iter().filter(|&t| t as f64 / 1e3 >= a && t as f64 / 1e3 <= b) {
        let (mut fast, mut slow) = (0.0, 0.0);
        for (_, _, s) in r.sim.path_series().iter().filter(|s| s.0.ps() == t) {
            if min_fwd[s.path as usize] < 6e6 {
                fast += s.ack_rate_bps as f64;
            } else {
                slow += s.ack_rate_bps as f64;
            }
        }
        assert!(
            fast >= 0.9 * PATH_RATE_BPS && slow >= 0.9 * PATH_RATE_BPS,
            "at {t} ps: 5 ms path {fast} b/s, 7 ms path {slow} b/s"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked} samples");
}

#[test]
fn without_the_scheduler_reordering_tracks_rate_times_delay_difference() {
    let r = toy(&["transport.scheduler=false"]);
    let ood = steady_ood(&r);
    let mean = ood.iter().sum::<f64>() / ood.len() as f64;
    assert!(
        (mean - R_DELTA_D_PKTS).abs() <= 0.2 * R_DELTA_D_PKTS,
        "steady-state mean OOD {mean:.0} packets vs R·ΔD = {R_DELTA_D_PKTS:.0}"
    );
    for o in ood {
        assert!(
            (o - R_DELTA_D_PKTS).abs() <= 0.2 * R_DELTA_D_PKTS,
            "sample {o} vs R·ΔD {R_DELTA_D_PKTS:.0}"
        );
    }
}

/// The smallest one-way delay each of the 8 logical paths measured (ns; infinite if none): its
/// route's propagation, whatever queue it saw later.
fn min_fwd_ns(r: &RunResult) -> [f64; 8] {
    let mut min_fwd = [f64::INFINITY; 8];
    for (_, _, s) in r.sim.path_series() {
        if s.fwd_delay_ns > 0.0 {
            min_fwd[s.path as usize] = min_fwd[s.path as usize].min(s.fwd_delay_ns);
        }
    }
    min_fwd
}

/// The routes (by smallest measured one-way delay: 5 or 7 ms) Rondo's logical paths took.
fn routes_used(r: &RunResult) -> Vec<u32> {
    let min_fwd = min_fwd_ns(r);
    let mut v: Vec<u32> =
        min_fwd.iter().filter(|d| d.is_finite()).map(|d| (d / 1e6).round() as u32).collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn per_entropy_places_each_logical_path_and_false_pins_the_flow() {
    let short = "workload.file=\"flows/two-path-toy-short.csv\"";
    assert_eq!(
        routes_used(&toy(&[short])),
        [5, 7],
        "per_entropy = true (default): LCMP decides each logical path"
    );
    let pinned = toy(&[short, "routing.per_entropy=false"]);
    assert_eq!(
        routes_used(&pinned).len(),
        1,
        "per_entropy = false: one decision for the whole flow"
    );
    // One route: nothing arrives out of order beyond the transport's own start-up.
    let ood = pinned.summary.get("nic_ood_max");
    assert!(matches!(ood, Some(braid_metrics::Value::Int(v)) if *v <= 1), "{ood:?}");
}
