//! A fixed controller: pace at a constant rate (the line rate by default) with a fixed window
//! (one bandwidth-delay product of the network by default). It is the reference transport's "no
//! congestion control" and a building block for tests; it ignores every signal.
//!
//! Knobs: `window` (bytes, plain integer or `"64KB"`, or `"unlimited"`; default the network's
//! largest host-pair BDP at the NIC line rate, HPCC's `W_init = B_NIC × T`) and `rate` (default
//! the env's line rate; values above the line rate are capped to it).
//!
//! Why a window by default: a sender that ignores every signal and has no window offers line rate
//! forever. Over paths slower than its NIC the queues grow without bound, reordering outgrows any
//! receiver's reorder buffer, the receiver discards what it cannot hold and the retransmissions
//! join the same queues: congestion collapse (RRPS over the Rondo testbed, §6.1, delivered 2.4 MB
//! of 20 MB in 24 ms that way). One BDP keeps the oblivious sender ACK-clocked, which is how the
//! paper's RRPS reaches the throughput its slowest path allows.

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{Knob, Rate};

const ALGO: &str = "fixed";

cc_algorithm!(FixedCc: ALGO, FixedConfig, false, |c, e| Ok(FixedCc::new(c, e)));

/// Parameters of [`FixedCc`].
#[derive(Clone, Debug, PartialEq)]
pub struct FixedConfig {
    /// Bytes in flight allowed; `u64::MAX` means no window.
    pub window: u64,
    /// Pacing rate.
    pub rate: Rate,
}

impl FixedConfig {
    /// Knob names accepted by [`FixedConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] = &["window", "rate"];

    /// One BDP of the network (at least one packet) at the line rate.
    pub fn defaults_for(env: &CcEnv) -> FixedConfig {
        FixedConfig { window: env.max_bdp_bytes.max(u64::from(env.mtu_bytes)), rate: env.line_rate }
    }

    /// Sets one knob by name.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "window" if matches!(v, Knob::Str(w) if w == "unlimited") => self.window = u64::MAX,
            "window" => self.window = knob::pos_bytes(ALGO, key, v)?,
            "rate" => self.rate = knob::pos_rate(ALGO, key, v)?,
            _ => return Err(knob::unknown(ALGO, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// Cross-field checks (none needed).
    pub fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Constant rate, constant window.
#[derive(Clone, Debug)]
pub struct FixedCc {
    rate: Rate,
    window: u64,
}

impl FixedCc {
    /// Builds the controller; the rate is capped at the line rate.
    pub fn new(cfg: FixedConfig, env: &CcEnv) -> FixedCc {
        FixedCc { rate: cfg.rate.min(env.line_rate), window: cfg.window }
    }
}

impl CongestionControl for FixedCc {
    /// Ignored.
    #[inline]
    fn on_ack(&mut self, _ev: &AckEvent) {}
    /// The configured rate.
    #[inline]
    fn rate(&self) -> Rate {
        self.rate
    }
    /// The configured window.
    #[inline]
    fn window_bytes(&self) -> u64 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionControl;
    use braid_core::Time;

    #[test]
    fn fixed_ignores_everything() {
        let env = CcEnv::reference_100g();
        let mut c = FixedCc::new(FixedConfig::defaults_for(&env), &env);
        assert_eq!(c.window_bytes(), env.max_bdp_bytes, "one BDP by default");
        assert_eq!(c.rate(), env.line_rate);
        let ev = AckEvent {
            now: Time::from_us(1),
            newly_acked_bytes: 1000,
            ack_seq_bytes: 1000,
            snd_nxt_bytes: 5000,
            ecn: true,
            rtt: Some(Time::from_us(100)),
            int: None,
            hops: 1,
        };
        c.on_ack(&ev);
        c.on_nak(Time::from_us(2));
        c.on_rto(Time::from_us(3));
        c.on_timeout(Time::from_us(4));
        assert_eq!(c.rate(), env.line_rate);
        assert_eq!(c.poll_timeout(), None);

        let mut cfg = FixedConfig::defaults_for(&env);
        cfg.apply_knob("window", &Knob::Str("64KB".into())).unwrap();
        cfg.apply_knob("rate", &Knob::Str("400Gbps".into())).unwrap();
        let c = FixedCc::new(cfg, &env);
        assert_eq!(c.window_bytes(), 64_000);
        assert_eq!(c.rate(), env.line_rate, "capped at line rate");
        let mut cfg = FixedConfig::defaults_for(&env);
        assert!(cfg.apply_knob("window", &Knob::Int(0)).is_err());
        assert!(cfg.apply_knob("window", &Knob::Int(-5)).is_err());
        cfg.apply_knob("window", &Knob::Str("unlimited".into())).unwrap();
        assert_eq!(FixedCc::new(cfg, &env).window_bytes(), u64::MAX);
    }
}
