//! Reading sweep results for figures: [`Results`] (`runs.csv` and the per-run folders), the
//! rows a figure selects, per-run values (runs.csv columns, ratios `a/b`, `flows:` metrics over a
//! run's `flows.csv`, values relative to a baseline run), per-run file columns and time series,
//! unit conversion ([`to_unit`]) and the `{column[key=value]:agg}` caption templates
//! ([`expand_template`]). Percentiles are Braid's nearest rank ([`braid_core::percentile`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use braid_core::percentile::percentile;

use super::figure::fmt_si;
use super::schema::{host_range, Agg, FigureSpec};
use crate::table::Csv;

/// Sweep results: `runs.csv` and the folder holding `runs/<run>/`.
pub struct Results {
    /// The runs table.
    pub runs: Csv,
    /// The sweep's output folder.
    pub dir: PathBuf,
}

impl Results {
    /// Read `DIR/runs.csv`.
    pub fn load(dir: &Path) -> Result<Results, String> {
        Ok(Results { runs: Csv::read(&dir.join("runs.csv"))?, dir: dir.to_path_buf() })
    }

    /// A cell of a run by column name.
    pub fn cell<'a>(&'a self, row: &'a [String], col: &str) -> Option<&'a str> {
        self.runs.col(col).and_then(|c| row.get(c)).map(|s| s.as_str())
    }

    /// Rows of successful runs whose columns have one of the given values.
    pub fn rows_any(&self, filter: &[(String, Vec<String>)]) -> Vec<&Vec<String>> {
        self.runs
            .rows
            .iter()
            .filter(|r| self.cell(r, "status").is_none_or(|s| s == "ok"))
            .filter(|r| {
                filter
                    .iter()
                    .all(|(k, vs)| self.cell(r, k).is_some_and(|c| vs.iter().any(|v| v == c)))
            })
            .collect()
    }

    /// A run's value of a runs.csv column, a ratio `a/b` of two, or a `flows:` metric of its
    /// `flows.csv`, as a number.
    pub fn number(&self, row: &[String], col: &str) -> Option<f64> {
        cell_num(self, row, col)
    }

    /// Rows of successful runs matching `filter` exactly.
    pub fn rows(&self, filter: &[(String, String)]) -> Vec<&Vec<String>> {
        let f: Vec<(String, Vec<String>)> =
            filter.iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
        self.rows_any(&f)
    }

    /// A cell by column name; a facet `a+b` joins the cells of `a` and `b` with ` · `.
    pub(super) fn multi_cell(&self, row: &[String], col: &str) -> Option<String> {
        if self.runs.col(col).is_some() || !col.contains('+') {
            return self.cell(row, col).map(str::to_string);
        }
        let parts: Vec<&str> = col.split('+').filter_map(|c| self.cell(row, c)).collect();
        Some(parts.join(" · "))
    }

    /// The identity of a run for baseline matching: its case, scenario file (if `with_file`),
    /// grid values and seed, except the columns in `skip`.
    pub(super) fn identity(
        &self,
        row: &[String],
        skip: &[(String, String)],
        with_file: bool,
    ) -> Vec<String> {
        let status = self.runs.col("status").unwrap_or(self.runs.header.len());
        let mut id = Vec::new();
        for (i, h) in self.runs.header.iter().enumerate() {
            let is_param =
                (i > 0 && i < status && (with_file || h != "scenario_file")) || h == "seed";
            if is_param && !skip.iter().any(|(k, _)| k == h) {
                id.push(row.get(i).cloned().unwrap_or_default());
            }
        }
        id
    }
}

pub(super) fn distinct(vals: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in vals {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Convert a value with units into `unit`; plain numbers pass through.
pub fn to_unit(s: &str, unit: Option<&str>) -> Option<f64> {
    let s = s.trim();
    if let Ok(v) = s.parse::<f64>() {
        return Some(v);
    }
    if let Ok(t) = braid_core::units::parse_duration(s) {
        let ps = t.ps() as f64;
        return Some(match unit.unwrap_or("us") {
            "ps" => ps,
            "ns" => ps / 1e3,
            "ms" => ps / 1e9,
            "s" => ps / 1e12,
            _ => ps / 1e6,
        });
    }
    if let Ok(r) = braid_core::units::parse_rate(s) {
        let b = r.bps() as f64;
        return Some(match unit.unwrap_or("Gbps") {
            "bps" => b,
            "Mbps" => b / 1e6,
            _ => b / 1e9,
        });
    }
    if let Ok(b) = braid_core::units::parse_size(s) {
        let b = b as f64;
        return Some(match unit.unwrap_or("B") {
            "KB" => b / 1e3,
            "MB" => b / 1e6,
            "GB" => b / 1e9,
            "KiB" => b / 1024.0,
            "MiB" => b / 1048576.0,
            _ => b,
        });
    }
    None
}

pub(super) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn agg(v: &[f64], how: &str) -> f64 {
    match how {
        "min" => v.iter().copied().fold(f64::NAN, f64::min),
        "max" => v.iter().copied().fold(f64::NAN, f64::max),
        "sum" => v.iter().sum(),
        _ => mean(v),
    }
}

/// A runs.csv value as a number; `a/b` divides two columns (e.g. `spurious_retransmissions/packets_injected`).
fn cell_num(res: &Results, row: &[String], col: &str) -> Option<f64> {
    if let Some(m) = col.strip_prefix("flows:") {
        return flow_metric(res, row, m);
    }
    if let Some(m) = col.strip_prefix("paths:") {
        return paths_metric(res, row, m);
    }
    if res.runs.col(col).is_none() {
        if let Some((a, b)) = col.split_once('/') {
            let a: f64 = res.cell(row, a.trim())?.trim().parse().ok()?;
            let b: f64 = res.cell(row, b.trim())?.trim().parse().ok()?;
            return (b != 0.0).then(|| a / b);
        }
    }
    res.cell(row, col)?.trim().parse().ok()
}

/// A per-run metric computed from the run's `paths.csv` (`output.paths`): `paths:jain(from=T,to=T)`
/// is Jain's index of the flows' throughputs between two times (durations with units), a flow's
/// throughput being the sum of its paths' ACK-rate estimates averaged over the samples in
/// `[from, to)`, over the flows sampled there.
fn paths_metric(res: &Results, row: &[String], m: &str) -> Option<f64> {
    let (name, args) = m.split_once('(')?;
    if name.trim() != "jain" {
        return None;
    }
    let mut from = 0.0;
    let mut to = f64::INFINITY;
    for kv in args.trim_end_matches(')').split(',') {
        let (k, v) = kv.split_once('=')?;
        let ns = braid_core::units::parse_duration(v.trim()).ok()?.ps() as f64 / 1e3;
        match k.trim() {
            "from" => from = ns,
            "to" => to = ns,
            _ => return None,
        }
    }
    let run = res.cell(row, "run")?;
    let csv = Csv::read(&res.dir.join("runs").join(run).join("paths.csv")).ok()?;
    let (t, f, r) = (csv.col("time_ns")?, csv.col("flow")?, csv.col("ack_rate_bps")?);
    let mut per_flow: BTreeMap<u64, f64> = BTreeMap::new();
    let mut samples: BTreeMap<u64, std::collections::BTreeSet<u64>> = BTreeMap::new();
    for row in &csv.rows {
        let time: f64 = row.get(t)?.parse().ok()?;
        if time < from || time >= to {
            continue;
        }
        let flow: u64 = row.get(f)?.parse().ok()?;
        *per_flow.entry(flow).or_default() += row.get(r)?.parse::<f64>().ok()?;
        samples.entry(flow).or_default().insert(time as u64);
    }
    let x: Vec<f64> =
        per_flow.iter().map(|(fl, sum)| sum / samples[fl].len().max(1) as f64).collect();
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    (s2 > 0.0).then(|| s * s / (x.len() as f64 * s2))
}

/// A per-run metric computed from the run's `flows.csv`: `flows:NAME` or `flows:NAME(col=value,…)`
/// (only flows whose columns have these values, e.g. `dst=0`; `[…]` works too outside captions). NAME: `goodput` (bits of completed
/// flows × 8 over first start → last finish, b/s), `count`, `fct_mean_ns`, `fct_p99_ns`,
/// `slowdown_p50`, `slowdown_p99`, `jain` (Jain's index of per-flow throughput).
fn flow_metric(res: &Results, row: &[String], m: &str) -> Option<f64> {
    let (name, filter) = match m.split_once(['[', '(']) {
        Some((n, f)) => (
            n.trim(),
            f.trim_end_matches([']', ')'])
                .split(',')
                .filter_map(|x| x.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect::<Vec<_>>(),
        ),
        None => (m.trim(), Vec::new()),
    };
    let run = res.cell(row, "run")?;
    let csv = Csv::read(&res.dir.join("runs").join(run).join("flows.csv")).ok()?;
    let idx: Vec<(usize, &String)> =
        filter.iter().filter_map(|(k, v)| csv.col(k).map(|c| (c, v))).collect();
    if idx.len() != filter.len() {
        return None;
    }
    let rows: Vec<&Vec<String>> = csv
        .rows
        .iter()
        .filter(|r| {
            idx.iter().all(|(c, v)| {
                r.get(*c).is_some_and(|x| {
                    x == *v
                        || x.parse::<f64>().ok() == v.parse::<f64>().ok()
                            && x.parse::<f64>().is_ok()
                })
            })
        })
        .collect();
    let num = |r: &Vec<String>, c: &str| {
        csv.col(c).and_then(|i| r.get(i)).and_then(|x| x.parse::<f64>().ok())
    };
    let done: Vec<&&Vec<String>> = rows.iter().filter(|r| num(r, "fct_ns").is_some()).collect();
    let sorted = |c: &str| {
        let mut v: Vec<f64> = done.iter().filter_map(|r| num(r, c)).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    match name {
        "count" => Some(rows.len() as f64),
        "goodput" => {
            let bytes: f64 = done.iter().filter_map(|r| num(r, "size_bytes")).sum();
            let start =
                done.iter().filter_map(|r| num(r, "start_ns")).fold(f64::INFINITY, f64::min);
            let end =
                done.iter().filter_map(|r| num(r, "finish_ns")).fold(f64::NEG_INFINITY, f64::max);
            (end > start).then(|| bytes * 8.0 / ((end - start) * 1e-9))
        }
        "fct_mean_ns" => Some(mean(&sorted("fct_ns"))),
        "fct_p99_ns" => Some(percentile(&sorted("fct_ns"), 99.0).unwrap_or(f64::NAN)),
        "slowdown_p50" => Some(percentile(&sorted("slowdown"), 50.0).unwrap_or(f64::NAN)),
        "slowdown_p99" => Some(percentile(&sorted("slowdown"), 99.0).unwrap_or(f64::NAN)),
        "jain" => {
            let tp: Vec<f64> = done
                .iter()
                .filter_map(|r| Some(num(r, "size_bytes")? / num(r, "fct_ns")?))
                .filter(|x| x.is_finite())
                .collect();
            let s: f64 = tp.iter().sum();
            let s2: f64 = tp.iter().map(|x| x * x).sum();
            (s2 > 0.0).then(|| s * s / (tp.len() as f64 * s2))
        }
        _ => None,
    }
}

/// Per-row y value of `col`, scaled and made relative to the baseline run if asked.
pub(super) fn y_value(res: &Results, spec: &FigureSpec, row: &[String], col: &str) -> Option<f64> {
    let v = cell_num(res, row, col)? * spec.y_scale;
    if spec.baseline.is_empty() {
        return Some(v);
    }
    // The baseline run with the same scenario file, grid values and seed; failing that (a case
    // with a scenario of its own), the same grid values and seed.
    let bases = res.rows(&spec.baseline);
    let find = |with_file: bool| {
        let id = res.identity(row, &spec.baseline, with_file);
        bases.iter().copied().find(|b| res.identity(b, &spec.baseline, with_file) == id)
    };
    let base = find(true).or_else(|| find(false))?;
    let b = cell_num(res, base, col)? * spec.y_scale;
    match spec.relative.as_deref() {
        Some("speedup") => (v != 0.0).then(|| b / v),
        _ => (b != 0.0).then(|| v / b),
    }
}

/// A column of a per-run file, with derived flow columns: `fct_us`, `throughput_gbps`
/// (size × 8 / FCT) and `normalized_throughput` (throughput / the run's mean throughput).
pub(super) fn run_column(
    res: &Results,
    row: &[String],
    file: &str,
    col: &str,
    between: &[String],
) -> Result<Vec<f64>, String> {
    let run = res.cell(row, "run").unwrap_or("");
    let path = res.dir.join("runs").join(run).join(file);
    let mut csv = Csv::read(&path)?;
    if between.len() == 2 {
        let (a, b) =
            (host_range(&between[0]).unwrap_or((1, 0)), host_range(&between[1]).unwrap_or((1, 0)));
        let (Some(sc), Some(dc)) = (csv.col("src"), csv.col("dst")) else {
            return Err(format!("`{}` has no src/dst columns for `between`", path.display()));
        };
        let inr =
            |r: (u64, u64), v: &str| v.trim().parse::<u64>().is_ok_and(|x| x >= r.0 && x <= r.1);
        csv.rows.retain(|row| {
            let (s, d) = (&row[sc], &row[dc]);
            (inr(a, s) && inr(b, d)) || (inr(b, s) && inr(a, d))
        });
    }
    let get =
        |c: &str| csv.numbers(c).ok_or_else(|| format!("`{}` has no column `{c}`", path.display()));
    match col {
        "fct_us" => {
            Ok(get("fct_ns")?.into_iter().map(|v| v.map_or(f64::NAN, |x| x / 1e3)).collect())
        }
        "throughput_gbps" | "normalized_throughput" => {
            let sz = get("size_bytes")?;
            let fct = get("fct_ns")?;
            let tp: Vec<f64> = sz
                .iter()
                .zip(&fct)
                .map(|(s, f)| match (s, f) {
                    (Some(s), Some(f)) if *f > 0.0 => s * 8.0 / f,
                    _ => f64::NAN,
                })
                .collect();
            if col == "normalized_throughput" {
                let fin: Vec<f64> = tp.iter().copied().filter(|v| v.is_finite()).collect();
                let m = mean(&fin);
                Ok(tp.into_iter().map(|v| v / m).collect())
            } else {
                Ok(tp)
            }
        }
        c => Ok(get(c)?.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect()),
    }
}

/// Named lines: (entity name, points).
pub type NamedLines = Vec<(String, Vec<(f64, f64)>)>;

/// Lines of a time series file of one run: (entity name, points).
pub(super) fn time_series(
    res: &Results,
    row: &[String],
    file: &str,
    spec: &FigureSpec,
    col: &str,
) -> Result<NamedLines, String> {
    let run = res.cell(row, "run").unwrap_or("");
    let path = res.dir.join("runs").join(run).join(file);
    let csv = Csv::read(&path)?;
    series_from_csv(
        &csv,
        &spec.time,
        spec.group.as_deref(),
        col,
        spec.aggregate,
        &spec.entities,
        spec.x_unit.as_deref(),
        spec.y_scale,
        spec.top,
    )
    .map_err(|e| format!("`{}`: {e}", path.display()))
}

fn time_div(unit: Option<&str>) -> f64 {
    match unit.unwrap_or("us") {
        "ns" => 1.0,
        "ms" => 1e6,
        "s" => 1e9,
        _ => 1e3,
    }
}

/// Turn a long-format time series table into lines. Missing samples of an entity count as 0
/// (Braid records queue and OOD samples only when non-zero). Without `entities`, at most `top`
/// entities (the largest peaks) get their own line.
#[allow(clippy::too_many_arguments)]
pub fn series_from_csv(
    csv: &Csv,
    time: &str,
    group: Option<&str>,
    col: &str,
    how: Agg,
    entities: &[String],
    unit: Option<&str>,
    scale: f64,
    top: usize,
) -> Result<NamedLines, String> {
    let tc = csv.col(time).ok_or_else(|| format!("no time column `{time}`"))?;
    let vc = csv.col(col).ok_or_else(|| format!("no column `{col}`"))?;
    let gc = match group {
        Some(g) => Some(csv.col(g).ok_or_else(|| format!("no column `{g}`"))?),
        None => None,
    };
    let div = time_div(unit);
    // time (ns, as key) → entity → value
    let mut times: BTreeMap<i64, f64> = BTreeMap::new();
    let mut per: BTreeMap<String, BTreeMap<i64, f64>> = BTreeMap::new();
    for r in &csv.rows {
        let (Some(t), Some(v)) = (
            r.get(tc).and_then(|s| s.parse::<f64>().ok()),
            r.get(vc).and_then(|s| s.parse::<f64>().ok()),
        ) else {
            continue;
        };
        let e = gc.and_then(|g| r.get(g)).cloned().unwrap_or_default();
        if !entities.is_empty() && !entities.contains(&e) {
            continue;
        }
        let key = (t * 1000.0).round() as i64;
        times.insert(key, t);
        *per.entry(e).or_default().entry(key).or_insert(0.0) += v;
    }
    let to_pts = |m: &BTreeMap<i64, f64>| -> Vec<(f64, f64)> {
        times.iter().map(|(k, t)| (t / div, m.get(k).copied().unwrap_or(0.0) * scale)).collect()
    };
    if how == Agg::None || gc.is_none() {
        let mut ents: Vec<(&String, &BTreeMap<i64, f64>)> = per.iter().collect();
        if entities.is_empty() && ents.len() > top {
            ents.sort_by(|a, b| {
                let pa = a.1.values().copied().fold(0.0, f64::max);
                let pb = b.1.values().copied().fold(0.0, f64::max);
                pb.total_cmp(&pa).then(a.0.cmp(b.0))
            });
            ents.truncate(top);
            ents.sort_by(|a, b| natural(a.0, b.0));
        } else {
            ents.sort_by(|a, b| natural(a.0, b.0));
        }
        let gname = group.unwrap_or("");
        return Ok(ents
            .into_iter()
            .map(|(e, m)| {
                (if e.is_empty() { String::new() } else { format!("{gname} {e}") }, to_pts(m))
            })
            .collect());
    }
    let n = per.len().max(1) as f64;
    let pts = times
        .iter()
        .map(|(k, t)| {
            let vals = per.values().map(|m| m.get(k).copied().unwrap_or(0.0));
            let v = match how {
                Agg::Sum => vals.sum::<f64>(),
                Agg::Max => vals.fold(0.0, f64::max),
                _ => vals.sum::<f64>() / n,
            };
            (t / div, v * scale)
        })
        .collect();
    Ok(vec![(String::new(), pts)])
}

fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}

/// Expand `{column[key=value,…]:agg}` placeholders over the successful runs of `res`.
pub fn expand_template(t: &str, res: &Results) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('}') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let inner = &rest[i + 1..i + j];
        out.push_str(&eval_placeholder(inner, res));
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    out
}

fn eval_placeholder(p: &str, res: &Results) -> String {
    match eval_number(p, res, &[]) {
        Some(v) => fmt_si(v),
        None => "n/a".into(),
    }
}

/// The number a `column[key=value,…]:agg` expression (a caption placeholder's body) gives over
/// the successful runs of `res` that also match `extra` (`None`: no run matches, or none has
/// the column). `agg` is `mean` (default), `min`, `max` or `sum`.
pub fn eval_number(p: &str, res: &Results, extra: &[(String, String)]) -> Option<f64> {
    let (body, how) = match p.rsplit_once(':') {
        Some((b, h)) if ["mean", "min", "max", "sum"].contains(&h.trim()) => (b, h.trim()),
        _ => (p, "mean"),
    };
    let (colname, filter) = match body.split_once('[') {
        Some((c, f)) => {
            let f = f.trim_end_matches(']');
            let kv: Vec<(String, String)> = f
                .split(',')
                .filter_map(|x| x.split_once('='))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
            (c.trim(), kv)
        }
        None => (body.trim(), Vec::new()),
    };
    let mut filter = filter;
    filter.extend(
        extra
            .iter()
            .filter(|(k, _)| !filter.iter().any(|(f, _)| f == k))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let vals: Vec<f64> =
        res.rows(&filter).iter().filter_map(|r| cell_num(res, r, colname)).collect();
    if vals.is_empty() {
        return None;
    }
    Some(agg(&vals, how))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(to_unit("5us", None), Some(5.0));
        assert_eq!(to_unit("1MB", Some("KB")), Some(1000.0));
        assert_eq!(to_unit("100Gbps", None), Some(100.0));
        assert_eq!(to_unit("0.3", None), Some(0.3));
    }
}
