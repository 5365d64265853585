//! The simulator engine: events, queues, trimming, topology readers under fuzzing.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-net --test net MODULE::`.

mod engine;
mod names_no_scheme;
mod topo_fuzz;
mod trim;
