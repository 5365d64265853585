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
//! | `inter-dc` | [`inter_dc()`] | LCMP §6.1 "Testbed topology", §6.2 (one leaf-spine DC per graph node) |
//! | `file` | [`braid_file`] / [`to_braid_text`] | Braid's own topology format (see [`braid_format`]) |
//! | `hpcc-file` | [`hpcc_file`] | ns-3 HPCC / LCMP topology format (`docs/lcmp.md`, topologies) |
//! | `zoo-gml` | [`zoo_gml`] | Internet Topology Zoo GML (LCMP §6.2 "Real-world topology") |
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
use braid_core::{Rate, Time};

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

/// Largest number of nodes (hosts plus switches) a builder or file reader will create:
/// 1,048,576 (2^20). A k = 128 fat-tree (the largest the `fat-tree` builder accepts, 544,768
/// nodes) fits; a file or scenario asking for more is a typo, not a network, and gets an error
/// before anything is allocated for it.
pub const MAX_NODES: usize = 1 << 20;

/// Largest number of links a builder or file reader will create: 4,194,304 (2^22), four links per
/// node on average at [`MAX_NODES`] (a k = 128 fat-tree has 1,572,864).
pub const MAX_LINKS: usize = 1 << 22;

/// The product of `parts`, or an `Err` mentioning `what` if it overflows or exceeds `max`.
fn need_at_most(what: &str, parts: &[usize], max: usize) -> Result<usize, String> {
    parts
        .iter()
        .try_fold(1usize, |acc, &x| acc.checked_mul(x))
        .filter(|&n| n <= max)
        .ok_or_else(|| format!("{what} is too large (more than {max})"))
}

/// The product of `parts` (a number of nodes), or an `Err` mentioning `what` if it overflows or
/// exceeds [`MAX_NODES`].
pub(crate) fn need_size(what: &str, parts: &[usize]) -> Result<usize, String> {
    need_at_most(what, parts, MAX_NODES)
}

/// The product of `parts` (a number of links), or an `Err` mentioning `what` if it overflows or
/// exceeds [`MAX_LINKS`].
pub(crate) fn need_links(what: &str, parts: &[usize]) -> Result<usize, String> {
    need_at_most(what, parts, MAX_LINKS)
}

/// Fastest link rate a topology may have: 1 Pb/s (10^15 bit/s), a thousand times today's
/// fastest links. A larger rate is a unit typo (`1e30Tbps`, a `LinkSpeedRaw` of 1e300) and would
/// make serialisation times round to zero.
pub const MAX_LINK_RATE: Rate = Rate(1_000_000_000_000_000);

/// Longest one-way link delay a topology may have: 100 s (10^14 ps; the longest terrestrial
/// fibre path is about 0.1 s). A larger delay is a unit typo and would overflow the picosecond
/// clock when summed along a path.
pub const MAX_LINK_DELAY: Time = Time::from_ps(100_000_000_000_000);

/// `Err` naming the first link whose rate exceeds [`MAX_LINK_RATE`] or whose delay exceeds
/// [`MAX_LINK_DELAY`].
pub(crate) fn need_link_ranges(t: &Topology) -> Result<(), String> {
    for (i, l) in t.links.iter().enumerate() {
        let name = |n: braid_core::NodeId| t.nodes.get(n.idx()).map_or("?", |x| x.name.as_str());
        if l.rate > MAX_LINK_RATE {
            return Err(format!(
                "link {i} ({} – {}): rate {} bit/s is above the limit of {} bit/s",
                name(l.a),
                name(l.b),
                l.rate.bps(),
                MAX_LINK_RATE.bps()
            ));
        }
        if l.delay > MAX_LINK_DELAY {
            return Err(format!(
                "link {i} ({} – {}): delay {} s is above the limit of {} s",
                name(l.a),
                name(l.b),
                l.delay.secs_f64(),
                MAX_LINK_DELAY.secs_f64()
            ));
        }
    }
    Ok(())
}

/// Run [`Topology::validate`] and the link range check ([`MAX_LINK_RATE`], [`MAX_LINK_DELAY`]),
/// and prefix an error with the builder's name.
pub(crate) fn finish(what: &str, t: Topology) -> Result<Topology, String> {
    t.validate().map_err(|e| format!("{what}: {e}"))?;
    need_link_ranges(&t).map_err(|e| format!("{what}: {e}"))?;
    Ok(t)
}
