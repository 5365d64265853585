//! The `braid` command's library: scenario parsing, world building, running, outputs, benchmarks.
//!
//! - [`fields`]: reading TOML tables field by field with errors that name the field.
//! - [`scenario`]: the scenario contract (DESIGN.md) → a validated [`scenario::Scenario`].
//! - [`build`]: scenario → simulator with senders and receivers.
//! - [`run`]: run and write `summary.json`, `flows.csv`, time series.
//! - [`bench`]: the fixed benchmark scenarios of `braid bench`.

pub mod bench;
pub mod build;
pub mod fields;
pub mod run;
pub mod scenario;
