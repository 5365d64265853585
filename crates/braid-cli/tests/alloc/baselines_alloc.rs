//! The multipath baselines (MP-RDMA, Falcon, UET, EQDS with its receiver pull pacer) allocate
//! nothing per packet in steady state (`docs/architecture.md`, hot-path rules): a counting global
//! allocator measures allocations while a loaded network moves hundreds of thousands of packets.

use crate::loaded_fat_tree_allocates_nothing_per_packet;

#[test]
fn baselines_move_packets_without_allocating() {
    for kind in ["mprdma", "falcon", "uet", "eqds"] {
        let tables = format!("[network]\nmtu = \"1000B\"\n[transport]\nkind = \"{kind}\"\n");
        loaded_fat_tree_allocates_nothing_per_packet(kind, &tables);
    }
}
