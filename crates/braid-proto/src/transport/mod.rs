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
//! The contract is the trait [`Transport`] (`contract.rs`): one type per transport, with its
//! configuration, knobs, defaults and constructor. The transports are listed once, in
//! `transports!` below, which builds [`TransportKind`], [`SenderFactory`] and [`Sender`] from the
//! list: variants are dispatched by `enum`, not trait objects — one match per call on the hot
//! path. A transport written outside this crate is added with [`register_transport`] and runs
//! behind the `Plugin` variants.

mod baseline_util;
pub mod cc_sender;
pub mod contract;
pub mod eqds;
pub mod falcon;
pub mod knobs;
pub mod mprdma;
pub mod roce;
pub mod rondo;
pub mod sender_core;
pub mod uet;

#[cfg(test)]
use crate::cc::CcEnv;
use crate::cc::{CcConfig, CcKind};
use crate::receiver::{Receiver, RxMode};
use crate::recovery::{RecoveryConfig, RecoveryKind, RecoveryStats};
use braid_core::{Knob, Time};
use contract::PLUGINS;

pub use crate::events;

pub use baseline_util::MAX_PATHS;

pub use cc_sender::{CcSender, PathPolicy};
pub use contract::{
    register_transport, ErasedConfig, PluginEntry, SenderClone, SenderOps, Transport,
};
pub use eqds::{EqdsConfig, EqdsSender};
pub use events::{AckIn, FlowEnv, TimerKind, TimerTable, TxPacket};
pub use falcon::{FalconConfig, FalconSender};
pub use mprdma::{MprdmaConfig, MprdmaSender};
pub use roce::{RoceConfig, RoceSender, SinglePath};
pub use rondo::rrps::RoundRobin;
pub use rondo::{PathSample, RondoConfig, RondoSender, RrpsConfig, RrpsSender};
pub use sender_core::{Message, SenderCore};
pub use uet::{UetConfig, UetSender};

/// A flow of `size_bytes` from UDP port 50 001 at time zero on the 100 Gb/s reference path, for
/// unit tests.
#[cfg(test)]
pub(crate) fn test_env(size_bytes: u64, seed: u64) -> FlowEnv {
    FlowEnv { entropy: 50_001, seed, ..FlowEnv::one_message(size_bytes, CcEnv::reference_100g()) }
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

/// Builds, from the one list of Braid's transports, the kind enum, the typed-configuration enum
/// and the sender enum, with every method dispatching through [`Transport`] in one `match`.
macro_rules! transports {
    ($d:tt $( $(#[$doc:meta])* $variant:ident($sender:ty) ),* $(,)?) => {
        /// The transport kinds of the scenario contract: Braid's own, and those registered with
        /// [`register_transport`] (`Plugin`, by registration number).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum TransportKind {
            $( $(#[$doc])* $variant, )*
            /// A transport registered at run time.
            Plugin(u16),
        }

        impl TransportKind {
            /// Braid's own transports, in the order of the list.
            pub const BUILTIN: &'static [TransportKind] = &[$(TransportKind::$variant),*];
            /// Their names.
            pub const BUILTIN_NAMES: &'static [&'static str] = &[$(<$sender as Transport>::NAME),*];

            /// Every transport name a scenario may use: Braid's own, then the registered ones.
            pub fn names() -> Vec<&'static str> {
                let mut v = Self::BUILTIN_NAMES.to_vec();
                v.extend(PLUGINS.names());
                v
            }
            /// The kebab-case name.
            pub fn name(self) -> &'static str {
                match self {
                    $( TransportKind::$variant => <$sender as Transport>::NAME, )*
                    TransportKind::Plugin(i) => PLUGINS.get(i).name,
                }
            }
            /// The transport-specific knobs it accepts.
            pub fn knobs(self) -> &'static [&'static str] {
                match self {
                    $( TransportKind::$variant => <$sender as Transport>::KNOBS, )*
                    TransportKind::Plugin(i) => PLUGINS.get(i).knobs,
                }
            }
            /// The congestion control a scenario gets when `transport.cc` is not given.
            pub fn default_cc(self) -> CcKind {
                match self {
                    $( TransportKind::$variant => <$sender as Transport>::default_cc(), )*
                    TransportKind::Plugin(i) => (PLUGINS.get(i).default_cc)(),
                }
            }
            /// The name of the congestion control a flow of this transport actually runs: the
            /// configured `cc` for transports that take one, the built-in controller's name
            /// otherwise.
            pub fn cc_name(self, configured: CcKind) -> &'static str {
                match self {
                    $( TransportKind::$variant => <$sender as Transport>::cc_name(configured), )*
                    TransportKind::Plugin(i) => (PLUGINS.get(i).cc_name)(configured),
                }
            }
            /// The loss recovery a scenario gets when `transport.recovery` is not given.
            pub fn default_recovery(self) -> RecoveryKind {
                match self {
                    $( TransportKind::$variant => <$sender as Transport>::default_recovery(), )*
                    TransportKind::Plugin(i) => (PLUGINS.get(i).default_recovery)(),
                }
            }
            /// Parse a kebab-case transport name (Braid's own or a registered one).
            pub fn parse(s: &str) -> Result<TransportKind, String> {
                $( if s == <$sender as Transport>::NAME { return Ok(TransportKind::$variant); } )*
                if let Some(i) = PLUGINS.id(s) {
                    return Ok(TransportKind::Plugin(i));
                }
                Err(format!("unknown transport kind `{s}` (known: {})", Self::names().join(", ")))
            }
        }

        /// What each flow's sender is built from ([`SenderFactory::build`]): the scenario's
        /// [`TransportConfig`] read once per scenario into the transport's own
        /// [`Transport::Config`] ([`SenderFactory::from_config`]). A transport's configuration
        /// has these two forms only: as the scenario gives it ([`TransportConfig`]) and as the
        /// transport reads it (`Transport::Config`, which this holds).
        #[derive(Clone, Debug)]
        pub enum SenderFactory {
            $( $(#[$doc])* $variant(<$sender as Transport>::Config), )*
            /// A registered transport's `Transport::Config`, type-erased.
            Plugin(u16, ErasedConfig),
        }

        impl SenderFactory {
            /// Read the transport-specific knobs of `tc` once into its kind's typed configuration.
            /// Errors name the scenario field at fault.
            pub fn from_config(tc: &TransportConfig) -> Result<SenderFactory, String> {
                Ok(match tc.kind {
                    $( TransportKind::$variant => SenderFactory::$variant(<$sender as Transport>::read_config(tc)?), )*
                    TransportKind::Plugin(i) => SenderFactory::Plugin(i, (PLUGINS.get(i).config)(tc)?),
                })
            }
            /// Build the sender of one flow.
            pub fn build(&self, env: &FlowEnv) -> Result<Sender, String> {
                Ok(match self {
                    $( SenderFactory::$variant(c) => Sender::$variant(<$sender as Transport>::new(c, env)?), )*
                    SenderFactory::Plugin(i, c) => Sender::Plugin((PLUGINS.get(*i).build)(c, env)?),
                })
            }
            /// The receivers of this transport coalesce ACKs, one per this many accepted wire
            /// bytes (UET's `ack_every_bytes`; see [`crate::receiver`]); `None`: one ACK per packet.
            pub fn ack_every_bytes(&self) -> Option<u64> {
                match self {
                    $( SenderFactory::$variant(c) => <$sender as Transport>::ack_every_bytes(c), )*
                    SenderFactory::Plugin(_, c) => c.ack_every_bytes,
                }
            }
            /// Whether the transport sends one flow's packets over several paths (every one but
            /// RoCE, which keeps one path unless the switches spray its packets themselves).
            pub fn is_multipath(&self) -> bool {
                match self {
                    $( SenderFactory::$variant(_) => <$sender as Transport>::MULTIPATH, )*
                    SenderFactory::Plugin(i, _) => PLUGINS.get(*i).multipath,
                }
            }
            /// Whether the transport's senders read `FlowEnv::longest_path_rtt` (the driver
            /// works it out only then; Rondo's `rtt_bound`).
            pub fn uses_longest_path_rtt(&self) -> bool {
                match self {
                    $( SenderFactory::$variant(c) => <$sender as Transport>::uses_longest_path_rtt(c), )*
                    SenderFactory::Plugin(_, c) => c.uses_longest_path_rtt,
                }
            }
            /// Whether the flow's receiver puts the bitmap of the 64 PSNs below the acknowledged
            /// one in every ACK (`Receiver::with_sack_below`; Rondo's `ack_bitmap`).
            pub fn sack_below(&self) -> bool {
                match self {
                    $( SenderFactory::$variant(c) => <$sender as Transport>::sack_below(c), )*
                    SenderFactory::Plugin(_, c) => c.sack_below,
                }
            }
            /// Whether the flow's receiver echoes the packets it holds above the cumulative ACK
            /// instead of the OOD (`Receiver::with_held_echo`; UET's `sleek_ooo = "held"`).
            pub fn held_echo(&self) -> bool {
                match self {
                    $( SenderFactory::$variant(c) => <$sender as Transport>::held_echo(c), )*
                    SenderFactory::Plugin(_, c) => c.held_echo,
                }
            }
        }

        /// A flow's sender.
        #[derive(Clone, Debug)]
        pub enum Sender {
            $( $(#[$doc])* $variant($sender), )*
            /// A registered transport's sender (one boxed object).
            Plugin(Box<dyn SenderOps>),
        }

        /// Calls [`SenderOps`] method `m` with arguments `a…` on the sender inside: statically for
        /// Braid's own, through the box for a registered one.
        macro_rules! dispatch {
            ($d self_:expr, $d m:ident($d($d a:expr),*)) => {
                match $d self_ {
                    $( Sender::$variant(s) => <$sender as SenderOps>::$d m(s $d(, $d a)*), )*
                    Sender::Plugin(s) => (**s).$d m($d($d a),*),
                }
            };
        }
    };
}

transports! {
    $
    /// Single-path RoCEv2-like reliable transport with any CC and recovery scheme.
    Roce(RoceSender),
    /// MP-RDMA: per-flow ECN window, ACK-clocked virtual paths, OOD-aware pruning.
    Mprdma(MprdmaSender),
    /// Falcon: per-path Swift, max-open-window path selection, PLB, NIC window, per-path RACK-TLP.
    Falcon(FalconSender),
    /// UET: NSCC window with REPS entropy selection, early recovery and RTO.
    Uet(UetSender),
    /// EQDS in RTS mode without trimming: receiver-driven pull credits, sprayed.
    Eqds(EqdsSender),
    /// Rondo: ARCC per-path windows, capacity probing, deficit path selection, packet scheduler.
    Rondo(RondoSender),
    /// Round-robin packet spraying over `paths` logical paths (Rondo's testbed baseline).
    Rrps(RrpsSender),
}

impl TransportConfig {
    /// What a scenario's `[transport]` naming only `kind` gives: the kind's default congestion
    /// control and loss recovery, no transport knobs, no header bytes (the scenario layer sets
    /// `header_bytes` from `[network]`).
    pub fn new(kind: TransportKind) -> TransportConfig {
        TransportConfig {
            kind,
            cc: CcConfig::new(kind.default_cc()),
            recovery: RecoveryConfig::new(kind.default_recovery()),
            header_bytes: 0,
            network_trims: false,
            params: Vec::new(),
        }
    }

    /// Whether receivers hold out-of-order packets for this transport.
    pub fn receiver_buffers(&self) -> bool {
        self.recovery.kind.receiver_buffers()
    }

    /// The receiver mode: selective (holds out-of-order packets) when loss recovery buffers,
    /// else go-back-N with the recovery's NAK interval.
    pub fn rx_mode(&self) -> RxMode {
        if self.receiver_buffers() {
            RxMode::Selective
        } else {
            RxMode::GoBackN { nak_interval: self.recovery.nak_interval }
        }
    }

    /// The receiving end of one flow of `pkts` packets (0: a connection that grows with its
    /// messages) whose packets carry `wire_bytes` on the wire: the mode of
    /// [`TransportConfig::rx_mode`], with the ACK coalescing, duplicate ACKs and SACK bitmap
    /// the transport (`spec`, read from this configuration) and its recovery ask for.
    pub fn receiver(&self, spec: &SenderFactory, pkts: u32, wire_bytes: u64) -> Receiver {
        let rx = Receiver::new(self.rx_mode(), pkts);
        match spec.ack_every_bytes() {
            Some(every) => rx.with_ack_coalescing(every, wire_bytes),
            None => rx,
        }
        .with_duplicate_acks(self.recovery.ack_duplicates)
        .with_sack_below(spec.sack_below())
        .with_held_echo(spec.held_echo())
    }

    /// Check every knob by building a sender for a reference 100 Gb/s environment.
    pub fn validate(&self) -> Result<(), String> {
        let env = FlowEnv::one_message(1 << 20, crate::cc::CcEnv::reference_100g());
        SenderFactory::from_config(self)?.build(&env).map(|_| ())
    }
}

/// The enum keeps the sans-IO protocol too, so that a driver generic over [`SenderOps`] (the
/// in-memory [`crate::testing::Pair`]) runs any transport a scenario names.
impl SenderOps for Sender {
    fn core(&self) -> &SenderCore {
        dispatch!(self, core())
    }
    fn core_mut(&mut self) -> &mut SenderCore {
        dispatch!(self, core_mut())
    }
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        dispatch!(self, poll_transmit(now))
    }
    fn next_send_time(&self, now: Time) -> Time {
        dispatch!(self, next_send_time(now))
    }
    fn send_time_is_stable(&self) -> bool {
        dispatch!(self, send_time_is_stable())
    }
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        dispatch!(self, on_ack(now, ack))
    }
    fn poll_timeout(&self) -> Option<Time> {
        dispatch!(self, poll_timeout())
    }
    fn on_timeout(&mut self, now: Time) {
        dispatch!(self, on_timeout(now))
    }
    fn begin(&mut self, now: Time) {
        dispatch!(self, begin(now))
    }
    fn on_post(&mut self, now: Time, was_idle: bool) {
        dispatch!(self, on_post(now, was_idle))
    }
    fn rate_bps(&self) -> u64 {
        dispatch!(self, rate_bps())
    }
    fn window_bytes(&self) -> u64 {
        dispatch!(self, window_bytes())
    }
    fn cc_kind(&self) -> Option<CcKind> {
        dispatch!(self, cc_kind())
    }
    fn wants_pulls(&self) -> bool {
        dispatch!(self, wants_pulls())
    }
    fn pulls_to_target(&self) -> bool {
        dispatch!(self, pulls_to_target())
    }
    fn handles_trims(&self) -> bool {
        dispatch!(self, handles_trims())
    }
    fn path_samples(&self) -> &[PathSample] {
        dispatch!(self, path_samples())
    }
    fn set_path_samples(&mut self, read: bool) {
        dispatch!(self, set_path_samples(read))
    }
}

impl Sender {
    /// See the module docs.
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        dispatch!(self, poll_transmit(now))
    }
    /// See the module docs.
    #[inline]
    pub fn next_send_time(&self, now: Time) -> Time {
        dispatch!(self, next_send_time(now))
    }
    /// See [`SenderOps::send_time_is_stable`].
    #[inline]
    pub fn send_time_is_stable(&self) -> bool {
        dispatch!(self, send_time_is_stable())
    }
    /// See the module docs.
    #[inline(always)]
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) {
        dispatch!(self, on_ack(now, ack))
    }
    /// See the module docs.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        dispatch!(self, poll_timeout())
    }
    /// See the module docs.
    #[inline]
    pub fn on_timeout(&mut self, now: Time) {
        dispatch!(self, on_timeout(now))
    }
    /// The flow (or connection) starts at `now`. A sender is built with its workload start,
    /// which for a flow that waits for dependencies is only an offset; the driver calls this
    /// when the flow really starts, so that start-relative state (Rondo's start-up probing and
    /// first ARCC updates, NSCC's clocks, pacing) runs from then. A no-op when `now` is the
    /// start it was built with.
    pub fn begin(&mut self, now: Time) {
        dispatch!(self, begin(now))
    }

    /// Post a message of `bytes` on the connection at `now` (a persistent connection, built with
    /// [`FlowEnv::connection_messages`]): its packets follow everything posted before, in order.
    /// Returns its PSN range `(first, end)`. The transport's state — windows, rates, path
    /// estimates, scheduler, PSN space — carries over from the messages before.
    pub fn post_message(&mut self, now: Time, bytes: u64) -> Result<(u32, u32), String> {
        let was_idle = self.core().msg.packets > 0 && self.core().is_complete();
        let range = self.core_mut().post(bytes)?;
        dispatch!(self, on_post(now, was_idle));
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
        dispatch!(self, core_mut())
    }

    /// The sender's message and loss recovery.
    #[inline]
    fn core(&self) -> &SenderCore {
        dispatch!(self, core())
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
    /// The configurable congestion control in use, if any.
    pub fn cc_kind(&self) -> Option<CcKind> {
        dispatch!(self, cc_kind())
    }
    /// Current sending rate limit in bits per second (for rate time series).
    pub fn rate_bps(&self) -> u64 {
        dispatch!(self, rate_bps())
    }
    /// Current window in bytes (`u64::MAX` when unlimited).
    pub fn window_bytes(&self) -> u64 {
        dispatch!(self, window_bytes())
    }
    /// Whether this sender is receiver-driven: its receiver paces pulls for it
    /// ([`crate::pull_pacer`]) and pulls reach it through [`Sender::on_ack`] (EQDS).
    #[inline]
    pub fn wants_pulls(&self) -> bool {
        dispatch!(self, wants_pulls())
    }
    /// Whether its receiver pulls up to the pull target its data packets carry (EQDS with
    /// `pull_targets`; [`crate::pull_pacer`]) rather than once per arriving packet.
    pub fn pulls_to_target(&self) -> bool {
        dispatch!(self, pulls_to_target())
    }
    /// Whether this transport reacts to trimmed packets (NDP-style switch trimming): its
    /// receiver NAKs a trimmed header at once and its sender resends the packet (UET, EQDS).
    /// For the others the receiving NIC discards a trimmed packet as if it had been dropped,
    /// and their own loss recovery repairs it.
    #[inline]
    pub fn handles_trims(&self) -> bool {
        dispatch!(self, handles_trims())
    }
    /// Per-logical-path control state for time series (Rondo); empty for other senders.
    pub fn path_samples(&self) -> &[PathSample] {
        dispatch!(self, path_samples())
    }
    /// Whether the driver reads [`Sender::path_samples`] (default: it may); told `false`, a
    /// sender may stop keeping them.
    pub fn set_path_samples(&mut self, read: bool) {
        dispatch!(self, set_path_samples(read))
    }
}
