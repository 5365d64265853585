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

use crate::cc::{CcConfig, CcEnv, CcKind};
use crate::recovery::{RecoveryConfig, RecoveryStats};
use braid_core::{IntStack, Knob, PacketKind, Time};

pub use roce::{RoceConfig, RoceSender};

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
}

impl TransportKind {
    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Roce => "roce",
        }
    }
    /// Parse a kebab-case transport name.
    pub fn parse(s: &str) -> Result<TransportKind, String> {
        match s {
            "roce" => Ok(TransportKind::Roce),
            "rondo" | "rrps" | "mprdma" | "falcon" | "uet" | "eqds" => Err(format!(
                "transport kind `{s}` is part of Braid's scenario contract but is not available in this build yet (available: roce)"
            )),
            _ => Err(format!("unknown transport kind `{s}` (known: roce, rondo, rrps, mprdma, falcon, uet, eqds)")),
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
                if let Some((k, _)) = self.params.first() {
                    return Err(format!("unknown field `transport.{k}` for transport `roce`"));
                }
                let cfg = RoceConfig { cc: self.cc.clone(), recovery: self.recovery, header_bytes: self.header_bytes };
                Ok(Sender::Roce(RoceSender::new(&cfg, &env.cc, env.size_bytes, env.entropy, env.start)?))
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
}

impl Sender {
    /// See the module docs.
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        match self {
            Sender::Roce(s) => s.poll_transmit(now),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn next_send_time(&self, now: Time) -> Time {
        match self {
            Sender::Roce(s) => s.next_send_time(now),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) {
        match self {
            Sender::Roce(s) => s.on_ack(now, ack),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            Sender::Roce(s) => s.poll_timeout(),
        }
    }
    /// See the module docs.
    #[inline]
    pub fn on_timeout(&mut self, now: Time) {
        match self {
            Sender::Roce(s) => s.on_timeout(now),
        }
    }
    /// Every byte has been acknowledged.
    #[inline]
    pub fn is_complete(&self) -> bool {
        match self {
            Sender::Roce(s) => s.is_complete(),
        }
    }
    /// Loss-recovery counters.
    pub fn recovery_stats(&self) -> RecoveryStats {
        match self {
            Sender::Roce(s) => s.recovery_stats(),
        }
    }
    /// The congestion control in use, if any.
    pub fn cc_kind(&self) -> Option<CcKind> {
        match self {
            Sender::Roce(s) => Some(s.cc_kind()),
        }
    }
    /// Current sending rate limit in bits per second (for rate time series).
    pub fn rate_bps(&self) -> u64 {
        match self {
            Sender::Roce(s) => s.rate_bps(),
        }
    }
    /// Current window in bytes (`u64::MAX` when unlimited).
    pub fn window_bytes(&self) -> u64 {
        match self {
            Sender::Roce(s) => s.window_bytes(),
        }
    }
}
