//! `[faults]` and `[[link_events]]`: links failing, recovering, slowing down or losing packets
//! at given times, by link index or by the names of their ends.

use super::*;

/// `[[faults]]`: heterogeneity and failure injection. Each entry picks links — `link = N`,
/// `links = [N, …]`, or `random_fraction = 0.1` of the links in `scope` (`"fabric"`: switch–switch,
/// the default; `"host"`: host links; `"all"`), drawn from the scenario seed — and changes them at
/// `at`: `change = "down" | "up" | "rate" | "delay" | "loss"` with `rate = "25Gbps"` or
/// `rate_factor = 0.25`, `delay = "5us"` or `add_delay = "20us"`, `loss = 0.001`. With `until`,
/// the original state comes back at that time (Rondo Fig 13: 10 % of links to ¼ at 50 µs).
/// The link joining two nodes named `spec` = `"a-b"` (node names may hold `-` themselves: every
/// split point is tried, and exactly one must name two nodes that a link joins).
pub(super) fn link_by_names(topo: &Topology, spec: &str) -> Result<u32, String> {
    let node = |n: &str| topo.nodes.iter().position(|x| x.name == n);
    let mut found: Vec<(String, String, Option<u32>)> = Vec::new();
    for (i, _) in spec.match_indices('-') {
        let (a, b) = (spec[..i].trim(), spec[i + 1..].trim());
        if let (Some(x), Some(y)) = (node(a), node(b)) {
            let l = topo.links.iter().position(|l| {
                (l.a.idx() == x && l.b.idx() == y) || (l.a.idx() == y && l.b.idx() == x)
            });
            found.push((a.to_string(), b.to_string(), l.map(|l| l as u32)));
        }
    }
    match found.as_slice() {
        [(_, _, Some(l))] => Ok(*l),
        [(a, b, None)] => Err(format!("no link joins `{a}` and `{b}`")),
        [] => Err(format!("`{spec}` does not name two nodes as `A-B` (node names such as `leaf0`, `spine2`, `h5`; `braid links` lists them)")),
        _ => Err(format!("`{spec}` can be read as more than one pair of nodes")),
    }
}

/// The `[[faults]]` entries, and notes: a fault that names links by number in a topology that
/// `--set topology.…` changed points at whatever link has that number now.
pub(super) fn parse_faults(
    a: &[toml::Value],
    topo: &Topology,
    seed: u64,
    base_loss: f64,
    topo_overridden: bool,
) -> Result<(Vec<LinkEvent>, Vec<String>), String> {
    use braid_core::rng::stream;
    use braid_net::topology::NodeKind;
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (i, v) in a.iter().enumerate() {
        let t = v.as_table().ok_or_else(|| format!("`faults[{i}]` must be a table"))?;
        let f = Fields::new(&format!("faults[{i}]"), t);
        let name = |k: &str| format!("`faults[{i}].{k}`");
        let at = f.time("at")?.ok_or_else(|| format!("{} is required", name("at")))?;
        let until = f.time("until")?;
        if let Some((k, t)) = [("at", Some(at)), ("until", until)]
            .into_iter()
            .find(|(_, t)| t.is_some_and(|t| t > MAX_START))
        {
            return Err(format!(
                "{} ({} s) is after the limit of {} s",
                name(k),
                t.unwrap_or_default().secs_f64(),
                MAX_START.secs_f64()
            ));
        }
        if until.is_some_and(|u| u <= at) {
            return Err(format!("{} must be later than `at`", name("until")));
        }
        // Which links.
        let n_links = topo.links.len();
        let check = |l: u64| -> Result<u32, String> {
            if l as usize >= n_links {
                Err(format!(
                    "{}: link {l} does not exist (the topology has {n_links} links)",
                    name("link")
                ))
            } else {
                Ok(l as u32)
            }
        };
        let mut links: Vec<u32> = Vec::new();
        let mut by_number = false;
        let mut one = |x: &toml::Value, key: &str| -> Result<u32, String> {
            match x {
                toml::Value::Integer(l) if *l >= 0 => {
                    by_number = true;
                    check(*l as u64)
                }
                toml::Value::String(s) => {
                    link_by_names(topo, s).map_err(|e| format!("{}: {e}", name(key)))
                }
                _ => Err(format!(
                    "{} must be a link index or two node names as \"A-B\" (e.g. \"leaf0-spine0\")",
                    name(key)
                )),
            }
        };
        if let Some(t) = t.get("link") {
            let _ = f.str("link"); // marks the field read; its value is checked below
            links.push(one(t, "link")?);
        }
        if let Some(arr) = f.array("links")? {
            for x in arr {
                links.push(one(x, "links")?);
            }
        }
        if let Some(arr) = f.array("nodes")? {
            for x in arr {
                let n = x.as_str().ok_or_else(|| {
                    format!("{} must list node names (e.g. [\"spine0\"])", name("nodes"))
                })?;
                let ni = topo
                    .nodes
                    .iter()
                    .position(|x| x.name == n)
                    .ok_or_else(|| format!("{}: no node is named `{n}` (`braid links` lists the nodes and their links)", name("nodes")))?;
                for (li, l) in topo.links.iter().enumerate() {
                    if (l.a.idx() == ni || l.b.idx() == ni) && !links.contains(&(li as u32)) {
                        links.push(li as u32);
                    }
                }
            }
        }
        if by_number && topo_overridden {
            let shown: Vec<String> = links
                .iter()
                .take(4)
                .map(|&l| {
                    let s = &topo.links[l as usize];
                    format!("{l} = {}-{}", topo.nodes[s.a.idx()].name, topo.nodes[s.b.idx()].name)
                })
                .collect();
            notes.push(format!(
                "`faults[{i}]` names links by number and `--set topology.…` changed the topology, so the numbers may now point at other links ({}); name them by their nodes (`link = \"leaf0-spine0\"`, `nodes = [\"spine0\"]`) to be sure",
                shown.join(", ")
            ));
        }
        let scope = f.str("scope")?.unwrap_or("fabric");
        if let Some(frac) = f.prob("random_fraction")? {
            let is_host = |n: braid_core::NodeId| topo.nodes[n.idx()].kind == NodeKind::Host;
            let mut pool: Vec<u32> = Vec::new();
            for (li, l) in topo.links.iter().enumerate() {
                let host_link = is_host(l.a) || is_host(l.b);
                let keep = match scope {
                    "fabric" => !host_link,
                    "host" => host_link,
                    "all" => true,
                    other => {
                        return Err(format!(
                            "{}: unknown scope `{other}` (known: fabric, host, all)",
                            name("scope")
                        ))
                    }
                };
                if keep {
                    pool.push(li as u32);
                }
            }
            let mut rng = braid_core::Rng::derive(seed, stream::FAULTS, i as u64);
            rng.shuffle(&mut pool);
            let k = ((pool.len() as f64 * frac).round() as usize).min(pool.len());
            links.extend_from_slice(&pool[..k]);
        } else if f.has("scope") {
            return Err(format!("{} applies only with `random_fraction`", name("scope")));
        }
        if links.is_empty() {
            return Err(format!("`faults[{i}]` selects no link (give `link`, `links`, `nodes` or `random_fraction`)"));
        }
        let what = f.req_str("change")?;
        let rate = f.rate("rate")?;
        let rate_factor = f.float("rate_factor")?;
        let delay = f.time("delay")?;
        let add_delay = f.time("add_delay")?;
        let loss = f.prob("loss")?;
        for &l in &links {
            let spec = &topo.links[l as usize];
            let (change, restore) = match what {
                "down" => (LinkChange::Down, LinkChange::Up),
                "up" => (LinkChange::Up, LinkChange::Down),
                "rate" => {
                    let r = match (rate, rate_factor) {
                        (Some(r), None) => r.bps(),
                        (None, Some(k)) if k > 0.0 => (spec.rate.bps() as f64 * k).round() as u64,
                        (None, Some(_)) => {
                            return Err(format!("{} must be positive", name("rate_factor")))
                        }
                        _ => {
                            return Err(format!(
                                "`faults[{i}]`: give exactly one of `rate` and `rate_factor`"
                            ))
                        }
                    };
                    if r > topo::MAX_LINK_RATE.bps() {
                        return Err(format!("`faults[{i}]`: the new rate of link {l}, {r} bit/s, is above the limit of {} bit/s", topo::MAX_LINK_RATE.bps()));
                    }
                    (LinkChange::Rate(r.max(1)), LinkChange::Rate(spec.rate.bps()))
                }
                "delay" => {
                    let d = match (delay, add_delay) {
                        (Some(d), None) => d,
                        (None, Some(a)) => Time::from_ps(spec.delay.ps().saturating_add(a.ps())),
                        _ => {
                            return Err(format!(
                                "`faults[{i}]`: give exactly one of `delay` and `add_delay`"
                            ))
                        }
                    };
                    if d > topo::MAX_LINK_DELAY {
                        return Err(format!(
                            "`faults[{i}]`: the new delay of link {l}, {} s, is above the limit of {} s",
                            d.secs_f64(),
                            topo::MAX_LINK_DELAY.secs_f64()
                        ));
                    }
                    (LinkChange::Delay(d), LinkChange::Delay(spec.delay))
                }
                "loss" => (
                    LinkChange::Loss(loss.ok_or_else(|| format!("{} is required", name("loss")))?),
                    LinkChange::Loss(base_loss),
                ),
                other => {
                    return Err(format!(
                        "{}: unknown change `{other}` (known: down, up, rate, delay, loss)",
                        name("change")
                    ))
                }
            };
            out.push(LinkEvent { at, link: l, change });
            if let Some(u) = until {
                out.push(LinkEvent { at: u, link: l, change: restore });
            }
        }
        f.finish(&[
            "at",
            "until",
            "link",
            "links",
            "nodes",
            "random_fraction",
            "scope",
            "change",
            "rate",
            "rate_factor",
            "delay",
            "add_delay",
            "loss",
        ])?;
    }
    out.sort_by_key(|e| e.at);
    Ok((out, notes))
}
