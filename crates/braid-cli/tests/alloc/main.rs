//! Allocation tests: no allocation per packet on the hot paths, counted per thread by the counting allocator this binary installs (common/counting_alloc.rs).
//!
//! One test binary (so that `cargo test` links the stack once per group, not once per file);
//! each module is one subject, run alone with `cargo test -p braid-cli --test alloc MODULE::`.

#[path = "../common/mod.rs"]
mod common;

mod alloc_free;
mod baselines_alloc;
mod routing_alloc;

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::Time;
use braid_net::sim::Sim;

use common::counting_alloc::allocations;

/// Runs a loaded k = 4 fat-tree — every host sends 50 MB to another host; `tables` gives the
/// scenario's `[network]`, `[transport]` and other tables — for 500 µs of warm-up, then counts
/// this thread's allocations over the next millisecond. Fails (naming `label`) unless more than
/// 100,000 packet-hops moved with fewer than one allocation per 1,000 of them: containers may
/// still grow now and then; nothing may scale with packets. Returns the simulator.
fn loaded_fat_tree_allocates_nothing_per_packet(label: &str, tables: &str) -> Sim {
    let text = format!(
        "name = \"alloc\"\nseed = 1\n[topology]\nkind = \"fat-tree\"\nk = 4\n\
         [workload]\nkind = \"permutation\"\nsize = \"50MB\"\n{tables}"
    );
    let sc = parse(&text, Path::new("."), &[], None).unwrap();
    let (mut sim, _) = build(&sc).unwrap();
    sim.sampling_mut().interval = None;
    sim.prepare();
    sim.run(Some(Time::from_us(500)), &mut |_| true);
    let hops0 = sim.stats().packet_hops;
    let a0 = allocations();
    sim.run(Some(Time::from_us(1500)), &mut |_| true);
    let allocs = allocations() - a0;
    let hops = sim.stats().packet_hops - hops0;
    assert!(hops > 100_000, "{label}: only {hops} packet-hops");
    assert!(allocs * 1000 < hops, "{label}: {allocs} allocations for {hops} packet-hops");
    sim
}
