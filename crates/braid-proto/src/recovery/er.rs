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

use braid_core::Time;

use super::episode::Episode;
use super::scoreboard::Scoreboard;
use super::{AckCtx, Shared};

/// Early Recovery state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct EarlyRecovery {
    /// Judge each packet by its own PSN gap instead of entering episodes.
    pub per_packet: bool,
    /// The episode (episode form).
    pub episode: Episode,
}

impl EarlyRecovery {
    /// Apply the rule to an ACK (threshold `er_threshold` packets). Returns whether a loss was found.
    pub fn on_ack(&mut self, ctx: &AckCtx, sh: &mut Shared) -> bool {
        let threshold = sh.cfg.er_threshold;
        let board = &mut sh.board;
        if self.per_packet {
            if ctx.sack_valid && gap_losses(ctx.ack.psn, ctx.ack.ts_sent, threshold, board) {
                sh.stats.recoveries += 1;
                return true;
            }
            return false;
        }
        let ood = ctx.ack.ood.max(board.highest_sacked_plus1.saturating_sub(1).saturating_sub(board.una));
        if !self.episode.active && ood >= threshold {
            self.episode.enter(board, &mut sh.stats);
        }
        self.episode.active && self.episode.queue_holes(board)
    }
}

/// The per-packet rule for an ACK of `h` whose copy was sent at `h_sent`.
fn gap_losses(h: u32, h_sent: Time, threshold: u32, board: &mut Scoreboard) -> bool {
    let thr = threshold.max(1);
    if h < board.una.saturating_add(thr) {
        return false;
    }
    let end = (h - thr + 1).min(board.max_sent);
    let mut any = false;
    let mut x = board.una;
    while x < end {
        if let Some(s) = board.slot(x) {
            if !s.sacked && !s.lost && s.tx > 0 && s.sent_at < h_sent && board.mark_lost(x) {
                any = true;
            }
        }
        x += 1;
    }
    any
}
