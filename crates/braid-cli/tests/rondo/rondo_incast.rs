//! Rondo under 32-to-1 incast on the three-tier Clos (`examples/rondo-incast.toml`, Fig 17 and
//! Fig 10): fairness (Prop 1: N flows through one bottleneck converge to C/N; the paper reports a
//! Jain index of 0.999) and no out-of-order arrival at all.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_metrics::jain_index;

#[test]
fn incast_is_fair_and_in_order() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    let text = std::fs::read_to_string(dir.join("rondo-incast.toml")).unwrap();
    let sc = parse(&text, dir, &[], None).unwrap();
    let r = run(&sc, false).unwrap();
    r.sim.conservation().unwrap();
    assert_eq!(r.sim.flows().len(), 32);
    let thr: Vec<f64> = r
        .sim
        .flows()
        .iter()
        .map(|f| {
            f.size_bytes as f64 * 8.0
                / (f.finish.expect("completes") - f.started_at.unwrap()).secs_f64()
        })
        .collect();
    let j = jain_index(&thr);
    let c = 100e9 * 1000.0 / 1064.0;
    let mean = thr.iter().sum::<f64>() / thr.len() as f64;
    println!("Jain {j:.4}, mean {:.2} Gb/s (C/N = {:.2})", mean / 1e9, c / 32.0 / 1e9);
    assert!(j >= 0.99, "Jain index {j}");
    // Each flow gets about C/N (start-up and the last-packet tail cost a few per cent).
    assert!(mean > 0.85 * c / 32.0, "mean per-flow throughput {mean}");
    // Incast: the shared last hop is the only bottleneck, so nothing arrives out of order.
    assert_eq!(r.sim.nic_ood_hist().max(), 0, "NIC-level OOD");
    assert_eq!(r.sim.conns().iter().map(|f| f.receiver.max_ood()).max(), Some(0));
    assert_eq!(r.sim.stats().spurious_retx, 0);
}
