//! Clos builders: two-tier leaf-spine, k-ary fat-tree, and the three-tier Clos of the Rondo paper
//! (§6.2.1 "Simulation topology": 5 pods × (4 ToR + 4 aggregation), 16 cores, 320 servers,
//! 100 Gb/s host links, 400 Gb/s fabric links, 1:1 or 4:1 oversubscription). The fat-tree is the
//! one of Rondo §6.2.6 ("Scalability", k = 10…16), i.e. the classic k-ary fat-tree of Al-Fares et al.

use super::{finish, need_links, need_positive, need_rate, need_size};
use crate::topology::Topology;
use braid_core::{NodeId, Rate, Time};

/// Parameters of [`leaf_spine`].
#[derive(Clone, Debug, PartialEq)]
pub struct LeafSpineParams {
    /// Number of leaf (ToR) switches.
    pub leaves: usize,
    /// Number of spine switches; every leaf connects to every spine.
    pub spines: usize,
    /// Hosts under each leaf.
    pub hosts_per_leaf: usize,
    /// Rate of the host–leaf links.
    pub host_rate: Rate,
    /// Rate of the leaf–spine links.
    pub fabric_rate: Rate,
    /// One-way propagation delay of the host–leaf links.
    pub host_delay: Time,
    /// One-way propagation delay of the leaf–spine links.
    pub fabric_delay: Time,
}

impl Default for LeafSpineParams {
    /// 4 leaves, 4 spines, 16 hosts per leaf, 100 Gb/s everywhere, 1 µs links (non-oversubscribed
    /// would need 400 Gb/s fabric links; this default is 4:1).
    fn default() -> Self {
        Self {
            leaves: 4,
            spines: 4,
            hosts_per_leaf: 16,
            host_rate: Rate::from_gbps(100),
            fabric_rate: Rate::from_gbps(100),
            host_delay: Time::from_us(1),
            fabric_delay: Time::from_us(1),
        }
    }
}

/// A two-tier leaf-spine network: `leaves × hosts_per_leaf` hosts, every leaf connected to every
/// spine by one link.
///
/// Nodes: hosts `h0…` (host `i` under leaf `i / hosts_per_leaf`), then `leaf0…` (tier 1), then
/// `spine0…` (tier 2); all in group 0. Links: host links in host order, then leaf-major
/// leaf–spine links (so each leaf's uplink ports are in spine order).
pub fn leaf_spine(p: &LeafSpineParams) -> Result<Topology, String> {
    need_positive("leaves", p.leaves)?;
    need_positive("spines", p.spines)?;
    need_positive("hosts_per_leaf", p.hosts_per_leaf)?;
    need_rate("host_rate", p.host_rate)?;
    need_rate("fabric_rate", p.fabric_rate)?;
    let n_hosts = need_size("`leaves` × `hosts_per_leaf`", &[p.leaves, p.hosts_per_leaf])?;
    need_links("`leaves` × `spines`", &[p.leaves, p.spines])?;
    need_size("`spines`", &[p.spines])?;
    let mut t = Topology::new();
    let hosts: Vec<NodeId> = (0..n_hosts).map(|i| t.add_host(format!("h{i}"), 0)).collect();
    let leaves: Vec<NodeId> =
        (0..p.leaves).map(|i| t.add_switch(format!("leaf{i}"), 0, 1)).collect();
    let spines: Vec<NodeId> =
        (0..p.spines).map(|i| t.add_switch(format!("spine{i}"), 0, 2)).collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.connect(h, leaves[i / p.hosts_per_leaf], p.host_rate, p.host_delay);
    }
    for &l in &leaves {
        for &s in &spines {
            t.connect(l, s, p.fabric_rate, p.fabric_delay);
        }
    }
    finish("leaf-spine", t)
}

/// Parameters of [`fat_tree`].
#[derive(Clone, Debug, PartialEq)]
pub struct FatTreeParams {
    /// Switch radix; must be even and at least 2. Gives k³/4 hosts.
    pub k: usize,
    /// Rate of the host–edge links.
    pub host_rate: Rate,
    /// Rate of the edge–aggregation and aggregation–core links.
    pub fabric_rate: Rate,
    /// One-way propagation delay of every link.
    pub delay: Time,
}

impl Default for FatTreeParams {
    /// k = 8 (128 hosts), 100 Gb/s everywhere, 1 µs links.
    fn default() -> Self {
        Self {
            k: 8,
            host_rate: Rate::from_gbps(100),
            fabric_rate: Rate::from_gbps(100),
            delay: Time::from_us(1),
        }
    }
}

/// A k-ary fat-tree: k pods, each with k/2 edge and k/2 aggregation switches; each edge switch
/// serves k/2 hosts and connects to every aggregation switch of its pod; aggregation switch `j`
/// of every pod connects to cores `j·k/2 … j·k/2 + k/2 − 1`; (k/2)² cores. There are (k/2)²
/// equal-cost shortest paths between hosts in different pods and k/2 between hosts under
/// different edge switches of one pod.
///
/// Nodes: hosts `h0…` (k³/4, pod-major), `edge0…` (tier 1), `agg0…` (tier 2), `core0…` (tier 3).
/// `group` is the pod for hosts, edge and aggregation switches; cores belong to no pod and have
/// group 0 (tell them apart by tier 3). Links: host–edge, then edge–agg (edge-major), then
/// agg–core (agg-major).
pub fn fat_tree(p: &FatTreeParams) -> Result<Topology, String> {
    if p.k < 2 || p.k % 2 != 0 {
        return Err(format!("`k` must be an even number of at least 2, got {}", p.k));
    }
    if p.k > 128 {
        return Err(format!("`k` = {} is too large (at most 128, i.e. 524288 hosts)", p.k));
    }
    need_rate("host_rate", p.host_rate)?;
    need_rate("fabric_rate", p.fabric_rate)?;
    let k = p.k;
    let h = k / 2;
    let mut t = Topology::new();
    let mut hosts = Vec::with_capacity(k * h * h);
    for pod in 0..k {
        for _ in 0..h * h {
            hosts.push(t.add_host(format!("h{}", hosts.len()), pod as u32));
        }
    }
    let edges: Vec<NodeId> =
        (0..k * h).map(|i| t.add_switch(format!("edge{i}"), (i / h) as u32, 1)).collect();
    let aggs: Vec<NodeId> =
        (0..k * h).map(|i| t.add_switch(format!("agg{i}"), (i / h) as u32, 2)).collect();
    let cores: Vec<NodeId> = (0..h * h).map(|i| t.add_switch(format!("core{i}"), 0, 3)).collect();
    for (i, &host) in hosts.iter().enumerate() {
        t.connect(host, edges[i / h], p.host_rate, p.delay);
    }
    for (e, &edge) in edges.iter().enumerate() {
        let pod = e / h;
        for j in 0..h {
            t.connect(edge, aggs[pod * h + j], p.fabric_rate, p.delay);
        }
    }
    for (a, &agg) in aggs.iter().enumerate() {
        let j = a % h;
        for c in 0..h {
            t.connect(agg, cores[j * h + c], p.fabric_rate, p.delay);
        }
    }
    finish("fat-tree", t)
}

/// Parameters of [`clos3`]. The [`Default`] is the Rondo §6.2.1 network, non-oversubscribed.
#[derive(Clone, Debug, PartialEq)]
pub struct Clos3Params {
    /// Number of pods (Rondo: 5).
    pub pods: usize,
    /// ToR switches per pod (Rondo: 4).
    pub tors_per_pod: usize,
    /// Aggregation switches per pod (Rondo: 4); every ToR connects to every aggregation switch of
    /// its pod.
    pub aggs_per_pod: usize,
    /// Core switches of the non-oversubscribed fabric (Rondo: 16); must be a multiple of
    /// `aggs_per_pod`. Aggregation switch `i` of every pod connects to the `cores / aggs_per_pod`
    /// cores of core group `i`.
    pub cores: usize,
    /// Servers under each ToR (Rondo: 16).
    pub hosts_per_tor: usize,
    /// Server–ToR link rate (Rondo: 100 Gb/s).
    pub host_rate: Rate,
    /// ToR–aggregation and aggregation–core link rate (Rondo: 400 Gb/s).
    pub fabric_rate: Rate,
    /// One-way propagation delay of every link (the paper does not state it; default 1 µs).
    pub delay: Time,
    /// Aggregation-to-core oversubscription (1 or 4 in the paper). With `o`, only
    /// `cores / o` cores are present: `cores / aggs_per_pod / o` per core group. Must divide the
    /// core-group size `cores / aggs_per_pod`.
    pub oversubscription: usize,
}

impl Default for Clos3Params {
    /// Rondo §6.2.1: 5 pods × (4 ToR + 4 agg), 16 cores, 16 servers per ToR, 100/400 Gb/s, 1 µs, 1:1.
    fn default() -> Self {
        Self {
            pods: 5,
            tors_per_pod: 4,
            aggs_per_pod: 4,
            cores: 16,
            hosts_per_tor: 16,
            host_rate: Rate::from_gbps(100),
            fabric_rate: Rate::from_gbps(400),
            delay: Time::from_us(1),
            oversubscription: 1,
        }
    }
}

/// The three-tier Clos of Rondo §6.2.1.
///
/// Wiring: each ToR connects to every aggregation switch of its pod; the cores are split into
/// `aggs_per_pod` groups of `g = cores / aggs_per_pod`, and aggregation switch `i` of every pod
/// connects to every core of group `i` (cores `i·g … i·g + g − 1`). With the defaults this gives
/// 4 equal-cost shortest paths between ToRs of one pod (via each aggregation switch) and
/// 4 × 4 = 16 between ToRs of different pods (aggregation switch × core of its group), as the
/// paper states, and a non-oversubscribed fabric (a ToR has 16 × 100 G down and 4 × 400 G up; an
/// aggregation switch 4 × 400 G down and 4 × 400 G up).
///
/// Oversubscription `o` ("only 4 active core switches" for 4:1 in the paper): only the first
/// `g / o` cores of each group are built, so each aggregation switch keeps `g / o` uplinks. For the
/// paper's 4:1 this keeps one core per aggregation group (`core0`, `core4`, `core8`, `core12`):
/// 4 cores, each aggregation switch has 4 × 400 G down and 1 × 400 G up, ToRs of different pods
/// have 4 equal-cost paths, and intra-pod paths are unchanged. Absent cores are not created at
/// all (no isolated switches); the cores that remain keep the name they have in the full fabric.
///
/// Nodes: hosts `h0…` (pod-major, ToR-major), `tor0…` (tier 1, group = pod), `agg0…` (tier 2,
/// group = pod), cores (tier 3, group 0). Links: host–ToR, ToR–agg (ToR-major), agg–core
/// (agg-major).
pub fn clos3(p: &Clos3Params) -> Result<Topology, String> {
    need_positive("pods", p.pods)?;
    need_positive("tors_per_pod", p.tors_per_pod)?;
    need_positive("aggs_per_pod", p.aggs_per_pod)?;
    need_positive("cores", p.cores)?;
    need_positive("hosts_per_tor", p.hosts_per_tor)?;
    need_positive("oversubscription", p.oversubscription)?;
    need_rate("host_rate", p.host_rate)?;
    need_rate("fabric_rate", p.fabric_rate)?;
    if p.cores % p.aggs_per_pod != 0 {
        return Err(format!("`cores` ({}) must be a multiple of `aggs_per_pod` ({}): aggregation switch i connects to core group i", p.cores, p.aggs_per_pod));
    }
    let g = p.cores / p.aggs_per_pod;
    if g % p.oversubscription != 0 {
        return Err(format!("`oversubscription` ({}) must divide the number of cores per aggregation group (cores / aggs_per_pod = {g})", p.oversubscription));
    }
    let active = g / p.oversubscription;
    let n_tors = need_size("`pods` × `tors_per_pod`", &[p.pods, p.tors_per_pod])?;
    let n_aggs = need_size("`pods` × `aggs_per_pod`", &[p.pods, p.aggs_per_pod])?;
    need_size("`pods` × `tors_per_pod` × `hosts_per_tor`", &[n_tors, p.hosts_per_tor])?;
    need_links("`pods` × `tors_per_pod` × `aggs_per_pod`", &[n_tors, p.aggs_per_pod])?;
    need_size("`pods` × `cores`", &[p.pods, p.cores])?;
    let mut t = Topology::new();
    let mut hosts = Vec::with_capacity(n_tors * p.hosts_per_tor);
    for tor in 0..n_tors {
        for _ in 0..p.hosts_per_tor {
            hosts.push(t.add_host(format!("h{}", hosts.len()), (tor / p.tors_per_pod) as u32));
        }
    }
    let tors: Vec<NodeId> = (0..n_tors)
        .map(|i| t.add_switch(format!("tor{i}"), (i / p.tors_per_pod) as u32, 1))
        .collect();
    let aggs: Vec<NodeId> = (0..n_aggs)
        .map(|i| t.add_switch(format!("agg{i}"), (i / p.aggs_per_pod) as u32, 2))
        .collect();
    // cores[group][j] for j < active; named by their index in the full fabric.
    let cores: Vec<Vec<NodeId>> = (0..p.aggs_per_pod)
        .map(|grp| {
            (0..active).map(|j| t.add_switch(format!("core{}", grp * g + j), 0, 3)).collect()
        })
        .collect();
    for (i, &h) in hosts.iter().enumerate() {
        t.connect(h, tors[i / p.hosts_per_tor], p.host_rate, p.delay);
    }
    for (i, &tor) in tors.iter().enumerate() {
        let pod = i / p.tors_per_pod;
        for a in 0..p.aggs_per_pod {
            t.connect(tor, aggs[pod * p.aggs_per_pod + a], p.fabric_rate, p.delay);
        }
    }
    for (i, &agg) in aggs.iter().enumerate() {
        for &c in &cores[i % p.aggs_per_pod] {
            t.connect(agg, c, p.fabric_rate, p.delay);
        }
    }
    finish("clos3", t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::testutil::{count_shortest_paths, degrees, find};
    use crate::topology::NodeKind;

    #[test]
    fn leaf_spine_counts_and_paths() {
        let p = LeafSpineParams { leaves: 3, spines: 5, hosts_per_leaf: 2, ..Default::default() };
        let t = leaf_spine(&p).unwrap();
        assert_eq!(t.hosts().len(), 6);
        assert_eq!(t.nodes.len(), 6 + 3 + 5);
        assert_eq!(t.links.len(), 6 + 15);
        let d = degrees(&t);
        assert_eq!(d[find(&t, "leaf0").idx()], 2 + 5);
        assert_eq!(d[find(&t, "spine4").idx()], 3);
        // h0 and h1 share leaf0; h0 and h2 go over any of the 5 spines.
        assert_eq!(count_shortest_paths(&t, find(&t, "h0"), find(&t, "h1")), (2, 1));
        assert_eq!(count_shortest_paths(&t, find(&t, "h0"), find(&t, "h2")), (4, 5));
        assert!(t.hosts().iter().enumerate().all(|(i, h)| h.idx() == i));
    }

    #[test]
    fn leaf_spine_rejects_bad_parameters() {
        let e = leaf_spine(&LeafSpineParams { spines: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`spines`"), "{e}");
        let e =
            leaf_spine(&LeafSpineParams { hosts_per_leaf: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`hosts_per_leaf`"), "{e}");
        let e = leaf_spine(&LeafSpineParams { fabric_rate: Rate(0), ..Default::default() })
            .unwrap_err();
        assert!(e.contains("`fabric_rate`"), "{e}");
        let e =
            leaf_spine(&LeafSpineParams { leaves: usize::MAX, ..Default::default() }).unwrap_err();
        assert!(e.contains("`leaves`") && e.contains("too large"), "{e}");
        // One leaf with one host: fewer than two hosts fails validation with a clear message.
        let e = leaf_spine(&LeafSpineParams { leaves: 1, hosts_per_leaf: 1, ..Default::default() })
            .unwrap_err();
        assert!(e.contains("at least two"), "{e}");
    }

    fn check_fat_tree(k: usize) {
        let t = fat_tree(&FatTreeParams { k, ..Default::default() }).unwrap();
        let h = k / 2;
        assert_eq!(t.hosts().len(), k * k * k / 4);
        assert_eq!(t.nodes.len(), k * k * k / 4 + k * k + h * h);
        // host links + edge-agg + agg-core
        assert_eq!(t.links.len(), k * k * k / 4 * 3);
        let d = degrees(&t);
        for (i, n) in t.nodes.iter().enumerate() {
            match n.kind {
                NodeKind::Host => assert_eq!(d[i], 1),
                _ => assert_eq!(d[i], k, "switch {} has degree {}", n.name, d[i]),
            }
            let tier_ok = match n.name.as_bytes()[0] {
                b'h' => n.tier == 0,
                b'e' => n.tier == 1,
                b'a' => n.tier == 2,
                _ => n.tier == 3 && n.group == 0,
            };
            assert!(tier_ok, "{} has tier {}", n.name, n.tier);
        }
        let hosts = t.hosts();
        let last = *hosts.last().unwrap();
        assert_eq!(t.nodes[last.idx()].group as usize, k - 1);
        // Inter-pod: (k/2)^2 shortest paths of 6 hops.
        assert_eq!(count_shortest_paths(&t, hosts[0], last), (6, (h * h) as u128));
        if h > 1 {
            // Same pod, different edge switch: k/2 paths of 4 hops.
            assert_eq!(count_shortest_paths(&t, hosts[0], hosts[h]), (4, h as u128));
            // Same edge switch: 1 path of 2 hops.
            assert_eq!(count_shortest_paths(&t, hosts[0], hosts[1]), (2, 1));
        }
    }

    #[test]
    fn fat_tree_sizes_and_paths() {
        check_fat_tree(2);
        check_fat_tree(4);
        check_fat_tree(8);
        check_fat_tree(16);
        assert_eq!(
            fat_tree(&FatTreeParams { k: 8, ..Default::default() }).unwrap().hosts().len(),
            128
        );
        assert_eq!(
            fat_tree(&FatTreeParams { k: 16, ..Default::default() }).unwrap().hosts().len(),
            1024
        );
    }

    #[test]
    fn fat_tree_rejects_bad_parameters() {
        for k in [0, 1, 5, 7] {
            let e = fat_tree(&FatTreeParams { k, ..Default::default() }).unwrap_err();
            assert!(e.contains("`k`"), "{e}");
        }
        let e = fat_tree(&FatTreeParams { host_rate: Rate(0), ..Default::default() }).unwrap_err();
        assert!(e.contains("`host_rate`"), "{e}");
    }

    #[test]
    fn clos3_rondo_one_to_one() {
        let t = clos3(&Clos3Params::default()).unwrap();
        assert_eq!(t.hosts().len(), 320);
        assert_eq!(t.nodes.len(), 320 + 20 + 20 + 16);
        assert_eq!(t.links.len(), 320 + 20 * 4 + 20 * 4);
        let d = degrees(&t);
        for (i, n) in t.nodes.iter().enumerate() {
            let want = match n.tier {
                0 => 1,
                1 => 16 + 4,
                2 => 4 + 4,
                _ => 5, // one aggregation switch per pod
            };
            assert_eq!(d[i], want, "{}", n.name);
        }
        // Capacity is 1:1 at every tier: ToR 16×100 down = 4×400 up; agg 4×400 down = 4×400 up.
        let (tor0, tor1, tor4) = (find(&t, "tor0"), find(&t, "tor1"), find(&t, "tor4"));
        assert_eq!(count_shortest_paths(&t, tor0, tor1), (2, 4));
        assert_eq!(count_shortest_paths(&t, tor0, tor4), (4, 16));
        // Host to host across pods: the ToR-to-ToR count.
        assert_eq!(count_shortest_paths(&t, find(&t, "h0"), find(&t, "h319")), (6, 16));
        assert_eq!(t.nodes[find(&t, "h319").idx()].group, 4);
        assert_eq!(t.nodes[find(&t, "agg7").idx()].group, 1);
        // agg i of every pod reaches exactly the cores of group i.
        let agg5 = find(&t, "agg5"); // pod 1, agg index 1 → cores 4..7
        let mut nbrs: Vec<String> = t
            .links
            .iter()
            .filter(|l| l.a == agg5)
            .map(|l| t.nodes[l.b.idx()].name.clone())
            .collect();
        nbrs.sort();
        assert_eq!(nbrs, ["core4", "core5", "core6", "core7"]);
    }

    #[test]
    fn clos3_rondo_four_to_one() {
        let t = clos3(&Clos3Params { oversubscription: 4, ..Default::default() }).unwrap();
        assert_eq!(t.hosts().len(), 320);
        let cores: Vec<&str> =
            t.nodes.iter().filter(|n| n.tier == 3).map(|n| n.name.as_str()).collect();
        assert_eq!(cores, ["core0", "core4", "core8", "core12"]);
        assert_eq!(t.links.len(), 320 + 80 + 20);
        let (tor0, tor1, tor4) = (find(&t, "tor0"), find(&t, "tor1"), find(&t, "tor4"));
        assert_eq!(count_shortest_paths(&t, tor0, tor1), (2, 4));
        assert_eq!(count_shortest_paths(&t, tor0, tor4), (4, 4));
        let d = degrees(&t);
        assert_eq!(d[find(&t, "agg0").idx()], 4 + 1);
    }

    #[test]
    fn clos3_rejects_bad_parameters() {
        let e = clos3(&Clos3Params { oversubscription: 3, ..Default::default() }).unwrap_err();
        assert!(e.contains("`oversubscription`"), "{e}");
        let e = clos3(&Clos3Params { cores: 10, ..Default::default() }).unwrap_err();
        assert!(e.contains("`cores`"), "{e}");
        let e = clos3(&Clos3Params { pods: usize::MAX / 2, ..Default::default() }).unwrap_err();
        assert!(e.contains("`pods`") && e.contains("too large"), "{e}");
        let e = clos3(&Clos3Params { pods: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`pods`"), "{e}");
        let e = clos3(&Clos3Params { hosts_per_tor: 0, ..Default::default() }).unwrap_err();
        assert!(e.contains("`hosts_per_tor`"), "{e}");
        let e = clos3(&Clos3Params { fabric_rate: Rate(0), ..Default::default() }).unwrap_err();
        assert!(e.contains("`fabric_rate`"), "{e}");
    }
}
