//! From a validated scenario to a ready-to-run simulator: the network, then one sender and one
//! receiver per workload flow, with each flow's path environment (line rate, base RTT, the
//! network's largest RTT and BDP) computed from the topology.

use std::collections::BTreeSet;

use braid_core::rng::stream;
use braid_core::{FlowId, Rng, Time};
use braid_net::sim::Sim;
use braid_proto::cc::CcEnv;
use braid_proto::receiver::Receiver;
use braid_proto::transport::FlowEnv;
use braid_workload::Workload;

use crate::scenario::Scenario;

/// Build the simulator for a scenario. Errors name the flow or host at fault.
pub fn build(sc: &Scenario) -> Result<(Sim, Workload), String> {
    let mut sim = Sim::new(sc.topology.clone(), sc.net.clone(), sc.seed);
    sim.sampling_mut().interval = sc.output.sample_interval.or(Some(Time::from_us(10)));
    sim.sampling_mut().queues_series = sc.output.queues;
    sim.sampling_mut().ood_series = sc.output.ood;
    sim.sampling_mut().paths_series = sc.output.paths;
    if sc.output.link_util {
        sim.record_link_util(sc.output.sample_interval.unwrap_or(Time::from_ms(1)));
    }
    sim.sampling_mut().goodput_series = sc.output.goodput;
    let n_hosts = sim.n_hosts();
    let groups: Vec<u32> = sim.hosts().iter().map(|h| sc.topology.nodes[h.node.idx()].group).collect();
    let wl = sc.workload.generate(n_hosts, &groups, sc.seed).map_err(|e| format!("[workload] {e}"))?;
    if wl.flows.is_empty() {
        return Err("[workload] generates no flows".into());
    }
    for (i, f) in wl.flows.iter().enumerate() {
        if f.src as usize >= n_hosts || f.dst as usize >= n_hosts {
            return Err(format!(
                "[workload] flow {i} goes from host {} to host {}, but the topology has only {n_hosts} hosts (0–{})",
                f.src,
                f.dst,
                n_hosts - 1
            ));
        }
        if f.src == f.dst {
            return Err(format!("[workload] flow {i} goes from host {} to itself", f.src));
        }
    }
    let mtu = sc.net.mtu_bytes;
    let wire = (mtu + sc.net.header_bytes) as u64;
    let ack = sc.net.ack_bytes as u64;
    // The network's largest base RTT and BDP over the pairs the workload uses (HPCC's T and W).
    let pairs: BTreeSet<(u32, u32)> = wl.flows.iter().map(|f| (f.src, f.dst)).collect();
    let mut max_rtt = Time::ZERO;
    let mut max_bdp = 0u64;
    for &(s, d) in &pairs {
        let p = sim
            .path_info(s, d)
            .ok_or_else(|| format!("host {s} cannot reach host {d}: the topology has no path between them"))?;
        let rtt = p.base_rtt(wire, ack);
        max_rtt = max_rtt.max(rtt);
        max_bdp = max_bdp.max(p.bottleneck().bdp_bytes(rtt));
    }
    let rx_mode = Sim::rx_mode(sc.transport.receiver_buffers(), sc.transport.recovery.nak_interval);
    for (i, f) in wl.flows.iter().enumerate() {
        let p = sim.path_info(f.src, f.dst).expect("checked above");
        let line_rate = p.hops[0].0;
        let env = CcEnv {
            line_rate,
            base_rtt: p.base_rtt(wire, ack),
            max_rtt,
            max_bdp_bytes: max_bdp.max(1),
            mtu_bytes: mtu,
        };
        let mut rng = Rng::derive(sc.seed, stream::FLOW, i as u64);
        let entropy = entropy_from(&mut rng);
        let fenv = FlowEnv { cc: env, size_bytes: f.size_bytes, entropy, start: f.start, seed: rng.next_u64() };
        let sender = sc.transport.build(&fenv).map_err(|e| format!("flow {i}: {e}"))?;
        let pkts = f.size_bytes.div_ceil(mtu as u64).max(1) as u32;
        let receiver = Receiver::new(rx_mode, pkts);
        let ideal = p.ideal_fct(f.size_bytes, mtu, sc.net.header_bytes, sc.net.ack_bytes);
        sim.add_flow(f.src, f.dst, f.size_bytes, f.start, sender, receiver, ideal, f.tag);
    }
    for (i, _) in wl.flows.iter().enumerate() {
        for &d in wl.deps(i) {
            sim.add_dependency(FlowId(i as u32), FlowId(d));
        }
    }
    sim.add_link_events(&sc.link_events);
    Ok((sim, wl))
}

/// A flow's UDP source port, from the ephemeral range (the first draw of its random stream).
fn entropy_from(rng: &mut Rng) -> u16 {
    49_152 + rng.below(16_384) as u16
}

/// The UDP source port (ECMP entropy) [`build`] gives flow `i` of a scenario with seed `seed`.
pub fn flow_entropy(seed: u64, i: usize) -> u16 {
    entropy_from(&mut Rng::derive(seed, stream::FLOW, i as u64))
}
