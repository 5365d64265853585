//! One path's ACK-rate sample for ARCC (Rondo §4.2.1): the packets acknowledged on the path
//! (data ACKs and probe ACKs, one per packet) over the interval since its last window update.
//! The first ACKs of a path (or of a connection resuming after an idle period) arrive mid-way
//! through an interval, so its first sample is measured from its first ACK rather than over the
//! whole interval — which would read the round trip before it as a rate near zero.

use braid_core::Time;

/// One path's ACK counts since its last update.
#[derive(Clone, Debug, Default)]
pub(crate) struct AckSample {
    /// Data ACKs in the current interval (a NAK of a packet the receiver's full reorder buffer
    /// dropped does not count: it is not a delivery).
    pub acks: u32,
    /// Probe ACKs in the current interval.
    pub probe_acks: u32,
    /// First ACK (of either kind) on the path — ever, or since the connection resumed.
    pub first_ack_at: Option<Time>,
    /// The connection resumed after an idle period and no sample has been taken since: the
    /// next one is measured from its first ACK, as a new flow's first is.
    pub resumed: bool,
}

impl AckSample {
    /// A data ACK (`counts`: it reports a delivery) at `now`.
    #[inline]
    pub fn on_data_ack(&mut self, now: Time, counts: bool) {
        if counts {
            self.acks += 1;
        }
        self.first_ack_at.get_or_insert(now);
    }

    /// A probe ACK at `now`.
    #[inline]
    pub fn on_probe_ack(&mut self, now: Time) {
        self.probe_acks += 1;
        self.first_ack_at.get_or_insert(now);
    }

    /// Packets acknowledged in the interval.
    #[inline]
    pub fn packets(&self) -> u32 {
        self.acks + self.probe_acks
    }

    /// A new interval starts.
    pub fn clear(&mut self) {
        self.acks = 0;
        self.probe_acks = 0;
    }

    /// The connection resumes after an idle period at a new message.
    pub fn resume(&mut self) {
        self.clear();
        self.first_ack_at = None;
        self.resumed = true;
    }

    /// The span, in seconds, this update's sample measures over (0: no sample this time), and
    /// whether the counts must be kept for the next update rather than cleared. `seeded`: the
    /// path's rate estimate already has a sample; `interval`: seconds since the last update at
    /// `last`; `first_span`: how long after its first ACK a path's first sample is taken;
    /// `long_path`: the path is more than twice the topology's hint, whose first sample waits
    /// for `first_span` with the counts kept.
    pub fn span(
        &self,
        seeded: bool,
        interval: f64,
        last: Time,
        now: Time,
        long_path: bool,
        first_span: Time,
    ) -> (f64, bool) {
        match self.first_ack_at {
            _ if seeded && !self.resumed => (interval, false),
            Some(f) if f <= last && !long_path => (interval, false),
            Some(f) if now.saturating_sub(f) >= first_span => {
                (now.saturating_sub(f).secs_f64(), false)
            }
            Some(_) => (0.0, long_path),
            None => (0.0, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn a_seeded_path_samples_over_the_interval() {
        let mut s = AckSample::default();
        s.on_data_ack(us(1), true);
        s.on_probe_ack(us(2));
        s.on_data_ack(us(3), false);
        assert_eq!(s.packets(), 2, "the buffer-full NAK is not a delivery");
        assert_eq!(s.span(true, 5e-6, us(0), us(5), false, us(2)), (5e-6, false));
    }

    #[test]
    fn the_first_sample_is_measured_from_the_first_ack() {
        let mut s = AckSample::default();
        assert_eq!(s.span(false, 5e-6, us(0), us(5), false, us(2)), (0.0, false), "no ACK yet");
        s.on_data_ack(us(4), true);
        // One µs after the first ACK: too short for a rate, wait.
        assert_eq!(s.span(false, 5e-6, us(0), us(5), false, us(2)), (0.0, false));
        let (span, hold) = s.span(false, 4e-6, us(3), us(7), false, us(2));
        assert!((span - 3e-6).abs() < 1e-15 && !hold, "from the first ACK: {span}");
        // A first ACK before the previous update: the whole interval.
        assert_eq!(s.span(false, 5e-6, us(5), us(10), false, us(2)), (5e-6, false));
    }

    #[test]
    fn a_long_path_keeps_its_counts_until_its_first_span() {
        let mut s = AckSample::default();
        s.on_probe_ack(us(4));
        assert_eq!(s.span(false, 5e-6, us(5), us(10), true, us(40)), (0.0, true));
        let (span, _) = s.span(false, 5e-6, us(40), us(44), true, us(40));
        assert!((span - 40e-6).abs() < 1e-15, "{span}");
    }

    #[test]
    fn a_resumed_connection_measures_like_a_new_flow() {
        let mut s = AckSample::default();
        s.on_data_ack(us(1), true);
        s.resume();
        assert_eq!((s.packets(), s.first_ack_at), (0, None));
        assert_eq!(
            s.span(true, 5e-6, us(100), us(105), false, us(2)),
            (0.0, false),
            "seeded, but resumed"
        );
    }
}
