//! The part every sender shares: the message (its size, the payload of each packet, which
//! packet is the last, the 32-bit PSN check) and its loss recovery ([`Recovery`], with the
//! recovery timers in one [`TimerTable`](super::events::TimerTable)). Each transport embeds a
//! [`SenderCore`] and adds its own rate, window and path choice.

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
        (self.size_bytes.saturating_sub(off)).min(self.mtu_bytes as u64).max(if self.size_bytes == 0 { 0 } else { 1 }) as u32
    }

    /// Whether `psn` is the message's last packet.
    #[inline]
    pub fn is_last(&self, psn: u32) -> bool {
        (psn as u64 + 1) * self.mtu_bytes as u64 >= self.size_bytes
    }
}

/// A sender's message and loss recovery.
#[derive(Clone, Debug)]
pub struct SenderCore {
    /// The message.
    pub msg: Message,
    /// Loss recovery over the message's packets.
    pub rec: Recovery,
}

impl SenderCore {
    /// The core of a sender of `size_bytes` in packets of `mtu_bytes`, recovering by `recovery`.
    pub fn new(size_bytes: u64, mtu_bytes: u32, recovery: RecoveryConfig) -> Result<SenderCore, String> {
        let msg = Message::new(size_bytes, mtu_bytes)?;
        Ok(SenderCore { msg, rec: Recovery::new(recovery, msg.packets) })
    }

    /// Payload bytes per packet.
    #[inline]
    pub fn mtu_bytes(&self) -> u32 {
        self.msg.mtu_bytes
    }

    /// Record that data packet `psn` goes out now on logical path `path` with UDP source port
    /// `entropy`, and build it.
    #[inline]
    pub fn send_data(&mut self, now: Time, psn: u32, retx: bool, path: u16, entropy: u16) -> TxPacket {
        let payload = self.msg.payload_of(psn);
        self.rec.on_sent(now, psn, path);
        self.data_packet(psn, retx, path, entropy, payload)
    }

    /// The data packet `psn` carrying `payload_bytes` (no bookkeeping).
    #[inline]
    pub fn data_packet(&self, psn: u32, retx: bool, path: u16, entropy: u16, payload_bytes: u32) -> TxPacket {
        TxPacket {
            kind: PacketKind::Data,
            psn,
            payload_bytes,
            entropy,
            path,
            retx,
            timestamped: false,
            last: self.msg.is_last(psn),
            ack_request: false,
            pull_target: 0,
        }
    }

    /// Every byte acknowledged.
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
