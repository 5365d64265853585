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
//! - LCMP switches keep an [`LcmpRouter`] each: flow cache lookups per packet, a full decision per
//!   new flow, a periodic congestion monitor ([`RoutingTimer::Monitor`]), and fast failover
//!   (a link going down marks the port down in the router; cached flows on it are re-decided at
//!   their next packet).
//! - No allocation per packet: candidate and queue scratch vectors are reused.
//!
//! The driver talks to routing through a narrow interface: per decision it lends a [`RouteView`]
//! (borrowed slices of the ports, tables and seeds — nothing copied); routing's own timers go in
//! and out as [`RoutingTimer`] values that the driver schedules, so this module never touches the
//! event queue or the simulator.

use std::collections::HashMap;

use braid_core::{NodeId, Packet, PacketKind, PortId, Rng, Time};
use braid_proto::hash::{ecmp_hash, node_ip};
use braid_proto::routing::select::{
    delay_limit, ecmp_within, least_loaded, quantize4, ucmp_weighted, ucmp_within, wcmp,
    wcmp_weights, PathAttr,
};
use braid_proto::routing::te::TeRouter;
use braid_proto::routing::{
    flow_key, AckRouting, Candidate, FlowKeyKind, LcmpRouter, MaxDelay, PathScope, RoutingKind,
    RoutingParams, Sampling,
};

use crate::port::Port;
use crate::routes::Routes;
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
    /// Shared-buffer capacity per node.
    pub buffer_cap: &'a [u64],
}

/// Routing's own periodic timers: the driver schedules them where routing says and hands them
/// back when they fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoutingTimer {
    /// The LCMP congestion monitor's periodic sample.
    Monitor,
    /// A sample of the DCI-to-DCI links' utilisation (`output.link_util`).
    LinkUtil,
    /// A round of the TE control loop (`routing.kind = "te"`, every `te_interval`).
    Te,
}

/// Counters of the switch-side routing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoutingStats {
    /// Packets a switch queued on a port whose link was down (must stay 0).
    pub sent_to_down_port: u64,
    /// Reverse-path entries recorded for ACKs (LCMP `ack_routing = reverse`).
    pub reverse_pins: u64,
    /// Per-packet adaptive-routing decisions.
    pub adaptive_decisions: u64,
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
    /// Index into `lcmp` per node (`u32::MAX`: none).
    lcmp_idx: Vec<u32>,
    /// The LCMP switches.
    pub lcmp: Vec<LcmpRouter>,
    /// Node of each LCMP switch.
    pub lcmp_nodes: Vec<NodeId>,
    /// Local index of each port at its node.
    port_local: Vec<u16>,
    /// `routing.kind = "path-index"`: per node, the divisor `D_t` of its tier
    /// ([`path_index_divisors`]); empty otherwise.
    path_divisor: Vec<u32>,
    /// Path table: `(node · hosts + host)` → offset into `path_pool` (`u32::MAX`: not computed).
    path_idx: Vec<u32>,
    path_pool: Vec<PathAttr>,
    path_cpath: Vec<u8>,
    n_hosts: usize,
    has_dci: bool,
    node_is_dci: Vec<bool>,
    node_group: Vec<u32>,
    host_nodes: Vec<NodeId>,
    /// The candidates of an LCMP decision with their path delays (reused).
    offered: Vec<(Candidate, Time)>,
    queues: Vec<u64>,
    /// Counters.
    pub stats: RoutingStats,
    /// DCI-link utilisation recorder (`output.link_util`).
    pub link_util: Option<LinkUtilRecorder>,
    /// UCMP's flow cache per node (`routing.ucmp_cache`; empty otherwise): key → port.
    ucmp_cache: Vec<HashMap<u128, PortId>>,
    /// TE switches (`routing.kind = "te"`) and their nodes, and per node its index into them.
    pub te: Vec<TeRouter>,
    /// Node of each TE switch.
    pub te_nodes: Vec<NodeId>,
    te_idx: Vec<u32>,
    /// Bytes each TE switch's ports had sent at the last round.
    te_last_tx: Vec<Vec<u64>>,
    /// The LCMP decision log (`output.decisions`; `None`: off).
    pub decisions: Option<Vec<Decision>>,
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

/// Pareto frontier of `(one-way delay, bottleneck)` over the minimum-hop paths from `x` to the
/// end of the scored segment: the destination DC's DCI (when the topology has DCIs and `x` is not
/// the start) or the destination host.
#[allow(clippy::too_many_arguments)]
fn frontier(
    x: NodeId,
    start: NodeId,
    d_host: u32,
    d_node: NodeId,
    end_group: Option<u32>,
    routes: &Routes,
    ports: &[Port],
    is_dci: &[bool],
    group: &[u32],
    memo: &mut HashMap<u32, Vec<(Time, u64)>>,
) -> Vec<(Time, u64)> {
    if x == d_node
        || (x != start && end_group.is_some_and(|g| is_dci[x.idx()] && group[x.idx()] == g))
    {
        return vec![(Time::ZERO, u64::MAX)];
    }
    if let Some(v) = memo.get(&x.0) {
        return v.clone();
    }
    let mut pts = Vec::new();
    for &p in routes.next_hops(x, d_host) {
        let port = &ports[p.idx()];
        for (d, b) in frontier(
            port.peer, start, d_host, d_node, end_group, routes, ports, is_dci, group, memo,
        ) {
            pts.push((d + port.delay, b.min(port.rate.bps())));
        }
    }
    let pts = pareto(pts);
    memo.insert(x.0, pts.clone());
    pts
}

/// Keep the points not dominated in (smaller delay, larger bottleneck).
fn pareto(mut pts: Vec<(Time, u64)>) -> Vec<(Time, u64)> {
    pts.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out: Vec<(Time, u64)> = Vec::new();
    for p in pts {
        if out.last().is_none_or(|l| p.1 > l.1) {
            out.push(p);
        }
    }
    out
}

/// The path index `routing.kind = "path-index"` reads from a packet's entropy (UDP source port):
/// the low byte — a sprayer's logical path — offset by a scramble of the high byte, which a
/// flow's logical paths share. Consecutive logical paths keep consecutive indices (so distinct
/// physical paths), while each flow's path 0 starts at its own physical path: flows that start
/// together with the same per-path state would otherwise all burst onto the physical path of
/// their path 0 (or 15) at once. A random source port gives a uniformly random index.
#[inline]
pub fn path_index(entropy: u16) -> u16 {
    (entropy & 0xFF).wrapping_add((entropy >> 8).wrapping_mul(0x9E37))
}

/// Per node, the divisor of `routing.kind = "path-index"`: the product of the up-link fan-outs
/// (the most links any switch of the tier has to switches of higher tiers) of every switch tier
/// below the node's. Tier-0 switches (file topologies without tiers) divide by 1, as
/// entropy-indexing does.
pub fn path_index_divisors(
    topo: &Topology,
    node_ports: &[Vec<PortId>],
    ports: &[Port],
) -> Vec<u32> {
    let tier = |n: NodeId| topo.nodes[n.idx()].tier;
    let is_switch = |n: NodeId| topo.nodes[n.idx()].kind != NodeKind::Host;
    let max_tier =
        topo.nodes.iter().filter(|x| x.kind != NodeKind::Host).map(|x| x.tier).max().unwrap_or(0)
            as usize;
    let mut up_fanout = vec![1u64; max_tier + 1];
    for (u, np) in node_ports.iter().enumerate() {
        let node = NodeId::from_idx(u);
        if !is_switch(node) || tier(node) == 0 {
            continue;
        }
        let up = np
            .iter()
            .filter(|p| is_switch(ports[p.idx()].peer) && tier(ports[p.idx()].peer) > tier(node))
            .count() as u64;
        let t = tier(node) as usize;
        up_fanout[t] = up_fanout[t].max(up.max(1));
    }
    topo.nodes
        .iter()
        .map(|x| {
            if x.kind == NodeKind::Host || x.tier == 0 {
                return 1;
            }
            (1..x.tier as usize).map(|t| up_fanout[t]).product::<u64>().clamp(1, u32::MAX as u64)
                as u32
        })
        .collect()
}

impl SwitchRouting {
    /// Take over another partition's routing state of the switches it owns (`own`: by node),
    /// add its counters and append its logs (a partition logs only its own switches and ports;
    /// merging a parallel run); [`SwitchRouting::finish_merge`] restores the order of the logs.
    pub(crate) fn merge_partition(&mut self, other: SwitchRouting, own: impl Fn(NodeId) -> bool) {
        self.stats.sent_to_down_port += other.stats.sent_to_down_port;
        self.stats.reverse_pins += other.stats.reverse_pins;
        self.stats.adaptive_decisions += other.stats.adaptive_decisions;
        for (i, r) in other.lcmp.into_iter().enumerate() {
            if own(self.lcmp_nodes[i]) {
                self.lcmp[i] = r;
            }
        }
        for (i, (r, last)) in other.te.into_iter().zip(other.te_last_tx).enumerate() {
            if own(self.te_nodes[i]) {
                self.te[i] = r;
                self.te_last_tx[i] = last;
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

    /// Set up routing for a network: which nodes run the scheme, the LCMP routers (bootstrap,
    /// with `max_delay = auto` resolved per switch from its longest candidate path).
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
            lcmp_idx: vec![u32::MAX; n],
            lcmp: Vec::new(),
            lcmp_nodes: Vec::new(),
            port_local,
            path_divisor: if kind == RoutingKind::PathIndex {
                path_index_divisors(topo, node_ports, ports)
            } else {
                Vec::new()
            },
            path_idx: Vec::new(),
            path_pool: Vec::new(),
            path_cpath: Vec::new(),
            n_hosts: host_nodes.len(),
            has_dci,
            node_is_dci,
            node_group,
            host_nodes: host_nodes.to_vec(),
            offered: Vec::new(),
            queues: Vec::new(),
            stats: RoutingStats::default(),
            link_util: None,
            ucmp_cache: if kind == RoutingKind::Ucmp && params.ucmp_cache {
                vec![HashMap::new(); n]
            } else {
                Vec::new()
            },
            decisions: None,
            te: Vec::new(),
            te_nodes: Vec::new(),
            te_idx: vec![u32::MAX; n],
            te_last_tx: Vec::new(),
        };
        if kind.needs_paths() || params.lcmp.max_delay_spread.is_some() {
            r.path_idx = vec![u32::MAX; n * host_nodes.len()];
        }
        if kind.is_lcmp() {
            // One representative destination host per group: the scored segment ends at the
            // group's DCI, so every host of a group gives the same candidate paths.
            let mut reps: Vec<u32> = Vec::new();
            let mut seen = std::collections::BTreeSet::new();
            for (h, &hn) in host_nodes.iter().enumerate() {
                if seen.insert(topo.nodes[hn.idx()].group) {
                    reps.push(h as u32);
                }
            }
            for u in 0..n {
                if !r.scheme_node[u] {
                    continue;
                }
                let node = NodeId::from_idx(u);
                let auto = if params.lcmp.max_delay == MaxDelay::Auto
                    && params.lcmp.path_scope == PathScope::Path
                {
                    let mut longest = Time::ZERO;
                    for &h in &reps {
                        let hops = routes.next_hops(node, h);
                        if hops.len() < 2 {
                            continue;
                        }
                        for pts in r.candidate_frontiers(node, h, routes, ports) {
                            for (d, _) in pts {
                                longest = longest.max(d);
                            }
                        }
                    }
                    let mut m = Time::from_ms(1);
                    while m < longest {
                        m = Time::from_ps(m.ps() * 2);
                    }
                    m
                } else {
                    // Next-hop scope: the longest link of the switch.
                    let longest = node_ports[u]
                        .iter()
                        .map(|p| ports[p.idx()].delay)
                        .max()
                        .unwrap_or(Time::ZERO);
                    let mut m = Time::from_ms(1);
                    while m < longest {
                        m = Time::from_ps(m.ps() * 2);
                    }
                    m
                };
                let rates: Vec<u64> =
                    node_ports[u].iter().map(|p| ports[p.idx()].rate.bps()).collect();
                r.lcmp_idx[u] = r.lcmp.len() as u32;
                r.lcmp.push(LcmpRouter::new(params.lcmp, &rates, buffer_cap[u], auto));
                r.lcmp_nodes.push(node);
            }
        }
        if kind == RoutingKind::Te {
            for (u, np) in node_ports.iter().enumerate().take(n) {
                if r.scheme_node[u] {
                    r.te_idx[u] = r.te.len() as u32;
                    r.te.push(TeRouter::new(params.te, np.len()));
                    r.te_nodes.push(NodeId::from_idx(u));
                    r.te_last_tx.push(np.iter().map(|p| ports[p.idx()].tx_bytes).collect());
                }
            }
        }
        r
    }

    /// Whether `node` runs the selected scheme.
    pub fn runs_scheme(&self, node: NodeId) -> bool {
        self.scheme_node[node.idx()]
    }

    /// The LCMP router of `node`, if it runs one.
    pub fn lcmp_of(&self, node: NodeId) -> Option<&LcmpRouter> {
        let i = self.lcmp_idx[node.idx()];
        (i != u32::MAX).then(|| &self.lcmp[i as usize])
    }

    /// Local index of a port at its node.
    pub fn local_index(&self, port: PortId) -> u16 {
        self.port_local[port.idx()]
    }

    /// The frontier of each candidate next hop of `node` toward host `h`, as seen from `node`.
    fn candidate_frontiers(
        &self,
        node: NodeId,
        h: u32,
        routes: &Routes,
        ports: &[Port],
    ) -> Vec<Vec<(Time, u64)>> {
        let d_node = self.host_nodes[h as usize];
        let g = self.node_group[d_node.idx()];
        let end_group = self.has_dci.then_some(g);
        let mut memo = HashMap::new();
        routes
            .next_hops(node, h)
            .iter()
            .map(|&p| {
                let port = &ports[p.idx()];
                frontier(
                    port.peer,
                    node,
                    h,
                    d_node,
                    end_group,
                    routes,
                    ports,
                    &self.node_is_dci,
                    &self.node_group,
                    &mut memo,
                )
                .into_iter()
                .map(|(d, b)| (d + port.delay, b.min(port.rate.bps())))
                .collect()
            })
            .collect()
    }

    /// The control plane's attributes of the candidates of `node` toward host `h` (aligned with
    /// `routes.next_hops(node, h)`): computed on first use and kept until the next link change.
    /// Returns the offset into the path pool.
    fn path_attrs(&mut self, node: NodeId, h: u32, routes: &Routes, ports: &[Port]) -> usize {
        let slot = node.idx() * self.n_hosts + h as usize;
        let off = self.path_idx[slot];
        if off != u32::MAX {
            return off as usize;
        }
        let fr = self.candidate_frontiers(node, h, routes, ports);
        let off = self.path_pool.len();
        let li = self.lcmp_idx[node.idx()];
        for (i, &p) in routes.next_hops(node, h).iter().enumerate() {
            let port = &ports[p.idx()];
            let pts = &fr[i];
            let delay = pts.iter().map(|x| x.0).min().unwrap_or(port.delay);
            let bott = pts.iter().map(|x| x.1).max().unwrap_or(port.rate.bps());
            let c_path = if li != u32::MAX {
                let r = &self.lcmp[li as usize];
                pts.iter().map(|&(d, b)| r.path_score(d, b)).min().unwrap_or(255)
            } else {
                0
            };
            self.path_pool.push(PathAttr {
                link_rate_bps: port.rate.bps(),
                path_delay: delay,
                path_bottleneck_bps: bott,
            });
            self.path_cpath.push(c_path);
        }
        self.path_idx[slot] = off as u32;
        off
    }

    /// Forget the path table (after a link change).
    pub fn clear_paths(&mut self) {
        self.path_idx.iter_mut().for_each(|x| *x = u32::MAX);
        self.path_pool.clear();
        self.path_cpath.clear();
    }

    /// The control plane's view of `node`'s candidates toward host `h`: per candidate port, its
    /// path attributes and (on LCMP switches) `C_path`.
    pub fn describe_candidates(
        &mut self,
        node: NodeId,
        h: u32,
        routes: &Routes,
        ports: &[Port],
    ) -> Vec<(PortId, PathAttr, u8)> {
        if self.path_idx.is_empty() {
            self.path_idx = vec![u32::MAX; self.scheme_node.len() * self.n_hosts];
        }
        let off = self.path_attrs(node, h, routes, ports);
        routes
            .next_hops(node, h)
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, self.path_pool[off + i], self.path_cpath[off + i]))
            .collect()
    }
}

impl SwitchRouting {
    /// Whether `scheme` caches every first decision of a packet of this kind (the LCMP
    /// artifact's flow cache, UCMP's with `routing.ucmp_cache`): such schemes see single next
    /// hops too.
    #[inline(always)]
    fn caches_all(&self, scheme: RoutingKind, is_data: bool) -> bool {
        (scheme.is_lcmp() && (is_data || self.params.lcmp.cache_every))
            || (scheme == RoutingKind::Ucmp && self.params.ucmp_cache)
    }

    /// [`SwitchRouting::select_egress`]'s decision where it needs only the next-hop tables and
    /// the switches' hash seeds — no port state, no clock, no cache: a destination without a
    /// route, a single next hop, ECMP (without `routing.max_delay_spread`), entropy-indexed and
    /// path-index routing. `Err(next hops)` when the decision needs the full view: the driver
    /// then hands those next hops to [`SwitchRouting::select_egress`], so the route is looked up
    /// once. The driver asks this first, so the common case does not assemble a [`RouteView`]
    /// (storing its seven slices to the stack before every decision).
    #[inline(always)]
    pub fn egress_without_view<'r>(
        &self,
        routes: &'r Routes,
        host_of_node: &[u32],
        hash_seed: &[u32],
        node: NodeId,
        pk: &Packet,
    ) -> Result<Option<PortId>, &'r [PortId]> {
        let scheme = if self.scheme_node[node.idx()] { self.kind } else { RoutingKind::Ecmp };
        let is_data = matches!(pk.kind, PacketKind::Data | PacketKind::Probe);
        let hops = routes.next_hops(node, host_of_node[pk.dst.idx()]);
        let n = hops.len();
        if n == 0 {
            return Ok(None);
        }
        if self.caches_all(scheme, is_data) {
            return Err(hops);
        }
        if n == 1 {
            return Ok(Some(hops[0]));
        }
        let egress = match scheme {
            RoutingKind::Ecmp
                if self.params.lcmp.max_delay_spread.filter(|_| scheme == self.kind).is_none() =>
            {
                let (sip, dip) = (node_ip(pk.src.0), node_ip(pk.dst.0));
                let (sport, dport) = self.hash_ports(pk.entropy, is_data);
                hops[ecmp_hash(sip, dip, sport, dport, hash_seed[node.idx()]) as usize % n]
            }
            RoutingKind::EntropyIndexed => hops[pk.entropy as usize % n],
            RoutingKind::PathIndex => {
                hops[(path_index(pk.entropy) as usize / self.path_divisor[node.idx()] as usize) % n]
            }
            _ => return Err(hops),
        };
        Ok(Some(egress))
    }

    /// Pick the egress of `pk` at switch `node` (it arrived over `ingress`) among its next hops
    /// `hops` (`v.routes`' set toward its destination); `None` when the destination is
    /// unreachable. `rng` is the switch's random stream (adaptive routing's tie-breaks). The
    /// driver's forwarding calls it for every packet at a switch that
    /// [`SwitchRouting::egress_without_view`] does not decide.
    #[inline]
    pub fn select_egress(
        &mut self,
        v: &RouteView,
        node: NodeId,
        pk: &Packet,
        hops: &[PortId],
        ingress: PortId,
        rng: &mut Rng,
    ) -> Option<PortId> {
        let (src, dst, entropy, kind, size) = (pk.src, pk.dst, pk.entropy, pk.kind, pk.size_bytes);
        let dst_host = v.host_of_node[dst.idx()];
        debug_assert_eq!(hops, v.routes.next_hops(node, dst_host), "next hops not the routes' set");
        let n = hops.len();
        let scheme = if self.scheme_node[node.idx()] { self.kind } else { RoutingKind::Ecmp };
        let is_data = matches!(kind, PacketKind::Data | PacketKind::Probe);
        if n == 0 {
            return None;
        }
        if n == 1 && !self.caches_all(scheme, is_data) {
            return Some(hops[0]);
        }
        let seed = v.hash_seed[node.idx()];
        let (sip, dip) = (node_ip(src.0), node_ip(dst.0));
        let (sport, dport) = self.hash_ports(entropy, is_data);
        let ecmp = |n: usize| ecmp_hash(sip, dip, sport, dport, seed) as usize % n;
        // `routing.max_delay_spread` under `routing.kind = "ecmp"` / `"ucmp"`: hash only over
        // the candidates within the spread (nothing to do, and no cost, when it is unset).
        let spread = self.params.lcmp.max_delay_spread.filter(|_| scheme == self.kind);
        let egress = match scheme {
            RoutingKind::Ecmp if spread.is_some() => {
                let off = self.path_attrs(node, dst_host, v.routes, v.ports);
                let attrs = &self.path_pool[off..off + n];
                let lim = delay_limit(attrs, spread);
                hops[ecmp_within(attrs, ecmp_hash(sip, dip, sport, dport, seed), |a| {
                    a.path_delay <= lim
                })]
            }
            RoutingKind::Ecmp => hops[ecmp(n)],
            RoutingKind::EntropyIndexed => hops[entropy as usize % n],
            RoutingKind::PathIndex => {
                hops[(path_index(entropy) as usize / self.path_divisor[node.idx()] as usize) % n]
            }
            RoutingKind::Ucmp if self.params.ucmp_cache => {
                let key = flow_key(self.params.lcmp.flow_key, sip, dip, sport, dport, !is_data);
                if let Some(&p) = self.ucmp_cache[node.idx()].get(&key) {
                    // A cached port that is no candidate here (a colliding key of a flow to
                    // elsewhere) is re-decided: leaving the minimum-hop paths could loop.
                    if hops.contains(&p) {
                        return Some(p);
                    }
                }
                let off = self.path_attrs(node, dst_host, v.routes, v.ports);
                let attrs = &self.path_pool[off..off + n];
                let lim = delay_limit(attrs, spread);
                let i = ucmp_within(attrs, ecmp_hash(sip, dip, sport, dport, seed), |a| {
                    a.path_delay <= lim
                });
                self.ucmp_cache[node.idx()].insert(key, hops[i]);
                hops[i]
            }
            RoutingKind::Ucmp | RoutingKind::Wcmp | RoutingKind::UcmpWeighted => {
                let off = self.path_attrs(node, dst_host, v.routes, v.ports);
                let attrs = &self.path_pool[off..off + n];
                let h = ecmp_hash(sip, dip, sport, dport, seed);
                let i = match scheme {
                    RoutingKind::Ucmp => {
                        let lim = delay_limit(attrs, spread);
                        ucmp_within(attrs, h, |a| a.path_delay <= lim)
                    }
                    RoutingKind::Wcmp => wcmp(attrs, h, self.params.wcmp_table),
                    _ => ucmp_weighted(
                        attrs,
                        h,
                        self.params.wcmp_table,
                        self.params.ucmp_slack_percent,
                    ),
                };
                hops[i]
            }
            RoutingKind::Adaptive => {
                // Control packets (< 100 B) are ECMP-hashed (htsim); data takes the least-loaded port.
                if !is_data || size < 100 {
                    hops[ecmp(n)]
                } else {
                    self.stats.adaptive_decisions += 1;
                    let ports = v.ports;
                    let i = if self.params.quantized {
                        let cap =
                            v.buffer_cap[node.idx()] / v.node_ports[node.idx()].len().max(1) as u64;
                        least_loaded(
                            n,
                            |i| quantize4(ports[hops[i].idx()].queued_bytes(), cap),
                            rng,
                        )
                    } else {
                        least_loaded(n, |i| ports[hops[i].idx()].queued_bytes(), rng)
                    };
                    hops[i]
                }
            }
            RoutingKind::Lcmp | RoutingKind::LcmpArtifact => {
                return self.lcmp_egress(v, node, src, dst, entropy, is_data, ingress);
            }
            RoutingKind::Te => {
                let ti = self.te_idx[node.idx()] as usize;
                let key = flow_key(FlowKeyKind::FiveTuple, sip, dip, sport, dport, !is_data);
                if let Some(lp) = self.te[ti].lookup(v.now, key) {
                    let p = v.node_ports[node.idx()][lp as usize];
                    if hops.contains(&p) {
                        return Some(p);
                    }
                }
                let set = v.routes.set_id(node, dst_host).unwrap_or(u32::MAX);
                let off = self.path_attrs(node, dst_host, v.routes, v.ports);
                let table = self.params.te.granularity;
                let attrs = &self.path_pool[off..off + n];
                let port_local = &self.port_local;
                let h = ecmp_hash(sip, dip, sport, dport, seed);
                // The set's ports and weights are built once per set, not per flow.
                let lp = self.te[ti].decide(v.now, key, h, set, || {
                    let local = hops.iter().map(|p| port_local[p.idx()]).collect();
                    (local, wcmp_weights(attrs, table))
                });
                v.node_ports[node.idx()][lp as usize]
            }
        };
        Some(egress)
    }

    /// The (source, destination) UDP ports the switches hash for a packet of a flow with entropy
    /// `entropy`: data carry (entropy, `routing.hash_dport`); ACKs and NAKs the same, or swapped
    /// with `routing.ack_hash = "swapped"`. With `routing.per_entropy = false` the entropy's low
    /// byte is cleared first, so a flow's logical paths share one hash and one cache entry.
    #[inline]
    fn hash_ports(&self, entropy: u16, is_data: bool) -> (u16, u16) {
        let entropy = if self.params.per_entropy { entropy } else { entropy & 0xFF00 };
        let d = self.params.hash_dport;
        if !is_data && self.params.ack_hash_swapped {
            (d, entropy)
        } else {
            (entropy, d)
        }
    }

    /// LCMP at switch `node`: the flow cache, a decision on a miss, the reverse-path pin for ACKs.
    #[allow(clippy::too_many_arguments)]
    fn lcmp_egress(
        &mut self,
        v: &RouteView,
        node: NodeId,
        src: NodeId,
        dst: NodeId,
        entropy: u16,
        is_data: bool,
        ingress: PortId,
    ) -> Option<PortId> {
        let now = v.now;
        let dst_host = v.host_of_node[dst.idx()];
        let src_host = v.host_of_node[src.idx()];
        let li = self.lcmp_idx[node.idx()] as usize;
        let p = *self.lcmp[li].params();
        let (sip, dip) = (node_ip(src.0), node_ip(dst.0));
        let (sport, dport) = self.hash_ports(entropy, is_data);
        let key = flow_key(p.flow_key, sip, dip, sport, dport, !is_data);
        let hops = v.routes.next_hops(node, dst_host);
        let n = hops.len();
        // The reverse direction's egress: back over the link the packet came in on.
        let reverse = v.ports[ingress.idx()].reverse;
        let pin_reverse = is_data
            && p.ack_routing == AckRouting::Reverse
            && v.routes.next_hops(node, src_host).len() > 1
            && v.routes.next_hops(node, src_host).contains(&reverse);
        if n == 1 && !pin_reverse && !p.cache_every {
            return Some(hops[0]);
        }
        let local = &v.node_ports[node.idx()];
        let failover =
            match self.lcmp[li].route_cached(now, key, |lp| hops.contains(&local[lp as usize])) {
                Ok(lp) => return Some(local[lp as usize]),
                Err(failover) => failover,
            };
        // A new flow (or one whose port went down): the candidates, with their path attributes
        // when the decision reads them (`C_path`, or path delays for `routing.max_delay_spread`).
        let need_cpath = p.path_scope == PathScope::Path;
        let need_delay = p.max_delay_spread.is_some() && n > 1;
        let off = if need_cpath || need_delay {
            self.path_attrs(node, dst_host, v.routes, v.ports)
        } else {
            0
        };
        self.offered.clear();
        for (i, &hp) in hops.iter().enumerate() {
            let port = &v.ports[hp.idx()];
            let c = Candidate {
                port: self.port_local[hp.idx()],
                link_rate_bps: port.rate.bps(),
                link_delay: port.delay,
                c_path: if need_cpath { self.path_cpath[off + i] } else { 0 },
            };
            self.offered.push((
                c,
                if need_delay { self.path_pool[off + i].path_delay } else { Time::ZERO },
            ));
        }
        let queues = |out: &mut Vec<u64>| {
            out.extend(local.iter().map(|np| v.ports[np.idx()].queued_bytes()))
        };
        let h = ecmp_hash(sip, dip, sport, dport, v.hash_seed[node.idx()]);
        let rev = pin_reverse.then(|| {
            let (rs, rd) = self.hash_ports(entropy, false);
            (flow_key(p.flow_key, dip, sip, rs, rd, true), self.port_local[reverse.idx()])
        });
        let lp = self.lcmp[li].route_new(now, key, n, &self.offered, queues, h, failover, rev)?;
        if pin_reverse {
            self.stats.reverse_pins += 1;
        }
        if let Some(log) = &mut self.decisions {
            let (scored, kept) = self.lcmp[li].last_decision();
            log.push(Decision {
                at: now,
                node,
                src_host,
                dst_host,
                data: is_data,
                candidates: scored
                    .iter()
                    .map(|s| (v.ports[local[s.port as usize].idx()].peer, s.c_path, s.cong, s.cost))
                    .collect(),
                kept,
                chosen: v.ports[local[lp as usize].idx()].peer,
            });
        }
        Some(local[lp as usize])
    }

    /// The routing timers a run starts with (the LCMP monitor, the link-utilisation sampler), in
    /// the order to schedule them.
    pub fn initial_timers(&self) -> [Option<(Time, RoutingTimer)>; 3] {
        let monitor = (self.kind.is_lcmp()
            && !self.lcmp.is_empty()
            && self.params.lcmp.sampling == Sampling::Periodic)
            .then_some((self.params.lcmp.monitor_interval, RoutingTimer::Monitor));
        let link_util = self.link_util.as_ref().map(|lu| (lu.interval, RoutingTimer::LinkUtil));
        let te = (!self.te.is_empty()).then_some((self.params.te.interval, RoutingTimer::Te));
        [monitor, link_util, te]
    }

    /// A routing timer fired at `now`. `more_to_come`: some flow is still incomplete (a timer is
    /// re-armed only then). Returns the timer to schedule next, if any.
    /// `own` (by node, in a parallel run) limits the work to a partition's switches and ports.
    pub fn on_timer(
        &mut self,
        now: Time,
        timer: RoutingTimer,
        ports: &[Port],
        node_ports: &[Vec<PortId>],
        more_to_come: bool,
        own: Option<&[bool]>,
    ) -> Option<(Time, RoutingTimer)> {
        let owned = |n: NodeId| own.is_none_or(|o| o[n.idx()]);
        match timer {
            RoutingTimer::Monitor => {
                self.on_monitor(now, ports, node_ports, owned);
                more_to_come
                    .then(|| (now + self.params.lcmp.monitor_interval, RoutingTimer::Monitor))
            }
            RoutingTimer::LinkUtil => {
                let lu = self.link_util.as_mut()?;
                lu.sample(now, ports, owned);
                more_to_come.then(|| (now + lu.interval, RoutingTimer::LinkUtil))
            }
            RoutingTimer::Te => {
                for (i, &node) in self.te_nodes.iter().enumerate() {
                    if !owned(node) {
                        continue;
                    }
                    let np = &node_ports[node.idx()];
                    let sent: Vec<u64> = np
                        .iter()
                        .zip(&self.te_last_tx[i])
                        .map(|(p, &last)| ports[p.idx()].tx_bytes - last)
                        .collect();
                    let rates: Vec<u64> = np.iter().map(|p| ports[p.idx()].rate.bps()).collect();
                    self.te[i].round(&sent, &rates);
                    self.te_last_tx[i] = np.iter().map(|p| ports[p.idx()].tx_bytes).collect();
                }
                more_to_come.then(|| (now + self.params.te.interval, RoutingTimer::Te))
            }
        }
    }

    /// The periodic LCMP congestion monitor: sample every port of every LCMP switch.
    fn on_monitor(
        &mut self,
        now: Time,
        ports: &[Port],
        node_ports: &[Vec<PortId>],
        owned: impl Fn(NodeId) -> bool,
    ) {
        for (i, &node) in self.lcmp_nodes.iter().enumerate() {
            if !owned(node) {
                continue;
            }
            self.queues.clear();
            for &np in &node_ports[node.idx()] {
                self.queues.push(ports[np.idx()].queued_bytes());
            }
            self.lcmp[i].monitor(now, &self.queues);
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
    /// up or down, `None`: its rate or delay changed): LCMP switches mark the port for fast
    /// failover or take its new rate; the path table is recomputed on demand.
    pub fn on_link_change(&mut self, changed: [PortId; 2], up: Option<bool>, ports: &[Port]) {
        for p in changed {
            let node = ports[p.idx()].node;
            let li = self.lcmp_idx[node.idx()];
            if li != u32::MAX {
                let l = self.port_local[p.idx()];
                let r = &mut self.lcmp[li as usize];
                match up {
                    Some(u) => r.set_port_up(l, u),
                    None => r.set_port_rate(l, ports[p.idx()].rate.bps()),
                }
            }
        }
        self.clear_paths();
    }

    /// Count a packet queued on a down port (called by forwarding for every chosen egress; must
    /// never happen).
    #[inline]
    pub fn check_egress(&mut self, egress: &Port) {
        if !egress.up {
            self.stats.sent_to_down_port += 1;
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

#[cfg(test)]
mod tests {
    use super::path_index;

    /// A flow's logical paths (consecutive low bytes under one high byte) keep consecutive
    /// indices, so 16 of them cover the 16 residues a Clos's two digits read; flows differ in
    /// where they start.
    #[test]
    fn path_indices_are_consecutive_within_a_flow_and_offset_between_flows() {
        for high in [0u16, 1, 0x12, 0xC0, 0xFF] {
            let base = path_index(high << 8);
            let mut residues: Vec<u16> = (0..16u16).map(|p| path_index((high << 8) + p)).collect();
            assert!(residues.iter().enumerate().all(|(p, &i)| i == base.wrapping_add(p as u16)));
            residues.iter_mut().for_each(|i| *i %= 16);
            residues.sort_unstable();
            assert_eq!(residues, (0..16).collect::<Vec<u16>>());
        }
        let starts: std::collections::BTreeSet<u16> =
            (0..=255u16).map(|h| path_index(h << 8) % 16).collect();
        assert_eq!(starts.len(), 16, "flows start on every one of 16 physical paths");
    }
}
