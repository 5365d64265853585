//! Path maths over the routing tables: the best path between two hosts ([`PathInfo`]: its base
//! RTT and the ideal FCT of a message alone on it, the denominator of FCT slowdown) and the LCMP
//! artifact's "standalone" ideal FCT (the LCMP paper's FCT-slowdown metric, §5). Pure functions
//! of the routes and ports; the searches keep their memos in a per-thread scratch between calls
//! (nothing of one search is read by the next).

use std::cell::RefCell;
use std::collections::HashMap;

use braid_core::{NodeId, Rate, Time};

use crate::port::Port;
use crate::routes::Routes;

/// A search's memo over node ids, kept from one search to the next: a stamp per node says
/// whether its value belongs to the current search, so a search starts at no cost and looks a
/// node up by index. Each flow of a scenario runs several searches at set-up (its best path, its
/// candidate paths, its path count, its longest base RTT) and one more for the outputs (the LCMP
/// artifact's ideal FCT); with a map built per search, they cost minutes at 65,536 hosts.
struct NodeMemo<V> {
    stamp: Vec<u32>,
    val: Vec<V>,
    search: u32,
}

impl<V: Copy + Default> NodeMemo<V> {
    const fn new() -> Self {
        NodeMemo { stamp: Vec::new(), val: Vec::new(), search: 0 }
    }
    /// Start a search over `n_nodes` nodes: every node unknown.
    fn begin(&mut self, n_nodes: usize) {
        if self.stamp.len() < n_nodes {
            self.stamp.resize(n_nodes, 0);
            self.val.resize(n_nodes, V::default());
        }
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            self.stamp.fill(0);
            self.search = 1;
        }
    }
    #[inline]
    fn get(&self, node: NodeId) -> Option<V> {
        (self.stamp[node.idx()] == self.search).then(|| self.val[node.idx()])
    }
    #[inline]
    fn insert(&mut self, node: NodeId, v: V) {
        self.stamp[node.idx()] = self.search;
        self.val[node.idx()] = v;
    }
}

/// The searches' memos and [`candidate_paths`]' stores, one set per thread, reused.
struct Scratch {
    best: NodeMemo<Option<BestFrom>>,
    candidates: NodeMemo<u32>,
    delay: NodeMemo<Option<(u64, u64, u64)>>,
    fold_time: NodeMemo<Option<Time>>,
    fold_count: NodeMemo<Option<u64>>,
    paths: CandidateStore,
}

impl Scratch {
    /// Empty memos and stores (they grow with the first search).
    const fn new() -> Self {
        Scratch {
            best: NodeMemo::new(),
            candidates: NodeMemo::new(),
            delay: NodeMemo::new(),
            fold_time: NodeMemo::new(),
            fold_count: NodeMemo::new(),
            paths: CandidateStore {
                lists: Vec::new(),
                paths: Vec::new(),
                hops: Vec::new(),
                beyond: Vec::new(),
            },
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const { RefCell::new(Scratch::new()) };
}

/// Run `f` with this thread's scratch.
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with_borrow_mut(f)
}

/// Let this thread's search memos and stores go (they are sized by the largest network searched;
/// the next search builds them again).
pub fn release_scratch() {
    with_scratch(|s| *s = Scratch::new())
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
        let last = (size_bytes - (pkts - 1) * mtu).max(if size_bytes == 0 { 0 } else { 1 })
            + header as u64;
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
pub fn multipath_ideal_fct(
    paths: &[PathInfo],
    rate: Rate,
    size_bytes: u64,
    mtu: u32,
    header: u32,
    ack_bytes: u32,
) -> Option<Time> {
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
type BestMemo = NodeMemo<Option<BestFrom>>;

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

/// The best path (see [`PathInfo`]) from node `src` to host `dst` (node `dst_node`) over the
/// minimum-hop next hops of `routes`, reading port states `ports` (indexed like the simulator's
/// ports); ports that are down are not taken. `None` if unreachable. The search, then the hops
/// of the chosen ports from `src` on.
pub fn best_path_over(
    routes: &Routes,
    ports: &[PortState],
    src: NodeId,
    dst: u32,
    dst_node: NodeId,
) -> Option<PathInfo> {
    with_scratch(|s| {
        let memo = &mut s.best;
        memo.begin(routes.n_nodes());
        let mut first = best_from(routes, ports, src, dst, dst_node, memo)?.2;
        let mut hops = Vec::new();
        while first != usize::MAX {
            let port = ports[first];
            hops.push((port.rate, port.delay));
            first = if port.peer == dst_node {
                usize::MAX
            } else {
                memo.get(port.peer).flatten().expect("a chosen hop leads to the destination").2
            };
        }
        Some(PathInfo { hops })
    })
}

/// The best path from `node`: the first next hop whose path has the largest bottleneck, then
/// the smallest delay.
fn best_from(
    routes: &Routes,
    ports: &[PortState],
    node: NodeId,
    dst: u32,
    dst_node: NodeId,
    memo: &mut BestMemo,
) -> Option<BestFrom> {
    if node == dst_node {
        return Some((Rate(u64::MAX), Time::ZERO, usize::MAX));
    }
    if let Some(m) = memo.get(node) {
        return m;
    }
    let mut best: Option<BestFrom> = None;
    for &p in routes.next_hops(node, dst) {
        let port = ports[p.idx()];
        if !port.up {
            continue;
        }
        if let Some((r, d, _)) = best_from(routes, ports, port.peer, dst, dst_node, memo) {
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
    memo.insert(node, best);
    best
}

/// The largest base RTT (as [`PathInfo::base_rtt`] counts it) of the minimum-hop paths from node
/// `src` to host `dst` (node `dst_node`) over ports that are up; `None` if unreachable. In a
/// fabric whose equal-cost paths are alike it is the best path's; it is larger where some are
/// longer or slower (a delayed link, the testbed's paths). A transport that measures its paths'
/// round trips can read a measured excess beyond it as queueing, not propagation.
pub fn longest_base_rtt(
    routes: &Routes,
    ports: &[PortState],
    src: NodeId,
    dst: u32,
    dst_node: NodeId,
    data_wire_bytes: u64,
    ack_bytes: u64,
) -> Option<Time> {
    with_scratch(|s| {
        fold_min_hop(
            routes,
            ports,
            src,
            dst,
            dst_node,
            Time::ZERO,
            &mut s.fold_time,
            &|worst: Option<Time>, port, rest| {
                let rtt = rest
                    + Time::from_ps(port.delay.ps() * 2)
                    + port.rate.tx_time(data_wire_bytes)
                    + port.rate.tx_time(ack_bytes);
                Some(worst.map_or(rtt, |w| w.max(rtt)))
            },
        )
    })
}

/// A fold over the minimum-hop paths from `node` to host `dst` (node `dst_node`), memoised per
/// node: the destination's value is `at_dst`; a node's is `step` applied in turn over its next
/// hops that are up and lead to a value (`step(acc, port, value beyond the port)`, `acc` starting
/// at `None`). `None` where no next hop leads anywhere.
#[allow(clippy::too_many_arguments)]
fn fold_min_hop<T: Copy>(
    routes: &Routes,
    ports: &[PortState],
    node: NodeId,
    dst: u32,
    dst_node: NodeId,
    at_dst: T,
    memo: &mut NodeMemo<Option<T>>,
    step: &dyn Fn(Option<T>, PortState, T) -> Option<T>,
) -> Option<T> {
    struct Fold<'a, T> {
        routes: &'a Routes,
        ports: &'a [PortState],
        dst: u32,
        dst_node: NodeId,
        at_dst: T,
        step: &'a dyn Fn(Option<T>, PortState, T) -> Option<T>,
    }
    impl<T: Copy> Fold<'_, T> {
        fn walk(&self, node: NodeId, memo: &mut NodeMemo<Option<T>>) -> Option<T> {
            if node == self.dst_node {
                return Some(self.at_dst);
            }
            if let Some(m) = memo.get(node) {
                return m;
            }
            let mut acc = None;
            for &p in self.routes.next_hops(node, self.dst) {
                let port = self.ports[p.idx()];
                if !port.up {
                    continue;
                }
                if let Some(beyond) = self.walk(port.peer, memo) {
                    acc = (self.step)(acc, port, beyond);
                }
            }
            memo.insert(node, acc);
            acc
        }
    }
    memo.begin(routes.n_nodes());
    Fold { routes, ports, dst, dst_node, at_dst, step }.walk(node, memo)
}

/// The most distinct candidate paths [`candidate_paths`] keeps per node.
pub const MAX_CANDIDATES: usize = 64;

/// The distinct minimum-hop paths from `src` to host `dst` (node `dst_node`) over ports that are
/// up, as their (rate, delay) hop lists: the paths a flow between the two may take under the
/// network's routing. Paths with the same hops count once, so a Clos's or fat-tree's many equal
/// paths are one; at most [`MAX_CANDIDATES`] are kept per node (the ones with the widest
/// bottleneck, then the smallest delay). Empty when unreachable.
pub fn candidate_paths(
    routes: &Routes,
    ports: &[PortState],
    src: NodeId,
    dst: u32,
    dst_node: NodeId,
) -> Vec<PathInfo> {
    with_scratch(|s| {
        s.candidates.begin(routes.n_nodes());
        s.paths.clear();
        let at = s.paths.from(routes, ports, src, dst, dst_node, &mut s.candidates);
        let (first, n) = s.paths.lists[at as usize];
        (first..first + n).map(|i| PathInfo { hops: s.paths.path(i).to_vec() }).collect()
    })
}

/// [`candidate_paths`]' store for one search: each node's distinct hop lists to the destination
/// (`lists[i]`: a run of `paths`, the node's index `i` in `candidates`' memo), each path a run
/// of `hops`. List 0 is the destination's: one empty path.
struct CandidateStore {
    lists: Vec<(u32, u32)>,
    paths: Vec<(u32, u32)>,
    hops: Vec<(Rate, Time)>,
    /// The lists beyond a node's next hops while its own is built (a stack over the recursion).
    beyond: Vec<(u32, u32)>,
}

impl CandidateStore {
    fn clear(&mut self) {
        self.lists.clear();
        self.paths.clear();
        self.hops.clear();
        self.beyond.clear();
        self.paths.push((0, 0));
        self.lists.push((0, 1));
    }

    fn path(&self, i: u32) -> &[(Rate, Time)] {
        let (at, n) = self.paths[i as usize];
        &self.hops[at as usize..(at + n) as usize]
    }

    /// The index of `node`'s list, found once per node: the lists beyond its next hops that are
    /// up, in order, each of their paths behind the hop unless an equal path is already in the
    /// list; the widest and then shortest `MAX_CANDIDATES` when there are more.
    fn from(
        &mut self,
        routes: &Routes,
        ports: &[PortState],
        node: NodeId,
        dst: u32,
        dst_node: NodeId,
        memo: &mut NodeMemo<u32>,
    ) -> u32 {
        if node == dst_node {
            return 0;
        }
        if let Some(m) = memo.get(node) {
            return m;
        }
        // First every list beyond (the recursion appends to the store), then this node's own
        // paths, appended together.
        let mark = self.beyond.len();
        for &p in routes.next_hops(node, dst) {
            let port = ports[p.idx()];
            if port.up {
                let list = self.from(routes, ports, port.peer, dst, dst_node, memo);
                self.beyond.push((p.idx() as u32, list));
            }
        }
        let first = self.paths.len() as u32;
        for k in mark..self.beyond.len() {
            let (p, list) = self.beyond[k];
            let hop = (ports[p as usize].rate, ports[p as usize].delay);
            let (lf, ln) = self.lists[list as usize];
            for rest in lf..lf + ln {
                let (ra, rn) = self.paths[rest as usize];
                let rest_hops = ra as usize..(ra + rn) as usize;
                let dup = (first..self.paths.len() as u32).any(|q| {
                    let h = self.path(q);
                    h.len() == rn as usize + 1
                        && h[0] == hop
                        && h[1..] == self.hops[rest_hops.clone()]
                });
                if !dup {
                    let at = self.hops.len() as u32;
                    self.hops.push(hop);
                    self.hops.extend_from_within(rest_hops);
                    self.paths.push((at, rn + 1));
                }
            }
        }
        self.beyond.truncate(mark);
        let mut n = self.paths.len() as u32 - first;
        if n as usize > MAX_CANDIDATES {
            let hops = &self.hops;
            let key = |&(at, len): &(u32, u32)| {
                let h = &hops[at as usize..(at + len) as usize];
                let b = h.iter().map(|x| x.0).min().unwrap_or(Rate(0));
                let d = h.iter().fold(Time::ZERO, |a, x| a + x.1);
                (std::cmp::Reverse(b), d)
            };
            self.paths[first as usize..].sort_by_key(key);
            self.paths.truncate(first as usize + MAX_CANDIDATES);
            n = MAX_CANDIDATES as u32;
        }
        self.lists.push((first, n));
        let i = self.lists.len() as u32 - 1;
        memo.insert(node, i);
        i
    }
}

/// The largest rate at which node `src` can send to host `dst` (node `dst_node`) over every
/// minimum-hop path at once: the maximum flow through the next-hop graph of `routes` (links up,
/// capacity = line rate), found by augmenting along shortest residual paths (Edmonds–Karp). A
/// transport that sprays over every path can at best send at this rate; it is the bottleneck of
/// the best single path wherever the hosts' own links are the narrowest (Clos, fat-tree), and
/// more where parallel paths are each narrower than the host (the Rondo testbed's 25/20/15/10
/// Gb/s paths behind a 100 Gb/s NIC). 0 when unreachable.
pub fn multipath_rate(
    routes: &Routes,
    ports: &[PortState],
    src: NodeId,
    dst: u32,
    dst_node: NodeId,
) -> Rate {
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
pub fn equal_cost_paths(
    routes: &Routes,
    ports: &[PortState],
    src: NodeId,
    dst: u32,
    dst_node: NodeId,
) -> u64 {
    with_scratch(|s| {
        fold_min_hop(
            routes,
            ports,
            src,
            dst,
            dst_node,
            1u64,
            &mut s.fold_count,
            &|n: Option<u64>, _, beyond| Some(n.unwrap_or(0).saturating_add(beyond)),
        )
        .unwrap_or(0)
    })
}

/// The LCMP artifact's ideal ("standalone") FCT of a flow of `size` bytes from node `src` to host
/// `dst` (node `d_node`) (the LCMP paper's FCT-slowdown metric, §5): `2·pairDelay + pairTxDelay + total_bytes·8/bw`, where
/// `pairDelay` is the smallest one-way delay among the minimum-hop paths, `bw` the largest
/// bottleneck among those minimum-delay paths, `pairTxDelay` the per-hop serialisation of one
/// `payload`-byte packet along that path, and `total_bytes = size + ⌈size/payload⌉·header`.
/// Integer nanoseconds, as the artifact computes it. `None` if unreachable.
#[allow(clippy::too_many_arguments)]
pub fn artifact_ideal_fct(
    routes: &Routes,
    ports: &[Port],
    src: NodeId,
    dst: u32,
    d_node: NodeId,
    size: u64,
    payload: u32,
    header: u32,
) -> Option<Time> {
    let (delay_ns, bw, tx_ns) = with_scratch(|s| {
        s.delay.begin(routes.n_nodes());
        min_delay_path(routes, ports, src, dst, d_node, payload as u64, &mut s.delay)
    })?;
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
pub fn ns3_max_rtt_bdp(
    routes: &Routes,
    ports: &[Port],
    hosts: &[NodeId],
    payload: u32,
    wrap: bool,
) -> (Time, u64) {
    let (mut max_rtt, mut max_bdp) = (0u64, 0u64);
    let mut memo = NodeMemo::new();
    for (d, &d_node) in hosts.iter().enumerate() {
        memo.begin(routes.n_nodes());
        for &s_node in hosts {
            if s_node == d_node {
                continue;
            }
            let Some((delay_ns, bw, tx_ns)) = min_delay_path(
                routes,
                ports,
                s_node,
                d as u32,
                d_node,
                payload.max(1) as u64,
                &mut memo,
            ) else {
                continue;
            };
            let rtt = 2 * delay_ns + tx_ns;
            let prod = rtt as u128 * bw as u128;
            let bdp = if wrap {
                ((prod % (1u128 << 64)) / 1_000_000_000 / 8) as u64 & 0xFFFF_FFFF
            } else {
                (prod / 1_000_000_000 / 8) as u64
            };
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
    memo: &mut NodeMemo<Option<(u64, u64, u64)>>,
) -> Option<(u64, u64, u64)> {
    if x == d_node {
        return Some((0, u64::MAX, 0));
    }
    if let Some(m) = memo.get(x) {
        return m;
    }
    let mut best: Option<(u64, u64, u64)> = None;
    for &p in routes.next_hops(x, d) {
        let port = &ports[p.idx()];
        if let Some((dl, bw, tx)) =
            min_delay_path(routes, ports, port.peer, d, d_node, payload, memo)
        {
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
    memo.insert(x, best);
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Graph;
    use braid_core::{PortId, Rng};

    /// The searches as they were first written, a map per search and the hop lists copied at
    /// every step: the definitions the reused memos and the flat store must agree with.
    mod reference {
        use super::*;

        pub fn candidate_paths(
            routes: &Routes,
            ports: &[PortState],
            node: NodeId,
            dst: u32,
            dst_node: NodeId,
            memo: &mut HashMap<u32, Vec<Vec<(Rate, Time)>>>,
        ) -> Vec<Vec<(Rate, Time)>> {
            if node == dst_node {
                return vec![Vec::new()];
            }
            if let Some(m) = memo.get(&node.0) {
                return m.clone();
            }
            let mut out: Vec<Vec<(Rate, Time)>> = Vec::new();
            for &p in routes.next_hops(node, dst) {
                let port = ports[p.idx()];
                if !port.up {
                    continue;
                }
                for mut suffix in candidate_paths(routes, ports, port.peer, dst, dst_node, memo) {
                    suffix.insert(0, (port.rate, port.delay));
                    if !out.contains(&suffix) {
                        out.push(suffix);
                    }
                }
            }
            if out.len() > MAX_CANDIDATES {
                out.sort_by_key(|h| {
                    (
                        std::cmp::Reverse(h.iter().map(|x| x.0).min().unwrap_or(Rate(0))),
                        h.iter().fold(Time::ZERO, |a, x| a + x.1),
                    )
                });
                out.truncate(MAX_CANDIDATES);
            }
            memo.insert(node.0, out.clone());
            out
        }

        pub type Best = Option<(Rate, Time, Vec<(Rate, Time)>)>;

        pub fn best_from(
            routes: &Routes,
            ports: &[PortState],
            node: NodeId,
            dst: u32,
            dst_node: NodeId,
            memo: &mut HashMap<u32, Best>,
        ) -> Best {
            if node == dst_node {
                return Some((Rate(u64::MAX), Time::ZERO, Vec::new()));
            }
            if let Some(m) = memo.get(&node.0) {
                return m.clone();
            }
            let mut best: Best = None;
            for &p in routes.next_hops(node, dst) {
                let port = ports[p.idx()];
                if !port.up {
                    continue;
                }
                if let Some((r, d, mut hops)) =
                    best_from(routes, ports, port.peer, dst, dst_node, memo)
                {
                    let (r2, d2) = (r.min(port.rate), d + port.delay);
                    if best.as_ref().is_none_or(|(br, bd, _)| r2 > *br || (r2 == *br && d2 < *bd)) {
                        hops.insert(0, (port.rate, port.delay));
                        best = Some((r2, d2, hops));
                    }
                }
            }
            memo.insert(node.0, best.clone());
            best
        }

        /// The number of minimum-hop paths over ports that are up.
        pub fn count(
            routes: &Routes,
            ports: &[PortState],
            node: NodeId,
            dst: u32,
            dst_node: NodeId,
        ) -> Option<u64> {
            if node == dst_node {
                return Some(1);
            }
            let mut acc = None;
            for &p in routes.next_hops(node, dst) {
                if ports[p.idx()].up {
                    if let Some(n) = count(routes, ports, ports[p.idx()].peer, dst, dst_node) {
                        acc = Some(acc.unwrap_or(0) + n);
                    }
                }
            }
            acc
        }
    }

    /// A layered network: hosts under the switches of the first and last of four full layers
    /// (widths 1 to 9 between them), links of random rates and delays, some ports down after the
    /// routes are built (as a link event leaves them). Up to 81 distinct paths between the outer
    /// layers, so that candidate lists are cut to `MAX_CANDIDATES`.
    fn layered(rng: &mut Rng) -> (Vec<Vec<PortId>>, Vec<PortState>, Vec<bool>, Vec<NodeId>) {
        let widths = [
            1 + rng.below(3) as usize,
            1 + rng.below(9) as usize,
            1 + rng.below(9) as usize,
            1 + rng.below(3) as usize,
        ];
        let hosts_per_leaf = 1 + rng.below(3) as usize;
        let mut layers: Vec<Vec<usize>> = Vec::new();
        let mut n = 0;
        for &w in &widths {
            layers.push((n..n + w).collect());
            n += w;
        }
        let leaves: Vec<usize> = layers[0].iter().chain(&layers[3]).copied().collect();
        let n_hosts = leaves.len() * hosts_per_leaf;
        let mut node_ports = vec![Vec::new(); n + n_hosts];
        let mut ports: Vec<PortState> = Vec::new();
        let mut link = |node_ports: &mut Vec<Vec<PortId>>, a: usize, b: usize, rng: &mut Rng| {
            let rate = Rate::from_gbps([10, 25, 40, 100][rng.below(4) as usize]);
            let delay = Time::from_ns(500 * (1 + rng.below(3)));
            for (x, y) in [(a, b), (b, a)] {
                node_ports[x].push(PortId::from_idx(ports.len()));
                ports.push(PortState { peer: NodeId::from_idx(y), rate, delay, up: true });
            }
        };
        for l in 0..3 {
            for &a in &layers[l] {
                for &b in &layers[l + 1] {
                    link(&mut node_ports, a, b, rng);
                }
            }
        }
        let mut is_host = vec![false; n + n_hosts];
        let mut hosts = Vec::new();
        for (i, &leaf) in leaves.iter().enumerate() {
            for j in 0..hosts_per_leaf {
                let h = n + i * hosts_per_leaf + j;
                is_host[h] = true;
                hosts.push(NodeId::from_idx(h));
                link(&mut node_ports, h, leaf, rng);
            }
        }
        (node_ports, ports, is_host, hosts)
    }

    #[test]
    fn searches_agree_with_their_first_definitions() {
        let mut rng = Rng::new(5);
        let mut cut = 0;
        for case in 0..120 {
            let (node_ports, mut ports, is_host, hosts) = layered(&mut rng);
            let port_peer: Vec<NodeId> = ports.iter().map(|p| p.peer).collect();
            let port_up = vec![true; ports.len()];
            let routes = Routes::compute(
                &Graph {
                    node_ports: &node_ports,
                    port_peer: &port_peer,
                    is_host: &is_host,
                    port_up: &port_up,
                    ns3_order: false,
                },
                &hosts,
            );
            // Some links go down after the routes are built (both ports).
            for l in 0..ports.len() / 2 {
                if rng.below(12) == 0 {
                    ports[2 * l].up = false;
                    ports[2 * l + 1].up = false;
                }
            }
            for (d, &d_node) in hosts.iter().enumerate() {
                for &s_node in &hosts {
                    let want = reference::candidate_paths(
                        &routes,
                        &ports,
                        s_node,
                        d as u32,
                        d_node,
                        &mut HashMap::new(),
                    );
                    let got: Vec<Vec<(Rate, Time)>> =
                        candidate_paths(&routes, &ports, s_node, d as u32, d_node)
                            .into_iter()
                            .map(|p| p.hops)
                            .collect();
                    assert_eq!(got, want, "case {case}: candidate paths {s_node:?} -> {d_node:?}");
                    cut += (want.len() == MAX_CANDIDATES) as u32;
                    let want = reference::best_from(
                        &routes,
                        &ports,
                        s_node,
                        d as u32,
                        d_node,
                        &mut HashMap::new(),
                    )
                    .map(|b| b.2);
                    assert_eq!(
                        best_path_over(&routes, &ports, s_node, d as u32, d_node).map(|p| p.hops),
                        want,
                        "case {case}: best path"
                    );
                    let count = fold_min_hop(
                        &routes,
                        &ports,
                        s_node,
                        d as u32,
                        d_node,
                        1u64,
                        &mut NodeMemo::new(),
                        &|n: Option<u64>, _, b| Some(n.unwrap_or(0) + b),
                    );
                    assert_eq!(
                        count,
                        reference::count(&routes, &ports, s_node, d as u32, d_node),
                        "case {case}: path count"
                    );
                }
            }
        }
        assert!(cut > 0, "no candidate list was cut to MAX_CANDIDATES");
    }
}
