//! The simulated packet: a plain `Copy` struct with no heap fields.
//!
//! Its fields are the headers a RoCEv2-like transport puts on the wire (flow/QP, PSN, UDP source
//! port as path entropy, ECN) plus what switches stamp for HPCC (an INT stack of up to five hops)
//! and what receivers echo in ACKs (cumulative ACK, the PSN being acknowledged, timestamps, the
//! receiver's out-of-order count). Packets live in an [`Arena`](crate::Arena) and travel as handles;
//! the INT stack, needed only by HPCC, lives in an arena of its own.

use crate::arena::FreeLink;
use crate::ids::{FlowId, NodeId};
use crate::time::Time;

/// What a packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum PacketKind {
    /// Application data.
    #[default]
    Data = 0,
    /// A capacity probe (MTU-sized, no application payload; Rondo §4.2.2).
    Probe = 1,
    /// A per-packet acknowledgement (positive).
    Ack = 2,
    /// A negative acknowledgement: asks for `ack_psn` (and, for go-back-N, everything after it).
    Nak = 3,
    /// A receiver-issued credit (pull) for receiver-driven transports.
    Pull = 4,
    /// A request-to-send control packet (EQDS RTS mode).
    Rts = 5,
}

impl PacketKind {
    /// True for kinds that carry (or stand in for) data and travel forward.
    #[inline]
    pub fn is_forward(self) -> bool {
        matches!(self, PacketKind::Data | PacketKind::Probe | PacketKind::Rts)
    }
}

/// Flag bits of [`Packet::flags`].
pub mod flags {
    /// The data packet is a retransmission.
    pub const RETX: u8 = 1;
    /// The ACK echoes a CE mark seen on the data packet (ECN echo / CNP).
    pub const ECN_ECHO: u8 = 2;
    /// The ACK acknowledges a probe.
    pub const PROBE_ACK: u8 = 4;
    /// Data packets only (it shares its bit with [`PROBE_ACK`], which only ACKs carry): the
    /// sender asks for an immediate acknowledgement (UET's `ar` bit; receivers that coalesce
    /// ACKs answer it at once).
    pub const ACK_REQUEST: u8 = 4;
    /// The data packet carries a forward-delay timestamp the receiver should echo.
    pub const TIMESTAMPED: u8 = 8;
    /// The packet is the last of its message.
    pub const LAST: u8 = 16;
    /// The receiver's reorder buffer was full: this NAK reports a drop at the receiver.
    pub const RX_BUFFER_FULL: u8 = 32;
    /// Data: a switch trimmed the packet to its header (NDP-style trimming, Handley et al.,
    /// SIGCOMM'17); its payload is gone. NAK: it reports such a trimmed packet.
    pub const TRIMMED: u8 = 64;
    /// With [`TRIMMED`]: the trim happened at the last hop (the egress port facing the
    /// destination host), so the path up to there was not the congested part (UET REPS).
    pub const TRIM_LAST_HOP: u8 = 128;
}

/// One hop's in-band telemetry, stamped at dequeue (HPCC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// When the packet left the port.
    pub ts: Time,
    /// Bytes the port had transmitted in total, this packet included.
    pub tx_bytes: u64,
    /// The port's queue length (all classes) when the packet left, in bytes.
    pub qlen_bytes: u32,
    /// The port's line rate in Mb/s.
    pub rate_mbps: u32,
}

/// Up to [`IntStack::MAX_HOPS`] hop records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntStack {
    /// Records in use.
    pub n: u8,
    /// The records, first hop first.
    pub hops: [IntHop; IntStack::MAX_HOPS],
}

/// A freed stack links its arena's free list through the first record's queue length.
impl FreeLink for IntStack {
    #[inline]
    fn next_free(&self) -> u32 {
        self.hops[0].qlen_bytes
    }
    #[inline]
    fn set_next_free(&mut self, next: u32) {
        self.hops[0].qlen_bytes = next;
    }
}

impl IntStack {
    /// The most hops a packet carries (as in the HPCC ns-3 model).
    pub const MAX_HOPS: usize = 5;
    /// Append a hop record; silently ignored beyond `MAX_HOPS`.
    #[inline]
    pub fn push(&mut self, h: IntHop) {
        if (self.n as usize) < Self::MAX_HOPS {
            self.hops[self.n as usize] = h;
            self.n += 1;
        }
    }
    /// The records in use.
    pub fn as_slice(&self) -> &[IntHop] {
        &self.hops[..self.n as usize]
    }
}

/// A packet: 64 bytes, one cache line ([`Packet::BYTES`]).
///
/// Like a real transport header, some words mean different things by kind: the acknowledgement
/// fields (`cum_ack`, `ood`, `ts_rx`, `sack`) are read only on ACKs, NAKs and pulls, and a
/// forward packet (data, probe, RTS: [`PacketKind::is_forward`]) carries in two of them what
/// only it needs — its ECN CE mark and EQDS pull target, read through [`Packet::ecn_ce`] and
/// [`Packet::pull_target`]. The application bytes of a data packet are its size less the
/// headers (none once trimmed), and its INT stack, when a scheme uses INT, is kept by the
/// simulator beside the packet, not in it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// What it is.
    pub kind: PacketKind,
    /// Priority class: 0 is the highest (ACKs); larger numbers are served only when smaller are empty.
    pub prio: u8,
    /// [`flags`] bits.
    pub flags: u8,
    /// Hops taken so far.
    pub hops: u8,
    /// Bytes on the wire (headers included).
    pub size_bytes: u32,
    /// Sending host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// Flow (queue pair) the packet belongs to.
    pub flow: FlowId,
    /// UDP source port: the entropy that ECMP hashes, so a transport sprays by changing it.
    pub entropy: u16,
    /// Logical path index chosen by the sender (echoed in the ACK).
    pub path: u16,
    /// Packet sequence number (data), or the PSN being acknowledged (ACK/NAK).
    pub psn: u32,
    /// Index of the ingress port at the current switch (for buffer and PFC accounting).
    pub ingress: u32,
    /// Data: when the sender sent it. ACK: echo of the data packet's send time.
    pub ts_sent: Time,
    /// ACK/NAK/pull: the receiver's next expected PSN. Forward packets: the CE mark
    /// ([`Packet::ecn_ce`]).
    pub cum_ack: u32,
    /// ACK/NAK: the receiver's out-of-order degree of this flow when the data arrived (or the
    /// packets it held above its cumulative ACK, for a transport that asks for that: UET). Data:
    /// the pull target ([`Packet::pull_target`]).
    pub ood: u32,
    /// ACK: when the receiver got the data packet (forward delay = `ts_rx - ts_sent`).
    pub ts_rx: Time,
    /// ACK: selective-acknowledgement bitmap, bit `i` set ⇔ PSN `cum_ack + 1 + i` was received
    /// (0 when the receiver sends none; see `braid_proto::receiver`).
    pub sack: u64,
}

const _: () = assert!(std::mem::size_of::<Packet>() == Packet::BYTES, "a packet is one cache line");

impl Packet {
    /// The size of a packet record.
    pub const BYTES: usize = 64;

    /// Forward packets: Congestion Experienced was set by a switch (kept in the word ACKs use
    /// for `cum_ack`; false on every other kind).
    #[inline]
    pub fn ecn_ce(&self) -> bool {
        self.kind.is_forward() && self.cum_ack != 0
    }

    /// Forward packets: set Congestion Experienced.
    #[inline]
    pub fn mark_ce(&mut self) {
        debug_assert!(self.kind.is_forward(), "only forward packets are marked");
        self.cum_ack = 1;
    }

    /// Data of a receiver-driven flow (EQDS): the sender's pull target, the cumulative pull
    /// number its receiver should pull up to (`braid_proto::pull_pacer`); kept in the word ACKs
    /// use for `ood`, 0 on every other kind.
    #[inline]
    pub fn pull_target(&self) -> u32 {
        if self.kind == PacketKind::Data {
            self.ood
        } else {
            0
        }
    }

    /// This data packet with pull target `t` ([`Packet::pull_target`]).
    #[inline]
    pub fn with_pull_target(self, t: u32) -> Packet {
        Packet { ood: if self.kind == PacketKind::Data { t } else { 0 }, ..self }
    }

    /// Application bytes carried, with `header_bytes` of headers on every data packet: 0 for
    /// probes, control packets and trimmed data.
    #[inline]
    pub fn payload_bytes(&self, header_bytes: u32) -> u32 {
        if self.kind == PacketKind::Data && self.flags & flags::TRIMMED == 0 {
            self.size_bytes.saturating_sub(header_bytes)
        } else {
            0
        }
    }
}

/// A freed packet links its arena's free list through `ingress` (a switch sets it on every
/// arrival before reading it).
impl FreeLink for Packet {
    #[inline]
    fn next_free(&self) -> u32 {
        self.ingress
    }
    #[inline]
    fn set_next_free(&mut self, next: u32) {
        self.ingress = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words a forward packet borrows from the acknowledgement fields read as its own
    /// values on forward kinds and as nothing on the others.
    #[test]
    fn the_shared_words_read_by_kind() {
        let data = Packet { kind: PacketKind::Data, size_bytes: 4_160, ..Packet::default() }
            .with_pull_target(17);
        assert_eq!((data.pull_target(), data.ecn_ce(), data.payload_bytes(64)), (17, false, 4_096));
        let mut marked = data;
        marked.mark_ce();
        assert!(marked.ecn_ce());
        assert_eq!(marked.pull_target(), 17, "the mark leaves the pull target");
        let trimmed = Packet { flags: flags::TRIMMED, size_bytes: 64, ..data };
        assert_eq!(trimmed.payload_bytes(64), 0);
        let mut probe = Packet { kind: PacketKind::Probe, size_bytes: 4_160, ..Packet::default() }
            .with_pull_target(5);
        probe.mark_ce();
        assert_eq!((probe.pull_target(), probe.ecn_ce(), probe.payload_bytes(64)), (0, true, 0));
        // An ACK's cumulative ACK and OOD are its own: no CE mark, no pull target.
        let ack = Packet { kind: PacketKind::Ack, cum_ack: 9, ood: 3, ..Packet::default() };
        assert_eq!((ack.ecn_ce(), ack.pull_target(), ack.payload_bytes(64)), (false, 0, 0));
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }
}
