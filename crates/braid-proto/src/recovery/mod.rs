//! Sender-side loss recovery: which PSN to send next, when a packet is declared lost, and the
//! retransmission timer (sans-IO).
//!
//! Schemes (`docs/baselines.md`, loss recovery and UET):
//! - **Go-back-N** (HPCC ns-3 `RecoverQueue`): a NAK for PSN `e` rewinds `snd_nxt` to `e`, and
//!   everything from the hole on is sent again.
//! - **Selective repeat**: the receiver NAKs every out-of-order arrival with its cumulative ACK; the
//!   sender retransmits only the NAK'd PSN, at most once per smoothed RTT.
//! - **IRN**: on the first NAK the sender enters recovery (`recovery_psn = snd_nxt`) and resends the
//!   un-SACKed PSNs below the highest SACKed one, each once per episode; two-level RTO
//!   (`irn_rto_low` when at most `irn_n` packets are outstanding, else `irn_rto_high`).
//! - **RACK-TLP** (RFC 8985; per flow or per path): a packet is lost once a packet sent after it
//!   (on the same path, in the per-path form) has been delivered and `RTT + reo_wnd` has passed
//!   since it was sent, with `reo_wnd = max(min_reo, reo_frac · min_RTT)`; a tail-loss probe
//!   resends the first unacknowledged packet after `PTO = max(tlp_factor · SRTT, tlp_min)` without ACKs.
//! - **Early Recovery (ER)** with a fixed OOD threshold: when the receiver's OOD (echoed in ACKs) or
//!   `highest_SACKed − cum_ACK` reaches `er_threshold` packets, enter recovery and resend the holes
//!   below the highest SACKed PSN once per episode (Rondo's and UET's scheme).
//!
//! Every scheme has an RTO backstop: `max(rto_min, SRTT + 4·RTTVAR)` (RFC 6298), doubling on each
//! expiry up to `rto_max`; on expiry go-back-N rewinds to the cumulative ACK and the selective
//! schemes resend every un-SACKed outstanding packet. A selective scheme's RTO is checked for
//! being spurious (Eifel, RFC 3522): if the ACK that first moves the cumulative point past the
//! oldest packet it declared lost echoes a send time from before the RTO, that packet's original
//! arrived — the RTO only mistook a long queue (a deep DCI buffer before the first RTT sample)
//! for loss. The packets it declared lost and that were not yet resent are in flight again, and
//! [`AckSummary::spurious_rto`] tells the sender to undo its controller's reaction (RFC 4015).
//!
//! Counters: retransmissions (packets sent again), timeouts, and recovery episodes. Spurious
//! retransmissions are counted by the receiver (a copy arriving for a PSN already received).

use braid_core::{PacketKind, Time};

use crate::events::{AckIn, TimerKind, TimerTable};

mod episode;
mod er;
mod gbn;
mod irn;
pub mod psn_limit;
mod rack;
mod rto;
mod scoreboard;
mod sr;

pub use psn_limit::PsnLimit;

use episode::Episode;
use er::EarlyRecovery;
use rack::RackTlp;
use rto::RttEstimator;
use scoreboard::Scoreboard;

/// The loss-recovery scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// Go-back-N.
    GoBackN,
    /// Selective repeat with a NAK per out-of-order packet.
    SelectiveRepeat,
    /// IRN-style SACK bitmap recovery.
    Irn,
    /// RACK-TLP over the whole flow.
    RackTlp,
    /// RACK-TLP applied per logical path.
    RackTlpPerPath,
    /// Early recovery with a fixed OOD threshold.
    EarlyRecovery,
}

impl RecoveryKind {
    /// Parse a kebab-case name.
    pub fn parse(s: &str) -> Result<RecoveryKind, String> {
        Ok(match s {
            "gbn" | "go-back-n" => RecoveryKind::GoBackN,
            "sr" | "selective-repeat" => RecoveryKind::SelectiveRepeat,
            "irn" => RecoveryKind::Irn,
            "rack-tlp" | "rack" => RecoveryKind::RackTlp,
            "rack-tlp-per-path" => RecoveryKind::RackTlpPerPath,
            "er" | "early-recovery" => RecoveryKind::EarlyRecovery,
            _ => return Err(format!("unknown recovery scheme `{s}` (known: gbn, sr, irn, rack-tlp, rack-tlp-per-path, er)")),
        })
    }
    /// The scheme's kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryKind::GoBackN => "gbn",
            RecoveryKind::SelectiveRepeat => "sr",
            RecoveryKind::Irn => "irn",
            RecoveryKind::RackTlp => "rack-tlp",
            RecoveryKind::RackTlpPerPath => "rack-tlp-per-path",
            RecoveryKind::EarlyRecovery => "er",
        }
    }
    /// Whether the receiver holds out-of-order packets under this scheme (all but go-back-N).
    pub fn receiver_buffers(self) -> bool {
        self != RecoveryKind::GoBackN
    }
}

/// Loss-recovery parameters (all knobs; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecoveryConfig {
    /// The scheme.
    pub kind: RecoveryKind,
    /// Lower bound of the RTO.
    pub rto_min: Time,
    /// RTO before the first RTT sample.
    pub rto_initial: Time,
    /// Upper bound of the backed-off RTO.
    pub rto_max: Time,
    /// IRN: RTO when at most `irn_n` packets are outstanding.
    pub irn_rto_low: Time,
    /// IRN: RTO otherwise.
    pub irn_rto_high: Time,
    /// IRN: the outstanding-packet threshold between the two RTOs.
    pub irn_n: u32,
    /// ER: OOD threshold in packets.
    pub er_threshold: u32,
    /// RACK: reorder window as a fraction of the minimum RTT.
    pub reo_frac: f64,
    /// RACK: minimum reorder window.
    pub min_reo: Time,
    /// TLP: probe timeout as a multiple of SRTT.
    pub tlp_factor: f64,
    /// TLP: minimum probe timeout.
    pub tlp_min: Time,
    /// Go-back-N receiver: minimum time between NAKs for the same hole.
    pub nak_interval: Time,
    /// The receiver ACKs a duplicate data packet (default true). The ns-3 HPCC fork's go-back-N
    /// receiver sends nothing for one (`recovery_params.ack_duplicates = false`).
    pub ack_duplicates: bool,
    /// Per-packet retransmission timers, as htsim's UET and EQDS sources keep them
    /// (`docs/baselines.md`, UET and EQDS): every outstanding packet times out `rto()` after its
    /// own (last) transmission, and an expiry declares lost exactly the packets whose time is up,
    /// without exponential backoff.
    /// Off (the default): one flow timer restarted on progress (RFC 6298) that resends every
    /// outstanding packet when it fires. A sender's mode, not a scenario knob.
    pub rto_per_packet: bool,
    /// Resend the cumulative hole (`snd_una`) first whenever it is declared lost, ahead of the
    /// other queued retransmissions (which otherwise go in the order their losses were found).
    /// With a shared receiver reorder buffer that is full, the receiver accepts only each flow's
    /// next expected packet, so a hole stuck behind retransmissions that the full buffer drops
    /// again would stall the flow. A sender's mode, not a scenario knob.
    pub hole_first: bool,
    /// Early Recovery judges each packet by its own PSN gap (Rondo §2.2) instead of entering
    /// episodes; see the `er` module. A sender's mode.
    pub er_per_packet: bool,
    /// Per-packet Early Recovery also needs a later delivery on the packet's own path; see the
    /// `er` module. A sender's mode.
    pub er_path_confirm: bool,
    /// The receiver's per-packet ACKs carry the bitmap of the 64 PSNs below the acknowledged one
    /// (`Receiver::with_sack_below`): every set bit counts as a selective acknowledgement, so a
    /// lost ACK does not look like a lost data packet. A sender's mode, set with the receiver's.
    pub sack_below: bool,
    /// Episode Early Recovery reads the out-of-order degree as the packets the receiver holds
    /// above its cumulative ACK, echoed in each ACK (`Receiver::with_held_echo`; htsim's UET
    /// `UecSink::_out_of_order_count`, which its SLEEK compares with the threshold), instead of
    /// the larger of the echoed span and `highest_SACKed − cum_ACK`. A sender's mode, set with
    /// the receiver's.
    pub er_ood_held: bool,
    /// The RNIC's limit on the range of outstanding PSNs (Rondo Appendix A; [`PsnLimit`]):
    /// new data waits while the next new PSN is at or beyond the bound. Set from the network's
    /// `max_outstanding_psn` / `max_outstanding_reads`, not a recovery knob.
    pub psn_limit: PsnLimit,
}

impl RecoveryConfig {
    /// Defaults for a scheme (IRN and TLP values from ConWeave-ns3 / Isekai, `docs/baselines.md`).
    pub fn new(kind: RecoveryKind) -> RecoveryConfig {
        RecoveryConfig {
            kind,
            rto_min: Time::from_us(200),
            rto_initial: Time::from_ms(1),
            rto_max: Time::from_ms(100),
            irn_rto_low: Time::from_us(100),
            irn_rto_high: Time::from_us(320),
            irn_n: 3,
            er_threshold: 4,
            reo_frac: 0.25,
            min_reo: Time::ZERO,
            tlp_factor: 1.1,
            tlp_min: Time::ZERO,
            nak_interval: Time::from_us(4),
            ack_duplicates: true,
            rto_per_packet: false,
            hole_first: false,
            er_per_packet: false,
            er_path_confirm: false,
            sack_below: false,
            er_ood_held: false,
            psn_limit: PsnLimit::None,
        }
    }
}

/// Counters a sender reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryStats {
    /// Packets sent more than once (each extra copy counts).
    pub retransmissions: u64,
    /// RTO expiries.
    pub timeouts: u64,
    /// Recovery episodes entered (IRN, ER) or fast retransmits (SR, RACK).
    pub recoveries: u64,
    /// RTO expiries found spurious and undone (see [`AckSummary::spurious_rto`]).
    pub spurious_rtos: u64,
}

/// What [`Recovery::on_timeout`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerFired {
    /// No timer was due, or the one due found nothing to do.
    Nothing,
    /// A loss-detection timer (RACK's reordering window, a tail-loss probe, early recovery's
    /// timer) queued packets for retransmission.
    LossTimer,
    /// A retransmission timeout: counted in [`RecoveryStats::timeouts`], its packets queued again.
    Rto,
}

/// What an ACK changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckSummary {
    /// Packets newly acknowledged (cumulatively or selectively).
    pub newly_acked: u32,
    /// The cumulative ACK advanced.
    pub advanced: bool,
    /// Round-trip sample from the echoed timestamp.
    pub rtt: Option<Time>,
    /// A loss was detected (recovery entered or a packet queued for retransmission).
    pub loss: bool,
    /// The last RTO was spurious (Eifel detection, RFC 3522: the ACK that first moved the
    /// cumulative point past the oldest packet the RTO declared lost echoes a send time from
    /// before the RTO, so that packet's original copy arrived). The packets it declared lost and
    /// that were not sent again are in flight again; the sender should undo the controller's
    /// reaction to the RTO (RFC 4015).
    pub spurious_rto: bool,
}

/// The loss detector of the configured scheme (static dispatch; each scheme's rules live in its
/// own module).
#[derive(Clone, Debug)]
enum LossDetector {
    /// Go-back-N.
    GoBackN,
    /// Selective repeat.
    SelectiveRepeat,
    /// IRN.
    Irn(Episode),
    /// RACK-TLP, per flow or per path.
    RackTlp(RackTlp),
    /// Early Recovery.
    EarlyRecovery(EarlyRecovery),
}

impl LossDetector {
    fn new(cfg: &RecoveryConfig) -> LossDetector {
        match cfg.kind {
            RecoveryKind::GoBackN => LossDetector::GoBackN,
            RecoveryKind::SelectiveRepeat => LossDetector::SelectiveRepeat,
            RecoveryKind::Irn => LossDetector::Irn(Episode::default()),
            RecoveryKind::RackTlp => LossDetector::RackTlp(RackTlp::new(false)),
            RecoveryKind::RackTlpPerPath => LossDetector::RackTlp(RackTlp::new(true)),
            RecoveryKind::EarlyRecovery => LossDetector::EarlyRecovery(EarlyRecovery {
                per_packet: cfg.er_per_packet || cfg.er_path_confirm,
                path_confirm: cfg.er_path_confirm,
                path_latest: Vec::new(),
                sent_on_path: Vec::new(),
                lists_kept: false,
                confirmed: Vec::new(),
                episode: Episode::default(),
            }),
        }
    }

    fn episode(&self) -> Option<&Episode> {
        match self {
            LossDetector::Irn(ep) => Some(ep),
            LossDetector::EarlyRecovery(er) => Some(&er.episode),
            _ => None,
        }
    }
}

/// What the loss detectors see of an ACK.
pub(crate) struct AckCtx<'a, 'b> {
    /// Arrival time.
    pub now: Time,
    /// The ACK.
    pub ack: &'a AckIn<'b>,
    /// It is a NAK.
    pub is_nak: bool,
    /// Its PSN counts as selectively acknowledged.
    pub sack_valid: bool,
    /// Send time and path of the copy it newly acknowledged selectively.
    pub delivered: Option<(Time, u16)>,
}

/// The state every scheme shares: configuration, scoreboard, RTT estimate, timers, counters.
#[derive(Clone, Debug)]
pub(crate) struct Shared {
    /// The configuration (the ER threshold may change at run time).
    pub cfg: RecoveryConfig,
    /// Per-PSN send state.
    pub board: Scoreboard,
    /// RTT estimate and RTO backoff.
    pub rtt: RttEstimator,
    /// One deadline per timer kind.
    pub timers: TimerTable,
    /// Counters.
    pub stats: RecoveryStats,
    /// The last RTO of a selective scheme, while its verdict is open: (when it fired, the
    /// cumulative point then).
    pub rto_open: Option<(Time, u32)>,
    /// The packets that RTO declared lost (filled on an RTO, which is rare; not per packet).
    pub rto_marked: Vec<u32>,
}

/// Per-flow loss-recovery state: the shared scoreboard and RTO (`Shared`) and the scheme's
/// loss detector.
#[derive(Clone, Debug)]
pub struct Recovery {
    sh: Shared,
    detector: LossDetector,
}

impl Recovery {
    /// State for a message of `total` packets.
    pub fn new(cfg: RecoveryConfig, total: u32) -> Recovery {
        Recovery {
            sh: Shared {
                cfg,
                board: Scoreboard::new(total, cfg.hole_first, cfg.psn_limit),
                rtt: RttEstimator::new(),
                timers: TimerTable::default(),
                stats: RecoveryStats::default(),
                rto_open: None,
                rto_marked: Vec::new(),
            },
            detector: LossDetector::new(&cfg),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RecoveryConfig {
        &self.sh.cfg
    }
    /// Cumulatively acknowledged packets.
    pub fn una(&self) -> u32 {
        self.sh.board.una
    }
    /// Next new PSN.
    pub fn nxt(&self) -> u32 {
        self.sh.board.nxt
    }
    /// Highest PSN sent + 1.
    pub fn max_sent(&self) -> u32 {
        self.sh.board.max_sent
    }
    /// Packets sent and neither acknowledged nor declared lost.
    pub fn outstanding(&self) -> u32 {
        self.sh.board.outstanding
    }
    /// Every packet acknowledged.
    pub fn is_complete(&self) -> bool {
        self.sh.board.is_complete()
    }
    /// Smoothed RTT, if sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.sh.rtt.srtt
    }
    /// Minimum RTT sampled (`Time::MAX` before the first sample).
    pub fn min_rtt(&self) -> Time {
        self.sh.rtt.min_rtt
    }
    /// Counters.
    pub fn stats(&self) -> RecoveryStats {
        self.sh.stats
    }
    /// A retransmission is waiting.
    pub fn has_retx(&self) -> bool {
        self.sh.board.has_retx()
    }
    /// Something can be sent (a retransmission or new data).
    pub fn has_data(&self) -> bool {
        self.sh.board.has_retx() || self.sh.board.nxt < self.sh.board.new_bound()
    }
    /// New (never sent) data remains.
    pub fn has_new_data(&self) -> bool {
        self.sh.board.nxt < self.sh.board.new_bound() && self.sh.board.nxt >= self.sh.board.max_sent
    }

    /// Whether the RNIC's PSN limit ([`RecoveryConfig::psn_limit`]) lets new PSN `psn` go out now.
    #[inline]
    pub fn psn_allowed(&self, psn: u32) -> bool {
        psn < self.sh.board.new_bound()
    }

    /// Take the next PSN to send: a queued retransmission first, then the next new PSN. Returns
    /// `(psn, is_retransmission)`. Call [`Recovery::on_sent`] when it is actually sent.
    pub fn next_psn(&mut self) -> Option<(u32, bool)> {
        self.sh.board.next_psn()
    }

    /// Put back a PSN taken by [`Recovery::next_psn`] but not sent.
    pub fn unget(&mut self, psn: u32, retx: bool) {
        self.sh.board.unget(psn, retx)
    }

    /// Record that `psn` was sent at `now` on logical path `path`.
    pub fn on_sent(&mut self, now: Time, psn: u32, path: u16) {
        if psn < self.sh.board.una {
            return;
        }
        if self.sh.board.on_sent(now, psn, path) {
            self.sh.stats.retransmissions += 1;
        }
        if self.sh.timers.get(TimerKind::Rto).is_none() {
            self.sh.timers.set(TimerKind::Rto, Some(now + self.rto()));
        }
        match &mut self.detector {
            LossDetector::RackTlp(_) => RackTlp::on_sent(now, &mut self.sh),
            LossDetector::EarlyRecovery(er) => er.on_sent(now, psn, path, &self.sh.board),
            _ => {}
        }
    }

    /// Packets outstanding on logical path `path` (sent on it, neither acknowledged nor declared
    /// lost). The per-path terms sum to [`Recovery::outstanding`].
    pub fn path_outstanding(&self, path: u16) -> u32 {
        self.sh.board.path_outstanding(path)
    }

    /// The logical path `psn` was last sent on (`None` if it was never sent or is cumulatively
    /// acknowledged).
    pub fn sent_path(&self, psn: u32) -> Option<u16> {
        self.sh.board.slot(psn).filter(|s| s.tx > 0).map(|s| s.path)
    }

    /// Whether `psn` has been acknowledged, cumulatively or selectively.
    pub fn is_acked(&self, psn: u32) -> bool {
        psn < self.sh.board.una || self.sh.board.slot(psn).is_some_and(|s| s.sacked())
    }

    /// How many times `psn` has been sent (0 if never, or if it is cumulatively acknowledged).
    pub fn tx_count(&self, psn: u32) -> u8 {
        self.sh.board.slot(psn).map_or(0, |s| s.tx)
    }

    /// Whether a recovery episode (IRN, ER) is in progress.
    pub fn in_recovery(&self) -> bool {
        self.detector.episode().is_some_and(|e| e.active)
    }

    /// PSNs queued for retransmission, oldest first (may include entries that have since been
    /// acknowledged; [`Recovery::next_psn`] skips those).
    pub fn pending_retx(&self) -> impl Iterator<Item = u32> + '_ {
        self.sh.board.retx.iter().copied()
    }

    /// Change the early-recovery OOD threshold at run time (UET's dynamic, window-derived
    /// threshold, as in UEC htsim). Values below 1 are raised to 1.
    pub fn set_er_threshold(&mut self, packets: u32) {
        self.sh.cfg.er_threshold = packets.max(1);
    }

    /// Per-packet RTO expiry: declare lost every outstanding packet sent at least `rto()` ago and
    /// re-arm for the earliest of the others.
    fn per_packet_rto(&mut self, now: Time) -> bool {
        let rto = self.rto();
        let b = &mut self.sh.board;
        let mut any = false;
        let mut next: Option<Time> = None;
        let mut p = b.una;
        while p < b.max_sent {
            let s = b.at(p);
            if s.in_flight() {
                let deadline = s.sent_at() + rto;
                if deadline <= now {
                    any |= b.mark_lost(p);
                } else {
                    next = Some(next.map_or(deadline, |t: Time| t.min(deadline)));
                }
            }
            p += 1;
        }
        if any {
            self.sh.stats.timeouts += 1;
        }
        self.sh.timers.set(TimerKind::Rto, next);
        any
    }

    /// The current retransmission timeout.
    pub fn rto(&self) -> Time {
        let base = match self.detector {
            LossDetector::Irn(_) => irn::base_rto(&self.sh.cfg, self.sh.board.outstanding),
            _ => self.sh.rtt.base_rto(&self.sh.cfg),
        };
        self.sh.rtt.backed_off(base, &self.sh.cfg)
    }

    /// Process an ACK or NAK.
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) -> AckSummary {
        let mut sum = AckSummary::default();
        if ack.probe {
            return sum;
        }
        let rtt = now.saturating_sub(ack.ts_sent);
        sum.rtt = Some(rtt);
        // A trimmed packet's NAK skipped the queues its payload would have waited in: no RTT
        // sample (htsim's NACK handling takes none either).
        if !ack.trimmed {
            self.sh.rtt.sample(rtt);
        }
        let is_nak = ack.kind == PacketKind::Nak;
        // The receiver reports that the packet itself did not arrive (no room in its reorder
        // buffer, or a switch trimmed it to its header).
        let not_received = ack.rx_buffer_full || ack.trimmed;
        let b = &mut self.sh.board;
        // Cumulative part.
        let cum = ack.cum_ack.min(b.max_sent.max(ack.cum_ack.min(b.total)));
        if let Some((fired_at, una_then)) = self.sh.rto_open {
            if cum > una_then {
                self.sh.rto_open = None;
                if ack.ts_sent < fired_at && !is_nak {
                    b.unmark_lost(&self.sh.rto_marked);
                    self.sh.stats.spurious_rtos += 1;
                    sum.spurious_rto = true;
                }
            }
        }
        if cum > b.una {
            sum.newly_acked += b.advance_to(cum);
            sum.advanced = true;
            self.sh.rtt.backoff = 0;
        }
        // Selective part: the acknowledged PSN itself arrived (not for go-back-N, whose receiver
        // discards out-of-order packets, and not when the receiver dropped it for lack of buffer).
        let sack_valid = self.sh.cfg.kind != RecoveryKind::GoBackN && !not_received;
        let mut delivered = None;
        if sack_valid && ack.psn >= b.una && ack.psn < b.max_sent {
            delivered = b.sack(ack.psn);
            if delivered.is_some() {
                sum.newly_acked += 1;
            }
        }
        // The SACK bitmap: from a coalescing receiver bit i ⇔ PSN `cum_ack + 1 + i` arrived; from a
        // receiver that reports below the acknowledged PSN, bit i ⇔ PSN `psn − 64 + i`.
        if sack_valid && ack.sack != 0 {
            let mut bits = ack.sack;
            let below = self.sh.cfg.sack_below;
            if below {
                // Skip what the cumulative ACK already covers (most of the bitmap in order).
                let skip = b.una as i64 - (ack.psn as i64 - 64);
                bits = if skip >= 64 {
                    0
                } else if skip > 0 {
                    bits & (u64::MAX << skip)
                } else {
                    bits
                };
            }
            while bits != 0 {
                let i = bits.trailing_zeros();
                let psn = if below {
                    (ack.psn as i64 - 64 + i as i64).max(0) as u32
                } else {
                    ack.cum_ack.saturating_add(1 + i)
                };
                bits &= bits - 1;
                if psn >= b.una && psn < b.max_sent && b.sack(psn).is_some() {
                    sum.newly_acked += 1;
                }
            }
        }
        if b.highest_sacked_plus1 < b.una {
            b.highest_sacked_plus1 = b.una;
        }
        // Receiver dropped the packet for lack of reorder buffer, or got only its trimmed header:
        // it must be sent again.
        if not_received && b.mark_lost(ack.psn) {
            sum.loss = true;
        }
        // Scheme-specific loss detection. A trimmed packet's NAK names only that packet, not a
        // hole at the cumulative ACK, so the schemes see it as a plain acknowledgement.
        let ctx = AckCtx { now, ack, is_nak: is_nak && !ack.trimmed, sack_valid, delivered };
        let sh = &mut self.sh;
        let lost = match &mut self.detector {
            LossDetector::GoBackN => gbn::on_ack(&ctx, sh),
            LossDetector::SelectiveRepeat => sr::on_ack(&ctx, sh),
            LossDetector::Irn(ep) => irn::on_ack(ep, &ctx, sh),
            LossDetector::EarlyRecovery(er) => er.on_ack(&ctx, sh),
            LossDetector::RackTlp(r) => r.on_ack(&ctx, sh),
        };
        if lost {
            sum.loss = true;
        }
        match &mut self.detector {
            LossDetector::Irn(ep) => ep.maybe_leave(&sh.board),
            LossDetector::EarlyRecovery(er) => er.episode.maybe_leave(&sh.board),
            _ => {}
        }
        // Re-arm the RTO on progress.
        if self.sh.cfg.rto_per_packet {
            // Per-packet timers: the deadline is the earliest outstanding send + RTO. It is found
            // exactly when the timer fires (see `per_packet_rto`); here it is only pulled in so
            // that it is never later than one RTO from now (the RTO shrinks once RTTs are seen).
            if self.sh.board.outstanding > 0 {
                let t = now + self.rto();
                if self.sh.timers.get(TimerKind::Rto).is_none_or(|x| x > t) {
                    self.sh.timers.set(TimerKind::Rto, Some(t));
                }
            }
        } else if sum.newly_acked > 0 {
            let at = if self.sh.board.outstanding > 0 || self.sh.board.has_retx() {
                Some(now + self.rto())
            } else {
                None
            };
            self.sh.timers.set(TimerKind::Rto, at);
        }
        if self.is_complete() {
            self.sh.timers = TimerTable::default();
        }
        sum
    }

    /// The earliest timer deadline.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.sh.timers.next_deadline()
    }

    /// Process timers due at `now`. Returns what fired: a retransmission timeout (counted in
    /// [`RecoveryStats::timeouts`]), a loss-detection timer that queued packets, or nothing.
    pub fn on_timeout(&mut self, now: Time) -> TimerFired {
        let fired = self.fire_timers(now);
        match fired {
            (_, true) => TimerFired::Rto,
            (true, false) => TimerFired::LossTimer,
            (false, false) => TimerFired::Nothing,
        }
    }

    /// [`Recovery::on_timeout`]'s work: (anything queued for retransmission, an RTO fired).
    fn fire_timers(&mut self, now: Time) -> (bool, bool) {
        let mut fired = false;
        match &mut self.detector {
            LossDetector::RackTlp(r) => fired |= r.on_timers(now, &mut self.sh),
            LossDetector::EarlyRecovery(er) => fired |= er.on_timer(now, &mut self.sh),
            _ => {}
        }
        if !self.sh.timers.is_due(TimerKind::Rto, now) {
            return (fired, false);
        }
        if self.sh.cfg.rto_per_packet {
            let rto = self.per_packet_rto(now);
            return (fired | rto, rto);
        } else if self.is_complete()
            || (self.sh.board.outstanding == 0
                && !self.sh.board.has_retx()
                && self.sh.board.nxt >= self.sh.board.max_sent)
        {
            self.sh.timers.stop(TimerKind::Rto);
        } else {
            self.sh.stats.timeouts += 1;
            match self.detector {
                LossDetector::GoBackN => gbn::on_rto(&mut self.sh.board),
                _ => {
                    // The verdict on the first RTO of a run of expiries stays open until the
                    // cumulative point moves (see `AckSummary::spurious_rto`).
                    if self.sh.rto_open.is_none() {
                        self.sh.rto_open = Some((now, self.sh.board.una));
                        self.sh.rto_marked.clear();
                    }
                    self.sh.board.mark_all_lost_into(&mut self.sh.rto_marked)
                }
            }
            self.sh.rtt.backoff += 1;
            self.sh.timers.set(TimerKind::Rto, Some(now + self.rto()));
            return (true, true);
        }
        (fired, false)
    }
}

/// For senders that choose which new PSN to send themselves (Rondo's packet scheduler sends the
/// (skip+1)-th smallest unsent PSN, not always the lowest): [`Recovery::on_sent`] accepts any PSN;
/// these keep the rest of the bookkeeping meaningful.
impl Recovery {
    /// Take the next queued retransmission only, never new data. Call [`Recovery::on_sent`]
    /// when it is sent (or [`Recovery::unget`] with `retx = true` to put it back).
    pub fn next_retx(&mut self) -> Option<u32> {
        self.sh.board.pop_retx()
    }

    /// More packets were posted: the message (connection) now has `total` packets. Never
    /// shrinks.
    pub fn grow(&mut self, total: u32) {
        self.sh.board.total = self.sh.board.total.max(total);
    }

    /// Record that `psn` is now the lowest PSN never sent (every PSN below it has been sent at
    /// least once), so that [`Recovery::nxt`], [`Recovery::has_data`] and the RTO's idle check
    /// stay right when new PSNs go out of order. Never moves backwards.
    pub fn set_next_new(&mut self, psn: u32) {
        self.sh.board.nxt = self.sh.board.nxt.max(psn.min(self.sh.board.total));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(kind: PacketKind, psn: u32, cum: u32, ts: Time) -> AckIn<'static> {
        AckIn::plain(kind, psn, cum, 0, ts, 0)
    }

    fn send_n(r: &mut Recovery, n: u32, now: Time) {
        for _ in 0..n {
            let (p, _) = r.next_psn().unwrap();
            r.on_sent(now, p, 0);
        }
    }

    #[test]
    fn the_psn_window_holds_new_data_behind_the_oldest_unacknowledged_packet() {
        // WRITE window of 4 PSNs (Appendix A): 0..4 go out, then nothing new until PSN 0 is
        // acknowledged, however many later PSNs are selectively acknowledged.
        let mut cfg = RecoveryConfig::new(RecoveryKind::RackTlp);
        cfg.psn_limit = PsnLimit::Range(4);
        let mut r = Recovery::new(cfg, 10);
        send_n(&mut r, 4, Time::ZERO);
        assert!(!r.has_data() && r.next_psn().is_none());
        for psn in 1..4 {
            r.on_ack(Time::from_us(2), &ack(PacketKind::Nak, psn, 0, Time::ZERO));
        }
        assert!(!r.has_data(), "SACKs above the hole do not open the window");
        assert!(r.psn_allowed(3) && !r.psn_allowed(4));
        r.on_ack(Time::from_us(3), &ack(PacketKind::Ack, 0, 4, Time::ZERO));
        assert!(r.psn_allowed(7) && !r.psn_allowed(8));
        assert_eq!(r.next_psn(), Some((4, false)));
    }

    #[test]
    fn the_read_limit_opens_a_whole_read_at_a_time() {
        // 2 outstanding READs of 3 packets: PSNs 0..6, then 3 more once PSNs 0..3 are in.
        let mut cfg = RecoveryConfig::new(RecoveryKind::RackTlp);
        cfg.psn_limit = PsnLimit::Reads { packets_per_read: 3, max_reads: 2 };
        let mut r = Recovery::new(cfg, 20);
        send_n(&mut r, 6, Time::ZERO);
        assert!(!r.has_data());
        r.on_ack(Time::from_us(2), &ack(PacketKind::Ack, 1, 2, Time::ZERO));
        assert!(!r.has_data(), "the first READ is not complete yet");
        r.on_ack(Time::from_us(2), &ack(PacketKind::Ack, 2, 3, Time::ZERO));
        send_n(&mut r, 3, Time::from_us(2));
        assert!(!r.has_data());
        assert_eq!(r.max_sent(), 9);
    }

    #[test]
    fn go_back_n_rewinds_on_nak() {
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::GoBackN), 10);
        send_n(&mut r, 5, Time::ZERO);
        r.on_ack(Time::from_us(1), &ack(PacketKind::Ack, 0, 1, Time::ZERO));
        let s = r.on_ack(Time::from_us(1), &ack(PacketKind::Nak, 2, 1, Time::ZERO));
        assert!(s.loss);
        assert_eq!(r.next_psn(), Some((1, true)));
        assert_eq!(r.outstanding(), 0);
    }

    #[test]
    fn selective_repeat_resends_only_the_hole() {
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::SelectiveRepeat), 10);
        send_n(&mut r, 5, Time::ZERO);
        r.on_ack(Time::from_us(10), &ack(PacketKind::Ack, 0, 1, Time::ZERO));
        r.on_ack(Time::from_us(10), &ack(PacketKind::Nak, 2, 1, Time::ZERO));
        assert_eq!(r.next_psn(), Some((1, true)));
        r.on_sent(Time::from_us(10), 1, 0);
        // A second NAK within one RTT does not resend again.
        r.on_ack(Time::from_us(11), &ack(PacketKind::Nak, 3, 1, Time::ZERO));
        assert_eq!(r.next_psn(), Some((5, false)));
        assert_eq!(r.stats().retransmissions, 1);
    }

    #[test]
    fn early_recovery_waits_for_the_threshold() {
        let mut cfg = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        cfg.er_threshold = 3;
        let mut r = Recovery::new(cfg, 10);
        send_n(&mut r, 6, Time::ZERO);
        // PSN 0 missing; 1 and 2 arrive (OOD 2): no recovery yet.
        r.on_ack(Time::from_us(5), &ack(PacketKind::Nak, 1, 0, Time::ZERO));
        r.on_ack(Time::from_us(5), &ack(PacketKind::Nak, 2, 0, Time::ZERO));
        assert!(!r.has_retx());
        let s = r.on_ack(Time::from_us(5), &ack(PacketKind::Nak, 3, 0, Time::ZERO));
        assert!(s.loss);
        assert_eq!(r.next_psn(), Some((0, true)));
    }

    #[test]
    fn early_recovery_on_the_held_count_ignores_a_wide_but_sparse_reordering() {
        // SLEEK as htsim reads it (`er_ood_held`): the threshold is compared with the packets the
        // receiver holds above its cumulative ACK, echoed in the ACK. PSN 0 missing, 5 and 9
        // arrive: the span above the hole is 9 (≥ 3) but only two packets are held, so no
        // episode; the third held packet starts one, which resends the holes below the highest
        // SACKed PSN.
        let mut cfg = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        cfg.er_threshold = 3;
        cfg.er_ood_held = true;
        let mut r = Recovery::new(cfg, 12);
        send_n(&mut r, 12, Time::ZERO);
        let held = |psn, n| AckIn { ood: n, ..ack(PacketKind::Nak, psn, 0, Time::ZERO) };
        r.on_ack(Time::from_us(5), &held(5, 1));
        r.on_ack(Time::from_us(5), &held(9, 2));
        assert!(!r.has_retx(), "two held packets are below the threshold of 3");
        let s = r.on_ack(Time::from_us(6), &held(10, 3));
        assert!(s.loss);
        let resent: Vec<u32> =
            std::iter::from_fn(|| r.next_psn()).take(8).map(|(p, _)| p).collect();
        assert_eq!(resent, vec![0, 1, 2, 3, 4, 6, 7, 8], "the holes below PSN 10, once each");
        // The span reading (`er_ood_held` off, as for every transport but UET) starts the episode
        // at PSN 5's ACK already.
        let mut cfg = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        cfg.er_threshold = 3;
        let mut r = Recovery::new(cfg, 12);
        send_n(&mut r, 12, Time::ZERO);
        assert!(r.on_ack(Time::from_us(5), &ack(PacketKind::Nak, 5, 0, Time::ZERO)).loss);
    }

    #[test]
    fn rto_resends_outstanding_and_backs_off() {
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::SelectiveRepeat), 4);
        send_n(&mut r, 4, Time::ZERO);
        let t = r.poll_timeout().unwrap();
        assert_eq!(t, Time::from_ms(1));
        assert_eq!(r.on_timeout(t), TimerFired::Rto);
        assert_eq!(r.stats().timeouts, 1);
        for p in 0..4 {
            assert_eq!(r.next_psn(), Some((p, true)));
        }
        assert_eq!(r.rto(), Time::from_ms(2));
    }

    #[test]
    fn a_spurious_rto_is_detected_and_undone() {
        // Four packets sent at 0; the RTO fires at 1 ms; one is resent; then the ACK for the
        // ORIGINAL PSN 0 (echoing send time 0, before the RTO) arrives: spurious (Eifel).
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::SelectiveRepeat), 4);
        send_n(&mut r, 4, Time::ZERO);
        assert_eq!(r.on_timeout(Time::from_ms(1)), TimerFired::Rto);
        assert_eq!(r.outstanding(), 0);
        assert_eq!(r.next_psn(), Some((0, true)));
        r.on_sent(Time::from_ms(1), 0, 0);
        let s = r.on_ack(Time::from_us(1200), &ack(PacketKind::Ack, 0, 1, Time::ZERO));
        assert!(s.spurious_rto);
        assert_eq!(r.stats().spurious_rtos, 1);
        // PSNs 1–3 were never sent again: they are in flight again, nothing is queued.
        assert_eq!(r.outstanding(), 3);
        assert_eq!(r.next_psn(), None, "nothing to resend, no new data left");
        // A genuine RTO: the ACK that moves the cumulative point echoes the resent copy.
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::SelectiveRepeat), 4);
        send_n(&mut r, 4, Time::ZERO);
        assert_eq!(r.on_timeout(Time::from_ms(1)), TimerFired::Rto);
        let (p, _) = r.next_psn().unwrap();
        r.on_sent(Time::from_ms(1), p, 0);
        let s = r.on_ack(Time::from_us(1010), &ack(PacketKind::Ack, 0, 1, Time::from_ms(1)));
        assert!(!s.spurious_rto);
        assert_eq!(r.stats().spurious_rtos, 0);
        assert_eq!(
            r.next_psn(),
            Some((1, true)),
            "the other packets stay queued for retransmission"
        );
    }

    #[test]
    fn rack_marks_lost_after_reorder_window() {
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::RackTlp), 10);
        r.on_sent(Time::ZERO, 0, 0);
        let _ = r.next_psn();
        for p in 1..4 {
            let _ = r.next_psn();
            r.on_sent(Time::from_us(p as u64), p, 0);
        }
        // PSN 3 delivered at 13 µs (RTT 10 µs): 0 was sent earlier; reorder window 2.5 µs.
        let mut a = ack(PacketKind::Nak, 3, 0, Time::from_us(3));
        a.ts_sent = Time::from_us(3);
        r.on_ack(Time::from_us(13), &a);
        // 0 sent at 0: deadline 0 + 10 + 2.5 = 12.5 ≤ 13 → lost. 1, 2: deadlines 13.5, 14.5 → timer.
        assert!(r.has_retx());
        assert_eq!(r.poll_timeout().unwrap(), Time::from_ps(13_500_000));
    }
}
