//! RNIC metadata limits on the PSNs a queue pair may have outstanding (Rondo §2 and Appendix A,
//! Fig 24): a ConnectX-7 QP stalls once the range from its oldest unacknowledged PSN reaches
//! 512 packets (RDMA WRITE), or once 16 READ operations are outstanding (RDMA READ). Either limit
//! caps the *range* of PSNs in flight, not their number, so a reordered (late) packet holds the
//! range open and new data waits behind it: throughput falls off a cliff once the reordering plus
//! the normal in-flight data exceed the range.
//!
//! The limit is a bound on the next new PSN as a function of the cumulative ACK point `una`:
//! - [`PsnLimit::Range`]`(w)`: PSNs `< una + w` (the WRITE PSN window).
//! - [`PsnLimit::Reads`]: the message is a sequence of READ operations of `packets_per_read`
//!   packets each; the requester keeps at most `max_reads` of them outstanding and frees a slot
//!   when a READ completes, in order (completions are delivered in order per QP), i.e. when the
//!   cumulative point passes its last packet. Its read requests travel to the responder with the
//!   ACKs, so the responder may send PSNs `< (⌊una / packets_per_read⌋ + max_reads) ·
//!   packets_per_read`.
//!
//! Retransmissions are always below the bound (they are below the highest PSN sent, which was
//! below an earlier, smaller bound), so only new data waits.

/// The RNIC's limit on outstanding PSNs of one QP (see the module docs). `None` by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PsnLimit {
    /// No limit.
    #[default]
    None,
    /// WRITE: at most this many PSNs from the oldest unacknowledged one.
    Range(u32),
    /// READ: at most `max_reads` READ operations of `packets_per_read` packets outstanding.
    Reads {
        /// Packets per READ operation (at least 1).
        packets_per_read: u32,
        /// Outstanding READ operations per QP (at least 1).
        max_reads: u32,
    },
}

impl PsnLimit {
    /// One past the highest new PSN the QP may send while `una` is its cumulative ACK point
    /// (`u32::MAX` without a limit).
    #[inline]
    pub fn bound(self, una: u32) -> u32 {
        match self {
            PsnLimit::None => u32::MAX,
            PsnLimit::Range(w) => una.saturating_add(w),
            PsnLimit::Reads { packets_per_read, max_reads } => {
                let ppr = packets_per_read.max(1) as u64;
                let first_open = una as u64 / ppr;
                ((first_open + max_reads.max(1) as u64) * ppr).min(u32::MAX as u64) as u32
            }
        }
    }

    /// Whether a limit is set.
    #[inline]
    pub fn is_set(self) -> bool {
        self != PsnLimit::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_range_slides_with_the_cumulative_ack() {
        let l = PsnLimit::Range(512);
        assert_eq!(l.bound(0), 512);
        assert_eq!(l.bound(100), 612);
        assert_eq!(PsnLimit::None.bound(7), u32::MAX);
        assert_eq!(PsnLimit::Range(10).bound(u32::MAX - 3), u32::MAX);
    }

    #[test]
    fn a_read_slot_frees_only_when_the_whole_read_is_acknowledged() {
        // 16 reads of 16 packets: PSNs 0..256 may be sent at first.
        let l = PsnLimit::Reads { packets_per_read: 16, max_reads: 16 };
        assert_eq!(l.bound(0), 256);
        // 15 packets of the first read acknowledged: still 16 reads outstanding.
        assert_eq!(l.bound(15), 256);
        // The first read complete: the 17th read's request goes out.
        assert_eq!(l.bound(16), 272);
        assert_eq!(l.bound(47), 288);
    }
}
