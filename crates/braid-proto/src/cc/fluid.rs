//! A tiny fluid model of one bottleneck, for the closed-loop tests of the controllers (test only).
//!
//! One link of capacity `C` shared by `N` senders, advanced in steps of `dt`:
//! `q ← max(0, q + Σ sent − C·dt)`. Each sender is paced by its controller's rate (a token bucket of
//! at most two packets) and limited by its window (`snd_nxt − snd_una < window`). Every packet's
//! feedback is fixed when it is sent, from the queue it joins: RTT = base + q/C, CE mark with the
//! RED probability of `q` (or a step when `Kmin = Kmax`), and one INT hop record
//! `(ts = t + q/C, tx_bytes = served + q + MTU, qlen = q, C)` — consistent with a FIFO served at
//! `C`. The packet's ACK reaches the sender one RTT later (ACK order equals send order because
//! `t + q/C` never decreases; with `jitter`, an ACK also waits for the ACKs sent before it).
//! Senders take turns in a random rotation each step, so that none is
//! systematically ahead of the others in the queue. There are no losses.

use super::{AckEvent, Cc, CcEnv, CongestionControl};
use braid_core::{IntHop, IntStack, Rate, Time};
use std::collections::VecDeque;

/// The environment of the closed-loop tests: 100 Gb/s, 10 µs base RTT, one hop, 1000-byte MTU.
pub(crate) fn env_100g() -> CcEnv {
    CcEnv {
        line_rate: Rate::from_gbps(100),
        base_rtt: Time::from_us(10),
        max_rtt: Time::from_us(10),
        max_bdp_bytes: 125_000,
        mtu_bytes: 1000,
        tx_time_floor_ns: false,
    }
}

/// A sender of the model.
pub(crate) struct FlowSpec {
    /// Its controller.
    pub cc: Cc,
    /// When it starts sending.
    pub start: Time,
}

/// The bottleneck and the run parameters.
#[derive(Clone, Debug)]
pub(crate) struct Fluid {
    /// Capacity, bits/s.
    pub c_bps: f64,
    /// Base RTT (everything but queueing).
    pub base_rtt: Time,
    /// Packet size, bytes.
    pub mtu: u64,
    /// RED `(Kmin, Kmax, Pmax)` in bytes; `Kmin = Kmax` gives a step at K.
    pub red: (f64, f64, f64),
    /// Step.
    pub dt: Time,
    /// Marking RNG seed.
    pub seed: u64,
    /// Hops reported in ACKs.
    pub hops: u8,
    /// Each packet's RTT gets an extra uniform `[0, jitter)` (host/NIC noise that breaks the
    /// phase locking a deterministic model otherwise shows between self-clocked windows).
    pub jitter: Time,
    /// Print the state every this often (debugging, `--nocapture`).
    pub trace_every: Option<Time>,
}

/// What a run measured over `[measure_from, end)`.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    /// Goodput per flow, bits/s.
    pub rates_bps: Vec<f64>,
    /// `C / N`.
    pub fair_share_bps: f64,
    /// `Σ goodput / C`.
    pub utilization: f64,
    /// Time-averaged queue, bytes.
    pub avg_queue_bytes: f64,
    /// Largest queue, bytes.
    pub max_queue_bytes: f64,
    /// Average RTT sample seen by the senders.
    pub avg_rtt_us: f64,
    /// Largest RTT sample seen by the senders.
    pub max_rtt_us: f64,
}

impl Report {
    /// Every flow's goodput is within `tol` (relative) of `C / N`.
    pub fn assert_fair_share(&self, tol: f64) {
        for (i, r) in self.rates_bps.iter().enumerate() {
            let rel = (r - self.fair_share_bps).abs() / self.fair_share_bps;
            assert!(
                rel <= tol,
                "flow {i}: {:.2} Gb/s vs fair share {:.2} Gb/s ({:.1} % off)\n{self:?}",
                r / 1e9,
                self.fair_share_bps / 1e9,
                rel * 100.0
            );
        }
    }

    /// Every flow's goodput is within `tol` (relative) of the flows' mean goodput.
    pub fn assert_equal_shares(&self, tol: f64) {
        let mean = self.rates_bps.iter().sum::<f64>() / self.rates_bps.len().max(1) as f64;
        for (i, r) in self.rates_bps.iter().enumerate() {
            let rel = (r - mean).abs() / mean;
            assert!(
                rel <= tol,
                "flow {i}: {:.2} Gb/s vs mean {:.2} Gb/s ({:.1} % off)\n{self:?}",
                r / 1e9,
                mean / 1e9,
                rel * 100.0
            );
        }
    }
}

struct InFlight {
    arrive: Time,
    end: u64,
    ecn: bool,
    rtt: Time,
    int: IntStack,
}

struct Sender {
    cc: Cc,
    start: Time,
    credit: f64,
    snd_nxt: u64,
    acked: u64,
    acked_at_measure: u64,
    pipe: VecDeque<InFlight>,
}

struct XorShift(u64);
impl XorShift {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Fluid {
    /// 100 Gb/s, 10 µs base RTT, 1000-byte packets, 80 ns steps, RED off (set `red`).
    pub fn new_100g() -> Fluid {
        Fluid {
            c_bps: 100e9,
            base_rtt: Time::from_us(10),
            mtu: 1000,
            red: (f64::INFINITY, f64::INFINITY, 0.0),
            dt: Time::from_ns(80),
            seed: 0x9E37_79B9_7F4A_7C15,
            hops: 1,
            jitter: Time::ZERO,
            trace_every: None,
        }
    }

    fn mark_prob(&self, q: f64) -> f64 {
        let (kmin, kmax, pmax) = self.red;
        if q > kmax {
            1.0
        } else if q <= kmin || kmax <= kmin {
            0.0
        } else {
            pmax * (q - kmin) / (kmax - kmin)
        }
    }

    /// Runs the flows for `dur`, measuring from `measure_from`.
    pub fn run(&self, flows: Vec<FlowSpec>, dur: Time, measure_from: Time) -> Report {
        let n = flows.len();
        let mut senders: Vec<Sender> = flows
            .into_iter()
            .map(|f| Sender {
                cc: f.cc,
                start: f.start,
                credit: 0.0,
                snd_nxt: 0,
                acked: 0,
                acked_at_measure: 0,
                pipe: VecDeque::with_capacity(4096),
            })
            .collect();
        let mut rng = XorShift(self.seed | 1);
        let c_bytes_per_ps = self.c_bps / 8.0 / 1e12;
        let dt_ps = self.dt.ps() as f64;
        let cap_per_step = c_bytes_per_ps * dt_ps;
        let rate_mbps = (self.c_bps / 1e6) as u32;
        let mtu = self.mtu as f64;
        let (mut q, mut served) = (0.0f64, 0.0f64);
        let (mut q_sum, mut q_max, mut q_n) = (0.0, 0.0f64, 0u64);
        let (mut rtt_sum, mut rtt_n, mut rtt_max) = (0.0, 0u64, 0.0f64);
        let mut measuring = false;
        // `BRAID_FLUID_TRACE=<µs>` prints the state every that many µs (debugging aid).
        let trace_every = std::env::var("BRAID_FLUID_TRACE")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map(Time::from_us)
            .or(self.trace_every);
        let mut next_trace = trace_every.unwrap_or(Time::MAX);
        let steps = dur.ps() / self.dt.ps();
        for step in 0..steps {
            let t = Time::from_ps(step * self.dt.ps());
            if !measuring && t >= measure_from {
                measuring = true;
                for s in &mut senders {
                    s.acked_at_measure = s.acked;
                }
            }
            // ACKs due.
            for s in &mut senders {
                while s.pipe.front().is_some_and(|p| p.arrive <= t) {
                    let Some(p) = s.pipe.pop_front() else { break };
                    let newly = p.end.saturating_sub(s.acked);
                    s.acked = s.acked.max(p.end);
                    let ev = AckEvent {
                        now: t,
                        newly_acked_bytes: newly,
                        ack_seq_bytes: s.acked,
                        snd_nxt_bytes: s.snd_nxt,
                        ecn: p.ecn,
                        rtt: Some(p.rtt),
                        int: Some(&p.int),
                        hops: self.hops,
                    };
                    s.cc.on_ack(&ev);
                    if measuring {
                        rtt_sum += p.rtt.us_f64();
                        rtt_n += 1;
                        rtt_max = rtt_max.max(p.rtt.us_f64());
                    }
                }
            }
            // Timers due.
            for s in &mut senders {
                let mut guard = 0;
                while let Some(d) = s.cc.poll_timeout() {
                    if d > t {
                        break;
                    }
                    s.cc.on_timeout(t);
                    guard += 1;
                    assert!(guard < 100, "on_timeout({t}) did not consume the deadline {d}");
                }
            }
            // Sending, in a random rotation so that no sender is always first in the queue.
            let mut arrivals = 0.0;
            let first = (rng.next_f64() * n as f64) as usize;
            for k in 0..n {
                let s = &mut senders[(first + k) % n];
                if t < s.start {
                    continue;
                }
                let rate = s.cc.rate().bps_f64();
                s.credit = (s.credit + rate / 8.0 / 1e12 * dt_ps).min(2.0 * mtu);
                let win = s.cc.window_bytes();
                while s.credit >= mtu && s.snd_nxt - s.acked < win {
                    s.credit -= mtu;
                    let q_here = q + arrivals;
                    let qd = Time::from_ps((q_here / c_bytes_per_ps).round() as u64);
                    s.snd_nxt += self.mtu;
                    let mut int = IntStack::default();
                    int.push(IntHop {
                        ts: t + qd,
                        tx_bytes: (served + q_here + mtu) as u64,
                        qlen_bytes: q_here.min(u32::MAX as f64) as u32,
                        rate_mbps,
                    });
                    let noise = Time::from_ps((rng.next_f64() * self.jitter.ps() as f64) as u64);
                    let rtt = self.base_rtt + qd + noise;
                    let ecn = rng.next_f64() < self.mark_prob(q_here);
                    s.pipe.push_back(InFlight { arrive: t + rtt, end: s.snd_nxt, ecn, rtt, int });
                    arrivals += mtu;
                }
            }
            let q_new = (q + arrivals - cap_per_step).max(0.0);
            served += q + arrivals - q_new;
            q = q_new;
            if measuring {
                q_sum += q;
                q_max = q_max.max(q);
                q_n += 1;
            }
            if t >= next_trace {
                next_trace = next_trace.saturating_add(trace_every.unwrap_or(Time::MAX));
                let rates: Vec<String> = senders
                    .iter()
                    .map(|s| {
                        let extra = match &s.cc {
                            Cc::DctcpWindow(d) => format!("/a={:.3}", d.alpha()),
                            _ => String::new(),
                        };
                        format!(
                            "{:.2}/{}{extra}",
                            s.cc.rate().gbps_f64(),
                            s.cc.window_bytes().min(99_999_999)
                        )
                    })
                    .collect();
                eprintln!("t={:>9.1}us q={:>9.0} rates/win={}", t.us_f64(), q, rates.join(" "));
            }
        }
        let secs = (dur.saturating_sub(measure_from)).secs_f64();
        let rates_bps: Vec<f64> =
            senders.iter().map(|s| (s.acked - s.acked_at_measure) as f64 * 8.0 / secs).collect();
        let total: f64 = rates_bps.iter().sum();
        Report {
            fair_share_bps: self.c_bps / n as f64,
            utilization: total / self.c_bps,
            rates_bps,
            avg_queue_bytes: q_sum / q_n.max(1) as f64,
            max_queue_bytes: q_max,
            avg_rtt_us: rtt_sum / rtt_n.max(1) as f64,
            max_rtt_us: rtt_max,
        }
    }
}
