//! Test helpers for the topology builders: equal-cost shortest-path counting, degrees, lookup by
//! name, and the location of the shared data folder.

use crate::topology::{NodeKind, Topology};
use braid_core::NodeId;
use std::collections::VecDeque;
use std::path::PathBuf;

/// Hop count of the shortest paths from `a` to `b` and how many there are (parallel links count
/// as distinct paths). Hosts other than `a` are never transit nodes. Panics if `b` is unreachable.
pub fn count_shortest_paths(t: &Topology, a: NodeId, b: NodeId) -> (usize, u128) {
    let n = t.nodes.len();
    let mut adj = vec![Vec::new(); n];
    for l in &t.links {
        adj[l.a.idx()].push(l.b.idx());
        adj[l.b.idx()].push(l.a.idx());
    }
    let mut dist = vec![usize::MAX; n];
    let mut cnt = vec![0u128; n];
    let mut q = VecDeque::new();
    dist[a.idx()] = 0;
    cnt[a.idx()] = 1;
    q.push_back(a.idx());
    while let Some(u) = q.pop_front() {
        if u != a.idx() && t.nodes[u].kind == NodeKind::Host {
            continue;
        }
        for &v in &adj[u] {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                q.push_back(v);
            }
            if dist[v] == dist[u] + 1 {
                cnt[v] += cnt[u];
            }
        }
    }
    assert!(
        dist[b.idx()] != usize::MAX,
        "{} unreachable from {}",
        t.nodes[b.idx()].name,
        t.nodes[a.idx()].name
    );
    (dist[b.idx()], cnt[b.idx()])
}

/// Number of link ends at each node.
pub fn degrees(t: &Topology) -> Vec<usize> {
    let mut d = vec![0; t.nodes.len()];
    for l in &t.links {
        d[l.a.idx()] += 1;
        d[l.b.idx()] += 1;
    }
    d
}

/// The node called `name` (panics if absent).
pub fn find(t: &Topology, name: &str) -> NodeId {
    let i =
        t.nodes.iter().position(|n| n.name == name).unwrap_or_else(|| panic!("no node `{name}`"));
    NodeId::from_idx(i)
}

/// The neighbours of `x` in link (port-creation) order.
pub fn neighbours(t: &Topology, x: NodeId) -> Vec<NodeId> {
    t.links
        .iter()
        .filter_map(|l| {
            if l.a == x {
                Some(l.b)
            } else if l.b == x {
                Some(l.a)
            } else {
                None
            }
        })
        .collect()
}

/// A file of the LCMP artifact's data, read from a copy placed beside the repository
/// (`<repo>/../shared/data`). A missing file fails the test that asked for it, unless
/// `BRAID_SKIP_SHARED_DATA=1` says to skip such tests (then `None`, with a note).
pub fn shared_data(rel: &str) -> Option<String> {
    let p: PathBuf =
        [env!("CARGO_MANIFEST_DIR"), "..", "..", "..", "shared", "data", rel].iter().collect();
    match std::fs::read_to_string(&p) {
        Ok(s) => Some(s),
        Err(e) if std::env::var("BRAID_SKIP_SHARED_DATA").as_deref() == Ok("1") => {
            eprintln!("note: skipping (BRAID_SKIP_SHARED_DATA=1), cannot read {}: {e}", p.display());
            None
        }
        Err(e) => panic!(
            "shared data missing: cannot read {}: {e}; put the LCMP artifact's data in <repo>/../shared/data, or set BRAID_SKIP_SHARED_DATA=1 to skip the tests that need it",
            p.display()
        ),
    }
}

/// The project's shipped data folder (`<repo>/data`).
pub fn repo_data_dir() -> PathBuf {
    [env!("CARGO_MANIFEST_DIR"), "..", "..", "data"].iter().collect()
}
