//! Path maths over the routing tables: the best path between two hosts ([`PathInfo`]: its base
//! RTT and the ideal FCT of a message alone on it, the denominator of FCT slowdown) and the LCMP
//! artifact's "standalone" ideal FCT (the LCMP paper's FCT-slowdown metric, §5). Pure functions
//! of the routes and ports.

use std::collections::HashMap;

use braid_core::{NodeId, Rate, Time};

/// A memo keyed by node id, one per path search: a multiplicative hash (keys are small
/// integers; no random state is needed — nothing iterates these maps), not SipHash, which cost
/// most of a search at 65,536 flows.
type NodeMap<V> = HashMap<u32, V, std::hash::BuildHasherDefault<braid_proto::routing::flow_cache::KeyHasher>>;

use crate::port::Port;
use crate::routes::Routes;

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
        let mut t = Time::from_ps(self.prop_delay().ps() * 2);
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

/// The ideal FCT of `size_bytes` for a flow that may spray over every one of `paths` (its
/// candidate paths) at `rate` in all ([`multipath_rate`]): every packet but the last crosses at
/// `rate`, and the last one then takes the fastest path for a lone packet. `None` without paths.
pub fn multipath_ideal_fct(paths: &[PathInfo], rate: Rate, size_bytes: u64, mtu: u32, header: u32, ack_bytes: u32) -> Option<Time> {
    let mtu_b = mtu.max(1) as u64;
    let pkts = size_bytes.div_ceil(mtu_b).max(1);
    let last_payload = size_bytes - (pkts - 1) * mtu_b;
    let ahead = (pkts - 1) * (mtu_b + header as u64);
    let tail = paths.iter().map(|p| p.ideal_fct(last_payload, mtu, header, ack_bytes)).min()?;
    Some(rate.tx_time(ahead) + tail)
}

/// A best path from a node: (bottleneck rate, propagation delay, the port its first hop leaves
/// by; `usize::MAX` at the destination).
type BestFrom = (Rate, Time, usize);
/// Memo of [`best_from`], per node.
type BestMemo = NodeMap<Option<BestFrom>>;

/// The best path (see [`PathInfo`]) from node `src` to host `dst` (node `dst_node`) over the
/// minimum-hop next hops of `routes`; `None` if unreachable.
pub fn best_path(routes: &Routes, ports: &[Port], src: NodeId, dst: u32, dst_node: NodeId) -> Option<PathInfo> {
    best_path_with(routes, &|i| PortState::of(&ports[i]), src, dst, dst_node)
}

/// [`best_path`] reading port `i`'s state as `port_fn(i)`: the search, then the hops of the
/// chosen ports from `src` on.
fn best_path_with<F: Fn(usize) -> PortState>(routes: &Routes, port_fn: &F, src: NodeId, dst: u32, dst_node: NodeId) -> Option<PathInfo> {
    let mut memo = BestMemo::default();
    let mut first = best_from(routes, port_fn, src, dst, dst_node, &mut memo)?.2;
    let mut hops = Vec::new();
    while first != usize::MAX {
        let port = port_fn(first);
        hops.push((port.rate, port.delay));
        first = if port.peer == dst_node { usize::MAX } else { memo[&port.peer.0].expect("a chosen hop leads to the destination").2 };
    }
    Some(PathInfo { hops })
}

/// What [`best_path_over`] reads of a port: where it leads, its rate and delay, and whether it is
/// up. A copy, so that the path can be computed for the network as a scenario's link events will
/// have changed it (see `Sim::path_info_at`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortState {
    /// The node at the other end.
    pub peer: NodeId,
    /// Line rate.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
    /// Whether the link is up.
    pub up: bool,
}

impl PortState {
    /// The state of `port` now.
    pub fn of(port: &Port) -> PortState {
        PortState { peer: port.peer, rate: port.rate, delay: port.delay, up: port.up }
    }
}

/// [`best_path`] over port states `ports` (indexed like the simulator's ports); ports that are
/// down are not taken.
pub fn best_path_over(routes: &Routes, ports: &[PortState], src: NodeId, dst: u32, dst_node: NodeId) -> Option<PathInfo> {
    best_path_with(routes, &|i| ports[i], src, dst, dst_node)
}

/// The best path from `node`, reading port `i`'s state as `port_fn(i)`: the first next hop
/// whose path has the largest bottleneck, then the smallest delay.
fn best_from<F: Fn(usize) -> PortState>(routes: &Routes, port_fn: &F, node: NodeId, dst: u32, dst_node: NodeId, memo: &mut BestMemo) -> Option<BestFrom> {
    if node == dst_node {
        return Some((Rate(u64::MAX), Time::ZERO, usize::MAX));
    }
    if let Some(m) = memo.get(&node.0) {
        return *m;
    }
    let mut best: Option<BestFrom> = None;
    for &p in routes.next_hops(node, dst) {
        let port = port_fn(p.idx());
        if !port.up {
            continue;
        }
        if let Some((r, d, _)) = best_from(routes, port_fn, port.peer, dst, dst_node, memo) {
            let r2 = r.min(port.rate);
            let d2 = d + port.delay;
            let better = match &best {
                None => true,
                Some((br, bd, _)) => r2 > *br || (r2 == *br && d2 < *bd),
            };
            if better {
                best = Some((r2, d2, p.idx()));
            }
        }
    }
    memo.insert(node.0, best);
    best
}

/// The largest base RTT (as [`PathInfo::base_rtt`] counts it) of the minimum-hop paths from node
/// `src` to host `dst` (node `dst_node`) over ports that are up; `None` if unreachable. In a
/// fabric whose equal-cost paths are alike it is the best path's; it is larger where some are
/// longer or slower (a delayed link, the testbed's paths). A transport that measures its paths'
/// round trips can read a measured excess beyond it as queueing, not propagation.
pub fn longest_base_rtt(routes: &Routes, ports: &[PortState], src: NodeId, dst: u32, dst_node: NodeId, data_wire_bytes: u64, ack_bytes: u64) -> Option<Time> {
    fold_min_hop(routes, &|i| ports[i], src, dst, dst_node, Time::ZERO, &|worst: Option<Time>, port, rest| {
        let rtt = rest + Time::from_ps(port.delay.ps() * 2) + port.rate.tx_time(data_wire_bytes) + port.rate.tx_time(ack_bytes);
        Some(worst.map_or(rtt, |w| w.max(rtt)))
    })
}

/// A fold over the minimum-hop paths from `node` to host `dst` (node `dst_node`), memoised per
/// node: the destination's value is `at_dst`; a node's is `step` applied in turn over its next
/// hops that are up and lead to a value (`step(acc, port, value beyond the port)`, `acc` starting
/// at `None`). `None` where no next hop leads anywhere. Port `i`'s state is `port_fn(i)`.
fn fold_min_hop<T: Copy, F: Fn(usize) -> PortState>(
    routes: &Routes,
    port_fn: &F,
    node: NodeId,
    dst: u32,
    dst_node: NodeId,
    at_dst: T,
    step: &dyn Fn(Option<T>, PortState, T) -> Option<T>,
) -> Option<T> {
    struct Fold<'a, T, F> {
        routes: &'a Routes,
        port_fn: &'a F,
        dst: u32,
        dst_node: NodeId,
        at_dst: T,
        step: &'a dyn Fn(Option<T>, PortState, T) -> Option<T>,
    }
    impl<T: Copy, F: Fn(usize) -> PortState> Fold<'_, T, F> {
        fn walk(&self, node: NodeId, memo: &mut NodeMap<Option<T>>) -> Option<T> {
            if node == self.dst_node {
                return Some(self.at_dst);
            }
            if let Some(m) = memo.get(&node.0) {
                return *m;
            }
            let mut acc = None;
            for &p in self.routes.next_hops(node, self.dst) {
                let port = (self.port_fn)(p.idx());
                if !port.up {
                    continue;
                }
                if let Some(beyond) = self.walk(port.peer, memo) {
                    acc = (self.step)(acc, port, beyond);
                }
            }
            memo.insert(node.0, acc);
            acc
        }
    }
    Fold { routes, port_fn, dst, dst_node, at_dst, step }.walk(node, &mut NodeMap::default())
}

/// The most distinct candidate paths [`candidate_paths`] keeps per node.
pub const MAX_CANDIDATES: usize = 64;

/// The distinct minimum-hop paths from `src` to host `dst` (node `dst_node`) over ports that are
/// up, as their (rate, delay) hop lists: the paths a flow between the two may take under the
/// network's routing. Paths with the same hops count once, so a Clos's or fat-tree's many equal
/// paths are one; at most [`MAX_CANDIDATES`] are kept per node (the ones with the widest
/// bottleneck, then the smallest delay). Empty when unreachable.
pub fn candidate_paths(routes: &Routes, ports: &[PortState], src: NodeId, dst: u32, dst_node: NodeId) -> Vec<PathInfo> {
    /// A node's distinct hop lists to the destination, found once per node (`memo`: its index
    /// in `found`; the destination's is `found[0]`, the one empty list) and read in place.
    fn from(
        routes: &Routes,
        ports: &[PortState],
        node: NodeId,
        dst: u32,
        dst_node: NodeId,
        memo: &mut NodeMap<usize>,
        found: &mut Vec<Vec<Vec<(Rate, Time)>>>,
    ) -> usize {
        if node == dst_node {
            return 0;
        }
        if let Some(&m) = memo.get(&node.0) {
            return m;
        }
        let mut out: Vec<Vec<(Rate, Time)>> = Vec::new();
        for &p in routes.next_hops(node, dst) {
            let port = ports[p.idx()];
            if !port.up {
                continue;
            }
            let beyond = from(routes, ports, port.peer, dst, dst_node, memo, found);
            for rest in &found[beyond] {
                // Compared before it is built: the hop in front, then the rest.
                let dup = out.iter().any(|h| h.len() == rest.len() + 1 && h[0] == (port.rate, port.delay) && h[1..] == rest[..]);
                if !dup {
                    let mut hops = Vec::with_capacity(rest.len() + 1);
                    hops.push((port.rate, port.delay));
                    hops.extend_from_slice(rest);
                    out.push(hops);
                }
            }
        }
        if out.len() > MAX_CANDIDATES {
            let key = |h: &Vec<(Rate, Time)>| {
                let b = h.iter().map(|x| x.0).min().unwrap_or(Rate(0));
                let d = h.iter().fold(Time::ZERO, |a, x| a + x.1);
                (std::cmp::Reverse(b), d)
            };
            out.sort_by_key(key);
            out.truncate(MAX_CANDIDATES);
        }
        found.push(out);
        memo.insert(node.0, found.len() - 1);
        found.len() - 1
    }
    let mut found = vec![vec![Vec::new()]];
    let at = from(routes, ports, src, dst, dst_node, &mut NodeMap::default(), &mut found);
    std::mem::take(&mut found[at]).into_iter().map(|hops| PathInfo { hops }).collect()
}

/// The largest rate at which node `src` can send to host `dst` (node `dst_node`) over every
/// minimum-hop path at once: the maximum flow through the next-hop graph of `routes` (links up,
/// capacity = line rate), found by augmenting along shortest residual paths (Edmonds–Karp). A
/// transport that sprays over every path can at best send at this rate; it is the bottleneck of
/// the best single path wherever the hosts' own links are the narrowest (Clos, fat-tree), and
/// more where parallel paths are each narrower than the host (the Rondo testbed's 25/20/15/10
/// Gb/s paths behind a 100 Gb/s NIC). 0 when unreachable.
pub fn multipath_rate(routes: &Routes, ports: &[PortState], src: NodeId, dst: u32, dst_node: NodeId) -> Rate {
    use std::collections::VecDeque;
    // The nodes and edges of the next-hop DAG reachable from src.
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut nodes = vec![src];
    index.insert(src.0, 0);
    let mut edges: Vec<(usize, usize, u64)> = Vec::new(); // (from, to, capacity in b/s)
    let mut i = 0;
    while i < nodes.len() {
        let n = nodes[i];
        i += 1;
        if n == dst_node {
            continue;
        }
        for &p in routes.next_hops(n, dst) {
            let port = ports[p.idx()];
            if !port.up {
                continue;
            }
            let j = *index.entry(port.peer.0).or_insert_with(|| {
                nodes.push(port.peer);
                nodes.len() - 1
            });
            edges.push((i - 1, j, port.rate.bps()));
        }
    }
    let Some(&sink) = index.get(&dst_node.0) else { return Rate(0) };
    // Residual graph: edge e and its reverse e ^ 1.
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut to = Vec::with_capacity(edges.len() * 2);
    let mut cap = Vec::with_capacity(edges.len() * 2);
    for &(a, b, c) in &edges {
        adj[a].push(to.len());
        to.push(b);
        cap.push(c);
        adj[b].push(to.len());
        to.push(a);
        cap.push(0);
    }
    let mut total = 0u64;
    loop {
        let mut via: Vec<Option<usize>> = vec![None; nodes.len()];
        let mut q = VecDeque::from([0usize]);
        let mut seen = vec![false; nodes.len()];
        seen[0] = true;
        while let Some(u) = q.pop_front() {
            for &e in &adj[u] {
                let v = to[e];
                if !seen[v] && cap[e] > 0 {
                    seen[v] = true;
                    via[v] = Some(e);
                    q.push_back(v);
                }
            }
        }
        if !seen[sink] {
            break;
        }
        let mut push = u64::MAX;
        let mut v = sink;
        while let Some(e) = via[v] {
            push = push.min(cap[e]);
            v = to[e ^ 1];
        }
        let mut v = sink;
        while let Some(e) = via[v] {
            cap[e] -= push;
            cap[e ^ 1] += push;
            v = to[e ^ 1];
        }
        total = total.saturating_add(push);
    }
    Rate(total)
}

/// How many minimum-hop (equal-cost) paths lead from node `src` to host `dst` (node
/// `dst_node`) over links that are up: the number of distinct port sequences the next-hop tables
/// allow (in a Clos, the product of the up-link fan-outs; 16 between ToRs of different pods of
/// the Rondo paper's topology). Saturates at `u64::MAX`.
pub fn equal_cost_paths(routes: &Routes, ports: &[Port], src: NodeId, dst: u32, dst_node: NodeId) -> u64 {
    fold_min_hop(routes, &|i| PortState::of(&ports[i]), src, dst, dst_node, 1u64, &|n: Option<u64>, _, beyond| Some(n.unwrap_or(0).saturating_add(beyond)))
        .unwrap_or(0)
}

/// The LCMP artifact's ideal ("standalone") FCT of a flow of `size` bytes from node `src` to host
/// `dst` (node `d_node`) (the LCMP paper's FCT-slowdown metric, §5): `2·pairDelay + pairTxDelay + total_bytes·8/bw`, where
/// `pairDelay` is the smallest one-way delay among the minimum-hop paths, `bw` the largest
/// bottleneck among those minimum-delay paths, `pairTxDelay` the per-hop serialisation of one
/// `payload`-byte packet along that path, and `total_bytes = size + ⌈size/payload⌉·header`.
/// Integer nanoseconds, as the artifact computes it. `None` if unreachable.
#[allow(clippy::too_many_arguments)]
pub fn artifact_ideal_fct(routes: &Routes, ports: &[Port], src: NodeId, dst: u32, d_node: NodeId, size: u64, payload: u32, header: u32) -> Option<Time> {
    let mut memo = NodeMap::default();
    let (delay_ns, bw, tx_ns) = min_delay_path(routes, ports, src, dst, d_node, payload as u64, &mut memo)?;
    let payload = payload.max(1) as u64;
    let total = size + size.div_ceil(payload) * header as u64;
    let base = 2 * delay_ns + tx_ns;
    Some(Time::from_ns(base + (total as u128 * 8_000_000_000 / bw.max(1) as u128) as u64))
}

/// The ns-3 HPCC fork's largest RTT and BDP over every ordered pair of hosts (its window's `W`,
/// `HAS_WIN` with `GLOBAL_T`; `docs/ns3-equivalence.md`, window): for each pair the path of its
/// ideal FCT ([`artifact_ideal_fct`]), RTT = 2 × its one-way delay + one `payload`-byte packet's
/// serialisation per hop (integer ns), BDP = RTT × its bottleneck / 8 s. The fork computes the
/// product in 64 bits, so with `wrap` it wraps at 2^64 and the BDP is stored in 32 bits, as there.
/// Returns `(max RTT, max BDP bytes)`.
pub fn ns3_max_rtt_bdp(routes: &Routes, ports: &[Port], hosts: &[NodeId], payload: u32, wrap: bool) -> (Time, u64) {
    let (mut max_rtt, mut max_bdp) = (0u64, 0u64);
    for (d, &d_node) in hosts.iter().enumerate() {
        let mut memo = NodeMap::default();
        for &s_node in hosts {
            if s_node == d_node {
                continue;
            }
            let Some((delay_ns, bw, tx_ns)) = min_delay_path(routes, ports, s_node, d as u32, d_node, payload.max(1) as u64, &mut memo) else { continue };
            let rtt = 2 * delay_ns + tx_ns;
            let prod = rtt as u128 * bw as u128;
            let bdp = if wrap { ((prod % (1u128 << 64)) / 1_000_000_000 / 8) as u64 & 0xFFFF_FFFF } else { (prod / 1_000_000_000 / 8) as u64 };
            max_rtt = max_rtt.max(rtt);
            max_bdp = max_bdp.max(bdp);
        }
    }
    (Time::from_ns(max_rtt), max_bdp)
}

/// `(delay ns, bottleneck bps, Σ tx ns)` of the minimum-delay minimum-hop path from `x` to the
/// host `d_node`, preferring the larger bottleneck, then the smaller serialisation.
fn min_delay_path(
    routes: &Routes,
    ports: &[Port],
    x: NodeId,
    d: u32,
    d_node: NodeId,
    payload: u64,
    memo: &mut NodeMap<Option<(u64, u64, u64)>>,
) -> Option<(u64, u64, u64)> {
    if x == d_node {
        return Some((0, u64::MAX, 0));
    }
    if let Some(m) = memo.get(&x.0) {
        return *m;
    }
    let mut best: Option<(u64, u64, u64)> = None;
    for &p in routes.next_hops(x, d) {
        let port = &ports[p.idx()];
        if let Some((dl, bw, tx)) = min_delay_path(routes, ports, port.peer, d, d_node, payload, memo) {
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
