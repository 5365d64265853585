//! The control plane's path table: per (switch, destination) the attributes of the best
//! remaining path through each candidate (one-way delay, bottleneck; LCMP's `C_path` from the
//! switch's router), computed on first use by walking the minimum-hop paths (a Pareto frontier
//! of delay and bottleneck) and kept until a link changes; and path-index routing's divisors.

use super::*;

/// Pareto frontier of `(one-way delay, bottleneck)` over the minimum-hop paths from `x` to the
/// end of the scored segment: the destination DC's DCI (when the topology has DCIs and `x` is not
/// the start) or the destination host.
#[allow(clippy::too_many_arguments)]
pub(super) fn frontier(
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
pub(super) fn pareto(mut pts: Vec<(Time, u64)>) -> Vec<(Time, u64)> {
    pts.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out: Vec<(Time, u64)> = Vec::new();
    for p in pts {
        if out.last().is_none_or(|l| p.1 > l.1) {
            out.push(p);
        }
    }
    out
}

pub use braid_proto::routing::router::path_index;

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
    /// The frontier of each candidate next hop of `node` toward host `h`, as seen from `node`.
    pub(super) fn candidate_frontiers(
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
    /// `routes.next_hops(node, h)`), and the node's router's score of each candidate's best
    /// path: computed on first use and kept until the next link change. Returns the offset into
    /// the path pool.
    #[inline]
    pub(super) fn path_attrs(
        &mut self,
        node: NodeId,
        h: u32,
        routes: &Routes,
        ports: &[Port],
    ) -> usize {
        let slot = node.idx() * self.n_hosts + h as usize;
        match self.path_idx[slot] {
            u32::MAX => self.compute_path_attrs(slot, node, h, routes, ports),
            off => off as usize,
        }
    }

    /// [`SwitchRouting::path_attrs`] of a pair not yet computed: walk the topology.
    #[cold]
    pub(super) fn compute_path_attrs(
        &mut self,
        slot: usize,
        node: NodeId,
        h: u32,
        routes: &Routes,
        ports: &[Port],
    ) -> usize {
        let fr = self.candidate_frontiers(node, h, routes, ports);
        let off = self.t.path_pool.len();
        let ri = self.router_of[node.idx()];
        let router = (ri != u32::MAX).then(|| &self.routers[ri as usize]);
        for (i, &p) in routes.next_hops(node, h).iter().enumerate() {
            let port = &ports[p.idx()];
            let pts = &fr[i];
            let delay = pts.iter().map(|x| x.0).min().unwrap_or(port.delay);
            let bott = pts.iter().map(|x| x.1).max().unwrap_or(port.rate.bps());
            let c_path = match router {
                Some(r) if r.path_score(Time::ZERO, 0).is_some() => {
                    pts.iter().map(|&(d, b)| r.path_score(d, b).unwrap_or(255)).min().unwrap_or(255)
                }
                _ => 0,
            };
            self.t.path_pool.push(PathAttr {
                link_rate_bps: port.rate.bps(),
                path_delay: delay,
                path_bottleneck_bps: bott,
            });
            self.t.path_cpath.push(c_path);
        }
        self.path_idx[slot] = off as u32;
        off
    }

    /// Forget the path table (after a link change).
    pub fn clear_paths(&mut self) {
        self.path_idx.iter_mut().for_each(|x| *x = u32::MAX);
        self.t.path_pool.clear();
        self.t.path_cpath.clear();
    }

    /// The control plane's view of `node`'s candidates toward host `h`: per candidate port, its
    /// path attributes and its router's score of the best path through it.
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
            .map(|(i, &p)| (p, self.t.path_pool[off + i], self.t.path_cpath[off + i]))
            .collect()
    }
}
