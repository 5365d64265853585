//! `braid compare`: run variants of a scenario side by side and print one table — the sweep
//! machinery ([`crate::sweep`]) without writing a plan file.
//!
//! ```text
//! braid compare SCENARIO.toml --vary transport.kind=rondo,uet,roce [--vary …]
//!               [--case 'ECMP+DCQCN: transport.kind=roce; transport.cc=dcqcn' …]
//!               [--seeds 1,2,3] [--out DIR] [--jobs N] [--columns a,b/c,…]
//! braid compare PLAN.toml [--out DIR]        # a sweep plan with [[case]]s, as examples/plans/
//! ```
//!
//! With a scenario, `compare` writes the equivalent sweep plan to `DIR/plan.toml` (each `--vary`
//! a grid key, each `--case` a `[[case]]`, default figures), so `braid sweep DIR/plan.toml` runs
//! the same thing again. It then runs every variant in parallel (each run single-threaded and
//! deterministic: the same variants and seeds give byte-identical files), writes `DIR/runs.csv`,
//! `DIR/runs/<run>/`, the figures `DIR/fig-*.png/.svg`, `DIR/compare.csv` (the table below, one
//! row per variant, the mean over seeds) and `DIR/index.html`, and prints the table.
//!
//! A plan may carry `title`, `note` (one sentence printed under the table: what to look at) and
//! `columns` (summary fields, or `a/b` ratios, for the table instead of [`DEFAULT_COLUMNS`]).
//! Rows are grouped by scenario file when the cases use several.
//!
//! `--vary` values are separated by commas (not inside `[…]`, `{…}` or quotes), each read as a
//! TOML value or else as a bare string, exactly as `--set` reads its value; a single value of the
//! form `"0us..20us step 5us"` expands to a range. Every variant is validated before anything
//! runs, so a wrong field or value ends with the same message as `--set` gives and exit code 2.

use std::fs;
use std::path::{Component, Path, PathBuf};

use toml::{Table, Value};

use crate::fields::value_text;
use crate::sweep::{self, Plan};
use crate::table::{csv_cell, read_summary};

/// A column of the comparison table: its heading, the summary field (or `a/b` ratio) and the
/// factor its value is multiplied by.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Heading (short; the definitions are printed under the table).
    pub heading: String,
    /// `summary.json` field, or `a/b` for the ratio of two fields.
    pub field: String,
    /// Multiply by this (1e-6 for ns → ms).
    pub scale: f64,
    /// Its `compare.csv` header: the field, or for a scaled default column a name with the unit
    /// the scaled value is in (`jct_ms`, `goodput_gbps`, `spurious_retx_pct`).
    pub csv_name: String,
}

/// The default columns: what a transport or routing comparison needs first — heading,
/// `summary.json` field, scale, and the `compare.csv` header (which names the scaled unit).
pub const DEFAULT_COLUMNS: &[(&str, &str, f64, &str)] = &[
    ("JCT ms", "sim_time_ns", 1e-6, "jct_ms"),
    ("slowdown p50", "fct_slowdown_p50", 1.0, "fct_slowdown_p50"),
    ("slowdown p99", "fct_slowdown_p99", 1.0, "fct_slowdown_p99"),
    ("goodput Gb/s", "goodput_bps", 1e-9, "goodput_gbps"),
    ("NIC OOD p99", "nic_ood_p99", 1.0, "nic_ood_p99"),
    ("NIC OOD max", "nic_ood_max", 1.0, "nic_ood_max"),
    ("spurious retx %", "spurious_retransmissions/packets_injected", 100.0, "spurious_retx_pct"),
];

/// What each default column means (printed under the table and in `index.html`).
pub const DEFINITIONS: &str = "JCT = time the last flow completes; slowdown = FCT / ideal FCT of the flow alone on its best \
path (docs/metrics.md; LCMP's artifact definition is `fct_slowdown_artifact_ideal_*`); goodput = application bytes delivered × 8 \
over first send to last delivery; NIC OOD = out-of-order degree summed over a receiver NIC's flows, in packets (Rondo §2.2); \
spurious retx = copies resent although the original arrived, per data packet sent (retransmissions included).";

/// Arguments of `braid compare`.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// A scenario file, or a sweep plan with `[[case]]`s.
    pub target: PathBuf,
    /// `table.field=v1,v2,…` (scenario only).
    pub vary: Vec<String>,
    /// `LABEL: table.field=v; table.field=v` (scenario only).
    pub cases: Vec<String>,
    /// Seeds: `1,2,3` or `1..3`.
    pub seeds: Option<String>,
    /// Output folder (default `out/compare/<stem>`).
    pub out: Option<PathBuf>,
    /// Parallel runs.
    pub jobs: Option<usize>,
    /// Table columns (comma-separated summary fields), overriding the plan's or the default.
    pub columns: Option<String>,
    /// No progress bar.
    pub quiet: bool,
}

/// What `compare` produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The output folder.
    pub out: PathBuf,
    /// The printed table.
    pub table: String,
    /// Runs that failed: (run, message).
    pub failed: Vec<(String, String)>,
    /// Runs made now.
    pub ran: usize,
    /// Runs reused: complete in the folder with the same resolved scenario.
    pub reused: usize,
    /// Run folders of an earlier comparison in the same folder, not in this one: removed.
    pub removed: Vec<String>,
    /// Figure errors.
    pub figure_errors: Vec<String>,
}

/// Split a `--vary` value list at top-level commas.
pub fn split_values(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut cur) = (0i32, None::<char>, String::new());
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, '[' | '{') => {
                depth += 1;
                cur.push(c);
            }
            (None, ']' | '}') => {
                depth -= 1;
                cur.push(c);
            }
            (None, ',') if depth == 0 => out.push(std::mem::take(&mut cur)),
            (None, c) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|v| v.trim().to_string()).collect()
}

/// A value as `--set` reads it: TOML if it parses, else a bare string.
fn read_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    doc.parse::<Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(raw.to_string()))
}

fn check_key(key: &str, what: &str) -> Result<(), String> {
    let ok = !key.is_empty()
        && key.contains('.')
        && key.split('.').all(|p| {
            !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: `{key}` is not a field name of the form table.field (as for --set)"))
    }
}

/// Parse one `--vary table.field=v1,v2,…`.
pub fn parse_vary(s: &str) -> Result<(String, Vec<Value>), String> {
    let (k, vals) = s
        .split_once('=')
        .ok_or_else(|| format!("--vary `{s}`: expected table.field=value1,value2,…"))?;
    let k = k.trim();
    check_key(k, &format!("--vary `{s}`"))?;
    let raw = split_values(vals);
    if raw.iter().any(String::is_empty) {
        return Err(format!("--vary `{s}`: an empty value (write table.field=value1,value2,…)"));
    }
    let values = if raw.len() == 1 && raw[0].contains("..") {
        sweep::expand_range(raw[0].trim_matches('"')).map_err(|e| format!("--vary `{s}`: {e}"))?
    } else {
        raw.iter().map(|r| read_value(r)).collect()
    };
    Ok((k.to_string(), values))
}

/// Parse `--seeds`: `1,2,3` or `1..3`.
pub fn parse_seeds_arg(s: &str) -> Result<Vec<u64>, String> {
    let err = || format!("--seeds `{s}`: expected non-negative integers such as 1,2,3 or 1..3");
    if s.contains("..") {
        sweep::parse_seeds(&Value::String(s.to_string()), "--seeds").map_err(|_| err())
    } else {
        split_values(s).iter().map(|x| x.parse::<u64>().map_err(|_| err())).collect()
    }
}

/// Parse one `--case 'LABEL: table.field=v; table.field=v'`.
pub fn parse_case(s: &str) -> Result<(String, Vec<(String, Value)>), String> {
    let (label, rest) = s
        .split_once(':')
        .ok_or_else(|| format!("--case `{s}`: expected 'LABEL: table.field=value; …'"))?;
    let label = label.trim();
    if label.is_empty() {
        return Err(format!("--case `{s}`: the label before `:` is empty"));
    }
    let mut sets = Vec::new();
    for part in rest.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("--case `{label}`: `{part}` is not table.field=value"))?;
        check_key(k.trim(), &format!("--case `{label}`"))?;
        if v.trim().is_empty() {
            return Err(format!("--case `{label}`: `{}` has no value", k.trim()));
        }
        sets.push((k.trim().to_string(), read_value(v.trim())));
    }
    Ok((label.to_string(), sets))
}

/// `path` relative to the folder `base` (both made absolute first), with `..` where needed.
pub fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let abs = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    };
    let (p, b) = (abs(path), abs(base));
    let pc: Vec<_> = p.components().collect();
    let bc: Vec<_> = b.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(a, b)| a == b).count();
    let mut rel = PathBuf::new();
    for _ in common..bc.len() {
        rel.push("..");
    }
    for c in &pc[common..] {
        rel.push(c);
    }
    rel
}

fn toml_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn inline(sets: &[(String, Value)]) -> String {
    let parts: Vec<String> = sets.iter().map(|(k, v)| format!("{} = {v}", toml_str(k))).collect();
    format!("{{ {} }}", parts.join(", "))
}

/// The sweep plan equivalent to `compare SCENARIO --vary … --case …`, as TOML text, for a plan
/// file written into `out`.
pub fn plan_text(
    scenario: &Path,
    out: &Path,
    vary: &[(String, Vec<Value>)],
    cases: &[(String, Vec<(String, Value)>)],
    seeds: Option<&str>,
) -> String {
    let rel = relative_to(scenario, out);
    let stem = scenario.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut t = String::new();
    t.push_str(&format!(
        "# Written by `braid compare`; `braid sweep {}` runs it again.\n",
        out.join("plan.toml").display()
    ));
    t.push_str(&format!("title = {}\n", toml_str(&format!("braid compare: {stem}"))));
    t.push_str(&format!(
        "note = {}\n",
        toml_str("Lower JCT and slowdown are better; a single-path flow reorders only through a loss, a retransmission or a path change after a failure.")
    ));
    t.push_str(&format!("scenario = {}\n", toml_str(&rel.to_string_lossy())));
    if let Some(s) = seeds {
        let v = if s.contains("..") {
            toml_str(s)
        } else {
            format!("[{}]", split_values(s).join(", "))
        };
        t.push_str(&format!("seeds = {v}\n"));
    }
    if !vary.is_empty() {
        t.push_str("\n[grid]\n");
        for (k, vals) in vary {
            let vs: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
            t.push_str(&format!("{} = [{}]\n", toml_str(k), vs.join(", ")));
        }
    }
    for (label, sets) in cases {
        t.push_str(&format!("\n[[case]]\nlabel = {}\nset = {}\n", toml_str(label), inline(sets)));
    }
    // Figures: one bar per variant; x = the cases or the first varied field, panels for the rest.
    let multi: Vec<&String> = vary.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k).collect();
    let (x, facet): (String, Vec<String>) = if !cases.is_empty() {
        ("case".into(), multi.iter().map(|k| k.to_string()).collect())
    } else if let Some(k) = multi.first() {
        (k.to_string(), multi.iter().skip(1).map(|k| k.to_string()).collect())
    } else {
        ("scenario_file".into(), Vec::new())
    };
    let facet_line = if facet.is_empty() {
        String::new()
    } else {
        format!("facet = [{}]\n", facet.iter().map(|f| toml_str(f)).collect::<Vec<_>>().join(", "))
    };
    for (name, title, ys, names, label, scale) in [
        (
            "slowdown",
            "FCT slowdown (FCT / ideal FCT alone on the best path)",
            "\"fct_slowdown_p50\", \"fct_slowdown_p99\"",
            "\"p50\", \"p99\"",
            "FCT slowdown",
            1.0,
        ),
        (
            "ood",
            "NIC-level out-of-order degree (packets)",
            "\"nic_ood_p99\", \"nic_ood_max\"",
            "\"p99\", \"max\"",
            "NIC OOD (packets)",
            1.0,
        ),
        (
            "jct",
            "Job completion time (last flow done)",
            "\"sim_time_ns\"",
            "\"JCT\"",
            "JCT (ms)",
            1e-6,
        ),
    ] {
        t.push_str(&format!(
            "\n[[figure]]\nname = {}\nkind = \"bar\"\ntitle = {}\nx = {}\n{facet_line}y = [{ys}]\ny_names = [{names}]\ny_label = {}\ny_scale = {scale:e}\nx_label = {}\n",
            toml_str(name),
            toml_str(title),
            toml_str(&x),
            toml_str(label),
            toml_str(&x)
        ));
    }
    t
}

/// Whether a TOML file is a sweep plan (a top-level `scenario` path or `[[case]]`s) rather than
/// a scenario (which has `[topology]`).
pub fn is_plan(t: &Table) -> bool {
    !t.contains_key("topology")
        && (t.get("scenario").is_some_and(Value::is_str) || t.contains_key("case"))
}

fn columns_from(spec: &[String]) -> Vec<Column> {
    spec.iter()
        .map(|f| {
            DEFAULT_COLUMNS
                .iter()
                .find(|(_, d, _, _)| d == f)
                .map(|(h, d, s, c)| Column {
                    heading: h.to_string(),
                    field: d.to_string(),
                    scale: *s,
                    csv_name: c.to_string(),
                })
                .unwrap_or_else(|| Column {
                    heading: f.clone(),
                    field: f.clone(),
                    scale: 1.0,
                    csv_name: f.clone(),
                })
        })
        .collect()
}

fn value_of(s: &[(String, String)], field: &str) -> Option<f64> {
    let get = |k: &str| s.iter().find(|(n, _)| n == k).and_then(|(_, v)| v.parse::<f64>().ok());
    match field.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (get(a)?, get(b)?);
            (b != 0.0).then(|| a / b)
        }
        None => get(field),
    }
}

/// The decimals a value needs: none for a whole number, 1 from 100 up, 3 from 1, else 4.
fn decimals(x: f64) -> usize {
    match x.abs() {
        _ if x == x.round() && x.abs() < 1e9 => 0,
        a if a >= 100.0 => 1,
        a if a >= 1.0 => 3,
        _ => 4,
    }
}

/// The decimals of a column: the most any of its values needs, so that one column has one
/// format (never "67.500" above "241.5").
fn column_decimals(rows: &[Row], i: usize) -> usize {
    rows.iter().filter_map(|r| r.values[i]).map(decimals).max().unwrap_or(0)
}

fn fmt_cell(v: Option<f64>, decimals: usize) -> String {
    match v {
        None => "-".into(),
        Some(x) => format!("{x:.decimals$}"),
    }
}

/// One row of the table: the variant's label, its scenario file, and the mean over seeds of
/// each column (None where no run of the variant has the field).
#[derive(Clone, Debug)]
pub struct Row {
    /// Group (scenario file, relative to the plan's folder).
    pub scenario: String,
    /// The scenario file as an absolute path (what `compare.csv` records).
    pub scenario_path: String,
    /// Variant label: the case and the varied values.
    pub label: String,
    /// Seeds averaged.
    pub runs: usize,
    /// Failed runs of this variant.
    pub failed: usize,
    /// Column values.
    pub values: Vec<Option<f64>>,
}

/// Build the table's rows from the runs' summaries in `out`.
pub fn rows(out: &Path, plan: &Plan, columns: &[Column]) -> Vec<Row> {
    let base = plan.file.parent().map(Path::to_path_buf).unwrap_or_default();
    // Grid keys with one value are the same in every row: they stay out of the labels.
    let varied: Vec<&str> =
        plan.grid.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k.as_str()).collect();
    let bare = plan.cases.is_empty() && varied.len() == 1;
    let mut rows: Vec<(Row, Vec<Vec<f64>>)> = Vec::new();
    for r in plan.expand() {
        let sf =
            r.scenario.strip_prefix(&base).unwrap_or(&r.scenario).to_string_lossy().into_owned();
        let mut parts: Vec<String> = r.case.iter().cloned().collect();
        for (k, v) in r.params.iter().filter(|(k, _)| varied.contains(&k.as_str())) {
            parts.push(if bare { v.clone() } else { format!("{k}={v}") });
        }
        let label = if parts.is_empty() { sf.clone() } else { parts.join(" ") };
        let summary = read_summary(&out.join("runs").join(&r.name).join("summary.json")).ok();
        let idx = match rows.iter().position(|(x, _)| x.label == label && x.scenario == sf) {
            Some(i) => i,
            None => {
                let abs = std::fs::canonicalize(&r.scenario)
                    .unwrap_or_else(|_| r.scenario.clone())
                    .to_string_lossy()
                    .into_owned();
                rows.push((
                    Row {
                        scenario: sf.clone(),
                        scenario_path: abs,
                        label,
                        runs: 0,
                        failed: 0,
                        values: Vec::new(),
                    },
                    vec![Vec::new(); columns.len()],
                ));
                rows.len() - 1
            }
        };
        let (row, acc) = &mut rows[idx];
        match summary {
            Some(s) => {
                row.runs += 1;
                for (c, a) in columns.iter().zip(acc.iter_mut()) {
                    if let Some(v) = value_of(&s, &c.field) {
                        a.push(v * c.scale);
                    }
                }
            }
            None => row.failed += 1,
        }
    }
    rows.into_iter()
        .map(|(mut r, acc)| {
            r.values = acc
                .iter()
                .map(|a| (!a.is_empty()).then(|| a.iter().sum::<f64>() / a.len() as f64))
                .collect();
            r
        })
        .collect()
}

/// The heading of the label column: the varied field when it is the only one, else `variant`.
pub fn label_heading(plan: &Plan) -> String {
    let varied: Vec<&str> =
        plan.grid.iter().filter(|(_, v)| v.len() > 1).map(|(k, _)| k.as_str()).collect();
    if plan.cases.is_empty() && varied.len() == 1 {
        varied[0].to_string()
    } else {
        "variant".into()
    }
}

/// Break `text` into lines of at most `width` characters at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for w in text.split_whitespace() {
        let n = w.chars().count();
        if line > 0 && line + 1 + n > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += n;
    }
    out.push('\n');
    out
}

/// The table as text (grouped by scenario when there are several) and as CSV; `heading` names
/// the label column.
pub fn render(
    rows: &[Row],
    columns: &[Column],
    heading: &str,
    note: Option<&str>,
) -> (String, String) {
    let groups: Vec<&str> =
        rows.iter().map(|r| r.scenario.as_str()).fold(Vec::new(), |mut v, s| {
            if !v.contains(&s) {
                v.push(s);
            }
            v
        });
    let seeds = rows.iter().map(|r| r.runs).max().unwrap_or(0);
    let label_w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(heading.chars().count());
    let decs: Vec<usize> = (0..columns.len()).map(|i| column_decimals(rows, i)).collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter()
                .map(|r| fmt_cell(r.values[i], decs[i]).len())
                .max()
                .unwrap_or(1)
                .max(c.heading.chars().count())
        })
        .collect();
    let mut text = String::new();
    for g in &groups {
        if groups.len() > 1 {
            let name = Path::new(g)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| g.to_string());
            text.push_str(&format!("\n{name}\n"));
        }
        text.push_str(&format!("{:<label_w$}", heading));
        for (c, w) in columns.iter().zip(&widths) {
            text.push_str(&format!("  {:>w$}", c.heading));
        }
        text.push('\n');
        for r in rows.iter().filter(|r| r.scenario == *g) {
            text.push_str(&format!("{:<label_w$}", r.label));
            for ((v, w), d) in r.values.iter().zip(&widths).zip(&decs) {
                text.push_str(&format!("  {:>w$}", fmt_cell(*v, *d)));
            }
            if r.failed > 0 {
                text.push_str(&format!("  ({} run(s) failed)", r.failed));
            }
            text.push('\n');
        }
    }
    if seeds > 1 {
        text.push_str(&format!("(each row: the mean of {seeds} seeds)\n"));
    }
    if columns.iter().any(|c| DEFAULT_COLUMNS.iter().any(|(_, f, _, _)| *f == c.field)) {
        text.push_str(&wrap(DEFINITIONS, 100));
    }
    if let Some(n) = note {
        text.push_str(&wrap(n, 100));
    }
    let mut csv = String::from("scenario_file,variant,runs");
    for c in columns {
        csv.push(',');
        csv.push_str(&csv_cell(&c.csv_name));
    }
    csv.push('\n');
    for r in rows {
        csv.push_str(&format!("{},{},{}", csv_cell(&r.scenario_path), csv_cell(&r.label), r.runs));
        for v in &r.values {
            csv.push(',');
            if let Some(x) = v {
                csv.push_str(&braid_metrics::fmt_f64(*x));
            }
        }
        csv.push('\n');
    }
    (text, csv)
}

/// Run `braid compare`. Errors: (exit code, message) — 2 for bad input, 1 otherwise.
pub fn run(a: &Args) -> Result<Outcome, (u8, String)> {
    let bad = |e: String| (2u8, e);
    let text = fs::read_to_string(&a.target)
        .map_err(|e| bad(format!("cannot read `{}`: {e}", a.target.display())))?;
    let t: Table = text.parse().map_err(|e: toml::de::Error| {
        bad(format!("{}: malformed TOML: {}", a.target.display(), e.message().trim()))
    })?;
    let stem = a
        .target
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "compare".into());
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("out/compare").join(&stem));
    let plan_path = if is_plan(&t) {
        if !a.vary.is_empty() || !a.cases.is_empty() || a.seeds.is_some() {
            return Err(bad(format!(
                "{}: is a sweep plan; --vary, --case and --seeds apply to a scenario file (edit the plan's [grid], [[case]] and seeds)",
                a.target.display()
            )));
        }
        a.target.clone()
    } else {
        let mut vary = Vec::new();
        for v in &a.vary {
            let (k, vals) = parse_vary(v).map_err(bad)?;
            if vary.iter().any(|(x, _): &(String, Vec<Value>)| *x == k) {
                return Err(bad(format!(
                    "--vary `{k}` is given twice (list all its values in one --vary)"
                )));
            }
            vary.push((k, vals));
        }
        let mut cases = Vec::new();
        for c in &a.cases {
            let (l, s) = parse_case(c).map_err(bad)?;
            if cases.iter().any(|(x, _): &(String, Vec<(String, Value)>)| *x == l) {
                return Err(bad(format!("--case `{l}` is given twice")));
            }
            cases.push((l, s));
        }
        if vary.is_empty() && cases.is_empty() {
            return Err(bad("nothing to compare: give --vary table.field=a,b,… or --case 'LABEL: table.field=v; …'".into()));
        }
        if let Some(s) = &a.seeds {
            parse_seeds_arg(s).map_err(bad)?;
        }
        // The outermost folder this call creates (removed again if the comparison is refused).
        let created = out
            .ancestors()
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .last()
            .map(Path::to_path_buf);
        fs::create_dir_all(&out)
            .map_err(|e| (1, format!("cannot create `{}`: {e}", out.display())))?;
        let p = out.join("plan.toml");
        let earlier = fs::read(&p).ok();
        fs::write(&p, plan_text(&a.target, &out, &vary, &cases, a.seeds.as_deref()))
            .map_err(|e| (1, format!("cannot write `{}`: {e}", p.display())))?;
        // The plan is checked (every run's scenario) before anything else is written; a refused
        // comparison leaves the folder as it found it.
        let checked = Plan::load(&p).and_then(|plan| sweep::load_all(&plan.expand()).map(|_| ()));
        if let Err(e) = checked {
            match earlier {
                Some(bytes) => drop(fs::write(&p, bytes)),
                None if created.is_some() => drop(created.map(fs::remove_dir_all)),
                None => drop(fs::remove_file(&p)),
            }
            return Err(bad(format!("{}: {e}", a.target.display())));
        }
        p
    };
    let plan = Plan::load(&plan_path).map_err(bad)?;
    let figures = Plan::figures(&plan_path).map_err(bad)?;
    let pt: Table =
        fs::read_to_string(&plan_path).ok().and_then(|s| s.parse().ok()).unwrap_or_default();
    let note = pt.get("note").and_then(Value::as_str).map(str::to_string);
    let colspec: Vec<String> = match (&a.columns, pt.get("columns")) {
        (Some(c), _) => split_values(c),
        (None, Some(Value::Array(v))) => v.iter().map(value_text).collect(),
        (None, Some(_)) => {
            return Err(bad(format!(
                "{}: `columns` must be a list of summary fields",
                plan_path.display()
            )))
        }
        (None, None) => DEFAULT_COLUMNS.iter().map(|(_, f, _, _)| f.to_string()).collect(),
    };
    let columns = columns_from(&colspec);
    let runs = plan.expand();
    let scenarios =
        sweep::load_all(&runs).map_err(|e| bad(format!("{}: {e}", a.target.display())))?;
    let report = sweep::execute(
        &plan,
        &runs,
        scenarios,
        &sweep::Options { out: out.clone(), jobs: a.jobs, progress: !a.quiet },
    )
    .map_err(|e| (1, e))?;
    let figure_errors: Vec<String> =
        sweep::draw_figures(&out, &figures).into_iter().filter_map(Result::err).collect();
    let rows = rows(&out, &plan, &columns);
    let (table, csv) = render(&rows, &columns, &label_heading(&plan), note.as_deref());
    let cp = out.join("compare.csv");
    fs::write(&cp, csv).map_err(|e| (1, format!("cannot write `{}`: {e}", cp.display())))?;
    let tp = out.join("compare.txt");
    fs::write(&tp, &table).map_err(|e| (1, format!("cannot write `{}`: {e}", tp.display())))?;
    crate::report::write_report(&out).map_err(|e| (1, e))?;
    Ok(Outcome {
        out,
        table,
        failed: report.failed,
        ran: report.ran,
        reused: report.skipped,
        removed: report.removed,
        figure_errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_has_one_number_format() {
        let col =
            Column { heading: "p99".into(), field: "x".into(), scale: 1.0, csv_name: "x".into() };
        let row = |label: &str, v: f64| Row {
            scenario: "s".into(),
            scenario_path: "s".into(),
            label: label.into(),
            runs: 1,
            failed: 0,
            values: vec![Some(v)],
        };
        let (text, _) =
            render(&[row("a", 67.5), row("b", 241.5), row("c", 3.0)], &[col], "variant", None);
        assert!(
            text.contains(" 67.500") && text.contains("241.500") && text.contains("  3.000"),
            "{text}"
        );
        let col =
            Column { heading: "n".into(), field: "x".into(), scale: 1.0, csv_name: "x".into() };
        let (text, _) = render(&[row("a", 12.0), row("b", 7.0)], &[col], "variant", None);
        assert!(text.contains(" 12\n") && text.contains("  7\n"), "{text}");
    }

    #[test]
    fn values_split_at_top_level_commas() {
        assert_eq!(split_values("rondo,uet, roce"), ["rondo", "uet", "roce"]);
        assert_eq!(split_values("[1,2],[3]"), ["[1,2]", "[3]"]);
        assert_eq!(split_values("\"a,b\",c"), ["\"a,b\"", "c"]);
    }

    #[test]
    fn vary_and_case_parse_or_name_the_problem() {
        let (k, v) = parse_vary("transport.kind=rondo,uet").unwrap();
        assert_eq!(k, "transport.kind");
        assert_eq!(v, [Value::String("rondo".into()), Value::String("uet".into())]);
        let (_, v) = parse_vary("workload.load=0.3,0.5").unwrap();
        assert_eq!(v, [Value::Float(0.3), Value::Float(0.5)]);
        let (_, v) = parse_vary("topology.extra_delay=0us..10us step 5us").unwrap();
        assert_eq!(v.len(), 3);
        assert!(parse_vary("transport.kind").unwrap_err().contains("table.field=value1"));
        assert!(parse_vary("kind=rondo").unwrap_err().contains("table.field"));
        assert!(parse_vary("transport.kind=rondo,,uet").unwrap_err().contains("empty value"));
        let (l, s) = parse_case("ECMP+DCQCN: transport.kind=roce; transport.cc=dcqcn").unwrap();
        assert_eq!(l, "ECMP+DCQCN");
        assert_eq!(s.len(), 2);
        assert!(parse_case("no colon").unwrap_err().contains("LABEL"));
        assert!(parse_case("X: transport.kind").unwrap_err().contains("not table.field=value"));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_to(Path::new("/a/b/c.toml"), Path::new("/a/out/x")),
            PathBuf::from("../../b/c.toml")
        );
        assert_eq!(
            relative_to(Path::new("/a/b/c.toml"), Path::new("/a/b")),
            PathBuf::from("c.toml")
        );
    }

    #[test]
    fn the_written_plan_is_a_valid_plan() {
        let vary = vec![parse_vary("transport.kind=rondo,uet").unwrap()];
        let cases = vec![parse_case("A: workload.size=1MB").unwrap()];
        let text = plan_text(
            Path::new("/x/examples/s.toml"),
            Path::new("/x/out/c"),
            &vary,
            &cases,
            Some("1,2"),
        );
        let t: Table = text.parse().unwrap();
        let p =
            Plan::from_table(&t, Path::new("/x/out/c/plan.toml"), sweep::PLAN_EXTRA_KEYS).unwrap();
        assert_eq!(p.expand().len(), 4);
        assert_eq!(p.scenario, Some(PathBuf::from("/x/out/c/../../examples/s.toml")));
    }
}
