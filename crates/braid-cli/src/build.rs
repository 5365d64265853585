//! From a validated scenario to a ready-to-run simulator: the network, then one sender and one
//! receiver per workload flow, with each flow's path environment (line rate, base RTT, the
//! network's largest RTT and BDP) computed from the topology.
//!
//! Before allocating anything proportional to the scenario, build checks the bounds below
//! ([`MAX_ROUTE_WORK`], [`MAX_PATH_TIME`], packets per flow within `u32`) so that a scenario that
//! parses but is too large or too slow for the simulator gets an error, not an out-of-memory abort,
//! an arithmetic overflow or a minutes-long table computation.

use braid_core::rng::stream;
use braid_core::{FlowId, Rng, Time};
use braid_net::sim::{PathInfo, Sim};
use braid_proto::cc::CcEnv;
use braid_proto::transport::FlowEnv;
use braid_workload::Workload;

use crate::scenario::Scenario;

/// Largest `destination classes × (nodes + links)` build accepts: 2^30 (about 1.07 × 10^9). The
/// simulator's next-hop tables hold at most `nodes × classes` entries (a class is a switch with
/// single-homed hosts, or any other host) and take one breadth-first search per class to fill, so
/// this bounds both their memory (at most 4 GiB) and their computation (seconds). A k = 64
/// fat-tree (2,048 edge switches, 70,656 nodes, 196,608 links: 5.5 × 10^8) fits.
pub const MAX_ROUTE_WORK: u64 = 1 << 30;

/// Longest base RTT or ideal flow completion time build accepts: 10^6 s (10^18 ps, a nineteenth
/// of the picosecond clock's range). A longer one means a link rate of a few bits per second or a
/// flow of petabytes, and would overflow the clock.
pub const MAX_PATH_TIME: Time = Time::from_ps(1_000_000_000_000_000_000);

/// An upper bound, in picoseconds, of the base RTT and ideal FCT of `p` when every hop carries
/// `bytes` one way (serialisation of all of them, rounded up, plus propagation both ways).
/// Computed in saturating `u128`, so it never overflows where `PathInfo`'s `u64` sums would.
fn path_time_bound_ps(p: &PathInfo, bytes: u128) -> u128 {
    p.hops.iter().fold(0u128, |acc, &(rate, delay)| {
        let tx = bytes.saturating_mul(8_000_000_000_000).div_ceil(rate.bps().max(1) as u128) + 1;
        acc.saturating_add(tx).saturating_add(2 * delay.ps() as u128)
    })
}

/// `Err` unless [`path_time_bound_ps`] is within [`MAX_PATH_TIME`].
fn check_path_time(p: &PathInfo, bytes: u128, what: impl FnOnce() -> String) -> Result<(), String> {
    if path_time_bound_ps(p, bytes) > MAX_PATH_TIME.ps() as u128 {
        return Err(format!(
            "{}: the path's transfer time exceeds the limit of {} s (link rates too small, delays or the flow too large)",
            what(),
            MAX_PATH_TIME.secs_f64()
        ));
    }
    Ok(())
}

/// `Err` unless the topology's routing tables are within [`MAX_ROUTE_WORK`].
fn check_route_work(sc: &Scenario) -> Result<(), String> {
    let t = &sc.topology;
    let (nodes, links, classes) =
        (t.nodes.len() as u64, t.links.len() as u64, t.destination_classes() as u64);
    let work = classes.saturating_mul(nodes.saturating_add(links));
    if work > MAX_ROUTE_WORK {
        return Err(format!(
            "[topology] {classes} destination classes × ({nodes} nodes + {links} links) = {work} is too large for the routing tables (limit {MAX_ROUTE_WORK}); a class is a switch with single-homed hosts or any other host"
        ));
    }
    Ok(())
}

/// Build the simulator for a scenario. Errors name the flow or host at fault.
pub fn build(sc: &Scenario) -> Result<(Sim, Workload), String> {
    check_route_work(sc)?;
    let mut sim = Sim::new(sc.topology.clone(), sc.net.clone(), sc.seed);
    if let Some(e) = sim.routing().build_error() {
        return Err(format!("[routing] {e}"));
    }
    sim.sampling_mut().interval = sc.output.sample_interval.or(Some(Time::from_us(10)));
    sim.sampling_mut().queues_series = sc.output.queues;
    sim.sampling_mut().ood_series = sc.output.ood;
    sim.sampling_mut().paths_series = sc.output.paths;
    if sc.output.decisions {
        sim.routing_mut().decisions = Some(Vec::new());
    }
    if sc.output.link_util {
        sim.record_link_util(sc.output.sample_interval.unwrap_or(Time::from_ms(1)));
    }
    sim.sampling_mut().goodput_series = sc.output.goodput;
    let n_hosts = sim.n_hosts();
    let groups: Vec<u32> =
        sim.hosts().iter().map(|h| sc.topology.nodes[h.node.idx()].group).collect();
    let mut wl =
        sc.workload.generate(n_hosts, &groups, sc.seed).map_err(|e| format!("[workload] {e}"))?;
    if wl.flows.is_empty() {
        return Err("[workload] generates no flows".into());
    }
    // A flow file's own `conn` column stands unless the scenario sets `workload.connections`.
    if sc.connections.is_some() || wl.conn_of.is_empty() {
        wl.assign_connections(sc.connection_mode());
    }
    check_groups(sc, &wl)?;
    let mtu = sc.net.mtu_bytes;
    for (i, f) in wl.flows.iter().enumerate() {
        if f.size_bytes.div_ceil(mtu.max(1) as u64) > u32::MAX as u64 {
            return Err(format!(
                "[workload] flow {i} of {} bytes needs more than {} packets of {mtu} bytes",
                f.size_bytes,
                u32::MAX
            ));
        }
        if f.src as usize >= n_hosts || f.dst as usize >= n_hosts {
            return Err(format!(
                "[workload] flow {i} goes from host {} to host {}, but the topology has only {n_hosts} hosts (0–{})",
                f.src,
                f.dst,
                n_hosts - 1
            ));
        }
        if f.src == f.dst && !wl.is_task(i) {
            return Err(format!("[workload] flow {i} goes from host {} to itself", f.src));
        }
    }
    let wire = (mtu + sc.net.header_bytes) as u64;
    let ack = sc.net.ack_bytes as u64;
    // The network's largest base RTT and BDP over the pairs the workload uses (HPCC's T and W).
    // The BDP is the sender NIC's line rate times the pair's base RTT, as HPCC (SIGCOMM 2019) sets
    // W_init = B_NIC × T — not the path's bottleneck, which on a sprayed multipath network is one
    // path's share of what the sender can have in flight.
    // Paths are those of the network when each flow starts: the scenario's link events up to then
    // (a `[[faults]]` entry at 0 µs adding delay, say) are in its base RTT and ideal FCT.
    sim.add_link_events(&sc.link_events);
    let mut paths = Vec::with_capacity(wl.flows.len());
    let mut max_rtt = Time::ZERO;
    let mut max_bdp = 0u64;
    for (i, f) in wl.flows.iter().enumerate() {
        if wl.is_task(i) {
            paths.push(None);
            continue;
        }
        let (s, d) = (f.src, f.dst);
        let p = sim.path_info_at(s, d, f.start).ok_or_else(|| {
            format!("host {s} cannot reach host {d}: the topology has no path between them")
        })?;
        check_path_time(&p, wire as u128 + ack as u128, || format!("hosts {s} → {d}"))?;
        let rtt = p.base_rtt(wire, ack);
        max_rtt = max_rtt.max(rtt);
        max_bdp = max_bdp.max(p.hops[0].0.bdp_bytes(rtt));
        paths.push(Some(p));
    }
    if let braid_net::config::WindowBdp::Ns3 { wrap } = sc.net.window_bdp {
        (max_rtt, max_bdp) = sim.ns3_max_rtt_bdp(mtu, wrap);
    }
    // Each group's transport knobs are read once here; each connection's sender is built from
    // the typed spec of its group.
    let n_groups = wl.group_names.len().max(1);
    let mut kits = Vec::with_capacity(n_groups);
    for g in 0..n_groups {
        let name = wl.group_name(g as u16);
        let tc = sc.group_transport(name);
        let at = |e: String| {
            if g == 0 || std::ptr::eq(tc, &sc.transport) {
                format!("[transport] {e}")
            } else {
                format!("[groups.{name}.transport] {e}")
            }
        };
        let spec = braid_proto::transport::SenderFactory::from_config(tc).map_err(at)?;
        kits.push((spec, tc));
    }
    for note in rto_notes(sc, max_rtt) {
        eprintln!("warning: {note}");
        sim.add_note(note);
    }
    if sc.net.routing == braid_net::config::RoutingMode::PathIndex
        && sim
            .topo()
            .nodes
            .iter()
            .any(|n| n.kind != braid_net::topology::NodeKind::Host && n.tier == 0)
    {
        // Path-index routing reads one digit per switch tier; without tiers every switch reads
        // the same digit, as `entropy` does, and logical paths are not one per physical path.
        let note = "routing.kind = \"path-index\": the topology gives some switches no tier (file topologies), so they read the lowest digit of the path index, as `entropy` routing does: logical paths do not map one to one onto physical paths there".to_string();
        eprintln!("warning: {note}");
        sim.add_note(note);
    }
    let pairs: Vec<(u32, u32)> = wl.flows.iter().map(|f| (f.src, f.dst)).collect();
    let sports = flow_entropies(sc, &pairs);
    // Per connection: its first message in workload order, its message count and packet total.
    let n_conns = wl.n_conns();
    let mut first_msg = vec![u32::MAX; n_conns];
    let mut msgs = vec![0u32; n_conns];
    let mut conn_pkts = vec![0u64; n_conns];
    for (i, f) in wl.flows.iter().enumerate() {
        if wl.is_task(i) {
            continue;
        }
        let c = wl.conn(i) as usize;
        if first_msg[c] == u32::MAX {
            first_msg[c] = i as u32;
        }
        msgs[c] += 1;
        conn_pkts[c] += f.size_bytes.div_ceil(mtu as u64).max(1);
    }
    if let Some(c) =
        (0..n_conns).find(|&c| conn_pkts[c] > braid_proto::transport::sender_core::MAX_PSNS)
    {
        return Err(format!(
            "[workload] connection {c} (hosts {} → {}) carries {} packets of {mtu} bytes, more than fit 31-bit PSNs ({}); use `workload.connections = \"per-message\"`",
            wl.flows[first_msg[c] as usize].src,
            wl.flows[first_msg[c] as usize].dst,
            conn_pkts[c],
            braid_proto::transport::sender_core::MAX_PSNS
        ));
    }
    let envs: Vec<Option<CcEnv>> = paths
        .iter()
        .map(|p| {
            p.as_ref().map(|p| CcEnv {
                line_rate: p.hops[0].0,
                base_rtt: p.base_rtt(wire, ack),
                max_rtt,
                max_bdp_bytes: max_bdp.max(1),
                mtu_bytes: mtu,
                tx_time_floor_ns: sc.net.tx_time_floor_ns,
            })
        })
        .collect();
    sim.set_sender_factories(kits.iter().map(|k| k.0.clone()).collect());
    for (c, &i0) in first_msg.iter().enumerate() {
        let i = i0 as usize;
        let f = &wl.flows[i];
        let (spec, tc) = &kits[wl.group(i) as usize];
        let mut rng = Rng::derive(sc.seed, stream::FLOW, i as u64);
        let _ = entropy_from(&mut rng); // the random source port's draw, made in every mode
        let shared = msgs[c] > 1;
        let fenv = FlowEnv {
            cc: envs[i].expect("a flow has a path"),
            size_bytes: f.size_bytes,
            connection_messages: shared.then_some(msgs[c]),
            equal_cost_paths: sim.equal_cost_paths(f.src, f.dst).min(u32::MAX as u64) as u32,
            longest_path_rtt: if spec.uses_longest_path_rtt() {
                sim.longest_base_rtt_at(f.src, f.dst, f.start, wire, ack).unwrap_or(Time::ZERO)
            } else {
                Time::ZERO
            },
            entropy: sports[i],
            start: f.start,
            seed: rng.next_u64(),
        };
        let what = || if shared { format!("connection {c}") } else { format!("flow {i}") };
        let sender = spec.build(&fenv).map_err(|e| format!("{}: {e}", what()))?;
        let pkts = if shared { 0 } else { f.size_bytes.div_ceil(mtu as u64).max(1) as u32 };
        let receiver = tc.receiver(spec, pkts, wire);
        let id = sim.add_conn(f.src, f.dst, wl.group(i), sender, receiver, msgs[c]);
        // The sender just built checked the flow's set-up; the run builds it again when the
        // connection starts, so that only connections in progress hold one.
        sim.defer_sender(id, fenv);
    }
    for (i, (f, p)) in wl.flows.iter().zip(&paths).enumerate() {
        let Some(p) = p else {
            sim.add_task(f.src, f.start, f.tag);
            continue;
        };
        let pkts = f.size_bytes.div_ceil(mtu as u64).max(1);
        let total_wire = f.size_bytes as u128 + pkts as u128 * sc.net.header_bytes as u128;
        check_path_time(p, total_wire + wire as u128 + ack as u128, || {
            format!("[workload] flow {i}")
        })?;
        // A flow can use several paths at once if its transport sprays or the switches do.
        let spray = kits[wl.group(i) as usize].0.is_multipath()
            || sc.net.routing == braid_net::config::RoutingMode::Adaptive;
        let ideal = sim
            .ideal_fct_at(
                f.src,
                f.dst,
                f.start,
                f.size_bytes,
                mtu,
                sc.net.header_bytes,
                sc.net.ack_bytes,
                spray,
            )
            .unwrap_or_else(|| {
                p.ideal_fct(f.size_bytes, mtu, sc.net.header_bytes, sc.net.ack_bytes)
            });
        sim.add_flow(wl.conn(i), f.size_bytes, f.start, ideal, f.tag);
    }
    for (i, _) in wl.flows.iter().enumerate() {
        for &d in wl.deps(i) {
            sim.add_dependency(FlowId(i as u32), FlowId(d));
        }
    }
    let stall = sc.limits.stall_timeout.unwrap_or_else(|| {
        Time::from_ps(max_rtt.ps().saturating_mul(crate::scenario::DEFAULT_STALL_RTTS))
            .max(crate::scenario::MIN_STALL_TIMEOUT)
    });
    sim.set_stall_timeout(Some(stall));
    sim.set_departures_on_demand(!sc.limits.departures_as_events);
    sim.set_canonical_order(!sc.limits.insertion_order);
    Ok((sim, wl))
}

/// Retransmission timers that cannot tell a long round trip from a loss: an initial RTO below the
/// largest base RTT of the workload's paths fires on every flow of such a path before its first
/// ACK can return, and a maximum RTO below it fires again and again however the timer backs off.
fn rto_notes(sc: &Scenario, max_rtt: Time) -> Vec<String> {
    let mut out = Vec::new();
    for (name, tc) in std::iter::once(("transport", &sc.transport))
        .chain(sc.groups.iter().map(|g| (g.name.as_str(), &g.transport)))
    {
        let r = &tc.recovery;
        let table = if name == "transport" {
            "transport".to_string()
        } else {
            format!("groups.{name}.transport")
        };
        for (field, t) in [("rto_initial", r.rto_initial), ("rto_max", r.rto_max)] {
            if t < max_rtt {
                out.push(format!(
                    "`{table}.recovery_params.{field}` ({t}) is below the largest base RTT of the workload's paths ({max_rtt}): flows on those paths will time out spuriously"
                ));
            }
        }
    }
    out
}

/// Check the scenario's `[groups.<name>]` against the groups the workload makes: a group the
/// workload does not make is named on stderr (it is not an error, so that `--set
/// workload.kind=…` works on a file that configures, say, incast's background flows).
fn check_groups(sc: &Scenario, wl: &Workload) -> Result<(), String> {
    for g in &sc.groups {
        if !wl.group_names.contains(&g.name) {
            let made: Vec<&str> =
                (0..wl.group_names.len().max(1)).map(|i| wl.group_name(i as u16)).collect();
            eprintln!(
                "warning: `[groups.{}]` configures a flow group this workload does not make (it makes: {}); its transport is not used",
                g.name,
                made.join(", ")
            );
        }
    }
    Ok(())
}

/// A flow's UDP source port, from the ephemeral range (the first draw of its random stream).
fn entropy_from(rng: &mut Rng) -> u16 {
    49_152 + rng.below(16_384) as u16
}

/// The UDP source port (ECMP entropy) [`build`] gives each flow, whose (source, destination)
/// hosts are `pairs` in workload order: a random
/// ephemeral port (the first draw of the flow's random stream), or with `network.sport =
/// "ns3-pair-counter"` the ns-3 HPCC fork's `10000 + n`, where `n` counts the earlier flows of
/// the same (source, destination) pair in workload order (16 bits, wrapping).
pub fn flow_entropies(sc: &Scenario, pairs: &[(u32, u32)]) -> Vec<u16> {
    if sc.net.sport_pair_counter {
        let mut seen: std::collections::HashMap<(u32, u32), u16> = std::collections::HashMap::new();
        pairs
            .iter()
            .map(|&pair| {
                let n = seen.entry(pair).or_insert(0);
                let port = 10_000u16.wrapping_add(*n);
                *n = n.wrapping_add(1);
                port
            })
            .collect()
    } else {
        (0..pairs.len())
            .map(|i| entropy_from(&mut Rng::derive(sc.seed, stream::FLOW, i as u64)))
            .collect()
    }
}
