//! The topology kinds of `[topology]`: one parser per kind, and the registry ([`TOPOLOGIES`]) that
//! `kind` is looked up in. Each parser reads its kind's fields (errors name them), refuses unknown
//! ones, and builds the topology with `braid_net::topo`.

use std::path::Path;

use braid_net::topo;
use braid_net::Topology;

use crate::fields::Fields;
use crate::scenario::{read_file, usize_or};

/// A topology kind: its name and its parser.
pub struct TopologyKind {
    /// `topology.kind`.
    pub name: &'static str,
    /// Reads the kind's fields (files relative to the scenario's folder) and builds it.
    pub parse: fn(&Fields, &Path) -> Result<Topology, String>,
}

/// Every topology kind, in the order error messages list them.
pub const TOPOLOGIES: &[TopologyKind] = &[
    TopologyKind { name: "leaf-spine", parse: topology_leaf_spine },
    TopologyKind { name: "fat-tree", parse: topology_fat_tree },
    TopologyKind { name: "clos3", parse: topology_clos3 },
    TopologyKind { name: "four-path", parse: topology_four_path },
    TopologyKind { name: "testbed", parse: topology_testbed },
    TopologyKind { name: "file", parse: topology_file },
    TopologyKind { name: "hpcc-file", parse: topology_hpcc_file },
    TopologyKind { name: "zoo-gml", parse: topology_zoo_gml },
    TopologyKind { name: "inter-dc", parse: topology_inter_dc },
];

/// The names of [`TOPOLOGIES`] (the kinded table's list, `kinds::TOPOLOGY`).
pub const NAMES: &[&str] = &[
    "leaf-spine",
    "fat-tree",
    "clos3",
    "four-path",
    "testbed",
    "file",
    "hpcc-file",
    "zoo-gml",
    "inter-dc",
];

/// Parse `[topology]`: its kind and the topology, validated.
pub fn parse_topology(f: &Fields, base: &Path) -> Result<(Topology, String), String> {
    let kind = f.req_str("kind")?.to_string();
    let Some(k) = TOPOLOGIES.iter().find(|k| k.name == kind) else {
        return Err(format!("unknown topology kind `{kind}` (known: {})", NAMES.join(", ")));
    };
    let t = (k.parse)(f, base).map_err(|e| format!("[topology] {e}"))?;
    t.validate().map_err(|e| format!("[topology] {e}"))?;
    Ok((t, kind))
}

/// `kind = "leaf-spine"`.
fn topology_leaf_spine(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let d = topo::LeafSpineParams::default();
    let delay = f.time("delay")?;
    let p = topo::LeafSpineParams {
        leaves: usize_or(f, "leaves", d.leaves)?,
        spines: usize_or(f, "spines", d.spines)?,
        hosts_per_leaf: usize_or(f, "hosts_per_leaf", d.hosts_per_leaf)?,
        host_rate: f.rate("host_rate")?.unwrap_or(d.host_rate),
        fabric_rate: f.rate("fabric_rate")?.unwrap_or(d.fabric_rate),
        host_delay: f.time("host_delay")?.or(delay).unwrap_or(d.host_delay),
        fabric_delay: f.time("fabric_delay")?.or(delay).unwrap_or(d.fabric_delay),
    };
    f.finish(&[
        "kind",
        "leaves",
        "spines",
        "hosts_per_leaf",
        "host_rate",
        "fabric_rate",
        "delay",
        "host_delay",
        "fabric_delay",
    ])?;
    topo::leaf_spine(&p)
}

/// `kind = "fat-tree"`.
fn topology_fat_tree(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let d = topo::FatTreeParams::default();
    let p = topo::FatTreeParams {
        k: usize_or(f, "k", d.k)?,
        host_rate: f.rate("host_rate")?.unwrap_or(d.host_rate),
        fabric_rate: f.rate("fabric_rate")?.unwrap_or(d.fabric_rate),
        delay: f.time("delay")?.unwrap_or(d.delay),
    };
    f.finish(&["kind", "k", "host_rate", "fabric_rate", "delay"])?;
    topo::fat_tree(&p)
}

/// `kind = "clos3"`.
fn topology_clos3(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let d = topo::Clos3Params::default();
    let p = topo::Clos3Params {
        pods: usize_or(f, "pods", d.pods)?,
        tors_per_pod: usize_or(f, "tors_per_pod", d.tors_per_pod)?,
        aggs_per_pod: usize_or(f, "aggs_per_pod", d.aggs_per_pod)?,
        cores: usize_or(f, "cores", d.cores)?,
        hosts_per_tor: usize_or(f, "hosts_per_tor", d.hosts_per_tor)?,
        host_rate: f.rate("host_rate")?.unwrap_or(d.host_rate),
        fabric_rate: f.rate("fabric_rate")?.unwrap_or(d.fabric_rate),
        delay: f.time("delay")?.unwrap_or(d.delay),
        oversubscription: usize_or(f, "oversubscription", d.oversubscription)?,
    };
    f.finish(&[
        "kind",
        "pods",
        "tors_per_pod",
        "aggs_per_pod",
        "cores",
        "hosts_per_tor",
        "host_rate",
        "fabric_rate",
        "delay",
        "oversubscription",
    ])?;
    topo::clos3(&p)
}

/// `kind = "four-path"`.
fn topology_four_path(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let d = topo::FourPathParams::default();
    let p = topo::FourPathParams {
        senders: usize_or(f, "senders", d.senders)?,
        receivers: usize_or(f, "receivers", d.receivers)?,
        host_rate: f.rate("host_rate")?.unwrap_or(d.host_rate),
        path_rate: f.rate("path_rate")?.unwrap_or(d.path_rate),
        delay: f.time("delay")?.unwrap_or(d.delay),
        extra_delay: f.time("extra_delay")?.unwrap_or(d.extra_delay),
    };
    f.finish(&["kind", "senders", "receivers", "host_rate", "path_rate", "delay", "extra_delay"])?;
    topo::four_path(&p)
}

/// `kind = "testbed"`.
fn topology_testbed(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let d = topo::TestbedParams::default();
    let path_rates = match f.array("path_rates")? {
        None => d.path_rates.clone(),
        Some(a) => {
            let mut v = Vec::new();
            for (i, x) in a.iter().enumerate() {
                let s = x
                    .as_str()
                    .ok_or_else(|| format!("`topology.path_rates[{i}]` must be a rate string"))?;
                let r = braid_core::units::parse_rate(s)
                    .map_err(|e| format!("`topology.path_rates[{i}]`: {e}"))?;
                if r.bps() == 0 {
                    return Err(format!("`topology.path_rates[{i}]` must be positive"));
                }
                v.push(r);
            }
            v
        }
    };
    let p = topo::TestbedParams {
        host_rate: f.rate("host_rate")?.unwrap_or(d.host_rate),
        path_rates,
        base_rtt: f.time("base_rtt")?.unwrap_or(d.base_rtt),
        extra_delay: f.time("extra_delay")?.unwrap_or(d.extra_delay),
    };
    f.finish(&["kind", "host_rate", "path_rates", "base_rtt", "extra_delay"])?;
    topo::testbed(&p)
}

/// `kind = "file"`.
fn topology_file(f: &Fields, base: &Path) -> Result<Topology, String> {
    let text = read_file(f, "file", base)?;
    f.finish(&["kind", "file"])?;
    topo::braid_file(&text)
}

/// `kind = "hpcc-file"`.
fn topology_hpcc_file(f: &Fields, base: &Path) -> Result<Topology, String> {
    let text = read_file(f, "file", base)?;
    f.finish(&["kind", "file"])?;
    topo::hpcc_file(&text)
}

/// `kind = "zoo-gml"`.
fn topology_zoo_gml(f: &Fields, base: &Path) -> Result<Topology, String> {
    let text = read_file(f, "file", base)?;
    let mut p = topo::ZooParams::default();
    if let Some(r) = f.rate("default_rate")? {
        p.default_rate = r;
    }
    if let Some(b) = f.bool("use_link_speed")? {
        p.use_link_speed = b;
    }
    if let Some(d) = f.time("delay")? {
        p.delay_override = Some(d);
    }
    parse_intra(f, &mut p.intra)?;
    f.finish(
        &INTRA_FIELDS
            .iter()
            .copied()
            .chain(["kind", "file", "default_rate", "use_link_speed", "delay"])
            .collect::<Vec<_>>(),
    )?;
    topo::zoo_gml(&text, &p)
}

/// `kind = "inter-dc"`.
fn topology_inter_dc(f: &Fields, _base: &Path) -> Result<Topology, String> {
    let mut intra = topo::IntraDcParams::default();
    parse_intra(f, &mut intra)?;
    let dcs = f.pos_uint("dcs")?.ok_or("`topology.dcs` is required")? as usize;
    let arr =
        f.array("links")?.ok_or("`topology.links` is required (a list of {a, b, rate, delay})")?;
    let mut graph = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let t = v.as_table().ok_or_else(|| {
            format!("`topology.links[{i}]` must be a table {{a, b, rate, delay}}")
        })?;
        let lf = Fields::new(&format!("topology.links[{i}]"), t);
        let a =
            lf.uint("a")?.ok_or_else(|| format!("`topology.links[{i}].a` is required"))? as usize;
        let b =
            lf.uint("b")?.ok_or_else(|| format!("`topology.links[{i}].b` is required"))? as usize;
        let rate =
            lf.rate("rate")?.ok_or_else(|| format!("`topology.links[{i}].rate` is required"))?;
        let delay =
            lf.time("delay")?.ok_or_else(|| format!("`topology.links[{i}].delay` is required"))?;
        lf.finish(&["a", "b", "rate", "delay"])?;
        graph.push(topo::DcLink { a, b, rate, delay });
    }
    f.finish(&INTRA_FIELDS.iter().copied().chain(["kind", "dcs", "links"]).collect::<Vec<_>>())?;
    topo::inter_dc(&topo::InterDcParams { dcs, graph, names: Vec::new(), intra })
}

/// The fields of [`parse_intra`].
const INTRA_FIELDS: [&str; 9] = [
    "hosts_per_dc",
    "leaves",
    "spines",
    "host_rate",
    "host_delay",
    "fabric_rate",
    "fabric_delay",
    "dci_rate",
    "dci_delay",
];

/// The shape of each DC of an inter-DC topology (defaults: LCMP testbed, `docs/lcmp.md`,
/// topologies).
fn parse_intra(f: &Fields, p: &mut topo::IntraDcParams) -> Result<(), String> {
    p.hosts_per_dc = usize_or(f, "hosts_per_dc", p.hosts_per_dc)?;
    p.leaves = usize_or(f, "leaves", p.leaves)?;
    p.spines = usize_or(f, "spines", p.spines)?;
    p.host_rate = f.rate("host_rate")?.unwrap_or(p.host_rate);
    p.host_delay = f.time("host_delay")?.unwrap_or(p.host_delay);
    p.fabric_rate = f.rate("fabric_rate")?.unwrap_or(p.fabric_rate);
    p.fabric_delay = f.time("fabric_delay")?.unwrap_or(p.fabric_delay);
    p.dci_rate = f.rate("dci_rate")?.unwrap_or(p.dci_rate);
    p.dci_delay = f.time("dci_delay")?.unwrap_or(p.dci_delay);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_registry() {
        let from_registry: Vec<&str> = TOPOLOGIES.iter().map(|k| k.name).collect();
        assert_eq!(from_registry, NAMES);
        assert_eq!(crate::kinds::TOPOLOGY.kinds, NAMES);
    }
}
