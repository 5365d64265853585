//! The events a sender exchanges with its driver (quinn-proto style, sans-IO): the packet it asks
//! to transmit ([`TxPacket`]), the acknowledgements it is given ([`AckIn`]), the flow it is built
//! for ([`FlowEnv`]), and the table of its timer deadlines ([`TimerTable`], one per
//! [`TimerKind`]). Loss recovery and every transport import these from here, so neither depends
//! on the other through them.

use braid_core::{IntStack, PacketKind, Time};

use crate::cc::CcEnv;

/// A packet a sender wants transmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxPacket {
    /// Data or probe.
    pub kind: PacketKind,
    /// Sequence number (probes carry a reserved PSN, `u32::MAX`).
    pub psn: u32,
    /// Application bytes carried.
    pub payload_bytes: u32,
    /// UDP source port the network hashes on (the logical path).
    pub entropy: u16,
    /// Logical path index (echoed in the ACK).
    pub path: u16,
    /// This is a retransmission.
    pub retx: bool,
    /// Ask the receiver to echo a forward-delay timestamp.
    pub timestamped: bool,
    /// Last packet of the message.
    pub last: bool,
    /// Ask the receiver for an immediate acknowledgement (UET's `ar` bit; only receivers that
    /// coalesce ACKs read it).
    pub ack_request: bool,
    /// Receiver-driven transports (EQDS): the cumulative pull number the receiver should pull
    /// up to (see [`crate::pull_pacer`]); 0 otherwise.
    pub pull_target: u32,
}

impl TxPacket {
    /// The packet's [`flags`](braid_core::packet::flags) byte on the wire: `RETX`,
    /// `TIMESTAMPED`, `LAST`, `ACK_REQUEST` (what every driver puts in the header).
    #[inline]
    pub fn flags(&self) -> u8 {
        use braid_core::packet::flags;
        let mut f = 0;
        if self.retx {
            f |= flags::RETX;
        }
        if self.timestamped {
            f |= flags::TIMESTAMPED;
        }
        if self.last {
            f |= flags::LAST;
        }
        if self.ack_request {
            f |= flags::ACK_REQUEST;
        }
        f
    }
}

/// An acknowledgement (or NAK) as the sender sees it.
#[derive(Clone, Copy, Debug)]
pub struct AckIn<'a> {
    /// ACK or NAK.
    pub kind: PacketKind,
    /// The PSN of the data packet this acknowledges (for NAKs: the arrival that triggered it).
    pub psn: u32,
    /// The receiver's next expected PSN.
    pub cum_ack: u32,
    /// Logical path index of the data packet.
    pub path: u16,
    /// The data packet was CE-marked.
    pub ecn: bool,
    /// Echo of the data packet's send time.
    pub ts_sent: Time,
    /// When the receiver got the data packet.
    pub ts_rx: Time,
    /// Receiver's OOD for this flow when the data arrived, or the packets it held above its
    /// cumulative ACK if the transport asks for that (`Receiver::with_held_echo`, UET's SLEEK).
    pub ood: u32,
    /// This acknowledges a probe.
    pub probe: bool,
    /// The receiver dropped the data packet because its reorder buffer was full.
    pub rx_buffer_full: bool,
    /// This NAK reports a data packet a switch trimmed to its header (NDP/UET trimming): the
    /// payload was lost in the network, the header reached the receiver.
    pub trimmed: bool,
    /// With `trimmed`: the trim happened at the last hop (the port facing the receiver).
    pub trim_last_hop: bool,
    /// INT stack of the data packet (HPCC).
    pub int: Option<&'a IntStack>,
    /// Switch hops the data packet took.
    pub hops: u8,
    /// Selective-acknowledgement bitmap: bit `i` set ⇔ PSN `cum_ack + 1 + i` was received (0
    /// from receivers that acknowledge every packet).
    pub sack: u64,
}

/// What a sender is built for: one flow on one path environment.
#[derive(Clone, Copy, Debug)]
pub struct FlowEnv {
    /// The path: line rate, base RTT, the network's largest RTT/BDP, MTU.
    pub cc: CcEnv,
    /// Message size (a flow of one message; ignored for a connection).
    pub size_bytes: u64,
    /// `None`: the sender sends one message of `size_bytes`. `Some(n)`: it is a persistent
    /// connection that starts empty and carries the messages posted on it
    /// ([`crate::transport::Sender::post_message`]); `n` is how many it is expected to carry.
    pub connection_messages: Option<u32>,
    /// How many equal-cost physical paths join the flow's two hosts (0: unknown); transports
    /// that size their logical paths by the topology read it (Rondo's `paths = "auto"`).
    pub equal_cost_paths: u32,
    /// The largest base RTT among the minimum-hop paths between the flow's two hosts, as the
    /// network is at the flow's start (`cc.base_rtt` is the best path's); `Time::ZERO`: unknown,
    /// or not asked for (the driver works it out for transports whose
    /// `Transport::uses_longest_path_rtt` says so).
    /// Equal to `cc.base_rtt` where the equal-cost paths are alike, so that a transport measuring
    /// its paths can tell propagation (up to this) from queueing (Rondo's `rtt_bound`).
    pub longest_path_rtt: Time,
    /// The flow's base UDP source port (multipath transports derive their path entropies from it).
    pub entropy: u16,
    /// When the flow may start.
    pub start: Time,
    /// Seed of the flow's own random stream.
    pub seed: u64,
}

impl FlowEnv {
    /// A one-message flow of `size_bytes` in `cc` that starts at time zero from UDP source port
    /// 49 152, with seed 1, the number of equal-cost paths unknown and no longest path RTT: the
    /// environment a sender is checked or tested in (set other fields with struct update).
    pub fn one_message(size_bytes: u64, cc: CcEnv) -> FlowEnv {
        FlowEnv {
            cc,
            size_bytes,
            connection_messages: None,
            equal_cost_paths: 0,
            longest_path_rtt: Time::ZERO,
            entropy: 49_152,
            start: Time::ZERO,
            seed: 1,
        }
    }
}

impl AckIn<'static> {
    /// A plain acknowledgement of kind `kind` for `psn` on `path` (cumulative ACK `cum_ack`),
    /// echoing send time `ts_sent` and received at that time: no ECN mark, no OOD, not a probe,
    /// no INT, `hops` switch hops. For tests and tools; set other fields with struct update.
    pub fn plain(
        kind: PacketKind,
        psn: u32,
        cum_ack: u32,
        path: u16,
        ts_sent: Time,
        hops: u8,
    ) -> AckIn<'static> {
        AckIn {
            kind,
            psn,
            cum_ack,
            path,
            ecn: false,
            ts_sent,
            ts_rx: ts_sent,
            ood: 0,
            probe: false,
            rx_buffer_full: false,
            trimmed: false,
            trim_last_hop: false,
            int: None,
            hops,
            sack: 0,
        }
    }
}

impl<'a> AckIn<'a> {
    /// The same acknowledgement with the fields a reply's [`flags`](braid_core::packet::flags)
    /// byte carries set from it: `ECN_ECHO`, `PROBE_ACK`, `RX_BUFFER_FULL`, `TRIMMED`,
    /// `TRIM_LAST_HOP` (what every driver reads from the header).
    #[inline]
    pub fn with_flags(self, f: u8) -> AckIn<'a> {
        use braid_core::packet::flags;
        AckIn {
            ecn: f & flags::ECN_ECHO != 0,
            probe: f & flags::PROBE_ACK != 0,
            rx_buffer_full: f & flags::RX_BUFFER_FULL != 0,
            trimmed: f & flags::TRIMMED != 0,
            trim_last_hop: f & flags::TRIM_LAST_HOP != 0,
            ..self
        }
    }
}

/// The timers a sender (with its loss recovery) may arm; each has one deadline in a [`TimerTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Retransmission timeout (the flow's, or the earliest per-packet one).
    Rto = 0,
    /// RACK reorder-window timer; Early Recovery's path-confirmed tail check.
    Rack = 1,
    /// Tail-loss probe.
    Tlp = 2,
}

impl TimerKind {
    /// Number of timer kinds.
    pub const COUNT: usize = 3;
}

/// One deadline per [`TimerKind`] (quinn-proto's `TimerTable`): arming replaces the deadline,
/// the earliest armed deadline is the next timeout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerTable {
    deadlines: [Option<Time>; TimerKind::COUNT],
}

impl TimerTable {
    /// The deadline of `kind`, if armed.
    #[inline]
    pub fn get(&self, kind: TimerKind) -> Option<Time> {
        self.deadlines[kind as usize]
    }
    /// Arm `kind` at `at` (or disarm it with `None`).
    #[inline]
    pub fn set(&mut self, kind: TimerKind, at: Option<Time>) {
        self.deadlines[kind as usize] = at;
    }
    /// Disarm `kind`.
    #[inline]
    pub fn stop(&mut self, kind: TimerKind) {
        self.deadlines[kind as usize] = None;
    }
    /// Whether `kind` is armed and due at `now`.
    #[inline]
    pub fn is_due(&self, kind: TimerKind, now: Time) -> bool {
        self.deadlines[kind as usize].is_some_and(|t| t <= now)
    }
    /// The earliest armed deadline.
    #[inline]
    pub fn next_deadline(&self) -> Option<Time> {
        self.deadlines.iter().flatten().copied().min()
    }
}
