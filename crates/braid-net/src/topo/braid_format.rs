//! Braid's own topology file format (scenario kind `file`), a reader and a writer.
//!
//! Plain text, one statement per line; `#` starts a comment that runs to the end of the line;
//! blank lines are ignored. The first statement must be the format header `braid-topology v1`.
//! Then, in any order (a link may only name nodes declared above it):
//!
//! ```text
//! node <name> <kind> [group=<u32>] [tier=<u8>] [buffer=<size>]
//! link <name-a> <name-b> <rate> <delay>
//! ```
//!
//! - `<name>`: unique, any characters except whitespace and `#`.
//! - `<kind>`: `host`, `switch` or `dci` (a datacenter-interconnect switch).
//! - `group` (default 0): pod in a Clos, datacenter in an inter-DC network.
//!   `tier` (default 0): 0 host, 1 ToR/leaf, 2 aggregation/spine, 3 core/DCI.
//!   `buffer` (default: the scenario's switch buffer): a size with units (`32MiB`, `1.5MB`).
//! - `<rate>`: with units, `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps` (`100Gbps`, `2.5Gbps`);
//!   `<delay>`: one-way propagation delay with units, `ps`, `ns`, `us`, `ms`, `s` (`1us`, `10ms`).
//!   A link is bidirectional; both directions have this rate and delay.
//!
//! Node ids are assigned in declaration order (the i-th `node` line is `NodeId(i)`); host index
//! `i` in workloads is the i-th host in that order. Links are created in file order, which fixes
//! each switch's port order. Unknown statements, unknown `key=` options, duplicate names, links to
//! undeclared nodes, zero rates, rates above [`MAX_LINK_RATE`](super::MAX_LINK_RATE), delays
//! above [`MAX_LINK_DELAY`](super::MAX_LINK_DELAY), disconnected hosts and more than [`MAX_NODES`] nodes or
//! [`MAX_LINKS`] links are errors that name the line.
//!
//! Example (Rondo's testbed, §6.1, with one path):
//!
//! ```text
//! # sender -> ingress -> path0 -> egress -> receiver
//! braid-topology v1
//! node sender   host
//! node receiver host
//! node ingress  switch tier=1 buffer=22MiB
//! node egress   switch tier=1
//! node path0    switch tier=2
//! link sender  ingress 100Gbps 2500ns
//! link receiver egress 100Gbps 2500ns
//! link ingress path0   25Gbps  2500ns
//! link path0   egress  25Gbps  2500ns
//! ```
//!
//! [`to_braid_text`] writes every quantity exactly (in the largest unit that divides it), so
//! writing and reading back gives an identical [`Topology`].

use super::inter_dc::valid_name;
use super::{need_link_ranges, MAX_LINKS, MAX_NODES};
use crate::topology::{NodeKind, NodeSpec, Topology};
use braid_core::units::{parse_duration, parse_rate, parse_size};
use braid_core::{NodeId, Rate, Time};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The header statement that starts every Braid topology file.
pub const HEADER: &str = "braid-topology v1";

/// Read a topology in Braid's format (see the [module docs](self)). The result has passed
/// [`Topology::validate`].
pub fn braid_file(text: &str) -> Result<Topology, String> {
    let mut t = Topology::new();
    let mut by_name: HashMap<String, NodeId> = HashMap::new();
    let mut seen_header = false;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (ln, raw) in text.lines().enumerate() {
        let ln = ln + 1;
        let line = raw.split('#').next().unwrap_or("");
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.is_empty() {
            continue;
        }
        if !seen_header {
            if toks.join(" ") != HEADER {
                return Err(format!(
                    "line {ln}: a Braid topology file must start with `{HEADER}`, found `{}`",
                    line.trim()
                ));
            }
            seen_header = true;
            continue;
        }
        match toks[0] {
            "node" => {
                if toks.len() < 3 {
                    return Err(format!("line {ln}: `node` needs a name and a kind: `node <name> <kind> [key=value …]`"));
                }
                let name = toks[1];
                let kind = match toks[2] {
                    "host" => NodeKind::Host,
                    "switch" => NodeKind::Switch,
                    "dci" => NodeKind::Dci,
                    k => {
                        return Err(format!(
                        "line {ln}: unknown node kind `{k}` for `{name}` (use host, switch or dci)"
                    ))
                    }
                };
                let mut spec = NodeSpec {
                    kind,
                    name: name.to_string(),
                    group: 0,
                    tier: 0,
                    buffer_bytes: None,
                };
                let mut used: Vec<&str> = Vec::new();
                for opt in &toks[3..] {
                    let Some((k, v)) = opt.split_once('=') else {
                        return Err(format!("line {ln}: expected `key=value` after the kind of `{name}`, found `{opt}`"));
                    };
                    if used.contains(&k) {
                        return Err(format!("line {ln}: `{k}` is given twice for `{name}`"));
                    }
                    used.push(k);
                    match k {
                        "group" => spec.group = v.parse().map_err(|_| format!("line {ln}: `group` of `{name}` must be a non-negative integer, got `{v}`"))?,
                        "tier" => spec.tier = v.parse().map_err(|_| format!("line {ln}: `tier` of `{name}` must be an integer 0–255, got `{v}`"))?,
                        "buffer" => spec.buffer_bytes = Some(parse_size(v).map_err(|e| format!("line {ln}: `buffer` of `{name}`: {e}"))?),
                        _ => return Err(format!("line {ln}: unknown node option `{k}` for `{name}` (use group, tier, buffer)")),
                    }
                }
                if t.nodes.len() >= MAX_NODES {
                    return Err(format!("line {ln}: more than {MAX_NODES} nodes"));
                }
                if by_name.contains_key(name) {
                    return Err(format!("line {ln}: node name `{name}` is declared twice"));
                }
                by_name.insert(name.to_string(), NodeId::from_idx(t.nodes.len()));
                t.nodes.push(spec);
            }
            "link" => {
                if toks.len() != 5 {
                    return Err(format!("line {ln}: `link` takes exactly four fields `link <a> <b> <rate> <delay>`, found {}", toks.len() - 1));
                }
                if t.links.len() >= MAX_LINKS {
                    return Err(format!("line {ln}: more than {MAX_LINKS} links"));
                }
                let end = |n: &str| {
                    by_name.get(n).copied().ok_or_else(|| {
                        format!("line {ln}: link names node `{n}`, which is not declared above")
                    })
                };
                let (a, b) = (end(toks[1])?, end(toks[2])?);
                if a == b {
                    return Err(format!("line {ln}: link connects `{}` to itself", toks[1]));
                }
                let rate = parse_rate(toks[3]).map_err(|e| format!("line {ln}: link rate: {e}"))?;
                if rate.bps() == 0 {
                    return Err(format!(
                        "line {ln}: link rate must be positive, got `{}`",
                        toks[3]
                    ));
                }
                let delay =
                    parse_duration(toks[4]).map_err(|e| format!("line {ln}: link delay: {e}"))?;
                t.connect(a, b, rate, delay);
            }
            s => return Err(format!("line {ln}: unknown statement `{s}` (use `node` or `link`)")),
        }
    }
    if !seen_header {
        return Err(format!("the topology file is empty; it must start with `{HEADER}`"));
    }
    t.validate()?;
    need_link_ranges(&t)?;
    Ok(t)
}

/// Write a topology in Braid's format. `comment` (possibly several lines, possibly empty) is
/// written first as `#` comment lines. Fails if a node name is empty, contains whitespace or `#`,
/// or is used twice, or if a link names a node that does not exist.
pub fn to_braid_text(t: &Topology, comment: &str) -> Result<String, String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, n) in t.nodes.iter().enumerate() {
        if !valid_name(&n.name) {
            return Err(format!(
                "node {i} has name {:?}, which cannot be written (empty, whitespace or `#`)",
                n.name
            ));
        }
        if let Some(j) = seen.insert(&n.name, i) {
            return Err(format!("nodes {j} and {i} are both called `{}`", n.name));
        }
    }
    let mut s = String::new();
    for line in comment.lines() {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(s, "{HEADER}");
    let _ = writeln!(s, "# node <name> <kind> [group=] [tier=] [buffer=]");
    for n in &t.nodes {
        let kind = match n.kind {
            NodeKind::Host => "host",
            NodeKind::Switch => "switch",
            NodeKind::Dci => "dci",
        };
        let _ = write!(s, "node {} {kind} group={} tier={}", n.name, n.group, n.tier);
        if let Some(b) = n.buffer_bytes {
            let _ = write!(s, " buffer={}", fmt_size(b));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "# link <a> <b> <rate> <one-way delay>");
    for (i, l) in t.links.iter().enumerate() {
        let name = |x: NodeId| {
            t.nodes
                .get(x.idx())
                .map(|n| n.name.as_str())
                .ok_or_else(|| format!("link {i} names node {x}, which does not exist"))
        };
        let _ = writeln!(
            s,
            "link {} {} {} {}",
            name(l.a)?,
            name(l.b)?,
            fmt_rate(l.rate),
            fmt_time(l.delay)
        );
    }
    Ok(s)
}

/// A rate in the largest unit that divides it exactly (`100Gbps`, `2500Mbps`, `7bps`).
pub fn fmt_rate(r: Rate) -> String {
    let v = r.bps();
    for (scale, unit) in [
        (1_000_000_000_000u64, "Tbps"),
        (1_000_000_000, "Gbps"),
        (1_000_000, "Mbps"),
        (1_000, "Kbps"),
    ] {
        if v != 0 && v % scale == 0 {
            return format!("{}{unit}", v / scale);
        }
    }
    format!("{v}bps")
}

/// A duration in the largest unit that divides it exactly (`10ms`, `2500ns`, `0ps`).
pub fn fmt_time(t: Time) -> String {
    let v = t.ps();
    for (scale, unit) in
        [(1_000_000_000_000u64, "s"), (1_000_000_000, "ms"), (1_000_000, "us"), (1_000, "ns")]
    {
        if v != 0 && v % scale == 0 {
            return format!("{}{unit}", v / scale);
        }
    }
    format!("{v}ps")
}

/// A size in bytes in the largest binary or decimal unit that divides it exactly.
pub fn fmt_size(b: u64) -> String {
    for (scale, unit) in [
        (1u64 << 30, "GiB"),
        (1_000_000_000, "GB"),
        (1 << 20, "MiB"),
        (1_000_000, "MB"),
        (1 << 10, "KiB"),
        (1_000, "KB"),
    ] {
        if b != 0 && b % scale == 0 {
            return format!("{}{unit}", b / scale);
        }
    }
    format!("{b}B")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::*;

    const EXAMPLE: &str = "\
# sender -> ingress -> path0 -> egress -> receiver
braid-topology v1
node sender   host
node receiver host
node ingress  switch tier=1 buffer=22MiB
node egress   switch tier=1
node path0    switch tier=2   # the only path
link sender  ingress 100Gbps 2500ns
link receiver egress 100Gbps 2500ns
link ingress path0   25Gbps  2500ns
link path0   egress  25Gbps  2500ns
";

    #[test]
    fn reads_the_documented_example() {
        let t = braid_file(EXAMPLE).unwrap();
        assert_eq!(t.nodes.len(), 5);
        assert_eq!(t.links.len(), 4);
        assert_eq!(t.nodes[2].buffer_bytes, Some(22 << 20));
        assert_eq!(t.nodes[4].tier, 2);
        assert_eq!(t.links[2].rate, Rate::from_gbps(25));
        assert_eq!(t.links[2].delay, Time::from_ns(2500));
        // Same as the builder with one path.
        let b =
            testbed(&TestbedParams { path_rates: vec![Rate::from_gbps(25)], ..Default::default() })
                .unwrap();
        assert_eq!(b.links, t.links);
    }

    #[test]
    fn round_trips_every_builder() {
        let mut tops = vec![
            leaf_spine(&LeafSpineParams::default()).unwrap(),
            fat_tree(&FatTreeParams { k: 4, ..Default::default() }).unwrap(),
            clos3(&Clos3Params { oversubscription: 4, ..Default::default() }).unwrap(),
            four_path(&FourPathParams {
                extra_delay: Time::from_ps(1234567),
                ..Default::default()
            })
            .unwrap(),
            testbed(&TestbedParams { base_rtt: Time::from_ps(20_000_006), ..Default::default() })
                .unwrap(),
            inter_dc(&InterDcParams {
                dcs: 2,
                graph: vec![DcLink {
                    a: 0,
                    b: 1,
                    rate: Rate(2_500_000_001),
                    delay: Time::from_ms(250),
                }],
                ..Default::default()
            })
            .unwrap(),
        ];
        tops[0].nodes[17].buffer_bytes = Some(32 << 20);
        tops[0].nodes[18].buffer_bytes = Some(1_500_000);
        tops[0].nodes[19].buffer_bytes = Some(12345);
        for t in &tops {
            let text = to_braid_text(t, "generated by a test\nsecond line").unwrap();
            assert!(text.starts_with("# generated by a test\n# second line\nbraid-topology v1\n"));
            let back = braid_file(&text).unwrap();
            assert_eq!(&back, t);
            // Writing is deterministic.
            assert_eq!(to_braid_text(&back, "generated by a test\nsecond line").unwrap(), text);
        }
    }

    #[test]
    fn formats_quantities_exactly() {
        assert_eq!(fmt_rate(Rate::from_gbps(100)), "100Gbps");
        assert_eq!(fmt_rate(Rate(2_500_000_000)), "2500Mbps");
        assert_eq!(fmt_rate(Rate(7)), "7bps");
        assert_eq!(fmt_time(Time::from_ms(250)), "250ms");
        assert_eq!(fmt_time(Time::from_ns(2500)), "2500ns");
        assert_eq!(fmt_time(Time::ZERO), "0ps");
        assert_eq!(fmt_size(32 << 20), "32MiB");
        assert_eq!(fmt_size(0), "0B");
    }

    #[test]
    fn rejects_bad_files_naming_the_line() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("node a host\n", "must start with"),
            ("braid-topology v2\n", "must start with"),
            ("braid-topology v1\nnode a router\n", "line 2: unknown node kind `router`"),
            ("braid-topology v1\nnode a\n", "line 2"),
            ("braid-topology v1\nnode a host colour=red\n", "unknown node option `colour`"),
            ("braid-topology v1\nnode a host group=-1\n", "`group`"),
            ("braid-topology v1\nnode a host tier=300\n", "`tier`"),
            ("braid-topology v1\nnode a host tier=1 tier=2\n", "twice"),
            ("braid-topology v1\nnode a switch buffer=12XB\n", "`buffer`"),
            (
                "braid-topology v1\nnode a host\nnode a host\n",
                "line 3: node name `a` is declared twice",
            ),
            ("braid-topology v1\nnode a host\nlink a b 1Gbps 1us\n", "line 3: link names node `b`"),
            ("braid-topology v1\nnode a host\nnode b host\nlink a b 1Gbps\n", "exactly four"),
            ("braid-topology v1\nnode a host\nnode b host\nlink a b 0Gbps 1us\n", "positive"),
            (
                "braid-topology v1\nnode a host\nnode b host\nlink a b 1Gb 1us\n",
                "line 4: link rate",
            ),
            (
                "braid-topology v1\nnode a host\nnode b host\nlink a b 1Gbps 1\n",
                "line 4: link delay",
            ),
            ("braid-topology v1\nnode a host\nnode b host\nlink a a 1Gbps 1us\n", "itself"),
            ("braid-topology v1\nnode a host\nnode b host\n", "disconnected"),
            ("braid-topology v1\nnode a host\nedge a b\n", "unknown statement `edge`"),
        ];
        for (text, want) in cases {
            let e = braid_file(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: got `{e}`, wanted `{want}`");
        }
    }

    #[test]
    fn writer_rejects_unwritable_names() {
        let mut t = leaf_spine(&LeafSpineParams::default()).unwrap();
        t.nodes[3].name = "two words".into();
        assert!(to_braid_text(&t, "").unwrap_err().contains("node 3"));
        t.nodes[3].name = "h0".into();
        assert!(to_braid_text(&t, "").unwrap_err().contains("both called `h0`"));
    }
}
