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
                self.rttvar = Time::from_ps(rtt.ps() / 2);
            }
            Some(s) => {
                let err = s.ps().abs_diff(rtt.ps());
                self.rttvar = Time::from_ps((3 * self.rttvar.ps() + err) / 4);
                self.srtt = Some(Time::from_ps((7 * s.ps() + rtt.ps()) / 8));
            }
        }
    }

    /// The RFC 6298 timeout before backoff.
    pub fn base_rto(&self, cfg: &RecoveryConfig) -> Time {
        match self.srtt {
            Some(s) => (s + Time::from_ps(self.rttvar.ps() * 4)).max(cfg.rto_min),
            None => cfg.rto_initial,
        }
    }

    /// `base` after the current backoff, capped at `rto_max`.
    pub fn backed_off(&self, base: Time, cfg: &RecoveryConfig) -> Time {
        Time::from_ps(base.ps().saturating_mul(1u64 << self.backoff.min(20))).min(cfg.rto_max)
    }
}
