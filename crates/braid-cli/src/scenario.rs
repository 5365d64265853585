//! Scenario files: TOML with top-level `name`, `seed`, optional `stop`, and tables `[topology]`,
//! `[network]`, `[transport]`, `[routing]`, `[workload]`, `[output]` (the scenario
//! contract of `docs/architecture.md`). Parsing validates everything up front and names the field
//! of any error; unknown fields and kinds are errors. One module per table: `scenario/network.rs`,
//! `transport.rs`, `output.rs`, `faults.rs`; `kind_selection.rs` picks each kinded table's kind;
//! this file holds the [`Scenario`] and the parse that assembles it.

mod faults;
mod kind_selection;
mod network;
mod output;
mod transport;

use faults::*;
use kind_selection::*;
use network::*;
use output::*;
use transport::*;
pub use transport::{transport_from_table, Verb};

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
    /// sequential queue. Its outputs are the same bytes for every thread count, and, under the
    /// default canonical order, those of a run without threads.
    pub threads: Option<usize>,
    /// `run.partitions`: how many partitions the threads share (they take them largest first,
    /// window by window). `None`: a datacenter each on inter-DC networks (at most 8 per thread),
    /// one per thread inside a datacenter ([`braid_net::parallel::default_partitions`]).
    pub partitions: Option<usize>,
    /// `run.departures = "events"`: every switch departure is scheduled as a `TxDone` event, the
    /// engine before departures on demand. The default, `"on-demand"`: switch ports carry out
    /// their departures when something needs them (`docs/architecture.md`, "Departures").
    pub departures_as_events: bool,
    /// `run.order = "insertion"`: equal-time events run in the order they were scheduled, in the
    /// one sequential queue (with `run.threads`: by origin node), the engine before the canonical
    /// order. The default, `"canonical"`: by a key that is a function of the event
    /// (`docs/architecture.md`, "Equal-time events"), and an unthreaded run is the parallel
    /// engine with one partition, so that it writes the bytes `--threads N` writes.
    pub insertion_order: bool,
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

fn parse_limits(f: &Fields) -> Result<RunLimits, String> {
    let positive = |key: &str| -> Result<Option<Time>, String> {
        match f.time(key)? {
            Some(t) if t == Time::ZERO => Err(format!("`run.{key}` must be positive")),
            t => Ok(t),
        }
    };
    // A setting of two values, the default first: whether it is the second.
    let either = |key: &str, default: &str, other: &str| -> Result<bool, String> {
        match f.str(key)? {
            None => Ok(false),
            Some(v) if v == default => Ok(false),
            Some(v) if v == other => Ok(true),
            Some(v) => Err(format!("`run.{key}` = \"{v}\": expected \"{default}\" or \"{other}\"")),
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
        insertion_order: either("order", "canonical", "insertion")?,
        departures_as_events: either("departures", "on-demand", "events")?,
    };
    if limits.insertion_order && !limits.departures_as_events && limits.threads.is_some() {
        // The origin order counts each node's events, and a port whose link is cut between
        // partitions keeps its `TxDone`s: the counts, and so the bytes, would depend on N.
        return Err("`run.order = \"insertion\"` with `run.threads` needs \
                    `run.departures = \"events\"` (the engine before departures on demand): \
                    under the origin order, departures on demand give other bytes for each \
                    thread count (docs/parallel.md)"
            .into());
    }
    if limits.partitions.is_some() && limits.threads.is_none() {
        return Err(
            "`run.partitions` needs `run.threads` (the parallel engine, docs/parallel.md)".into()
        );
    }
    f.finish(&[
        "stall_timeout",
        "max_sim_time",
        "max_wall",
        "threads",
        "partitions",
        "departures",
        "order",
    ])?;
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

/// The rate of a host's NIC in `topo` (the first link of its node).
pub fn host_rate(topo: &Topology, host_node: braid_core::NodeId) -> Rate {
    topo.links
        .iter()
        .find(|l| l.a == host_node || l.b == host_node)
        .map(|l| l.rate)
        .unwrap_or(Rate::from_gbps(100))
}
