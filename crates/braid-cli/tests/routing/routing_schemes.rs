//! Switch-side routing schemes on whole scenarios: which inter-DC links each scheme uses at DC1's
//! DCI on the 8-DC posCor network (ECMP, UCMP, WCMP, weighted UCMP, both LCMP profiles), RoCE
//! adaptive routing on a leaf-spine, determinism, and the `[routing]` table's errors.

use crate::scratch;
use std::path::Path;

use braid_cli::run::{run, RunResult};
use braid_cli::scenario::parse;
use braid_core::NodeId;

fn data(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p).to_string_lossy().into_owned()
}

fn tmp(name: &str) -> scratch::TmpDir {
    scratch::TmpDir::new("routing", name)
}

/// 96 flows of 20 KB from DC1's hosts to DC8's, one every 2 ms (queues empty at each decision).
fn sparse_flows(dir: &Path) -> String {
    let mut s = String::from("src,dst,size,start\n");
    for i in 0..96u32 {
        s.push_str(&format!("{},{},20KB,{}ms\n", i % 16, 112 + (i * 7) % 16, 2 * i));
    }
    let p = dir.join("flows.csv");
    std::fs::write(&p, s).unwrap();
    p.to_string_lossy().into_owned()
}

fn poscor(kind: &str, flows: &str, extra: &[&str]) -> RunResult {
    let text = format!(
        r#"
name = "routing-{kind}"
seed = 5
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
[transport.recovery_params]
rto_initial = "1s"
rto_min = "500ms"
[routing]
kind = "{kind}"
[workload]
kind = "flow-file"
file = "{flows}"
"#,
        topo = data("data/topologies/lcmp-8dc-poscor.topo")
    );
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let sc = parse(&text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, false).unwrap();
    assert_eq!(
        r.flows.iter().filter(|f| f.finish_ns.is_some()).count(),
        r.flows.len(),
        "{kind}: all flows complete"
    );
    assert!(r.sim.conservation().is_ok());
    r
}

/// Data bytes DC1's DCI sent toward DC2…DC7 (in that order).
fn dc1_wan_bytes(r: &RunResult) -> Vec<u64> {
    let sim = &r.sim;
    let node = |name: &str| {
        NodeId::from_idx(sim.topo().nodes.iter().position(|n| n.name == name).unwrap())
    };
    let dci1 = node("dci176");
    (177..=182)
        .map(|k| {
            let peer = node(&format!("dci{k}"));
            let p = sim.node_ports()[dci1.idx()]
                .iter()
                .find(|p| sim.ports()[p.idx()].peer == peer)
                .unwrap();
            sim.ports()[p.idx()].tx_bytes_class[1]
        })
        .collect()
}

fn used(bytes: &[u64]) -> Vec<&'static str> {
    let names = ["DC2", "DC3", "DC4", "DC5", "DC6", "DC7"];
    bytes.iter().zip(names).filter(|(b, _)| **b > 0).map(|(_, n)| n).collect()
}

#[test]
fn each_scheme_uses_the_expected_links() {
    let d = tmp("schemes");
    let flows = sparse_flows(&d);
    // ECMP: all six; UCMP (artifact): the two 200 G links only.
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("ecmp", &flows, &[]))),
        ["DC2", "DC3", "DC4", "DC5", "DC6", "DC7"]
    );
    assert_eq!(used(&dc1_wan_bytes(&poscor("ucmp", &flows, &[]))), ["DC2", "DC3"]);
    // LCMP, paper design: whole-path costs DC6 48, DC4 48, DC2 51 are the cheaper half.
    let r = poscor("lcmp", &flows, &[]);
    assert_eq!(used(&dc1_wan_bytes(&r)), ["DC2", "DC4", "DC6"]);
    // Each flow was decided once at DC1's DCI; its ACKs came back along the reverse path.
    let dci1 =
        NodeId::from_idx(r.sim.topo().nodes.iter().position(|n| n.name == "dci176").unwrap());
    assert_eq!(
        r.sim
            .routing()
            .router_of(dci1)
            .and_then(|r| r.as_lcmp())
            .map(|l| &*l.router)
            .unwrap()
            .stats
            .decisions,
        96
    );
    assert!(braid_cli::routing_out::reverse_pins(r.sim.routing()) >= 96);
    // LCMP, artifact profile: per-next-hop costs DC6 64, DC4 82, DC7 132 (`docs/lcmp.md`,
    // topologies).
    assert_eq!(used(&dc1_wan_bytes(&poscor("lcmp-artifact", &flows, &[]))), ["DC4", "DC6", "DC7"]);
    // rm-alpha in the artifact profile: every C is 0 with empty queues, ties break by port
    // index, so the three lowest-numbered uplinks DC2, DC3, DC4 are kept (`docs/lcmp.md`, artifact
    // profile).
    let r = poscor("lcmp-artifact", &flows, &["routing.alpha=0", "routing.beta=4"]);
    assert_eq!(used(&dc1_wan_bytes(&r)), ["DC2", "DC3", "DC4"]);
    // WCMP: weights ∝ capacity, every link used, the 200 G ones most.
    let w = dc1_wan_bytes(&poscor("wcmp", &flows, &[]));
    assert_eq!(used(&w).len(), 6, "{w:?}");
    assert!(w[0] + w[1] > w[4] + w[5], "{w:?}");
    // Weighted UCMP: latency within 100 % of the best (10 ms path) → DC6 (10 ms) and DC4 (20 ms).
    assert_eq!(used(&dc1_wan_bytes(&poscor("ucmp-weighted", &flows, &[]))), ["DC4", "DC6"]);
}

#[test]
fn max_delay_spread_keeps_only_candidates_near_the_shortest_path() {
    // posCor DC1 -> DC8 path delays: via DC6 10 ms, DC4 20 ms, DC7 40 ms, DC2 50 ms, DC5 80 ms,
    // DC3 200 ms (`docs/lcmp.md`, topologies). The filter runs before LCMP's cost filter.
    let d = tmp("spread");
    let flows = sparse_flows(&d);
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("lcmp", &flows, &["routing.max_delay_spread=\"0us\""]))),
        ["DC6"]
    );
    // 10 ms: DC6 and DC4 (both cost 48, so the cheaper half keeps both).
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("lcmp", &flows, &["routing.max_delay_spread=\"10ms\""]))),
        ["DC4", "DC6"]
    );
    // 40 ms admits DC7 and DC2 too: of four candidates the cheaper half is DC6 and DC4 (DC2's
    // 51 is not tied with their 48); all six give the cheaper half DC6, DC4, DC2, as "inf" (no
    // filter) does.
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("lcmp", &flows, &["routing.max_delay_spread=\"40ms\""]))),
        ["DC4", "DC6"]
    );
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("lcmp", &flows, &["routing.max_delay_spread=\"inf\""]))),
        ["DC2", "DC4", "DC6"]
    );
    // The artifact profile filters the same way (next-hop costs inside the set).
    assert_eq!(
        used(&dc1_wan_bytes(&poscor(
            "lcmp-artifact",
            &flows,
            &["routing.max_delay_spread=\"0us\""]
        ))),
        ["DC6"]
    );
    // ECMP and UCMP hash inside the same delay-bounded set.
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("ecmp", &flows, &["routing.max_delay_spread=\"0us\""]))),
        ["DC6"]
    );
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("ecmp", &flows, &["routing.max_delay_spread=\"10ms\""]))),
        ["DC4", "DC6"]
    );
    assert_eq!(
        used(&dc1_wan_bytes(&poscor("ucmp", &flows, &["routing.max_delay_spread=\"0us\""]))),
        ["DC6"]
    );
    let ucmp10 =
        used(&dc1_wan_bytes(&poscor("ucmp", &flows, &["routing.max_delay_spread=\"10ms\""])));
    assert!(!ucmp10.is_empty() && ucmp10.iter().all(|d| *d == "DC4" || *d == "DC6"), "{ucmp10:?}");
    // Without the filter ECMP spreads over more than these two.
    assert!(used(&dc1_wan_bytes(&poscor("ecmp", &flows, &[]))).len() > 2);
}

#[test]
fn lcmp_runs_are_deterministic() {
    let d = tmp("det");
    let flows = sparse_flows(&d);
    let a = poscor("lcmp", &flows, &[]);
    let b = poscor("lcmp", &flows, &[]);
    assert_eq!(a.flows, b.flows);
    assert_eq!(dc1_wan_bytes(&a), dc1_wan_bytes(&b));
}

const LEAF_SPINE: &str = r#"
name = "adaptive"
seed = 2
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
pfc = true
[transport]
kind = "roce"
cc = "dcqcn"
recovery = "sr"
[routing]
kind = "adaptive"
[workload]
kind = "incast"
senders = [0, 1, 2, 3]
receiver = 5
size = "2MB"
"#;

/// RoCE adaptive routing sprays each flow's data packets over the spines by queue length; with
/// exact bytes or 4 quantised levels every flow completes and every spine carries data.
#[test]
fn adaptive_routing_spreads_packets_per_packet() {
    for q in ["false", "true"] {
        let set = vec![format!("routing.quantized={q}")];
        let sc = parse(LEAF_SPINE, Path::new("."), &set, None).unwrap();
        let r = run(&sc, false).unwrap();
        assert_eq!(r.flows.iter().filter(|f| f.finish_ns.is_some()).count(), 4);
        let decisions: u64 = r
            .sim
            .routing()
            .scheme_routers()
            .filter_map(|(_, r)| r.as_adaptive())
            .map(|a| a.decisions)
            .sum();
        assert!(decisions > 0);
        let sim = &r.sim;
        // Leaf 0's uplinks: ports from the first leaf to the spines.
        let leaf0 = NodeId::from_idx(
            sim.topo()
                .nodes
                .iter()
                .position(|n| n.kind == braid_net::topology::NodeKind::Switch)
                .unwrap(),
        );
        let up: Vec<u64> = sim.node_ports()[leaf0.idx()]
            .iter()
            .filter(|p| {
                sim.topo().nodes[sim.ports()[p.idx()].peer.idx()].kind
                    != braid_net::topology::NodeKind::Host
            })
            .map(|p| sim.ports()[p.idx()].tx_bytes_class[1])
            .collect();
        assert_eq!(up.len(), 4);
        assert!(up.iter().all(|&b| b > 0), "quantized={q}: {up:?}");
        // Per-packet spraying reorders: the receiver saw out-of-order packets.
        if q == "false" {
            assert!(r.flows.iter().any(|f| f.max_ood > 0));
        }
    }
}

#[test]
fn routing_table_errors_name_the_field() {
    let bad = |sets: &[&str], needle: &str| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = parse(LEAF_SPINE, Path::new("."), &sets, None).expect_err("must fail");
        assert!(e.contains(needle), "`{e}` should mention `{needle}`");
    };
    bad(&["routing.kind=ospf"], "routing.kind");
    bad(&["routing.alpha=-1"], "routing.alpha");
    bad(&["routing.gamma=1"], "routing.gamma");
    bad(&["routing.sampling=\"sometimes\""], "routing.sampling");
    bad(&["routing.max_delay=\"fast\""], "routing.max_delay");
    // Every documented kind parses.
    for k in
        ["ecmp", "entropy", "wcmp", "ucmp", "ucmp-weighted", "lcmp", "lcmp-artifact", "adaptive"]
    {
        let set = vec![format!("routing.kind=\"{k}\"")];
        parse(LEAF_SPINE, Path::new("."), &set, None).unwrap_or_else(|e| panic!("{k}: {e}"));
    }
}

/// One Rondo flow of 16 logical paths between pods of a Clos with 4 aggregation switches per
/// pod and 16 cores (16 equal-cost paths), and one of 4 inside a pod: the cores (and, inside the
/// pod, the aggregation switches) that carried its data, by routing scheme.
fn clos_paths_used(kind: &str) -> (usize, usize) {
    let d = tmp(&format!("path-index-{kind}"));
    let flows = d.join("flows.csv");
    // Host 0 (pod 0, ToR 0) to host 4 (pod 1), and host 1 to host 2 (pod 0, ToR 1).
    std::fs::write(&flows, "src,dst,size,start\n0,4,2MB,0us\n1,2,2MB,0us\n").unwrap();
    let text = format!(
        r#"
name = "path-index-{kind}"
seed = 3
[topology]
kind = "clos3"
pods = 2
tors_per_pod = 2
aggs_per_pod = 4
cores = 16
hosts_per_tor = 2
host_rate = "100Gbps"
fabric_rate = "400Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "64B"
[transport]
kind = "rondo"
[routing]
kind = "{kind}"
[workload]
kind = "flow-file"
file = "{f}"
"#,
        f = flows.to_string_lossy()
    );
    let sc = parse(&text, Path::new("."), &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = run(&sc, false).unwrap();
    assert_eq!(
        r.flows.iter().filter(|f| f.finish_ns.is_some()).count(),
        2,
        "{kind}: both flows complete"
    );
    let sim = &r.sim;
    let carried = |prefix: &str, pod_of_agg: bool| {
        sim.topo()
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.name.starts_with(prefix) && (!pod_of_agg || n.group == 0))
            .filter(|(i, _)| {
                sim.node_ports()[*i].iter().any(|p| sim.ports()[p.idx()].tx_bytes_class[1] > 0)
            })
            .count()
    };
    (carried("core", false), carried("agg", true))
}

#[test]
fn path_index_routing_maps_logical_paths_onto_distinct_physical_paths() {
    // The testbed's steering (entropy mod fan-out at every tier) repeats one digit: 4 of 16 cores.
    assert_eq!(clos_paths_used("entropy").0, 4);
    // Read digit by digit, logical paths 0..16 take the 16 core paths, and 0..4 inside the pod
    // the 4 aggregation switches (the inter-pod flow's packets cross all four as well).
    assert_eq!(clos_paths_used("path-index"), (16, 4));
}
