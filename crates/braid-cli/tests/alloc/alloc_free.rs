//! The hot path allocates nothing per packet in steady state (`docs/architecture.md`,
//! hot-path rules): a counting global allocator measures allocations while a loaded network moves
//! hundreds of thousands of packets.

use crate::loaded_fat_tree_allocates_nothing_per_packet;

#[test]
fn steady_state_moves_packets_without_allocating() {
    for cc in ["dcqcn", "hpcc", "swift"] {
        let tables = format!(
            "[network]\nmtu = \"1000B\"\npfc = true\n\
             [transport]\nkind = \"roce\"\ncc = \"{cc}\"\nrecovery = \"sr\"\n"
        );
        loaded_fat_tree_allocates_nothing_per_packet(cc, &tables);
    }
}
