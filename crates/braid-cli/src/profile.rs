//! `network.profile`: a named set of defaults for the knobs that make Braid's network and hosts
//! behave like another simulator's, expanded into the scenario's tables before they are read.
//!
//! - `"braid"` (default): nothing is changed — Braid's own model (ACKs in a strict-priority
//!   control class, a shared buffer with 64-bit accounting, …).
//! - `"ns3-hpcc"`: the semantics of the ns-3 HPCC fork the LCMP artifact is built on (LCMP's
//!   public artifact; `docs/ns3-equivalence.md` tabulates every difference, the knob that
//!   expresses it and its measured effect). Each entry of [`NS3_HPCC`] is an ordinary field: the
//!   profile only supplies it where the scenario (or `--set`) does not, so any one difference can
//!   be switched back alone, and `scenario.resolved.toml` lists every field the run used.
//!
//! - `"rondo-sim"`: the network model of the Rondo paper's simulations (§6.2.1), one for every
//!   figure of its evaluation: what §6.2.1 states (the 320-host three-tier Clos, 100 / 400 Gb/s,
//!   the 1.2 MB shared reorder buffer, `Tu`, `q0`, `τq`, `α`, `γ`) and, chosen once, what it
//!   leaves open (logical paths hashed by the switches, a 32 MiB shared switch buffer, PFC, ECN
//!   thresholds, `W0`, the probe class). [`RONDO_SIM`] lists each with its source; docs/rondo.md,
//!   "The evaluation's network model", gives the reasons and the sensitivity to each open choice.
//!
//! Entries that belong to one transport (the DCQCN parameters of the artifact's configuration,
//! its window) are supplied only when that transport runs.

use toml::{Table, Value};

/// The profiles and what they are.
pub const PROFILES: &[(&str, &str)] = &[
    ("braid", "Braid's own network and host model (default)"),
    ("ns3-hpcc", "the ns-3 HPCC fork of the LCMP artifact (docs/ns3-equivalence.md)"),
    ("rondo-sim", "the network model of the Rondo paper's simulations, §6.2.1 (docs/rondo.md)"),
];

/// When a profile entry applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Always.
    Always,
    /// Only with `transport.kind = "roce"`.
    Roce,
    /// Only with RoCE and DCQCN (RoCE's default CC).
    RoceDcqcn,
    /// Only with RoCE and a controller that takes the HPCC-style window (DCQCN, HPCC, TIMELY,
    /// DCTCP's rate form).
    RoceWindowCc,
    /// Only with `routing.kind = "ucmp"` (the artifact's UCMP keeps a flow cache with its lossy
    /// key; the paper's LCMP design keeps its own 5-tuple key under this profile).
    RoutingUcmp,
    /// Only with `transport.kind = "rondo"`.
    Rondo,
    /// Only with `transport.kind = "rondo"` and capacity probing on (without it `W0` defaults to
    /// a line-rate BDP split over the paths: the ablation's "w/o probing" variants, Fig 21).
    RondoProbing,
    /// Only with `topology.kind = "clos3"`.
    Clos3,
}

/// One entry: (table path, field, value as TOML, when).
pub type Entry = (&'static str, &'static str, &'static str, When);

/// The `ns3-hpcc` profile (`docs/ns3-equivalence.md`, one row per entry).
pub const NS3_HPCC: &[Entry] = &[
    ("network", "ack_class", "\"data\"", When::Always),
    ("network", "host_ack_pausable", "true", When::Always),
    ("network", "ack_size", "\"60B\"", When::Always),
    ("network", "mmu", "\"hpcc\"", When::Always),
    ("network", "mmu_arith", "\"u32-wrap\"", When::Always),
    ("network", "egress_queue_cap", "\"1000MiB\"", When::Always),
    ("network", "egress_cap_leak", "true", When::Always),
    ("network", "pfc_frame", "\"queued\"", When::Always),
    ("network", "window_bdp", "\"ns3-wrap\"", When::Always),
    ("network", "tx_time", "\"floor-ns\"", When::Always),
    ("network", "sport", "\"ns3-pair-counter\"", When::Always),
    ("routing", "nexthop_order", "\"ns3-bfs\"", When::Always),
    ("routing", "hash_dport", "100", When::Always),
    ("routing", "ack_hash", "\"swapped\"", When::Always),
    ("routing", "ucmp_cache", "true", When::RoutingUcmp),
    ("routing", "flow_key", "\"artifact\"", When::RoutingUcmp),
    ("transport.recovery_params", "nak_interval", "\"500us\"", When::Roce),
    // The fork has no retransmission timer: a 5 s one (far above any RTT its queues produce) never
    // fires spuriously and only finishes a flow whose tail was lost, which ns-3 never completes —
    // the artifact outputs leave those flows out, as ns-3's do.
    ("transport.recovery_params", "rto_initial", "\"5s\"", When::Roce),
    ("transport.recovery_params", "rto_min", "\"5s\"", When::Roce),
    ("transport.recovery_params", "rto_max", "\"10s\"", When::Roce),
    ("output", "fct_artifact_without_rto", "true", When::Roce),
    ("transport.cc_params", "window", "true", When::RoceWindowCc),
    ("transport.cc_params", "var_win", "true", When::RoceWindowCc),
    ("transport.cc_params", "window_wrap", "true", When::RoceWindowCc),
    ("transport.cc_params", "t_alpha", "\"55us\"", When::RoceDcqcn),
    ("transport.cc_params", "t_dec", "\"4us\"", When::RoceDcqcn),
    ("transport.cc_params", "t_inc", "\"900us\"", When::RoceDcqcn),
    ("transport.cc_params", "g", "0.00390625", When::RoceDcqcn),
    ("transport.cc_params", "fast_recovery_times", "1", When::RoceDcqcn),
    ("transport.cc_params", "rate_ai", "\"50Mbps\"", When::RoceDcqcn),
    ("transport.cc_params", "rate_hai", "\"100Mbps\"", When::RoceDcqcn),
    ("transport.cc_params", "min_rate", "\"100Mbps\"", When::RoceDcqcn),
    ("transport.cc_params", "clamp_target", "false", When::RoceDcqcn),
    ("transport.cc_params", "rate_on_first_cnp", "1.0", When::RoceDcqcn),
];

/// The `rondo-sim` profile: the network model of every figure of the Rondo paper's simulations
/// (§6.2–6.4 and the appendix). Stated by §6.2.1: the Clos, its rates, the reorder buffer and
/// ARCC's parameters. Open in the paper and chosen once (docs/rondo.md, "The evaluation's
/// network model"): the link delay, MTU and header; steering (the transport puts each logical
/// path on its own UDP source port, Appendix D, and the simulated switches hash it as they do
/// every baseline's: `routing.kind = "ecmp"`); the
/// switch buffer (32 MiB shared, the ns-3 HPCC fork's default, as the paper's ns-3 simulations
/// would have); PFC on with its dynamic threshold; ECN at 400 KB / 1.6 MB at 100 Gb/s, scaled
/// with the rate (the fork's 100 Gb/s thresholds); `W0` = 4 MTU per logical path; capacity probes
/// in their own class below data with a 64 KiB queue limit.
pub const RONDO_SIM: &[Entry] = &[
    // §6.2.1: "a three-tier Clos topology comprising 320 servers across 5 pods. Each pod contains
    // 4 ToR and 4 aggregation switches, and 16 core switches interconnect the pods.
    // Server-to-ToR links operate at 100 Gbps, while inter-switch links operate at 400 Gbps. The
    // default topology is non-oversubscribed (1:1)".
    ("topology", "kind", "\"clos3\"", When::Always),
    ("topology", "pods", "5", When::Clos3),
    ("topology", "tors_per_pod", "4", When::Clos3),
    ("topology", "aggs_per_pod", "4", When::Clos3),
    ("topology", "cores", "16", When::Clos3),
    ("topology", "hosts_per_tor", "16", When::Clos3),
    ("topology", "host_rate", "\"100Gbps\"", When::Clos3),
    ("topology", "fabric_rate", "\"400Gbps\"", When::Clos3),
    ("topology", "oversubscription", "1", When::Clos3),
    // Open: the link delay (1 µs per link: a 12 µs base RTT across pods).
    ("topology", "delay", "\"1us\"", When::Clos3),
    // §6.2.2: "each NIC has a 1.2 MB shared reorder buffer".
    ("network", "reorder_buffer", "\"1.2MB\"", When::Always),
    // Open: packet size and header.
    ("network", "mtu", "\"1000B\"", When::Always),
    ("network", "header", "\"64B\"", When::Always),
    // Open: the switch buffer, PFC, ECN and the probe class.
    ("network", "buffer", "\"32MiB\"", When::Always),
    ("network", "dt_alpha", "1.0", When::Always),
    ("network", "pfc", "true", When::Always),
    ("network", "pfc_shift", "3", When::Always),
    ("network", "ecn", "true", When::Always),
    ("network", "kmin", "\"400KB\"", When::Always),
    ("network", "kmax", "\"1600KB\"", When::Always),
    ("network", "pmax", "0.2", When::Always),
    ("network", "ecn_scale_with_rate", "true", When::Always),
    ("network", "probe_queue_limit", "\"64KiB\"", When::Always),
    // Open: how a logical path reaches a physical path (Appendix D: one UDP source port per
    // logical path; hashed by the switches, as every baseline's flows are).
    ("routing", "kind", "\"ecmp\"", When::Always),
    // §6.2.1: "Tu = 0.5 base_RTT, q0 = 3 MTU, τq = 0.04 max_base_RTT, ... α = 0.8, and γ = 0.5".
    ("transport", "tu", "0.5", When::Rondo),
    ("transport", "q0", "3", When::Rondo),
    ("transport", "tau_q", "0.04", When::Rondo),
    ("transport", "alpha", "0.8", When::Rondo),
    ("transport", "gamma", "0.5", When::Rondo),
    // Open: the initial window per logical path (§4.2.2 names W0 without a value).
    ("transport", "w0", "4", When::RondoProbing),
];

/// The entries of a profile (`None` for `braid`, which changes nothing).
fn entries(profile: &str) -> Option<&'static [Entry]> {
    match profile {
        "ns3-hpcc" => Some(NS3_HPCC),
        "rondo-sim" => Some(RONDO_SIM),
        _ => None,
    }
}

/// The fields a profile sets (`path.key`), for checks that a scenario keeps them.
pub fn fields(profile: &str) -> Vec<String> {
    entries(profile).unwrap_or(&[]).iter().map(|(p, k, _, _)| format!("{p}.{k}")).collect()
}

/// Check a `network.profile` value.
pub fn check(profile: Option<&str>) -> Result<(), String> {
    match profile {
        None => Ok(()),
        Some(p) if PROFILES.iter().any(|(n, _)| *n == p) => Ok(()),
        Some(p) => Err(format!(
            "`network.profile`: unknown profile `{p}` (known: {})",
            PROFILES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn table_mut<'a>(root: &'a mut Table, path: &str) -> &'a mut Table {
    let mut t = root;
    for part in path.split('.') {
        let v = t.entry(part.to_string()).or_insert_with(|| Value::Table(Table::new()));
        if !v.is_table() {
            *v = Value::Table(Table::new());
        }
        t = v.as_table_mut().expect("a table");
    }
    t
}

fn get<'a>(root: &'a Table, path: &str, key: &str) -> Option<&'a Value> {
    let mut t = root;
    for part in path.split('.') {
        t = t.get(part)?.as_table()?;
    }
    t.get(key)
}

/// A field the scenario gives that the profile would have set otherwise: `path.key`, the
/// scenario's value and the profile's, both as TOML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The field (`transport.recovery_params.rto_min`).
    pub field: String,
    /// Its value in the scenario.
    pub scenario: String,
    /// The profile's value.
    pub profile: String,
}

/// Expand the scenario's `network.profile` into its tables (fields already present win) and
/// return the fields already present that differ from the profile (what keeps the run from
/// having the profile's semantics).
pub fn apply(root: &mut Table) -> Result<Vec<Conflict>, String> {
    let profile = get(root, "network", "profile")
        .map(|v| v.as_str().map(str::to_string).ok_or("`network.profile` must be a string"));
    let entries: &[Entry] = match profile.transpose()?.as_deref() {
        None | Some("braid") => return Ok(Vec::new()),
        Some(p) => match entries(p) {
            Some(e) => e,
            None => return check(Some(p)).map(|_| Vec::new()),
        },
    };
    let mut conflicts = Vec::new();
    let kind = get(root, "transport", "kind").and_then(Value::as_str).unwrap_or("").to_string();
    let cc = get(root, "transport", "cc").and_then(Value::as_str).unwrap_or("dcqcn").to_string();
    for &(path, key, value, when) in entries {
        let applies = match when {
            When::Always => true,
            When::Roce => kind == "roce",
            When::RoceDcqcn => kind == "roce" && cc == "dcqcn",
            When::RoceWindowCc => {
                kind == "roce" && ["dcqcn", "hpcc", "timely", "dctcp"].contains(&cc.as_str())
            }
            When::RoutingUcmp => {
                get(root, "routing", "kind").and_then(Value::as_str) == Some("ucmp")
            }
            When::Rondo => kind == "rondo",
            When::RondoProbing => {
                kind == "rondo"
                    && get(root, "transport", "probing").and_then(Value::as_bool) != Some(false)
            }
            When::Clos3 => get(root, "topology", "kind").and_then(Value::as_str) == Some("clos3"),
        };
        if !applies {
            continue;
        }
        let v: Value = format!("v = {value}")
            .parse::<Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .expect("profile values are TOML");
        if let Some(have) = get(root, path, key) {
            if *have != v {
                conflicts.push(Conflict {
                    field: format!("{path}.{key}"),
                    scenario: have.to_string(),
                    profile: value.to_string(),
                });
            }
            continue;
        }
        table_mut(root, path).insert(key.to_string(), v);
    }
    Ok(conflicts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_fills_only_missing_fields() {
        let mut t: Table =
            "[network]\nprofile = \"ns3-hpcc\"\nack_size = \"64B\"\n[transport]\nkind = \"roce\"\n"
                .parse()
                .unwrap();
        let c = apply(&mut t).unwrap();
        assert_eq!(
            c,
            vec![Conflict {
                field: "network.ack_size".into(),
                scenario: "\"64B\"".into(),
                profile: "\"60B\"".into()
            }]
        );
        let n = t["network"].as_table().unwrap();
        assert_eq!(n["ack_class"].as_str(), Some("data"));
        assert_eq!(n["ack_size"].as_str(), Some("64B"), "an explicit field wins");
        let mut b: Table = "[network]\nprofile = \"braid\"\n".parse().unwrap();
        let before = b.clone();
        apply(&mut b).unwrap();
        assert_eq!(b, before);
        let mut bad: Table = "[network]\nprofile = \"ns2\"\n".parse().unwrap();
        assert!(apply(&mut bad).unwrap_err().contains("unknown profile `ns2`"));
    }
}
