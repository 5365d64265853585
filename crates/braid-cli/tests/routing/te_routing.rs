//! The RedTE-like TE baseline (`routing.kind = "te"`, `braid_proto::routing::te`): with a control
//! interval longer than the run its splitting ratios never move, and it routes every flow as
//! static weighted hashing (WCMP) does — byte for byte; with a short interval its rounds run and
//! shift weight toward the less utilised candidates (the mechanism itself is tested on a two-path
//! toy in `braid-proto`'s `te` tests).

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario;
use braid_metrics::Value;

fn flows_csv(sets: &[&str]) -> (Vec<u8>, braid_metrics::Summary) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = scenario::load(&root.join("examples/lcmp-tiny.toml"), &sets, None).unwrap();
    let r = run(&sc, false).unwrap();
    assert!(r.flows.iter().all(|f| f.finish_ns.is_some()));
    let mut out = Vec::new();
    braid_metrics::write_flows_csv(&mut out, &r.flows).unwrap();
    (out, r.summary)
}

#[test]
fn te_with_a_long_interval_is_wcmp_and_a_short_one_shifts() {
    let (wcmp, _) = flows_csv(&["routing.kind=wcmp"]);
    let (te, s) = flows_csv(&["routing.kind=te", "routing.te_interval=\"10s\""]);
    assert_eq!(wcmp, te, "TE whose ratios never move must route as WCMP");
    let Some(Value::Obj(te_stats)) = s.get("te") else { panic!("no te summary") };
    assert!(te_stats.iter().any(|(k, v)| k == "rounds" && *v == Value::Int(0)));
    // 1 ms rounds over the 10 ms of arrivals with no dead band: capacity-proportional weights keep
    // the candidates' utilisations close, so any remaining imbalance moves a step of weight.
    let (short, s) =
        flows_csv(&["routing.kind=te", "routing.te_interval=\"1ms\"", "routing.te_threshold=0"]);
    let Some(Value::Obj(te_stats)) = s.get("te") else { panic!("no te summary") };
    let get = |k: &str| te_stats.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert!(matches!(get("rounds"), Some(Value::Int(n)) if n >= 10), "{te_stats:?}");
    assert!(matches!(get("shifts"), Some(Value::Int(n)) if n > 0), "{te_stats:?}");
    assert_ne!(short, wcmp, "moving ratios must change some flows' paths");
}
