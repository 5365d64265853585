//! Tests against the LCMP artifact's topology files (the 8-DC testbed of LCMP §6.1 and the
//! 13-DC BSONetwork of §6.2; see `docs/lcmp.md`, topologies) and the converted
//! copies shipped in `data/topologies/`.
//!
//! The artifact files are read at run time from a copy of the artifact's data placed beside the
//! repository (`<repo>/../shared/data/lcmp/…`); tests that need them print a note and pass when it
//! is absent. The shipped copies are regenerated with
//! `BRAID_REGEN_DATA=1 cargo test -p braid-net regenerate_shipped_topologies`.

use super::testutil::{count_shortest_paths, find, repo_data_dir, shared_data};
use super::*;
use crate::topology::NodeKind;
use braid_core::{NodeId, Rate, Time};

const REPO_8DC: &str = "lcmp/8DC-hetero/topology_LeafSpine_MultiDC8.txt";
const POSCOR_8DC: &str = "lcmp/8DC-hetero/topology_LeafSpine_MultiDC8-posCor-inferred.txt";
const REPO_13DC: &str = "lcmp/13DC-hetero/topology_LeafSpine_MultiDC13.txt";

/// (artifact file, shipped name, header comment) of the three converted topologies.
const SHIPPED: [(&str, &str, &str); 3] = [
    (
        REPO_8DC,
        "lcmp-8dc.topo",
        "LCMP artifact 8-DC network, repo file topology_LeafSpine_MultiDC8.txt (LCMP §6.1; docs/lcmp.md):\n\
         DC1 and DC8 connect to DC2..DC7 at 200G/25ms, 200G/250ms, 100G/10ms, 100G/100ms, 25G/5ms, 25G/50ms.",
    ),
    (
        POSCOR_8DC,
        "lcmp-8dc-poscor.topo",
        "LCMP 8-DC \"posCor\" network, inferred from the published Fig 5 outputs\n\
         (topology_LeafSpine_MultiDC8-posCor-inferred.txt; docs/lcmp.md):\n\
         DC1 and DC8 connect to DC2..DC7 at 200G/25ms, 200G/100ms, 100G/10ms, 100G/40ms, 40G/5ms, 40G/20ms.",
    ),
    (REPO_13DC, "lcmp-13dc.topo", "LCMP artifact 13-DC BSONetwork network, topology_LeafSpine_MultiDC13.txt (LCMP §6.2, Fig 4b)."),
];

const COMMON_NOTE: &str = "Converted by braid-net topo::hpcc_file + topo::to_braid_text. Node i = artifact node id i.\n\
     group = DC index (artifact DC1 = group 0); tier 1 leaf, 2 spine, 3 DCI.\n\
     Per DC: 16 hosts, 4 leaves, 2 spines, 1 DCI; host-leaf 100G/1us, leaf-spine 100G/1us, spine-DCI 400G/1us.";

/// The inter-DC links of the 8-DC networks: DC1 (0) and DC8 (7) each connect to DC2..DC7.
fn graph_8dc(via: [(u64, u64); 6]) -> Vec<DcLink> {
    let mut g = Vec::new();
    for (i, (gbps, ms)) in via.iter().enumerate() {
        g.push(DcLink { a: 0, b: i + 1, rate: Rate::from_gbps(*gbps), delay: Time::from_ms(*ms) });
    }
    for (i, (gbps, ms)) in via.iter().enumerate() {
        g.push(DcLink { a: i + 1, b: 7, rate: Rate::from_gbps(*gbps), delay: Time::from_ms(*ms) });
    }
    g
}

const VIA_REPO: [(u64, u64); 6] = [(200, 25), (200, 250), (100, 10), (100, 100), (25, 5), (25, 50)];
const VIA_POSCOR: [(u64, u64); 6] =
    [(200, 25), (200, 100), (100, 10), (100, 40), (40, 5), (40, 20)];

/// The 20 inter-DC links of the 13-DC BSONetwork (LCMP §6.2, Fig 4b; `docs/lcmp.md`, topologies),
/// DC numbers 1-based.
const TABLE_13DC: [(usize, usize, u64, u64); 20] = [
    (1, 3, 200, 1),
    (2, 3, 40, 1),
    (2, 6, 40, 1),
    (2, 8, 40, 1),
    (3, 4, 40, 1),
    (3, 5, 200, 5),
    (3, 6, 100, 1),
    (3, 7, 200, 10),
    (4, 5, 40, 1),
    (4, 7, 40, 1),
    (5, 7, 100, 5),
    (5, 11, 200, 5),
    (6, 9, 100, 5),
    (6, 10, 100, 1),
    (7, 11, 200, 10),
    (8, 12, 40, 1),
    (9, 12, 100, 5),
    (10, 12, 100, 1),
    (11, 12, 200, 5),
    (12, 13, 200, 1),
];

fn graph_13dc() -> Vec<DcLink> {
    TABLE_13DC
        .iter()
        .map(|&(a, b, g, ms)| DcLink {
            a: a - 1,
            b: b - 1,
            rate: Rate::from_gbps(g),
            delay: Time::from_ms(ms),
        })
        .collect()
}

/// Everything but the names must match.
fn assert_same_but_names(a: &Topology, b: &Topology) {
    assert_eq!(a.nodes.len(), b.nodes.len());
    for (i, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        assert_eq!(
            (x.kind, x.group, x.tier, x.buffer_bytes),
            (y.kind, y.group, y.tier, y.buffer_bytes),
            "node {i}"
        );
    }
    assert_eq!(a.links, b.links);
}

fn check_lcmp(t: &Topology, dcs: usize, n_nodes: usize, n_links: usize) {
    assert_eq!(t.nodes.len(), n_nodes);
    assert_eq!(t.links.len(), n_links);
    assert_eq!(t.hosts().len(), dcs * 16);
    assert_eq!(t.nodes.iter().filter(|n| n.kind == NodeKind::Switch).count(), dcs * 6);
    assert_eq!(t.nodes.iter().filter(|n| n.kind == NodeKind::Dci).count(), dcs);
    for (i, h) in t.hosts().iter().enumerate() {
        assert_eq!(h.idx(), i);
        assert_eq!(t.nodes[i].group as usize, i / 16);
    }
    let first_dci = n_nodes - dcs;
    for k in 0..dcs {
        let d = &t.nodes[first_dci + k];
        assert_eq!((d.kind, d.group as usize, d.tier), (NodeKind::Dci, k, 3));
        let leaf = &t.nodes[dcs * 16 + 4 * k];
        assert_eq!((leaf.kind, leaf.group as usize, leaf.tier), (NodeKind::Switch, k, 1));
        let spine = &t.nodes[dcs * 20 + 2 * k + 1];
        assert_eq!((spine.kind, spine.group as usize, spine.tier), (NodeKind::Switch, k, 2));
    }
}

#[test]
fn lcmp_8dc_repo_file() {
    let Some(text) = shared_data(REPO_8DC) else { return };
    let t = hpcc_file(&text).unwrap();
    check_lcmp(&t, 8, 184, 220);
    assert_eq!(t.nodes[176].name, "dci176");
    assert_eq!(t.nodes[128].name, "sw128");
    // The DC6 transit link: 25 G / 5 ms on both sides.
    for l in t.links.iter().filter(|l| l.a == NodeId(181) || l.b == NodeId(181)) {
        if t.nodes[l.a.idx()].kind == NodeKind::Dci && t.nodes[l.b.idx()].kind == NodeKind::Dci {
            assert_eq!((l.rate, l.delay), (Rate::from_gbps(25), Time::from_ms(5)));
        }
    }
    // DC1 host to DC8 host: 6 two-DCI-hop transits × 2 spines × 2 spines.
    assert_eq!(count_shortest_paths(&t, NodeId(0), NodeId(127)), (8, 24));
    // The builder reproduces the file exactly (node order, link order, values).
    let b = inter_dc(&InterDcParams { dcs: 8, graph: graph_8dc(VIA_REPO), ..Default::default() })
        .unwrap();
    assert_same_but_names(&t, &b);
}

#[test]
fn lcmp_8dc_poscor_file() {
    let Some(text) = shared_data(POSCOR_8DC) else { return };
    let t = hpcc_file(&text).unwrap();
    check_lcmp(&t, 8, 184, 220);
    let b = inter_dc(&InterDcParams { dcs: 8, graph: graph_8dc(VIA_POSCOR), ..Default::default() })
        .unwrap();
    assert_same_but_names(&t, &b);
}

#[test]
fn lcmp_13dc_file() {
    let Some(text) = shared_data(REPO_13DC) else { return };
    let t = hpcc_file(&text).unwrap();
    check_lcmp(&t, 13, 299, 358);
    assert_eq!(t.nodes[298].name, "dci298");
    let b =
        inter_dc(&InterDcParams { dcs: 13, graph: graph_13dc(), ..Default::default() }).unwrap();
    assert_same_but_names(&t, &b);
    // DC1 → DC13: 5 equal-hop DCI paths (§4.3), × 2 spines at each end.
    assert_eq!(count_shortest_paths(&t, NodeId(0), NodeId(207)), (6 + 5, 5 * 4));
}

/// Writes `data/topologies/*.topo` from the artifact files when `BRAID_REGEN_DATA=1`; otherwise
/// does nothing.
#[test]
fn regenerate_shipped_topologies() {
    if std::env::var("BRAID_REGEN_DATA").as_deref() != Ok("1") {
        return;
    }
    let dir = repo_data_dir().join("topologies");
    std::fs::create_dir_all(&dir).unwrap();
    for (src, name, note) in SHIPPED {
        let text = shared_data(src).expect("BRAID_REGEN_DATA=1 needs the shared artifact files");
        let t = hpcc_file(&text).unwrap();
        let out = to_braid_text(&t, &format!("{note}\n{COMMON_NOTE}")).unwrap();
        std::fs::write(dir.join(name), out).unwrap();
        eprintln!("wrote {}", dir.join(name).display());
    }
}

#[test]
fn shipped_topologies_parse() {
    let dir = repo_data_dir().join("topologies");
    for (src, name, _) in SHIPPED {
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let t = braid_file(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        match name {
            "lcmp-13dc.topo" => {
                check_lcmp(&t, 13, 299, 358);
                assert_eq!(find(&t, "dci298"), NodeId(298));
                let b =
                    inter_dc(&InterDcParams { dcs: 13, graph: graph_13dc(), ..Default::default() })
                        .unwrap();
                assert_same_but_names(&t, &b);
            }
            "lcmp-8dc.topo" => {
                check_lcmp(&t, 8, 184, 220);
                assert_eq!(find(&t, "dci176"), NodeId(176));
                let b = inter_dc(&InterDcParams {
                    dcs: 8,
                    graph: graph_8dc(VIA_REPO),
                    ..Default::default()
                })
                .unwrap();
                assert_same_but_names(&t, &b);
            }
            _ => {
                check_lcmp(&t, 8, 184, 220);
                let b = inter_dc(&InterDcParams {
                    dcs: 8,
                    graph: graph_8dc(VIA_POSCOR),
                    ..Default::default()
                })
                .unwrap();
                assert_same_but_names(&t, &b);
            }
        }
        // Identical to a fresh conversion, names included, when the artifact file is available.
        if let Some(orig) = shared_data(src) {
            assert_eq!(t, hpcc_file(&orig).unwrap(), "{name} is stale; regenerate it");
        }
    }
}
