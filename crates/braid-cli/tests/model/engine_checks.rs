//! Checks of the engine on whole scenarios: FCT on an idle
//! path against the store-and-forward formula, a lossless incast that uses the link fully, packet
//! conservation, and determinism by seed.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::{Rate, Time};

fn scenario(text: &str, sets: &[&str]) -> braid_cli::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("scenario error: {e}"))
}

const ONE_FLOW: &str = r#"
name = "one-flow"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
ack_size = "64B"
[transport]
kind = "roce"
cc = "fixed"
recovery = "sr"
[workload]
kind = "incast"
senders = [0]
receiver = 3
size = "1MB"
"#;

#[test]
fn idle_path_fct_is_serialisation_plus_propagation_plus_store_and_forward() {
    let sc = scenario(ONE_FLOW, &[]);
    let r = run(&sc, false).unwrap();
    assert!(r.sim.conservation().is_ok());
    let f = &r.flows[0];
    let fct = f.fct_ns().expect("flow completes");
    // By hand: host 0 → leaf → spine → leaf → host 3: 4 links of 100 Gb/s and 1 µs.
    let links = 4.0;
    let c = 100e9;
    let n = 1000.0; // packets of 1000 B payload + 48 B header
    let s = 1048.0 * 8.0 / c * 1e9; // ns per data packet
    let a = 64.0 * 8.0 / c * 1e9; // ns per ACK
    let prop = 1000.0;
    let expected = n * s + (links - 1.0) * s + links * prop + links * (a + prop);
    let one_pkt = s;
    assert!((fct - expected).abs() <= one_pkt, "FCT {fct} ns, expected {expected} ns");
    assert!(
        (f.ideal_fct_ns - expected).abs() <= one_pkt,
        "ideal {} ns, expected {expected}",
        f.ideal_fct_ns
    );
}

#[test]
fn ideal_fct_uses_the_bottleneck_rate() {
    // Same path with 25 Gb/s fabric links: the bottleneck serialises every byte.
    let sc = scenario(ONE_FLOW, &["topology.fabric_rate=\"25Gbps\""]);
    let r = run(&sc, false).unwrap();
    let f = &r.flows[0];
    let fct = f.fct_ns().unwrap();
    let bytes = 1000.0 * 1048.0;
    let lower = bytes * 8.0 / 25e9 * 1e9;
    assert!(fct > lower && f.ideal_fct_ns > lower);
    let one_pkt = 1048.0 * 8.0 / 25e9 * 1e9;
    assert!((fct - f.ideal_fct_ns).abs() <= one_pkt, "fct {fct} ideal {}", f.ideal_fct_ns);
}

const INCAST: &str = r#"
name = "incast-pfc"
seed = 3
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 8
host_rate = "100Gbps"
fabric_rate = "400Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
pfc = true
ecn = false
buffer = "4MB"
[transport]
kind = "roce"
cc = "fixed"
# Line rate without a window (the fixed controller's default is one BDP): the incast must
# overrun the receiver's port so that PFC acts.
window = "unlimited"
recovery = "gbn"
[workload]
kind = "incast"
senders = [1, 2, 3, 4, 5, 6, 7, 8]
receiver = 0
size = "2MB"
"#;

#[test]
fn lossless_incast_fills_the_link_without_drops() {
    let sc = scenario(INCAST, &[]);
    let r = run(&sc, false).unwrap();
    assert!(r.sim.conservation().is_ok(), "{:?}", r.sim.conservation());
    assert_eq!(r.flows.iter().filter(|f| f.finish_ns.is_some()).count(), 8);
    let dropped: u64 = r.sim.stats().data_dropped.iter().sum();
    assert_eq!(dropped, 0, "PFC must prevent every drop");
    assert!(r.sim.stats().pfc_pauses_sent > 0, "the incast should have triggered PFC");
    // The receiver's link carried 16 MB of payload (+ headers) back to back.
    let wire_bytes = 8.0 * 2000.0 * 1048.0;
    let first = r.flows.iter().map(|f| f.start_ns).fold(f64::MAX, f64::min);
    let last = r.flows.iter().filter_map(|f| f.finish_ns).fold(0.0, f64::max);
    let util = wire_bytes * 8.0 / ((last - first) * 1e-9) / 100e9;
    assert!(util > 0.97, "receiver link utilisation {util}");
}

#[test]
fn same_seed_same_flows_other_seed_differs() {
    let text = r#"
name = "perm"
seed = 5
[topology]
kind = "fat-tree"
k = 4
[network]
mtu = "1000B"
[transport]
kind = "roce"
cc = "dcqcn"
[workload]
kind = "permutation"
size = "200KB"
"#;
    let csv = |seed: &str| {
        let sc = scenario(text, &[&format!("seed={seed}")]);
        let r = run(&sc, false).unwrap();
        assert!(r.sim.conservation().is_ok());
        let mut out = Vec::new();
        braid_metrics::write_flows_csv(&mut out, &r.flows).unwrap();
        out
    };
    let a = csv("5");
    assert_eq!(a, csv("5"));
    assert_ne!(a, csv("6"));
}

#[test]
fn lossy_network_conserves_packets_and_delivers_everything() {
    for (loss, rec) in [("0.01", "sr"), ("0.01", "gbn"), ("0.001", "irn")] {
        let sc = scenario(
            INCAST,
            &[
                &format!("network.loss_rate={loss}"),
                "network.pfc=false",
                &format!("transport.recovery={rec}"),
            ],
        );
        let r = run(&sc, false).unwrap();
        assert!(r.sim.conservation().is_ok(), "{rec}: {:?}", r.sim.conservation());
        assert!(r.flows.iter().all(|f| f.finish_ns.is_some()), "{rec}: not all flows completed");
        assert!(r.sim.stats().data_dropped[braid_net::stats::DropReason::LinkLoss as usize] > 0);
        for fl in r.sim.flows() {
            assert_eq!(fl.delivered_bytes, fl.size_bytes);
        }
    }
    let _ = (Rate::from_gbps(1), Time::ZERO);
}

/// Faults on a k = 4 fat-tree: a fifth of the links 3 µs longer from 5 to 60 µs, a tenth losing 2 %
/// of their packets from 10 to 40 µs.
pub(crate) const DELAY_AND_LOSS_FAULTS: &str = r#"
[[faults]]
at = "5us"
until = "60us"
random_fraction = 0.2
change = "delay"
add_delay = "3us"
[[faults]]
at = "10us"
until = "40us"
random_fraction = 0.1
change = "loss"
loss = 0.02
"#;

/// A k = 4 fat-tree (seed 3, 1,000-byte MTU, ECN) with `network` lines added to its
/// `[network]`, `transport` as its `[transport]` body and `workload` as its `[workload]` body:
/// the loaded network the engine checks share.
pub(crate) fn loaded_fat_tree(
    name: &str,
    network: &str,
    transport: &str,
    workload: &str,
) -> String {
    format!(
        r#"
name = "{name}"
seed = 3
[topology]
kind = "fat-tree"
k = 4
[network]
mtu = "1000B"
ecn = true
{network}
[transport]
{transport}
[workload]
{workload}
"#
    )
}

/// Arrivals over short links go straight into the event queue, arrivals over the others (and over
/// links whose delay a fault changes) through the link's wire queue; both give an arrival the same
/// event key, so a run is the same whichever links use which: every flow's completion, every
/// counter and the number of events agree with a run where no link skips the wire queue.
#[test]
fn arrivals_straight_into_the_event_queue_change_nothing() {
    let text = loaded_fat_tree(
        "wire-modes",
        "",
        "kind = \"rondo\"\npaths = 4",
        "kind = \"permutation\"\nsize = \"300KB\"",
    ) + DELAY_AND_LOSS_FAULTS;
    for sets in [&[][..], &["transport.kind=roce", "transport.cc=dcqcn", "network.pfc=true"][..]] {
        let sc = scenario(&text, sets);
        let outcome = |direct: Option<Time>| {
            let (mut sim, _) = braid_cli::build::build(&sc).unwrap();
            sim.set_direct_arrivals(direct);
            sim.prepare();
            let direct_ports = sim.ports().iter().filter(|p| p.wire_direct).count();
            assert_eq!(
                sim.run(None, &mut |_| true),
                braid_net::sim::RunEnd::AllFlowsComplete,
                "{sets:?}"
            );
            assert!(sim.conservation().is_ok(), "{sets:?}: {:?}", sim.conservation());
            let s = sim.stats();
            let finish: Vec<Option<Time>> = sim.flows().iter().map(|f| f.finish).collect();
            let counters = (
                sim.events().popped(),
                s.packet_hops,
                s.ecn_marks,
                s.data_dropped,
                s.pfc_pauses_sent,
            );
            (direct_ports, finish, format!("{counters:?}"))
        };
        let (direct_ports, finish, counters) =
            outcome(Some(braid_net::sim::DIRECT_ARRIVAL_MAX_DELAY));
        let (wire_ports, wire_finish, wire_counters) = outcome(None);
        // A k = 4 fat-tree has 48 links (96 ports); the faults change the delay of a fifth of
        // its 32 fabric links, which keep the wire queue.
        assert!(direct_ports > 0 && direct_ports < 96, "{sets:?}: {direct_ports} direct ports");
        assert_eq!(wire_ports, 0);
        assert_eq!(finish, wire_finish, "{sets:?}: flow completions");
        assert_eq!(
            counters, wire_counters,
            "{sets:?}: (events, packet-hops, ECN marks, drops, pauses)"
        );
    }
}
