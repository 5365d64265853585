//! [`WorkloadSpec`]: a workload described by its kind and parameters, built from a scenario's
//! `[workload]` table without this crate depending on serde.
//!
//! The CLI passes the table's `kind` and its other fields as `(name, Knob)` pairs to
//! [`WorkloadSpec::from_table`]; unknown kinds and unknown fields are errors that list the valid
//! ones (a `kind` field, if passed along, is accepted when it matches). [`WorkloadSpec::generate`]
//! then builds the [`Workload`] for a topology with `n_hosts` hosts and its host groups (DCs), from
//! the scenario seed.
//!
//! Field conventions: sizes are byte counts or strings with units (`"64KB"`); times are strings with
//! units (`"10us"`; a bare `0` is accepted); rates are strings (`"100Gbps"`); host selections are a
//! count (integer) or a string list `"0-15,32"` / `"all"` (see [`HostSel`]).
//!
//! | kind | fields (default) |
//! |---|---|
//! | `incast` | `senders` (count → random hosts, or list), `size`, `receiver` (0), `start` (0), `background` (0), `background_size` (10MB) |
//! | `permutation` | `size`, `hosts` (all), `start` (0) |
//! | `all-to-all` | `size`, `hosts` (all), `start` (0), `peers` (all others), `schedule` (simultaneous \| pairwise) |
//! | `moe` | `k`, `size`, `hosts` (all), `start` (0) |
//! | `cdf` | `cdf` (built-in name or file), `load`, `duration` or `flows`, `host_rate` (100Gbps), `inter_group` (false), `senders` (all), `receivers` (all), `start` (0) |
//! | `flow-file` | `file`, `format` (braid \| hpcc \| htsim; braid), `rebase` (false: keep the file's times), `first` (all: only the first N flows) |
//! | `collective` | `op`, `size`, `hosts` (all), `iterations` (1), `start` (0), `gap` (0), `a2a_size` (moe-training; = size) |
//! | `chakra` | `trace`, `comm_groups` (`PREFIX.json`), `placement` (spread), `compute` (duration \| roofline \| none), `peak_tflops` (300), `mem_gbps` (900), `elem_bytes` (1), `size_scale` (1), `all_reduce`/`all_gather`/`reduce_scatter` (ring \| direct), `start` (0) |

use crate::cdf::EmpiricalCdf;
use crate::chakra::{ChakraSpec, CollAlgo, ComputeModel, Placement};
use crate::collective::{CollectiveBuilder, CollectiveOp};
use crate::flowfile::{load_flow_file, FlowFileFormat};
use crate::hosts::HostSel;
use crate::patterns::{A2aSchedule, AllToAllSpec, IncastSpec, MoeSpec, PermutationSpec};
use crate::poisson::{check_load, PoissonConfig, Stop};
use crate::workload::{check_flow_count, Workload, MAX_FLOW_BYTES, MAX_START, NO_JOB};
use braid_core::{Knob, Rate, Time};
use std::path::{Path, PathBuf};

/// Where a CDF comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum CdfSource {
    /// A built-in CDF by name ([`crate::cdf::BUILTIN_CDFS`]).
    Builtin(String),
    /// A CDF file (Braid or HPCC format, detected from the values).
    File(PathBuf),
    /// A CDF given directly (API users).
    Inline(EmpiricalCdf),
}

impl CdfSource {
    /// Load the CDF.
    pub fn load(&self) -> Result<EmpiricalCdf, String> {
        match self {
            CdfSource::Builtin(n) => EmpiricalCdf::builtin(n),
            CdfSource::File(p) => EmpiricalCdf::load(p),
            CdfSource::Inline(c) => Ok(c.clone()),
        }
        .map_err(|e| format!("field `cdf`: {e}"))
    }
}

/// Parameters of the `cdf` kind (Poisson arrivals with CDF sizes; see [`crate::poisson`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CdfSpec {
    /// The flow-size distribution.
    pub cdf: CdfSource,
    /// Target load on each sender's host link, in `(0, 1]`.
    pub load: f64,
    /// Stop after a duration or a number of flows.
    pub stop: Stop,
    /// The host link rate `load` refers to.
    pub host_rate: Rate,
    /// Destinations only in other host groups (DCs).
    pub inter_group: bool,
    /// Sending hosts (a count means the first `n`).
    pub senders: HostSel,
    /// Receiving hosts (a count means the first `n`).
    pub receivers: HostSel,
    /// Start of the arrival window.
    pub start: Time,
}

/// Parameters of the `flow-file` kind.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowFileSpec {
    /// Path of the file (see [`WorkloadSpec::resolve_paths`]).
    pub file: PathBuf,
    /// Its format.
    pub format: FlowFileFormat,
    /// Shift times so that the earliest flow without dependencies starts at 0 (HPCC files start
    /// at 2.0 s).
    pub rebase: bool,
    /// Replay only the file's first this many flows (`None`: all).
    pub first: Option<u64>,
}

/// Parameters of the `collective` kind (see [`crate::collective`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveSpec {
    /// The operation.
    pub op: CollectiveOp,
    /// The group, in ring order (a count means the first `n` hosts).
    pub hosts: HostSel,
    /// Bytes per host: the buffer of the collective (all-reduce: gradients), or per hop for `p2p`.
    pub size: u64,
    /// For `moe-training`: the per-host all-to-all buffer (defaults to `size`).
    pub a2a_size: u64,
    /// Repetitions; each waits (per host) for the previous one.
    pub iterations: u32,
    /// Start of the first phase.
    pub start: Time,
    /// Delay between a host's phases (compute time).
    pub gap: Time,
}

/// A workload: one kind with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSpec {
    /// N-to-1 incast with optional background flows.
    Incast(IncastSpec),
    /// A random derangement.
    Permutation(PermutationSpec),
    /// Every ordered pair once.
    AllToAll(AllToAllSpec),
    /// Each host to `k` random receivers at once.
    Moe(MoeSpec),
    /// Poisson arrivals with sizes from a CDF, calibrated to a load.
    Cdf(CdfSpec),
    /// Flows replayed from a file.
    FlowFile(FlowFileSpec),
    /// Collective phases with dependencies.
    Collective(CollectiveSpec),
    /// A Chakra execution trace replayed.
    Chakra(ChakraSpec),
}

/// Valid kinds and their fields (for messages and documentation).
pub const KINDS: &[(&str, &[&str])] = &[
    ("incast", &["senders", "receiver", "size", "start", "background", "background_size"]),
    ("permutation", &["size", "start", "hosts"]),
    ("all-to-all", &["size", "start", "hosts", "peers", "schedule"]),
    ("moe", &["k", "size", "start", "hosts"]),
    (
        "cdf",
        &[
            "cdf",
            "load",
            "duration",
            "flows",
            "host_rate",
            "inter_group",
            "senders",
            "receivers",
            "start",
        ],
    ),
    ("flow-file", &["file", "format", "rebase", "first"]),
    ("collective", &["op", "hosts", "size", "a2a_size", "iterations", "start", "gap"]),
    (
        "chakra",
        &[
            "trace",
            "comm_groups",
            "placement",
            "compute",
            "peak_tflops",
            "mem_gbps",
            "elem_bytes",
            "size_scale",
            "all_reduce",
            "all_gather",
            "reduce_scatter",
            "start",
        ],
    ),
];

/// The fields of a table, checked against a kind's valid list.
struct Fields<'a> {
    kind: &'a str,
    fields: &'a [(String, Knob)],
}

impl<'a> Fields<'a> {
    fn new(
        kind: &'a str,
        fields: &'a [(String, Knob)],
        valid: &[&str],
    ) -> Result<Fields<'a>, String> {
        for (i, (name, value)) in fields.iter().enumerate() {
            if name == "kind" {
                if value.as_str().ok() != Some(kind) {
                    return Err(format!(
                        "workload: field `kind` is {value:?} but the kind is `{kind}`"
                    ));
                }
                continue;
            }
            if !valid.contains(&name.as_str()) {
                return Err(format!(
                    "workload `{kind}`: unknown field `{name}` (valid: {})",
                    valid.join(", ")
                ));
            }
            if fields[..i].iter().any(|(n, _)| n == name) {
                return Err(format!("workload `{kind}`: field `{name}` is given twice"));
            }
        }
        Ok(Fields { kind, fields })
    }

    fn get(&self, name: &str) -> Option<&Knob> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    fn err(&self, name: &str, e: String) -> String {
        format!("workload `{}`: field `{name}`: {e}", self.kind)
    }

    fn required<T>(&self, name: &str, f: impl Fn(&Knob) -> Result<T, String>) -> Result<T, String> {
        match self.get(name) {
            Some(v) => f(v).map_err(|e| self.err(name, e)),
            None => Err(format!("workload `{}`: missing field `{name}`", self.kind)),
        }
    }

    fn optional<T>(
        &self,
        name: &str,
        default: T,
        f: impl Fn(&Knob) -> Result<T, String>,
    ) -> Result<T, String> {
        match self.get(name) {
            Some(v) => f(v).map_err(|e| self.err(name, e)),
            None => Ok(default),
        }
    }
}

/// A time (start, duration, gap), at most [`MAX_START`].
fn knob_time(k: &Knob) -> Result<Time, String> {
    let t = match k {
        Knob::Int(0) => Time::ZERO,
        Knob::Float(f) if *f == 0.0 => Time::ZERO,
        Knob::Str(s) => braid_core::units::parse_duration(s)?,
        other => {
            return Err(format!("expected a duration with a unit such as \"10us\", got {other:?}"))
        }
    };
    if t > MAX_START {
        return Err(format!(
            "{} s is more than the limit of {} s",
            t.secs_f64(),
            MAX_START.secs_f64()
        ));
    }
    Ok(t)
}

/// A flow size, `1 ..=` [`MAX_FLOW_BYTES`].
fn knob_size(k: &Knob) -> Result<u64, String> {
    let v = k.as_bytes()?;
    if v == 0 {
        return Err("must be > 0 bytes".into());
    }
    if v > MAX_FLOW_BYTES {
        return Err(format!("{v} bytes is more than the limit of {MAX_FLOW_BYTES}"));
    }
    Ok(v)
}

fn knob_u32(k: &Knob) -> Result<u32, String> {
    let v = k.as_u64()?;
    u32::try_from(v).map_err(|_| format!("{v} is too large"))
}

fn knob_hosts(k: &Knob) -> Result<HostSel, String> {
    match k {
        Knob::Int(n) if *n > 0 && *n <= u32::MAX as i64 => Ok(HostSel::Count(*n as u32)),
        Knob::Int(n) => Err(format!("host count must be positive, got {n}")),
        Knob::Str(s) => HostSel::parse(s),
        other => Err(format!("expected a host count or a list such as \"0-15,32\", got {other:?}")),
    }
}

fn knob_rate(k: &Knob) -> Result<Rate, String> {
    let r = k.as_rate()?;
    if r.bps() == 0 {
        return Err("must be > 0".into());
    }
    Ok(r)
}

impl WorkloadSpec {
    /// Build from a scenario table: the kind and its fields (see the module docs for the list).
    pub fn from_table(kind: &str, fields: &[(String, Knob)]) -> Result<WorkloadSpec, String> {
        let Some((_, valid)) = KINDS.iter().find(|(k, _)| *k == kind) else {
            return Err(format!(
                "workload: unknown kind `{kind}` (valid: {})",
                KINDS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            ));
        };
        let f = Fields::new(kind, fields, valid)?;
        let start = f.optional("start", Time::ZERO, knob_time)?;
        Ok(match kind {
            "incast" => WorkloadSpec::Incast(IncastSpec {
                senders: f.required("senders", knob_hosts)?,
                receiver: f.optional("receiver", 0, knob_u32)?,
                size: f.required("size", knob_size)?,
                start,
                background: f.optional("background", 0, knob_u32)?,
                background_size: f.optional("background_size", 10_000_000, knob_size)?,
            }),
            "permutation" => WorkloadSpec::Permutation(PermutationSpec {
                hosts: f.optional("hosts", HostSel::All, knob_hosts)?,
                size: f.required("size", knob_size)?,
                start,
            }),
            "all-to-all" => WorkloadSpec::AllToAll(AllToAllSpec {
                hosts: f.optional("hosts", HostSel::All, knob_hosts)?,
                size: f.required("size", knob_size)?,
                start,
                peers: f.optional("peers", None, |k| knob_u32(k).map(Some))?,
                schedule: f.optional("schedule", A2aSchedule::Simultaneous, |k| {
                    A2aSchedule::parse(k.as_str()?)
                })?,
            }),
            "moe" => WorkloadSpec::Moe(MoeSpec {
                hosts: f.optional("hosts", HostSel::All, knob_hosts)?,
                k: f.required("k", |k| {
                    let v = knob_u32(k)?;
                    if v == 0 {
                        return Err("must be ≥ 1".into());
                    }
                    Ok(v)
                })?,
                size: f.required("size", knob_size)?,
                start,
            }),
            "cdf" => {
                let cdf = f.required("cdf", |k| {
                    let s = k.as_str()?;
                    if s.trim().is_empty() {
                        return Err("is empty".into());
                    }
                    Ok(match EmpiricalCdf::builtin(s) {
                        Ok(_) => CdfSource::Builtin(s.to_string()),
                        Err(_) => CdfSource::File(PathBuf::from(s)),
                    })
                })?;
                let load = f.required("load", |k| {
                    let v = k.as_f64()?;
                    check_load(v).map(|_| v).map_err(|e| e.replace("field `load`: ", ""))
                })?;
                let stop = match (f.get("duration"), f.get("flows")) {
                    (Some(_), Some(_)) => {
                        return Err(
                            "workload `cdf`: give either `duration` or `flows`, not both".into()
                        )
                    }
                    (None, None) => {
                        return Err("workload `cdf`: missing field `duration` (or `flows`)".into())
                    }
                    (Some(_), None) => Stop::Duration(f.required("duration", |k| {
                        let t = knob_time(k)?;
                        if t == Time::ZERO {
                            return Err("must be > 0".into());
                        }
                        Ok(t)
                    })?),
                    (None, Some(_)) => Stop::Flows(f.required("flows", |k| {
                        let v = k.as_u64()?;
                        if v == 0 {
                            return Err("must be > 0".into());
                        }
                        Ok(v)
                    })?),
                };
                WorkloadSpec::Cdf(CdfSpec {
                    cdf,
                    load,
                    stop,
                    host_rate: f.optional("host_rate", Rate::from_gbps(100), knob_rate)?,
                    inter_group: f.optional("inter_group", false, Knob::as_bool)?,
                    senders: f.optional("senders", HostSel::All, knob_hosts)?,
                    receivers: f.optional("receivers", HostSel::All, knob_hosts)?,
                    start,
                })
            }
            "flow-file" => WorkloadSpec::FlowFile(FlowFileSpec {
                file: f.required("file", |k| {
                    let s = k.as_str()?;
                    if s.trim().is_empty() {
                        return Err("is empty".into());
                    }
                    Ok(PathBuf::from(s))
                })?,
                format: f.optional("format", FlowFileFormat::Braid, |k| {
                    FlowFileFormat::parse(k.as_str()?)
                        .map_err(|e| e.replace("field `format`: ", ""))
                })?,
                rebase: f.optional("rebase", false, Knob::as_bool)?,
                first: f.optional("first", None, |k| {
                    let v = k.as_u64()?;
                    if v == 0 {
                        return Err("must be at least 1".into());
                    }
                    Ok(Some(v))
                })?,
            }),
            "collective" => {
                let op = f.required("op", |k| {
                    CollectiveOp::parse(k.as_str()?).map_err(|e| e.replace("field `op`: ", ""))
                })?;
                let size = f.required("size", knob_size)?;
                if f.get("a2a_size").is_some() && op != CollectiveOp::MoeTraining {
                    return Err("workload `collective`: field `a2a_size` applies only to op = \"moe-training\"".into());
                }
                WorkloadSpec::Collective(CollectiveSpec {
                    op,
                    hosts: f.optional("hosts", HostSel::All, knob_hosts)?,
                    size,
                    a2a_size: f.optional("a2a_size", size, knob_size)?,
                    iterations: f.optional("iterations", 1, |k| {
                        let v = knob_u32(k)?;
                        if v == 0 {
                            return Err("must be ≥ 1".into());
                        }
                        Ok(v)
                    })?,
                    start,
                    gap: f.optional("gap", Time::ZERO, knob_time)?,
                })
            }
            "chakra" => {
                let positive = |k: &Knob| -> Result<f64, String> {
                    let v = k.as_f64()?;
                    if !(v.is_finite() && v > 0.0) {
                        return Err(format!("must be a positive number, got {v}"));
                    }
                    Ok(v)
                };
                let path = |k: &Knob| -> Result<PathBuf, String> {
                    let s = k.as_str()?;
                    if s.trim().is_empty() {
                        return Err("is empty".into());
                    }
                    Ok(PathBuf::from(s))
                };
                let peak = f.optional("peak_tflops", 300.0, positive)?;
                let mem = f.optional("mem_gbps", 900.0, positive)?;
                let compute = f.optional("compute", "duration".to_string(), |k| {
                    k.as_str().map(str::to_string)
                })?;
                let compute = match compute.as_str() {
                    "none" => ComputeModel::None,
                    "duration" => ComputeModel::Duration,
                    "roofline" => ComputeModel::Roofline { peak_ops_per_s: peak * 1e12, mem_per_s: mem * 1e9 },
                    other => return Err(format!("workload `chakra`: field `compute`: unknown model `{other}` (valid: duration, roofline, none)")),
                };
                if compute
                    != (ComputeModel::Roofline {
                        peak_ops_per_s: peak * 1e12,
                        mem_per_s: mem * 1e9,
                    })
                    && (f.get("peak_tflops").is_some() || f.get("mem_gbps").is_some())
                {
                    return Err("workload `chakra`: fields `peak_tflops` and `mem_gbps` apply to `compute = \"roofline\"`".into());
                }
                let algo =
                    |name: &str| f.optional(name, CollAlgo::Ring, |k| CollAlgo::parse(k.as_str()?));
                WorkloadSpec::Chakra(ChakraSpec {
                    trace: f.required("trace", path)?,
                    comm_groups: f.optional("comm_groups", None, |k| path(k).map(Some))?,
                    placement: f.optional("placement", Placement::Spread, |k| {
                        Placement::parse(k.as_str()?)
                    })?,
                    compute,
                    elem_bytes: f.optional("elem_bytes", 1.0, positive)?,
                    size_scale: f.optional("size_scale", 1.0, positive)?,
                    all_reduce: algo("all_reduce")?,
                    all_gather: algo("all_gather")?,
                    reduce_scatter: algo("reduce_scatter")?,
                    start,
                })
            }
            other => return Err(format!("workload: unknown kind `{other}`")),
        })
    }

    /// The kind's scenario name.
    pub fn kind(&self) -> &'static str {
        match self {
            WorkloadSpec::Incast(_) => "incast",
            WorkloadSpec::Permutation(_) => "permutation",
            WorkloadSpec::AllToAll(_) => "all-to-all",
            WorkloadSpec::Moe(_) => "moe",
            WorkloadSpec::Cdf(_) => "cdf",
            WorkloadSpec::FlowFile(_) => "flow-file",
            WorkloadSpec::Collective(_) => "collective",
            WorkloadSpec::Chakra(_) => "chakra",
        }
    }

    /// Make relative file paths (flow files, CDF files) relative to `base` (e.g. the directory of
    /// the scenario file).
    pub fn resolve_paths(&mut self, base: &Path) {
        match self {
            WorkloadSpec::FlowFile(s) if s.file.is_relative() => s.file = base.join(&s.file),
            WorkloadSpec::Cdf(CdfSpec { cdf: CdfSource::File(p), .. }) if p.is_relative() => {
                *p = base.join(&*p)
            }
            WorkloadSpec::Chakra(c) => {
                if c.trace.is_relative() {
                    c.trace = base.join(&c.trace);
                }
                if let Some(g) = c.comm_groups.as_mut().filter(|g| g.is_relative()) {
                    *g = base.join(&*g);
                }
            }
            _ => {}
        }
    }

    /// Generate the workload for `n_hosts` hosts; `host_groups[i]` is the group (DC) of host `i`
    /// (empty: one group). The result has passed [`Workload::validate`].
    pub fn generate(
        &self,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Workload, String> {
        let kind = self.kind();
        if n_hosts == 0 {
            return Err(format!("workload `{kind}`: the topology has no hosts"));
        }
        if n_hosts > u32::MAX as usize {
            return Err(format!("workload `{kind}`: too many hosts ({n_hosts})"));
        }
        if !host_groups.is_empty() && host_groups.len() != n_hosts {
            return Err(format!(
                "workload `{kind}`: host groups given for {} hosts but the topology has {n_hosts}",
                host_groups.len()
            ));
        }
        let wl = match self {
            WorkloadSpec::Incast(s) => s.generate(n_hosts, seed),
            WorkloadSpec::Permutation(s) => s.generate(n_hosts, seed),
            WorkloadSpec::AllToAll(s) => s.generate(n_hosts, seed),
            WorkloadSpec::Moe(s) => s.generate(n_hosts, seed),
            WorkloadSpec::Cdf(s) => s.generate(n_hosts, host_groups, seed),
            WorkloadSpec::FlowFile(s) => s.generate(),
            WorkloadSpec::Collective(s) => s.generate(n_hosts),
            WorkloadSpec::Chakra(s) => s.generate(n_hosts, host_groups, seed),
        }
        .map_err(|e| format!("workload `{kind}`: {e}"))?;
        if wl.flows.is_empty() {
            return Err(format!("workload `{kind}`: generates no flows"));
        }
        wl.validate(n_hosts).map_err(|e| match self {
            WorkloadSpec::FlowFile(s) => {
                format!("workload `flow-file` `{}`: {e}", s.file.display())
            }
            WorkloadSpec::Chakra(s) => format!("workload `chakra` `{}`: {e}", s.trace.display()),
            _ => format!("workload `{kind}`: {e}"),
        })?;
        Ok(wl)
    }
}

impl CdfSpec {
    /// Generate Poisson traffic (see [`crate::poisson`]).
    pub fn generate(
        &self,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Workload, String> {
        let receivers = match &self.receivers {
            HostSel::All => None,
            r => Some(r.first(n_hosts, "receivers")?),
        };
        PoissonConfig {
            cdf: self.cdf.load()?,
            load: self.load,
            host_rate: self.host_rate,
            stop: self.stop,
            start: self.start,
            senders: self.senders.first(n_hosts, "senders")?,
            receivers,
            inter_group: self.inter_group,
        }
        .generate(n_hosts, host_groups, seed)
    }
}

impl FlowFileSpec {
    /// Read the file; with `rebase`, shift absolute start times so the earliest is 0.
    pub fn generate(&self) -> Result<Workload, String> {
        let mut wl = load_flow_file(&self.file, self.format)?;
        if let Some(n) = self.first {
            wl.truncate(n.min(usize::MAX as u64) as usize)
                .map_err(|e| format!("field `first`: {e}"))?;
        }
        if self.rebase {
            let t0 = wl.flows.iter().filter(|f| f.deps.is_empty()).map(|f| f.start).min();
            if let Some(t0) = t0 {
                for f in wl.flows.iter_mut().filter(|f| f.deps.is_empty()) {
                    f.start = f.start.saturating_sub(t0);
                }
            }
        }
        Ok(wl)
    }
}

impl CollectiveSpec {
    /// Build the phases: one top-level job `collective <op>` with a child job per iteration and
    /// phase (`iter<t>/<phase>`).
    pub fn generate(&self, n_hosts: usize) -> Result<Workload, String> {
        let hosts = self.hosts.first(n_hosts, "hosts")?;
        let n = hosts.len() as u128;
        let per_iteration = match self.op {
            CollectiveOp::RingAllReduce => 2 * n * n.saturating_sub(1),
            CollectiveOp::MoeTraining => 3 * n * n.saturating_sub(1),
            CollectiveOp::AllGather | CollectiveOp::ReduceScatter | CollectiveOp::AllToAll => {
                n * n.saturating_sub(1)
            }
            CollectiveOp::PointToPoint => n.saturating_sub(1),
        };
        check_flow_count(per_iteration * self.iterations as u128, "this collective")?;
        let mut b = CollectiveBuilder::new(hosts, self.start, self.gap)?;
        let mut wl = Workload::new();
        let top = wl.add_job(format!("collective {}", self.op.name()), NO_JOB);
        for t in 0..self.iterations {
            let phases: &[(CollectiveOp, u64)] = match self.op {
                CollectiveOp::MoeTraining => &[
                    (CollectiveOp::AllToAll, self.a2a_size),
                    (CollectiveOp::RingAllReduce, self.size),
                ],
                op => &[(op, self.size)],
            };
            for &(op, size) in phases {
                let job = wl.add_job(format!("iter{t}/{}", op.name()), top);
                b.phase(&mut wl, op, size, job)?;
            }
        }
        Ok(wl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(pairs: &[(&str, Knob)]) -> Vec<(String, Knob)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }
    fn s(x: &str) -> Knob {
        Knob::Str(x.into())
    }

    #[test]
    fn parses_every_kind() {
        let cases: Vec<(&str, Vec<(String, Knob)>)> = vec![
            (
                "incast",
                kv(&[("senders", Knob::Int(8)), ("size", s("64KB")), ("receiver", Knob::Int(2))]),
            ),
            ("permutation", kv(&[("size", s("1MB")), ("start", s("10us"))])),
            ("all-to-all", kv(&[("size", s("4096B")), ("hosts", Knob::Int(8))])),
            ("moe", kv(&[("k", Knob::Int(3)), ("size", s("256KB"))])),
            (
                "cdf",
                kv(&[
                    ("cdf", s("websearch")),
                    ("load", Knob::Float(0.3)),
                    ("flows", Knob::Int(100)),
                ]),
            ),
            (
                "collective",
                kv(&[
                    ("op", s("moe-training")),
                    ("hosts", s("0-7")),
                    ("size", s("1MB")),
                    ("iterations", Knob::Int(2)),
                ]),
            ),
        ];
        for (kind, fields) in cases {
            let spec =
                WorkloadSpec::from_table(kind, &fields).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert_eq!(spec.kind(), kind);
            let groups: Vec<u32> = (0..32).map(|h| h / 8).collect();
            let wl = spec.generate(32, &groups, 11).unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert!(!wl.flows.is_empty());
            // same seed -> identical; different seed -> different for the random kinds
            assert_eq!(wl, spec.generate(32, &groups, 11).unwrap());
            if matches!(kind, "incast" | "permutation" | "moe" | "cdf") {
                assert_ne!(wl, spec.generate(32, &groups, 12).unwrap(), "{kind}");
            }
        }
    }

    #[test]
    fn moe_training_trace() {
        let spec = WorkloadSpec::from_table(
            "collective",
            &kv(&[
                ("op", s("moe-training")),
                ("hosts", Knob::Int(4)),
                ("size", s("4MB")),
                ("a2a_size", s("1MB")),
                ("iterations", Knob::Int(3)),
                ("gap", s("5us")),
            ]),
        )
        .unwrap();
        let wl = spec.generate(8, &[], 1).unwrap();
        // per iteration: 4·3 all-to-all flows + 2·3·4 ring flows
        assert_eq!(wl.flows.len(), 3 * (12 + 24));
        assert_eq!(wl.jobs.len(), 1 + 3 * 2);
        assert_eq!(wl.jobs[1].name, "iter0/all-to-all");
        assert_eq!(wl.jobs[2].name, "iter0/ring-allreduce");
        assert!(wl.jobs[1..].iter().all(|j| j.parent == 0));
        // the second iteration's all-to-all waits on the first iteration's all-reduce
        let second_a2a = 36;
        assert_eq!(wl.flows[second_a2a].tag, 3);
        assert!(wl.deps(second_a2a).iter().all(|&d| wl.flows[d as usize].tag == 2));
        assert_eq!(wl.flows[second_a2a].start, Time::from_us(5));
        assert!(wl.flows.iter().all(|f| f.src < 4 && f.dst < 4));
    }

    #[test]
    fn errors_name_fields_and_kinds() {
        let e = WorkloadSpec::from_table("bogus", &[]).unwrap_err();
        assert!(e.contains("unknown kind `bogus`") && e.contains("flow-file"), "{e}");
        let e = WorkloadSpec::from_table(
            "permutation",
            &kv(&[("size", s("1B")), ("sizee", Knob::Int(1))]),
        )
        .unwrap_err();
        assert!(e.contains("unknown field `sizee`") && e.contains("valid: size"), "{e}");
        let e = WorkloadSpec::from_table("permutation", &[]).unwrap_err();
        assert!(e.contains("missing field `size`"), "{e}");
        for load in [Knob::Float(0.0), Knob::Float(1.2), Knob::Int(-1)] {
            let e = WorkloadSpec::from_table(
                "cdf",
                &kv(&[("cdf", s("hadoop")), ("load", load), ("flows", Knob::Int(5))]),
            )
            .unwrap_err();
            assert!(e.contains("field `load`"), "{e}");
        }
        let e = WorkloadSpec::from_table(
            "cdf",
            &kv(&[("cdf", s("hadoop")), ("load", Knob::Float(0.5))]),
        )
        .unwrap_err();
        assert!(e.contains("duration"), "{e}");
        let e = WorkloadSpec::from_table(
            "cdf",
            &kv(&[("cdf", s("/no/such.cdf")), ("load", Knob::Float(0.5)), ("flows", Knob::Int(1))]),
        )
        .unwrap()
        .generate(4, &[], 1)
        .unwrap_err();
        assert!(e.contains("field `cdf`") && e.contains("cannot read"), "{e}");
        let e = WorkloadSpec::from_table(
            "permutation",
            &kv(&[("size", s("1B")), ("start", Knob::Int(5))]),
        )
        .unwrap_err();
        assert!(e.contains("field `start`") && e.contains("unit"), "{e}");
        let e =
            WorkloadSpec::from_table("collective", &kv(&[("op", s("bcast")), ("size", s("1B"))]))
                .unwrap_err();
        assert!(e.contains("field `op`") && e.contains("ring-allreduce"), "{e}");
        let e =
            WorkloadSpec::from_table("flow-file", &kv(&[("file", s("x")), ("format", s("pcap"))]))
                .unwrap_err();
        assert!(e.contains("field `format`") && e.contains("htsim"), "{e}");
        let e = WorkloadSpec::from_table(
            "incast",
            &kv(&[("senders", s("1-4")), ("size", s("1B")), ("receiver", Knob::Int(99))]),
        )
        .unwrap()
        .generate(16, &[], 1)
        .unwrap_err();
        assert!(e.contains("host 99 does not exist"), "{e}");
        let e = WorkloadSpec::from_table(
            "moe",
            &kv(&[("k", Knob::Int(3)), ("size", s("1B")), ("hosts", s("0-3,20"))]),
        )
        .unwrap()
        .generate(16, &[], 1)
        .unwrap_err();
        assert!(e.contains("host 20 does not exist"), "{e}");
        // a `kind` field is accepted when it matches
        WorkloadSpec::from_table(
            "permutation",
            &kv(&[("kind", s("permutation")), ("size", s("1B"))]),
        )
        .unwrap();
        assert!(WorkloadSpec::from_table(
            "permutation",
            &kv(&[("kind", s("moe")), ("size", s("1B"))])
        )
        .is_err());
        let e =
            WorkloadSpec::from_table("permutation", &kv(&[("size", s("1B")), ("size", s("2B"))]))
                .unwrap_err();
        assert!(e.contains("twice"), "{e}");
        let e = WorkloadSpec::from_table("all-to-all", &kv(&[("size", s("1B"))]))
            .unwrap()
            .generate(20_000, &[], 1)
            .unwrap_err();
        assert!(e.contains("limit"), "{e}");
        let e = WorkloadSpec::from_table(
            "cdf",
            &kv(&[("cdf", s("hadoop")), ("load", Knob::Float(1.0)), ("duration", s("1000s"))]),
        )
        .unwrap()
        .generate(1000, &[], 1)
        .unwrap_err();
        assert!(e.contains("limit"), "{e}");
    }

    #[test]
    fn flow_file_kind() {
        let dir = std::env::temp_dir().join(format!("braid-workload-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("flows.txt");
        std::fs::write(&p, "2\n0 1 3 100 1000 2.0\n1 7 3 100 1000 2.5\n").unwrap();
        let mut spec = WorkloadSpec::from_table(
            "flow-file",
            &kv(&[("file", s("flows.txt")), ("format", s("hpcc")), ("rebase", Knob::Bool(true))]),
        )
        .unwrap();
        spec.resolve_paths(&dir);
        let wl = spec.generate(8, &[], 0).unwrap();
        assert_eq!(wl.flows[0].start, Time::ZERO);
        assert_eq!(wl.flows[1].start, Time::from_ms(500));
        let e = spec.generate(4, &[], 0).unwrap_err();
        assert!(e.contains("flows.txt") && e.contains("destination host 7 does not exist"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn real_lcmp_file_via_spec() {
        let Some(file) =
            crate::shared_data::shared_file("lcmp/8DC-hetero/traffic_WebSearch_8DC-0.3util.txt")
        else {
            return;
        };
        let path = file.to_str().unwrap();
        let spec =
            WorkloadSpec::from_table("flow-file", &kv(&[("file", s(path)), ("format", s("hpcc"))]))
                .unwrap();
        let groups: Vec<u32> = (0..128).map(|h| h / 16).collect();
        let wl = spec.generate(128, &groups, 0).unwrap();
        assert_eq!(wl.flows.len(), 2774);
    }
}
