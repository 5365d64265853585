//! Rondo's component ablation (Rondo §6.3, Fig 21): "capacity probing then significantly reduces
//! the maximum and p99 OOD by avoiding queue overshoot during flow startup".
//!
//! Without probing a Rondo flow starts its paths at one line-rate BDP split over the paths (the
//! capacity-agnostic start of the baselines, §3.2; `RondoConfig::w0` unset), and ARCC corrects
//! from the ACK rate; with probing each path starts at `W0` = 2 MTU and probes for the rest
//! (§4.2.2). On a small Clos whose 200 Gb/s uplinks carry eight 100 Gb/s hosts (ECMP collisions
//! queue), a 1 MB permutation over four seeds must show what the paper claims: with probing the
//! p99 and the maximum NIC-level OOD and the largest queue are lower, at about the same job time
//! (neither variant crawls: before the start rule above, "w/o probing" kept `W0` = 2 MTU and grew
//! by ARCC's margin alone, a 2 MB flow taking ~4× its ideal FCT).

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_metrics::Value;

const SCENARIO: &str = r#"
name = "rondo-ablation"
seed = 1
[topology]
kind = "clos3"
pods = 2
tors_per_pod = 2
aggs_per_pod = 2
cores = 4
hosts_per_tor = 8
host_rate = "100Gbps"
fabric_rate = "200Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "64B"
pfc = true
reorder_buffer = "1.2MB"
[transport]
kind = "rondo"
[routing]
kind = "ecmp"
[workload]
kind = "permutation"
size = "1MB"
"#;

/// (job time ns, NIC OOD p99, NIC OOD max, largest queue bytes) of one run.
fn measure(seed: u64, probing: bool) -> (f64, f64, f64, f64) {
    let sets = [format!("seed={seed}"), format!("transport.probing={probing}")];
    let sc = parse(SCENARIO, Path::new("."), &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    assert!(
        r.flows.iter().all(|f| f.finish_ns.is_some()),
        "seed {seed} probing {probing}: {:?}",
        r.end
    );
    let num = |k: &str| match r.summary.get(k) {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(x)) => *x,
        other => panic!("summary field {k}: {other:?}"),
    };
    (num("sim_time_ns"), num("nic_ood_p99"), num("nic_ood_max"), num("queue_max_bytes"))
}

#[test]
fn probing_cuts_start_up_overshoot_and_its_reordering() {
    for seed in 1..=4 {
        let (jct_on, p99_on, max_on, q_on) = measure(seed, true);
        let (jct_off, p99_off, max_off, q_off) = measure(seed, false);
        eprintln!(
            "seed {seed}: probing JCT {jct_on:.0} ns, OOD p99/max {p99_on}/{max_on}, queue {q_on} B; \
             without JCT {jct_off:.0} ns, OOD {p99_off}/{max_off}, queue {q_off} B"
        );
        assert!(
            p99_on * 2.0 <= p99_off,
            "seed {seed}: p99 OOD {p99_on} with probing vs {p99_off} without"
        );
        assert!(
            max_on < max_off,
            "seed {seed}: max OOD {max_on} with probing vs {max_off} without"
        );
        assert!(
            q_on < q_off,
            "seed {seed}: largest queue {q_on} B with probing vs {q_off} B without"
        );
        let ratio = jct_on / jct_off;
        assert!(
            (0.75..=1.33).contains(&ratio),
            "seed {seed}: job time with/without probing {ratio:.2}"
        );
    }
}
