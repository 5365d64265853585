//! Workloads and heterogeneity injection in whole simulations: a two-step
//! collective's JCT on an idle network is the sum of its steps; random link slow-downs pick the
//! requested fraction of fabric links, reproducibly; a link failing mid-run is routed around and
//! every flow completes.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_metrics::Value;
use braid_net::config::LinkChange;

fn scenario(text: &str, sets: &[&str]) -> braid_cli::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{e}"))
}

const LEAF_SPINE: &str = r#"
name = "wl"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 4
spines = 4
hosts_per_leaf = 4
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
[transport]
kind = "roce"
cc = "fixed"
recovery = "sr"
"#;

#[test]
fn two_step_collective_jct_is_the_sum_of_its_steps() {
    // Ring all-reduce over 2 hosts: a reduce-scatter step then an all-gather step.
    let text = format!("{LEAF_SPINE}[workload]\nkind = \"collective\"\nop = \"ring-allreduce\"\nhosts = \"0,5\"\nsize = \"2MB\"\n");
    let sc = scenario(&text, &[]);
    let r = run(&sc, false).unwrap();
    assert!(r.flows.iter().all(|f| f.finish_ns.is_some()));
    // Group flows by start time = steps.
    let mut steps: Vec<(f64, f64)> = Vec::new(); // (start, latest finish)
    for f in &r.flows {
        match steps.iter_mut().find(|s| (s.0 - f.start_ns).abs() < 1e-6) {
            Some(s) => s.1 = s.1.max(f.finish_ns.unwrap()),
            None => steps.push((f.start_ns, f.finish_ns.unwrap())),
        }
    }
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(steps.len(), 2, "two steps: {steps:?}");
    let sum: f64 = steps.iter().map(|s| s.1 - s.0).sum();
    let jct = match r.summary.get("jct_ns") {
        Some(Value::Float(x)) => *x,
        other => panic!("jct_ns missing: {other:?}"),
    };
    assert!((jct - sum).abs() < 1.0, "JCT {jct} ns vs sum of steps {sum} ns");
    // On an idle network each step is one 1 MB transfer: close to its ideal FCT.
    let ideal: f64 = r.flows.iter().map(|f| f.ideal_fct_ns).fold(0.0, f64::max);
    assert!(jct < 2.0 * ideal * 1.1, "JCT {jct} vs 2 × ideal {ideal}");
}

#[test]
fn random_slowdown_picks_the_fraction_of_fabric_links() {
    let text = format!(
        "{LEAF_SPINE}[workload]\nkind = \"permutation\"\nsize = \"100KB\"\n[[faults]]\nat = \"50us\"\nrandom_fraction = 0.25\nchange = \"rate\"\nrate_factor = 0.25\n"
    );
    let a = scenario(&text, &[]);
    // 16 fabric links (4 leaves × 4 spines): a quarter is 4.
    assert_eq!(a.link_events.len(), 4);
    for e in &a.link_events {
        let l = &a.topology.links[e.link as usize];
        assert_eq!(e.change, LinkChange::Rate(l.rate.bps() / 4));
        let kinds = [a.topology.nodes[l.a.idx()].kind, a.topology.nodes[l.b.idx()].kind];
        assert!(!kinds.contains(&braid_net::topology::NodeKind::Host));
    }
    let again = scenario(&text, &[]);
    assert_eq!(a.link_events, again.link_events);
    let other = scenario(&text, &["seed=2"]);
    assert_ne!(a.link_events, other.link_events);
    let r = run(&a, false).unwrap();
    assert!(r.flows.iter().all(|f| f.finish_ns.is_some()));
}

#[test]
fn a_failed_link_is_routed_around_and_every_flow_completes() {
    // Fail every leaf0 uplink but one at 20 µs, restore at 200 µs.
    let text = format!(
        "{LEAF_SPINE}[workload]\nkind = \"all-to-all\"\nsize = \"200KB\"\n[[faults]]\nat = \"20us\"\nuntil = \"200us\"\nlinks = [16, 17, 18]\nchange = \"down\"\n"
    );
    let sc = scenario(&text, &[]);
    let l = &sc.topology.links[16];
    assert!(sc.topology.nodes[l.a.idx()].kind != braid_net::topology::NodeKind::Host);
    let r = run(&sc, false).unwrap();
    assert!(r.sim.conservation().is_ok(), "{:?}", r.sim.conservation());
    assert!(r.flows.iter().all(|f| f.finish_ns.is_some()), "every flow completes");
    for fl in r.sim.flows() {
        assert_eq!(fl.delivered_bytes, fl.size_bytes);
    }
}
