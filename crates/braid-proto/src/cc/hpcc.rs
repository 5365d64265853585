//! HPCC (SIGCOMM'19) as in HPCC-ns3 `rdma-hw.cc` (`HandleAckHp`, `UpdateRateHp`, `FastReactHp`),
//! single-rate mode (`MULTI_RATE 0`, `SAMPLE_FEEDBACK 0`) with `run.py --cc hp` defaults —
//! See `docs/baselines.md`, HPCC.
//!
//! Per ACK carrying INT, with `T` the reference RTT and `B_i` the hop's line rate:
//! - the first ACK stores the INT records and sets `lastUpdateSeq = snd_nxt`;
//! - otherwise, per hop `i` (matched by index with the previous ACK's records):
//!   `τ = ts_i − ts_prev_i`, `txRate = (bytes_i − bytes_prev_i)/τ`,
//!   `u_i = txRate/B_i + min(q_i, q_prev_i)/(B_i·T)`; the hop with the largest `u_i` gives `(u, τ)`;
//! - `τ ← min(τ, T)`, `U ← (U(T−τ) + u·τ)/T`;
//! - if `U/η ≥ 1` or `incStage ≥ maxStage`: `R = Rc/(U/η) + W_AI`, stage 0; else `R = Rc + W_AI`,
//!   stage + 1; `R` clamped to `[R_min, line]` and applied at once;
//! - commit: if `ack_seq > lastUpdateSeq` (one RTT of feedback), `Rc = R`, the stage is kept and
//!   `lastUpdateSeq = snd_nxt`; otherwise (fast react) only the rate changes.
//!
//! Window (HAS_WIN, VAR_WIN): `W_eff = max_bdp × R / line`, at least 1 byte.
//!
//! Interpretations:
//! - `T` is the env's `max_rtt` (`GLOBAL_T 1`) for both the EWMA and the queue term. (The reference
//!   code's queue term uses `W/line`, which equals `max_rtt` when `W = max_bdp`.)
//! - A hop whose timestamp did not advance (`τ = 0`) or whose rate is 0 is skipped and its previous
//!   record kept, instead of dividing by zero. If the number of hops changes (a path change), the
//!   new records are stored as a fresh baseline and no rate update is made for that ACK (the commit
//!   point still advances on a full update). ACKs without INT are ignored.
//! - With `U = 0` (only possible with no traffic at all) the multiplicative step goes straight to
//!   line rate, as the reference's `Rc / 0` does.
//! - Loss signals and timeouts do not change the rate (the reference only rewinds `snd_nxt`).

use super::knob;
use super::{AckEvent, CcEnv, CongestionControl};
use braid_core::{IntHop, IntStack, Knob, Rate, Time};

const ALGO: &str = "hpcc";

cc_algorithm!(Hpcc: ALGO, HpccConfig, true, |c, e| Hpcc::new(c, e));

/// Parameters of [`Hpcc`] (`docs/baselines.md`, HPCC; defaults are `run.py --cc hp`).
#[derive(Clone, Debug, PartialEq)]
pub struct HpccConfig {
    /// η (U_TARGET): target utilisation. Default 0.95.
    pub eta: f64,
    /// maxStage (MI_THRESH): additive-increase rounds before a multiplicative step. Default 0.
    pub max_stage: u32,
    /// W_AI (RATE_AI in HPCC mode). Default 10 Mb/s × bw/25 (40 Mb/s at 100 Gb/s).
    pub w_ai: Rate,
    /// R_min (MIN_RATE). Default 1000 Mb/s.
    pub min_rate: Rate,
    /// FAST_REACT: update the rate on every ACK, committing once per RTT. Default true.
    pub fast_react: bool,
    /// HAS_WIN. Default true.
    pub window: bool,
    /// VAR_WIN. Default true.
    pub var_win: bool,
    /// With `window`, compute `W × R` in wrapping unsigned 64 bits as the ns-3 fork does
    /// (`window_wrap`; default false).
    pub window_wrap: bool,
    /// Initial `U`. Default 1.0.
    pub u_init: f64,
}

impl HpccConfig {
    /// Knob names accepted by [`HpccConfig::apply_knob`].
    pub const KNOBS: &'static [&'static str] = &[
        "eta",
        "max_stage",
        "w_ai",
        "min_rate",
        "fast_react",
        "window",
        "var_win",
        "window_wrap",
        "u_init",
    ];

    /// The `run.py` defaults with `W_AI` scaled to the env's line rate.
    pub fn defaults_for(env: &CcEnv) -> HpccConfig {
        let bw = env.line_rate.gbps_f64();
        HpccConfig {
            eta: 0.95,
            max_stage: 0,
            w_ai: Rate::from_bps_f64(10e6 * bw / 25.0),
            min_rate: Rate::from_bps(1_000_000_000),
            fast_react: true,
            window: true,
            var_win: true,
            window_wrap: false,
            u_init: 1.0,
        }
    }

    /// Sets one knob by name.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "eta" => self.eta = knob::float_in(ALGO, key, v, 0.0, true, 1.0)?,
            "max_stage" => self.max_stage = knob::uint32(ALGO, key, v)?,
            "w_ai" => self.w_ai = knob::nonneg_rate(ALGO, key, v)?,
            "min_rate" => self.min_rate = knob::pos_rate(ALGO, key, v)?,
            "fast_react" => self.fast_react = knob::boolean(ALGO, key, v)?,
            "window" => self.window = knob::boolean(ALGO, key, v)?,
            "var_win" => self.var_win = knob::boolean(ALGO, key, v)?,
            "window_wrap" => self.window_wrap = knob::boolean(ALGO, key, v)?,
            "u_init" => self.u_init = knob::float_in(ALGO, key, v, 0.0, false, 1e6)?,
            _ => return Err(knob::unknown(ALGO, key, Self::KNOBS)),
        }
        Ok(())
    }

    /// Cross-field checks (none needed).
    pub fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// The HPCC sender state of one flow. See the module docs.
#[derive(Clone, Debug)]
pub struct Hpcc {
    cfg: HpccConfig,
    line_bps: f64,
    min_rate_bps: f64,
    max_bdp_bytes: u64,
    /// `T` in picoseconds.
    t_ps: f64,
    /// Current rate, bits/s.
    rate_bps: f64,
    /// `Rc`, the committed reference rate.
    rc_bps: f64,
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    started: bool,
    prev: [IntHop; IntStack::MAX_HOPS],
    prev_n: u8,
}

impl Hpcc {
    /// A flow at line rate. Fails if the env lacks `max_rtt` (or `max_bdp` with the window on).
    pub fn new(cfg: HpccConfig, env: &CcEnv) -> Result<Hpcc, String> {
        if env.max_rtt == Time::ZERO {
            return Err("hpcc needs a positive maximum RTT (T) in the environment".into());
        }
        if cfg.window && env.max_bdp_bytes == 0 {
            return Err(
                "hpcc with its window needs a positive maximum BDP in the environment".into()
            );
        }
        let line = env.line_rate.bps_f64();
        Ok(Hpcc {
            line_bps: line,
            min_rate_bps: cfg.min_rate.bps_f64().min(line),
            max_bdp_bytes: env.max_bdp_bytes,
            t_ps: env.max_rtt.ps() as f64,
            rate_bps: line,
            rc_bps: line,
            u: cfg.u_init,
            inc_stage: 0,
            last_update_seq: 0,
            started: false,
            prev: [IntHop::default(); IntStack::MAX_HOPS],
            prev_n: 0,
            cfg,
        })
    }

    fn store(&mut self, hops: &[IntHop]) {
        let n = hops.len().min(IntStack::MAX_HOPS);
        self.prev[..n].copy_from_slice(&hops[..n]);
        self.prev_n = n as u8;
    }

    fn update(&mut self, int: &IntStack, snd_nxt: u64, fast: bool) {
        let hops = int.as_slice();
        if !self.started {
            self.started = true;
            self.last_update_seq = snd_nxt;
            self.store(hops);
            return;
        }
        if hops.len() != self.prev_n as usize {
            self.store(hops);
        } else {
            let mut best_u = 0.0f64;
            let mut best_tau = 0.0f64;
            let mut any = false;
            for (h, p) in hops.iter().zip(self.prev.iter_mut()) {
                if h.ts <= p.ts || h.rate_mbps == 0 {
                    continue;
                }
                let tau_ps = (h.ts - p.ts).ps() as f64;
                let b = h.rate_mbps as f64 * 1e6;
                let tx_rate = h.tx_bytes.saturating_sub(p.tx_bytes) as f64 * 8.0 / (tau_ps * 1e-12);
                let qmin = h.qlen_bytes.min(p.qlen_bytes) as f64;
                let u = tx_rate / b + qmin * 8.0 / (b * self.t_ps * 1e-12);
                if u > best_u {
                    best_u = u;
                    best_tau = tau_ps;
                }
                any = true;
                *p = *h;
            }
            if any {
                let tau = best_tau.min(self.t_ps);
                self.u = (self.u * (self.t_ps - tau) + best_u * tau) / self.t_ps;
                let max_c = self.u / self.cfg.eta;
                let (new_rate, new_stage) = if max_c >= 1.0 || self.inc_stage >= self.cfg.max_stage
                {
                    let r = if max_c > 0.0 { self.rc_bps / max_c } else { self.line_bps };
                    (r + self.cfg.w_ai.bps_f64(), 0)
                } else {
                    (self.rc_bps + self.cfg.w_ai.bps_f64(), self.inc_stage.saturating_add(1))
                };
                let new_rate = new_rate.max(self.min_rate_bps).min(self.line_bps);
                self.rate_bps = new_rate;
                if !fast {
                    self.rc_bps = new_rate;
                    self.inc_stage = new_stage;
                }
            }
        }
        if !fast && snd_nxt > self.last_update_seq {
            self.last_update_seq = snd_nxt;
        }
    }

    /// The committed reference rate `Rc`.
    pub fn reference_rate(&self) -> Rate {
        Rate::from_bps_f64(self.rc_bps)
    }

    /// The utilisation estimate `U`.
    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// The additive-increase stage.
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// The parameters in use.
    pub fn config(&self) -> &HpccConfig {
        &self.cfg
    }
}

impl CongestionControl for Hpcc {
    /// Processes an ACK carrying INT (ACKs without INT are ignored).
    fn on_ack(&mut self, ev: &AckEvent) {
        let Some(int) = ev.int else { return };
        let full = !self.started || ev.ack_seq_bytes > self.last_update_seq;
        if !full && !self.cfg.fast_react {
            return;
        }
        self.update(int, ev.snd_nxt_bytes, !full);
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
        fluid::env_100g() // T = 10 µs, W = 125 KB
    }

    fn hpcc() -> Hpcc {
        Hpcc::new(HpccConfig::defaults_for(&env()), &env()).unwrap()
    }

    /// A one-hop INT stack at time `t_ns` with cumulative bytes `tx` and queue `q`.
    fn int1(t_ns: u64, tx: u64, q: u32) -> IntStack {
        let mut s = IntStack::default();
        s.push(IntHop { ts: Time::from_ns(t_ns), tx_bytes: tx, qlen_bytes: q, rate_mbps: 100_000 });
        s
    }

    fn ack<'a>(int: &'a IntStack, ack_seq: u64, snd_nxt: u64) -> AckEvent<'a> {
        AckEvent {
            now: int.hops[0].ts,
            newly_acked_bytes: 1000,
            ack_seq_bytes: ack_seq,
            snd_nxt_bytes: snd_nxt,
            ecn: false,
            rtt: None,
            int: Some(int),
            hops: 1,
        }
    }

    #[test]
    fn defaults() {
        let c = HpccConfig::defaults_for(&env());
        assert_eq!(c.w_ai, Rate::from_bps(40_000_000));
        assert_eq!(c.eta, 0.95);
        assert_eq!(c.max_stage, 0);
        let h = hpcc();
        assert_eq!(h.window_bytes(), 125_000);
        assert_eq!(h.utilization(), 1.0);
    }

    #[test]
    fn overloaded_link_cuts_to_rc_over_u_eta() {
        let mut h = hpcc();
        // Link at 100 % with a standing queue of 50 KB: u = 1 + 50e3·8/(100e9 · 10e-6) = 1.4.
        let q = 50_000;
        let i0 = int1(0, 0, q);
        h.on_ack(&ack(&i0, 1000, 100_000));
        // A full RTT later (τ = T): U = u exactly.
        let i1 = int1(10_000, 125_000, q);
        h.on_ack(&ack(&i1, 100_001, 200_000));
        let u = 1.0 + 50_000.0 * 8.0 / (LINE * 10e-6);
        assert!((h.utilization() - u).abs() < 1e-9, "{}", h.utilization());
        let expect = LINE / (u / 0.95) + 40e6;
        assert!((h.rate().bps_f64() - expect).abs() < 2.0, "{} vs {expect}", h.rate().bps_f64());
        assert_eq!(h.reference_rate(), h.rate(), "full update commits Rc");
        let w = (125_000.0 * h.rate().bps_f64() / LINE).floor() as u64;
        assert!(h.window_bytes().abs_diff(w) <= 1);
    }

    #[test]
    fn ewma_weights_by_tau_over_t() {
        let mut h = hpcc();
        let i0 = int1(0, 0, 0);
        h.on_ack(&ack(&i0, 1000, 1000));
        // τ = T/4 at 50 % utilisation, no queue: U = 1·(3/4) + 0.5·(1/4).
        let i1 = int1(2_500, 15_625, 0);
        h.on_ack(&ack(&i1, 1001, 2000));
        assert!((h.utilization() - 0.875).abs() < 1e-9, "{}", h.utilization());
        // min(q, q_prev) uses the smaller queue: the new 1 MB queue is ignored against 0.
        let i2 = int1(5_000, 31_250, 1_000_000);
        h.on_ack(&ack(&i2, 2001, 3000));
        assert!((h.utilization() - (0.875 * 0.75 + 0.5 * 0.25)).abs() < 1e-9);
    }

    #[test]
    fn idle_link_grows_by_w_ai_per_commit() {
        let mut cfg = HpccConfig::defaults_for(&env());
        cfg.max_stage = 5; // allow additive rounds
        cfg.u_init = 0.1;
        let mut h = Hpcc::new(cfg, &env()).unwrap();
        // Start from a low committed rate: overload once.
        let i0 = int1(0, 0, 0);
        h.on_ack(&ack(&i0, 1, 1000));
        let i1 = int1(10_000, 125_000 * 4, 0); // u = 4 over a full T
        h.on_ack(&ack(&i1, 1001, 2000));
        let r0 = h.reference_rate().bps_f64();
        assert!(r0 < 30e9);
        // Now the link is at 10 % utilisation; each commit (ack_seq beyond last snd_nxt) adds W_AI
        // for max_stage rounds, then a multiplicative step.
        let mut t = 10_000;
        let mut tx = 125_000 * 4;
        let mut seq = 2000;
        for k in 1..=5u32 {
            t += 10_000;
            tx += 12_500;
            let i = int1(t, tx, 0);
            h.on_ack(&ack(&i, seq + 1, seq + 1000));
            seq += 1000;
            let expect = r0 + k as f64 * 40e6;
            assert!((h.reference_rate().bps_f64() - expect).abs() < 2.0, "k={k}");
            assert_eq!(h.inc_stage(), k);
        }
        // Stage reached max_stage: multiplicative increase Rc/(U/η) + W_AI, capped at line.
        t += 10_000;
        tx += 12_500;
        let i = int1(t, tx, 0);
        let rc = h.reference_rate().bps_f64();
        h.on_ack(&ack(&i, seq + 1, seq + 1000));
        let expect = (rc / (h.utilization() / 0.95) + 40e6).min(LINE);
        assert!((h.rate().bps_f64() - expect).abs() < 2.0);
        assert_eq!(h.inc_stage(), 0);
    }

    #[test]
    fn fast_react_changes_rate_but_does_not_commit() {
        let mut h = hpcc();
        let i0 = int1(0, 0, 0);
        h.on_ack(&ack(&i0, 1000, 100_000)); // lastUpdateSeq = 100 000
                                            // ack_seq ≤ lastUpdateSeq: fast react.
        let i1 = int1(10_000, 125_000, 100_000);
        h.on_ack(&ack(&i1, 50_000, 150_000));
        assert!(h.rate().bps_f64() < LINE, "rate reacts at once");
        assert_eq!(h.reference_rate(), Rate::from_gbps(100), "Rc is not committed");
        let r_fast = h.rate();
        // Another fast-react update still computes from the uncommitted Rc.
        let i2 = int1(20_000, 250_000, 100_000);
        h.on_ack(&ack(&i2, 60_000, 160_000));
        let u = h.utilization();
        let expect = LINE / (u / 0.95) + 40e6;
        assert!((h.rate().bps_f64() - expect).abs() < 2.0);
        assert!(h.rate() <= r_fast);
        // Past the commit point: commit.
        let i3 = int1(30_000, 375_000, 100_000);
        h.on_ack(&ack(&i3, 100_001, 170_000));
        assert_eq!(h.reference_rate(), h.rate());
        // With fast_react off, in-RTT ACKs are ignored entirely.
        let mut cfg = HpccConfig::defaults_for(&env());
        cfg.fast_react = false;
        let mut h = Hpcc::new(cfg, &env()).unwrap();
        h.on_ack(&ack(&i0, 1000, 100_000));
        h.on_ack(&ack(&i1, 50_000, 150_000));
        assert_eq!(h.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn most_congested_hop_wins_and_hops_match_by_index() {
        let mk = |t: u64, tx: [u64; 2], q: [u32; 2]| {
            let mut s = IntStack::default();
            for i in 0..2 {
                s.push(IntHop {
                    ts: Time::from_ns(t),
                    tx_bytes: tx[i],
                    qlen_bytes: q[i],
                    rate_mbps: 100_000,
                });
            }
            s
        };
        // Hop 0 at 40 % with no queue, hop 1 at 100 % with a 25 KB queue on both samples:
        // u0 = 0.4, u1 = 1 + 25e3·8/(100e9·10e-6) = 1.2; the larger wins.
        let a = mk(0, [0, 1_000_000], [0, 25_000]);
        let b = mk(10_000, [50_000, 1_125_000], [0, 25_000]);
        let mut h = hpcc();
        h.on_ack(&ack(&a, 1, 10));
        h.on_ack(&ack(&b, 11, 20));
        assert!((h.utilization() - 1.2).abs() < 1e-9, "{}", h.utilization());
        // Path change (hop count differs): baseline only.
        let mut h3 = hpcc();
        h3.on_ack(&ack(&a, 1, 10));
        let one = int1(10_000, 5, 5);
        h3.on_ack(&ack(&one, 11, 20));
        assert_eq!(h3.rate(), Rate::from_gbps(100));
        assert_eq!(h3.utilization(), 1.0);
        // Zero τ is skipped, not divided by.
        let mut h4 = hpcc();
        h4.on_ack(&ack(&a, 1, 10));
        h4.on_ack(&ack(&a, 11, 20));
        assert_eq!(h4.rate(), Rate::from_gbps(100));
    }

    #[test]
    fn rate_bounded_by_min_and_line() {
        // Absurd overload (a 4 GB standing queue) bottoms out at R_min.
        let i0 = int1(0, 0, u32::MAX);
        let i1 = int1(10_000, 125_000, u32::MAX);
        let mut h = hpcc();
        h.on_ack(&ack(&i0, 1, 10));
        h.on_ack(&ack(&i1, 11, 20));
        assert_eq!(h.rate(), Rate::from_bps(1_000_000_000));
        assert!(h.window_bytes() >= 1);
    }

    /// Closed loop: 4 flows (starting 100 µs apart) share a 100 Gb/s link; HPCC holds utilisation
    /// near η with a near-empty queue, and converges to fair shares (at the pace W_AI allows: the
    /// gap shrinks by ≈ N·W_AI/(ηC) per RTT, a ~6 ms time constant here).
    #[test]
    fn closed_loop_keeps_queue_near_zero_at_eta() {
        let e = fluid::env_100g();
        let flows: Vec<FlowSpec> = (0..4)
            .map(|i| FlowSpec {
                cc: Cc::new(&CcConfig::new(CcKind::Hpcc), &e).unwrap(),
                start: Time::from_us(100 * i),
            })
            .collect();
        let r = Fluid::new_100g().run(flows, Time::from_ms(25), Time::from_ms(15));
        assert!((r.utilization - 0.95).abs() < 0.02, "{r:?}");
        assert!(
            r.avg_queue_bytes < 5_000.0 && r.max_queue_bytes < 50_000.0,
            "queue should stay near zero: {r:?}"
        );
        r.assert_fair_share(0.15);
    }
}
