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

mod baseline_util;
pub mod cc_sender;
pub mod eqds;
pub mod events;
pub mod falcon;
pub mod mprdma;
pub mod roce;
pub mod rondo;
pub mod sender_core;
pub mod uet;

#[cfg(test)]
use crate::cc::CcEnv;
use crate::cc::{CcConfig, CcKind};
use crate::recovery::{RecoveryConfig, RecoveryKind, RecoveryStats};
use braid_core::{Knob, Time};

pub use baseline_util::MAX_PATHS;

pub use cc_sender::{CcSender, PathPolicy};
pub use eqds::{EqdsConfig, EqdsSender};
pub use events::{AckIn, FlowEnv, TimerKind, TimerTable, TxPacket};
pub use falcon::{FalconConfig, FalconSender};
pub use mprdma::{MprdmaConfig, MprdmaSender};
pub use roce::{RoceConfig, RoceSender, SinglePath};
pub use rondo::rrps::RoundRobin;
pub use rondo::{PathSample, RondoConfig, RondoSender, RrpsConfig, RrpsSender};
pub use sender_core::{Message, SenderCore};
pub use uet::{UetConfig, UetSender};

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
            // RRPS sends each path's packets in order, so per-path RACK tells loss from the
            // cross-path reordering spraying causes by construction. Selective repeat NAKs the
            // first gap instead: on the Rondo testbed (4 KB MTU) a quarter of RRPS's packets were
            // retransmitted spuriously and its goodput fell from 37 to 32 Gb/s.
            TransportKind::Falcon | TransportKind::Rrps => RecoveryKind::RackTlpPerPath,
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

/// A flow of `size_bytes` from UDP port 50 001 at time zero on the 100 Gb/s reference path, for
/// unit tests.
#[cfg(test)]
pub(crate) fn test_env(size_bytes: u64, seed: u64) -> FlowEnv {
    FlowEnv { cc: CcEnv::reference_100g(), size_bytes, connection_messages: None, equal_cost_paths: 0, entropy: 50_001, start: Time::ZERO, seed }
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
    /// The network trims packets instead of dropping them (`network.trim`): transports that
    /// react to trimmed packets may tune themselves for it (UET's NSCC target delay).
    pub network_trims: bool,
    /// Transport-specific knobs.
    pub params: Vec<(String, Knob)>,
}

impl TransportConfig {
    /// Whether receivers hold out-of-order packets for this transport.
    pub fn receiver_buffers(&self) -> bool {
        self.recovery.kind.receiver_buffers()
    }
}

/// A transport's typed configuration, read once per scenario by the scenario layer: what each
/// flow's sender is built from.
#[derive(Clone, Debug)]
pub enum TransportSpec {
    /// RoCE.
    Roce(RoceConfig),
    /// MP-RDMA.
    Mprdma(MprdmaConfig),
    /// Falcon.
    Falcon(FalconConfig),
    /// UET.
    Uet(UetConfig),
    /// EQDS.
    Eqds(EqdsConfig),
    /// Rondo.
    Rondo(RondoConfig),
    /// RRPS.
    Rrps(RrpsConfig),
}

impl TransportSpec {
    /// Build the sender of one flow.
    pub fn build(&self, env: &FlowEnv) -> Result<Sender, String> {
        Ok(match self {
            TransportSpec::Roce(c) => Sender::Roce(RoceSender::new(c, env)?),
            TransportSpec::Mprdma(c) => Sender::Mprdma(MprdmaSender::new(c.clone(), env)?),
            TransportSpec::Falcon(c) => Sender::Falcon(FalconSender::new(c.clone(), env)?),
            TransportSpec::Uet(c) => Sender::Uet(UetSender::new(c.clone(), env)?),
            TransportSpec::Eqds(c) => Sender::Eqds(EqdsSender::new(c.clone(), env)?),
            TransportSpec::Rondo(c) => Sender::Rondo(RondoSender::new(c, env)?),
            TransportSpec::Rrps(c) => Sender::Rrps(RrpsSender::new(c, env)?),
        })
    }

    /// The receivers of this transport coalesce ACKs, one per this many accepted wire bytes
    /// (UET's `ack_every_bytes`; see [`crate::receiver`]); `None`: one ACK per packet.
    pub fn ack_every_bytes(&self) -> Option<u64> {
        match self {
            TransportSpec::Uet(c) if c.ack_every_bytes > 0 => Some(c.ack_every_bytes),
            _ => None,
        }
    }

    /// Whether the transport sends one flow's packets over several paths (every one but RoCE, which
    /// keeps one path unless the switches spray its packets themselves).
    pub fn is_multipath(&self) -> bool {
        !matches!(self, TransportSpec::Roce(_))
    }

    /// Whether the flow's receiver puts the bitmap of the 64 PSNs below the acknowledged one in
    /// every ACK (`Receiver::with_sack_below`; Rondo's `ack_bitmap`).
    pub fn sack_below(&self) -> bool {
        matches!(self, TransportSpec::Rondo(c) if c.ack_bitmap)
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
    /// The flow (or connection) starts at `now`. A sender is built with its workload start,
    /// which for a flow that waits for dependencies is only an offset; the driver calls this
    /// when the flow really starts, so that start-relative state (Rondo's start-up probing and
    /// first ARCC updates, NSCC's clocks, pacing) runs from then. A no-op when `now` is the
    /// start it was built with.
    pub fn begin(&mut self, now: Time) {
        match self {
            Sender::Roce(s) => s.begin(now),
            Sender::Mprdma(s) => s.begin(now),
            Sender::Falcon(s) => s.begin(now),
            Sender::Uet(s) => s.begin(now),
            Sender::Eqds(s) => s.begin(now),
            Sender::Rondo(s) => s.begin(now),
            Sender::Rrps(s) => s.begin(now),
        }
    }

    /// Post a message of `bytes` on the connection at `now` (a persistent connection, built with
    /// [`FlowEnv::connection_messages`]): its packets follow everything posted before, in order.
    /// Returns its PSN range `(first, end)`. The transport's state — windows, rates, path
    /// estimates, scheduler, PSN space — carries over from the messages before.
    pub fn post_message(&mut self, now: Time, bytes: u64) -> Result<(u32, u32), String> {
        let was_idle = self.core().msg.packets > 0 && self.core().is_complete();
        let range = self.core_mut().post(bytes)?;
        match self {
            Sender::Rondo(s) => s.on_post(now, was_idle),
            Sender::Eqds(s) => s.on_post(was_idle),
            _ => {}
        }
        Ok(range)
    }

    /// Packets posted so far (a flow of one message: its packets).
    #[inline]
    pub fn posted_packets(&self) -> u32 {
        self.core().msg.packets
    }

    /// Packets acknowledged cumulatively (every PSN below has been delivered): a message whose
    /// PSNs end at or below this is complete.
    #[inline]
    pub fn acked_packets(&self) -> u32 {
        self.core().rec.una()
    }

    /// The sender's message and loss recovery.
    #[inline]
    fn core_mut(&mut self) -> &mut SenderCore {
        match self {
            Sender::Roce(s) => &mut s.core,
            Sender::Mprdma(s) => &mut s.core,
            Sender::Falcon(s) => &mut s.core,
            Sender::Uet(s) => &mut s.core,
            Sender::Eqds(s) => &mut s.core,
            Sender::Rondo(s) => &mut s.core,
            Sender::Rrps(s) => &mut s.core,
        }
    }

    /// The sender's message and loss recovery.
    #[inline]
    fn core(&self) -> &SenderCore {
        match self {
            Sender::Roce(s) => &s.core,
            Sender::Mprdma(s) => &s.core,
            Sender::Falcon(s) => &s.core,
            Sender::Uet(s) => &s.core,
            Sender::Eqds(s) => &s.core,
            Sender::Rondo(s) => &s.core,
            Sender::Rrps(s) => &s.core,
        }
    }
    /// Every byte posted so far has been acknowledged.
    #[inline]
    pub fn is_complete(&self) -> bool {
        self.core().is_complete()
    }
    /// Loss-recovery counters.
    pub fn recovery_stats(&self) -> RecoveryStats {
        self.core().recovery_stats()
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
    /// Whether its receiver pulls up to the pull target its data packets carry (EQDS with
    /// `pull_targets`; [`crate::pull_pacer`]) rather than once per arriving packet.
    pub fn pulls_to_target(&self) -> bool {
        matches!(self, Sender::Eqds(s) if s.config().pull_targets)
    }
    /// Whether this transport reacts to trimmed packets (NDP-style switch trimming): its
    /// receiver NAKs a trimmed header at once and its sender resends the packet (UET, EQDS).
    /// For the others the receiving NIC discards a trimmed packet as if it had been dropped,
    /// and their own loss recovery repairs it.
    #[inline]
    pub fn handles_trims(&self) -> bool {
        matches!(self, Sender::Uet(_) | Sender::Eqds(_))
    }
    /// Per-logical-path control state for time series (Rondo); empty for other senders.
    pub fn path_samples(&self) -> &[PathSample] {
        match self {
            Sender::Rondo(s) => s.path_samples(),
            _ => &[],
        }
    }
}
