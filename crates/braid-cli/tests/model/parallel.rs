//! `braid run --threads N` (`docs/parallel.md`): the same bytes out for every thread count, the
//! partitioning really splits the network, the parallel engine agrees with the sequential one
//! within the noise of a different tie order, and what it cannot split is refused clearly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Summary lines that hold wall-clock figures.
const WALL_CLOCK_KEYS: &[&str] = &["\"wall_s\"", "\"events_per_sec\"", "\"packet_hops_per_sec\""];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// Run `example` with `args`; returns (exit code, stderr, file → bytes as compared). The
/// resolved scenario is left out (it records `run.threads`), and `summary.json` loses its
/// wall-clock lines.
fn run(example: &str, label: &str, args: &[&str]) -> (i32, String, BTreeMap<String, Vec<u8>>) {
    let out = std::env::temp_dir()
        .join(format!("braid-parallel-{}-{example}-{label}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .current_dir(repo_root())
        .args(["run", &format!("examples/{example}.toml"), "--quiet", "--out"])
        .arg(&out)
        .args(args)
        .output()
        .expect("braid runs");
    let mut files = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir(&out) {
        for e in dir {
            let p = e.expect("entry").path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name == "scenario.resolved.toml" {
                continue;
            }
            let mut bytes = std::fs::read(&p).expect("read output");
            if name == "summary.json" {
                let text = String::from_utf8(bytes).expect("UTF-8");
                bytes = text
                    .lines()
                    .filter(|l| !WALL_CLOCK_KEYS.iter().any(|k| l.trim_start().starts_with(k)))
                    .flat_map(|l| [l, "\n"])
                    .collect::<String>()
                    .into_bytes();
            }
            files.insert(name, bytes);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned(), files)
}

/// The partition count `braid` reports on stderr.
fn partitions(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("parallel: "))
        .unwrap_or_else(|| panic!("no `parallel:` line in\n{stderr}"));
    line["parallel: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .expect("a partition count")
}

fn summary_field(files: &BTreeMap<String, Vec<u8>>, key: &str) -> f64 {
    let text = std::str::from_utf8(&files["summary.json"]).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("\"{key}\"")))
        .unwrap_or_else(|| panic!("no {key}"));
    line.split(':')
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches(',')
        .parse()
        .unwrap_or_else(|_| panic!("{key} is a number"))
}

/// `files` without the summary's `events` count: the work of the engine, not an output of the
/// model (with departures on demand, a port on a link cut between partitions keeps its `TxDone`
/// events, so the count depends on N; `docs/parallel.md`).
fn model_outputs(files: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    let mut files = files.clone();
    if let Some(summary) = files.get_mut("summary.json") {
        let text = std::str::from_utf8(summary).expect("UTF-8");
        *summary = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("\"events\""))
            .flat_map(|l| [l, "\n"])
            .collect::<String>()
            .into_bytes();
    }
    files
}

/// Every output file of `example` (the summary's `events` count aside: [`model_outputs`]) is the
/// same bytes at 1, 2 and 3 threads and with 2 threads sharing 4 partitions, and those really
/// run more than one partition.
fn same_bytes(example: &str) {
    same_bytes_with(example, &[]);
}

/// [`same_bytes`] with `extra` arguments to every run.
fn same_bytes_with(example: &str, extra: &[&str]) {
    fn join<'a>(args: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        args.iter().chain(extra).copied().collect()
    }
    let with = |args: &[&'static str]| join(args, extra);
    let (rc1, err1, one) = run(example, "t1", &with(&["--threads", "1"]));
    let one = model_outputs(&one);
    assert_eq!(rc1, 0, "{example} --threads 1 failed:\n{err1}");
    assert_eq!(partitions(&err1), 1);
    assert!(
        one.contains_key("flows.csv") && one.contains_key("summary.json"),
        "{example}: outputs missing"
    );
    assert!(
        std::str::from_utf8(&one["summary.json"]).unwrap().contains("\"conservation_ok\": true"),
        "{example}: packets not conserved"
    );
    // 2 and 3 threads, and 2 threads sharing 4 partitions (taken largest first, window by window).
    // (3 threads on CI's 2 cores, twice: a scheduling race shows up as a difference.)
    for args in [
        &["--threads", "2"][..],
        &["--threads", "3"],
        &["--threads", "3"],
        &["--threads", "2", "--set", "run.partitions=4"],
    ] {
        let n = args.join(" ");
        let (rc, err, many) = run(example, &n.replace([' ', '='], "_"), &with(args));
        let many = model_outputs(&many);
        assert_eq!(rc, 0, "{example} {n} failed:\n{err}");
        assert!(
            partitions(&err) >= 2,
            "{example} {n} ran in one partition: the test would prove nothing"
        );
        assert_eq!(
            one.keys().collect::<Vec<_>>(),
            many.keys().collect::<Vec<_>>(),
            "{example}: different output files"
        );
        for (name, bytes) in &one {
            assert!(bytes == &many[name], "{example}: {name} differs between --threads 1 and {n}");
        }
    }
}

#[test]
fn same_bytes_in_a_clos_with_spraying_and_trimming() {
    // Pods of a fat-tree; Rondo's scheduler and paths series; UET with trimming.
    for ex in ["rondo-incast", "uet-htsim"] {
        same_bytes(ex);
    }
}

/// The canonical order of equal-time events (the default, `docs/architecture.md`) keys each
/// event by itself, never by the partition that scheduled it: the same bytes for every N, and,
/// since an unthreaded run under it is the parallel engine with one partition, the same bytes
/// without `--threads`. The insertion order (`run.order = "insertion"`, with departures as
/// events) keys a parallel run's events by origin node: the same bytes for every N as well, but
/// not those of the sequential queue; with departures on demand it is refused.
#[test]
fn same_bytes_under_the_canonical_order() {
    let before = ["--set", "run.order=\"insertion\"", "--set", "run.departures=\"events\""];
    same_bytes_with("incast", &before);
    let (rc, err, _) =
        run("incast", "insertion-on-demand", &["--threads", "2", before[0], before[1]]);
    assert_eq!(rc, 2, "the insertion order with departures on demand in partitions is refused");
    assert!(err.contains("run.departures"), "the error names the setting:\n{err}");
    for ex in ["rondo-incast", "incast", "lcmp-tiny"] {
        let (rc, err, unthreaded) = run(ex, "unthreaded", &[]);
        let unthreaded = model_outputs(&unthreaded);
        assert_eq!(rc, 0, "{ex} unthreaded failed:\n{err}");
        assert!(!err.contains("parallel: "), "{ex}: an unthreaded run reports partitions:\n{err}");
        let (rc, err, two) = run(ex, "canonical-t2", &["--threads", "2"]);
        let two = model_outputs(&two);
        assert_eq!(rc, 0, "{ex} --threads 2 failed:\n{err}");
        assert_eq!(unthreaded.keys().collect::<Vec<_>>(), two.keys().collect::<Vec<_>>());
        for (name, bytes) in &unthreaded {
            assert!(
                bytes == &two[name],
                "{ex}: {name} differs between no --threads and --threads 2"
            );
        }
    }
}

/// Departures on demand in a parallel run (ports whose far end is in another partition keep
/// their `TxDone`s): under the canonical order, at 1, 2 and 3 threads, the same bytes as
/// departures as events, with fewer events. The event count is the one figure that differs,
/// between the engines and with N (a cut link's port keeps its `TxDone`s).
#[test]
fn departures_on_demand_in_partitions_are_the_same_bytes() {
    let canonical = ["--set", "run.order=\"canonical\""];
    let on_demand = ["--set", "run.departures=\"on-demand\""];
    let as_events = ["--set", "run.departures=\"events\""];
    let run_without_events = |ex: &str, label: &str, args: &[&str]| {
        let (rc, err, mut files) = run(ex, label, args);
        assert_eq!(rc, 0, "{ex} {args:?} failed:\n{err}");
        let events = summary_field(&files, "events");
        let summary = std::str::from_utf8(&files["summary.json"]).unwrap().to_string();
        let kept: String = summary
            .lines()
            .filter(|l| !l.trim_start().starts_with("\"events\""))
            .flat_map(|l| [l, "\n"])
            .collect();
        files.insert("summary.json".into(), kept.into_bytes());
        (events, files)
    };
    for ex in ["incast", "uet-htsim"] {
        let args: Vec<&str> =
            ["--threads", "2"].iter().chain(&canonical).chain(&as_events).copied().collect();
        let (ev_events, ev_files) = run_without_events(ex, "events-t2", &args);
        for n in ["1", "2", "3"] {
            let args: Vec<&str> =
                ["--threads", n].iter().chain(&canonical).chain(&on_demand).copied().collect();
            let (od_events, od_files) = run_without_events(ex, &format!("on-demand-t{n}"), &args);
            assert_eq!(ev_files.keys().collect::<Vec<_>>(), od_files.keys().collect::<Vec<_>>());
            for (name, bytes) in &ev_files {
                assert!(
                    bytes == &od_files[name],
                    "{ex}: {name} differs between departures as events (2 threads) and on demand ({n})"
                );
            }
            assert!(
                od_events < ev_events,
                "{ex} on {n} threads: {od_events} events on demand, {ev_events} as events"
            );
        }
    }
}

#[test]
fn same_bytes_in_leaf_spine_networks_with_pfc_and_link_changes() {
    // Leaves with their hosts per partition; DCQCN with PFC; scheduled link changes.
    for ex in ["incast", "all-to-all", "spray-slow-spine", "heterogeneity"] {
        same_bytes(ex);
    }
}

#[test]
fn same_bytes_between_datacenters_with_lcmp() {
    // A datacenter per partition: LCMP's monitor timers, its decision counters and DCI links.
    same_bytes("lcmp-tiny");
}

/// Under the engine before the canonical order (`run.order = "insertion"`, departures as events)
/// the parallel engine orders equal-time events differently from the sequential queue, nothing
/// else: the same flows complete, and FCTs and queues agree within a few per cent.
#[test]
fn parallel_engine_agrees_with_the_sequential_queue() {
    let before = ["--set", "run.order=\"insertion\"", "--set", "run.departures=\"events\""];
    for ex in ["permutation", "rondo-incast", "lcmp-tiny"] {
        let (rc_s, err_s, seq) = run(ex, "seq", &before);
        let mut threaded = vec!["--threads", "2"];
        threaded.extend(before);
        let (rc_p, err_p, par) = run(ex, "par", &threaded);
        assert_eq!((rc_s, rc_p), (0, 0), "{ex}:\n{err_s}\n{err_p}");
        assert_eq!(
            summary_field(&seq, "flows_completed"),
            summary_field(&par, "flows_completed"),
            "{ex}"
        );
        assert_eq!(
            summary_field(&seq, "packets_injected"),
            summary_field(&par, "packets_injected"),
            "{ex}: a different workload"
        );
        for (key, tol) in
            [("fct_slowdown_p50", 0.05), ("fct_slowdown_p99", 0.05), ("queue_mean_bytes", 0.10)]
        {
            let (a, b) = (summary_field(&seq, key), summary_field(&par, key));
            assert!(
                (a - b).abs() <= tol * a.abs().max(1.0),
                "{ex}: {key} sequential {a} vs parallel {b} (tolerance {tol})"
            );
        }
    }
}

/// A partitioned run processes events on to the boundary after its last completion, but its
/// `sim_time_ns` is the time the last flow completed (the largest `finish_ns` of `flows.csv`),
/// where one queue stops, for every thread count: the JCT the evaluations read.
#[test]
fn sim_time_is_the_last_completion() {
    for args in [&[][..], &["--threads", "2"]] {
        let (rc, err, files) = run("incast", &format!("end{}", args.len()), args);
        assert_eq!(rc, 0, "{args:?}:\n{err}");
        let flows = std::str::from_utf8(&files["flows.csv"]).unwrap();
        let mut lines = flows.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = header.iter().position(|h| *h == "finish_ns").expect("a finish_ns column");
        let last = lines
            .map(|l| l.split(',').nth(col).unwrap().parse::<f64>().expect("every flow finished"))
            .fold(0.0, f64::max);
        let sim = summary_field(&files, "sim_time_ns");
        assert!(
            last > 0.0 && (sim - last).abs() < 1e-6,
            "{args:?}: sim_time_ns {sim}, last finish {last}"
        );
    }
}

#[test]
fn what_cannot_be_split_is_refused_with_exit_2() {
    let (rc, err, _) = run("moe-training", "deps", &["--threads", "2"]);
    assert_eq!(rc, 2, "flow dependencies across partitions must be refused:\n{err}");
    assert!(err.contains("flow dependencies"), "the error names the problem:\n{err}");
    let (rc, err, _) = run("permutation", "pcap", &["--threads", "2", "--set", "output.pcap=[0]"]);
    assert_eq!(rc, 2, "capture with several threads must be refused:\n{err}");
    assert!(err.contains("packet capture"), "the error names the problem:\n{err}");
    let (rc, err, _) = run("permutation", "parts", &["--set", "run.partitions=4"]);
    assert_eq!(rc, 2, "partitions without threads must be refused:\n{err}");
    assert!(err.contains("run.partitions"), "the error names the field:\n{err}");
    let (rc, err, _) = run("permutation", "zero", &["--threads", "0"]);
    assert_eq!(rc, 2, "zero threads must be refused:\n{err}");
    assert!(err.contains("run.threads"), "the error names the field:\n{err}");
    // One thread runs what many cannot (a tenth of the example's sizes: the run only has to end).
    let (rc, err, _) =
        run("moe-training", "deps1", &["--threads", "1", "--set", "workload.size_scale=0.001"]);
    assert_eq!(rc, 0, "{err}");
}

/// A run stopped by a limit (exit 3, packets still in flight in several partitions) stops at the
/// same point for every thread count, and its packets are conserved across the partitions.
#[test]
fn a_limit_stops_every_thread_count_at_the_same_point() {
    let (rc1, err1, one) =
        run("permutation", "limit1", &["--threads", "1", "--set", "run.max_sim_time=300us"]);
    let (rc2, err2, two) =
        run("permutation", "limit2", &["--threads", "2", "--set", "run.max_sim_time=300us"]);
    assert_eq!((rc1, rc2), (3, 3), "a limit ends with exit 3:\n{err1}\n{err2}");
    assert!(partitions(&err2) >= 2);
    assert!(
        summary_field(&one, "packets_in_flight") > 0.0,
        "the limit must stop the run mid-flight"
    );
    let (one, two) = (model_outputs(&one), model_outputs(&two));
    assert_eq!(one["summary.json"], two["summary.json"], "different summaries at the limit");
    assert!(std::str::from_utf8(&two["summary.json"])
        .unwrap()
        .contains("\"conservation_ok\": true"));
}

/// Each connection's sender (or what it is built from when the connection starts) is held by
/// exactly one partition of a parallel run (that of its sending host; the others let theirs go
/// as they are built, and the merge takes the holder's): what keeps a parallel run's memory near
/// one copy of the flows' state.
#[test]
fn each_sender_is_held_by_one_partition() {
    let sc = braid_cli::scenario::load(&repo_root().join("examples/rondo-incast.toml"), &[], None)
        .expect("scenario");
    let (first, _) = braid_cli::build::build(&sc).expect("build");
    let p = braid_cli::run::partitioned(&sc, first, 2).expect("partitions");
    assert!(p.n_parts() >= 2, "one partition: the test would prove nothing");
    let conns = p.parts()[0].conns().len();
    assert!(conns > 0);
    let mut held = vec![0usize; p.n_parts()];
    for i in 0..conns {
        let holders: Vec<usize> =
            (0..p.n_parts()).filter(|&k| p.parts()[k].conns()[i].holds_sender()).collect();
        assert_eq!(holders.len(), 1, "connection {i}'s sender is held by partitions {holders:?}");
        held[holders[0]] += 1;
    }
    assert!(
        held.iter().filter(|&&h| h > 0).count() >= 2,
        "senders held per partition {held:?}: every sender in one"
    );
}
