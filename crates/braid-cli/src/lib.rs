//! The `braid` command's library: scenario parsing, world building, running, outputs, benchmarks.
//!
//! - [`fields`]: reading TOML tables field by field with errors that name the field.
//! - [`scenario`]: the scenario file → a validated [`scenario::Scenario`].
//! - [`profile`]: `network.profile` — a named set of knob defaults (`ns3-hpcc`: the LCMP
//!   artifact's ns-3 semantics), expanded into the scenario before it is read.
//! - [`kinds`]: kinded tables — per-kind sub-tables and which fields the active kind uses.
//! - [`topology_kinds`]: the topology kinds, one parser each, and their registry.
//! - [`build`]: scenario → simulator with senders and receivers.
//! - [`run`]: run and write `summary.json`, `flows.csv`, time series.
//! - [`bench`](mod@bench): the fixed benchmark scenarios of `braid bench`.
//! - [`sweep`]: `braid sweep PLAN.toml` — grids of overrides × seeds in parallel, `runs.csv`.
//! - [`compare`]: `braid compare SCENARIO --vary …` — variants side by side in one table (a sweep
//!   without a plan file).
//! - [`repro`]: `braid repro ID` — paper figures from plan files in `repro/`.
//! - [`evaluate`]: `braid evaluate PAPER` — the evaluation table from the plans' `[[check]]`s.
//! - [`plot`]: figures (PNG + SVG, embedded font) from sweep results and run time series:
//!   plan schema, runs.csv queries, figure building and rendering in separate modules.
//! - [`report`]: `braid report DIR` — a self-contained `index.html`.
//! - [`routing_out`]: routing-study outputs (`slowdown_bins.csv`, `fct.txt`, `link_util.csv`).
//! - [`pcap`]: `output.pcap` — packets crossing chosen links as a RoCEv2 pcap file.
//! - [`offered_load`]: the workload's offered load on the topology's cuts (overload warnings).
//! - [`table`]: readers for Braid's own `summary.json` and CSV files.
//!
//! Module dependencies form no cycle: `run` → `routing_out`, `pcap`, `offered_load`, `build` → `scenario` →
//! `kinds`, `topology_kinds`, `fields`; `sweep` → `run`, `plot`; `compare` → `sweep`, `report`; `repro` → `sweep`, `plot`, `report`, `evaluate`; `evaluate` → `repro`, `plot`; `plot` → `table`,
//! `fields`.

pub mod alloc_policy;
pub mod bench;
pub mod build;
pub mod compare;
pub mod evaluate;
pub mod fields;
pub mod kinds;
pub mod offered_load;
pub mod pcap;
pub mod plot;
pub mod profile;
pub mod report;
pub mod repro;
pub mod routing_out;
pub mod run;
pub mod scenario;
pub mod sweep;
pub mod table;
pub mod topology_kinds;
pub mod udp;
