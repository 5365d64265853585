//! `braid sweep PLAN.toml`: run a scenario over a grid of `--set` overrides and seeds, in
//! parallel across cores, resumably, and collect one row per run into `runs.csv`.
//!
//! # Plan file
//!
//! ```toml
//! scenario = "../examples/cc-incast.toml"   # relative to the plan file
//! seeds = [1, 2, 3]                          # or "1..3" (inclusive), or 7; default: the scenario's seed
//! set = { "output.queues" = true }           # fixed overrides for every run
//!
//! [grid]                                      # every combination of these values
//! "transport.cc" = ["dcqcn", "hpcc"]          # a list of values
//! "topology.extra_delay" = "0us..25us step 5us"   # a range: start..end (inclusive) step s, same unit
//! "workload.load" = [0.3, 0.5]
//!
//! [[case]]                                    # optional named variants, crossed with the grid
//! label = "AR"
//! scenario = "other.toml"                     # optional: another scenario file for this case
//! set = { "transport.kind" = "roce", "routing.kind" = "adaptive" }
//! ```
//!
//! A grid key `scenario = ["a.toml", "b.toml"]` crosses scenario files with the rest (it takes
//! precedence over a case's scenario; its column in `runs.csv` is `scenario_file`).
//! Keys are the dotted field names of `braid run --set`; `set` and `grid` may also be written as
//! nested tables (`[grid.transport] cc = [...]`). Grid keys are taken in alphabetical order; the
//! last key varies fastest, then seeds. Runs are `cases × grid × seeds`; overrides apply in the
//! order plan `set`, case `set`, grid values.
//!
//! A plan may also carry `[[figure]]` tables (the format of `repro/README.md`); `braid sweep`
//! then draws them into `OUT/fig-<name>.png/.svg` and writes `OUT/index.html`.
//!
//! # Outputs
//!
//! `OUT/runs/<run>/` holds each run's outputs exactly as `braid run` writes them; `<run>` is made
//! from the case label, the grid values and the seed (`transport.cc=hpcc__seed=1`), so it is
//! stable when the plan grows. `OUT/runs.csv` has one row per run: `run`, `case` (when the plan
//! has cases), `scenario_file`, one column per grid key, `status` (`ok`, or `failed: …`), then
//! every field of the run's `summary.json` (nested objects flattened as `drops.buffer`), in the
//! order the first run that has them wrote them. The wall-clock fields `wall_s`,
//! `events_per_sec` and `packet_hops_per_sec` are left out ([`WALL_CLOCK_FIELDS`]), so the same
//! plan gives a byte-identical `runs.csv` on every machine. The plan and its scenario files are
//! copied into `OUT/plan.toml` and `OUT/scenarios/`.
//!
//! # Resuming
//!
//! A run whose folder already has a `summary.json` and whose `scenario.resolved.toml` matches the
//! scenario it would run now is skipped; anything else (missing, interrupted, or changed) is run
//! again. Each run is single-threaded and deterministic; parallelism is across runs only.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use toml::{Table, Value};

use crate::fields::value_text;
use crate::plot::FigureSpec;
use crate::scenario::{self, Scenario};
use crate::table::{csv_cell, read_summary};

/// `summary.json` fields that measure the machine, not the simulation; not copied to `runs.csv`.
pub const WALL_CLOCK_FIELDS: &[&str] = &["wall_s", "events_per_sec", "packet_hops_per_sec"];

/// The keys a sweep plan may have at its top level.
pub const PLAN_KEYS: &[&str] = &["scenario", "seeds", "set", "grid", "case"];

/// Further top-level keys a plan file may carry: `[[figure]]`s (drawn by `braid sweep`) and the
/// comparison table's `title`, `note` and `columns` (`braid compare`, [`crate::compare`]).
pub const PLAN_EXTRA_KEYS: &[&str] = &["figure", "title", "note", "columns"];

/// A named variant of the plan (`[[case]]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The label (a column of `runs.csv`, a legend entry of figures).
    pub label: String,
    /// A scenario file replacing the plan's.
    pub scenario: Option<PathBuf>,
    /// Overrides of this case.
    pub set: Vec<(String, Value)>,
}

/// A parsed sweep plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The plan file.
    pub file: PathBuf,
    /// The default scenario file.
    pub scenario: Option<PathBuf>,
    /// Seeds (empty: each scenario's own seed).
    pub seeds: Vec<u64>,
    /// Overrides for every run.
    pub set: Vec<(String, Value)>,
    /// Grid keys and their values, keys in alphabetical order.
    pub grid: Vec<(String, Vec<Value>)>,
    /// Named variants (empty: one unnamed case).
    pub cases: Vec<Case>,
    /// Scenario files to cross with the grid (`grid.scenario = [...]`; empty: none).
    pub grid_scenarios: Vec<PathBuf>,
}

/// One run of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// Folder name under `OUT/runs/`.
    pub name: String,
    /// Scenario file.
    pub scenario: PathBuf,
    /// Case label.
    pub case: Option<String>,
    /// Grid values of this run, as text, in grid-key order.
    pub params: Vec<(String, String)>,
    /// Seed override.
    pub seed: Option<u64>,
    /// The `--set` overrides, in order.
    pub sets: Vec<String>,
}

/// How to execute a sweep.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output folder.
    pub out: PathBuf,
    /// At most this many runs at once (default: the number of cores).
    pub jobs: Option<usize>,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

/// What a sweep did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Runs executed now.
    pub ran: usize,
    /// Runs skipped because their outputs were complete (their resolved scenario unchanged).
    pub skipped: usize,
    /// Folders under `runs/` of runs no longer in the plan, removed so that the folder holds
    /// this plan's runs only.
    pub removed: Vec<String>,
    /// Runs that failed: (run name, message).
    pub failed: Vec<(String, String)>,
}

fn flatten_table(prefix: &str, t: &Table, out: &mut Vec<(String, Value)>) {
    for (k, v) in t {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            Value::Table(inner) => flatten_table(&key, inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

fn parse_set(v: &Value, what: &str) -> Result<Vec<(String, Value)>, String> {
    match v {
        Value::Table(t) => {
            let mut out = Vec::new();
            flatten_table("", t, &mut out);
            Ok(out)
        }
        Value::Array(a) => {
            // Also accept `set = ["table.field=value", …]` as on the command line.
            let mut out = Vec::new();
            for (i, x) in a.iter().enumerate() {
                let s = x.as_str().ok_or_else(|| {
                    format!("`{what}[{i}]` must be a string \"table.field=value\"")
                })?;
                let (k, raw) = s
                    .split_once('=')
                    .ok_or_else(|| format!("`{what}[{i}]` must have the form table.field=value"))?;
                let doc = format!("v = {}", raw.trim());
                let val = doc
                    .parse::<Table>()
                    .ok()
                    .and_then(|mut t| t.remove("v"))
                    .unwrap_or(Value::String(raw.trim().to_string()));
                out.push((k.trim().to_string(), val));
            }
            Ok(out)
        }
        _ => Err(format!(
            "`{what}` must be a table of overrides such as {{ \"workload.size\" = \"1MB\" }}"
        )),
    }
}

/// Split `"25us"` into (25.0, "us"); `"0.5"` into (0.5, "").
fn split_unit(s: &str) -> Option<(f64, String, bool)> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let num = &s[..end];
    let v: f64 = num.parse().ok()?;
    Some((v, s[end..].trim().to_string(), !num.contains('.')))
}

fn fmt_num(v: f64) -> String {
    let s = format!("{v:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Expand a range `"A..B step S"` (inclusive; `step` defaults to 1) into values. With a unit the
/// values are strings (`"5us"`), without one integers or floats.
pub fn expand_range(s: &str) -> Result<Vec<Value>, String> {
    let (range, step) = match s.split_once("step") {
        Some((r, st)) => (r.trim(), Some(st.trim())),
        None => (s.trim(), None),
    };
    let (a, b) = range
        .split_once("..")
        .ok_or_else(|| format!("`{s}` is not a range (write \"0us..25us step 5us\")"))?;
    let (a, ua, ia) = split_unit(a).ok_or_else(|| format!("range `{s}`: cannot read the start"))?;
    let (b, ub, ib) = split_unit(b).ok_or_else(|| format!("range `{s}`: cannot read the end"))?;
    let (st, us, is) = match step {
        Some(x) => split_unit(x).ok_or_else(|| format!("range `{s}`: cannot read the step"))?,
        None => (1.0, String::new(), true),
    };
    let unit = if !ua.is_empty() { ua.clone() } else { ub.clone() };
    if (!ua.is_empty() && ua != unit)
        || (!ub.is_empty() && ub != unit)
        || (!us.is_empty() && us != unit)
    {
        return Err(format!("range `{s}`: start, end and step must use the same unit"));
    }
    if st <= 0.0 {
        return Err(format!("range `{s}`: the step must be positive"));
    }
    if b < a {
        return Err(format!("range `{s}`: the end is below the start"));
    }
    let n = ((b - a) / st + 1e-9).floor() as usize + 1;
    if n > 100_000 {
        return Err(format!("range `{s}` has {n} values; that is too many"));
    }
    let ints = ia && ib && is;
    Ok((0..n)
        .map(|i| {
            let v = a + st * i as f64;
            if !unit.is_empty() {
                Value::String(format!("{}{unit}", fmt_num(v)))
            } else if ints {
                Value::Integer(v.round() as i64)
            } else {
                Value::Float((v * 1e9).round() / 1e9)
            }
        })
        .collect())
}

fn parse_grid_values(key: &str, v: &Value) -> Result<Vec<Value>, String> {
    match v {
        Value::Array(a) if a.is_empty() => Err(format!("`grid.{key}` has no values")),
        Value::Array(a) => Ok(a.clone()),
        Value::String(s) if s.contains("..") => {
            expand_range(s).map_err(|e| format!("`grid.{key}`: {e}"))
        }
        other => Ok(vec![other.clone()]),
    }
}

/// Read seeds: a list, a range string `"1..5"`, or one integer.
pub fn parse_seeds(v: &Value, what: &str) -> Result<Vec<u64>, String> {
    let vals = match v {
        Value::Array(a) => a.clone(),
        Value::String(s) => expand_range(s).map_err(|e| format!("`{what}`: {e}"))?,
        other => vec![other.clone()],
    };
    vals.iter()
        .map(|x| match x {
            Value::Integer(i) if *i >= 0 => Ok(*i as u64),
            other => Err(format!("`{what}` must list non-negative integers, got {other}")),
        })
        .collect()
}

fn resolve(base: &Path, p: &str) -> PathBuf {
    let pb = PathBuf::from(p);
    if pb.is_absolute() {
        pb
    } else {
        base.join(pb)
    }
}

impl Plan {
    /// Read a plan file.
    pub fn load(path: &Path) -> Result<Plan, String> {
        let text = fs::read_to_string(path)
            .map_err(|e| format!("cannot read plan `{}`: {e}", path.display()))?;
        let t: Table = text.parse().map_err(|e: toml::de::Error| {
            format!("{}: malformed TOML: {}", path.display(), e.message().trim())
        })?;
        Plan::from_table(&t, path, PLAN_EXTRA_KEYS).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The `[[figure]]`s of a plan file (as in repro plans; `braid sweep` draws them).
    pub fn figures(path: &Path) -> Result<Vec<FigureSpec>, String> {
        let text = fs::read_to_string(path)
            .map_err(|e| format!("cannot read plan `{}`: {e}", path.display()))?;
        let t: Table = text.parse().map_err(|e: toml::de::Error| {
            format!("{}: malformed TOML: {}", path.display(), e.message().trim())
        })?;
        match t.get("figure") {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let ft = f.as_table().ok_or_else(|| {
                        format!("{}: `figure[{i}]` must be a table", path.display())
                    })?;
                    FigureSpec::from_table(ft, &format!("figure[{i}]"))
                        .map_err(|e| format!("{}: {e}", path.display()))
                })
                .collect(),
            Some(_) => {
                Err(format!("{}: `figure` must be an array of tables ([[figure]])", path.display()))
            }
        }
    }

    /// Read a plan from a parsed table. Paths are relative to `file`'s folder; `extra` names
    /// further top-level keys the caller handles (repro plans), any other key is an error.
    pub fn from_table(t: &Table, file: &Path, extra: &[&str]) -> Result<Plan, String> {
        for k in t.keys() {
            if !PLAN_KEYS.contains(&k.as_str()) && !extra.contains(&k.as_str()) {
                let mut known: Vec<&str> = PLAN_KEYS.to_vec();
                known.extend_from_slice(extra);
                return Err(format!("unknown field `{k}` (known: {})", known.join(", ")));
            }
        }
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let scenario = match t.get("scenario") {
            None => None,
            Some(Value::String(s)) => Some(resolve(&base, s)),
            Some(_) => return Err("`scenario` must be a path (string)".into()),
        };
        let seeds = match t.get("seeds") {
            None => Vec::new(),
            Some(v) => parse_seeds(v, "seeds")?,
        };
        let set = match t.get("set") {
            None => Vec::new(),
            Some(v) => parse_set(v, "set")?,
        };
        let mut grid = Vec::new();
        let mut grid_scenarios = Vec::new();
        match t.get("grid") {
            None => {}
            Some(Value::Table(g)) => {
                let mut flat = Vec::new();
                flatten_table("", g, &mut flat);
                for (k, v) in flat {
                    if k == "scenario" {
                        for x in parse_grid_values(&k, &v)? {
                            let s = x
                                .as_str()
                                .ok_or("`grid.scenario` must list scenario files (strings)")?;
                            grid_scenarios.push(resolve(&base, s));
                        }
                        continue;
                    }
                    grid.push((k.clone(), parse_grid_values(&k, &v)?));
                }
            }
            Some(_) => return Err("`grid` must be a table of `\"table.field\" = [values]`".into()),
        }
        grid.sort_by(|a, b| a.0.cmp(&b.0));
        let mut cases = Vec::new();
        match t.get("case") {
            None => {}
            Some(Value::Array(a)) => {
                for (i, c) in a.iter().enumerate() {
                    let ct = c
                        .as_table()
                        .ok_or_else(|| format!("`case[{i}]` must be a table ([[case]])"))?;
                    for k in ct.keys() {
                        if !["label", "scenario", "set"].contains(&k.as_str()) {
                            return Err(format!(
                                "unknown field `case[{i}].{k}` (known: label, scenario, set)"
                            ));
                        }
                    }
                    let label = ct
                        .get("label")
                        .and_then(Value::as_str)
                        .ok_or_else(|| format!("`case[{i}].label` is required (a string)"))?
                        .to_string();
                    if cases.iter().any(|c: &Case| c.label == label) {
                        return Err(format!("`case[{i}].label`: `{label}` is used twice"));
                    }
                    let scenario = match ct.get("scenario") {
                        None => None,
                        Some(Value::String(s)) => Some(resolve(&base, s)),
                        Some(_) => return Err(format!("`case[{i}].scenario` must be a path")),
                    };
                    let set = match ct.get("set") {
                        None => Vec::new(),
                        Some(v) => parse_set(v, &format!("case[{i}].set"))?,
                    };
                    cases.push(Case { label, scenario, set });
                }
            }
            Some(_) => return Err("`case` must be an array of tables ([[case]])".into()),
        }
        if scenario.is_none()
            && grid_scenarios.is_empty()
            && (cases.is_empty() || cases.iter().any(|c| c.scenario.is_none()))
        {
            return Err(
                "`scenario` is required (the scenario file to sweep, relative to the plan)".into(),
            );
        }
        Ok(Plan { file: file.to_path_buf(), scenario, seeds, set, grid, cases, grid_scenarios })
    }

    /// The runs of this plan, in order.
    pub fn expand(&self) -> Vec<RunSpec> {
        let cases: Vec<Option<&Case>> =
            if self.cases.is_empty() { vec![None] } else { self.cases.iter().map(Some).collect() };
        let seeds: Vec<Option<u64>> = if self.seeds.is_empty() {
            vec![None]
        } else {
            self.seeds.iter().map(|s| Some(*s)).collect()
        };
        // Grid combinations, last key fastest.
        let mut combos: Vec<Vec<(String, Value)>> = vec![Vec::new()];
        for (k, vals) in &self.grid {
            let mut next = Vec::with_capacity(combos.len() * vals.len());
            for c in &combos {
                for v in vals {
                    let mut c2 = c.clone();
                    c2.push((k.clone(), v.clone()));
                    next.push(c2);
                }
            }
            combos = next;
        }
        let mut out = Vec::new();
        let mut used = BTreeSet::new();
        let gsc: Vec<Option<&PathBuf>> = if self.grid_scenarios.is_empty() {
            vec![None]
        } else {
            self.grid_scenarios.iter().map(Some).collect()
        };
        for case in &cases {
            for gs in &gsc {
                for combo in &combos {
                    for seed in &seeds {
                        let mut sets: Vec<String> =
                            self.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        if let Some(c) = case {
                            sets.extend(c.set.iter().map(|(k, v)| format!("{k}={v}")));
                        }
                        sets.extend(combo.iter().map(|(k, v)| format!("{k}={v}")));
                        let params: Vec<(String, String)> =
                            combo.iter().map(|(k, v)| (k.clone(), value_text(v))).collect();
                        let mut parts: Vec<String> = Vec::new();
                        if let Some(c) = case {
                            parts.push(c.label.clone());
                        }
                        if let Some(g) = gs {
                            parts.push(format!(
                                "scenario={}",
                                g.file_stem()
                                    .map(|x| x.to_string_lossy().into_owned())
                                    .unwrap_or_default()
                            ));
                        }
                        parts.extend(params.iter().map(|(k, v)| format!("{k}={v}")));
                        if let Some(s) = seed {
                            parts.push(format!("seed={s}"));
                        }
                        let full = parts.join("__");
                        let mut name = sanitize(&full);
                        if name.is_empty() {
                            name = "run".into();
                        }
                        if name.len() > 120 || used.contains(&name) {
                            let cut: String = name.chars().take(100).collect();
                            name = format!("{cut}-{:016x}", fnv(full.as_bytes()));
                        }
                        used.insert(name.clone());
                        let scenario = gs
                            .cloned()
                            .or_else(|| case.and_then(|c| c.scenario.clone()))
                            .or_else(|| self.scenario.clone())
                            .expect("checked at load");
                        out.push(RunSpec {
                            name,
                            scenario,
                            case: case.map(|c| c.label.clone()),
                            params,
                            seed: *seed,
                            sets,
                        });
                    }
                }
            }
        }
        out
    }

    /// Every distinct scenario file the plan uses.
    pub fn scenario_files(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = Vec::new();
        for p in self
            .scenario
            .iter()
            .chain(self.cases.iter().filter_map(|c| c.scenario.as_ref()))
            .chain(self.grid_scenarios.iter())
        {
            if !v.contains(p) {
                v.push(p.clone());
            }
        }
        v
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '=' | '-' | '_' | '+') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a, for stable short names.
pub fn fnv(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= x as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Load (validate) the scenario of a run.
pub fn load_run(r: &RunSpec) -> Result<Scenario, String> {
    scenario::load(&r.scenario, &r.sets, r.seed)
}

/// Whether `dir` already holds the complete outputs of `sc`.
pub fn is_complete(dir: &Path, sc: &Scenario) -> bool {
    dir.join("summary.json").is_file()
        && fs::read_to_string(dir.join("scenario.resolved.toml"))
            .map(|t| t == sc.resolved_toml)
            .unwrap_or(false)
}

/// Remove the folders under `runs_dir` that are not runs of this plan (an earlier plan's, written
/// into the same `--out`), so that nothing there is read as this plan's; returns their names.
pub fn remove_other_runs(runs_dir: &Path, runs: &[RunSpec]) -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(runs_dir) else { return Ok(removed) };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() && !runs.iter().any(|r| r.name == name) {
            fs::remove_dir_all(e.path()).map_err(|err| {
                format!("cannot remove `{}`, a run not in this plan: {err}", e.path().display())
            })?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// Validate every run of a plan up front. Errors name the run.
pub fn load_all(runs: &[RunSpec]) -> Result<Vec<Scenario>, String> {
    runs.iter().map(|r| load_run(r).map_err(|e| format!("run `{}`: {e}", r.name))).collect()
}

/// One run of a sweep into `dir` (a stale `summary.json` removed first): run, write the outputs,
/// check packet conservation. A panic in the run (a bug) is returned as an error, so it does not
/// take the other runs down. The error is what `runs.csv` shows after `failed: `. `cancel`: as
/// for [`crate::run::run_cancellable`].
pub fn run_one(dir: &Path, sc: &Scenario, cancel: &AtomicBool) -> Result<(), String> {
    let _ = fs::remove_file(dir.join("summary.json"));
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::run::run_cancellable(sc, false, cancel, |_| {}).and_then(|rr| {
            if cancel.load(Ordering::Relaxed) && rr.end == braid_net::sim::RunEnd::Interrupted {
                return Err(INTERRUPTED.into());
            }
            crate::run::write_outputs(dir, sc, &rr)?;
            rr.sim.conservation().map_err(|e| format!("packet conservation violated: {e}"))
        })
    }))
    .unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        Err(format!("the simulator panicked: {msg}"))
    })
}

/// The error of [`execute_cancellable`] (and of a run in it) when `cancel` was set.
pub const INTERRUPTED: &str = "interrupted";

/// Run the plan's runs that are not complete yet, `jobs` at a time, then write `runs.csv`.
pub fn execute(
    plan: &Plan,
    runs: &[RunSpec],
    scenarios: Vec<Scenario>,
    opt: &Options,
) -> Result<Report, String> {
    execute_cancellable(plan, runs, scenarios, opt, &AtomicBool::new(false))
}

/// [`execute`] that stops when `cancel` is set: the runs in flight end within milliseconds
/// (unwritten), no further run starts, `runs.csv` is not written and the result is
/// `Err(INTERRUPTED)`; the runs that completed are kept (a later sweep skips them).
pub fn execute_cancellable(
    plan: &Plan,
    runs: &[RunSpec],
    scenarios: Vec<Scenario>,
    opt: &Options,
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let runs_dir = opt.out.join("runs");
    fs::create_dir_all(&runs_dir)
        .map_err(|e| format!("cannot create `{}`: {e}", runs_dir.display()))?;
    copy_inputs(plan, &opt.out)?;
    let mut pending = Vec::new();
    let mut report = Report { removed: remove_other_runs(&runs_dir, runs)?, ..Report::default() };
    for (r, sc) in runs.iter().zip(scenarios) {
        if is_complete(&runs_dir.join(&r.name), &sc) {
            report.skipped += 1;
        } else {
            pending.push((r, sc));
        }
    }
    let jobs = opt
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .max(1);
    let bar = if opt.progress && !pending.is_empty() {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(pending.len() as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  ETA {eta_precise}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.set_message(format!("{} skipped, {jobs} at a time", report.skipped));
        b.enable_steady_tick(std::time::Duration::from_millis(500));
        Some(b)
    } else {
        None
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(64 << 20)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let done = AtomicUsize::new(0);
    let start = Instant::now();
    let failed: Vec<(String, String)> = pool.install(|| {
        pending
            .par_iter()
            .with_max_len(1)
            .filter_map(|(r, sc)| {
                let res = if cancel.load(Ordering::Relaxed) {
                    Err(INTERRUPTED.into())
                } else {
                    run_one(&runs_dir.join(&r.name), sc, cancel)
                };
                done.fetch_add(1, Ordering::Relaxed);
                if let Some(b) = &bar {
                    b.inc(1);
                    b.set_message(r.name.clone());
                }
                res.err().map(|e| (r.name.clone(), e))
            })
            .collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let _ = start;
    if cancel.load(Ordering::Relaxed) {
        return Err(INTERRUPTED.into());
    }
    report.ran = pending.len();
    report.failed = failed;
    write_runs_csv(&opt.out, plan, runs, &report.failed)?;
    Ok(report)
}

/// Draw a plan's `[[figure]]`s from `out/runs.csv` into `out/fig-<name>.png/.svg/.csv`. Returns
/// each figure's PNG path or its error, in order.
pub fn draw_figures(out: &Path, figures: &[FigureSpec]) -> Vec<Result<PathBuf, String>> {
    if figures.is_empty() {
        return Vec::new();
    }
    match crate::plot::Results::load(out) {
        Ok(res) => figures
            .iter()
            .map(|f| {
                crate::plot::build_figure(f, &res)
                    .and_then(|fig| {
                        crate::plot::write_figure(&fig, &out.join(format!("fig-{}", f.name)))
                    })
                    .map(|files| files[0].clone())
                    .map_err(|e| format!("figure `{}`: {e}", f.name))
            })
            .collect(),
        Err(e) => vec![Err(e)],
    }
}

/// Copy the plan file and its scenario files into `out` (`OUT/plan.toml`, `OUT/scenarios/`).
pub fn copy_inputs(plan: &Plan, out: &Path) -> Result<(), String> {
    fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    if let Ok(t) = fs::read_to_string(&plan.file) {
        fs::write(out.join("plan.toml"), t)
            .map_err(|e| format!("cannot write `{}`: {e}", out.join("plan.toml").display()))?;
    }
    let sdir = out.join("scenarios");
    fs::create_dir_all(&sdir).map_err(|e| format!("cannot create `{}`: {e}", sdir.display()))?;
    for s in plan.scenario_files() {
        if let (Some(name), Ok(t)) = (s.file_name(), fs::read_to_string(&s)) {
            fs::write(sdir.join(name), t)
                .map_err(|e| format!("cannot write scenario copy: {e}"))?;
        }
    }
    Ok(())
}

/// Write `OUT/runs.csv` from the runs' `summary.json` files (see the module docs for columns).
pub fn write_runs_csv(
    out: &Path,
    plan: &Plan,
    runs: &[RunSpec],
    failed: &[(String, String)],
) -> Result<(), String> {
    let mut summaries = Vec::with_capacity(runs.len());
    let mut fields: Vec<String> = Vec::new();
    for r in runs {
        let p = out.join("runs").join(&r.name).join("summary.json");
        let s = read_summary(&p).unwrap_or_default();
        for (k, _) in &s {
            if !WALL_CLOCK_FIELDS.contains(&k.as_str()) && !fields.contains(k) {
                fields.push(k.clone());
            }
        }
        summaries.push(s);
    }
    let mut header: Vec<String> = vec!["run".into()];
    let has_cases = !plan.cases.is_empty();
    if has_cases {
        header.push("case".into());
    }
    header.push("scenario_file".into());
    header.extend(plan.grid.iter().map(|(k, _)| k.clone()));
    header.push("status".into());
    header.extend(fields.iter().cloned());
    let mut text = header.iter().map(|h| csv_cell(h)).collect::<Vec<_>>().join(",");
    text.push('\n');
    let base = plan.file.parent().map(Path::to_path_buf).unwrap_or_default();
    for (r, s) in runs.iter().zip(&summaries) {
        let mut row: Vec<String> = vec![r.name.clone()];
        if has_cases {
            row.push(r.case.clone().unwrap_or_default());
        }
        let sf = r.scenario.strip_prefix(&base).unwrap_or(&r.scenario);
        row.push(sf.to_string_lossy().into_owned());
        row.extend(r.params.iter().map(|(_, v)| v.clone()));
        let status = match failed.iter().find(|f| f.0 == r.name) {
            Some((_, e)) => format!("failed: {e}"),
            None if s.is_empty() => "missing".into(),
            None => {
                if s.iter().any(|(k, v)| k == "conservation_ok" && v == "false") {
                    "failed: packet conservation violated".into()
                } else {
                    "ok".into()
                }
            }
        };
        row.push(status);
        for f in &fields {
            row.push(s.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()).unwrap_or_default());
        }
        text.push_str(&row.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(","));
        text.push('\n');
    }
    let p = out.join("runs.csv");
    let tmp = out.join(".runs.csv.tmp");
    fs::write(&tmp, text).map_err(|e| format!("cannot write `{}`: {e}", tmp.display()))?;
    fs::rename(&tmp, &p).map_err(|e| format!("cannot write `{}`: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let v = expand_range("0us..25us step 5us").unwrap();
        let s: Vec<String> = v.iter().map(value_text).collect();
        assert_eq!(s, ["0us", "5us", "10us", "15us", "20us", "25us"]);
        assert_eq!(
            expand_range("1..3").unwrap(),
            vec![Value::Integer(1), Value::Integer(2), Value::Integer(3)]
        );
        let f: Vec<String> =
            expand_range("0.1..0.5 step 0.2").unwrap().iter().map(value_text).collect();
        assert_eq!(f, ["0.1", "0.3", "0.5"]);
        assert!(expand_range("1us..2ms step 1us").is_err());
    }

    #[test]
    fn expansion_order_and_names() {
        let t: Table = r#"
scenario = "s.toml"
seeds = "1..2"
set = { "workload.size" = "1MB" }
[grid]
"transport.cc" = ["dcqcn", "hpcc"]
"topology.delay" = "1us..2us step 1us"
"#
        .parse()
        .unwrap();
        let p = Plan::from_table(&t, Path::new("plans/p.toml"), &[]).unwrap();
        let r = p.expand();
        assert_eq!(r.len(), 8);
        assert_eq!(r[0].name, "topology.delay=1us__transport.cc=dcqcn__seed=1");
        assert_eq!(r[1].name, "topology.delay=1us__transport.cc=dcqcn__seed=2");
        assert_eq!(r[2].name, "topology.delay=1us__transport.cc=hpcc__seed=1");
        assert_eq!(
            r[0].sets,
            ["workload.size=\"1MB\"", "topology.delay=\"1us\"", "transport.cc=\"dcqcn\""]
        );
        assert_eq!(r[0].scenario, PathBuf::from("plans/s.toml"));
    }
}
