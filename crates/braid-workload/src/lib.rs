//! Braid workloads: the traffic a simulation runs.
//!
//! - [`workload`]: the representation — [`FlowSpec`] (small, `Copy`), dependencies as ranges into a
//!   shared list, [`JobSpec`]s for JCT grouping, and [`DepTracker`] to release flows as their
//!   dependencies complete.
//! - [`patterns`]: N-to-1 incast (with background flows), permutation (a seeded derangement),
//!   all-to-all, MoE-like all-to-all — the typical patterns of the Rondo evaluation
//!   (arXiv 2611.04594 §6.2.2).
//! - [`cdf`]: empirical flow-size CDFs (Braid and HPCC formats), with built-in Web Search, Hadoop,
//!   Alibaba Storage and Cache Follower distributions embedded from `data/cdf/`.
//! - [`poisson`]: Poisson arrivals calibrated to a target load on the host links (the HPCC/LCMP
//!   generator's calibration, `docs/lcmp.md`, traffic generator), intra- or inter-group (DC).
//! - [`collective`]: ring all-reduce, all-gather, reduce-scatter, all-to-all and point-to-point
//!   phases with data dependencies, and a MoE-training-like trace.
//! - [`chakra`]: Chakra execution traces (ASTRA-sim / STAGE), replayed as flows with compute
//!   delays over persistent connections.
//! - [`flowfile`]: replay of flow lists — Braid CSV, ns-3 HPCC flow files, htsim connection
//!   matrices (with triggers as dependencies).
//! - [`spec`]: [`WorkloadSpec`], built from a scenario's `[workload]` table of [`braid_core::Knob`]s.
//! - [`metrics`]: FCT slowdown by flow-size bins (nearest-rank percentiles) and JCT per job.
//!
//! All randomness comes from [`braid_core::Rng`] streams derived from the scenario seed, so the same
//! seed gives byte-identical flows on every run and machine.

pub mod cdf;
pub mod chakra;
pub mod collective;
pub mod flowfile;
pub mod hosts;
pub mod metrics;
pub mod patterns;
pub mod poisson;
pub mod spec;
pub mod workload;

#[cfg(test)]
mod shared_data;

pub use cdf::{CdfFormat, EmpiricalCdf, BUILTIN_CDFS};
pub use collective::{CollectiveBuilder, CollectiveOp};
pub use flowfile::{load_flow_file, parse_flow_file, write_braid_csv, write_hpcc, FlowFileFormat};
pub use hosts::HostSel;
pub use metrics::{
    artifact_slowdown_stats, jct_per_job, lcmp_artifact_percentile, slowdown_equal_count_bins,
    slowdown_fixed_bins, JobResult, SizeBin, ARTIFACT_STAT_SETS,
};
pub use patterns::{
    A2aSchedule, AllToAllSpec, IncastSpec, MoeSpec, PermutationSpec, BACKGROUND_GROUP,
};
pub use poisson::{PoissonConfig, Stop};
pub use spec::{CdfSource, CdfSpec, CollectiveSpec, FlowFileSpec, WorkloadSpec, KINDS};
pub use workload::{
    ConnectionMode, DepRange, DepTracker, Dependents, FlowSpec, JobSpec, Release, Workload,
    MAIN_GROUP, MAX_FLOWS, MAX_FLOW_BYTES, MAX_START, NO_CONN, NO_JOB,
};
