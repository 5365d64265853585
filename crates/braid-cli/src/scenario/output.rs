//! `[output]`: which files and time series a run writes, and at which intervals.

use super::*;

pub(super) fn parse_output(f: &Fields, n_links: usize) -> Result<OutputSpec, String> {
    let mut pcap = Vec::new();
    if let Some(a) = f.array("pcap")? {
        for (i, v) in a.iter().enumerate() {
            let id = match v {
                toml::Value::Integer(n) if *n >= 0 => Some(*n as u64),
                toml::Value::String(s) => s.trim().parse::<u64>().ok(),
                _ => None,
            }
            .ok_or_else(|| format!("`output.pcap[{i}]` must be a link id (the topology's link index, e.g. 3 or \"3\"), got {v}"))?;
            if id as usize >= n_links {
                return Err(format!("`output.pcap[{i}]`: link {id} does not exist (the topology has {n_links} links, 0–{})", n_links.saturating_sub(1)));
            }
            if !pcap.contains(&(id as u32)) {
                pcap.push(id as u32);
            }
        }
    }
    let slowdown_groups = match f.array("slowdown_groups")? {
        None => None,
        Some(a) => {
            let g: Vec<u32> = a
                .iter()
                .filter_map(|v| v.as_integer())
                .filter(|&x| (0..=u32::MAX as i64).contains(&x))
                .map(|x| x as u32)
                .collect();
            if g.len() != 2 || a.len() != 2 {
                return Err(
                    "`output.slowdown_groups` must be two group (DC) indices, e.g. [0, 7]".into()
                );
            }
            Some((g[0], g[1]))
        }
    };
    let o = OutputSpec {
        fct_artifact: f.bool("fct_artifact")?.unwrap_or(false),
        fct_artifact_without_rto: f.bool("fct_artifact_without_rto")?.unwrap_or(false),
        link_util: f.bool("link_util")?.unwrap_or(false),
        decisions: f.bool("decisions")?.unwrap_or(false),
        slowdown_groups,
        pcap,
        sample_interval: f.time("sample_interval")?,
        queues: f.bool("queues")?.unwrap_or(false),
        ood: f.bool("ood")?.unwrap_or(false),
        goodput: f.bool("goodput")?.unwrap_or(false),
        paths: f.bool("paths")?.unwrap_or(false),
    };
    if o.sample_interval == Some(Time::ZERO) {
        return Err("`output.sample_interval` must be positive".into());
    }
    f.finish(&[
        "sample_interval",
        "queues",
        "ood",
        "goodput",
        "paths",
        "pcap",
        "fct_artifact",
        "fct_artifact_without_rto",
        "link_util",
        "decisions",
        "slowdown_groups",
    ])?;
    Ok(o)
}
