//! An egress port: the sending end of one direction of a link, with its priority queues.
//!
//! The port is strict-priority over [`NUM_CLASSES`] FIFO classes (class 0 first). Serialisation of
//! the packet at the head starts when the port is idle; its arrival at the far end is scheduled at
//! that moment (`start + size/rate + delay`), so a port with nothing queued costs one event per
//! packet-hop. The decision of what to send next is made only when the port becomes free, which
//! keeps strict priority, PFC pauses and dequeue-time ECN/INT exact.

use crate::config::NUM_CLASSES;
use crate::wire_queue::WireQueue;
use braid_core::{LinkId, NodeId, PktId, PortId, Rate, Time};
use std::collections::VecDeque;

/// The host index of a node that is not a host (a switch).
pub const NOT_A_HOST: u32 = u32::MAX;

/// Run-time state of an egress port.
#[derive(Clone, Debug)]
pub struct Port {
    /// Node the port belongs to.
    pub node: NodeId,
    /// Node at the far end.
    pub peer: NodeId,
    /// The far end's host index, or [`NOT_A_HOST`] when it is a switch (the topology's fact,
    /// kept here so an arrival needs no other table to know where it goes).
    pub peer_host: u32,
    /// The port's own node is a host (kept here for the same reason).
    pub at_host: bool,
    /// The link this port is one direction of.
    pub link: LinkId,
    /// The port of the opposite direction (peer → node).
    pub reverse: PortId,
    /// Line rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Time,
    /// The link is up.
    pub up: bool,
    /// Random drop probability per packet.
    pub loss: f64,
    /// FIFO per class, holding packet handles.
    pub queues: [VecDeque<PktId>; NUM_CLASSES],
    /// Bytes queued per class.
    pub q_bytes: [u64; NUM_CLASSES],
    /// End of the current transmission.
    pub busy_until: Time,
    /// A `TxDone` event is scheduled for this port.
    pub txdone_pending: bool,
    /// Classes paused by PFC from downstream.
    pub paused: [bool; NUM_CLASSES],
    /// When the data class's current pause began (PFC pauses only the lossless data class).
    pub pause_started: Time,
    /// Total time the data class was paused, in picoseconds.
    pub paused_ps: u64,
    /// PAUSE frames received.
    pub pauses_received: u64,
    /// Bytes transmitted in total (INT `txBytes`).
    pub tx_bytes: u64,
    /// Packets transmitted in total.
    pub tx_pkts: u64,
    /// Bytes transmitted per class.
    pub tx_bytes_class: [u64; NUM_CLASSES],
    /// ECN Kmin for this port (bytes).
    pub kmin: u64,
    /// ECN Kmax for this port (bytes).
    pub kmax: u64,
    /// At the far end (a switch): bytes of the lossless data class buffered there that arrived
    /// over this port (PFC ingress accounting; no other class is accounted).
    pub ingress_bytes: u64,
    /// At the far end: a PAUSE of the data class is in force toward this port.
    pub pause_sent: bool,
    /// Packets on the wire behind the one whose arrival is scheduled ([`WireQueue`]: each with
    /// its arrival time and the event sequence number reserved when it started serialising). A
    /// link delivers in order, so only the head's arrival sits in the event queue; the reserved
    /// sequence numbers keep the order of equal-time events exactly as if every arrival had been
    /// scheduled at once.
    pub wire: WireQueue,
    /// The head packet's arrival is scheduled.
    pub wire_head: bool,
    /// Every arrival over this link goes straight into the event queue, none into the wire queue
    /// ([`crate::sim::Sim::prepare`] sets it for short links whose delay never changes, up to
    /// [`crate::sim::DIRECT_ARRIVAL_MAX_DELAY`]). Arrivals keep the keys the wire queue gives them.
    pub wire_direct: bool,
    /// The port carries out its departures on demand instead of scheduling a `TxDone` for each
    /// (`run.departures = "on-demand"`; [`crate::sim::Sim::set_departures_on_demand`]).
    pub on_demand: bool,
    /// The port may carry out its departures on demand: what [`Port::on_demand`] returns to when
    /// its switch stops pausing upstream (a switch port of a link with a delay that never
    /// changes, whose far end is in the same partition).
    pub may_depart_on_demand: bool,
}

// Every port of the network is held by the sequential run and by each partition of a parallel
// one (393,216 ports on a k = 64 fat-tree): a field that makes a port larger is a choice to
// measure (BENCHMARKS.md, "Memory").
const _: () = assert!(std::mem::size_of::<Port>() <= 320, "a port is at most 320 bytes");

impl Port {
    /// A new idle port.
    pub fn new(node: NodeId, peer: NodeId, link: LinkId, rate: Rate, delay: Time) -> Port {
        Port {
            node,
            peer,
            peer_host: NOT_A_HOST,
            at_host: false,
            link,
            reverse: PortId(u32::MAX),
            rate,
            delay,
            up: true,
            loss: 0.0,
            queues: Default::default(),
            q_bytes: [0; NUM_CLASSES],
            busy_until: Time::ZERO,
            txdone_pending: false,
            paused: [false; NUM_CLASSES],
            pause_started: Time::ZERO,
            paused_ps: 0,
            pauses_received: 0,
            tx_bytes: 0,
            tx_pkts: 0,
            tx_bytes_class: [0; NUM_CLASSES],
            kmin: 0,
            kmax: 0,
            ingress_bytes: 0,
            pause_sent: false,
            wire: WireQueue::default(),
            wire_head: false,
            wire_direct: false,
            on_demand: false,
            may_depart_on_demand: false,
        }
    }

    /// Bytes queued over all classes.
    #[inline]
    pub fn queued_bytes(&self) -> u64 {
        self.q_bytes.iter().sum()
    }

    /// Bytes queued in every class but Rondo's probe class: the queue a data packet can wait
    /// behind (probes are served only with capacity data leaves unused, §4.2.2).
    #[inline]
    pub fn queued_bytes_without_probes(&self) -> u64 {
        self.queued_bytes() - self.q_bytes[crate::config::CLASS_PROBE as usize]
    }

    /// Bytes of Rondo's capacity probes queued (the low-priority probe class).
    #[inline]
    pub fn probe_bytes(&self) -> u64 {
        self.q_bytes[crate::config::CLASS_PROBE as usize]
    }

    /// The highest-priority class with a packet and not paused.
    #[inline]
    pub fn next_class(&self) -> Option<usize> {
        (0..NUM_CLASSES).find(|&c| !self.queues[c].is_empty() && !self.paused[c])
    }
}
