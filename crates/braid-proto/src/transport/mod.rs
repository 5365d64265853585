//! Transports: the sending ends of flows, as sans-IO state machines.
//!
//! A sender is driven by its host NIC with the calling protocol below (quinn-proto style):
//! - [`Sender::poll_transmit`] when the NIC could send one of this flow's packets now: returns the
//!   packet to send (PSN, payload, path entropy), or `None` (paced, window-limited or done);
//! - [`Sender::next_send_time`]: the earliest time `poll_transmit` may succeed without any new input
//!   (pacing), or [`Time::MAX`] when only an ACK or timeout can unblock it;
//! - [`Sender::on_ack`] for every ACK/NAK that reaches the sender;
//! - [`Sender::poll_timeout`] / [`Sender::on_timeout`]: the next timer deadline and its expiry
//!   (spurious calls are no-ops).
//!
//! Variants are dispatched by `enum`, not trait objects: one match per call on the hot path.

pub mod roce;
mod baseline_util;
pub mod falcon;
pub mod mprdma;
pub mod uet;
pub mod eqds;
pub mod rondo;

use crate::cc::{CcConfig, CcEnv, CcKind};
use crate::recovery::{RecoveryConfig, RecoveryKind, RecoveryStats};
use braid_core::{IntStack, Knob, PacketKind, Time};

pub use roce::{RoceConfig, RoceSender};
pub use falcon::{FalconConfig, FalconSender};
pub use mprdma::{MprdmaConfig, MprdmaSender};
pub use uet::{UetConfig, UetSender};
pub use eqds::{EqdsConfig, EqdsSender};
pub use rondo::{PathSample, RondoConfig, RondoSender, RrpsConfig, RrpsSender};

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
    /// Receiver's OOD for this flow when the data arrived.
    pub ood: u32,
    /// This acknowledges a probe.
    pub probe: bool,
    /// The receiver dropped the data packet because its reorder buffer was full.
    pub rx_buffer_full: bool,
    /// INT stack of the data packet (HPCC).
    pub int: Option<&'a IntStack>,
    /// Switch hops the data packet took.
    pub hops: u8,
}

/// The transport kinds of the scenario contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// Single-path RoCEv2-like reliable transport with any CC and recovery scheme.
    Roce,
    /// MP-RDMA: per-flow ECN window, ACK-clocked virtual paths, OOD-aware pruning.
    Mprdma,
    /// Falcon: per-path Swift, max-open-window path selection, PLB, NIC window, per-path RACK-TLP.
    Falcon,
    /// UET: NSCC window with REPS entropy selection, early recovery and RTO.
    Uet,
    /// EQDS in RTS mode without trimming: receiver-driven pull credits, sprayed.
    Eqds,
    /// Rondo: ARCC per-path windows, capacity probing, deficit path selection, packet scheduler.
    Rondo,
    /// Round-robin packet spraying over `paths` logical paths (Rondo's testbed baseline).
    Rrps,
}

impl TransportKind {
    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Roce => "roce",
            TransportKind::Mprdma => "mprdma",
            TransportKind::Falcon => "falcon",
            TransportKind::Uet => "uet",
            TransportKind::Eqds => "eqds",
            TransportKind::Rondo => "rondo",
            TransportKind::Rrps => "rrps",
        }
    }
    /// The congestion control a scenario gets when `transport.cc` is not given.
    pub fn default_cc(self) -> CcKind {
        match self {
            TransportKind::Rondo => CcKind::Arcc,
            TransportKind::Rrps => CcKind::Fixed,
            TransportKind::Falcon => CcKind::Swift,
            _ => CcKind::Dcqcn,
        }
    }
    /// The name of the congestion control a flow of this transport actually runs: the configured
    /// `cc` for transports that take one, the built-in controller's name otherwise.
    pub fn cc_name(self, configured: CcKind) -> &'static str {
        match self {
            TransportKind::Mprdma => "mprdma-ecn-window",
            TransportKind::Uet => "nscc",
            TransportKind::Eqds => "eqds-credit",
            _ => configured.name(),
        }
    }
    /// The loss recovery a scenario gets when `transport.recovery` is not given.
    pub fn default_recovery(self) -> RecoveryKind {
        match self {
            TransportKind::Rondo => RecoveryKind::EarlyRecovery,
            TransportKind::Mprdma | TransportKind::Uet | TransportKind::Eqds => RecoveryKind::EarlyRecovery,
            TransportKind::Falcon => RecoveryKind::RackTlpPerPath,
            _ => RecoveryKind::SelectiveRepeat,
        }
    }
    /// Parse a kebab-case transport name.
    pub fn parse(s: &str) -> Result<TransportKind, String> {
        match s {
            "roce" => Ok(TransportKind::Roce),
            "mprdma" => Ok(TransportKind::Mprdma),
            "falcon" => Ok(TransportKind::Falcon),
            "uet" => Ok(TransportKind::Uet),
            "rondo" => Ok(TransportKind::Rondo),
            "rrps" => Ok(TransportKind::Rrps),
            "eqds" => Ok(TransportKind::Eqds),
            _ => Err(format!("unknown transport kind `{s}` (known: roce, rondo, rrps, mprdma, falcon, uet, eqds)")),
        }
    }
}

/// A `[transport]` configuration for unit tests: `kind` with a default CC, the given recovery,
/// 48-byte headers and the given transport knobs.
#[cfg(test)]
pub(crate) fn test_config(kind: TransportKind, recovery: crate::recovery::RecoveryKind, params: &[(&str, Knob)]) -> TransportConfig {
    TransportConfig {
        kind,
        cc: CcConfig::new(CcKind::Dcqcn),
        recovery: RecoveryConfig::new(recovery),
        header_bytes: 48,
        params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
}

/// Give an ACK to a single-controller sender: loss recovery first, then the congestion control
/// (told of a detected loss too). Packets count `mtu_bytes` each for the controller.
pub(crate) fn feed_ack(rec: &mut crate::recovery::Recovery, cc: &mut crate::cc::Cc, mtu_bytes: u32, now: Time, ack: &AckIn) {
    let sum = rec.on_ack(now, ack);
    let mtu = mtu_bytes as u64;
    cc.on_ack(&crate::cc::AckEvent {
        now,
        newly_acked_bytes: sum.newly_acked as u64 * mtu,
        ack_seq_bytes: rec.una() as u64 * mtu,
        snd_nxt_bytes: rec.max_sent() as u64 * mtu,
        ecn: ack.ecn,
        rtt: sum.rtt,
        int: ack.int,
        hops: ack.hops,
    });
    if sum.loss {
        cc.on_nak(now);
    }
}

/// Whether a sender with `rec`'s outstanding packets of `mtu_bytes` may add one under `cc`'s window.
pub(crate) fn window_allows(rec: &crate::recovery::Recovery, cc: &crate::cc::Cc, mtu_bytes: u32) -> bool {
    let w = cc.window_bytes();
    w == u64::MAX || (rec.outstanding() as u64 * mtu_bytes as u64) < w
}

/// The earlier of a sender's loss-recovery and congestion-control deadlines.
pub(crate) fn combined_timeout(rec: &crate::recovery::Recovery, cc: &crate::cc::Cc) -> Option<Time> {
    match (rec.poll_timeout(), cc.poll_timeout()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Fire whichever of a sender's loss-recovery and congestion-control timers is due at `now`; an
/// RTO expiry is also reported to the controller.
pub(crate) fn fire_timers(rec: &mut crate::recovery::Recovery, cc: &mut crate::cc::Cc, now: Time) {
    if cc.poll_timeout().is_some_and(|t| t <= now) {
        cc.on_timeout(now);
    }
    let before = rec.stats().timeouts;
    if rec.poll_timeout().is_some_and(|t| t <= now) {
        rec.on_timeout(now);
        if rec.stats().timeouts > before {
            cc.on_rto(now);
        }
    }
}

/// A transport as a scenario configures it: the kind, its congestion control and loss recovery,
/// and transport-specific knobs by name (`paths`, `probing`, … — each transport documents its own).
#[derive(Clone, Debug)]
pub struct TransportConfig {
    /// Which transport.
    pub kind: TransportKind,
    /// Congestion control (for transports that take one).
    pub cc: CcConfig,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
    /// Transport-specific knobs.
    pub params: Vec<(String, Knob)>,
}

/// What a sender is built for: one flow on one path environment.
#[derive(Clone, Copy, Debug)]
pub struct FlowEnv {
    /// The path: line rate, base RTT, the network's largest RTT/BDP, MTU.
    pub cc: CcEnv,
    /// Message size.
    pub size_bytes: u64,
    /// The flow's base UDP source port (multipath transports derive their path entropies from it).
    pub entropy: u16,
    /// When the flow may start.
    pub start: Time,
    /// Seed of the flow's own random stream.
    pub seed: u64,
}

impl TransportConfig {
    /// Build the sender of one flow.
    pub fn build(&self, env: &FlowEnv) -> Result<Sender, String> {
        match self.kind {
            TransportKind::Roce => {
                // RoCE is single-path. `paths` is accepted (and has no effect) so that a multipath
                // scenario can be rerun as the ECMP + DCQCN baseline by changing `transport.kind` only.
                if let Some((k, _)) = self.params.iter().find(|(k, _)| k != "paths") {
                    return Err(format!("unknown field `transport.{k}` for transport `roce`"));
                }
                let cfg = RoceConfig { cc: self.cc.clone(), recovery: self.recovery, header_bytes: self.header_bytes };
                Ok(Sender::Roce(RoceSender::new(&cfg, &env.cc, env.size_bytes, env.entropy, env.start)?))
            }
            TransportKind::Mprdma => Ok(Sender::Mprdma(MprdmaSender::new(MprdmaConfig::from_transport(self)?, env)?)),
            TransportKind::Falcon => Ok(Sender::Falcon(FalconSender::new(FalconConfig::from_transport(self)?, env)?)),
            TransportKind::Uet => Ok(Sender::Uet(UetSender::new(UetConfig::from_transport(self)?, env)?)),
            TransportKind::Eqds => Ok(Sender::Eqds(EqdsSender::new(EqdsConfig::from_transport(self)?, env)?)),
            TransportKind::Rondo => Ok(Sender::Rondo(RondoSender::new(
                &RondoConfig::from_transport(self)?,
                &env.cc,
                env.size_bytes,
                env.entropy,
                env.start,
                env.seed,
            )?)),
            TransportKind::Rrps => {
                let mut paths = 4u16;
                for (k, v) in &self.params {
                    match k.as_str() {
                        "paths" => {
                            let n = v.as_u64().map_err(|e| format!("`transport.paths`: {e}"))?;
                            if n == 0 || n > 256 {
                                return Err(format!("`transport.paths` must be between 1 and 256, got {n}"));
                            }
                            paths = n as u16;
                        }
                        _ => return Err(format!("unknown field `transport.{k}` for transport `rrps` (known: paths)")),
                    }
                }
                let cfg = RrpsConfig { cc: self.cc.clone(), recovery: self.recovery, header_bytes: self.header_bytes, paths };
                Ok(Sender::Rrps(RrpsSender::new(&cfg, &env.cc, env.size_bytes, env.entropy, env.start)?))
            }
        }
    }

    /// Check every knob by building a sender for a reference 100 Gb/s environment.
    pub fn validate(&self) -> Result<(), String> {
        let env = FlowEnv { cc: CcEnv::reference_100g(), size_bytes: 1 << 20, entropy: 49_152, start: Time::ZERO, seed: 1 };
        self.build(&env).map(|_| ())
    }

    /// Whether receivers hold out-of-order packets for this transport.
    pub fn receiver_buffers(&self) -> bool {
        self.recovery.kind.receiver_buffers()
    }
}

/// A flow's sender.
#[derive(Clone, Debug)]
pub enum Sender {
    /// RoCE single-path.
    Roce(RoceSender),
    /// MP-RDMA.
    Mprdma(MprdmaSender),
    /// Falcon.
    Falcon(FalconSender),
    /// UET (NSCC + REPS).
    Uet(UetSender),
    /// EQDS (receiver-driven; pulls arrive through `on_ack`).
    Eqds(EqdsSender),
    /// Rondo.
    Rondo(RondoSender),
    /// Round-robin packet spraying.
    Rrps(RrpsSender),
}

impl Sender {
    /// See the module docs.
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        match self {
            Sender::Roce(s) => s.poll_transmit(now),
            Sender::Mprdma(s) => s.poll_transmit(now),
            Sender::Falcon(s) => s.poll_transmit(now),
            Sender::Uet(s) => s.poll_transmit(now),
            Sender::Eqds(s) => s.poll_transmit(now),
            Sender::Rondo(s) => s.poll_transmit(now),
            Sender::Rrps(s) => s.poll_transmit(now),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn next_send_time(&self, now: Time) -> Time {
        match self {
            Sender::Roce(s) => s.next_send_time(now),
            Sender::Mprdma(s) => s.next_send_time(now),
            Sender::Falcon(s) => s.next_send_time(now),
            Sender::Uet(s) => s.next_send_time(now),
            Sender::Eqds(s) => s.next_send_time(now),
            Sender::Rondo(s) => s.next_send_time(now),
            Sender::Rrps(s) => s.next_send_time(now),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) {
        match self {
            Sender::Roce(s) => s.on_ack(now, ack),
            Sender::Mprdma(s) => s.on_ack(now, ack),
            Sender::Falcon(s) => s.on_ack(now, ack),
            Sender::Uet(s) => s.on_ack(now, ack),
            Sender::Eqds(s) => s.on_ack(now, ack),
            Sender::Rondo(s) => s.on_ack(now, ack),
            Sender::Rrps(s) => s.on_ack(now, ack),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            Sender::Roce(s) => s.poll_timeout(),
            Sender::Mprdma(s) => s.poll_timeout(),
            Sender::Falcon(s) => s.poll_timeout(),
            Sender::Uet(s) => s.poll_timeout(),
            Sender::Eqds(s) => s.poll_timeout(),
            Sender::Rondo(s) => s.poll_timeout(),
            Sender::Rrps(s) => s.poll_timeout(),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn on_timeout(&mut self, now: Time) {
        match self {
            Sender::Roce(s) => s.on_timeout(now),
            Sender::Mprdma(s) => s.on_timeout(now),
            Sender::Falcon(s) => s.on_timeout(now),
            Sender::Uet(s) => s.on_timeout(now),
            Sender::Eqds(s) => s.on_timeout(now),
            Sender::Rondo(s) => s.on_timeout(now),
            Sender::Rrps(s) => s.on_timeout(now),
        }
    }
    /// Every byte has been acknowledged.
    #[inline]
    pub fn is_complete(&self) -> bool {
        match self {
            Sender::Roce(s) => s.is_complete(),
            Sender::Mprdma(s) => s.is_complete(),
            Sender::Falcon(s) => s.is_complete(),
            Sender::Uet(s) => s.is_complete(),
            Sender::Eqds(s) => s.is_complete(),
            Sender::Rondo(s) => s.is_complete(),
            Sender::Rrps(s) => s.is_complete(),
        }
    }
    /// Loss-recovery counters.
    pub fn recovery_stats(&self) -> RecoveryStats {
        match self {
            Sender::Roce(s) => s.recovery_stats(),
            Sender::Mprdma(s) => s.recovery_stats(),
            Sender::Falcon(s) => s.recovery_stats(),
            Sender::Uet(s) => s.recovery_stats(),
            Sender::Eqds(s) => s.recovery_stats(),
            Sender::Rondo(s) => s.recovery_stats(),
            Sender::Rrps(s) => s.recovery_stats(),
        }
    }
    /// The congestion control in use, if any.
    pub fn cc_kind(&self) -> Option<CcKind> {
        match self {
            Sender::Roce(s) => Some(s.cc_kind()),
            Sender::Mprdma(_) => None,
            Sender::Falcon(_) => Some(CcKind::Swift),
            Sender::Uet(_) => None,
            Sender::Eqds(_) => None,
            Sender::Rondo(s) => Some(s.cc_kind()),
            Sender::Rrps(s) => Some(s.cc_kind()),
        }
    }
    /// Current sending rate limit in bits per second (for rate time series).
    pub fn rate_bps(&self) -> u64 {
        match self {
            Sender::Roce(s) => s.rate_bps(),
            Sender::Mprdma(s) => s.rate_bps(),
            Sender::Falcon(s) => s.rate_bps(),
            Sender::Uet(s) => s.rate_bps(),
            Sender::Eqds(s) => s.rate_bps(),
            Sender::Rondo(s) => s.rate_bps(),
            Sender::Rrps(s) => s.rate_bps(),
        }
    }
    /// Current window in bytes (`u64::MAX` when unlimited).
    pub fn window_bytes(&self) -> u64 {
        match self {
            Sender::Roce(s) => s.window_bytes(),
            Sender::Mprdma(s) => s.window_bytes(),
            Sender::Falcon(s) => s.window_bytes(),
            Sender::Uet(s) => s.window_bytes(),
            Sender::Eqds(s) => s.window_bytes(),
            Sender::Rondo(s) => s.window_bytes(),
            Sender::Rrps(s) => s.window_bytes(),
        }
    }
    /// Whether this sender is receiver-driven: its receiver paces pulls for it
    /// ([`crate::pull_pacer`]) and pulls reach it through [`Sender::on_ack`] (EQDS).
    #[inline]
    pub fn wants_pulls(&self) -> bool {
        matches!(self, Sender::Eqds(_))
    }
    /// Per-logical-path control state for time series (Rondo); empty for other senders.
    pub fn path_samples(&self) -> &[PathSample] {
        match self {
            Sender::Rondo(s) => s.path_samples(),
            _ => &[],
        }
    }
}
