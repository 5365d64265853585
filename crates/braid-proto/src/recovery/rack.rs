//! RACK-TLP (RFC 8985), over the whole flow or per logical path: a packet is lost once a packet
//! sent after it (on the same path, in the per-path form) has been delivered and `RTT + reo_wnd`
//! has passed since it was sent, with `reo_wnd = max(min_reo, reo_frac · min_RTT)`; the reorder
//! timer fires for the earliest candidate not yet due. A tail-loss probe resends the first
//! unacknowledged packet after `PTO = max(tlp_factor · SRTT, tlp_min)` without ACKs.

use braid_core::Time;

use super::rto::RttEstimator;
use super::{AckCtx, RecoveryConfig, Shared};
use crate::events::TimerKind;

/// The most recently sent delivered packet (per flow, or per path).
#[derive(Clone, Copy, Debug, Default)]
struct Latest {
    xmit_ts: Time,
    rtt: Time,
}

/// RACK-TLP state.
#[derive(Clone, Debug)]
pub(crate) struct RackTlp {
    /// Judge each packet against deliveries on its own path.
    per_path: bool,
    /// Index 0 for the per-flow form; one entry per path seen otherwise.
    latest: Vec<Latest>,
}

impl RackTlp {
    /// Fresh state, per flow or per path.
    pub fn new(per_path: bool) -> RackTlp {
        RackTlp { per_path, latest: vec![Latest::default()] }
    }

    /// The tail-loss probe timeout.
    pub fn pto(rtt: &RttEstimator, cfg: &RecoveryConfig) -> Time {
        match rtt.srtt {
            Some(s) => s.mul_f64(cfg.tlp_factor).max(cfg.tlp_min),
            None => cfg.rto_initial,
        }
    }

    fn reo_wnd(rtt: &RttEstimator, cfg: &RecoveryConfig) -> Time {
        let m = if rtt.min_rtt == Time::MAX { Time::ZERO } else { rtt.min_rtt };
        m.mul_f64(cfg.reo_frac).max(cfg.min_reo)
    }

    /// A packet went out: the probe timer starts if it is not running.
    pub fn on_sent(now: Time, sh: &mut Shared) {
        if sh.timers.get(TimerKind::Tlp).is_none() {
            sh.timers.set(TimerKind::Tlp, Some(now + Self::pto(&sh.rtt, &sh.cfg)));
        }
    }

    /// Record the delivery, detect losses, re-arm the probe. Returns whether a loss was found.
    pub fn on_ack(&mut self, ctx: &AckCtx, sh: &mut Shared) -> bool {
        let now = ctx.now;
        if let Some((sent_at, path)) = ctx.delivered {
            let idx = if self.per_path { path as usize } else { 0 };
            if self.latest.len() <= idx {
                self.latest.resize(idx + 1, Latest::default());
            }
            let r = &mut self.latest[idx];
            if sent_at >= r.xmit_ts {
                r.xmit_ts = sent_at;
                r.rtt = now.saturating_sub(sent_at);
            }
        }
        let lost = self.detect(now, sh);
        sh.timers.set(
            TimerKind::Tlp,
            if sh.board.outstanding > 0 { Some(now + Self::pto(&sh.rtt, &sh.cfg)) } else { None },
        );
        lost
    }

    /// RACK loss detection; arms the reorder timer for the earliest not-yet-expired candidate.
    fn detect(&mut self, now: Time, sh: &mut Shared) -> bool {
        let per_path = self.per_path;
        let reo = Self::reo_wnd(&sh.rtt, &sh.cfg);
        let board = &mut sh.board;
        let mut lost_any = false;
        let mut timer: Option<Time> = None;
        let end = board.highest_sacked_plus1.min(board.max_sent);
        let mut p = board.una;
        while p < end {
            let s = board.at(p);
            if s.in_flight() {
                let r = self.latest
                    [if per_path { (s.path as usize).min(self.latest.len() - 1) } else { 0 }];
                let same_path_ok = !per_path || (s.path as usize) < self.latest.len();
                if same_path_ok && s.sent_at() < r.xmit_ts {
                    let deadline = s.sent_at() + r.rtt + reo;
                    if now >= deadline {
                        lost_any |= board.mark_lost(p);
                    } else {
                        timer = Some(timer.map_or(deadline, |t: Time| t.min(deadline)));
                    }
                }
            }
            p += 1;
        }
        if lost_any {
            sh.stats.recoveries += 1;
        }
        sh.timers.set(TimerKind::Rack, timer);
        lost_any
    }

    /// Fire the reorder and probe timers due at `now`. Returns whether anything was queued.
    pub fn on_timers(&mut self, now: Time, sh: &mut Shared) -> bool {
        let mut fired = false;
        if sh.timers.is_due(TimerKind::Rack, now) {
            sh.timers.stop(TimerKind::Rack);
            fired |= self.detect(now, sh);
        }
        if sh.timers.is_due(TimerKind::Tlp, now) {
            sh.timers.stop(TimerKind::Tlp);
            let board = &mut sh.board;
            if board.outstanding > 0 {
                // Probe with the first unacknowledged packet.
                let mut p = board.una;
                while p < board.max_sent {
                    let s = board.at(p);
                    if !s.sacked() && !s.lost() {
                        if board.mark_lost(p) {
                            fired = true;
                        }
                        break;
                    }
                    p += 1;
                }
            }
        }
        fired
    }
}
