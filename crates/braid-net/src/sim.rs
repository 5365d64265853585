//! The discrete-event simulator: one event queue, packets in an arena, ports with priority
//! queues, switches with a shared buffer, ECN and PFC, host NICs that pull packets from their
//! flows' senders, and receivers with a reorder buffer shared by all flows of the NIC.
//!
//! The protocol logic (senders, receivers) is sans-IO code from `braid-proto`; this module is the
//! driver that moves its packets through a network. It follows the network model of Rondo §2, §5
//! and §6.1–6.2.1 and the HPCC ns-3 switch model (`shared/specs/baselines.md` §0).
//!
//! Conservation: every data packet a host injects is, at the end, delivered to its receiver
//! (accepted in order or into the reorder buffer), dropped with a [`DropReason`], or still in
//! flight; [`Sim::conservation`] checks it.

use std::collections::HashMap;

use braid_core::packet::flags;
use braid_core::rng::stream;
use braid_core::{Arena, EventQueue, FlowId, IntHop, IntStack, LinkId, NodeId, Packet, PacketKind, PktId, PortId, Rate, Rng, Time};
use braid_proto::receiver::{Receiver, RxMode, RxReply, RxVerdict};
use braid_proto::transport::{AckIn, PathSample, Sender};

use crate::config::{LinkChange, LinkEvent, NetConfig, CLASS_CONTROL, CLASS_DATA, CLASS_PROBE, NUM_CLASSES};
use crate::port::Port;
use crate::routes::{Graph, Routes};
use crate::switch_routing::SwitchRouting;
use crate::stats::{DropReason, Histogram, PortQueueStats, SimStats};
use crate::topology::{NodeKind, Topology};

/// An event. Small and `Copy`; packets travel as handles.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Packet `pkt` has fully arrived at the far end of `port`.
    Arrive {
        /// The packet.
        pkt: u32,
        /// The port it was sent on.
        port: u32,
    },
    /// `port` finished serialising its packet and can start the next one.
    TxDone {
        /// The port.
        port: u32,
    },
    /// A host's pacing wake-up: some flow may send now.
    NicWake {
        /// Host index.
        host: u32,
    },
    /// A flow's timer (RTO, CC timers).
    FlowTimer {
        /// The flow.
        flow: u32,
    },
    /// A flow becomes active.
    FlowStart {
        /// The flow.
        flow: u32,
    },
    /// A PFC PAUSE or RESUME reaches `port`.
    Pfc {
        /// The paused port.
        port: u32,
        /// Priority class.
        class: u8,
        /// PAUSE (true) or RESUME (false).
        pause: bool,
    },
    /// A scheduled link change (index into the link-event list).
    Link {
        /// Index into [`Sim::link_events`].
        idx: u32,
    },
    /// Periodic sampling of queues and reorder state.
    Sample,
    /// A receiving host's pull pacer may send its next pull (receiver-driven transports, EQDS).
    PullTick {
        /// Host index.
        host: u32,
    },
    /// The LCMP congestion monitor's periodic sample (see [`crate::switch_routing`]).
    RouteMonitor,
    /// A sample of the DCI-to-DCI links' utilisation (`output.link_util`).
    LinkUtil,
}

/// Per-host NIC state.
#[derive(Clone, Debug)]
pub struct Host {
    /// The host's node.
    pub node: NodeId,
    /// Its (first) egress port.
    pub port: PortId,
    /// Flows this host is sending, not yet complete.
    pub active: Vec<FlowId>,
    /// Round-robin position in `active`.
    pub rr: usize,
    /// Time of the earliest pending `NicWake`, `Time::MAX` if none.
    pub wake_at: Time,
    /// Bytes held in the shared reorder buffer.
    pub reorder_used: u64,
    /// NIC-level OOD: sum of the OOD of all flows arriving here.
    pub nic_ood: u64,
    /// NIC-level RBO: out-of-order packets held, summed over flows.
    pub nic_rbo: u64,
    /// Largest NIC-level OOD seen.
    pub nic_ood_max: u64,
}

/// A flow's run-time state.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Sending host index.
    pub src_host: u32,
    /// Receiving host index.
    pub dst_host: u32,
    /// Message size.
    pub size_bytes: u64,
    /// Earliest start (for dependent flows: offset after the last dependency completes).
    pub start: Time,
    /// When it actually became active.
    pub started_at: Option<Time>,
    /// When the sender had every byte acknowledged.
    pub finish: Option<Time>,
    /// When the receiver had every byte delivered in order.
    pub delivered_at: Option<Time>,
    /// The sender.
    pub sender: Sender,
    /// The receiver.
    pub receiver: Receiver,
    /// Earliest pending `FlowTimer` event.
    pub timer_at: Time,
    /// Ideal FCT (the flow alone on its best path at line rate).
    pub ideal_fct: Time,
    /// Current OOD (mirrors the receiver; kept for the NIC-level sum).
    pub ood: u32,
    /// Dependencies not yet complete.
    pub deps_left: u32,
    /// Application bytes delivered in order.
    pub delivered_bytes: u64,
    /// Probe packets sent / acknowledged.
    pub probes_sent: u64,
    /// Group tag (job) for JCT.
    pub tag: u32,
}

/// The best path between two hosts: the minimum-hop path with the largest bottleneck rate, and
/// among those the smallest propagation delay.
#[derive(Clone, Debug, PartialEq)]
pub struct PathInfo {
    /// (rate, propagation delay) of each link, source first.
    pub hops: Vec<(Rate, Time)>,
}

impl PathInfo {
    /// Smallest link rate.
    pub fn bottleneck(&self) -> Rate {
        self.hops.iter().map(|h| h.0).min().unwrap_or(Rate(0))
    }
    /// One-way propagation delay.
    pub fn prop_delay(&self) -> Time {
        self.hops.iter().fold(Time::ZERO, |a, h| a + h.1)
    }
    /// Base RTT: propagation both ways plus one data packet's serialisation per hop forward and
    /// one ACK's backward.
    pub fn base_rtt(&self, data_wire_bytes: u64, ack_bytes: u64) -> Time {
        let mut t = Time(self.prop_delay().0 * 2);
        for &(r, _) in &self.hops {
            t += r.tx_time(data_wire_bytes) + r.tx_time(ack_bytes);
        }
        t
    }
    /// Switch hops (links − 1).
    pub fn switch_hops(&self) -> u8 {
        self.hops.len().saturating_sub(1) as u8
    }
    /// Ideal FCT of a message: every packet through the bottleneck back to back, the first packet
    /// store-and-forwarded up to it and the last one after it, then the last ACK back.
    pub fn ideal_fct(&self, size_bytes: u64, mtu: u32, header: u32, ack_bytes: u32) -> Time {
        if self.hops.is_empty() {
            return Time::ZERO;
        }
        let mtu = mtu.max(1) as u64;
        let pkts = size_bytes.div_ceil(mtu).max(1);
        let total_wire = size_bytes + pkts * header as u64;
        let first = size_bytes.min(mtu) + header as u64;
        let last = (size_bytes - (pkts - 1) * mtu).max(if size_bytes == 0 { 0 } else { 1 }) + header as u64;
        let b = (0..self.hops.len()).min_by_key(|&i| self.hops[i].0).unwrap_or(0);
        let mut t = Time::ZERO;
        for (i, &(r, d)) in self.hops.iter().enumerate() {
            if i < b {
                t += r.tx_time(first);
            } else if i == b {
                t += r.tx_time(total_wire);
            } else {
                t += r.tx_time(last);
            }
            t += d + d + r.tx_time(ack_bytes as u64);
        }
        t
    }
}

/// RED-like marking probability for a queue of `q` bytes: 0 up to Kmin, rising linearly to `pmax`
/// at Kmax, 1 above Kmax (HPCC ns-3 `ShouldSendCN`; Kmin = Kmax gives DCTCP's step marking).
#[inline]
pub fn ecn_mark_probability(q: u64, kmin: u64, kmax: u64, pmax: f64) -> f64 {
    if q > kmax {
        1.0
    } else if q > kmin {
        pmax * (q - kmin) as f64 / (kmax - kmin).max(1) as f64
    } else {
        0.0
    }
}

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every flow completed.
    AllFlowsComplete,
    /// The stop time was reached.
    StopTime,
    /// No events were left but some flows had not completed.
    Stalled,
}

/// Sampling configuration.
#[derive(Clone, Debug, Default)]
pub struct SampleConfig {
    /// Sampling interval (`None`: no periodic sampling).
    pub interval: Option<Time>,
    /// Record a `queues.csv` time series.
    pub queues_series: bool,
    /// Record an `ood.csv` time series.
    pub ood_series: bool,
    /// Record a `goodput.csv` time series.
    pub goodput_series: bool,
    /// Record a `paths.csv` time series: each active flow's per-logical-path state
    /// ([`Sender::path_samples`]; multipath senders that report it, such as Rondo).
    pub paths_series: bool,
}

/// The simulator.
pub struct Sim {
    /// Network parameters.
    pub cfg: NetConfig,
    /// The topology it was built from.
    pub topo: Topology,
    /// Event queue.
    pub q: EventQueue<Ev>,
    /// Packet arena.
    pub pkts: Arena<Packet>,
    /// INT stacks of packets that carry one (`Packet::int` = handle + 1).
    pub ints: Arena<IntStack>,
    /// Ports.
    pub ports: Vec<Port>,
    /// Egress ports of each node.
    pub node_ports: Vec<Vec<PortId>>,
    /// Whether each node is a host.
    pub is_host: Vec<bool>,
    /// Host index of each node (`u32::MAX` for switches).
    pub host_of_node: Vec<u32>,
    /// Hosts.
    pub hosts: Vec<Host>,
    /// Shared-buffer bytes in use, per node.
    pub buffer_used: Vec<u64>,
    /// Shared-buffer capacity, per node.
    pub buffer_cap: Vec<u64>,
    /// ECMP hash seed per node.
    pub hash_seed: Vec<u32>,
    /// Random streams per node (RED marking, tie-breaks).
    pub node_rng: Vec<Rng>,
    /// Random streams per port (link loss).
    pub port_rng: Vec<Rng>,
    /// Next-hop tables.
    pub routes: Routes,
    /// Switch-side routing: the scheme, LCMP routers, the control plane's path table.
    pub routing: SwitchRouting,
    /// Flows.
    pub flows: Vec<Flow>,
    /// Flows that wait for each flow's completion.
    pub dependents: Vec<Vec<FlowId>>,
    /// Scheduled link changes.
    pub link_events: Vec<LinkEvent>,
    /// Counters.
    pub stats: SimStats,
    /// NIC-level OOD, sampled at every data arrival.
    pub nic_ood_hist: Histogram,
    /// NIC-level RBO, sampled at every data arrival.
    pub nic_rbo_hist: Histogram,
    /// Per-port queue statistics from periodic samples (switch ports only).
    pub queue_stats: Vec<PortQueueStats>,
    /// Time series rows `(time, port, bytes)`.
    pub queue_series: Vec<(Time, u32, u64)>,
    /// Time series rows `(time, host, nic_ood, nic_rbo)`.
    pub ood_series: Vec<(Time, u32, u64, u64)>,
    /// Time series rows `(time, application bytes delivered in order so far)`.
    pub goodput_series: Vec<(Time, u64)>,
    /// Time series rows `(time, flow, one logical path's state)`.
    pub path_series: Vec<(Time, u32, PathSample)>,
    /// Packet capture (pcap output): `capture_ports[port]` marks the ports whose transmissions are
    /// recorded; empty when capture is off (see [`Sim::capture_link`]).
    pub capture_ports: Vec<bool>,
    /// Captured packets: (time the packet started crossing the link, egress port, a copy of the
    /// packet), in transmission order.
    pub captured: Vec<(Time, u32, Packet)>,
    /// Sampling configuration.
    pub sampling: SampleConfig,
    /// When each (flow, psn) was first dropped, for the retransmission delay.
    lost_at: HashMap<u64, Time>,
    flows_done: usize,
    path_cache: HashMap<(u32, u32), PathInfo>,
    master_seed: u64,
    /// Receiver-side pull pacers (EQDS); see [`PullPacers`].
    pub pull_pacers: PullPacers,
}

impl Sim {
    /// Build a simulator for `topo` (which must already be validated).
    pub fn new(topo: Topology, cfg: NetConfig, seed: u64) -> Sim {
        let n = topo.nodes.len();
        let mut ports = Vec::with_capacity(topo.links.len() * 2);
        let mut node_ports = vec![Vec::new(); n];
        for (li, l) in topo.links.iter().enumerate() {
            let a = PortId::from_idx(ports.len());
            ports.push(Port::new(l.a, l.b, LinkId::from_idx(li), l.rate, l.delay));
            let b = PortId::from_idx(ports.len());
            ports.push(Port::new(l.b, l.a, LinkId::from_idx(li), l.rate, l.delay));
            ports[a.idx()].reverse = b;
            ports[b.idx()].reverse = a;
            node_ports[l.a.idx()].push(a);
            node_ports[l.b.idx()].push(b);
        }
        for p in &mut ports {
            p.loss = cfg.loss_rate;
            let (kmin, kmax) = if cfg.ecn.scale_with_rate {
                let k = p.rate.bps() as f64 / 100e9;
                ((cfg.ecn.kmin_bytes as f64 * k) as u64, (cfg.ecn.kmax_bytes as f64 * k) as u64)
            } else {
                (cfg.ecn.kmin_bytes, cfg.ecn.kmax_bytes)
            };
            p.kmin = kmin;
            p.kmax = kmax.max(kmin);
        }
        let is_host: Vec<bool> = topo.nodes.iter().map(|x| x.kind == NodeKind::Host).collect();
        let host_nodes = topo.hosts();
        let mut host_of_node = vec![u32::MAX; n];
        let mut hosts = Vec::with_capacity(host_nodes.len());
        for (i, &h) in host_nodes.iter().enumerate() {
            host_of_node[h.idx()] = i as u32;
            hosts.push(Host {
                node: h,
                port: node_ports[h.idx()][0],
                active: Vec::new(),
                rr: 0,
                wake_at: Time::MAX,
                reorder_used: 0,
                nic_ood: 0,
                nic_rbo: 0,
                nic_ood_max: 0,
            });
        }
        let buffer_cap: Vec<u64> = topo
            .nodes
            .iter()
            .map(|x| {
                x.buffer_bytes.unwrap_or(match x.kind {
                    NodeKind::Dci => cfg.dci_buffer_bytes,
                    _ => cfg.switch_buffer_bytes,
                })
            })
            .collect();
        let port_peer: Vec<NodeId> = ports.iter().map(|p| p.peer).collect();
        let port_up = vec![true; ports.len()];
        let routes = Routes::compute(
            &Graph { node_ports: &node_ports, port_peer: &port_peer, is_host: &is_host, port_up: &port_up },
            &host_nodes,
        );
        let n_ports = ports.len();
        let routing = SwitchRouting::new(&topo, cfg.routing, &cfg.routing_params, &node_ports, &ports, &routes, &host_nodes, &buffer_cap);
        Sim {
            q: EventQueue::new(),
            pkts: Arena::new(),
            ints: Arena::new(),
            hash_seed: (0..n as u32).collect(),
            node_rng: (0..n as u64).map(|i| Rng::derive(seed, stream::SWITCH, i)).collect(),
            port_rng: (0..n_ports as u64).map(|i| Rng::derive(seed, stream::LINK, i)).collect(),
            buffer_used: vec![0; n],
            buffer_cap,
            ports,
            node_ports,
            is_host,
            host_of_node,
            hosts,
            routes,
            routing,
            flows: Vec::new(),
            dependents: Vec::new(),
            link_events: Vec::new(),
            stats: SimStats::default(),
            nic_ood_hist: Histogram::default(),
            nic_rbo_hist: Histogram::default(),
            queue_stats: vec![PortQueueStats::default(); n_ports],
            queue_series: Vec::new(),
            ood_series: Vec::new(),
            goodput_series: Vec::new(),
            path_series: Vec::new(),
            capture_ports: Vec::new(),
            captured: Vec::new(),
            sampling: SampleConfig::default(),
            lost_at: HashMap::new(),
            flows_done: 0,
            path_cache: HashMap::new(),
            master_seed: seed,
            pull_pacers: PullPacers::default(),
            cfg,
            topo,
        }
    }

    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.master_seed
    }

    /// Record every packet that starts crossing `link`, in both directions, into
    /// [`Sim::captured`] (for pcap output). Panics if the link does not exist.
    pub fn capture_link(&mut self, link: LinkId) {
        assert!(link.idx() < self.topo.links.len(), "capture_link: link {} does not exist", link.idx());
        if self.capture_ports.is_empty() {
            self.capture_ports = vec![false; self.ports.len()];
        }
        for (i, p) in self.ports.iter().enumerate() {
            if p.link == link {
                self.capture_ports[i] = true;
            }
        }
    }

    /// Number of hosts.
    pub fn n_hosts(&self) -> usize {
        self.hosts.len()
    }

    /// The best path from host `src` to host `dst` (see [`PathInfo`]); `None` if unreachable.
    pub fn path_info(&mut self, src: u32, dst: u32) -> Option<PathInfo> {
        if let Some(p) = self.path_cache.get(&(src, dst)) {
            return Some(p.clone());
        }
        let dst_node = self.hosts[dst as usize].node;
        let mut memo: HashMap<u32, Option<(Rate, Time, Vec<(Rate, Time)>)>> = HashMap::new();
        let r = self.best_from(self.hosts[src as usize].node, dst, dst_node, &mut memo)?;
        let info = PathInfo { hops: r.2 };
        self.path_cache.insert((src, dst), info.clone());
        Some(info)
    }

    fn best_from(
        &self,
        node: NodeId,
        dst: u32,
        dst_node: NodeId,
        memo: &mut HashMap<u32, Option<(Rate, Time, Vec<(Rate, Time)>)>>,
    ) -> Option<(Rate, Time, Vec<(Rate, Time)>)> {
        if node == dst_node {
            return Some((Rate(u64::MAX), Time::ZERO, Vec::new()));
        }
        if let Some(m) = memo.get(&node.0) {
            return m.clone();
        }
        let mut best: Option<(Rate, Time, Vec<(Rate, Time)>)> = None;
        for &p in self.routes.next_hops(node, dst) {
            let port = &self.ports[p.idx()];
            if let Some((r, d, mut hops)) = self.best_from(port.peer, dst, dst_node, memo) {
                let r2 = r.min(port.rate);
                let d2 = d + port.delay;
                let better = match &best {
                    None => true,
                    Some((br, bd, _)) => r2 > *br || (r2 == *br && d2 < *bd),
                };
                if better {
                    hops.insert(0, (port.rate, port.delay));
                    best = Some((r2, d2, hops));
                }
            }
        }
        memo.insert(node.0, best.clone());
        best
    }

    /// Add a flow. `sender` and `receiver` must be built for `size_bytes`. Returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn add_flow(
        &mut self,
        src_host: u32,
        dst_host: u32,
        size_bytes: u64,
        start: Time,
        sender: Sender,
        receiver: Receiver,
        ideal_fct: Time,
        tag: u32,
    ) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        self.flows.push(Flow {
            src_host,
            dst_host,
            size_bytes,
            start,
            started_at: None,
            finish: None,
            delivered_at: None,
            sender,
            receiver,
            timer_at: Time::MAX,
            ideal_fct,
            ood: 0,
            deps_left: 0,
            delivered_bytes: 0,
            probes_sent: 0,
            tag,
        });
        self.dependents.push(Vec::new());
        id
    }

    /// Make `flow` wait for `on` to complete before it starts.
    pub fn add_dependency(&mut self, flow: FlowId, on: FlowId) {
        self.flows[flow.idx()].deps_left += 1;
        self.dependents[on.idx()].push(flow);
    }

    /// Schedule link changes.
    pub fn add_link_events(&mut self, evs: &[LinkEvent]) {
        for e in evs {
            self.link_events.push(*e);
        }
    }

    /// Flows completed so far.
    pub fn flows_done(&self) -> usize {
        self.flows_done
    }

    /// Schedule the initial events. Call once before [`Sim::run`].
    pub fn prepare(&mut self) {
        for f in 0..self.flows.len() {
            if self.flows[f].deps_left == 0 {
                let t = self.flows[f].start;
                self.q.push(t, Ev::FlowStart { flow: f as u32 });
            }
        }
        for (i, e) in self.link_events.iter().enumerate() {
            self.q.push(e.at, Ev::Link { idx: i as u32 });
        }
        if let Some(iv) = self.sampling.interval {
            self.q.push(iv, Ev::Sample);
        }
        self.routing_prepare();
    }

    /// Run until every flow completes, `stop` is reached, or no events remain. `progress` is
    /// called now and then with the current simulated time.
    pub fn run(&mut self, stop: Option<Time>, progress: &mut dyn FnMut(&Sim)) -> RunEnd {
        let stop = stop.unwrap_or(Time::MAX);
        let mut n: u32 = 0;
        loop {
            if self.flows_done == self.flows.len() && !self.flows.is_empty() {
                return RunEnd::AllFlowsComplete;
            }
            match self.q.peek_time() {
                None => {
                    return if self.flows_done == self.flows.len() { RunEnd::AllFlowsComplete } else { RunEnd::Stalled };
                }
                Some(t) if t > stop => return RunEnd::StopTime,
                _ => {}
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.handle(now, ev);
            n = n.wrapping_add(1);
            if n & 0xFFFF == 0 {
                progress(self);
            }
        }
    }

    /// Process one event.
    #[inline]
    pub fn handle(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Arrive { pkt, port } => self.on_arrive(now, PktId(pkt), PortId(port)),
            Ev::TxDone { port } => {
                let p = PortId(port);
                self.ports[p.idx()].txdone_pending = false;
                self.pump(now, p);
            }
            Ev::NicWake { host } => {
                let h = &mut self.hosts[host as usize];
                if h.wake_at <= now {
                    h.wake_at = Time::MAX;
                }
                let port = h.port;
                self.pump(now, port);
            }
            Ev::FlowTimer { flow } => self.on_flow_timer(now, FlowId(flow)),
            Ev::FlowStart { flow } => self.start_flow(now, FlowId(flow)),
            Ev::Pfc { port, class, pause } => self.on_pfc(now, PortId(port), class as usize, pause),
            Ev::Link { idx } => self.on_link_event(now, idx as usize),
            Ev::Sample => self.on_sample(now),
            Ev::PullTick { host } => self.on_pull_tick(now, host),
            Ev::RouteMonitor => self.on_route_monitor(now),
            Ev::LinkUtil => self.on_link_util(now),
        }
    }

    fn start_flow(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.started_at.is_some() {
            return;
        }
        fl.started_at = Some(now);
        let h = fl.src_host as usize;
        self.hosts[h].active.push(f);
        self.arm_flow_timer(now, f);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    fn arm_flow_timer(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if let Some(t) = fl.sender.poll_timeout() {
            let t = t.max(now);
            if t < fl.timer_at {
                fl.timer_at = t;
                self.q.push(t, Ev::FlowTimer { flow: f.0 });
            }
        }
    }

    fn on_flow_timer(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.timer_at <= now {
            fl.timer_at = Time::MAX;
        }
        if fl.finish.is_some() {
            return;
        }
        if fl.sender.poll_timeout().is_some_and(|t| t <= now) {
            fl.sender.on_timeout(now);
        }
        let h = fl.src_host as usize;
        self.arm_flow_timer(now, f);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    /// Start the next transmission on `port` if it is idle and has something to send.
    fn pump(&mut self, now: Time, port: PortId) {
        let p = &mut self.ports[port.idx()];
        if p.busy_until > now {
            if !p.txdone_pending {
                p.txdone_pending = true;
                let t = p.busy_until;
                self.q.push(t, Ev::TxDone { port: port.0 });
            }
            return;
        }
        if !p.up {
            return;
        }
        let node = p.node;
        if let Some(c) = p.next_class() {
            let pkt = self.dequeue(port, c);
            self.transmit(now, port, pkt);
            let p = &mut self.ports[port.idx()];
            // Hosts always come back (their flows may have more); switches when packets wait.
            if !p.txdone_pending && (self.is_host[node.idx()] || p.next_class().is_some()) {
                p.txdone_pending = true;
                let t = p.busy_until;
                self.q.push(t, Ev::TxDone { port: port.0 });
            }
        } else if self.is_host[node.idx()] {
            let h = self.host_of_node[node.idx()];
            if !self.ports[port.idx()].paused[CLASS_DATA as usize] {
                self.host_pull(now, h, port);
            }
        }
    }

    /// Ask the host's flows, round robin, for a packet to send now.
    fn host_pull(&mut self, now: Time, h: u32, port: PortId) {
        let host = &self.hosts[h as usize];
        let n = host.active.len();
        if n == 0 {
            return;
        }
        let rr = host.rr % n;
        let mut earliest = Time::MAX;
        for i in 0..n {
            let idx = (rr + i) % n;
            let f = self.hosts[h as usize].active[idx];
            let fl = &mut self.flows[f.idx()];
            let t = fl.sender.next_send_time(now);
            if t <= now {
                if let Some(tx) = fl.sender.poll_transmit(now) {
                    let is_probe = tx.kind == PacketKind::Probe;
                    let payload = tx.payload_bytes;
                    let is_rts = tx.kind == PacketKind::Rts;
                    let size = if is_rts {
                        self.cfg.ack_bytes
                    } else if is_probe {
                        self.cfg.mtu_bytes + self.cfg.header_bytes
                    } else {
                        payload + self.cfg.header_bytes
                    };
                    let mut fl_flags = 0u8;
                    if tx.retx {
                        fl_flags |= flags::RETX;
                    }
                    if tx.timestamped {
                        fl_flags |= flags::TIMESTAMPED;
                    }
                    if tx.last {
                        fl_flags |= flags::LAST;
                    }
                    if is_probe {
                        fl.probes_sent += 1;
                    }
                    let pkt = Packet {
                        kind: tx.kind,
                        prio: if is_probe {
                            CLASS_PROBE
                        } else if is_rts {
                            CLASS_CONTROL
                        } else {
                            CLASS_DATA
                        },
                        flags: fl_flags,
                        size_bytes: size,
                        payload_bytes: payload,
                        src: self.hosts[h as usize].node,
                        dst: self.hosts[fl.dst_host as usize].node,
                        flow: f,
                        entropy: tx.entropy,
                        path: tx.path,
                        psn: tx.psn,
                        ts_sent: now,
                        ..Packet::default()
                    };
                    if is_probe {
                        self.stats.probes_sent += 1;
                    } else if !is_rts {
                        self.stats.data_injected += 1;
                        if tx.retx {
                            self.stats.retx_injected += 1;
                        }
                    }
                    let id = PktId(self.pkts.alloc(pkt));
                    self.hosts[h as usize].rr = idx + 1;
                    self.transmit(now, port, id);
                    self.arm_flow_timer(now, f);
                    // Come back when the port is free: more packets may be ready.
                    let p = &mut self.ports[port.idx()];
                    if !p.txdone_pending {
                        p.txdone_pending = true;
                        let t = p.busy_until;
                        self.q.push(t, Ev::TxDone { port: port.0 });
                    }
                    return;
                }
                let t2 = fl.sender.next_send_time(now);
                if t2 > now {
                    earliest = earliest.min(t2);
                }
            } else {
                earliest = earliest.min(t);
            }
        }
        let host = &mut self.hosts[h as usize];
        if earliest != Time::MAX && earliest < host.wake_at {
            host.wake_at = earliest;
            self.q.push(earliest, Ev::NicWake { host: h });
        }
    }

    /// Remove the head packet of class `c` at `port`, releasing buffer and PFC accounting.
    fn dequeue(&mut self, port: PortId, c: usize) -> PktId {
        let p = &mut self.ports[port.idx()];
        let pkt = p.queues[c].pop_front().expect("class has a packet");
        let node = p.node;
        let size = self.pkts.get(pkt.0).size_bytes as u64;
        p.q_bytes[c] -= size;
        if !self.is_host[node.idx()] {
            self.buffer_used[node.idx()] -= size;
            if self.cfg.pfc.enabled && c == CLASS_DATA as usize {
                let ing = PortId(self.pkts.get(pkt.0).ingress);
                let ip = &mut self.ports[ing.idx()];
                ip.ingress_bytes[c] -= size;
                if ip.pause_sent[c] {
                    let xon = self.xoff_threshold(node).saturating_sub(self.cfg.pfc.resume_offset_bytes);
                    let ip = &mut self.ports[ing.idx()];
                    if ip.ingress_bytes[c] <= xon {
                        ip.pause_sent[c] = false;
                        let t = self.q.now() + ip.delay;
                        self.q.push(t, Ev::Pfc { port: ing.0, class: c as u8, pause: false });
                        self.stats.pfc_resumes_sent += 1;
                    }
                }
            }
        }
        pkt
    }

    fn xoff_threshold(&self, node: NodeId) -> u64 {
        match self.cfg.pfc.xoff_bytes {
            Some(x) => x,
            None => (self.buffer_cap[node.idx()].saturating_sub(self.buffer_used[node.idx()])) >> self.cfg.pfc.shift,
        }
    }

    /// Start serialising `pkt` on the idle `port`.
    fn transmit(&mut self, now: Time, port: PortId, pkt: PktId) {
        let is_switch = !self.is_host[self.ports[port.idx()].node.idx()];
        let p = &mut self.ports[port.idx()];
        let pk = self.pkts.get_mut(pkt.0);
        let size = pk.size_bytes as u64;
        if is_switch && pk.kind.is_forward() {
            let c = pk.prio as usize;
            if self.cfg.ecn.enabled && c != CLASS_CONTROL as usize {
                let prob = ecn_mark_probability(p.q_bytes[c], p.kmin, p.kmax, self.cfg.ecn.pmax);
                if prob >= 1.0 || (prob > 0.0 && self.node_rng[p.node.idx()].bernoulli(prob)) {
                    pk.ecn_ce = true;
                    self.stats.ecn_marks += 1;
                }
            }
            if self.cfg.int_enabled {
                if pk.int == 0 {
                    pk.int = self.ints.alloc(IntStack::default()) + 1;
                }
                self.ints.get_mut(pk.int - 1).push(IntHop {
                    ts: now,
                    tx_bytes: p.tx_bytes + size,
                    qlen_bytes: p.queued_bytes().min(u32::MAX as u64) as u32,
                    rate_mbps: (p.rate.bps() / 1_000_000) as u32,
                });
            }
        }
        p.tx_bytes += size;
        p.tx_pkts += 1;
        p.tx_bytes_class[pk.prio as usize] += size;
        let ser = p.rate.tx_time(size);
        p.busy_until = now + ser;
        if !self.capture_ports.is_empty() && self.capture_ports[port.idx()] {
            self.captured.push((now, port.0, *pk));
        }
        if p.loss > 0.0 && self.port_rng[port.idx()].bernoulli(p.loss) {
            self.drop_packet(now, pkt, DropReason::LinkLoss);
            return;
        }
        // Links deliver in order: only the head packet's arrival is in the event heap, the rest
        // wait in the port's wire queue (far fewer heap entries on long or busy links).
        let at = now + ser + p.delay;
        let seq = self.q.reserve_seq();
        if p.wire_head {
            p.wire.push_back((at, seq, pkt.0));
        } else {
            p.wire_head = true;
            self.q.push_with_seq(at, seq, Ev::Arrive { pkt: pkt.0, port: port.0 });
        }
    }

    fn on_arrive(&mut self, now: Time, pkt: PktId, port: PortId) {
        self.stats.packet_hops += 1;
        let p = &mut self.ports[port.idx()];
        match p.wire.pop_front() {
            Some((t, seq, next)) => self.q.push_with_seq(t, seq, Ev::Arrive { pkt: next, port: port.0 }),
            None => p.wire_head = false,
        }
        let p = &self.ports[port.idx()];
        if !p.up {
            self.drop_packet(now, pkt, DropReason::LinkDown);
            return;
        }
        let node = p.peer;
        if self.is_host[node.idx()] {
            self.host_receive(now, self.host_of_node[node.idx()], pkt);
        } else {
            self.forward(now, node, pkt, port);
        }
    }

    /// Route `pkt` at switch `node` and queue it on the chosen egress port. The choice is made by
    /// the switch-side routing ([`crate::switch_routing`]).
    fn forward(&mut self, now: Time, node: NodeId, pkt: PktId, ingress: PortId) {
        let pk = self.pkts.get_mut(pkt.0);
        pk.ingress = ingress.0;
        pk.hops = pk.hops.saturating_add(1);
        let Some(egress) = self.select_egress(now, node, pkt, ingress) else {
            self.drop_packet(now, pkt, DropReason::NoRoute);
            return;
        };
        self.routing_check_egress(egress);
        self.enqueue(now, node, egress, pkt);
    }

    /// Admit `pkt` into `port`'s queue at switch `node` (or drop it), then pump the port.
    fn enqueue(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let pk = self.pkts.get(pkt.0);
        let size = pk.size_bytes as u64;
        let c = pk.prio as usize;
        let ingress = PortId(pk.ingress);
        let lossless = self.cfg.pfc.enabled && c == CLASS_DATA as usize;
        let used = self.buffer_used[node.idx()];
        let cap = self.buffer_cap[node.idx()];
        let p = &self.ports[port.idx()];
        let limit = self.cfg.class_limit_bytes[c];
        let reason = if !p.up {
            Some(DropReason::LinkDown)
        } else if limit > 0 && p.q_bytes[c] + size > limit {
            Some(DropReason::ClassLimit)
        } else if used + size > cap {
            Some(DropReason::BufferFull)
        } else if !lossless && (p.q_bytes[c] + size) as f64 > self.cfg.dt_alpha * (cap - used) as f64 {
            Some(DropReason::BufferFull)
        } else {
            None
        };
        if let Some(r) = reason {
            self.drop_packet(now, pkt, r);
            return;
        }
        let p = &mut self.ports[port.idx()];
        p.queues[c].push_back(pkt);
        p.q_bytes[c] += size;
        self.buffer_used[node.idx()] += size;
        if lossless {
            let xoff = self.xoff_threshold(node);
            let ip = &mut self.ports[ingress.idx()];
            ip.ingress_bytes[c] += size;
            if !ip.pause_sent[c] && ip.ingress_bytes[c] > xoff {
                ip.pause_sent[c] = true;
                let t = now + ip.delay;
                self.q.push(t, Ev::Pfc { port: ingress.0, class: c as u8, pause: true });
                self.stats.pfc_pauses_sent += 1;
            }
        }
        self.pump(now, port);
    }

    fn on_pfc(&mut self, now: Time, port: PortId, c: usize, pause: bool) {
        let p = &mut self.ports[port.idx()];
        if pause {
            if !p.paused[c] {
                p.paused[c] = true;
                p.pause_started[c] = now;
                p.pauses_received += 1;
            }
        } else if p.paused[c] {
            p.paused[c] = false;
            p.paused_ps += (now - p.pause_started[c]).0;
            self.pump(now, port);
        }
    }

    fn drop_packet(&mut self, now: Time, pkt: PktId, reason: DropReason) {
        let pk = *self.pkts.get(pkt.0);
        if pk.int > 0 {
            self.ints.free(pk.int - 1);
        }
        match pk.kind {
            PacketKind::Data => {
                self.stats.data_dropped[reason as usize] += 1;
                self.lost_at.entry(((pk.flow.0 as u64) << 32) | pk.psn as u64).or_insert(now);
            }
            PacketKind::Probe => self.stats.probes_dropped += 1,
            _ => self.stats.control_dropped += 1,
        }
        self.pkts.free(pkt.0);
    }

    /// A packet reached host `h`.
    fn host_receive(&mut self, now: Time, h: u32, pkt: PktId) {
        let pk = *self.pkts.get(pkt.0);
        let f = pk.flow;
        match pk.kind {
            PacketKind::Data | PacketKind::Probe => {
                if pk.kind == PacketKind::Data {
                    self.pull_on_data(now, h, f, pk.entropy);
                }
                let mut reply_flags = if pk.ecn_ce { flags::ECN_ECHO } else { 0 };
                let mut kind = PacketKind::Ack;
                let cum;
                let mut ood = 0;
                let mut send_reply = true;
                // The data packet's INT stack moves to its ACK (or is freed with it).
                let mut data_int = pk.int;
                if pk.kind == PacketKind::Probe {
                    self.stats.probes_acked += 1;
                    reply_flags |= flags::PROBE_ACK;
                    cum = self.flows[f.idx()].receiver.next_expected();
                    self.pkts.free(pkt.0);
                } else {
                    let mtu = self.cfg.mtu_bytes as u64;
                    let host = &self.hosts[h as usize];
                    let room = host.reorder_used + mtu <= self.cfg.reorder_buffer_bytes;
                    let fl = &mut self.flows[f.idx()];
                    let out = fl.receiver.on_data(now, pk.psn, room);
                    // NIC-level reorder metrics.
                    let host = &mut self.hosts[h as usize];
                    host.reorder_used = (host.reorder_used as i64 + out.rbo_delta as i64 * mtu as i64).max(0) as u64;
                    host.nic_rbo = (host.nic_rbo as i64 + out.rbo_delta as i64).max(0) as u64;
                    host.nic_ood = host.nic_ood + out.ood as u64 - fl.ood as u64;
                    host.nic_ood_max = host.nic_ood_max.max(host.nic_ood);
                    fl.ood = out.ood;
                    self.nic_ood_hist.record(host.nic_ood);
                    self.nic_rbo_hist.record(host.nic_rbo);
                    let key = ((f.0 as u64) << 32) | pk.psn as u64;
                    match out.verdict {
                        RxVerdict::InOrder { delivered } => {
                            self.stats.data_delivered += 1;
                            let mtu = self.cfg.mtu_bytes as u64;
                            let before = fl.delivered_bytes;
                            fl.delivered_bytes = (fl.delivered_bytes + delivered as u64 * mtu).min(fl.size_bytes);
                            if fl.receiver.is_complete() && fl.delivered_at.is_none() {
                                fl.delivered_at = Some(now);
                                fl.delivered_bytes = fl.size_bytes;
                                self.stats.app_bytes_delivered += fl.size_bytes;
                                self.stats.last_delivery = self.stats.last_delivery.max(now);
                            }
                            self.stats.inorder_bytes += fl.delivered_bytes - before;
                            if let Some(t) = self.lost_at.remove(&key) {
                                self.stats.retx_delay_sum_ps += (now - t).0 as u128;
                                self.stats.retx_delay_count += 1;
                            }
                        }
                        RxVerdict::Buffered => {
                            self.stats.data_delivered += 1;
                            if let Some(t) = self.lost_at.remove(&key) {
                                self.stats.retx_delay_sum_ps += (now - t).0 as u128;
                                self.stats.retx_delay_count += 1;
                            }
                        }
                        RxVerdict::Duplicate => {
                            self.stats.data_dropped[DropReason::RxDuplicate as usize] += 1;
                            self.stats.spurious_retx += 1;
                        }
                        RxVerdict::DroppedOutOfOrder => {
                            self.stats.data_dropped[DropReason::RxOutOfOrder as usize] += 1;
                            self.lost_at.entry(key).or_insert(now);
                        }
                        RxVerdict::DroppedBufferFull => {
                            self.stats.data_dropped[DropReason::RxBufferFull as usize] += 1;
                            reply_flags |= flags::RX_BUFFER_FULL;
                            self.lost_at.entry(key).or_insert(now);
                        }
                    }
                    cum = out.cum_ack;
                    ood = out.ood;
                    match out.reply {
                        RxReply::Ack => {}
                        RxReply::Nak => kind = PacketKind::Nak,
                        RxReply::None => send_reply = false,
                    }
                    self.pkts.free(pkt.0);
                }
                if send_reply {
                    let ack = Packet {
                        kind,
                        prio: CLASS_CONTROL,
                        flags: reply_flags,
                        size_bytes: self.cfg.ack_bytes,
                        src: pk.dst,
                        dst: pk.src,
                        flow: f,
                        entropy: pk.entropy,
                        path: pk.path,
                        psn: pk.psn,
                        cum_ack: cum,
                        ood,
                        ts_sent: pk.ts_sent,
                        ts_rx: now,
                        hops: pk.hops,
                        int: std::mem::take(&mut data_int),
                        ..Packet::default()
                    };
                    let id = PktId(self.pkts.alloc(ack));
                    let port = self.hosts[h as usize].port;
                    debug_assert_eq!(data_int, 0);
                    let p = &mut self.ports[port.idx()];
                    p.queues[CLASS_CONTROL as usize].push_back(id);
                    p.q_bytes[CLASS_CONTROL as usize] += self.cfg.ack_bytes as u64;
                    self.pump(now, port);
                } else if data_int > 0 {
                    self.ints.free(data_int - 1);
                }
            }
            PacketKind::Ack | PacketKind::Nak => {
                self.pkts.free(pkt.0);
                let fl = &mut self.flows[f.idx()];
                if fl.finish.is_some() {
                    if pk.int > 0 {
                        self.ints.free(pk.int - 1);
                    }
                    return;
                }
                let ack = AckIn {
                    kind: pk.kind,
                    psn: pk.psn,
                    cum_ack: pk.cum_ack,
                    path: pk.path,
                    ecn: pk.flags & flags::ECN_ECHO != 0,
                    ts_sent: pk.ts_sent,
                    ts_rx: pk.ts_rx,
                    ood: pk.ood,
                    probe: pk.flags & flags::PROBE_ACK != 0,
                    rx_buffer_full: pk.flags & flags::RX_BUFFER_FULL != 0,
                    int: if pk.int > 0 { Some(self.ints.get(pk.int - 1)) } else { None },
                    hops: pk.hops,
                };
                fl.sender.on_ack(now, &ack);
                if pk.int > 0 {
                    self.ints.free(pk.int - 1);
                }
                if fl.sender.is_complete() {
                    self.complete_flow(now, f);
                    return;
                }
                self.arm_flow_timer(now, f);
                let port = self.hosts[h as usize].port;
                self.pump(now, port);
            }
            PacketKind::Pull | PacketKind::Rts => {
                self.pull_on_control(now, h, pk);
                if pk.int > 0 {
                    self.ints.free(pk.int - 1);
                }
                self.pkts.free(pkt.0);
            }
        }
    }

    fn complete_flow(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        fl.finish = Some(now);
        let h = fl.src_host as usize;
        self.flows_done += 1;
        let active = &mut self.hosts[h].active;
        if let Some(i) = active.iter().position(|&x| x == f) {
            active.remove(i);
        }
        for i in 0..self.dependents[f.idx()].len() {
            let d = self.dependents[f.idx()][i];
            let dl = &mut self.flows[d.idx()];
            dl.deps_left -= 1;
            if dl.deps_left == 0 {
                let t = now + dl.start;
                self.q.push(t, Ev::FlowStart { flow: d.0 });
            }
        }
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    fn on_link_event(&mut self, now: Time, idx: usize) {
        let e = self.link_events[idx];
        let li = e.link as usize;
        let ports = [PortId::from_idx(2 * li), PortId::from_idx(2 * li + 1)];
        match e.change {
            LinkChange::Down | LinkChange::Up => {
                let up = matches!(e.change, LinkChange::Up);
                for &p in &ports {
                    self.ports[p.idx()].up = up;
                    if !up {
                        // Drop everything queued on the dead port.
                        for c in 0..NUM_CLASSES {
                            while !self.ports[p.idx()].queues[c].is_empty() {
                                let pkt = self.dequeue(p, c);
                                self.drop_packet(now, pkt, DropReason::LinkDown);
                            }
                        }
                    }
                }
                self.recompute_routes();
                self.routing_on_link_change(ports, Some(up));
                if up {
                    for &p in &ports {
                        self.pump(now, p);
                    }
                }
            }
            LinkChange::Rate(bps) => {
                for &p in &ports {
                    self.ports[p.idx()].rate = Rate(bps.max(1));
                }
                self.routing_on_link_change(ports, None);
            }
            LinkChange::Delay(d) => {
                for &p in &ports {
                    self.ports[p.idx()].delay = d;
                }
                self.routing_on_link_change(ports, None);
            }
            LinkChange::Loss(x) => {
                for &p in &ports {
                    self.ports[p.idx()].loss = x;
                }
            }
        }
    }

    fn recompute_routes(&mut self) {
        let port_peer: Vec<NodeId> = self.ports.iter().map(|p| p.peer).collect();
        let port_up: Vec<bool> = self.ports.iter().map(|p| p.up).collect();
        let hosts: Vec<NodeId> = self.hosts.iter().map(|h| h.node).collect();
        self.routes = Routes::compute(
            &Graph { node_ports: &self.node_ports, port_peer: &port_peer, is_host: &self.is_host, port_up: &port_up },
            &hosts,
        );
    }

    fn on_sample(&mut self, now: Time) {
        for (i, p) in self.ports.iter().enumerate() {
            if self.is_host[p.node.idx()] {
                continue;
            }
            let q = p.queued_bytes();
            self.queue_stats[i].record(q);
            if self.sampling.queues_series && q > 0 {
                self.queue_series.push((now, i as u32, q));
            }
        }
        if self.sampling.ood_series {
            for (i, h) in self.hosts.iter().enumerate() {
                if h.nic_ood > 0 || h.nic_rbo > 0 {
                    self.ood_series.push((now, i as u32, h.nic_ood, h.nic_rbo));
                }
            }
        }
        if self.sampling.goodput_series {
            self.goodput_series.push((now, self.stats.inorder_bytes));
        }
        if self.sampling.paths_series {
            for (i, f) in self.flows.iter().enumerate() {
                if f.started_at.is_some() && f.finish.is_none() {
                    for s in f.sender.path_samples() {
                        self.path_series.push((now, i as u32, *s));
                    }
                }
            }
        }
        if let Some(iv) = self.sampling.interval {
            // Re-arm only while something else can still happen: a sampler alone must not keep a
            // stalled run alive forever.
            if self.flows_done < self.flows.len() && !self.q.is_empty() {
                self.q.push(now + iv, Ev::Sample);
            }
        }
    }

    /// Data packets still in the network (in queues or on links).
    pub fn data_in_flight(&self) -> u64 {
        self.stats.data_injected - self.stats.data_delivered - self.stats.data_dropped.iter().sum::<u64>()
    }

    /// Check conservation of data packets by an independent count: every live packet in the arena
    /// is either queued at some port or scheduled to arrive; data packets injected must equal
    /// delivered + dropped + those still live. Returns a description of the mismatch, if any.
    pub fn conservation(&self) -> Result<(), String> {
        let dropped: u64 = self.stats.data_dropped.iter().sum();
        let injected = self.stats.data_injected;
        let delivered = self.stats.data_delivered;
        // Count live data packets by walking the queues; packets on the wire are live in the
        // arena but in no queue, so compare with the arena's live count of all kinds.
        let mut queued_data = 0u64;
        for p in &self.ports {
            for c in 0..NUM_CLASSES {
                for &pkt in &p.queues[c] {
                    if self.pkts.get(pkt.0).kind == PacketKind::Data {
                        queued_data += 1;
                    }
                }
            }
        }
        let live = self.pkts.live() as u64;
        if injected < delivered + dropped {
            return Err(format!("more data packets accounted ({delivered} delivered + {dropped} dropped) than injected ({injected})"));
        }
        let in_flight = injected - delivered - dropped;
        if in_flight < queued_data || in_flight > live {
            return Err(format!(
                "data packets: injected {injected} ≠ delivered {delivered} + dropped {dropped} + in flight (queued {queued_data}, live packets {live})"
            ));
        }
        Ok(())
    }

    /// The receiver mode for a recovery scheme that buffers (or not) out-of-order packets.
    pub fn rx_mode(buffers: bool, nak_interval: Time) -> RxMode {
        if buffers {
            RxMode::Selective
        } else {
            RxMode::GoBackN { nak_interval }
        }
    }
}

/// Receiver-side pull pacing for receiver-driven transports (EQDS, `shared/specs/baselines.md` §9):
/// one pacer per receiving NIC, sending at most one pull per `(MTU + header)` at
/// [`PULL_RATE_FRACTION`] of the NIC's link rate, round robin over the flows with pulls pending.
/// A flow gets one pull queued per data packet that reaches its receiver and as many as an RTS
/// asks for (its PSN field); a pull carries the flow's cumulative pull count in its PSN field and
/// the receiver's cumulative ACK. Only flows whose sender is [`Sender::Eqds`] take part.
pub const PULL_RATE_FRACTION: f64 = 0.99;

/// The pull pacers of all hosts (see [`PULL_RATE_FRACTION`]). Sized lazily on first use.
#[derive(Clone, Debug, Default)]
pub struct PullPacers {
    /// Per host: flows with pulls pending, in round-robin order.
    queues: Vec<std::collections::VecDeque<u32>>,
    /// Per host: a `PullTick` is scheduled.
    armed: Vec<bool>,
    /// Per host: the earliest time of its next pull.
    next_at: Vec<Time>,
    /// Per flow: pulls queued, not yet sent.
    pending: Vec<u32>,
    /// Per flow: pulls sent (the cumulative pull number).
    sent: Vec<u32>,
    /// Per flow: UDP source port of its pulls (that of its latest data packet or RTS).
    entropy: Vec<u16>,
    /// Pulls sent, all hosts.
    pub pulls_sent: u64,
    /// RTS packets received, all hosts.
    pub rts_received: u64,
}

impl PullPacers {
    fn ensure(&mut self, hosts: usize, flows: usize) {
        if self.queues.len() < hosts {
            self.queues.resize_with(hosts, Default::default);
            self.armed.resize(hosts, false);
            self.next_at.resize(hosts, Time::ZERO);
        }
        if self.pending.len() < flows {
            self.pending.resize(flows, 0);
            self.sent.resize(flows, 0);
            self.entropy.resize(flows, 0);
        }
    }
}

impl Sim {
    fn is_pulled(&self, f: FlowId) -> bool {
        let fl = &self.flows[f.idx()];
        matches!(fl.sender, Sender::Eqds(_)) && fl.finish.is_none() && !fl.receiver.is_complete()
    }

    /// A data packet of flow `f` reached its receiver at host `h`: queue one pull.
    fn pull_on_data(&mut self, now: Time, h: u32, f: FlowId, entropy: u16) {
        if self.flows.get(f.idx()).is_some_and(|fl| matches!(fl.sender, Sender::Eqds(_))) {
            self.request_pulls(now, h, f, 1, entropy);
        }
    }

    /// A pull or RTS reached host `h`: an RTS queues pulls at this (receiving) host; a pull is
    /// handed to the sender as an [`AckIn`] of kind `Pull`.
    fn pull_on_control(&mut self, now: Time, h: u32, pk: Packet) {
        let f = pk.flow;
        if f.idx() >= self.flows.len() {
            return; // a bare control packet (engine tests inject these without flows)
        }
        match pk.kind {
            PacketKind::Rts => {
                self.pull_pacers.rts_received += 1;
                if matches!(self.flows[f.idx()].sender, Sender::Eqds(_)) {
                    self.request_pulls(now, h, f, pk.psn.max(1), pk.entropy);
                }
            }
            PacketKind::Pull => {
                let fl = &mut self.flows[f.idx()];
                if fl.finish.is_some() {
                    return;
                }
                let ack = AckIn {
                    kind: PacketKind::Pull,
                    psn: pk.psn,
                    cum_ack: pk.cum_ack,
                    path: pk.path,
                    ecn: false,
                    ts_sent: pk.ts_sent,
                    ts_rx: pk.ts_rx,
                    ood: 0,
                    probe: false,
                    rx_buffer_full: false,
                    int: None,
                    hops: pk.hops,
                };
                fl.sender.on_ack(now, &ack);
                if fl.sender.is_complete() {
                    self.complete_flow(now, f);
                    return;
                }
                self.arm_flow_timer(now, f);
                let port = self.hosts[h as usize].port;
                self.pump(now, port);
            }
            _ => {}
        }
    }

    fn request_pulls(&mut self, now: Time, h: u32, f: FlowId, n: u32, entropy: u16) {
        if !self.is_pulled(f) {
            return;
        }
        let (hosts, flows) = (self.hosts.len(), self.flows.len());
        let pp = &mut self.pull_pacers;
        pp.ensure(hosts, flows);
        let fi = f.idx();
        pp.entropy[fi] = entropy;
        if pp.pending[fi] == 0 {
            pp.queues[h as usize].push_back(f.0);
        }
        pp.pending[fi] = pp.pending[fi].saturating_add(n);
        if !pp.armed[h as usize] {
            pp.armed[h as usize] = true;
            let t = pp.next_at[h as usize].max(now);
            self.q.push(t, Ev::PullTick { host: h });
        }
    }

    fn on_pull_tick(&mut self, now: Time, h: u32) {
        let hi = h as usize;
        self.pull_pacers.armed[hi] = false;
        while let Some(f) = self.pull_pacers.queues[hi].pop_front() {
            let fid = FlowId(f);
            let fi = fid.idx();
            if self.pull_pacers.pending[fi] == 0 {
                continue;
            }
            if !self.is_pulled(fid) {
                self.pull_pacers.pending[fi] = 0;
                continue;
            }
            let pp = &mut self.pull_pacers;
            pp.pending[fi] -= 1;
            pp.sent[fi] += 1;
            pp.pulls_sent += 1;
            if pp.pending[fi] > 0 {
                pp.queues[hi].push_back(f);
            }
            let fl = &self.flows[fi];
            let pull = Packet {
                kind: PacketKind::Pull,
                prio: CLASS_CONTROL,
                size_bytes: self.cfg.ack_bytes,
                src: self.hosts[hi].node,
                dst: self.hosts[fl.src_host as usize].node,
                flow: fid,
                entropy: pp.entropy[fi],
                psn: pp.sent[fi],
                cum_ack: fl.receiver.next_expected(),
                ts_sent: now,
                ts_rx: now,
                ..Packet::default()
            };
            let id = PktId(self.pkts.alloc(pull));
            let port = self.hosts[hi].port;
            let wire = (self.cfg.mtu_bytes + self.cfg.header_bytes) as u64;
            let gap = self.ports[port.idx()].rate.tx_time(wire).mul_f64(1.0 / PULL_RATE_FRACTION);
            self.pull_pacers.next_at[hi] = now + gap;
            let p = &mut self.ports[port.idx()];
            p.queues[CLASS_CONTROL as usize].push_back(id);
            p.q_bytes[CLASS_CONTROL as usize] += self.cfg.ack_bytes as u64;
            self.pump(now, port);
            break;
        }
        let pp = &mut self.pull_pacers;
        if !pp.queues[hi].is_empty() && !pp.armed[hi] {
            pp.armed[hi] = true;
            let t = pp.next_at[hi].max(now);
            self.q.push(t, Ev::PullTick { host: h });
        }
    }
}
