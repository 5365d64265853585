//! NSCC, UET's network-signal congestion control (htsim `uec.cpp`): a window moved by ECN marks
//! and delay against a target, with quick adapt and fair increase.

use super::*;

/// NSCC state of one flow (htsim `uec.cpp`), bytes and picoseconds as `f64`.
#[derive(Clone, Debug)]
pub(super) struct Nscc {
    pub(super) mtu_bytes: f64,
    pub(super) line_bytes_per_ps: f64,
    pub(super) target_delay_ps: f64,
    pub(super) rtt_net_ps: f64,
    pub(super) alpha_p: f64,
    pub(super) fi: f64,
    pub(super) eta: f64,
    pub(super) gamma: f64,
    pub(super) fi_scale: f64,
    pub(super) delay_alpha: f64,
    pub(super) qa: bool,
    pub(super) base_rtt_ps: f64,
    pub(super) maxwnd_bytes: f64,
    pub(super) cwnd_bytes: f64,
    pub(super) avg_delay_ps: f64,
    pub(super) inc_bytes: f64,
    pub(super) received_bytes: f64,
    pub(super) achieved_bytes: f64,
    pub(super) qa_end_ps: f64,
    pub(super) qa_trigger: bool,
    pub(super) bytes_to_ignore: f64,
    pub(super) bytes_ignored: f64,
    pub(super) fi_count: f64,
    pub(super) fast: bool,
    pub(super) last_dec_ps: Option<f64>,
    pub(super) last_adjust_ps: f64,
    pub(super) quick_adapts: u64,
    /// Sum and count of delay samples (for tests and reports).
    pub(super) delay_sum_ps: f64,
    pub(super) delay_n: u64,
}

impl Nscc {
    pub(super) fn new(env: &FlowEnv, target: Option<Time>, qa: bool, trims: bool) -> Nscc {
        let mtu = env.cc.mtu_bytes.max(1) as f64;
        let line_bytes_per_ps = env.cc.line_rate.bps_f64() / 8.0 * 1e-12;
        let rtt_net = env.cc.max_rtt.max(env.cc.base_rtt).ps().max(1) as f64;
        let target = target.map_or(if trims { 0.75 * rtt_net } else { rtt_net }, |t| t.ps() as f64);
        let bdp_net = rtt_net * line_bytes_per_ps;
        let bdp_ref = 12e6 * (100e9 / 8.0 * 1e-12);
        let a = bdp_net / bdp_ref;
        let b = target / 12e6;
        let base_rtt = env.cc.base_rtt.ps().max(1) as f64;
        let maxwnd = (1.5 * base_rtt * line_bytes_per_ps).max(mtu);
        let start = env.start.ps() as f64;
        Nscc {
            mtu_bytes: mtu,
            line_bytes_per_ps,
            target_delay_ps: target,
            rtt_net_ps: rtt_net,
            alpha_p: 4.0 * mtu * a * b / target,
            fi: 5.0 * mtu * a,
            eta: 0.15 * mtu * a,
            gamma: 0.8,
            fi_scale: 0.25 * a,
            delay_alpha: 0.0125,
            qa,
            base_rtt_ps: base_rtt,
            maxwnd_bytes: maxwnd,
            cwnd_bytes: maxwnd,
            avg_delay_ps: 0.0,
            inc_bytes: 0.0,
            received_bytes: 0.0,
            achieved_bytes: 0.0,
            qa_end_ps: start + base_rtt + target,
            qa_trigger: false,
            bytes_to_ignore: 0.0,
            bytes_ignored: 0.0,
            fi_count: 0.0,
            fast: false,
            last_dec_ps: None,
            last_adjust_ps: start,
            quick_adapts: 0,
            delay_sum_ps: 0.0,
            delay_n: 0,
        }
    }

    pub(super) fn clamp(&mut self) {
        self.cwnd_bytes =
            self.cwnd_bytes.clamp(self.mtu_bytes, self.maxwnd_bytes.max(self.mtu_bytes));
    }

    pub(super) fn quick_adapt(&mut self, now: f64, in_flight: f64) -> bool {
        if !self.qa || now < self.qa_end_ps {
            return false;
        }
        let fired = self.qa_trigger && self.achieved_bytes < self.maxwnd_bytes / 8.0;
        if fired {
            self.cwnd_bytes = self.achieved_bytes.max(self.mtu_bytes);
            self.bytes_to_ignore = in_flight;
            self.bytes_ignored = 0.0;
            self.quick_adapts += 1;
        }
        self.achieved_bytes = 0.0;
        self.qa_trigger = false;
        self.qa_end_ps = now + self.base_rtt_ps + self.target_delay_ps;
        fired
    }

    /// One ACK. `nack` = a drop reported by the receiver; `loss` = a loss found by recovery.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_ack(
        &mut self,
        now: f64,
        newly: f64,
        raw_rtt: f64,
        ecn: bool,
        nack: bool,
        loss: bool,
        in_flight: f64,
    ) {
        self.achieved_bytes += newly;
        self.received_bytes += newly;
        self.bytes_ignored += newly;
        if raw_rtt > 0.0 && raw_rtt < self.base_rtt_ps {
            self.base_rtt_ps = raw_rtt;
            self.maxwnd_bytes =
                (1.5 * self.base_rtt_ps * self.line_bytes_per_ps).max(self.mtu_bytes);
        }
        let delay = (raw_rtt - self.base_rtt_ps).max(0.0);
        self.delay_sum_ps += delay;
        self.delay_n += 1;
        let sample =
            if !ecn && delay > self.target_delay_ps { self.base_rtt_ps / 4.0 } else { delay };
        self.avg_delay_ps =
            (1.0 - self.delay_alpha) * self.avg_delay_ps + self.delay_alpha * sample;
        if delay > 4.0 * self.target_delay_ps || nack || loss {
            self.qa_trigger = true;
        }
        let fired = self.quick_adapt(now, in_flight);
        if nack && !fired {
            self.cwnd_bytes -= self.mtu_bytes;
        }
        let ignored = ecn && self.bytes_ignored < self.bytes_to_ignore;
        if !(fired || nack || ignored) {
            if delay >= 1e6 {
                self.fi_count = 0.0;
                self.fast = false;
            }
            match (ecn, delay >= self.target_delay_ps) {
                (false, true) => self.inc_bytes += self.fi * newly,
                (false, false) => {
                    let mut proportional = true;
                    if delay < 1e6 {
                        self.fi_count += newly;
                        if self.fi_count > self.cwnd_bytes || self.fast {
                            self.fast = true;
                            self.cwnd_bytes += self.fi_scale * newly;
                            proportional = false;
                        }
                    }
                    if proportional {
                        self.inc_bytes += self.alpha_p * newly * (self.target_delay_ps - delay);
                    }
                }
                (true, true) => {
                    if self.last_dec_ps.is_none_or(|t| now - t >= self.base_rtt_ps)
                        && self.avg_delay_ps > self.target_delay_ps
                    {
                        let f = (1.0
                            - self.gamma * (self.avg_delay_ps - self.target_delay_ps)
                                / self.avg_delay_ps)
                            .max(0.5);
                        self.cwnd_bytes = (self.cwnd_bytes * f).max(self.mtu_bytes);
                        self.last_dec_ps = Some(now);
                    }
                }
                (true, false) => {}
            }
        }
        self.clamp();
        if self.received_bytes > 8.0 * self.mtu_bytes || now - self.last_adjust_ps > self.rtt_net_ps
        {
            self.cwnd_bytes += self.inc_bytes / self.cwnd_bytes;
            if now - self.last_adjust_ps >= self.rtt_net_ps {
                self.cwnd_bytes += self.eta;
                self.last_adjust_ps = now;
            }
            self.inc_bytes = 0.0;
            self.received_bytes = 0.0;
            self.clamp();
        }
    }

    /// A NACK for a trimmed packet of `nacked` bytes (htsim `updateCwndOnNack_NSCC`): a delay
    /// sample of `base_rtt + RTT_net` (the trimming threshold's estimate) enters the average as
    /// a marked sample; quick adapt is triggered; unless it fires (or the bytes are ignored
    /// after an earlier one), `cwnd −= nacked`. `newly` bytes the NACK's cumulative ACK covered
    /// count as achieved.
    pub(super) fn on_nack(&mut self, now: f64, newly: f64, nacked: f64, in_flight: f64) {
        self.achieved_bytes += newly;
        self.bytes_ignored += nacked;
        let delay = self.rtt_net_ps;
        self.avg_delay_ps = (1.0 - self.delay_alpha) * self.avg_delay_ps + self.delay_alpha * delay;
        self.qa_trigger = true;
        let ignoring = self.bytes_ignored < self.bytes_to_ignore;
        if ignoring || self.quick_adapt(now, in_flight) {
            self.inc_bytes = 0.0;
            self.received_bytes = 0.0;
            return;
        }
        self.cwnd_bytes -= nacked;
        self.clamp();
    }

    pub(super) fn on_rto(&mut self) {
        self.cwnd_bytes = (self.cwnd_bytes - self.mtu_bytes).max(self.mtu_bytes);
    }
}
