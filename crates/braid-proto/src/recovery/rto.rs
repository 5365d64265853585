//! Round-trip estimation and the retransmission timeout every scheme keeps as a backstop
//! (RFC 6298): `max(rto_min, SRTT + 4·RTTVAR)`, `rto_initial` before the first sample, doubled on
//! each expiry (reset on progress) up to `rto_max`.

use braid_core::Time;

use super::RecoveryConfig;

/// Smoothed RTT, its variation, the minimum RTT and the backoff exponent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RttEstimator {
    /// Smoothed RTT, once sampled.
    pub srtt: Option<Time>,
    /// RTT variation.
    pub rttvar: Time,
    /// Minimum RTT sampled (`Time::MAX` before the first sample).
    pub min_rtt: Time,
    /// RTO expiries since the last progress.
    pub backoff: u32,
}

impl RttEstimator {
    /// No samples yet.
    pub fn new() -> RttEstimator {
        RttEstimator { srtt: None, rttvar: Time::ZERO, min_rtt: Time::MAX, backoff: 0 }
    }

    /// Feed one RTT sample.
    pub fn sample(&mut self, rtt: Time) {
        self.min_rtt = self.min_rtt.min(rtt);
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Time(rtt.0 / 2);
            }
            Some(s) => {
                let err = s.0.abs_diff(rtt.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * s.0 + rtt.0) / 8));
            }
        }
    }

    /// The RFC 6298 timeout before backoff.
    pub fn base_rto(&self, cfg: &RecoveryConfig) -> Time {
        match self.srtt {
            Some(s) => (s + Time(self.rttvar.0 * 4)).max(cfg.rto_min),
            None => cfg.rto_initial,
        }
    }

    /// `base` after the current backoff, capped at `rto_max`.
    pub fn backed_off(&self, base: Time, cfg: &RecoveryConfig) -> Time {
        Time(base.0.saturating_mul(1u64 << self.backoff.min(20))).min(cfg.rto_max)
    }
}
