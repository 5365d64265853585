//! Scenario files: TOML with top-level `name`, `seed`, optional `stop`, and tables `[topology]`,
//! `[network]`, `[transport]`, `[routing]`, `[workload]`, `[output]` (the scenario
//! contract of `docs/architecture.md`). Parsing validates everything up front and names the field
//! of any error; unknown fields and kinds are errors.

use std::path::{Path, PathBuf};

use braid_core::{Rate, Time};
use braid_net::config::{
    EcnConfig, LinkChange, LinkEvent, NetConfig, PfcConfig, RoutingMode, RoutingParams, CLASS_PROBE,
};
use braid_net::topo;
use braid_net::Topology;
use braid_proto::cc::{CcConfig, CcKind};
use braid_proto::recovery::{RecoveryConfig, RecoveryKind};
use braid_proto::transport::{TransportConfig, TransportKind};
use braid_workload::{ConnectionMode, WorkloadSpec, MAIN_GROUP, MAX_START};
use toml::Table;

use crate::fields::{apply_set, Fields};
use crate::kinds::{self, Split};

/// What to record besides `summary.json` and `flows.csv`.
#[derive(Clone, Debug, Default)]
pub struct OutputSpec {
    /// Sampling interval of queues and reorder state.
    pub sample_interval: Option<Time>,
    /// Write `queues.csv`.
    pub queues: bool,
    /// Write `ood.csv`.
    pub ood: bool,
    /// Write `goodput.csv`.
    pub goodput: bool,
    /// Write `paths.csv`: per-flow, per-logical-path window, ACK rate, inflight, margin, forward
    /// delay and skip (senders that report them: Rondo).
    pub paths: bool,
    /// Write `fct.txt` in the LCMP artifact's `fct_*.txt` format.
    pub fct_artifact: bool,
    /// Leave flows that needed a retransmission timeout out of `fct.txt`, `fct_stats.csv` and the
    /// summary's `fct_slowdown_artifact_rule` (`output.fct_artifact_without_rto`; the ns-3 fork has
    /// no timer, so such a flow never completes there and is missing from its outputs).
    pub fct_artifact_without_rto: bool,
    /// Write `link_util.csv`: DCI-to-DCI link utilisation per `sample_interval` (default 1 ms).
    pub link_util: bool,
    /// Write `decisions.csv`: every LCMP decision with its candidates' costs (`output.decisions`).
    pub decisions: bool,
    /// Restrict `slowdown_bins.csv` to flows between these two groups (DCs), either direction.
    pub slowdown_groups: Option<(u32, u32)>,
    /// Links whose packets are written to `capture.pcap` (`output.pcap = [link, …]`: the
    /// topology's link indices, as integers or strings such as `"3"`; `braid links` lists them).
    pub pcap: Vec<u32>,
}

/// A parsed, validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Name.
    pub name: String,
    /// Master seed.
    pub seed: u64,
    /// Stop time (`None`: until every flow completes).
    pub stop: Option<Time>,
    /// The network.
    pub topology: Topology,
    /// Topology kind name.
    pub topology_kind: String,
    /// Network parameters.
    pub net: NetConfig,
    /// Transport.
    pub transport: TransportConfig,
    /// Workload.
    pub workload: WorkloadSpec,
    /// How the workload's messages map onto connections (`workload.connections`; `None`: the
    /// workload kind's default, [`Scenario::connection_mode`]).
    pub connections: Option<ConnectionMode>,
    /// Flow groups with a transport of their own (`[groups.<name>.transport]`); the flows of
    /// every other group run `transport`.
    pub groups: Vec<GroupSpec>,
    /// Outputs.
    pub output: OutputSpec,
    /// Scheduled link changes.
    pub link_events: Vec<LinkEvent>,
    /// Limits that end a run which does not finish (`[run]`).
    pub limits: RunLimits,
    /// The scenario text after overrides (for the record).
    pub resolved_toml: String,
    /// Warnings about the scenario itself (a profile field it overrides, …), printed on stderr
    /// and recorded in `summary.json`'s `warnings`.
    pub notes: Vec<String>,
    /// The `network.profile` in use (`braid` when none is named).
    pub profile: String,
    /// The fields (`table.field`) this scenario gives a value other than its profile's.
    pub profile_overrides: Vec<String>,
}

/// A flow group's own transport: `[groups.<name>.transport]`, a table of the same form as
/// `[transport]` (`docs/workloads.md`, "Mixed transports").
#[derive(Clone, Debug)]
pub struct GroupSpec {
    /// The group's name, as the workload labels its flows (`background`).
    pub name: String,
    /// Its transport.
    pub transport: TransportConfig,
}

impl Scenario {
    /// How messages map onto connections: `workload.connections`, or by default one persistent
    /// connection per host pair for collectives (a collective library keeps one queue pair per
    /// peer), Chakra traces included, and a connection per message for every other workload.
    pub fn connection_mode(&self) -> ConnectionMode {
        self.connections.unwrap_or(match self.workload {
            WorkloadSpec::Collective(_) | WorkloadSpec::Chakra(_) => ConnectionMode::PerPair,
            _ => ConnectionMode::PerMessage,
        })
    }

    /// The transport of flow group `name` (its own, or `transport`).
    pub fn group_transport(&self, name: &str) -> &TransportConfig {
        self.groups.iter().find(|g| g.name == name).map_or(&self.transport, |g| &g.transport)
    }

    /// Every transport the scenario configures: `transport`, then each group's.
    pub fn transports(&self) -> impl Iterator<Item = &TransportConfig> {
        std::iter::once(&self.transport).chain(self.groups.iter().map(|g| &g.transport))
    }
}

/// The `[run]` table: limits that end a run cleanly, with exit code 3 and a partial summary,
/// instead of letting it spin.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunLimits {
    /// `run.stall_timeout`: the progress watchdog's span of simulated time without a byte
    /// delivered in order or a flow completed while flows are active. `None`: the default,
    /// [`DEFAULT_STALL_RTTS`] × the largest base RTT of the workload's paths (at least
    /// [`MIN_STALL_TIMEOUT`]).
    pub stall_timeout: Option<Time>,
    /// `run.max_sim_time`: stop at this simulated time even if flows are still running.
    pub max_sim_time: Option<Time>,
    /// `run.max_wall`: stop after this much wall-clock time (checked every 65,536 events; the
    /// only limit whose stopping point depends on the machine).
    pub max_wall_s: Option<f64>,
    /// `run.threads` (or `braid run --threads N`): run as a conservative parallel simulation
    /// over up to this many partitions, one thread each (`docs/parallel.md`). `None`: the one
    /// sequential queue. Any value, 1 included, orders equal-time events by origin node, so its
    /// outputs are the same bytes for every thread count but not those of the sequential queue.
    pub threads: Option<usize>,
    /// `run.partitions`: how many partitions the threads share (they take them largest first,
    /// window by window). `None`: a datacenter each on inter-DC networks (at most 8 per thread),
    /// one per thread inside a datacenter ([`braid_net::parallel::default_partitions`]).
    pub partitions: Option<usize>,
}

/// The default stall timeout, in base RTTs of the slowest path.
pub const DEFAULT_STALL_RTTS: u64 = 1000;
/// The smallest default stall timeout (short paths still get room for RTO backoff).
pub const MIN_STALL_TIMEOUT: Time = Time::from_ms(100);

/// Load a scenario file, apply `--set` overrides and an optional seed override.
pub fn load(path: &Path, sets: &[String], seed: Option<u64>) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read scenario `{}`: {e}", path.display()))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&text, &base, sets, seed).map_err(|e| format!("{}: {e}", path.display()))
}

/// [`load`] for `braid links`: the links are the topology's, so when the `[[faults]]` are what
/// fails (a node or link they name does not exist — the names `braid links` is there to show),
/// the scenario is loaded without them and their error comes back as the second value.
pub fn load_topology(path: &Path, sets: &[String]) -> Result<(Scenario, Option<String>), String> {
    match load(path, sets, None) {
        Ok(sc) => Ok((sc, None)),
        Err(full) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read scenario `{}`: {e}", path.display()))?;
            let mut root: Table = text.parse().map_err(|_| full.clone())?;
            if root.remove("faults").is_none() {
                return Err(full);
            }
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let sets: Vec<String> =
                sets.iter().filter(|s| !s.trim_start().starts_with("faults")).cloned().collect();
            let sc = parse(&root.to_string(), &base, &sets, None).map_err(|_| full.clone())?;
            Ok((sc, Some(full)))
        }
    }
}

/// Parse scenario text. File paths inside are resolved against `base` (the scenario's folder)
/// when they do not exist relative to the working directory.
pub fn parse(
    text: &str,
    base: &Path,
    sets: &[String],
    seed: Option<u64>,
) -> Result<Scenario, String> {
    let mut root: Table = text
        .parse()
        .map_err(|e: toml::de::Error| format!("malformed TOML: {}", e.message().trim()))?;
    let file_kinds: Vec<Option<String>> = kinds::TABLES
        .iter()
        .map(|spec| {
            root.get(spec.name)
                .and_then(toml::Value::as_table)
                .and_then(|t| kinds::kind_of(spec, t))
                .map(str::to_string)
        })
        .collect();
    let group_file_kinds = group_transport_kinds(&root);
    for s in sets {
        kinds::check_set_target(&root, s)?;
        apply_set(&mut root, s)?;
    }
    if let Some(s) = seed {
        root.insert("seed".into(), toml::Value::Integer(s as i64));
    }
    let splits = select_kinds(&mut root, &file_kinds, sets)?;
    let group_splits = select_group_kinds(&mut root, &group_file_kinds, sets)?;
    let conflicts = crate::profile::apply(&mut root)?;
    let mut notes = profile_conflicts(&root, &conflicts, sets)?;
    let profile_overrides: Vec<String> = conflicts.iter().map(|c| c.field.clone()).collect();
    let profile = root
        .get("network")
        .and_then(|n| n.get("profile"))
        .and_then(toml::Value::as_str)
        .unwrap_or("braid")
        .to_string();
    let [topo_k, tr_k, rt_k, wl_k] = [0, 1, 2, 3].map(|i| &splits[i].active);
    let resolved_toml = kinds::dropped_note(&splits) + &toml::to_string(&root).unwrap_or_default();
    let f = Fields::new("", &root);
    let name = f.str("name")?.unwrap_or("unnamed").to_string();
    let seed = f.uint("seed")?.unwrap_or(1);
    let stop = f.time("stop")?;
    if stop == Some(Time::ZERO) {
        return Err("`stop` must be positive".into());
    }
    let topo_t = f.table("topology")?.ok_or("missing table [topology]")?;
    let (topology, topology_kind) =
        crate::topology_kinds::parse_topology(&topo_t, base).map_err(|e| topo_k.locate(e))?;
    let empty = Table::new();
    let net_t = f.table("network")?.unwrap_or_else(|| Fields::new("network", &empty));
    let mut net = parse_network(&net_t)?;
    let tr_t = f.table("transport")?.ok_or("missing table [transport]")?;
    let verb = parse_verb(&tr_t).map_err(|e| tr_k.locate(e))?;
    let mut transport = parse_transport(&tr_t).map_err(|e| tr_k.locate(e))?;
    let mut groups = Vec::with_capacity(group_splits.len());
    for (name, split) in &group_splits {
        let at = |e: String| format!("[groups.{name}] {}", split.active.locate(e));
        let gf = Fields::new(&format!("groups.{name}.transport"), &split.active.table);
        let gverb = parse_verb(&gf).map_err(at)?;
        let mut tc = parse_transport(&gf).map_err(at)?;
        tc.recovery.psn_limit = psn_limit(&net, gverb);
        groups.push(GroupSpec { name: name.clone(), transport: tc });
    }
    if transport.cc.kind.reads_int() || groups.iter().any(|g| g.transport.cc.kind.reads_int()) {
        net.int_enabled = true;
    }
    let empty2 = Table::new();
    let rt_t = f.table("routing")?.unwrap_or_else(|| Fields::new("routing", &empty2));
    (net.routing, net.routing_params) = parse_routing(&rt_t).map_err(|e| rt_k.locate(e))?;
    let wl_t = f.table("workload")?.ok_or("missing table [workload]")?;
    let (workload, connections) = parse_workload(&wl_t, base).map_err(|e| wl_k.locate(e))?;
    let empty3 = Table::new();
    let out_t = f.table("output")?.unwrap_or_else(|| Fields::new("output", &empty3));
    let output = parse_output(&out_t, topology.links.len())?;
    transport.header_bytes = net.header_bytes;
    transport.network_trims = net.trim.enabled;
    transport.recovery.psn_limit = psn_limit(&net, verb);
    transport.validate().map_err(|e| tr_k.locate(format!("[transport] {e}")))?;
    for (g, (name, split)) in groups.iter_mut().zip(&group_splits) {
        g.transport.header_bytes = net.header_bytes;
        g.transport.network_trims = net.trim.enabled;
        g.transport.validate().map_err(|e| {
            format!("[groups.{name}] {}", split.active.locate(format!("[transport] {e}")))
        })?;
    }
    check_inactive_kinds(&splits, base, net.header_bytes)?;
    for (name, split) in &group_splits {
        check_inactive_kinds(std::slice::from_ref(split), base, net.header_bytes)
            .map_err(|e| format!("[groups.{name}] {e}"))?;
    }
    let link_events = match f.array("faults")? {
        Some(a) => {
            let topo_overridden = sets.iter().any(|s| s.trim_start().starts_with("topology."));
            let (events, fault_notes) =
                parse_faults(a, &topology, seed, net.loss_rate, topo_overridden)?;
            notes.extend(fault_notes);
            events
        }
        None => Vec::new(),
    };
    let limits = match f.table("run")? {
        Some(t) => parse_limits(&t)?,
        None => RunLimits::default(),
    };
    if f.has("groups") {
        f.table("groups")?;
    }
    f.finish(&[
        "name",
        "seed",
        "stop",
        "topology",
        "network",
        "transport",
        "routing",
        "workload",
        "output",
        "faults",
        "run",
        "groups",
    ])?;
    // Cross-field checks.
    if net.reorder_buffer_bytes < net.mtu_bytes as u64 {
        return Err(format!(
            "`network.reorder_buffer` ({} B) is smaller than one packet (mtu {} B)",
            net.reorder_buffer_bytes, net.mtu_bytes
        ));
    }
    Ok(Scenario {
        name,
        seed,
        stop,
        topology,
        topology_kind,
        net,
        transport,
        workload,
        connections,
        groups,
        output,
        link_events,
        limits,
        resolved_toml,
        notes,
        profile,
        profile_overrides,
    })
}

/// What a profile's fields that the scenario overrides mean (`network.profile`,
/// `docs/ns3-equivalence.md`). A profile given by `--set` on a file whose own fields contradict
/// it would run half-applied — the file's RTO, say, in place of the fork's absent timer — so that
/// is an error naming every such field. Fields given by `--set`, or a file that sets the profile
/// itself and overrides some of its fields, are deliberate: each is returned as a note.
fn profile_conflicts(
    root: &Table,
    conflicts: &[crate::profile::Conflict],
    sets: &[String],
) -> Result<Vec<String>, String> {
    let from_set = |field: &str| {
        sets.iter().any(|s| s.split_once('=').is_some_and(|(k, _)| k.trim() == field))
    };
    let profile = root
        .get("network")
        .and_then(|n| n.get("profile"))
        .and_then(toml::Value::as_str)
        .unwrap_or("braid");
    let profile_by_set = from_set("network.profile");
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    for c in conflicts {
        let line = format!("`{}` = {} (the profile's: {})", c.field, c.scenario, c.profile);
        if profile_by_set && !from_set(&c.field) {
            errors.push(line);
        } else {
            notes.push(format!("network.profile = \"{profile}\" is overridden: {line}"));
        }
    }
    if !errors.is_empty() {
        return Err(format!(
            "`network.profile = \"{profile}\"` (given by --set) contradicts {} field(s) this file sets, so the run would have neither semantics: {}. Remove them from the file, or keep one deliberately by giving it with --set too",
            errors.len(),
            errors.join("; ")
        ));
    }
    Ok(notes)
}

/// The transport kind each `[groups.<name>.transport]` table of the file names, by group.
fn group_transport_kinds(root: &Table) -> Vec<(String, Option<String>)> {
    let Some(groups) = root.get("groups").and_then(toml::Value::as_table) else {
        return Vec::new();
    };
    groups
        .iter()
        .map(|(name, g)| {
            let kind = g
                .get("transport")
                .and_then(toml::Value::as_table)
                .and_then(|t| kinds::kind_of(&kinds::TRANSPORT, t))
                .map(str::to_string);
            (name.clone(), kind)
        })
        .collect()
}

/// Split each group's transport table as [`select_kinds`] splits `[transport]` (a group's
/// `--set groups.<name>.transport.<field>=…` plays the part of `--set transport.<field>=…`),
/// and replace it with its active kind's fields. Checks the form of `[groups]`: each entry a
/// table holding one table, `transport`, and no group named `main` (whose transport is
/// `[transport]`).
fn select_group_kinds(
    root: &mut Table,
    file_kinds: &[(String, Option<String>)],
    sets: &[String],
) -> Result<Vec<(String, Split)>, String> {
    let Some(groups) = root.get_mut("groups") else { return Ok(Vec::new()) };
    let groups = groups
        .as_table_mut()
        .ok_or("`groups` must be a table of flow groups, e.g. `[groups.background.transport]`")?;
    let mut out = Vec::new();
    for (name, g) in groups.iter_mut() {
        if name == MAIN_GROUP {
            return Err(format!("`[groups.{MAIN_GROUP}]`: the `{MAIN_GROUP}` group runs `[transport]`; give other groups their own"));
        }
        let g = g
            .as_table_mut()
            .ok_or_else(|| format!("`groups.{name}` must be a table with a `transport` table"))?;
        if let Some(k) = g.keys().find(|k| *k != "transport") {
            return Err(format!(
                "unknown field `groups.{name}.{k}` (known fields of `groups.{name}`: transport)"
            ));
        }
        let t = g
            .get("transport")
            .and_then(toml::Value::as_table)
            .ok_or_else(|| format!("`groups.{name}` needs a `transport` table (`[groups.{name}.transport]`, the form of `[transport]`)"))?;
        let prefix = format!("groups.{name}.");
        let group_sets: Vec<String> =
            sets.iter().filter_map(|a| a.strip_prefix(&prefix)).map(str::to_string).collect();
        let set_fields: Vec<String> =
            group_sets.iter().filter_map(|a| kinds::set_field(&kinds::TRANSPORT, a)).collect();
        let file_kind = file_kinds.iter().find(|(n, _)| n == name).and_then(|(_, k)| k.as_deref());
        let split = kinds::split(&kinds::TRANSPORT, t, file_kind, &set_fields)
            .map_err(|e| format!("[groups.{name}] {e}"))?;
        g.insert("transport".into(), toml::Value::Table(split.active.table.clone()));
        out.push((name.clone(), split));
    }
    Ok(out)
}

/// Split each kinded table (`crate::kinds`) into its active kind's fields, which replace the
/// table in `root` (what the run uses and `scenario.resolved.toml` records), and the fields of
/// other kinds, checked later by [`check_inactive_kinds`]. `file_kinds` are the kinds the file
/// wrote, in the order of [`kinds::TABLES`].
fn select_kinds(
    root: &mut Table,
    file_kinds: &[Option<String>],
    sets: &[String],
) -> Result<Vec<Split>, String> {
    let mut splits = Vec::with_capacity(kinds::TABLES.len());
    for (spec, file_kind) in kinds::TABLES.iter().zip(file_kinds) {
        let set_fields: Vec<String> =
            sets.iter().filter_map(|a| kinds::set_field(spec, a)).collect();
        let split = match root.get(spec.name).and_then(toml::Value::as_table) {
            Some(t) => kinds::split(spec, t, file_kind.as_deref(), &set_fields)?,
            None => kinds::split(spec, &Table::new(), None, &[])?,
        };
        if root.get(spec.name).is_some_and(toml::Value::is_table) {
            root.insert(spec.name.to_string(), toml::Value::Table(split.active.table.clone()));
        }
        splits.push(split);
    }
    Ok(splits)
}

/// Validate the fields of every inactive kind as if that kind were active; errors say which kind
/// and name the field where it is written (`transport.uet.foo`).
fn check_inactive_kinds(splits: &[Split], base: &Path, header_bytes: u32) -> Result<(), String> {
    for i in splits.iter().flat_map(|s| &s.inactive) {
        let f = Fields::new(i.table_name, &i.table);
        let checked = match i.table_name {
            "topology" => crate::topology_kinds::parse_topology(&f, base).map(|_| ()),
            "transport" => parse_verb(&f).and_then(|_| parse_transport(&f)).and_then(|mut tc| {
                tc.header_bytes = header_bytes;
                tc.validate().map_err(|e| format!("[transport] {e}"))
            }),
            "routing" => parse_routing(&f).map(|_| ()),
            _ => parse_workload(&f, base).map(|_| ()),
        };
        checked.map_err(|e| {
            format!("{} kind `{}` (inactive in this run): {}", i.table_name, i.kind, i.locate(e))
        })?;
    }
    Ok(())
}

fn parse_limits(f: &Fields) -> Result<RunLimits, String> {
    let positive = |key: &str| -> Result<Option<Time>, String> {
        match f.time(key)? {
            Some(t) if t == Time::ZERO => Err(format!("`run.{key}` must be positive")),
            t => Ok(t),
        }
    };
    let limits = RunLimits {
        stall_timeout: positive("stall_timeout")?,
        max_sim_time: positive("max_sim_time")?,
        max_wall_s: positive("max_wall")?.map(|t| t.secs_f64()),
        threads: match f.pos_uint("threads")? {
            Some(n) if n > 1024 => return Err(format!("`run.threads` = {n}: at most 1024")),
            n => n.map(|n| n as usize),
        },
        partitions: match f.pos_uint("partitions")? {
            Some(n) if n > 4096 => return Err(format!("`run.partitions` = {n}: at most 4096")),
            n => n.map(|n| n as usize),
        },
    };
    if limits.partitions.is_some() && limits.threads.is_none() {
        return Err(
            "`run.partitions` needs `run.threads` (the parallel engine, docs/parallel.md)".into()
        );
    }
    f.finish(&["stall_timeout", "max_sim_time", "max_wall", "threads", "partitions"])?;
    Ok(limits)
}

fn resolve_file(base: &Path, p: &str) -> PathBuf {
    let direct = PathBuf::from(p);
    if direct.exists() || direct.is_absolute() {
        return direct;
    }
    let rel = base.join(p);
    if rel.exists() {
        rel
    } else {
        direct
    }
}

pub(crate) fn read_file(f: &Fields, key: &str, base: &Path) -> Result<String, String> {
    let p = f.req_str(key)?;
    let path = resolve_file(base, p);
    std::fs::read_to_string(&path)
        .map_err(|e| format!("`{}`: cannot read `{}`: {e}", f.name(key), path.display()))
}

pub(crate) fn usize_or(f: &Fields, key: &str, d: usize) -> Result<usize, String> {
    Ok(f.pos_uint(key)?.map(|x| x as usize).unwrap_or(d))
}

fn parse_network(f: &Fields) -> Result<NetConfig, String> {
    let mut n = NetConfig::default();
    network_packet_sizes(f, &mut n)?;
    network_buffers(f, &mut n)?;
    n.ecn = network_ecn(f)?;
    n.pfc = network_pfc(f)?;
    if let Some(b) = f.bool("int")? {
        n.int_enabled = b;
    }
    for (key, slot) in [
        ("max_outstanding_psn", &mut n.max_outstanding_psn),
        ("max_outstanding_reads", &mut n.max_outstanding_reads),
    ] {
        if let Some(v) = f.pos_uint(key)? {
            *slot =
                Some(u32::try_from(v).map_err(|_| {
                    format!("`network.{key}` must be at most {}, got {v}", u32::MAX)
                })?);
        }
    }
    if let Some(r) = f.size("reorder_buffer")? {
        n.reorder_buffer_bytes = r;
    }
    network_loss_and_trim(f, &mut n)?;
    network_semantics(f, &mut n)?;
    crate::profile::check(f.str("profile")?)?;
    network_trim_size(f, &mut n)?;
    f.finish(&[
        "mtu",
        "header",
        "ack_size",
        "buffer",
        "dci_buffer",
        "dt_alpha",
        "probe_queue_limit",
        "queue_limit",
        "ecn",
        "kmin",
        "kmax",
        "pmax",
        "ecn_scale_with_rate",
        "pfc",
        "pfc_xoff",
        "pfc_shift",
        "pfc_resume_offset",
        "int",
        "reorder_buffer",
        "max_outstanding_psn",
        "max_outstanding_reads",
        "loss_rate",
        "loss_on",
        "trim",
        "trim_size",
        "ack_class",
        "host_ack_pausable",
        "mmu",
        "mmu_arith",
        "egress_queue_cap",
        "egress_cap_leak",
        "pfc_frame",
        "window_bdp",
        "tx_time",
        "sport",
        "profile",
    ])?;
    Ok(n)
}

/// `network.<key>`: one of `options` by name (absent: the first).
fn network_choice<T: Copy>(f: &Fields, key: &str, options: &[(&str, T)]) -> Result<T, String> {
    match f.str(key)? {
        None => Ok(options[0].1),
        Some(s) => options.iter().find(|o| o.0 == s).map(|o| o.1).ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|o| o.0).collect();
            format!("`network.{key}`: unknown value `{s}` (known: {})", names.join(", "))
        }),
    }
}

/// `mtu`, `header`, `ack_size`.
fn network_packet_sizes(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(m) = f.size("mtu")? {
        if m == 0 || m > 65_536 {
            return Err(format!("`network.mtu` must be between 1 and 65536 bytes, got {m}"));
        }
        n.mtu_bytes = m as u32;
    }
    if let Some(h) = f.size("header")? {
        n.header_bytes = h.min(4096) as u32;
    }
    if let Some(a) = f.size("ack_size")? {
        if a == 0 {
            return Err("`network.ack_size` must be positive".into());
        }
        n.ack_bytes = a.min(4096) as u32;
    }
    Ok(())
}

/// The switch buffer and its per-class limits: `buffer`, `dci_buffer`, `dt_alpha`,
/// `probe_queue_limit`, `queue_limit`.
fn network_buffers(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(b) = f.size("buffer")? {
        if b == 0 {
            return Err("`network.buffer` must be positive".into());
        }
        n.switch_buffer_bytes = b;
    }
    if let Some(b) = f.size("dci_buffer")? {
        n.dci_buffer_bytes = b;
    }
    if let Some(a) = f.float("dt_alpha")? {
        if a <= 0.0 {
            return Err("`network.dt_alpha` must be positive".into());
        }
        n.dt_alpha = a;
    }
    if let Some(p) = f.size("probe_queue_limit")? {
        n.class_limit_bytes[CLASS_PROBE as usize] = p;
    }
    if let Some(q) = f.size("queue_limit")? {
        n.class_limit_bytes[braid_net::config::CLASS_DATA as usize] = q;
    }
    Ok(())
}

/// ECN marking: `ecn`, `kmin`, `kmax`, `pmax`, `ecn_scale_with_rate`.
fn network_ecn(f: &Fields) -> Result<EcnConfig, String> {
    let mut ecn = EcnConfig::default();
    if let Some(b) = f.bool("ecn")? {
        ecn.enabled = b;
    }
    if let Some(k) = f.size("kmin")? {
        ecn.kmin_bytes = k;
    }
    if let Some(k) = f.size("kmax")? {
        ecn.kmax_bytes = k;
    }
    if let Some(p) = f.prob("pmax")? {
        ecn.pmax = p;
    }
    if let Some(b) = f.bool("ecn_scale_with_rate")? {
        ecn.scale_with_rate = b;
    }
    if ecn.kmax_bytes < ecn.kmin_bytes {
        return Err(format!(
            "`network.kmax` ({}) is below `network.kmin` ({})",
            ecn.kmax_bytes, ecn.kmin_bytes
        ));
    }
    Ok(ecn)
}

/// PFC: `pfc`, `pfc_xoff`, `pfc_shift`, `pfc_resume_offset`.
fn network_pfc(f: &Fields) -> Result<PfcConfig, String> {
    let mut pfc = PfcConfig::default();
    if let Some(b) = f.bool("pfc")? {
        pfc.enabled = b;
    }
    if let Some(x) = f.size("pfc_xoff")? {
        pfc.xoff_bytes = Some(x);
    }
    if let Some(s) = f.uint("pfc_shift")? {
        pfc.shift = s.min(32) as u32;
    }
    if let Some(r) = f.size("pfc_resume_offset")? {
        pfc.resume_offset_bytes = r;
    }
    Ok(pfc)
}

/// Random loss and trimming: `loss_rate`, `loss_on`, `trim`.
fn network_loss_and_trim(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    if let Some(l) = f.prob("loss_rate")? {
        n.loss_rate = l;
    }
    n.loss_forward_only = network_choice(f, "loss_on", &[("all", false), ("forward", true)])?;
    if let Some(b) = f.bool("trim")? {
        n.trim.enabled = b;
    }
    Ok(())
}

/// The switch and NIC semantics a peer simulator may differ on (`docs/ns3-equivalence.md`):
/// `ack_class`, `host_ack_pausable`, `mmu`, `mmu_arith`, `egress_queue_cap`, `egress_cap_leak`,
/// `window_bdp`, `tx_time`, `sport`, `pfc_frame`.
fn network_semantics(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    use braid_net::config::{MmuModel, WindowBdp, CLASS_CONTROL, CLASS_DATA};
    n.ack_class =
        network_choice(f, "ack_class", &[("control", CLASS_CONTROL), ("data", CLASS_DATA)])?;
    if let Some(b) = f.bool("host_ack_pausable")? {
        n.host_ack_pausable = b;
    }
    let wrap32 = network_choice(f, "mmu_arith", &[("u64", false), ("u32-wrap", true)])?;
    n.mmu = match network_choice(f, "mmu", &[("braid", false), ("hpcc", true)])? {
        false if wrap32 => {
            return Err("`network.mmu_arith = \"u32-wrap\"` needs `network.mmu = \"hpcc\"`".into())
        }
        false => MmuModel::Braid,
        true => MmuModel::Hpcc { wrap32 },
    };
    if let Some(c) = f.size("egress_queue_cap")? {
        n.egress_cap_bytes = c;
    }
    if let Some(b) = f.bool("egress_cap_leak")? {
        n.egress_cap_leak = b;
    }
    n.window_bdp = network_choice(
        f,
        "window_bdp",
        &[
            ("braid", WindowBdp::Braid),
            ("ns3", WindowBdp::Ns3 { wrap: false }),
            ("ns3-wrap", WindowBdp::Ns3 { wrap: true }),
        ],
    )?;
    n.tx_time_floor_ns = network_choice(f, "tx_time", &[("exact", false), ("floor-ns", true)])?;
    n.sport_pair_counter =
        network_choice(f, "sport", &[("random", false), ("ns3-pair-counter", true)])?;
    n.pfc_frame_queued = network_choice(f, "pfc_frame", &[("instant", false), ("queued", true)])?;
    Ok(())
}

/// `trim_size` (default: the header), at most a full packet.
fn network_trim_size(f: &Fields, n: &mut NetConfig) -> Result<(), String> {
    n.trim.size_bytes = n.header_bytes.max(1);
    if let Some(t) = f.size("trim_size")? {
        let packet = n.mtu_bytes as u64 + n.header_bytes as u64;
        if t == 0 || t > packet {
            return Err(format!(
                "`network.trim_size` must be between 1 and a full packet ({packet} bytes), got {t}"
            ));
        }
        n.trim.size_bytes = t as u32;
    }
    Ok(())
}

/// The RDMA operation every flow's data moves by (`transport.verb`; Rondo Appendix A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    /// RDMA WRITE (the default): the sender pushes; `network.max_outstanding_psn` applies.
    Write,
    /// RDMA READ: the flow's destination is the requester, which issues READs of `read_bytes`
    /// each; its source, the responder, streams the responses; `network.max_outstanding_reads`
    /// applies.
    Read {
        /// Bytes per READ operation (`transport.read_size`, default 16 KiB).
        read_bytes: u64,
    },
}

/// `transport.verb` (`write` or `read`) and `transport.read_size`.
fn parse_verb(f: &Fields) -> Result<Verb, String> {
    let read_size = f.size("read_size")?;
    match f.str("verb")? {
        None | Some("write") => {
            if read_size.is_some() {
                return Err("`transport.read_size` applies to `transport.verb = \"read\"`".into());
            }
            Ok(Verb::Write)
        }
        Some("read") => {
            let read_bytes = read_size.unwrap_or(16 * 1024);
            if read_bytes == 0 {
                return Err("`transport.read_size` must be positive".into());
            }
            Ok(Verb::Read { read_bytes })
        }
        Some(s) => Err(format!("`transport.verb`: unknown value `{s}` (known: write, read)")),
    }
}

/// The RNIC's PSN limit for `verb` under the network's `max_outstanding_*` knobs.
fn psn_limit(net: &NetConfig, verb: Verb) -> braid_proto::recovery::PsnLimit {
    use braid_proto::recovery::PsnLimit;
    match verb {
        Verb::Write => net.max_outstanding_psn.map_or(PsnLimit::None, PsnLimit::Range),
        Verb::Read { read_bytes } => match net.max_outstanding_reads {
            None => PsnLimit::None,
            Some(max_reads) => {
                let ppr = read_bytes.div_ceil(net.mtu_bytes.max(1) as u64).clamp(1, u32::MAX as u64)
                    as u32;
                PsnLimit::Reads { packets_per_read: ppr, max_reads }
            }
        },
    }
}

/// A transport configured as a scenario's `[transport]` table `t` would configure it (for
/// `braid send`: `kind`, `cc`, `recovery`, the `*_params` tables and the transport's own knobs),
/// with `header_bytes` of header per packet; every knob is checked.
pub fn transport_from_table(t: &Table, header_bytes: u32) -> Result<TransportConfig, String> {
    let f = Fields::new("transport", t);
    parse_verb(&f)?;
    let mut tc = parse_transport(&f)?;
    tc.header_bytes = header_bytes;
    tc.validate().map_err(|e| format!("[transport] {e}"))?;
    Ok(tc)
}

fn parse_transport(f: &Fields) -> Result<TransportConfig, String> {
    let kind =
        TransportKind::parse(f.req_str("kind")?).map_err(|e| format!("`transport.kind`: {e}"))?;
    let cc_kind = match f.str("cc")? {
        Some(s) => CcKind::parse(s).map_err(|e| format!("`transport.cc`: {e}"))?,
        None => kind.default_cc(),
    };
    let mut cc = CcConfig::new(cc_kind);
    if let Some(p) = f.table("cc_params")? {
        for (k, v) in p.rest_as_knobs()? {
            cc.overrides.push((k, v));
        }
    }
    let window = if f.str("window").ok().flatten() == Some("unlimited") {
        Some(braid_core::Knob::Str("unlimited".into()))
    } else {
        f.size("window")?.map(|w| braid_core::Knob::Str(format!("{w}B")))
    };
    if let Some(w) = window {
        if cc_kind != CcKind::Fixed {
            return Err("`transport.window` applies to `cc = \"fixed\"`; set the window of other controllers in `transport.cc_params`".into());
        }
        cc.overrides.push(("window".into(), w));
    }
    cc.validate().map_err(|e| format!("`transport.cc_params`: {e}"))?;
    let rec_kind = match f.str("recovery")? {
        Some(s) => RecoveryKind::parse(s).map_err(|e| format!("`transport.recovery`: {e}"))?,
        None => kind.default_recovery(),
    };
    let mut recovery = RecoveryConfig::new(rec_kind);
    if let Some(p) = f.table("recovery_params")? {
        for (k, v) in p.rest_as_knobs()? {
            braid_proto::transport::knobs::recovery_knob(&mut recovery, &k, &v)
                .map_err(|e| format!("`transport.recovery_params.{k}`: {e}"))?;
        }
    }
    // Everything else is transport-specific; the transport checks it.
    let params = f.rest_as_knobs()?;
    Ok(TransportConfig { kind, cc, recovery, header_bytes: 0, network_trims: false, params })
}

/// `[routing]`: `kind` (default `ecmp`) and the knobs of [`RoutingParams`] (LCMP weights and
/// profile switches, `quantized` for adaptive routing, `wcmp_table`, `ucmp_slack`). Knobs are
/// applied over the kind's defaults (`lcmp-artifact` starts from the artifact profile). LCMP knobs
/// are accepted with any kind so that `--set routing.kind=…` works on an LCMP scenario; they only
/// affect the LCMP kinds.
fn parse_routing(f: &Fields) -> Result<(RoutingMode, RoutingParams), String> {
    let kind = RoutingMode::parse(f.str("kind")?.unwrap_or("ecmp"))
        .map_err(|e| format!("`routing.kind`: {e}"))?;
    let mut params = RoutingParams::for_kind(kind);
    for (k, v) in f.rest_as_knobs()? {
        params.apply_knob(&k, &v)?;
    }
    f.finish(&["kind"])?;
    Ok((kind, params))
}

/// `[workload]`: the kind's spec and `workload.connections` (common to every kind).
fn parse_workload(
    f: &Fields,
    base: &Path,
) -> Result<(WorkloadSpec, Option<ConnectionMode>), String> {
    let connections = match f.str("connections")? {
        None => None,
        Some(c) => {
            Some(ConnectionMode::parse(c).map_err(|e| format!("`workload.connections`: {e}"))?)
        }
    };
    let kind = f.req_str("kind")?.to_string();
    let mut knobs = f.rest_as_knobs()?;
    // File paths are resolved against the scenario's folder.
    for (k, v) in knobs.iter_mut() {
        if k == "trace" {
            // A Chakra trace is a file prefix (`dir/moe7b` for `dir/moe7b.0.et`, …) or a folder.
            if let braid_core::Knob::Str(s) = v {
                let here = |p: &Path| {
                    p.exists() || PathBuf::from(format!("{}.0.et", p.display())).exists()
                };
                if !here(Path::new(s.as_str())) && here(&base.join(s.as_str())) {
                    *s = base.join(s.as_str()).to_string_lossy().into_owned();
                }
            }
        } else if k == "file"
            || k == "comm_groups"
            || (k == "cdf"
                && matches!(v, braid_core::Knob::Str(s) if s.contains('/') || s.contains('.')))
        {
            if let braid_core::Knob::Str(s) = v {
                *s = resolve_file(base, s).to_string_lossy().into_owned();
            }
        }
    }
    let spec = WorkloadSpec::from_table(&kind, &knobs).map_err(|e| format!("[workload] {e}"))?;
    Ok((spec, connections))
}

fn parse_output(f: &Fields, n_links: usize) -> Result<OutputSpec, String> {
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

/// `[[faults]]`: heterogeneity and failure injection. Each entry picks links — `link = N`,
/// `links = [N, …]`, or `random_fraction = 0.1` of the links in `scope` (`"fabric"`: switch–switch,
/// the default; `"host"`: host links; `"all"`), drawn from the scenario seed — and changes them at
/// `at`: `change = "down" | "up" | "rate" | "delay" | "loss"` with `rate = "25Gbps"` or
/// `rate_factor = 0.25`, `delay = "5us"` or `add_delay = "20us"`, `loss = 0.001`. With `until`,
/// the original state comes back at that time (Rondo Fig 13: 10 % of links to ¼ at 50 µs).
/// The link joining two nodes named `spec` = `"a-b"` (node names may hold `-` themselves: every
/// split point is tried, and exactly one must name two nodes that a link joins).
fn link_by_names(topo: &Topology, spec: &str) -> Result<u32, String> {
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
fn parse_faults(
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

/// The rate of a host's NIC in `topo` (the first link of its node).
pub fn host_rate(topo: &Topology, host_node: braid_core::NodeId) -> Rate {
    topo.links
        .iter()
        .find(|l| l.a == host_node || l.b == host_node)
        .map(|l| l.rate)
        .unwrap_or(Rate::from_gbps(100))
}
