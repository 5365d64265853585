//! The sender's scoreboard, shared by every loss-recovery scheme: per-PSN send state (when and on
//! which logical path each outstanding packet was last sent, how often, whether it was
//! selectively acknowledged or declared lost), the cumulative ACK point, the next new PSN, the
//! retransmission queue and the outstanding counts (per flow and per path). Schemes decide *which*
//! packets are lost; the scoreboard does the bookkeeping of declaring them so ([`Scoreboard::mark_lost`],
//! [`Scoreboard::rewind`]).

use std::collections::VecDeque;

use braid_core::Time;

use super::psn_limit::PsnLimit;

/// Send state of one PSN at or above the cumulative ACK point. Twelve bytes (packed to 4-byte
/// alignment, the two flags in one byte): a sender keeps one per packet in flight, millions of
/// them on a long-haul network.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, packed(4))]
pub(crate) struct Slot {
    /// When its latest copy was sent ([`Slot::sent_at`]: read by value, the field is unaligned).
    sent_at: Time,
    /// The logical path its latest copy took.
    pub path: u16,
    /// Copies sent (saturating).
    pub tx: u8,
    /// [`SACKED`] and [`LOST`] bits.
    state: u8,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 12);

/// [`Slot`] state bit: selectively acknowledged.
const SACKED: u8 = 1;
/// [`Slot`] state bit: declared lost (and not yet sent again).
const LOST: u8 = 2;

impl Slot {
    /// Sent, and neither acknowledged nor declared lost.
    #[inline]
    pub fn in_flight(&self) -> bool {
        self.state == 0 && self.tx > 0
    }
    /// When its latest copy was sent.
    #[inline]
    pub fn sent_at(&self) -> Time {
        self.sent_at
    }
    /// Selectively acknowledged.
    #[inline]
    pub fn sacked(&self) -> bool {
        self.state & SACKED != 0
    }
    /// Mark it selectively acknowledged.
    #[inline]
    pub fn set_sacked(&mut self) {
        self.state |= SACKED;
    }
    /// Declared lost (and not yet sent again).
    #[inline]
    pub fn lost(&self) -> bool {
        self.state & LOST != 0
    }
    /// Declare it lost, or clear that.
    #[inline]
    pub fn set_lost(&mut self, lost: bool) {
        self.state = (self.state & !LOST) | if lost { LOST } else { 0 };
    }
}

/// Per-flow send bookkeeping (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Scoreboard {
    /// Packets in the message.
    pub total: u32,
    /// Cumulatively acknowledged packets (the lowest unacknowledged PSN).
    pub una: u32,
    /// Next new PSN.
    pub nxt: u32,
    /// Highest PSN sent + 1.
    pub max_sent: u32,
    /// Slots of PSNs `una..`.
    pub slots: VecDeque<Slot>,
    /// PSNs queued for retransmission, oldest first (stale entries are skipped).
    pub retx: VecDeque<u32>,
    /// Packets in flight.
    pub outstanding: u32,
    /// Highest selectively acknowledged PSN + 1 (at least `una`).
    pub highest_sacked_plus1: u32,
    /// Packets in flight per logical path (index = path), kept alongside `outstanding`.
    path_out: Vec<u32>,
    /// Resend the cumulative hole before other queued retransmissions.
    hole_first: bool,
    /// The RNIC's limit on outstanding PSNs (new data only).
    psn_limit: PsnLimit,
}

impl Scoreboard {
    /// An empty scoreboard for `total` packets.
    pub fn new(total: u32, hole_first: bool, psn_limit: PsnLimit) -> Scoreboard {
        Scoreboard {
            total,
            una: 0,
            nxt: 0,
            max_sent: 0,
            slots: VecDeque::new(),
            retx: VecDeque::new(),
            outstanding: 0,
            highest_sacked_plus1: 0,
            path_out: Vec::new(),
            hole_first,
            psn_limit,
        }
    }

    /// One past the highest PSN that may be sent now: the message's end, or the RNIC's PSN
    /// limit over the cumulative point if that is lower.
    #[inline]
    pub fn new_bound(&self) -> u32 {
        self.total.min(self.psn_limit.bound(self.una))
    }

    /// The slot of `psn`, if it is at or above `una` and has one.
    #[inline]
    pub fn slot(&self, psn: u32) -> Option<&Slot> {
        if psn < self.una {
            return None;
        }
        self.slots.get((psn - self.una) as usize)
    }

    #[inline]
    fn slot_mut(&mut self, psn: u32) -> Option<&mut Slot> {
        if psn < self.una {
            return None;
        }
        self.slots.get_mut((psn - self.una) as usize)
    }

    /// The slot of `psn`, which must lie in `una..una + slots.len()`.
    #[inline]
    pub fn at(&self, psn: u32) -> Slot {
        self.slots[(psn - self.una) as usize]
    }

    /// Every packet acknowledged.
    #[inline]
    pub fn is_complete(&self) -> bool {
        self.una >= self.total
    }

    /// A retransmission is waiting.
    #[inline]
    pub fn has_retx(&self) -> bool {
        !self.retx.is_empty()
    }

    /// Take the next queued retransmission that is still lost.
    pub fn pop_retx(&mut self) -> Option<u32> {
        while let Some(p) = self.retx.pop_front() {
            if let Some(s) = self.slot(p) {
                if !s.sacked() && s.lost() {
                    return Some(p);
                }
            }
        }
        None
    }

    /// Take the next PSN to send: the lost cumulative hole first (with `hole_first`), then a
    /// queued retransmission, then the next new PSN. Returns `(psn, is_retransmission)`.
    pub fn next_psn(&mut self) -> Option<(u32, bool)> {
        if self.hole_first && self.slot(self.una).is_some_and(|s| s.lost() && !s.sacked()) {
            // Its queue entry stays behind and is skipped once the packet is no longer lost.
            return Some((self.una, true));
        }
        if let Some(p) = self.pop_retx() {
            return Some((p, true));
        }
        if self.nxt < self.new_bound() {
            let p = self.nxt;
            self.nxt += 1;
            return Some((p, p < self.max_sent));
        }
        None
    }

    /// Put back a PSN taken by [`Scoreboard::next_psn`] but not sent.
    pub fn unget(&mut self, psn: u32, retx: bool) {
        if retx && psn < self.max_sent && self.slot(psn).is_some_and(|s| s.lost()) {
            self.retx.push_front(psn);
        } else if psn + 1 == self.nxt {
            self.nxt -= 1;
        }
    }

    /// Record that `psn` (≥ `una`) was sent at `now` on `path`. Returns whether it had been sent
    /// before.
    pub fn on_sent(&mut self, now: Time, psn: u32, path: u16) -> bool {
        while self.una + self.slots.len() as u32 <= psn {
            if self.slots.len() == self.slots.capacity() {
                // By a quarter, not double: a flow's slots follow its window (a bandwidth-delay
                // product of packets on long paths), and doubling would leave up to half unused.
                self.slots.reserve_exact((self.slots.len() / 4).max(16));
            }
            self.slots.push_back(Slot::default());
        }
        self.max_sent = self.max_sent.max(psn + 1);
        let s = self.slot_mut(psn).expect("slot exists");
        let was_outstanding = s.in_flight();
        let retx = s.tx > 0;
        let old_path = s.path;
        s.sent_at = now;
        s.path = path;
        s.tx = s.tx.saturating_add(1);
        s.set_lost(false);
        let sacked = s.sacked();
        if !was_outstanding && !sacked {
            self.outstanding += 1;
        }
        if was_outstanding {
            self.path_dec(old_path);
        }
        if !sacked {
            self.path_inc(path);
        }
        retx
    }

    fn path_inc(&mut self, path: u16) {
        let i = path as usize;
        if self.path_out.len() <= i {
            self.path_out.resize(i + 1, 0);
        }
        self.path_out[i] += 1;
    }

    fn path_dec(&mut self, path: u16) {
        if let Some(c) = self.path_out.get_mut(path as usize) {
            *c = c.saturating_sub(1);
        }
    }

    /// Packets in flight on logical path `path`.
    #[inline]
    pub fn path_outstanding(&self, path: u16) -> u32 {
        self.path_out.get(path as usize).copied().unwrap_or(0)
    }

    /// Move the cumulative ACK point up to `cum`; returns the packets newly acknowledged by it.
    pub fn advance_to(&mut self, cum: u32) -> u32 {
        let mut newly = 0;
        while self.una < cum {
            if let Some(s) = self.slots.pop_front() {
                if !s.sacked() {
                    newly += 1;
                    if !s.lost() && s.tx > 0 {
                        self.outstanding -= 1;
                        self.path_dec(s.path);
                    }
                }
            } else {
                newly += 1;
            }
            self.una += 1;
        }
        if self.nxt < self.una {
            self.nxt = self.una;
        }
        newly
    }

    /// Selectively acknowledge `psn` (in `una..max_sent`). Returns the send time and path of the
    /// delivered copy when this is news.
    pub fn sack(&mut self, psn: u32) -> Option<(Time, u16)> {
        let mut delivered = None;
        if let Some(s) = self.slot_mut(psn) {
            if !s.sacked() {
                s.set_sacked();
                let was_out = !s.lost() && s.tx > 0;
                delivered = Some((s.sent_at, s.path));
                let sp = s.path;
                if was_out {
                    self.outstanding -= 1;
                    self.path_dec(sp);
                }
            }
        }
        self.highest_sacked_plus1 = self.highest_sacked_plus1.max(psn + 1);
        delivered
    }

    /// Declare `psn` lost and queue it for retransmission (if it is in flight).
    pub fn mark_lost(&mut self, psn: u32) -> bool {
        let Some(s) = self.slot_mut(psn) else { return false };
        if s.sacked() || s.lost() || s.tx == 0 {
            return false;
        }
        s.set_lost(true);
        let sp = s.path;
        self.outstanding -= 1;
        self.path_dec(sp);
        self.retx.push_back(psn);
        true
    }

    /// Declare every packet in flight lost, queue it, and append its PSN to `marked` (the
    /// selective schemes' RTO, remembering what it declared).
    pub fn mark_all_lost_into(&mut self, marked: &mut Vec<u32>) {
        for p in self.una..self.max_sent {
            if self.mark_lost(p) {
                marked.push(p);
            }
        }
    }

    /// Undo an RTO found spurious: each of `marked` (the packets it declared lost) that is still
    /// lost — not acknowledged, not sent again — is in flight again (its original copy is still
    /// in the network); stale queue entries are skipped by [`Scoreboard::pop_retx`]. Packets
    /// declared lost by loss detection before the RTO stay lost.
    pub fn unmark_lost(&mut self, marked: &[u32]) {
        for &p in marked {
            let Some(s) = self.slot_mut(p) else { continue };
            if s.lost() && !s.sacked() && s.tx > 0 {
                s.set_lost(false);
                let sp = s.path;
                self.outstanding += 1;
                self.path_inc(sp);
            }
        }
    }

    /// Go-back-N: everything sent from `from` on is lost (not queued: it is sent again as new
    /// data), and the next new PSN goes back to `from`.
    pub fn rewind(&mut self, from: u32) {
        for p in from..self.max_sent {
            if let Some(s) = self.slot_mut(p) {
                if !s.lost() && s.tx > 0 {
                    s.set_lost(true);
                    let sp = s.path;
                    self.outstanding -= 1;
                    self.path_dec(sp);
                }
            }
        }
        self.nxt = from;
        self.retx.clear();
    }
}
