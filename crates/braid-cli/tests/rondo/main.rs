//! Rondo against its paper: fairness, queues, incast, scheduler, loss, knobs, invariants, the testbed, the calibration figures, Rondo over LCMP.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test rondo MODULE::`.

mod rondo_ablation;
mod rondo_calibration;
mod rondo_fairness;
mod rondo_incast;
mod rondo_invariants;
mod rondo_knobs;
mod rondo_loss;
mod rondo_over_lcmp;
mod rondo_queues;
mod rondo_scheduler;
mod rondo_testbed;
