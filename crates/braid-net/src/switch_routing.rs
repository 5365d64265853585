//! The switch side of routing: which egress port a switch gives a packet, driving the sans-IO
//! deciders of [`braid_proto::routing`] with the simulator's tables and ports.
//!
//! - Candidates are the routing table's minimum-hop next hops ([`crate::routes`]), as in the LCMP
//!   artifact (lcmp.md §1: "candidate set = equal-hop-count next hops only").
//! - On topologies with DCI switches only the DCIs run the selected scheme; every other switch
//!   uses ECMP (lcmp.md §1). Without DCIs the scheme runs on every switch.
//! - The control plane (`SwitchRouting::path_attrs`, see [`SwitchRouting::describe_candidates`]) computes, per (switch, destination), each
//!   candidate's best remaining path — total one-way delay and bottleneck capacity over the
//!   minimum-hop paths up to the destination DC's DCI (or the host) — and LCMP's `C_path` from it
//!   (paper §3.2), lazily, once per pair; link changes clear the table.
//! - LCMP switches keep an [`LcmpRouter`] each: flow cache lookups per packet, a full decision per
//!   new flow, a periodic congestion monitor ([`crate::sim::Ev::RouteMonitor`]), and fast failover
//!   (a link going down marks the port down in the router; cached flows on it are re-decided at
//!   their next packet).
//! - No allocation per packet: candidate and queue scratch vectors are reused.

use std::collections::HashMap;

use braid_core::{NodeId, PacketKind, PktId, PortId, Time};
use braid_proto::hash::{ecmp_hash, node_ip, ROCE_DPORT};
use braid_proto::routing::select::{least_loaded, quantize4, ucmp, ucmp_weighted, wcmp, PathAttr};
use braid_proto::routing::{
    flow_key, AckRouting, CacheLookup, Candidate, LcmpRouter, MaxDelay, PathScope, RoutingKind, RoutingParams, Sampling,
};

use crate::port::Port;
use crate::routes::Routes;
use crate::sim::{Ev, Sim};
use crate::topology::{NodeKind, Topology};

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
    /// Path table: `(node · hosts + host)` → offset into `path_pool` (`u32::MAX`: not computed).
    path_idx: Vec<u32>,
    path_pool: Vec<PathAttr>,
    path_cpath: Vec<u8>,
    n_hosts: usize,
    has_dci: bool,
    node_is_dci: Vec<bool>,
    node_group: Vec<u32>,
    host_nodes: Vec<NodeId>,
    cands: Vec<Candidate>,
    queues: Vec<u64>,
    /// Counters.
    pub stats: RoutingStats,
    /// DCI-link utilisation recorder (`output.link_util`).
    pub link_util: Option<LinkUtilRecorder>,
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
    if x == d_node || (x != start && end_group.is_some_and(|g| is_dci[x.idx()] && group[x.idx()] == g)) {
        return vec![(Time::ZERO, u64::MAX)];
    }
    if let Some(v) = memo.get(&x.0) {
        return v.clone();
    }
    let mut pts = Vec::new();
    for &p in routes.next_hops(x, d_host) {
        let port = &ports[p.idx()];
        for (d, b) in frontier(port.peer, start, d_host, d_node, end_group, routes, ports, is_dci, group, memo) {
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

impl SwitchRouting {
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
        let scheme_node: Vec<bool> =
            topo.nodes.iter().map(|x| if has_dci { x.kind == NodeKind::Dci } else { x.kind != NodeKind::Host }).collect();
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
            path_idx: Vec::new(),
            path_pool: Vec::new(),
            path_cpath: Vec::new(),
            n_hosts: host_nodes.len(),
            has_dci,
            node_is_dci,
            node_group,
            host_nodes: host_nodes.to_vec(),
            cands: Vec::new(),
            queues: Vec::new(),
            stats: RoutingStats::default(),
            link_util: None,
        };
        if kind.needs_paths() {
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
                let auto = if params.lcmp.max_delay == MaxDelay::Auto && params.lcmp.path_scope == PathScope::Path {
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
                        m = Time(m.0 * 2);
                    }
                    m
                } else {
                    // Next-hop scope: the longest link of the switch.
                    let longest = node_ports[u].iter().map(|p| ports[p.idx()].delay).max().unwrap_or(Time::ZERO);
                    let mut m = Time::from_ms(1);
                    while m < longest {
                        m = Time(m.0 * 2);
                    }
                    m
                };
                let rates: Vec<u64> = node_ports[u].iter().map(|p| ports[p.idx()].rate.bps()).collect();
                r.lcmp_idx[u] = r.lcmp.len() as u32;
                r.lcmp.push(LcmpRouter::new(params.lcmp, &rates, buffer_cap[u], auto));
                r.lcmp_nodes.push(node);
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
    fn candidate_frontiers(&self, node: NodeId, h: u32, routes: &Routes, ports: &[Port]) -> Vec<Vec<(Time, u64)>> {
        let d_node = self.host_nodes[h as usize];
        let g = self.node_group[d_node.idx()];
        let end_group = self.has_dci.then_some(g);
        let mut memo = HashMap::new();
        routes
            .next_hops(node, h)
            .iter()
            .map(|&p| {
                let port = &ports[p.idx()];
                frontier(port.peer, node, h, d_node, end_group, routes, ports, &self.node_is_dci, &self.node_group, &mut memo)
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
            self.path_pool.push(PathAttr { link_rate_bps: port.rate.bps(), path_delay: delay, path_bottleneck_bps: bott });
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
    pub fn describe_candidates(&mut self, node: NodeId, h: u32, routes: &Routes, ports: &[Port]) -> Vec<(PortId, PathAttr, u8)> {
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

impl Sim {
    /// Pick the egress of `pkt` at switch `node` (it arrived over `ingress`); `None` when the
    /// destination is unreachable. Called by [`Sim`]'s forwarding for every packet at a switch.
    #[inline]
    pub(crate) fn select_egress(&mut self, now: Time, node: NodeId, pkt: PktId, ingress: PortId) -> Option<PortId> {
        let pk = self.pkts.get(pkt.0);
        let (src, dst, entropy, kind, size) = (pk.src, pk.dst, pk.entropy, pk.kind, pk.size_bytes);
        let dst_host = self.host_of_node[dst.idx()];
        let hops = self.routes.next_hops(node, dst_host);
        let n = hops.len();
        let rt = &mut self.routing;
        let scheme = if rt.scheme_node[node.idx()] { rt.kind } else { RoutingKind::Ecmp };
        let is_data = matches!(kind, PacketKind::Data | PacketKind::Probe);
        if n == 0 {
            return None;
        }
        if n == 1 && !(scheme.is_lcmp() && is_data) {
            return Some(hops[0]);
        }
        let seed = self.hash_seed[node.idx()];
        let (sip, dip) = (node_ip(src.0), node_ip(dst.0));
        let ecmp = |n: usize| ecmp_hash(sip, dip, entropy, ROCE_DPORT, seed) as usize % n;
        let egress = match scheme {
            RoutingKind::Ecmp => hops[ecmp(n)],
            RoutingKind::EntropyIndexed => hops[entropy as usize % n],
            RoutingKind::Ucmp | RoutingKind::Wcmp | RoutingKind::UcmpWeighted => {
                let off = rt.path_attrs(node, dst_host, &self.routes, &self.ports);
                let attrs = &rt.path_pool[off..off + n];
                let h = ecmp_hash(sip, dip, entropy, ROCE_DPORT, seed);
                let i = match scheme {
                    RoutingKind::Ucmp => ucmp(attrs, h),
                    RoutingKind::Wcmp => wcmp(attrs, h, rt.params.wcmp_table),
                    _ => ucmp_weighted(attrs, h, rt.params.wcmp_table, rt.params.ucmp_slack_percent),
                };
                self.routes.next_hops(node, dst_host)[i]
            }
            RoutingKind::Adaptive => {
                // Control packets (< 100 B) are ECMP-hashed (htsim); data takes the least-loaded port.
                if !is_data || size < 100 {
                    hops[ecmp(n)]
                } else {
                    rt.stats.adaptive_decisions += 1;
                    let ports = &self.ports;
                    let i = if rt.params.quantized {
                        let cap = self.buffer_cap[node.idx()] / self.node_ports[node.idx()].len().max(1) as u64;
                        least_loaded(n, |i| quantize4(ports[hops[i].idx()].queued_bytes(), cap), &mut self.node_rng[node.idx()])
                    } else {
                        least_loaded(n, |i| ports[hops[i].idx()].queued_bytes(), &mut self.node_rng[node.idx()])
                    };
                    hops[i]
                }
            }
            RoutingKind::Lcmp | RoutingKind::LcmpArtifact => {
                return self.lcmp_egress(now, node, src, dst, entropy, is_data, ingress);
            }
        };
        Some(egress)
    }

    /// LCMP at switch `node`: the flow cache, a decision on a miss, the reverse-path pin for ACKs.
    #[allow(clippy::too_many_arguments)]
    fn lcmp_egress(
        &mut self,
        now: Time,
        node: NodeId,
        src: NodeId,
        dst: NodeId,
        entropy: u16,
        is_data: bool,
        ingress: PortId,
    ) -> Option<PortId> {
        let dst_host = self.host_of_node[dst.idx()];
        let src_host = self.host_of_node[src.idx()];
        let rt = &mut self.routing;
        let li = rt.lcmp_idx[node.idx()] as usize;
        let p = *rt.lcmp[li].params();
        let (sip, dip) = (node_ip(src.0), node_ip(dst.0));
        let key = flow_key(p.flow_key, sip, dip, entropy, ROCE_DPORT, !is_data);
        let hops = self.routes.next_hops(node, dst_host);
        let n = hops.len();
        // The reverse direction's egress: back over the link the packet came in on.
        let reverse = self.ports[ingress.idx()].reverse;
        let pin_reverse = is_data
            && p.ack_routing == AckRouting::Reverse
            && self.routes.next_hops(node, src_host).len() > 1
            && self.routes.next_hops(node, src_host).contains(&reverse);
        if n == 1 && !pin_reverse {
            return Some(hops[0]);
        }
        let look = rt.lcmp[li].lookup(now, key);
        let mut failover = matches!(look, CacheLookup::Invalidated(_));
        if let CacheLookup::Hit(lp) = look {
            let port = self.node_ports[node.idx()][lp as usize];
            // The entry stays valid while its port is a candidate; after the control plane
            // changed the routes (a link failure elsewhere), re-decide rather than leave the
            // minimum-hop paths (which could loop).
            if hops.contains(&port) {
                return Some(port);
            }
            failover = true;
        }
        // A new flow (or one whose port went down): full decision among the live candidates.
        rt.cands.clear();
        let need_cpath = p.path_scope == PathScope::Path;
        let off = if need_cpath { rt.path_attrs(node, dst_host, &self.routes, &self.ports) } else { 0 };
        for (i, &hp) in hops.iter().enumerate() {
            let port = &self.ports[hp.idx()];
            rt.cands.push(Candidate {
                port: rt.port_local[hp.idx()],
                link_rate_bps: port.rate.bps(),
                link_delay: port.delay,
                c_path: if need_cpath { rt.path_cpath[off + i] } else { 0 },
            });
        }
        rt.queues.clear();
        if p.sampling == Sampling::NewFlow {
            for &np in &self.node_ports[node.idx()] {
                rt.queues.push(self.ports[np.idx()].queued_bytes());
            }
        }
        let h = ecmp_hash(sip, dip, entropy, ROCE_DPORT, self.hash_seed[node.idx()]);
        let lp = rt.lcmp[li].decide(now, key, h, &rt.cands, &rt.queues, failover)?;
        if pin_reverse {
            let rkey = flow_key(p.flow_key, dip, sip, entropy, ROCE_DPORT, true);
            let rl = rt.port_local[reverse.idx()];
            rt.lcmp[li].pin(now, rkey, rl);
            rt.stats.reverse_pins += 1;
        }
        Some(self.node_ports[node.idx()][lp as usize])
    }

    /// Schedule the routing events a run needs (the LCMP monitor, the link-utilisation sampler).
    /// Called by [`Sim::prepare`].
    pub(crate) fn routing_prepare(&mut self) {
        let rt = &self.routing;
        if rt.kind.is_lcmp() && !rt.lcmp.is_empty() && rt.params.lcmp.sampling == Sampling::Periodic {
            let iv = rt.params.lcmp.monitor_interval;
            self.q.push(iv, Ev::RouteMonitor);
        }
        if let Some(lu) = &self.routing.link_util {
            let iv = lu.interval;
            self.q.push(iv, Ev::LinkUtil);
        }
    }

    /// The periodic LCMP congestion monitor: sample every port of every LCMP switch.
    pub(crate) fn on_route_monitor(&mut self, now: Time) {
        let rt = &mut self.routing;
        for (i, &node) in rt.lcmp_nodes.iter().enumerate() {
            rt.queues.clear();
            for &np in &self.node_ports[node.idx()] {
                rt.queues.push(self.ports[np.idx()].queued_bytes());
            }
            rt.lcmp[i].monitor(now, &rt.queues);
        }
        if self.flows_done() < self.flows.len() {
            let iv = self.routing.params.lcmp.monitor_interval;
            self.q.push(now + iv, Ev::RouteMonitor);
        }
    }

    /// Record bytes sent by each DCI–DCI port during the last interval.
    pub(crate) fn on_link_util(&mut self, now: Time) {
        let Some(lu) = self.routing.link_util.as_mut() else { return };
        if lu.last.len() != lu.ports.len() {
            lu.last = lu.ports.iter().map(|p| self.ports[p.idx()].tx_bytes).collect();
        }
        for (i, &p) in lu.ports.iter().enumerate() {
            let b = self.ports[p.idx()].tx_bytes;
            lu.rows.push((now, i as u32, b - lu.last[i]));
            lu.last[i] = b;
        }
        let iv = lu.interval;
        if self.flows_done() < self.flows.len() {
            self.q.push(now + iv, Ev::LinkUtil);
        }
    }

    /// Record the utilisation of every DCI–DCI port every `interval` (LCMP Fig. 1b).
    pub fn record_link_util(&mut self, interval: Time) {
        let ports: Vec<PortId> = (0..self.ports.len())
            .map(PortId::from_idx)
            .filter(|p| {
                let pt = &self.ports[p.idx()];
                self.topo.nodes[pt.node.idx()].kind == NodeKind::Dci && self.topo.nodes[pt.peer.idx()].kind == NodeKind::Dci
            })
            .collect();
        let last = ports.iter().map(|p| self.ports[p.idx()].tx_bytes).collect();
        self.routing.link_util = Some(LinkUtilRecorder { interval, ports, last, rows: Vec::new() });
    }

    /// Routing's part of a link going up or down (both directions of link `link`): LCMP switches
    /// mark the port for fast failover; the path table is recomputed on demand.
    pub(crate) fn routing_on_link_change(&mut self, ports: [PortId; 2], up: Option<bool>) {
        let rt = &mut self.routing;
        for p in ports {
            let node = self.ports[p.idx()].node;
            let li = rt.lcmp_idx[node.idx()];
            if li != u32::MAX {
                let l = rt.port_local[p.idx()];
                let r = &mut rt.lcmp[li as usize];
                match up {
                    Some(u) => r.set_port_up(l, u),
                    None => r.set_port_rate(l, self.ports[p.idx()].rate.bps()),
                }
            }
        }
        rt.clear_paths();
    }

    /// Count a packet queued on a down port (called by forwarding; must never happen).
    #[inline]
    pub(crate) fn routing_check_egress(&mut self, egress: PortId) {
        if !self.ports[egress.idx()].up {
            self.routing.stats.sent_to_down_port += 1;
        }
    }

    /// The artifact's ideal ("standalone") FCT of a flow of `size` bytes from host `src` to host
    /// `dst` (lcmp.md §6): `2·pairDelay + pairTxDelay + total_bytes·8/bw`, where `pairDelay` is the
    /// smallest one-way delay among the minimum-hop paths, `bw` the largest bottleneck among those
    /// minimum-delay paths, `pairTxDelay` the per-hop serialisation of one `payload`-byte packet
    /// along that path, and `total_bytes = size + ⌈size/payload⌉·header`. Integer nanoseconds, as
    /// the artifact computes it. `None` if unreachable.
    pub fn artifact_ideal_fct(&self, src: u32, dst: u32, size: u64, payload: u32, header: u32) -> Option<Time> {
        let d_node = self.hosts[dst as usize].node;
        let mut memo: HashMap<u32, Option<(u64, u64, u64)>> = HashMap::new();
        let (delay_ns, bw, tx_ns) = self.min_delay_path(self.hosts[src as usize].node, dst, d_node, payload as u64, &mut memo)?;
        let payload = payload.max(1) as u64;
        let total = size + size.div_ceil(payload) * header as u64;
        let base = 2 * delay_ns + tx_ns;
        Some(Time::from_ns(base + (total as u128 * 8_000_000_000 / bw.max(1) as u128) as u64))
    }

    /// `(delay ns, bottleneck bps, Σ tx ns)` of the minimum-delay minimum-hop path from `x` to the
    /// host `d_node`, preferring the larger bottleneck, then the smaller serialisation.
    fn min_delay_path(
        &self,
        x: NodeId,
        d: u32,
        d_node: NodeId,
        payload: u64,
        memo: &mut HashMap<u32, Option<(u64, u64, u64)>>,
    ) -> Option<(u64, u64, u64)> {
        if x == d_node {
            return Some((0, u64::MAX, 0));
        }
        if let Some(m) = memo.get(&x.0) {
            return *m;
        }
        let mut best: Option<(u64, u64, u64)> = None;
        for &p in self.routes.next_hops(x, d) {
            let port = &self.ports[p.idx()];
            if let Some((dl, bw, tx)) = self.min_delay_path(port.peer, d, d_node, payload, memo) {
                let rate = port.rate.bps().max(1);
                let c = (dl + port.delay.ns(), bw.min(rate), tx + payload * 1_000_000_000 * 8 / rate);
                let better = match best {
                    None => true,
                    Some(b) => c.0 < b.0 || (c.0 == b.0 && (c.1 > b.1 || (c.1 == b.1 && c.2 < b.2))),
                };
                if better {
                    best = Some(c);
                }
            }
        }
        memo.insert(x.0, best);
        best
    }
}
