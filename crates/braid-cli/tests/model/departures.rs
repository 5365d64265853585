//! Departures on demand (the default, `docs/architecture.md`, "Departures: events or on demand")
//! against departures as events (`run.departures = "events"`): under the canonical order of
//! equal-time events (the default) the same bytes, under the insertion order
//! (`run.order = "insertion"`) the same network statistically, and far fewer events under both.

use std::path::Path;

use braid_cli::run::{run, RunResult};
use braid_cli::scenario::parse;

fn scenario(text: &str, sets: &[&str]) -> braid_cli::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("scenario error: {e}"))
}

/// Every output a run of `sc` writes (`flows.csv`, the other tables, `summary.json` without
/// its wall-clock and event-count lines; not the resolved scenario), as text, by file name.
fn outputs(sc: &braid_cli::scenario::Scenario, r: &RunResult, tag: &str) -> Vec<(String, String)> {
    let dir = crate::scratch::TmpDir::new("departures", tag);
    braid_cli::run::write_outputs(&dir, sc, r).unwrap();
    let mut files: Vec<(String, String)> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        // The scenario as resolved names the engine; every other file is an output.
        .filter(|p| p.is_file() && !p.ends_with("scenario.resolved.toml"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).to_string();
            let text = if name == "summary.json" {
                text.lines()
                    .filter(|l| {
                        !["\"wall_s\"", "\"events", "\"packet_hops_per_sec\""]
                            .iter()
                            .any(|k| l.trim_start().starts_with(k))
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                text
            };
            (name, text)
        })
        .collect();
    files.sort();
    files
}

/// Run `text` with `sets` under the insertion order, departures as events and on demand.
fn both(text: &str, sets: &[&str]) -> (RunResult, RunResult) {
    let go = |mode: &str| {
        let mut all = sets.to_vec();
        all.push("run.order=\"insertion\"");
        let set = format!("run.departures=\"{mode}\"");
        all.push(&set);
        let r = run(&scenario(text, &all), false).unwrap();
        assert!(r.sim.conservation().is_ok(), "{sets:?} {mode}: {:?}", r.sim.conservation());
        assert!(
            r.flows.iter().all(|f| f.finish_ns.is_some()),
            "{sets:?} {mode}: a flow did not complete ({:?})",
            r.end
        );
        r
    };
    (go("events"), go("on-demand"))
}

/// Mean and 99th percentile (nearest rank) of the FCTs of all the runs' flows, in ns.
fn fct_mean_p99(runs: &[RunResult]) -> (f64, f64) {
    let mut f: Vec<f64> =
        runs.iter().flat_map(|r| r.flows.iter().filter_map(|f| f.fct_ns())).collect();
    f.sort_by(f64::total_cmp);
    let mean = f.iter().sum::<f64>() / f.len() as f64;
    let p99 = f[((f.len() as f64 * 0.99).ceil() as usize).clamp(1, f.len()) - 1];
    (mean, p99)
}

/// One flow alone on its path: no two events ever tie at a port (each packet finds the port
/// free, or behind one whose end the event engine did not schedule), so the two engines compute
/// the same departures, arrivals and completion to the picosecond, with fewer events on demand.
#[test]
fn a_lone_flow_is_the_same_to_the_picosecond() {
    let text = r#"
name = "lone"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_rate = "100Gbps"
fabric_rate = "40Gbps"
delay = "1us"
[network]
mtu = "1000B"
ecn = true
[transport]
kind = "roce"
cc = "dcqcn"
[workload]
kind = "incast"
senders = [0]
receiver = 3
size = "2MB"
"#;
    let (ev, od) = both(text, &[]);
    assert_eq!(ev.flows[0].finish_ns, od.flows[0].finish_ns);
    let (se, so) = (ev.sim.stats(), od.sim.stats());
    assert_eq!(
        (se.packet_hops, se.ecn_marks),
        (so.packet_hops, so.ecn_marks),
        "(packet-hops, ECN marks)"
    );
    // 100 → 40 Gb/s: the leaf's uplink queues, and each of its departures was a TxDone.
    assert!(se.ecn_marks > 0, "the fabric link should have queued past Kmin");
    assert!(
        od.sim.events().popped() < ev.sim.events().popped(),
        "events: {} on demand, {} as events",
        od.sim.events().popped(),
        ev.sim.events().popped()
    );
}

/// Under the canonical order an event's key is a function of the event, so a departure carried
/// out on demand gets the key its `TxDone` would have had and happens in the same place among
/// equal-time events: every output is the same bytes as with departures as events, on loaded
/// networks with trimming, strict priority and link faults, PFC, a refusing shared buffer and
/// adaptive routing, switches pausing on and off — with fewer events.
#[test]
fn under_the_canonical_order_departures_on_demand_are_exact() {
    for (name, text, sets) in loaded_cases() {
        let mut all = sets.clone();
        all.push("run.order=\"canonical\"");
        let runs: Vec<_> = ["events", "on-demand"]
            .iter()
            .map(|mode| {
                let mut with_mode = all.clone();
                let set = format!("run.departures=\"{mode}\"");
                with_mode.push(&set);
                let sc = scenario(&text, &with_mode);
                let r = run(&sc, false).unwrap();
                assert!(r.sim.conservation().is_ok(), "{name} {mode}: {:?}", r.sim.conservation());
                let files = outputs(&sc, &r, &format!("{}-{mode}", name.replace([' ', ','], "")));
                (r.sim.events().popped(), files)
            })
            .collect();
        let ((ev_events, ev_files), (od_events, od_files)) = (&runs[0], &runs[1]);
        assert_eq!(
            ev_files.iter().map(|f| &f.0).collect::<Vec<_>>(),
            od_files.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "{name}: the same files"
        );
        for ((file, a), (_, b)) in ev_files.iter().zip(od_files) {
            assert!(a == b, "{name}: {file} differs between departures as events and on demand");
        }
        assert!(
            od_events < ev_events,
            "{name}: {od_events} events on demand, {ev_events} as events"
        );
    }
}

/// Under the insertion order, equal-time events run in the order they were scheduled, and a
/// departure carried out on demand was never scheduled: where a departure and another event
/// tie, the two engines may order them differently, so runs differ packet by packet. The
/// network they simulate is the same.
#[test]
fn departures_on_demand_simulate_the_same_network() {
    let cases = loaded_cases();
    for (name, text, sets) in &cases {
        // Three seeds pooled: a lossy run's mean moves with its few retransmission timeouts.
        let (mut evs, mut ods) = (Vec::new(), Vec::new());
        for seed in ["1", "2", "3"] {
            let mut with_seed = sets.clone();
            let set = format!("seed={seed}");
            with_seed.push(&set);
            let (ev, od) = both(text, &with_seed);
            evs.push(ev);
            ods.push(od);
        }
        let sum = |runs: &[RunResult], f: &dyn Fn(&braid_net::stats::SimStats) -> u64| {
            runs.iter().map(|r| f(r.sim.stats())).sum::<u64>()
        };
        let events = |runs: &[RunResult]| runs.iter().map(|r| r.sim.events().popped()).sum::<u64>();
        let full = braid_net::stats::DropReason::BufferFull as usize;
        let (mean_e, p99_e) = fct_mean_p99(&evs);
        let (mean_o, p99_o) = fct_mean_p99(&ods);
        let (hops_e, hops_o) = (sum(&evs, &|s| s.packet_hops), sum(&ods, &|s| s.packet_hops));
        let (full_e, full_o) =
            (sum(&evs, &|s| s.data_dropped[full]), sum(&ods, &|s| s.data_dropped[full]));
        let (trims_e, trims_o) = (sum(&evs, &|s| s.trims), sum(&ods, &|s| s.trims));
        let (pauses_e, pauses_o) =
            (sum(&evs, &|s| s.pfc_pauses_sent), sum(&ods, &|s| s.pfc_pauses_sent));
        println!(
            "{name} (events / on demand): mean FCT {mean_e:.0} / {mean_o:.0} ns, p99 {p99_e:.0} / {p99_o:.0} ns, packet-hops {hops_e} / {hops_o}, events {} / {}, buffer-full drops {full_e} / {full_o}, trims {trims_e} / {trims_o}, PAUSEs {pauses_e} / {pauses_o}",
            events(&evs),
            events(&ods),
        );
        assert!((mean_o / mean_e - 1.0).abs() < 0.05, "{name}: mean FCT {mean_e} vs {mean_o}");
        assert!((p99_o / p99_e - 1.0).abs() < 0.10, "{name}: p99 FCT {p99_e} vs {p99_o}");
        let hops = hops_o as f64 / hops_e as f64;
        assert!((hops - 1.0).abs() < 0.03, "{name}: packet-hops {hops}× ");
        assert!(events(&ods) < events(&evs), "{name}: no fewer events on demand");
        // Each case reaches the part of the scheme it is there for, in both engines, as often.
        let near = |a: u64, b: u64| a > 0 && b > 0 && (b as f64 / a as f64 - 1.0).abs() < 0.25;
        match *name {
            "UET, trimming" => assert!(near(trims_e, trims_o), "{name}: trims"),
            "RoCE incast, PFC" => assert!(near(pauses_e, pauses_o), "{name}: PAUSEs"),
            "adaptive routing, small shared buffer" => {
                assert!(near(full_e, full_o), "{name}: buffer-full drops")
            }
            _ => {}
        }
    }
}

/// Loaded networks, each reaching one part of the scheme: trimming and ECN at dequeue, strict
/// priority (Rondo's probe class) with link faults, PFC (a pausing switch's departures turn into
/// events), a shared buffer that refuses packets under adaptive routing (a refusal carries out the
/// switch's due departures and judges again; routing reads exact queues), and switches pausing
/// on and off under LCMP (`examples/lcmp-tiny.toml`, loaded).
fn loaded_cases() -> Vec<(&'static str, String, Vec<&'static str>)> {
    let permutation = "kind = \"permutation\"\nsize = \"300KB\"";
    let incast =
        "kind = \"incast\"\nsenders = [1, 2, 3, 4, 5, 6, 7]\nreceiver = 0\nsize = \"100KB\"";
    let fat_tree = |transport: &str, extra: &str, workload: &str| {
        let transport = format!("kind = \"{transport}\"");
        crate::engine_checks::loaded_fat_tree("departures", extra, &transport, workload)
    };
    let faults = crate::engine_checks::DELAY_AND_LOSS_FAULTS;
    vec![
        (
            "UET, trimming",
            fat_tree("uet", "queue_limit = \"30KB\"\ntrim = true", permutation),
            vec![],
        ),
        ("Rondo, faults", fat_tree("rondo", "", permutation) + faults, vec![]),
        ("RoCE incast, PFC", fat_tree("roce", "pfc = true\npfc_xoff = \"40KB\"", incast), vec![]),
        (
            "adaptive routing, small shared buffer",
            fat_tree("roce", "buffer = \"120KB\"", permutation),
            vec!["routing.kind=\"adaptive\"", "transport.recovery=\"sr\""],
        ),
        // Switches that start and stop pausing upstream again and again (their ports go from
        // departures on demand to events and back), under LCMP between datacenters.
        (
            "LCMP between datacenters, PFC",
            std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../examples/lcmp-tiny.toml"
            ))
            .unwrap(),
            vec!["workload.load=0.6", "workload.duration=\"1ms\""],
        ),
    ]
}

/// A run that cannot take departures on demand says why, and a value neither setting knows is
/// refused.
#[test]
fn on_demand_is_refused_or_named_where_it_cannot_apply() {
    let text = r#"
name = "refuse"
[topology]
kind = "fat-tree"
k = 4
[transport]
kind = "roce"
[workload]
kind = "permutation"
size = "10KB"
"#;
    let bad = vec!["run.order=\"fifo\"".to_string()];
    let err = parse(text, Path::new("."), &bad, None).unwrap_err();
    assert!(err.contains("\"canonical\" or \"insertion\""), "{err}");
    let bad = vec!["run.departures=\"lazy\"".to_string()];
    let err = parse(text, Path::new("."), &bad, None).unwrap_err();
    assert!(err.contains("\"on-demand\" or \"events\""), "{err}");
    let r = run(
        &scenario(
            text,
            &["run.departures=\"on-demand\"", "network.pfc=true", "network.mmu=\"hpcc\""],
        ),
        false,
    )
    .unwrap();
    assert!(
        r.sim.notes().iter().any(|n| n.contains("is not taken") && n.contains("HPCC MMU")),
        "{:?}",
        r.sim.notes()
    );
}
