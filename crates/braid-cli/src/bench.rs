//! `braid bench`: fixed scenarios that measure the simulator's speed, the same ones the best
//! existing packet simulator is measured on here (htsim; BENCHMARKS.md, "Per core against htsim"):
//! (a) permutation on a k=8 fat-tree (128 hosts, 100 Gb/s, 1 µs links, MTU 4 KB, one-BDP queues)
//! with 2 MB flows; (b) the same with 16 MB flows; (c) 32-to-1 incast of 8 MB flows; (d)
//! permutation on a 1024-host fat-tree (k=16) with 2 MB flows.
//!
//! (a), (b) and (d) also run with UET (NSCC + REPS) and with Rondo in place of RoCE
//! (`…-uet`, `…-rondo`: only `[transport]` replaced), since a simulator's speed with full
//! multipath transports is what a researcher pays for; (b) also runs in the parallel engine
//! (`…-t1`, `…-t2`: `run.threads`, `docs/parallel.md`), whose 2-thread speed-up is the ratio of
//! the two.
//!
//! `braid bench --scale` runs the scale curve instead: a 1 MB permutation and one round of a
//! pairwise-exchange all-to-all on fat-trees of k = 8, 16, 32, 48 and 64 (128 to 65,536 hosts),
//! sequentially and on 2 threads, and adds bytes of peak memory per host to the table.
//!
//! Each scenario runs in a child process so that its peak memory (VmHWM) is its own. `wall_s` is
//! the run's event loop (`summary.json`'s `wall_s`), which the rates divide by; `setup_s` is the
//! rest of the child's run, building the network, routes and flows before it and the summary
//! after. Figures are printed, never asserted.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use braid_metrics::Value;

use crate::run::run;
use crate::scenario;

const A: &str = include_str!("../bench/a-permutation-k8-2MB.toml");
const B: &str = include_str!("../bench/b-permutation-k8-16MB.toml");
const C: &str = include_str!("../bench/c-incast-32to1-8MB.toml");
const D: &str = include_str!("../bench/d-permutation-k16-2MB.toml");
const SCALE_PERM: &str = include_str!("../bench/scale-permutation-1MB.toml");
const SCALE_A2A: &str = include_str!("../bench/scale-a2a-round-1MB.toml");
const UET: &[&str] = &["transport.kind=uet"];
const RONDO: &[&str] = &["transport.kind=rondo"];

/// The benchmark scenarios: (name, description, scenario text, `--set` overrides).
pub const SCENARIOS: &[(&str, &str, &str, &[&str])] = &[
    ("a-permutation-k8-2MB", "permutation, k=8 fat-tree (128 hosts), 2 MB flows", A, &[]),
    ("a-permutation-k8-2MB-uet", "(a) with UET (NSCC + REPS)", A, UET),
    ("a-permutation-k8-2MB-rondo", "(a) with Rondo", A, RONDO),
    ("b-permutation-k8-16MB", "permutation, k=8 fat-tree (128 hosts), 16 MB flows", B, &[]),
    ("b-permutation-k8-16MB-uet", "(b) with UET", B, UET),
    ("b-permutation-k8-16MB-rondo", "(b) with Rondo", B, RONDO),
    ("c-incast-32to1-8MB", "32-to-1 incast, k=8 fat-tree, 8 MB flows", C, &[]),
    ("d-permutation-k16-2MB", "permutation, k=16 fat-tree (1024 hosts), 2 MB flows", D, &[]),
    ("d-permutation-k16-2MB-uet", "(d) with UET", D, UET),
    ("d-permutation-k16-2MB-rondo", "(d) with Rondo", D, RONDO),
    (
        "b-permutation-k8-16MB-t1",
        "(b) in the parallel engine on 1 thread (docs/parallel.md)",
        B,
        &["run.threads=1"],
    ),
    ("b-permutation-k8-16MB-t2", "(b) on 2 threads (same outputs as -t1)", B, &["run.threads=2"]),
    (
        "b-permutation-k8-16MB-rondo-t2",
        "(b) with Rondo on 2 threads",
        B,
        &["transport.kind=rondo", "run.threads=2"],
    ),
];

/// The scale curve (`braid bench --scale`): (name, description, scenario text, `--set` overrides).
pub const SCALE_SCENARIOS: &[(&str, &str, &str, &[&str])] = &[
    ("scale-permutation-k8", "1 MB permutation, k = 8 (128 hosts)", SCALE_PERM, &["topology.k=8"]),
    (
        "scale-permutation-k8-t2",
        "the same on 2 threads",
        SCALE_PERM,
        &["topology.k=8", "run.threads=2"],
    ),
    ("scale-permutation-k16", "k = 16 (1,024 hosts)", SCALE_PERM, &["topology.k=16"]),
    (
        "scale-permutation-k16-t2",
        "the same on 2 threads",
        SCALE_PERM,
        &["topology.k=16", "run.threads=2"],
    ),
    ("scale-permutation-k32", "k = 32 (8,192 hosts)", SCALE_PERM, &["topology.k=32"]),
    (
        "scale-permutation-k32-t2",
        "the same on 2 threads",
        SCALE_PERM,
        &["topology.k=32", "run.threads=2"],
    ),
    ("scale-permutation-k48", "k = 48 (27,648 hosts)", SCALE_PERM, &["topology.k=48"]),
    (
        "scale-permutation-k48-t2",
        "the same on 2 threads",
        SCALE_PERM,
        &["topology.k=48", "run.threads=2"],
    ),
    ("scale-permutation-k64", "k = 64 (65,536 hosts)", SCALE_PERM, &["topology.k=64"]),
    (
        "scale-permutation-k64-t2",
        "the same on 2 threads",
        SCALE_PERM,
        &["topology.k=64", "run.threads=2"],
    ),
    (
        "scale-a2a-round-k8",
        "one pairwise all-to-all round of 1 MB, k = 8",
        SCALE_A2A,
        &["topology.k=8"],
    ),
    (
        "scale-a2a-round-k8-t2",
        "the same on 2 threads",
        SCALE_A2A,
        &["topology.k=8", "run.threads=2"],
    ),
    ("scale-a2a-round-k16", "k = 16", SCALE_A2A, &["topology.k=16"]),
    (
        "scale-a2a-round-k16-t2",
        "the same on 2 threads",
        SCALE_A2A,
        &["topology.k=16", "run.threads=2"],
    ),
    ("scale-a2a-round-k32", "k = 32", SCALE_A2A, &["topology.k=32"]),
    (
        "scale-a2a-round-k32-t2",
        "the same on 2 threads",
        SCALE_A2A,
        &["topology.k=32", "run.threads=2"],
    ),
    ("scale-a2a-round-k48", "k = 48", SCALE_A2A, &["topology.k=48"]),
    (
        "scale-a2a-round-k48-t2",
        "the same on 2 threads",
        SCALE_A2A,
        &["topology.k=48", "run.threads=2"],
    ),
    ("scale-a2a-round-k64", "k = 64", SCALE_A2A, &["topology.k=64"]),
    (
        "scale-a2a-round-k64-t2",
        "the same on 2 threads",
        SCALE_A2A,
        &["topology.k=64", "run.threads=2"],
    ),
];

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Which build the figures come from, printed with them so that figures of two builds are never
/// compared by mistake: `debug` (not a speed figure) or `release`, followed by what the compiler
/// was given (`build.rs`): `+pgo` for the profile-guided build of `scripts/build-pgo.sh`
/// (`+pgo-instrumented` for its first stage) and `+inlineN` for the inliner threshold of
/// `.cargo/config.toml` (absent when a `RUSTFLAGS` variable replaced it). The default build is
/// `release+inline1000`.
pub fn build_label() -> String {
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!("{profile}{}", env!("BRAID_BUILD_FLAGS"))
}

/// Run one scenario in this process and print one machine-readable line (the parent of
/// [`run_all`] reads it, and `scripts/instructions-per-hop.sh`), ending with the build.
/// `extra` overrides fields after the scenario's own settings (`braid bench --set`).
pub fn run_child(name: &str, extra: &[String]) -> ExitCode {
    let Some((_, _, text, sets)) = SCENARIOS.iter().chain(SCALE_SCENARIOS).find(|s| s.0 == name)
    else {
        eprintln!("error: unknown bench scenario `{name}`");
        return ExitCode::from(2);
    };
    let sets: Vec<String> =
        sets.iter().map(|s| s.to_string()).chain(extra.iter().cloned()).collect();
    let sc = match scenario::parse(text, Path::new("."), &sets, None) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: bench scenario `{name}`: {e}");
            return ExitCode::from(2);
        }
    };
    let t0 = Instant::now();
    let r = match run(&sc, false) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let total_s = t0.elapsed().as_secs_f64();
    let f = |k: &str| match r.summary.get(k) {
        Some(Value::Int(i)) => *i as f64,
        Some(Value::Float(x)) => *x,
        _ => 0.0,
    };
    // The event loop's own time, as `summary.json` reports it; the build around it apart.
    let wall_s = f("wall_s");
    println!(
        "BENCH {} sim_ns={} events={} hops={} wall_s={:.3} setup_s={:.3} peak_kib={} flows={}/{} goodput_bps={} hosts={} departures={} build={}",
        name,
        f("sim_time_ns"),
        f("events"),
        f("packet_hops"),
        wall_s,
        (total_s - wall_s).max(0.0),
        peak_rss_kib().unwrap_or(0),
        f("flows_completed"),
        f("flows_total"),
        f("goodput_bps"),
        sc.topology.hosts().len(),
        if sc.limits.departures_as_events { "events" } else { "on-demand" },
        build_label(),
    );
    ExitCode::SUCCESS
}

/// Run every scenario (or those matching `only`) in child processes and print a table: the
/// fixed benchmarks, or with `scale` the scale curve (with peak memory per host). `extra`
/// overrides fields of every scenario (`braid bench --set`), printed in the header.
pub fn run_all(only: Option<&str>, scale: bool, extra: &[String]) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot find the braid executable: {e}");
            return ExitCode::from(1);
        }
    };
    println!("build: {}", build_label());
    if !extra.is_empty() {
        println!("with: {}", extra.join("  "));
    }
    println!(
        "wall s: the event loop (summary.json's wall_s), which the rates divide by; setup s: building the run around it"
    );
    println!(
        "{:<31} {:>10} {:>12} {:>12} {:>8} {:>8} {:>12} {:>14} {:>9} {:>10}",
        "scenario",
        "sim time",
        "events",
        "pkt-hops",
        "setup s",
        "wall s",
        "events/s",
        "pkt-hops/s",
        "peak MiB",
        "KiB/host"
    );
    let mut ok = true;
    for (name, _desc, _, _) in if scale { SCALE_SCENARIOS } else { SCENARIOS } {
        if only.is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let mut cmd = Command::new(&exe);
        cmd.args(["bench", "--child", name]);
        for s in extra {
            cmd.args(["--set", s]);
        }
        let out = cmd.output();
        let out = match out {
            Ok(o) if o.status.success() => o,
            Ok(o) => {
                eprintln!("{name}: failed: {}", String::from_utf8_lossy(&o.stderr));
                ok = false;
                continue;
            }
            Err(e) => {
                eprintln!("{name}: cannot run: {e}");
                ok = false;
                continue;
            }
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(line) = text.lines().find(|l| l.starts_with("BENCH ")) else {
            eprintln!("{name}: no result line");
            ok = false;
            continue;
        };
        let get = |k: &str| -> f64 {
            line.split_whitespace()
                .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
                .and_then(|v| v.split('/').next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0)
        };
        let wall = get("wall_s").max(1e-9);
        println!(
            "{:<31} {:>8.3}ms {:>12} {:>12} {:>8.2} {:>8.2} {:>12.0} {:>14.0} {:>9.1} {:>10.1}",
            name,
            get("sim_ns") / 1e6,
            get("events"),
            get("hops"),
            get("setup_s"),
            wall,
            get("events") / wall,
            get("hops") / wall,
            get("peak_kib") / 1024.0,
            get("peak_kib") / get("hosts").max(1.0)
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every benchmark and scale point parses, and the scale points are the fat-trees they name.
    #[test]
    fn every_bench_scenario_parses() {
        for (name, _, text, sets) in SCENARIOS.iter().chain(SCALE_SCENARIOS) {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let sc = scenario::parse(text, Path::new("."), &sets, None)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Some(k) = name
                .split("-k")
                .nth(1)
                .and_then(|k| k.split('-').next())
                .and_then(|k| k.parse::<usize>().ok())
            {
                if name.starts_with("scale-") {
                    assert_eq!(sc.topology.hosts().len(), k * k * k / 4, "{name}");
                }
            }
        }
    }
}
