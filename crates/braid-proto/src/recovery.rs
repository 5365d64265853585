//! Sender-side loss recovery: which PSN to send next, when a packet is declared lost, and the
//! retransmission timer (sans-IO).
//!
//! Schemes (`shared/specs/baselines.md` §11, §8.4):
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
//! schemes resend every un-SACKed outstanding packet.
//!
//! Counters: retransmissions (packets sent again), timeouts, and recovery episodes. Spurious
//! retransmissions are counted by the receiver (a copy arriving for a PSN already received).

use braid_core::{Knob, PacketKind, Time};
use std::collections::VecDeque;

use crate::transport::AckIn;

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
            _ => {
                return Err(format!(
                    "unknown recovery scheme `{s}` (known: gbn, sr, irn, rack-tlp, rack-tlp-per-path, er)"
                ))
            }
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
}

impl RecoveryConfig {
    /// Defaults for a scheme (IRN and TLP values from ConWeave-ns3 / Isekai, spec §11).
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
        }
    }

    /// Set a knob by name.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        let pos_time = |v: &Knob| -> Result<Time, String> {
            let t = v.as_time()?;
            if t == Time::ZERO {
                return Err("must be positive".into());
            }
            Ok(t)
        };
        let r: Result<(), String> = (|| {
            match key {
                "rto_min" => self.rto_min = pos_time(v)?,
                "rto_initial" => self.rto_initial = pos_time(v)?,
                "rto_max" => self.rto_max = pos_time(v)?,
                "irn_rto_low" => self.irn_rto_low = pos_time(v)?,
                "irn_rto_high" => self.irn_rto_high = pos_time(v)?,
                "irn_n" => self.irn_n = v.as_u64()? as u32,
                "er_threshold" => {
                    let t = v.as_u64()?;
                    if t == 0 {
                        return Err("must be at least 1 packet".into());
                    }
                    self.er_threshold = t as u32
                }
                "reo_frac" => self.reo_frac = v.as_nonneg_f64()?,
                "min_reo" => self.min_reo = v.as_time()?,
                "tlp_factor" => self.tlp_factor = v.as_nonneg_f64()?,
                "tlp_min" => self.tlp_min = v.as_time()?,
                "nak_interval" => self.nak_interval = v.as_time()?,
                _ => {
                    return Err(format!(
                        "unknown knob (known: rto_min, rto_initial, rto_max, irn_rto_low, irn_rto_high, irn_n, er_threshold, reo_frac, min_reo, tlp_factor, tlp_min, nak_interval)"
                    ))
                }
            }
            Ok(())
        })();
        r.map_err(|e| format!("recovery knob `{key}`: {e}"))
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
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    sent_at: Time,
    path: u16,
    tx: u8,
    sacked: bool,
    lost: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Rack {
    xmit_ts: Time,
    rtt: Time,
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
}

/// Per-flow loss-recovery state.
#[derive(Clone, Debug)]
pub struct Recovery {
    cfg: RecoveryConfig,
    total: u32,
    una: u32,
    nxt: u32,
    max_sent: u32,
    slots: VecDeque<Slot>,
    retx: VecDeque<u32>,
    outstanding: u32,
    highest_sacked_plus1: u32,
    in_recovery: bool,
    recovery_psn: u32,
    rtx_scan: u32,
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    backoff: u32,
    rto_at: Option<Time>,
    rack: Vec<Rack>,
    rack_timer: Option<Time>,
    tlp_at: Option<Time>,
    stats: RecoveryStats,
    /// Packets outstanding per logical path (index = path), kept alongside `outstanding`.
    path_out: Vec<u32>,
    /// Per-packet RTO (htsim UET/EQDS): see [`Recovery::set_rto_per_packet`].
    rto_per_packet: bool,
    /// Resend the cumulative hole before other queued retransmissions: see
    /// [`Recovery::set_hole_first`].
    hole_first: bool,
    /// Early Recovery judges each packet by its own PSN gap (Rondo §2.2): see
    /// [`Recovery::set_er_per_packet`].
    er_per_packet: bool,
}

impl Recovery {
    /// State for a message of `total` packets.
    pub fn new(cfg: RecoveryConfig, total: u32) -> Recovery {
        Recovery {
            cfg,
            total,
            una: 0,
            nxt: 0,
            max_sent: 0,
            slots: VecDeque::new(),
            retx: VecDeque::new(),
            outstanding: 0,
            highest_sacked_plus1: 0,
            in_recovery: false,
            recovery_psn: 0,
            rtx_scan: 0,
            srtt: None,
            rttvar: Time::ZERO,
            min_rtt: Time::MAX,
            backoff: 0,
            rto_at: None,
            rack: vec![Rack::default()],
            rack_timer: None,
            tlp_at: None,
            stats: RecoveryStats::default(),
            path_out: Vec::new(),
            rto_per_packet: false,
            hole_first: false,
            er_per_packet: false,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RecoveryConfig {
        &self.cfg
    }
    /// Cumulatively acknowledged packets.
    pub fn una(&self) -> u32 {
        self.una
    }
    /// Next new PSN.
    pub fn nxt(&self) -> u32 {
        self.nxt
    }
    /// Highest PSN sent + 1.
    pub fn max_sent(&self) -> u32 {
        self.max_sent
    }
    /// Packets sent and neither acknowledged nor declared lost.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
    /// Every packet acknowledged.
    pub fn is_complete(&self) -> bool {
        self.una >= self.total
    }
    /// Smoothed RTT, if sampled.
    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }
    /// Minimum RTT sampled (`Time::MAX` before the first sample).
    pub fn min_rtt(&self) -> Time {
        self.min_rtt
    }
    /// Counters.
    pub fn stats(&self) -> RecoveryStats {
        self.stats
    }
    /// A retransmission is waiting.
    pub fn has_retx(&self) -> bool {
        !self.retx.is_empty()
    }
    /// Something can be sent (a retransmission or new data).
    pub fn has_data(&self) -> bool {
        !self.retx.is_empty() || self.nxt < self.total
    }
    /// New (never sent) data remains.
    pub fn has_new_data(&self) -> bool {
        self.nxt < self.total && self.nxt >= self.max_sent
    }

    fn slot(&self, psn: u32) -> Option<&Slot> {
        if psn < self.una {
            return None;
        }
        self.slots.get((psn - self.una) as usize)
    }
    fn slot_mut(&mut self, psn: u32) -> Option<&mut Slot> {
        if psn < self.una {
            return None;
        }
        self.slots.get_mut((psn - self.una) as usize)
    }

    /// Take the next PSN to send: a queued retransmission first, then the next new PSN. Returns
    /// `(psn, is_retransmission)`. Call [`Recovery::on_sent`] when it is actually sent.
    pub fn next_psn(&mut self) -> Option<(u32, bool)> {
        if self.hole_first && self.slot(self.una).is_some_and(|s| s.lost && !s.sacked) {
            // Its queue entry stays behind and is skipped once the packet is no longer lost.
            return Some((self.una, true));
        }
        while let Some(p) = self.retx.pop_front() {
            if let Some(s) = self.slot(p) {
                if !s.sacked && s.lost {
                    return Some((p, true));
                }
            }
        }
        if self.nxt < self.total {
            let p = self.nxt;
            self.nxt += 1;
            return Some((p, p < self.max_sent));
        }
        None
    }

    /// Put back a PSN taken by [`Recovery::next_psn`] but not sent.
    pub fn unget(&mut self, psn: u32, retx: bool) {
        if retx && psn < self.max_sent && self.slot(psn).is_some_and(|s| s.lost) {
            self.retx.push_front(psn);
        } else if psn + 1 == self.nxt {
            self.nxt -= 1;
        }
    }

    /// Record that `psn` was sent at `now` on logical path `path`.
    pub fn on_sent(&mut self, now: Time, psn: u32, path: u16) {
        if psn < self.una {
            return;
        }
        while self.una + self.slots.len() as u32 <= psn {
            self.slots.push_back(Slot::default());
        }
        self.max_sent = self.max_sent.max(psn + 1);
        let s = self.slot_mut(psn).expect("slot exists");
        let was_outstanding = s.tx > 0 && !s.lost && !s.sacked;
        let retx = s.tx > 0;
        let old_path = s.path;
        s.sent_at = now;
        s.path = path;
        s.tx = s.tx.saturating_add(1);
        s.lost = false;
        let sacked = s.sacked;
        if !was_outstanding && !sacked {
            self.outstanding += 1;
        }
        if was_outstanding {
            self.path_dec(old_path);
        }
        if !sacked {
            self.path_inc(path);
        }
        if retx {
            self.stats.retransmissions += 1;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rto());
        }
        if matches!(self.cfg.kind, RecoveryKind::RackTlp | RecoveryKind::RackTlpPerPath) && self.tlp_at.is_none() {
            self.tlp_at = Some(now + self.pto());
        }
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

    /// Packets outstanding on logical path `path` (sent on it, neither acknowledged nor declared
    /// lost). The per-path terms sum to [`Recovery::outstanding`].
    pub fn path_outstanding(&self, path: u16) -> u32 {
        self.path_out.get(path as usize).copied().unwrap_or(0)
    }

    /// The logical path `psn` was last sent on (`None` if it was never sent or is cumulatively
    /// acknowledged).
    pub fn sent_path(&self, psn: u32) -> Option<u16> {
        self.slot(psn).filter(|s| s.tx > 0).map(|s| s.path)
    }

    /// Whether `psn` has been acknowledged, cumulatively or selectively.
    pub fn is_acked(&self, psn: u32) -> bool {
        psn < self.una || self.slot(psn).is_some_and(|s| s.sacked)
    }

    /// How many times `psn` has been sent (0 if never, or if it is cumulatively acknowledged).
    pub fn tx_count(&self, psn: u32) -> u8 {
        self.slot(psn).map_or(0, |s| s.tx)
    }

    /// Whether a recovery episode (IRN, ER) is in progress.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// PSNs queued for retransmission, oldest first (may include entries that have since been
    /// acknowledged; [`Recovery::next_psn`] skips those).
    pub fn pending_retx(&self) -> impl Iterator<Item = u32> + '_ {
        self.retx.iter().copied()
    }

    /// Change the early-recovery OOD threshold at run time (UET's dynamic, window-derived
    /// threshold; spec §8.4). Values below 1 are raised to 1.
    pub fn set_er_threshold(&mut self, packets: u32) {
        self.cfg.er_threshold = packets.max(1);
    }

    /// Per-packet retransmission timers, as htsim's UET and EQDS sources keep them (spec §8.4,
    /// §9): every outstanding packet times out `rto()` after its own (last) transmission, and an
    /// expiry declares lost exactly the packets whose time is up, without exponential backoff.
    /// The default (off) is one flow timer restarted on progress (RFC 6298) that resends every
    /// outstanding packet when it fires. Ignored for go-back-N.
    pub fn set_rto_per_packet(&mut self, on: bool) {
        self.rto_per_packet = on;
    }

    /// Resend the cumulative hole (`snd_una`) first whenever it is declared lost, ahead of the
    /// other queued retransmissions (which otherwise go in the order their losses were found).
    /// With a shared receiver reorder buffer that is full, the receiver accepts only each flow's
    /// next expected packet, so a hole stuck behind retransmissions that the full buffer drops
    /// again would stall the flow (SACK-based senders resend in sequence order anyway).
    pub fn set_hole_first(&mut self, on: bool) {
        self.hole_first = on;
    }

    /// Per-packet RTO expiry: declare lost every outstanding packet sent at least `rto()` ago and
    /// re-arm for the earliest of the others.
    fn per_packet_rto(&mut self, now: Time) -> bool {
        let rto = self.rto();
        let mut any = false;
        let mut next: Option<Time> = None;
        let mut p = self.una;
        while p < self.max_sent {
            let s = self.slots[(p - self.una) as usize];
            if !s.sacked && !s.lost && s.tx > 0 {
                let deadline = s.sent_at + rto;
                if deadline <= now {
                    any |= self.mark_lost(p);
                } else {
                    next = Some(next.map_or(deadline, |t: Time| t.min(deadline)));
                }
            }
            p += 1;
        }
        if any {
            self.stats.timeouts += 1;
        }
        self.rto_at = next;
        any
    }

    /// The current retransmission timeout.
    pub fn rto(&self) -> Time {
        let base = match self.cfg.kind {
            RecoveryKind::Irn => {
                if self.outstanding <= self.cfg.irn_n {
                    self.cfg.irn_rto_low
                } else {
                    self.cfg.irn_rto_high
                }
            }
            _ => match self.srtt {
                Some(s) => (s + Time(self.rttvar.0 * 4)).max(self.cfg.rto_min),
                None => self.cfg.rto_initial,
            },
        };
        Time(base.0.saturating_mul(1u64 << self.backoff.min(20))).min(self.cfg.rto_max)
    }

    fn pto(&self) -> Time {
        match self.srtt {
            Some(s) => s.mul_f64(self.cfg.tlp_factor).max(self.cfg.tlp_min),
            None => self.cfg.rto_initial,
        }
    }

    fn reo_wnd(&self) -> Time {
        let m = if self.min_rtt == Time::MAX { Time::ZERO } else { self.min_rtt };
        m.mul_f64(self.cfg.reo_frac).max(self.cfg.min_reo)
    }

    fn mark_lost(&mut self, psn: u32) -> bool {
        let Some(s) = self.slot_mut(psn) else { return false };
        if s.sacked || s.lost || s.tx == 0 {
            return false;
        }
        s.lost = true;
        let sp = s.path;
        self.outstanding -= 1;
        self.path_dec(sp);
        self.retx.push_back(psn);
        true
    }

    fn sample_rtt(&mut self, rtt: Time) {
        self.min_rtt = self.min_rtt.min(rtt);
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Time(rtt.0 / 2);
            }
            Some(s) => {
                let err = s.0.abs_diff(rtt.0);
                self.rttvar = Time((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Time((7 * s.0 + rtt.0) / 8));
            }
        }
    }

    /// Process an ACK or NAK.
    pub fn on_ack(&mut self, now: Time, ack: &AckIn) -> AckSummary {
        let mut sum = AckSummary::default();
        if ack.probe {
            return sum;
        }
        let rtt = now.saturating_sub(ack.ts_sent);
        sum.rtt = Some(rtt);
        self.sample_rtt(rtt);
        let is_nak = ack.kind == PacketKind::Nak;
        // Cumulative part.
        let cum = ack.cum_ack.min(self.max_sent.max(ack.cum_ack.min(self.total)));
        if cum > self.una {
            while self.una < cum {
                if let Some(s) = self.slots.pop_front() {
                    if !s.sacked {
                        sum.newly_acked += 1;
                        if !s.lost && s.tx > 0 {
                            self.outstanding -= 1;
                            self.path_dec(s.path);
                        }
                    }
                } else {
                    sum.newly_acked += 1;
                }
                self.una += 1;
            }
            if self.nxt < self.una {
                self.nxt = self.una;
            }
            sum.advanced = true;
            self.backoff = 0;
        }
        // Selective part: the acknowledged PSN itself arrived (not for go-back-N, whose receiver
        // discards out-of-order packets, and not when the receiver dropped it for lack of buffer).
        let sack_valid = self.cfg.kind != RecoveryKind::GoBackN && !ack.rx_buffer_full;
        let mut delivered_sent_at = None;
        if sack_valid && ack.psn >= self.una && ack.psn < self.max_sent {
            let path = ack.path;
            if let Some(s) = self.slot_mut(ack.psn) {
                if !s.sacked {
                    s.sacked = true;
                    let was_out = !s.lost && s.tx > 0;
                    delivered_sent_at = Some((s.sent_at, s.path));
                    sum.newly_acked += 1;
                    let sp = s.path;
                    if was_out {
                        self.outstanding -= 1;
                        self.path_dec(sp);
                    }
                }
            }
            self.highest_sacked_plus1 = self.highest_sacked_plus1.max(ack.psn + 1);
            let _ = path;
        }
        if self.highest_sacked_plus1 < self.una {
            self.highest_sacked_plus1 = self.una;
        }
        // Receiver dropped the packet for lack of reorder buffer: it must be sent again.
        if ack.rx_buffer_full && self.mark_lost(ack.psn) {
            sum.loss = true;
        }
        // Scheme-specific loss detection.
        match self.cfg.kind {
            RecoveryKind::GoBackN => {
                if is_nak && ack.cum_ack < self.max_sent && ack.cum_ack >= self.una {
                    // Rewind: everything from the hole on is resent.
                    for p in ack.cum_ack..self.max_sent {
                        if let Some(s) = self.slot_mut(p) {
                            if !s.lost && s.tx > 0 {
                                s.lost = true;
                                let sp = s.path;
                                self.outstanding -= 1;
                                self.path_dec(sp);
                            }
                        }
                    }
                    self.nxt = ack.cum_ack;
                    self.retx.clear();
                    self.stats.recoveries += 1;
                    sum.loss = true;
                }
            }
            RecoveryKind::SelectiveRepeat => {
                if is_nak && !ack.rx_buffer_full {
                    let hole = ack.cum_ack;
                    let srtt = self.srtt.unwrap_or(Time::ZERO);
                    if let Some(s) = self.slot(hole) {
                        if !s.sacked && !s.lost && s.tx > 0 && now >= s.sent_at + srtt && self.mark_lost(hole) {
                            self.stats.recoveries += 1;
                            sum.loss = true;
                        }
                    }
                }
            }
            RecoveryKind::Irn => {
                if is_nak && !self.in_recovery {
                    self.enter_recovery();
                }
                if self.in_recovery && self.queue_holes() {
                    sum.loss = true;
                }
            }
            RecoveryKind::EarlyRecovery if self.er_per_packet => {
                if sack_valid && self.er_gap_losses(ack.psn, ack.ts_sent) {
                    self.stats.recoveries += 1;
                    sum.loss = true;
                }
            }
            RecoveryKind::EarlyRecovery => {
                let ood = ack.ood.max(self.highest_sacked_plus1.saturating_sub(1).saturating_sub(self.una));
                if !self.in_recovery && ood >= self.cfg.er_threshold {
                    self.enter_recovery();
                }
                if self.in_recovery && self.queue_holes() {
                    sum.loss = true;
                }
            }
            RecoveryKind::RackTlp | RecoveryKind::RackTlpPerPath => {
                if let Some((sent_at, path)) = delivered_sent_at {
                    let idx = if self.cfg.kind == RecoveryKind::RackTlpPerPath { path as usize } else { 0 };
                    if self.rack.len() <= idx {
                        self.rack.resize(idx + 1, Rack::default());
                    }
                    let r = &mut self.rack[idx];
                    if sent_at >= r.xmit_ts {
                        r.xmit_ts = sent_at;
                        r.rtt = now.saturating_sub(sent_at);
                    }
                }
                if self.rack_detect(now) {
                    sum.loss = true;
                }
                self.tlp_at = if self.outstanding > 0 { Some(now + self.pto()) } else { None };
            }
        }
        if self.in_recovery && self.una >= self.recovery_psn {
            self.in_recovery = false;
        }
        // Re-arm the RTO on progress.
        if self.rto_per_packet {
            // Per-packet timers: the deadline is the earliest outstanding send + RTO. It is found
            // exactly when the timer fires (see `per_packet_rto`); here it is only pulled in so
            // that it is never later than one RTO from now (the RTO shrinks once RTTs are seen).
            if self.outstanding > 0 {
                let t = now + self.rto();
                if self.rto_at.is_none_or(|x| x > t) {
                    self.rto_at = Some(t);
                }
            }
        } else if sum.newly_acked > 0 {
            self.rto_at = if self.outstanding > 0 || self.has_retx() { Some(now + self.rto()) } else { None };
        }
        if self.is_complete() {
            self.rto_at = None;
            self.tlp_at = None;
            self.rack_timer = None;
        }
        sum
    }

    fn enter_recovery(&mut self) {
        self.in_recovery = true;
        self.recovery_psn = self.max_sent;
        self.rtx_scan = self.una;
        self.stats.recoveries += 1;
    }

    /// Queue the un-SACKed PSNs below the highest SACKed one that this episode has not resent yet.
    fn queue_holes(&mut self) -> bool {
        let mut any = false;
        let end = self.highest_sacked_plus1.min(self.recovery_psn);
        let mut p = self.rtx_scan.max(self.una);
        while p < end {
            if self.mark_lost(p) {
                any = true;
            }
            p += 1;
        }
        self.rtx_scan = self.rtx_scan.max(p);
        any
    }

    /// RACK loss detection; arms the reorder timer for the earliest not-yet-expired candidate.
    fn rack_detect(&mut self, now: Time) -> bool {
        let per_path = self.cfg.kind == RecoveryKind::RackTlpPerPath;
        let reo = self.reo_wnd();
        let mut lost_any = false;
        let mut timer: Option<Time> = None;
        let end = self.highest_sacked_plus1.min(self.max_sent);
        let mut p = self.una;
        while p < end {
            let s = self.slots[(p - self.una) as usize];
            if !s.sacked && !s.lost && s.tx > 0 {
                let r = self.rack[if per_path { (s.path as usize).min(self.rack.len() - 1) } else { 0 }];
                let same_path_ok = !per_path || (s.path as usize) < self.rack.len();
                if same_path_ok && s.sent_at < r.xmit_ts {
                    let deadline = s.sent_at + r.rtt + reo;
                    if now >= deadline {
                        lost_any |= self.mark_lost(p);
                    } else {
                        timer = Some(timer.map_or(deadline, |t: Time| t.min(deadline)));
                    }
                }
            }
            p += 1;
        }
        if lost_any {
            self.stats.recoveries += 1;
        }
        self.rack_timer = timer;
        lost_any
    }

    /// The earliest timer deadline.
    pub fn poll_timeout(&self) -> Option<Time> {
        [self.rto_at, self.rack_timer, self.tlp_at].into_iter().flatten().min()
    }

    /// Process timers due at `now`. Returns whether anything was queued for retransmission.
    pub fn on_timeout(&mut self, now: Time) -> bool {
        let mut fired = false;
        if self.rack_timer.is_some_and(|t| t <= now) {
            self.rack_timer = None;
            fired |= self.rack_detect(now);
        }
        if self.tlp_at.is_some_and(|t| t <= now) {
            self.tlp_at = None;
            if self.outstanding > 0 {
                // Probe with the first unacknowledged packet.
                let mut p = self.una;
                while p < self.max_sent {
                    let s = self.slots[(p - self.una) as usize];
                    if !s.sacked && !s.lost {
                        if self.mark_lost(p) {
                            fired = true;
                        }
                        break;
                    }
                    p += 1;
                }
            }
        }
        if self.rto_per_packet && self.rto_at.is_some_and(|t| t <= now) {
            fired |= self.per_packet_rto(now);
        } else if self.rto_at.is_some_and(|t| t <= now) {
            if self.is_complete() || (self.outstanding == 0 && !self.has_retx() && self.nxt >= self.max_sent) {
                self.rto_at = None;
            } else {
                self.stats.timeouts += 1;
                match self.cfg.kind {
                    RecoveryKind::GoBackN => {
                        for p in self.una..self.max_sent {
                            if let Some(s) = self.slot_mut(p) {
                                if !s.lost && s.tx > 0 {
                                    s.lost = true;
                                    let sp = s.path;
                                    self.outstanding -= 1;
                                    self.path_dec(sp);
                                }
                            }
                        }
                        self.nxt = self.una;
                        self.retx.clear();
                    }
                    _ => {
                        for p in self.una..self.max_sent {
                            self.mark_lost(p);
                        }
                    }
                }
                self.backoff += 1;
                self.rto_at = Some(now + self.rto());
                fired = true;
            }
        }
        fired
    }
}

/// For senders that choose which new PSN to send themselves (Rondo's packet scheduler sends the
/// (skip+1)-th smallest unsent PSN, not always the lowest): [`Recovery::on_sent`] accepts any PSN;
/// these keep the rest of the bookkeeping meaningful.
impl Recovery {
    /// Take the next queued retransmission only, never new data. Call [`Recovery::on_sent`]
    /// when it is sent (or [`Recovery::unget`] with `retx = true` to put it back).
    pub fn next_retx(&mut self) -> Option<u32> {
        while let Some(p) = self.retx.pop_front() {
            if let Some(s) = self.slot(p) {
                if !s.sacked && s.lost {
                    return Some(p);
                }
            }
        }
        None
    }

    /// Early Recovery as the Rondo paper states it (§2.2: "ER retransmits an unacknowledged
    /// packet when the gap between its PSN and the highest acknowledged PSN exceeds a fixed
    /// threshold"): on each ACK of PSN `h`, every unacknowledged PSN `x ≤ h − er_threshold`
    /// whose latest copy was sent before the acknowledged copy of `h` is declared lost — each
    /// packet on its own, instead of entering an episode that resends every hole below the
    /// highest SACK (the default, UET-style). The send-time condition keeps a retransmission
    /// from being declared lost again by ACKs of packets sent before it. Off by default.
    pub fn set_er_per_packet(&mut self, on: bool) {
        self.er_per_packet = on;
    }

    /// The per-packet ER rule for an ACK of `h` whose copy was sent at `h_sent`.
    fn er_gap_losses(&mut self, h: u32, h_sent: Time) -> bool {
        let thr = self.cfg.er_threshold.max(1);
        if h < self.una.saturating_add(thr) {
            return false;
        }
        let end = (h - thr + 1).min(self.max_sent);
        let mut any = false;
        let mut x = self.una;
        while x < end {
            if let Some(s) = self.slot(x) {
                if !s.sacked && !s.lost && s.tx > 0 && s.sent_at < h_sent && self.mark_lost(x) {
                    any = true;
                }
            }
            x += 1;
        }
        any
    }

    /// Record that `psn` is now the lowest PSN never sent (every PSN below it has been sent at
    /// least once), so that [`Recovery::nxt`], [`Recovery::has_data`] and the RTO's idle check
    /// stay right when new PSNs go out of order. Never moves backwards.
    pub fn set_next_new(&mut self, psn: u32) {
        self.nxt = self.nxt.max(psn.min(self.total));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(kind: PacketKind, psn: u32, cum: u32, ts: Time) -> AckIn<'static> {
        AckIn {
            kind,
            psn,
            cum_ack: cum,
            path: 0,
            ecn: false,
            ts_sent: ts,
            ts_rx: ts,
            ood: 0,
            probe: false,
            rx_buffer_full: false,
            int: None,
            hops: 0,
        }
    }

    fn send_n(r: &mut Recovery, n: u32, now: Time) {
        for _ in 0..n {
            let (p, _) = r.next_psn().unwrap();
            r.on_sent(now, p, 0);
        }
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
    fn rto_resends_outstanding_and_backs_off() {
        let mut r = Recovery::new(RecoveryConfig::new(RecoveryKind::SelectiveRepeat), 4);
        send_n(&mut r, 4, Time::ZERO);
        let t = r.poll_timeout().unwrap();
        assert_eq!(t, Time::from_ms(1));
        assert!(r.on_timeout(t));
        assert_eq!(r.stats().timeouts, 1);
        for p in 0..4 {
            assert_eq!(r.next_psn(), Some((p, true)));
        }
        assert_eq!(r.rto(), Time::from_ms(2));
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
        assert_eq!(r.poll_timeout().unwrap(), Time(13_500_000));
    }
}
