//! Exactly-once, in-order delivery of every multipath baseline under 1 % random loss on every
//! link (both directions, so data, ACKs, pulls and RTS are all lost), over several seeds:
//! every flow completes, its receiver delivered exactly its size in order, and the simulator's
//! packet conservation holds.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;

const LOSSY: &str = r#"
name = "baselines-lossy"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "4KB"
header = "64B"
loss_rate = 0.01
[transport]
kind = "falcon"
paths = 4
[workload]
kind = "permutation"
size = "2MB"
"#;

fn check(kind: &str, workload: &[&str]) {
    for seed in [1u64, 2, 3] {
        let mut sets = vec![format!("transport.kind=\"{kind}\"")];
        sets.extend(workload.iter().map(|s| s.to_string()));
        let sc = parse(LOSSY, Path::new("."), &sets, Some(seed))
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        let r = run(&sc, false).unwrap();
        assert!(r.sim.conservation().is_ok(), "{kind} seed {seed}: {:?}", r.sim.conservation());
        let dropped: u64 = r.sim.stats().data_dropped.iter().sum();
        assert!(dropped > 0, "{kind} seed {seed}: 1 % loss should drop something");
        for (i, f) in r.sim.flows().iter().enumerate() {
            assert!(f.finish.is_some(), "{kind} seed {seed}: flow {i} did not complete");
            assert!(
                r.sim.conn_of(i).receiver.is_complete(),
                "{kind} seed {seed}: flow {i} receiver incomplete"
            );
            assert_eq!(f.delivered_bytes, f.size_bytes, "{kind} seed {seed}: flow {i}");
        }
        let retx: u64 = r.flows.iter().map(|f| f.retransmissions).sum();
        eprintln!(
            "{kind} seed {seed} {workload:?}: {} flows, {} data drops, {retx} retransmissions ({} spurious), done at {}",
            r.sim.flows().len(),
            dropped,
            r.sim.stats().spurious_retx,
            r.sim.events().now()
        );
    }
}

#[test]
fn mprdma_delivers_everything_exactly_once_in_order() {
    check("mprdma", &[]);
}

#[test]
fn falcon_delivers_everything_exactly_once_in_order() {
    check("falcon", &[]);
}

#[test]
fn uet_delivers_everything_exactly_once_in_order() {
    check("uet", &[]);
}

#[test]
fn eqds_delivers_everything_exactly_once_in_order() {
    check("eqds", &[]);
    // An incast exercises the receiver's pull pacer with several senders.
    check(
        "eqds",
        &[
            "workload.kind=\"incast\"",
            "workload.senders=[1, 2, 4, 5, 6]",
            "workload.receiver=0",
            "workload.size=\"1MB\"",
        ],
    );
}
