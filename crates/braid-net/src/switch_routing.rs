//! The switch side of routing: which egress port a switch gives a packet, driving the sans-IO
//! deciders of [`braid_proto::routing`] with the simulator's tables and ports.
//!
//! - Candidates are the routing table's minimum-hop next hops ([`crate::routes`]), as in the LCMP
//!   artifact (`docs/lcmp.md`, where LCMP runs: "candidate set = equal-hop-count next hops only").
//! - On topologies with DCI switches only the DCIs run the selected scheme; every other switch
//!   uses ECMP (`docs/lcmp.md`, where LCMP runs). Without DCIs the scheme runs on every switch.
//! - The control plane (`SwitchRouting::path_attrs`, see [`SwitchRouting::describe_candidates`]) computes, per (switch, destination), each
//!   candidate's best remaining path — total one-way delay and bottleneck capacity over the
//!   minimum-hop paths up to the destination DC's DCI (or the host) — and LCMP's `C_path` from it
//!   (paper §3.2), lazily, once per pair; link changes clear the table.
//! - Each switch that runs the scheme keeps its [`Router`] (`braid_proto::routing::router`,
//!   the sans-IO contract and Braid's schemes); every other switch runs plain ECMP. This module
//!   names no scheme: it hashes the packet, lends the router a [`SwitchView`] of the switch (the
//!   candidates by local port, the ports' queues, rates and delays, the path attributes the
//!   router asks for), runs the routers' periodic timers ([`RoutingTimer::Tick`]) and tells them
//!   of link changes.
//! - No allocation per packet: the candidates come by local port straight from the routing
//!   tables ([`Routes::next_hops_local`]), and the view is a few words pointing at the driver's
//!   [`RouteView`]; what a router may not read (the reverse direction, the set id) is looked up
//!   when asked.
//!
//! The driver talks to routing through a narrow interface: per decision it lends a [`RouteView`]
//! (borrowed slices of the ports, tables and seeds — nothing copied); routing's own timers go in
//! and out as [`RoutingTimer`] values that the driver schedules, so this module never touches the
//! event queue or the simulator.

mod paths;
pub use paths::{path_index, path_index_divisors};

use std::collections::HashMap;

use braid_core::{NodeId, Packet, PacketKind, PortId, Rng, Time};
use braid_proto::hash::node_ip;
use braid_proto::routing::router::{RoutePacket, SwitchSetup, SwitchView};
use braid_proto::routing::select::PathAttr;
use braid_proto::routing::{Router, RoutingKind, RoutingParams};

use crate::port::Port;
use crate::routes::{NextHops, Routes};
use crate::topology::{NodeKind, Topology};

/// What a routing decision reads of the network, borrowed from the driver for one decision.
#[derive(Clone, Copy)]
pub struct RouteView<'a> {
    /// Current time.
    pub now: Time,
    /// Every port (queue depths, link state, rates, delays).
    pub ports: &'a [Port],
    /// Egress ports of each node.
    pub node_ports: &'a [Vec<PortId>],
    /// Minimum-hop next-hop tables.
    pub routes: &'a Routes,
    /// Host index of each node (`u32::MAX` for switches).
    pub host_of_node: &'a [u32],
    /// ECMP hash seed per node.
    pub hash_seed: &'a [u32],
}

/// Routing's own periodic timers: the driver schedules them where routing says and hands them
/// back when they fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingTimer {
    /// The routers' periodic timer ([`braid_proto::routing::SwitchRouter::tick_interval`]: LCMP's
    /// congestion monitor, a TE round).
    Tick,
    /// A sample of the DCI-to-DCI links' utilisation (`output.link_util`).
    LinkUtil,
}

/// Counters of the switch-side routing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoutingStats {
    /// Packets a switch queued on a port whose link was down (must stay 0).
    pub sent_to_down_port: u64,
}

/// Per-link utilisation samples of the DCI-to-DCI ports (LCMP Fig. 1b).
#[derive(Clone, Debug, Default)]
pub struct LinkUtilRecorder {
    /// Sampling interval.
    pub interval: Time,
    /// The ports sampled (both directions of every DCI–DCI link).
    pub ports: Vec<PortId>,
    /// Bytes sent by each port at the previous sample.
    last: Vec<u64>,
    /// Rows `(time, index into ports, bytes sent during the interval)`.
    pub rows: Vec<(Time, u32, u64)>,
}

/// Routing state of the whole network's switches.
pub struct SwitchRouting {
    /// The scheme.
    pub kind: RoutingKind,
    /// Its knobs.
    pub params: RoutingParams,
    /// Whether each node runs the scheme (else ECMP).
    scheme_node: Vec<bool>,
    /// The routers, one per switch, in node order.
    routers: Vec<Router>,
    /// Index into `routers` per node (`u32::MAX`: a host).
    router_of: Vec<u32>,
    /// What the routers' views read besides the network: local indices, hashed ports, paths.
    t: Tables,
    /// Path table: `(node · hosts + host)` → offset into `t.path_pool` (`u32::MAX`: not
    /// computed).
    path_idx: Vec<u32>,
    n_hosts: usize,
    has_dci: bool,
    node_is_dci: Vec<bool>,
    node_group: Vec<u32>,
    host_nodes: Vec<NodeId>,
    /// Packets a switch queued on a port whose link was down.
    sent_to_down_port: u64,
    /// DCI-link utilisation recorder (`output.link_util`).
    pub link_util: Option<LinkUtilRecorder>,
    /// The LCMP decision log (`output.decisions`; `None`: off).
    pub decisions: Option<Vec<Decision>>,
    /// The first error of a router's build ([`SwitchRouting::build_error`]).
    build_error: Option<String>,
}

/// The UDP ports the switches hash for a packet (see [`HashPorts::of`]).
#[derive(Clone, Copy, Debug)]
struct HashPorts {
    /// `routing.per_entropy`.
    per_entropy: bool,
    /// `routing.hash_dport`.
    dport: u16,
    /// `routing.ack_hash = "swapped"`.
    ack_swapped: bool,
}

impl HashPorts {
    /// The (source, destination) UDP ports the switches hash for a packet of a flow with entropy
    /// `entropy`: data carry (entropy, `routing.hash_dport`); ACKs and NAKs the same, or swapped
    /// with `routing.ack_hash = "swapped"`. With `routing.per_entropy = false` the entropy's low
    /// byte is cleared first, so a flow's logical paths share one hash and one cache entry.
    #[inline]
    fn of(self, entropy: u16, is_data: bool) -> (u16, u16) {
        let entropy = if self.per_entropy { entropy } else { entropy & 0xFF00 };
        if !is_data && self.ack_swapped {
            (self.dport, entropy)
        } else {
            (entropy, self.dport)
        }
    }
}

/// The switches' tables a router's [`View`] reads, apart from the routers themselves.
struct Tables {
    /// Local index of each port at its node.
    port_local: Vec<u16>,
    /// The UDP ports the switches hash (`routing.per_entropy`, `hash_dport`, `ack_hash`).
    hash_ports: HashPorts,
    /// The path attributes of candidates, a candidate set's in a row (`path_idx`).
    path_pool: Vec<PathAttr>,
    /// The switch's router's score of each of them, aligned with `path_pool`.
    path_cpath: Vec<u8>,
}

/// A decision [`SwitchRouting::egress_without_view`] leaves to the switch's router: the next
/// hops and the router.
#[derive(Clone, Copy, Debug)]
pub struct Undecided<'r> {
    hops: NextHops<'r>,
    router: u32,
    pkt: RoutePacket,
}

/// A switch as its router sees it for one decision or tick ([`SwitchView`]): a few words that
/// point into the driver's [`RouteView`] and the [`Tables`]; what a router may not ask for
/// (the candidate set's id, the reverse direction) is looked up only when asked.
struct View<'a> {
    v: &'a RouteView<'a>,
    t: &'a Tables,
    /// The switch's ports, by local index.
    local: &'a [PortId],
    /// The decision's candidates by local port (empty on a tick).
    cands: &'a [u16],
    /// The switch.
    node: NodeId,
    /// The packet's destination host (`u32::MAX` on a tick).
    dst_host: u32,
    /// Where the candidates' path attributes start in the tables (`u32::MAX`: not read).
    paths_at: u32,
    /// A data packet at a router that pins the reverse direction: the link it came in on and
    /// its source.
    reverse_of: Option<(PortId, NodeId)>,
    /// The packet's entropy.
    entropy: u16,
}

impl View<'_> {
    /// Where the candidates' path attributes stand in the tables (empty when not read).
    fn paths_range(&self) -> std::ops::Range<usize> {
        match self.paths_at {
            u32::MAX => 0..0,
            o => o as usize..o as usize + self.cands.len(),
        }
    }
}

impl SwitchView for View<'_> {
    fn now(&self) -> Time {
        self.v.now
    }
    fn port_count(&self) -> usize {
        self.local.len()
    }
    #[inline]
    fn queued_bytes(&self, l: u16) -> u64 {
        self.v.ports[self.local[l as usize].idx()].queued_bytes()
    }
    fn rate_bps(&self, l: u16) -> u64 {
        self.v.ports[self.local[l as usize].idx()].rate.bps()
    }
    fn delay(&self, l: u16) -> Time {
        self.v.ports[self.local[l as usize].idx()].delay
    }
    fn tx_bytes(&self, l: u16) -> u64 {
        self.v.ports[self.local[l as usize].idx()].tx_bytes
    }
    #[inline]
    fn candidates(&self) -> &[u16] {
        self.cands
    }
    fn paths(&self) -> &[PathAttr] {
        &self.t.path_pool[self.paths_range()]
    }
    fn path_scores(&self) -> &[u8] {
        &self.t.path_cpath[self.paths_range()]
    }
    fn set_id(&self) -> u32 {
        match self.dst_host {
            u32::MAX => u32::MAX,
            h => self.v.routes.set_id(self.node, h).unwrap_or(u32::MAX),
        }
    }
    fn reverse(&self) -> Option<(u16, u16, u16)> {
        let (ingress, src) = self.reverse_of?;
        let back = self.v.ports[ingress.idx()].reverse;
        let theirs = self.v.routes.next_hops(self.node, self.v.host_of_node[src.idx()]);
        (theirs.len() > 1 && theirs.contains(&back)).then(|| {
            let (rs, rd) = self.t.hash_ports.of(self.entropy, false);
            (self.t.port_local[back.idx()], rs, rd)
        })
    }
}

/// One LCMP decision, for `decisions.csv` (`output.decisions`): where and when, for which flow
/// direction, every live candidate with its costs in the order the filter sorted them, how many
/// the filter kept, and the port chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// When.
    pub at: Time,
    /// The switch.
    pub node: NodeId,
    /// Source host of the packet.
    pub src_host: u32,
    /// Destination host of the packet.
    pub dst_host: u32,
    /// A data packet (else an ACK or NAK deciding for its own direction).
    pub data: bool,
    /// `(next-hop node, C_path, C_cong, C)` per live candidate, sorted by (C, port).
    pub candidates: Vec<(NodeId, u8, u8, u8)>,
    /// How many of them the filter kept.
    pub kept: usize,
    /// The next hop chosen.
    pub chosen: NodeId,
}

impl SwitchRouting {
    /// Take over another partition's routing state of the switches it owns (`own`: by node),
    /// add its counters and append its logs (a partition logs only its own switches and ports;
    /// merging a parallel run); [`SwitchRouting::finish_merge`] restores the order of the logs.
    pub(crate) fn merge_partition(&mut self, other: SwitchRouting, own: impl Fn(NodeId) -> bool) {
        self.sent_to_down_port += other.sent_to_down_port;
        let mut theirs = other.routers.into_iter();
        for (u, &i) in self.router_of.iter().enumerate() {
            if i == u32::MAX {
                continue;
            }
            let r = theirs.next().expect("partitions build the same routers");
            if own(NodeId::from_idx(u)) {
                self.routers[i as usize] = r;
            }
        }
        if let (Some(a), Some(b)) = (&mut self.link_util, other.link_util) {
            a.rows.extend(b.rows);
        }
        if let (Some(a), Some(b)) = (&mut self.decisions, other.decisions) {
            a.extend(b);
        }
    }

    /// The end of a parallel run whose last flow completed at `t_end`: drop the log rows one
    /// queue would not have written (it stops at `t_end`, and its link-utilisation timer
    /// re-arms only while flows remain).
    pub(crate) fn truncate_logs(&mut self, t_end: Time) {
        if let Some(a) = &mut self.link_util {
            let cut = t_end + a.interval;
            a.rows.retain(|r| r.0 < cut);
        }
        if let Some(a) = &mut self.decisions {
            a.retain(|d| d.at <= t_end);
        }
    }

    /// Sort the merged logs as one queue writes them: by time, then port or switch (stable).
    pub(crate) fn finish_merge(&mut self) {
        if let Some(a) = &mut self.link_util {
            a.rows.sort_by_key(|r| (r.0, r.1));
        }
        if let Some(a) = &mut self.decisions {
            a.sort_by_key(|d| (d.at, d.node));
        }
    }

    /// Set up routing for a network: which switches run the scheme (the DCIs of a topology with
    /// DCIs, else every switch) and each switch's router (a switch that does not run the scheme
    /// runs [`Router::fallback`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        topo: &Topology,
        kind: RoutingKind,
        params: &RoutingParams,
        node_ports: &[Vec<PortId>],
        ports: &[Port],
        routes: &Routes,
        host_nodes: &[NodeId],
        buffer_cap: &[u64],
    ) -> SwitchRouting {
        let n = topo.nodes.len();
        let node_is_dci: Vec<bool> = topo.nodes.iter().map(|x| x.kind == NodeKind::Dci).collect();
        let has_dci = node_is_dci.iter().any(|&d| d);
        let scheme_node: Vec<bool> = topo
            .nodes
            .iter()
            .map(|x| if has_dci { x.kind == NodeKind::Dci } else { x.kind != NodeKind::Host })
            .collect();
        let mut port_local = vec![0u16; ports.len()];
        for np in node_ports {
            for (i, p) in np.iter().enumerate() {
                port_local[p.idx()] = i as u16;
            }
        }
        let node_group: Vec<u32> = topo.nodes.iter().map(|x| x.group).collect();
        let mut r = SwitchRouting {
            kind,
            params: params.clone(),
            scheme_node,
            routers: Vec::new(),
            router_of: vec![u32::MAX; n],
            t: Tables {
                port_local,
                hash_ports: HashPorts {
                    per_entropy: params.per_entropy,
                    dport: params.hash_dport,
                    ack_swapped: params.ack_hash_swapped,
                },
                path_pool: Vec::new(),
                path_cpath: Vec::new(),
            },
            path_idx: Vec::new(),
            n_hosts: host_nodes.len(),
            has_dci,
            node_is_dci,
            node_group,
            host_nodes: host_nodes.to_vec(),
            sent_to_down_port: 0,
            link_util: None,
            decisions: None,
            build_error: None,
        };
        // One representative destination host per group: with DCIs the scored segment ends at
        // the group's DCI, so every host of a group gives the same candidate paths.
        let mut reps: Vec<u32> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (h, &hn) in host_nodes.iter().enumerate() {
            if seen.insert(topo.nodes[hn.idx()].group) {
                reps.push(h as u32);
            }
        }
        let divisors = path_index_divisors(topo, node_ports, ports);
        for u in 0..n {
            if topo.nodes[u].kind == NodeKind::Host {
                continue;
            }
            let node = NodeId::from_idx(u);
            let rates: Vec<u64> = node_ports[u].iter().map(|p| ports[p.idx()].rate.bps()).collect();
            let delays: Vec<Time> = node_ports[u].iter().map(|p| ports[p.idx()].delay).collect();
            let mut longest = || {
                let mut longest = Time::ZERO;
                for &h in &reps {
                    if routes.next_hops(node, h).len() < 2 {
                        continue;
                    }
                    for pts in r.candidate_frontiers(node, h, routes, ports) {
                        for (d, _) in pts {
                            longest = longest.max(d);
                        }
                    }
                }
                longest
            };
            let mut sw = SwitchSetup {
                port_rates: &rates,
                port_delays: &delays,
                buffer_bytes: buffer_cap[u],
                tier_divisor: divisors[u],
                longest_path_delay: &mut longest,
            };
            let router = if r.scheme_node[u] {
                kind.build(params, &mut sw).unwrap_or_else(|e| {
                    // Reported by `build_error` (the build refuses the scenario); the switch
                    // is never used.
                    r.build_error.get_or_insert(format!("routing.kind = {}: {e}", kind.name()));
                    Router::fallback(kind, params)
                })
            } else {
                Router::fallback(kind, params)
            };
            r.router_of[u] = r.routers.len() as u32;
            r.routers.push(router);
        }
        if r.routers.iter().any(Router::needs_paths) {
            r.path_idx = vec![u32::MAX; n * host_nodes.len()];
        }
        r
    }

    /// Why a switch's router could not be built (a registered scheme refused the switch), if
    /// one could not: the run must not start.
    pub fn build_error(&self) -> Option<&str> {
        self.build_error.as_deref()
    }

    /// Whether `node` runs the selected scheme.
    pub fn runs_scheme(&self, node: NodeId) -> bool {
        self.scheme_node[node.idx()]
    }

    /// The router of switch `node` (`None` for a host).
    pub fn router_of(&self, node: NodeId) -> Option<&Router> {
        let i = self.router_of[node.idx()];
        (i != u32::MAX).then(|| &self.routers[i as usize])
    }

    /// Every switch that runs the scheme, with its router, in node order.
    pub fn scheme_routers(&self) -> impl Iterator<Item = (NodeId, &Router)> {
        self.router_of
            .iter()
            .enumerate()
            .filter(|&(u, &i)| i != u32::MAX && self.scheme_node[u])
            .map(|(u, &i)| (NodeId::from_idx(u), &self.routers[i as usize]))
    }

    /// Counters of the switches' routing (each scheme's own are its routers',
    /// [`SwitchRouting::scheme_routers`]).
    pub fn stats(&self) -> RoutingStats {
        RoutingStats { sent_to_down_port: self.sent_to_down_port }
    }

    /// Local index of a port at its node.
    pub fn local_index(&self, port: PortId) -> u16 {
        self.t.port_local[port.idx()]
    }
}

impl SwitchRouting {
    /// [`SwitchRouting::select_egress`]'s decision where it needs only the next-hop tables and
    /// the switches' hash seeds — no port state, no clock, no router state: a destination
    /// without a route, a single next hop, and routers that read only the packet's entropy or
    /// hash ([`Router::route_by_header`]). `Err` when the decision needs the full view: the next
    /// hops and the packet as the router sees it, which the driver hands to
    /// [`SwitchRouting::select_egress`], so the route is looked up once. The driver asks this
    /// first, so the common case does not assemble a [`RouteView`] (storing its six slices to
    /// the stack before every decision).
    #[inline(always)]
    pub fn egress_without_view<'r>(
        &self,
        routes: &'r Routes,
        host_of_node: &[u32],
        hash_seed: &[u32],
        node: NodeId,
        pk: &Packet,
    ) -> Result<Option<PortId>, Undecided<'r>> {
        let ri = self.router_of[node.idx()];
        let router = &self.routers[ri as usize];
        let is_data = matches!(pk.kind, PacketKind::Data | PacketKind::Probe);
        let hops = routes.next_hops_local(node, host_of_node[pk.dst.idx()]);
        let n = hops.ports.len();
        if n == 0 {
            return Ok(None);
        }
        if n == 1 && !router.sees_single_hops(is_data) {
            return Ok(Some(hops.ports[0]));
        }
        let pkt = self.route_packet(pk, is_data, hash_seed[node.idx()]);
        match router.route_by_header(&pkt, n) {
            Some(i) => Ok(Some(hops.ports[i])),
            None => Err(Undecided { hops, router: ri, pkt }),
        }
    }

    /// `pk` as a router sees it at a switch whose hash seed is `seed`.
    #[inline(always)]
    fn route_packet(&self, pk: &Packet, is_data: bool, seed: u32) -> RoutePacket {
        let (sport, dport) = self.t.hash_ports.of(pk.entropy, is_data);
        RoutePacket {
            src_ip: node_ip(pk.src.0),
            dst_ip: node_ip(pk.dst.0),
            sport,
            dport,
            entropy: pk.entropy,
            is_data,
            size_bytes: pk.size_bytes,
            seed,
        }
    }

    /// The decision for `pk` at switch `node` as the switch's router takes it, even where
    /// [`SwitchRouting::egress_without_view`] would decide without it (tests compare the two;
    /// departures on demand build it again after carrying out the switch's due departures).
    pub(crate) fn undecided<'r>(
        &self,
        v: &RouteView<'r>,
        node: NodeId,
        pk: &Packet,
    ) -> Undecided<'r> {
        let is_data = matches!(pk.kind, PacketKind::Data | PacketKind::Probe);
        let hops = v.routes.next_hops_local(node, v.host_of_node[pk.dst.idx()]);
        let pkt = self.route_packet(pk, is_data, v.hash_seed[node.idx()]);
        Undecided { hops, router: self.router_of[node.idx()], pkt }
    }

    /// Pick the egress of `pk` at switch `node` (it arrived over `ingress`) among the next hops
    /// [`SwitchRouting::egress_without_view`] left `undecided` (`v.routes`' set toward its
    /// destination); `None` when the router drops it. `rng` is the switch's random stream
    /// (adaptive routing's tie-breaks). The driver's forwarding calls it for every packet at a
    /// switch that [`SwitchRouting::egress_without_view`] does not decide.
    #[inline]
    pub fn select_egress(
        &mut self,
        v: &RouteView,
        node: NodeId,
        pk: &Packet,
        undecided: Undecided,
        ingress: PortId,
        rng: &mut Rng,
    ) -> Option<PortId> {
        let Undecided { hops, router, pkt } = undecided;
        let ri = router as usize;
        let (src, dst, entropy, is_data) = (pk.src, pk.dst, pk.entropy, pkt.is_data);
        let dst_host = v.host_of_node[dst.idx()];
        debug_assert_eq!(hops.ports, v.routes.next_hops(node, dst_host), "not the routes' set");
        let paths_at = if self.routers[ri].needs_paths() {
            self.path_attrs(node, dst_host, v.routes, v.ports) as u32
        } else {
            u32::MAX
        };
        let pins = is_data && self.routers[ri].pins_reverse();
        let local = &v.node_ports[node.idx()];
        let view = View {
            v,
            t: &self.t,
            local,
            cands: hops.local,
            node,
            dst_host,
            paths_at,
            reverse_of: pins.then_some((ingress, src)),
            entropy,
        };
        let i = self.routers[ri].route(&pkt, &view, rng)?;
        if let Some(log) = &mut self.decisions {
            if let Some((scored, kept)) = self.routers[ri].take_decision() {
                log.push(Decision {
                    at: v.now,
                    node,
                    src_host: v.host_of_node[src.idx()],
                    dst_host,
                    data: is_data,
                    candidates: scored
                        .iter()
                        .map(|s| {
                            (v.ports[local[s.port as usize].idx()].peer, s.c_path, s.cong, s.cost)
                        })
                        .collect(),
                    kept,
                    chosen: v.ports[hops.ports[i].idx()].peer,
                });
            }
        }
        Some(hops.ports[i])
    }

    /// The routing timers a run starts with (the routers' periodic timer, the link-utilisation
    /// sampler), in the order to schedule them.
    pub fn initial_timers(&self) -> [Option<(Time, RoutingTimer)>; 2] {
        let tick = self.tick_interval().map(|t| (t, RoutingTimer::Tick));
        let link_util = self.link_util.as_ref().map(|lu| (lu.interval, RoutingTimer::LinkUtil));
        [tick, link_util]
    }

    /// The interval of the routers' periodic timer: the first scheme router's that has one.
    fn tick_interval(&self) -> Option<Time> {
        self.scheme_routers().find_map(|(_, r)| r.tick_interval())
    }

    /// A routing timer fired at `v.now`. `more_to_come`: some flow is still incomplete (a timer
    /// is re-armed only then). Returns the timer to schedule next, if any.
    /// `own` (by node, in a parallel run) limits the work to a partition's switches and ports.
    pub fn on_timer(
        &mut self,
        v: &RouteView,
        timer: RoutingTimer,
        more_to_come: bool,
        own: Option<&[bool]>,
    ) -> Option<(Time, RoutingTimer)> {
        let (now, ports) = (v.now, v.ports);
        let owned = |n: NodeId| own.is_none_or(|o| o[n.idx()]);
        match timer {
            RoutingTimer::Tick => {
                let interval = self.tick_interval()?;
                for (u, &i) in self.router_of.iter().enumerate() {
                    let node = NodeId::from_idx(u);
                    if i == u32::MAX || !self.scheme_node[u] || !owned(node) {
                        continue;
                    }
                    let r = &mut self.routers[i as usize];
                    if r.tick_interval().is_none() {
                        continue;
                    }
                    let view = View {
                        v,
                        t: &self.t,
                        local: &v.node_ports[u],
                        cands: &[],
                        node,
                        dst_host: u32::MAX,
                        paths_at: u32::MAX,
                        reverse_of: None,
                        entropy: 0,
                    };
                    r.on_tick(&view);
                }
                more_to_come.then(|| (now + interval, RoutingTimer::Tick))
            }
            RoutingTimer::LinkUtil => {
                let lu = self.link_util.as_mut()?;
                lu.sample(now, ports, owned);
                more_to_come.then(|| (now + lu.interval, RoutingTimer::LinkUtil))
            }
        }
    }

    /// Record the utilisation of every DCI–DCI port every `interval` (LCMP Fig. 1b).
    pub fn record_link_util(&mut self, interval: Time, topo: &Topology, ports: &[Port]) {
        let sampled: Vec<PortId> = (0..ports.len())
            .map(PortId::from_idx)
            .filter(|p| {
                let pt = &ports[p.idx()];
                topo.nodes[pt.node.idx()].kind == NodeKind::Dci
                    && topo.nodes[pt.peer.idx()].kind == NodeKind::Dci
            })
            .collect();
        let last = sampled.iter().map(|p| ports[p.idx()].tx_bytes).collect();
        self.link_util =
            Some(LinkUtilRecorder { interval, ports: sampled, last, rows: Vec::new() });
    }

    /// Routing's part of a link change on `changed` (both directions of one link; `up`: it went
    /// up or down, `None`: its rate or delay changed): each end's router hears of its port (LCMP
    /// marks it for fast failover or takes its new rate); the path table is recomputed on demand.
    pub fn on_link_change(&mut self, changed: [PortId; 2], up: Option<bool>, ports: &[Port]) {
        for p in changed {
            let node = ports[p.idx()].node;
            let ri = self.router_of[node.idx()];
            if ri != u32::MAX && self.scheme_node[node.idx()] {
                let l = self.t.port_local[p.idx()];
                self.routers[ri as usize].on_port_change(l, up, ports[p.idx()].rate.bps());
            }
        }
        self.clear_paths();
    }

    /// Count a packet queued on a down port (called by forwarding for every chosen egress; must
    /// never happen).
    #[inline]
    pub fn check_egress(&mut self, egress: &Port) {
        if !egress.up {
            self.sent_to_down_port += 1;
        }
    }
}

impl LinkUtilRecorder {
    /// Record bytes sent by each sampled port since the previous sample.
    /// `owned`: the nodes whose ports are sampled (a parallel run's partition: its own).
    fn sample(&mut self, now: Time, ports: &[Port], owned: impl Fn(NodeId) -> bool) {
        if self.last.len() != self.ports.len() {
            self.last = self.ports.iter().map(|p| ports[p.idx()].tx_bytes).collect();
        }
        for (i, &p) in self.ports.iter().enumerate() {
            if !owned(ports[p.idx()].node) {
                continue;
            }
            let b = ports[p.idx()].tx_bytes;
            self.rows.push((now, i as u32, b - self.last[i]));
            self.last[i] = b;
        }
    }
}
