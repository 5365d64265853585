//! Adding a routing scheme from outside Braid's crates, in this one file: least-queued routing
//! (each packet leaves by the candidate with the fewest bytes queued, ties taken in turn),
//! written against `braid_proto::routing::router::{SwitchRouter, RouterBuild}`, registered with
//! `register_router`, named in `routing.kind` and run at every switch of a leaf-spine through the
//! scenario parser and the simulator like any of Braid's own (`docs/architecture.md`, "Add a
//! routing scheme").
//!
//! Held to what per-packet least-queued routing must do: a leaf's traffic to the other leaf
//! spreads evenly over its uplinks (each carries a quarter of the bytes to within a few
//! packets' worth), where per-flow hashing of eight flows onto four uplinks leaves some with
//! twice the others' share.

use std::collections::BTreeMap;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::{NodeId, Rng};
use braid_net::config::RoutingMode;
use braid_net::sim::RunEnd;
use braid_proto::routing::register_router;
use braid_proto::routing::router::{
    RoutePacket, RouterBuild, SwitchRouter, SwitchSetup, SwitchView,
};
use braid_proto::routing::RoutingParams;

use crate::scratch::TmpDir;

/// Least-queued routing; among candidates equally queued (empty queues, at light load), the
/// next in turn after the last one chosen.
#[derive(Debug)]
struct LeastQueued {
    turn: usize,
}

impl SwitchRouter for LeastQueued {
    fn route(&mut self, _pkt: &RoutePacket, v: &dyn SwitchView, _rng: &mut Rng) -> Option<usize> {
        let c = v.candidates();
        let n = c.len();
        let least = c.iter().map(|&lp| v.queued_bytes(lp)).min()?;
        let i = (0..n).map(|k| (self.turn + k) % n).find(|&i| v.queued_bytes(c[i]) == least)?;
        self.turn = i + 1;
        Some(i)
    }
}

impl RouterBuild for LeastQueued {
    const NAME: &'static str = "least-queued";
    fn build(_p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<LeastQueued, String> {
        Ok(LeastQueued { turn: 0 })
    }
}

/// Two leaves of 8 hosts under 4 spines, 100 Gb/s everywhere: the 8 hosts of leaf 0 each send
/// 2 MB to a host of leaf 1 at once, single-path (RoCE with DCQCN), so the leaf's 4 uplinks
/// carry 16 MB between them.
const SCENARIO: &str = r#"
name = "toy-router"
seed = 3
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 8
host_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
[transport]
kind = "roce"
[routing]
kind = "ecmp"
[workload]
kind = "flow-file"
file = "flows.csv"
"#;

/// The bytes each uplink of leaf 0 (the switch above host 0) sent toward the spines.
fn uplink_bytes(routing: &str) -> Vec<u64> {
    register_router::<LeastQueued>().unwrap();
    let dir = TmpDir::new("toy-router", routing);
    let mut flows = String::from("src,dst,size,start\n");
    for h in 0..8 {
        flows.push_str(&format!("{h},{},2MB,0us\n", 8 + h));
    }
    std::fs::write(dir.join("flows.csv"), flows).unwrap();
    let sc = parse(SCENARIO, &dir, &[format!("routing.kind={routing}")], None).unwrap();
    let r = run(&sc, false).unwrap();
    assert_eq!(r.end, RunEnd::AllFlowsComplete, "{routing}");
    r.sim.conservation().unwrap();
    for f in r.sim.flows() {
        assert_eq!(f.delivered_bytes, f.size_bytes, "{routing}: every byte delivered once");
    }
    let ports = r.sim.ports();
    let host0 = r.sim.hosts()[0].node;
    let leaf: NodeId = ports.iter().find(|p| p.node == host0).unwrap().peer;
    let is_host: BTreeMap<NodeId, bool> = r.sim.hosts().iter().map(|h| (h.node, true)).collect();
    ports
        .iter()
        .filter(|p| p.node == leaf && !is_host.contains_key(&p.peer))
        .map(|p| p.tx_bytes)
        .collect()
}

#[test]
fn a_registered_router_spreads_a_leafs_traffic_evenly_over_its_uplinks() {
    let even = uplink_bytes("least-queued");
    let hashed = uplink_bytes("ecmp");
    assert_eq!(even.len(), 4);
    let total: u64 = even.iter().sum();
    let spread = |b: &[u64]| {
        let (lo, hi) = (*b.iter().min().unwrap(), *b.iter().max().unwrap());
        (hi - lo) as f64 / (total as f64 / 4.0)
    };
    eprintln!(
        "uplink bytes of leaf 0: least-queued {even:?} (spread {:.3} of a quarter), ECMP \
         {hashed:?} (spread {:.3})",
        spread(&even),
        spread(&hashed)
    );
    assert!(total >= 16_000_000, "16 MB of payload crossed the uplinks: {total}");
    assert!(spread(&even) < 0.02, "least-queued splits per packet: {even:?}");
    assert!(spread(&hashed) > spread(&even), "per-flow hashing is coarser: {hashed:?}");
}

#[test]
fn a_registered_router_is_named_like_the_others() {
    register_router::<LeastQueued>().unwrap();
    register_router::<LeastQueued>().unwrap(); // registering twice is harmless
    let k = RoutingMode::parse("least-queued").unwrap();
    assert_eq!(k.name(), "least-queued");
    assert!(RoutingMode::names().contains(&"least-queued"));
    let e = RoutingMode::parse("random").unwrap_err();
    assert!(e.contains("least-queued") && e.contains("lcmp"), "{e}");
    // Braid's own names cannot be taken.
    #[derive(Debug)]
    struct Impostor;
    impl SwitchRouter for Impostor {
        fn route(&mut self, _: &RoutePacket, _: &dyn SwitchView, _: &mut Rng) -> Option<usize> {
            Some(0)
        }
    }
    impl RouterBuild for Impostor {
        const NAME: &'static str = "ecmp";
        fn build(_p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<Impostor, String> {
            Ok(Impostor)
        }
    }
    let e = register_router::<Impostor>().unwrap_err();
    assert!(e.contains("ecmp") && e.contains("Braid's own"), "{e}");
}
