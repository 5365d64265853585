//! The discrete-event driver: one event queue, packets in an arena, and the handlers that move
//! them through the network. The protocol logic (senders, receivers, the EQDS pull pacer,
//! routing decisions) is sans-IO code from `braid-proto`; this module and its children only
//! drive it. It follows the network model of Rondo §2, §5 and §6.1–6.2.1 and the HPCC ns-3
//! switch model.
//!
//! Where to look:
//! - this file: [`Sim`], its events [`Ev`], the run loop, flow start/timers/completion, and the
//!   read-only accessors the CLI and tests use;
//! - `sim/nic.rs`: host NICs — round-robin pulling of packets from the flows' senders, pacing
//!   wake-ups, the receiver-side pull pacers (EQDS);
//! - `sim/switch.rs`: switches — forwarding, admission into the shared buffer, PFC, ECN/INT
//!   marking at dequeue, packet trimming (`network.trim`);
//! - `sim/link.rs`: links — port scheduling, transmission, the wire queue, random loss, drops,
//!   scheduled link changes;
//! - `sim/receive.rs`: a packet reaching a host — handed to the flow's receiver (whose reply is
//!   queued) or, for ACKs and pulls, to its sender;
//! - [`crate::switch_routing`], [`crate::path`], [`crate::sampling`], [`crate::conservation`]:
//!   routing state, path maths, time series and the conservation check.

mod link;
mod mmu;
mod nic;
mod partition;
mod receive;
mod switch;

use std::collections::HashMap;
use std::sync::Arc;

use braid_core::rng::stream;
use braid_core::{
    Arena, EventQueue, FlowId, IntStack, LinkId, NodeId, Packet, PortId, Rate, Rng, Time,
};
use braid_proto::receiver::Receiver;
use braid_proto::transport::{FlowEnv, PathSample, Sender, TransportSpec};

use crate::config::{LinkChange, LinkEvent, NetConfig};
use crate::port::{Port, NOT_A_HOST};
use crate::routes::{Graph, Routes};
use crate::sampling::Samples;
use crate::stats::{Histogram, PortQueueStats, SimStats};
use crate::switch_routing::{RoutingTimer, SwitchRouting};
use crate::topology::{NodeKind, Topology};

pub use crate::endpoints::{Conn, Flow, Host, MessageCounters};

/// The hasher of the build's path caches: their keys are host pairs (and an epoch), looked up
/// once or twice each, so SipHash's resistance is not needed and its cost was a tenth of a large
/// build.
type FastKeys = std::hash::BuildHasherDefault<braid_proto::routing::flow_cache::KeyHasher>;
pub use crate::path::PathInfo;
pub use crate::sampling::SampleConfig;
pub use partition::{merge_partitions, Messages, Remote};
pub use switch::ecn_mark_probability;

/// The longest link delay whose arrivals skip the wire queue ([`Sim::prepare`]): at most 10 µs
/// of a link's traffic in flight in the calendar (36 bytes a packet instead of the wire queue's
/// 12), inside the calendar's horizon at its starting bucket width (33.5 µs; the width adapts,
/// the horizon between 4.2 and 134 µs, and an event beyond it waits in the overflow heap).
pub const DIRECT_ARRIVAL_MAX_DELAY: Time = Time::from_ps(10_000_000);

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
    /// A connection's timer (RTO, CC timers).
    FlowTimer {
        /// The connection.
        conn: u32,
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
        /// Index into the scheduled link changes ([`Sim::add_link_events`]).
        idx: u32,
    },
    /// Periodic sampling of queues and reorder state.
    Sample,
    /// A receiving host's pull pacer may send its next pull (receiver-driven transports, EQDS).
    PullTick {
        /// Host index.
        host: u32,
    },
    /// One of switch routing's timers ([`crate::switch_routing`]).
    Routing {
        /// Which.
        timer: RoutingTimer,
    },
}

// Twelve bytes: with its key an event is a 32-byte node of the calendar's ring
// (`braid_core::queue`).
const _: () = assert!(std::mem::size_of::<Ev>() == 12, "an event is 12 bytes");

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every flow completed.
    AllFlowsComplete,
    /// The stop time was reached.
    StopTime,
    /// No events were left but some flows had not completed.
    Stalled,
    /// The progress watchdog fired: flows were active, yet for the stall timeout of simulated
    /// time (see [`Sim::set_stall_timeout`]) no byte was newly delivered in order and no flow
    /// completed. The run stops instead of spinning.
    NoProgress,
    /// The caller's progress callback asked to stop (e.g. a wall-clock limit).
    Interrupted,
    /// A simulated-time limit set as a limit (not as the scenario's planned `stop`) was reached.
    Limit,
}

impl RunEnd {
    /// Whether the run ended before its flows completed for a reason other than its planned stop
    /// time: a stall, the watchdog, or a limit.
    pub fn stopped_early(self) -> bool {
        matches!(self, RunEnd::Stalled | RunEnd::NoProgress | RunEnd::Interrupted | RunEnd::Limit)
    }
}

/// A host pair's candidate paths, and their maximum-flow rate when spraying over them beats the
/// widest one ([`Sim::ideal_fct_at`]).
type Candidates = (Vec<PathInfo>, Option<Rate>);

/// The simulator.
pub struct Sim {
    /// Network parameters.
    cfg: NetConfig,
    /// The topology it was built from (one copy for all the partitions of a parallel run,
    /// [`Sim::share_tables_of`]).
    topo: Arc<Topology>,
    /// Event queue.
    q: EventQueue<Ev>,
    /// Packet arena.
    pkts: Arena<Packet>,
    /// INT stacks of packets that carry one (`pkt_int`).
    ints: Arena<IntStack>,
    /// Per packet slot: 1 + the handle of the packet's INT stack in `ints`, 0 when it carries
    /// none — beside the packets rather than in them, so that a packet is one cache line when
    /// no scheme uses INT (then this stays empty). Non-zero only while the slot's packet lives.
    pkt_int: Vec<u32>,
    /// Ports.
    ports: Vec<Port>,
    /// Egress ports of each node.
    node_ports: Vec<Vec<PortId>>,
    /// Whether each node is a host.
    is_host: Vec<bool>,
    /// Host index of each node (`u32::MAX` for switches).
    host_of_node: Vec<u32>,
    /// Hosts.
    hosts: Vec<Host>,
    /// Shared-buffer bytes in use, per node.
    buffer_used: Vec<u64>,
    /// Shared-buffer capacity, per node.
    buffer_cap: Vec<u64>,
    /// `network.dt_alpha` is 1 and every buffer below 2^52 bytes: a port's dynamic share is
    /// compared in integers, which gives the float comparison's answer exactly.
    dt_share_in_integers: bool,
    /// The byte limit of each class's queue on every port, 0 = none (`switch::class_limits`).
    class_limits: [u64; crate::config::NUM_CLASSES],
    /// The ns-3 HPCC fork's MMU (`network.mmu = "hpcc"`), for the lossless data class.
    mmu: Option<mmu::HpccMmu>,
    /// Per port, the data-class bytes its ECN queue counter kept from packets dropped at the
    /// egress cap (`network.egress_cap_leak`; empty when off).
    ecn_leak: Vec<u64>,
    /// ECMP hash seed per node.
    hash_seed: Vec<u32>,
    /// Random streams per node (RED marking, tie-breaks).
    node_rng: Vec<Rng>,
    /// Random streams per port (link loss): empty unless some link can lose packets, by
    /// `network.loss_rate` or a scheduled loss change ([`Sim::add_link_events`]).
    port_rng: Vec<Rng>,
    /// Random streams per port for packet trimming (empty when `network.trim` is off).
    trim_rng: Vec<Rng>,
    /// Next-hop tables (a clone shares the table, so the partitions of a parallel run hold one
    /// copy, [`Sim::share_tables_of`], until a link change makes a partition compute its own).
    routes: Routes,
    /// Switch-side routing: the scheme, LCMP routers, the control plane's path table.
    routing: SwitchRouting,
    /// Flows (messages), by workload index.
    flows: Vec<Flow>,
    /// Connections: the senders and receivers the flows are sent on.
    conns: Vec<Conn>,
    /// Per flow group: the transport its deferred senders are built from ([`Sim::defer_sender`]).
    specs: Vec<TransportSpec>,
    /// A one-message connection lets its sender go when it finishes (keeping its recovery
    /// counters); [`Sim::keep_finished_senders`] turns this off for tools that read senders after
    /// a run.
    release_finished: bool,
    /// Per connection: an answer of its sender's `next_send_time` later than when it was asked,
    /// kept (for senders whose answer is stable, `SenderOps::send_time_is_stable`) until the
    /// sender's next input; `Time::ZERO`: ask. A host's NIC goes round its active connections on
    /// every send, and this spares it a look at each paced or window-limited one (`nic.rs`).
    send_wait: Vec<Time>,
    /// Each connection's messages in posting order (slots `Conn::msgs_at ..`).
    conn_msgs: Vec<u32>,
    /// Flows that wait for each flow's completion.
    dependents: Vec<Vec<FlowId>>,
    /// Scheduled link changes.
    link_events: Vec<LinkEvent>,
    /// Counters.
    stats: SimStats,
    /// NIC-level OOD, sampled at every data arrival.
    nic_ood_hist: Histogram,
    /// NIC-level RBO, sampled at every data arrival.
    nic_rbo_hist: Histogram,
    /// Periodic samples and time series.
    samples: Samples,
    /// Packet capture (pcap output): `capture_ports[port]` marks the ports whose transmissions are
    /// recorded; empty when capture is off (see [`Sim::capture_link`]).
    capture_ports: Vec<bool>,
    /// Captured packets: (time the packet started crossing the link, egress port, a copy of the
    /// packet), in transmission order.
    captured: Vec<(Time, u32, Packet)>,
    /// When each (flow, psn) was first dropped, for the retransmission delay (looked up for
    /// every accepted data packet, so hashed by the routing flow cache's multiplicative hasher,
    /// as a 128-bit key to mix the PSN's and the flow's halves; never iterated, so the hasher
    /// cannot reach an output).
    lost_at: HashMap<
        u128,
        Time,
        std::hash::BuildHasherDefault<braid_proto::routing::flow_cache::KeyHasher>,
    >,
    flows_done: usize,
    /// Every flow is done and there is at least one (kept by [`Sim::note_flow_count`] wherever
    /// either count changes: the run loop reads it after every event).
    all_flows_done: bool,
    /// Flows that have started (active = started − done).
    flows_started: usize,
    /// The progress watchdog's span (`None`: off).
    stall_timeout: Option<Time>,
    /// Links of delay at most this put arrivals straight into the event queue (`None`: no link
    /// does; [`Sim::set_direct_arrivals`]).
    direct_arrival_max_delay: Option<Time>,
    /// When the run last made progress (a byte delivered in order, a flow completed, or no flow
    /// active).
    progress_at: Time,
    /// [`Sim::path_info`]'s paths, by (source, destination). This and the next four caches serve
    /// the build (a flow's path environment and ideal FCT); [`Sim::prepare`] lets them go.
    path_cache: HashMap<(u32, u32), PathInfo, FastKeys>,
    /// [`Sim::path_info_at`]'s paths, by (source, destination, link events in effect).
    path_cache_at: HashMap<(u32, u32, usize), Option<PathInfo>, FastKeys>,
    /// [`Sim::ideal_fct_at`]'s candidate paths, by (source, destination, link events in effect).
    candidates_at: HashMap<(u32, u32, usize), Candidates, FastKeys>,
    /// The port states after the first `.0` link events, for [`Sim::path_info_at`].
    port_states_at: Option<(usize, Vec<crate::path::PortState>)>,
    /// The ports' live states, as [`Sim::ideal_fct_at`] reads them when no link event precedes
    /// the flow (built once, not per flow; dropped whenever a link changes).
    live_port_states: Option<Vec<crate::path::PortState>>,
    master_seed: u64,
    /// Receiver-side pull pacers (EQDS).
    /// In a parallel run: the partition this simulator is ([`Sim::make_partition`]).
    part: Option<Box<partition::Part>>,
    /// After merging a parallel run: data packets queued, and packets alive, in the other
    /// partitions' arenas (for the conservation check).
    foreign_live: (u64, u64),
    /// Warnings about the run's set-up that the caller prints and records (`summary.json`'s
    /// `warnings`), in the order they were found.
    notes: Vec<String>,
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
        let mut host_of_node = vec![NOT_A_HOST; n];
        let mut hosts = Vec::with_capacity(host_nodes.len());
        for (i, &h) in host_nodes.iter().enumerate() {
            host_of_node[h.idx()] = i as u32;
            for &p in &node_ports[h.idx()] {
                ports[p.idx()].at_host = true;
                let r = ports[p.idx()].reverse;
                ports[r.idx()].peer_host = i as u32;
            }
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
                pull_pacer: Default::default(),
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
            &Graph {
                node_ports: &node_ports,
                port_peer: &port_peer,
                is_host: &is_host,
                port_up: &port_up,
                ns3_order: cfg.routing_params.nexthop_order
                    == braid_proto::routing::NextHopOrder::Ns3Bfs,
            },
            &host_nodes,
        );
        let n_ports = ports.len();
        let mmu = match cfg.mmu {
            crate::config::MmuModel::Braid => None,
            crate::config::MmuModel::Hpcc { wrap32 } => {
                let nic_bps =
                    hosts.iter().map(|h| ports[h.port.idx()].rate.bps()).max().unwrap_or(0);
                Some(mmu::HpccMmu::new(
                    &buffer_cap,
                    &ports,
                    &node_ports,
                    &is_host,
                    nic_bps,
                    cfg.pfc.shift,
                    wrap32,
                ))
            }
        };
        let routing = SwitchRouting::new(
            &topo,
            cfg.routing,
            &cfg.routing_params,
            &node_ports,
            &ports,
            &routes,
            &host_nodes,
            &buffer_cap,
        );
        Sim {
            q: EventQueue::new(),
            pkts: Arena::new(),
            ints: Arena::new(),
            pkt_int: Vec::new(),
            hash_seed: (0..n as u32).collect(),
            node_rng: streams(seed, stream::SWITCH, n),
            port_rng: if cfg.loss_rate > 0.0 {
                streams(seed, stream::LINK, n_ports)
            } else {
                Vec::new()
            },
            trim_rng: if cfg.trim.enabled {
                streams(seed, stream::TRIM, n_ports)
            } else {
                Vec::new()
            },
            buffer_used: vec![0; n],
            dt_share_in_integers: cfg.dt_alpha == 1.0 && buffer_cap.iter().all(|&c| c < 1 << 52),
            class_limits: switch::class_limits(&cfg),
            buffer_cap,
            mmu,
            ecn_leak: if cfg.egress_cap_leak { vec![0; n_ports] } else { Vec::new() },
            ports,
            node_ports,
            is_host,
            host_of_node,
            hosts,
            routes,
            routing,
            flows: Vec::new(),
            conns: Vec::new(),
            send_wait: Vec::new(),
            conn_msgs: Vec::new(),
            dependents: Vec::new(),
            link_events: Vec::new(),
            stats: SimStats::default(),
            nic_ood_hist: Histogram::default(),
            nic_rbo_hist: Histogram::default(),
            samples: Samples::new(n_ports),
            capture_ports: Vec::new(),
            captured: Vec::new(),
            lost_at: HashMap::default(),
            flows_done: 0,
            all_flows_done: false,
            flows_started: 0,
            stall_timeout: None,
            direct_arrival_max_delay: Some(DIRECT_ARRIVAL_MAX_DELAY),
            progress_at: Time::ZERO,
            path_cache: HashMap::default(),
            path_cache_at: HashMap::default(),
            candidates_at: HashMap::default(),
            port_states_at: None,
            live_port_states: None,
            specs: Vec::new(),
            release_finished: true,
            master_seed: seed,
            part: None,
            foreign_live: (0, 0),
            notes: Vec::new(),
            cfg,
            topo: Arc::new(topo),
        }
    }

    /// The master seed.
    pub fn seed(&self) -> u64 {
        self.master_seed
    }

    /// Record every packet that starts crossing `link`, in both directions, into
    /// [`Sim::captured`] (for pcap output). Panics if the link does not exist.
    pub fn capture_link(&mut self, link: LinkId) {
        assert!(
            link.idx() < self.topo.links.len(),
            "capture_link: link {} does not exist",
            link.idx()
        );
        if self.capture_ports.is_empty() {
            self.capture_ports = vec![false; self.ports.len()];
        }
        for (i, p) in self.ports.iter().enumerate() {
            if p.link == link {
                self.capture_ports[i] = true;
            }
        }
    }

    /// Record the utilisation of every DCI–DCI port every `interval` (LCMP Fig. 1b).
    pub fn record_link_util(&mut self, interval: Time) {
        self.routing.record_link_util(interval, &self.topo, &self.ports);
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
        let src_node = self.hosts[src as usize].node;
        self.prepare_live_states();
        let states = self.live_port_states.as_deref().expect("just built");
        let info = crate::path::best_path_over(&self.routes, states, src_node, dst, dst_node)?;
        self.path_cache.insert((src, dst), info.clone());
        Some(info)
    }

    /// Make `live_port_states` the ports as they are now, in the compact form the path searches
    /// read (32 bytes a port, not the simulator's 320: at 393,216 ports the searches missed the
    /// cache at every hop), if a link change has not left them current.
    fn prepare_live_states(&mut self) {
        if self.live_port_states.is_none() {
            self.live_port_states =
                Some(self.ports.iter().map(crate::path::PortState::of).collect());
        }
    }

    /// The best path from host `src` to host `dst` as the network is at time `at`: the link
    /// events added so far (see [`Sim::add_link_events`]) that take effect at or before `at` —
    /// a `[[faults]]` entry at 0 µs, say — change its rates and delays and take down links out
    /// of it. Without such events it is [`Sim::path_info`]. `None` if unreachable. (A link taken
    /// down is skipped, but routes are not recomputed around it: if every minimum-hop path is
    /// down, the path of the intact network is returned.)
    pub fn path_info_at(&mut self, src: u32, dst: u32, at: Time) -> Option<PathInfo> {
        let (epoch, changed) = self.epoch_at(at);
        if !changed {
            return self.path_info(src, dst);
        }
        if let Some(p) = self.path_cache_at.get(&(src, dst, epoch)) {
            return p.clone();
        }
        self.prepare_port_states(at);
        let dst_node = self.hosts[dst as usize].node;
        let info = crate::path::best_path_over(
            &self.routes,
            self.port_states(epoch),
            self.hosts[src as usize].node,
            dst,
            dst_node,
        )
        .or_else(|| self.path_info(src, dst));
        self.path_cache_at.insert((src, dst, epoch), info.clone());
        info
    }

    /// How many link events are in effect at `at` (they are kept sorted by time, so the first
    /// that many), and whether any of them changes a path (not only its loss rate).
    fn epoch_at(&self, at: Time) -> (usize, bool) {
        let epoch = self.link_events.partition_point(|e| e.at <= at);
        (epoch, self.link_events[..epoch].iter().any(|e| !matches!(e.change, LinkChange::Loss(_))))
    }

    /// Makes the port states of the network at time `at` available to [`Sim::port_states`] —
    /// the ports as the link events in effect then leave them, or the live ports when none
    /// changes a path — and returns their epoch ([`Sim::epoch_at`]).
    fn prepare_port_states(&mut self, at: Time) -> usize {
        let (epoch, changed) = self.epoch_at(at);
        if changed && self.port_states_at.as_ref().is_none_or(|(e, _)| *e != epoch) {
            let mut states: Vec<crate::path::PortState> =
                self.ports.iter().map(crate::path::PortState::of).collect();
            for e in &self.link_events[..epoch] {
                for p in [2 * e.link as usize, 2 * e.link as usize + 1] {
                    let st = &mut states[p];
                    match e.change {
                        LinkChange::Down => st.up = false,
                        LinkChange::Up => st.up = true,
                        LinkChange::Rate(bps) => st.rate = Rate(bps.max(1)),
                        LinkChange::Delay(d) => st.delay = d,
                        LinkChange::Loss(_) => {}
                    }
                }
            }
            self.port_states_at = Some((epoch, states));
        } else if !changed {
            self.prepare_live_states();
        }
        epoch
    }

    /// The port states [`Sim::prepare_port_states`] made available for `epoch`.
    fn port_states(&self, epoch: usize) -> &[crate::path::PortState] {
        match (&self.port_states_at, &self.live_port_states) {
            (Some((e, s)), _) if *e == epoch => s,
            (_, Some(s)) => s,
            _ => unreachable!("prepare_port_states filled the states of this epoch"),
        }
    }

    /// The largest base RTT of the minimum-hop paths from host `src` to host `dst` as the network
    /// is at time `at` (the link events in effect then, as [`Sim::path_info_at`]); see
    /// [`crate::path::longest_base_rtt`]. `None` if unreachable.
    pub fn longest_base_rtt_at(
        &mut self,
        src: u32,
        dst: u32,
        at: Time,
        data_wire_bytes: u64,
        ack_bytes: u64,
    ) -> Option<Time> {
        let epoch = self.prepare_port_states(at);
        let (s_node, dst_node) = (self.hosts[src as usize].node, self.hosts[dst as usize].node);
        crate::path::longest_base_rtt(
            &self.routes,
            self.port_states(epoch),
            s_node,
            dst,
            dst_node,
            data_wire_bytes,
            ack_bytes,
        )
    }

    /// Braid's ideal FCT of a message of `size_bytes` from host `src` to host `dst` starting at
    /// `at`: [`PathInfo::ideal_fct`] on the best of the flow's candidate paths — every
    /// minimum-hop path it may take, with the link events in effect at `at` — for this size (a
    /// short message's best path is the lowest-delay one, a long one's the widest; docs/metrics.md).
    /// With `spray` (a transport, or switches, that send one flow over several paths) and parallel
    /// paths each narrower than the hosts' links (the Rondo testbed), the flow could use all of
    /// them at once: the ideal is then the lesser of that and [`crate::path::multipath_ideal_fct`]
    /// at the paths' maximum flow, capped by the hosts' links. No flow can beat it, so a slowdown
    /// under it is at least 1. `None` if unreachable.
    #[allow(clippy::too_many_arguments)]
    pub fn ideal_fct_at(
        &mut self,
        src: u32,
        dst: u32,
        at: Time,
        size_bytes: u64,
        mtu: u32,
        header: u32,
        ack_bytes: u32,
        spray: bool,
    ) -> Option<Time> {
        let epoch = self.epoch_at(at).0;
        let key = (src, dst, epoch);
        if !self.candidates_at.contains_key(&key) {
            self.prepare_port_states(at);
            let states = self.port_states(epoch);
            let (s_node, dst_node) = (self.hosts[src as usize].node, self.hosts[dst as usize].node);
            let c = crate::path::candidate_paths(&self.routes, states, s_node, dst, dst_node);
            // Spraying gains only where the widest path is narrower than the hosts' own links.
            let widest = c.iter().map(|p| p.bottleneck()).max().unwrap_or(Rate(0));
            let hosts_rate = c
                .iter()
                .map(|p| p.hops[0].0.min(p.hops[p.hops.len() - 1].0))
                .max()
                .unwrap_or(Rate(0));
            let mp = (widest < hosts_rate)
                .then(|| {
                    crate::path::multipath_rate(&self.routes, states, s_node, dst, dst_node)
                        .min(hosts_rate)
                })
                .filter(|&r| r > widest);
            self.candidates_at.insert(key, (c, mp));
        }
        let (paths, mp) = &self.candidates_at[&key];
        let single = paths.iter().map(|p| p.ideal_fct(size_bytes, mtu, header, ack_bytes)).min();
        let all = mp.filter(|_| spray).and_then(|r| {
            crate::path::multipath_ideal_fct(paths, r, size_bytes, mtu, header, ack_bytes)
        });
        match (single, all) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// How many equal-cost (minimum-hop) paths lead from host `src` to host `dst` (see
    /// [`crate::path::equal_cost_paths`]), cached per (source's first switch, destination).
    pub fn equal_cost_paths(&mut self, src: u32, dst: u32) -> u64 {
        let s_node = self.hosts[src as usize].node;
        let dst_node = self.hosts[dst as usize].node;
        self.prepare_live_states();
        let states = self.live_port_states.as_deref().expect("just built");
        crate::path::equal_cost_paths(&self.routes, states, s_node, dst, dst_node)
    }

    /// The LCMP artifact's ideal FCT of `size` bytes from host `src` to host `dst` (see
    /// [`crate::path::artifact_ideal_fct`]); `None` if unreachable.
    pub fn artifact_ideal_fct(
        &self,
        src: u32,
        dst: u32,
        size: u64,
        payload: u32,
        header: u32,
    ) -> Option<Time> {
        let d_node = self.hosts[dst as usize].node;
        crate::path::artifact_ideal_fct(
            &self.routes,
            &self.ports,
            self.hosts[src as usize].node,
            dst,
            d_node,
            size,
            payload,
            header,
        )
    }

    /// The ns-3 HPCC fork's largest RTT and BDP over every pair of hosts (see
    /// [`crate::path::ns3_max_rtt_bdp`]).
    pub fn ns3_max_rtt_bdp(&self, payload: u32, wrap: bool) -> (Time, u64) {
        let hosts: Vec<NodeId> = self.hosts.iter().map(|h| h.node).collect();
        crate::path::ns3_max_rtt_bdp(&self.routes, &self.ports, &hosts, payload, wrap)
    }

    /// Add a connection from host `src_host` to host `dst_host` in flow group `group`, with
    /// its sender and receiver, that will carry `messages` messages ([`Sim::add_flow`]). With
    /// one message the sender and receiver are built for it; with more, as a persistent
    /// connection to which each message is posted when it starts. Returns its index.
    pub fn add_conn(
        &mut self,
        src_host: u32,
        dst_host: u32,
        group: u16,
        sender: Sender,
        receiver: Receiver,
        messages: u32,
    ) -> u32 {
        let id = self.conns.len() as u32;
        self.send_wait.push(Time::ZERO);
        let msgs_at = self.conn_msgs.len() as u32;
        self.conn_msgs.extend(std::iter::repeat_n(u32::MAX, messages as usize));
        self.conns.push(Conn {
            src_host,
            dst_host,
            group,
            wants_pulls: sender.wants_pulls(),
            pulls_to_target: sender.pulls_to_target(),
            handles_trims: sender.handles_trims(),
            sender: Some(Box::new(sender)),
            pending: None,
            finished_stats: None,
            receiver,
            pulls: Default::default(),
            timer_at: Time::MAX,
            ood: 0,
            probes_sent: 0,
            shared: messages > 1,
            msgs_at,
            msgs_len: messages,
            posted: 0,
            acked: 0,
            delivered: 0,
            started: false,
        });
        id
    }

    /// The transport of each flow group (by group index), from which deferred senders are built
    /// ([`Sim::defer_sender`]).
    pub fn set_transport_specs(&mut self, specs: Vec<TransportSpec>) {
        self.specs = specs;
    }

    /// The transport connection `conn`'s group runs, if the groups' transports were given
    /// ([`Sim::set_transport_specs`]).
    pub fn transport_spec(&self, conn: usize) -> Option<&TransportSpec> {
        self.specs.get(self.conns[conn].group as usize)
    }

    /// Build connection `conn`'s sender only when it first starts, from `env` and its group's
    /// transport ([`Sim::set_transport_specs`]), rather than keep the one it was made with: a
    /// run's senders then take memory only while their connections are in progress. The
    /// sender it was made with (the same build: `TransportSpec::build` is a function of `env`)
    /// has checked `env`, so the build at the start cannot fail.
    pub fn defer_sender(&mut self, conn: u32, env: FlowEnv) {
        let c = &mut self.conns[conn as usize];
        assert!(
            (c.group as usize) < self.specs.len(),
            "defer_sender: no transport for group {} (Sim::set_transport_specs)",
            c.group
        );
        assert!(!c.started, "defer_sender: connection {conn} has started");
        c.sender = None;
        c.pending = Some(Box::new(env));
    }

    /// Keep every sender after its connection finishes (for tools and tests that read senders
    /// after a run; by default a finished one-message connection lets its sender go and keeps
    /// its recovery counters).
    pub fn keep_finished_senders(&mut self) {
        self.release_finished = false;
    }

    /// Call `f` with connection `conn`'s sender — built for the occasion if it is deferred and
    /// has not started — or `None` if it was released or is another partition's.
    pub fn with_sender<R>(&self, conn: usize, f: impl FnOnce(&Sender) -> R) -> Option<R> {
        let c = &self.conns[conn];
        match (&c.sender, &c.pending) {
            (Some(s), _) => Some(f(s)),
            (None, Some(env)) => Some(f(&self.specs[c.group as usize]
                .build(env)
                .expect("a deferred sender was checked when its connection was made"))),
            (None, None) => None,
        }
    }

    /// Add a flow: a message of `size_bytes` on connection `conn` ([`Sim::add_conn`]), which
    /// starts at `start` (an offset after its dependencies, if it has any). Returns its id.
    pub fn add_flow(
        &mut self,
        conn: u32,
        size_bytes: u64,
        start: Time,
        ideal_fct: Time,
        tag: u32,
    ) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        let c = &self.conns[conn as usize];
        if c.msgs_len == 1 {
            // A connection of one message: its slot is known now (a receiver in another
            // partition of a parallel run never sees the post).
            self.conn_msgs[c.msgs_at as usize] = id.0;
        }
        self.flows.push(Flow {
            src_host: c.src_host,
            dst_host: c.dst_host,
            conn,
            size_bytes,
            start,
            started_at: None,
            finish: None,
            delivered_at: None,
            psn_first: 0,
            psn_end: 0,
            ideal_fct,
            deps_left: 0,
            delivered_bytes: 0,
            progress_at: None,
            tag,
            counters: MessageCounters::default(),
        });
        self.dependents.push(Vec::new());
        self.note_flow_count();
        id
    }

    /// Add a compute task on host `host`: it sends nothing and completes as soon as it starts,
    /// `start` after its dependencies (absolute without any); flows may depend on it. Returns
    /// its id (in the flows' numbering).
    pub fn add_task(&mut self, host: u32, start: Time, tag: u32) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        self.flows.push(Flow {
            src_host: host,
            dst_host: host,
            conn: crate::endpoints::NO_CONN,
            size_bytes: 0,
            start,
            started_at: None,
            finish: None,
            delivered_at: None,
            psn_first: 0,
            psn_end: 0,
            ideal_fct: Time::ZERO,
            deps_left: 0,
            delivered_bytes: 0,
            progress_at: None,
            tag,
            counters: MessageCounters::default(),
        });
        self.dependents.push(Vec::new());
        self.note_flow_count();
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
        // Stable: events at the same time keep the order they were given in.
        self.link_events.sort_by_key(|e| e.at);
        // A link that will lose packets needs the per-port loss streams (32 bytes a port, 12.6 MB
        // on a k = 64 fat-tree, so not made for runs without loss).
        if self.port_rng.is_empty()
            && self.link_events.iter().any(|e| matches!(e.change, LinkChange::Loss(x) if x > 0.0))
        {
            self.port_rng = streams(self.master_seed, stream::LINK, self.ports.len());
        }
        self.path_cache_at.clear();
        self.candidates_at.clear();
        self.port_states_at = None;
        self.live_port_states = None;
    }

    /// Record a warning about the run's set-up ([`Sim::notes`]).
    pub fn add_note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The warnings recorded about the run's set-up.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Whether any link is captured ([`Sim::capture_link`]).
    pub fn capture_enabled(&self) -> bool {
        self.capture_ports.iter().any(|&c| c)
    }

    /// Whether some connection carries more than one message ([`Sim::add_conn`]).
    pub fn has_shared_connections(&self) -> bool {
        self.conns.iter().any(|c| c.shared)
    }

    /// Whether any flow waits for another ([`Sim::add_dependency`]).
    pub fn has_dependencies(&self) -> bool {
        self.dependents.iter().any(|d| !d.is_empty())
    }

    /// Flows completed so far.
    pub fn flows_done(&self) -> usize {
        self.flows_done
    }

    /// Let the caches that served the build go: the paths of each host pair and their ideal
    /// FCTs (one entry per host pair: most of a large all-to-all's memory until now) and the
    /// ports' states they were computed over. A later look recomputes them. [`Sim::prepare`]
    /// calls it; a parallel run's builder calls it as soon as a partition is built, so that
    /// the partitions' caches do not all live at once.
    pub fn release_build_caches(&mut self) {
        self.path_cache = HashMap::default();
        self.path_cache_at = HashMap::default();
        self.candidates_at = HashMap::default();
        self.port_states_at = None;
        self.live_port_states = None;
        crate::path::release_scratch();
    }

    /// Schedule the initial events. Call once before [`Sim::run`].
    pub fn prepare(&mut self) {
        self.release_build_caches();
        self.choose_wire_modes();
        for f in 0..self.flows.len() {
            let node = self.hosts[self.flows[f].src_host as usize].node;
            if self.flows[f].deps_left == 0 && self.owns(node) {
                let t = self.flows[f].start;
                self.q.set_origin(node.0);
                self.q.push(t, Ev::FlowStart { flow: f as u32 });
            }
        }
        self.set_origin_virtual(partition::ORIGIN_LINK);
        for (i, e) in self.link_events.iter().enumerate() {
            self.q.push(e.at, Ev::Link { idx: i as u32 });
        }
        self.set_origin_virtual(partition::ORIGIN_SAMPLE);
        if let Some(iv) = self.samples.config.interval {
            self.q.push(iv, Ev::Sample);
        }
        self.set_origin_virtual(partition::ORIGIN_ROUTING);
        for (t, timer) in self.routing.initial_timers().into_iter().flatten() {
            self.q.push(t, Ev::Routing { timer });
        }
    }

    /// Which links put every arrival straight into the event queue ([`Port::wire_direct`]): those
    /// of delay at most [`DIRECT_ARRIVAL_MAX_DELAY`] (or what [`Sim::set_direct_arrivals`] set)
    /// that no scheduled change gives another delay.
    /// Their arrivals are within the calendar's horizon, and a link's arrivals come in key order
    /// (each transmission starts after the one before it ends), so the event queue holds them
    /// with the keys they would have had from the wire queue; a link whose delay changes keeps
    /// the wire queue, which delivers in order when a shorter delay would let a packet overtake.
    fn choose_wire_modes(&mut self) {
        // Link `l` joins ports `2l` and `2l + 1`.
        let mut delay_changes = vec![false; self.topo.links.len()];
        for e in &self.link_events {
            if matches!(e.change, LinkChange::Delay(_)) {
                delay_changes[e.link as usize] = true;
            }
        }
        for (i, p) in self.ports.iter_mut().enumerate() {
            debug_assert!(!p.wire_head, "choose_wire_modes: port {i} carries packets");
            p.wire_direct = self.direct_arrival_max_delay.is_some_and(|max| p.delay <= max)
                && !delay_changes[i / 2];
        }
    }

    /// Let links of delay at most `max_delay` put their arrivals straight into the event queue
    /// instead of the wire queue (`None`: no link; the default is [`DIRECT_ARRIVAL_MAX_DELAY`]).
    /// Call before [`Sim::prepare`]. Events keep the same keys either way, so outputs are the
    /// same: only time and memory change (tests compare the two).
    pub fn set_direct_arrivals(&mut self, max_delay: Option<Time>) {
        self.direct_arrival_max_delay = max_delay;
    }

    /// Run until every flow completes, `stop` is reached, or no events remain. `progress` is
    /// called now and then with the current simulated time.
    pub fn run(&mut self, stop: Option<Time>, progress: &mut dyn FnMut(&Sim) -> bool) -> RunEnd {
        let stop = stop.unwrap_or(Time::MAX);
        let mut n: u32 = 0;
        // The watchdog compares (bytes delivered in order, flows completed) every 1,024 events.
        let mut last_mark = (self.stats.inorder_bytes, self.flows_done);
        loop {
            if self.all_flows_done {
                return RunEnd::AllFlowsComplete;
            }
            let Some((now, ev)) = self.q.pop_until(stop) else {
                return if !self.q.is_empty() {
                    RunEnd::StopTime
                } else if self.flows_done == self.flows.len() {
                    RunEnd::AllFlowsComplete
                } else {
                    RunEnd::Stalled
                };
            };
            self.handle(now, ev);
            n = n.wrapping_add(1);
            if n & 0x3FF == 0 {
                let mark = (self.stats.inorder_bytes, self.flows_done);
                if mark != last_mark || self.flows_started == self.flows_done {
                    last_mark = mark;
                    self.progress_at = now;
                } else if let Some(span) = self.stall_timeout {
                    if now.saturating_sub(self.progress_at) > span {
                        return RunEnd::NoProgress;
                    }
                }
                if n & 0xFFFF == 0 && !progress(self) {
                    return RunEnd::Interrupted;
                }
            }
        }
    }

    /// Arm the progress watchdog: [`Sim::run`] ends with [`RunEnd::NoProgress`] when flows are
    /// active but nothing is delivered in order and no flow completes for `span` of simulated
    /// time. `None` turns it off.
    pub fn set_stall_timeout(&mut self, span: Option<Time>) {
        self.stall_timeout = span;
    }

    /// When the run last made progress (see [`Sim::set_stall_timeout`]).
    pub fn last_progress_at(&self) -> Time {
        self.progress_at
    }

    /// Process the next event, if any; returns its time.
    pub fn step(&mut self) -> Option<Time> {
        let (now, ev) = self.q.pop()?;
        self.handle(now, ev);
        Some(now)
    }

    /// Take packet `pkt`'s INT stack away from it (1 + its handle, 0 for none): the caller
    /// frees the stack or hands it on, and the packet's slot may be freed and reused.
    #[inline]
    fn take_int(&mut self, pkt: braid_core::PktId) -> u32 {
        self.pkt_int.get_mut(pkt.0 as usize).map(std::mem::take).unwrap_or(0)
    }

    /// Packet `pkt` carries INT stack `int` (1 + its handle in `ints`; 0: none).
    #[inline]
    fn set_int(&mut self, pkt: braid_core::PktId, int: u32) {
        set_int_of(&mut self.pkt_int, pkt.0, int);
    }

    /// Free packet `pkt`'s INT stack, if it carries one.
    #[inline]
    fn free_int(&mut self, pkt: braid_core::PktId) {
        let int = self.take_int(pkt);
        self.free_int_stack(int);
    }

    /// Free INT stack `int` (1 + its handle in `ints`; 0: none), already taken from its packet.
    #[inline]
    fn free_int_stack(&mut self, int: u32) {
        if int > 0 {
            self.ints.free(int - 1);
        }
    }

    /// Make `pkt` arrive at the far end of `port` at `at`, as if it had crossed the link (engine
    /// tests inject traffic this way). Only on a link that carries no simulated traffic: the
    /// arrival does not join the link's wire queue, whose packets are stored relative to the
    /// arrival ahead of them.
    pub fn inject(&mut self, at: Time, pkt: Packet, port: PortId) {
        debug_assert!(
            !self.ports[port.idx()].wire_head,
            "inject: port {} carries simulated traffic",
            port.0
        );
        let id = self.pkts.alloc(pkt);
        self.q.push(at, Ev::Arrive { pkt: id, port: port.0 });
    }

    /// Start loading what the event `ev` will touch first (its packet, its port) while the
    /// current event is handled ([`Sim::handle`] calls it for the next event): a hint ([`braid_core::prefetch`]), so nothing changes but the
    /// memory stalls of large runs.
    #[inline(always)]
    fn prefetch_for(&self, ev: Ev) {
        use braid_core::prefetch::{element_addr, prefetch_read};
        match ev {
            Ev::Arrive { pkt, port } => {
                self.pkts.prefetch(pkt);
                prefetch_read(element_addr(
                    &self.ports,
                    port as usize,
                    std::mem::offset_of!(Port, wire),
                ));
                prefetch_read(element_addr(
                    &self.ports,
                    port as usize,
                    std::mem::offset_of!(Port, peer),
                ));
            }
            Ev::TxDone { port } => {
                for off in (0..std::mem::size_of::<Port>()).step_by(64) {
                    prefetch_read(element_addr(&self.ports, port as usize, off));
                }
            }
            _ => {}
        }
    }

    /// Process one event (always inlined: it is the body of the run loop).
    #[inline(always)]
    fn handle(&mut self, now: Time, ev: Ev) {
        if let Some(&next) = self.q.peek_event() {
            self.prefetch_for(next);
        }
        if self.part.is_some() {
            let o = self.event_origin(&ev);
            self.q.set_origin(o);
        }
        match ev {
            Ev::Arrive { pkt, port } => self.on_arrive(now, braid_core::PktId(pkt), PortId(port)),
            Ev::TxDone { port } => {
                self.ports[port as usize].txdone_pending = false;
                // `pump`'s early return cannot apply: nothing is scheduled for the port now.
                self.pump_port(now, PortId(port));
            }
            Ev::NicWake { host } => {
                let h = &mut self.hosts[host as usize];
                if h.wake_at <= now {
                    h.wake_at = Time::MAX;
                }
                let port = h.port;
                self.pump(now, port);
            }
            Ev::FlowTimer { conn } => self.on_flow_timer(now, conn),
            Ev::FlowStart { flow } => self.start_flow(now, FlowId(flow)),
            Ev::Pfc { port, class, pause } => self.on_pfc(now, PortId(port), class as usize, pause),
            Ev::Link { idx } => self.on_link_event(now, idx as usize),
            Ev::Sample => self.on_sample(now),
            Ev::PullTick { host } => self.on_pull_tick(now, host),
            Ev::Routing { timer } => {
                let more_to_come = self.more_to_come();
                if let Some((t, timer)) = self.routing.on_timer(
                    now,
                    timer,
                    &self.ports,
                    &self.node_ports,
                    more_to_come,
                    self.part.as_ref().map(|p| &p.own_node[..]),
                ) {
                    self.q.push(t, Ev::Routing { timer });
                }
            }
        }
    }

    fn start_flow(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.started_at.is_some() {
            return;
        }
        fl.started_at = Some(now);
        fl.progress_at = Some(now);
        self.flows_started += 1;
        if fl.is_task() {
            self.complete_flow(now, f);
            return;
        }
        let (size, ci) = (fl.size_bytes, fl.conn as usize);
        let read_path_samples = self.samples.config.paths_series;
        // The sender is given input (its start, a message): ask it again.
        self.send_wait[ci] = Time::ZERO;
        let c = &mut self.conns[ci];
        if !c.started {
            c.started = true;
            if let Some(env) = c.pending.take() {
                c.sender = Some(Box::new(
                    self.specs[c.group as usize]
                        .build(&env)
                        .expect("a deferred sender was checked when its connection was made"),
                ));
            }
            // Senders that keep per-path samples for `paths.csv` (Rondo) need not when no
            // one reads them.
            c.sender_mut().set_path_samples(read_path_samples);
            c.sender_mut().begin(now);
        }
        let (first, end) = if c.shared {
            // A connection's total PSN space was checked to fit when it was built.
            let r = c
                .sender_mut()
                .post_message(now, size)
                .expect("connection PSN space checked at build");
            c.receiver.grow(r.1);
            r
        } else {
            (0, c.sender().posted_packets())
        };
        let was_idle = c.idle();
        self.conn_msgs[(c.msgs_at + c.posted) as usize] = f.0;
        c.posted += 1;
        let h = c.src_host as usize;
        let fl = &mut self.flows[f.idx()];
        fl.psn_first = first;
        fl.psn_end = end;
        if was_idle {
            self.hosts[h].active.push(FlowId(ci as u32));
        }
        self.arm_flow_timer(now, ci);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    fn arm_flow_timer(&mut self, now: Time, c: usize) {
        let cn = &mut self.conns[c];
        if let Some(t) = cn.sender().poll_timeout() {
            let t = t.max(now);
            if t < cn.timer_at {
                cn.timer_at = t;
                self.q.push(t, Ev::FlowTimer { conn: c as u32 });
            }
        }
    }

    fn on_flow_timer(&mut self, now: Time, c: u32) {
        let ci = c as usize;
        // A timeout may be input to the sender: ask it again.
        self.send_wait[ci] = Time::ZERO;
        let cn = &mut self.conns[ci];
        if cn.timer_at <= now {
            cn.timer_at = Time::MAX;
        }
        if cn.idle() {
            return;
        }
        if cn.sender().poll_timeout().is_some_and(|t| t <= now) {
            if cn.shared {
                let before = cn.recovery_stats().timeouts;
                cn.sender_mut().on_timeout(now);
                let fired = cn.recovery_stats().timeouts - before;
                if fired > 0 {
                    let head = self.conn_msgs[(cn.msgs_at + cn.acked) as usize];
                    self.flows[head as usize].counters.timeouts += fired;
                }
            } else {
                cn.sender_mut().on_timeout(now);
            }
        }
        let h = self.conns[ci].src_host as usize;
        self.arm_flow_timer(now, ci);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    /// Refresh [`Sim`]'s `all_flows_done` after a change of the flow count or the done count.
    #[inline]
    pub(crate) fn note_flow_count(&mut self) {
        self.all_flows_done = self.flows_done == self.flows.len() && !self.flows.is_empty();
    }

    /// Message `f` has every byte acknowledged (its connection has already counted it).
    fn complete_flow(&mut self, now: Time, f: FlowId) {
        self.note_completion(now);
        let fl = &mut self.flows[f.idx()];
        fl.finish = Some(now);
        let h = fl.src_host as usize;
        self.flows_done += 1;
        self.note_flow_count();
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

    /// The message in slot `k` of connection `c`'s posting order.
    #[inline]
    pub(crate) fn conn_msg(&self, c: usize, k: u32) -> u32 {
        self.conn_msgs[(self.conns[c].msgs_at + k) as usize]
    }

    /// The message of shared connection `c` that holds `psn`. Posted messages take consecutive
    /// PSN ranges in posting order; most packets belong to the oldest message the receiver has
    /// not delivered or the one after it, which are tried first, then a binary search.
    pub(crate) fn msg_of_psn(&self, c: usize, psn: u32) -> Option<u32> {
        let cn = &self.conns[c];
        let slots = &self.conn_msgs[cn.msgs_at as usize..(cn.msgs_at + cn.posted) as usize];
        let head = cn.delivered.min(cn.acked) as usize;
        for &m in slots.iter().skip(head).take(2) {
            let f = &self.flows[m as usize];
            if psn >= f.psn_first && psn < f.psn_end {
                return Some(m);
            }
        }
        let k = slots.partition_point(|&m| self.flows[m as usize].psn_end <= psn);
        slots.get(k).copied()
    }

    fn on_sample(&mut self, now: Time) {
        let kept = self.sample_surely_kept();
        let own = self.part.as_ref().map(|p| &p.own_node[..]);
        self.samples.record(
            now,
            &self.ports,
            &self.is_host,
            &self.hosts,
            self.stats.inorder_bytes,
            &self.conns,
            own,
            kept,
        );
        if let Some(iv) = self.samples.config.interval {
            // Re-arm only while something else can still happen: a sampler alone must not keep a
            // stalled run alive forever.
            if self.more_to_come() && (self.part.is_some() || !self.q.is_empty()) {
                self.q.push(now + iv, Ev::Sample);
            }
        }
    }

    /// Data packets still in the network (in queues or on links).
    pub fn data_in_flight(&self) -> u64 {
        crate::conservation::data_in_flight(&self.stats)
    }

    /// Check conservation of data packets (see [`crate::conservation::check`]) and, in one
    /// queue, that every INT stack alive is held by exactly one packet slot (none leaked when
    /// its packet was freed).
    pub fn conservation(&self) -> Result<(), String> {
        crate::conservation::check(&self.stats, &self.ports, &self.pkts, self.foreign_live)?;
        if self.part.is_none() && self.foreign_live == (0, 0) {
            let held = self.pkt_int.iter().filter(|&&i| i > 0).count();
            if held != self.ints.live() {
                return Err(format!(
                    "INT stacks: {} alive, {held} held by packets",
                    self.ints.live()
                ));
            }
        }
        Ok(())
    }
}

/// Read-only views of the simulator's state (and the few knobs set before a run).
impl Sim {
    /// Network parameters.
    pub fn cfg(&self) -> &NetConfig {
        &self.cfg
    }
    /// The topology it was built from.
    pub fn topo(&self) -> &Topology {
        &self.topo
    }
    /// The event queue (current time, events processed, next event time).
    pub fn events(&self) -> &EventQueue<Ev> {
        &self.q
    }
    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.q.now()
    }
    /// Every port (two per link: `2·link` is the a→b direction).
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }
    /// Egress ports of each node.
    pub fn node_ports(&self) -> &[Vec<PortId>] {
        &self.node_ports
    }
    /// Hosts, by host index.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }
    /// Shared-buffer capacity of each node, in bytes.
    pub fn buffer_caps(&self) -> &[u64] {
        &self.buffer_cap
    }
    /// Next-hop tables.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }
    /// Use `other`'s topology and next-hop tables instead of this simulator's own copies: the
    /// partitions of a parallel run, built from one scenario, hold the same ones, and one copy
    /// serves them all (a partition that recomputes its routes after a link change takes its own
    /// again). Panics if they differ: the build is not deterministic.
    pub fn share_tables_of(&mut self, other: &Sim) {
        assert!(
            *self.topo == *other.topo,
            "partitions built from one scenario have different topologies"
        );
        assert!(
            self.routes == other.routes,
            "partitions built from one scenario have different routes"
        );
        self.topo = Arc::clone(&other.topo);
        // Held inline, not behind a pointer: `forward` reads them for every packet.
        self.routes = other.routes.clone();
    }
    /// Switch-side routing state and counters.
    pub fn routing(&self) -> &SwitchRouting {
        &self.routing
    }
    /// Switch-side routing, for control-plane queries
    /// ([`SwitchRouting::describe_candidates`]).
    pub fn routing_mut(&mut self) -> &mut SwitchRouting {
        &mut self.routing
    }
    /// Flows, by flow id.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }
    /// Flows, mutable (tests adjust start times).
    pub fn flows_mut(&mut self) -> &mut [Flow] {
        &mut self.flows
    }
    /// Connections, by index (a flow's is [`Flow::conn`]).
    pub fn conns(&self) -> &[Conn] {
        &self.conns
    }
    /// Connections, mutable (tests read senders' internal counters).
    pub fn conns_mut(&mut self) -> &mut [Conn] {
        &mut self.conns
    }
    /// The connection flow `f` is sent on.
    pub fn conn_of(&self, f: usize) -> &Conn {
        &self.conns[self.flows[f].conn as usize]
    }
    /// Run-wide counters.
    pub fn stats(&self) -> &SimStats {
        &self.stats
    }
    /// NIC-level OOD, sampled at every data arrival.
    pub fn nic_ood_hist(&self) -> &Histogram {
        &self.nic_ood_hist
    }
    /// NIC-level RBO, sampled at every data arrival.
    pub fn nic_rbo_hist(&self) -> &Histogram {
        &self.nic_rbo_hist
    }
    /// What is sampled (set before [`Sim::prepare`]).
    pub fn sampling_mut(&mut self) -> &mut SampleConfig {
        &mut self.samples.config
    }
    /// Per-port queue statistics from periodic samples (switch ports only).
    pub fn queue_stats(&self) -> &[PortQueueStats] {
        self.samples.queue_stats()
    }
    /// Time series rows `(time, port, bytes)`.
    pub fn queue_series(&self) -> &[(Time, u32, u64, u64)] {
        self.samples.queue_series()
    }
    /// Time series rows `(time, host, nic_ood, nic_rbo)`.
    pub fn ood_series(&self) -> &[(Time, u32, u64, u64)] {
        self.samples.ood_series()
    }
    /// Time series rows `(time, application bytes delivered in order so far)`.
    pub fn goodput_series(&self) -> &[(Time, u64)] {
        self.samples.goodput_series()
    }
    /// Time series rows `(time, flow, one logical path's state)`.
    pub fn path_series(&self) -> &[(Time, u32, PathSample)] {
        self.samples.path_series()
    }
    /// Captured packets `(time, egress port, packet)` of the links given to [`Sim::capture_link`].
    pub fn captured(&self) -> &[(Time, u32, Packet)] {
        &self.captured
    }
    /// Pulls sent and RTS packets received by the receiver-side pull pacers (EQDS).
    pub fn pull_counts(&self) -> (u64, u64) {
        self.hosts.iter().fold((0, 0), |(p, r), h| {
            (p + h.pull_pacer.pulls_sent(), r + h.pull_pacer.rts_received())
        })
    }
}

/// The random streams of `kind` ([`stream`]) for entities `0..n` (nodes or ports) under the
/// run's `seed`: each a function of its index alone, so they are the same streams whenever they
/// are made.
fn streams(seed: u64, kind: u64, n: usize) -> Vec<Rng> {
    (0..n as u64).map(|i| Rng::derive(seed, kind, i)).collect()
}

/// `pkt_int[h] = int`, growing `pkt_int` to slot `h` if it must (it stays empty while no packet
/// carries an INT stack).
#[inline]
fn set_int_of(pkt_int: &mut Vec<u32>, h: u32, int: u32) {
    let i = h as usize;
    if i >= pkt_int.len() {
        if int == 0 {
            return;
        }
        pkt_int.resize(i + 1, 0);
    }
    pkt_int[i] = int;
}
