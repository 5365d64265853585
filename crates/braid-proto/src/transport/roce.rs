//! The single-path RoCEv2-like reliable transport: any congestion control with any loss-recovery
//! scheme (baselines.md §0, §11). With ECMP routing and DCQCN this is the "ECMP + DCQCN" baseline
//! of the Rondo paper.
//!
//! Behaviour, as in the HPCC ns-3 model: the flow starts at line rate (no slow start); after
//! sending a packet of `s` wire bytes it may not send again for `s / R` (rate pacing, `RATE_BOUND`);
//! it may send only while the bytes outstanding stay within the controller's window. A queued
//! retransmission goes before new data. All packets of the flow carry one UDP source port, so ECMP
//! pins the flow to one path.

use braid_core::{PacketKind, Time};

use crate::cc::{Cc, CcConfig, CcEnv, CcKind};
use crate::recovery::{Recovery, RecoveryConfig, RecoveryStats};
use crate::transport::{AckIn, TxPacket};

/// Configuration of a RoCE sender.
#[derive(Clone, Debug)]
pub struct RoceConfig {
    /// Congestion control.
    pub cc: CcConfig,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
}

/// A RoCE flow's sender.
#[derive(Clone, Debug)]
pub struct RoceSender {
    size_bytes: u64,
    mtu: u32,
    header_bytes: u32,
    entropy: u16,
    rec: Recovery,
    cc: Cc,
    next_tx_at: Time,
}

impl RoceSender {
    /// A sender for a message of `size_bytes` over a path described by `env`, using UDP source
    /// port `entropy`.
    pub fn new(cfg: &RoceConfig, env: &CcEnv, size_bytes: u64, entropy: u16, start: Time) -> Result<RoceSender, String> {
        let mtu = env.mtu_bytes.max(1);
        let pkts = size_bytes.div_ceil(mtu as u64).max(1);
        if pkts > u32::MAX as u64 / 2 {
            return Err(format!("flow of {size_bytes} bytes has too many packets for 32-bit PSNs"));
        }
        Ok(RoceSender {
            size_bytes,
            mtu,
            header_bytes: cfg.header_bytes,
            entropy,
            rec: Recovery::new(cfg.recovery, pkts as u32),
            cc: Cc::new(&cfg.cc, env)?,
            next_tx_at: start,
        })
    }

    fn payload_of(&self, psn: u32) -> u32 {
        let off = psn as u64 * self.mtu as u64;
        (self.size_bytes.saturating_sub(off)).min(self.mtu as u64).max(if self.size_bytes == 0 { 0 } else { 1 }) as u32
    }

    fn window_allows(&self) -> bool {
        crate::transport::window_allows(&self.rec, &self.cc, self.mtu)
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    pub fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.next_tx_at || !self.rec.has_data() {
            return None;
        }
        if !self.rec.has_retx() && !self.window_allows() {
            return None;
        }
        let (psn, retx) = self.rec.next_psn()?;
        let payload = self.payload_of(psn);
        self.rec.on_sent(now, psn, 0);
        let wire = payload as u64 + self.header_bytes as u64;
        self.next_tx_at = now + self.cc.rate().tx_time(wire);
        Some(TxPacket {
            kind: PacketKind::Data,
            psn,
            payload_bytes: payload,
            entropy: self.entropy,
            path: 0,
            retx,
            timestamped: false,
            last: (psn as u64 + 1) * self.mtu as u64 >= self.size_bytes,
        })
    }

    /// See [`crate::transport::Sender::next_send_time`].
    pub fn next_send_time(&self, now: Time) -> Time {
        if !self.rec.has_data() || (!self.rec.has_retx() && !self.window_allows()) {
            return Time::MAX;
        }
        self.next_tx_at.max(now)
    }

    /// See [`crate::transport::Sender::on_ack`].
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) {
        crate::transport::feed_ack(&mut self.rec, &mut self.cc, self.mtu, now, ack);
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    pub fn poll_timeout(&self) -> Option<Time> {
        crate::transport::combined_timeout(&self.rec, &self.cc)
    }

    /// See [`crate::transport::Sender::on_timeout`].
    pub fn on_timeout(&mut self, now: Time) {
        crate::transport::fire_timers(&mut self.rec, &mut self.cc, now);
    }

    /// Every byte acknowledged.
    pub fn is_complete(&self) -> bool {
        self.rec.is_complete()
    }
    /// Loss-recovery counters.
    pub fn recovery_stats(&self) -> RecoveryStats {
        self.rec.stats()
    }
    /// The congestion control in use.
    pub fn cc_kind(&self) -> CcKind {
        self.cc.kind()
    }
    /// Current pacing rate in bit/s.
    pub fn rate_bps(&self) -> u64 {
        self.cc.rate().bps()
    }
    /// Current window in bytes.
    pub fn window_bytes(&self) -> u64 {
        self.cc.window_bytes()
    }
}
