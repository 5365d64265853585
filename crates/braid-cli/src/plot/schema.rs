//! The `[[figure]]` schema of repro and sweep plans ([`FigureSpec`], see `repro/README.md` for
//! the format): which runs, which columns, which kind of chart ([`Kind`]) and how a time series
//! combines entities ([`Agg`]), read from TOML with errors that name the field.

use toml::{Table, Value};

use crate::fields::value_text;

/// The kinds of figure a plan can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// y (runs.csv) against a numeric x (runs.csv), one line per series.
    Line,
    /// y (runs.csv, one or more columns) per category x, grouped bars.
    Bar,
    /// CDF of a per-run file's column (flows.csv by default), one line per series.
    Cdf,
    /// A per-run time series (queues.csv, ood.csv, goodput.csv, …) against time.
    Timeseries,
    /// FCT slowdown percentiles per flow-size bin (flows.csv), log x axis.
    SlowdownBins,
}

impl Kind {
    /// Parse a kind name.
    pub fn parse(s: &str) -> Result<Kind, String> {
        Ok(match s {
            "line" => Kind::Line,
            "bar" => Kind::Bar,
            "cdf" => Kind::Cdf,
            "timeseries" => Kind::Timeseries,
            "slowdown-bins" => Kind::SlowdownBins,
            other => {
                return Err(format!(
                "unknown figure kind `{other}` (known: line, bar, cdf, timeseries, slowdown-bins)"
            ))
            }
        })
    }
}

/// How a time series combines entities (ports, hosts) at each instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agg {
    /// One line per entity.
    None,
    /// The sum over entities.
    Sum,
    /// The largest entity.
    Max,
    /// The mean over entities present.
    Mean,
}

/// A `[[figure]]` of a repro plan. See `repro/README.md` for the format.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureSpec {
    /// File stem: `fig-<name>.png` / `.svg` / `.csv`.
    pub name: String,
    /// Kind.
    pub kind: Kind,
    /// Title.
    pub title: String,
    /// x column (runs.csv) for `line`/`bar`.
    pub x: Option<String>,
    /// y columns: runs.csv for `line`/`bar`, the per-run file's column for the others.
    pub y: Vec<String>,
    /// Legend names for the y columns (default: the column names).
    pub y_names: Vec<String>,
    /// One legend entry per value of this runs.csv column.
    pub series: Option<String>,
    /// One panel per value of this runs.csv column (a list of columns, joined as `a+b`, makes
    /// one panel per combination).
    pub facet: Option<String>,
    /// Axis labels.
    pub x_label: Option<String>,
    /// Axis labels.
    pub y_label: Option<String>,
    /// Convert x values with units (`"5us"`, `"1MB"`, `"100Gbps"`) into this unit
    /// (ns/us/ms/s, B/KB/MB/GB, Gbps/Mbps); for time series, the time unit (default us).
    pub x_unit: Option<String>,
    /// Multiply y by this (e.g. 1e-9 for bps → Gb/s).
    pub y_scale: f64,
    /// Logarithmic axes.
    pub log_x: bool,
    /// Logarithmic axes.
    pub log_y: bool,
    /// Per-run file (`flows.csv`, `queues.csv`, `ood.csv`, …).
    pub file: Option<String>,
    /// Time column of a time series.
    pub time: String,
    /// Entity column of a time series (`port`, `host`).
    pub group: Option<String>,
    /// How entities combine.
    pub aggregate: Agg,
    /// Only these entities (time series).
    pub entities: Vec<String>,
    /// Only runs whose runs.csv columns have one of these values.
    pub filter: Vec<(String, Vec<String>)>,
    /// Only flows between these two host ranges, either direction (`["0-15", "192-207"]`; per-run
    /// flow files).
    pub between: Vec<String>,
    /// Time series: at most this many entities get a line (the largest peaks; default 8).
    pub top: usize,
    /// Normalise y by the run matching these values (same other parameters and seed).
    pub baseline: Vec<(String, String)>,
    /// `speedup` (baseline / y) or `ratio` (y / baseline).
    pub relative: Option<String>,
    /// Flow-size bin edges in bytes (`slowdown-bins`; default: 10 bins of equal flow count).
    pub bins: Vec<f64>,
    /// Percentiles (`slowdown-bins`).
    pub percentiles: Vec<f64>,
    /// The paper's number, for the caption.
    pub paper: Option<String>,
    /// Braid's number: a template with `{column[key=value,…]:agg}` placeholders over runs.csv
    /// (agg: mean, min, max, sum; default mean). Default: a summary of the plotted data.
    pub braid: Option<String>,
}

fn str_list(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => Ok(s.clone()),
                other => Ok(value_text(other)),
            })
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e: String| format!("`{what}`: {e}")),
        Some(other) => Err(format!("`{what}` must be a string or a list of strings, got {other}")),
    }
}

fn kv_multi(v: Option<&Value>, what: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => Ok(t
            .iter()
            .map(|(k, v)| match v {
                Value::Array(a) => (k.clone(), a.iter().map(value_text).collect()),
                other => (k.clone(), vec![value_text(other)]),
            })
            .collect()),
        Some(other) => Err(format!(
            "`{what}` must be a table such as {{ case = [\"ECMP\", \"LCMP\"] }}, got {other}"
        )),
    }
}

fn kv_list(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => Ok(t.iter().map(|(k, v)| (k.clone(), value_text(v))).collect()),
        Some(other) => Err(format!(
            "`{what}` must be a table such as {{ \"transport.kind\" = \"rondo\" }}, got {other}"
        )),
    }
}

const FIGURE_KEYS: &[&str] = &[
    "name",
    "kind",
    "title",
    "x",
    "y",
    "y_names",
    "series",
    "facet",
    "x_label",
    "y_label",
    "x_unit",
    "y_scale",
    "log_x",
    "log_y",
    "file",
    "column",
    "time",
    "group",
    "aggregate",
    "entities",
    "filter",
    "baseline",
    "relative",
    "bins",
    "percentiles",
    "paper",
    "braid",
    "between",
    "top",
];

impl FigureSpec {
    /// Read a `[[figure]]` table; `what` names it in errors.
    pub fn from_table(t: &Table, what: &str) -> Result<FigureSpec, String> {
        for k in t.keys() {
            if !FIGURE_KEYS.contains(&k.as_str()) {
                return Err(format!(
                    "unknown field `{what}.{k}` (known: {})",
                    FIGURE_KEYS.join(", ")
                ));
            }
        }
        let s = |k: &str| -> Result<Option<String>, String> {
            match t.get(k) {
                None => Ok(None),
                Some(Value::String(x)) => Ok(Some(x.clone())),
                Some(other) => Err(format!("`{what}.{k}` must be a string, got {other}")),
            }
        };
        let b = |k: &str| -> Result<bool, String> {
            match t.get(k) {
                None => Ok(false),
                Some(Value::Boolean(x)) => Ok(*x),
                Some(other) => Err(format!("`{what}.{k}` must be true or false, got {other}")),
            }
        };
        let nums = |k: &str| -> Result<Vec<f64>, String> {
            match t.get(k) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| match x {
                        Value::Integer(i) => Ok(*i as f64),
                        Value::Float(f) => Ok(*f),
                        Value::String(s) => braid_core::units::parse_size(s)
                            .map(|v| v as f64)
                            .map_err(|e| format!("`{what}.{k}`: {e}")),
                        other => Err(format!("`{what}.{k}` must list numbers, got {other}")),
                    })
                    .collect(),
                Some(other) => Err(format!("`{what}.{k}` must be a list of numbers, got {other}")),
            }
        };
        let name = s("name")?.ok_or_else(|| format!("`{what}.name` is required"))?;
        if name.is_empty()
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!("`{what}.name` must be letters, digits, - or _ (it names files)"));
        }
        let kind = Kind::parse(&s("kind")?.ok_or_else(|| format!("`{what}.kind` is required"))?)
            .map_err(|e| format!("`{what}.kind`: {e}"))?;
        let mut y = str_list(t.get("y"), &format!("{what}.y"))?;
        if let Some(c) = s("column")? {
            y.push(c);
        }
        let aggregate = match s("aggregate")?.as_deref() {
            None | Some("none") => Agg::None,
            Some("sum") => Agg::Sum,
            Some("max") => Agg::Max,
            Some("mean") => Agg::Mean,
            Some(o) => {
                return Err(format!(
                    "`{what}.aggregate`: unknown `{o}` (known: none, sum, max, mean)"
                ))
            }
        };
        let relative = s("relative")?;
        if let Some(r) = &relative {
            if r != "speedup" && r != "ratio" {
                return Err(format!("`{what}.relative`: unknown `{r}` (known: speedup, ratio)"));
            }
        }
        let y_scale = match t.get("y_scale") {
            None => 1.0,
            Some(Value::Float(f)) => *f,
            Some(Value::Integer(i)) => *i as f64,
            Some(o) => return Err(format!("`{what}.y_scale` must be a number, got {o}")),
        };
        let spec = FigureSpec {
            title: s("title")?.unwrap_or_else(|| name.clone()),
            name,
            kind,
            x: s("x")?,
            y,
            y_names: str_list(t.get("y_names"), &format!("{what}.y_names"))?,
            series: s("series")?,
            facet: match t.get("facet") {
                Some(Value::Array(_)) => {
                    Some(str_list(t.get("facet"), &format!("{what}.facet"))?.join("+"))
                }
                _ => s("facet")?,
            },
            x_label: s("x_label")?,
            y_label: s("y_label")?,
            x_unit: s("x_unit")?,
            y_scale,
            log_x: b("log_x")?,
            log_y: b("log_y")?,
            file: s("file")?,
            time: s("time")?.unwrap_or_else(|| "time_ns".into()),
            group: s("group")?,
            aggregate,
            entities: str_list(t.get("entities"), &format!("{what}.entities"))?,
            filter: kv_multi(t.get("filter"), &format!("{what}.filter"))?,
            between: {
                let b = str_list(t.get("between"), &format!("{what}.between"))?;
                if !b.is_empty() && b.len() != 2 {
                    return Err(format!("`{what}.between` must name two host ranges such as [\"0-15\", \"192-207\"]"));
                }
                for r in &b {
                    host_range(r).ok_or_else(|| {
                        format!("`{what}.between`: `{r}` is not a host range such as \"0-15\"")
                    })?;
                }
                b
            },
            top: match t.get("top") {
                None => 8,
                Some(Value::Integer(n)) if *n > 0 => *n as usize,
                Some(o) => return Err(format!("`{what}.top` must be a positive integer, got {o}")),
            },
            baseline: kv_list(t.get("baseline"), &format!("{what}.baseline"))?,
            relative,
            bins: nums("bins")?,
            percentiles: nums("percentiles")?,
            paper: s("paper")?,
            braid: s("braid")?,
        };
        match spec.kind {
            Kind::Line | Kind::Bar => {
                if spec.x.is_none() {
                    return Err(format!(
                        "`{what}.x` is required for a {} figure",
                        if spec.kind == Kind::Line { "line" } else { "bar" }
                    ));
                }
                if spec.y.is_empty() {
                    return Err(format!("`{what}.y` is required (one or more runs.csv columns)"));
                }
            }
            Kind::Cdf | Kind::Timeseries => {
                if spec.y.is_empty() {
                    return Err(format!(
                        "`{what}.column` (or `y`) is required: the column of the per-run file"
                    ));
                }
                if spec.kind == Kind::Timeseries && spec.file.is_none() {
                    return Err(format!(
                        "`{what}.file` is required for a timeseries (e.g. \"queues.csv\")"
                    ));
                }
            }
            Kind::SlowdownBins => {}
        }
        if !spec.baseline.is_empty() && spec.relative.is_none() {
            return Err(format!("`{what}.baseline` needs `relative = \"speedup\"` or `\"ratio\"`"));
        }
        Ok(spec)
    }
}

/// `"0-15"` (inclusive) or `"7"` → (lo, hi).
pub(super) fn host_range(s: &str) -> Option<(u64, u64)> {
    let s = s.trim();
    match s.split_once('-').or_else(|| s.split_once("..")) {
        Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
        None => s.parse().ok().map(|x| (x, x)),
    }
}
