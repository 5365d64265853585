//! Routing-study outputs (LCMP §5's metrics):
//!
//! - `slowdown_bins.csv` (always): FCT slowdown per flow-size bin, 20 equal-count bins as the LCMP
//!   figures plot them (`fct_analysis_py3_batch.py`), with p50 and p99 under Braid's ideal FCT
//!   (the flow alone on its best path) and under the artifact's ideal ("standalone") FCT, clamped
//!   at ≥ 1 as its scripts do. `output.slowdown_groups = [a, b]` restricts the bins to flows
//!   between groups (DCs) `a` and `b`, either direction (the `_2dc` analysis of Fig. 8/10).
//! - `fct.txt` (`output.fct_artifact = true`): the artifact's `fct_*.txt` line format,
//!   `<sip %08x> <dip %08x> <sport> <dport> <size_B> <start_ns> <fct_ns> <standalone_fct_ns>`, for
//!   completed flows in completion order. `sport` is the flow's UDP source port (its ECMP entropy);
//!   `dport` is written as 100, the application port of the artifact's flow files (its analysis
//!   keeps `dport == 100` lines); Braid's packets carry 4791.
//! - `fct_stats.csv` (with `fct.txt`): p50/p95/p99 of the slowdown against the artifact's ideal,
//!   over all flows and the size bins < 100 KB, 100 KB–1 MB, ≥ 1 MB, by the artifact's rule
//!   (largest flow dropped, `a[int(n·p)]`) — the numbers to set beside ns-3's
//!   (`docs/ns3-equivalence.md`; `scripts/lcmp-artifact-stats.py` does the same from a file).
//! - `link_util.csv` (`output.link_util = true`): bytes sent and utilisation of every DCI-to-DCI
//!   port per sampling interval (LCMP Fig. 1b).
//!
//! Percentiles are nearest-rank ([`braid_core::percentile`]); the artifact's script indexes
//! `a[int(n·p)]` (`braid_workload::lcmp_artifact_percentile`) and drops its last line, which moves
//! single values in small bins.
//!
//! These writers take the finished simulator and the flow records, not a `run::RunResult`:
//! the `run` module calls them, and this module does not depend on it.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

use braid_core::percentile::percentile;
use braid_core::Time;
use braid_metrics::{fmt_f64, FlowRecord, Summary, Value};
use braid_net::sim::Sim;
use braid_net::switch_routing::SwitchRouting;
use braid_proto::hash::node_ip;
use braid_proto::routing::LcmpRouter;
use braid_workload::slowdown_equal_count_bins;

use crate::build::flow_entropies;
use crate::scenario::Scenario;

/// The artifact's ideal FCT of every flow (`None` when unreachable), in flow order.
pub fn artifact_ideals(sc: &Scenario, sim: &Sim) -> Vec<Option<Time>> {
    sim.flows()
        .iter()
        .map(|f| {
            if f.is_task() {
                return None;
            }
            sim.artifact_ideal_fct(
                f.src_host,
                f.dst_host,
                f.size_bytes,
                sc.net.mtu_bytes,
                sc.net.header_bytes,
            )
        })
        .collect()
}

/// The artifact's ideal FCTs as the flow records carry them ([`artifact_ideals`] at the run's end).
pub fn recorded_ideals(flows: &[FlowRecord]) -> Vec<Option<Time>> {
    flows.iter().map(|f| f.ideal_fct_artifact_ns.map(|ns| Time::from_ns(ns as u64))).collect()
}

fn in_groups(sc: &Scenario, sim: &Sim, src: u32, dst: u32) -> bool {
    let Some((a, b)) = sc.output.slowdown_groups else { return true };
    let g = |h: u32| sc.topology.nodes[sim.hosts()[h as usize].node.idx()].group;
    let (s, d) = (g(src), g(dst));
    (s == a && d == b) || (s == b && d == a)
}

/// `(size, Braid slowdown, artifact slowdown clamped ≥ 1)` of the completed flows the bins cover.
pub fn slowdown_pairs(
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
    ideals: &[Option<Time>],
) -> Vec<(u64, f64, f64)> {
    flows
        .iter()
        .zip(ideals)
        .filter(|(f, _)| f.finish_ns.is_some() && in_groups(sc, sim, f.src, f.dst))
        .filter_map(|(f, ideal)| {
            let fct = f.fct_ns()?;
            let s = f.slowdown()?;
            let a = ideal.map(|i| (fct / i.ns_f64().max(1.0)).max(1.0)).unwrap_or(f64::NAN);
            Some((f.size_bytes, s, a))
        })
        .collect()
}

/// Write `slowdown_bins.csv`.
pub fn write_slowdown_bins(
    dir: &Path,
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
    ideals: &[Option<Time>],
) -> Result<(), String> {
    let pairs = slowdown_pairs(sc, sim, flows, ideals);
    let braid: Vec<(u64, f64)> = pairs.iter().map(|p| (p.0, p.1)).collect();
    let art: Vec<(u64, f64)> = pairs.iter().map(|p| (p.0, p.2)).collect();
    let b1 = slowdown_equal_count_bins(&braid, 20);
    let b2 = slowdown_equal_count_bins(&art, 20);
    let p = dir.join("slowdown_bins.csv");
    let werr = |e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let mut w = BufWriter::new(fs::File::create(&p).map_err(werr)?);
    let o = |x: Option<f64>| x.map(fmt_f64).unwrap_or_default();
    (|| -> std::io::Result<()> {
        writeln!(w, "bin,size_lo,size_hi,count,p50,p99,p50_artifact_ideal,p99_artifact_ideal")?;
        for (i, (a, b)) in b1.iter().zip(&b2).enumerate() {
            writeln!(
                w,
                "{},{},{},{},{},{},{},{}",
                i,
                a.lo,
                a.hi,
                a.count,
                o(a.p50),
                o(a.p99),
                o(b.p50),
                o(b.p99)
            )?;
        }
        w.flush()
    })()
    .map_err(werr)
}

/// Whether flow `f` belongs in the artifact-format outputs: with `output.fct_artifact_without_rto`
/// a flow that needed a retransmission timeout does not (the ns-3 fork has no timer: it never
/// completes there).
fn in_artifact_outputs(sc: &Scenario, f: &FlowRecord) -> bool {
    !(sc.output.fct_artifact_without_rto && f.timeouts > 0)
}

/// Completed flows left out of the artifact-format outputs by `output.fct_artifact_without_rto`.
fn rto_flows_left_out(sc: &Scenario, flows: &[FlowRecord]) -> usize {
    flows.iter().filter(|f| f.finish_ns.is_some() && !in_artifact_outputs(sc, f)).count()
}

/// The artifact-rule slowdown pairs `(size, artifact slowdown)` of the flows its outputs cover.
fn artifact_pairs(
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
    ideals: &[Option<Time>],
) -> Vec<(u64, f64)> {
    let kept: Vec<FlowRecord> =
        flows.iter().filter(|f| in_artifact_outputs(sc, f)).cloned().collect();
    let ideals: Vec<Option<Time>> = flows
        .iter()
        .zip(ideals)
        .filter(|(f, _)| in_artifact_outputs(sc, f))
        .map(|(_, i)| *i)
        .collect();
    slowdown_pairs(sc, sim, &kept, &ideals).iter().map(|p| (p.0, p.2)).collect()
}

/// Write `fct.txt` in the artifact's format.
pub fn write_fct_artifact(
    dir: &Path,
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
    ideals: &[Option<Time>],
) -> Result<(), String> {
    let left: Vec<String> = flows
        .iter()
        .filter(|f| f.finish_ns.is_some() && !in_artifact_outputs(sc, f))
        .map(|f| f.id.to_string())
        .collect();
    if !left.is_empty() {
        let shown: Vec<&str> = left.iter().take(20).map(String::as_str).collect();
        eprintln!(
            "warning: {} completed flows are left out of fct.txt and fct_stats.csv (`output.fct_artifact_without_rto`: they needed a retransmission timeout): flows {}{}",
            left.len(),
            shown.join(", "),
            if left.len() > shown.len() { ", …" } else { "" }
        );
    }
    // Record `k` is flow `flows[k].id` of the simulator (compute tasks have no record).
    let mut done: Vec<usize> = (0..flows.len())
        .filter(|&k| flows[k].finish_ns.is_some() && in_artifact_outputs(sc, &flows[k]))
        .collect();
    done.sort_by_key(|&k| (sim.flows()[flows[k].id as usize].finish, k));
    let p = dir.join("fct.txt");
    let werr = |e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let mut w = BufWriter::new(fs::File::create(&p).map_err(werr)?);
    let pairs: Vec<(u32, u32)> = sim.flows().iter().map(|f| (f.src_host, f.dst_host)).collect();
    let sports = flow_entropies(sc, &pairs);
    (|| -> std::io::Result<()> {
        for k in done {
            let i = flows[k].id as usize;
            let f = &sim.flows()[i];
            let start = f.started_at.unwrap_or(f.start);
            let fct = f.finish.map(|t| t.saturating_sub(start)).unwrap_or(Time::ZERO);
            let sip = node_ip(sim.hosts()[f.src_host as usize].node.0);
            let dip = node_ip(sim.hosts()[f.dst_host as usize].node.0);
            let ideal = ideals[k].map(|t| t.ns()).unwrap_or(0);
            writeln!(
                w,
                "{sip:08x} {dip:08x} {} 100 {} {} {} {}",
                sports[i],
                f.size_bytes,
                start.ns(),
                fct.ns(),
                ideal
            )?;
        }
        w.flush()
    })()
    .map_err(werr)
}

/// Write `decisions.csv` (`output.decisions = true`): one row per LCMP decision — time, switch,
/// the packet's hosts, `data` or `ack`, the live candidates sorted as the filter sorted them
/// (`next hop:C_path/C_cong/C`, `;`-separated), how many were kept, and the next hop chosen.
pub fn write_decisions(dir: &Path, sc: &Scenario, sim: &Sim) -> Result<(), String> {
    let Some(log) = &sim.routing().decisions else { return Ok(()) };
    let p = dir.join("decisions.csv");
    let werr = |e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let mut w = BufWriter::new(fs::File::create(&p).map_err(werr)?);
    let name = |n: braid_core::NodeId| sc.topology.nodes[n.idx()].name.clone();
    (|| -> std::io::Result<()> {
        writeln!(w, "time_ns,node,src,dst,packet,candidates,kept,chosen")?;
        for d in log {
            let c: Vec<String> = d
                .candidates
                .iter()
                .map(|&(n, cp, cc, c)| format!("{}:{cp}/{cc}/{c}", name(n)))
                .collect();
            writeln!(
                w,
                "{},{},{},{},{},{},{},{}",
                fmt_f64(d.at.ns_f64()),
                name(d.node),
                d.src_host,
                d.dst_host,
                if d.data { "data" } else { "ack" },
                c.join(";"),
                d.kept,
                name(d.chosen)
            )?;
        }
        w.flush()
    })()
    .map_err(werr)
}

/// Bytes of switch state per port and per flow-cache entry, as LCMP §4's example deployment
/// counts them (48 ports × 24 B + 50,000 entries × 24 B ≈ 1.2 MB; its per-entry formula itemises
/// 20 B — flow id 8, port 4, last-seen 8 — and the example rounds to 24).
pub const LCMP_PORT_STATE_BYTES: u64 = 24;
/// See [`LCMP_PORT_STATE_BYTES`].
pub const LCMP_ENTRY_STATE_BYTES: u64 = 24;

/// Reverse-path entries the LCMP switches recorded for ACKs (`ack_routing = reverse`).
pub fn reverse_pins(rt: &SwitchRouting) -> u64 {
    rt.scheme_routers().filter_map(|(_, r)| r.as_lcmp()).map(|l| l.reverse_pins).sum()
}

/// The LCMP switches and their routers, in node order.
fn lcmp_switches(rt: &SwitchRouting) -> impl Iterator<Item = (braid_core::NodeId, &LcmpRouter)> {
    rt.scheme_routers().filter_map(|(n, r)| r.as_lcmp().map(|l| (n, &*l.router)))
}

/// Per LCMP switch: (node, ports, peak entries, mean entries, state bytes at the peak).
fn switch_states(sim: &Sim) -> Vec<(braid_core::NodeId, usize, u64, f64, u64)> {
    let rt = sim.routing();
    let end = sim.end_time();
    lcmp_switches(rt)
        .map(|(n, r)| {
            let ports = sim.node_ports()[n.idx()].len();
            let st = r.cache().stats;
            (
                n,
                ports,
                st.peak_entries,
                r.cache().mean_entries(end),
                LCMP_PORT_STATE_BYTES * ports as u64 + LCMP_ENTRY_STATE_BYTES * st.peak_entries,
            )
        })
        .collect()
}

/// Write `switch_state.csv` (runs with LCMP): per LCMP switch its ports, flow-cache entries (peak,
/// time-weighted mean), the state bytes by LCMP §4's count at the peak, garbage-collector
/// evictions with their idle time (mean, max), insertions refused at `routing.flow_cache_capacity`,
/// and the flows (distinct keys) and packets that then fell back to ECMP.
pub fn write_switch_state(dir: &Path, sc: &Scenario, sim: &Sim) -> Result<(), String> {
    let rt = sim.routing();
    let lcmp: Vec<&LcmpRouter> = lcmp_switches(rt).map(|(_, r)| r).collect();
    if lcmp.is_empty() {
        return Ok(());
    }
    let mut t = String::from("node,ports,entries_peak,entries_mean,state_bytes_peak,evictions,evicted_idle_mean_ns,evicted_idle_max_ns,refused_full,cache_full_flows,cache_full_packets\n");
    for ((n, ports, peak, mean, bytes), r) in switch_states(sim).into_iter().zip(lcmp) {
        let st = r.cache().stats;
        let idle_mean = if st.collected > 0 {
            (st.evicted_idle_ps_sum / st.collected as u128) as f64 / 1000.0
        } else {
            0.0
        };
        t.push_str(&format!(
            "{},{ports},{peak},{},{bytes},{},{},{},{},{},{}\n",
            sc.topology.nodes[n.idx()].name,
            fmt_f64(mean),
            st.collected,
            fmt_f64(idle_mean),
            fmt_f64(st.evicted_idle_max.ns_f64()),
            st.refused_full,
            r.stats.cache_full_flows,
            r.stats.cache_full_fallbacks
        ));
    }
    let p = dir.join("switch_state.csv");
    fs::write(&p, t).map_err(|e| format!("cannot write `{}`: {e}", p.display()))
}

/// Write `link_util.csv`.
pub fn write_link_util(dir: &Path, sim: &Sim) -> Result<(), String> {
    let Some(lu) = &sim.routing().link_util else { return Ok(()) };
    let p = dir.join("link_util.csv");
    let werr = |e: std::io::Error| format!("cannot write `{}`: {e}", p.display());
    let mut w = BufWriter::new(fs::File::create(&p).map_err(werr)?);
    (|| -> std::io::Result<()> {
        writeln!(w, "time_ns,port,node,peer,rate_bps,bytes,utilization")?;
        let iv = lu.interval.secs_f64();
        for &(t, i, b) in &lu.rows {
            let port = lu.ports[i as usize];
            let pt = &sim.ports()[port.idx()];
            let util = b as f64 * 8.0 / (pt.rate.bps_f64() * iv);
            writeln!(
                w,
                "{},{},{},{},{},{},{}",
                fmt_f64(t.ns_f64()),
                port.0,
                pt.node,
                pt.peer,
                pt.rate.bps(),
                b,
                fmt_f64(util)
            )?;
        }
        w.flush()
    })()
    .map_err(werr)
}

/// Write `fct_stats.csv`: the artifact's percentile rule over the completed flows' slowdowns
/// against its ideal ([`braid_workload::artifact_slowdown_stats`]; `docs/ns3-equivalence.md`).
pub fn write_fct_stats(
    dir: &Path,
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
    ideals: &[Option<Time>],
) -> Result<(), String> {
    let pairs = artifact_pairs(sc, sim, flows, ideals);
    let p = dir.join("fct_stats.csv");
    let mut t = String::from("# FCT slowdown against the LCMP artifact's ideal (standalone) FCT, clamped >= 1; the largest flow dropped;\n# percentile p of n sorted values = value at 0-based index int(n*p/100), as the artifact's analysis script.\n");
    if sc.output.fct_artifact_without_rto {
        t.push_str(&format!(
            "# {} completed flows that needed a retransmission timeout left out (output.fct_artifact_without_rto: the ns-3 fork has no timer, they never complete there).\n",
            rto_flows_left_out(sc, flows)
        ));
    }
    t.push_str("set,flows,p50,p95,p99\n");
    for (name, n, ps) in braid_workload::artifact_slowdown_stats(&pairs) {
        let o = |x: Option<f64>| x.map(fmt_f64).unwrap_or_default();
        t.push_str(&format!("{name},{n},{},{},{}\n", o(ps[0]), o(ps[1]), o(ps[2])));
    }
    fs::write(&p, t).map_err(|e| format!("cannot write `{}`: {e}", p.display()))
}

/// Every routing output of a run (see the module docs).
pub fn write_routing_outputs(
    dir: &Path,
    sc: &Scenario,
    sim: &Sim,
    flows: &[FlowRecord],
) -> Result<(), String> {
    let ideals = recorded_ideals(flows);
    write_slowdown_bins(dir, sc, sim, flows, &ideals)?;
    if sc.output.fct_artifact {
        write_fct_artifact(dir, sc, sim, flows, &ideals)?;
        write_fct_stats(dir, sc, sim, flows, &ideals)?;
    }
    if sc.output.link_util {
        write_link_util(dir, sim)?;
    }
    write_decisions(dir, sc, sim)?;
    write_switch_state(dir, sc, sim)?;
    Ok(())
}

/// Routing's headline numbers for `summary.json`: the scheme, the slowdown under the artifact's
/// ideal FCT, LCMP decision counters and the no-packet-to-a-down-port check.
pub fn summarize_routing(s: &mut Summary, sc: &Scenario, sim: &Sim, flows: &[FlowRecord]) {
    s.str("routing", sc.net.routing.name());
    let ideals = recorded_ideals(flows);
    let mut a: Vec<f64> = flows
        .iter()
        .zip(&ideals)
        .filter_map(|(f, i)| Some((f.fct_ns()? / i.as_ref()?.ns_f64().max(1.0)).max(1.0)))
        .collect();
    a.sort_by(|x, y| x.total_cmp(y));
    s.float("fct_slowdown_artifact_ideal_p50", percentile(&a, 50.0).unwrap_or(0.0));
    s.float("fct_slowdown_artifact_ideal_p99", percentile(&a, 99.0).unwrap_or(0.0));
    if sc.output.fct_artifact {
        // The artifact's own percentile rule over the same slowdowns (fct_stats.csv's "all" row).
        let pairs = artifact_pairs(sc, sim, flows, &ideals);
        let st = braid_workload::artifact_slowdown_stats(&pairs);
        let mut obj: Vec<(String, Value)> = ["p50", "p95", "p99"]
            .iter()
            .zip(st[0].2)
            .map(|(k, v)| (k.to_string(), Value::Float(v.unwrap_or(0.0))))
            .collect();
        if sc.output.fct_artifact_without_rto {
            obj.push((
                "rto_flows_left_out".to_string(),
                Value::Int(rto_flows_left_out(sc, flows) as i128),
            ));
        }
        s.set("fct_slowdown_artifact_rule", Value::Obj(obj));
        let left: Vec<u32> = flows
            .iter()
            .filter(|f| f.finish_ns.is_some() && !in_artifact_outputs(sc, f))
            .map(|f| f.id)
            .collect();
        if !left.is_empty() {
            let listed: Vec<Value> = left
                .iter()
                .take(crate::run::MAX_STUCK_LISTED)
                .map(|&i| Value::Int(i as i128))
                .collect();
            let files = "fct.txt, fct_stats.csv";
            s.set(
                "flows_left_out",
                Value::Obj(vec![
                    ("outputs".to_string(), Value::Str(files.into())),
                    ("reason".to_string(), Value::Str("output.fct_artifact_without_rto: the flow needed a retransmission timeout".into())),
                    ("count".to_string(), Value::Int(left.len() as i128)),
                    ("flows".to_string(), Value::List(listed)),
                ]),
            );
        }
    }
    let rt = sim.routing();
    let lcmp: Vec<&LcmpRouter> = lcmp_switches(rt).map(|(_, r)| r).collect();
    if !lcmp.is_empty() {
        let sum = |f: fn(&LcmpRouter) -> u64| lcmp.iter().map(|r| f(r)).sum::<u64>() as i128;
        let obj = vec![
            ("decisions".to_string(), Value::Int(sum(|r| r.stats.decisions))),
            ("failovers".to_string(), Value::Int(sum(|r| r.stats.failovers))),
            ("fallbacks".to_string(), Value::Int(sum(|r| r.stats.fallbacks))),
            ("congestion_filtered".to_string(), Value::Int(sum(|r| r.stats.congestion_filtered))),
            ("cache_hits".to_string(), Value::Int(sum(|r| r.cache().stats.hits))),
            ("cache_invalidated".to_string(), Value::Int(sum(|r| r.cache().stats.invalidated))),
            ("cache_collected".to_string(), Value::Int(sum(|r| r.cache().stats.collected))),
            (
                "cache_peak_entries".to_string(),
                Value::Int(
                    lcmp.iter().map(|r| r.cache().stats.peak_entries).max().unwrap_or(0) as i128
                ),
            ),
            ("reverse_pins".to_string(), Value::Int(reverse_pins(rt) as i128)),
            ("cache_full_flows".to_string(), Value::Int(sum(|r| r.stats.cache_full_flows))),
        ];
        s.set("lcmp", Value::Obj(obj));
        // LCMP §4's state count at the busiest switch (switch_state.csv has every switch).
        s.int("dci_state_bytes_peak", switch_states(sim).iter().map(|x| x.4).max().unwrap_or(0));
    }
    let te: Vec<_> = rt.scheme_routers().filter_map(|(_, r)| r.as_te()).collect();
    if !te.is_empty() {
        let sum = |f: fn(&braid_proto::routing::te::TeStats) -> u64| {
            te.iter().map(|r| f(&r.router.stats)).sum::<u64>() as i128
        };
        let obj = vec![
            ("decisions".to_string(), Value::Int(sum(|s| s.decisions))),
            ("rounds".to_string(), Value::Int(sum(|s| s.rounds))),
            ("shifts".to_string(), Value::Int(sum(|s| s.shifts))),
        ];
        s.set("te", Value::Obj(obj));
    }
    s.int("sent_to_down_port", rt.stats().sent_to_down_port);
}
