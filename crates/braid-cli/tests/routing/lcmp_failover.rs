//! LCMP data-plane fast failover (paper §3.4) on the 8-DC posCor network: a DCI link fails in the
//! middle of a run; the flows cached on it move to other candidates at their next packet, no
//! packet is ever queued on the down port, and every flow completes.

use crate::scratch;
use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::NodeId;
use braid_net::stats::DropReason;

fn data(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p).to_string_lossy().into_owned()
}

fn tmp(name: &str) -> scratch::TmpDir {
    scratch::TmpDir::new("lcmp", name)
}

/// 16 flows of 20 MB from DC1's hosts (0–15) to DC8's (112–127), all at time 0.
fn flows_csv(dir: &Path) -> String {
    let mut s = String::from("src,dst,size,start\n");
    for i in 0..16 {
        s.push_str(&format!("{i},{},20MB,0\n", 112 + i));
    }
    let p = dir.join("flows.csv");
    std::fs::write(&p, s).unwrap();
    p.to_string_lossy().into_owned()
}

fn scenario(kind: &str, flows: &str, fail_link: usize, at_ms: u64) -> String {
    format!(
        r#"
name = "lcmp-failover"
seed = 3
[topology]
kind = "file"
file = "{topo}"
[network]
mtu = "1000B"
header = "48B"
pfc = true
[transport]
kind = "roce"
cc = "dcqcn"
recovery = "gbn"
[transport.cc_params]
window = true
[transport.recovery_params]
rto_initial = "1s"
rto_min = "300ms"
rto_max = "2s"
[routing]
kind = "{kind}"
[workload]
kind = "flow-file"
file = "{flows}"
[[faults]]
at = "{at_ms}ms"
link = {fail_link}
change = "down"
"#,
        topo = data("data/topologies/lcmp-8dc-poscor.topo")
    )
}

#[test]
fn dci_link_failure_moves_flows_at_their_next_packet() {
    let d = tmp("failover");
    let flows = flows_csv(&d);
    // Find the DC1–DC6 link (dci176 – dci181, 40 G / 5 ms): the cheapest candidate at DC1.
    let probe = parse(&scenario("lcmp", &flows, 0, 1), Path::new("."), &[], None).unwrap();
    let name = |n: NodeId| probe.topology.nodes[n.idx()].name.clone();
    let link = probe
        .topology
        .links
        .iter()
        .position(|l| {
            let (a, b) = (name(l.a), name(l.b));
            (a == "dci176" && b == "dci181") || (a == "dci181" && b == "dci176")
        })
        .expect("DC1–DC6 link");
    let dci1 =
        NodeId::from_idx(probe.topology.nodes.iter().position(|n| n.name == "dci176").unwrap());

    let sc = parse(&scenario("lcmp", &flows, link, 15), Path::new("."), &[], None).unwrap();
    let r = run(&sc, false).unwrap();
    let sim = &r.sim;
    assert!(sim.conservation().is_ok(), "{:?}", sim.conservation());
    assert_eq!(
        r.flows.iter().filter(|f| f.finish_ns.is_some()).count(),
        16,
        "every flow completes"
    );
    // Nothing was ever queued on the down port.
    assert_eq!(sim.routing().stats().sent_to_down_port, 0);
    // The only losses are the packets on or queued at the link when it failed.
    assert_eq!(sim.stats().data_dropped[DropReason::BufferFull as usize], 0);
    assert!(
        sim.stats().data_dropped[DropReason::LinkDown as usize] > 0,
        "the link carried traffic when it failed"
    );
    // DC1's DCI: the flows it had placed on DC6 were re-decided once each, at their next packet,
    // and no new decision chose the dead port.
    let lr = sim
        .routing()
        .router_of(dci1)
        .and_then(|r| r.as_lcmp())
        .map(|l| &*l.router)
        .expect("DC1's DCI runs LCMP");
    let dc6_port = sim.node_ports()[dci1.idx()]
        .iter()
        .position(|p| sim.ports()[p.idx()].link.idx() == link)
        .unwrap();
    let on_dc6 = lr.stats.chosen[dc6_port];
    assert!(on_dc6 >= 1, "some flows used DC6 before the failure: {:?}", lr.stats.chosen);
    assert_eq!(lr.stats.failovers, on_dc6, "each flow on DC6 failed over once: {:?}", lr.stats);
    assert_eq!(lr.cache().stats.invalidated, on_dc6);
    assert_eq!(lr.stats.decisions, 16 + on_dc6);
    // After the failure the flows went elsewhere: DC1's port toward DC6 sent nothing more than
    // before (it is down), and the flows moved to the other kept candidates.
    let moved: u64 =
        lr.stats.chosen.iter().enumerate().filter(|&(i, _)| i != dc6_port).map(|(_, &c)| c).sum();
    assert_eq!(moved, 16, "{:?}", lr.stats.chosen);
}

/// Without a failure the same flows never fail over (the counter is not spuriously raised).
#[test]
fn no_failure_no_failover() {
    let d = tmp("nofail");
    let flows = flows_csv(&d);
    // A fault on an intra-DC host link of DC5 far from these flows, after they finish.
    let sc = parse(&scenario("lcmp", &flows, 70, 5000), Path::new("."), &[], None).unwrap();
    let r = run(&sc, false).unwrap();
    assert_eq!(r.flows.iter().filter(|f| f.finish_ns.is_some()).count(), 16);
    let fo: u64 = r
        .sim
        .routing()
        .scheme_routers()
        .filter_map(|(_, r)| r.as_lcmp())
        .map(|l| &*l.router)
        .map(|l| l.stats.failovers)
        .sum();
    assert_eq!(fo, 0);
    assert_eq!(r.sim.routing().stats().sent_to_down_port, 0);
    assert_eq!(r.sim.stats().data_dropped.iter().sum::<u64>(), 0);
}
