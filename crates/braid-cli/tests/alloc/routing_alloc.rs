//! Switch-side routing allocates nothing per packet in steady state (`docs/architecture.md`,
//! hot-path rules): LCMP's flow-cache lookups, the congestion monitor, WCMP/UCMP table walks and
//! adaptive routing's per-packet comparison reuse their state. A counting global allocator
//! measures allocations while a loaded fat-tree (every switch runs the scheme: no DCIs) moves
//! hundreds of thousands of packets.

use crate::loaded_fat_tree_allocates_nothing_per_packet;

#[test]
fn routing_schemes_do_not_allocate_per_packet() {
    for kind in ["lcmp", "lcmp-artifact", "wcmp", "ucmp-weighted", "adaptive"] {
        let tables = format!(
            "[network]\nmtu = \"1000B\"\npfc = true\n\
             [transport]\nkind = \"roce\"\ncc = \"dcqcn\"\nrecovery = \"sr\"\n\
             [routing]\nkind = \"{kind}\"\nmonitor_interval = \"10us\"\n"
        );
        let sim = loaded_fat_tree_allocates_nothing_per_packet(kind, &tables);
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
