//! What a congestion control is to the rest of Braid, as two traits: [`CcParams`], its
//! configuration (defaults for an environment, knobs by name, cross-field checks), and
//! [`CcAlgorithm`], the controller type built from it, which keeps the sans-IO calling protocol
//! of [`CongestionControl`].
//!
//! Braid's own controllers are listed once in `cc/mod.rs` (`ccs!`), which builds [`CcKind`] and
//! [`Cc`](super::Cc) from the list: enum dispatch, one `match` per call. A controller written
//! outside this crate implements the same two traits and is added at run time with
//! [`register_cc`]: scenarios then name it in `transport.cc`, its `cc_params` are checked like a
//! built-in's, and it drives any sender built on [`Cc`](super::Cc) (RoCE, RRPS, or a
//! [`CcSender`](crate::transport::CcSender) of a transport written outside) behind one boxed
//! [`CcObject`] (`docs/architecture.md`, "Add a congestion control").

use std::fmt::Debug;

use braid_core::Knob;

use super::{CcEnv, CcKind, CongestionControl};
use crate::registry::{Named, Registry};

/// A congestion control's configuration: its defaults for a flow's environment, its knobs by
/// name and the checks across them.
pub trait CcParams: Clone + Debug + Sized + Send + Sync + 'static {
    /// The knob names `transport.cc_params` may set.
    const KNOBS: &'static [&'static str];
    /// The defaults for a flow in `env` (rates and windows scale with the line rate and RTT).
    fn defaults_for(env: &CcEnv) -> Self;
    /// Sets knob `key` to `v`. Errors name the knob, the algorithm and, for an unknown knob,
    /// list the known ones.
    fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String>;
    /// Checks across fields, after every knob was applied. Default: none.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// A congestion control scenarios can name (`transport.cc = NAME`).
///
/// Required: `NAME`, `Config` and [`CcAlgorithm::build`]; the sans-IO protocol is the supertrait
/// [`CongestionControl`] (`on_ack` and `rate` required, the rest defaulted).
pub trait CcAlgorithm: CongestionControl + Clone + Debug + Send + 'static {
    /// The kebab-case name (`transport.cc`).
    const NAME: &'static str;
    /// It reads the switches' INT records from ACKs ([`super::AckEvent::int`]): a scenario that
    /// runs it turns INT on in every switch (HPCC).
    const READS_INT: bool = false;
    /// Its configuration.
    type Config: CcParams;
    /// The controller of one flow (or path) in `env`, from a configuration whose knobs were
    /// applied and checked.
    fn build(cfg: Self::Config, env: &CcEnv) -> Result<Self, String>;
}

/// A controller behind a box: a registered [`CcAlgorithm`] as [`Cc::Plugin`](super::Cc) holds it.
pub trait CcObject: CongestionControl + Debug + Send {
    /// A boxed copy (a sender keeps its controller's state from before an RTO, restored if the
    /// RTO proves spurious).
    fn clone_box(&self) -> Box<dyn CcObject>;
}

impl<T: CongestionControl + Clone + Debug + Send + 'static> CcObject for T {
    fn clone_box(&self) -> Box<dyn CcObject> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn CcObject> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}

/// The defaults for `env`, then `overrides` in order, then the checks across fields.
pub(crate) fn configured<P: CcParams>(env: &CcEnv, overrides: &KnobOverrides) -> Result<P, String> {
    let mut p = P::defaults_for(env);
    for (k, v) in overrides {
        p.apply_knob(k, v)?;
    }
    p.check()?;
    Ok(p)
}

/// `C` built for `env` with `overrides` applied to its defaults.
pub(crate) fn build<C: CcAlgorithm>(env: &CcEnv, overrides: &KnobOverrides) -> Result<C, String> {
    C::build(configured(env, overrides)?, env)
}

/// Knob overrides in the order a scenario gives them: `(knob name, value)`.
pub type KnobOverrides = [(String, Knob)];

/// [`CcAlgorithm::build`] of a registered congestion control, on its defaults for the
/// environment with the overrides applied.
pub type CcPluginBuild = fn(&CcEnv, &KnobOverrides) -> Result<Box<dyn CcObject>, String>;

/// A congestion control registered at run time: its kind-level items, monomorphised from its
/// [`CcAlgorithm`] impl.
#[derive(Debug)]
pub struct CcPluginEntry {
    /// [`CcAlgorithm::NAME`].
    pub name: &'static str,
    /// [`CcParams::KNOBS`] of its configuration.
    pub knobs: &'static [&'static str],
    /// [`CcAlgorithm::READS_INT`].
    pub reads_int: bool,
    /// Builds one controller from knob overrides ([`CcAlgorithm::build`] on its defaults).
    pub build: CcPluginBuild,
    /// Checks knob overrides without building ([`CcParams::apply_knob`] and
    /// [`CcParams::check`]).
    pub check: fn(&CcEnv, &KnobOverrides) -> Result<(), String>,
}

impl Named for CcPluginEntry {
    fn name(&self) -> &'static str {
        self.name
    }
}

/// The registered congestion controls.
pub(crate) static PLUGINS: Registry<CcPluginEntry> = Registry::new("congestion control");

fn boxed<C: CcAlgorithm>(
    env: &CcEnv,
    overrides: &KnobOverrides,
) -> Result<Box<dyn CcObject>, String> {
    Ok(Box::new(build::<C>(env, overrides)?))
}

fn checked<C: CcAlgorithm>(env: &CcEnv, overrides: &KnobOverrides) -> Result<(), String> {
    configured::<C::Config>(env, overrides).map(drop)
}

/// Add congestion control `C`, written outside this crate, to those scenarios may name
/// (`transport.cc = C::NAME`, its knobs in `transport.cc_params`) for the rest of the process.
/// Registering the same name again is a no-op; a name of Braid's own (`arcc` included) is an
/// error.
pub fn register_cc<C: CcAlgorithm>() -> Result<(), String> {
    let mut own = CcKind::BUILTIN_NAMES.to_vec();
    own.push(CcKind::Arcc.name());
    PLUGINS.add(C::NAME, &own, || CcPluginEntry {
        name: C::NAME,
        knobs: <C::Config as CcParams>::KNOBS,
        reads_int: C::READS_INT,
        build: boxed::<C>,
        check: checked::<C>,
    })
}
