//! A recovery episode over the SACK holes, shared by IRN and Early Recovery: on entry
//! (`recovery_psn = snd_nxt`) every un-SACKed PSN below the highest SACKed one is resent once per
//! episode; the episode ends when the cumulative ACK passes `recovery_psn`.

use super::scoreboard::Scoreboard;
use super::RecoveryStats;

/// Episode state.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Episode {
    /// An episode is in progress.
    pub active: bool,
    /// The episode ends once `una ≥ recovery_psn`.
    recovery_psn: u32,
    /// PSNs below this have been resent in this episode.
    rtx_scan: u32,
}

impl Episode {
    /// Enter an episode (counted as a recovery).
    pub fn enter(&mut self, board: &Scoreboard, stats: &mut RecoveryStats) {
        self.active = true;
        self.recovery_psn = board.max_sent;
        self.rtx_scan = board.una;
        stats.recoveries += 1;
    }

    /// Queue the un-SACKed PSNs below the highest SACKed one that this episode has not resent
    /// yet. Returns whether any was queued.
    pub fn queue_holes(&mut self, board: &mut Scoreboard) -> bool {
        let mut any = false;
        let end = board.highest_sacked_plus1.min(self.recovery_psn);
        let mut p = self.rtx_scan.max(board.una);
        while p < end {
            if board.mark_lost(p) {
                any = true;
            }
            p += 1;
        }
        self.rtx_scan = self.rtx_scan.max(p);
        any
    }

    /// End the episode once the cumulative ACK has passed its start.
    pub fn maybe_leave(&mut self, board: &Scoreboard) {
        if self.active && board.una >= self.recovery_psn {
            self.active = false;
        }
    }
}
