//! Next-hop tables: for every node and destination host, the set of egress ports on a shortest
//! (minimum-hop) path. In a Clos or fat-tree this is exactly up-down routing. Hosts never forward
//! transit traffic. Identical sets are stored once.
//!
//! The tables do not grow with hosts × nodes. Destinations are grouped into *classes*: every host
//! attached by a single link to a switch (a *stub* host) shares the class of that switch (its
//! *leaf*), because toward such a host every node but the leaf routes exactly as toward the leaf
//! (the host's distance is the leaf's plus one, and hosts do not forward); any other host is a
//! class of its own. Rows are kept only for nodes that are not stub hosts: a stub host's one
//! next hop is its own link, usable whenever its switch has a route. A fat-tree of k = 64
//! (65,536 hosts, 5,120 switches, 2,048 edge switches) therefore keeps 5,120 × 2,048 entries
//! instead of 70,656 × 65,536. The sets returned are the ones a per-host breadth-first search
//! gives, port for port and in the same order (`tests::matches_per_host_reference`); only the
//! numbering of set ids differs, and nothing observable depends on it.

use braid_core::{NodeId, PortId};
use std::collections::HashMap;
use std::sync::Arc;

/// `Routes::table` entry: no route.
const NONE: u32 = u32::MAX;
/// `Routes::table` entry at a leaf toward its own class: the set is the destination's own link
/// (`Routes::host_leaf_set`).
const LEAF: u32 = u32::MAX - 1;
/// `Routes::node_row` of a stub host.
const STUB: u32 = u32::MAX;

/// Next-hop sets for every (node, destination host).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Routes {
    /// Number of destination classes.
    n_classes: usize,
    /// Number of table rows (nodes that are not stub hosts): the length of a class's column.
    n_rows: usize,
    /// Destination class of each host index.
    host_class: Vec<u32>,
    /// Node of each host index.
    host_node: Vec<NodeId>,
    /// For a host of a leaf class: the set id of its leaf's link toward it (`NONE` otherwise).
    host_leaf_set: Vec<u32>,
    /// Row of each node in `table`, or `STUB` for a stub host.
    node_row: Vec<u32>,
    /// For a stub host: its switch and the set id of its one link (unused otherwise).
    stub_uplink: Vec<(NodeId, u32)>,
    /// `table[class * n_rows + row]` = index into `sets`, `NONE` when unreachable, or `LEAF`.
    /// The one part that grows with the network (rows × classes): shared, not copied, when the
    /// tables are cloned (the partitions of a parallel run hold one copy). Stored by class: a
    /// path search toward one destination reads one class's column, a few kilobytes, where the
    /// rows of a k = 64 fat-tree's 42 MB table are 8 KB apart (a cache miss at every node
    /// visited).
    table: Arc<[u32]>,
    /// `(start, len)` into `pool`.
    sets: Vec<(u32, u32)>,
    pool: Vec<PortId>,
    /// Each port of `pool` by its local index at its node (its position among the node's
    /// ports): a set's candidates as a switch's router names them, without a lookup per packet.
    pool_local: Vec<u16>,
}

/// A next-hop set: the egress ports and, aligned, each one's local index at its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextHops<'a> {
    /// The egress ports.
    pub ports: &'a [PortId],
    /// Their local indices at the node.
    pub local: &'a [u16],
}

/// What routing needs to know of the graph: per node, its egress ports and each port's far end.
/// Links are symmetric: a link's two ports are up or down together.
pub struct Graph<'a> {
    /// Egress ports of each node.
    pub node_ports: &'a [Vec<PortId>],
    /// Far end of each port.
    pub port_peer: &'a [NodeId],
    /// Whether each node is a host.
    pub is_host: &'a [bool],
    /// Whether each port is up (down ports are not used).
    pub port_up: &'a [bool],
    /// Order each next-hop set as the ns-3 HPCC fork does (hosts by ascending node id, then
    /// switches by descending node id) instead of by port (`routing.nexthop_order`).
    pub ns3_order: bool,
}

impl Graph<'_> {
    /// Where the ns-3 HPCC fork puts egress `p` in a next-hop set (`ns3_order`): hosts by
    /// ascending node id, then switches by descending node id.
    fn ns3_rank(&self, p: PortId) -> (u8, usize) {
        let peer = self.port_peer[p.idx()].idx();
        if self.is_host[peer] {
            (0, peer)
        } else {
            (1, usize::MAX - peer)
        }
    }

    /// The switch a stub host hangs off and the host's one link to it: `Some` when `node` is a
    /// host with exactly one port, up, to a switch that has exactly one port back, also up.
    fn stub_uplink(&self, node: usize) -> Option<(NodeId, PortId)> {
        if !self.is_host[node] {
            return None;
        }
        let [p] = self.node_ports[node][..] else { return None };
        let s = self.port_peer[p.idx()];
        if !self.port_up[p.idx()] || self.is_host[s.idx()] {
            return None;
        }
        let mut back =
            self.node_ports[s.idx()].iter().filter(|q| self.port_peer[q.idx()].idx() == node);
        match (back.next(), back.next()) {
            (Some(q), None) if self.port_up[q.idx()] => Some((s, p)),
            _ => None,
        }
    }
}

/// Interns next-hop sets: equal sets share one id.
struct SetPool<'r> {
    r: &'r mut Routes,
    /// Local index of each port at its node.
    port_local: Vec<u16>,
    /// The flow cache's seedless multiplicative hash (SipHash was a fifth of building a k = 64
    /// fat-tree's tables); the pool is only looked up, so set ids do not depend on it.
    dedup: HashMap<
        Vec<PortId>,
        u32,
        std::hash::BuildHasherDefault<braid_proto::routing::flow_cache::KeyHasher>,
    >,
}

impl SetPool<'_> {
    /// The ports of set `id`.
    fn get(&self, id: u32) -> &[PortId] {
        let (s, l) = self.r.sets[id as usize];
        &self.r.pool[s as usize..(s + l) as usize]
    }

    fn intern(&mut self, set: &[PortId]) -> u32 {
        if let Some(&id) = self.dedup.get(set) {
            return id;
        }
        let id = self.r.sets.len() as u32;
        self.r.sets.push((self.r.pool.len() as u32, set.len() as u32));
        self.r.pool.extend_from_slice(set);
        self.r.pool_local.extend(set.iter().map(|p| self.port_local[p.idx()]));
        self.dedup.insert(set.to_vec(), id);
        id
    }
}

impl Routes {
    /// Compute the tables. `hosts[i]` is the node of host index `i`.
    pub fn compute(g: &Graph, hosts: &[NodeId]) -> Routes {
        let n = g.node_ports.len();
        let mut r = Routes {
            host_node: hosts.to_vec(),
            host_leaf_set: vec![NONE; hosts.len()],
            ..Routes::default()
        };
        let mut port_local = vec![0u16; g.port_peer.len()];
        for np in g.node_ports {
            for (i, p) in np.iter().enumerate() {
                port_local[p.idx()] = i as u16;
            }
        }
        let mut pool = SetPool { r: &mut r, port_local, dedup: HashMap::default() };
        // Rows and stubs.
        let mut node_row = vec![STUB; n];
        let mut stub_uplink = vec![(NodeId(0), NONE); n];
        let mut rows = 0u32;
        for (u, row) in node_row.iter_mut().enumerate() {
            match g.stub_uplink(u) {
                Some((s, p)) => stub_uplink[u] = (s, pool.intern(&[p])),
                None => {
                    *row = rows;
                    rows += 1;
                }
            }
        }
        // Classes: one per leaf switch of stub hosts, one per other host. `roots[c]` is where
        // the class's search starts.
        let mut class_of_leaf: HashMap<NodeId, u32> = HashMap::new();
        let mut roots: Vec<NodeId> = Vec::new();
        let mut host_class = Vec::with_capacity(hosts.len());
        for (hi, &h) in hosts.iter().enumerate() {
            let c = if node_row[h.idx()] == STUB {
                let leaf = stub_uplink[h.idx()].0;
                // The leaf's one link back to the host.
                let back = *g.node_ports[leaf.idx()]
                    .iter()
                    .find(|q| g.port_peer[q.idx()] == h)
                    .expect("stub host's link");
                pool.r.host_leaf_set[hi] = pool.intern(&[back]);
                *class_of_leaf.entry(leaf).or_insert_with(|| {
                    roots.push(leaf);
                    roots.len() as u32 - 1
                })
            } else {
                roots.push(h);
                roots.len() as u32 - 1
            };
            host_class.push(c);
        }
        let nc = roots.len();
        let n_rows = rows as usize;
        let mut table = vec![NONE; n_rows * nc];
        // The searches run over rows, not nodes: a row's distance array fits the first-level
        // cache where a node's does not (a k = 64 fat-tree has 5,120 rows and 70,656 nodes),
        // and each row lists only the ports a next hop can leave by — up, toward a node with a
        // row (a stub host is never a next hop but toward itself, and its class starts at its
        // leaf) — with the far end's row, in the node's port order.
        let row_nodes: Vec<usize> = (0..n).filter(|&u| node_row[u] != STUB).collect();
        let row_is_host: Vec<bool> = row_nodes.iter().map(|&u| g.is_host[u]).collect();
        let mut adj_start: Vec<u32> = Vec::with_capacity(n_rows + 1);
        let mut adj: Vec<(u32, PortId)> = Vec::new();
        for &u in &row_nodes {
            adj_start.push(adj.len() as u32);
            for &p in &g.node_ports[u] {
                let peer_row = node_row[g.port_peer[p.idx()].idx()];
                if g.port_up[p.idx()] && peer_row != STUB {
                    adj.push((peer_row, p));
                }
            }
        }
        adj_start.push(adj.len() as u32);
        let adj_of =
            |row: u32| &adj[adj_start[row as usize] as usize..adj_start[row as usize + 1] as usize];
        let mut dist = vec![u32::MAX; n_rows];
        // The breadth-first queue: every row reached, in order (`head`: the next to expand).
        let mut q: Vec<u32> = Vec::new();
        let mut buf = Vec::new();
        // The set each row took for the class before (a switch's up-links are its set toward
        // most classes: compared, not hashed).
        let mut last_set = vec![NONE; n_rows];
        for (c, &root) in roots.iter().enumerate() {
            for &v in &q {
                dist[v as usize] = u32::MAX;
            }
            // Links are bidirectional: the rows that reach `v` in one hop are the far ends of
            // its own ports, so the search from the destination walks them.
            let root_row = node_row[root.idx()];
            dist[root_row as usize] = 0;
            q.clear();
            q.push(root_row);
            let mut head = 0;
            while head < q.len() {
                let v = q[head];
                head += 1;
                if row_is_host[v as usize] && v != root_row {
                    continue; // hosts do not forward
                }
                let next = dist[v as usize] + 1;
                for &(u, _) in adj_of(v) {
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = next;
                        q.push(u);
                    }
                }
            }
            let column = &mut table[c * n_rows..(c + 1) * n_rows];
            for row in 0..rows {
                let d = dist[row as usize];
                if d == u32::MAX {
                    continue;
                }
                if row == root_row {
                    if !row_is_host[row as usize] {
                        column[row as usize] = LEAF;
                    }
                    continue;
                }
                buf.clear();
                for &(u, p) in adj_of(row) {
                    if dist[u as usize] == d - 1 && (u == root_row || !row_is_host[u as usize]) {
                        buf.push(p);
                    }
                }
                if buf.is_empty() {
                    continue;
                }
                if g.ns3_order {
                    buf.sort_by_key(|&p| g.ns3_rank(p));
                }
                let last = last_set[row as usize];
                column[row as usize] = if last != NONE && pool.get(last) == &buf[..] {
                    last
                } else {
                    let id = pool.intern(&buf);
                    last_set[row as usize] = id;
                    id
                };
            }
        }
        r.n_classes = nc;
        r.n_rows = rows as usize;
        r.host_class = host_class;
        r.node_row = node_row;
        r.stub_uplink = stub_uplink;
        r.table = table.into();
        r
    }

    /// Number of nodes the tables cover (every node of the topology).
    pub fn n_nodes(&self) -> usize {
        self.node_row.len()
    }

    /// Number of destination classes (the width of a node's row).
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Entries in the next-hop table (rows × classes): what the tables cost, at 4 bytes each.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }

    /// The id of `node`'s next-hop set toward host index `host` (equal sets share an id), if
    /// reachable.
    #[inline]
    pub fn set_id(&self, node: NodeId, host: u32) -> Option<u32> {
        let id = self.raw_set_id(node, host);
        (id != NONE).then_some(id)
    }

    #[inline(always)]
    fn raw_set_id(&self, node: NodeId, host: u32) -> u32 {
        let row = self.node_row[node.idx()];
        if row == STUB {
            return self.stub_set_id(node, host);
        }
        self.row_set_id(row, host)
    }

    /// The set of table row `row` toward host index `host`.
    #[inline(always)]
    fn row_set_id(&self, row: u32, host: u32) -> u32 {
        let h = host as usize;
        match self.table[self.host_class[h] as usize * self.n_rows + row as usize] {
            LEAF => self.host_leaf_set[h],
            id => id,
        }
    }

    /// A stub host's set: its own link, if its switch routes toward the destination (or is the
    /// destination's leaf).
    #[inline(never)]
    fn stub_set_id(&self, node: NodeId, host: u32) -> u32 {
        let (s, link) = self.stub_uplink[node.idx()];
        let row = self.node_row[s.idx()];
        if node == self.host_node[host as usize] || self.row_set_id(row, host) == NONE {
            return NONE;
        }
        link
    }

    /// The egress ports of `node` on shortest paths to host index `host` (empty if unreachable).
    #[inline(always)]
    pub fn next_hops(&self, node: NodeId, host: u32) -> &[PortId] {
        let id = self.raw_set_id(node, host);
        if id == NONE {
            return &[];
        }
        let (s, l) = self.sets[id as usize];
        &self.pool[s as usize..(s + l) as usize]
    }

    /// [`Routes::next_hops`] with each port's local index at `node`.
    #[inline(always)]
    pub fn next_hops_local(&self, node: NodeId, host: u32) -> NextHops<'_> {
        let id = self.raw_set_id(node, host);
        if id == NONE {
            return NextHops { ports: &[], local: &[] };
        }
        let (s, l) = self.sets[id as usize];
        let r = s as usize..(s + l) as usize;
        NextHops { ports: &self.pool[r.clone()], local: &self.pool_local[r] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_core::Rng;
    use std::collections::VecDeque;

    /// The tables as one breadth-first search per destination host computes them, every node a
    /// row: the definition the class tables must agree with.
    fn reference(g: &Graph, hosts: &[NodeId]) -> Vec<Vec<Vec<PortId>>> {
        let n = g.node_ports.len();
        let mut out = vec![vec![Vec::new(); hosts.len()]; n];
        for (hi, &dst) in hosts.iter().enumerate() {
            let mut dist = vec![u32::MAX; n];
            dist[dst.idx()] = 0;
            let mut q = VecDeque::from([dst.idx()]);
            while let Some(v) = q.pop_front() {
                if g.is_host[v] && v != dst.idx() {
                    continue;
                }
                for &p in &g.node_ports[v] {
                    let u = g.port_peer[p.idx()].idx();
                    if g.port_up[p.idx()] && dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        q.push_back(u);
                    }
                }
            }
            for u in 0..n {
                if u == dst.idx() || dist[u] == u32::MAX {
                    continue;
                }
                let mut set: Vec<PortId> = g.node_ports[u]
                    .iter()
                    .copied()
                    .filter(|p| {
                        let peer = g.port_peer[p.idx()].idx();
                        g.port_up[p.idx()]
                            && dist[peer] == dist[u] - 1
                            && (peer == dst.idx() || !g.is_host[peer])
                    })
                    .collect();
                if g.ns3_order {
                    set.sort_by_key(|&p| g.ns3_rank(p));
                }
                out[u][hi] = set;
            }
        }
        out
    }

    /// A graph of `n_sw` switches and `n_host` hosts: a random connected switch core, each host
    /// on one, two or three links (to switches, or now and then to another host), parallel
    /// links included, and some links down (both ports).
    struct Net {
        node_ports: Vec<Vec<PortId>>,
        port_peer: Vec<NodeId>,
        is_host: Vec<bool>,
        port_up: Vec<bool>,
        hosts: Vec<NodeId>,
    }

    fn random_net(rng: &mut Rng, n_sw: usize, n_host: usize) -> Net {
        let n = n_sw + n_host;
        let mut net = Net {
            node_ports: vec![Vec::new(); n],
            port_peer: Vec::new(),
            is_host: vec![false; n],
            port_up: Vec::new(),
            hosts: Vec::new(),
        };
        let link = |net: &mut Net, a: usize, b: usize, up: bool| {
            for (x, y) in [(a, b), (b, a)] {
                net.node_ports[x].push(PortId::from_idx(net.port_peer.len()));
                net.port_peer.push(NodeId::from_idx(y));
                net.port_up.push(up);
            }
        };
        for s in 1..n_sw {
            let t = rng.below(s as u64) as usize;
            link(&mut net, s, t, true);
        }
        for _ in 0..n_sw {
            let (a, b) = (rng.below(n_sw as u64) as usize, rng.below(n_sw as u64) as usize);
            if a != b {
                link(&mut net, a, b, rng.below(4) != 0);
            }
        }
        for h in n_sw..n {
            net.is_host[h] = true;
            net.hosts.push(NodeId::from_idx(h));
            let links = match rng.below(10) {
                0..=6 => 1,
                7 | 8 => 2,
                _ => 3,
            };
            for _ in 0..links {
                let peer = if h > n_sw && rng.below(8) == 0 {
                    n_sw + rng.below((h - n_sw) as u64) as usize
                } else {
                    rng.below(n_sw as u64) as usize
                };
                link(&mut net, h, peer, rng.below(6) != 0);
            }
        }
        net
    }

    fn check(net: &Net, ns3_order: bool) {
        let g = Graph {
            node_ports: &net.node_ports,
            port_peer: &net.port_peer,
            is_host: &net.is_host,
            port_up: &net.port_up,
            ns3_order,
        };
        let want = reference(&g, &net.hosts);
        let r = Routes::compute(&g, &net.hosts);
        for (u, row) in want.iter().enumerate() {
            for (hi, set) in row.iter().enumerate() {
                let got = r.next_hops(NodeId::from_idx(u), hi as u32);
                assert_eq!(got, &set[..], "node {u} toward host {hi}");
                // The same set by local index: each port's position among the node's ports.
                let with_local = r.next_hops_local(NodeId::from_idx(u), hi as u32);
                assert_eq!(with_local.ports, got);
                let positions: Vec<u16> = got
                    .iter()
                    .map(|p| net.node_ports[u].iter().position(|q| q == p).unwrap() as u16)
                    .collect();
                assert_eq!(with_local.local, &positions[..], "node {u} toward host {hi}");
                assert_eq!(r.set_id(NodeId::from_idx(u), hi as u32).is_some(), !set.is_empty());
            }
        }
        // Equal sets share an id; different sets do not.
        let mut ids: HashMap<Vec<PortId>, u32> = HashMap::new();
        for (u, row) in want.iter().enumerate() {
            for (hi, set) in row.iter().enumerate() {
                if let Some(id) = r.set_id(NodeId::from_idx(u), hi as u32) {
                    assert_eq!(*ids.entry(set.clone()).or_insert(id), id, "set {set:?}");
                }
            }
        }
    }

    #[test]
    fn matches_per_host_reference() {
        let mut rng = Rng::new(7);
        for case in 0..300 {
            let net = random_net(&mut rng, 2 + case % 9, 2 + case % 13);
            check(&net, case % 2 == 0);
        }
    }

    #[test]
    fn a_fat_tree_keeps_a_row_per_switch_and_a_class_per_edge_switch() {
        let t = crate::topo::fat_tree(&crate::topo::FatTreeParams { k: 4, ..Default::default() })
            .unwrap();
        assert_eq!(t.destination_classes(), 8);
        let sim = crate::sim::Sim::new(t, crate::config::NetConfig::default(), 1);
        let r = sim.routes();
        // k = 4: 16 hosts under 8 edge switches; 20 switches.
        assert_eq!(r.n_classes(), 8);
        assert_eq!(r.table_len(), 20 * 8);
    }
}
