//! The ns-3 fork has no retransmission timer, so a flow that needs one never completes there and
//! is missing from its `fct_*.txt` (`docs/ns3-equivalence.md`, row 21). Under
//! `network.profile = "ns3-hpcc"`, `output.fct_artifact_without_rto` leaves exactly those flows
//! out of `fct.txt`, `fct_stats.csv` and the summary's `fct_slowdown_artifact_rule`, and counts
//! them; every other output keeps them. Checked on a lossy run where some flows do time out.

use std::path::Path;

use braid_cli::run::{run, write_outputs};
use braid_cli::scenario;
use braid_metrics::Value;

use crate::scratch;

fn outputs(extra: &[&str]) -> (scratch::TmpDir, braid_cli::run::RunResult) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut sets: Vec<String> = [
        "network.profile=ns3-hpcc",
        // lcmp-tiny's own timers, kept deliberately (given by --set: a profile given by --set
        // on a file whose fields contradict it is refused, see below).
        "transport.recovery_params.rto_initial=\"100ms\"",
        "transport.recovery_params.rto_min=\"50ms\"",
        // 0.2 %: a few flows need a timeout (2 of 31), most do not; at 2 % go-back-N over the
        // inter-DC windows keeps most flows retransmitting for simulated seconds.
        "network.loss_rate=0.002",
        "output.fct_artifact=true",
        "workload.duration=\"3ms\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    sets.extend(extra.iter().map(|s| s.to_string()));
    let sc = scenario::load(&root.join("examples/lcmp-tiny.toml"), &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = scratch::TmpDir::new(
        "fct-rto",
        &N.fetch_add(1, std::sync::atomic::Ordering::Relaxed).to_string(),
    );
    write_outputs(&dir, &sc, &r).unwrap();
    (dir, r)
}

fn rule_field(r: &braid_cli::run::RunResult, key: &str) -> Option<Value> {
    let Some(Value::Obj(o)) = r.summary.get("fct_slowdown_artifact_rule") else {
        panic!("no fct_slowdown_artifact_rule")
    };
    o.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

fn all_row_flows(dir: &Path) -> usize {
    let t = std::fs::read_to_string(dir.join("fct_stats.csv")).unwrap();
    let row = t.lines().find(|l| l.starts_with("all,")).unwrap();
    row.split(',').nth(1).unwrap().parse().unwrap()
}

#[test]
fn flows_that_needed_a_timeout_are_left_out_of_the_artifact_outputs_only() {
    let (dir, r) = outputs(&[]);
    let completed = r.flows.iter().filter(|f| f.finish_ns.is_some()).count();
    let timed_out = r.flows.iter().filter(|f| f.finish_ns.is_some() && f.timeouts > 0).count();
    assert_eq!(completed, r.flows.len(), "every flow completes in Braid");
    assert!(
        timed_out > 0 && timed_out < completed,
        "the lossy run must have some flows that timed out: {timed_out} of {completed}"
    );
    let fct_lines = std::fs::read_to_string(dir.join("fct.txt")).unwrap().lines().count();
    assert_eq!(fct_lines, completed - timed_out);
    assert_eq!(rule_field(&r, "rto_flows_left_out"), Some(Value::Int(timed_out as i128)));
    // The artifact's rule drops the largest of the flows it covers.
    assert_eq!(all_row_flows(&dir), completed - timed_out - 1);
    let stats = std::fs::read_to_string(dir.join("fct_stats.csv")).unwrap();
    assert!(
        stats.contains(&format!(
            "# {timed_out} completed flows that needed a retransmission timeout left out"
        )),
        "{stats}"
    );
    // The flows left out are counted and named in summary.json, and the kept timers noted.
    let Some(Value::Obj(left)) = r.summary.get("flows_left_out") else {
        panic!("no flows_left_out")
    };
    let get = |k: &str| left.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("count"), Value::Int(timed_out as i128));
    let Value::List(ids) = get("flows") else { panic!() };
    let expect: Vec<Value> = r
        .flows
        .iter()
        .filter(|f| f.finish_ns.is_some() && f.timeouts > 0)
        .map(|f| Value::Int(f.id as i128))
        .take(50)
        .collect();
    assert_eq!(ids, expect);
    let Some(Value::List(w)) = r.summary.get("warnings") else { panic!("no warnings") };
    assert!(
        w.iter().any(
            |x| matches!(x, Value::Str(s) if s.contains("rto_min") && s.contains("overridden"))
        ),
        "{w:?}"
    );
    // flows.csv keeps every flow.
    let flows_lines = std::fs::read_to_string(dir.join("flows.csv")).unwrap().lines().count();
    assert_eq!(flows_lines, r.flows.len() + 1);

    // Set back alone: every completed flow is in the artifact outputs again.
    let (dir, r) = outputs(&["output.fct_artifact_without_rto=false"]);
    let completed = r.flows.iter().filter(|f| f.finish_ns.is_some()).count();
    assert_eq!(std::fs::read_to_string(dir.join("fct.txt")).unwrap().lines().count(), completed);
    assert_eq!(rule_field(&r, "rto_flows_left_out"), None);
    assert_eq!(all_row_flows(&dir), completed - 1);
}

/// The profile added to a file whose own fields contradict it is refused with every such field
/// named (exit code 2): the run would otherwise keep the file's RTO in place of the fork's absent
/// timer and silently leave the flows that time out out of `fct.txt`.
#[test]
fn a_profile_that_cannot_apply_is_refused_with_the_fields_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(["validate"])
        .arg(root.join("examples/lcmp-8dc-flows.toml"))
        .args(["--set", "network.profile=ns3-hpcc"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for f in ["rto_initial", "rto_min", "rto_max"] {
        assert!(err.contains(&format!("transport.recovery_params.{f}")), "{f} not named: {err}");
    }
    // The file that sets the profile itself (repro/scenarios) runs, and an RTO below the
    // network's largest RTT is warned about.
    let sc = scenario::load(
        &root.join("repro/scenarios/lcmp-8dc-ns3.toml"),
        &["workload.first=20".into(), "transport.recovery_params.rto_max=\"100ms\"".into()],
        None,
    )
    .unwrap();
    let (sim, _) = braid_cli::build::build(&sc).unwrap();
    assert!(
        sim.notes()
            .iter()
            .any(|n| n.contains("rto_max") && n.contains("below the largest base RTT")),
        "{:?}",
        sim.notes()
    );
}
