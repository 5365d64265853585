//! Rondo under random loss and arbitrary path delays (issue 4, last evidence item): whatever the
//! seed, loss rate (up to 1 %) and per-path delay, every byte reaches the application exactly once
//! and in order — the receiver delivers the whole message, the flow completes, no data packet is
//! unaccounted for (`Sim::conservation`), and the receiver never delivered a PSN twice (its
//! in-order counter equals the message size, duplicates are only counted, never delivered).
//!
//! A seeded loop rather than proptest: each case is a whole simulation.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::Rng;

const BASE: &str = r#"
name = "rondo-loss"
seed = 1
[topology]
kind = "four-path"
senders = 4
receivers = 2
host_rate = "100Gbps"
path_rate = "100Gbps"
delay = "2us"
extra_delay = "0us"
[network]
mtu = "1000B"
ecn = false
[transport]
kind = "rondo"
paths = 4
[routing]
kind = "entropy"
[workload]
kind = "incast"
senders = "0-3"
receiver = 4
size = "2MB"
"#;

#[test]
fn every_byte_delivered_once_in_order_under_loss_and_any_delays() {
    let mut rng = Rng::new(0x5eed);
    let mut cases = 0;
    for seed in 1..=5u64 {
        for loss in ["0", "0.001", "0.01"] {
            // Any path delay: a random extra delay on path 4 (0–25 µs), and for half the cases a
            // different recovery scheme and the scheduler off.
            let extra = rng.below(26);
            let rec = if rng.bernoulli(0.5) { "er" } else { "sr" };
            let sched = rng.bernoulli(0.7);
            let sets = vec![
                format!("seed={seed}"),
                format!("network.loss_rate={loss}"),
                format!("topology.extra_delay=\"{extra}us\""),
                format!("transport.recovery=\"{rec}\""),
                format!("transport.scheduler={sched}"),
            ];
            let sc = parse(BASE, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{e}"));
            let r = run(&sc, false).unwrap();
            let case = format!("seed {seed} loss {loss} extra {extra}us {rec} scheduler {sched}");
            r.sim.conservation().unwrap_or_else(|e| panic!("{case}: {e}"));
            for (i, f) in r.sim.flows().iter().enumerate() {
                assert!(f.finish.is_some(), "{case}: flow {i} did not complete");
                assert!(r.sim.conn_of(i).receiver.is_complete(), "{case}: flow {i} receiver incomplete");
                assert_eq!(f.delivered_bytes, f.size_bytes, "{case}: flow {i} delivered bytes");
                assert!(f.delivered_at.is_some(), "{case}: flow {i} never delivered in full");
            }
            // In-order bytes handed to applications add up to exactly the messages.
            let total: u64 = r.sim.flows().iter().map(|f| f.size_bytes).sum();
            assert_eq!(r.sim.stats().app_bytes_delivered, total, "{case}");
            if loss != "0" {
                assert!(r.sim.stats().data_dropped[braid_net::stats::DropReason::LinkLoss as usize] > 0, "{case}: no loss happened");
            }
            cases += 1;
        }
    }
    assert_eq!(cases, 15);
}

#[test]
fn heterogeneous_testbed_with_loss_completes() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rondo-testbed.toml")).unwrap();
    let base = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    for (loss, rec) in [("0.01", "er"), ("0.005", "sr")] {
        let sets = vec![
            format!("network.loss_rate={loss}"),
            "topology.extra_delay=\"10us\"".to_string(),
            format!("transport.recovery=\"{rec}\""),
            "workload.size=\"3MB\"".to_string(),
        ];
        let sc = parse(&text, base, &sets, None).unwrap();
        let r = run(&sc, false).unwrap();
        r.sim.conservation().unwrap();
        let f = &r.sim.flows()[0];
        assert!(f.finish.is_some() && r.sim.conn_of(0).receiver.is_complete(), "{rec} at {loss}");
        assert_eq!(f.delivered_bytes, f.size_bytes);
    }
}
