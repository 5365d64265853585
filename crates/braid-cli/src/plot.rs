//! Figures: a small data model ([`Figure`] of [`Panel`]s of lines or grouped bars), drawn as PNG
//! and SVG with plotters and an embedded font (DejaVu Sans, `assets/fonts/`, registered at run
//! time with `plotters::style::register_font`: no fontconfig or freetype), and the builders that
//! turn sweep results into figures:
//!
//! - [`FigureSpec`] (a `[[figure]]` of a repro plan) + `runs.csv` + per-run files → [`Figure`]
//!   with [`build_figure`]; kinds `line`, `bar`, `cdf`, `timeseries`, `slowdown-bins`;
//! - [`plot_run_dir`]: every time series one run recorded (`braid plot RUN_DIR`).
//!
//! Every figure is also written as a long-format CSV (`panel,series,x,y`) next to its images, so
//! the numbers behind a picture can be read and compared without the picture.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use toml::{Table, Value};

use crate::table::{csv_cell, Csv};

/// The embedded font (DejaVu Sans, Bitstream Vera licence; see `assets/fonts/`).
static FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// The font family name figures use.
pub const FONT_FAMILY: &str = "sans-serif";

/// Register the embedded font with plotters (idempotent).
pub fn init_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for st in [FontStyle::Normal, FontStyle::Bold, FontStyle::Italic, FontStyle::Oblique] {
            let _ = plotters::style::register_font(FONT_FAMILY, st, FONT);
        }
    });
}

/// A line of a line panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Legend entry.
    pub name: String,
    /// Points (x, y), in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Draw a marker at each point.
    pub markers: bool,
    /// Draw dashed.
    pub dashed: bool,
    /// Colour index (lines of one series share a colour; their y columns differ by dashing).
    pub color: usize,
}

/// One legend entry of a bar panel: a value per category (NaN: no bar).
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    /// Legend entry.
    pub name: String,
    /// One value per category.
    pub values: Vec<f64>,
}

/// What a panel draws.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Lines over numeric axes.
    Lines(Vec<Line>),
    /// Grouped bars: one group of bars per category, one bar per [`BarGroup`].
    Bars {
        /// Category names (the x axis).
        categories: Vec<String>,
        /// Legend entries.
        groups: Vec<BarGroup>,
    },
}

/// One chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Title above the chart.
    pub title: String,
    /// X axis label (with units).
    pub x_label: String,
    /// Y axis label (with units).
    pub y_label: String,
    /// Logarithmic x axis (values must be positive).
    pub log_x: bool,
    /// Logarithmic y axis (values must be positive).
    pub log_y: bool,
    /// Start the x axis at 0 (time series).
    pub x_zero: bool,
    /// Contents.
    pub body: Body,
}

/// A figure: a title, panels in a grid, and caption lines (the paper's number next to Braid's).
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Title.
    pub title: String,
    /// Panels.
    pub panels: Vec<Panel>,
    /// Caption lines under the panels.
    pub caption: Vec<String>,
}

const PANEL_W: u32 = 560;
const PANEL_H: u32 = 400;
const TITLE_H: u32 = 36;
const CAPTION_LINE_H: u32 = 22;

fn palette(i: usize) -> RGBColor {
    const C: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    let (r, g, b) = C[i % C.len()];
    RGBColor(r, g, b)
}

/// Format a number compactly: 1234567 → `1.23M`, 0.5 → `0.5`.
pub fn fmt_si(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let (x, suf) = if a >= 1e12 {
        (v / 1e12, "T")
    } else if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x.abs() >= 100.0 || (x.fract() == 0.0 && x.abs() < 1e4) {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else if x.abs() >= 1.0 || x == 0.0 {
        format!("{x:.2}")
    } else if x.abs() >= 0.01 {
        format!("{x:.3}")
    } else {
        format!("{x:.2e}")
    };
    let s = if s.contains('.') && !s.contains('e') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    format!("{s}{suf}")
}

fn grid_shape(n: usize) -> (usize, usize) {
    let cols = match n {
        0 | 1 => 1,
        2 | 4 => 2,
        _ => 3,
    };
    (n.div_ceil(cols).max(1), cols)
}

/// The pixel size of a figure.
pub fn figure_size(fig: &Figure) -> (u32, u32) {
    let (rows, cols) = grid_shape(fig.panels.len());
    let w = (cols as u32 * PANEL_W).max(fig.title.chars().count() as u32 * 11 + 20).min(2400);
    (w, rows as u32 * PANEL_H + TITLE_H + CAPTION_LINE_H * wrap_caption(&fig.caption, w).len() as u32 + 8)
}

/// Caption lines wrapped to the figure's width (about 7.5 px per character at 15 px).
fn wrap_caption(lines: &[String], width: u32) -> Vec<String> {
    let max = ((width as f64 - 20.0) / 7.6).max(20.0) as usize;
    let mut out = Vec::new();
    for l in lines {
        let mut cur = String::new();
        for word in l.split(' ') {
            if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > max {
                out.push(std::mem::take(&mut cur));
                cur.push_str("    ");
            }
            if !cur.is_empty() && !cur.ends_with("    ") {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out
}

/// Draw `fig` as PNG and SVG: `<stem>.png`, `<stem>.svg`, its data as `<stem>.csv` and its
/// title and caption as `<stem>.txt`.
pub fn write_figure(fig: &Figure, stem: &Path) -> Result<Vec<PathBuf>, String> {
    init_font();
    let (w, h) = figure_size(fig);
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let csv = stem.with_extension("csv");
    if let Some(d) = stem.parent() {
        fs::create_dir_all(d).map_err(|e| format!("cannot create `{}`: {e}", d.display()))?;
    }
    {
        let root = BitMapBackend::new(&png, (w, h)).into_drawing_area();
        render(&root, fig).map_err(|e| format!("drawing `{}`: {e}", png.display()))?;
        root.present().map_err(|e| format!("writing `{}`: {e:?}", png.display()))?;
    }
    {
        let root = SVGBackend::new(&svg, (w, h)).into_drawing_area();
        render(&root, fig).map_err(|e| format!("drawing `{}`: {e}", svg.display()))?;
        root.present().map_err(|e| format!("writing `{}`: {e:?}", svg.display()))?;
    }
    fs::write(&csv, figure_csv(fig)).map_err(|e| format!("cannot write `{}`: {e}", csv.display()))?;
    let txt = stem.with_extension("txt");
    let mut cap = fig.title.clone();
    for l in &fig.caption {
        cap.push('\n');
        cap.push_str(l);
    }
    cap.push('\n');
    fs::write(&txt, cap).map_err(|e| format!("cannot write `{}`: {e}", txt.display()))?;
    Ok(vec![png, svg, csv, txt])
}

/// The data of a figure as long-format CSV: `panel,series,x,y` (bars: x is the category).
pub fn figure_csv(fig: &Figure) -> String {
    let mut s = String::from("panel,series,x,y\n");
    for p in &fig.panels {
        match &p.body {
            Body::Lines(lines) => {
                for l in lines {
                    for &(x, y) in &l.points {
                        s.push_str(&format!("{},{},{},{}\n", csv_cell(&p.title), csv_cell(&l.name), num(x), num(y)));
                    }
                }
            }
            Body::Bars { categories, groups } => {
                for g in groups {
                    for (c, v) in categories.iter().zip(&g.values) {
                        if v.is_finite() {
                            s.push_str(&format!("{},{},{},{}\n", csv_cell(&p.title), csv_cell(&g.name), csv_cell(c), num(*v)));
                        }
                    }
                }
            }
        }
    }
    s
}

fn num(v: f64) -> String {
    braid_metrics::fmt_f64(v)
}

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

fn render<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    let (w, h) = root.dim_in_pixel();
    let caption = wrap_caption(&fig.caption, w);
    let (top, rest) = root.split_vertically(TITLE_H);
    top.draw(&Text::new(
        fig.title.clone(),
        (10, 8),
        (FONT_FAMILY, 20).into_font().style(FontStyle::Bold).color(&BLACK),
    ))
    .map_err(err)?;
    let cap_h = CAPTION_LINE_H * caption.len() as u32 + 8;
    let (mid, bottom) = rest.split_vertically(h - TITLE_H - cap_h);
    for (i, line) in caption.iter().enumerate() {
        bottom
            .draw(&Text::new(line.clone(), (10, 2 + i as i32 * CAPTION_LINE_H as i32), (FONT_FAMILY, 15).into_font().color(&BLACK)))
            .map_err(err)?;
    }
    let (rows, cols) = grid_shape(fig.panels.len());
    let areas = mid.split_evenly((rows, cols));
    for (p, a) in fig.panels.iter().zip(areas.iter()) {
        draw_panel(a, p)?;
    }
    Ok(())
}

fn finite_range(vals: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (lo <= hi).then_some((lo, hi))
}

fn pad(lo: f64, hi: f64, from_zero: bool) -> (f64, f64) {
    let (lo, hi) = if from_zero && lo >= 0.0 { (0.0, hi) } else { (lo, hi) };
    if (hi - lo).abs() < 1e-12 {
        let d = if lo.abs() > 1e-12 { lo.abs() * 0.1 } else { 1.0 };
        return (lo - if from_zero && lo >= 0.0 { 0.0 } else { d }, hi + d);
    }
    let d = (hi - lo) * 0.05;
    (if from_zero && lo >= 0.0 { lo } else { lo - d }, hi + d)
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel) -> Result<(), String> {
    match &p.body {
        Body::Lines(lines) => draw_lines(area, p, lines),
        Body::Bars { categories, groups } => draw_bars(area, p, categories, groups),
    }
}

fn tr(v: f64, log: bool) -> f64 {
    if log {
        if v > 0.0 {
            v.log10()
        } else {
            f64::NAN
        }
    } else {
        v
    }
}

fn draw_lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel, lines: &[Line]) -> Result<(), String> {
    let pts: Vec<Vec<(f64, f64)>> = lines
        .iter()
        .map(|l| l.points.iter().map(|&(x, y)| (tr(x, p.log_x), tr(y, p.log_y))).filter(|(x, y)| x.is_finite() && y.is_finite()).collect())
        .collect();
    let xr = finite_range(pts.iter().flatten().map(|q| q.0)).unwrap_or((0.0, 1.0));
    let yr = finite_range(pts.iter().flatten().map(|q| q.1)).unwrap_or((0.0, 1.0));
    let xr = if p.x_zero && !p.log_x && xr.0 > 0.0 { (0.0, xr.1) } else { xr };
    let (x0, x1) = pad(xr.0, xr.1, false);
    let (y0, y1) = pad(yr.0, yr.1, !p.log_y);
    let mut chart = ChartBuilder::on(area)
        .caption(p.title.clone(), (FONT_FAMILY, 16))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let (lx, ly) = (p.log_x, p.log_y);
    // On a log axis only whole decades get a label.
    let decade = |v: f64| if (v - v.round()).abs() < 1e-6 { fmt_si(10f64.powf(v.round())) } else { String::new() };
    let fx = move |v: &f64| if lx { decade(*v) } else { fmt_si(*v) };
    let fy = move |v: &f64| if ly { decade(*v) } else { fmt_si(*v) };
    let decades = |a: f64, b: f64| ((b.floor() - a.ceil()) as i64 + 1).clamp(2, 12) as usize;
    chart
        .configure_mesh()
        .x_desc(p.x_label.clone())
        .y_desc(p.y_label.clone())
        .x_labels(if lx { decades(x0, x1) } else { 7 })
        .y_labels(if ly { decades(y0, y1) } else { 7 })
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .label_style((FONT_FAMILY, 12))
        .axis_desc_style((FONT_FAMILY, 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)?;
    let all: Vec<(f64, f64)> = pts.iter().flatten().copied().collect();
    for (l, pts) in lines.iter().zip(pts) {
        let c = palette(l.color);
        // Wide polylines are drawn with miter joins, which spike on dense zig-zags: thin lines
        // for dense series.
        let style = c.stroke_width(if pts.len() > 200 { 1 } else { 2 });
        if l.dashed {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 8, 5, style)).map_err(err)?;
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style)).map_err(err)?;
        }
        let anno = chart
            .draw_series(pts.iter().filter(|_| l.markers).map(|&q| Circle::new(q, 3, c.filled())))
            .map_err(err)?;
        if l.name.is_empty() {
            continue;
        }
        let dashed = l.dashed;
        anno.label(l.name.clone()).legend(move |(x, y)| {
            let st = c.stroke_width(2);
            if dashed {
                PathElement::new(vec![(x, y), (x + 6, y)], st)
            } else {
                PathElement::new(vec![(x, y), (x + 18, y)], st)
            }
        });
    }
    if lines.iter().any(|l| !l.name.is_empty()) {
        // The legend goes in the corner with the fewest data points.
        let corner = |left: bool, top: bool| {
            all.iter()
                .filter(|(x, y)| {
                    let fx = (x - x0) / (x1 - x0);
                    let fy = (y - y0) / (y1 - y0);
                    (if left { fx < 0.4 } else { fx > 0.6 }) && (if top { fy > 0.55 } else { fy < 0.45 })
                })
                .count()
        };
        let pos = [
            (corner(true, true), SeriesLabelPosition::UpperLeft),
            (corner(false, true), SeriesLabelPosition::UpperRight),
            (corner(false, false), SeriesLabelPosition::LowerRight),
            (corner(true, false), SeriesLabelPosition::LowerLeft),
        ]
        .into_iter()
        .min_by_key(|c| c.0)
        .map(|c| c.1)
        .unwrap_or(SeriesLabelPosition::UpperRight);
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT_FAMILY, 12))
            .position(pos)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

fn draw_bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel, cats: &[String], groups: &[BarGroup]) -> Result<(), String> {
    let n = cats.len().max(1);
    let g = groups.len().max(1);
    let ymax = finite_range(groups.iter().flat_map(|b| b.values.iter().copied())).map(|r| r.1).unwrap_or(1.0);
    // Head-room above the bars for their values and, with several groups, the legend.
    let ymax = if ymax <= 0.0 { 1.0 } else { ymax * if g > 1 { 1.35 } else { 1.15 } };
    let mut chart = ChartBuilder::on(area)
        .caption(p.title.clone(), (FONT_FAMILY, 16))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..ymax)
        .map_err(err)?;
    let names: Vec<String> = cats.to_vec();
    let fx = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 0.01 && i >= 0.0 && (i as usize) < names.len() {
            names[i as usize].clone()
        } else {
            String::new()
        }
    };
    let fy = |v: &f64| fmt_si(*v);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(p.x_label.clone())
        .y_desc(p.y_label.clone())
        .x_labels(n)
        .y_labels(7)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .label_style((FONT_FAMILY, 12))
        .axis_desc_style((FONT_FAMILY, 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)?;
    let w = 0.8 / g as f64;
    for (j, b) in groups.iter().enumerate() {
        let c = palette(j);
        let rects: Vec<Rectangle<(f64, f64)>> = b
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, &v)| {
                let x0 = i as f64 - 0.4 + j as f64 * w;
                // One bar per category: a colour per category (one per transport, as the papers draw).
                let fill = if g == 1 { palette(i) } else { c };
                Rectangle::new([(x0, 0.0), (x0 + w * 0.92, v.max(0.0))], fill.filled())
            })
            .collect();
        let drawn = chart.draw_series(rects).map_err(err)?;
        if g > 1 {
            drawn.label(b.name.clone()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        // The value on top of each bar, as the papers print them.
        let labels: Vec<Text<(f64, f64), String>> = b
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, &v)| {
                let x = i as f64 - 0.4 + (j as f64 + 0.1) * w;
                Text::new(fmt_si(v), (x, v.max(0.0) + ymax * 0.01), (FONT_FAMILY, 10).into_font().color(&BLACK))
            })
            .collect();
        chart.draw_series(labels).map_err(err)?;
    }
    if g > 1 {
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FONT_FAMILY, 12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure specifications (repro plans).

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
            other => return Err(format!("unknown figure kind `{other}` (known: line, bar, cdf, timeseries, slowdown-bins)")),
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
                other => Ok(crate::sweep::value_text(other)),
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
                Value::Array(a) => (k.clone(), a.iter().map(crate::sweep::value_text).collect()),
                other => (k.clone(), vec![crate::sweep::value_text(other)]),
            })
            .collect()),
        Some(other) => Err(format!("`{what}` must be a table such as {{ case = [\"ECMP\", \"LCMP\"] }}, got {other}")),
    }
}

fn kv_list(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => Ok(t.iter().map(|(k, v)| (k.clone(), crate::sweep::value_text(v))).collect()),
        Some(other) => Err(format!("`{what}` must be a table such as {{ \"transport.kind\" = \"rondo\" }}, got {other}")),
    }
}

const FIGURE_KEYS: &[&str] = &[
    "name", "kind", "title", "x", "y", "y_names", "series", "facet", "x_label", "y_label", "x_unit", "y_scale", "log_x", "log_y", "file",
    "column", "time", "group", "aggregate", "entities", "filter", "baseline", "relative", "bins", "percentiles", "paper", "braid",
    "between", "top",
];

impl FigureSpec {
    /// Read a `[[figure]]` table; `what` names it in errors.
    pub fn from_table(t: &Table, what: &str) -> Result<FigureSpec, String> {
        for k in t.keys() {
            if !FIGURE_KEYS.contains(&k.as_str()) {
                return Err(format!("unknown field `{what}.{k}` (known: {})", FIGURE_KEYS.join(", ")));
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
                        Value::String(s) => braid_core::units::parse_size(s).map(|v| v as f64).map_err(|e| format!("`{what}.{k}`: {e}")),
                        other => Err(format!("`{what}.{k}` must list numbers, got {other}")),
                    })
                    .collect(),
                Some(other) => Err(format!("`{what}.{k}` must be a list of numbers, got {other}")),
            }
        };
        let name = s("name")?.ok_or_else(|| format!("`{what}.name` is required"))?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(format!("`{what}.name` must be letters, digits, - or _ (it names files)"));
        }
        let kind = Kind::parse(&s("kind")?.ok_or_else(|| format!("`{what}.kind` is required"))?).map_err(|e| format!("`{what}.kind`: {e}"))?;
        let mut y = str_list(t.get("y"), &format!("{what}.y"))?;
        if let Some(c) = s("column")? {
            y.push(c);
        }
        let aggregate = match s("aggregate")?.as_deref() {
            None | Some("none") => Agg::None,
            Some("sum") => Agg::Sum,
            Some("max") => Agg::Max,
            Some("mean") => Agg::Mean,
            Some(o) => return Err(format!("`{what}.aggregate`: unknown `{o}` (known: none, sum, max, mean)")),
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
                Some(Value::Array(_)) => Some(str_list(t.get("facet"), &format!("{what}.facet"))?.join("+")),
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
                    host_range(r).ok_or_else(|| format!("`{what}.between`: `{r}` is not a host range such as \"0-15\""))?;
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
                    return Err(format!("`{what}.x` is required for a {} figure", if spec.kind == Kind::Line { "line" } else { "bar" }));
                }
                if spec.y.is_empty() {
                    return Err(format!("`{what}.y` is required (one or more runs.csv columns)"));
                }
            }
            Kind::Cdf | Kind::Timeseries => {
                if spec.y.is_empty() {
                    return Err(format!("`{what}.column` (or `y`) is required: the column of the per-run file"));
                }
                if spec.kind == Kind::Timeseries && spec.file.is_none() {
                    return Err(format!("`{what}.file` is required for a timeseries (e.g. \"queues.csv\")"));
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

    fn cell<'a>(&'a self, row: &'a [String], col: &str) -> Option<&'a str> {
        self.runs.col(col).and_then(|c| row.get(c)).map(|s| s.as_str())
    }

    /// Rows of successful runs whose columns have one of the given values.
    pub fn rows_any(&self, filter: &[(String, Vec<String>)]) -> Vec<&Vec<String>> {
        self.runs
            .rows
            .iter()
            .filter(|r| self.cell(r, "status").is_none_or(|s| s == "ok"))
            .filter(|r| filter.iter().all(|(k, vs)| self.cell(r, k).is_some_and(|c| vs.iter().any(|v| v == c))))
            .collect()
    }

    /// Rows of successful runs matching `filter` exactly.
    pub fn rows(&self, filter: &[(String, String)]) -> Vec<&Vec<String>> {
        let f: Vec<(String, Vec<String>)> = filter.iter().map(|(k, v)| (k.clone(), vec![v.clone()])).collect();
        self.rows_any(&f)
    }

    /// A cell by column name; a facet `a+b` joins the cells of `a` and `b` with ` · `.
    fn multi_cell(&self, row: &[String], col: &str) -> Option<String> {
        if self.runs.col(col).is_some() || !col.contains('+') {
            return self.cell(row, col).map(str::to_string);
        }
        let parts: Vec<&str> = col.split('+').filter_map(|c| self.cell(row, c)).collect();
        Some(parts.join(" · "))
    }

    /// The identity of a run for baseline matching: its case, scenario file (if `with_file`),
    /// grid values and seed, except the columns in `skip`.
    fn identity(&self, row: &[String], skip: &[(String, String)], with_file: bool) -> Vec<String> {
        let status = self.runs.col("status").unwrap_or(self.runs.header.len());
        let mut id = Vec::new();
        for (i, h) in self.runs.header.iter().enumerate() {
            let is_param = (i > 0 && i < status && (with_file || h != "scenario_file")) || h == "seed";
            if is_param && !skip.iter().any(|(k, _)| k == h) {
                id.push(row.get(i).cloned().unwrap_or_default());
            }
        }
        id
    }
}

fn distinct(vals: impl Iterator<Item = String>) -> Vec<String> {
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
        let ps = t.0 as f64;
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

fn mean(v: &[f64]) -> f64 {
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

/// Nearest-rank percentile of sorted values.
fn pct_sorted(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let k = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[k.clamp(1, v.len()) - 1]
}

/// Keep at most `n` points, preserving the first, the last and the peak of each bucket.
fn downsample(pts: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
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

/// A runs.csv value as a number; `a/b` divides two columns (e.g. `spurious_retransmissions/packets_injected`).
fn cell_num(res: &Results, row: &[String], col: &str) -> Option<f64> {
    if let Some(m) = col.strip_prefix("flows:") {
        return flow_metric(res, row, m);
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
    let idx: Vec<(usize, &String)> = filter.iter().filter_map(|(k, v)| csv.col(k).map(|c| (c, v))).collect();
    if idx.len() != filter.len() {
        return None;
    }
    let rows: Vec<&Vec<String>> = csv
        .rows
        .iter()
        .filter(|r| idx.iter().all(|(c, v)| r.get(*c).is_some_and(|x| x == *v || x.parse::<f64>().ok() == v.parse::<f64>().ok() && x.parse::<f64>().is_ok())))
        .collect();
    let num = |r: &Vec<String>, c: &str| csv.col(c).and_then(|i| r.get(i)).and_then(|x| x.parse::<f64>().ok());
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
            let start = done.iter().filter_map(|r| num(r, "start_ns")).fold(f64::INFINITY, f64::min);
            let end = done.iter().filter_map(|r| num(r, "finish_ns")).fold(f64::NEG_INFINITY, f64::max);
            (end > start).then(|| bytes * 8.0 / ((end - start) * 1e-9))
        }
        "fct_mean_ns" => Some(mean(&sorted("fct_ns"))),
        "fct_p99_ns" => Some(pct_sorted(&sorted("fct_ns"), 99.0)),
        "slowdown_p50" => Some(pct_sorted(&sorted("slowdown"), 50.0)),
        "slowdown_p99" => Some(pct_sorted(&sorted("slowdown"), 99.0)),
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
fn y_value(res: &Results, spec: &FigureSpec, row: &[String], col: &str) -> Option<f64> {
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

/// Build the figure a spec describes from sweep results.
pub fn build_figure(spec: &FigureSpec, res: &Results) -> Result<Figure, String> {
    let rows = res.rows_any(&spec.filter);
    if rows.is_empty() {
        return Err("no successful run matches".to_string());
    }
    let col = |r: &Vec<String>, c: &Option<String>| c.as_ref().and_then(|c| res.multi_cell(r, c)).unwrap_or_default();
    let facets = distinct(rows.iter().map(|r| col(r, &spec.facet)));
    let mut panels = Vec::new();
    for f in &facets {
        let frows: Vec<&Vec<String>> = rows.iter().copied().filter(|r| &col(r, &spec.facet) == f).collect();
        let series = distinct(frows.iter().map(|r| col(r, &spec.series)));
        let title = match &spec.facet {
            Some(fc) if (facets.len() > 1 || !f.is_empty()) && !fc.contains('+') => format!("{fc} = {f}"),
            Some(_) => f.clone(),
            _ => String::new(),
        };
        let body = match spec.kind {
            Kind::Line => {
                let xcol = spec.x.as_deref().expect("validated");
                let mut lines = Vec::new();
                for (si, s) in series.iter().enumerate() {
                    for (yi, y) in spec.y.iter().enumerate() {
                        let mut pts: BTreeMap<i64, (f64, Vec<f64>)> = BTreeMap::new();
                        for r in frows.iter().filter(|r| &col(r, &spec.series) == s) {
                            let Some(x) = res.cell(r, xcol).and_then(|v| to_unit(v, spec.x_unit.as_deref())) else { continue };
                            if let Some(v) = y_value(res, spec, r, y) {
                                pts.entry((x * 1e6).round() as i64).or_insert((x, Vec::new())).1.push(v);
                            }
                        }
                        let name = line_name(s, spec, yi);
                        lines.push(Line {
                            name,
                            points: pts.values().map(|(x, v)| (*x, mean(v))).collect(),
                            markers: true,
                            dashed: yi > 0,
                            color: if series.len() > 1 { si } else { yi },
                        });
                    }
                }
                Body::Lines(lines)
            }
            Kind::Bar => {
                let xcol = spec.x.as_deref().expect("validated");
                let cats = distinct(frows.iter().map(|r| res.cell(r, xcol).unwrap_or("").to_string()));
                let mut groups = Vec::new();
                for s in &series {
                    for (yi, y) in spec.y.iter().enumerate() {
                        let values = cats
                            .iter()
                            .map(|c| {
                                let v: Vec<f64> = frows
                                    .iter()
                                    .filter(|r| &col(r, &spec.series) == s && res.cell(r, xcol) == Some(c.as_str()))
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
            Kind::Cdf => {
                let file = spec.file.clone().unwrap_or_else(|| "flows.csv".into());
                let mut lines = Vec::new();
                for s in &series {
                    for (yi, y) in spec.y.iter().enumerate() {
                        let mut vals = Vec::new();
                        for r in frows.iter().filter(|r| &col(r, &spec.series) == s) {
                            vals.extend(run_column(res, r, &file, y, &spec.between)?.into_iter().map(|v| v * spec.y_scale));
                        }
                        vals.retain(|v| v.is_finite());
                        vals.sort_by(f64::total_cmp);
                        let n = vals.len();
                        let pts: Vec<(f64, f64)> = vals.iter().enumerate().map(|(i, &v)| (v, (i + 1) as f64 / n as f64)).collect();
                        lines.push(Line { name: line_name(s, spec, yi), points: thin_cdf(pts, 1500), markers: false, dashed: false, color: lines.len() });
                    }
                }
                Body::Lines(lines)
            }
            Kind::Timeseries => {
                let file = spec.file.clone().expect("validated");
                let mut lines = Vec::new();
                for s in &series {
                    // A time series comes from one run: the first of the series (lowest seed).
                    let Some(r) = frows.iter().find(|r| &col(r, &spec.series) == s) else { continue };
                    for (yi, y) in spec.y.iter().enumerate() {
                        for (ename, pts) in time_series(res, r, &file, spec, y)? {
                            let base = if spec.series.is_none() && spec.y.len() == 1 { String::new() } else { line_name(s, spec, yi) };
                            let name = match (base.is_empty(), ename.is_empty()) {
                                (_, true) => base,
                                (true, false) => ename,
                                (false, false) => format!("{base} {ename}"),
                            };
                            lines.push(Line { name, points: downsample(pts, 3000), markers: false, dashed: false, color: lines.len() });
                        }
                    }
                }
                Body::Lines(lines)
            }
            Kind::SlowdownBins => {
                let file = spec.file.clone().unwrap_or_else(|| "flows.csv".into());
                let pcts = if spec.percentiles.is_empty() { vec![50.0, 99.0] } else { spec.percentiles.clone() };
                let mut lines = Vec::new();
                for (si, s) in series.iter().enumerate() {
                    let mut flows: Vec<(f64, f64)> = Vec::new();
                    for r in frows.iter().filter(|r| &col(r, &spec.series) == s) {
                        let sizes = run_column(res, r, &file, "size_bytes", &spec.between)?;
                        let slow = run_column(res, r, &file, spec.y.first().map(String::as_str).unwrap_or("slowdown"), &spec.between)?;
                        flows.extend(sizes.into_iter().zip(slow).filter(|(a, b)| a.is_finite() && b.is_finite()));
                    }
                    for (pi, p) in pcts.iter().enumerate() {
                        let pts = slowdown_bins(&flows, &spec.bins, *p);
                        let sname = if s.is_empty() { String::new() } else { format!("{s} ") };
                        lines.push(Line { name: format!("{sname}p{}", fmt_si(*p)), points: pts, markers: true, dashed: pi > 0, color: si });
                    }
                }
                Body::Lines(lines)
            }
        };
        let (xl, yl) = match spec.kind {
            Kind::Line | Kind::Bar => (spec.x_label_or(spec.x.as_deref().unwrap_or("")), spec.y_label_or(&spec.y.join(", "))),
            Kind::Cdf => (spec.x_label_or(&spec.y.join(", ")), spec.y_label_or("CDF")),
            Kind::Timeseries => (spec.x_label_or(&format!("time ({})", spec.x_unit.as_deref().unwrap_or("us"))), spec.y_label_or(&spec.y.join(", "))),
            Kind::SlowdownBins => (spec.x_label_or("flow size (bytes)"), spec.y_label_or("FCT slowdown")),
        };
        panels.push(Panel {
            title,
            x_label: xl,
            y_label: yl,
            log_x: spec.log_x || spec.kind == Kind::SlowdownBins,
            log_y: spec.log_y,
            x_zero: spec.kind == Kind::Timeseries,
            body,
        });
    }
    let mut caption = Vec::new();
    if let Some(p) = &spec.paper {
        caption.push(format!("Paper: {p}"));
    }
    let braid = match &spec.braid {
        Some(t) => expand_template(t, res),
        None if spec.kind == Kind::Cdf => cdf_caption(&panels),
        None => auto_caption(&panels),
    };
    if !braid.is_empty() {
        caption.push(format!("Braid: {braid}"));
    }
    Ok(Figure { title: spec.title.clone(), panels, caption })
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

fn thin_cdf(pts: Vec<(f64, f64)>, n: usize) -> Vec<(f64, f64)> {
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
            (g[g.len() / 2].0, pct_sorted(&s, p))
        })
        .collect()
}

/// A column of a per-run file, with derived flow columns: `fct_us`, `throughput_gbps`
/// (size × 8 / FCT) and `normalized_throughput` (throughput / the run's mean throughput).
fn run_column(res: &Results, row: &[String], file: &str, col: &str, between: &[String]) -> Result<Vec<f64>, String> {
    let run = res.cell(row, "run").unwrap_or("");
    let path = res.dir.join("runs").join(run).join(file);
    let mut csv = Csv::read(&path)?;
    if between.len() == 2 {
        let (a, b) = (host_range(&between[0]).unwrap_or((1, 0)), host_range(&between[1]).unwrap_or((1, 0)));
        let (Some(sc), Some(dc)) = (csv.col("src"), csv.col("dst")) else {
            return Err(format!("`{}` has no src/dst columns for `between`", path.display()));
        };
        let inr = |r: (u64, u64), v: &str| v.trim().parse::<u64>().is_ok_and(|x| x >= r.0 && x <= r.1);
        csv.rows.retain(|row| {
            let (s, d) = (&row[sc], &row[dc]);
            (inr(a, s) && inr(b, d)) || (inr(b, s) && inr(a, d))
        });
    }
    let get = |c: &str| csv.numbers(c).ok_or_else(|| format!("`{}` has no column `{c}`", path.display()));
    match col {
        "fct_us" => Ok(get("fct_ns")?.into_iter().map(|v| v.map_or(f64::NAN, |x| x / 1e3)).collect()),
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

/// `"0-15"` (inclusive) or `"7"` → (lo, hi).
fn host_range(s: &str) -> Option<(u64, u64)> {
    let s = s.trim();
    match s.split_once('-').or_else(|| s.split_once("..")) {
        Some((a, b)) => Some((a.trim().parse().ok()?, b.trim().parse().ok()?)),
        None => s.parse().ok().map(|x| (x, x)),
    }
}

/// Named lines: (entity name, points).
pub type NamedLines = Vec<(String, Vec<(f64, f64)>)>;

/// Lines of a time series file of one run: (entity name, points).
fn time_series(res: &Results, row: &[String], file: &str, spec: &FigureSpec, col: &str) -> Result<NamedLines, String> {
    let run = res.cell(row, "run").unwrap_or("");
    let path = res.dir.join("runs").join(run).join(file);
    let csv = Csv::read(&path)?;
    series_from_csv(&csv, &spec.time, spec.group.as_deref(), col, spec.aggregate, &spec.entities, spec.x_unit.as_deref(), spec.y_scale, spec.top)
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
        let (Some(t), Some(v)) = (r.get(tc).and_then(|s| s.parse::<f64>().ok()), r.get(vc).and_then(|s| s.parse::<f64>().ok())) else {
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
    let to_pts = |m: &BTreeMap<i64, f64>| -> Vec<(f64, f64)> { times.iter().map(|(k, t)| (t / div, m.get(k).copied().unwrap_or(0.0) * scale)).collect() };
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
        return Ok(ents.into_iter().map(|(e, m)| (if e.is_empty() { String::new() } else { format!("{gname} {e}") }, to_pts(m))).collect());
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
    let (body, how) = match p.rsplit_once(':') {
        Some((b, h)) if ["mean", "min", "max", "sum"].contains(&h.trim()) => (b, h.trim()),
        _ => (p, "mean"),
    };
    let (colname, filter) = match body.split_once('[') {
        Some((c, f)) => {
            let f = f.trim_end_matches(']');
            let kv: Vec<(String, String)> =
                f.split(',').filter_map(|x| x.split_once('=')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
            (c.trim(), kv)
        }
        None => (body.trim(), Vec::new()),
    };
    let vals: Vec<f64> = res.rows(&filter).iter().filter_map(|r| cell_num(res, r, colname)).collect();
    if vals.is_empty() {
        return "n/a".into();
    }
    fmt_si(agg(&vals, how))
}

/// p50 and p99 of each CDF line.
fn cdf_caption(panels: &[Panel]) -> String {
    let mut items = Vec::new();
    for p in panels.iter().take(4) {
        if let Body::Lines(lines) = &p.body {
            for l in lines.iter().take(8) {
                let at = |q: f64| l.points.iter().find(|pt| pt.1 >= q).map(|pt| fmt_si(pt.0)).unwrap_or_else(|| "-".into());
                let name = if l.name.is_empty() { "all".to_string() } else { l.name.clone() };
                let prefix = if p.title.is_empty() { String::new() } else { format!("[{}] ", p.title) };
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
                    let vals: Vec<String> = categories.iter().zip(&g.values).take(6).map(|(c, v)| format!("{c} {}", fmt_si(*v))).collect();
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

// ---------------------------------------------------------------------------------------------
// `braid plot RUN_DIR`

/// Entity columns recognised in time series files (one line per entity, busiest first).
const ENTITY_COLUMNS: &[&str] = &["port", "host", "flow", "node", "link", "path", "peer", "job"];

/// Draw every time series a run recorded: each `*.csv` in `dir` whose first column is
/// `time_ns` (queues.csv, ood.csv, goodput.csv, rates.csv, …) becomes `plot-<stem>.png/.svg`,
/// one panel per value column, one line per entity (the 8 busiest), time in µs. Also draws the
/// FCT-slowdown CDF of `flows.csv` as `plot-flows`. Returns the files written.
pub fn plot_run_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    entries.sort();
    let scenario = crate::table::read_summary(&dir.join("summary.json"))
        .ok()
        .and_then(|s| s.into_iter().find(|(k, _)| k == "scenario").map(|(_, v)| v))
        .unwrap_or_else(|| dir.display().to_string());
    let mut written = Vec::new();
    for p in entries {
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if stem.starts_with("plot-") || stem.starts_with("fig-") {
            continue;
        }
        let csv = Csv::read(&p)?;
        if stem == "flows" {
            if let Some(fig) = flows_figure(&csv, &scenario) {
                written.extend(write_figure(&fig, &dir.join("plot-flows"))?);
            }
            continue;
        }
        if csv.header.first().map(String::as_str) != Some("time_ns") || csv.rows.is_empty() {
            continue;
        }
        let group = csv.header.iter().skip(1).find(|h| ENTITY_COLUMNS.contains(&h.as_str())).cloned();
        let values: Vec<String> = csv
            .header
            .iter()
            .skip(1)
            .filter(|h| Some(*h) != group.as_ref() && !ENTITY_COLUMNS.contains(&h.as_str()))
            .filter(|h| csv.numbers(h).is_some_and(|v| v.iter().any(|x| x.is_some())))
            .cloned()
            .collect();
        let mut panels = Vec::new();
        for v in &values {
            let lines = series_from_csv(&csv, "time_ns", group.as_deref(), v, Agg::None, &[], Some("us"), 1.0, 8)?;
            panels.push(Panel {
                title: v.clone(),
                x_label: "time (µs)".into(),
                y_label: unit_label(v),
                log_x: false,
                log_y: false,
                x_zero: true,
                body: Body::Lines(
                    lines
                        .into_iter()
                        .enumerate()
                        .map(|(i, (n, pts))| Line { name: n, points: downsample(pts, 3000), markers: false, dashed: false, color: i })
                        .collect(),
                ),
            });
        }
        if panels.is_empty() {
            continue;
        }
        let fig = Figure { title: format!("{scenario}: {stem}"), panels, caption: vec![format!("source: {}", p.display())] };
        written.extend(write_figure(&fig, &dir.join(format!("plot-{stem}")))?);
    }
    Ok(written)
}

fn unit_label(col: &str) -> String {
    if col.ends_with("_bps") {
        format!("{col} (b/s)")
    } else if col == "bytes" {
        "queue (bytes)".into()
    } else if col.ends_with("_bytes") {
        format!("{col} (bytes)")
    } else if col.ends_with("_ns") {
        format!("{col} (ns)")
    } else if col.contains("ood") || col.contains("rbo") {
        format!("{col} (packets)")
    } else {
        col.to_string()
    }
}

fn flows_figure(csv: &Csv, scenario: &str) -> Option<Figure> {
    let slow: Vec<f64> = csv.numbers("slowdown")?.into_iter().flatten().collect();
    if slow.is_empty() {
        return None;
    }
    let mut s = slow.clone();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let pts = thin_cdf(s.iter().enumerate().map(|(i, &v)| (v, (i + 1) as f64 / n as f64)).collect(), 1500);
    Some(Figure {
        title: format!("{scenario}: FCT slowdown"),
        panels: vec![Panel {
            title: String::new(),
            x_label: "FCT slowdown (FCT / ideal FCT)".into(),
            y_label: "CDF".into(),
            log_x: false,
            log_y: false,
            x_zero: false,
            body: Body::Lines(vec![Line { name: format!("{n} flows"), points: pts, markers: false, dashed: false, color: 0 }]),
        }],
        caption: vec![format!("p50 {}  p99 {}  max {}", fmt_si(pct_sorted(&s, 50.0)), fmt_si(pct_sorted(&s, 99.0)), fmt_si(s[n - 1]))],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_format() {
        assert_eq!(fmt_si(1234567.0), "1.23M");
        assert_eq!(fmt_si(0.5), "0.5");
        assert_eq!(fmt_si(338.0), "338");
        assert_eq!(fmt_si(12.5), "12.5");
        assert_eq!(fmt_si(95.2e9), "95.2G");
    }

    #[test]
    fn units() {
        assert_eq!(to_unit("5us", None), Some(5.0));
        assert_eq!(to_unit("1MB", Some("KB")), Some(1000.0));
        assert_eq!(to_unit("100Gbps", None), Some(100.0));
        assert_eq!(to_unit("0.3", None), Some(0.3));
    }

    #[test]
    fn bins_by_count() {
        let flows: Vec<(f64, f64)> = (1..=100).map(|i| (i as f64, i as f64)).collect();
        let b = slowdown_bins(&flows, &[], 50.0);
        assert_eq!(b.len(), 10);
        assert_eq!(b[0], (6.0, 5.0));
    }
}
