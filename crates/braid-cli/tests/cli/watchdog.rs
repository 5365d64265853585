//! The progress watchdog and the run limits (`[run]`): a run that cannot make progress ends with
//! exit code 3, a partial `summary.json` naming the stuck flows and nothing that looks complete;
//! a simulated-time limit ends the same way; bad limits are bad input (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn braid(args: &[&str], out: &Path) -> Output {
    let _ = std::fs::remove_dir_all(out);
    Command::new(env!("CARGO_BIN_EXE_braid"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .arg("run")
        .args(args)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .output()
        .expect("braid runs")
}

fn out_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("braid-watchdog-{}-{name}", std::process::id()))
}

fn summary(out: &Path) -> String {
    std::fs::read_to_string(out.join("summary.json")).expect("a partial summary.json")
}

/// `sim_time_ns` of a summary.json's text.
fn sim_time_ns(summary: &str) -> f64 {
    let after = summary.split("\"sim_time_ns\": ").nth(1).expect("sim_time_ns in summary.json");
    after.split(',').next().unwrap().trim().parse().unwrap()
}

fn files(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out)
        .expect("out dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_network_that_drops_everything_stops_with_exit_3_and_names_the_stuck_flows() {
    let out = out_dir("loss");
    let o = braid(&["examples/quickstart.toml", "--set", "network.loss_rate=1.0"], &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "stderr: {err}");
    assert!(
        err.contains("no progress")
            && err.contains("flow 0:")
            && err.contains("8 of 8 flows incomplete"),
        "{err}"
    );
    let s = summary(&out);
    assert!(s.contains("\"run_end\": \"stalled\""), "{s}");
    assert!(s.contains("\"stuck_flows_total\": 8"), "{s}");
    assert!(s.contains("\"delivered_bytes\": 0"), "{s}");
    // Nothing that looks like a complete run: no flows.csv, no time series.
    assert_eq!(files(&out), vec!["scenario.resolved.toml", "summary.json"]);
    // The default stall timeout (1,000 base RTTs, at least 100 ms) bounds the simulated time.
    let t = sim_time_ns(&s);
    assert!((100e6..120e6).contains(&t), "stopped at {t} ns");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_stall_timeout_is_a_knob() {
    let out = out_dir("stall-knob");
    let o = braid(
        &[
            "examples/quickstart.toml",
            "--set",
            "network.loss_rate=1.0",
            "--set",
            "run.stall_timeout=5ms",
        ],
        &out,
    );
    assert_eq!(o.status.code(), Some(3));
    let s = summary(&out);
    let t = sim_time_ns(&s);
    assert!((5e6..8e6).contains(&t), "stopped at {t} ns");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_simulated_time_limit_ends_with_exit_3() {
    let out = out_dir("limit");
    let o = braid(&["examples/quickstart.toml", "--set", "run.max_sim_time=20us"], &out);
    assert_eq!(o.status.code(), Some(3), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert!(s.contains("\"run_end\": \"max_sim_time\""), "{s}");
    assert!(s.contains("\"stuck_flows\""), "{s}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_run_that_finishes_is_not_touched_by_the_limits() {
    let out = out_dir("fine");
    let o = braid(
        &["examples/quickstart.toml", "--set", "run.max_sim_time=1s", "--set", "run.max_wall=600s"],
        &out,
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    assert!(summary(&out).contains("\"run_end\": \"all_flows_complete\""));
    assert!(out.join("flows.csv").is_file());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_limits_are_bad_input() {
    for (set, word) in [
        ("run.stall_timeout=0s", "run.stall_timeout"),
        ("run.max_wall=fast", "run.max_wall"),
        ("run.nonsense=1", "run.nonsense"),
    ] {
        let out = out_dir("bad");
        let o = braid(&["examples/quickstart.toml", "--set", set], &out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(word), "{set}: {err}");
        assert!(!out.join("summary.json").exists());
    }
}
