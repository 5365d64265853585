//! Rondo's scenario fields: every ablation knob parses and runs, defaults are the
//! paper's (§6.2.1), and bad input ends with a message naming the field.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_proto::cc::CcKind;
use braid_proto::recovery::RecoveryKind;

const SMALL: &str = r#"
name = "rondo-knobs"
seed = 3
[topology]
kind = "four-path"
senders = 4
receivers = 4
delay = "2us"
[network]
mtu = "1000B"
ecn = false
[transport]
kind = "rondo"
[routing]
kind = "entropy"
[workload]
kind = "incast"
senders = "0-3"
receiver = 4
size = "300KB"
"#;

fn parse_err(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(SMALL, Path::new("."), &sets, None).map(|_| ()).unwrap_err()
}

#[test]
fn defaults_are_arcc_with_early_recovery() {
    let sc = parse(SMALL, Path::new("."), &[], None).unwrap();
    assert_eq!(sc.transport.cc.kind, CcKind::Arcc);
    assert_eq!(sc.transport.recovery.kind, RecoveryKind::EarlyRecovery);
    assert_eq!(sc.transport.recovery.er_threshold, 4);
    let r = run(&sc, false).unwrap();
    assert_eq!(r.summary.get("cc").map(|v| format!("{v:?}")), Some("Str(\"arcc\")".to_string()));
    assert!(r.sim.flows().iter().all(|f| f.finish.is_some()));
}

#[test]
fn every_ablation_variant_runs_to_completion() {
    let variants: &[&[&str]] = &[
        &["transport.cc=\"swift\""],
        &[
            "transport.cc=\"swift\"",
            "transport.path_selection=\"random\"",
            "transport.scheduler=false",
        ],
        &["transport.path_selection=\"random\""],
        &["transport.probing=false"],
        &["transport.scheduler=false"],
        &["transport.paths=1"],
        &["transport.paths=8"],
        &[
            "transport.tu=1.0",
            "transport.tau_q=0.1",
            "transport.q0=2",
            "transport.alpha=0.5",
            "transport.gamma=0.25",
        ],
        &[
            "transport.tu=\"8us\"",
            "transport.tau_q=\"1us\"",
            "transport.q0=\"4KB\"",
            "transport.w0=\"3KB\"",
        ],
        &["transport.alpha_side=\"sample\"", "transport.fast_drain=1"],
        &["transport.er_threshold=8", "transport.er_mode=\"episode\""],
        &["transport.recovery=\"sr\""],
        &["transport.recovery=\"rack-tlp-per-path\""],
        &["transport.recovery_params.er_threshold=2"],
        &["transport.kind=\"rrps\"", "transport.paths=4"],
        &["transport.kind=\"rrps\"", "transport.window=\"64KB\"", "transport.recovery=\"sr\""],
    ];
    for v in variants {
        let sets: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        let sc = parse(SMALL, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{v:?}: {e}"));
        let r = run(&sc, false).unwrap();
        r.sim.conservation().unwrap_or_else(|e| panic!("{v:?}: {e}"));
        assert!(
            r.sim
                .flows()
                .iter()
                .enumerate()
                .all(|(i, f)| f.finish.is_some() && r.sim.conn_of(i).receiver.is_complete()),
            "{v:?}"
        );
    }
}

#[test]
fn bad_rondo_fields_name_the_field() {
    for (sets, needle) in [
        (&["transport.bogus=1"][..], "transport.bogus"),
        (&["transport.paths=0"][..], "transport.paths"),
        (&["transport.paths=300"][..], "transport.paths"),
        (&["transport.path_selection=\"best\""][..], "transport.path_selection"),
        (&["transport.alpha=1.5"][..], "transport.alpha"),
        (&["transport.gamma=0"][..], "transport.gamma"),
        (&["transport.tu=\"-3us\""][..], "transport.tu"),
        (&["transport.q0=0"][..], "transport.q0"),
        (&["transport.probing=\"maybe\""][..], "transport.probing"),
        (&["transport.alpha_side=\"left\""][..], "transport.alpha_side"),
        (&["transport.cc=\"dcqcn\""][..], "transport.cc"),
        (&["transport.cc=\"swift\"", "transport.probing=true"][..], "transport.probing"),
        (&["transport.recovery=\"gbn\""][..], "transport.recovery"),
        (&["transport.cc_params.tu=1"][..], "tu"),
        (&["transport.kind=\"rrps\"", "transport.probing=false"][..], "transport.probing"),
        (&["transport.startup_skips=\"sometimes\""][..], "transport.startup_skips"),
        // Scheduler knobs where the part of the scheduler they change does not run.
        (&["transport.scheduler=false", "transport.skip_expiry=true"][..], "transport.skip_expiry"),
        (
            &["transport.scheduler=false", "transport.startup_skips=\"per-update\""][..],
            "transport.startup_skips",
        ),
        (
            &["transport.scheduler_start=\"stable\"", "transport.startup_skips=\"per-sample\""][..],
            "transport.startup_skips",
        ),
    ] {
        let e = parse_err(sets);
        assert!(e.contains(needle), "{sets:?}: {e}");
    }
}

#[test]
fn arcc_needs_rondo() {
    let e = parse_err(&["transport.kind=\"roce\"", "transport.cc=\"arcc\""]);
    assert!(e.contains("arcc") && e.contains("rondo"), "{e}");
    let e = parse_err(&["transport.cc=\"cubic\""]);
    assert!(e.contains("arcc") && e.contains("swift"), "known list: {e}");
}
