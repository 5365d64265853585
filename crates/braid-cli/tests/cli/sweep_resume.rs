//! `braid sweep`: a plan's runs land in one folder each plus `runs.csv`; re-running skips the
//! finished runs; two sweeps of the same plan give byte-identical `runs.csv` (wall-clock fields
//! are left out of it); bad plans exit with code 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn braid() -> Command {
    Command::new(env!("CARGO_BIN_EXE_braid"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("braid-sweep-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// A small plan: quickstart (8 hosts, 1 MB flows) × 2 CCs × 2 delays × 2 seeds = 8 runs.
fn write_plan(dir: &Path) -> PathBuf {
    let p = dir.join("plan.toml");
    std::fs::write(
        &p,
        format!(
            "scenario = {:?}\nseeds = \"1..2\"\nset = {{ \"workload.size\" = \"256KB\" }}\n\n[grid]\n\"transport.cc\" = [\"dcqcn\", \"hpcc\"]\n\"topology.delay\" = \"1us..2us step 1us\"\n",
            examples().join("quickstart.toml").to_string_lossy()
        ),
    )
    .unwrap();
    p
}

fn sweep(plan: &Path, out: &Path, jobs: &str) -> String {
    let o = braid()
        .args(["sweep"])
        .arg(plan)
        .arg("--out")
        .arg(out)
        .args(["--jobs", jobs, "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "sweep failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn sweep_writes_runs_and_resumes() {
    let d = tmp("resume");
    let plan = write_plan(&d);
    let out = d.join("out");
    let msg = sweep(&plan, &out, "2");
    assert!(
        msg.contains("8 runs (8 run now, 0 reused: complete with the same resolved scenario)"),
        "{msg}"
    );
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 9, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(&header[..5], ["run", "scenario_file", "topology.delay", "transport.cc", "status"]);
    for f in ["scenario", "seed", "sim_time_ns", "fct_slowdown_p99", "nic_ood_max", "goodput_bps"] {
        assert!(header.contains(&f), "runs.csv lacks `{f}`: {}", lines[0]);
    }
    for f in braid_cli::sweep::WALL_CLOCK_FIELDS {
        assert!(!header.contains(f), "runs.csv must not have the wall-clock field `{f}`");
    }
    assert!(
        lines[1].starts_with("topology.delay=1us__transport.cc=dcqcn__seed=1,"),
        "{}",
        lines[1]
    );
    assert!(lines[1..].iter().all(|l| l.split(',').nth(4) == Some("ok")), "{csv}");
    for l in &lines[1..] {
        let run = l.split(',').next().unwrap();
        assert!(out.join("runs").join(run).join("summary.json").is_file());
        assert!(out.join("runs").join(run).join("flows.csv").is_file());
    }
    // Re-running skips every finished run and leaves their outputs alone.
    let first = out.join("runs/topology.delay=1us__transport.cc=dcqcn__seed=1/summary.json");
    let m0 = std::fs::metadata(&first).unwrap().modified().unwrap();
    let msg = sweep(&plan, &out, "2");
    assert!(
        msg.contains("8 runs (0 run now, 8 reused: complete with the same resolved scenario)"),
        "{msg}"
    );
    assert_eq!(std::fs::metadata(&first).unwrap().modified().unwrap(), m0);
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).unwrap(), csv);
    // An interrupted run (no summary.json) and a changed scenario are run again.
    std::fs::remove_file(&first).unwrap();
    let msg = sweep(&plan, &out, "1");
    assert!(
        msg.contains("8 runs (1 run now, 7 reused: complete with the same resolved scenario)"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("runs.csv")).unwrap(),
        csv,
        "a resumed sweep gives the same runs.csv"
    );
    let p2 = std::fs::read_to_string(&plan).unwrap().replace("256KB", "128KB");
    std::fs::write(&plan, p2).unwrap();
    let msg = sweep(&plan, &out, "2");
    assert!(
        msg.contains("8 runs (8 run now, 0 reused: complete with the same resolved scenario)"),
        "a changed plan re-runs: {msg}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sweep_same_plan_same_runs_csv() {
    let d = tmp("same");
    let plan = write_plan(&d);
    sweep(&plan, &d.join("a"), "2");
    sweep(&plan, &d.join("b"), "1");
    let a = std::fs::read_to_string(d.join("a/runs.csv")).unwrap();
    let b = std::fs::read_to_string(d.join("b/runs.csv")).unwrap();
    assert_eq!(a, b, "two sweeps of one plan (2 jobs and 1 job) must give identical runs.csv");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sweep_cases_and_scenario_grid() {
    let d = tmp("cases");
    let ex = examples();
    let p = d.join("plan.toml");
    std::fs::write(
        &p,
        format!(
            "scenario = {q:?}\nset = {{ \"workload.size\" = \"128KB\" }}\n[grid]\nscenario = [{q:?}, {c:?}]\n[[case]]\nlabel = \"DCQCN\"\nset = {{ \"transport.cc\" = \"dcqcn\" }}\n[[case]]\nlabel = \"HPCC\"\nset = {{ \"transport.cc\" = \"hpcc\" }}\n",
            q = ex.join("quickstart.toml").to_string_lossy(),
            c = ex.join("cc-incast.toml").to_string_lossy()
        ),
    )
    .unwrap();
    let out = d.join("out");
    sweep(&p, &out, "2");
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let names: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(
        names,
        [
            "DCQCN__scenario=quickstart",
            "DCQCN__scenario=cc-incast",
            "HPCC__scenario=quickstart",
            "HPCC__scenario=cc-incast"
        ]
    );
    assert!(csv.lines().next().unwrap().starts_with("run,case,scenario_file,status,"), "{csv}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sweep_bad_plans_exit_2() {
    let d = tmp("bad");
    let cases = [
        ("nofile.toml", None),
        ("unknown.toml", Some("scenario = \"x.toml\"\nbogus = 1\n")),
        (
            "range.toml",
            Some("scenario = \"x.toml\"\n[grid]\n\"topology.delay\" = \"1us..2ms step 1us\"\n"),
        ),
        (
            "badrun.toml",
            Some(&*Box::leak(
                format!(
                    "scenario = {:?}\n[grid]\n\"transport.cc\" = [\"dcqcn\", \"nope\"]\n",
                    examples().join("quickstart.toml").to_string_lossy()
                )
                .into_boxed_str(),
            )),
        ),
    ];
    for (name, text) in cases {
        let p = d.join(name);
        if let Some(t) = text {
            std::fs::write(&p, t).unwrap();
        }
        let o = braid()
            .arg("sweep")
            .arg(&p)
            .arg("--out")
            .arg(d.join("out"))
            .arg("--quiet")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(
            !d.join("out/runs.csv").exists(),
            "{name}: a rejected plan must not leave runs.csv"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sweep_plan_with_figures_draws_them() {
    let d = tmp("figs");
    let plan = write_plan(&d);
    let mut text = std::fs::read_to_string(&plan).unwrap();
    text.push_str(
        "\n[[figure]]\nname = \"p99\"\nkind = \"line\"\nx = \"topology.delay\"\nx_unit = \"us\"\ny = [\"fct_slowdown_p99\"]\nseries = \"transport.cc\"\nx_label = \"link delay (µs)\"\ny_label = \"p99 FCT slowdown\"\n\n[[figure]]\nname = \"cdf\"\nkind = \"cdf\"\ncolumn = \"slowdown\"\nseries = \"transport.cc\"\n",
    );
    std::fs::write(&plan, text).unwrap();
    let out = d.join("out");
    sweep(&plan, &out, "2");
    for f in ["fig-p99.png", "fig-p99.svg", "fig-cdf.png", "fig-cdf.svg", "index.html"] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 100, "{f}");
    }
    // The figure's data: one line per CC, a point per delay, the mean over the two seeds.
    let csv = std::fs::read_to_string(out.join("fig-p99.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[1].starts_with(",cc=dcqcn,1,"), "{csv}");
    let _ = std::fs::remove_dir_all(&d);
}
