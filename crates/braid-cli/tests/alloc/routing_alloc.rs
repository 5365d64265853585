//! Switch-side routing allocates nothing per packet in steady state (`docs/architecture.md`,
//! hot-path rules): LCMP's flow-cache lookups, the congestion monitor, WCMP/UCMP table walks and
//! adaptive routing's per-packet comparison reuse their state. A counting global allocator
//! measures allocations while a loaded fat-tree (every switch runs the scheme: no DCIs) moves
//! hundreds of thousands of packets.

use crate::common;

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::Time;

use common::counting_alloc::allocations;

#[test]
fn routing_schemes_do_not_allocate_per_packet() {
    for kind in ["lcmp", "lcmp-artifact", "wcmp", "ucmp-weighted", "adaptive"] {
        let text = format!(
            r#"
name = "routing-alloc"
seed = 1
[topology]
kind = "fat-tree"
k = 4
[network]
mtu = "1000B"
pfc = true
[transport]
kind = "roce"
cc = "dcqcn"
recovery = "sr"
[routing]
kind = "{kind}"
monitor_interval = "10us"
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
        assert!(allocs * 1000 < hops, "{kind}: {allocs} allocations for {hops} packet-hops");
        if kind.starts_with("lcmp") {
            let hits: u64 = sim
                .routing()
                .scheme_routers()
                .filter_map(|(_, r)| r.as_lcmp())
                .map(|l| &*l.router)
                .map(|r| r.cache().stats.hits)
                .sum();
            assert!(hits > 10_000, "{kind}: the flow cache served the packets ({hits} hits)");
        }
    }
}
