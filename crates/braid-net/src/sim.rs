//! The discrete-event driver: one event queue, packets in an arena, and the handlers that move
//! them through the network. The protocol logic (senders, receivers, the EQDS pull pacer,
//! routing decisions) is sans-IO code from `braid-proto`; this module and its children only
//! drive it. It follows the network model of Rondo §2, §5 and §6.1–6.2.1 and the HPCC ns-3
//! switch model.
//!
//! Where to look:
//! - this file: [`Sim`], its events [`Ev`], construction and the run loop;
//! - `sim/setup.rs`: setting a run up (connections, flows, link events, `prepare`);
//! - `sim/path_queries.rs`: what the build asks of the network (paths, ideal FCTs, RTT bounds);
//! - `sim/flows.rs`: a flow's start, timer and completion;
//! - `sim/views.rs`: the read-only accessors the CLI and tests use;
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

/// The [`crate::switch_routing::RouteView`] of simulator `$sim` at `$now`: its fields borrowed one by one, so that
/// `$sim.routing` stays free to borrow mutably beside it.
macro_rules! route_view {
    ($sim:expr, $now:expr) => {
        crate::switch_routing::RouteView {
            now: $now,
            ports: &$sim.ports,
            node_ports: &$sim.node_ports,
            routes: &$sim.routes,
            host_of_node: &$sim.host_of_node,
            hash_seed: &$sim.hash_seed,
        }
    };
}

mod departures;
mod flows;
mod link;
mod mmu;
mod nic;
mod order;
mod partition;
mod path_queries;
mod receive;
mod setup;
mod switch;
mod views;

use std::collections::HashMap;
use std::sync::Arc;

use braid_core::rng::stream;
use braid_core::{
    Arena, EventQueue, FlowId, IntStack, LinkId, NodeId, Packet, PortId, Rate, Rng, Time,
};
use braid_proto::receiver::Receiver;
use braid_proto::transport::{FlowEnv, PathSample, Sender, SenderFactory};

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
    factories: Vec<SenderFactory>,
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
    /// Switch ports are asked to carry out their departures on demand
    /// ([`Sim::set_departures_on_demand`]; on unless turned off).
    departures_on_demand: bool,
    /// Some port carries out its departures on demand (set by [`Sim::prepare`]).
    any_on_demand: bool,
    /// Equal-time events are ordered canonically (`sim/order.rs`), not by insertion (on unless
    /// turned off by [`Sim::set_canonical_order`]).
    canonical: bool,
    /// The per-entity event counts of the canonical order's keys.
    ev_counts: order::EventCounts,
    /// When the last flow completed, if every flow did, in a partitioned run (which goes on to
    /// the next boundary, `docs/parallel.md`): what [`Sim::end_time`] reports.
    completed_at: Option<Time>,
    /// Per node: the upstream ports it is pausing (PFC); while any, its ports' departures are
    /// events (`sim/departures.rs`).
    paused_upstreams: Vec<u32>,
    /// Per node: no departure of its on-demand ports is due before this time (a lower bound,
    /// made exact whenever [`Sim::catch_up_node`] walks the node's ports).
    node_due: Vec<Time>,
    /// Per port, on demand: when its next departure is due (its `busy_until` while a packet
    /// waits to be sent), `Time::MAX` while none is; always `Time::MAX` for a port whose
    /// departures are events. One comparison tells whether a port has a departure to carry
    /// out. Beside the ports, not in them (`Port` stays within its size).
    due_at: Vec<Time>,
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
            departures_on_demand: true,
            any_on_demand: false,
            canonical: true,
            ev_counts: Default::default(),
            completed_at: None,
            paused_upstreams: vec![0; n],
            node_due: vec![Time::MAX; n],
            due_at: vec![Time::MAX; n_ports],
            direct_arrival_max_delay: Some(DIRECT_ARRIVAL_MAX_DELAY),
            progress_at: Time::ZERO,
            path_cache: HashMap::default(),
            path_cache_at: HashMap::default(),
            candidates_at: HashMap::default(),
            port_states_at: None,
            live_port_states: None,
            factories: Vec::new(),
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

    /// Run until every flow completes, `stop` is reached, or no events remain. `progress` is
    /// called now and then with the current simulated time.
    pub fn run(&mut self, stop: Option<Time>, progress: &mut dyn FnMut(&Sim) -> bool) -> RunEnd {
        let end = self.run_events(stop.unwrap_or(Time::MAX), progress);
        // Departures on demand due by the end are carried out, as the event engine would have
        // carried them out by then (`sim/departures.rs`).
        let until = match (end, stop) {
            (RunEnd::StopTime, Some(stop)) => stop,
            _ => departures::before(self.q.now()),
        };
        self.catch_up_all(until);
        end
    }

    /// [`Sim::run`]'s event loop, up to `stop`.
    fn run_events(&mut self, stop: Time, progress: &mut dyn FnMut(&Sim) -> bool) -> RunEnd {
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
        self.push_ev(at, Ev::Arrive { pkt: id, port: port.0 });
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
                let p = &mut self.ports[port as usize];
                p.txdone_pending = false;
                if p.on_demand {
                    // A wake-up after a lost packet, or a departure scheduled while the port's
                    // switch was pausing upstream (`sim/departures.rs`).
                    self.set_due(PortId(port));
                    self.catch_up(now, PortId(port));
                } else {
                    // `pump`'s early return cannot apply: nothing is scheduled for the port now.
                    self.pump_port(now, PortId(port));
                }
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
                self.catch_up_all(departures::before(now));
                let more_to_come = self.more_to_come();
                let view = route_view!(self, now);
                if let Some((t, timer)) = self.routing.on_timer(
                    &view,
                    timer,
                    more_to_come,
                    self.part.as_ref().map(|p| &p.own_node[..]),
                ) {
                    self.push_ev(t, Ev::Routing { timer });
                }
            }
        }
    }

    fn on_sample(&mut self, now: Time) {
        self.catch_up_all(departures::before(now));
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
                self.push_ev(now + iv, Ev::Sample);
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
