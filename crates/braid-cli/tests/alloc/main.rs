//! Allocation tests: no allocation per packet on the hot paths, counted per thread by the counting allocator this binary installs (common/counting_alloc.rs).
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test alloc MODULE::`.

#[path = "../common/mod.rs"]
mod common;

mod alloc_free;
mod baselines_alloc;
mod routing_alloc;
