//! Early Recovery (ER) with a fixed OOD threshold (Rondo §2.2; UET). Two forms:
//! - **episode** (default, UET-style): when the receiver's OOD (echoed in ACKs) or
//!   `highest_SACKed − cum_ACK` reaches `er_threshold` packets, enter a recovery episode and resend
//!   the holes below the highest SACKed PSN once per episode;
//! - **per packet** (`RecoveryConfig::er_per_packet`, the paper's wording: "ER retransmits an
//!   unacknowledged packet when the gap between its PSN and the highest acknowledged PSN exceeds a
//!   fixed threshold"): on each ACK of PSN `h`, every unacknowledged PSN `x ≤ h − er_threshold`
//!   whose latest copy was sent before the acknowledged copy of `h` is declared lost, each on its
//!   own. The send-time condition keeps a retransmission from being declared lost again by ACKs of
//!   packets sent before it.
//! - **per packet, path-confirmed** (`RecoveryConfig::er_path_confirm`, `er_mode = "per-path"`):
//!   the per-packet rule, and a packet sent later *on the same logical path* has been delivered.
//!   A logical path is one FIFO route, so that later delivery means this packet was lost, not
//!   overtaken; the PSN gap alone cannot tell the two apart once the paths' delays differ by more
//!   than the threshold's worth of packets (EXPERIMENTS.md, "Rondo under heterogeneity"). A
//!   path that delivers nothing more (a failed link on its route, the tail of a flow) confirms
//!   nothing, so a packet outstanding for twice its path's last RTT counts as confirmed too.
//!   That check also runs on a timer (the tail check, [`TimerKind::Rack`]), re-armed on every
//!   ACK to twice the slowest path's last RTT: when a flow's last packets or their ACKs are lost
//!   no ACK arrives to run it, and without the timer the flow waited for its RTO (at 0.1 % loss
//!   on the permutation of Fig 15, 23 of 320 flows did, 200 µs each).

use braid_core::Time;

use super::episode::Episode;
use super::scoreboard::Scoreboard;
use super::{AckCtx, Shared};
use crate::events::TimerKind;

/// Early Recovery state.
#[derive(Clone, Debug, Default)]
pub(crate) struct EarlyRecovery {
    /// Judge each packet by its own PSN gap instead of entering episodes.
    pub per_packet: bool,
    /// Per packet, and only once a later copy on the packet's own path was delivered.
    pub path_confirm: bool,
    /// Per path: the latest-sent delivered copy (path-confirmed form).
    pub path_latest: Vec<PathLatest>,
    /// The episode (episode form).
    pub episode: Episode,
}

/// What a logical path's latest-sent delivered copy says (path-confirmed form).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PathLatest {
    /// Send time of the latest-sent copy delivered on the path.
    pub sent_at: Time,
    /// That copy's RTT.
    pub rtt: Time,
    /// Twice that RTT: a packet outstanding longer than this on the path counts as lost. Kept
    /// beside the RTT so the per-ACK scan does no float arithmetic.
    pub twice_rtt: Time,
}

impl PathLatest {
    fn new(sent_at: Time, rtt: Time) -> PathLatest {
        PathLatest { sent_at, rtt, twice_rtt: rtt.mul_f64(2.0) }
    }
}

impl EarlyRecovery {
    /// Apply the rule to an ACK (threshold `er_threshold` packets). Returns whether a loss was found.
    pub fn on_ack(&mut self, ctx: &AckCtx, sh: &mut Shared) -> bool {
        let threshold = sh.cfg.er_threshold;
        let board = &mut sh.board;
        if self.path_confirm {
            // With a SACK bitmap below the acknowledged PSN, an earlier ACK's bitmap may have
            // acknowledged this PSN already: its own ACK still says this copy crossed its path.
            if ctx.delivered.is_some() || (sh.cfg.sack_below && ctx.sack_valid) {
                // The copy this ACK answers (its echoed send time and path), not the latest copy
                // on the scoreboard: when an original arrives after its retransmission left on
                // another path, the retransmission's path has confirmed nothing.
                let (sent_at, path) = (ctx.ack.ts_sent, ctx.ack.path);
                let i = path as usize;
                if self.path_latest.len() <= i {
                    self.path_latest.resize(i + 1, PathLatest::default());
                }
                if sent_at >= self.path_latest[i].sent_at {
                    self.path_latest[i] = PathLatest::new(sent_at, ctx.now.saturating_sub(sent_at));
                }
            }
        }
        if self.per_packet {
            let confirm =
                if self.path_confirm { Some((ctx.now, self.path_latest.as_slice())) } else { None };
            let lost = ctx.sack_valid
                && gap_losses(ctx.ack.psn, ctx.ack.ts_sent, threshold, confirm, board);
            if lost {
                sh.stats.recoveries += 1;
            }
            if self.path_confirm {
                self.arm_tail_check(ctx.now, sh);
            }
            return lost;
        }
        let ood =
            ctx.ack.ood.max(board.highest_sacked_plus1.saturating_sub(1).saturating_sub(board.una));
        if !self.episode.active && ood >= threshold {
            self.episode.enter(board, &mut sh.stats);
        }
        self.episode.active && self.episode.queue_holes(board)
    }
}

impl EarlyRecovery {
    /// Re-arm the tail check at twice the slowest path's last RTT from `now` while packets are
    /// outstanding (path-confirmed form).
    fn arm_tail_check(&self, now: Time, sh: &mut Shared) {
        let rtt = self.path_latest.iter().map(|p| p.rtt).max().unwrap_or(Time::ZERO);
        let at = (sh.board.outstanding > 0 && rtt > Time::ZERO).then(|| now + rtt.mul_f64(2.0));
        sh.timers.set(TimerKind::Rack, at);
    }

    /// The tail check is due: every packet outstanding for more than twice its path's last RTT is
    /// lost; the timer re-arms for the earliest packet not yet due. Returns whether a loss was found.
    pub fn on_timer(&mut self, now: Time, sh: &mut Shared) -> bool {
        if !self.path_confirm || !sh.timers.is_due(TimerKind::Rack, now) {
            return false;
        }
        sh.timers.stop(TimerKind::Rack);
        let board = &mut sh.board;
        let mut any = false;
        let mut next: Option<Time> = None;
        let mut x = board.una;
        while x < board.max_sent {
            let s = board.at(x);
            if s.in_flight() {
                if let Some(p) =
                    self.path_latest.get(s.path as usize).filter(|p| p.rtt > Time::ZERO)
                {
                    let due = s.sent_at() + p.twice_rtt;
                    if now > due {
                        any |= board.mark_lost(x);
                    } else {
                        next = Some(next.map_or(due, |t: Time| t.min(due)));
                    }
                }
            }
            x += 1;
        }
        if any {
            sh.stats.recoveries += 1;
        }
        // A packet whose due time is exactly now is lost on the next picosecond.
        sh.timers.set(TimerKind::Rack, next.map(|t| t + Time::from_ps(1)));
        any
    }
}

/// The per-packet rule for an ACK of `h` whose copy was sent at `h_sent`; with `confirm` (now,
/// and per path the send time and RTT of the latest delivered copy), only packets overtaken on
/// their own path or outstanding for twice its RTT. The scan runs over every PSN from `una` on
/// every ACK (the whole out-of-order window when paths' delays differ), so each slot's flags are
/// read before its path.
fn gap_losses(
    h: u32,
    h_sent: Time,
    threshold: u32,
    confirm: Option<(Time, &[PathLatest])>,
    board: &mut Scoreboard,
) -> bool {
    let thr = threshold.max(1);
    if h < board.una.saturating_add(thr) {
        return false;
    }
    let end = (h - thr + 1).min(board.max_sent);
    let mut any = false;
    let mut x = board.una;
    while x < end {
        if let Some(s) = board.slot(x) {
            let overtaken = || {
                confirm.is_none_or(|(now, c)| {
                    c.get(s.path as usize).is_some_and(|p| {
                        p.sent_at > s.sent_at()
                            || (p.rtt > Time::ZERO && now.saturating_sub(s.sent_at()) > p.twice_rtt)
                    })
                })
            };
            if !s.sacked()
                && !s.lost()
                && s.tx > 0
                && s.sent_at() < h_sent
                && overtaken()
                && board.mark_lost(x)
            {
                any = true;
            }
        }
        x += 1;
    }
    any
}
