//! The contract every transport keeps with its driver, as two traits. A transport is one type
//! implementing [`Transport`] — its configuration type and how it is read from the scenario's
//! `[transport]` knobs ([`Transport::read_config`]), its defaults (name, congestion control,
//! loss recovery, knob names), one constructor shape ([`Transport::new`]) — and [`SenderOps`],
//! the sans-IO calling protocol of the module docs of [`crate::transport`] — `poll_transmit`,
//! `next_send_time`, `on_ack`, `poll_timeout`, `on_timeout` — plus capability queries with
//! defaults (`wants_pulls`, `handles_trims`, `path_samples`, …) that only the transports that
//! differ override.
//!
//! Braid's own transports are listed once in `transport/mod.rs` (`transports!`), which builds the
//! [`TransportKind`](super::TransportKind), [`SenderFactory`](super::SenderFactory) and
//! [`Sender`](super::Sender) enums from the list: enum dispatch, one `match` per call, no trait
//! object on the hot path. A transport written outside this crate implements the same trait and
//! is added at run time with [`register_transport`]: its flows then run behind one boxed
//! [`SenderOps`] (`docs/architecture.md`, "Add a transport").

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use braid_core::Time;

use super::events::{AckIn, FlowEnv, TxPacket};
use super::sender_core::SenderCore;
use super::{PathSample, TransportConfig};
use crate::cc::CcKind;
use crate::recovery::RecoveryKind;
use crate::registry::{Named, Registry};

/// A transport: its configuration, its defaults and how a sender is built. The sender's side of
/// the sans-IO protocol is the supertrait [`SenderOps`].
///
/// Required: `NAME`, `KNOBS`, `Config`, [`Transport::read_config`] and [`Transport::new`]; the
/// rest has defaults.
pub trait Transport: SenderOps + Sized + Clone + 'static {
    /// The kebab-case name scenarios use (`transport.kind`).
    const NAME: &'static str;
    /// The transport-specific knobs of `[transport]` it accepts (besides `kind`, `cc`,
    /// `cc_params`, `recovery`, `recovery_params`).
    const KNOBS: &'static [&'static str];
    /// Whether it sends one flow's packets over several paths.
    const MULTIPATH: bool = true;
    /// Its typed configuration, read once per scenario.
    type Config: Clone + Debug + Send + Sync + 'static;

    /// The congestion control a scenario gets when `transport.cc` is not given.
    fn default_cc() -> CcKind {
        CcKind::Dcqcn
    }
    /// The loss recovery a scenario gets when `transport.recovery` is not given.
    fn default_recovery() -> RecoveryKind {
        RecoveryKind::SelectiveRepeat
    }
    /// The name of the congestion control a flow actually runs, given the configured one (a
    /// transport with a built-in controller names its own).
    fn cc_name(configured: CcKind) -> &'static str {
        configured.name()
    }
    /// Read the transport-specific knobs of `tc` into the typed configuration. Errors name the
    /// scenario field (`transport.paths`); see [`super::knobs::Knobs`].
    fn read_config(tc: &TransportConfig) -> Result<Self::Config, String>;
    /// Its receivers coalesce ACKs, one per this many accepted wire bytes; `None`: an ACK per packet.
    fn ack_every_bytes(_cfg: &Self::Config) -> Option<u64> {
        None
    }
    /// Its senders read [`crate::events::FlowEnv::longest_path_rtt`] (the driver works it out
    /// only for transports that do; Rondo's `rtt_bound`).
    fn uses_longest_path_rtt(_cfg: &Self::Config) -> bool {
        false
    }
    /// Its receivers put the bitmap of the 64 PSNs below the acknowledged one in every ACK.
    fn sack_below(_cfg: &Self::Config) -> bool {
        false
    }
    /// Its receivers echo the packets they hold above the cumulative ACK instead of the OOD
    /// (`Receiver::with_held_echo`; UET's SLEEK as htsim reads it).
    fn held_echo(_cfg: &Self::Config) -> bool {
        false
    }
    /// The sender of the flow (or connection) `env`.
    fn new(cfg: &Self::Config, env: &FlowEnv) -> Result<Self, String>;
}

/// A sender's side of the sans-IO protocol (the module docs of [`crate::transport`] give the
/// calling protocol). Object-safe: Braid's own senders are dispatched by `enum`, a transport
/// registered with [`register_transport`] runs as a `Box<dyn SenderOps>`.
///
/// Required: the sender's [`SenderCore`] (message and loss recovery), the five protocol methods
/// and `rate_bps`. Everything else has a default that fits a window- or rate-limited sender
/// driven by its own ACKs.
pub trait SenderOps: Debug + Send + SenderClone {
    /// The sender's message and loss recovery.
    fn core(&self) -> &SenderCore;
    /// The sender's message and loss recovery, mutably.
    fn core_mut(&mut self) -> &mut SenderCore;

    /// The packet to send now, if the NIC could send one of this flow's packets: `None` when
    /// paced, window-limited or done.
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket>;
    /// The earliest time `poll_transmit` may succeed without new input (pacing), or [`Time::MAX`]
    /// when only an ACK or a timeout can unblock it.
    fn next_send_time(&self, now: Time) -> Time;
    /// Whether an answer of [`SenderOps::next_send_time`] later than `now` stays the answer until
    /// the sender's next input (`begin`, `post_message`, `poll_transmit`, `on_ack`,
    /// `on_timeout`), whatever the time: then the driver may keep it instead of asking again
    /// (a host with many paced or window-limited flows asks each of them on every send). True
    /// only if the answer depends on the sender's state alone, not on `now` (beyond
    /// `max(now, …)`). Default: false (asked every time).
    fn send_time_is_stable(&self) -> bool {
        false
    }
    /// An ACK or NAK reached the sender.
    fn on_ack(&mut self, now: Time, ack: &AckIn);
    /// The next timer deadline.
    fn poll_timeout(&self) -> Option<Time>;
    /// A timer deadline passed (spurious calls are no-ops).
    fn on_timeout(&mut self, now: Time);

    /// The flow really starts at `now` (it was built with its workload start; a flow waiting for
    /// dependencies starts later): start-relative state runs from `now`.
    fn begin(&mut self, _now: Time) {}
    /// A message was posted on the connection at `now`; `was_idle`: everything posted before had
    /// been acknowledged.
    fn on_post(&mut self, _now: Time, _was_idle: bool) {}
    /// Current sending-rate limit in bits per second (for rate time series).
    fn rate_bps(&self) -> u64;
    /// Current window in bytes (`u64::MAX` when unlimited).
    fn window_bytes(&self) -> u64 {
        u64::MAX
    }
    /// The configurable congestion control it runs, if it takes one.
    fn cc_kind(&self) -> Option<CcKind> {
        None
    }
    /// Receiver-driven: its receiver paces pulls for it ([`crate::pull_pacer`]), which reach it
    /// through `on_ack`.
    fn wants_pulls(&self) -> bool {
        false
    }
    /// Its receiver pulls up to the pull target its data packets carry rather than once per
    /// arriving packet.
    fn pulls_to_target(&self) -> bool {
        false
    }
    /// It reacts to trimmed packets (its receiver NAKs a trimmed header at once); for the others
    /// the receiving NIC discards a trimmed packet as if it had been dropped.
    fn handles_trims(&self) -> bool {
        false
    }
    /// Per-logical-path control state for time series.
    fn path_samples(&self) -> &[PathSample] {
        &[]
    }
    /// Whether the driver reads [`SenderOps::path_samples`] (it may, until told otherwise): a
    /// sender told `false` need not keep them.
    fn set_path_samples(&mut self, _read: bool) {}
}

/// Copying a boxed sender (implemented for every `Clone` sender).
pub trait SenderClone {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn SenderOps>;
}

impl<T: SenderOps + Clone + 'static> SenderClone for T {
    fn clone_box(&self) -> Box<dyn SenderOps> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn SenderOps> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// A transport registered at run time: its kind-level items as function pointers
/// (monomorphised from its [`Transport`] impl).
#[derive(Debug)]
pub struct PluginEntry {
    /// [`Transport::NAME`].
    pub name: &'static str,
    /// [`Transport::KNOBS`].
    pub knobs: &'static [&'static str],
    /// [`Transport::MULTIPATH`].
    pub multipath: bool,
    /// [`Transport::default_cc`].
    pub default_cc: fn() -> CcKind,
    /// [`Transport::default_recovery`].
    pub default_recovery: fn() -> RecoveryKind,
    /// [`Transport::cc_name`].
    pub cc_name: fn(CcKind) -> &'static str,
    /// [`Transport::read_config`], type-erased.
    pub config: fn(&TransportConfig) -> Result<ErasedConfig, String>,
    /// [`Transport::new`] on a configuration `config` returned.
    pub build: PluginBuild,
}

/// [`Transport::new`] of a registered transport, on its type-erased configuration.
pub type PluginBuild = fn(&ErasedConfig, &FlowEnv) -> Result<Box<dyn SenderOps>, String>;

/// A registered transport's [`Transport::Config`], type-erased (held by
/// [`SenderFactory::Plugin`](super::SenderFactory::Plugin)).
#[derive(Clone)]
pub struct ErasedConfig {
    /// The configuration ([`Transport::Config`]).
    pub value: Arc<dyn Any + Send + Sync>,
    /// Its `Debug` rendering (for `SenderFactory`'s `Debug`).
    pub debug: Arc<str>,
    /// [`Transport::ack_every_bytes`] of it.
    pub ack_every_bytes: Option<u64>,
    /// [`Transport::sack_below`] of it.
    pub sack_below: bool,
    /// [`Transport::uses_longest_path_rtt`] of it.
    pub uses_longest_path_rtt: bool,
    /// [`Transport::held_echo`] of it.
    pub held_echo: bool,
}

impl Debug for ErasedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.debug)
    }
}

fn plugin_config<T: Transport>(tc: &TransportConfig) -> Result<ErasedConfig, String> {
    let c = T::read_config(tc)?;
    Ok(ErasedConfig {
        debug: format!("{c:?}").into(),
        ack_every_bytes: T::ack_every_bytes(&c),
        sack_below: T::sack_below(&c),
        uses_longest_path_rtt: T::uses_longest_path_rtt(&c),
        held_echo: T::held_echo(&c),
        value: Arc::new(c),
    })
}

fn plugin_build<T: Transport>(
    cfg: &ErasedConfig,
    env: &FlowEnv,
) -> Result<Box<dyn SenderOps>, String> {
    let c = cfg
        .value
        .downcast_ref::<T::Config>()
        .ok_or_else(|| format!("transport `{}`: configuration of another transport", T::NAME))?;
    Ok(Box::new(T::new(c, env)?))
}

/// The registered transports.
pub(crate) static PLUGINS: Registry<PluginEntry> = Registry::new("transport");

impl Named for PluginEntry {
    fn name(&self) -> &'static str {
        self.name
    }
}

/// Add transport `T`, written outside this crate, to the kinds scenarios may name
/// (`transport.kind = T::NAME`) for the rest of the process. Registering the same name again
/// is a no-op; a name of Braid's own transports is an error.
pub fn register_transport<T: Transport>() -> Result<(), String> {
    PLUGINS.add(T::NAME, super::TransportKind::BUILTIN_NAMES, || PluginEntry {
        name: T::NAME,
        knobs: T::KNOBS,
        multipath: T::MULTIPATH,
        default_cc: T::default_cc,
        default_recovery: T::default_recovery,
        cc_name: T::cc_name,
        config: plugin_config::<T>,
        build: plugin_build::<T>,
    })
}
