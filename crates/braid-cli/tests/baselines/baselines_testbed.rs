//! The multipath baselines on the Rondo testbed (§6.1, Fig 9): one long flow from host 0
//! to host 1 sprayed over four paths capped at 25/20/15/10 Gb/s (70 Gb/s in all), routing by
//! entropy (next hop = UDP source port mod 4), `transport.paths = 4`, 4 KB MTU, the default ECN
//! marking (MP-RDMA's window is ECN-driven). Falcon and UET (with an ACK per packet) should get
//! most of the 70 Gb/s; MP-RDMA less (its OOD-aware pruning idles the slow paths, as the Rondo
//! paper reports); EQDS sprays obliviously, so the 10 Gb/s path caps it near 4 × 10 Gb/s.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_metrics::Value;

const TESTBED: &str = r#"
name = "testbed-baselines"
seed = 1
[topology]
kind = "testbed"
[network]
mtu = "4KB"
header = "64B"
[transport]
kind = "falcon"
paths = 4
[routing]
kind = "entropy"
[workload]
kind = "incast"
senders = [0]
receiver = 1
size = "20MB"
"#;

fn goodput_gbps(kind: &str) -> (f64, u64) {
    goodput_gbps_with(kind, &[])
}

fn goodput_gbps_with(kind: &str, extra: &[&str]) -> (f64, u64) {
    let mut sets = vec![format!("transport.kind=\"{kind}\"")];
    sets.extend(extra.iter().map(|s| s.to_string()));
    let sc = parse(TESTBED, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{kind}: {e}"));
    let r = run(&sc, false).unwrap();
    assert!(r.sim.conservation().is_ok(), "{kind}: {:?}", r.sim.conservation());
    let f = &r.sim.flows()[0];
    assert!(f.finish.is_some(), "{kind}: flow did not complete");
    assert_eq!(f.delivered_bytes, f.size_bytes, "{kind}");
    let g = match r.summary.get("goodput_bps") {
        Some(Value::Float(g)) => *g / 1e9,
        other => panic!("goodput_bps: {other:?}"),
    };
    let ood = match r.summary.get("nic_ood_max") {
        Some(Value::Int(o)) => *o as u64,
        other => panic!("nic_ood_max: {other:?}"),
    };
    eprintln!("{kind}: goodput {g:.2} Gb/s, NIC OOD max {ood}");
    (g, ood)
}

#[test]
fn falcon_gets_most_of_the_70_gbps() {
    let (g, ood) = goodput_gbps("falcon");
    assert!(g > 63.0, "falcon goodput {g:.2} Gb/s");
    assert!(ood > 0, "four paths of different rates reorder");
}

#[test]
fn uet_gets_most_of_the_70_gbps() {
    // With an ACK per packet REPS recycles every good EV and keeps the fast paths busy.
    let (g, _) = goodput_gbps("uet");
    assert!(g > 63.0, "uet goodput {g:.2} Gb/s");
    // With htsim's ACK policy (`ack_every_bytes = 16384`: one ACK per 16 KB, about every fourth packet) REPS
    // recycles one EV in four and sprays the rest at random, so the 10 Gb/s path holds it back
    // (measured 37.7 Gb/s, seed 1).
    let (g, _) = goodput_gbps_with("uet", &["transport.ack_every_bytes=16384"]);
    assert!(g > 30.0 && g < 63.0, "uet goodput {g:.2} Gb/s with 16 KB ACKs");
}

#[test]
fn mprdma_uses_the_paths_but_prunes_late_ones() {
    let (g, ood) = goodput_gbps("mprdma");
    // Measured 59.0 Gb/s (seed 1): more than any single path or an even split (40 Gb/s), less than
    // Falcon — late ACKs from the slower paths stop clocking packets onto them.
    assert!(g > 50.0 && g < 70.0, "mprdma goodput {g:.2} Gb/s");
    assert!(ood > 0);
}

#[test]
fn eqds_sprays_obliviously() {
    let (g, _) = goodput_gbps("eqds");
    // Every path gets a quarter of the packets: the 10 Gb/s path caps the total near 40 Gb/s.
    assert!(g > 35.0 && g < 50.0, "eqds goodput {g:.2} Gb/s");
}

#[test]
fn rrps_at_its_defaults_is_capped_by_the_slowest_path() {
    // RRPS at its default window once collapsed (unbounded window at line rate →
    // unbounded queues → reordering beyond the reorder buffer → receiver discards → the
    // retransmissions join the same queues). The `fixed` controller now defaults to one BDP at
    // the NIC rate, which keeps it ACK-clocked. Round robin gives every path a quarter of the
    // packets, so the 10 Gb/s path caps the total at 4 × 10 Gb/s (Rondo §6.1, Fig 9b); no loss.
    let (g, _) = goodput_gbps("rrps");
    assert!(g > 35.0 && g <= 40.0, "rrps goodput {g:.2} Gb/s");
    // The same on the example's 1 KB MTU with per-path RACK, the run that collapsed.
    let sets = vec!["transport.kind=\"rrps\"".to_string(), "run.max_sim_time=\"20ms\"".to_string()];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("examples/rondo-testbed.toml")).unwrap();
    let sc = parse(&text, &root.join("examples"), &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    let f = &r.sim.flows()[0];
    assert!(f.finish.is_some(), "RRPS on examples/rondo-testbed.toml did not complete in 20 ms");
    let fct_ms = (f.finish.unwrap() - f.start).ps() as f64 / 1e9;
    // 20 MB at 40 Gb/s is 4 ms; allow the start-up and the last RTT.
    assert!(fct_ms < 4.6, "RRPS FCT {fct_ms:.2} ms");
    assert_eq!(
        r.summary.get("retransmissions"),
        Some(&Value::Int(0)),
        "a lossless testbed run retransmits nothing"
    );
}
