//! Switching one `kind` with `--set` (docs/architecture.md, "Scenario files: several kinds in one
//! file"): every example and bench scenario parses and builds — through the CLI's own
//! `scenario::load` and `build::build`, as `braid validate` does — with every transport kind and
//! with every alternative its `# Compare:` header lines document; fields of inactive kinds are
//! still validated and named where they are written; `scenario.resolved.toml` records the fields
//! of the kinds that ran.

use std::path::{Path, PathBuf};

use braid_cli::{build, scenario};

/// Every transport kind of Braid's (the registry, `TransportKind::BUILTIN_NAMES`).
const TRANSPORTS: &[&str] = braid_proto::transport::TransportKind::BUILTIN_NAMES;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// `examples/*.toml` and `crates/braid-cli/bench/*.toml`, sorted.
fn scenario_files() -> Vec<PathBuf> {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in [root.join("examples"), root.join("crates/braid-cli/bench")] {
        for e in std::fs::read_dir(&dir).expect("scenario folder") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 20, "found only {} scenario files", files.len());
    files
}

/// The `--set` assignments a file documents: each `# Compare: --set table.field=a | b | c` line
/// gives `table.field=a`, `table.field=b`, `table.field=c`.
fn documented_alternatives(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("# Compare:") else { continue };
        let rest = rest
            .trim()
            .strip_prefix("--set")
            .unwrap_or_else(|| panic!("a Compare line starts with --set: {line}"))
            .trim();
        let (key, values) =
            rest.split_once('=').unwrap_or_else(|| panic!("a Compare line has key=values: {line}"));
        for v in values.split('|') {
            out.push(format!("{}={}", key.trim(), v.trim()));
        }
    }
    out
}

fn parses_and_builds(path: &Path, sets: &[String]) -> Result<(), String> {
    let sc = scenario::load(path, sets, None)?;
    build::build(&sc).map(|_| ())
}

#[test]
fn every_scenario_builds_with_every_transport_and_documented_alternative() {
    let files = scenario_files();
    let mut jobs: Vec<(PathBuf, String)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("scenario text");
        let documented = documented_alternatives(&text);
        assert!(
            documented.iter().filter(|s| s.starts_with("transport.kind=")).count()
                == TRANSPORTS.len(),
            "{}: the header should list every transport in `# Compare: --set transport.kind=…`",
            f.display()
        );
        for alt in TRANSPORTS.iter().map(|k| format!("transport.kind={k}")).chain(documented) {
            if !jobs.iter().any(|(p, s)| p == f && *s == alt) {
                jobs.push((f.clone(), alt));
            }
        }
    }
    // Two workers: the machine's two cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((path, set)) = jobs.get(i) else { break };
                if let Err(e) = parses_and_builds(path, std::slice::from_ref(set)) {
                    failures.lock().unwrap().push(format!("{} --set {set}: {e}", path.display()));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} combinations fail:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

/// The three cases of the issue, each with the kind switched alone.
#[test]
fn the_reported_switches_work() {
    let root = repo_root();
    let sc = scenario::load(
        &root.join("crates/braid-cli/bench/a-permutation-k8-2MB.toml"),
        &["transport.kind=uet".into()],
        None,
    )
    .unwrap();
    assert_eq!(sc.transport.kind.name(), "uet");
    assert!(sc.transport.cc.overrides.is_empty(), "RoCE's window is inactive under uet");
    let sc = scenario::load(
        &root.join("examples/rondo-fig4.toml"),
        &["transport.kind=rrps".into()],
        None,
    )
    .unwrap();
    assert_eq!(sc.transport.kind.name(), "rrps");
    let sets = [
        "workload.kind=flow-file".to_string(),
        "workload.file=../data/flows/lcmp-8dc-websearch-0.3.csv".into(),
    ];
    let sc = scenario::load(&root.join("examples/lcmp-13dc.toml"), &sets, None).unwrap();
    assert_eq!(sc.workload.kind(), "flow-file");
}

/// A flat field given by `--set` belongs to the kind that runs.
#[test]
fn set_fields_belong_to_the_running_kind() {
    let root = repo_root();
    let sets = ["transport.kind=rrps".to_string(), "transport.window=64KB".into()];
    let sc = scenario::load(&root.join("examples/rondo-testbed.toml"), &sets, None).unwrap();
    let window = sc
        .transport
        .cc
        .overrides
        .iter()
        .find(|(k, _)| k == "window")
        .map(|(_, v)| v.as_bytes().unwrap());
    assert_eq!(window, Some(braid_core::units::parse_size("64KB").unwrap()));
    // Without --set the example runs RRPS at its defaults (they must work)…
    let sc = scenario::load(
        &root.join("examples/rondo-testbed.toml"),
        &["transport.kind=rrps".into()],
        None,
    )
    .unwrap();
    assert!(!sc.transport.cc.overrides.iter().any(|(k, _)| k == "window"));
    // …and a `[transport.rrps]` sub-table gives RRPS its window when RRPS runs.
    let text = format!("{BASE}[transport.rrps]\nwindow = \"32KB\"\n");
    let sc = parse(&text, &["transport.kind=rrps"]).unwrap();
    let window = sc
        .transport
        .cc
        .overrides
        .iter()
        .find(|(k, _)| k == "window")
        .map(|(_, v)| v.as_bytes().unwrap());
    assert_eq!(window, Some(32_000));
}

const BASE: &str = r#"
name = "kinds"
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
[transport]
kind = "roce"
paths = 4
[transport.roce]
cc = "hpcc"
recovery = "sr"
[transport.uet]
ev_select = "oblivious"
[workload]
kind = "permutation"
size = "100KB"
[workload.cdf]
cdf = "websearch"
load = 0.3
flows = 10
"#;

fn parse(text: &str, sets: &[&str]) -> Result<scenario::Scenario, String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::parse(text, Path::new("."), &sets, None)
}

#[test]
fn inactive_sub_tables_are_validated_and_named() {
    parse(BASE, &[]).unwrap();
    let cases = [
        ("[transport.uet]\n", "[transport.uet]\nfoo = 1\n", "transport.uet.foo"),
        ("[transport.uet]\n", "[transport.uet]\npaths = 0\n", "transport.uet.paths"),
        ("[transport.uet]\n", "[transport.eqds]\nrts = 3\n[transport.uet]\n", "transport.eqds.rts"),
        ("[workload.cdf]\n", "[workload.cdf]\nbogus = 1\n", "workload.cdf.bogus"),
        ("load = 0.3\n", "load = 7\n", "workload.cdf.load"),
        (
            "[transport.uet]\n",
            "[routing.lcmp]\nalpha = \"x\"\n[transport.uet]\n",
            "routing.lcmp.alpha",
        ),
    ];
    for (anchor, with, field) in cases {
        let text = BASE.replace(anchor, with);
        let e = parse(&text, &[]).expect_err(field);
        assert!(e.contains(&format!("`{field}`")), "{field}: {e}");
        assert!(e.contains("inactive"), "{field}: {e}");
    }
    // Unknown fields of the running kind are errors as before.
    let e =
        parse(&BASE.replace("[transport.roce]\n", "[transport.roce]\nfoo = 1\n"), &[]).unwrap_err();
    assert!(e.contains("`transport.roce.foo`") && !e.contains("inactive"), "{e}");
    // The file's flat fields are checked against the file's kind when --set switches it.
    let flat =
        BASE.replace("[transport.roce]\ncc = \"hpcc\"\n", "cc = \"nope\"\n[transport.roce]\n");
    let e = parse(&flat, &["transport.kind=uet"]).unwrap_err();
    assert!(e.contains("`transport.cc`") && e.contains("roce"), "{e}");
    // A sub-table cannot set `kind`.
    assert!(parse(&BASE.replace("[transport.uet]\n", "[transport.uet]\nkind = \"roce\"\n"), &[])
        .is_err());
}

#[test]
fn resolved_toml_records_the_running_kinds() {
    let sc = parse(BASE, &["transport.kind=uet", "workload.kind=cdf"]).unwrap();
    assert_eq!(sc.transport.kind.name(), "uet");
    let r: toml::Table = sc.resolved_toml.parse().expect("resolved TOML parses");
    let tr = r["transport"].as_table().unwrap();
    let keys: Vec<&str> = tr.keys().map(String::as_str).collect();
    assert_eq!(keys, ["ev_select", "kind", "paths"], "{}", sc.resolved_toml);
    assert_eq!(tr["kind"].as_str(), Some("uet"));
    let wl = r["workload"].as_table().unwrap();
    assert_eq!(wl.keys().map(String::as_str).collect::<Vec<_>>(), ["cdf", "flows", "kind", "load"]);
    // The dropped fields are listed in a comment at the head.
    let head: String =
        sc.resolved_toml.lines().take_while(|l| l.starts_with('#')).collect::<Vec<_>>().join("\n");
    assert!(head.contains("transport.roce.cc") && head.contains("workload.size"), "{head}");
    // The resolved file reproduces the run: it parses to the same transport and workload.
    let again = parse(&sc.resolved_toml, &[]).unwrap();
    assert_eq!(format!("{:?}", again.transport), format!("{:?}", sc.transport));
    assert_eq!(format!("{:?}", again.workload), format!("{:?}", sc.workload));
    // Without --set: RoCE's fields, flat; uet and cdf listed as inactive.
    let sc = parse(BASE, &[]).unwrap();
    let r: toml::Table = sc.resolved_toml.parse().unwrap();
    assert_eq!(r["transport"]["cc"].as_str(), Some("hpcc"));
    assert!(r["transport"].get("uet").is_none() && r["workload"].get("cdf").is_none());
    assert!(
        sc.resolved_toml.starts_with("# ") && sc.resolved_toml.contains("transport.uet.ev_select")
    );
}

#[test]
fn set_precedence_and_kind_named_fields() {
    // --set of a flat field wins over the sub-table.
    let sc = parse(BASE, &["transport.cc=dcqcn"]).unwrap();
    assert_eq!(sc.transport.cc.kind.name(), "dcqcn");
    // `workload.cdf` is both a field and a kind's sub-table here: --set must name the sub-table's field.
    let e = parse(BASE, &["workload.cdf=hadoop"]).unwrap_err();
    assert!(e.contains("workload.cdf.cdf"), "{e}");
    let sc = parse(BASE, &["workload.kind=cdf", "workload.cdf.cdf=hadoop"]).unwrap();
    assert!(format!("{:?}", sc.workload).contains("hadoop"));
}
