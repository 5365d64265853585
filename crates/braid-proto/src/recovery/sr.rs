//! Selective repeat: the receiver NAKs every out-of-order arrival with its cumulative ACK; the
//! sender resends only the NAK'd hole, at most once per smoothed RTT.

use braid_core::Time;

use super::{AckCtx, Shared};

/// Resend the hole a NAK names, unless its latest copy is younger than one SRTT. Returns whether
/// it was queued.
pub(crate) fn on_ack(ctx: &AckCtx, sh: &mut Shared) -> bool {
    let board = &mut sh.board;
    if ctx.is_nak && !ctx.ack.rx_buffer_full {
        let hole = ctx.ack.cum_ack;
        let srtt = sh.rtt.srtt.unwrap_or(Time::ZERO);
        if let Some(s) = board.slot(hole) {
            if !s.sacked()
                && !s.lost()
                && s.tx > 0
                && ctx.now >= s.sent_at() + srtt
                && board.mark_lost(hole)
            {
                sh.stats.recoveries += 1;
                return true;
            }
        }
    }
    false
}
