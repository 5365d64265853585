//! Rondo's one flow pacer (Rondo §4.2.1): data leaves at most at `Σ_p W_p / T_p` packets per
//! second — one packet every `1/rate` — and a send that comes late may catch up by at most one
//! gap, so a pause never turns into a burst. The windows bound each path's inflight; the pacer
//! spreads the flow's packets in time.

use braid_core::Time;

use super::RondoSender;

/// The pacer's state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowPacer {
    /// Earliest time of the next data packet.
    pub next_tx_at: Time,
    /// The rate, packets per second (`Σ_p W_p / T_p`; 0 before the first window update).
    pub pkts_per_s: f64,
    /// One packet's gap at that rate (`Time::MAX` at rate 0; zero before the first update, so
    /// the initial windows go out at the NIC's pace).
    pub gap: Time,
}

impl FlowPacer {
    /// A pacer that lets the first packet go at `start`, unpaced until [`FlowPacer::set_rate`].
    pub fn new(start: Time) -> FlowPacer {
        FlowPacer { next_tx_at: start, pkts_per_s: 0.0, gap: Time::ZERO }
    }

    /// Set the rate to `Σ window_p / base_rtt_p` over `(window packets, base RTT)` pairs.
    pub fn set_rate(&mut self, paths: impl Iterator<Item = (f64, Time)>) {
        let mut r = 0.0;
        for (w, t) in paths {
            r += w / t.secs_f64();
        }
        self.pkts_per_s = r;
        self.gap = if r > 0.0 { Time::from_secs_f64(1.0 / r) } else { Time::MAX };
    }

    /// A data packet left at `now`: the next may leave one gap later, or one gap after the
    /// previous slot if `now` was late by more than a gap.
    #[inline]
    pub fn on_send(&mut self, now: Time) {
        self.next_tx_at =
            self.next_tx_at.max(now.saturating_sub(self.gap)).saturating_add(self.gap);
    }

    /// The pacer allows a data packet at `now`.
    #[inline]
    pub fn allows(&self, now: Time) -> bool {
        now >= self.next_tx_at
    }
}

impl RondoSender {
    /// The flow pacer's rate from the paths' current windows and base RTTs.
    pub(super) fn recompute_pacer(&mut self) {
        self.pacer.set_rate(self.paths.iter().map(|p| (p.window(), p.base_rtt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_the_sum_of_window_over_rtt() {
        let mut p = FlowPacer::new(Time::ZERO);
        // 10 packets per 10 µs plus 20 per 20 µs: 2 packets per µs, a gap of 0.5 µs.
        p.set_rate([(10.0, Time::from_us(10)), (20.0, Time::from_us(20))].into_iter());
        assert!((p.pkts_per_s - 2e6).abs() < 1e-3, "{}", p.pkts_per_s);
        assert_eq!(p.gap, Time::from_ns(500));
        p.set_rate(std::iter::empty());
        assert_eq!(p.gap, Time::MAX, "no window, no sending");
    }

    #[test]
    fn sends_are_spaced_and_a_late_one_catches_up_by_one_gap_only() {
        let mut p = FlowPacer::new(Time::ZERO);
        p.set_rate([(1.0, Time::from_us(1))].into_iter());
        assert!(p.allows(Time::ZERO));
        p.on_send(Time::ZERO);
        assert_eq!(p.next_tx_at, Time::from_us(1));
        assert!(!p.allows(Time::from_ns(999)));
        // Sent 5 µs late: the next slot is one gap after (now − gap), i.e. `now`: one packet of
        // catch-up, not five.
        p.on_send(Time::from_us(6));
        assert_eq!(p.next_tx_at, Time::from_us(6));
        p.on_send(Time::from_us(6));
        assert_eq!(p.next_tx_at, Time::from_us(7));
    }

    #[test]
    fn before_the_first_update_the_pacer_does_not_hold_packets() {
        let mut p = FlowPacer::new(Time::from_us(3));
        assert!(!p.allows(Time::from_us(2)));
        p.on_send(Time::from_us(3));
        p.on_send(Time::from_us(3));
        assert!(p.allows(Time::from_us(3)));
    }
}
