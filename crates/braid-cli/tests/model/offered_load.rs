//! Offered load on the network's cuts (`crate::offered_load`, `docs/metrics.md` "Offered load"):
//! `braid run` warns on stderr before the run when a workload offers more than a cut carries and
//! records the worst cut in `summary.json`; the shipped examples are not overloaded unless their
//! header says that the overload is the point (`overload intended: …`: an incast, flows that start
//! together on an oversubscribed fabric, a paper's own set-up).

use std::path::{Path, PathBuf};
use std::process::Command;

use braid_cli::offered_load::{offered_load, OfferedLoad};
use braid_cli::scenario::load;
use braid_cli::table::read_summary;

/// A field of a run's flattened `summary.json` (`offered_load.max_factor`), without quotes.
fn field(out: &Path, key: &str) -> String {
    let s = read_summary(&out.join("summary.json")).unwrap();
    let v = s.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no `{key}` in {s:?}"));
    v.1.trim_matches('"').to_string()
}

fn tmp(name: &str) -> PathBuf {
    let d =
        std::env::temp_dir().join(format!("braid-offered-load-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 4:1 oversubscribed leaf-spine (8 hosts of 100 Gb/s per leaf, 2 spines at 100 Gb/s) at 80 %
/// Web Search load, for 50 µs.
const OVERLOADED: &str = r#"
name = "overloaded"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 8
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[transport]
kind = "roce"
cc = "dcqcn"
[workload]
kind = "cdf"
cdf = "websearch"
load = 0.8
duration = "50us"
"#;

#[test]
fn an_overloaded_scenario_warns_and_says_so_in_the_summary() {
    // Per leaf: 8 hosts × 80 Gb/s, 8 of each host's 15 destinations behind the other leaf:
    // 640 × 8/15 = 341.3 Gb/s over 2 × 100 Gb/s of uplinks = 1.71.
    let d = tmp("over");
    let sc = d.join("s.toml");
    std::fs::write(&sc, OVERLOADED).unwrap();
    let out = d.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("warning: offered load exceeds capacity: leaf0 uplinks (out) carry 1.71× their 200 Gb/s (341.333 Gb/s offered"), "{stderr}");
    assert_eq!(stderr.matches("warning: offered load exceeds capacity").count(), 4, "{stderr}");
    assert_eq!(field(&out, "offered_load.basis"), "poisson_load");
    assert_eq!(field(&out, "offered_load.max_factor"), "1.707");
    assert_eq!(field(&out, "offered_load.max_cut"), "leaf0 uplinks (out)");
    assert_eq!(field(&out, "offered_load.overloaded_cuts"), "4");
    // At 40 % the same network carries it (leaf uplinks 0.853): no warning.
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .args(["--set", "workload.load=0.4"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !stderr.contains("warning"), "{stderr}");
    assert_eq!(field(&out, "offered_load.overloaded_cuts"), "0");
    assert_eq!(field(&out, "offered_load.max_factor"), "0.853");
    let _ = std::fs::remove_dir_all(&d);
}

fn analyze(path: &Path) -> OfferedLoad {
    let sc = load(path, &[], None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let hosts = sc.topology.hosts();
    let groups: Vec<u32> = hosts.iter().map(|h| sc.topology.nodes[h.idx()].group).collect();
    let wl = sc.workload.generate(hosts.len(), &groups, sc.seed).unwrap();
    offered_load(&sc.topology, &sc.workload, &wl)
}

/// The marker an example's header carries when its overload is intended.
const INTENDED: &str = "overload intended:";

#[test]
fn shipped_examples_are_not_overloaded_unless_intended() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() > 10);
    let mut report = Vec::new();
    let mut bad = Vec::new();
    for f in &files {
        let l = analyze(f);
        let max = l.max_cut().unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let header: String = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .take_while(|x| x.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        let intended = header.contains(INTENDED);
        report.push(format!(
            "{name}: {:.3} on {} ({:?}){}",
            max.factor(),
            max.label(),
            l.basis,
            if intended { ", intended" } else { "" }
        ));
        if l.overloaded().is_empty() {
            if intended {
                bad.push(format!("{name}: says `{INTENDED}` but is not overloaded"));
            }
        } else if !intended {
            bad.push(format!("{name}: {} carry {:.2}× their capacity; fix the example or say `{INTENDED} …` in its header", max.label(), max.factor()));
        }
    }
    println!("{}", report.join("\n"));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
