//! Offered load on the cuts of a network: does a workload ask for more than the topology carries?
//!
//! Before a run, the workload's **rate matrix** (the mean offered bit rate of each host pair) is
//! routed over the topology's cuts, and each cut gets a factor `offered / capacity`. A factor above
//! 1.0 means the workload offers more than the cut can ever carry: queues grow for as long as the
//! arrivals last, and FCTs measure the overload rather than the transport (`docs/metrics.md`,
//! "Offered load").
//!
//! Rate matrix:
//! - `cdf` workloads (open-loop Poisson, [`braid_workload::poisson`]): each sender offers
//!   `load × host_rate` (the workload's `host_rate`), split evenly over the destinations it may
//!   draw (its receivers, minus itself, in other groups only with `inter_group`). This is exact in
//!   expectation; it does not depend on the seed.
//! - every other workload (a list of flows: incast, permutation, all-to-all, moe, collective,
//!   flow files): pair `(s, d)` offers `bytes(s, d) · 8 / W`, where the window
//!   `W = max(last start − first start, max over senders of bytes(s) · 8 / host link rate(s))`.
//!   For flows spread over time (a flow file from a traffic generator) `W` is the span of the
//!   start times, so the rate is the mean rate; for flows that start together (an incast, a
//!   permutation) it is the time the busiest sender needs at line rate, so each sender offers
//!   its line rate at most.
//!
//! Cuts (a set of hosts `S` and the links that join `S` to the rest of the network; capacity is
//! the sum of those links' rates, the same in both directions; "out" counts the traffic from `S`
//! to hosts outside `S`, "in" the traffic from outside to `S`):
//! - each host: its own links (`host 3 downlink (in)`: an incast receiver);
//! - each switch with hosts attached (a ToR, leaf or edge): its hosts, cut at the switch's links
//!   to other switches (`leaf2 uplinks (out)`);
//! - each host group when the topology has several (a pod of a fat-tree or a Clos, a DC of an
//!   inter-DC network): every node of the group but the cores, cut at the links that leave the
//!   group (`pod 1 uplinks`, `DC2-dci inter-DC links`).
//!
//! Only traffic with an end in `S` is counted on `S`'s cut: traffic that transits a group (in an
//! inter-DC network, DC2 → DC3 through DC1) is not, so a factor is a lower bound there.

use std::collections::BTreeMap;

use braid_metrics::Value;
use braid_net::topology::{NodeKind, Topology};
use braid_workload::{CdfSpec, Workload, WorkloadSpec};

/// How the rate matrix was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// From a `cdf` workload's `load` (Poisson arrivals, exact in expectation).
    PoissonLoad,
    /// From a flow list whose start times span more than its busiest sender needs at line rate:
    /// each pair's bytes over that span (open-loop arrivals, such as a traffic generator's file).
    FlowSpan,
    /// From a flow list whose flows (nearly) start together: each pair's bytes over the time its
    /// busiest sender needs at line rate. A cut above 1.0 here is a bottleneck the job waits on
    /// (an incast), not arrivals that outrun the network for as long as they last.
    FlowBatch,
}

impl Basis {
    /// What a factor above 1.0 means for this basis (for the warning).
    pub fn meaning(self) -> &'static str {
        match self {
            Basis::PoissonLoad => "the Poisson arrivals outrun the network: queues grow for as long as they last",
            Basis::FlowSpan => "the flows arrive faster than the network carries them: queues grow until the arrivals stop",
            Basis::FlowBatch => "flows that start together at line rate: the job waits on this bottleneck",
        }
    }

    /// The name written to `summary.json`.
    pub fn name(self) -> &'static str {
        match self {
            Basis::PoissonLoad => "poisson_load",
            Basis::FlowSpan => "flow_bytes_over_start_span",
            Basis::FlowBatch => "flows_at_line_rate",
        }
    }
}

/// Which way traffic crosses a cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the hosts behind the cut to the rest.
    Out,
    /// From the rest to the hosts behind the cut.
    In,
}

/// One direction of one cut.
#[derive(Clone, Debug, PartialEq)]
pub struct Cut {
    /// What the cut is (`leaf2 uplinks`, `host 0 downlink`, `pod 1 uplinks`).
    pub name: String,
    /// Out of or into the hosts behind it.
    pub direction: Direction,
    /// Sum of the rates of the links that cross it, bit/s.
    pub capacity_bps: f64,
    /// Mean offered bit rate that must cross it, bit/s.
    pub offered_bps: f64,
}

impl Cut {
    /// `offered / capacity`.
    pub fn factor(&self) -> f64 {
        self.offered_bps / self.capacity_bps
    }

    /// `leaf2 uplinks (out)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, if self.direction == Direction::Out { "out" } else { "in" })
    }
}

/// The offered load of a workload on every cut of a topology.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferedLoad {
    /// How the rate matrix was obtained.
    pub basis: Basis,
    /// Every cut direction with a positive capacity, in cut order (hosts, switches, groups).
    pub cuts: Vec<Cut>,
}

/// A cut factor above this counts as overloaded (a little above 1.0, so that a workload that
/// offers exactly the capacity, like a permutation at line rate, is not flagged for rounding).
pub const OVERLOAD_FACTOR: f64 = 1.0 + 1e-9;

impl OfferedLoad {
    /// The cut with the largest factor (the first one on ties).
    pub fn max_cut(&self) -> Option<&Cut> {
        self.cuts.iter().fold(None, |best: Option<&Cut>, c| match best {
            Some(b) if b.factor() >= c.factor() => Some(b),
            _ => Some(c),
        })
    }

    /// The overloaded cuts, largest factor first.
    pub fn overloaded(&self) -> Vec<&Cut> {
        let mut v: Vec<&Cut> = self.cuts.iter().filter(|c| c.factor() > OVERLOAD_FACTOR).collect();
        v.sort_by(|a, b| b.factor().total_cmp(&a.factor()));
        v
    }

    /// The warning lines for stderr: the `most` worst overloaded cuts, then a count of the rest.
    pub fn warnings(&self, most: usize) -> Vec<String> {
        let over = self.overloaded();
        let mut out: Vec<String> = over
            .iter()
            .take(most)
            .map(|c| {
                format!(
                    "warning: offered load exceeds capacity: {} carry {:.2}× their {} ({} offered; {})",
                    c.label(),
                    c.factor(),
                    gbps(c.capacity_bps),
                    gbps(c.offered_bps),
                    self.basis.meaning()
                )
            })
            .collect();
        if over.len() > most {
            out.push(format!(
                "warning: … and {} more overloaded cut(s) (see `offered_load` in summary.json)",
                over.len() - most
            ));
        }
        out
    }

    /// The `offered_load` object of `summary.json`.
    pub fn summary_value(&self) -> Value {
        let max = self.max_cut();
        Value::Obj(vec![
            ("basis".into(), Value::Str(self.basis.name().into())),
            ("max_factor".into(), Value::Float(max.map_or(0.0, Cut::factor))),
            ("max_cut".into(), Value::Str(max.map_or(String::new(), Cut::label))),
            ("overloaded_cuts".into(), Value::Int(self.overloaded().len() as i128)),
        ])
    }
}

fn gbps(bps: f64) -> String {
    format!("{} Gb/s", braid_metrics::fmt_f64(bps / 1e9))
}

/// The cuts of a topology: for each host, the cut it lies behind in each layer.
struct Layers {
    /// `layers[l][host]`: index into `names` of the cut of layer `l` that host is behind.
    of_host: Vec<Vec<Option<usize>>>,
    /// Cut name and capacity, by cut index.
    cuts: Vec<(String, f64)>,
}

impl Layers {
    fn new(t: &Topology) -> Layers {
        let hosts = t.hosts();
        let n = t.nodes.len();
        let host_idx: BTreeMap<usize, usize> =
            hosts.iter().enumerate().map(|(i, h)| (h.idx(), i)).collect();
        let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
        for l in &t.links {
            adj[l.a.idx()].push((l.b.idx(), l.rate.bps_f64()));
            adj[l.b.idx()].push((l.a.idx(), l.rate.bps_f64()));
        }
        let is_host = |v: usize| t.nodes[v].kind == NodeKind::Host;
        let mut cuts = Vec::new();
        // Layer 0: each host's own links.
        let mut by_host = vec![None; hosts.len()];
        for (i, h) in hosts.iter().enumerate() {
            let cap: f64 = adj[h.idx()].iter().map(|e| e.1).sum();
            by_host[i] = Some(cuts.len());
            cuts.push((format!("host {i} link"), cap));
        }
        // Layer 1: each switch with single-homed hosts, at its links to other switches.
        let mut by_tor = vec![None; hosts.len()];
        for (w, node) in t.nodes.iter().enumerate() {
            if node.kind == NodeKind::Host {
                continue;
            }
            let behind: Vec<usize> = adj[w]
                .iter()
                .filter(|&&(v, _)| is_host(v) && adj[v].iter().all(|&(x, _)| x == w))
                .map(|&(v, _)| host_idx[&v])
                .collect();
            let cap: f64 = adj[w].iter().filter(|&&(v, _)| !is_host(v)).map(|e| e.1).sum();
            if behind.is_empty() || cap <= 0.0 {
                continue;
            }
            for &h in &behind {
                by_tor[h] = Some(cuts.len());
            }
            cuts.push((format!("{} uplinks", node.name), cap));
        }
        // Layer 2: host groups (pods, DCs), without the cores (tier-3 switches belong to none).
        let mut groups: Vec<u32> = hosts.iter().map(|h| t.nodes[h.idx()].group).collect();
        groups.sort_unstable();
        groups.dedup();
        let mut by_group = vec![None; hosts.len()];
        if groups.len() > 1 {
            let member = |v: usize| -> Option<u32> {
                let nd = &t.nodes[v];
                (nd.kind != NodeKind::Switch || nd.tier < 3).then_some(nd.group)
            };
            for &g in &groups {
                let cap: f64 = t
                    .links
                    .iter()
                    .filter(|l| (member(l.a.idx()) == Some(g)) != (member(l.b.idx()) == Some(g)))
                    .map(|l| l.rate.bps_f64())
                    .sum();
                if cap <= 0.0 {
                    continue;
                }
                let dci = t.nodes.iter().find(|nd| nd.kind == NodeKind::Dci && nd.group == g);
                let name = match dci {
                    Some(d) => format!("{} inter-DC links", d.name),
                    None => format!("pod {g} uplinks"),
                };
                for (i, h) in hosts.iter().enumerate() {
                    if t.nodes[h.idx()].group == g {
                        by_group[i] = Some(cuts.len());
                    }
                }
                cuts.push((name, cap));
            }
        }
        Layers { of_host: vec![by_host, by_tor, by_group], cuts }
    }
}

/// Offered bit rate per cut, both directions.
struct Tally {
    out_bps: Vec<f64>,
    in_bps: Vec<f64>,
}

impl Tally {
    /// Count `rate_bps` from host `s` to host `d` on every cut it crosses.
    fn add(&mut self, layers: &Layers, s: u32, d: u32, rate_bps: f64) {
        for layer in &layers.of_host {
            let (cs, cd) = (layer[s as usize], layer[d as usize]);
            if cs == cd {
                continue;
            }
            if let Some(c) = cs {
                self.out_bps[c] += rate_bps;
            }
            if let Some(c) = cd {
                self.in_bps[c] += rate_bps;
            }
        }
    }
}

/// Offered load of the workload `wl` (generated from `spec`) on the cuts of `t`.
pub fn offered_load(t: &Topology, spec: &WorkloadSpec, wl: &Workload) -> OfferedLoad {
    let layers = Layers::new(t);
    let n_cuts = layers.cuts.len();
    let mut tally = Tally { out_bps: vec![0.0; n_cuts], in_bps: vec![0.0; n_cuts] };
    let n_hosts = t.hosts().len();
    let basis = match spec {
        WorkloadSpec::Cdf(c) => {
            let groups: Vec<u32> = t.hosts().iter().map(|h| t.nodes[h.idx()].group).collect();
            poisson_pairs(c, n_hosts, &groups, &mut |s, d, r| tally.add(&layers, s, d, r));
            Basis::PoissonLoad
        }
        _ => {
            let host_rate = layers.cuts[..n_hosts].iter().map(|c| c.1).collect::<Vec<f64>>();
            let (pairs, basis) = flow_pairs(wl, &host_rate);
            for ((s, d), r) in pairs {
                tally.add(&layers, s, d, r);
            }
            basis
        }
    };
    let mut cuts = Vec::new();
    for (i, (name, cap)) in layers.cuts.iter().enumerate() {
        if *cap <= 0.0 {
            continue;
        }
        let (out_name, in_name) = match name.strip_suffix(" link") {
            Some(h) => (format!("{h} uplink"), format!("{h} downlink")),
            None => (name.clone(), name.clone()),
        };
        cuts.push(Cut {
            name: out_name,
            direction: Direction::Out,
            capacity_bps: *cap,
            offered_bps: tally.out_bps[i],
        });
        cuts.push(Cut {
            name: in_name,
            direction: Direction::In,
            capacity_bps: *cap,
            offered_bps: tally.in_bps[i],
        });
    }
    OfferedLoad { basis, cuts }
}

/// Call `f(src, dst, rate_bps)` for every pair a `cdf` workload sends between, with its mean rate.
/// Host lists that do not resolve (errors the generator reports) give no pairs.
fn poisson_pairs(c: &CdfSpec, n_hosts: usize, groups: &[u32], f: &mut impl FnMut(u32, u32, f64)) {
    let (Ok(senders), Ok(receivers)) =
        (c.senders.first(n_hosts, "senders"), c.receivers.first(n_hosts, "receivers"))
    else {
        return;
    };
    let group = |h: u32| groups.get(h as usize).copied().unwrap_or(0);
    let per_sender_bps = c.load * c.host_rate.bps_f64();
    for &s in &senders {
        let dests: Vec<u32> = receivers
            .iter()
            .copied()
            .filter(|&d| d != s && (!c.inter_group || group(d) != group(s)))
            .collect();
        if dests.is_empty() {
            continue;
        }
        let each = per_sender_bps / dests.len() as f64;
        for d in dests {
            f(s, d, each);
        }
    }
}

/// Mean rate of each pair of a flow list: bytes over the window `W` (module docs), and which of
/// the two terms of `W` was larger. `host_rate_bps` is each host's link rate.
fn flow_pairs(wl: &Workload, host_rate_bps: &[f64]) -> (BTreeMap<(u32, u32), f64>, Basis) {
    let mut bytes: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    let mut sent: BTreeMap<u32, u64> = BTreeMap::new();
    for f in &wl.flows {
        *bytes.entry((f.src, f.dst)).or_default() += f.size_bytes;
        *sent.entry(f.src).or_default() += f.size_bytes;
    }
    let first = wl.flows.iter().map(|f| f.start).min().unwrap_or_default();
    let last = wl.flows.iter().map(|f| f.start).max().unwrap_or_default();
    let drain_s = sent
        .iter()
        .map(|(&s, &b)| {
            b as f64 * 8.0 / host_rate_bps.get(s as usize).copied().unwrap_or(0.0).max(1.0)
        })
        .fold(0.0, f64::max);
    let span_s = (last - first).secs_f64();
    let basis = if span_s > drain_s { Basis::FlowSpan } else { Basis::FlowBatch };
    let window_s = span_s.max(drain_s);
    if window_s <= 0.0 {
        return (BTreeMap::new(), basis);
    }
    (bytes.into_iter().map(|(k, b)| (k, b as f64 * 8.0 / window_s)).collect(), basis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, Scenario};
    use std::path::Path;

    fn analyze(text: &str) -> OfferedLoad {
        let sc: Scenario = parse(text, Path::new("."), &[], None).unwrap();
        let hosts = sc.topology.hosts();
        let groups: Vec<u32> = hosts.iter().map(|h| sc.topology.nodes[h.idx()].group).collect();
        let wl = sc.workload.generate(hosts.len(), &groups, sc.seed).unwrap();
        offered_load(&sc.topology, &sc.workload, &wl)
    }

    fn cut<'a>(l: &'a OfferedLoad, label: &str) -> &'a Cut {
        l.cuts
            .iter()
            .find(|c| c.label() == label)
            .unwrap_or_else(|| panic!("no cut {label}: {:?}", l.cuts))
    }

    const LEAF_SPINE: &str = r#"
name = "t"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 4
spines = 4
hosts_per_leaf = 16
host_rate = "100Gbps"
fabric_rate = "FABRIC"
delay = "1us"
[transport]
kind = "roce"
[workload]
kind = "cdf"
cdf = "websearch"
load = 0.5
duration = "1ms"
"#;

    #[test]
    fn oversubscribed_leaf_spine_at_half_load() {
        // 16 hosts × 50 Gb/s offered per leaf, 48 of their 63 destinations behind other leaves:
        // 800 × 48/63 = 609.5 Gb/s over 4 × 100 Gb/s of uplinks = 1.524 (the 4:1 fabric carries
        // 2.0 only if every byte left the leaf).
        let l = analyze(&LEAF_SPINE.replace("FABRIC", "100Gbps"));
        assert_eq!(l.basis, Basis::PoissonLoad);
        for leaf in 0..4 {
            for dir in ["out", "in"] {
                let c = cut(&l, &format!("leaf{leaf} uplinks ({dir})"));
                assert_eq!(c.capacity_bps, 400e9);
                assert!((c.offered_bps - 800e9 * 48.0 / 63.0).abs() < 1e3, "{c:?}");
                assert!((c.factor() - 1.5238).abs() < 1e-3);
            }
        }
        assert_eq!(l.overloaded().len(), 8, "four leaves, both directions");
        let host = cut(&l, "host 5 uplink (out)");
        assert!((host.factor() - 0.5).abs() < 1e-12);
        let w = l.warnings(5);
        assert!(w[0].starts_with("warning: offered load exceeds capacity: leaf0 uplinks (out) carry 1.52× their 400 Gb/s"), "{w:?}");
        assert_eq!(w.len(), 6, "{w:?}");
        // 400 Gb/s fabric links: non-blocking, the leaf uplinks at 0.381, the host links at 0.5.
        let l = analyze(&LEAF_SPINE.replace("FABRIC", "400Gbps"));
        assert!(l.overloaded().is_empty());
        assert!((cut(&l, "leaf3 uplinks (in)").factor() - 0.381).abs() < 1e-3);
        assert!((l.max_cut().unwrap().factor() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn nonblocking_fat_tree_permutation_at_line_rate_fits() {
        let l = analyze(
            "name = \"t\"\nseed = 3\n[topology]\nkind = \"fat-tree\"\nk = 4\n[transport]\nkind = \"roce\"\n[workload]\nkind = \"permutation\"\nsize = \"1MB\"\n",
        );
        assert_eq!(l.basis, Basis::FlowBatch);
        let max = l.max_cut().unwrap();
        assert!(max.factor() <= 1.0 + 1e-9, "{max:?}");
        // Every host sends and receives at exactly its line rate.
        assert!((cut(&l, "host 0 uplink (out)").factor() - 1.0).abs() < 1e-9);
        assert!((cut(&l, "host 0 downlink (in)").factor() - 1.0).abs() < 1e-9);
        assert!(l.cuts.iter().any(|c| c.name == "pod 1 uplinks"), "pod cuts: {:?}", l.cuts);
        assert!(l.overloaded().is_empty());
    }

    #[test]
    fn incast_receiver_downlink_carries_senders_times_load() {
        let base = LEAF_SPINE.replace("FABRIC", "400Gbps");
        let l = analyze(
            &base.replace("load = 0.5", "load = 0.3\nsenders = \"1-8\"\nreceivers = \"0-0\""),
        );
        let c = cut(&l, "host 0 downlink (in)");
        assert!((c.factor() - 8.0 * 0.3).abs() < 1e-9, "{c:?}");
        assert_eq!(l.max_cut().unwrap().label(), "host 0 downlink (in)");
        assert_eq!(l.overloaded().len(), 1);
        // The same as a batch: 8 senders at line rate into one host.
        let l = analyze(&base.replace(
            "kind = \"cdf\"\ncdf = \"websearch\"\nload = 0.5\nduration = \"1ms\"",
            "kind = \"incast\"\nsenders = [1, 2, 3, 4, 5, 6, 7, 8]\nsize = \"1MB\"",
        ));
        assert_eq!(l.basis, Basis::FlowBatch);
        assert!((cut(&l, "host 0 downlink (in)").factor() - 8.0).abs() < 1e-9);
    }

    #[test]
    fn flow_list_rate_is_bytes_over_the_start_span() {
        // Two flows 1 ms apart from host 1 to host 17 (another leaf): 2 × 1 MB over 1 ms = 16 Gb/s.
        let mut wl = Workload::new();
        wl.add_flow(1, 17, 1_000_000, braid_core::Time::ZERO, &[], braid_workload::NO_JOB);
        wl.add_flow(1, 17, 1_000_000, braid_core::Time::from_ms(1), &[], braid_workload::NO_JOB);
        let sc: Scenario =
            parse(&LEAF_SPINE.replace("FABRIC", "100Gbps"), Path::new("."), &[], None).unwrap();
        let spec = WorkloadSpec::FlowFile(braid_workload::FlowFileSpec {
            file: "x.csv".into(),
            format: braid_workload::FlowFileFormat::Braid,
            rebase: false,
            first: None,
        });
        let l = offered_load(&sc.topology, &spec, &wl);
        assert_eq!(l.basis, Basis::FlowSpan);
        let c = cut(&l, "leaf1 uplinks (in)");
        assert!((c.offered_bps - 16e9).abs() < 1.0, "{c:?}");
        assert_eq!(cut(&l, "leaf0 uplinks (in)").offered_bps, 0.0);
    }
}
