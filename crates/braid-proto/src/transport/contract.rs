//! The contract every transport's sender keeps with its driver, as a trait: [`Transport`].
//!
//! A transport is one type implementing [`Transport`]: its configuration type and how it is read
//! from the scenario's `[transport]` knobs ([`Transport::read_config`]), its defaults (name, congestion
//! control, loss recovery, knob names), one constructor shape ([`Transport::new`]) and the sans-IO
//! calling protocol of the module docs of [`crate::transport`] — `poll_transmit`,
//! `next_send_time`, `on_ack`, `poll_timeout`, `on_timeout` — plus capability queries with
//! defaults (`wants_pulls`, `handles_trims`, `path_samples`, …) that only the transports that
//! differ override.
//!
//! Braid's own transports are listed once in `transport/mod.rs` (`transports!`), which builds the
//! [`TransportKind`](super::TransportKind), [`TransportSpec`](super::TransportSpec) and
//! [`Sender`](super::Sender) enums from the list: enum dispatch, one `match` per call, no trait
//! object on the hot path. A transport written outside this crate implements the same trait and
//! is added at run time with [`register_transport`]: its flows then run behind one boxed
//! [`PluginSender`] (`docs/architecture.md`, "Add a transport").

use std::any::Any;
use std::fmt::Debug;
use std::sync::{Arc, OnceLock, RwLock};

use braid_core::Time;

use super::events::{AckIn, FlowEnv, TxPacket};
use super::sender_core::SenderCore;
use super::{PathSample, TransportConfig};
use crate::cc::CcKind;
use crate::recovery::RecoveryKind;

/// A transport: its configuration, its defaults and its sender's side of the sans-IO protocol.
///
/// Required: the kind-level items (`NAME`, `KNOBS`, `Config`, [`Transport::read_config`],
/// [`Transport::new`]), the sender's [`SenderCore`] (message and loss recovery), and the five
/// protocol methods. Everything else has a default that fits a window- or rate-limited sender
/// driven by its own ACKs.
pub trait Transport: Sized + Clone + Debug + Send + 'static {
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
    /// Its receivers put the bitmap of the 64 PSNs below the acknowledged one in every ACK.
    fn sack_below(_cfg: &Self::Config) -> bool {
        false
    }

    /// The sender of the flow (or connection) `env`.
    fn new(cfg: &Self::Config, env: &FlowEnv) -> Result<Self, String>;
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
}

/// The sender side of a [`Transport`] as an object: what a transport registered with
/// [`register_transport`] runs behind. Implemented for every `Transport`.
pub trait PluginSender: Debug + Send {
    /// A boxed copy.
    fn clone_box(&self) -> Box<dyn PluginSender>;
    /// See [`Transport::core`].
    fn core(&self) -> &SenderCore;
    /// See [`Transport::core_mut`].
    fn core_mut(&mut self) -> &mut SenderCore;
    /// See [`Transport::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket>;
    /// See [`Transport::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time;
    /// See [`Transport::on_ack`].
    fn on_ack(&mut self, now: Time, ack: &AckIn);
    /// See [`Transport::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time>;
    /// See [`Transport::on_timeout`].
    fn on_timeout(&mut self, now: Time);
    /// See [`Transport::begin`].
    fn begin(&mut self, now: Time);
    /// See [`Transport::on_post`].
    fn on_post(&mut self, now: Time, was_idle: bool);
    /// See [`Transport::rate_bps`].
    fn rate_bps(&self) -> u64;
    /// See [`Transport::window_bytes`].
    fn window_bytes(&self) -> u64;
    /// See [`Transport::cc_kind`].
    fn cc_kind(&self) -> Option<CcKind>;
    /// See [`Transport::wants_pulls`].
    fn wants_pulls(&self) -> bool;
    /// See [`Transport::pulls_to_target`].
    fn pulls_to_target(&self) -> bool;
    /// See [`Transport::handles_trims`].
    fn handles_trims(&self) -> bool;
    /// See [`Transport::path_samples`].
    fn path_samples(&self) -> &[PathSample];
}

impl<T: Transport> PluginSender for T {
    fn clone_box(&self) -> Box<dyn PluginSender> {
        Box::new(self.clone())
    }
    fn core(&self) -> &SenderCore {
        Transport::core(self)
    }
    fn core_mut(&mut self) -> &mut SenderCore {
        Transport::core_mut(self)
    }
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        Transport::poll_transmit(self, now)
    }
    fn next_send_time(&self, now: Time) -> Time {
        Transport::next_send_time(self, now)
    }
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        Transport::on_ack(self, now, ack)
    }
    fn poll_timeout(&self) -> Option<Time> {
        Transport::poll_timeout(self)
    }
    fn on_timeout(&mut self, now: Time) {
        Transport::on_timeout(self, now)
    }
    fn begin(&mut self, now: Time) {
        Transport::begin(self, now)
    }
    fn on_post(&mut self, now: Time, was_idle: bool) {
        Transport::on_post(self, now, was_idle)
    }
    fn rate_bps(&self) -> u64 {
        Transport::rate_bps(self)
    }
    fn window_bytes(&self) -> u64 {
        Transport::window_bytes(self)
    }
    fn cc_kind(&self) -> Option<CcKind> {
        Transport::cc_kind(self)
    }
    fn wants_pulls(&self) -> bool {
        Transport::wants_pulls(self)
    }
    fn pulls_to_target(&self) -> bool {
        Transport::pulls_to_target(self)
    }
    fn handles_trims(&self) -> bool {
        Transport::handles_trims(self)
    }
    fn path_samples(&self) -> &[PathSample] {
        Transport::path_samples(self)
    }
}

impl Clone for Box<dyn PluginSender> {
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
    pub config: fn(&TransportConfig) -> Result<PluginConfig, String>,
    /// [`Transport::new`] on a configuration `config` returned.
    pub build: PluginBuild,
}

/// [`Transport::new`] of a registered transport, on its type-erased configuration.
pub type PluginBuild = fn(&PluginConfig, &FlowEnv) -> Result<Box<dyn PluginSender>, String>;

/// A registered transport's configuration, type-erased.
#[derive(Clone)]
pub struct PluginConfig {
    /// The configuration ([`Transport::Config`]).
    pub value: Arc<dyn Any + Send + Sync>,
    /// Its `Debug` rendering (for `TransportSpec`'s `Debug`).
    pub debug: Arc<str>,
    /// [`Transport::ack_every_bytes`] of it.
    pub ack_every_bytes: Option<u64>,
    /// [`Transport::sack_below`] of it.
    pub sack_below: bool,
}

impl Debug for PluginConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.debug)
    }
}

fn plugin_config<T: Transport>(tc: &TransportConfig) -> Result<PluginConfig, String> {
    let c = T::read_config(tc)?;
    Ok(PluginConfig { debug: format!("{c:?}").into(), ack_every_bytes: T::ack_every_bytes(&c), sack_below: T::sack_below(&c), value: Arc::new(c) })
}

fn plugin_build<T: Transport>(cfg: &PluginConfig, env: &FlowEnv) -> Result<Box<dyn PluginSender>, String> {
    let c = cfg.value.downcast_ref::<T::Config>().ok_or_else(|| format!("transport `{}`: configuration of another transport", T::NAME))?;
    Ok(Box::new(T::new(c, env)?))
}

fn plugins() -> &'static RwLock<Vec<&'static PluginEntry>> {
    static PLUGINS: OnceLock<RwLock<Vec<&'static PluginEntry>>> = OnceLock::new();
    PLUGINS.get_or_init(|| RwLock::new(Vec::new()))
}

/// Add transport `T`, written outside this crate, to the kinds scenarios may name
/// (`transport.kind = T::NAME`) for the rest of the process. Registering the same name again
/// is a no-op; a name of Braid's own transports is an error.
pub fn register_transport<T: Transport>() -> Result<(), String> {
    if super::TransportKind::BUILTIN_NAMES.contains(&T::NAME) {
        return Err(format!("transport `{}` is one of Braid's own transports", T::NAME));
    }
    let mut list = plugins().write().unwrap_or_else(|e| e.into_inner());
    if list.iter().any(|p| p.name == T::NAME) {
        return Ok(());
    }
    if list.len() >= u16::MAX as usize {
        return Err("too many registered transports".into());
    }
    list.push(Box::leak(Box::new(PluginEntry {
        name: T::NAME,
        knobs: T::KNOBS,
        multipath: T::MULTIPATH,
        default_cc: T::default_cc,
        default_recovery: T::default_recovery,
        cc_name: T::cc_name,
        config: plugin_config::<T>,
        build: plugin_build::<T>,
    })));
    Ok(())
}

/// The registered transport number `id`.
pub(crate) fn plugin(id: u16) -> &'static PluginEntry {
    plugins().read().unwrap_or_else(|e| e.into_inner())[id as usize]
}

/// The number of the registered transport called `name`.
pub(crate) fn plugin_id(name: &str) -> Option<u16> {
    plugins().read().unwrap_or_else(|e| e.into_inner()).iter().position(|p| p.name == name).map(|i| i as u16)
}

/// The names of the registered transports, in registration order.
pub(crate) fn plugin_names() -> Vec<&'static str> {
    plugins().read().unwrap_or_else(|e| e.into_inner()).iter().map(|p| p.name).collect()
}
