//! Nothing silently wrong: a run owns its output folder (a refused one leaves nothing of an
//! earlier run), every quantity needs its unit, faults name nodes, and a sweep resumes in its own
//! folder, says what it reused and removes runs not in its plan. (The ns-3 profile and the flows an output
//! leaves out: `tests/baselines/fct_artifact_rto.rs`; every repro plan's runs: `tests/cli/repro_quick.rs`.)

use crate::scratch;

use std::path::Path;
use std::process::{Command, Output};

fn braid(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_braid")).args(args).current_dir(dir).output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const SMALL: &str = r#"
name = "small"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
[transport]
kind = "roce"
cc = "dcqcn"
[workload]
kind = "permutation"
size = "64KB"
"#;

#[test]
fn a_run_owns_its_folder() {
    let d = scratch::TmpDir::new("silent", "folder");
    std::fs::write(
        d.join("a.toml"),
        format!("{SMALL}[output]\nqueues = true\nsample_interval = \"1us\"\n"),
    )
    .unwrap();
    std::fs::write(d.join("b.toml"), SMALL.replace("name = \"small\"", "name = \"other\""))
        .unwrap();
    // A file that is not Braid's stays; one that is, from the earlier run, does not.
    assert!(braid(&["run", "a.toml", "--out", "o", "--quiet"], &d).status.success());
    assert!(d.join("o/queues.csv").is_file());
    std::fs::write(d.join("o/notes.txt"), "mine").unwrap();
    assert!(braid(&["plot", "o"], &d).status.success());
    assert!(d.join("o/plot-queues.png").is_file());
    let o = braid(&["run", "b.toml", "--out", "o", "--quiet"], &d);
    assert!(o.status.success(), "{}", err(&o));
    assert!(!d.join("o/queues.csv").exists(), "the earlier run's queues.csv survived");
    assert!(!d.join("o/plot-queues.png").exists(), "the earlier run's figure survived");
    assert!(!d.join("o/plot-queues.csv").exists(), "the earlier run's figure data survived");
    assert!(d.join("o/notes.txt").is_file(), "a file Braid does not write was removed");
    let summary = std::fs::read_to_string(d.join("o/summary.json")).unwrap();
    assert!(summary.contains("\"other\""));
    // A time series older than the run (put there by hand) is not drawn, and the plot says so.
    std::fs::write(d.join("stale.csv"), "time_ns,port,bytes\n1,0,5\n2,0,6\n").unwrap();
    let old = std::fs::metadata(d.join("stale.csv")).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(braid(&["run", "b.toml", "--out", "o", "--quiet"], &d).status.success());
    std::fs::copy(d.join("stale.csv"), d.join("o/rates.csv")).unwrap();
    let f = std::fs::File::options().write(true).open(d.join("o/rates.csv")).unwrap();
    f.set_modified(old).unwrap();
    let o = braid(&["plot", "o"], &d);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("rates.csv") && err(&o).contains("older than the run"), "{}", err(&o));
    assert!(!d.join("o/plot-rates.png").exists());
    // A panel that draws only the busiest of the file's entities says so in its title (more
    // than 8 ports queue on this leaf-spine; the panel draws 8).
    let big = SMALL
        .replace("spines = 2", "spines = 4")
        .replace("hosts_per_leaf = 2", "hosts_per_leaf = 8")
        .replace("leaves = 2", "leaves = 4");
    let queues = "[output]\nqueues = true\nsample_interval = \"1us\"\n";
    std::fs::write(d.join("c.toml"), format!("{big}{queues}")).unwrap();
    assert!(braid(&["run", "c.toml", "--out", "big", "--quiet"], &d).status.success());
    assert!(braid(&["plot", "big"], &d).status.success());
    let svg = std::fs::read_to_string(d.join("big/plot-queues.svg")).unwrap();
    let named = svg.split("busiest of ").nth(1).and_then(|t| t.split(' ').next());
    let n: usize = named.and_then(|n| n.parse().ok()).expect("no subset named in plot-queues.svg");
    assert!(n > 8, "the title names {n} ports: the panel would draw them all");
    // Without --out a run writes to out/run/<scenario file name>.
    assert!(braid(&["run", "a.toml", "--quiet"], &d).status.success());
    assert!(d.join("out/run/a/summary.json").is_file());
}

#[test]
fn every_quantity_needs_its_unit() {
    let d = scratch::TmpDir::new("silent", "units");
    std::fs::write(d.join("s.toml"), SMALL).unwrap();
    for (set, field) in [
        ("workload.size=1", "field `size`: a size needs a unit: write \"1B\""),
        ("network.mtu=1000", "`network.mtu` = 1000"),
        ("network.reorder_buffer=65536", "`network.reorder_buffer` = 65536"),
        ("topology.delay=1", "topology.delay"),
        ("topology.host_rate=100", "topology.host_rate"),
    ] {
        let o = braid(&["validate", "s.toml", "--set", set], &d);
        assert_eq!(o.status.code(), Some(2), "{set} was accepted");
        assert!(err(&o).contains(field), "{set}: {}", err(&o));
        assert!(
            err(&o).contains("unit") || err(&o).contains("\"10us\"") || err(&o).contains("Gbps"),
            "{set}: the expected unit is not named: {}",
            err(&o)
        );
    }
    let o = braid(&["validate", "s.toml", "--set", "workload.size=\"1B\""], &d);
    assert!(o.status.success(), "{}", err(&o));
    // A seed for validate, as for run.
    assert!(braid(&["validate", "s.toml", "--seed", "7"], &d).status.success());
}

#[test]
fn faults_name_nodes_and_survive_a_topology_change() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let load = |sets: &[&str]| {
        braid_cli::scenario::load(
            &root.join("examples/spray-slow-spine.toml"),
            &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            None,
        )
        .unwrap()
    };
    // The slow spine is spine0 whatever the number of spines: its four leaf links.
    for spines in [4, 8] {
        let sc = load(&[&format!("topology.spines={spines}")]);
        let names: Vec<(String, String)> = sc
            .link_events
            .iter()
            .map(|e| {
                let l = &sc.topology.links[e.link as usize];
                (
                    sc.topology.nodes[l.a.idx()].name.clone(),
                    sc.topology.nodes[l.b.idx()].name.clone(),
                )
            })
            .collect();
        assert_eq!(names.len(), 4, "{names:?}");
        assert!(
            names.iter().all(|(a, b)| a == "spine0" || b == "spine0"),
            "{spines} spines: {names:?}"
        );
    }
    let d = scratch::TmpDir::new("silent", "faults");
    let with =
        |fault: &str| format!("{SMALL}[[faults]]\nat = \"10us\"\nchange = \"down\"\n{fault}\n");
    std::fs::write(d.join("f.toml"), with("link = \"leaf0-spine1\"")).unwrap();
    let sc = braid_cli::scenario::load(&d.join("f.toml"), &[], None).unwrap();
    let l = &sc.topology.links[sc.link_events[0].link as usize];
    let ends =
        [sc.topology.nodes[l.a.idx()].name.as_str(), sc.topology.nodes[l.b.idx()].name.as_str()];
    assert!(ends.contains(&"leaf0") && ends.contains(&"spine1"), "{ends:?}");
    for (fault, want) in [
        ("link = \"leaf0-spine9\"", "does not name two nodes"),
        ("link = \"leaf0-leaf1\"", "no link joins `leaf0` and `leaf1`"),
        ("nodes = [\"core7\"]", "no node is named `core7`"),
    ] {
        std::fs::write(d.join("f.toml"), with(fault)).unwrap();
        let e = braid_cli::scenario::load(&d.join("f.toml"), &[], None).unwrap_err();
        assert!(e.contains(want), "{fault}: {e}");
    }
    // Numeric ids in a topology changed by --set are named.
    std::fs::write(d.join("f.toml"), with("links = [5]")).unwrap();
    let sc =
        braid_cli::scenario::load(&d.join("f.toml"), &["topology.spines=3".into()], None).unwrap();
    assert!(
        sc.notes.iter().any(|n| n.contains("faults[0]") && n.contains("by number")),
        "{:?}",
        sc.notes
    );
    let sc = braid_cli::scenario::load(&d.join("f.toml"), &[], None).unwrap();
    assert!(sc.notes.is_empty(), "{:?}", sc.notes);
}

#[test]
fn a_sweep_resumes_in_its_own_folder() {
    let d = scratch::TmpDir::new("silent", "resume");
    std::fs::write(d.join("s.toml"), SMALL).unwrap();
    let o = braid(
        &["compare", "s.toml", "--vary", "transport.cc=dcqcn,hpcc", "--out", "c", "--quiet"],
        &d,
    );
    assert!(o.status.success(), "{}", err(&o));
    let before = std::fs::metadata(d.join("c/runs.csv")).unwrap().modified().unwrap();
    let o = braid(&["sweep", "c/plan.toml", "--quiet"], &d);
    assert!(o.status.success(), "{}", err(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("0 run now") && out.contains("2 reused"), "{out}");
    assert!(!d.join("out").exists(), "the sweep wrote elsewhere than its folder");
    assert!(std::fs::metadata(d.join("c/runs.csv")).unwrap().modified().unwrap() >= before);
}

#[test]
fn a_refused_command_leaves_nothing_that_passes_for_a_run() {
    let d = scratch::TmpDir::new("silent", "refused");
    std::fs::write(d.join("s.toml"), SMALL).unwrap();
    // A run refused with exit 2 removes what an earlier run left in its folder, and writes nothing.
    assert!(braid(&["run", "s.toml", "--out", "o", "--quiet"], &d).status.success());
    assert!(d.join("o/summary.json").is_file() && d.join("o/flows.csv").is_file());
    let o =
        braid(&["run", "s.toml", "--out", "o", "--quiet", "--set", "transport.kind=nonesuch"], &d);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    let left: Vec<String> = std::fs::read_dir(d.join("o"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(left.is_empty(), "a refused run left {left:?}");
    // `braid report` on a folder with no run is refused, not an empty page.
    let o = braid(&["report", "o"], &d);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("holds no run"), "{}", err(&o));
    assert!(!d.join("o/index.html").exists());
    // A comparison refused with exit 2 writes nothing: no folder, no plan.toml.
    let o = braid(
        &["compare", "s.toml", "--vary", "transport.kind=roce,nonesuch", "--out", "x/c", "--quiet"],
        &d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(!d.join("x").exists(), "a refused comparison created its folder");
    // A second comparison into the same folder says what it reused and removes the runs of the
    // first that are not in it.
    let o = braid(
        &["compare", "s.toml", "--vary", "transport.cc=dcqcn,hpcc", "--out", "c", "--quiet"],
        &d,
    );
    assert!(o.status.success(), "{}", err(&o));
    let o = braid(
        &["compare", "s.toml", "--vary", "transport.cc=dcqcn,timely", "--out", "c", "--quiet"],
        &d,
    );
    assert!(o.status.success(), "{}", err(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("1 run now, 1 reused"), "{out}");
    assert!(out.contains("removed 1 run folder(s)"), "{out}");
    let runs: Vec<String> = std::fs::read_dir(d.join("c/runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(!runs.iter().any(|r| r.contains("hpcc")), "{runs:?}");
    // A refused comparison into an existing folder leaves its plan as it was.
    let plan = std::fs::read_to_string(d.join("c/plan.toml")).unwrap();
    let o = braid(
        &["compare", "s.toml", "--vary", "transport.kind=roce,nonesuch", "--out", "c", "--quiet"],
        &d,
    );
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(d.join("c/plan.toml")).unwrap(), plan);
}
