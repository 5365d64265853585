//! Routing at the switches: LCMP (network, failover, the ns-3 artifact), UCMP, TE, the schemes' link choices, the routing plug-in contract.
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test routing MODULE::`.

#[path = "../scratch/mod.rs"]
mod scratch;

mod lcmp_failover;
mod lcmp_network;
mod ns3_equivalence;
mod routing_schemes;
mod te_routing;
mod toy_router;
