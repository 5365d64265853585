//! The part every sender shares: the data it sends (its size, the payload of each packet, which
//! packet ends a message, the 32-bit PSN check) and its loss recovery ([`Recovery`], with the
//! recovery timers in one [`TimerTable`](super::events::TimerTable)). Each transport embeds a
//! [`SenderCore`] and adds its own rate, window and path choice.
//!
//! **Messages on a connection.** A sender is either one message (a flow: built with its size,
//! everything posted at once) or a persistent connection, an RDMA queue pair that carries many
//! messages over its lifetime ([`SenderCore::connection`]): the application posts each message
//! with [`SenderCore::post`], which appends its packets to the connection's PSN space (every
//! message starts on a new packet, as RDMA messages do, and its last packet may be short). The
//! recovery's total grows with every post; [`SenderCore::is_complete`] means "everything posted
//! so far is acknowledged", and the transport's windows, rates, path estimates and scheduler
//! carry over from one message to the next.

use braid_core::{PacketKind, Time};

use super::events::TxPacket;
use crate::recovery::{Recovery, RecoveryConfig, RecoveryStats};

/// The message a flow sends, cut into packets of `mtu_bytes` payload each.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    /// Message size.
    pub size_bytes: u64,
    /// Payload bytes per packet (the last packet may carry less).
    pub mtu_bytes: u32,
    /// Packets in the message (at least 1).
    pub packets: u32,
}

impl Message {
    /// A message of `size_bytes` in packets of `mtu_bytes` (raised to 1); errors when its PSNs
    /// would not fit in 31 bits.
    pub fn new(size_bytes: u64, mtu_bytes: u32) -> Result<Message, String> {
        let mtu_bytes = mtu_bytes.max(1);
        let pkts = size_bytes.div_ceil(mtu_bytes as u64).max(1);
        if pkts > u32::MAX as u64 / 2 {
            return Err(format!("flow of {size_bytes} bytes has too many packets for 32-bit PSNs"));
        }
        Ok(Message { size_bytes, mtu_bytes, packets: pkts as u32 })
    }

    /// Payload bytes of packet `psn` (at least 1 unless the message is empty).
    #[inline]
    pub fn payload_of(&self, psn: u32) -> u32 {
        let off = psn as u64 * self.mtu_bytes as u64;
        (self.size_bytes.saturating_sub(off))
            .min(self.mtu_bytes as u64)
            .max(if self.size_bytes == 0 { 0 } else { 1 }) as u32
    }

    /// Whether `psn` is the message's last packet.
    #[inline]
    pub fn is_last(&self, psn: u32) -> bool {
        (psn as u64 + 1) * self.mtu_bytes as u64 >= self.size_bytes
    }
}

/// One message of a connection's PSN space: the packets `previous end .. end_psn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageSpan {
    /// One past the message's last PSN.
    pub end_psn: u32,
    /// Payload bytes of its last packet.
    pub last_payload: u32,
}

/// The most packets a sender's PSN space may hold (31 bits, so that PSN arithmetic never wraps).
pub const MAX_PSNS: u64 = u32::MAX as u64 / 2;

/// A sender's data (one message, or the messages posted on a connection) and its loss recovery.
#[derive(Clone, Debug)]
pub struct SenderCore {
    /// Everything posted so far: its size and packet count (for a connection, the sum over its
    /// messages); the payload of each packet is [`SenderCore::payload_of`].
    pub msg: Message,
    /// Loss recovery over the posted packets.
    pub rec: Recovery,
    /// The messages of a connection, in PSN order (empty for a sender of one message, whose
    /// layout is `msg`'s).
    spans: Vec<MessageSpan>,
    /// The span the last lookup found: packets go out mostly in PSN order, so the next lookup
    /// usually hits it or the one after, without a search.
    cursor: std::cell::Cell<usize>,
}

impl SenderCore {
    /// The core of a sender of `size_bytes` in packets of `mtu_bytes`, recovering by `recovery`.
    pub fn new(
        size_bytes: u64,
        mtu_bytes: u32,
        recovery: RecoveryConfig,
    ) -> Result<SenderCore, String> {
        let msg = Message::new(size_bytes, mtu_bytes)?;
        Ok(SenderCore {
            msg,
            rec: Recovery::new(recovery, msg.packets),
            spans: Vec::new(),
            cursor: std::cell::Cell::new(0),
        })
    }

    /// The core of a persistent connection with nothing posted yet; `messages` is how many
    /// messages it will carry (a capacity hint: more may be posted).
    pub fn connection(mtu_bytes: u32, recovery: RecoveryConfig, messages: u32) -> SenderCore {
        let msg = Message { size_bytes: 0, mtu_bytes: mtu_bytes.max(1), packets: 0 };
        SenderCore {
            msg,
            rec: Recovery::new(recovery, 0),
            spans: Vec::with_capacity(messages as usize),
            cursor: std::cell::Cell::new(0),
        }
    }

    /// The core a transport builds for `env`: one message of `env.size_bytes`, or, with
    /// [`super::FlowEnv::connection_messages`], an empty connection.
    pub fn for_env(env: &super::FlowEnv, recovery: RecoveryConfig) -> Result<SenderCore, String> {
        match env.connection_messages {
            None => SenderCore::new(env.size_bytes, env.cc.mtu_bytes, recovery),
            Some(n) => Ok(SenderCore::connection(env.cc.mtu_bytes, recovery, n)),
        }
    }

    /// Post a message of `bytes` (> 0) on the connection: its packets follow every PSN posted
    /// before. Returns its PSN range `(first, end)`. A sender built for one message becomes a
    /// connection whose first message is that one.
    pub fn post(&mut self, bytes: u64) -> Result<(u32, u32), String> {
        let mtu = self.msg.mtu_bytes as u64;
        let pkts = bytes.div_ceil(mtu).max(1);
        let first = self.msg.packets;
        if first as u64 + pkts > MAX_PSNS {
            return Err(format!(
                "a connection of more than {MAX_PSNS} packets does not fit 31-bit PSNs"
            ));
        }
        if self.spans.is_empty() && first > 0 {
            self.spans
                .push(MessageSpan { end_psn: first, last_payload: self.msg.payload_of(first - 1) });
        }
        let end = first + pkts as u32;
        let last_payload = (bytes - (pkts - 1) * mtu) as u32;
        self.spans.push(MessageSpan { end_psn: end, last_payload });
        self.msg.size_bytes += bytes;
        self.msg.packets = end;
        self.rec.grow(end);
        Ok((first, end))
    }

    /// Whether this sender carries messages posted on a connection (not one message).
    #[inline]
    pub fn is_connection(&self) -> bool {
        !self.spans.is_empty() || self.msg.packets == 0
    }

    /// Payload bytes per packet.
    #[inline]
    pub fn mtu_bytes(&self) -> u32 {
        self.msg.mtu_bytes
    }

    /// The message span holding `psn` (connections only): the cursor's or the next one's, else
    /// a binary search.
    #[inline]
    fn span_of(&self, psn: u32) -> Option<&MessageSpan> {
        let c = self.cursor.get();
        let starts = |i: usize| if i == 0 { 0 } else { self.spans[i - 1].end_psn };
        for i in [c, c + 1] {
            if i < self.spans.len() && psn < self.spans[i].end_psn && psn >= starts(i) {
                self.cursor.set(i);
                return Some(&self.spans[i]);
            }
        }
        let i = self.spans.partition_point(|s| s.end_psn <= psn);
        if i < self.spans.len() {
            self.cursor.set(i);
        }
        self.spans.get(i)
    }

    /// Payload bytes of packet `psn`.
    #[inline]
    pub fn payload_of(&self, psn: u32) -> u32 {
        if self.spans.is_empty() {
            return self.msg.payload_of(psn);
        }
        match self.span_of(psn) {
            Some(s) if psn + 1 == s.end_psn => s.last_payload,
            _ => self.msg.mtu_bytes,
        }
    }

    /// Whether `psn` is the last packet of its message.
    #[inline]
    pub fn is_last(&self, psn: u32) -> bool {
        if self.spans.is_empty() {
            return self.msg.is_last(psn);
        }
        self.span_of(psn).is_some_and(|s| psn + 1 == s.end_psn)
    }

    /// Record that data packet `psn` goes out now on logical path `path` with UDP source port
    /// `entropy`, and build it.
    #[inline]
    pub fn send_data(
        &mut self,
        now: Time,
        psn: u32,
        retx: bool,
        path: u16,
        entropy: u16,
    ) -> TxPacket {
        let payload = self.payload_of(psn);
        self.rec.on_sent(now, psn, path);
        self.data_packet(psn, retx, path, entropy, payload)
    }

    /// The data packet `psn` carrying `payload_bytes` (no bookkeeping).
    #[inline]
    pub fn data_packet(
        &self,
        psn: u32,
        retx: bool,
        path: u16,
        entropy: u16,
        payload_bytes: u32,
    ) -> TxPacket {
        TxPacket {
            kind: PacketKind::Data,
            psn,
            payload_bytes,
            entropy,
            path,
            retx,
            timestamped: false,
            last: self.is_last(psn),
            ack_request: false,
            pull_target: 0,
        }
    }

    /// Every byte posted so far acknowledged.
    #[inline]
    pub fn is_complete(&self) -> bool {
        self.rec.is_complete()
    }

    /// Loss-recovery counters.
    #[inline]
    pub fn recovery_stats(&self) -> RecoveryStats {
        self.rec.stats()
    }
}
