//! The static description of a network: nodes (hosts and switches) and bidirectional links.
//!
//! A [`Topology`] is what builders (`leaf-spine`, `fat-tree`, …) and file importers produce and
//! what the simulator is built from. It holds no run-time state.

use braid_core::{NodeId, Rate, Time};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host with a NIC.
    Host,
    /// A switch inside a datacenter (ToR/leaf, aggregation, spine, core).
    Switch,
    /// A datacenter-interconnect switch (the border of a DC in inter-DC topologies; runs LCMP).
    Dci,
}

/// One node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    /// Host, switch or DCI switch.
    pub kind: NodeKind,
    /// A human-readable name (`h0`, `tor3`, `core1`, `DC2-dci`).
    pub name: String,
    /// Group the node belongs to: pod in a Clos, datacenter in an inter-DC network, 0 otherwise.
    pub group: u32,
    /// Tier in a Clos/fat-tree: 0 hosts, 1 ToR/leaf, 2 aggregation/spine, 3 core. 0 when unknown.
    pub tier: u8,
    /// Switch buffer size in bytes, if the topology sets one (otherwise the scenario default).
    pub buffer_bytes: Option<u64>,
}

/// One bidirectional link (both directions have the same rate and delay).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
}

/// A network: nodes and links.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// The nodes; `NodeId(i)` is `nodes[i]`.
    pub nodes: Vec<NodeSpec>,
    /// The links; `LinkId(i)` is `links[i]`.
    pub links: Vec<LinkSpec>,
}

impl Topology {
    /// An empty topology.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a node and return its id.
    pub fn add_node(
        &mut self,
        kind: NodeKind,
        name: impl Into<String>,
        group: u32,
        tier: u8,
    ) -> NodeId {
        self.nodes.push(NodeSpec { kind, name: name.into(), group, tier, buffer_bytes: None });
        NodeId::from_idx(self.nodes.len() - 1)
    }

    /// Add a host.
    pub fn add_host(&mut self, name: impl Into<String>, group: u32) -> NodeId {
        self.add_node(NodeKind::Host, name, group, 0)
    }

    /// Add a switch at a tier.
    pub fn add_switch(&mut self, name: impl Into<String>, group: u32, tier: u8) -> NodeId {
        self.add_node(NodeKind::Switch, name, group, tier)
    }

    /// Connect two nodes with a bidirectional link and return the link's index.
    pub fn connect(&mut self, a: NodeId, b: NodeId, rate: Rate, delay: Time) -> usize {
        self.links.push(LinkSpec { a, b, rate, delay });
        self.links.len() - 1
    }

    /// The hosts, in node order. Host index `i` in workloads means `hosts()[i]`.
    pub fn hosts(&self) -> Vec<NodeId> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == NodeKind::Host)
            .map(|(i, _)| NodeId::from_idx(i))
            .collect()
    }

    /// How many destination classes the routing tables keep a column for (see `routes`): one
    /// per switch that has hosts hanging off it by their only link, one per other host.
    pub fn destination_classes(&self) -> usize {
        let mut links_of = vec![(0u32, NodeId(0)); self.nodes.len()];
        for l in &self.links {
            for (x, y) in [(l.a, l.b), (l.b, l.a)] {
                if let Some(e) = links_of.get_mut(x.idx()) {
                    *e = (e.0 + 1, y);
                }
            }
        }
        let mut leaves = std::collections::HashSet::new();
        let mut others = 0;
        for h in self.hosts() {
            match links_of[h.idx()] {
                (1, s) if self.nodes.get(s.idx()).is_some_and(|n| n.kind != NodeKind::Host) => {
                    leaves.insert(s);
                }
                _ => others += 1,
            }
        }
        leaves.len() + others
    }

    /// Check the topology is usable: at least two hosts, every link between existing distinct nodes
    /// with a positive rate, every host attached, and every host reachable from every other.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.nodes.len();
        for (i, l) in self.links.iter().enumerate() {
            if l.a.idx() >= n || l.b.idx() >= n {
                return Err(format!(
                    "link {i} names a node that does not exist ({} – {})",
                    l.a, l.b
                ));
            }
            if l.a == l.b {
                return Err(format!("link {i} connects node {} to itself", l.a));
            }
            if l.rate.bps() == 0 {
                return Err(format!(
                    "link {i} ({} – {}) has a zero rate",
                    self.nodes[l.a.idx()].name,
                    self.nodes[l.b.idx()].name
                ));
            }
        }
        let hosts = self.hosts();
        if hosts.len() < 2 {
            return Err(format!(
                "the topology has {} host(s); at least two are needed",
                hosts.len()
            ));
        }
        // Connectivity from the first host.
        let mut adj = vec![Vec::new(); n];
        for l in &self.links {
            adj[l.a.idx()].push(l.b.idx());
            adj[l.b.idx()].push(l.a.idx());
        }
        let mut seen = vec![false; n];
        let mut stack = vec![hosts[0].idx()];
        seen[hosts[0].idx()] = true;
        while let Some(u) = stack.pop() {
            for &v in &adj[u] {
                if !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        if let Some(h) = hosts.iter().find(|h| !seen[h.idx()]) {
            return Err(format!(
                "the topology is disconnected: host `{}` cannot reach host `{}`",
                self.nodes[h.idx()].name,
                self.nodes[hosts[0].idx()].name
            ));
        }
        Ok(())
    }
}
