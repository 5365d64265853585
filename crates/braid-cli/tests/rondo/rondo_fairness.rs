//! Rondo's fairness among flows of different base RTTs (Prop 1, Appendix C.2; the set-up of
//! Fig 25): three flows to one receiver on the 320-host Clos — from its rack, its pod and another
//! pod — joining at 0, 200 and 400 µs (`repro/scenarios/rondo-rtt-fairness.toml` with its quick
//! flow file). Prop 1 holds for logical paths whose base RTT `T` is known ("derived from the
//! topology"; in this fabric of alike paths `rtt_bound = true` pins `T_p` to it), so the test gives
//! every flow the same number of logical paths and bounds `T_p`; the defaults' deviations (a flow
//! with more logical paths, or one that joins a standing queue and counts it in its `T_p`, takes
//! more) are measured in EXPERIMENTS.md and docs/rondo.md.
//!
//! And flows that join one by one (`examples/rondo-staggered-joins.toml`): with `T_p` bounded by
//! the topology they share equally; floored at a smallest RTT that includes the queue a joiner met
//! (the default), the late joiners take more.

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
    let rates = mean_rates(&["transport.paths=16", "transport.rtt_bound=true"], from, to);
    let total: f64 = rates.iter().sum();
    eprintln!("rack / pod / cross-pod: {rates:.1?} Gb/s, Jain {:.3}", jain(&rates));
    // The receiver's link is full (100 Gb/s of data-packet wire rate, the ACK-rate estimate's unit).
    assert!(total > 90.0 && total < 105.0, "sum {total:.1} Gb/s: {rates:?}");
    assert!(jain(&rates) >= 0.98, "Jain index {:.3} over {rates:.1?} Gb/s", jain(&rates));
    for &r in &rates {
        assert!(
            (r - total / 3.0).abs() <= 0.2 * total / 3.0,
            "a flow off its fair share by more than 20 %: {rates:.1?}"
        );
    }
}

/// FCTs (µs) of `examples/rondo-staggered-joins.toml` with `sets`.
fn staggered_fcts_us(sets: &[&str]) -> Vec<f64> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(dir.join("rondo-staggered-joins.toml")).unwrap();
    let mut all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    all.push("output.paths=false".into());
    let sc = parse(&text, &dir, &all, None).unwrap();
    let r = run(&sc, false).unwrap();
    r.sim
        .flows()
        .iter()
        .map(|f| (f.finish.expect("every flow finishes") - f.start).secs_f64() * 1e6)
        .collect()
}

#[test]
fn flows_joining_one_by_one_share_equally_with_t_from_the_topology() {
    // Eight 4 MB flows to one host, one joining every 30 µs: once all have joined each should
    // have an eighth of the link, so flows 1..7 (flow 0 was alone for 30 µs) finish together.
    let fct = staggered_fcts_us(&["transport.rtt_bound=true"]);
    let late = &fct[1..];
    let (lo, hi) = late.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    eprintln!("staggered joins, rtt_bound = true, FCT µs: {fct:.0?}");
    assert!(hi / lo <= 1.15, "flows 1-7 finish {lo:.0}-{hi:.0} µs apart: {fct:.0?}");
    // The defaults floor `T_p` at a smallest RTT that includes the queue a joiner met: the last
    // two joiners finished at 1.57-1.63 ms against 2.29-2.71 ms (docs/rondo.md, "Base RTT per
    // path"). What the bound removes is that advantage.
    let floored = staggered_fcts_us(&[]);
    eprintln!("defaults: {floored:.0?}");
    assert!(
        floored[7] < fct[7],
        "the last joiner with the defaults {:.0} µs, with the bound {:.0} µs",
        floored[7],
        fct[7]
    );
}
