//! DCQCN, Mellanox (CX4) variant, as in HPCC-ns3 `rdma-hw.cc` (the `*Mlx` functions) with the
//! HPCC paper's `run.py --cc dcqcn` defaults — see `docs/baselines.md`, DCQCN.
//!
//! Reaction point only (marking is switch-side). State: current rate `R_C`, target rate `R_T`,
//! `α`, the two CNP flags, `stage`, and three periodic timers:
//! - on an ACK with CNP: set both flags; on the **first** CNP, `α = 1`, clear the alpha flag, start
//!   the alpha timer (period `T_α`) and the decrease-check timer (period `T_dec`, first expiry
//!   `T_dec + 1 ns` after the CNP) and set `R_T = R_C = R_C × rate_on_first_cnp`;
//! - alpha timer: `α ← (1−g)α + g` if the alpha flag is set, else `α ← (1−g)α`; clear the flag;
//! - decrease timer, if the decrease flag is set: `R_T ← R_C` if `clamp_target` or `stage ≠ 0`;
//!   `R_C ← max(R_min, R_C(1 − α/2))`; `stage = 0`; clear the flag; restart the increase timer at
//!   `now + T_inc`;
//! - increase timer (every `T_inc`): fast recovery `R_C ← (R_C+R_T)/2` while `stage < F`;
//!   additive (`R_T += R_AI`) at `stage == F`; hyper (`R_T += R_HAI`) above; `R_T` capped at
//!   line rate; then `stage += 1`.
//!
//! Interpretations and implementation choices:
//! - **Lazy timers, same results.** The reference code runs the alpha and decrease timers forever
//!   once the first CNP arrived (one event per µs per flow). Here the timers keep the same grid
//!   (`t_first + k·T_α`, `t_first + 1 ns + k·T_dec`) but ticks that cannot change anything except
//!   `α`'s plain decay are not reported by [`Dcqcn::poll_timeout`]: `α` is brought up to date in
//!   closed form, `α(1−g)^n`, whenever the controller is called. A tick that matters (the alpha
//!   tick after a CNP, the decrease tick after a CNP, every increase tick) is reported. The
//!   increase timer is parked once `R_C = R_T = line` and `stage > F`, where further increase
//!   events are no-ops; any decrease re-arms it exactly as the reference does.
//! - An ACK processed at the same instant as a timer tick is handled after the tick.
//! - Rates are kept as `f64` bits/s; `R_C` snaps to `R_T` when they differ by less than 1 bit/s so
//!   that the recovery converges exactly. `R_C` is clamped to `[R_min, line]` at every change
//!   (including the first-CNP scaling, which the reference does not clamp); `R_min` above the line
//!   rate is treated as the line rate.
//! - Loss signals (`on_nak`, `on_rto`) do not change the rate: the reference code only rewinds
//!   `snd_nxt` on a NACK.
//! - No window by default (`HAS_WIN 0`); the knob `window = true` gives HPCC-ns3's
//!   `HAS_WIN`/`VAR_WIN` window `max_bdp × R_C / line` (`var_win = false`: fixed `max_bdp`).

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{Knob, Rate, Time};

const ALGO: &str = "dcqcn";

cc_algorithm!(Dcqcn: ALGO, DcqcnConfig, false, |c, e| Dcqcn::new(c, e));

/// Parameters of [`Dcqcn`] (`docs/baselines.md`, DCQCN; defaults are `run.py --cc dcqcn`).
#[derive(Clone, Debug, PartialEq)]
pub struct DcqcnConfig {
    /// `T_α` (ALPHA_RESUME_INTERVAL): alpha timer period. Default 1 µs.
    pub t_alpha: Time,
    /// `T_dec` (RATE_DECREASE_INTERVAL): decrease-check timer period. Default 4 µs.
    pub t_dec: Time,
    /// `T_inc` (RP_TIMER): increase timer period. Default 300 µs.
    pub t_inc: Time,
    /// `g` (EWMA_GAIN). Default 1/256.
    pub g: f64,
    /// `F` (FAST_RECOVERY_TIMES): increase events of fast recovery before additive increase.
    /// Default 1.
    pub fast_recovery_times: u32,
    /// `R_AI`: additive increase step. Default 5 Mb/s × bw/25 (20 Mb/s at 100 Gb/s).
    pub rate_ai: Rate,
    /// `R_HAI`: hyper increase step. Default 50 Mb/s × bw/25 (200 Mb/s at 100 Gb/s).
    pub rate_hai: Rate,
    /// `R_min` (MIN_RATE). Default 1000 Mb/s (run.py; config.txt uses 100 Mb/s).
    pub min_rate: Rate,
    /// CLAMP_TARGET_RATE: always set `R_T ← R_C` on a decrease. Default false.
    pub clamp_target: bool,
    /// RateOnFirstCnp: factor applied to the rate on the first CNP. Default 1.0.
    pub rate_on_first_cnp: f64,
    /// HAS_WIN: limit bytes in flight by an HPCC-ns3 window. Default false.
    pub window: bool,
    /// VAR_WIN: with `window`, scale it by `R_C / line`. Default true.
    pub var_win: bool,
    /// With `window`, compute `W × R` in wrapping unsigned 64 bits as the ns-3 fork does
    /// (`window_wrap`; default false).
    pub window_wrap: bool,
}

impl DcqcnConfig {
    /// Knob names accepted by [`DcqcnConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] = &[
        "t_alpha",
        "t_dec",
        "t_inc",
        "g",
        "fast_recovery_times",
        "rate_ai",
        "rate_hai",
        "min_rate",
        "clamp_target",
        "rate_on_first_cnp",
        "window",
        "var_win",
        "window_wrap",
    ];

    /// The `run.py` defaults with the increase steps scaled to the env's line rate.
    pub fn defaults_for(env: &CcEnv) -> DcqcnConfig {
        let bw = env.line_rate.gbps_f64();
        DcqcnConfig {
            t_alpha: Time::from_us(1),
            t_dec: Time::from_us(4),
            t_inc: Time::from_us(300),
            g: 1.0 / 256.0,
            fast_recovery_times: 1,
            rate_ai: Rate::from_bps_f64(5e6 * bw / 25.0),
            rate_hai: Rate::from_bps_f64(50e6 * bw / 25.0),
            min_rate: Rate::from_bps(1_000_000_000),
            clamp_target: false,
            rate_on_first_cnp: 1.0,
            window: false,
            var_win: true,
            window_wrap: false,
        }
    }

    /// Sets one knob by name (durations as `"4us"`, rates as `"20Mbps"`).
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "t_alpha" => self.t_alpha = knob::pos_time(ALGO, key, v)?,
            "t_dec" => self.t_dec = knob::pos_time(ALGO, key, v)?,
            "t_inc" => self.t_inc = knob::pos_time(ALGO, key, v)?,
            "g" => self.g = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?,
            "fast_recovery_times" => self.fast_recovery_times = knob::uint32(ALGO, key, v)?,
            "rate_ai" => self.rate_ai = knob::nonneg_rate(ALGO, key, v)?,
            "rate_hai" => self.rate_hai = knob::nonneg_rate(ALGO, key, v)?,
            "min_rate" => self.min_rate = knob::pos_rate(ALGO, key, v)?,
            "clamp_target" => self.clamp_target = knob::boolean(ALGO, key, v)?,
            "rate_on_first_cnp" => {
                self.rate_on_first_cnp = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?
            }
            "window" => self.window = knob::boolean(ALGO, key, v)?,
            "var_win" => self.var_win = knob::boolean(ALGO, key, v)?,
            "window_wrap" => self.window_wrap = knob::boolean(ALGO, key, v)?,
            _ => return Err(knob::unknown(ALGO, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// Cross-field checks (none needed: every knob is range-checked on its own).
    pub fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The DCQCN reaction point of one flow. See the module docs.
#[derive(Clone, Debug)]
pub struct Dcqcn {
    cfg: DcqcnConfig,
    line_bps: f64,
    min_rate_bps: f64,
    max_bdp_bytes: u64,
    /// `R_C`, bits/s.
    rc_bps: f64,
    /// `R_T`, bits/s.
    rt_bps: f64,
    alpha: f64,
    alpha_cnp: bool,
    dec_cnp: bool,
    /// A CNP has been seen (the timers are running).
    started: bool,
    stage: u32,
    /// Next tick of the alpha timer not yet applied to `alpha`.
    alpha_next: Time,
    /// Next tick of the decrease-check timer.
    dec_next: Time,
    /// Next increase event, `None` when not armed or parked.
    inc_next: Option<Time>,
}

impl Dcqcn {
    /// A flow starting at line rate with no timers armed. Fails if the window is enabled but the
    /// env has no maximum BDP.
    pub fn new(cfg: DcqcnConfig, env: &CcEnv) -> Result<Dcqcn, String> {
        if cfg.window && env.max_bdp_bytes == 0 {
            return Err(
                "dcqcn with `window = true` needs a positive maximum BDP in the environment".into(),
            );
        }
        let line = env.line_rate.bps_f64();
        Ok(Dcqcn {
            line_bps: line,
            min_rate_bps: cfg.min_rate.bps_f64().min(line),
            max_bdp_bytes: env.max_bdp_bytes,
            rc_bps: line,
            rt_bps: line,
            alpha: 1.0,
            alpha_cnp: false,
            dec_cnp: false,
            started: false,
            stage: 0,
            alpha_next: Time::MAX,
            dec_next: Time::MAX,
            inc_next: None,
            cfg,
        })
    }

    /// A CNP (ECN echo) received at `now`. [`Dcqcn::on_ack`] calls this for marked ACKs; a driver
    /// with separate CNP packets may call it directly.
    pub fn on_cnp(&mut self, now: Time) {
        self.advance(now);
        self.alpha_cnp = true;
        self.dec_cnp = true;
        if !self.started {
            self.started = true;
            self.alpha = 1.0;
            self.alpha_cnp = false;
            self.alpha_next = now.saturating_add(self.cfg.t_alpha);
            self.dec_next = now.saturating_add(self.cfg.t_dec).saturating_add(Time::from_ns(1));
            let r = self.clamp(self.rc_bps * self.cfg.rate_on_first_cnp);
            self.rc_bps = r;
            self.rt_bps = r;
        }
    }

    /// `R_T`.
    pub fn target_rate(&self) -> Rate {
        Rate::from_bps_f64(self.rt_bps)
    }

    /// `α` as of the last call that advanced the timers.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Increase events since the last decrease.
    pub fn stage(&self) -> u32 {
        self.stage
    }

    /// The parameters in use.
    pub fn config(&self) -> &DcqcnConfig {
        &self.cfg
    }

    #[inline]
    fn clamp(&self, r: f64) -> f64 {
        r.max(self.min_rate_bps).min(self.line_bps)
    }

    /// Applies the alpha ticks at or before `t`.
    fn catch_up_alpha(&mut self, t: Time) {
        if self.alpha_next > t {
            return;
        }
        let period = self.cfg.t_alpha.ps();
        let mut n = (t - self.alpha_next).ps() / period + 1;
        self.alpha_next =
            Time::from_ps(self.alpha_next.ps().saturating_add(n.saturating_mul(period)));
        let keep = 1.0 - self.cfg.g;
        if self.alpha_cnp {
            self.alpha = keep * self.alpha + self.cfg.g;
            self.alpha_cnp = false;
            n -= 1;
        }
        if n > 0 {
            self.alpha *= keep.powf(n as f64);
        }
    }

    /// Moves the decrease grid past `t` (ticks without the flag are no-ops).
    fn skip_dec(&mut self, t: Time) {
        if self.dec_next > t {
            return;
        }
        let period = self.cfg.t_dec.ps();
        let n = (t - self.dec_next).ps() / period + 1;
        self.dec_next = Time::from_ps(self.dec_next.ps().saturating_add(n.saturating_mul(period)));
    }

    /// Processes, in time order, every state-changing tick at or before `now`.
    fn advance(&mut self, now: Time) {
        if !self.started {
            return;
        }
        loop {
            let t_alpha = if self.alpha_cnp { self.alpha_next } else { Time::MAX };
            let t_dec = if self.dec_cnp { self.dec_next } else { Time::MAX };
            let t_inc = self.inc_next.unwrap_or(Time::MAX);
            let t = t_alpha.min(t_dec).min(t_inc);
            if t > now || t == Time::MAX {
                break;
            }
            // Alpha ticks first (the decrease grid is offset by 1 ns so that it follows them).
            self.catch_up_alpha(t);
            if self.dec_cnp && self.dec_next == t {
                self.decrease(t);
            }
            self.skip_dec(t);
            if self.inc_next == Some(t) {
                self.increase(t);
            }
        }
        self.catch_up_alpha(now);
        self.skip_dec(now);
    }

    fn decrease(&mut self, t: Time) {
        if self.cfg.clamp_target || self.stage != 0 {
            self.rt_bps = self.rc_bps;
        }
        self.rc_bps = self.clamp(self.rc_bps * (1.0 - self.alpha / 2.0));
        self.stage = 0;
        self.dec_cnp = false;
        self.inc_next = Some(t.saturating_add(self.cfg.t_inc));
    }

    fn increase(&mut self, t: Time) {
        let f = self.cfg.fast_recovery_times;
        if self.stage == f {
            self.rt_bps = (self.rt_bps + self.cfg.rate_ai.bps_f64()).min(self.line_bps);
        } else if self.stage > f {
            self.rt_bps = (self.rt_bps + self.cfg.rate_hai.bps_f64()).min(self.line_bps);
        }
        self.rc_bps = (self.rc_bps + self.rt_bps) / 2.0;
        if (self.rt_bps - self.rc_bps).abs() < 1.0 {
            self.rc_bps = self.rt_bps;
        }
        self.rc_bps = self.clamp(self.rc_bps);
        self.stage = self.stage.saturating_add(1);
        self.inc_next =
            if self.rc_bps >= self.line_bps && self.rt_bps >= self.line_bps && self.stage > f {
                None // parked: further increase events are no-ops
            } else {
                Some(t.saturating_add(self.cfg.t_inc))
            };
    }
}

impl CongestionControl for Dcqcn {
    /// Processes an ACK: due timers first, then the CNP flag if the ACK carries one.
    fn on_ack(&mut self, ev: &AckEvent) {
        self.advance(ev.now);
        if ev.ecn {
            self.on_cnp(ev.now);
        }
    }
    /// The next timer tick that changes state (see the module docs on lazy timers).
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        if !self.started {
            return None;
        }
        let mut t = self.inc_next.unwrap_or(Time::MAX);
        if self.alpha_cnp {
            t = t.min(self.alpha_next);
        }
        if self.dec_cnp {
            t = t.min(self.dec_next);
        }
        (t != Time::MAX).then_some(t)
    }
    /// Runs every timer tick due at or before `now`.
    #[inline]
    fn on_timeout(&mut self, now: Time) {
        self.advance(now);
    }
    super::rate_scheme_rate_and_window!(rc_bps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fluid::{self, FlowSpec, Fluid};
    use crate::cc::CongestionControl;
    use crate::cc::{Cc, CcConfig, CcKind};

    fn env() -> CcEnv {
        CcEnv::reference_100g()
    }

    fn ack(now: Time, ecn: bool) -> AckEvent<'static> {
        AckEvent {
            now,
            newly_acked_bytes: 1000,
            ack_seq_bytes: 0,
            snd_nxt_bytes: 0,
            ecn,
            rtt: None,
            int: None,
            hops: 1,
        }
    }

    fn dcqcn() -> Dcqcn {
        Dcqcn::new(DcqcnConfig::defaults_for(&env()), &env()).unwrap()
    }

    const G: f64 = 1.0 / 256.0;
    const LINE: f64 = 100e9;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn defaults_scale_with_line_rate() {
        let c = DcqcnConfig::defaults_for(&env());
        assert_eq!(c.rate_ai, Rate::from_bps(20_000_000));
        assert_eq!(c.rate_hai, Rate::from_bps(200_000_000));
        assert_eq!(c.min_rate, Rate::from_bps(1_000_000_000));
        let mut e = env();
        e.line_rate = Rate::from_gbps(25);
        let c = DcqcnConfig::defaults_for(&e);
        assert_eq!(c.rate_ai, Rate::from_bps(5_000_000));
        assert_eq!(c.rate_hai, Rate::from_bps(50_000_000));
    }

    #[test]
    fn first_cnp_sets_alpha_and_arms_timers() {
        let mut d = dcqcn();
        assert_eq!(d.poll_timeout(), None);
        d.on_ack(&ack(us(10), false));
        assert_eq!(d.poll_timeout(), None, "unmarked ACKs arm nothing");
        d.on_ack(&ack(us(10), true));
        assert_eq!(d.alpha(), 1.0);
        assert_eq!(d.rate().bps(), 100_000_000_000, "rate_on_first_cnp = 1");
        // The decrease check is armed at T_dec + 1 ns.
        assert_eq!(d.poll_timeout(), Some(us(14) + Time::from_ns(1)));
        // Just before: nothing changes.
        d.on_timeout(us(14));
        assert_eq!(d.rate().bps(), 100_000_000_000);
        // At the decrease tick α has decayed 4 times (ticks at 11..14 µs, no CNP after the first).
        d.on_timeout(us(14) + Time::from_ns(1));
        let a = (1.0 - G).powi(4);
        assert!((d.alpha() - a).abs() < 1e-12);
        assert!((d.rate().bps_f64() - LINE * (1.0 - a / 2.0)).abs() < 2.0);
        assert_eq!(d.stage(), 0);
        // The increase timer is armed T_inc later.
        assert_eq!(d.poll_timeout(), Some(us(314) + Time::from_ns(1)));
    }

    #[test]
    fn rate_on_first_cnp_scales_rate() {
        let mut c = DcqcnConfig::defaults_for(&env());
        c.apply_knob("rate_on_first_cnp", &Knob::Float(0.5)).unwrap();
        let mut d = Dcqcn::new(c, &env()).unwrap();
        d.on_ack(&ack(us(1), true));
        assert_eq!(d.rate(), Rate::from_gbps(50));
        assert_eq!(d.target_rate(), Rate::from_gbps(50));
    }

    #[test]
    fn decrease_uses_alpha_after_cnp_feedback() {
        let mut d = dcqcn();
        d.on_ack(&ack(us(0), true)); // first: α = 1, flags: dec only
        d.on_ack(&ack(Time::from_ns(500), true)); // sets the alpha flag too
        d.on_timeout(us(1)); // alpha tick with flag: α = (1−g)·1 + g = 1
        assert!((d.alpha() - 1.0).abs() < 1e-15);
        d.on_timeout(us(4) + Time::from_ns(1));
        // Ticks at 2, 3, 4 µs decay without CNP.
        let a = (1.0 - G).powi(3);
        assert!((d.alpha() - a).abs() < 1e-12);
        let rc = LINE * (1.0 - a / 2.0);
        assert!((d.rate().bps_f64() - rc).abs() < 2.0);
        // A second CNP then the next decrease at 8 µs + 1 ns: R_C ← R_C(1 − α/2) with α updated by
        // one flagged tick (at 5 µs, after the CNP at 4.5 µs) and three plain ones.
        d.on_ack(&ack(Time::from_ns(4500), true));
        assert_eq!(d.poll_timeout(), Some(us(5)));
        d.on_timeout(us(8) + Time::from_ns(1));
        let a2 = ((1.0 - G) * a + G) * (1.0 - G).powi(3);
        assert!((d.alpha() - a2).abs() < 1e-12, "{} vs {a2}", d.alpha());
        let rc2 = rc * (1.0 - a2 / 2.0);
        assert!((d.rate().bps_f64() - rc2).abs() < 4.0);
        // stage was 0 (no increase in between) and clamp_target is off: R_T kept at line rate.
        assert_eq!(d.target_rate(), Rate::from_gbps(100));
    }

    #[test]
    fn clamp_target_resets_target_on_every_decrease() {
        let mut c = DcqcnConfig::defaults_for(&env());
        c.clamp_target = true;
        let mut d = Dcqcn::new(c, &env()).unwrap();
        d.on_ack(&ack(us(0), true));
        d.on_timeout(us(4) + Time::from_ns(1));
        let r1 = d.rate().bps_f64();
        d.on_ack(&ack(us(5), true));
        d.on_timeout(us(8) + Time::from_ns(1));
        assert!((d.target_rate().bps_f64() - r1).abs() < 2.0, "R_T ← R_C before the cut");
    }

    #[test]
    fn alpha_decays_geometrically_without_cnps() {
        let mut d = dcqcn();
        d.on_ack(&ack(us(0), true));
        for n in [1u64, 7, 100, 1000, 5000] {
            d.on_timeout(us(n));
            let expect = (1.0 - G).powi(n as i32);
            assert!((d.alpha() - expect).abs() < 1e-9, "n={n}: {} vs {expect}", d.alpha());
        }
        // Spurious and repeated calls change nothing.
        let a = d.alpha();
        d.on_timeout(us(5000));
        d.on_timeout(us(10));
        assert_eq!(d.alpha(), a);
    }

    #[test]
    fn recovery_fast_then_additive_then_hyper() {
        let mut d = dcqcn();
        d.on_ack(&ack(us(0), true));
        let t_dec = us(4) + Time::from_ns(1);
        d.on_timeout(t_dec);
        let (mut rc, mut rt) = (d.rate().bps_f64(), d.target_rate().bps_f64());
        assert_eq!(rt, LINE);
        let t_inc = us(300);
        // Stage 0 (< F = 1): fast recovery halves the gap to R_T.
        d.on_timeout(t_dec + t_inc);
        let expect = (rc + rt) / 2.0;
        assert!((d.rate().bps_f64() - expect).abs() < 2.0);
        assert_eq!(d.stage(), 1);
        // CNP → decrease with stage 1 ≠ 0: R_T ← R_C.
        d.on_ack(&ack(t_dec + t_inc + us(1), true));
        let dec2 = t_dec + t_inc + us(4); // next grid tick after the CNP
        d.on_timeout(dec2);
        rc = d.rate().bps_f64();
        rt = d.target_rate().bps_f64();
        assert!(rt < LINE && rc < rt);
        // Fast recovery (stage 0 → 1).
        d.on_timeout(dec2 + t_inc);
        let rc1 = (rc + rt) / 2.0;
        assert!((d.rate().bps_f64() - rc1).abs() < 2.0);
        assert!((d.target_rate().bps_f64() - rt).abs() < 1.0);
        // Additive increase at stage == F = 1.
        d.on_timeout(dec2 + Time::from_ps(t_inc.ps() * 2));
        let rt2 = rt + 20e6;
        let rc2 = (rc1 + rt2) / 2.0;
        assert!((d.target_rate().bps_f64() - rt2).abs() < 2.0);
        assert!((d.rate().bps_f64() - rc2).abs() < 2.0);
        // Hyper increase afterwards.
        d.on_timeout(dec2 + Time::from_ps(t_inc.ps() * 3));
        let rt3 = rt2 + 200e6;
        let rc3 = (rc2 + rt3) / 2.0;
        assert!((d.target_rate().bps_f64() - rt3).abs() < 2.0);
        assert!((d.rate().bps_f64() - rc3).abs() < 2.0);
        assert_eq!(d.stage(), 3);
        // Eventually back to line rate, then the timer parks.
        d.on_timeout(dec2 + Time::from_ps(t_inc.ps() * 400));
        assert_eq!(d.rate(), Rate::from_gbps(100));
        assert_eq!(d.poll_timeout(), None);
    }

    #[test]
    fn rate_stays_within_min_and_line() {
        let mut d = dcqcn();
        let mut t = us(0);
        for _ in 0..2000 {
            d.on_ack(&ack(t, true));
            t += us(1);
            d.on_timeout(t);
            assert!(d.rate().bps() >= 1_000_000_000 && d.rate().bps() <= 100_000_000_000);
        }
        assert_eq!(d.rate(), Rate::from_bps(1_000_000_000), "persistent CNPs reach R_min");
        // R_min above the line rate acts as the line rate.
        let mut e = env();
        e.line_rate = Rate::from_bps(500_000_000);
        let mut d = Dcqcn::new(DcqcnConfig::defaults_for(&e), &e).unwrap();
        d.on_ack(&ack(us(0), true));
        d.on_timeout(us(100));
        assert_eq!(d.rate(), Rate::from_bps(500_000_000));
    }

    #[test]
    fn poll_timeout_is_monotone_and_on_timeout_makes_progress() {
        let mut d = dcqcn();
        d.on_ack(&ack(us(3), true));
        let mut last = Time::ZERO;
        let mut n = 0;
        while let Some(t) = d.poll_timeout() {
            assert!(t > last, "deadline must move forward");
            last = t;
            d.on_timeout(t);
            n += 1;
            assert!(n < 10_000);
        }
        assert_eq!(d.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn optional_window() {
        let mut c = DcqcnConfig::defaults_for(&env());
        assert_eq!(dcqcn().window_bytes(), u64::MAX);
        c.window = true;
        let mut d = Dcqcn::new(c, &env()).unwrap();
        assert_eq!(d.window_bytes(), 100_000);
        d.on_ack(&ack(us(0), true));
        d.on_timeout(us(5));
        let w = (100_000.0 * d.rate().bps_f64() / LINE).floor() as u64;
        assert!(d.window_bytes().abs_diff(w) <= 1);
    }

    /// Closed loop: 4 flows (starting 0.5 ms apart, each at line rate) on one 100 Gb/s bottleneck
    /// with the HPCC paper's RED marking (Kmin 400 KB, Kmax 1600 KB, Pmax 0.2) converge to ≈ C/4
    /// each. DCQCN converges slowly (R_AI = 20 Mb/s per 300 µs): ~100 ms to within 15 %.
    #[test]
    fn closed_loop_converges_to_fair_share() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::Dcqcn), &e).unwrap(),
                start: Time::from_us(500 * i),
            })
            .collect();
        let model = Fluid { red: (400_000.0, 1_600_000.0, 0.2), ..Fluid::new_100g() };
        let r = model.run(flows, Time::from_ms(160), Time::from_ms(110));
        r.assert_fair_share(0.15);
        assert!(r.utilization > 0.9, "{r:?}");
        assert!(r.max_queue_bytes < 1_600_000.0, "the queue stays in the RED band: {r:?}");
    }
}
