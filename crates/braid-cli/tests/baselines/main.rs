//! The baselines against their papers: congestion controls, MP-RDMA, Falcon, UET (and trimming), EQDS, RNIC limits, loss recovery, the transport and congestion-control plug-in contracts.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test baselines MODULE::`.

#[path = "../scratch/mod.rs"]
mod scratch;

mod baselines_cli;
mod baselines_loss;
mod baselines_testbed;
mod baselines_uet;
mod cc_evidence;
mod fct_artifact_rto;
mod rnic_limits;
mod toy_cc;
mod toy_transport;
mod trim_uet;
