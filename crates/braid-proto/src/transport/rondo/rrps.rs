//! Round-robin packet spraying (RRPS), the congestion-oblivious baseline of Rondo's testbed
//! (§6.1, Fig 9): packet `i` of a flow goes out on logical path `i mod paths`, whatever the paths'
//! state. Rate and window come from an ordinary congestion controller — by default `fixed` (line
//! rate, optionally a fixed `transport.window`) — and losses are repaired by the configured
//! recovery (selective repeat by default). Retransmissions take the next path in the rotation too.
//!
//! Logical path `p` uses UDP source port `(entropy & 0xFF00) + p`, as Rondo does, so with
//! `routing.kind = "entropy"` and a power-of-two number of next hops it is physical path `p`.

use braid_core::{PacketKind, Time};

use crate::cc::{Cc, CcConfig, CcEnv, CcKind};
use crate::recovery::{Recovery, RecoveryConfig, RecoveryStats};
use crate::transport::{AckIn, TxPacket};

/// Configuration of an RRPS sender.
#[derive(Clone, Debug)]
pub struct RrpsConfig {
    /// Congestion control (rate and window of the whole flow).
    pub cc: CcConfig,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
    /// Number of logical paths sprayed over (1–256).
    pub paths: u16,
}

/// An RRPS flow's sender.
#[derive(Clone, Debug)]
pub struct RrpsSender {
    size_bytes: u64,
    mtu: u32,
    header_bytes: u32,
    entropy0: u16,
    paths: u16,
    next_path: u16,
    rec: Recovery,
    cc: Cc,
    next_tx_at: Time,
}

impl RrpsSender {
    /// A sender for `size_bytes` over paths described by `env`, starting at `start`.
    pub fn new(cfg: &RrpsConfig, env: &CcEnv, size_bytes: u64, entropy: u16, start: Time) -> Result<RrpsSender, String> {
        if cfg.paths == 0 || cfg.paths > 256 {
            return Err(format!("`transport.paths` must be between 1 and 256, got {}", cfg.paths));
        }
        let mtu = env.mtu_bytes.max(1);
        let pkts = size_bytes.div_ceil(mtu as u64).max(1);
        if pkts > u32::MAX as u64 / 2 {
            return Err(format!("flow of {size_bytes} bytes has too many packets for 32-bit PSNs"));
        }
        Ok(RrpsSender {
            size_bytes,
            mtu,
            header_bytes: cfg.header_bytes,
            entropy0: entropy & 0xFF00,
            paths: cfg.paths,
            next_path: 0,
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
        let path = self.next_path;
        self.next_path = (self.next_path + 1) % self.paths;
        let payload = self.payload_of(psn);
        self.rec.on_sent(now, psn, path);
        self.next_tx_at = now + self.cc.rate().tx_time(payload as u64 + self.header_bytes as u64);
        Some(TxPacket {
            kind: PacketKind::Data,
            psn,
            payload_bytes: payload,
            entropy: self.entropy0.wrapping_add(path),
            path,
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
