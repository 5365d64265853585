//! Figures from Braid's outputs, in modules with one job each:
//!
//! - [`schema`]: the `[[figure]]` tables of repro and sweep plans ([`FigureSpec`]);
//! - [`query`]: sweep results ([`Results`]: `runs.csv` and per-run files) read, filtered,
//!   grouped and aggregated;
//! - [`compose`]: spec + results → a [`Figure`] ([`build_figure`]); kinds `line`, `bar`, `cdf`,
//!   `timeseries`, `slowdown-bins`;
//! - [`figure`]: the figure data model ([`Figure`] of [`Panel`]s of lines or grouped bars) and its
//!   long-format CSV (`panel,series,x,y`);
//! - [`render`]: drawing a figure as PNG and SVG with plotters and an embedded font
//!   ([`write_figure`]); [`png_text`]: its PNG backend, which places glyphs itself;
//! - [`run_dir`]: every time series one run recorded ([`plot_run_dir`], `braid plot RUN_DIR`).
//!
//! Dependencies run one way: `query` uses `schema`; `compose` uses `query` and `schema`;
//! `run_dir` uses `compose`, `query` and `render`; all of them use the `figure` model, which uses
//! none of them. Outside `plot` only `table` (CSV and JSON readers) and `fields` (TOML values)
//! are used: nothing here depends on `sweep`, `repro` or `run`.

pub mod compose;
pub mod figure;
pub mod png_text;
pub mod query;
pub mod render;
pub mod run_dir;
pub mod schema;

pub use compose::build_figure;
pub use figure::{figure_csv, fmt_si, BarGroup, Body, Figure, Line, Panel};
pub use query::{eval_number, expand_template, series_from_csv, to_unit, NamedLines, Results};
pub use render::{figure_size, init_font, write_figure, FONT_FAMILY};
pub use run_dir::plot_run_dir;
pub use schema::{Agg, FigureSpec, Kind};
