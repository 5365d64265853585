//! The sender's periodic window update (every `Tu`, Rondo §4.2): per path, ARCC's window from the
//! ACK rate it measured (§4.2.1, [`super::arcc`]) or, while the path probes, the probing phase's
//! window (§4.2.2, [`super::probing`]); the base RTTs the windows are taken over; then the
//! scheduler's skips and the pacer follow from the new windows.

use braid_core::Time;

use super::{PathCc, RondoSender};

impl RondoSender {
    /// The periodic control of every path: ARCC windows, probing triggers, timestamps, skips,
    /// pacer.
    pub(super) fn update(&mut self, now: Time) {
        if now < self.next_update {
            return;
        }
        self.stats.updates += 1;
        let data_left = self.unsent.remaining() > 0;
        let best = self.refresh_base_rtts();
        let mut next = Time::MAX;
        for i in 0..self.paths.len() {
            next = next.min(self.update_path(i, now, best, data_left));
        }
        self.next_update = next;
        self.recompute_pacer();
        self.compute_skips();
        self.refresh_samples(now);
    }

    /// Every path's base RTT `T_p` from the topology's hint and the smallest RTTs measured (see
    /// the module docs). Returns the smallest RTT measured on any path.
    pub(super) fn refresh_base_rtts(&mut self) -> Time {
        if self.base_rtts_current {
            // No path's smallest RTT fell since they were computed: the same inputs.
            return self.best_rtt;
        }
        self.base_rtts_current = true;
        let best = self.paths.iter().map(|p| p.min_rtt).min().unwrap_or(Time::MAX);
        self.best_rtt = best;
        for ps in self.paths.iter_mut() {
            // Never below what the path has been measured to take: the topology's figure is a
            // hint, and one that is too short (links slower or longer than the driver knew)
            // would pin `W* = r̂·T_p + q` below the path's pipe, and the window, its ACK rate and
            // the probing trigger would starve together (tests/rondo/rondo_invariants.rs).
            // Nor above the longest path the topology has (`rtt_bound`): a measured excess
            // beyond it is queueing — a standing queue the path met when first measured, which
            // the floor would otherwise count as propagation for as long as the flow runs.
            ps.base_rtt = if ps.min_rtt == Time::MAX {
                self.t_env
            } else if self.rtt_floor {
                (self.t_env + (ps.min_rtt - best)).max(ps.min_rtt)
            } else {
                self.t_env + (ps.min_rtt - best)
            }
            .min(self.t_bound);
        }
        best
    }

    /// Path `i`'s control at `now`, if its update is due (every `Tu` of its own base RTT, so
    /// that a long path is not corrected several times per round trip of its feedback): expire
    /// lost copies, take the ACK-rate sample into ARCC, run the probing phases, drop stale
    /// timestamp requests. Returns the path's next update time.
    pub(super) fn update_path(&mut self, i: usize, now: Time, best: Time, data_left: bool) -> Time {
        let ps = &mut self.paths[i];
        if now < ps.next_update {
            return ps.next_update;
        }
        let tu = self.tu_rel.resolve(ps.base_rtt).max(Time::from_ps(1));
        ps.next_update = now + tu;
        let next = ps.next_update;
        let last = ps.last_update;
        ps.last_update = now;
        let interval = now.saturating_sub(last).secs_f64();
        if interval <= 0.0 {
            return next;
        }
        // A copy unanswered for 4 base RTTs or 2 smoothed RTTs of its path, whichever is longer
        // (and no later one answered), was lost.
        let expire =
            now.saturating_sub(ps.base_rtt.mul_f64(4.0).max(Time::from_secs_f64(2.0 * ps.srtt_s)));
        while ps.sent.front().is_some_and(|&t| t < expire) {
            ps.sent.pop_front();
        }
        let inflight = ps.sent.len() as f64;
        let oldest = ps.sent.front().copied().unwrap_or(Time::MAX);
        let hold = self.arcc_update(i, now, last, interval, tu, inflight);
        self.probing_update(i, now, best, tu, oldest, data_left);
        let ps = &mut self.paths[i];
        if !hold {
            ps.sample.clear();
        }
        next
    }

    /// ARCC's window update of path `i` from its ACK-rate sample (§4.2.1): `last` is the previous
    /// update, `interval` the seconds since, `tu` the path's update interval, `inflight` its
    /// copies in flight. Returns whether the sample's counts must be kept for the next update.
    pub(super) fn arcc_update(
        &mut self,
        i: usize,
        now: Time,
        last: Time,
        interval: f64,
        tu: Time,
        inflight: f64,
    ) -> bool {
        let ps = &mut self.paths[i];
        let mut hold = false;
        if let PathCc::Arcc(a) = &mut ps.cc {
            // The first update measures from the first ACK if that came mid-interval, over
            // half an interval — but on a path more than twice as long as the topology's
            // hint, over one base RTT of the path when probe ACKs are in it: until then each
            // probe ACK clocks out one extra data packet (§4.2.2), so when `W = r̂·T + q` is
            // first set the path already carries about `r̂·T`. A short first sample on such
            // a path makes the window jump from `W0` to a pipe many times the hint's at once,
            // a burst into the path. (On paths of the hint's length the longer sample would
            // only let the credits of many flows starting together pile onto one queue.)
            let long_path = ps.min_rtt != Time::MAX && ps.min_rtt > self.t_env.mul_f64(2.0);
            let first_span = if long_path && ps.sample.probe_acks > 0 && ps.probe.credit_open {
                ps.base_rtt
            } else {
                Time::from_ps(tu.ps() / 2)
            };
            // On a long path the ACKs keep accumulating until then (`hold`); on others the
            // first update that finds its first ACK before the previous update uses the
            // interval, as before.
            let span;
            (span, hold) = ps.sample.span(a.seeded, interval, last, now, long_path, first_span);
            if span > 0.0 {
                ps.sample.resumed = false;
                let sample = ps.sample.packets() as f64 / span;
                a.update(&self.params, sample, inflight, ps.base_rtt.secs_f64());
                ps.w = a.w;
                if a.fast {
                    self.stats.fast_drains += 1;
                }
                if ps.sample.probe_acks > 0 && ps.probe.credit_open {
                    ps.probe.close_credits();
                }
            }
        }
        hold
    }

    /// Path `i`'s capacity probing at an update (§4.2.2): the start-up phase's length, then the
    /// trigger of a new phase once every packet sent long enough ago (`oldest`) was acknowledged.
    pub(super) fn probing_update(
        &mut self,
        i: usize,
        now: Time,
        best: Time,
        tu: Time,
        oldest: Time,
        data_left: bool,
    ) {
        let ps = &mut self.paths[i];
        if self.probing && ps.probe.startup {
            // §4.2.2: at start-up "each path starts with an initial window W0, and probes
            // for additional capacity" — for three base RTTs of the path. Timed from the
            // topology's hint alone, a path longer than the hint (a slower route, added
            // delay) would stop probing before its first probe ACK came back, lose its
            // credits, and then jump from W0 to W* in one update: a burst into one path
            // that every sharing flow makes at once (four-path set-up, +20 µs: 226 KB).
            // The path's length is the hint plus its excess over the flow's best path: a
            // standing queue that every path crosses (flows joining a full link) must not
            // stretch the phase, or the credits of many joiners pile onto that queue.
            let excess = if ps.min_rtt == Time::MAX { Time::ZERO } else { ps.min_rtt - best };
            let mut end = self.start + (self.t_env + excess).mul_f64(self.cfg_probe_phase);
            if ps.min_rtt == Time::MAX {
                // No data ACK yet: the path's RTT is still unknown.
                end = end.max(now + tu);
            }
            ps.probe.stretch_startup(now, end);
        }
        if self.probing {
            let slack = Time::from_secs_f64(self.cfg_probe_slack * self.tau_q_s);
            let all_acked =
                oldest == Time::MAX || now.saturating_sub(oldest) <= ps.base_rtt + slack;
            let phase = ps.base_rtt.mul_f64(self.cfg_probe_phase);
            if ps.probe.on_update(now, all_acked, self.cfg_probe_trigger, data_left, phase) {
                self.stats.probe_phases += 1;
            }
        }
    }
}
