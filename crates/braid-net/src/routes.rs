//! Next-hop tables: for every node and destination host, the set of egress ports on a shortest
//! (minimum-hop) path. In a Clos or fat-tree this is exactly up-down routing. Hosts never forward
//! transit traffic. Identical sets are stored once.

use braid_core::{NodeId, PortId};
use std::collections::{HashMap, VecDeque};

/// Next-hop sets for every (node, destination host).
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n_hosts: usize,
    /// `table[node * n_hosts + host]` = index into `sets`, or `u32::MAX` when unreachable.
    table: Vec<u32>,
    /// `(start, len)` into `pool`.
    sets: Vec<(u32, u32)>,
    pool: Vec<PortId>,
}

/// What routing needs to know of the graph: per node, its egress ports and each port's far end.
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

impl Routes {
    /// Compute the tables. `hosts[i]` is the node of host index `i`.
    pub fn compute(g: &Graph, hosts: &[NodeId]) -> Routes {
        let n = g.node_ports.len();
        let nh = hosts.len();
        let mut r = Routes { n_hosts: nh, table: vec![u32::MAX; n * nh], sets: Vec::new(), pool: Vec::new() };
        let mut dedup: HashMap<Vec<PortId>, u32> = HashMap::new();
        let mut dist = vec![u32::MAX; n];
        let mut q = VecDeque::new();
        let mut buf = Vec::new();
        // Reverse adjacency: for BFS from the destination we need, for each node v, the nodes u
        // with a port u→v. Links are bidirectional, so the far ends of v's own ports suffice.
        for (hi, &dst) in hosts.iter().enumerate() {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst.idx()] = 0;
            q.clear();
            q.push_back(dst.idx());
            while let Some(v) = q.pop_front() {
                if g.is_host[v] && v != dst.idx() {
                    continue; // hosts do not forward
                }
                for &p in &g.node_ports[v] {
                    if !g.port_up[p.idx()] {
                        continue;
                    }
                    let u = g.port_peer[p.idx()].idx();
                    if dist[u] == u32::MAX {
                        dist[u] = dist[v] + 1;
                        q.push_back(u);
                    }
                }
            }
            for u in 0..n {
                if u == dst.idx() || dist[u] == u32::MAX {
                    continue;
                }
                buf.clear();
                for &p in &g.node_ports[u] {
                    if g.port_up[p.idx()] && dist[g.port_peer[p.idx()].idx()] == dist[u] - 1 {
                        let peer = g.port_peer[p.idx()].idx();
                        if peer == dst.idx() || !g.is_host[peer] {
                            buf.push(p);
                        }
                    }
                }
                if buf.is_empty() {
                    continue;
                }
                if g.ns3_order {
                    buf.sort_by_key(|p| {
                        let peer = g.port_peer[p.idx()].idx();
                        if g.is_host[peer] {
                            (0, peer)
                        } else {
                            (1, usize::MAX - peer)
                        }
                    });
                }
                let id = match dedup.get(&buf) {
                    Some(&id) => id,
                    None => {
                        let id = r.sets.len() as u32;
                        r.sets.push((r.pool.len() as u32, buf.len() as u32));
                        r.pool.extend_from_slice(&buf);
                        dedup.insert(buf.clone(), id);
                        id
                    }
                };
                r.table[u * nh + hi] = id;
            }
        }
        r
    }

    /// The id of `node`'s next-hop set toward host index `host` (equal sets share an id), if
    /// reachable.
    #[inline]
    pub fn set_id(&self, node: NodeId, host: u32) -> Option<u32> {
        let id = self.table[node.idx() * self.n_hosts + host as usize];
        (id != u32::MAX).then_some(id)
    }

    /// The egress ports of `node` on shortest paths to host index `host` (empty if unreachable).
    #[inline]
    pub fn next_hops(&self, node: NodeId, host: u32) -> &[PortId] {
        let id = self.table[node.idx() * self.n_hosts + host as usize];
        if id == u32::MAX {
            return &[];
        }
        let (s, l) = self.sets[id as usize];
        &self.pool[s as usize..(s + l) as usize]
    }
}
