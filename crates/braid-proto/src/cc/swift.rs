//! Swift (SIGCOMM'20) as in htsim `swift.cpp` (csg-htsim / UET-htsim) — see `docs/baselines.md`,
//! Swift.
//!
//! Window in bytes (may drop below one MSS, then paced), smoothed RTT, last decrease time and a
//! retransmit counter. With `delay` the ACK's RTT sample:
//! - target: `base_delay + hops·h + fs(cwnd)`, `fs = clamp(α_fs/√cwnd_pkts + β_fs, 0, fs_range)`,
//!   `α_fs = fs_range / (1/√fs_min − 1/√fs_max)`, `β_fs = −α_fs/√fs_max`;
//! - `can_decrease = now − last_decrease ≥ srtt`;
//! - `delay < target`: `cwnd += ai·MSS·acked/cwnd` when `cwnd ≥ MSS`, else `cwnd += ai·acked`
//!   (about `ai` MSS per RTT either way);
//! - else if `can_decrease`: `cwnd ← cwnd·max(1 − β(delay − target)/delay, 1 − max_mdf)`;
//! - clamp to `[min_cwnd, max_cwnd]`; any decrease records `last_decrease = now`;
//! - `cwnd < MSS`: pace at one MSS per `srtt·MSS/cwnd` ([`Swift::rate`]).
//! - fast retransmit ([`Swift::on_nak`]): `cwnd ← cwnd(1 − max_mdf)` if `can_decrease`;
//! - RTO ([`Swift::on_rto`]): `retransmit_cnt += 1`; at `rtx_reset_threshold` `cwnd = min_cwnd`,
//!   else `cwnd ← cwnd(1 − max_mdf)` if `can_decrease`. Any ACK of new data resets the counter.
//!
//! Interpretations:
//! - `base_delay` defaults to the env's base RTT (htsim hard-codes 20 µs); `h` and `fs_range`
//!   default to htsim's ratios of it (`base_delay/6.55`, `5·base_delay`) unless set explicitly.
//! - `cwnd_pkts = cwnd/MSS` as a real number (htsim divides integers, which makes `fs` jump to
//!   `fs_range` below one packet).
//! - `srtt` is an EWMA with gain `srtt_gain` (htsim's 1/8), seeded by the first sample; before any
//!   sample `srtt` is the env's base RTT. `can_decrease` uses `srtt` before the current sample, as
//!   htsim does. htsim does not record an RTO decrease as `last_decrease`; here every decrease does.
//! - The RTO value and its doubling belong to loss recovery, not to this controller.
//! - ACKs without an RTT sample only reset the retransmit counter.
//! - [`Swift::window_bytes`] is at least one MSS, so that when `cwnd < MSS` the pacing rate, not
//!   the window, decides when the next packet goes (htsim's pacer ignores the window).
//! - PLB is not part of the controller; [`Swift::target_delay`] is public for a PLB
//!   implementation (`target(cwnd = 0)` is [`Swift::base_target`]).

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{Knob, Rate, Time};

const ALGO: &str = "swift";

cc_algorithm!(Swift: ALGO, SwiftConfig, false, |c, e| Ok(Swift::new(c, e)));

/// Parameters of [`Swift`] (`docs/baselines.md`, Swift, htsim defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct SwiftConfig {
    /// Additive increase, MSS per RTT. Default 1.0.
    pub ai: f64,
    /// Multiplicative decrease gain β. Default 0.8.
    pub beta: f64,
    /// Largest multiplicative decrease per event. Default 0.5.
    pub max_mdf: f64,
    /// Base target delay. Default the env's base RTT.
    pub base_delay: Time,
    /// Per-hop target scaling `h`; `None` = `base_delay / 6.55`.
    pub h: Option<Time>,
    /// Flow-scaling range; `None` = `5 × base_delay`.
    pub fs_range: Option<Time>,
    /// Flow scaling reaches `fs_range` at this window, packets. Default 0.1.
    pub fs_min: f64,
    /// Flow scaling reaches 0 at this window, packets. Default 100.
    pub fs_max: f64,
    /// Consecutive RTOs after which `cwnd = min_cwnd`. Default 5.
    pub rtx_reset_threshold: u32,
    /// Smallest window, bytes. Default 10 B.
    pub min_cwnd: u64,
    /// Largest window, bytes. Default 1000 MSS.
    pub max_cwnd: u64,
    /// Initial window, bytes. Default one BDP of the flow (`base_rtt × line`).
    pub init_cwnd: u64,
    /// Gain of the srtt EWMA. Default 1/8.
    pub srtt_gain: f64,
}

impl SwiftConfig {
    /// Knob names accepted by [`SwiftConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] = &[
        "ai",
        "beta",
        "max_mdf",
        "base_delay",
        "h",
        "fs_range",
        "fs_min",
        "fs_max",
        "rtx_reset_threshold",
        "min_cwnd",
        "max_cwnd",
        "init_cwnd",
        "srtt_gain",
    ];

    /// htsim's defaults, with `base_delay` = the env's base RTT and a one-BDP initial window.
    pub fn defaults_for(env: &CcEnv) -> SwiftConfig {
        let mss = env.mtu_bytes as u64;
        SwiftConfig {
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            base_delay: env.base_rtt,
            h: None,
            fs_range: None,
            fs_min: 0.1,
            fs_max: 100.0,
            rtx_reset_threshold: 5,
            min_cwnd: 10,
            max_cwnd: 1000 * mss.max(1),
            init_cwnd: env.bdp_bytes().max(1),
            srtt_gain: 1.0 / 8.0,
        }
    }

    /// Sets one knob by name (durations as `"20us"`, windows as bytes or `"64KB"`).
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "ai" => self.ai = knob::float_in(ALGO, key, v, 0.0, false, 1e6)?,
            "beta" => self.beta = knob::float_in(ALGO, key, v, 0.0, false, 1.0)?,
            "max_mdf" => self.max_mdf = knob::float_in(ALGO, key, v, 0.0, false, 1.0)?,
            "base_delay" => self.base_delay = knob::nonneg_time(ALGO, key, v)?,
            "h" => self.h = Some(knob::nonneg_time(ALGO, key, v)?),
            "fs_range" => self.fs_range = Some(knob::nonneg_time(ALGO, key, v)?),
            "fs_min" => self.fs_min = knob::pos_float(ALGO, key, v)?,
            "fs_max" => self.fs_max = knob::pos_float(ALGO, key, v)?,
            "rtx_reset_threshold" => self.rtx_reset_threshold = knob::uint32(ALGO, key, v)?,
            "min_cwnd" => self.min_cwnd = knob::pos_bytes(ALGO, key, v)?,
            "max_cwnd" => self.max_cwnd = knob::pos_bytes(ALGO, key, v)?,
            "init_cwnd" => self.init_cwnd = knob::pos_bytes(ALGO, key, v)?,
            "srtt_gain" => self.srtt_gain = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?,
            _ => return Err(knob::unknown(ALGO, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// `fs_min < fs_max`, `min_cwnd ≤ max_cwnd`.
    pub fn check(&self) -> Result<(), String> {
        if self.fs_min >= self.fs_max {
            return Err(knob::inconsistent(
                ALGO,
                format!("knob `fs_min` ({}) must be below `fs_max` ({})", self.fs_min, self.fs_max),
            ));
        }
        if self.min_cwnd > self.max_cwnd {
            return Err(knob::inconsistent(
                ALGO,
                format!(
                    "knob `min_cwnd` ({}) exceeds `max_cwnd` ({})",
                    self.min_cwnd, self.max_cwnd
                ),
            ));
        }
        Ok(())
    }

    /// `h` in effect.
    pub fn h_eff(&self) -> Time {
        self.h.unwrap_or(self.base_delay.mul_f64(1.0 / 6.55))
    }

    /// `fs_range` in effect.
    pub fn fs_range_eff(&self) -> Time {
        self.fs_range.unwrap_or(self.base_delay.mul_f64(5.0))
    }
}

/// The Swift sender state of one flow or path. See the module docs.
#[derive(Clone, Debug)]
pub struct Swift {
    cfg: SwiftConfig,
    line_bps: f64,
    mss_bytes: f64,
    /// Base RTT of the env, the srtt stand-in before any sample (ps).
    base_rtt_ps: f64,
    cwnd_bytes: f64,
    /// Smoothed RTT in ps; `None` before the first sample.
    srtt_ps: Option<f64>,
    last_decrease: Option<Time>,
    retransmit_cnt: u32,
    // Precomputed target terms, ps.
    base_ps: f64,
    h_ps: f64,
    fs_range_ps: f64,
    fs_alpha: f64,
    fs_beta: f64,
}

impl Swift {
    /// A flow with `init_cwnd` (clamped to `[min_cwnd, max_cwnd]`).
    pub fn new(cfg: SwiftConfig, env: &CcEnv) -> Swift {
        let fs_range_ps = cfg.fs_range_eff().ps() as f64;
        let fs_alpha = fs_range_ps / (1.0 / cfg.fs_min.sqrt() - 1.0 / cfg.fs_max.sqrt());
        let fs_beta = -fs_alpha / cfg.fs_max.sqrt();
        Swift {
            line_bps: env.line_rate.bps_f64(),
            mss_bytes: env.mtu_bytes.max(1) as f64,
            base_rtt_ps: env.base_rtt.ps() as f64,
            cwnd_bytes: cfg.init_cwnd.clamp(cfg.min_cwnd, cfg.max_cwnd) as f64,
            srtt_ps: None,
            last_decrease: None,
            retransmit_cnt: 0,
            base_ps: cfg.base_delay.ps() as f64,
            h_ps: cfg.h_eff().ps() as f64,
            fs_range_ps,
            fs_alpha,
            fs_beta,
            cfg,
        }
    }

    /// Flow scaling `fs(cwnd)` in ps.
    fn fs_ps(&self, cwnd: f64) -> f64 {
        if cwnd <= 0.0 {
            return 0.0; // htsim: target(cwnd = 0) has no flow scaling
        }
        let v = self.fs_alpha / (cwnd / self.mss_bytes).sqrt() + self.fs_beta;
        v.clamp(0.0, self.fs_range_ps)
    }

    fn target_ps(&self, cwnd: f64, hops: u8) -> f64 {
        self.base_ps + hops as f64 * self.h_ps + self.fs_ps(cwnd)
    }

    /// The target delay for a window of `cwnd` bytes over `hops` hops.
    pub fn target_delay(&self, cwnd: f64, hops: u8) -> Time {
        Time::from_ps(self.target_ps(cwnd, hops).round() as u64)
    }

    /// The target without flow scaling (`target(cwnd = 0)`, PLB's "good delay" bound).
    pub fn base_target(&self, hops: u8) -> Time {
        self.target_delay(0.0, hops)
    }

    #[inline]
    fn srtt_ps(&self) -> f64 {
        self.srtt_ps.unwrap_or(self.base_rtt_ps)
    }

    fn can_decrease(&self, now: Time) -> bool {
        match self.last_decrease {
            None => true,
            Some(t) => now.saturating_sub(t).ps() as f64 >= self.srtt_ps(),
        }
    }

    fn clamp_and_note(&mut self, prev: f64, now: Time) {
        self.cwnd_bytes =
            self.cwnd_bytes.max(self.cfg.min_cwnd as f64).min(self.cfg.max_cwnd as f64);
        if self.cwnd_bytes < prev {
            self.last_decrease = Some(now);
        }
    }

    /// `cwnd` in bytes, unrounded (may be below one MSS).
    pub fn cwnd(&self) -> f64 {
        self.cwnd_bytes
    }

    /// The smoothed RTT (the env's base RTT before the first sample).
    pub fn srtt(&self) -> Time {
        Time::from_ps(self.srtt_ps().round() as u64)
    }

    /// Consecutive RTOs without an ACK of new data.
    pub fn retransmit_count(&self) -> u32 {
        self.retransmit_cnt
    }

    /// The parameters in use.
    pub fn config(&self) -> &SwiftConfig {
        &self.cfg
    }
}

impl CongestionControl for Swift {
    /// Processes an ACK.
    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.newly_acked_bytes > 0 {
            self.retransmit_cnt = 0;
        }
        let Some(delay) = ev.rtt else { return };
        let now = ev.now;
        let can_decrease = self.can_decrease(now);
        let d = delay.ps() as f64;
        self.srtt_ps = Some(match self.srtt_ps {
            None => d,
            Some(s) => (1.0 - self.cfg.srtt_gain) * s + self.cfg.srtt_gain * d,
        });
        let prev = self.cwnd_bytes;
        let target = self.target_ps(self.cwnd_bytes, ev.hops);
        if d < target {
            let acked = ev.newly_acked_bytes as f64;
            if self.cwnd_bytes >= self.mss_bytes {
                self.cwnd_bytes += self.cfg.ai * self.mss_bytes * acked / self.cwnd_bytes;
            } else {
                self.cwnd_bytes += self.cfg.ai * acked;
            }
        } else if can_decrease && d > 0.0 {
            let f = (1.0 - self.cfg.beta * (d - target) / d).max(1.0 - self.cfg.max_mdf);
            self.cwnd_bytes *= f;
        }
        self.clamp_and_note(prev, now);
    }
    /// Fast retransmit (triple duplicate ACK or NAK): `cwnd ← cwnd(1 − max_mdf)` if allowed.
    fn on_nak(&mut self, now: Time) {
        if self.can_decrease(now) {
            let prev = self.cwnd_bytes;
            self.cwnd_bytes *= 1.0 - self.cfg.max_mdf;
            self.clamp_and_note(prev, now);
        }
    }
    /// Retransmission timeout: count it; reset to `min_cwnd` at the threshold, else decrease by
    /// `max_mdf` if allowed.
    fn on_rto(&mut self, now: Time) {
        self.retransmit_cnt = self.retransmit_cnt.saturating_add(1);
        let prev = self.cwnd_bytes;
        if self.retransmit_cnt >= self.cfg.rtx_reset_threshold {
            self.cwnd_bytes = self.cfg.min_cwnd as f64;
        } else if self.can_decrease(now) {
            self.cwnd_bytes *= 1.0 - self.cfg.max_mdf;
        }
        self.clamp_and_note(prev, now);
    }
    /// Line rate, or with `cwnd < MSS` one MSS per `srtt·MSS/cwnd` (= `8·cwnd/srtt` bits/s).
    #[inline]
    fn rate(&self) -> Rate {
        if self.cwnd_bytes >= self.mss_bytes {
            return Rate::from_bps_f64(self.line_bps);
        }
        let srtt_s = self.srtt_ps() * 1e-12;
        if srtt_s <= 0.0 {
            return Rate::from_bps_f64(self.line_bps);
        }
        Rate::from_bps_f64((8.0 * self.cwnd_bytes / srtt_s).clamp(1.0, self.line_bps))
    }
    /// `cwnd` in bytes, at least one MSS (below that the pacing rate limits sending).
    #[inline]
    fn window_bytes(&self) -> u64 {
        self.cwnd_bytes.max(self.mss_bytes) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fluid::{self, FlowSpec, Fluid};
    use crate::cc::CongestionControl;
    use crate::cc::{Cc, CcConfig, CcKind};

    fn env() -> CcEnv {
        fluid::env_100g() // base RTT 10 µs, BDP 125 KB, MSS 1000
    }

    fn swift() -> Swift {
        Swift::new(SwiftConfig::defaults_for(&env()), &env())
    }

    fn ack(now_us: f64, rtt_us: f64, acked: u64) -> AckEvent<'static> {
        AckEvent {
            now: Time::from_secs_f64(now_us * 1e-6),
            newly_acked_bytes: acked,
            ack_seq_bytes: 0,
            snd_nxt_bytes: 0,
            ecn: false,
            rtt: Some(Time::from_secs_f64(rtt_us * 1e-6)),
            int: None,
            hops: 1,
        }
    }

    #[test]
    fn defaults() {
        let c = SwiftConfig::defaults_for(&env());
        assert_eq!(c.base_delay, Time::from_us(10));
        assert_eq!(c.init_cwnd, 125_000);
        assert_eq!(c.max_cwnd, 1_000_000);
        assert_eq!(c.fs_range_eff(), Time::from_us(50));
        assert!((c.h_eff().us_f64() - 10.0 / 6.55).abs() < 1e-6);
        let s = swift();
        assert_eq!(s.window_bytes(), 125_000);
        assert_eq!(s.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn flow_scaling_gives_smaller_windows_larger_targets() {
        let s = swift();
        let base = 10.0 + 10.0 / 6.55; // µs, one hop
        let t = |pkts: f64| s.target_delay(pkts * 1000.0, 1).us_f64() - base;
        assert!((t(0.1) - 50.0).abs() < 1e-3, "fs = fs_range at fs_min: {}", t(0.1));
        assert!(t(100.0).abs() < 1e-3, "fs = 0 at fs_max");
        assert!(t(1000.0).abs() < 1e-3, "clamped at 0 above fs_max");
        assert!(t(0.01) <= 50.0 + 1e-6, "clamped at fs_range");
        let mut last = f64::INFINITY;
        for p in [0.1, 0.5, 1.0, 4.0, 16.0, 64.0, 100.0] {
            let v = t(p);
            assert!(v <= last, "monotone");
            last = v;
        }
        // The formula itself at 4 packets.
        let a = 50.0 / (1.0 / 0.1f64.sqrt() - 1.0 / 10.0);
        let expect = a / 2.0 - a / 10.0;
        assert!((t(4.0) - expect).abs() < 1e-3);
        assert_eq!(s.base_target(1), Time::from_ps((base * 1e6).round() as u64));
        // Hops scale the target.
        assert!(s.target_delay(1e5, 3) > s.target_delay(1e5, 1));
    }

    #[test]
    fn below_target_increases_ai_mss_per_rtt() {
        let mut s = swift();
        let c0 = s.cwnd();
        let n = (c0 / 1000.0) as usize;
        for i in 0..n {
            s.on_ack(&ack(i as f64 * 0.08, 10.0, 1000));
        }
        assert!((s.cwnd() - c0 - 1000.0).abs() < 10.0, "{} → {}", c0, s.cwnd());
    }

    #[test]
    fn above_target_cuts_at_most_once_per_srtt_by_at_most_max_mdf() {
        let mut s = swift();
        let c0 = s.cwnd();
        let target = s.target_delay(c0, 1).us_f64();
        // Delay 20 % over target: factor 1 − 0.8·(d − t)/d.
        let d = target * 1.2;
        s.on_ack(&ack(100.0, d, 1000));
        let f = 1.0 - 0.8 * (d - target) / d;
        assert!((s.cwnd() - c0 * f).abs() < 1e-3 * c0);
        let c1 = s.cwnd();
        // Within one srtt (= d µs after a first sample): no further cut.
        for k in 1..10 {
            s.on_ack(&ack(100.0 + k as f64, d * 3.0, 1000));
        }
        assert_eq!(s.cwnd(), c1);
        // After srtt: cut again, by at most max_mdf however large the delay.
        let srtt = s.srtt().us_f64();
        s.on_ack(&ack(100.0 + srtt + 0.01, 10_000.0, 1000));
        assert!((s.cwnd() - c1 * 0.5).abs() < 1e-6 * c1, "{} vs {}", s.cwnd(), c1 * 0.5);
    }

    #[test]
    fn srtt_is_an_ewma() {
        let mut s = swift();
        assert_eq!(s.srtt(), Time::from_us(10), "base RTT before samples");
        s.on_ack(&ack(0.0, 16.0, 1000));
        assert_eq!(s.srtt(), Time::from_us(16));
        s.on_ack(&ack(1.0, 24.0, 1000));
        assert_eq!(s.srtt(), Time::from_us(17));
    }

    #[test]
    fn sub_mss_window_is_paced() {
        let mut cfg = SwiftConfig::defaults_for(&env());
        cfg.init_cwnd = 250;
        let mut s = Swift::new(cfg, &env());
        s.on_ack(&ack(0.0, 1000.0, 0)); // srtt 1 ms, cut (0 acked) — check pacing formula
        let cw = s.cwnd();
        assert!(cw < 1000.0);
        // One MSS per srtt·MSS/cwnd.
        let interval = s.srtt().secs_f64() * 1000.0 / cw;
        let expect = 1000.0 * 8.0 / interval;
        assert!((s.rate().bps_f64() - expect).abs() < 2.0, "{} vs {expect}", s.rate().bps_f64());
        assert_eq!(s.window_bytes(), 1000, "the window admits one packet");
        // Below one MSS the increase is ai·acked.
        let mut cfg = SwiftConfig::defaults_for(&env());
        cfg.init_cwnd = 250;
        let mut s = Swift::new(cfg, &env());
        s.on_ack(&ack(0.0, 5.0, 100));
        assert!((s.cwnd() - 350.0).abs() < 1e-9);
    }

    #[test]
    fn fast_retransmit_and_rto() {
        let mut s = swift();
        let c0 = s.cwnd();
        s.on_nak(Time::from_us(1));
        assert!((s.cwnd() - c0 / 2.0).abs() < 1e-9);
        s.on_nak(Time::from_us(2)); // within srtt of the last decrease
        assert!((s.cwnd() - c0 / 2.0).abs() < 1e-9);
        s.on_rto(Time::from_us(3)); // within srtt: counted, no decrease
        assert_eq!(s.retransmit_count(), 1);
        assert!((s.cwnd() - c0 / 2.0).abs() < 1e-9);
        s.on_rto(Time::from_us(20)); // after srtt: decrease
        assert!((s.cwnd() - c0 / 4.0).abs() < 1e-9);
        for k in 0..3 {
            s.on_rto(Time::from_us(21 + k));
        }
        assert_eq!(s.retransmit_count(), 5);
        assert_eq!(s.cwnd(), 10.0, "reset to min_cwnd at the threshold");
        s.on_ack(&ack(100.0, 5.0, 1000));
        assert_eq!(s.retransmit_count(), 0, "new data resets the counter");
    }

    #[test]
    fn window_bounds() {
        let mut cfg = SwiftConfig::defaults_for(&env());
        cfg.max_cwnd = 130_000;
        let mut s = Swift::new(cfg, &env());
        for i in 0..100_000 {
            s.on_ack(&ack(i as f64 * 0.01, 5.0, 1000));
        }
        assert_eq!(s.cwnd(), 130_000.0);
        for i in 0..1000 {
            // RTT 1 s, one ACK per 2 s: every ACK may decrease (by at most max_mdf).
            s.on_ack(&ack(2000.0 + i as f64 * 2e6, 1e6, 1000));
        }
        assert_eq!(s.cwnd(), 10.0);
        assert!(s.rate().bps() >= 1);
    }

    /// Closed loop: 4 Swift flows (starting 100 µs apart) hold the RTT at the target delay for
    /// their window, with the link busy and fair shares.
    #[test]
    fn closed_loop_holds_delay_near_target() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::Swift), &e).unwrap(),
                start: Time::from_us(100 * i),
            })
            .collect();
        let r = Fluid::new_100g().run(flows, Time::from_ms(10), Time::from_ms(5));
        assert!(r.utilization > 0.95, "{r:?}");
        r.assert_fair_share(0.1);
        // Each window ≈ rate·RTT; the target for that window (one hop) should match the RTT.
        let s = swift();
        let cwnd = r.fair_share_bps / 8.0 * r.avg_rtt_us * 1e-6;
        let target = s.target_delay(cwnd, 1).us_f64();
        assert!(
            (r.avg_rtt_us - target).abs() < 0.1 * target,
            "RTT {} vs target {target}: {r:?}",
            r.avg_rtt_us
        );
        assert!(r.avg_rtt_us > 10.5, "a standing queue is kept: {r:?}");
    }
}
