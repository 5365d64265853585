//! Congestion control behind one interface that a transport drives per flow or per path.
//!
//! Every algorithm here is sans-IO: it owns its state, is told about ACKs, losses and timer
//! expiries with the current time, and answers with a pacing rate and a window. It never reads a
//! clock. Algorithms with timers (DCQCN) report their next deadline through [`CongestionControl::poll_timeout`];
//! the driver calls [`CongestionControl::on_timeout`] at (or after) that time. Spurious timeouts are no-ops.
//!
//! Parameters follow the HPCC ns-3 code and htsim defaults (`docs/baselines.md`, congestion
//! control); each is a knob settable by name with [`CcConfig::apply_knob`] (or the per-algorithm
//! `apply_knob` of [`DcqcnConfig`], [`HpccConfig`], …).
//!
//! | kind | module | form | reference |
//! |---|---|---|---|
//! | `fixed` | [`fixed`] | line rate, fixed window | reference transport |
//! | `dcqcn` | [`dcqcn`] | rate, three timers | DCQCN (SIGCOMM '15), Mellanox variant |
//! | `hpcc` | [`hpcc`] | rate + variable window, INT | HPCC (SIGCOMM '19) |
//! | `timely` | [`timely`] | rate, RTT gradient | TIMELY (SIGCOMM '15) |
//! | `dctcp` | [`dctcp`] | rate + variable window | DCTCP as the HPCC ns-3 code runs it |
//! | `dctcp-window` | [`dctcp`] | window | DCTCP (SIGCOMM '10) |
//! | `swift` | [`swift`] | window, paced below one packet | Swift (SIGCOMM '20) |
//! | `arcc` | [`crate::transport::rondo::arcc`] | per-path windows, only inside transport `rondo` | Rondo §4.2.1 |
//!
//! `docs/baselines.md` ("Congestion control") gives each one's parameters and where they come from.
//! The contract is the trait [`CongestionControl`]: `on_ack` and `rate` are required, the rest
//! default to "ignored"; an algorithm scenarios can name also implements [`CcAlgorithm`] (its
//! name, its [`CcParams`] configuration, its constructor). The algorithms above are listed once,
//! in `ccs!` below, which builds [`CcKind`] and [`Cc`] from the list: [`Cc`] dispatches by
//! `match`. One written outside this crate is added with [`register_cc`] and runs behind
//! `Cc::Plugin` (`docs/architecture.md`, "Add a congestion control").
//!
//! Calling protocol for a driver (a transport):
//! 1. build once per flow/path with [`Cc::new`] from a [`CcConfig`] and the flow's [`CcEnv`];
//! 2. call [`CongestionControl::on_ack`] for every ACK (duplicates included), [`CongestionControl::on_nak`] when loss recovery
//!    declares a loss (NAK or fast retransmit), [`CongestionControl::on_rto`] on a retransmission timeout;
//! 3. after each call, re-read [`CongestionControl::rate`] (pacing: after a packet of `s` bytes wait `s/rate`) and
//!    [`CongestionControl::window_bytes`] (send only while `snd_nxt − snd_una < window`), and re-arm the timer from
//!    [`CongestionControl::poll_timeout`]; call [`CongestionControl::on_timeout`] when it expires.
//!
//! No call allocates; the enum dispatches statically (a registered controller through one box).

use braid_core::{IntStack, Knob, Rate, Time};
use std::fmt;

/// A built-in controller's [`CcAlgorithm`] (name, configuration, whether it reads INT, its
/// constructor on a configured `c` in environment `e`) and its configuration's [`CcParams`] (the
/// configuration's inherent `KNOBS`, `defaults_for`, `apply_knob` and `check`): one line in the
/// controller's own file, e.g. `cc_algorithm!(Hpcc: "hpcc", HpccConfig, true, |c, e| Hpcc::new(c, e));`.
macro_rules! cc_algorithm {
    ($t:ty: $name:expr, $cfg:ty, $int:literal, |$c:ident, $e:ident| $build:expr) => {
        impl $crate::cc::CcParams for $cfg {
            const KNOBS: &'static [&'static str] = <$cfg>::KNOBS;
            fn defaults_for(env: &CcEnv) -> Self {
                <$cfg>::defaults_for(env)
            }
            fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
                <$cfg>::apply_knob(self, key, v)
            }
            fn check(&self) -> Result<(), String> {
                <$cfg>::check(self)
            }
        }
        impl $crate::cc::CcAlgorithm for $t {
            const NAME: &'static str = $name;
            const READS_INT: bool = $int;
            type Config = $cfg;
            fn build($c: $cfg, $e: &CcEnv) -> Result<$t, String> {
                $build
            }
        }
    };
}

pub mod contract;
pub mod dcqcn;
pub mod dctcp;
pub mod fixed;
pub mod hpcc;
pub mod swift;
pub mod timely;

mod knob;

#[cfg(test)]
mod fluid;

use contract::configured;
pub use contract::{register_cc, CcAlgorithm, CcObject, CcParams, CcPluginEntry};
pub use dcqcn::{Dcqcn, DcqcnConfig};
pub use dctcp::{Dctcp, DctcpConfig, DctcpWindow, DctcpWindowConfig};
pub use fixed::{FixedCc, FixedConfig};
pub use hpcc::{Hpcc, HpccConfig};
pub use swift::{Swift, SwiftConfig};
pub use timely::{Timely, TimelyConfig};

/// What an acknowledgement tells the congestion controller.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent<'a> {
    /// Time the ACK is processed.
    pub now: Time,
    /// Bytes newly acknowledged by this ACK (0 for a duplicate).
    pub newly_acked_bytes: u64,
    /// Cumulative bytes acknowledged after this ACK (the sender's `snd_una` in bytes).
    pub ack_seq_bytes: u64,
    /// Bytes sent so far (the sender's `snd_nxt` in bytes).
    pub snd_nxt_bytes: u64,
    /// The data packet was CE-marked (ECN echo / CNP).
    pub ecn: bool,
    /// Round-trip sample: now minus the echoed send time of the acknowledged packet
    /// (`None` when ambiguous, e.g. for a retransmitted packet).
    pub rtt: Option<Time>,
    /// The INT stack copied from the data packet into the ACK (HPCC).
    pub int: Option<&'a IntStack>,
    /// Number of switch hops on the data path (Swift's topology scaling).
    pub hops: u8,
}

/// Environment a controller is created for.
#[derive(Clone, Copy, Debug)]
pub struct CcEnv {
    /// The sender NIC's line rate.
    pub line_rate: Rate,
    /// Base RTT of this flow's path (propagation + one packet's serialisation per hop, both ways).
    pub base_rtt: Time,
    /// The largest base RTT among host pairs of the network (HPCC's `T`, the window's reference).
    pub max_rtt: Time,
    /// The largest bandwidth-delay product among host pairs, in bytes (HPCC's `W`).
    pub max_bdp_bytes: u64,
    /// Maximum payload per packet, in bytes.
    pub mtu_bytes: u32,
    /// The NIC's serialisation clock ticks in whole nanoseconds, rounding every packet time down
    /// (the ns-3 HPCC fork's `Time` conversion; `network.tx_time = "floor-ns"`): pacers space
    /// packets by the floored time, as the NIC serialises them. False: exact (picoseconds, up).
    pub tx_time_floor_ns: bool,
}

impl CcEnv {
    /// The environment [`CcConfig::validate`] checks knobs against: a 100 Gb/s NIC, 8 µs base and
    /// maximum RTT, a 100 KB maximum BDP and a 1000-byte MTU (the HPCC ns-3 payload size).
    pub fn reference_100g() -> CcEnv {
        CcEnv {
            line_rate: Rate::from_gbps(100),
            base_rtt: Time::from_us(8),
            max_rtt: Time::from_us(8),
            max_bdp_bytes: 100_000,
            mtu_bytes: 1000,
            tx_time_floor_ns: false,
        }
    }

    /// The flow's own bandwidth-delay product (`base_rtt × line_rate`), in bytes.
    pub fn bdp_bytes(&self) -> u64 {
        self.line_rate.bdp_bytes(self.base_rtt)
    }

    /// Checks that every controller can work with this environment (positive line rate and MTU).
    pub fn check(&self) -> Result<(), String> {
        if self.line_rate.bps() == 0 {
            return Err("congestion control environment: line rate must be positive".into());
        }
        if self.mtu_bytes == 0 {
            return Err("congestion control environment: MTU must be positive".into());
        }
        Ok(())
    }
}

/// Builds, from the one list of Braid's congestion controls, the kind enum [`CcKind`] and the
/// controller enum [`Cc`], with every method dispatching in one `match` (a registered controller
/// through its box).
macro_rules! ccs {
    ($d:tt $( $(#[$doc:meta])* $variant:ident($cc:ty) ),* $(,)?) => {
        /// The congestion-control kinds, named in scenario files in kebab case: Braid's own, ARCC
        /// (Rondo's, built only inside transport `rondo`) and those registered with
        /// [`register_cc`] (`Plugin`, by registration number).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CcKind {
            $( $(#[$doc])* $variant, )*
            /// Rondo's ACK-rate-based congestion control (ARCC, Rondo §4.2.1). It is part of the
            /// `rondo` transport (per-path windows, probing, one flow pacer) and cannot be built
            /// as a stand-alone [`Cc`]: it is not in [`CcKind::ALL`], [`Cc::new`] rejects it, and
            /// its knobs are `[transport]` fields of `rondo` (`tu`, `q0`, `tau_q`, `alpha`,
            /// `gamma`, …).
            Arcc,
            /// A congestion control registered at run time.
            Plugin(u16),
        }

        impl CcKind {
            /// Braid's own stand-alone kinds, in the order of the list.
            pub const ALL: &'static [CcKind] = &[$(CcKind::$variant),*];
            /// Their names.
            pub const BUILTIN_NAMES: &'static [&'static str] = &[$(<$cc as CcAlgorithm>::NAME),*];

            /// The kebab-case name used in scenario files.
            pub fn name(self) -> &'static str {
                match self {
                    $( CcKind::$variant => <$cc as CcAlgorithm>::NAME, )*
                    CcKind::Arcc => "arcc",
                    CcKind::Plugin(i) => contract::PLUGINS.get(i).name,
                }
            }

            /// The knob names this kind accepts in `transport.cc_params`.
            pub fn knobs(self) -> &'static [&'static str] {
                match self {
                    $( CcKind::$variant => <<$cc as CcAlgorithm>::Config as CcParams>::KNOBS, )*
                    CcKind::Arcc => &[],
                    CcKind::Plugin(i) => contract::PLUGINS.get(i).knobs,
                }
            }

            /// It reads INT from ACKs: a scenario running it turns INT on in every switch.
            pub fn reads_int(self) -> bool {
                match self {
                    $( CcKind::$variant => <$cc as CcAlgorithm>::READS_INT, )*
                    CcKind::Arcc => false,
                    CcKind::Plugin(i) => contract::PLUGINS.get(i).reads_int,
                }
            }
        }

        /// Checks knob overrides for `kind` in `env` without building a controller.
        fn check_knobs(kind: CcKind, env: &CcEnv, o: &[(String, Knob)]) -> Result<(), String> {
            match kind {
                $( CcKind::$variant => configured::<<$cc as CcAlgorithm>::Config>(env, o).map(drop), )*
                CcKind::Arcc => Err(arcc_knob_error(o.first().map_or("", |(k, _)| k.as_str()))),
                CcKind::Plugin(i) => (contract::PLUGINS.get(i).check)(env, o),
            }
        }

        /// A congestion controller: one of the algorithms, dispatched by `match` (no boxing, no
        /// allocation per call), or a registered one behind its box.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $( $(#[$doc])* $variant($cc), )*
            /// A registered congestion control (its registration number and the controller).
            Plugin(u16, Box<dyn CcObject>),
        }

        /// Calls [`CongestionControl`] method `m` with arguments `a…` on the controller inside.
        macro_rules! dispatch {
            ($d self_:expr, $d m:ident($d($d a:expr),*)) => {
                match $d self_ {
                    $( Cc::$variant(c) => <$cc as CongestionControl>::$d m(c $d(, $d a)*), )*
                    Cc::Plugin(_, c) => (**c).$d m($d($d a),*),
                }
            };
        }

        impl Cc {
            /// Builds the controller `cfg` names for a flow in `env`: the kind's defaults for
            /// `env`, then the overrides in order, then the cross-field checks. Errors name the
            /// knob and algorithm.
            pub fn new(cfg: &CcConfig, env: &CcEnv) -> Result<Cc, String> {
                env.check()?;
                let o = &cfg.overrides;
                Ok(match cfg.kind {
                    $( CcKind::$variant => Cc::$variant(contract::build::<$cc>(env, o)?), )*
                    CcKind::Arcc => return Err(ARCC_ALONE.into()),
                    CcKind::Plugin(i) => Cc::Plugin(i, (contract::PLUGINS.get(i).build)(env, o)?),
                })
            }

            /// The kebab-case name of the algorithm.
            #[inline]
            pub fn name(&self) -> &'static str {
                self.kind().name()
            }

            /// The algorithm's kind.
            #[inline]
            pub fn kind(&self) -> CcKind {
                match self {
                    $( Cc::$variant(_) => CcKind::$variant, )*
                    Cc::Plugin(i, _) => CcKind::Plugin(*i),
                }
            }
        }
    };
}

ccs! {
    $
    /// Line rate with a fixed (default unlimited) window: the reference transport.
    Fixed(FixedCc),
    /// DCQCN, Mellanox variant (`docs/baselines.md`, DCQCN).
    Dcqcn(Dcqcn),
    /// HPCC (`docs/baselines.md`, HPCC).
    Hpcc(Hpcc),
    /// TIMELY (`docs/baselines.md`, TIMELY).
    Timely(Timely),
    /// DCTCP, rate-based as in HPCC-ns3 (`docs/baselines.md`, DCTCP, rate form).
    Dctcp(Dctcp),
    /// DCTCP, window-based as in the paper (`docs/baselines.md`, DCTCP, window form).
    DctcpWindow(DctcpWindow),
    /// Swift (`docs/baselines.md`, Swift).
    Swift(Swift),
}

const ARCC_ALONE: &str = "congestion control `arcc` is Rondo's ACK-rate-based controller and works only inside transport `rondo` (set `transport.kind = \"rondo\"`, or pick another `transport.cc`)";

impl CcKind {
    /// Every name `transport.cc` may take: Braid's own, `arcc`, then the registered ones.
    pub fn names() -> Vec<&'static str> {
        let mut v = CcKind::BUILTIN_NAMES.to_vec();
        v.push(CcKind::Arcc.name());
        v.extend(contract::PLUGINS.names());
        v
    }

    /// Parses a kebab-case name (Braid's own, `arcc` or a registered one); the error lists the
    /// valid names.
    pub fn parse(s: &str) -> Result<CcKind, String> {
        if let Some(&k) = CcKind::ALL.iter().find(|k| k.name() == s) {
            return Ok(k);
        }
        if s == CcKind::Arcc.name() {
            return Ok(CcKind::Arcc);
        }
        if let Some(i) = contract::PLUGINS.id(s) {
            return Ok(CcKind::Plugin(i));
        }
        Err(format!("unknown congestion control `{s}` (known: {})", CcKind::names().join(", ")))
    }
}

impl fmt::Display for CcKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for CcKind {
    type Err = String;
    fn from_str(s: &str) -> Result<CcKind, String> {
        CcKind::parse(s)
    }
}

/// A congestion-control choice from a scenario: the kind plus knob overrides, applied in order on
/// top of the kind's line-rate-scaled defaults when a controller is built for a flow.
#[derive(Clone, Debug, PartialEq)]
pub struct CcConfig {
    /// The algorithm.
    pub kind: CcKind,
    /// `(knob name, value)` pairs overriding the defaults, applied in order.
    pub overrides: Vec<(String, Knob)>,
}

impl CcConfig {
    /// The kind with its defaults (no overrides).
    pub fn new(kind: CcKind) -> CcConfig {
        CcConfig { kind, overrides: Vec::new() }
    }

    /// Builder form of [`CcConfig::apply_knob`] that does not check the knob (use
    /// [`CcConfig::validate`] afterwards).
    pub fn with(mut self, key: &str, v: Knob) -> CcConfig {
        self.overrides.push((key.to_string(), v));
        self
    }

    /// Records an override after checking that the kind knows the knob and that the value is
    /// acceptable on its own (on the 100 Gb/s reference environment).
    pub fn apply_knob(&mut self, key: &str, v: Knob) -> Result<(), String> {
        let env = CcEnv::reference_100g();
        let one = [(key.to_string(), v)];
        check_knobs(self.kind, &env, &one)?;
        let [kv] = one;
        self.overrides.push(kv);
        Ok(())
    }

    /// Applies the overrides to the defaults for the 100 Gb/s reference environment
    /// ([`CcEnv::reference_100g`]), so an unknown knob or a bad value is reported when the scenario
    /// is parsed. The error names the knob and the algorithm.
    pub fn validate(&self) -> Result<(), String> {
        if self.kind == CcKind::Arcc {
            // Built by the `rondo` transport, which checks its own knobs.
            return match self.overrides.first() {
                Some((k, _)) => Err(arcc_knob_error(k)),
                None => Ok(()),
            };
        }
        Cc::new(self, &CcEnv::reference_100g()).map(drop)
    }
}

fn arcc_knob_error(key: &str) -> String {
    format!("arcc: knob `{key}` cannot be set here: ARCC's parameters are fields of the `rondo` transport (`tu`, `q0`, `tau_q`, `alpha`, `gamma`, `w0`, …)")
}

/// The `rate` and `window_bytes` of the HPCC-ns3 rate schemes (DCQCN, HPCC, TIMELY, DCTCP's
/// rate form), inside their `impl CongestionControl`: the pacing rate is the field `$rate`
/// (bit/s), the window [`hpcc_style_window`] of it with the `window`, `var_win` and
/// `window_wrap` knobs of `self.cfg`.
macro_rules! rate_scheme_rate_and_window {
    ($rate:ident) => {
        /// The current pacing rate.
        #[inline]
        fn rate(&self) -> Rate {
            Rate::from_bps_f64(self.$rate)
        }
        /// `max_bdp × R / line` (at least 1 byte) with the `window` knob (HPCC's default), a
        /// fixed `max_bdp` without `var_win`, no window otherwise.
        #[inline]
        fn window_bytes(&self) -> u64 {
            super::hpcc_style_window(
                self.cfg.window,
                self.cfg.var_win,
                self.cfg.window_wrap,
                self.max_bdp_bytes,
                self.$rate,
                self.line_bps,
            )
        }
    };
}
pub(crate) use rate_scheme_rate_and_window;

/// HPCC-ns3's `HAS_WIN`/`VAR_WIN` window: `W_eff = W × R / line` (at least 1 byte) with
/// variable windows, `W` with a fixed one, no window (`u64::MAX`) without `HAS_WIN`. With
/// `wrap` (the `window_wrap` knob) the product `W × R` is taken as the ns-3 fork computes it,
/// in unsigned 64 bits (bit/s rates truncated to integers), so it wraps once `W × R ≥ 2^64`:
/// a 400 MB window at 100 Gb/s becomes 31.2 MB (`docs/ns3-equivalence.md`, window).
#[inline]
pub(crate) fn hpcc_style_window(
    has_win: bool,
    var_win: bool,
    wrap: bool,
    max_bdp: u64,
    rate_bps: f64,
    line_bps: f64,
) -> u64 {
    if !has_win {
        return u64::MAX;
    }
    if !var_win {
        return max_bdp.max(1);
    }
    if wrap {
        let prod = (max_bdp as u128 * rate_bps.max(0.0) as u128) % (1u128 << 64);
        return ((prod / (line_bps as u128).max(1)) as u64).max(1);
    }
    let w = (max_bdp as f64 * rate_bps / line_bps).floor();
    if w >= 1.0 {
        w as u64
    } else {
        1
    }
}

/// The contract of a congestion controller (see the module docs for the calling protocol).
/// Required: [`CongestionControl::on_ack`] and [`CongestionControl::rate`]; the rest default to
/// "ignored" / "no timer" / "no window", so an algorithm writes only what it reacts to.
pub trait CongestionControl {
    /// Processes an acknowledgement (every ACK, duplicates included).
    fn on_ack(&mut self, ev: &AckEvent);
    /// A loss signal: a NAK or a fast retransmit decided by loss recovery. Default: ignored
    /// (the HPCC-ns3 rate schemes only rewind `snd_nxt`).
    #[inline]
    fn on_nak(&mut self, _now: Time) {}
    /// A retransmission timeout. Default: ignored.
    #[inline]
    fn on_rto(&mut self, _now: Time) {}
    /// Earliest timer deadline, if any timer is armed. Default: no timers.
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    /// Processes every timer due at or before `now`; spurious calls are no-ops. Default: no timers.
    #[inline]
    fn on_timeout(&mut self, _now: Time) {}
    /// The pacing rate the sender must respect (after a packet of `s` bytes, wait `s / rate`).
    fn rate(&self) -> Rate;
    /// Bytes the sender may have in flight (`snd_nxt − snd_una < window`). Default: `u64::MAX`,
    /// no window.
    #[inline]
    fn window_bytes(&self) -> u64 {
        u64::MAX
    }
}

impl CongestionControl for Cc {
    /// Processes an acknowledgement (every ACK, duplicates included).
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        dispatch!(self, on_ack(ev))
    }

    /// A loss signal: a NAK or a fast retransmit decided by loss recovery. Swift applies its
    /// triple-dupack decrease, DCTCP-window a Reno halving; the HPCC-ns3 rate schemes ignore it
    /// (their reference code only rewinds `snd_nxt`).
    #[inline]
    fn on_nak(&mut self, now: Time) {
        dispatch!(self, on_nak(now))
    }

    /// A retransmission timeout. Swift counts it (and resets to `min_cwnd` after
    /// `rtx_reset_threshold` in a row), DCTCP-window restarts from one MSS with slow start to half
    /// the old window; the HPCC-ns3 rate schemes ignore it.
    #[inline]
    fn on_rto(&mut self, now: Time) {
        dispatch!(self, on_rto(now))
    }

    /// Earliest timer deadline, if any timer is armed (only DCQCN has timers).
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        dispatch!(self, poll_timeout())
    }

    /// Processes every timer due at or before `now`; spurious calls are no-ops.
    #[inline]
    fn on_timeout(&mut self, now: Time) {
        dispatch!(self, on_timeout(now))
    }

    /// The pacing rate the sender must respect (after a packet of `s` bytes, wait `s / rate`).
    #[inline]
    fn rate(&self) -> Rate {
        dispatch!(self, rate())
    }

    /// Bytes the sender may have in flight (`snd_nxt − snd_una < window`); `u64::MAX` = no window.
    #[inline]
    fn window_bytes(&self) -> u64 {
        dispatch!(self, window_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionControl;

    fn env() -> CcEnv {
        CcEnv::reference_100g()
    }

    #[test]
    fn kinds_parse_and_name_round_trip() {
        for &k in CcKind::ALL {
            assert_eq!(CcKind::parse(k.name()), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
        let e = CcKind::parse("cubic").unwrap_err();
        assert!(e.contains("cubic") && e.contains("dctcp-window") && e.contains("swift"), "{e}");
        assert!(CcKind::parse("DCQCN").is_err());
    }

    #[test]
    fn every_kind_builds_with_defaults_at_line_rate() {
        for &k in CcKind::ALL {
            let cc = Cc::new(&CcConfig::new(k), &env()).unwrap();
            assert_eq!(cc.kind(), k);
            assert_eq!(cc.name(), k.name());
            assert_eq!(cc.rate(), Rate::from_gbps(100), "{k} starts at line rate");
            assert!(cc.window_bytes() > 0);
            assert_eq!(cc.poll_timeout(), None, "{k} has no timer before feedback");
            CcConfig::new(k).validate().unwrap();
        }
    }

    #[test]
    fn unknown_knobs_and_bad_values_are_reported_with_names() {
        for &k in CcKind::ALL {
            let e = CcConfig::new(k).with("no_such_knob", Knob::Int(1)).validate().unwrap_err();
            assert!(
                e.contains("no_such_knob") && e.contains(k.name()) && e.contains("known:"),
                "{e}"
            );
        }
        let e = CcConfig::new(CcKind::Dcqcn)
            .with("t_dec", Knob::Str("0us".into()))
            .validate()
            .unwrap_err();
        assert!(e.contains("t_dec") && e.contains("dcqcn"), "{e}");
        let e = CcConfig::new(CcKind::Dcqcn).with("g", Knob::Float(-0.5)).validate().unwrap_err();
        assert!(e.contains("`g`"), "{e}");
        let e = CcConfig::new(CcKind::Timely)
            .with("t_low", Knob::Str("600us".into()))
            .validate()
            .unwrap_err();
        assert!(e.contains("t_low") && e.contains("timely"), "{e}");
        let mut c = CcConfig::new(CcKind::Hpcc);
        assert!(c.apply_knob("eta", Knob::Float(0.9)).is_ok());
        assert!(c.apply_knob("eta", Knob::Float(0.0)).is_err());
        assert!(c.apply_knob("bogus", Knob::Float(0.0)).is_err());
        assert_eq!(c.overrides.len(), 1);
        c.validate().unwrap();
    }

    #[test]
    fn every_knob_accepts_a_sensible_value_and_rejects_garbage() {
        // A sensible value per knob name pattern; the point is that every listed knob is wired.
        fn sample(key: &str) -> Knob {
            match key {
                k if k.starts_with("t_")
                    || k == "min_rtt"
                    || k == "base_delay"
                    || k == "h"
                    || k == "fs_range" =>
                {
                    Knob::Str(match k {
                        "t_high" => "600us".into(),
                        "t_low" => "40us".into(),
                        _ => "5us".into(),
                    })
                }
                k if (k.contains("rate") && k != "rate_on_first_cnp") || k == "w_ai" => {
                    Knob::Str("50Mbps".into())
                }
                "clamp_target" | "window" | "var_win" | "window_wrap" | "fast_react" => {
                    Knob::Bool(true)
                }
                k if k.contains("cwnd") => {
                    Knob::Str(if k == "max_cwnd" { "2MB" } else { "20KB" }.into())
                }
                "fast_recovery_times" | "max_stage" | "hai_thresh" | "rtx_reset_threshold" => {
                    Knob::Int(3)
                }
                "fs_max" => Knob::Float(200.0),
                _ => Knob::Float(0.5),
            }
        }
        for &k in CcKind::ALL {
            for key in k.knobs() {
                let knob = if k == CcKind::Fixed && *key == "window" {
                    Knob::Str("64KB".into())
                } else {
                    sample(key)
                };
                CcConfig::new(k)
                    .with(key, knob.clone())
                    .validate()
                    .unwrap_or_else(|e| panic!("{k}.{key} = {knob:?}: {e}"));
                let e = CcConfig::new(k)
                    .with(key, Knob::Str("garbage".into()))
                    .validate()
                    .expect_err(key);
                assert!(e.contains(key) && e.contains(k.name()), "{e}");
            }
        }
    }

    #[test]
    fn bad_env_is_an_error_not_a_panic() {
        let mut e = env();
        e.line_rate = Rate::from_bps(0);
        assert!(Cc::new(&CcConfig::new(CcKind::Dcqcn), &e).is_err());
        let mut e = env();
        e.mtu_bytes = 0;
        assert!(Cc::new(&CcConfig::new(CcKind::Swift), &e).is_err());
        let mut e = env();
        e.max_bdp_bytes = 0;
        assert!(Cc::new(&CcConfig::new(CcKind::Hpcc), &e).is_err());
        // Without a window, a zero max BDP is fine.
        assert!(Cc::new(&CcConfig::new(CcKind::Dcqcn), &e).is_ok());
    }

    #[test]
    fn hpcc_style_window_scales_with_rate() {
        assert_eq!(hpcc_style_window(false, true, false, 1000, 1.0, 2.0), u64::MAX);
        assert_eq!(hpcc_style_window(true, false, false, 1000, 1.0, 2.0), 1000);
        assert_eq!(hpcc_style_window(true, true, false, 1000, 1.0, 2.0), 500);
        assert_eq!(hpcc_style_window(true, true, false, 1000, 1.0, 1e9), 1);
        // The ns-3 fork's 64-bit product: the 13-DC window (400,157,000 B) at 100 Gb/s.
        assert_eq!(hpcc_style_window(true, true, true, 400_157_000, 100e9, 100e9), 31_222_118);
        assert_eq!(hpcc_style_window(true, true, true, 1000, 1.0, 2.0), 500);
    }
}
