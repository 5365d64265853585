//! Drawing a [`Figure`] as PNG and SVG with plotters and an embedded font (DejaVu Sans,
//! `assets/fonts/`, registered at run time with `plotters::style::register_font`: no fontconfig
//! or freetype). [`write_figure`] writes the images together with the figure's CSV and caption.
//! Only this module knows plotters.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::figure::{figure_csv, finite_range, fmt_si, BarGroup, Body, Figure, Line, Panel};

/// The embedded font (DejaVu Sans, Bitstream Vera licence; see `assets/fonts/`).
pub(super) static FONT: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans.ttf");

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
    (
        w,
        rows as u32 * PANEL_H
            + TITLE_H
            + CAPTION_LINE_H * wrap_caption(&fig.caption, w).len() as u32
            + 8,
    )
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
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let root = super::png_text::PngBackend::new(&mut rgb, (w, h), FONT)?;
            let root = root.into_drawing_area();
            render(&root, fig).map_err(|e| format!("drawing `{}`: {e}", png.display()))?;
            root.present().map_err(|e| format!("drawing `{}`: {e:?}", png.display()))?;
        }
        super::png_text::write_png(&png, &rgb, (w, h))?;
    }
    {
        let root = SVGBackend::new(&svg, (w, h)).into_drawing_area();
        render(&root, fig).map_err(|e| format!("drawing `{}`: {e}", svg.display()))?;
        root.present().map_err(|e| format!("writing `{}`: {e:?}", svg.display()))?;
    }
    fs::write(&csv, figure_csv(fig))
        .map_err(|e| format!("cannot write `{}`: {e}", csv.display()))?;
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
            .draw(&Text::new(
                line.clone(),
                (10, 2 + i as i32 * CAPTION_LINE_H as i32),
                (FONT_FAMILY, 15).into_font().color(&BLACK),
            ))
            .map_err(err)?;
    }
    let (rows, cols) = grid_shape(fig.panels.len());
    let areas = mid.split_evenly((rows, cols));
    for (p, a) in fig.panels.iter().zip(areas.iter()) {
        draw_panel(a, p)?;
    }
    Ok(())
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

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    lines: &[Line],
) -> Result<(), String> {
    let pts: Vec<Vec<(f64, f64)>> = lines
        .iter()
        .map(|l| {
            l.points
                .iter()
                .map(|&(x, y)| (tr(x, p.log_x), tr(y, p.log_y)))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect()
        })
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
    let decade = |v: f64| {
        if (v - v.round()).abs() < 1e-6 {
            fmt_si(10f64.powf(v.round()))
        } else {
            String::new()
        }
    };
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
                    (if left { fx < 0.4 } else { fx > 0.6 })
                        && (if top { fy > 0.55 } else { fy < 0.45 })
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

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    cats: &[String],
    groups: &[BarGroup],
) -> Result<(), String> {
    let n = cats.len().max(1);
    let g = groups.len().max(1);
    let ymax = finite_range(groups.iter().flat_map(|b| b.values.iter().copied()))
        .map(|r| r.1)
        .unwrap_or(1.0);
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
            drawn
                .label(b.name.clone())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        // The value on top of each bar, as the papers print them.
        let labels: Vec<Text<(f64, f64), String>> = b
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, &v)| {
                let x = i as f64 - 0.4 + (j as f64 + 0.1) * w;
                Text::new(
                    fmt_si(v),
                    (x, v.max(0.0) + ymax * 0.01),
                    (FONT_FAMILY, 10).into_font().color(&BLACK),
                )
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
