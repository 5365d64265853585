//! Building a [`Figure`] from a [`FigureSpec`] and sweep [`Results`] ([`build_figure`]): facets
//! become panels, series become lines or bar groups, and the caption sets the paper's number next
//! to Braid's. Also the point thinning shared with `braid plot` (`downsample`, `thin_cdf`).

use std::collections::BTreeMap;

use braid_core::percentile::percentile;

use super::figure::{finite_range, fmt_si, BarGroup, Body, Figure, Line, Panel};
use super::query::{
    distinct, expand_template, mean, run_column, time_series, to_unit, y_value, Results,
};
use super::schema::{FigureSpec, Kind};

impl FigureSpec {
    fn y_name(&self, i: usize) -> String {
        self.y_names.get(i).cloned().unwrap_or_else(|| self.y[i].clone())
    }

    fn x_label_or(&self, d: &str) -> String {
        self.x_label.clone().unwrap_or_else(|| d.to_string())
    }

    fn y_label_or(&self, d: &str) -> String {
        self.y_label.clone().unwrap_or_else(|| d.to_string())
    }
}

/// Build the figure a spec describes from sweep results.
pub fn build_figure(spec: &FigureSpec, res: &Results) -> Result<Figure, String> {
    let rows = res.rows_any(&spec.filter);
    if rows.is_empty() {
        return Err("no successful run matches".to_string());
    }
    let facets = distinct(rows.iter().map(|r| cell_of(res, r, &spec.facet)));
    let mut panels = Vec::new();
    for f in &facets {
        let frows: Vec<&Vec<String>> =
            rows.iter().copied().filter(|r| &cell_of(res, r, &spec.facet) == f).collect();
        let series = distinct(frows.iter().map(|r| cell_of(res, r, &spec.series)));
        let title = match &spec.facet {
            Some(fc) if (facets.len() > 1 || !f.is_empty()) && !fc.contains('+') => {
                format!("{fc} = {f}")
            }
            Some(_) => f.clone(),
            _ => String::new(),
        };
        let panel = PanelRows { spec, res, rows: frows, series };
        let body = match spec.kind {
            Kind::Line => panel.lines(),
            Kind::Bar => panel.bars(),
            Kind::Cdf => panel.cdf()?,
            Kind::Timeseries => panel.timeseries()?,
            Kind::SlowdownBins => panel.slowdown_bins()?,
        };
        let (x_label, y_label) = axis_labels(spec);
        panels.push(Panel {
            title,
            x_label,
            y_label,
            log_x: spec.log_x || spec.kind == Kind::SlowdownBins,
            log_y: spec.log_y,
            x_zero: spec.kind == Kind::Timeseries,
            body,
        });
    }
    let caption = figure_caption(spec, res, &panels);
    Ok(Figure { title: spec.title.clone(), panels, caption })
}

/// The value of column `c` (a `+`-joined list of columns is joined) in run row `r`; empty when
/// there is no column.
fn cell_of(res: &Results, r: &[String], c: &Option<String>) -> String {
    c.as_ref().and_then(|c| res.multi_cell(r, c)).unwrap_or_default()
}

/// The axis labels of a figure's panels (the plan's, else from the columns plotted).
fn axis_labels(spec: &FigureSpec) -> (String, String) {
    match spec.kind {
        Kind::Line | Kind::Bar => {
            (spec.x_label_or(spec.x.as_deref().unwrap_or("")), spec.y_label_or(&spec.y.join(", ")))
        }
        Kind::Cdf => (spec.x_label_or(&spec.y.join(", ")), spec.y_label_or("CDF")),
        Kind::Timeseries => (
            spec.x_label_or(&format!("time ({})", spec.x_unit.as_deref().unwrap_or("us"))),
            spec.y_label_or(&spec.y.join(", ")),
        ),
        Kind::SlowdownBins => {
            (spec.x_label_or("flow size (bytes)"), spec.y_label_or("FCT slowdown"))
        }
    }
}

/// The caption: the paper's figure, and Braid's (the plan's template, or a summary of the panels).
fn figure_caption(spec: &FigureSpec, res: &Results, panels: &[Panel]) -> Vec<String> {
    let mut caption = Vec::new();
    if let Some(p) = &spec.paper {
        caption.push(format!("Paper: {p}"));
    }
    let braid = match &spec.braid {
        Some(t) => expand_template(t, res),
        None if spec.kind == Kind::Cdf => cdf_caption(panels),
        None => auto_caption(panels),
    };
    if !braid.is_empty() {
        // A `braid repro --quick` run is a scaled-down smoke run: its numbers are not the
        // paper's set-up, and the caption says so beside the paper's.
        let quick = std::fs::read_to_string(res.dir.join("repro.toml"))
            .is_ok_and(|t| t.lines().any(|l| l.trim() == "quick = true"));
        let who =
            if quick { "Braid (quick run: scaled down, not the paper's set-up)" } else { "Braid" };
        caption.push(format!("{who}: {braid}"));
    }
    caption
}

/// The runs of one panel (facet) and the series among them.
struct PanelRows<'a> {
    spec: &'a FigureSpec,
    res: &'a Results,
    rows: Vec<&'a Vec<String>>,
    series: Vec<String>,
}

impl PanelRows<'_> {
    /// The panel's runs of series `s`.
    fn of_series<'b>(&'b self, s: &'b str) -> impl Iterator<Item = &'b Vec<String>> + 'b {
        self.rows.iter().copied().filter(move |r| cell_of(self.res, r, &self.spec.series) == s)
    }

    /// `kind = "line"`: per series and y column, the mean over runs at each x.
    fn lines(&self) -> Body {
        let (spec, res) = (self.spec, self.res);
        let xcol = spec.x.as_deref().expect("validated");
        let mut lines = Vec::new();
        for (si, s) in self.series.iter().enumerate() {
            for (yi, y) in spec.y.iter().enumerate() {
                let mut pts: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
                for r in self.of_series(s) {
                    let Some(x) =
                        res.cell(r, xcol).and_then(|v| to_unit(v, spec.x_unit.as_deref()))
                    else {
                        continue;
                    };
                    if let Some(v) = y_value(res, spec, r, y) {
                        pts.entry((x * 1e6).round() as i64).or_insert((x, Vec::new())).1.push(v);
                    }
                }
                lines.push(Line {
                    name: line_name(s, spec, yi),
                    points: pts.values().map(|(x, v)| (*x, mean(v))).collect(),
                    markers: true,
                    dashed: yi > 0,
                    color: if self.series.len() > 1 { si } else { yi },
                });
            }
        }
        Body::Lines(lines)
    }

    /// `kind = "bar"`: per series and y column, the mean over runs of each x category.
    fn bars(&self) -> Body {
        let (spec, res) = (self.spec, self.res);
        let xcol = spec.x.as_deref().expect("validated");
        let cats = distinct(self.rows.iter().map(|r| res.cell(r, xcol).unwrap_or("").to_string()));
        let mut groups = Vec::new();
        for s in &self.series {
            for (yi, y) in spec.y.iter().enumerate() {
                let values = cats
                    .iter()
                    .map(|c| {
                        let v: Vec<f64> = self
                            .of_series(s)
                            .filter(|r| res.cell(r, xcol) == Some(c.as_str()))
                            .filter_map(|r| y_value(res, spec, r, y))
                            .collect();
                        mean(&v)
                    })
                    .collect();
                groups.push(BarGroup { name: line_name(s, spec, yi), values });
            }
        }
        Body::Bars { categories: cats, groups }
    }

    /// `kind = "cdf"`: per series and y column, the CDF of the values of every run's file.
    fn cdf(&self) -> Result<Body, String> {
        let (spec, res) = (self.spec, self.res);
        let file = spec.file.clone().unwrap_or_else(|| "flows.csv".into());
        let mut lines = Vec::new();
        for s in &self.series {
            for (yi, y) in spec.y.iter().enumerate() {
                let mut vals = Vec::new();
                for r in self.of_series(s) {
                    vals.extend(
                        run_column(res, r, &file, y, &spec.between)?
                            .into_iter()
                            .map(|v| v * spec.y_scale),
                    );
                }
                vals.retain(|v| v.is_finite());
                vals.sort_by(f64::total_cmp);
                let n = vals.len();
                let pts: Vec<(f64, f64)> =
                    vals.iter().enumerate().map(|(i, &v)| (v, (i + 1) as f64 / n as f64)).collect();
                lines.push(Line {
                    name: line_name(s, spec, yi),
                    points: thin_cdf(pts, 1500),
                    markers: false,
                    dashed: false,
                    color: lines.len(),
                });
            }
        }
        Ok(Body::Lines(lines))
    }

    /// `kind = "timeseries"`: per series, one run's time series (the first: lowest seed).
    fn timeseries(&self) -> Result<Body, String> {
        let (spec, res) = (self.spec, self.res);
        let file = spec.file.clone().expect("validated");
        let mut lines = Vec::new();
        for s in &self.series {
            let Some(r) = self.of_series(s).next() else { continue };
            for (yi, y) in spec.y.iter().enumerate() {
                for (ename, pts) in time_series(res, r, &file, spec, y)? {
                    let base = if spec.series.is_none() && spec.y.len() == 1 {
                        String::new()
                    } else {
                        line_name(s, spec, yi)
                    };
                    let name = match (base.is_empty(), ename.is_empty()) {
                        (_, true) => base,
                        (true, false) => ename,
                        (false, false) => format!("{base} {ename}"),
                    };
                    lines.push(Line {
                        name,
                        points: downsample(pts, 3000),
                        markers: false,
                        dashed: false,
                        color: lines.len(),
                    });
                }
            }
        }
        Ok(Body::Lines(lines))
    }

    /// `kind = "slowdown-bins"`: per series, percentiles of the slowdown in flow-size bins.
    fn slowdown_bins(&self) -> Result<Body, String> {
        let (spec, res) = (self.spec, self.res);
        let file = spec.file.clone().unwrap_or_else(|| "flows.csv".into());
        let pcts =
            if spec.percentiles.is_empty() { vec![50.0, 99.0] } else { spec.percentiles.clone() };
        let mut lines = Vec::new();
        for (si, s) in self.series.iter().enumerate() {
            let mut flows: Vec<(f64, f64)> = Vec::new();
            for r in self.of_series(s) {
                let sizes = run_column(res, r, &file, "size_bytes", &spec.between)?;
                let slow = run_column(
                    res,
                    r,
                    &file,
                    spec.y.first().map(String::as_str).unwrap_or("slowdown"),
                    &spec.between,
                )?;
                flows.extend(
                    sizes.into_iter().zip(slow).filter(|(a, b)| a.is_finite() && b.is_finite()),
                );
            }
            for (pi, p) in pcts.iter().enumerate() {
                let pts = slowdown_bins(&flows, &spec.bins, *p);
                let sname = if s.is_empty() { String::new() } else { format!("{s} ") };
                lines.push(Line {
                    name: format!("{sname}p{}", fmt_si(*p)),
                    points: pts,
                    markers: true,
                    dashed: pi > 0,
                    color: si,
                });
            }
        }
        Ok(Body::Lines(lines))
    }
}

fn line_name(series: &str, spec: &FigureSpec, yi: usize) -> String {
    let multi_y = spec.y.len() > 1;
    // A grid value reads better with its field's name: `tau_q=0.04` rather than `0.04`.
    let named;
    let series = match spec.series.as_deref() {
        Some(c) if !series.is_empty() && c != "case" && !c.contains('+') => {
            named = format!("{}={series}", c.rsplit('.').next().unwrap_or(c));
            named.as_str()
        }
        _ => series,
    };
    match (series.is_empty(), multi_y) {
        (true, true) => spec.y_name(yi),
        (true, false) => {
            if spec.series.is_none() {
                spec.y_name(yi)
            } else {
                String::new()
            }
        }
        (false, true) => format!("{series} {}", spec.y_name(yi)),
        (false, false) => series.to_string(),
    }
}

pub(super) fn thin_cdf(pts: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
    if pts.len() <= n {
        return pts;
    }
    let step = pts.len() as f64 / n as f64;
    let mut out: Vec<(f64, f64)> = (0..n).map(|i| pts[(i as f64 * step) as usize]).collect();
    out.push(*pts.last().expect("non-empty"));
    out
}

/// (x = median flow size of the bin, y = the p-th percentile slowdown in the bin).
fn slowdown_bins(flows: &[(f64, f64)], edges: &[f64], p: f64) -> Vec<(f64, f64)> {
    let mut f = flows.to_vec();
    f.sort_by(|a, b| a.0.total_cmp(&b.0));
    let groups: Vec<Vec<(f64, f64)>> = if edges.is_empty() {
        let nb = 10.min(f.len().max(1));
        let per = f.len().div_ceil(nb).max(1);
        f.chunks(per).map(|c| c.to_vec()).collect()
    } else {
        let mut e = edges.to_vec();
        e.sort_by(f64::total_cmp);
        let mut gs = vec![Vec::new(); e.len() + 1];
        for &fl in &f {
            let i = e.iter().position(|&x| fl.0 <= x).unwrap_or(e.len());
            gs[i].push(fl);
        }
        gs.into_iter().filter(|g| !g.is_empty()).collect()
    };
    groups
        .iter()
        .map(|g| {
            let mut s: Vec<f64> = g.iter().map(|x| x.1).collect();
            s.sort_by(f64::total_cmp);
            (g[g.len() / 2].0, percentile(&s, p).unwrap_or(f64::NAN))
        })
        .collect()
}

/// Keep at most `n` points, preserving the first, the last and the peak of each bucket.
pub(super) fn downsample(pts: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
    if pts.len() <= n {
        return pts;
    }
    let per = pts.len().div_ceil(n / 2);
    let mut out = Vec::with_capacity(n + 2);
    for chunk in pts.chunks(per) {
        let lo = chunk.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        let hi = chunk.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).expect("non-empty");
        if lo.0 <= hi.0 {
            out.push(lo);
            if hi != lo {
                out.push(hi);
            }
        } else {
            out.push(hi);
            out.push(lo);
        }
    }
    out
}

/// p50 and p99 of each CDF line.
fn cdf_caption(panels: &[Panel]) -> String {
    let mut items = Vec::new();
    for p in panels.iter().take(4) {
        if let Body::Lines(lines) = &p.body {
            for l in lines.iter().take(8) {
                let at = |q: f64| {
                    l.points
                        .iter()
                        .find(|pt| pt.1 >= q)
                        .map(|pt| fmt_si(pt.0))
                        .unwrap_or_else(|| "-".into())
                };
                let name = if l.name.is_empty() { "all".to_string() } else { l.name.clone() };
                let prefix =
                    if p.title.is_empty() { String::new() } else { format!("[{}] ", p.title) };
                items.push(format!("{prefix}{name} p50 {} p99 {}", at(0.5), at(0.99)));
            }
        }
    }
    items.join("; ")
}

fn auto_caption(panels: &[Panel]) -> String {
    let mut parts = Vec::new();
    for p in panels.iter().take(8) {
        let prefix = if p.title.is_empty() { String::new() } else { format!("[{}] ", p.title) };
        let mut items = Vec::new();
        match &p.body {
            Body::Lines(lines) => {
                for l in lines.iter().take(6) {
                    if let Some((lo, hi)) = finite_range(l.points.iter().map(|q| q.1)) {
                        let name = if l.name.is_empty() { "y".to_string() } else { l.name.clone() };
                        if (hi - lo).abs() < 1e-12 {
                            items.push(format!("{name} {}", fmt_si(lo)));
                        } else {
                            items.push(format!("{name} {}–{}", fmt_si(lo), fmt_si(hi)));
                        }
                    }
                }
            }
            Body::Bars { categories, groups } => {
                for g in groups.iter().take(3) {
                    let vals: Vec<String> = categories
                        .iter()
                        .zip(&g.values)
                        .take(6)
                        .map(|(c, v)| format!("{c} {}", fmt_si(*v)))
                        .collect();
                    items.push(format!("{}: {}", g.name, vals.join(", ")));
                }
            }
        }
        parts.push(format!("{prefix}{}", items.join("; ")));
    }
    let s = parts.join("  ");
    if s.chars().count() > 900 {
        let cut: String = s.chars().take(897).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_by_count() {
        let flows: Vec<(f64, f64)> = (1..=100).map(|i| (i as f64, i as f64)).collect();
        let b = slowdown_bins(&flows, &[], 50.0);
        assert_eq!(b.len(), 10);
        assert_eq!(b[0], (6.0, 5.0));
    }
}
