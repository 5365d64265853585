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

mod execute;
pub use execute::*;

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
