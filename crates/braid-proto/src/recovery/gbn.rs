//! Go-back-N (HPCC ns-3 `RecoverQueue`): a NAK for PSN `e` rewinds `snd_nxt` to `e`, and
//! everything from the hole on is sent again; an RTO rewinds to the cumulative ACK. Both use the
//! one rewind of the scoreboard ([`Scoreboard::rewind`]).

use super::scoreboard::Scoreboard;
use super::{AckCtx, Shared};

/// A NAK whose cumulative ACK lies in `una..max_sent` rewinds to it. Returns whether it did.
pub(crate) fn on_ack(ctx: &AckCtx, sh: &mut Shared) -> bool {
    let board = &mut sh.board;
    let cum = ctx.ack.cum_ack;
    if ctx.is_nak && cum < board.max_sent && cum >= board.una {
        board.rewind(cum);
        sh.stats.recoveries += 1;
        return true;
    }
    false
}

/// RTO expiry: everything from the cumulative ACK on is sent again.
pub(crate) fn on_rto(board: &mut Scoreboard) {
    let una = board.una;
    board.rewind(una);
}
