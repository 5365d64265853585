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
//!   The packets one ACK can confirm lost on a path are the oldest of those sent on it, so each
//!   path keeps its copies in send order (16 bytes per copy in flight). An ACK whose PSN gap
//!   spans more than [`SCAN_MAX_PSNS`] reads those prefixes instead of every PSN of the gap:
//!   without the scheduler on the 5 ms / 7 ms toy of `tests/rondo/rondo_over_lcmp.rs` (about
//!   12,000 packets out of order) the run takes 1.8 s instead of 12.8 s (release). Shorter gaps, the
//!   datacenter's, are scanned, which costs less than visiting every path. Both give the same
//!   losses in the same order (a randomized test holds them to each other).

use std::collections::VecDeque;

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
    /// Per path, the copies sent on it in send order, `(PSN, send time)` (path-confirmed form):
    /// the packets a path's delivery can confirm lost are a prefix of its list, so an ACK reads
    /// those instead of every PSN of the out-of-order window. An entry whose PSN was acknowledged,
    /// declared lost or sent again since is stale; stale entries leave from the front. Kept only
    /// from the first ACK whose gap is longer than [`SCAN_MAX_PSNS`] on (`lists_kept`), built then
    /// from the scoreboard.
    pub sent_on_path: Vec<VecDeque<(u32, Time)>>,
    /// `sent_on_path` is kept up to date (see there).
    pub lists_kept: bool,
    /// The PSNs one ACK confirms lost, before they are marked in PSN order (kept to reuse its
    /// memory).
    pub confirmed: Vec<u32>,
    /// The episode (episode form).
    pub episode: Episode,
}

/// One past the highest PSN an ACK of `h` can declare lost at `threshold` packets of gap (at
/// most the highest PSN sent + 1), or `None` when the gap is below the threshold.
fn gap_end(h: u32, threshold: u32, board: &Scoreboard) -> Option<u32> {
    let thr = threshold.max(1);
    (h >= board.una.saturating_add(thr)).then(|| (h - thr + 1).min(board.max_sent))
}

/// Drop the stale entries at the front of path `path`'s send-order list.
fn drop_stale_front(list: &mut VecDeque<(u32, Time)>, path: usize, board: &Scoreboard) {
    while let Some(&(x, t)) = list.front() {
        if live(board, path, x, t) {
            break;
        }
        list.pop_front();
    }
}

/// The longest PSN gap the path-confirmed rule scans PSN by PSN; beyond it an ACK reads the
/// per-path send-order lists (see the module docs). Either gives the same losses.
pub(crate) const SCAN_MAX_PSNS: u32 = 128;

/// The copy `(psn, sent_at)` sent on `path` is still the latest copy of its PSN and in flight.
#[inline]
fn live(board: &Scoreboard, path: usize, psn: u32, sent_at: Time) -> bool {
    board
        .slot(psn)
        .is_some_and(|s| s.in_flight() && s.sent_at() == sent_at && s.path as usize == path)
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

    /// At `now`, a copy sent on the path before this time is confirmed lost: overtaken by the
    /// latest delivered copy, or outstanding for more than twice its RTT.
    #[inline]
    fn confirms_before(&self, now: Time) -> Time {
        let timed_out = if self.rtt > Time::ZERO && now > self.twice_rtt {
            now - self.twice_rtt
        } else {
            Time::ZERO
        };
        self.sent_at.max(timed_out)
    }
}

impl EarlyRecovery {
    /// A copy of `psn` left on `path` at `now` (path-confirmed form; `board` already records it).
    #[inline]
    pub fn on_sent(&mut self, now: Time, psn: u32, path: u16, board: &Scoreboard) {
        if self.lists_kept {
            self.list_sent(now, psn, path, board);
        }
    }

    /// Start keeping the per-path lists: every copy in flight on `board`, per path in send order.
    fn build_lists(&mut self, board: &Scoreboard) {
        let mut copies: Vec<(usize, Time, u32)> = (board.una..board.max_sent)
            .filter_map(|x| {
                board.slot(x).filter(|s| s.in_flight()).map(|s| (s.path as usize, s.sent_at(), x))
            })
            .collect();
        copies.sort_unstable();
        for list in &mut self.sent_on_path {
            list.clear();
        }
        for (p, t, x) in copies {
            if self.sent_on_path.len() <= p {
                self.sent_on_path.resize_with(p + 1, VecDeque::new);
            }
            self.sent_on_path[p].push_back((x, t));
        }
        self.lists_kept = true;
    }

    fn list_sent(&mut self, now: Time, psn: u32, path: u16, board: &Scoreboard) {
        let p = path as usize;
        if self.sent_on_path.len() <= p {
            self.sent_on_path.resize_with(p + 1, VecDeque::new);
        }
        let list = &mut self.sent_on_path[p];
        drop_stale_front(list, p, board);
        list.push_back((psn, now));
    }

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
            let (h, h_sent) = (ctx.ack.psn, ctx.ack.ts_sent);
            let lost = ctx.sack_valid
                && if !self.path_confirm {
                    gap_losses(h, h_sent, threshold, None, board)
                } else if h.saturating_sub(board.una) <= SCAN_MAX_PSNS {
                    let confirm = Some((ctx.now, self.path_latest.as_slice()));
                    gap_losses(h, h_sent, threshold, confirm, board)
                } else {
                    if !self.lists_kept {
                        self.build_lists(board);
                    }
                    self.confirmed_losses(ctx.now, h, h_sent, threshold, board)
                };
            if lost {
                sh.stats.recoveries += 1;
            }
            if self.path_confirm {
                self.arm_tail_check(ctx.now, sh);
            }
            return lost;
        }
        let ood = if sh.cfg.er_ood_held {
            ctx.ack.ood
        } else {
            ctx.ack.ood.max(board.highest_sacked_plus1.saturating_sub(1).saturating_sub(board.una))
        };
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

impl EarlyRecovery {
    /// The path-confirmed rule for an ACK, at `now`, of `h` whose copy was sent at `h_sent`:
    /// every packet in flight with a PSN at most `h − threshold`, sent before `h`'s copy, and
    /// overtaken on its own path (a later copy on it was delivered) or outstanding there for
    /// twice the path's RTT, is lost; they are declared so in PSN order. Per path those are the
    /// copies sent before `min(h_sent, max(latest delivered send time, now − 2·RTT))`, a prefix
    /// of its send-order list (kept: `lists_kept`).
    fn confirmed_losses(
        &mut self,
        now: Time,
        h: u32,
        h_sent: Time,
        threshold: u32,
        board: &mut Scoreboard,
    ) -> bool {
        let Some(end) = gap_end(h, threshold, board) else { return false };
        self.confirmed.clear();
        for (p, latest) in self.path_latest.iter().enumerate() {
            let Some(list) = self.sent_on_path.get_mut(p) else { break };
            let before = h_sent.min(latest.confirms_before(now));
            drop_stale_front(list, p, board);
            for &(x, t) in list.iter() {
                if t >= before {
                    break;
                }
                if x < end && live(board, p, x, t) {
                    self.confirmed.push(x);
                }
            }
        }
        self.confirmed.sort_unstable();
        let mut any = false;
        for &x in &self.confirmed {
            any |= board.mark_lost(x);
        }
        any
    }
}

/// The per-packet rule for an ACK of `h` whose copy was sent at `h_sent`, PSN by PSN: every
/// packet in flight with a PSN at most `h − threshold` and sent before `h`'s copy is lost; with
/// `confirm` (now, and per path the latest delivered copy), only those overtaken on their own
/// path or outstanding there for twice its RTT ([`EarlyRecovery::confirmed_losses`] finds the
/// same ones from the per-path lists).
fn gap_losses(
    h: u32,
    h_sent: Time,
    threshold: u32,
    confirm: Option<(Time, &[PathLatest])>,
    board: &mut Scoreboard,
) -> bool {
    let Some(end) = gap_end(h, threshold, board) else { return false };
    let mut any = false;
    let mut x = board.una;
    while x < end {
        if let Some(s) = board.slot(x) {
            let overtaken = || {
                confirm.is_none_or(|(now, c)| {
                    c.get(s.path as usize).is_some_and(|p| s.sent_at() < p.confirms_before(now))
                })
            };
            if s.in_flight() && s.sent_at() < h_sent && overtaken() && board.mark_lost(x) {
                any = true;
            }
        }
        x += 1;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::psn_limit::PsnLimit;

    #[test]
    fn per_path_lists_declare_the_same_losses_as_a_scan_of_every_psn() {
        // The two forms of the path-confirmed rule, PSN by PSN and from the per-path lists, on
        // random sends over 6 paths (retransmissions of declared-lost PSNs included), SACKs,
        // cumulative ACKs and per-path delivery records: after every ACK both must have queued
        // the same PSNs in the same order.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut list_acks = 0;
        for _trial in 0..40 {
            let mut board = Scoreboard::new(400, false, PsnLimit::None);
            let mut er =
                EarlyRecovery { per_packet: true, path_confirm: true, ..Default::default() };
            let mut reference = board.clone();
            let mut now = Time::ZERO;
            let mut checked = 0;
            for _step in 0..600 {
                now += Time::from_ns(1 + rnd(300));
                match rnd(4) {
                    0 | 1 => {
                        // Send the next retransmission or new PSN on a random path.
                        let psn = match board.pop_retx() {
                            Some(p) => Some(p),
                            None => board.next_psn().map(|(p, _)| p),
                        };
                        if let Some(psn) = psn {
                            let path = rnd(6) as u16;
                            if psn >= board.una {
                                board.on_sent(now, psn, path);
                                reference.on_sent(now, psn, path);
                                er.on_sent(now, psn, path, &board);
                            }
                            // The lists start part-way, built from the scoreboard, as when a
                            // flow's first long gap comes.
                            if !er.lists_kept && rnd(60) == 0 {
                                er.build_lists(&board);
                            }
                            // Keep the reference's retransmission queue in step.
                            reference.retx = board.retx.clone();
                            reference.nxt = board.nxt;
                        }
                    }
                    _ => {
                        // An ACK of a random PSN sent so far, its copy's path delivered.
                        if board.max_sent <= board.una {
                            continue;
                        }
                        let h = board.una + rnd((board.max_sent - board.una) as u64) as u32;
                        let Some(s) = board.slot(h).copied() else { continue };
                        if s.tx == 0 {
                            continue;
                        }
                        let (path, sent) = (s.path as usize, s.sent_at());
                        board.sack(h);
                        reference.sack(h);
                        if rnd(5) == 0 {
                            let cum = board.una + rnd(3) as u32;
                            board.advance_to(cum.min(board.max_sent));
                            reference.advance_to(cum.min(reference.max_sent));
                        }
                        if er.path_latest.len() <= path {
                            er.path_latest.resize(path + 1, PathLatest::default());
                        }
                        if sent >= er.path_latest[path].sent_at {
                            er.path_latest[path] = PathLatest::new(sent, now.saturating_sub(sent));
                        }
                        let thr = 1 + rnd(4) as u32;
                        let c = er.path_latest.clone();
                        let a = if er.lists_kept {
                            er.confirmed_losses(now, h, sent, thr, &mut board)
                        } else {
                            gap_losses(h, sent, thr, Some((now, &c)), &mut board)
                        };
                        let b = gap_losses(h, sent, thr, Some((now, &c)), &mut reference);
                        assert_eq!(a, b, "loss found");
                        assert_eq!(board.retx, reference.retx, "PSNs declared lost, in order");
                        assert_eq!(board.outstanding, reference.outstanding);
                        checked += usize::from(er.lists_kept);
                    }
                }
            }
            list_acks += checked;
        }
        assert!(list_acks > 2_000, "{list_acks} ACKs read the lists");
    }
}
