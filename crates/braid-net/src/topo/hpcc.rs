//! Importer for the ns-3 HPCC / LCMP topology file format (scenario kind `hpcc-file`), as
//! the LCMP artifact's topology files use it (LCMP §6.1, §6.2; `docs/lcmp.md`, topologies):
//!
//! ```text
//! # comment lines start with '#' (anywhere in the file; a '#' also ends a line's content)
//! <nodes> <intra-DC switches> <DCI switches> <links>     (LCMP; or the HPCC form
//! <nodes> <switches> <links>                              without DCIs)
//! <switch ids …>                                          (may wrap over several lines)
//! <DCI ids …>                                             (LCMP form only)
//! <src> <dst> <rate> <delay> <error_rate>                 (one line per link, `links` lines)
//! ```
//!
//! Node ids are the file's ids: `NodeId(i)` is file node `i`. Hosts are the ids listed neither as
//! switches nor as DCIs (in HPCC/LCMP they come first, so host index = file id). Names are
//! `h<id>`, `sw<id>` and `dci<id>`.
//!
//! Derived attributes (the file has none):
//! - `tier` = hop distance to the nearest host (leaf 1, spine 2, DCI 3 in the LCMP files; ToR 1,
//!   aggregation 2, core 3 in HPCC's fat-tree files); 0 for hosts and for switches no host reaches.
//! - `group` = datacenter index in inter-DC files: with the DCI–DCI links removed, the part of the
//!   network reachable from the k-th listed DCI (that has not been reached from an earlier one) is
//!   DC k. This gives DC index = position in the DCI line (0-based) for the artifact files, the
//!   same numbering as the `inter-dc` builder. Without DCIs every group is 0.
//!
//! Rates accept the ns-3 spellings `100Gbps`, `100Gb/s`, `12.5GBps`/`12.5GB/s` (bytes); delays
//! `ps`…`s`. A non-zero `error_rate` is rejected: Braid topologies have no per-link random loss.
//! Missing or surplus link lines (relative to the header) are errors, and so is a header with more
//! than [`MAX_NODES`] nodes or [`MAX_LINKS`] links (checked before anything is allocated).

use super::{finish, MAX_LINKS, MAX_NODES};
use crate::topology::{NodeKind, Topology};
use braid_core::units::{parse_duration, parse_rate};
use braid_core::{NodeId, Rate};
use std::collections::VecDeque;

/// Parse an ns-3 `DataRate` string (`100Gbps`, `100Gb/s`, `1GBps`, `1GB/s`).
fn ns3_rate(s: &str) -> Result<Rate, String> {
    for suffix in ["B/s", "Bps"] {
        if let Some(p) = s.strip_suffix(suffix) {
            let r = parse_rate(&format!("{p}bps"))?;
            return Ok(Rate(r.bps().saturating_mul(8)));
        }
    }
    if let Some(p) = s.strip_suffix("b/s") {
        return parse_rate(&format!("{p}bps"));
    }
    parse_rate(s)
}

/// Import a topology in the ns-3 HPCC / LCMP format (see the [module docs](self)). Errors name
/// the file line. The result has passed [`Topology::validate`].
pub fn hpcc_file(text: &str) -> Result<Topology, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Non-comment content of each line, with its 1-based line number.
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());

    let (hl, header) = lines.next().ok_or("the HPCC topology file is empty (no header line)")?;
    let nums: Vec<usize> = header
        .split_whitespace()
        .map(|x| {
            x.parse::<usize>()
                .map_err(|_| format!("line {hl}: header field `{x}` is not a non-negative integer"))
        })
        .collect::<Result<_, _>>()?;
    let (n_nodes, n_sw, n_dci, n_links) = match nums[..] {
        [n, s, l] => (n, s, 0, l),
        [n, s, d, l] => (n, s, d, l),
        _ => {
            return Err(format!(
                "line {hl}: the header must be `<nodes> <switches> <dcis> <links>` or `<nodes> <switches> <links>`, found {} fields",
                nums.len()
            ))
        }
    };
    if n_nodes > MAX_NODES {
        return Err(format!("line {hl}: {n_nodes} nodes is too many (at most {MAX_NODES})"));
    }
    if n_links > MAX_LINKS {
        return Err(format!("line {hl}: {n_links} links is too many (at most {MAX_LINKS})"));
    }
    if n_sw.checked_add(n_dci).is_none_or(|s| s > n_nodes) {
        return Err(format!(
            "line {hl}: {n_sw} switches + {n_dci} DCIs exceed the {n_nodes} nodes"
        ));
    }

    // Switch ids, then DCI ids, as a token stream; the last id must end its line.
    let mut kind: Vec<Option<NodeKind>> = vec![None; n_nodes];
    let mut dci_order = Vec::with_capacity(n_dci);
    let want = n_sw + n_dci;
    let mut got = 0;
    while got < want {
        let (ln, l) = lines.next().ok_or_else(|| {
            let what = if got < n_sw { "switch" } else { "DCI" };
            format!("the file ends after {got} of the {want} switch and DCI ids (expected more {what} ids)")
        })?;
        for tok in l.split_whitespace() {
            let what = if got < n_sw { "switch" } else { "DCI" };
            if got == want {
                return Err(format!(
                    "line {ln}: more switch/DCI ids than the header's {n_sw} + {n_dci} (`{tok}`)"
                ));
            }
            let id: usize = tok
                .parse()
                .map_err(|_| format!("line {ln}: {what} id `{tok}` is not an integer"))?;
            if id >= n_nodes {
                return Err(format!(
                    "line {ln}: {what} id {id} is not below the node count {n_nodes}"
                ));
            }
            if kind[id].is_some() {
                return Err(format!("line {ln}: node {id} is listed twice as a switch or DCI"));
            }
            if got < n_sw {
                kind[id] = Some(NodeKind::Switch);
            } else {
                kind[id] = Some(NodeKind::Dci);
                dci_order.push(id);
            }
            got += 1;
        }
    }

    let mut t = Topology::new();
    for (i, k) in kind.iter().enumerate() {
        match k {
            None => t.add_host(format!("h{i}"), 0),
            Some(NodeKind::Switch) => t.add_switch(format!("sw{i}"), 0, 0),
            Some(k) => t.add_node(*k, format!("dci{i}"), 0, 0),
        };
    }

    for _ in 0..n_links {
        let (ln, l) = lines.next().ok_or_else(|| {
            format!("the file ends after {} of the header's {n_links} links", t.links.len())
        })?;
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 5 {
            return Err(format!("line {ln}: a link line is `<src> <dst> <rate> <delay> <error_rate>` (5 fields), found {}", f.len()));
        }
        let end = |x: &str, what: &str| -> Result<NodeId, String> {
            let id: usize =
                x.parse().map_err(|_| format!("line {ln}: link {what} `{x}` is not a node id"))?;
            if id >= n_nodes {
                return Err(format!(
                    "line {ln}: link {what} {id} is not below the node count {n_nodes}"
                ));
            }
            Ok(NodeId::from_idx(id))
        };
        let (a, b) = (end(f[0], "src")?, end(f[1], "dst")?);
        if a == b {
            return Err(format!("line {ln}: link connects node {a} to itself"));
        }
        let rate = ns3_rate(f[2]).map_err(|e| format!("line {ln}: link rate: {e}"))?;
        if rate.bps() == 0 {
            return Err(format!("line {ln}: link rate must be positive, got `{}`", f[2]));
        }
        let delay = parse_duration(f[3]).map_err(|e| format!("line {ln}: link delay: {e}"))?;
        let err: f64 = f[4]
            .parse()
            .map_err(|_| format!("line {ln}: error_rate `{}` is not a number", f[4]))?;
        if err != 0.0 {
            return Err(format!("line {ln}: error_rate {} is not supported (Braid topologies have no per-link random loss; use 0)", f[4]));
        }
        t.connect(a, b, rate, delay);
    }
    if let Some((ln, l)) = lines.next() {
        return Err(format!("line {ln}: content after the header's {n_links} links (`{l}`); is the link count in the header right?"));
    }

    derive_tiers_and_groups(&mut t, &dci_order);
    finish("hpcc-file", t)
}

/// Set `tier` (hop distance to the nearest host) and `group` (DC index, see the module docs).
fn derive_tiers_and_groups(t: &mut Topology, dci_order: &[usize]) {
    let n = t.nodes.len();
    let mut adj = vec![Vec::new(); n];
    for l in &t.links {
        adj[l.a.idx()].push(l.b.idx());
        adj[l.b.idx()].push(l.a.idx());
    }
    let mut dist = vec![usize::MAX; n];
    let mut q: VecDeque<usize> = VecDeque::new();
    for (i, node) in t.nodes.iter().enumerate() {
        if node.kind == NodeKind::Host {
            dist[i] = 0;
            q.push_back(i);
        }
    }
    while let Some(u) = q.pop_front() {
        for &v in &adj[u] {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                q.push_back(v);
            }
        }
    }
    for (i, node) in t.nodes.iter_mut().enumerate() {
        node.tier = if dist[i] == usize::MAX { 0 } else { dist[i].min(255) as u8 };
    }

    let is_dci: Vec<bool> = t.nodes.iter().map(|x| x.kind == NodeKind::Dci).collect();
    let mut group = vec![u32::MAX; n];
    let mut next = 0u32;
    for &d in dci_order {
        if group[d] != u32::MAX {
            continue;
        }
        group[d] = next;
        q.push_back(d);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if group[v] == u32::MAX && !(is_dci[u] && is_dci[v]) {
                    group[v] = next;
                    q.push_back(v);
                }
            }
        }
        next += 1;
    }
    for (i, node) in t.nodes.iter_mut().enumerate() {
        node.group = if group[i] == u32::MAX { 0 } else { group[i] };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_core::Time;

    const SMALL: &str = "\
# two hosts, two ToRs, one spine (HPCC 3-field form)
5 3 4
2 3
4 # spine
0 2 100Gbps 1us 0
1 3 100Gb/s 1000ns 0
# comment between links
2 4 400Gbps 2us 0
3 4 50GBps 2us 0.0
";

    #[test]
    fn three_field_form() {
        let t = hpcc_file(SMALL).unwrap();
        assert_eq!(t.nodes.len(), 5);
        assert_eq!(t.hosts(), vec![NodeId(0), NodeId(1)]);
        assert_eq!(t.nodes[2].name, "sw2");
        assert_eq!(t.nodes[2].tier, 1);
        assert_eq!(t.nodes[4].tier, 2);
        assert!(t.nodes.iter().all(|n| n.group == 0));
        assert_eq!(t.links[1].rate, Rate::from_gbps(100));
        assert_eq!(t.links[1].delay, Time::from_us(1));
        assert_eq!(t.links[3].rate, Rate::from_gbps(400));
    }

    #[test]
    fn four_field_form_with_groups() {
        let text = "6 2 2 5\n2 3\n4 5\n0 2 100Gbps 1us 0\n2 4 100Gbps 1us 0\n1 3 100Gbps 1us 0\n3 5 100Gbps 1us 0\n5 4 10Gbps 5ms 0\n";
        let t = hpcc_file(text).unwrap();
        assert_eq!(t.nodes[4].kind, NodeKind::Dci);
        assert_eq!(t.nodes[4].name, "dci4");
        let groups: Vec<u32> = t.nodes.iter().map(|n| n.group).collect();
        assert_eq!(groups, [0, 1, 0, 1, 0, 1]);
        let tiers: Vec<u8> = t.nodes.iter().map(|n| n.tier).collect();
        assert_eq!(tiers, [0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn rejects_bad_files() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("# only comments\n", "empty"),
            ("3 1\n", "found 2 fields"),
            ("3 x 1\n", "`x`"),
            ("3 4 1\n", "exceed"),
            ("3 1 1\n", "ends after 0 of the 1"),
            ("3 1 1\n7\n", "line 2: switch id 7"),
            ("3 1 1\n2 2\n", "more switch/DCI ids"),
            ("3 1 1\n2\n0 2 100Gbps 1us\n", "line 3: a link line"),
            ("3 1 1\n2\n0 9 100Gbps 1us 0\n", "line 3: link dst 9"),
            ("3 1 1\n2\n0 0 100Gbps 1us 0\n", "itself"),
            ("3 1 1\n2\n0 2 100Gbit 1us 0\n", "line 3: link rate"),
            ("3 1 1\n2\n0 2 0Gbps 1us 0\n", "positive"),
            ("3 1 1\n2\n0 2 100Gbps 1 0\n", "line 3: link delay"),
            ("3 1 1\n2\n0 2 100Gbps 1us 0.01\n", "error_rate 0.01"),
            ("3 1 1\n2\n0 2 100Gbps 1us 0\n", "disconnected"),
            ("3 1 2\n2\n0 2 100Gbps 1us 0\n", "ends after 1 of the header's 2 links"),
            ("3 1 1\n2\n0 2 100Gbps 1us 0\n1 2 100Gbps 1us 0\n", "line 4: content after"),
            ("4 1 1 2\n2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "listed twice"),
        ];
        for (text, want) in cases {
            let e = hpcc_file(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: got `{e}`, wanted `{want}`");
        }
    }
}
