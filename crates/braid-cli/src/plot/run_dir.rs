//! `braid plot RUN_DIR`: a figure for every time series one run recorded, and the CDF of its
//! flows' FCT slowdowns.

use std::fs;
use std::path::{Path, PathBuf};

use braid_core::percentile::percentile;

use super::compose::{downsample, thin_cdf};
use super::figure::{fmt_si, Body, Figure, Line, Panel};
use super::query::series_from_csv;
use super::render::write_figure;
use super::schema::Agg;
use crate::table::{read_summary, Csv};

/// The most lines a panel draws (the busiest entities); a panel that draws fewer than its file
/// holds says so in its title ("the 8 busiest of 64 ports").
const MAX_LINES: usize = 8;

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
    let scenario = read_summary(&dir.join("summary.json"))
        .ok()
        .and_then(|s| s.into_iter().find(|(k, _)| k == "scenario").map(|(_, v)| v))
        .unwrap_or_else(|| dir.display().to_string());
    let mut written = Vec::new();
    for p in entries {
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if stem.starts_with("plot-") || stem.starts_with("fig-") {
            continue;
        }
        if crate::table::older_than_run(dir, &p) {
            eprintln!(
                "note: `{}` is older than the run in `{}` (another run's file); not drawn",
                p.display(),
                dir.display()
            );
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
        let group =
            csv.header.iter().skip(1).find(|h| ENTITY_COLUMNS.contains(&h.as_str())).cloned();
        let values: Vec<String> = csv
            .header
            .iter()
            .skip(1)
            .filter(|h| Some(*h) != group.as_ref() && !ENTITY_COLUMNS.contains(&h.as_str()))
            .filter(|h| csv.numbers(h).is_some_and(|v| v.iter().any(|x| x.is_some())))
            .cloned()
            .collect();
        // How many entities the file holds, so that a panel drawing fewer says so.
        let entities = group.as_deref().and_then(|g| csv.col(g)).map(|c| {
            let mut ids: Vec<&str> =
                csv.rows.iter().filter_map(|r| r.get(c).map(String::as_str)).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        });
        let mut panels = Vec::new();
        for v in &values {
            let lines = series_from_csv(
                &csv,
                "time_ns",
                group.as_deref(),
                v,
                Agg::None,
                &[],
                Some("us"),
                1.0,
                MAX_LINES,
            )?;
            let title = match (entities, group.as_deref()) {
                (Some(n), Some(g)) if n > lines.len() => {
                    format!("{v}: the {} busiest of {n} {g}s", lines.len())
                }
                _ => v.clone(),
            };
            panels.push(Panel {
                title,
                x_label: "time (µs)".into(),
                y_label: unit_label(v),
                log_x: false,
                log_y: false,
                x_zero: true,
                body: Body::Lines(
                    lines
                        .into_iter()
                        .enumerate()
                        .map(|(i, (n, pts))| Line {
                            name: n,
                            points: downsample(pts, 3000),
                            markers: false,
                            dashed: false,
                            color: i,
                        })
                        .collect(),
                ),
            });
        }
        if panels.is_empty() {
            continue;
        }
        let fig = Figure {
            title: format!("{scenario}: {stem}"),
            panels,
            caption: vec![format!("source: {}", p.display())],
        };
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
    let pts = thin_cdf(
        s.iter().enumerate().map(|(i, &v)| (v, (i + 1) as f64 / n as f64)).collect(),
        1500,
    );
    Some(Figure {
        title: format!("{scenario}: FCT slowdown"),
        panels: vec![Panel {
            title: String::new(),
            x_label: "FCT slowdown (FCT / ideal FCT)".into(),
            y_label: "CDF".into(),
            log_x: false,
            log_y: false,
            x_zero: false,
            body: Body::Lines(vec![Line {
                name: format!("{n} flows"),
                points: pts,
                markers: false,
                dashed: false,
                color: 0,
            }]),
        }],
        caption: vec![format!(
            "p50 {}  p99 {}  max {}",
            fmt_si(percentile(&s, 50.0).unwrap_or(f64::NAN)),
            fmt_si(percentile(&s, 99.0).unwrap_or(f64::NAN)),
            fmt_si(s[n - 1])
        )],
    })
}
