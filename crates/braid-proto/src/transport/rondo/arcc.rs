//! ARCC — ACK-rate-based congestion control (Rondo §4.2.1, Appendix C.2): the per-path window
//! update that runs every `Tu`. Pure arithmetic on one path's state; the sender
//! ([`super::RondoSender`]) counts the ACKs, knows the data in flight and calls
//! [`ArccPath::update`].
//!
//! Units: packets (one MTU-sized data packet = 1) and seconds, as `f64`.
//!
//! Update on path `p` with the interval's ACK-rate sample `s` (data + probe ACKs per second), the
//! data packets in flight `I` and the path's base RTT `T`:
//! 1. `r̂ ← s` on the first update, else the EWMA of [`AlphaSide`];
//! 2. pipe `C = r̂·T`, own queue `Q = I − C`, queueing delay `d = Q / r̂`;
//! 3. margin AIMD toward `τq`: `d < τq` ⇒ `q ← min(q0, q + q0/4)`, else `q ← q·τq/d`;
//! 4. target `W* = r̂·T + q`;
//! 5. first update, or `d > fast_drain·τq` (the queue is "large") ⇒ `W ← W*` (fast drain);
//!    otherwise `W ← (1 − γ)·W + γ·W*`.

/// Which side of the ACK-rate EWMA the smoothing parameter α weights. The paper gives α = 0.8
/// without saying; both are offered and compared in EXPERIMENTS.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaSide {
    /// `r̂ ← α·sample + (1 − α)·r̂` (α is the gain of the new sample).
    Sample,
    /// `r̂ ← α·r̂ + (1 − α)·sample` (α is the weight of the history).
    History,
}

/// ARCC's parameters for one flow, resolved to packets and seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArccParams {
    /// Margin cap `q0` (packets; default 3 MTU).
    pub q0: f64,
    /// Target queueing delay `τq` (default 0.04 × the network's largest base RTT).
    pub tau_q_s: f64,
    /// ACK-rate EWMA parameter α (default 0.8).
    pub alpha: f64,
    /// Which side α weights.
    pub alpha_side: AlphaSide,
    /// Window EWMA gain γ (default 0.5).
    pub gamma: f64,
    /// Initial window `W0` (packets).
    pub w0: f64,
    /// The queue is "large" (fast drain) when `d > fast_drain · τq`.
    pub fast_drain: f64,
    /// Smallest window (packets); the flow pacer turns windows below one packet into spacing.
    pub w_min: f64,
}

/// One path's ARCC state and the estimates of its last update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArccPath {
    /// Window `W_p` (packets).
    pub w: f64,
    /// Margin `q_p` (packets).
    pub q: f64,
    /// ACK-rate estimate `r̂_p`.
    pub rate_pkts_per_s: f64,
    /// Whether the first update (which seeds `r̂` and sets `W = W*`) has happened.
    pub seeded: bool,
    /// Last estimate of the own queue `Q_p` (packets; may be negative).
    pub queue: f64,
    /// Last estimate of the queueing delay `d_p` (may be negative or infinite).
    pub qdelay_s: f64,
    /// The last update used the direct (fast-drain) correction.
    pub fast: bool,
}

impl ArccPath {
    /// Initial state: `W = W0`, `q = q0/4`, no rate estimate.
    pub fn new(p: &ArccParams) -> ArccPath {
        ArccPath {
            w: p.w0,
            q: p.q0 / 4.0,
            rate_pkts_per_s: 0.0,
            seeded: false,
            queue: 0.0,
            qdelay_s: 0.0,
            fast: false,
        }
    }

    /// The EWMA of the rate estimate with a new sample (the sample itself before the first update).
    pub fn smoothed(&self, p: &ArccParams, sample: f64) -> f64 {
        if !self.seeded {
            return sample;
        }
        match p.alpha_side {
            AlphaSide::Sample => p.alpha * sample + (1.0 - p.alpha) * self.rate_pkts_per_s,
            AlphaSide::History => p.alpha * self.rate_pkts_per_s + (1.0 - p.alpha) * sample,
        }
    }

    /// One ARCC update (see the module docs): `sample` is the ACK rate measured over the last
    /// interval (packets/s), `inflight` the data packets outstanding on the path, `t` its base
    /// RTT (s).
    pub fn update(&mut self, p: &ArccParams, sample: f64, inflight: f64, t: f64) {
        let first = !self.seeded;
        self.rate_pkts_per_s = self.smoothed(p, sample).max(0.0);
        self.seeded = true;
        let pipe = self.rate_pkts_per_s * t;
        let queue = inflight - pipe;
        let d = if self.rate_pkts_per_s > 0.0 {
            queue / self.rate_pkts_per_s
        } else if queue > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        let a = p.q0 / 4.0;
        if d < p.tau_q_s {
            self.q = (self.q + a).min(p.q0);
        } else if d.is_finite() {
            self.q *= p.tau_q_s / d;
        } else {
            self.q = 0.0;
        }
        let target = pipe + self.q;
        self.fast = first || d > p.fast_drain * p.tau_q_s;
        self.w = if self.fast { target } else { (1.0 - p.gamma) * self.w + p.gamma * target };
        self.w = self.w.max(p.w_min);
        self.queue = queue;
        self.qdelay_s = d;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(side: AlphaSide) -> ArccParams {
        ArccParams {
            q0: 3.0,
            tau_q_s: 0.8e-6,
            alpha: 0.8,
            alpha_side: side,
            gamma: 0.5,
            w0: 2.0,
            fast_drain: 2.0,
            w_min: 1.0 / 16.0,
        }
    }

    #[test]
    fn first_update_sets_the_target_directly() {
        let p = params(AlphaSide::Sample);
        let mut a = ArccPath::new(&p);
        assert_eq!(a.q, 0.75);
        // 1 packet per µs for a 20 µs RTT, 20 in flight: no queue.
        a.update(&p, 1e6, 20.0, 20e-6);
        assert!(a.fast);
        assert!((a.rate_pkts_per_s - 1e6).abs() < 1e-6);
        assert!((a.w - (20.0 + 1.5)).abs() < 1e-9, "w {}", a.w);
    }

    #[test]
    fn margin_aimd_toward_tau_q() {
        let p = params(AlphaSide::Sample);
        let mut a = ArccPath::new(&p);
        a.update(&p, 1e6, 20.0, 20e-6);
        // No queue: q climbs by q0/4 to q0.
        for _ in 0..10 {
            a.update(&p, 1e6, 20.0, 20e-6);
        }
        assert_eq!(a.q, 3.0);
        // 4 µs of own queue (> τq = 0.8 µs, > 2τq): q ← q·τq/d and the window is set directly.
        a.update(&p, 1e6, 24.0, 20e-6);
        assert!((a.q - 3.0 * 0.8 / 4.0).abs() < 1e-9, "q {}", a.q);
        assert!(a.fast);
        assert!((a.w - (20.0 + a.q)).abs() < 1e-9);
        // A small queue (1 µs, between τq and 2τq): decrease but smooth the window.
        let w = a.w;
        a.update(&p, 1e6, 21.0, 20e-6);
        assert!(!a.fast);
        assert!((a.w - (0.5 * w + 0.5 * (20.0 + a.q))).abs() < 1e-9);
    }

    /// Fluid model of Appendix C.2: flows (one logical path each) through one bottleneck of
    /// capacity C with equal base RTT and windows fully used; the bottleneck serves flows in
    /// proportion to their windows once it is saturated. Returns (Jain index of the rate
    /// estimates, utilisation, queue in packets) after `updates` updates.
    fn fluid(side: AlphaSide, start: &[f64], updates: usize) -> (f64, f64, f64) {
        let p = params(side);
        let c = 25.0e6; // packets/s (100 Gb/s of 500-byte packets)
        let t = 20e-6;
        let mut flows: Vec<ArccPath> = start
            .iter()
            .map(|&w| {
                let mut a = ArccPath::new(&p);
                a.w = w;
                a
            })
            .collect();
        let mut queue = 0.0;
        for _ in 0..updates {
            let sum: f64 = flows.iter().map(|f| f.w).sum();
            let served = if sum > c * t { c } else { sum / t };
            queue = (sum - c * t).max(0.0);
            for f in flows.iter_mut() {
                let rate = served * f.w / sum;
                f.update(&p, rate, f.w, t);
            }
        }
        let rates: Vec<f64> = flows.iter().map(|f| f.rate_pkts_per_s).collect();
        let s: f64 = rates.iter().sum();
        let sq: f64 = rates.iter().map(|r| r * r).sum();
        (s * s / (rates.len() as f64 * sq), s / c, queue)
    }

    /// Prop 1: ARCC converges to the fair share geometrically, for either reading of α — but
    /// slowly (the contraction per update is about γ·τq/T once the margins agree), and the
    /// "history" reading, whose estimate lags more, converges more slowly still.
    #[test]
    fn fluid_model_converges_to_fair_share() {
        let start: Vec<f64> = (1..=8).map(|i| 10.0 * i as f64).collect();
        let (j_sample, util, queue) = fluid(AlphaSide::Sample, &start, 1000);
        assert!(j_sample > 0.99, "sample: Jain {j_sample}");
        assert!((util - 1.0).abs() < 0.01, "utilisation {util}");
        // Σq → τq·C = 20 packets (N·q0 = 24 ≥ 20, so the target is reachable).
        assert!((queue - 20.0).abs() < 3.0, "queue {queue}");
        let (j_hist, util, _) = fluid(AlphaSide::History, &start, 1000);
        assert!(j_hist > 0.95, "history: Jain {j_hist}");
        assert!((util - 1.0).abs() < 0.01);
        let (j_sample_200, _, _) = fluid(AlphaSide::Sample, &start, 200);
        let (j_hist_200, _, _) = fluid(AlphaSide::History, &start, 200);
        assert!(j_sample_200 > j_hist_200, "sample {j_sample_200} vs history {j_hist_200}");
        assert!(j_sample > j_sample_200);
    }
}
