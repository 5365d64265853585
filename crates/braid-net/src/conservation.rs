//! Conservation of data packets: every data packet a host injects is, at the end, delivered to
//! its receiver (accepted in order or into the reorder buffer), dropped with a
//! [`DropReason`](crate::stats::DropReason), arrived at its receiver trimmed to its header
//! (`network.trim`; a trimmed packet in a queue or on a link is still in flight), or still in
//! flight. An independent count over the
//! port queues and the packet arena checks the counters.

use braid_core::{Arena, Packet, PacketKind};

use crate::config::NUM_CLASSES;
use crate::port::Port;
use crate::stats::SimStats;

/// Data packets still in the network (in queues or on links), by the counters.
pub fn data_in_flight(stats: &SimStats) -> u64 {
    stats.data_injected
        - stats.data_delivered
        - stats.data_dropped.iter().sum::<u64>()
        - stats.trimmed_arrived
}

/// Check conservation of data packets by an independent count: every live packet in the arena
/// is either queued at some port or on a wire; data packets injected must equal delivered +
/// dropped + those still live. `foreign` adds (queued data packets, live packets) held in other
/// arenas (the other partitions of a merged parallel run; `(0, 0)` otherwise). Returns a
/// description of the mismatch, if any.
pub fn check(
    stats: &SimStats,
    ports: &[Port],
    pkts: &Arena<Packet>,
    foreign: (u64, u64),
) -> Result<(), String> {
    let dropped: u64 = stats.data_dropped.iter().sum::<u64>() + stats.trimmed_arrived;
    let injected = stats.data_injected;
    let delivered = stats.data_delivered;
    // Count live data packets by walking the queues; packets on the wire are live in the
    // arena but in no queue, so compare with the arena's live count of all kinds.
    let mut queued_data = foreign.0;
    for p in ports {
        for c in 0..NUM_CLASSES {
            for &pkt in &p.queues[c] {
                if pkts.get(pkt.0).kind == PacketKind::Data {
                    queued_data += 1;
                }
            }
        }
    }
    let live = pkts.live() as u64 + foreign.1;
    if injected < delivered + dropped {
        return Err(format!("more data packets accounted ({delivered} delivered + {dropped} dropped or trimmed) than injected ({injected})"));
    }
    let in_flight = injected - delivered - dropped;
    if in_flight < queued_data || in_flight > live {
        return Err(format!(
            "data packets: injected {injected} ≠ delivered {delivered} + dropped or trimmed {dropped} + in flight (queued {queued_data}, live packets {live})"
        ));
    }
    Ok(())
}
