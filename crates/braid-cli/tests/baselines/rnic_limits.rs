//! The RNIC's PSN limits (Rondo Appendix A, Fig 24; `network.max_outstanding_psn`,
//! `network.max_outstanding_reads`, `transport.verb`): on one 40 Gb/s QP sprayed over four paths
//! with one delayed, the limit caps the range of outstanding PSNs, so it caps the OOD the
//! receiver can see, and throughput falls off once the injected OOD plus the normal in-flight
//! data (~47 packets) exceed the range — near 512 − 47 packets for WRITE, near
//! 16 READs × 17 packets − 47 for READ — and not before.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario;

/// Goodput (b/s, the summary's `goodput_bps`) and max NIC-level OOD of the Fig 24 QP (4 MB) with `extra` on path 4.
fn qp(extra_us: u32, sets: &[&str]) -> (f64, i128) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut all: Vec<String> = vec![
        format!("topology.extra_delay=\"{extra_us}us\""),
        "transport.cc=\"fixed\"".into(),
        "transport.window=\"unlimited\"".into(),
        "workload.file=\"flows/fig24-one-qp-quick.csv\"".into(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let sc = scenario::load(&root.join("repro/scenarios/rondo-fig24.toml"), &all, None).unwrap();
    let r = run(&sc, false).unwrap();
    assert!(r.flows[0].finish_ns.is_some(), "the flow completes");
    let num = |k: &str| match r.summary.get(k) {
        Some(braid_metrics::Value::Int(v)) => *v as f64,
        Some(braid_metrics::Value::Float(v)) => *v,
        other => panic!("{k}: {other:?}"),
    };
    (num("goodput_bps"), num("nic_ood_max") as i128)
}

const WRITE: &str = "network.max_outstanding_psn=512";
const READ: [&str; 2] = ["transport.verb=\"read\"", "network.max_outstanding_reads=16"];

#[test]
fn the_write_window_caps_reordering_and_throughput_falls_only_beyond_it() {
    // 60 µs: ~280 packets of injected OOD, inside the window.
    let (free, ood_free) = qp(60, &[]);
    let (lim, ood_lim) = qp(60, &[WRITE]);
    assert!(ood_free > 200 && ood_free < 400, "injected OOD at 60 us: {ood_free}");
    assert!(lim >= 0.97 * free, "inside the window the limit costs nothing: {lim} vs {free}");
    assert_eq!(ood_lim, ood_free);
    // 160 µs: ~750 packets injected, beyond 512.
    let (free, ood_free) = qp(160, &[]);
    let (lim, ood_lim) = qp(160, &[WRITE]);
    assert!(ood_free > 512, "injected OOD at 140 us: {ood_free}");
    assert!(ood_lim < 512, "the receiver never sees more OOD than the PSN range: {ood_lim}");
    assert!(lim <= 0.6 * free, "beyond the window the QP stalls: {lim} vs {free}");
}

#[test]
fn sixteen_outstanding_reads_give_an_earlier_cliff_than_the_write_window() {
    // 20 µs (~95 packets): below both limits.
    let (free, _) = qp(20, &[]);
    let (read, _) = qp(20, &READ);
    assert!(read >= 0.97 * free, "{read} vs {free}");
    // 60 µs (~280 packets): beyond 16 × 17 − 47 ≈ 225 but inside WRITE's 512 − 47.
    let (free, _) = qp(60, &[]);
    let (read, ood_read) = qp(60, &READ);
    let (write, _) = qp(60, &[WRITE]);
    assert!(read <= 0.6 * free, "READ stalls: {read} vs {free}");
    assert!(write >= 0.97 * free, "WRITE does not: {write} vs {free}");
    assert!(ood_read < 16 * 17, "16 READs of 17 packets bound the OOD: {ood_read}");
    // Larger READs move the cliff out.
    let (read64, _) = qp(60, &[READ[0], READ[1], "transport.read_size=\"64KiB\""]);
    assert!(read64 >= 0.97 * free, "16 × 64 KiB covers 280 packets of OOD: {read64} vs {free}");
}

#[test]
fn bad_limits_are_refused_with_the_field_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("repro/scenarios/rondo-fig24.toml");
    for (set, needle) in [
        ("network.max_outstanding_psn=0", "max_outstanding_psn"),
        ("network.max_outstanding_reads=-1", "max_outstanding_reads"),
        ("transport.read_size=\"8KiB\"", "read_size"),
        ("transport.verb=\"send\"", "transport.verb"),
    ] {
        let e = scenario::load(&path, &[set.to_string()], None)
            .err()
            .unwrap_or_else(|| panic!("{set} accepted"));
        assert!(e.contains(needle), "{set}: {e}");
    }
}

#[test]
fn the_verb_written_in_the_file_holds_for_every_transport_kind() {
    // `transport.verb` is common to every kind: switching the kind with --set keeps the READ
    // limit (it was once dropped as a field of the file's kind).
    use braid_proto::recovery::PsnLimit;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path = root.join("repro/scenarios/rondo-fig24-transports.toml");
    for kind in ["rondo", "rrps", "mprdma", "falcon", "uet", "eqds", "roce"] {
        let sc = scenario::load(&path, &[format!("transport.kind=\"{kind}\"")], None).unwrap();
        assert_eq!(
            sc.transport.recovery.psn_limit,
            PsnLimit::Reads { packets_per_read: 17, max_reads: 16 },
            "{kind}"
        );
    }
}
