//! `braid report DIR`: a self-contained `DIR/index.html` that opens from disk with no server.
//!
//! For a sweep or repro folder it shows the plan's title and the paper's claim, every figure
//! (`fig-*.png` inline as base64, its caption drawn in the image, its SVG and data as downloads), the runs
//! table (`runs.csv`), the plan and scenario files, Braid's version and the seeds. For a single
//! run folder (one with `summary.json` but no `runs.csv`) it shows the summary, the `plot-*`
//! figures of `braid plot`, and `scenario.resolved.toml`. Nothing is loaded from elsewhere: no
//! scripts, fonts or stylesheets from the network. A small inline script marks the page with
//! `data-figures-loaded="ok/total"` once every image has decoded (used by the browser test).

use std::fs;
use std::path::{Path, PathBuf};

use crate::table::{read_summary, Csv};

/// Escape text for HTML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// Standard base64 (with padding).
pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut o = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        o.push(T[(n >> 18) as usize & 63] as char);
        o.push(T[(n >> 12) as usize & 63] as char);
        o.push(if c.len() > 1 { T[(n >> 6) as usize & 63] as char } else { '=' });
        o.push(if c.len() > 2 { T[n as usize & 63] as char } else { '=' });
    }
    o
}

fn files_with(dir: &Path, prefix: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n =
                        p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    n.starts_with(prefix) && n.ends_with(ext)
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn pre(title: &str, text: &str) -> String {
    format!("<details><summary>{}</summary><pre>{}</pre></details>\n", esc(title), esc(text))
}

fn table_html(csv: &Csv, max_rows: usize) -> String {
    let mut h = String::from("<div class=\"scroll\"><table><thead><tr>");
    for c in &csv.header {
        h.push_str(&format!("<th>{}</th>", esc(c)));
    }
    h.push_str("</tr></thead><tbody>\n");
    for r in csv.rows.iter().take(max_rows) {
        h.push_str("<tr>");
        for c in r {
            h.push_str(&format!("<td>{}</td>", esc(c)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
    if csv.rows.len() > max_rows {
        h.push_str(&format!("<p>… {} more rows in runs.csv</p>\n", csv.rows.len() - max_rows));
    }
    h
}

fn figure_html(png: &Path) -> Result<String, String> {
    let data = fs::read(png).map_err(|e| format!("cannot read `{}`: {e}", png.display()))?;
    let name = png.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    // The figure's title and caption are drawn in the image itself (and kept in `<stem>.txt`):
    // the page shows them once, there, carries their text as the image's `alt` (for search and
    // screen readers) and adds only the downloads.
    let text = fs::read_to_string(png.with_extension("txt")).unwrap_or_default();
    let alt = if text.trim().is_empty() {
        name.clone()
    } else {
        text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" — ")
    };
    let mut h = format!(
        "<figure id=\"{}\">\n<img alt=\"{}\" src=\"data:image/png;base64,{}\">\n",
        esc(&name),
        esc(&alt),
        base64(&data)
    );
    h.push_str("<figcaption>");
    let svg = png.with_extension("svg");
    if let Ok(s) = fs::read(&svg) {
        h.push_str(&format!(
            "<a download=\"{n}.svg\" href=\"data:image/svg+xml;base64,{}\">SVG</a> · ",
            base64(&s),
            n = esc(&name)
        ));
    }
    if let Ok(c) = fs::read(png.with_extension("csv")) {
        h.push_str(&format!(
            "<a download=\"{n}.csv\" href=\"data:text/csv;base64,{}\">data (CSV)</a>",
            base64(&c),
            n = esc(&name)
        ));
    }
    h.push_str("</figcaption>\n</figure>\n");
    Ok(h)
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}\
figure{margin:1em 0;border:1px solid #ddd;padding:.5em;display:inline-block;max-width:100%}\
figure img{max-width:100%;height:auto}figcaption{font-size:.9em;color:#333;margin-top:.3em}\
.scroll{overflow:auto;max-height:32em;border:1px solid #ddd}table{border-collapse:collapse;font-size:.8em}\
th,td{border:1px solid #ddd;padding:2px 6px;white-space:nowrap}th{background:#f4f4f4;position:sticky;top:0}\
pre{background:#f8f8f8;padding:.6em;overflow:auto;font-size:.85em}.meta td{font-size:1em;white-space:normal}";

const CHECK_SCRIPT: &str = "<script>\nwindow.addEventListener('load', function () {\n  var imgs = document.images, ok = 0;\n  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; }\n  document.documentElement.setAttribute('data-figures-loaded', ok + '/' + imgs.length);\n});\n</script>\n";

/// Write `dir/index.html` and return its path.
pub fn write_report(dir: &Path) -> Result<PathBuf, String> {
    if !dir.is_dir() {
        return Err(format!("`{}` is not a folder", dir.display()));
    }
    if !dir.join("runs.csv").is_file() && !dir.join("summary.json").is_file() {
        return Err(format!("`{}` holds no run: neither a run's summary.json nor a sweep's runs.csv (a refused run writes neither)", dir.display()));
    }
    let plan_text = fs::read_to_string(dir.join("plan.toml")).ok();
    let plan: Option<toml::Table> = plan_text.as_deref().and_then(|t| t.parse().ok());
    let get =
        |k: &str| plan.as_ref().and_then(|p| p.get(k)).and_then(|v| v.as_str()).map(str::to_string);
    let quick =
        fs::read_to_string(dir.join("repro.toml")).ok().is_some_and(|t| t.contains("quick = true"));
    let title = match (get("id"), get("title")) {
        (Some(id), Some(t)) => format!("{id}: {t}{}", if quick { " (quick version)" } else { "" }),
        (None, Some(t)) => t,
        _ => format!(
            "Braid results: {}",
            dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
        ),
    };
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str(&format!(
        "<title>{}</title>\n<style>{STYLE}</style>\n{CHECK_SCRIPT}</head>\n<body>\n",
        esc(&title)
    ));
    h.push_str(&format!("<h1>{}</h1>\n", esc(&title)));
    // Metadata.
    let runs = Csv::read(&dir.join("runs.csv")).ok();
    let mut seeds: Vec<String> = Vec::new();
    if let Some(r) = &runs {
        if let Some(c) = r.col("seed") {
            for row in &r.rows {
                if let Some(s) = row.get(c) {
                    if !s.is_empty() && !seeds.contains(s) {
                        seeds.push(s.clone());
                    }
                }
            }
        }
    }
    let single = if runs.is_none() { read_summary(&dir.join("summary.json")).ok() } else { None };
    if let Some(s) = &single {
        if let Some((_, v)) = s.iter().find(|(k, _)| k == "seed") {
            seeds.push(v.clone());
        }
    }
    h.push_str("<table class=\"meta\">\n");
    let mut meta_row = |k: &str, v: &str| {
        h.push_str(&format!("<tr><th>{}</th><td>{}</td></tr>\n", esc(k), esc(v)))
    };
    if let Some(p) = get("paper") {
        meta_row("paper", &p);
    }
    if let Some(c) = get("claim") {
        meta_row("paper's claim", &c);
    }
    if let Some(n) = get("notes") {
        meta_row("notes", &n);
    }
    meta_row("Braid version", env!("CARGO_PKG_VERSION"));
    meta_row("seeds", &if seeds.is_empty() { "-".to_string() } else { seeds.join(", ") });
    if let Some(r) = &runs {
        let ok = r
            .col("status")
            .map(|c| r.rows.iter().filter(|x| x.get(c).is_some_and(|s| s == "ok")).count())
            .unwrap_or(0);
        meta_row("runs", &format!("{} ({} ok)", r.rows.len(), ok));
    }
    if let Some(id) = get("id") {
        meta_row(
            "command",
            &format!(
                "braid repro {id}{} --out {}",
                if quick { " --quick" } else { "" },
                dir.display()
            ),
        );
    }
    h.push_str("</table>\n");
    // The comparison table of `braid compare`.
    if let Ok(t) = fs::read_to_string(dir.join("compare.txt")) {
        h.push_str("<h2>Comparison (compare.csv)</h2>\n");
        h.push_str(&format!("<pre>{}</pre>\n", esc(&t)));
    }
    // Figures.
    let mut figs = files_with(dir, "fig-", ".png");
    figs.extend(files_with(dir, "plot-", ".png"));
    figs.retain(|p| {
        let stale = crate::table::older_than_run(dir, p);
        if stale {
            eprintln!("note: `{}` is older than the run in `{}` (another run's figure); left out of the report", p.display(), dir.display());
        }
        !stale
    });
    if !figs.is_empty() {
        h.push_str("<h2>Figures</h2>\n");
        for f in &figs {
            h.push_str(&figure_html(f)?);
        }
    }
    // Runs / summary.
    if let Some(r) = &runs {
        h.push_str("<h2>Runs (runs.csv)</h2>\n");
        h.push_str(&table_html(r, 2000));
    }
    if let Some(s) = &single {
        h.push_str("<h2>Summary (summary.json)</h2>\n<table>\n");
        for (k, v) in s {
            h.push_str(&format!("<tr><th>{}</th><td>{}</td></tr>\n", esc(k), esc(v)));
        }
        h.push_str("</table>\n");
    }
    // Inputs.
    h.push_str("<h2>Inputs</h2>\n");
    if let Some(t) = &plan_text {
        h.push_str(&pre("plan.toml", t));
    }
    for s in files_with(&dir.join("scenarios"), "", ".toml") {
        if let Ok(t) = fs::read_to_string(&s) {
            h.push_str(&pre(
                &format!(
                    "scenarios/{}",
                    s.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                ),
                &t,
            ));
        }
    }
    if let Ok(t) = fs::read_to_string(dir.join("scenario.resolved.toml")) {
        h.push_str(&pre("scenario.resolved.toml", &t));
    }
    h.push_str("</body>\n</html>\n");
    let p = dir.join("index.html");
    fs::write(&p, h).map_err(|e| format!("cannot write `{}`: {e}", p.display()))?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_known() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
