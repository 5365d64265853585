//! `braid compare`: variants of a scenario side by side without a plan file. The same variants
//! and seeds give byte-identical `runs.csv` and `compare.csv`; each row is the mean over its
//! seeds of the runs' own `summary.json`; each run's `flows.csv` equals what `braid run` writes
//! for the same overrides; bad `--vary` / `--case` input exits with code 2 and names the problem,
//! and leaves no runs behind; the quickstart plan runs and shows what the README says it shows.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn braid() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_braid"));
    c.current_dir(root());
    c
}

use crate::scratch;
use scratch::TmpDir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> TmpDir {
    TmpDir::new("compare-test", name)
}

fn compare(args: &[&str], out: &Path) -> Output {
    braid().arg("compare").args(args).arg("--out").arg(out).arg("--quiet").output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A summary.json number.
fn field(summary: &str, key: &str) -> f64 {
    let pat = format!("\"{key}\": ");
    let i = summary.find(&pat).unwrap_or_else(|| panic!("no `{key}` in summary")) + pat.len();
    summary[i..].split([',', '\n']).next().unwrap().trim().parse().unwrap()
}

const SPRAY: &str = "examples/spray-slow-spine.toml";

#[test]
fn same_seeds_same_bytes_and_rows_are_means_of_the_runs() {
    let d = tmp("same");
    let args = [
        SPRAY,
        "--vary",
        "transport.kind=rondo,roce",
        "--vary",
        "workload.size=1MB",
        "--seeds",
        "1,2",
    ];
    let (a, b) = (d.join("a"), d.join("b"));
    let oa = compare(&args, &a);
    assert!(oa.status.success(), "{}", text(&oa));
    let ob = compare(&args, &b);
    assert!(ob.status.success(), "{}", text(&ob));
    for f in ["runs.csv", "compare.csv", "compare.txt"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs between two runs"
        );
    }
    let table = String::from_utf8_lossy(&oa.stdout);
    assert!(
        table.contains("transport.kind") && table.contains("rondo") && table.contains("roce"),
        "{table}"
    );
    assert!(table.contains("(each row: the mean of 2 seeds)"), "{table}");
    assert!(
        table.contains("slowdown = FCT / ideal FCT"),
        "the table must say what its slowdown is: {table}"
    );
    for fig in ["fig-slowdown.png", "fig-ood.png", "fig-jct.png", "index.html", "plan.toml"] {
        assert!(a.join(fig).is_file(), "{fig} missing");
    }
    // Each row is the mean of its runs' summary.json.
    let csv = std::fs::read_to_string(a.join("compare.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|h| *h == "fct_slowdown_p99").unwrap();
    for (row, kind) in [(1, "rondo"), (2, "roce")] {
        let cells: Vec<&str> = lines[row].split(',').collect();
        assert_eq!(cells[1], kind);
        let mean: f64 = (1..=2)
            .map(|s| {
                let p = a.join(format!(
                    "runs/transport.kind={kind}__workload.size=1MB__seed={s}/summary.json"
                ));
                field(&std::fs::read_to_string(p).unwrap(), "fct_slowdown_p99")
            })
            .sum::<f64>()
            / 2.0;
        let got: f64 = cells[col].parse().unwrap();
        // compare.csv rounds to 3 decimals, as every CSV Braid writes.
        assert!((got - mean).abs() <= 0.0005 + 1e-9, "{kind}: table {got}, mean of runs {mean}");
    }
    // A run of the comparison is the run `braid run` makes with the same overrides.
    let single = d.join("single");
    let o = braid()
        .args([
            "run",
            SPRAY,
            "--set",
            "transport.kind=rondo",
            "--set",
            "workload.size=\"1MB\"",
            "--seed",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(&single)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read(single.join("flows.csv")).unwrap(),
        std::fs::read(a.join("runs/transport.kind=rondo__workload.size=1MB__seed=2/flows.csv"))
            .unwrap()
    );
    // The written plan runs again with `braid sweep`, to the same runs.csv.
    let o = braid()
        .arg("sweep")
        .arg(a.join("plan.toml"))
        .arg("--out")
        .arg(d.join("swept"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        std::fs::read(a.join("runs.csv")).unwrap(),
        std::fs::read(d.join("swept/runs.csv")).unwrap()
    );
}

#[test]
fn named_cases_run_as_labelled_rows() {
    let d = tmp("cases");
    let o = compare(
        &[
            SPRAY,
            "--case",
            "Rondo: transport.kind=rondo",
            "--case",
            "ECMP+HPCC: transport.kind=roce; transport.cc=hpcc",
            "--vary",
            "workload.size=256KB",
        ],
        &d.join("o"),
    );
    assert!(o.status.success(), "{}", text(&o));
    let csv = std::fs::read_to_string(d.join("o/compare.csv")).unwrap();
    assert!(csv.contains(",Rondo,1,") && csv.contains(",ECMP+HPCC,1,"), "{csv}");
    let resolved = std::fs::read_to_string(
        d.join("o/runs/ECMP+HPCC__workload.size=256KB/scenario.resolved.toml"),
    )
    .unwrap();
    assert!(resolved.contains("cc = \"hpcc\""), "{resolved}");
}

#[test]
fn bad_input_exits_2_and_names_the_problem() {
    let d = tmp("bad");
    let cases: &[(&[&str], &str)] = &[
        (&[SPRAY, "--vary", "transport.kind=rondo,nope"], "nope"),
        (&[SPRAY, "--vary", "transport.bogus=1,2"], "transport.bogus"),
        (&[SPRAY, "--vary", "transport.kind"], "table.field=value1"),
        (&[SPRAY, "--vary", "transport.kind=rondo,,roce"], "empty value"),
        (
            &[SPRAY, "--vary", "transport.kind=rondo", "--vary", "transport.kind=roce"],
            "given twice",
        ),
        (&[SPRAY, "--vary", "workload.size=-1MB"], "workload.size"),
        (&[SPRAY, "--case", "no label here"], "LABEL"),
        (&[SPRAY, "--vary", "transport.kind=rondo", "--seeds", "x"], "--seeds"),
        (&[SPRAY], "nothing to compare"),
        (&["examples/plans/quickstart.toml", "--vary", "transport.kind=rondo"], "sweep plan"),
        (&["examples/does-not-exist.toml", "--vary", "transport.kind=rondo"], "does-not-exist"),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let out = d.join(format!("o{i}"));
        let o = compare(args, &out);
        let t = text(&o);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: expected exit 2, got {:?}: {t}",
            o.status.code()
        );
        assert!(t.contains(want), "{args:?}: the message should name `{want}`: {t}");
        assert!(!t.contains("panicked"), "{args:?}: {t}");
        assert!(!out.join("runs").exists(), "{args:?}: runs were started despite bad input");
    }
}

#[test]
fn quickstart_shows_rondo_and_lcmp_ahead() {
    let d = tmp("quickstart");
    let out = d.join("qs");
    let o = compare(&["examples/plans/quickstart.toml"], &out);
    assert!(o.status.success(), "{}", text(&o));
    let csv = std::fs::read_to_string(out.join("compare.csv")).unwrap();
    let rows: Vec<Vec<String>> =
        csv.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let col = |name: &str| {
        rows[0].iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))
    };
    let get = |label: &str, name: &str| -> f64 {
        let r =
            rows.iter().find(|r| r[1] == label).unwrap_or_else(|| panic!("no row {label}: {csv}"));
        r[col(name)].parse().unwrap()
    };
    // Inside the DC (one spine 10 µs slower): Rondo finishes first with the lowest tail and
    // reorders less than the other sprayers; ECMP does not reorder at all.
    for other in ["RR spraying", "UET", "ECMP+DCQCN"] {
        assert!(get("Rondo", "jct_ms") < get(other, "jct_ms"), "JCT: Rondo vs {other}: {csv}");
        assert!(
            get("Rondo", "fct_slowdown_p99") < get(other, "fct_slowdown_p99"),
            "p99: Rondo vs {other}: {csv}"
        );
    }
    // compare.csv has no mean OOD column; runs.csv has every summary field, the case in column 1.
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let run_rows: Vec<Vec<&str>> = runs.lines().map(|l| l.split(',').collect()).collect();
    let mean_col =
        run_rows[0].iter().position(|h| *h == "nic_ood_mean").expect("runs.csv has nic_ood_mean");
    let ood_mean = |label: &str| -> f64 {
        let r = run_rows
            .iter()
            .find(|r| r[1] == label)
            .unwrap_or_else(|| panic!("no run {label}: {runs}"));
        r[mean_col].parse().unwrap()
    };
    // OOD ≈ R·ΔD for a sprayer that ignores the slow spine (Rondo §3, Eq 3); Rondo's scheduler
    // compensates ΔD once it has measured it, so its mean OOD is a fraction of theirs. Its p99 and
    // max come from the first round trip (W0 packets on the slow spine leave before any delay
    // sample), which a sender cannot avoid without knowing the delay beforehand, so they are
    // only required to be lower.
    for other in ["RR spraying", "UET"] {
        assert!(ood_mean("Rondo") * 4.0 <= ood_mean(other), "OOD mean: Rondo vs {other}: {runs}");
        assert!(
            get("Rondo", "nic_ood_p99") < get(other, "nic_ood_p99"),
            "OOD p99: Rondo vs {other}: {csv}"
        );
    }
    assert_eq!(get("ECMP+DCQCN", "nic_ood_max"), 0.0);
    // Between DCs: LCMP's median and tail slowdown below ECMP's.
    assert!(get("LCMP", "fct_slowdown_p50") < get("ECMP", "fct_slowdown_p50"), "{csv}");
    assert!(get("LCMP", "fct_slowdown_p99") * 2.0 < get("ECMP", "fct_slowdown_p99"), "{csv}");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("Comparison (compare.csv)") && html.contains("What to look at"),
        "index.html lacks the table"
    );
    for f in ["fig-spray-ood.png", "fig-spray-jct.png", "fig-inter-dc-slowdown.png"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
}
