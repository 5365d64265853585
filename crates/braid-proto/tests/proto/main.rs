//! Protocol logic without the simulator: every transport on the in-memory pair, loss recovery properties, Rondo sans-IO.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-proto --test proto MODULE::`.

mod pair;
mod recovery_props;
mod rondo_sansio;
