//! The network model against theory: engine checks, workloads, offered load, base-RTT hints, persistent connections, parallel runs.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test model MODULE::`.

#[path = "../scratch/mod.rs"]
mod scratch;

mod base_rtt_hint;
mod connections;
mod departures;
mod engine_checks;
mod offered_load;
mod parallel;
mod workload_checks;
