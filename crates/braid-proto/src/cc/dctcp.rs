//! DCTCP (SIGCOMM'10) in two forms — `docs/baselines.md`, DCTCP.
//!
//! **[`Dctcp`], rate-based, as in HPCC-ns3** `rdma-hw.cc` `HandleAckDctcp` (`run.py --cc dctcp`),
//! `docs/baselines.md`, DCTCP, rate form. Per ACK:
//! - count ECN echoes;
//! - when `ack_seq > lastUpdateSeq` (a window of data is done) — "a new batch":
//!   on the first such ACK just start a batch (`batchSize = snd_nxt/MTU + 1`), otherwise
//!   `α ← (1−g)α + g·min(1, ecnCnt/batchSize)`, reset the count,
//!   `batchSize = (snd_nxt − ack)/MTU + 1`; then `lastUpdateSeq = snd_nxt`;
//! - leave CWR once `ack > highSeq`;
//! - ECN echo while not in CWR: `R ← max(R_min, R(1 − α/2))`, enter CWR, `highSeq = snd_nxt`;
//! - not in CWR and a new batch started: `R ← min(line, R + R_AI)`.
//!
//! The window is HPCC-ns3's `HAS_WIN`/`VAR_WIN`: `max_bdp × R / line`.
//!
//! **[`DctcpWindow`], window-based, as in the DCTCP paper**, `docs/baselines.md`, DCTCP, window
//! form. Per ACK:
//! - accumulate acknowledged and CE-marked bytes; when `ack_seq` passes the end of the current
//!   observation window (`snd_nxt` when it began), `α ← (1−g)α + g·F` with `F` the marked fraction;
//! - leave CWR once `ack_seq` passes the `snd_nxt` recorded at the last cut;
//! - on a mark while not in CWR (the first mark of a window): `cwnd ← cwnd(1 − α/2)` and enter CWR;
//! - otherwise, when not in CWR, Reno additive increase `cwnd += ai·MSS·acked/cwnd` (≈ `ai` MSS per
//!   RTT), or slow start `cwnd += acked` below `ssthresh` (only after an RTO).
//!
//! Interpretations:
//! - Both forms start at line rate / one BDP, with no slow start (§0). The rate form's `α` starts
//!   at 1 as in HPCC-ns3; the window form's `α` starts at `alpha_init` (default 1, as Linux).
//! - Window form: a duplicate ACK (0 newly acknowledged bytes) still stands for one delivered
//!   packet, so it weighs one MTU in `F`.
//! - Window form, losses: `on_nak` is a Reno fast-retransmit halving (once per window, shares the
//!   CWR state with ECN cuts); `on_rto` sets `ssthresh = max(cwnd/2, 2 MSS)`, `cwnd = 1 MSS` and
//!   slow-starts back. The rate form ignores losses, like its reference code.
//! - The window form paces at line rate.

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{Knob, Rate, Time};

const ALGO_RATE: &str = "dctcp";
const ALGO_WIN: &str = "dctcp-window";

cc_algorithm!(Dctcp: ALGO_RATE, DctcpConfig, false, |c, e| Dctcp::new(c, e));
cc_algorithm!(DctcpWindow: ALGO_WIN, DctcpWindowConfig, false, |c, e| Ok(DctcpWindow::new(c, e)));

/// Parameters of the rate-based [`Dctcp`] (`docs/baselines.md`, DCTCP, rate form; defaults are
/// `run.py --cc dctcp`).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpConfig {
    /// `g` (EWMA_GAIN). Default 1/16.
    pub g: f64,
    /// `R_AI` (DCTCP_RATE_AI) per batch. Default 615 Mb/s (1 MTU per 13 µs RTT; not scaled).
    pub rate_ai: Rate,
    /// R_min (MIN_RATE). Default 1000 Mb/s.
    pub min_rate: Rate,
    /// Initial α. Default 1.
    pub alpha_init: f64,
    /// HAS_WIN. Default true.
    pub window: bool,
    /// VAR_WIN. Default true.
    pub var_win: bool,
    /// With `window`, compute `W × R` in wrapping unsigned 64 bits as the ns-3 fork does
    /// (`window_wrap`; default false).
    pub window_wrap: bool,
}

impl DctcpConfig {
    /// Knob names accepted by [`DctcpConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] =
        &["g", "rate_ai", "min_rate", "alpha_init", "window", "var_win", "window_wrap"];

    /// The `run.py --cc dctcp` defaults.
    pub fn defaults_for(_env: &CcEnv) -> DctcpConfig {
        DctcpConfig {
            g: 1.0 / 16.0,
            rate_ai: Rate::from_bps(615_000_000),
            min_rate: Rate::from_bps(1_000_000_000),
            alpha_init: 1.0,
            window: true,
            var_win: true,
            window_wrap: false,
        }
    }

    /// Sets one knob by name.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        const A: &str = ALGO_RATE;
        match key {
            "g" => self.g = knob::float_in(A, key, v, 0.0, true, 1.0)?,
            "rate_ai" => self.rate_ai = knob::nonneg_rate(A, key, v)?,
            "min_rate" => self.min_rate = knob::pos_rate(A, key, v)?,
            "alpha_init" => self.alpha_init = knob::float_in(A, key, v, 0.0, false, 1.0)?,
            "window" => self.window = knob::boolean(A, key, v)?,
            "var_win" => self.var_win = knob::boolean(A, key, v)?,
            "window_wrap" => self.window_wrap = knob::boolean(A, key, v)?,
            _ => return Err(knob::unknown(A, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// Cross-field checks (none needed).
    pub fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Rate-based DCTCP of one flow (HPCC-ns3). See the module docs.
#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    line_bps: f64,
    min_rate_bps: f64,
    max_bdp_bytes: u64,
    mtu_bytes: u64,
    rate_bps: f64,
    alpha: f64,
    ecn_cnt: u64,
    batch_size: u64,
    last_update_seq: u64,
    started: bool,
    in_cwr: bool,
    high_seq: u64,
}

impl Dctcp {
    /// A flow at line rate.
    pub fn new(cfg: DctcpConfig, env: &CcEnv) -> Result<Dctcp, String> {
        if cfg.window && env.max_bdp_bytes == 0 {
            return Err(
                "dctcp with its window needs a positive maximum BDP in the environment".into()
            );
        }
        let line = env.line_rate.bps_f64();
        Ok(Dctcp {
            line_bps: line,
            min_rate_bps: cfg.min_rate.bps_f64().min(line),
            max_bdp_bytes: env.max_bdp_bytes,
            mtu_bytes: env.mtu_bytes.max(1) as u64,
            rate_bps: line,
            alpha: cfg.alpha_init,
            ecn_cnt: 0,
            batch_size: 1,
            last_update_seq: 0,
            started: false,
            in_cwr: false,
            high_seq: 0,
            cfg,
        })
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// In congestion window reduction (at most one cut per window of data).
    pub fn in_cwr(&self) -> bool {
        self.in_cwr
    }

    /// The parameters in use.
    pub fn config(&self) -> &DctcpConfig {
        &self.cfg
    }
}

impl CongestionControl for Dctcp {
    /// Processes an ACK.
    fn on_ack(&mut self, ev: &AckEvent) {
        let ack = ev.ack_seq_bytes;
        let snd_nxt = ev.snd_nxt_bytes;
        if ev.ecn {
            self.ecn_cnt += 1;
        }
        let mut new_batch = false;
        if !self.started || ack > self.last_update_seq {
            new_batch = true;
            if !self.started {
                self.started = true;
                self.batch_size = snd_nxt / self.mtu_bytes + 1;
            } else {
                let frac = (self.ecn_cnt as f64 / self.batch_size as f64).min(1.0);
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * frac;
                self.ecn_cnt = 0;
                self.batch_size = snd_nxt.saturating_sub(ack) / self.mtu_bytes + 1;
            }
            self.last_update_seq = snd_nxt;
        }
        if self.in_cwr && ack > self.high_seq {
            self.in_cwr = false;
        }
        if ev.ecn && !self.in_cwr {
            self.rate_bps = (self.rate_bps * (1.0 - self.alpha / 2.0)).max(self.min_rate_bps);
            self.in_cwr = true;
            self.high_seq = snd_nxt;
        }
        if !self.in_cwr && new_batch {
            self.rate_bps = (self.rate_bps + self.cfg.rate_ai.bps_f64()).min(self.line_bps);
        }
    }
    super::rate_scheme_rate_and_window!(rate_bps);
}

/// Parameters of the window-based [`DctcpWindow`] (`docs/baselines.md`, DCTCP, window form).
#[derive(Clone, Debug, PartialEq)]
pub struct DctcpWindowConfig {
    /// `g`. Default 1/16.
    pub g: f64,
    /// Initial α. Default 1.
    pub alpha_init: f64,
    /// Initial window, bytes. Default one BDP of the flow (`base_rtt × line`), at least 1 MSS.
    pub init_cwnd: u64,
    /// Smallest window, bytes. Default 1 MSS.
    pub min_cwnd: u64,
    /// Largest window, bytes. Default unlimited.
    pub max_cwnd: u64,
    /// Additive increase, MSS per RTT. Default 1.
    pub ai: f64,
}

impl DctcpWindowConfig {
    /// Knob names accepted by [`DctcpWindowConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] =
        &["g", "alpha_init", "init_cwnd", "min_cwnd", "max_cwnd", "ai"];

    /// The defaults for `env`.
    pub fn defaults_for(env: &CcEnv) -> DctcpWindowConfig {
        let mss = env.mtu_bytes as u64;
        DctcpWindowConfig {
            g: 1.0 / 16.0,
            alpha_init: 1.0,
            init_cwnd: env.bdp_bytes().max(mss).max(1),
            min_cwnd: mss.max(1),
            max_cwnd: u64::MAX,
            ai: 1.0,
        }
    }

    /// Sets one knob by name (window sizes as plain bytes or `"64KB"`).
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        const A: &str = ALGO_WIN;
        match key {
            "g" => self.g = knob::float_in(A, key, v, 0.0, true, 1.0)?,
            "alpha_init" => self.alpha_init = knob::float_in(A, key, v, 0.0, false, 1.0)?,
            "init_cwnd" => self.init_cwnd = knob::pos_bytes(A, key, v)?,
            "min_cwnd" => self.min_cwnd = knob::pos_bytes(A, key, v)?,
            "max_cwnd" => self.max_cwnd = knob::pos_bytes(A, key, v)?,
            "ai" => self.ai = knob::float_in(A, key, v, 0.0, false, 1e6)?,
            _ => return Err(knob::unknown(A, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// `min_cwnd ≤ max_cwnd`.
    pub fn check(&self) -> Result<(), String> {
        if self.min_cwnd > self.max_cwnd {
            return Err(knob::inconsistent(
                ALGO_WIN,
                format!(
                    "knob `min_cwnd` ({}) exceeds `max_cwnd` ({})",
                    self.min_cwnd, self.max_cwnd
                ),
            ));
        }
        Ok(())
    }
}

/// Window-based DCTCP of one flow. See the module docs.
#[derive(Clone, Debug)]
pub struct DctcpWindow {
    cfg: DctcpWindowConfig,
    line: Rate,
    mss: f64,
    cwnd: f64,
    ssthresh: f64,
    alpha: f64,
    /// End of the current α observation window (`snd_nxt` when it began).
    window_end: u64,
    acked_in_win: u64,
    marked_in_win: u64,
    started: bool,
    in_cwr: bool,
    cwr_end: u64,
    last_snd_nxt: u64,
}

impl DctcpWindow {
    /// A flow with `init_cwnd` (clamped to `[min_cwnd, max_cwnd]`), pacing at line rate.
    pub fn new(cfg: DctcpWindowConfig, env: &CcEnv) -> DctcpWindow {
        let cwnd = (cfg.init_cwnd.clamp(cfg.min_cwnd, cfg.max_cwnd)) as f64;
        DctcpWindow {
            line: env.line_rate,
            mss: env.mtu_bytes.max(1) as f64,
            cwnd,
            ssthresh: cwnd,
            alpha: cfg.alpha_init,
            window_end: 0,
            acked_in_win: 0,
            marked_in_win: 0,
            started: false,
            in_cwr: false,
            cwr_end: 0,
            last_snd_nxt: 0,
            cfg,
        }
    }

    fn clamp(&mut self) {
        self.cwnd = self.cwnd.max(self.cfg.min_cwnd as f64).min(self.cfg.max_cwnd as f64);
    }

    /// α.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// `cwnd` in bytes, unrounded.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    /// The parameters in use.
    pub fn config(&self) -> &DctcpWindowConfig {
        &self.cfg
    }
}

impl CongestionControl for DctcpWindow {
    /// Processes an ACK.
    fn on_ack(&mut self, ev: &AckEvent) {
        let ack = ev.ack_seq_bytes;
        self.last_snd_nxt = self.last_snd_nxt.max(ev.snd_nxt_bytes);
        let weight = if ev.newly_acked_bytes > 0 { ev.newly_acked_bytes } else { self.mss as u64 };
        self.acked_in_win = self.acked_in_win.saturating_add(weight);
        if ev.ecn {
            self.marked_in_win = self.marked_in_win.saturating_add(weight);
        }
        if !self.started {
            self.started = true;
            self.window_end = ev.snd_nxt_bytes;
        } else if ack > self.window_end {
            let f = if self.acked_in_win > 0 {
                (self.marked_in_win as f64 / self.acked_in_win as f64).min(1.0)
            } else {
                0.0
            };
            self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g * f;
            self.acked_in_win = 0;
            self.marked_in_win = 0;
            self.window_end = ev.snd_nxt_bytes;
        }
        if self.in_cwr && ack > self.cwr_end {
            self.in_cwr = false;
        }
        if ev.ecn && !self.in_cwr {
            self.cwnd *= 1.0 - self.alpha / 2.0;
            self.clamp();
            self.ssthresh = self.cwnd;
            self.in_cwr = true;
            self.cwr_end = ev.snd_nxt_bytes;
        } else if !self.in_cwr && ev.newly_acked_bytes > 0 {
            let acked = ev.newly_acked_bytes as f64;
            if self.cwnd < self.ssthresh {
                self.cwnd = (self.cwnd + acked).min(self.ssthresh.max(self.cwnd));
            } else {
                self.cwnd += self.cfg.ai * self.mss * acked / self.cwnd;
            }
            self.clamp();
        }
    }
    /// Reno fast-retransmit halving, at most once per window (shares the CWR state with ECN).
    fn on_nak(&mut self, _now: Time) {
        if self.in_cwr {
            return;
        }
        self.cwnd /= 2.0;
        self.clamp();
        self.ssthresh = self.cwnd;
        self.in_cwr = true;
        self.cwr_end = self.last_snd_nxt;
    }
    /// Timeout: `ssthresh = max(cwnd/2, 2 MSS)`, `cwnd = 1 MSS` (at least `min_cwnd`), slow start.
    fn on_rto(&mut self, _now: Time) {
        self.ssthresh = (self.cwnd / 2.0).max(2.0 * self.mss);
        self.cwnd = self.mss;
        self.clamp();
        self.in_cwr = false;
        self.cwr_end = self.last_snd_nxt;
    }
    /// Line rate (the window is the only limit).
    #[inline]
    fn rate(&self) -> Rate {
        self.line
    }
    /// `cwnd` in bytes.
    #[inline]
    fn window_bytes(&self) -> u64 {
        (self.cwnd as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::fluid::{self, FlowSpec, Fluid};
    use crate::cc::CongestionControl;
    use crate::cc::{Cc, CcConfig, CcKind};

    const LINE: f64 = 100e9;

    fn env() -> CcEnv {
        fluid::env_100g() // BDP 125 KB
    }

    fn ev(ack: u64, snd_nxt: u64, ecn: bool) -> AckEvent<'static> {
        AckEvent {
            now: Time::ZERO,
            newly_acked_bytes: 1000,
            ack_seq_bytes: ack,
            snd_nxt_bytes: snd_nxt,
            ecn,
            rtt: None,
            int: None,
            hops: 1,
        }
    }

    /// Rate form: each "window" is 10 packets (10 KB in flight, so `batchSize` is 10); `marks`
    /// of them carry ECN.
    fn rate_window(d: &mut Dctcp, seq: &mut u64, marks: usize) {
        for i in 0..10 {
            *seq += 1000;
            d.on_ack(&ev(*seq, *seq + 9_000, i < marks));
        }
    }

    #[test]
    fn rate_form_alpha_converges_to_marked_fraction() {
        let mut d = Dctcp::new(DctcpConfig::defaults_for(&env()), &env()).unwrap();
        assert_eq!(d.alpha(), 1.0);
        let mut seq = 0;
        for _ in 0..300 {
            rate_window(&mut d, &mut seq, 3);
        }
        // batchSize = (snd_nxt − ack)/MTU + 1 = 10 and a batch spans 10 ACKs: F = 0.3.
        assert!((d.alpha() - 0.3).abs() < 1e-6, "{}", d.alpha());
    }

    #[test]
    fn rate_form_cuts_once_per_window_then_increases_per_batch() {
        let mut d = Dctcp::new(DctcpConfig::defaults_for(&env()), &env()).unwrap();
        // First ACK (unmarked): starts the first batch; AI capped at line rate.
        d.on_ack(&ev(1000, 10_000, false));
        assert_eq!(d.rate(), Rate::from_gbps(100));
        // Marked ACK: R ← R(1 − α/2) with α = 1, CWR until ack > snd_nxt (11 000).
        d.on_ack(&ev(2000, 11_000, true));
        assert!((d.rate().bps_f64() - LINE / 2.0).abs() < 2.0);
        assert!(d.in_cwr());
        // More marks in the same window: no further cut.
        d.on_ack(&ev(3000, 12_000, true));
        d.on_ack(&ev(9000, 12_000, true));
        assert!((d.rate().bps_f64() - LINE / 2.0).abs() < 2.0);
        // ack 11 000 > lastUpdateSeq (10 000): new batch → α update (no AI: still in CWR).
        d.on_ack(&ev(11_000, 13_000, false));
        assert!(d.in_cwr());
        // ack 11 001 > highSeq 11 000: leave CWR; not a new batch (lastUpdateSeq = 13 000): no AI.
        d.on_ack(&ev(11_001, 13_000, false));
        assert!(!d.in_cwr());
        assert!((d.rate().bps_f64() - LINE / 2.0).abs() < 2.0);
        // Next batch: + R_AI.
        d.on_ack(&ev(13_001, 14_000, false));
        assert!((d.rate().bps_f64() - (LINE / 2.0 + 615e6)).abs() < 2.0);
        // Window follows the rate.
        let w = (125_000.0 * d.rate().bps_f64() / LINE).floor() as u64;
        assert!(d.window_bytes().abs_diff(w) <= 1);
    }

    #[test]
    fn rate_form_floors_at_min_rate() {
        let mut d = Dctcp::new(DctcpConfig::defaults_for(&env()), &env()).unwrap();
        let mut seq = 0;
        for _ in 0..200 {
            rate_window(&mut d, &mut seq, 10);
        }
        assert_eq!(d.rate(), Rate::from_bps(1_000_000_000));
    }

    fn win() -> DctcpWindow {
        DctcpWindow::new(DctcpWindowConfig::defaults_for(&env()), &env())
    }

    #[test]
    fn window_form_starts_at_bdp() {
        let w = win();
        assert_eq!(w.window_bytes(), 125_000);
        assert_eq!(w.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn window_form_alpha_converges_to_marked_byte_fraction() {
        let mut w = win();
        let mut cfg = DctcpWindowConfig::defaults_for(&env());
        cfg.alpha_init = 0.0;
        let mut w0 = DctcpWindow::new(cfg, &env());
        let mut seq = 0u64;
        for _round in 0..400 {
            // A window of 20 packets, 5 marked (25 %).
            let end = seq + 20_000;
            for i in 0..20 {
                seq += 1000;
                let e = ev(seq, end + 1000, i % 4 == 0);
                w.on_ack(&e);
                w0.on_ack(&e);
            }
        }
        assert!((w.alpha() - 0.25).abs() < 0.02, "{}", w.alpha());
        assert!((w0.alpha() - 0.25).abs() < 0.02, "{}", w0.alpha());
    }

    #[test]
    fn window_form_one_cut_per_window_and_reno_ai() {
        let mut w = win();
        let c0 = w.cwnd();
        w.on_ack(&ev(1000, 126_000, false));
        // Reno AI: + MSS·acked/cwnd.
        let c1 = c0 + 1000.0 * 1000.0 / c0;
        assert!((w.cwnd() - c1).abs() < 1e-6);
        // First mark: cwnd(1 − α/2), α = 1.
        w.on_ack(&ev(2000, 127_000, true));
        assert!((w.cwnd() - c1 / 2.0).abs() < 1e-6);
        // Further marks in the same window: nothing (and no AI while in CWR).
        for k in 3..100 {
            w.on_ack(&ev(k * 1000, 127_000, true));
        }
        assert!((w.cwnd() - c1 / 2.0).abs() < 1e-6);
        // Past the recorded snd_nxt: a new mark cuts again with the updated α.
        w.on_ack(&ev(127_001, 190_000, true));
        assert!(w.cwnd() < c1 / 2.0);
    }

    #[test]
    fn window_form_ai_is_one_mss_per_rtt() {
        let mut w = win();
        let c0 = w.cwnd();
        let mut seq = 0;
        // One RTT worth of ACKs (cwnd bytes).
        let n = (c0 / 1000.0) as u64;
        for _ in 0..n {
            seq += 1000;
            w.on_ack(&ev(seq, seq + 125_000, false));
        }
        assert!((w.cwnd() - c0 - 1000.0).abs() < 10.0, "{} → {}", c0, w.cwnd());
    }

    #[test]
    fn window_form_losses() {
        let mut w = win();
        w.on_ack(&ev(1000, 126_000, false));
        let c = w.cwnd();
        w.on_nak(Time::ZERO);
        assert!((w.cwnd() - c / 2.0).abs() < 1e-6);
        w.on_nak(Time::ZERO);
        assert!((w.cwnd() - c / 2.0).abs() < 1e-6, "once per window");
        w.on_rto(Time::ZERO);
        assert_eq!(w.window_bytes(), 1000);
        // Slow start (+acked per ACK) back up to ssthresh = c/4, then Reno AI.
        let mut seq = 130_000;
        for _ in 0..10 {
            seq += 1000;
            w.on_ack(&ev(seq, seq + 1000, false));
        }
        assert_eq!(w.cwnd(), 11_000.0);
        for _ in 0..90 {
            seq += 1000;
            w.on_ack(&ev(seq, seq + 1000, false));
        }
        assert!(w.cwnd() > c / 4.0 && w.cwnd() < c / 4.0 + 3000.0, "{}", w.cwnd());
        // Bounds.
        let mut cfg = DctcpWindowConfig::defaults_for(&env());
        cfg.min_cwnd = 5000;
        let mut w = DctcpWindow::new(cfg, &env());
        w.on_rto(Time::ZERO);
        assert_eq!(w.window_bytes(), 5000);
    }

    /// Closed loop: 4 rate-based DCTCP flows with K = 300 KB step marking converge to ≈ C/4.
    #[test]
    fn rate_form_closed_loop_fair_share() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::Dctcp), &e).unwrap(),
                start: Time::from_us(200 * i),
            })
            .collect();
        let model = Fluid { red: (300_000.0, 300_000.0, 1.0), ..Fluid::new_100g() };
        let r = model.run(flows, Time::from_ms(12), Time::from_ms(6));
        r.assert_fair_share(0.15);
        assert!(r.utilization > 0.9, "{r:?}");
    }

    /// Closed loop: 4 window-based DCTCP flows with step marking at K = 100 KB (the paper's 65
    /// packets at 10 Gb/s, scaled by BDP) converge to ≈ C/4 with a queue around K. Up to 1 µs of
    /// RTT jitter breaks the phase locking of self-clocked windows in this deterministic model
    /// (without it, one flow can sit in the marked phase for a long time).
    #[test]
    fn window_form_closed_loop_fair_share() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::DctcpWindow), &e).unwrap(),
                start: Time::from_us(200 * i),
            })
            .collect();
        let k = 100_000.0;
        let model = Fluid { red: (k, k, 1.0), jitter: Time::from_us(1), ..Fluid::new_100g() };
        let r = model.run(flows, Time::from_ms(40), Time::from_ms(20));
        r.assert_fair_share(0.15);
        assert!(r.utilization > 0.9, "{r:?}");
        assert!(r.avg_queue_bytes < 2.0 * k, "{r:?}");
    }
}
