//! One path's capacity probing (Rondo §4.2.2). Probes are MTU-sized, low-priority packets that
//! carry no data; their ACKs count in the path's ACK-rate sample, and while a phase's credits are
//! open each probe ACK raises the path's window by one packet ("one extra data packet per probe
//! ACK"). Phases: at flow start on every path (the start-up phase), and on a path after
//! `probe_trigger` consecutive window updates in which every data packet sent at least `T_p`
//! (+ slack) earlier was acknowledged — the path has spare capacity. A phase lasts
//! `probe_phase` base RTTs. The credits end with the first ARCC update whose sample includes
//! probe ACKs (the window then measures the capacity), or with the phase.
//!
//! Which path a probe goes on and how probes are paced is the sender's (`rondo.rs`); this is the
//! per-path state machine.

use braid_core::Time;

/// One path's probing state.
#[derive(Clone, Debug)]
pub(crate) struct PathProbing {
    /// End of the current phase (`Time::ZERO`: none yet).
    pub until: Time,
    /// The start-up phase is running: it lasts `probe_phase` base RTTs *of this path*, so it is
    /// stretched once the path's first RTT sample shows it longer than the topology's hint.
    pub startup: bool,
    /// The phase's credits are open: each probe ACK adds one packet of window (`extra`).
    pub credit_open: bool,
    /// Window added by probe ACKs in this phase, packets.
    pub extra: f64,
    /// Consecutive updates, outside a phase, that found every data packet sent at least `T_p`
    /// (+ slack) earlier acknowledged: the trigger fires at `probe_trigger`.
    pub quiet: u32,
}

impl PathProbing {
    /// A path that starts probing (with credits) until `until` when `enabled`.
    pub fn new(until: Time, enabled: bool) -> PathProbing {
        PathProbing { until, startup: enabled, credit_open: enabled, extra: 0.0, quiet: 0 }
    }

    /// A phase is running at `now`.
    #[inline]
    pub fn active(&self, now: Time) -> bool {
        self.until > now
    }

    /// A probe ACK came back: one packet more of window while the credits are open. Returns
    /// whether the window changed.
    #[inline]
    pub fn on_probe_ack(&mut self) -> bool {
        if self.credit_open {
            self.extra += 1.0;
        }
        self.credit_open
    }

    /// The credits end: the window is ARCC's alone again.
    pub fn close_credits(&mut self) {
        self.credit_open = false;
        self.extra = 0.0;
    }

    /// The start-up phase ends no earlier than `end`; it is over once `now` reaches its end.
    pub fn stretch_startup(&mut self, now: Time, end: Time) {
        self.until = self.until.max(end);
        if now >= self.until {
            self.startup = false;
        }
    }

    /// The trigger, at a window update at `now`: `all_acked` says whether every data packet sent
    /// long enough ago was acknowledged. Outside a phase, `trigger` such updates in a row start a
    /// phase of length `phase` with open credits (if the flow has data left to send); inside a
    /// phase the count restarts. A phase that ended with its credits still open closes them.
    /// Returns whether a phase started.
    pub fn on_update(
        &mut self,
        now: Time,
        all_acked: bool,
        trigger: u32,
        data_left: bool,
        phase: Time,
    ) -> bool {
        if now < self.until {
            self.quiet = 0;
            return false;
        }
        if self.credit_open {
            // A phase ended without any probe ACK reaching an update.
            self.close_credits();
        }
        self.quiet = if all_acked { self.quiet + 1 } else { 0 };
        if self.quiet >= trigger && data_left {
            self.quiet = 0;
            self.until = now + phase;
            self.credit_open = true;
            self.extra = 0.0;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time::from_us(x)
    }

    #[test]
    fn probe_acks_add_window_only_while_credits_are_open() {
        let mut p = PathProbing::new(us(30), true);
        assert!(p.active(us(29)) && !p.active(us(30)));
        assert!(p.on_probe_ack() && p.on_probe_ack());
        assert_eq!(p.extra, 2.0);
        p.close_credits();
        assert!(!p.on_probe_ack());
        assert_eq!(p.extra, 0.0);
    }

    #[test]
    fn a_phase_starts_after_trigger_quiet_updates_and_lasts_its_length() {
        let mut p = PathProbing::new(Time::ZERO, false);
        for i in 1..5 {
            assert!(!p.on_update(us(10 * i), true, 5, true, us(30)), "update {i}");
        }
        assert!(p.on_update(us(50), true, 5, true, us(30)));
        assert!(p.active(us(79)) && !p.active(us(80)) && p.credit_open);
        // Inside the phase the count restarts; at its end unused credits close.
        assert!(!p.on_update(us(60), true, 5, true, us(30)));
        assert_eq!(p.quiet, 0);
        assert!(!p.on_update(us(80), true, 5, true, us(30)));
        assert!(!p.credit_open && p.quiet == 1);
    }

    #[test]
    fn a_busy_path_or_a_finished_flow_does_not_probe() {
        let mut p = PathProbing::new(Time::ZERO, false);
        for i in 1..=10 {
            // Every other update finds a packet unacknowledged: the count never reaches 5.
            assert!(!p.on_update(us(10 * i), i % 2 == 0, 5, true, us(30)));
        }
        let mut p = PathProbing::new(Time::ZERO, false);
        for i in 1..=10 {
            assert!(!p.on_update(us(10 * i), true, 5, false, us(30)), "no data left");
        }
    }

    #[test]
    fn the_startup_phase_stretches_to_the_paths_length() {
        let mut p = PathProbing::new(us(30), true);
        p.stretch_startup(us(10), us(90));
        assert!(p.startup && p.active(us(89)));
        p.stretch_startup(us(90), us(60));
        assert!(!p.startup, "over once its end is reached");
    }
}
