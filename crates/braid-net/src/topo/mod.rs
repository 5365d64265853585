//! Topology builders and importers: everything that turns parameters or a file into a
//! [`Topology`].
//!
//! Every function here returns `Result<Topology, String>`: bad parameters and malformed files give
//! an error that names the offending field (or file line), never a panic. Every topology returned
//! has passed [`Topology::validate`].
//!
//! | scenario kind | function | follows |
//! |---|---|---|
//! | `leaf-spine` | [`leaf_spine`] | two-tier Clos, every leaf to every spine |
//! | `fat-tree` | [`fat_tree`] | k-ary fat-tree (Al-Fares et al.), Rondo §6.2.6 scalability runs |
//! | `clos3` | [`clos3`] | Rondo §6.2.1 "Simulation topology" (5 pods, 16 cores, 320 servers) |
//! | `four-path` | [`four_path`] | Rondo Figure 2 (four parallel paths, §3) |
//! | `testbed` | [`testbed`] | Rondo §6.1 "Testbed setup" / Figure 9a |
//! | `inter-dc` | [`inter_dc()`] | LCMP artifact, `specs/lcmp.md` §4.1 (one leaf-spine DC per graph node) |
//! | `file` | [`braid_file`] / [`to_braid_text`] | Braid's own topology format (see [`braid_format`]) |
//! | `hpcc-file` | [`hpcc_file`] | ns-3 HPCC / LCMP topology format, `specs/lcmp.md` §4 |
//! | `zoo-gml` | [`zoo_gml`] | Internet Topology Zoo GML, `specs/baselines.md` §12 |
//!
//! Conventions shared by the builders:
//! - Hosts are created first, so host index `i` (as workloads use it) is `NodeId(i)`; then the
//!   switches tier by tier (ToR/leaf, aggregation/spine, core, DCI).
//! - Links are created host links first, then tier by tier upwards, each switch's links in the
//!   order of its neighbours' indices. A switch's ports are created in link order, and the
//!   simulator's entropy-indexed routing maps `entropy mod n` onto next hops in port-creation order,
//!   so "next hop j" is the j-th upper-tier neighbour.
//! - Tiers: 0 host, 1 ToR/leaf/edge, 2 aggregation/spine, 3 core or DCI.
//! - Node names are unique and contain no whitespace and no `#`, so every built topology can be
//!   written with [`to_braid_text`].

// `x % y == 0` rather than `is_multiple_of` (Rust 1.87) keeps the workspace's declared MSRV 1.85.
#![allow(clippy::manual_is_multiple_of)]

pub mod braid_format;
pub mod clos;
pub mod gml;
pub mod hpcc;
pub mod inter_dc;
pub mod rondo;

#[cfg(test)]
mod data_tests;
#[cfg(test)]
mod testutil;

pub use braid_format::{braid_file, to_braid_text};
pub use clos::{clos3, fat_tree, leaf_spine, Clos3Params, FatTreeParams, LeafSpineParams};
pub use gml::{parse_gml, zoo_gml, GmlValue, ZooParams};
pub use hpcc::hpcc_file;
pub use inter_dc::{inter_dc, DcLink, InterDcParams, IntraDcParams};
pub use rondo::{four_path, testbed, FourPathParams, TestbedParams};

use crate::topology::Topology;
use braid_core::Rate;

/// `Err` naming `field` unless `v > 0`.
pub(crate) fn need_positive(field: &str, v: usize) -> Result<(), String> {
    if v == 0 {
        return Err(format!("`{field}` must be at least 1, got 0"));
    }
    Ok(())
}

/// `Err` naming `field` unless the rate is non-zero.
pub(crate) fn need_rate(field: &str, r: Rate) -> Result<(), String> {
    if r.bps() == 0 {
        return Err(format!("`{field}` must be a positive rate, got 0bps"));
    }
    Ok(())
}

/// Largest number of nodes or links a builder will create (16 Mi): beyond it a typo, not a network.
pub(crate) const MAX_ELEMS: usize = 1 << 24;

/// The product of `parts`, or an `Err` mentioning `what` if it overflows or exceeds [`MAX_ELEMS`].
pub(crate) fn need_size(what: &str, parts: &[usize]) -> Result<usize, String> {
    parts
        .iter()
        .try_fold(1usize, |acc, &x| acc.checked_mul(x))
        .filter(|&n| n <= MAX_ELEMS)
        .ok_or_else(|| format!("{what} is too large (more than {MAX_ELEMS})"))
}

/// Run [`Topology::validate`] and prefix its error with the builder's name.
pub(crate) fn finish(what: &str, t: Topology) -> Result<Topology, String> {
    t.validate().map_err(|e| format!("{what}: {e}"))?;
    Ok(t)
}
