//! The multipath baselines (MP-RDMA, Falcon, UET, EQDS with its receiver pull pacer) allocate
//! nothing per packet in steady state (`docs/architecture.md`, hot-path rules): a counting global
//! allocator measures allocations while a loaded network moves hundreds of thousands of packets.

use crate::common;

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::Time;

use common::counting_alloc::allocations;

#[test]
fn baselines_move_packets_without_allocating() {
    for kind in ["mprdma", "falcon", "uet", "eqds"] {
        let text = format!(
            r#"
name = "alloc"
seed = 1
[topology]
kind = "fat-tree"
k = 4
[network]
mtu = "1000B"
[transport]
kind = "{kind}"
[workload]
kind = "permutation"
size = "50MB"
"#
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
        assert!(hops > 100_000, "{kind}: only {hops} packet-hops");
        // Containers may still grow now and then; nothing may scale with packets.
        assert!(allocs * 1000 < hops, "{kind}: {allocs} allocations for {hops} packet-hops");
    }
}
