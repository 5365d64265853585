//! EQDS (Olteanu et al., NSDI'22) in RTS mode without packet trimming, as the Rondo paper's
//! Appendix E compares it ("a receiver-driven transport, where the sender transmits data packets
//! only after receiving credits … implemented in RTS mode without packet trimming support").
//! Details follow htsim's `eqds.cpp` (UEC htsim, csg-htsim), partly the EQDS paper; Braid's
//! readings are in `docs/baselines.md`, EQDS.
//!
//! **Credits.** A flow starts by sending speculatively up to `credit_spec` bytes (default one BDP
//! of the flow, `base_rtt × line rate`; htsim's default is its `cwnd`, 50 packets). The first
//! ACK discards what is left of the speculative credit (htsim `clearSpeculativeCredit`); from
//! then on the sender sends one packet per **pull**. The receiver's NIC runs one pull pacer (in
//! the simulator, `braid-net`; `crate::pull_pacer`) at 0.99 × its link rate, round robin over
//! the flows owed pulls. By default it queues one pull per data packet that arrives (and per
//! trimmed header), plus as many as an RTS asks for. With `pull_targets = true` it follows
//! htsim instead (`EqdsSrc::computePullTarget`, `EqdsSink::handlePullTarget`): every data packet
//! carries a **pull target** — the pulls received so far plus the credit the sender wants, its
//! backlog of unsent new packets capped at `credit_spec` (htsim caps it at
//! `min(cwnd + MTU, maxwnd)` = `cwnd`), less the credit it holds — and the pacer pulls the flow
//! until its pull count reaches the highest target seen (plus one pull per trimmed packet and
//! what an RTS asks for). A flow with data left then keeps about `credit_spec` of credit
//! requested whatever the RTT, where per-arrival pulls hold its credit at `credit_spec` in
//! circulation and let its rate fall as `credit_spec / RTT` when queues lengthen the RTT.
//! (Not the default: on the Rondo testbed's paths of 25/20/15/10 Gb/s the oblivious spray then
//! overfills the slow path — 60 Gb/s at 50 packets of credit, a collapse to under 2 Gb/s at a
//! few more.) htsim's "slow pulls" to idle flows and its priority for retransmission pulls are
//! not modelled. A pull carries the flow's cumulative pull count in its PSN field, so a lost
//! pull is made up by the next one; each pull grants one packet (htsim: `credit_per_pull` =
//! 4 KB = one MSS at its 4 KB MTU). An RTS reaching a receiver that already has every packet
//! (its sender lost the last ACKs) is answered with a cumulative ACK.
//!
//! **RTS mode (no trimming).** Full queues drop. Loss is found by per-packet retransmission
//! timers (htsim: each packet times out `max(100 µs, SRTT + 4·RTTVAR)` after it was sent; no
//! backoff). Lost data and lost pulls both shrink the flow's credit circulation; when the sender
//! has something to send but no credit and either nothing outstanding or a retransmission
//! waiting after an RTO, it sends an **RTS** control packet (header-sized), at most once per
//! smoothed RTT (htsim `sendRTS`). The RTS asks for the packets queued for retransmission, or,
//! when nothing is outstanding, for `min(remaining, credit_spec)` packets. Its PSN field carries
//! the number of pulls requested.
//!
//! **Spraying.** `paths` EVs (default 256, htsim `_path_entropy_size`), EV `i` being UDP source
//! port `base + i` (`baseline_util`); chosen by htsim's oblivious
//! permutation (cycle through the EVs XOR-ed with a mask redrawn every cycle) skipping EVs
//! penalised by an ECN echo (penalty 1, htsim `_max_penalty`).
//!
//! **Loss recovery** default: RTO only (early recovery with an unreachable threshold plus
//! per-packet RTOs, 100 µs minimum), as in htsim's RTS mode; another `transport.recovery` can be
//! chosen (e.g. `rack-tlp` to also use SACK holes).
//!
//! **Trimming** (`network.trim`, the EQDS paper's native mode; htsim `EqdsSink::processTrimmed`,
//! `EqdsSrc::processNack`): when the network trims, the receiver NACKs a trimmed header and
//! queues a pull for its retransmission; the sender queues the packet for retransmission (sent
//! on the next credit), stops speculating and penalises the entropy as after an ECN echo.
//!
//! Knobs: `paths` (256), `credit_spec` (bytes, default one BDP), `pull_targets` (false), `rts` (true; false: never send
//! an RTS, so a flow whose credit circulation dies waits for an RTO to retransmit … and then
//! stalls — only for experiments).

use braid_core::{PacketKind, Rng, Time};

use super::baseline_util::{entropy_base, recovery_or_native};
use super::knobs::Knobs;
use super::{AckIn, FlowEnv, SenderOps, Transport, TransportConfig, TxPacket, MAX_PATHS};
use crate::cc::CcKind;
use crate::recovery::{RecoveryConfig, RecoveryKind, TimerFired};
use crate::transport::sender_core::SenderCore;

/// Parameters of an EQDS sender (see the module docs).
#[derive(Clone, Debug)]
pub struct EqdsConfig {
    /// Number of entropy values sprayed over.
    pub paths: u32,
    /// Initial speculative credit and cap of the credit asked for, bytes (`None`: one BDP of
    /// the flow).
    pub credit_spec: Option<u64>,
    /// Data packets carry htsim's pull target and the receiver pulls up to it (see the module
    /// docs); false: one pull per arriving packet.
    pub pull_targets: bool,
    /// Send RTS packets.
    pub rts: bool,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
}

impl EqdsConfig {
    /// EQDS's default parameters, with its native loss recovery (per-packet RTO of at least
    /// 100 µs, no early recovery).
    pub fn defaults() -> EqdsConfig {
        EqdsConfig {
            paths: 256,
            credit_spec: None,
            pull_targets: false,
            rts: true,
            recovery: Self::native_recovery(),
        }
    }

    fn native_recovery() -> RecoveryConfig {
        let mut native = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        native.rto_min = Time::from_us(100);
        native.er_threshold = u32::MAX;
        native
    }

    /// The scenario's loss recovery `given` over EQDS's native one.
    pub fn with_recovery(mut self, given: &RecoveryConfig) -> EqdsConfig {
        self.recovery = recovery_or_native(given, Self::native_recovery());
        self
    }
}

/// An EQDS flow's sender (see the module docs).
#[derive(Clone, Debug)]
pub struct EqdsSender {
    cfg: EqdsConfig,
    pub(crate) core: SenderCore,
    line_bps: u64,
    base: u16,
    start: Time,
    /// Pull credit, packets.
    credit: u32,
    /// Speculative credit left, packets.
    spec: u32,
    spec_pkts: u32,
    highest_pull: u32,
    last_rts: Option<Time>,
    /// The RTS retry timer is armed (disarmed when it fires, re-armed by the next RTS).
    rts_timer: bool,
    /// An RTO queued retransmissions that need a pull.
    rto_pending: bool,
    rng: Rng,
    ev_idx: u32,
    ev_mask: u32,
    ev_span: u32,
    penalty: Vec<u8>,
    rts_sent: u64,
    pulls: u64,
}

impl EqdsSender {
    /// The cumulative pull number to ask the receiver for (htsim `EqdsSrc::computePullTarget`):
    /// the pulls received so far plus what the sender wants to hold — its backlog of new
    /// packets, at most `credit_spec` (htsim's `cwnd` = `maxwnd`) — less the credit it holds.
    pub fn pull_target(&self) -> u32 {
        let backlog = self.core.msg.packets.saturating_sub(self.core.rec.nxt());
        let want = backlog.min(self.spec_pkts);
        self.highest_pull.saturating_add(want.saturating_sub(self.credit + self.spec))
    }

    fn rts_interval(&self) -> Time {
        self.core.rec.srtt().unwrap_or(self.core.rec.config().rto_min)
    }

    /// The sender needs pulls it has no reason to expect: an RTO left retransmissions waiting,
    /// or nothing is outstanding (every packet and pull of the circulation was lost).
    fn rts_wanted(&self) -> bool {
        self.cfg.rts
            && self.credit == 0
            && self.spec == 0
            && self.core.rec.has_data()
            && (self.core.rec.outstanding() == 0 || (self.rto_pending && self.core.rec.has_retx()))
    }

    fn rts_due(&self, now: Time) -> bool {
        self.rts_wanted() && self.last_rts.is_none_or(|t| now >= t + self.rts_interval())
    }

    fn next_ev(&mut self) -> u16 {
        loop {
            let ev = self.ev_idx ^ self.ev_mask;
            self.ev_idx += 1;
            if self.ev_idx == self.ev_span {
                self.ev_idx = 0;
                self.ev_mask = self.rng.below(self.ev_span as u64) as u32;
            }
            if ev < self.cfg.paths {
                let p = &mut self.penalty[ev as usize];
                if *p > 0 {
                    *p -= 1;
                    continue;
                }
                return ev as u16;
            }
        }
    }

    /// RTS packets sent so far.
    pub fn rts_sent(&self) -> u64 {
        self.rts_sent
    }
    /// Pull credits received so far, packets.
    pub fn pulls(&self) -> u64 {
        self.pulls
    }
    /// The parameters in use.
    pub fn config(&self) -> &EqdsConfig {
        &self.cfg
    }
}

impl Transport for EqdsSender {
    const NAME: &'static str = "eqds";

    const KNOBS: &'static [&'static str] = &["paths", "credit_spec", "rts", "pull_targets"];

    type Config = EqdsConfig;

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::EarlyRecovery
    }

    fn cc_name(_configured: CcKind) -> &'static str {
        "eqds-credit"
    }

    fn read_config(tc: &TransportConfig) -> Result<EqdsConfig, String> {
        let k = Knobs::new("eqds", &tc.params, Self::KNOBS)?;
        if !tc.cc.overrides.is_empty() {
            return Err("`transport.cc_params`: transport `eqds` is receiver-driven and has no congestion control to tune".into());
        }
        let d = EqdsConfig::defaults();
        let c = EqdsConfig {
            paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
            credit_spec: k.opt_bytes("credit_spec")?.or(d.credit_spec),
            pull_targets: k.bool("pull_targets", d.pull_targets)?,
            rts: k.bool("rts", d.rts)?,
            ..d
        };
        Ok(c.with_recovery(&tc.recovery))
    }

    /// A sender for one flow.
    fn new(cfg: &EqdsConfig, env: &FlowEnv) -> Result<EqdsSender, String> {
        let cfg = cfg.clone();
        env.cc.check()?;
        let core = SenderCore::for_env(
            env,
            RecoveryConfig { rto_per_packet: true, hole_first: true, ..cfg.recovery },
        )?;
        let mtu = core.mtu_bytes();
        let spec_bytes = cfg.credit_spec.unwrap_or(env.cc.bdp_bytes());
        let spec_pkts = (spec_bytes.div_ceil(mtu as u64)).clamp(1, u32::MAX as u64 / 2) as u32;
        let mut rng = Rng::new(env.seed);
        let ev_span = cfg.paths.next_power_of_two();
        let ev_mask = rng.below(ev_span as u64) as u32;
        Ok(EqdsSender {
            core,
            line_bps: env.cc.line_rate.bps(),
            base: entropy_base(env.entropy, cfg.paths),
            start: env.start,
            credit: 0,
            spec: spec_pkts,
            spec_pkts,
            highest_pull: 0,
            last_rts: None,
            rts_timer: false,
            rto_pending: false,
            rng,
            ev_idx: 0,
            ev_mask,
            ev_span,
            penalty: vec![0; cfg.paths as usize],
            rts_sent: 0,
            pulls: 0,
            cfg,
        })
    }
}

impl SenderOps for EqdsSender {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    fn wants_pulls(&self) -> bool {
        true
    }

    fn pulls_to_target(&self) -> bool {
        self.cfg.pull_targets
    }

    fn handles_trims(&self) -> bool {
        true
    }

    /// The flow starts at `now` (see [`crate::transport::Sender::begin`]).
    fn begin(&mut self, now: Time) {
        self.start = now;
    }

    /// A message was posted on the connection. After an idle period (nothing outstanding), the
    /// new message may send as much unsolicited as a new flow does (`credit_spec`, counting the
    /// credit left over from the last message): on an idle connection nothing is circulating,
    /// and the pulls its packets bring back are what keeps the data flowing — left with only a
    /// stray credit or two, every message would crawl at a packet or two per round trip.
    fn on_post(&mut self, _now: Time, was_idle: bool) {
        if was_idle && self.core.rec.outstanding() == 0 {
            self.spec = self.spec.max(self.spec_pkts.saturating_sub(self.credit));
        }
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.start {
            return None;
        }
        if self.core.rec.has_data() && self.credit + self.spec > 0 {
            if let Some((psn, retx)) = self.core.rec.next_psn() {
                if self.credit > 0 {
                    self.credit -= 1;
                } else {
                    self.spec -= 1;
                }
                let ev = self.next_ev();
                self.core.rec.on_sent(now, psn, ev);
                if !self.core.rec.has_retx() {
                    self.rto_pending = false;
                }
                let tx =
                    self.core.data_packet(psn, retx, ev, self.base + ev, self.core.payload_of(psn));
                let pull_target = if self.cfg.pull_targets { self.pull_target() } else { 0 };
                return Some(TxPacket { pull_target, ..tx });
            }
        }
        if self.rts_due(now) {
            let want = if self.core.rec.outstanding() == 0 {
                let remaining = self.core.msg.packets.saturating_sub(self.core.rec.una());
                remaining.min(self.spec_pkts).max(1)
            } else {
                self.core.rec.pending_retx().count().max(1) as u32
            };
            self.last_rts = Some(now);
            self.rts_timer = true;
            self.rts_sent += 1;
            let ev = self.next_ev();
            return Some(TxPacket {
                kind: PacketKind::Rts,
                psn: want,
                payload_bytes: 0,
                entropy: self.base + ev,
                path: ev,
                retx: false,
                timestamped: false,
                last: false,
                ack_request: false,
                pull_target: 0,
            });
        }
        None
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if (self.core.rec.has_data() && self.credit + self.spec > 0) || self.rts_due(now) {
            now.max(self.start)
        } else {
            Time::MAX
        }
    }

    /// See [`crate::transport::Sender::on_ack`]. Pulls arrive here too (`kind = Pull`, the
    /// cumulative pull count in `psn`).
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        match ack.kind {
            PacketKind::Pull if ack.psn > self.highest_pull => {
                self.credit += ack.psn - self.highest_pull;
                self.pulls += (ack.psn - self.highest_pull) as u64;
                self.highest_pull = ack.psn;
            }
            PacketKind::Ack | PacketKind::Nak if !ack.probe => {
                // A trimmed packet's NACK: recovery queues it for retransmission (sent on the
                // next credit; its receiver queued a pull for it), and its path is penalised
                // as after an ECN echo (htsim `EqdsSrc::processNack`, `penalizePath(ev, 1)`).
                self.core.rec.on_ack(now, ack);
                self.spec = 0;
                if ack.ecn || ack.trimmed {
                    if let Some(p) = self.penalty.get_mut(ack.path as usize) {
                        *p = 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// See [`crate::transport::Sender::poll_timeout`]: the RTO, and the next RTS retry.
    fn poll_timeout(&self) -> Option<Time> {
        let rts = if self.rts_timer && self.rts_wanted() {
            self.last_rts.map(|t| t + self.rts_interval())
        } else {
            None
        };
        match (self.core.rec.poll_timeout(), rts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// See [`crate::transport::Sender::on_timeout`].
    fn on_timeout(&mut self, now: Time) {
        if self.last_rts.is_some_and(|t| t + self.rts_interval() <= now) {
            // The retry time has come: the host sends the RTS when its port is free.
            self.rts_timer = false;
        }
        if self.core.rec.poll_timeout().is_some_and(|t| t <= now)
            && self.core.rec.on_timeout(now) == TimerFired::Rto
        {
            self.rto_pending = true;
        }
    }

    /// Credit in hand (received + speculative), bytes.
    fn window_bytes(&self) -> u64 {
        (self.credit + self.spec) as u64 * self.core.msg.mtu_bytes as u64
    }

    /// Line rate (the receiver's pull pacer sets the pace).
    fn rate_bps(&self) -> u64 {
        self.line_bps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{SenderOps, Transport};

    fn env(size: u64) -> FlowEnv {
        crate::transport::test_env(size, 9)
    }

    fn resolved(c: EqdsConfig) -> EqdsConfig {
        c.with_recovery(&RecoveryConfig::new(RecoveryKind::EarlyRecovery))
    }

    fn ack(kind: PacketKind, psn: u32, cum: u32, path: u16, sent: Time) -> AckIn<'static> {
        AckIn::plain(kind, psn, cum, path, sent, 2)
    }

    #[test]
    fn speculative_window_then_one_packet_per_pull() {
        let cfg = resolved(EqdsConfig { credit_spec: Some(10_000), ..EqdsConfig::defaults() });
        assert_eq!(cfg.recovery.rto_min, Time::from_us(100));
        let mut s = EqdsSender::new(&cfg, &env(1_000_000)).unwrap();
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(sent.len(), 10);
        assert!(sent.iter().all(|t| t.kind == PacketKind::Data));
        // The first ACK clears the speculative credit: nothing to send until pulls arrive.
        s.on_ack(Time::from_us(8), &ack(PacketKind::Ack, 0, 1, sent[0].path, Time::ZERO));
        assert!(s.poll_transmit(Time::from_us(8)).is_none());
        assert_eq!(s.next_send_time(Time::from_us(8)), Time::MAX);
        // Pull #3 (pulls 1 and 2 lost): three packets.
        s.on_ack(Time::from_us(9), &ack(PacketKind::Pull, 3, 1, 0, Time::ZERO));
        assert_eq!(std::iter::from_fn(|| s.poll_transmit(Time::from_us(9))).count(), 3);
        // A stale pull grants nothing.
        s.on_ack(Time::from_us(9), &ack(PacketKind::Pull, 2, 1, 0, Time::ZERO));
        assert!(s.poll_transmit(Time::from_us(9)).is_none());
    }

    #[test]
    fn rts_when_the_circulation_dies() {
        let cfg = resolved(EqdsConfig { credit_spec: Some(3000), ..EqdsConfig::defaults() });
        let mut s = EqdsSender::new(&cfg, &env(100_000)).unwrap();
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(sent.len(), 3);
        for t in &sent {
            s.on_ack(Time::from_us(8), &ack(PacketKind::Ack, t.psn, t.psn + 1, t.path, Time::ZERO));
        }
        // Every pull lost: nothing outstanding, no credit → an RTS asking for min(97, 3) pulls.
        let rts = s.poll_transmit(Time::from_us(8)).unwrap();
        assert_eq!((rts.kind, rts.psn), (PacketKind::Rts, 3));
        // At most one RTS per RTT; the retry time is a timer.
        assert!(s.poll_transmit(Time::from_us(9)).is_none());
        let t = s.poll_timeout().unwrap();
        assert_eq!(t, Time::from_us(16));
        s.on_timeout(t);
        assert!(
            s.poll_timeout().is_none_or(|x| x > t),
            "a fired retry timer is not reported again"
        );
        assert_eq!(s.next_send_time(t), t);
        assert_eq!(s.poll_transmit(t).unwrap().kind, PacketKind::Rts);
        assert_eq!(s.rts_sent(), 2);
    }

    #[test]
    fn rto_then_rts_for_the_lost_packets() {
        let cfg = resolved(EqdsConfig { credit_spec: Some(4000), ..EqdsConfig::defaults() });
        let mut s = EqdsSender::new(&cfg, &env(100_000)).unwrap();
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(sent.len(), 4);
        // PSN 0 and 1 acknowledged, one pull each (spent at once); 2 and 3 lost.
        s.on_ack(Time::from_us(8), &ack(PacketKind::Ack, 0, 1, sent[0].path, Time::ZERO));
        s.on_ack(Time::from_us(8), &ack(PacketKind::Ack, 1, 2, sent[1].path, Time::ZERO));
        s.on_ack(Time::from_us(8), &ack(PacketKind::Pull, 2, 2, 0, Time::ZERO));
        assert_eq!(std::iter::from_fn(|| s.poll_transmit(Time::from_us(20))).count(), 2);
        // The RTO (100 µs minimum) fires at 108 µs for PSN 2, 3 (sent at 0), not 4, 5 (sent at 20 µs).
        let t = s.poll_timeout().unwrap();
        assert_eq!(t, Time::from_us(108));
        s.on_timeout(t);
        assert_eq!(s.core.recovery_stats().timeouts, 1);
        let rts = s.poll_transmit(t).unwrap();
        assert_eq!((rts.kind, rts.psn), (PacketKind::Rts, 2));
    }

    #[test]
    fn evs_cycle_and_skip_penalised() {
        let cfg =
            resolved(EqdsConfig { paths: 8, credit_spec: Some(100_000), ..EqdsConfig::defaults() });
        let mut s = EqdsSender::new(&cfg, &env(1_000_000)).unwrap();
        let mut seen = [0; 8];
        for _ in 0..8 {
            seen[s.poll_transmit(Time::ZERO).unwrap().path as usize] += 1;
        }
        assert_eq!(seen, [1; 8], "one cycle is a permutation");
    }

    #[test]
    fn data_packets_ask_for_credit_up_to_the_backlog_target() {
        let cfg = resolved(EqdsConfig {
            credit_spec: Some(10_000),
            pull_targets: true,
            ..EqdsConfig::defaults()
        });
        let mut s = EqdsSender::new(&cfg, &env(1_000_000)).unwrap();
        let mtu = s.core.mtu_bytes() as u64;
        let spec = 10_000u64.div_ceil(mtu) as u32;
        // Speculative phase: every packet sent raises the target by one (credit spent, backlog large).
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        let targets: Vec<u32> = sent.iter().map(|t| t.pull_target).collect();
        assert_eq!(targets, (1..=spec).collect::<Vec<_>>());
        // The first ACK clears the speculative credit; pull #2 arrives: the next packet asks for
        // `spec` pulls beyond the 2 received, less the one credit still held after it.
        s.on_ack(Time::from_us(8), &ack(PacketKind::Ack, 0, 1, sent[0].path, Time::ZERO));
        s.on_ack(Time::from_us(8), &ack(PacketKind::Pull, 2, 1, 0, Time::ZERO));
        let tx = s.poll_transmit(Time::from_us(8)).unwrap();
        assert_eq!(tx.pull_target, 2 + spec - 1);
        // Near the end the target follows the backlog, not the cap.
        let small = resolved(EqdsConfig {
            credit_spec: Some(100_000),
            pull_targets: true,
            ..EqdsConfig::defaults()
        });
        let mut s = EqdsSender::new(&small, &env(3 * mtu)).unwrap();
        let t: Vec<u32> =
            std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).map(|t| t.pull_target).collect();
        assert_eq!(t, [0, 0, 0], "three packets, all covered by speculative credit");
    }
}
