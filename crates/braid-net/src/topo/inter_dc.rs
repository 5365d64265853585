//! Inter-datacenter networks: one leaf-spine datacenter with a DCI switch per node of a DC graph,
//! as in the LCMP testbed (LCMP §6.1 "Testbed topology", §6.2; `docs/lcmp.md`: per DC 16 hosts, 4
//! leaves with 4 hosts each, 2 spines, 1 DCI; host–leaf 100 G/1 µs, leaf–spine 100 G/1 µs full
//! mesh, spine–DCI 400 G/1 µs; DCIs wired by the graph's links).
//!
//! Node and link order follow the artifact's topology files, so that with the 8-DC or 13-DC graph
//! the result equals the imported artifact file node for node and link for link (only the names
//! differ): all DCs' hosts first (host `i` of the whole network is artifact node id `i`), then all
//! leaves, all spines, all DCIs; links DC by DC (host–leaf, leaf–spine leaf-major, spine–DCI), then
//! the inter-DC links in graph order.

use super::{finish, need_links, need_positive, need_rate, need_size};
use crate::topology::{NodeKind, Topology};
use braid_core::{NodeId, Rate, Time};

/// One inter-DC link of the DC graph: DCI of DC `a` to DCI of DC `b`.
#[derive(Clone, Debug, PartialEq)]
pub struct DcLink {
    /// One DC (0-based index).
    pub a: usize,
    /// The other DC (0-based index).
    pub b: usize,
    /// Line rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
}

/// The shape of every datacenter in an inter-DC network. [`Default`] is the LCMP testbed's DC
/// (LCMP §6.1).
#[derive(Clone, Debug, PartialEq)]
pub struct IntraDcParams {
    /// Hosts per DC (16). Host `j` of a DC hangs off leaf `j · leaves / hosts_per_dc`.
    pub hosts_per_dc: usize,
    /// Leaf switches per DC (4).
    pub leaves: usize,
    /// Spine switches per DC (2); every leaf connects to every spine, every spine to the DCI.
    pub spines: usize,
    /// Host–leaf rate (100 Gb/s).
    pub host_rate: Rate,
    /// Host–leaf one-way delay (1 µs).
    pub host_delay: Time,
    /// Leaf–spine rate (100 Gb/s).
    pub fabric_rate: Rate,
    /// Leaf–spine one-way delay (1 µs).
    pub fabric_delay: Time,
    /// Spine–DCI rate (400 Gb/s).
    pub dci_rate: Rate,
    /// Spine–DCI one-way delay (1 µs).
    pub dci_delay: Time,
}

impl Default for IntraDcParams {
    fn default() -> Self {
        Self {
            hosts_per_dc: 16,
            leaves: 4,
            spines: 2,
            host_rate: Rate::from_gbps(100),
            host_delay: Time::from_us(1),
            fabric_rate: Rate::from_gbps(100),
            fabric_delay: Time::from_us(1),
            dci_rate: Rate::from_gbps(400),
            dci_delay: Time::from_us(1),
        }
    }
}

/// Parameters of [`inter_dc`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterDcParams {
    /// Number of datacenters (graph nodes), at least 1.
    pub dcs: usize,
    /// The inter-DC links; parallel links between the same pair are kept as parallel links.
    pub graph: Vec<DcLink>,
    /// Optional DC names (empty, or exactly `dcs` unique names without whitespace or `#`); the
    /// default is `dc0`, `dc1`, …
    pub names: Vec<String>,
    /// The shape of each DC.
    pub intra: IntraDcParams,
}

/// Whether `s` can be a node name (non-empty, no whitespace, no `#`).
pub(crate) fn valid_name(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c == '#')
}

/// One leaf-spine DC per graph node, each with a [`NodeKind::Dci`] switch, DCIs wired by `graph`.
///
/// Nodes (for DC name `D`): hosts `D-h0…`, leaves `D-leaf0…` (tier 1), spines `D-spine0…`
/// (tier 2), DCI `D-dci` (tier 3); `group` is the DC index for every node. Ordering as in the
/// module docs (artifact order). The DC graph must be connected.
pub fn inter_dc(p: &InterDcParams) -> Result<Topology, String> {
    let q = &p.intra;
    need_positive("dcs", p.dcs)?;
    need_positive("hosts_per_dc", q.hosts_per_dc)?;
    need_positive("leaves", q.leaves)?;
    need_positive("spines", q.spines)?;
    need_rate("host_rate", q.host_rate)?;
    need_rate("fabric_rate", q.fabric_rate)?;
    need_rate("dci_rate", q.dci_rate)?;
    let per_dc = q.hosts_per_dc.saturating_add(q.leaves).saturating_add(q.spines).saturating_add(1);
    need_size("`dcs` × (`hosts_per_dc` + `leaves` + `spines` + 1)", &[p.dcs, per_dc])?;
    need_links("`dcs` × `leaves` × `spines`", &[p.dcs, q.leaves, q.spines])?;
    let names: Vec<String> = if p.names.is_empty() {
        (0..p.dcs).map(|i| format!("dc{i}")).collect()
    } else {
        if p.names.len() != p.dcs {
            return Err(format!("`names` lists {} DC names but `dcs` is {}", p.names.len(), p.dcs));
        }
        for (i, n) in p.names.iter().enumerate() {
            if !valid_name(n) {
                return Err(format!(
                    "`names[{i}]` = {n:?} is not a valid name (empty, whitespace or `#`)"
                ));
            }
            if p.names[..i].contains(n) {
                return Err(format!("`names[{i}]` = {n:?} is used twice"));
            }
        }
        p.names.clone()
    };
    for (i, l) in p.graph.iter().enumerate() {
        if l.a >= p.dcs || l.b >= p.dcs {
            return Err(format!(
                "`graph[{i}]` connects DC {} to DC {}, but `dcs` is {}",
                l.a, l.b, p.dcs
            ));
        }
        if l.a == l.b {
            return Err(format!("`graph[{i}]` connects DC {} to itself", l.a));
        }
        need_rate(&format!("graph[{i}].rate"), l.rate)?;
    }
    // The DC graph must be connected.
    let mut seen = vec![false; p.dcs];
    seen[0] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for l in &p.graph {
            if seen[l.a] != seen[l.b] {
                seen[l.a] = true;
                seen[l.b] = true;
                changed = true;
            }
        }
    }
    if let Some(d) = seen.iter().position(|s| !s) {
        return Err(format!(
            "`graph` is disconnected: DC {d} ({}) cannot reach DC 0 ({})",
            names[d], names[0]
        ));
    }

    let mut t = Topology::new();
    let g = |d: usize| d as u32;
    let hosts: Vec<Vec<NodeId>> = (0..p.dcs)
        .map(|d| {
            (0..q.hosts_per_dc).map(|j| t.add_host(format!("{}-h{j}", names[d]), g(d))).collect()
        })
        .collect();
    let leaves: Vec<Vec<NodeId>> = (0..p.dcs)
        .map(|d| {
            (0..q.leaves).map(|j| t.add_switch(format!("{}-leaf{j}", names[d]), g(d), 1)).collect()
        })
        .collect();
    let spines: Vec<Vec<NodeId>> = (0..p.dcs)
        .map(|d| {
            (0..q.spines).map(|j| t.add_switch(format!("{}-spine{j}", names[d]), g(d), 2)).collect()
        })
        .collect();
    let dcis: Vec<NodeId> = (0..p.dcs)
        .map(|d| t.add_node(NodeKind::Dci, format!("{}-dci", names[d]), g(d), 3))
        .collect();
    for d in 0..p.dcs {
        for (j, &h) in hosts[d].iter().enumerate() {
            t.connect(h, leaves[d][j * q.leaves / q.hosts_per_dc], q.host_rate, q.host_delay);
        }
        for &l in &leaves[d] {
            for &s in &spines[d] {
                t.connect(l, s, q.fabric_rate, q.fabric_delay);
            }
        }
        for &s in &spines[d] {
            t.connect(s, dcis[d], q.dci_rate, q.dci_delay);
        }
    }
    for l in &p.graph {
        t.connect(dcis[l.a], dcis[l.b], l.rate, l.delay);
    }
    finish("inter-dc", t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::testutil::{count_shortest_paths, degrees, find};

    fn ring(n: usize) -> Vec<DcLink> {
        (0..n)
            .map(|i| DcLink {
                a: i,
                b: (i + 1) % n,
                rate: Rate::from_gbps(200),
                delay: Time::from_ms(1),
            })
            .collect()
    }

    #[test]
    fn ring_of_four() {
        let t = inter_dc(&InterDcParams { dcs: 4, graph: ring(4), ..Default::default() }).unwrap();
        assert_eq!(t.hosts().len(), 64);
        assert_eq!(t.nodes.len(), 4 * 23);
        assert_eq!(t.links.len(), 4 * 26 + 4);
        assert!(t.hosts().iter().enumerate().all(|(i, h)| h.idx() == i));
        let dci2 = find(&t, "dc2-dci");
        assert_eq!(dci2.idx(), 64 + 16 + 8 + 2);
        assert_eq!(t.nodes[dci2.idx()].kind, NodeKind::Dci);
        assert_eq!(t.nodes[dci2.idx()].group, 2);
        assert_eq!(degrees(&t)[dci2.idx()], 2 + 2);
        assert_eq!(t.nodes[find(&t, "dc3-h15").idx()].group, 3);
        // Host 5 of DC 0 hangs off leaf 1.
        let h5 = find(&t, "dc0-h5");
        assert!(t.links.iter().any(|l| l.a == h5 && l.b == find(&t, "dc0-leaf1")));
        // Within a DC, hosts on different leaves: 2 spine paths.
        assert_eq!(count_shortest_paths(&t, find(&t, "dc0-h0"), find(&t, "dc0-h4")), (4, 2));
        // DC 0 to DC 2 across the ring: two directions × 2 spines at each end = 8 paths.
        assert_eq!(count_shortest_paths(&t, find(&t, "dc0-h0"), find(&t, "dc2-h0")), (8, 8));
    }

    #[test]
    fn uneven_hosts_per_leaf_and_names() {
        let intra = IntraDcParams { hosts_per_dc: 5, leaves: 2, spines: 1, ..Default::default() };
        let t = inter_dc(&InterDcParams {
            dcs: 2,
            graph: ring(2)[..1].to_vec(),
            names: vec!["east".into(), "west".into()],
            intra,
        })
        .unwrap();
        let d = degrees(&t);
        assert_eq!(d[find(&t, "east-leaf0").idx()], 3 + 1);
        assert_eq!(d[find(&t, "west-leaf1").idx()], 2 + 1);
    }

    #[test]
    fn rejects_bad_parameters() {
        let base = InterDcParams { dcs: 3, graph: ring(3), ..Default::default() };
        let mut p = base.clone();
        p.graph[1].b = 7;
        assert!(inter_dc(&p).unwrap_err().contains("`graph[1]`"));
        let mut p = base.clone();
        p.graph[2].rate = Rate(0);
        assert!(inter_dc(&p).unwrap_err().contains("`graph[2].rate`"));
        let mut p = base.clone();
        p.graph.truncate(1);
        let e = inter_dc(&p).unwrap_err();
        assert!(e.contains("disconnected") && e.contains("DC 2"), "{e}");
        let mut p = base.clone();
        p.intra.spines = 0;
        assert!(inter_dc(&p).unwrap_err().contains("`spines`"));
        let mut p = base.clone();
        p.intra.hosts_per_dc = usize::MAX;
        assert!(inter_dc(&p).unwrap_err().contains("too large"));
        let mut p = base.clone();
        p.intra.hosts_per_dc = 0;
        assert!(inter_dc(&p).unwrap_err().contains("`hosts_per_dc`"));
        let mut p = base.clone();
        p.names = vec!["a".into(), "b b".into(), "c".into()];
        assert!(inter_dc(&p).unwrap_err().contains("`names[1]`"));
        let mut p = base.clone();
        p.names = vec!["a".into(), "b".into()];
        assert!(inter_dc(&p).unwrap_err().contains("`names`"));
        assert!(inter_dc(&InterDcParams::default()).unwrap_err().contains("`dcs`"));
    }
}
