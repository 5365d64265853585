//! The receiving end of a reliable, PSN-sequenced transport (sans-IO).
//!
//! One [`Receiver`] per flow. It tracks the next expected PSN, which out-of-order packets are held
//! in the reorder buffer (a bitmap relative to the next expected PSN), and the flow's reordering
//! metrics as Rondo §2.2 defines them:
//! - **OOD** (out-of-order degree) at an instant = largest PSN received − next expected PSN, 0 when
//!   every received packet has been delivered in order;
//! - **RBO** (reorder-buffer occupancy) = out-of-order packets held while waiting for missing ones.
//!
//! The reorder buffer itself is shared by all flows of a NIC, so whether an out-of-order packet may
//! be held is decided by the caller (the NIC), which passes `buffer_has_room`. When it is full the
//! receiver accepts only the next expected packet and drops the rest, answering with a NAK flagged
//! [`RX_BUFFER_FULL`](braid_core::packet::flags::RX_BUFFER_FULL).
//!
//! Two modes: **go-back-N** (HPCC ns-3 `ReceiverCheckSeq`: out-of-order packets are discarded and a
//! NAK for the expected PSN is sent, at most once per `nak_interval` per hole) and **selective**
//! (out-of-order packets are held; every arrival is acknowledged individually with the cumulative
//! ACK; an out-of-order arrival is answered with a NAK naming the lowest missing PSN so that a
//! sender running selective repeat can react — senders running other recovery schemes read it as
//! a SACK).
//!
//! **ACK coalescing** ([`Receiver::with_ack_coalescing`], UET as the UEC htsim's `UecSink`): in
//! selective mode the receiver acknowledges once per `every_bytes` of accepted wire bytes
//! (htsim: 16,384 B, about one ACK per four 4 KB packets) instead of per packet, and at once
//! when the packet was CE-marked, is the flow's first, is a duplicate, carries the sender's
//! ACK-request bit ([`flags::ACK_REQUEST`]; again once the out-of-order packets have drained
//! after such a request), or completes the message. An out-of-order arrival is not NAKed; every
//! reply is an ACK carrying a SACK bitmap of the 64 PSNs after the cumulative ACK
//! ([`AckOut::sack`]), so the sender learns of every packet the coalesced ACK covers.
//!
//! The reply itself is built here too: [`Receiver::on_data_packet`] and [`Receiver::on_probe`]
//! return an [`AckOut`] — kind, flags, cumulative ACK, OOD and the echoed fields of the data
//! packet — which the driver only wraps into a packet and queues on the NIC's control class.

use braid_core::packet::flags;
use braid_core::{PacketKind, Time};
use std::collections::VecDeque;

/// How the receiver treats out-of-order packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxMode {
    /// Discard out-of-order packets and NAK the expected PSN (rate-limited).
    GoBackN {
        /// Minimum time between two NAKs for the same expected PSN.
        nak_interval: Time,
    },
    /// Hold out-of-order packets in the (shared) reorder buffer.
    Selective,
}

/// What the receiver did with a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxVerdict {
    /// The packet was the next expected one; `delivered` packets (it and any buffered successors)
    /// went to the application in order.
    InOrder {
        /// Packets delivered in order by this arrival (≥ 1).
        delivered: u32,
    },
    /// An out-of-order packet held in the reorder buffer.
    Buffered,
    /// A packet already received (below the next expected PSN or already buffered).
    Duplicate,
    /// Out of order and dropped: go-back-N mode.
    DroppedOutOfOrder,
    /// Out of order and dropped: the shared reorder buffer was full.
    DroppedBufferFull,
}

/// The reply the receiver wants sent for a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxReply {
    /// A positive ACK (cumulative ACK + the PSN that arrived).
    Ack,
    /// A NAK: the cumulative ACK is missing.
    Nak,
    /// Nothing (a suppressed go-back-N NAK).
    None,
}

/// The result of one data arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    /// What happened to the packet.
    pub verdict: RxVerdict,
    /// What to send back.
    pub reply: RxReply,
    /// The receiver's next expected PSN after the arrival (the cumulative ACK).
    pub cum_ack: u32,
    /// OOD of this flow after the arrival.
    pub ood: u32,
    /// Change of this flow's reorder-buffer occupancy in packets (+1 buffered, −k released).
    pub rbo_delta: i32,
}

/// The fields of an arriving data packet (or probe) that its reply echoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataIn {
    /// Sequence number.
    pub psn: u32,
    /// Logical path index.
    pub path: u16,
    /// UDP source port it was hashed on (the reply takes the same one).
    pub entropy: u16,
    /// The packet was CE-marked on the way.
    pub ecn_ce: bool,
    /// The sender's send timestamp.
    pub ts_sent: Time,
    /// Switch hops it took.
    pub hops: u8,
    /// The sender asked for an immediate acknowledgement ([`flags::ACK_REQUEST`]).
    pub ack_request: bool,
}

/// An acknowledgement (ACK, NAK or probe ACK) the receiver wants sent back to the sender: a plain
/// description the driver turns into a control packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOut {
    /// [`PacketKind::Ack`] or [`PacketKind::Nak`].
    pub kind: PacketKind,
    /// [`flags`]: `ECN_ECHO`, `PROBE_ACK`, `RX_BUFFER_FULL`.
    pub flags: u8,
    /// PSN of the data packet acknowledged (for NAKs: the arrival that triggered it).
    pub psn: u32,
    /// The receiver's next expected PSN.
    pub cum_ack: u32,
    /// OOD of the flow after the arrival, or with [`Receiver::with_held_echo`] the packets held
    /// above the cumulative ACK (0 for probe ACKs).
    pub ood: u32,
    /// Logical path index echoed from the data packet.
    pub path: u16,
    /// UDP source port echoed from the data packet.
    pub entropy: u16,
    /// Echo of the data packet's send time.
    pub ts_sent: Time,
    /// When the data packet arrived.
    pub ts_rx: Time,
    /// Switch hops the data packet took.
    pub hops: u8,
    /// SACK bitmap: from a coalescing receiver, bit `i` set ⇔ PSN `cum_ack + 1 + i` has been
    /// received; from a receiver [`Receiver::with_sack_below`], bit `i` ⇔ PSN `psn − 64 + i`;
    /// 0 otherwise.
    pub sack: u64,
}

/// ACK coalescing state of a receiver (see the module docs).
#[derive(Clone, Copy, Debug)]
struct AckCoalescing {
    /// Acknowledge once this many wire bytes were accepted since the last ACK.
    every_bytes: u64,
    /// Wire bytes one data packet counts for.
    wire_bytes: u64,
    /// Wire bytes accepted since the last ACK.
    accepted_bytes: u64,
    /// An ACK request arrived while packets were out of order: acknowledge again once they
    /// have drained.
    ack_request: bool,
}

/// Per-flow receiver state.
#[derive(Clone, Debug)]
pub struct Receiver {
    mode: RxMode,
    total_pkts: u32,
    next_expected: u32,
    /// Largest PSN received + 1 (0 = nothing received yet).
    max_seen_plus1: u32,
    /// Bit i of word w set ⇔ PSN `next_expected + 1 + 64·w + i` is buffered.
    held: VecDeque<u64>,
    rbo: u32,
    last_nak_psn: u32,
    last_nak_at: Option<Time>,
    max_ood: u32,
    duplicates: u64,
    /// ACK duplicates (see [`Receiver::with_duplicate_acks`]).
    ack_duplicates: bool,
    coalescing: Option<AckCoalescing>,
    /// Per-packet ACKs carry [`AckOut::sack`] as the bitmap of the 64 PSNs below the
    /// acknowledged one ([`Receiver::with_sack_below`]).
    sack_below: bool,
    /// Replies carry the packets held above the cumulative ACK in their `ood` field instead of
    /// the OOD ([`Receiver::with_held_echo`]).
    held_echo: bool,
}

impl Receiver {
    /// A receiver for a message of `total_pkts` packets.
    pub fn new(mode: RxMode, total_pkts: u32) -> Receiver {
        Receiver {
            mode,
            total_pkts,
            next_expected: 0,
            max_seen_plus1: 0,
            held: VecDeque::new(),
            rbo: 0,
            last_nak_psn: u32::MAX,
            last_nak_at: None,
            max_ood: 0,
            duplicates: 0,
            ack_duplicates: true,
            coalescing: None,
            sack_below: false,
            held_echo: false,
        }
    }

    /// Replies echo, in their `ood` field, the number of packets held above the cumulative ACK
    /// ([`Receiver::rbo`]; htsim's UET `UecSink::_out_of_order_count`) instead of the OOD (the
    /// highest PSN received less the next expected). The receiver's own OOD statistics do not
    /// change.
    pub fn with_held_echo(mut self, on: bool) -> Receiver {
        self.held_echo = on;
        self
    }

    /// What a reply echoes in its `ood` field now (see [`Receiver::with_held_echo`]).
    #[inline]
    fn echoed_ood(&self) -> u32 {
        if self.held_echo {
            self.rbo
        } else {
            self.ood()
        }
    }

    /// Per-packet ACKs (no coalescing) carry a SACK bitmap of the 64 PSNs below the acknowledged
    /// one: bit `i` set ⇔ PSN `psn − 64 + i` has been received ([`Receiver::received_below`]).
    /// A lost ACK then does not hide its packet's arrival: the next ACK names it too.
    pub fn with_sack_below(mut self, on: bool) -> Receiver {
        self.sack_below = on && self.mode == RxMode::Selective;
        self
    }

    /// Whether a duplicate data packet is ACKed (default true; the ns-3 HPCC fork's go-back-N
    /// receiver sends nothing for one).
    pub fn with_duplicate_acks(mut self, on: bool) -> Receiver {
        self.ack_duplicates = on;
        self
    }

    /// Coalesce ACKs (selective mode): one per `every_bytes` of accepted data, each data packet
    /// counting `wire_bytes`, plus the immediate cases of the module docs. `every_bytes = 0`
    /// keeps one ACK per packet.
    pub fn with_ack_coalescing(mut self, every_bytes: u64, wire_bytes: u64) -> Receiver {
        if every_bytes > 0 && self.mode == RxMode::Selective {
            self.coalescing = Some(AckCoalescing {
                every_bytes,
                wire_bytes: wire_bytes.max(1),
                accepted_bytes: 0,
                ack_request: false,
            });
        }
        self
    }

    /// The sender posted more data: the connection now has `total_pkts` packets (never shrinks).
    pub fn grow(&mut self, total_pkts: u32) {
        self.total_pkts = self.total_pkts.max(total_pkts);
    }

    /// The next expected PSN (everything below has been delivered in order).
    pub fn next_expected(&self) -> u32 {
        self.next_expected
    }
    /// Every packet posted so far has been delivered.
    pub fn is_complete(&self) -> bool {
        self.next_expected >= self.total_pkts
    }
    /// Current OOD.
    pub fn ood(&self) -> u32 {
        if self.max_seen_plus1 > self.next_expected {
            self.max_seen_plus1 - 1 - self.next_expected
        } else {
            0
        }
    }
    /// Current RBO (packets held).
    pub fn rbo(&self) -> u32 {
        self.rbo
    }
    /// Largest OOD seen.
    pub fn max_ood(&self) -> u32 {
        self.max_ood
    }
    /// Arrivals of packets that had already been received (each one means a packet was sent twice
    /// and both copies arrived: a spurious retransmission).
    pub fn duplicates(&self) -> u64 {
        self.duplicates
    }

    /// Bits `start .. start + 64` of the held bitmap (bit `j` ⇔ PSN `next_expected + 1 + j`).
    fn held_bits(&self, start: u32) -> u64 {
        let (w, b) = ((start / 64) as usize, start % 64);
        let lo = self.held.get(w).copied().unwrap_or(0) >> b;
        let hi = if b == 0 { 0 } else { self.held.get(w + 1).copied().unwrap_or(0) << (64 - b) };
        lo | hi
    }

    /// Which of the 64 PSNs below `psn` have been received: bit `i` ⇔ PSN `psn − 64 + i`
    /// (PSNs below 0 read as not received).
    pub fn received_below(&self, psn: u32) -> u64 {
        let base = psn as i64 - 64;
        let ne = self.next_expected as i64;
        let bits = if ne >= base + 64 {
            u64::MAX
        } else if ne < base {
            self.held_bits((base - ne - 1) as u32)
        } else {
            // Position s is next_expected itself (not received); below it everything arrived.
            let s = (ne - base) as u32;
            let low = (1u64 << s) - 1;
            if s + 1 < 64 {
                low | (self.held_bits(0) << (s + 1))
            } else {
                low
            }
        };
        if base <= -64 {
            0
        } else if base < 0 {
            bits & (u64::MAX << (-base) as u32)
        } else {
            bits
        }
    }

    fn is_held(&self, psn: u32) -> bool {
        let off = psn - self.next_expected - 1;
        let w = (off / 64) as usize;
        w < self.held.len() && self.held[w] & (1u64 << (off % 64)) != 0
    }

    fn hold(&mut self, psn: u32) {
        let off = psn - self.next_expected - 1;
        let w = (off / 64) as usize;
        while self.held.len() <= w {
            self.held.push_back(0);
        }
        self.held[w] |= 1u64 << (off % 64);
        self.rbo += 1;
    }

    /// Advance `next_expected` by one and shift the bitmap; returns whether the new next expected
    /// PSN was held (and is now released).
    fn advance(&mut self) -> bool {
        // Bit 0 of word 0 is next_expected + 1.
        let released = self.held.front().is_some_and(|w| w & 1 != 0);
        // Shift the whole bitmap right by one bit.
        let n = self.held.len();
        for i in 0..n {
            let carry = if i + 1 < n { self.held[i + 1] & 1 } else { 0 };
            self.held[i] = (self.held[i] >> 1) | (carry << 63);
        }
        while self.held.back() == Some(&0) {
            self.held.pop_back();
        }
        self.next_expected += 1;
        released
    }

    /// Process a data packet with sequence number `psn`. `buffer_has_room` says whether the NIC's
    /// shared reorder buffer can hold one more packet.
    pub fn on_data(&mut self, now: Time, psn: u32, buffer_has_room: bool) -> RxOutcome {
        let (verdict, reply, rbo_delta) =
            if psn < self.next_expected || (psn > self.next_expected && self.is_held(psn)) {
                self.duplicates += 1;
                (
                    RxVerdict::Duplicate,
                    if self.ack_duplicates { RxReply::Ack } else { RxReply::None },
                    0,
                )
            } else if psn == self.next_expected {
                self.max_seen_plus1 = self.max_seen_plus1.max(psn + 1);
                let mut delivered = 1u32;
                let mut released = 0i32;
                // Deliver psn, then every held successor.
                while self.advance() {
                    delivered += 1;
                    released += 1;
                }
                self.rbo -= released as u32;
                (RxVerdict::InOrder { delivered }, RxReply::Ack, -released)
            } else {
                match self.mode {
                    RxMode::GoBackN { nak_interval } => {
                        let due = self.last_nak_psn != self.next_expected
                            || self.last_nak_at.is_none_or(|t| now >= t + nak_interval);
                        let reply = if due {
                            self.last_nak_psn = self.next_expected;
                            self.last_nak_at = Some(now);
                            RxReply::Nak
                        } else {
                            RxReply::None
                        };
                        // The packet was seen (it counts for OOD) but discarded.
                        self.max_seen_plus1 = self.max_seen_plus1.max(psn + 1);
                        (RxVerdict::DroppedOutOfOrder, reply, 0)
                    }
                    RxMode::Selective => {
                        if buffer_has_room {
                            self.max_seen_plus1 = self.max_seen_plus1.max(psn + 1);
                            self.hold(psn);
                            (RxVerdict::Buffered, RxReply::Nak, 1)
                        } else {
                            (RxVerdict::DroppedBufferFull, RxReply::Nak, 0)
                        }
                    }
                }
            };
        let ood = self.ood();
        self.max_ood = self.max_ood.max(ood);
        RxOutcome { verdict, reply, cum_ack: self.next_expected, ood, rbo_delta }
    }

    /// Process a data packet (as [`Receiver::on_data`]) and build its reply: an ACK, a NAK
    /// (flagged `RX_BUFFER_FULL` when the shared reorder buffer had no room), or none (a
    /// suppressed go-back-N NAK). A CE mark is echoed.
    pub fn on_data_packet(
        &mut self,
        now: Time,
        data: &DataIn,
        buffer_has_room: bool,
    ) -> (RxOutcome, Option<AckOut>) {
        if self.coalescing.is_some() {
            return self.on_data_coalesced(now, data, buffer_has_room);
        }
        let out = self.on_data(now, data.psn, buffer_has_room);
        let mut reply_flags = if data.ecn_ce { flags::ECN_ECHO } else { 0 };
        if out.verdict == RxVerdict::DroppedBufferFull {
            reply_flags |= flags::RX_BUFFER_FULL;
        }
        let kind = match out.reply {
            RxReply::Ack => PacketKind::Ack,
            RxReply::Nak => PacketKind::Nak,
            RxReply::None => return (out, None),
        };
        let mut ack = Self::reply(now, data, kind, reply_flags, out.cum_ack, self.echoed_ood());
        if self.sack_below && out.verdict != RxVerdict::DroppedBufferFull {
            ack.sack = self.received_below(data.psn);
        }
        (out, Some(ack))
    }

    /// [`Receiver::on_data_packet`] with ACK coalescing on (see the module docs).
    fn on_data_coalesced(
        &mut self,
        now: Time,
        data: &DataIn,
        buffer_has_room: bool,
    ) -> (RxOutcome, Option<AckOut>) {
        let first = self.max_seen_plus1 == 0;
        let out = self.on_data(now, data.psn, buffer_has_room);
        let Some(c) = self.coalescing.as_mut() else { return (out, None) };
        let ecn = if data.ecn_ce { flags::ECN_ECHO } else { 0 };
        let (kind, reply_flags) = match out.verdict {
            RxVerdict::DroppedBufferFull => (PacketKind::Nak, ecn | flags::RX_BUFFER_FULL),
            RxVerdict::DroppedOutOfOrder | RxVerdict::Duplicate => (PacketKind::Ack, ecn),
            RxVerdict::InOrder { .. } | RxVerdict::Buffered => {
                c.accepted_bytes += c.wire_bytes;
                let mut now_due = first || data.ecn_ce || c.accepted_bytes >= c.every_bytes;
                if data.ack_request {
                    now_due = true;
                    c.ack_request = true;
                }
                if matches!(out.verdict, RxVerdict::InOrder { .. })
                    && self.rbo == 0
                    && c.ack_request
                {
                    now_due = true;
                    c.ack_request = false;
                }
                if !now_due && self.next_expected < self.total_pkts {
                    return (out, None);
                }
                (PacketKind::Ack, ecn)
            }
        };
        c.accepted_bytes = 0;
        let sack = self.held.front().copied().unwrap_or(0);
        (
            out,
            Some(AckOut {
                sack,
                ..Self::reply(now, data, kind, reply_flags, out.cum_ack, self.echoed_ood())
            }),
        )
    }

    /// The reply to a data packet that a switch trimmed to its header (NDP-style trimming; UEC
    /// htsim `UecSink::processTrimmed`, EQDS likewise): a NAK for its PSN at once, flagged
    /// `TRIMMED` (and `TRIM_LAST_HOP` when `last_hop`), echoing a CE mark. If the packet was
    /// already received (an earlier copy arrived), an ACK instead. The receiver's state does
    /// not change: nothing was delivered.
    pub fn on_trimmed(&self, now: Time, data: &DataIn, last_hop: bool) -> AckOut {
        let ecn = if data.ecn_ce { flags::ECN_ECHO } else { 0 };
        let psn = data.psn;
        let have = psn < self.next_expected || (psn > self.next_expected && self.is_held(psn));
        if have {
            return Self::reply(
                now,
                data,
                PacketKind::Ack,
                ecn,
                self.next_expected,
                self.echoed_ood(),
            );
        }
        let trim = flags::TRIMMED | if last_hop { flags::TRIM_LAST_HOP } else { 0 };
        Self::reply(now, data, PacketKind::Nak, ecn | trim, self.next_expected, self.echoed_ood())
    }

    /// The reply to an RTS (receiver-driven transports) reaching a receiver that already has
    /// every packet: its sender still waits for an acknowledgement (the last ACKs were lost), so
    /// a plain cumulative ACK, naming the last PSN, instead of pulls.
    pub fn on_rts_complete(&self, now: Time, rts: &DataIn) -> AckOut {
        let last = DataIn { psn: self.next_expected.saturating_sub(1), ecn_ce: false, ..*rts };
        Self::reply(now, &last, PacketKind::Ack, 0, self.next_expected, 0)
    }

    /// The reply to a probe: an ACK flagged `PROBE_ACK` carrying the cumulative ACK (probes carry
    /// no data and do not change the receiver's state).
    pub fn on_probe(&self, now: Time, probe: &DataIn) -> AckOut {
        let reply_flags = if probe.ecn_ce { flags::ECN_ECHO } else { 0 } | flags::PROBE_ACK;
        Self::reply(now, probe, PacketKind::Ack, reply_flags, self.next_expected, 0)
    }

    fn reply(
        now: Time,
        data: &DataIn,
        kind: PacketKind,
        reply_flags: u8,
        cum_ack: u32,
        ood: u32,
    ) -> AckOut {
        AckOut {
            kind,
            flags: reply_flags,
            psn: data.psn,
            cum_ack,
            ood,
            path: data.path,
            entropy: data.entropy,
            ts_sent: data.ts_sent,
            ts_rx: now,
            hops: data.hops,
            sack: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(n: u32) -> Receiver {
        Receiver::new(RxMode::Selective, n)
    }

    #[test]
    fn in_order_has_zero_ood() {
        let mut r = sel(10);
        for p in 0..10 {
            let o = r.on_data(Time::ZERO, p, true);
            assert_eq!(o.verdict, RxVerdict::InOrder { delivered: 1 });
            assert_eq!(o.ood, 0);
        }
        assert!(r.is_complete());
        assert_eq!(r.max_ood(), 0);
    }

    #[test]
    fn ood_and_rbo_follow_the_definitions() {
        let mut r = sel(10);
        r.on_data(Time::ZERO, 0, true);
        // 1 missing; 3 arrives: largest 3 − expected 1 = 2; one packet held.
        let o = r.on_data(Time::ZERO, 3, true);
        assert_eq!((o.ood, r.rbo(), o.reply), (2, 1, RxReply::Nak));
        let o = r.on_data(Time::ZERO, 2, true);
        assert_eq!((o.ood, r.rbo()), (2, 2));
        // 1 fills the hole: 1,2,3 delivered, nothing held, OOD 0.
        let o = r.on_data(Time::ZERO, 1, true);
        assert_eq!(o.verdict, RxVerdict::InOrder { delivered: 3 });
        assert_eq!((o.ood, r.rbo(), o.rbo_delta, o.cum_ack), (0, 0, -2, 4));
        assert_eq!(r.max_ood(), 2);
    }

    #[test]
    fn a_held_echo_reports_the_packets_held_and_keeps_the_ood_statistics() {
        // 0 arrives, then 5 and 9 (1–4, 6–8 missing): the OOD is 8, two packets are held.
        for held in [false, true] {
            let mut r = sel(12).with_held_echo(held);
            for psn in [0, 5] {
                r.on_data_packet(Time::ZERO, &data(psn), true);
            }
            let (o, a) = r.on_data_packet(Time::ZERO, &data(9), true);
            let echoed = a.expect("a selective receiver replies to every packet").ood;
            assert_eq!((o.ood, r.rbo(), r.max_ood()), (8, 2, 8), "held echo {held}");
            assert_eq!(echoed, if held { 2 } else { 8 });
            // A trimmed header's NAK echoes the same reading.
            assert_eq!(r.on_trimmed(Time::ZERO, &data(3), false).ood, echoed);
        }
    }

    #[test]
    fn duplicates_are_counted() {
        let mut r = sel(5);
        r.on_data(Time::ZERO, 0, true);
        r.on_data(Time::ZERO, 2, true);
        assert_eq!(r.on_data(Time::ZERO, 2, true).verdict, RxVerdict::Duplicate);
        assert_eq!(r.on_data(Time::ZERO, 0, true).verdict, RxVerdict::Duplicate);
        assert_eq!(r.duplicates(), 2);
    }

    #[test]
    fn full_buffer_accepts_only_the_next_expected() {
        let mut r = sel(5);
        let o = r.on_data(Time::ZERO, 1, false);
        assert_eq!(o.verdict, RxVerdict::DroppedBufferFull);
        assert_eq!(r.rbo(), 0);
        let o = r.on_data(Time::ZERO, 0, false);
        assert_eq!(o.verdict, RxVerdict::InOrder { delivered: 1 });
    }

    #[test]
    fn received_below_matches_the_set_of_arrivals() {
        // Arrivals in a scrambled order with holes; after each, the bitmap below every PSN up to
        // 200 equals the brute-force answer.
        let mut rng = braid_core::rng::Rng::new(7);
        let mut r = Receiver::new(RxMode::Selective, 400).with_sack_below(true);
        let mut got = vec![false; 400];
        for _ in 0..300 {
            let psn = (rng.next_u64() % 260) as u32;
            r.on_data(Time::ZERO, psn, true);
            got[psn as usize] = true;
            for h in [0u32, 1, 5, 63, 64, 65, 100, 130, 199, 259] {
                let want = (0..64).fold(0u64, |m, i| {
                    let q = h as i64 - 64 + i as i64;
                    if q >= 0 && got[q as usize] {
                        m | 1 << i
                    } else {
                        m
                    }
                });
                assert_eq!(r.received_below(h), want, "below {h} after {psn}");
            }
        }
        // The per-packet ACK carries it; a lost ACK of 5 is covered by the ACK of 7.
        let mut r = Receiver::new(RxMode::Selective, 20).with_sack_below(true);
        r.on_data_packet(Time::ZERO, &data(5), true);
        let (_, a) = r.on_data_packet(Time::ZERO, &data(7), true);
        assert_eq!(a.unwrap().sack, 1 << (64 - 2));
    }

    #[test]
    fn long_gaps_cross_bitmap_words() {
        let mut r = sel(400);
        for p in (1..300).rev() {
            r.on_data(Time::ZERO, p, true);
        }
        assert_eq!(r.rbo(), 299);
        assert_eq!(r.ood(), 299);
        let o = r.on_data(Time::ZERO, 0, true);
        assert_eq!(o.verdict, RxVerdict::InOrder { delivered: 300 });
        assert_eq!(r.rbo(), 0);
        assert_eq!(r.next_expected(), 300);
    }

    fn data(psn: u32) -> DataIn {
        DataIn {
            psn,
            path: 3,
            entropy: 7,
            ecn_ce: true,
            ts_sent: Time::from_us(1),
            hops: 2,
            ack_request: false,
        }
    }

    #[test]
    fn replies_echo_the_data_packet() {
        let mut r = sel(5);
        let (_, a) = r.on_data_packet(Time::from_us(2), &data(0), true);
        let a = a.unwrap();
        assert_eq!(
            (a.kind, a.flags, a.psn, a.cum_ack, a.path, a.entropy),
            (PacketKind::Ack, flags::ECN_ECHO, 0, 1, 3, 7)
        );
        assert_eq!((a.ts_sent, a.ts_rx, a.hops), (Time::from_us(1), Time::from_us(2), 2));
        let (_, n) = r.on_data_packet(Time::ZERO, &data(3), false);
        let n = n.unwrap();
        assert_eq!((n.kind, n.flags), (PacketKind::Nak, flags::ECN_ECHO | flags::RX_BUFFER_FULL));
        let p = r.on_probe(Time::ZERO, &DataIn { ecn_ce: false, ..data(u32::MAX) });
        assert_eq!((p.kind, p.flags, p.cum_ack, p.ood), (PacketKind::Ack, flags::PROBE_ACK, 1, 0));
    }

    #[test]
    fn trimmed_packets_are_nakked_unless_already_received() {
        let mut r = sel(5);
        r.on_data(Time::ZERO, 0, true);
        r.on_data(Time::ZERO, 2, true);
        let n = r.on_trimmed(Time::from_us(3), &data(1), true);
        assert_eq!((n.kind, n.psn, n.cum_ack), (PacketKind::Nak, 1, 1));
        assert_eq!(n.flags, flags::ECN_ECHO | flags::TRIMMED | flags::TRIM_LAST_HOP);
        let n = r.on_trimmed(Time::ZERO, &DataIn { ecn_ce: false, ..data(3) }, false);
        assert_eq!((n.kind, n.flags), (PacketKind::Nak, flags::TRIMMED));
        // Already have 0 and 2: a plain ACK; and nothing changed.
        assert_eq!(r.on_trimmed(Time::ZERO, &data(2), false).kind, PacketKind::Ack);
        assert_eq!(r.on_trimmed(Time::ZERO, &data(0), false).kind, PacketKind::Ack);
        assert_eq!((r.next_expected(), r.rbo()), (1, 1));
    }

    #[test]
    fn go_back_n_discards_and_rate_limits_naks() {
        let mut r = Receiver::new(RxMode::GoBackN { nak_interval: Time::from_us(10) }, 10);
        r.on_data(Time::ZERO, 0, true);
        let o = r.on_data(Time::ZERO, 2, true);
        assert_eq!((o.verdict, o.reply), (RxVerdict::DroppedOutOfOrder, RxReply::Nak));
        let o = r.on_data(Time::from_us(1), 3, true);
        assert_eq!(o.reply, RxReply::None);
        let o = r.on_data(Time::from_us(11), 4, true);
        assert_eq!(o.reply, RxReply::Nak);
        assert_eq!(r.rbo(), 0);
    }

    #[test]
    fn coalescing_acks_once_per_16_kb_and_at_once_when_asked() {
        // 4,150-byte packets: 16,384 B are reached on the 4th packet.
        let mut r = sel(20).with_ack_coalescing(16_384, 4150);
        let plain = |psn| DataIn { ecn_ce: false, ..data(psn) };
        let acks = |r: &mut Receiver, psns: &[u32]| -> Vec<Option<AckOut>> {
            psns.iter().map(|&p| r.on_data_packet(Time::ZERO, &plain(p), true).1).collect()
        };
        // The first packet is acknowledged at once, then every 4th.
        let got = acks(&mut r, &[0, 1, 2, 3, 4, 5, 6, 7]);
        let acked: Vec<bool> = got.iter().map(|a| a.is_some()).collect();
        assert_eq!(acked, [true, false, false, false, true, false, false, false]);
        // Out of order (9, 10 before 8): no NAK; the 16 KB ACK (at 9) carries the SACK bitmap.
        let a = acks(&mut r, &[9])[0].expect("16 KB since the last ACK");
        assert_eq!((a.kind, a.cum_ack, a.sack), (PacketKind::Ack, 8, 0b1));
        assert!(acks(&mut r, &[10])[0].is_none());
        // A CE-marked packet is acknowledged at once and echoed.
        let (_, a) = r.on_data_packet(Time::ZERO, &data(11), true);
        assert_eq!(a.unwrap().flags, flags::ECN_ECHO);
        // An ACK request while 8 is missing: acknowledged now, and again once 8 fills the hole.
        let (_, a) = r.on_data_packet(Time::ZERO, &DataIn { ack_request: true, ..plain(12) }, true);
        assert!(a.is_some());
        let a = acks(&mut r, &[8])[0].expect("the hole filled after an ACK request");
        assert_eq!((a.cum_ack, a.sack), (13, 0));
        // A duplicate is acknowledged at once; so is the packet completing the message.
        assert!(acks(&mut r, &[3])[0].is_some());
        let got = acks(&mut r, &[13, 14, 15, 16, 17, 18, 19]);
        let acked: Vec<bool> = got.iter().map(|a| a.is_some()).collect();
        assert_eq!(acked, [false, false, false, true, false, false, true]);
        assert!(r.is_complete());
    }
}
