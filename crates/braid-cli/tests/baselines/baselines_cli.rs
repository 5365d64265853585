//! Every transport of the scenario contract is selectable on the Rondo testbed scenario with
//! `--set transport.kind=<name>`, and the baselines' `[transport]` knobs are checked:
//! unknown names and bad values are errors that name the field.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::{load, parse};

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rondo-testbed.toml")
}

#[test]
fn every_transport_runs_on_the_testbed_example() {
    for kind in ["mprdma", "falcon", "uet", "eqds"] {
        let sets = vec![format!("transport.kind=\"{kind}\""), "workload.size=\"4MB\"".to_string()];
        let sc = load(&example(), &sets, None).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let r = run(&sc, false).unwrap();
        assert!(
            r.sim.flows().iter().all(|f| f.finish.is_some() && f.delivered_bytes == f.size_bytes),
            "{kind}"
        );
        assert!(r.sim.conservation().is_ok(), "{kind}");
    }
    // Rondo's own transports parse too (their tests run them). `roce` is single-path and rejects
    // the example's `transport.paths`.
    for kind in ["rondo", "rrps"] {
        let sets = vec![format!("transport.kind=\"{kind}\"")];
        load(&example(), &sets, None).unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
}

const BASE: &str = r#"
[topology]
kind = "testbed"
[transport]
kind = "uet"
[routing]
kind = "entropy"
[workload]
kind = "incast"
senders = [0]
receiver = 1
size = "1MB"
"#;

fn err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match parse(BASE, Path::new("."), &sets, None) {
        Ok(_) => panic!("expected an error for {sets:?}"),
        Err(e) => e,
    }
}

#[test]
fn bad_baseline_knobs_are_clear_errors() {
    for kind in ["mprdma", "falcon", "uet", "eqds"] {
        let k = format!("transport.kind=\"{kind}\"");
        let e = err(&[&k, "transport.probing=true"]);
        assert!(e.contains("transport.probing") && e.contains(kind), "{kind}: {e}");
        let e = err(&[&k, "transport.paths=0"]);
        assert!(e.contains("transport.paths"), "{kind}: {e}");
    }
    let e = err(&["transport.kind=\"falcon\"", "transport.path_select=\"fastest\""]);
    assert!(e.contains("transport.path_select") && e.contains("max-window"), "{e}");
    let e = err(&["transport.kind=\"uet\"", "transport.ev_select=\"ecmp\""]);
    assert!(e.contains("transport.ev_select"), "{e}");
    let e = err(&["transport.kind=\"uet\"", "transport.target_qdelay=\"0us\""]);
    assert!(e.contains("transport.target_qdelay"), "{e}");
    let e = err(&["transport.kind=\"eqds\"", "transport.credit_spec=0"]);
    assert!(e.contains("transport.credit_spec"), "{e}");
    let e =
        err(&["transport.kind=\"falcon\"", "transport.cc=\"dcqcn\"", "transport.cc_params.ai=2"]);
    assert!(e.contains("cc_params"), "{e}");
}

#[test]
fn falcon_takes_swift_knobs_from_cc_params() {
    let sets = ["transport.kind=\"falcon\"", "transport.cc_params.ai=2.0"];
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = parse(BASE, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(sc.transport.cc.kind.name(), "swift");
}
