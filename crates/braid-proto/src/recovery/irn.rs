//! IRN (Mittal et al., SIGCOMM'18): on the first NAK the sender enters a recovery episode and
//! resends the un-SACKed PSNs below the highest SACKed one, each once per episode; its RTO has
//! two levels, `irn_rto_low` while at most `irn_n` packets are outstanding, `irn_rto_high`
//! otherwise. All of IRN's rules are here.

use braid_core::Time;

use super::episode::Episode;
use super::{AckCtx, RecoveryConfig, Shared};

/// A NAK starts an episode; during one, newly found holes are queued. Returns whether any was.
pub(crate) fn on_ack(ep: &mut Episode, ctx: &AckCtx, sh: &mut Shared) -> bool {
    if ctx.is_nak && !ep.active {
        ep.enter(&sh.board, &mut sh.stats);
    }
    ep.active && ep.queue_holes(&mut sh.board)
}

/// IRN's two-level RTO (before backoff).
pub(crate) fn base_rto(cfg: &RecoveryConfig, outstanding: u32) -> Time {
    if outstanding <= cfg.irn_n {
        cfg.irn_rto_low
    } else {
        cfg.irn_rto_high
    }
}
