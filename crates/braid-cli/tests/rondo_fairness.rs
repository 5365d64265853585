//! Rondo's fairness among flows of different base RTTs (Prop 1, Appendix C.2; the set-up of
//! Fig 25): three flows to one receiver on the 320-host Clos — from its rack, its pod and another
//! pod — joining at 0, 200 and 400 µs (`repro/scenarios/rondo-rtt-fairness.toml` with its quick
//! flow file). Prop 1 holds for logical paths whose base RTT `T` is known ("derived from the
//! topology"), so the test gives every flow the same number of logical paths and takes `T_p`
//! from the topology (`rtt_floor = false`); the defaults' deviations (a flow with more logical
//! paths, or one that joins a standing queue and counts it in its `T_p`, takes more) are measured
//! in EXPERIMENTS.md and docs/rondo.md.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::Time;

/// Per-flow throughput (sum of the flow's per-path ACK-rate estimates, Gb/s), averaged over the
/// samples in `[from, to)`.
fn mean_rates(sets: &[&str], from: Time, to: Time) -> Vec<f64> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../repro/scenarios");
    let text = std::fs::read_to_string(root.join("rondo-rtt-fairness.toml")).unwrap();
    let mut all: Vec<String> = vec!["workload.file=\"flows/rtt-fairness-3-quick.csv\"".into()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let sc = parse(&text, &root, &all, None).unwrap();
    let r = run(&sc, false).unwrap();
    let n = r.sim.flows().len();
    assert!(r.sim.flows().iter().all(|f| f.finish.is_some()), "a flow did not finish: {:?}", r.end);
    let mut sum = vec![0.0; n];
    let mut times = std::collections::BTreeSet::new();
    for &(t, f, s) in r.sim.path_series() {
        if t >= from && t < to {
            sum[f as usize] += s.ack_rate_bps as f64 / 1e9;
            times.insert(t);
        }
    }
    sum.iter().map(|s| s / times.len().max(1) as f64).collect()
}

fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

#[test]
fn flows_of_different_base_rtts_share_a_bottleneck_equally() {
    // All three overlap from 400 µs until the pod-crossing flow (0.833 MB) leaves at ~0.63 ms;
    // the first 50 µs after its join are its start-up.
    let (from, to) = (Time::from_us(450), Time::from_us(600));
    let rates = mean_rates(&["transport.paths=16", "transport.rtt_floor=false"], from, to);
    let total: f64 = rates.iter().sum();
    eprintln!("rack / pod / cross-pod: {rates:.1?} Gb/s, Jain {:.3}", jain(&rates));
    // The receiver's link is full (100 Gb/s of data-packet wire rate, the ACK-rate estimate's unit).
    assert!(total > 90.0 && total < 105.0, "sum {total:.1} Gb/s: {rates:?}");
    assert!(jain(&rates) >= 0.98, "Jain index {:.3} over {rates:.1?} Gb/s", jain(&rates));
    for &r in &rates {
        assert!((r - total / 3.0).abs() <= 0.2 * total / 3.0, "a flow off its fair share by more than 20 %: {rates:.1?}");
    }
}
