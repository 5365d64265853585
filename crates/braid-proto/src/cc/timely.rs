//! TIMELY (SIGCOMM'15) as in HPCC-ns3 `rdma-hw.cc` (`HandleAckTimely`, `UpdateRateTimely`) with
//! `run.py --cc timely` defaults — see `docs/baselines.md`, TIMELY.
//!
//! The RTT sample is the ACK's [`AckEvent::rtt`] (the echoed data timestamp). The update runs once
//! per RTT, on an ACK with `ack_seq > lastUpdateSeq`; the first such ACK only records the RTT:
//! - `newDiff = rtt − prevRtt`; `rttDiff ← (1−a)·rttDiff + a·newDiff`; `gradient = rttDiff/minRTT`;
//! - `rtt < T_low` → increase; `rtt > T_high` → `R ← R(1 − β(1 − T_high/rtt))`;
//!   `gradient ≤ 0` → increase; otherwise `R ← R·max(0, 1 − β·gradient)`;
//! - increase: `R ← R + δ` while `incStage < hai_thresh` (5), else `R + δ_HAI`; `incStage += 1`;
//!   capped at line rate. A decrease sets `incStage = 0` and `R ← max(R_min, ·)`;
//! - then `lastUpdateSeq = snd_nxt`, `prevRtt = rtt`.
//!
//! Interpretations: ACKs without an RTT sample are ignored. Loss signals and timeouts do not change
//! the rate (the reference code's fast-react hook is empty and a NACK only rewinds `snd_nxt`). No
//! window by default (`HAS_WIN 0`); `window = true` gives the HPCC-ns3 `max_bdp × R / line`
//! window ("timely_vwin" in run.py).

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{Knob, Rate, Time};

const ALGO: &str = "timely";

cc_algorithm!(Timely: ALGO, TimelyConfig, false, |c, e| Timely::new(c, e));

/// Parameters of [`Timely`] (`docs/baselines.md`, TIMELY; defaults are `run.py --cc timely`).
#[derive(Clone, Debug, PartialEq)]
pub struct TimelyConfig {
    /// `a`: EWMA weight of the newest RTT difference. Default 0.875.
    pub ewma: f64,
    /// β: multiplicative decrease factor. Default 0.8.
    pub beta: f64,
    /// `T_low`: below it always increase. Default 50 µs.
    pub t_low: Time,
    /// `T_high`: above it always decrease. Default 500 µs.
    pub t_high: Time,
    /// `minRTT`: normaliser of the gradient. Default 20 µs.
    pub min_rtt: Time,
    /// δ: additive step. Default 10 Mb/s × bw/10 (100 Mb/s at 100 Gb/s).
    pub rate_ai: Rate,
    /// δ_HAI: hyper-additive step. Default 50 Mb/s × bw/10 (500 Mb/s at 100 Gb/s).
    pub rate_hai: Rate,
    /// Consecutive increases before δ_HAI is used. Default 5.
    pub hai_thresh: u32,
    /// R_min (MIN_RATE). Default 1000 Mb/s.
    pub min_rate: Rate,
    /// HAS_WIN. Default false.
    pub window: bool,
    /// VAR_WIN (with `window`). Default true.
    pub var_win: bool,
    /// With `window`, compute `W × R` in wrapping unsigned 64 bits as the ns-3 fork does
    /// (`window_wrap`; default false).
    pub window_wrap: bool,
}

impl TimelyConfig {
    /// Knob names accepted by [`TimelyConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] = &[
        "ewma",
        "beta",
        "t_low",
        "t_high",
        "min_rtt",
        "rate_ai",
        "rate_hai",
        "hai_thresh",
        "min_rate",
        "window",
        "var_win",
        "window_wrap",
    ];

    /// The `run.py` defaults with δ and δ_HAI scaled to the env's line rate.
    pub fn defaults_for(env: &CcEnv) -> TimelyConfig {
        let bw = env.line_rate.gbps_f64();
        TimelyConfig {
            ewma: 0.875,
            beta: 0.8,
            t_low: Time::from_us(50),
            t_high: Time::from_us(500),
            min_rtt: Time::from_us(20),
            rate_ai: Rate::from_bps_f64(10e6 * bw / 10.0),
            rate_hai: Rate::from_bps_f64(50e6 * bw / 10.0),
            hai_thresh: 5,
            min_rate: Rate::from_bps(1_000_000_000),
            window: false,
            var_win: true,
            window_wrap: false,
        }
    }

    /// Sets one knob by name.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "ewma" => self.ewma = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?,
            "beta" => self.beta = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?,
            "t_low" => self.t_low = knob::nonneg_time(ALGO, key, v)?,
            "t_high" => self.t_high = knob::pos_time(ALGO, key, v)?,
            "min_rtt" => self.min_rtt = knob::pos_time(ALGO, key, v)?,
            "rate_ai" => self.rate_ai = knob::nonneg_rate(ALGO, key, v)?,
            "rate_hai" => self.rate_hai = knob::nonneg_rate(ALGO, key, v)?,
            "hai_thresh" => self.hai_thresh = knob::uint32(ALGO, key, v)?,
            "min_rate" => self.min_rate = knob::pos_rate(ALGO, key, v)?,
            "window" => self.window = knob::boolean(ALGO, key, v)?,
            "var_win" => self.var_win = knob::boolean(ALGO, key, v)?,
            "window_wrap" => self.window_wrap = knob::boolean(ALGO, key, v)?,
            _ => return Err(knob::unknown(ALGO, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// `t_low` must be below `t_high`.
    pub fn check(&self) -> Result<(), String> {
        if self.t_low >= self.t_high {
            return Err(knob::inconsistent(
                ALGO,
                format!("knob `t_low` ({}) must be below `t_high` ({})", self.t_low, self.t_high),
            ));
        }
        Ok(())
    }
}

/// The TIMELY sender state of one flow. See the module docs.
#[derive(Clone, Debug)]
pub struct Timely {
    cfg: TimelyConfig,
    line_bps: f64,
    min_rate_bps: f64,
    max_bdp_bytes: u64,
    rate_bps: f64,
    /// Previous RTT sample, ps.
    prev_rtt_ps: f64,
    /// EWMA of RTT differences, ps.
    rtt_diff_ps: f64,
    inc_stage: u32,
    last_update_seq: u64,
    started: bool,
}

impl Timely {
    /// A flow at line rate.
    pub fn new(cfg: TimelyConfig, env: &CcEnv) -> Result<Timely, String> {
        if cfg.window && env.max_bdp_bytes == 0 {
            return Err(
                "timely with `window = true` needs a positive maximum BDP in the environment"
                    .into(),
            );
        }
        let line = env.line_rate.bps_f64();
        Ok(Timely {
            line_bps: line,
            min_rate_bps: cfg.min_rate.bps_f64().min(line),
            max_bdp_bytes: env.max_bdp_bytes,
            rate_bps: line,
            prev_rtt_ps: 0.0,
            rtt_diff_ps: 0.0,
            inc_stage: 0,
            last_update_seq: 0,
            started: false,
            cfg,
        })
    }

    /// The smoothed RTT difference.
    pub fn rtt_diff(&self) -> Time {
        Time::from_ps(self.rtt_diff_ps.max(0.0) as u64)
    }

    /// The increase stage (consecutive increases).
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// The parameters in use.
    pub fn config(&self) -> &TimelyConfig {
        &self.cfg
    }
}

impl CongestionControl for Timely {
    /// Processes an ACK; runs the update once per RTT.
    fn on_ack(&mut self, ev: &AckEvent) {
        let Some(rtt) = ev.rtt else { return };
        if self.started && ev.ack_seq_bytes <= self.last_update_seq {
            return;
        }
        let rtt_ps = rtt.ps() as f64;
        if self.started {
            let new_diff = rtt_ps - self.prev_rtt_ps;
            let a = self.cfg.ewma;
            let rtt_diff = (1.0 - a) * self.rtt_diff_ps + a * new_diff;
            let gradient = rtt_diff / self.cfg.min_rtt.ps() as f64;
            let t_high = self.cfg.t_high.ps() as f64;
            let factor = if rtt < self.cfg.t_low {
                None
            } else if rtt_ps > t_high {
                Some(1.0 - self.cfg.beta * (1.0 - t_high / rtt_ps))
            } else if gradient <= 0.0 {
                None
            } else {
                Some((1.0 - self.cfg.beta * gradient).max(0.0))
            };
            match factor {
                None => {
                    let step = if self.inc_stage < self.cfg.hai_thresh {
                        self.cfg.rate_ai
                    } else {
                        self.cfg.rate_hai
                    };
                    self.rate_bps = (self.rate_bps + step.bps_f64()).min(self.line_bps);
                    self.inc_stage = self.inc_stage.saturating_add(1);
                }
                Some(c) => {
                    self.rate_bps = (self.rate_bps * c).max(self.min_rate_bps).min(self.line_bps);
                    self.inc_stage = 0;
                }
            }
            self.rtt_diff_ps = rtt_diff;
        }
        self.started = true;
        if ev.snd_nxt_bytes > self.last_update_seq {
            self.last_update_seq = ev.snd_nxt_bytes;
        }
        self.prev_rtt_ps = rtt_ps;
    }
    super::rate_scheme_rate_and_window!(rate_bps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fluid::{self, FlowSpec, Fluid};
    use crate::cc::CongestionControl;
    use crate::cc::{Cc, CcConfig, CcKind};

    const LINE: f64 = 100e9;

    fn env() -> CcEnv {
        CcEnv::reference_100g()
    }

    fn timely() -> Timely {
        Timely::new(TimelyConfig::defaults_for(&env()), &env()).unwrap()
    }

    /// Feeds one per-RTT update: an ACK past the previous commit point.
    struct Driver {
        seq: u64,
        t: Time,
    }
    impl Driver {
        fn new() -> Driver {
            Driver { seq: 0, t: Time::ZERO }
        }
        fn rtt(&mut self, c: &mut Timely, rtt_us: f64) {
            self.t += Time::from_us(10);
            let ev = AckEvent {
                now: self.t,
                newly_acked_bytes: 1000,
                ack_seq_bytes: self.seq + 1,
                snd_nxt_bytes: self.seq + 1000,
                ecn: false,
                rtt: Some(Time::from_secs_f64(rtt_us * 1e-6)),
                int: None,
                hops: 1,
            };
            self.seq += 1000;
            c.on_ack(&ev);
        }
    }

    /// Lower the rate first so that increases are visible.
    fn lowered() -> (Timely, Driver) {
        let mut c = timely();
        let mut d = Driver::new();
        d.rtt(&mut c, 600.0);
        d.rtt(&mut c, 1000.0); // > T_high: R ← R(1 − 0.8(1 − 500/1000)) = 0.6 R
        assert!((c.rate().bps_f64() - 0.6 * LINE).abs() < 2.0);
        (c, d)
    }

    #[test]
    fn defaults() {
        let c = TimelyConfig::defaults_for(&env());
        assert_eq!(c.rate_ai, Rate::from_bps(100_000_000));
        assert_eq!(c.rate_hai, Rate::from_bps(500_000_000));
        assert_eq!(timely().window_bytes(), u64::MAX);
    }

    #[test]
    fn first_rtt_only_records() {
        let mut c = timely();
        let mut d = Driver::new();
        d.rtt(&mut c, 900.0);
        assert_eq!(c.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn above_t_high_decreases_by_beta_one_minus_t_high_over_rtt() {
        let (c, _) = lowered();
        assert_eq!(c.inc_stage(), 0);
    }

    #[test]
    fn updates_once_per_rtt() {
        let (mut c, mut d) = lowered();
        let r = c.rate();
        // An ACK that does not pass lastUpdateSeq is ignored.
        let ev = AckEvent {
            now: d.t,
            newly_acked_bytes: 1000,
            ack_seq_bytes: d.seq - 500,
            snd_nxt_bytes: d.seq + 5000,
            ecn: false,
            rtt: Some(Time::from_us(2000)),
            int: None,
            hops: 1,
        };
        c.on_ack(&ev);
        assert_eq!(c.rate(), r);
        d.rtt(&mut c, 10.0);
        assert!(c.rate() > r);
    }

    #[test]
    fn below_t_low_increases_then_hai_after_five() {
        let (mut c, mut d) = lowered();
        let r0 = c.rate().bps_f64();
        for k in 1..=5 {
            d.rtt(&mut c, 20.0);
            assert!((c.rate().bps_f64() - (r0 + k as f64 * 100e6)).abs() < 2.0, "k={k}");
        }
        assert_eq!(c.inc_stage(), 5);
        d.rtt(&mut c, 20.0);
        assert!((c.rate().bps_f64() - (r0 + 500e6 + 500e6)).abs() < 2.0, "HAI step");
        // Capped at line rate.
        for _ in 0..200 {
            d.rtt(&mut c, 20.0);
        }
        assert_eq!(c.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn gradient_region() {
        let (mut c, mut d) = lowered();
        // prevRtt = 1000 µs, rttDiff = 0.875·400 = 350 µs after the second sample.
        let r0 = c.rate().bps_f64();
        // RTT 100 µs (between T_low and T_high) but falling: new diff −900 → rttDiff =
        // 0.125·350 + 0.875·(−900) < 0 → increase.
        d.rtt(&mut c, 100.0);
        assert!((c.rate().bps_f64() - (r0 + 100e6)).abs() < 2.0);
        let r1 = c.rate().bps_f64();
        let diff1: f64 = 0.125 * 350.0 + 0.875 * (-900.0);
        // RTT 400 µs: rising by 300: rttDiff = 0.125·diff1 + 0.875·300, gradient = rttDiff/20.
        d.rtt(&mut c, 400.0);
        let diff2 = 0.125 * diff1 + 0.875 * 300.0;
        let g = diff2 / 20.0;
        assert!(g > 0.0);
        let expect = (r1 * (1.0 - 0.8 * g).max(0.0)).max(1e9);
        assert!((c.rate().bps_f64() - expect).abs() < 2.0, "{} vs {expect}", c.rate().bps_f64());
        assert_eq!(c.rate(), Rate::from_bps(1_000_000_000), "large gradients floor at R_min");
        assert_eq!(c.inc_stage(), 0);
    }

    #[test]
    fn small_positive_gradient_decreases_proportionally() {
        let mut c = timely();
        let mut d = Driver::new();
        d.rtt(&mut c, 100.0);
        d.rtt(&mut c, 100.0); // gradient 0 → increase (capped at line)
        assert_eq!(c.rate(), Rate::from_gbps(100));
        d.rtt(&mut c, 102.0); // diff 2 µs → rttDiff = 0.875·2 = 1.75, gradient 0.0875
        let expect = LINE * (1.0 - 0.8 * 1.75 / 20.0);
        assert!((c.rate().bps_f64() - expect).abs() < 2.0);
    }

    /// Closed loop: 4 TIMELY flows. With the HPCC-ns3 parameters TIMELY oscillates (as the HPCC
    /// paper reports): rates climb while RTT < T_low, overshoot until the RTT gradient turns
    /// positive above T_low, then cut hard. Checked: the queue climbs to the T_low band but the RTT
    /// stays well below T_high, the link stays mostly busy, and the flows share equally.
    #[test]
    fn closed_loop_oscillates_around_t_low() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::Timely), &e).unwrap(),
                start: Time::from_us(50 * i),
            })
            .collect();
        let r = Fluid::new_100g().run(flows, Time::from_ms(30), Time::from_ms(10));
        assert!(r.utilization > 0.75, "{r:?}");
        assert!(r.max_rtt_us > 50.0 && r.max_rtt_us < 2.0 * 50.0, "peaks just above T_low: {r:?}");
        assert!(r.avg_rtt_us > 10.0 && r.avg_rtt_us < 50.0, "{r:?}");
        r.assert_equal_shares(0.15);
    }
}
