//! Running a scenario and writing its outputs: `summary.json`, `flows.csv` and the optional time
//! series (`queues.csv`, `ood.csv`, …) and packet capture (`capture.pcap`, see [`crate::pcap`]).
//! `summary.json` is written last, so a directory that has one holds a complete run.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use braid_core::percentile::percentile;
use braid_core::Time;
use braid_metrics::{fmt_f64, write_flows_csv, FlowRecord, Summary, Value};
use braid_net::parallel::{default_partitions, plan_partitions, ParallelSim};
use braid_net::sim::{RunEnd, Sim};
use braid_net::stats::DropReason;
use braid_workload::Workload;

use crate::build::build;
use crate::offered_load::{offered_load, OfferedLoad};
use crate::scenario::Scenario;

/// The outcome of a run, in memory.
pub struct RunResult {
    /// The simulator after the run.
    pub sim: Sim,
    /// The workload it ran.
    pub workload: Workload,
    /// Per-flow records.
    pub flows: Vec<FlowRecord>,
    /// Headline numbers.
    pub summary: Summary,
    /// Why the run ended.
    pub end: RunEnd,
}

/// Build and run a scenario. `progress` shows a bar on stderr for runs longer than a second.
pub fn run(sc: &Scenario, progress: bool) -> Result<RunResult, String> {
    run_with(sc, progress, |_| {})
}

/// [`run`], calling `before_run` with the workload's offered load on the topology's cuts
/// ([`crate::offered_load`]) after the build and before the first event (`braid run` warns there).
/// The offered load is also recorded in the summary (`offered_load`).
pub fn run_with(
    sc: &Scenario,
    progress: bool,
    before_run: impl FnOnce(&OfferedLoad),
) -> Result<RunResult, String> {
    run_cancellable(sc, progress, &AtomicBool::new(false), before_run)
}

/// [`run_with`] that also stops when `cancel` is set (read every 65,536 events, as
/// `run.max_wall`): the run then ends with [`RunEnd::Interrupted`], and the caller, who set the
/// flag, knows why. The Python package (`crates/braid-py`) sets it on Ctrl-C.
pub fn run_cancellable(
    sc: &Scenario,
    progress: bool,
    cancel: &AtomicBool,
    before_run: impl FnOnce(&OfferedLoad),
) -> Result<RunResult, String> {
    let (mut sim, workload) = build(sc)?;
    let load = offered_load(&sc.topology, &sc.workload, &workload);
    before_run(&load);
    for &l in &sc.output.pcap {
        sim.capture_link(braid_core::LinkId::from_idx(l as usize));
    }
    let total = sim.flows().len() as u64;
    // A parallel run's `sim` is merged from its partitions after the run.
    // Under the canonical order an unthreaded run is the parallel engine with one partition,
    // so that it decides the run's end as `--threads N` does: the same bytes for every N
    // (`docs/parallel.md`, "The same order for every N").
    let one_partition = !sc.limits.insertion_order && sc.limits.threads.is_none();
    let (mut sim, mut par) = match sc.limits.threads {
        Some(n) => {
            let mut p = partitioned(sc, sim, n)?;
            p.prepare();
            (None, Some(p))
        }
        None if one_partition => {
            let mut p = partitioned_in(sc, sim, 1, 1)?;
            p.prepare();
            (None, Some(p))
        }
        None => {
            sim.prepare();
            (Some(sim), None)
        }
    };
    let wall = Instant::now();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let max_wall_s = sc.limits.max_wall_s;
    let mut cb = |s: &Sim| {
        if cancel.load(Ordering::Relaxed)
            || max_wall_s.is_some_and(|m| wall.elapsed().as_secs_f64() > m)
        {
            return false;
        }
        if !progress {
            return true;
        }
        if bar.is_none() && wall.elapsed().as_secs_f64() > 1.0 {
            let b = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr(),
            );
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} flows  {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(s.flows_done() as u64);
            b.set_message(format!("t={}  {} events", s.events().now(), s.events().popped()));
        }
        true
    };
    // `run.max_sim_time` acts as a stop time that counts as a limit (exit code 3).
    let limit_first = match (sc.limits.max_sim_time, sc.stop) {
        (Some(m), Some(s)) => m < s,
        (Some(_), None) => true,
        _ => false,
    };
    let horizon = if limit_first { sc.limits.max_sim_time } else { sc.stop };
    let mut end = match (&mut sim, &mut par) {
        (Some(s), _) => s.run(horizon, &mut cb),
        (None, Some(p)) => p.run(horizon, &mut cb),
        (None, None) => unreachable!("a sequential or a parallel run"),
    };
    let sim = match (sim, par) {
        (Some(s), _) => s,
        (None, Some(p)) => {
            if !one_partition {
                report_parallel(&p, wall.elapsed().as_secs_f64());
            }
            p.into_sim()
        }
        (None, None) => unreachable!("a sequential or a parallel run"),
    };
    if limit_first && end == RunEnd::StopTime {
        end = RunEnd::Limit;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let flows = flow_records(sc, &sim, &workload);
    let summary = summarize(sc, &sim, &workload, &flows, end, wall_s);
    let mut r = RunResult { sim, workload, flows, summary, end };
    crate::routing_out::summarize_routing(&mut r.summary, sc, &r.sim, &r.flows);
    r.summary.set("offered_load", load.summary_value());
    Ok(r)
}

/// Split the built simulator's scenario over up to `threads` partitions
/// ([`braid_net::parallel`]): `first` is partition 0, the others are built again from the
/// scenario (the build is deterministic). Each partition holds only the senders of its own hosts'
/// connections ([`Sim::keep_own_senders`]).
pub fn partitioned(sc: &Scenario, first: Sim, threads: usize) -> Result<ParallelSim, String> {
    let wanted = sc.limits.partitions.unwrap_or_else(|| default_partitions(&sc.topology, threads));
    partitioned_in(sc, first, threads, wanted)
}

/// [`partitioned`] into `wanted` partitions (fewer if the topology has fewer units).
fn partitioned_in(
    sc: &Scenario,
    mut first: Sim,
    threads: usize,
    wanted: usize,
) -> Result<ParallelSim, String> {
    first.release_build_caches();
    let (owner, n) = plan_partitions(&sc.topology, wanted);
    // The other partitions are built side by side (the build is deterministic).
    let builders = threads.clamp(1, n.max(1));
    let mut rest: Vec<Option<Result<Sim, String>>> = (1..n).map(|_| None).collect();
    let per_builder = n.div_ceil(builders).max(1);
    let owner_ref = &owner;
    std::thread::scope(|s| {
        for (b, chunk) in rest.chunks_mut(per_builder).enumerate() {
            s.spawn(move || {
                for (j, slot) in chunk.iter_mut().enumerate() {
                    let me = (1 + b * per_builder + j) as u16;
                    *slot = Some(build(sc).map(|(mut sim, _)| {
                        for &l in &sc.output.pcap {
                            sim.capture_link(braid_core::LinkId::from_idx(l as usize));
                        }
                        // Each partition drives only its own hosts' senders: the others go
                        // now, before the next partition is built, with the build's caches.
                        sim.keep_own_senders(owner_ref, me);
                        sim.release_build_caches();
                        sim
                    }));
                }
            });
        }
    });
    let mut sims = vec![first];
    for r in rest {
        let mut sim = r.expect("built")?;
        sim.share_tables_of(&sims[0]);
        sims.push(sim);
    }
    ParallelSim::new(sims, owner, threads)
}

/// Print a parallel run's partitioning and synchronisation figures on stderr (wall-clock
/// figures, so never in `summary.json`, which is the same bytes for every thread count).
fn report_parallel(p: &ParallelSim, wall_s: f64) {
    if std::env::var_os("BRAID_QUIET_PARALLEL").is_some() {
        return;
    }
    let la = p.lookahead();
    let la = if la == Time::MAX { "none (one partition)".to_string() } else { format!("{la}") };
    let busy: f64 = p.worker_stats.iter().map(|w| w.busy_s).sum();
    let critical = p.worker_stats.first().map_or(0.0, |w| w.critical_s);
    eprintln!(
        "parallel: {} partition(s) on {} thread(s), lookahead {la}, wall {wall_s:.2} s; work {busy:.2} s, critical path {critical:.2} s (largest partition per window)",
        p.n_parts(),
        p.n_threads()
    );
    for (i, w) in p.worker_stats.iter().enumerate() {
        let per = if w.windows > 0 { w.sync_s / w.windows as f64 * 1e6 } else { 0.0 };
        eprintln!(
            "  thread {i}: {} windows, {} partition-windows, busy {:.2} s, sync {:.2} s ({per:.2} us/window), {} messages out",
            w.windows, w.tasks, w.busy_s, w.sync_s, w.messages
        );
    }
}

/// One record per flow (message) of workload `wl`.
pub fn flow_records(sc: &Scenario, sim: &Sim, wl: &Workload) -> Vec<FlowRecord> {
    let artifact = crate::routing_out::artifact_ideals(sc, sim);
    sim.flows()
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.is_task())
        .map(|(i, f)| {
            let c = sim.conn_of(i);
            let st = c.recovery_stats();
            let start = f.started_at.unwrap_or(f.start);
            // A message on a shared connection has its own counters; a message alone on its
            // connection, the connection's.
            let (retransmissions, spurious, max_ood, timeouts) = if c.shared {
                (
                    f.counters.retransmissions,
                    f.counters.spurious,
                    f.counters.max_ood,
                    f.counters.timeouts,
                )
            } else {
                (st.retransmissions, c.receiver.duplicates(), c.receiver.max_ood(), st.timeouts)
            };
            FlowRecord {
                id: i as u32,
                src: f.src_host,
                dst: f.dst_host,
                size_bytes: f.size_bytes,
                start_ns: start.ns_f64(),
                finish_ns: f.finish.map(|t| t.ns_f64()),
                ideal_fct_ns: f.ideal_fct.ns_f64(),
                ideal_fct_artifact_ns: artifact[i].map(|t| t.ns_f64()),
                retransmissions,
                spurious_retransmissions: spurious,
                max_ood,
                timeouts,
                conn: f.conn,
                group: wl.group_name(c.group).to_string(),
                transport: sc.group_transport(wl.group_name(c.group)).kind.name().to_string(),
            }
        })
        .collect()
}

/// At most this many stuck flows are listed in `summary.json` (all are counted).
pub const MAX_STUCK_LISTED: usize = 50;

/// Record why a run that stopped early was stuck: when it last made progress and, per flow that
/// had started but not completed, its state.
fn stuck_flows(s: &mut Summary, sim: &Sim) {
    s.float("last_progress_ns", sim.last_progress_at().ns_f64());
    let stuck: Vec<usize> = (0..sim.flows().len())
        .filter(|&i| {
            !sim.flows()[i].is_task()
                && sim.flows()[i].started_at.is_some()
                && sim.flows()[i].finish.is_none()
        })
        .collect();
    s.int("stuck_flows_total", stuck.len() as u64);
    let mut list = Vec::new();
    for &i in stuck.iter().take(MAX_STUCK_LISTED) {
        let f = &sim.flows()[i];
        let c = sim.conn_of(i);
        let st = c.recovery_stats();
        // An unfinished flow's sender is held (or, not started, built for the look).
        let (window, rate) = sim
            .with_sender(f.conn as usize, |s| (s.window_bytes(), s.rate_bps()))
            .expect("an unfinished flow keeps its sender");
        let o = vec![
            ("size_bytes".to_string(), Value::Int(f.size_bytes as i128)),
            ("delivered_bytes".to_string(), Value::Int(f.delivered_bytes as i128)),
            ("window_bytes".to_string(), Value::Int(window as i128)),
            ("rate_bps".to_string(), Value::Int(rate as i128)),
            ("retransmissions".to_string(), Value::Int(st.retransmissions as i128)),
            ("timeouts".to_string(), Value::Int(st.timeouts as i128)),
            (
                "last_progress_ns".to_string(),
                Value::Float(f.progress_at.map_or(f64::NAN, |t| t.ns_f64())),
            ),
        ];
        list.push((i.to_string(), Value::Obj(o)));
    }
    s.set("stuck_flows", Value::Obj(list));
}

/// How a run ended, as `summary.json`'s `run_end` names it.
pub fn run_end_name(end: RunEnd) -> &'static str {
    match end {
        RunEnd::AllFlowsComplete => "all_flows_complete",
        RunEnd::StopTime => "stop_time",
        RunEnd::Stalled | RunEnd::NoProgress => "stalled",
        RunEnd::Interrupted => "max_wall",
        RunEnd::Limit => "max_sim_time",
    }
}

/// The headline metrics of a run.
pub fn summarize(
    sc: &Scenario,
    sim: &Sim,
    wl: &Workload,
    flows: &[FlowRecord],
    end: RunEnd,
    wall_s: f64,
) -> Summary {
    let mut s = Summary::default();
    let now = sim.end_time();
    let events = sim.events().popped();
    s.str("scenario", &sc.name);
    s.int("seed", sc.seed);
    s.str("topology", &sc.topology_kind);
    s.str("transport", sc.transport.kind.name());
    s.str("cc", sc.transport.kind.cc_name(sc.transport.cc.kind));
    s.str("recovery", sc.transport.recovery.kind.name());
    s.float("sim_time_ns", now.ns_f64());
    s.float("wall_s", (wall_s * 1000.0).round() / 1000.0);
    s.int("events", events);
    s.float("events_per_sec", if wall_s > 0.0 { (events as f64 / wall_s).round() } else { 0.0 });
    s.int("packet_hops", sim.stats().packet_hops);
    s.float(
        "packet_hops_per_sec",
        if wall_s > 0.0 { (sim.stats().packet_hops as f64 / wall_s).round() } else { 0.0 },
    );
    s.str("run_end", run_end_name(end));
    s.int("flows_total", flows.len() as u64);
    s.str(
        "connections",
        if sc.connections.is_none()
            && wl.has_shared_connections()
            && matches!(sc.workload, braid_workload::WorkloadSpec::FlowFile(_))
        {
            "file"
        } else {
            sc.connection_mode().name()
        },
    );
    s.int("connections_total", sim.conns().len() as u64);
    let used_groups: Vec<(String, Value)> = (0..wl.group_names.len())
        .skip(1)
        .map(|g| {
            let name = wl.group_name(g as u16);
            let t = sc.group_transport(name);
            (
                name.to_string(),
                Value::Str(format!("{} ({})", t.kind.name(), t.kind.cc_name(t.cc.kind))),
            )
        })
        .collect();
    if !sc.groups.is_empty() && !used_groups.is_empty() {
        s.set("group_transports", Value::Obj(used_groups));
    }
    let done: Vec<&FlowRecord> = flows.iter().filter(|f| f.finish_ns.is_some()).collect();
    s.int("flows_completed", done.len() as u64);
    s.int("packets_injected", sim.stats().data_injected);
    s.int("packets_delivered", sim.stats().data_delivered);
    let dropped: u64 = sim.stats().data_dropped.iter().sum();
    s.int("packets_dropped", dropped);
    s.int("packets_in_flight", sim.data_in_flight());
    let drops = DropReason::ALL
        .iter()
        .map(|r| (r.name().to_string(), Value::Int(sim.stats().data_dropped[*r as usize] as i128)))
        .collect();
    s.set("drops", Value::Obj(drops));
    if sim.cfg().trim.enabled {
        s.int("trims", sim.stats().trims);
        s.int("trimmed_received", sim.stats().trimmed_arrived);
    }
    s.set("conservation_ok", Value::Bool(sim.conservation().is_ok()));
    let mut slow: Vec<f64> = done.iter().filter_map(|f| f.slowdown()).collect();
    slow.sort_by(f64::total_cmp);
    // No completed flow: the percentiles print as 0.
    s.float("fct_slowdown_p50", percentile(&slow, 50.0).unwrap_or(0.0));
    s.float("fct_slowdown_p99", percentile(&slow, 99.0).unwrap_or(0.0));
    let mut fct: Vec<f64> = done.iter().filter_map(|f| f.fct_ns()).collect();
    let fct_mean = if fct.is_empty() { 0.0 } else { fct.iter().sum::<f64>() / fct.len() as f64 };
    s.float("fct_mean_ns", fct_mean);
    fct.sort_by(f64::total_cmp);
    s.float("fct_p99_ns", percentile(&fct, 99.0).unwrap_or(0.0));
    s.int("nic_ood_max", sim.nic_ood_hist().max());
    s.int("nic_ood_p99", sim.nic_ood_hist().percentile(99.0));
    s.float("nic_ood_mean", sim.nic_ood_hist().mean());
    s.int("nic_rbo_max", sim.nic_rbo_hist().max());
    s.int("nic_rbo_p99", sim.nic_rbo_hist().percentile(99.0));
    s.int("flow_ood_max", flows.iter().map(|f| f.max_ood as u64).max().unwrap_or(0));
    // Goodput: application bytes delivered in order, over first send → last delivery.
    let first = sim
        .flows()
        .iter()
        .filter(|f| !f.is_task())
        .filter_map(|f| f.started_at)
        .min()
        .unwrap_or(Time::ZERO);
    let last = sim
        .flows()
        .iter()
        .filter(|f| !f.is_task())
        .map(|f| f.delivered_at.unwrap_or(now))
        .max()
        .unwrap_or(now);
    let bytes: u64 = sim.flows().iter().map(|f| f.delivered_bytes).sum();
    let span = last.saturating_sub(first).secs_f64();
    s.float("goodput_bps", if span > 0.0 { (bytes as f64 * 8.0 / span).round() } else { 0.0 });
    s.int("app_bytes_delivered", bytes);
    let retx: u64 = flows.iter().map(|f| f.retransmissions).sum();
    s.int("retransmissions", retx);
    s.int("spurious_retransmissions", sim.stats().spurious_retx);
    s.int("timeouts", flows.iter().map(|f| f.timeouts).sum::<u64>());
    s.float(
        "retx_delay_mean_ns",
        if sim.stats().retx_delay_count > 0 {
            sim.stats().retx_delay_sum_ps as f64 / sim.stats().retx_delay_count as f64 / 1e3
        } else {
            0.0
        },
    );
    // The bottleneck: the switch port with the largest mean sampled queue.
    let (bport, bq) = sim
        .queue_stats()
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.mean().total_cmp(&b.1.mean()).then(b.0.cmp(&a.0)))
        .map(|(i, q)| (i, q.clone()))
        .unwrap_or_default();
    s.int("bottleneck_port", bport as u64);
    s.float("queue_mean_bytes", bq.mean().round());
    s.int("queue_p99_bytes", bq.percentile(99.0));
    s.int("queue_max_bytes", bq.max());
    s.int("pfc_pauses", sim.stats().pfc_pauses_sent);
    s.float("pfc_pause_time_ns", sim.ports().iter().map(|p| p.paused_ps).sum::<u64>() as f64 / 1e3);
    s.int("probes_sent", sim.stats().probes_sent);
    if !wl.jobs.is_empty() {
        let started: Vec<Option<Time>> = sim.flows().iter().map(|f| f.started_at).collect();
        let finished: Vec<Option<Time>> = sim.flows().iter().map(|f| f.finish).collect();
        let jobs = braid_workload::jct_per_job(wl, &started, &finished);
        let top: Vec<&braid_workload::JobResult> = jobs
            .iter()
            .filter(|j| wl.jobs[j.job as usize].parent == braid_workload::NO_JOB)
            .collect();
        let jct_max = top.iter().filter_map(|j| j.jct).max().unwrap_or(Time::ZERO);
        s.float("jct_ns", jct_max.ns_f64());
        let obj = jobs
            .iter()
            .map(|j| {
                (
                    j.name.clone(),
                    j.jct.map_or(Value::Str("incomplete".into()), |t| Value::Float(t.ns_f64())),
                )
            })
            .collect();
        s.set("jct_per_job_ns", Value::Obj(obj));
    }
    let mut warnings: Vec<Value> =
        sc.notes.iter().chain(sim.notes()).map(|n| Value::Str(n.clone())).collect();
    // Braid's ideal is the best of a flow's candidate paths: nothing should beat it. A flow that
    // does is named, not averaged away.
    let beat: Vec<&FlowRecord> =
        done.iter().copied().filter(|f| f.slowdown().is_some_and(|x| x < 0.9999)).collect();
    if !beat.is_empty() {
        let ids: Vec<String> = beat
            .iter()
            .take(10)
            .map(|f| format!("{} ({:.3})", f.id, f.slowdown().unwrap_or(0.0)))
            .collect();
        let w = format!(
            "{} flows finished faster than Braid's ideal FCT (the best of their candidate paths, or all of them at once, docs/metrics.md), which should be impossible: flows {}",
            beat.len(),
            ids.join(", ")
        );
        eprintln!("warning: {w}");
        warnings.push(Value::Str(w));
    }
    if !warnings.is_empty() {
        s.set("warnings", Value::List(warnings));
    }
    if end.stopped_early() {
        stuck_flows(&mut s, sim);
    }
    s
}

/// Every file a run writes into its folder (besides `braid plot`'s `plot-*` figures).
pub const RUN_FILES: &[&str] = &[
    "summary.json",
    "scenario.resolved.toml",
    "flows.csv",
    "connections.csv",
    "queues.csv",
    "ood.csv",
    "goodput.csv",
    "paths.csv",
    "slowdown_bins.csv",
    "fct.txt",
    "fct_stats.csv",
    "link_util.csv",
    "decisions.csv",
    "switch_state.csv",
    "capture.pcap",
    "index.html",
];

/// Remove from `dir` every file a run writes ([`RUN_FILES`]) and every `plot-*` figure, so that
/// a run owns its folder: nothing of an earlier run there survives to be read as this run's
/// (a run that records no queues leaves no `queues.csv` behind). Other files are left alone.
pub fn clear_run_outputs(dir: &Path) -> Result<(), String> {
    let Ok(entries) = fs::read_dir(dir) else { return Ok(()) };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = RUN_FILES.contains(&name.as_str())
            || (name.starts_with("plot-")
                && [".png", ".svg", ".txt", ".csv"].iter().any(|x| name.ends_with(x)));
        if ours && e.path().is_file() {
            fs::remove_file(e.path()).map_err(|err| {
                format!("cannot remove the earlier run's `{}`: {err}", e.path().display())
            })?;
        }
    }
    Ok(())
}

/// Write every output of a run into `dir` (created if needed), after removing whatever an
/// earlier run wrote there ([`clear_run_outputs`]): `scenario.resolved.toml` first (its time
/// marks the run: `braid plot` and `braid report` read no file older than it), `summary.json`
/// last. A run that stopped early ([`RunEnd::stopped_early`]) writes only its resolved scenario
/// and its partial summary (whose `run_end` says why, with the stuck flows): nothing that looks
/// complete.
pub fn write_outputs(dir: &Path, sc: &Scenario, r: &RunResult) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    clear_run_outputs(dir)?;
    let werr = |p: &Path, e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let p = dir.join("scenario.resolved.toml");
    fs::write(&p, &sc.resolved_toml).map_err(|e| werr(&p, e))?;
    if !r.end.stopped_early() {
        write_series(dir, sc, r)?;
    }
    let p = dir.join("summary.json");
    let tmp = dir.join(".summary.json.tmp");
    fs::write(&tmp, r.summary.to_json()).map_err(|e| werr(&tmp, e))?;
    fs::rename(&tmp, &p).map_err(|e| werr(&p, e))?;
    Ok(())
}

/// A message naming the stuck flows of a run that stopped early (for the terminal).
pub fn stuck_message(r: &RunResult) -> String {
    let why = match r.end {
        RunEnd::NoProgress => "no progress (no byte delivered in order, no flow completed) for the stall timeout `run.stall_timeout`",
        RunEnd::Stalled => "no events left while flows were incomplete",
        RunEnd::Interrupted => "the wall-clock limit `run.max_wall` was reached",
        RunEnd::Limit => "the simulated-time limit `run.max_sim_time` was reached",
        _ => "the run ended",
    };
    let stuck: Vec<String> = r
        .sim
        .flows()
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.is_task() && f.started_at.is_some() && f.finish.is_none())
        .take(10)
        .map(|(i, f)| {
            let c = r.sim.conn_of(i);
            let st = c.recovery_stats();
            format!(
                "  flow {i}: {}/{} B delivered, window {}, {} retransmissions, {} timeouts, last progress (or start) at {}",
                f.delivered_bytes,
                f.size_bytes,
                match r.sim.with_sender(f.conn as usize, |s| s.window_bytes()).expect("an unfinished flow keeps its sender") {
                    u64::MAX => "unbounded".to_string(),
                    w => format!("{w} B"),
                },
                st.retransmissions,
                st.timeouts,
                f.progress_at.map_or("never".to_string(), |t| t.to_string())
            )
        })
        .collect();
    let total = r.flows.iter().filter(|f| f.finish_ns.is_none()).count();
    let mut m = format!(
        "run stopped at {}: {why}; {total} of {} flows incomplete (run progressed last at {}).\n",
        r.sim.events().now(),
        r.flows.len(),
        r.sim.last_progress_at()
    );
    for l in &stuck {
        m.push_str(l);
        m.push('\n');
    }
    m.push_str(
        "  likely causes: a window or rate that cannot send a packet (e.g. a window below one MTU), \
         a path that drops everything, or retransmissions that never get through; the stuck flows are in summary.json",
    );
    m
}

/// `connections.csv` (written when some connection carries more than one message): one row per
/// connection with its lifetime totals (`docs/metrics.md`).
fn write_connections_csv(w: &mut impl Write, sc: &Scenario, r: &RunResult) -> std::io::Result<()> {
    writeln!(
        w,
        "conn,src,dst,group,transport,messages,messages_completed,bytes,start_ns,finish_ns,retransmissions,spurious_retransmissions,timeouts,max_ood,probes_sent"
    )?;
    let n = r.sim.conns().len();
    let (mut msgs, mut done, mut bytes) = (vec![0u32; n], vec![0u32; n], vec![0u64; n]);
    let mut start = vec![f64::INFINITY; n];
    let mut finish = vec![0f64; n];
    for f in &r.flows {
        let c = f.conn as usize;
        msgs[c] += 1;
        bytes[c] += f.size_bytes;
        start[c] = start[c].min(f.start_ns);
        if let Some(t) = f.finish_ns {
            done[c] += 1;
            finish[c] = finish[c].max(t);
        }
    }
    for (i, c) in r.sim.conns().iter().enumerate() {
        let st = c.recovery_stats();
        let group = r.workload.group_name(c.group);
        let fin = if done[i] == msgs[i] { fmt_f64(finish[i]) } else { String::new() };
        writeln!(
            w,
            "{i},{},{},{group},{},{},{},{},{},{fin},{},{},{},{},{}",
            c.src_host,
            c.dst_host,
            sc.group_transport(group).kind.name(),
            msgs[i],
            done[i],
            bytes[i],
            fmt_f64(if start[i].is_finite() { start[i] } else { 0.0 }),
            st.retransmissions,
            c.receiver.duplicates(),
            st.timeouts,
            c.receiver.max_ood(),
            c.probes_sent
        )?;
    }
    Ok(())
}

fn write_series(dir: &Path, sc: &Scenario, r: &RunResult) -> Result<(), String> {
    let werr = |p: &Path, e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let p = dir.join("flows.csv");
    let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
    write_flows_csv(&mut w, &r.flows).map_err(|e| werr(&p, e))?;
    w.flush().map_err(|e| werr(&p, e))?;
    if r.sim.has_shared_connections() {
        let p = dir.join("connections.csv");
        let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        write_connections_csv(&mut w, sc, r).and_then(|_| w.flush()).map_err(|e| werr(&p, e))?;
    }
    if sc.output.queues {
        let p = dir.join("queues.csv");
        let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        let res: std::io::Result<()> = (|| {
            writeln!(w, "time_ns,port,node,peer,bytes,probe_bytes")?;
            for &(t, port, b, probes) in r.sim.queue_series() {
                let pt = &r.sim.ports()[port as usize];
                writeln!(
                    w,
                    "{},{},{},{},{},{}",
                    fmt_f64(t.ns_f64()),
                    port,
                    pt.node,
                    pt.peer,
                    b,
                    probes
                )?;
            }
            w.flush()
        })();
        res.map_err(|e| werr(&p, e))?;
    }
    if sc.output.ood {
        let p = dir.join("ood.csv");
        let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        let res: std::io::Result<()> = (|| {
            writeln!(w, "time_ns,host,nic_ood,nic_rbo")?;
            for &(t, h, o, b) in r.sim.ood_series() {
                writeln!(w, "{},{},{},{}", fmt_f64(t.ns_f64()), h, o, b)?;
            }
            w.flush()
        })();
        res.map_err(|e| werr(&p, e))?;
    }
    if sc.output.paths {
        let p = dir.join("paths.csv");
        let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        let res: std::io::Result<()> = (|| {
            writeln!(w, "time_ns,flow,path,window_bytes,ack_rate_bps,inflight_pkts,margin_bytes,fwd_delay_ns,skip,probing")?;
            for &(t, f, s) in r.sim.path_series() {
                writeln!(
                    w,
                    "{},{},{},{},{},{},{},{},{},{}",
                    fmt_f64(t.ns_f64()),
                    f,
                    s.path,
                    s.window_bytes,
                    s.ack_rate_bps,
                    s.inflight_pkts,
                    s.margin_bytes,
                    fmt_f64((s.fwd_delay_ns * 1000.0).round() / 1000.0),
                    s.skip,
                    s.probing as u8
                )?;
            }
            w.flush()
        })();
        res.map_err(|e| werr(&p, e))?;
    }
    if sc.output.goodput {
        let p = dir.join("goodput.csv");
        let mut w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        let res: std::io::Result<()> = (|| {
            writeln!(w, "time_ns,delivered_bytes,goodput_bps")?;
            let mut prev = (Time::ZERO, 0u64);
            for &(t, b) in r.sim.goodput_series() {
                let dt = (t - prev.0).secs_f64();
                let bps = if dt > 0.0 { (b - prev.1) as f64 * 8.0 / dt } else { 0.0 };
                writeln!(w, "{},{},{}", fmt_f64(t.ns_f64()), b, fmt_f64(bps.round()))?;
                prev = (t, b);
            }
            w.flush()
        })();
        res.map_err(|e| werr(&p, e))?;
    }
    if !sc.output.pcap.is_empty() {
        let p = dir.join("capture.pcap");
        let recs: Vec<(u64, u32, braid_core::Packet)> =
            r.sim.captured().iter().map(|&(t, port, pk)| (t.ps(), port, pk)).collect();
        let w = BufWriter::new(fs::File::create(&p).map_err(|e| werr(&p, e))?);
        crate::pcap::write_capture(w, &recs, sc.net.header_bytes).map_err(|e| werr(&p, e))?;
    }
    crate::routing_out::write_routing_outputs(dir, sc, &r.sim, &r.flows)
}

/// A short human summary for the terminal.
pub fn human_summary(sc: &Scenario, r: &RunResult) -> String {
    let g = |k: &str| match r.summary.get(k) {
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::Float(f)) => fmt_f64(*f),
        Some(Value::Str(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => "-".into(),
    };
    let goodput = match r.summary.get("goodput_bps") {
        Some(Value::Float(f)) => format!("{:.2} Gb/s", f / 1e9),
        _ => "-".into(),
    };
    format!(
        "{name} (seed {seed}): {done}/{total} flows completed in {sim} simulated ({end})\n\
         \x20 wall {wall} s, {ev} events ({eps} events/s, {hps} packet-hops/s)\n\
         \x20 FCT slowdown (FCT / ideal on the best candidate path, or over all of them) p50 {p50}  p99 {p99}{artifact}   goodput {goodput}\n\
         \x20 NIC OOD p99 {op99}  max {omax}   data packets dropped {drops}{dups}  retransmissions {retx} (spurious {sp})\n",
        name = sc.name,
        seed = sc.seed,
        done = g("flows_completed"),
        total = g("flows_total"),
        sim = r.sim.events().now(),
        end = g("run_end"),
        wall = g("wall_s"),
        ev = g("events"),
        eps = g("events_per_sec"),
        hps = g("packet_hops_per_sec"),
        p50 = g("fct_slowdown_p50"),
        p99 = g("fct_slowdown_p99"),
        // The LCMP artifact's metric (lowest-delay path), when the run has it: between DCs the
        // widest path is not the fastest, and the two definitions differ.
        artifact = match r.summary.get("fct_slowdown_artifact_ideal_p50") {
            Some(_) => format!(
                "; (FCT / artifact ideal, lowest-delay path) p50 {}  p99 {}",
                g("fct_slowdown_artifact_ideal_p50"),
                g("fct_slowdown_artifact_ideal_p99")
            ),
            None => String::new(),
        },
        op99 = g("nic_ood_p99"),
        omax = g("nic_ood_max"),
        drops = g("packets_dropped"),
        // Duplicates are counted as drops (the receiving NIC discards the second copy); say so.
        dups = match r.summary.get("drops") {
            Some(Value::Obj(o)) => match o.iter().find(|(k, _)| k == "rx_duplicate").map(|(_, v)| v) {
                Some(Value::Int(d)) if *d > 0 => format!(" (of which {d} duplicate copies discarded at the receiver)"),
                _ => String::new(),
            },
            _ => String::new(),
        },
        retx = g("retransmissions"),
        sp = g("spurious_retransmissions"),
    )
}
