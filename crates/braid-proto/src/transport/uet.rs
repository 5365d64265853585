//! UET (Ultra Ethernet Transport) as the Rondo paper uses it as a baseline (§6 "Baselines": "NSCC,
//! a per-flow congestion control that adjusts its window using both ECN and RTT. Its REPS path
//! selection learns path conditions from ACKs and caches paths for packet spraying. UET uses ER
//! and RTO with dynamic thresholds for loss recovery"). Details follow the official UEC htsim
//! (`uec.cpp`, `uec_mp.cpp`, `buffer_reps.cpp`, `main_uec.cpp`; `docs/baselines.md`, UET).
//!
//! **NSCC** (htsim `uec.cpp`), per flow, in bytes. Network constants from the flow environment:
//! `RTT_net` = the network's largest base RTT, `BDP_net = RTT_net × line rate`,
//! `target_Qdelay` = `RTT_net` (0.75 · `RTT_net` when the network trims; knob `target_qdelay`), `a = BDP_net / (12 µs ×
//! 100 Gb/s)`, `b = target_Qdelay / 12 µs`; gains `α_p = 4·MSS·a·b / target`, `fi = 5·MSS·a`,
//! `η = 0.15·MSS·a`, `γ = 0.8`, `fi_scale = 0.25·a`, delay EWMA gain 0.0125. Per flow
//! `base_rtt` (two-point unloaded RTT, lowered by any smaller sample), `maxwnd = 1.5 · base_rtt ·
//! line rate`, initial `cwnd = maxwnd`. Per ACK, with `newly` the bytes it newly acknowledges and
//! `delay = RTT − base_rtt`:
//! 1. `avg_delay` EWMA; an unmarked sample above target counts as `base_rtt/4`.
//! 2. **Quick adapt**: at the end of each epoch of `base_rtt + target`, if the epoch saw a loss
//!    or a delay above `4·target` and fewer than `maxwnd/8` bytes were acknowledged during it,
//!    `cwnd = max(achieved, MTU)` and the next `in_flight` bytes of ECN marks are ignored.
//! 3. **Quadrants**: no ECN and `delay ≥ target` → fair increase (`inc += fi·newly`); no ECN and
//!    `delay < target` → fast increase (`cwnd += fi_scale·newly` once a whole window saw
//!    `delay < 1 µs`) or proportional increase (`inc += α_p·newly·(target − delay)`); ECN and
//!    `delay ≥ target` → multiplicative decrease (once per `base_rtt`, if `avg_delay > target`):
//!    `cwnd ← cwnd·max(1 − γ(avg − target)/avg, 0.5)`; ECN and `delay < target` → nothing.
//! 4. **Fulfil** after `8·MTU` acknowledged bytes or `RTT_net`: `cwnd += inc/cwnd`, plus `η`
//!    once per `RTT_net`. `cwnd` stays in `[MTU, maxwnd]`.
//!
//! A NAK reporting a drop at the receiver's full reorder buffer is handled like htsim's NACK
//! (a quick-adapt trigger, and `cwnd −= MTU` if quick adapt did not fire); a loss found by early
//! recovery is a quick-adapt trigger; an RTO sets `cwnd = max(cwnd − MTU, MTU)`.
//! Send rule: `in_flight + MTU ≤ cwnd`; retransmissions may always go — except once the network
//! has trimmed one of the flow's packets, when only an RTO's retransmissions skip the window
//! (htsim lets retransmissions past the window only in SLEEK's loss-recovery mode).
//!
//! **Trimmed packets** (`network.trim`, htsim `UecSrc::processNack` / `updateCwndOnNack_NSCC`):
//! the receiver NACKs a trimmed header at once; the sender queues the packet for
//! retransmission, feeds the delay average a sample of `RTT_net` (a `base_rtt + RTT_net` RTT),
//! triggers quick adapt, and otherwise (and unless the bytes fall in quick adapt's ignored span)
//! sets `cwnd −= the packet's bytes`. REPS treats a NACK for a trim at the last hop as an ACK
//! (its EV is recycled, unless CE-echoed) and an earlier trim as a NACK'd path.
//!
//! **ACKs** (htsim `UecSink::processData`; knob `ack_every_bytes`: 16,384 gives htsim's policy,
//! as `examples/uet-htsim.toml` sets; the default 0 keeps an ACK per packet, with which every UET
//! row of the Rondo figures was run, `EXPERIMENTS.md`): with it the receiver coalesces ACKs, one per 16 KB of accepted wire bytes (every 4th 4 KB packet), each carrying
//! the cumulative ACK and a SACK bitmap, and acknowledges at once a CE-marked packet, the first
//! and a duplicate packet, the packet completing the message and one that carries the
//! ACK-request bit — set, as htsim's `ar`, on retransmissions, on the last new packet and on a
//! packet that fills the window (`in_flight + MTU ≥ cwnd`). Per ACK the sender takes one RTT
//! sample (the packet that triggered it), gives NSCC every byte it newly acknowledges
//! (cumulatively or in the bitmap) and REPS that packet's EV.
//!
//! **REPS** (htsim `buffer_reps.cpp`, `ev_select = "reps"`, default): EV `i < paths` (default 64,
//! htsim's `-paths`) is UDP source port `base + i` (`baseline_util`). A circular
//! buffer of `reps_buffer` (8) EVs; an unmarked ACK recycles its EV (pushes it, fresh, over the
//! oldest entry); marked or NAK'd ACKs do not. The next EV is: a random one while the
//! exploration counter is positive; while frozen, the buffer's entries in turn; otherwise the
//! earliest fresh entry (used once); otherwise a random one. **Freeze on timeout:** the first RTO
//! (not frozen, not exploring) freezes the buffer for `reps_freeze_time` (10 ms); on exit the
//! buffer is cleared and the next 16 EVs explore. \[htsim enables freezing only with trimming;
//! the REPS paper and the Rondo brief use it on timeouts; knob `reps_freeze`, default on.]
//! `ev_select = "oblivious"`: cycle through the EVs XOR-ed with a mask redrawn every cycle.
//!
//! **Loss recovery** (htsim `uec.cpp`): early recovery with SLEEK's dynamic threshold
//! `max(min(1.5·cwnd, maxwnd), 5·MSS)/MSS` packets held out of order by the receiver (its count
//! echoed in the ACK, htsim's `_out_of_order_count`; `sleek_ooo = "span"`: the larger of its OOD
//! and highest SACKed − cumulative ACK), or a fixed `ood_threshold`; plus per-packet RTOs of
//! at least 100 µs (htsim's default) without backoff. SLEEK's probe packets are not modelled.
//! Another `transport.recovery` may be chosen; the per-packet RTO stays.

mod nscc;
mod reps;

use braid_core::{PacketKind, Rng, Time};

use super::baseline_util::{entropy_base, recovery_or_native};
use super::knobs::Knobs;
use super::{AckIn, FlowEnv, SenderOps, Transport, TransportConfig, TxPacket, MAX_PATHS};
use crate::cc::CcKind;
use crate::recovery::{RecoveryConfig, RecoveryKind, TimerFired};
use crate::transport::sender_core::SenderCore;
use nscc::Nscc;
pub use reps::{EvFeedback, Reps};

/// How UET picks the entropy value of each packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvSelect {
    /// Recycled Entropy Packet Spraying.
    Reps,
    /// Oblivious permutation.
    Oblivious,
}

/// Parameters of a UET sender (see the module docs).
#[derive(Clone, Debug)]
pub struct UetConfig {
    /// Number of entropy values.
    pub paths: u32,
    /// EV selection.
    pub ev_select: EvSelect,
    /// REPS buffer entries.
    pub reps_buffer: u32,
    /// Freeze REPS on timeouts.
    pub reps_freeze: bool,
    /// How long a freeze lasts.
    pub reps_freeze_time: Time,
    /// NSCC target queuing delay (`None`: the network's largest base RTT, or 0.75 of it when
    /// the network trims, as htsim's `initNsccParams`).
    pub target_qdelay: Option<Time>,
    /// Fixed early-recovery threshold, packets (`None`: SLEEK's dynamic one).
    pub ood_threshold: Option<u32>,
    /// What SLEEK compares with its threshold (`sleek_ooo`): `true` (`"held"`, the default), the
    /// packets the receiver holds above its cumulative ACK, echoed in each ACK — htsim's
    /// `runSleek(ooo, …)` with `UecSink::_out_of_order_count`; `false` (`"span"`), the larger of
    /// the receiver's OOD (highest PSN received less the next expected) and
    /// `highest_SACKed − cum_ACK`, which under spraying counts every packet still in flight below
    /// the highest arrival and resends many that are not lost.
    pub sleek_ooo_held: bool,
    /// NSCC quick adapt on.
    pub quick_adapt: bool,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// The network trims packets instead of dropping them (`network.trim`).
    pub network_trims: bool,
    /// The receiver acknowledges once per this many accepted wire bytes (htsim `UecSink`'s
    /// `_bytes_unacked_threshold`, 16,384 B), and at once in the cases of
    /// [`crate::receiver`]'s ACK coalescing; 0 = Braid's earlier policy, an ACK per in-order
    /// packet and a NAK per out-of-order one (no SACK bitmap).
    pub ack_every_bytes: u64,
}

impl UetConfig {
    /// UET's default parameters, with its native loss recovery (early recovery, RTO at least
    /// 100 µs).
    pub fn defaults() -> UetConfig {
        UetConfig {
            paths: 64,
            ev_select: EvSelect::Reps,
            reps_buffer: 8,
            reps_freeze: true,
            reps_freeze_time: Time::from_ms(10),
            target_qdelay: None,
            ood_threshold: None,
            sleek_ooo_held: true,
            quick_adapt: true,
            recovery: Self::native_recovery(None),
            network_trims: false,
            ack_every_bytes: 0,
        }
    }

    fn native_recovery(ood_threshold: Option<u32>) -> RecoveryConfig {
        let mut native = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        native.rto_min = Time::from_us(100);
        if let Some(t) = ood_threshold {
            native.er_threshold = t;
        }
        native
    }

    /// The scenario's loss recovery `given` over UET's native one (whose early-recovery threshold
    /// is `ood_threshold` when set).
    pub fn with_recovery(mut self, given: &RecoveryConfig) -> UetConfig {
        self.recovery = recovery_or_native(given, Self::native_recovery(self.ood_threshold));
        // SLEEK's held count (`sleek_ooo = "held"`) is read by episode Early Recovery only.
        self.recovery.er_ood_held = self.sleek_ooo_held
            && self.recovery.kind == RecoveryKind::EarlyRecovery
            && !self.recovery.er_per_packet;
        self
    }
}

/// A UET flow's sender: NSCC + REPS + early recovery and RTO (see the module docs).
#[derive(Clone, Debug)]
pub struct UetSender {
    cfg: UetConfig,
    pub(crate) core: SenderCore,
    line_bps: u64,
    base: u16,
    start: Time,
    nscc: Nscc,
    reps: Reps,
    rng: Rng,
    obl_idx: u32,
    obl_mask: u32,
    obl_span: u32,
    ev_seen: Vec<u64>,
    /// Distinct EVs in the current block of `paths` packets, and packets in it.
    ev_block_distinct: u32,
    ev_block_pkts: u32,
    /// Completed blocks and the sum of their distinct-EV counts, since the last
    /// [`UetSender::take_ev_blocks`].
    ev_blocks: u64,
    ev_blocks_distinct: u64,
    /// A trimmed packet has been NACKed: the network trims, and (as in htsim, where only
    /// SLEEK's loss-recovery mode lets retransmissions past the window) retransmissions obey
    /// the window unless an RTO queued them.
    trims_seen: bool,
    /// An RTO queued retransmissions that may go regardless of the window.
    rto_retx: bool,
    trims_nacked: u64,
}

impl UetSender {
    fn in_flight(&self) -> f64 {
        self.core.rec.outstanding() as f64 * self.core.msg.mtu_bytes as f64
    }

    /// Queued retransmissions may go regardless of the window (always, unless the network
    /// trims; see `trims_seen`).
    fn retx_skips_window(&self) -> bool {
        !self.trims_seen || self.rto_retx
    }

    fn may_send(&self) -> bool {
        self.core.rec.has_data()
            && ((self.core.rec.has_retx() && self.retx_skips_window())
                || self.in_flight() + self.core.msg.mtu_bytes as f64 <= self.nscc.cwnd_bytes)
    }

    fn next_ev(&mut self, now: Time) -> u16 {
        match self.cfg.ev_select {
            EvSelect::Reps => self.reps.next(now, &mut self.rng),
            EvSelect::Oblivious => loop {
                let ev = self.obl_idx ^ self.obl_mask;
                self.obl_idx += 1;
                if self.obl_idx == self.obl_span {
                    self.obl_idx = 0;
                    self.obl_mask = self.rng.below(self.obl_span as u64) as u32;
                }
                if ev < self.cfg.paths {
                    return ev as u16;
                }
            },
        }
    }

    /// EV-diversity statistics: distinct EVs per block of `paths` packets.
    fn note_ev(&mut self, ev: u16) {
        let (w, b) = (ev as usize / 64, ev as u64 % 64);
        if self.ev_seen[w] & (1 << b) == 0 {
            self.ev_seen[w] |= 1 << b;
            self.ev_block_distinct += 1;
        }
        self.ev_block_pkts += 1;
        if self.ev_block_pkts >= self.cfg.paths {
            self.ev_blocks += 1;
            self.ev_blocks_distinct += self.ev_block_distinct as u64;
            self.ev_block_pkts = 0;
            self.ev_block_distinct = 0;
            self.ev_seen.iter_mut().for_each(|x| *x = 0);
        }
    }

    /// A NACK for a trimmed packet (htsim `UecSrc::processNack`): recovery has queued the packet
    /// for retransmission; REPS counts a last-hop trim as a good path (recycling the EV, or an
    /// ECN one if CE-echoed) and an earlier trim as a NACK'd path; NSCC reacts as
    /// [`Nscc::on_nack`].
    fn on_trim_nack(&mut self, now: Time, ack: &AckIn, newly: f64) {
        self.trims_seen = true;
        self.trims_nacked += 1;
        let fb = match (ack.trim_last_hop, ack.ecn) {
            (true, false) => EvFeedback::Good,
            (true, true) => EvFeedback::Ecn,
            (false, _) => EvFeedback::Nack,
        };
        if self.cfg.ev_select == EvSelect::Reps {
            self.reps.feedback(ack.path, fb);
        }
        let in_flight = self.in_flight();
        let nacked = self.core.payload_of(ack.psn) as f64;
        self.nscc.on_nack(now.ps() as f64, newly, nacked, in_flight);
    }

    /// NSCC's target queuing delay.
    pub fn target_qdelay(&self) -> Time {
        Time::from_ps(self.nscc.target_delay_ps as u64)
    }
    /// Mean of the queuing-delay samples (`RTT − base_rtt`) seen so far, and their number.
    pub fn mean_delay(&self) -> (Time, u64) {
        let m = if self.nscc.delay_n > 0 {
            self.nscc.delay_sum_ps / self.nscc.delay_n as f64
        } else {
            0.0
        };
        (Time::from_ps(m as u64), self.nscc.delay_n)
    }
    /// Reset the delay statistics of [`UetSender::mean_delay`].
    pub fn reset_delay_stats(&mut self) {
        self.nscc.delay_sum_ps = 0.0;
        self.nscc.delay_n = 0;
    }
    /// NACKs for trimmed packets received so far.
    pub fn trims_nacked(&self) -> u64 {
        self.trims_nacked
    }
    /// Quick adapts so far.
    pub fn quick_adapts(&self) -> u64 {
        self.nscc.quick_adapts
    }
    /// EV diversity: the packets are cut into blocks of `paths` packets; returns the blocks
    /// completed since the last call and the sum of their numbers of distinct EVs. An oblivious
    /// spray scores `paths` per block, uniformly random EVs about `0.63·paths`; REPS, once it has
    /// settled, about the number of EVs its window keeps in circulation.
    pub fn take_ev_blocks(&mut self) -> (u64, u64) {
        let r = (self.ev_blocks, self.ev_blocks_distinct);
        self.ev_blocks = 0;
        self.ev_blocks_distinct = 0;
        r
    }
    /// The REPS state.
    pub fn reps(&self) -> &Reps {
        &self.reps
    }
    /// The parameters in use.
    pub fn config(&self) -> &UetConfig {
        &self.cfg
    }
}

impl Transport for UetSender {
    const NAME: &'static str = "uet";

    const KNOBS: &'static [&'static str] = &[
        "paths",
        "ev_select",
        "reps_buffer",
        "reps_freeze",
        "reps_freeze_time",
        "target_qdelay",
        "ood_threshold",
        "sleek_ooo",
        "quick_adapt",
        "ack_every_bytes",
    ];

    type Config = UetConfig;

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::EarlyRecovery
    }

    fn cc_name(_configured: CcKind) -> &'static str {
        "nscc"
    }

    fn read_config(tc: &TransportConfig) -> Result<UetConfig, String> {
        let k = Knobs::new("uet", &tc.params, Self::KNOBS)?;
        if !tc.cc.overrides.is_empty() {
            return Err("`transport.cc_params`: transport `uet` has its own congestion control (NSCC); its knobs are `transport` fields".into());
        }
        let d = UetConfig::defaults();
        let ood_threshold = k.opt_u32_in("ood_threshold", 1, 1 << 24)?;
        let c = UetConfig {
            paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
            ev_select: match k.choice("ev_select", &["reps", "oblivious"])? {
                "oblivious" => EvSelect::Oblivious,
                _ => EvSelect::Reps,
            },
            reps_buffer: k.u32_in("reps_buffer", d.reps_buffer, 1, 1 << 16)?,
            reps_freeze: k.bool("reps_freeze", d.reps_freeze)?,
            reps_freeze_time: k.opt_time("reps_freeze_time")?.unwrap_or(d.reps_freeze_time),
            target_qdelay: k.opt_time("target_qdelay")?.or(d.target_qdelay),
            ood_threshold: ood_threshold.or(d.ood_threshold),
            sleek_ooo_held: k.choice("sleek_ooo", &["held", "span"])? == "held",
            quick_adapt: k.bool("quick_adapt", d.quick_adapt)?,
            ack_every_bytes: k.u32_in("ack_every_bytes", d.ack_every_bytes as u32, 0, 1 << 30)?
                as u64,
            network_trims: tc.network_trims,
            ..d
        };
        Ok(c.with_recovery(&tc.recovery))
    }

    fn ack_every_bytes(cfg: &UetConfig) -> Option<u64> {
        (cfg.ack_every_bytes > 0).then_some(cfg.ack_every_bytes)
    }

    fn held_echo(cfg: &UetConfig) -> bool {
        cfg.recovery.er_ood_held
    }

    /// A sender for one flow.
    fn new(cfg: &UetConfig, env: &FlowEnv) -> Result<UetSender, String> {
        let cfg = cfg.clone();
        env.cc.check()?;
        let core = SenderCore::for_env(
            env,
            RecoveryConfig { rto_per_packet: true, hole_first: true, ..cfg.recovery },
        )?;
        let mut rng = Rng::new(env.seed);
        let obl_span = cfg.paths.next_power_of_two();
        let obl_mask = rng.below(obl_span as u64) as u32;
        Ok(UetSender {
            core,
            line_bps: env.cc.line_rate.bps(),
            base: entropy_base(env.entropy, cfg.paths),
            start: env.start,
            nscc: Nscc::new(env, cfg.target_qdelay, cfg.quick_adapt, cfg.network_trims),
            reps: Reps::new(
                cfg.paths,
                cfg.reps_buffer as usize,
                cfg.reps_freeze,
                cfg.reps_freeze_time,
            ),
            rng,
            obl_idx: 0,
            obl_mask,
            obl_span,
            ev_seen: vec![0; cfg.paths.div_ceil(64) as usize],
            ev_block_distinct: 0,
            ev_block_pkts: 0,
            ev_blocks: 0,
            ev_blocks_distinct: 0,
            trims_seen: false,
            rto_retx: false,
            trims_nacked: 0,
            cfg,
        })
    }
}

impl SenderOps for UetSender {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    fn handles_trims(&self) -> bool {
        true
    }

    /// The flow starts at `now` (see [`crate::transport::Sender::begin`]): NSCC's quick-adapt
    /// and fair-increase clocks run from `now`.
    fn begin(&mut self, now: Time) {
        if now == self.start {
            return;
        }
        self.start = now;
        let t = now.ps() as f64;
        self.nscc.qa_end_ps = t + self.nscc.base_rtt_ps + self.nscc.target_delay_ps;
        self.nscc.last_adjust_ps = t;
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.start || !self.may_send() {
            return None;
        }
        let (psn, retx) = self.core.rec.next_psn()?;
        if (!retx || !self.retx_skips_window())
            && self.in_flight() + self.core.msg.mtu_bytes as f64 > self.nscc.cwnd_bytes
        {
            self.core.rec.unget(psn, retx);
            return None;
        }
        if self.rto_retx && !self.core.rec.has_retx() {
            self.rto_retx = false;
        }
        let ev = self.next_ev(now);
        self.note_ev(ev);
        let tx = self.core.send_data(now, psn, retx, ev, self.base + ev);
        // htsim's `ar` bit: a retransmission, the last new packet, or one that fills the window
        // asks the (coalescing) receiver for an immediate ACK.
        let mtu = self.core.msg.mtu_bytes as f64;
        let ack_request =
            retx || !self.core.rec.has_new_data() || self.in_flight() + mtu >= self.nscc.cwnd_bytes;
        Some(TxPacket { ack_request, ..tx })
    }

    /// Its window test is state (no pacing): an answer stands until the next input.
    fn send_time_is_stable(&self) -> bool {
        true
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if self.may_send() {
            now.max(self.start)
        } else {
            Time::MAX
        }
    }

    /// See [`crate::transport::Sender::on_ack`].
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        if !matches!(ack.kind, PacketKind::Ack | PacketKind::Nak) || ack.probe {
            return;
        }
        if self.cfg.ood_threshold.is_none() {
            let mss = self.core.msg.mtu_bytes as f64;
            let thr = (1.5 * self.nscc.cwnd_bytes).min(self.nscc.maxwnd_bytes).max(5.0 * mss) / mss;
            self.core.rec.set_er_threshold(thr as u32);
        }
        let sum = self.core.rec.on_ack(now, ack);
        let newly = sum.newly_acked as f64 * self.core.msg.mtu_bytes as f64;
        if ack.trimmed {
            self.on_trim_nack(now, ack, newly);
            return;
        }
        let raw = now.saturating_sub(ack.ts_sent).ps() as f64;
        let fb = if ack.rx_buffer_full {
            EvFeedback::Nack
        } else if ack.ecn {
            EvFeedback::Ecn
        } else {
            EvFeedback::Good
        };
        if self.cfg.ev_select == EvSelect::Reps {
            self.reps.feedback(ack.path, fb);
        }
        let in_flight = self.in_flight();
        self.nscc.on_ack(
            now.ps() as f64,
            newly,
            raw,
            ack.ecn,
            ack.rx_buffer_full,
            sum.loss,
            in_flight,
        );
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time> {
        self.core.rec.poll_timeout()
    }

    /// See [`crate::transport::Sender::on_timeout`].
    fn on_timeout(&mut self, now: Time) {
        if self.core.rec.on_timeout(now) == TimerFired::Rto {
            self.rto_retx = true;
            self.nscc.on_rto();
            self.reps.on_timeout(now);
        }
    }

    /// The NSCC window in bytes.
    fn window_bytes(&self) -> u64 {
        self.nscc.cwnd_bytes as u64
    }

    /// Line rate (UET does not pace).
    fn rate_bps(&self) -> u64 {
        self.line_bps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{SenderOps, Transport};

    fn env() -> FlowEnv {
        crate::transport::test_env(10_000_000, 5)
    }

    fn resolved(c: UetConfig) -> UetConfig {
        c.with_recovery(&RecoveryConfig::new(RecoveryKind::EarlyRecovery))
    }

    fn ack(tx: &TxPacket, cum: u32, ecn: bool, sent: Time) -> AckIn<'static> {
        AckIn { ecn, ..AckIn::plain(PacketKind::Ack, tx.psn, cum, tx.path, sent, 2) }
    }

    #[test]
    fn reps_recycles_good_evs_only_and_freezes() {
        let mut r = Reps::new(64, 8, true, Time::from_ms(10));
        let mut rng = Rng::new(1);
        r.feedback(5, EvFeedback::Good);
        r.feedback(9, EvFeedback::Ecn);
        r.feedback(7, EvFeedback::Good);
        assert_eq!(r.next(Time::ZERO, &mut rng), 5, "earliest fresh first");
        assert_eq!(r.next(Time::ZERO, &mut rng), 7);
        let _ = r.next(Time::ZERO, &mut rng); // random
        assert_eq!(r.recycled(), 2);
        assert_eq!(r.random(), 1);
        r.on_timeout(Time::from_us(1));
        assert!(r.frozen(Time::from_us(2)));
        // Frozen: cycle through the buffer (5, 7, 5, …) even though the entries were used.
        let a = r.next(Time::from_us(2), &mut rng);
        let b = r.next(Time::from_us(2), &mut rng);
        let c = r.next(Time::from_us(2), &mut rng);
        assert_eq!((a, b, c), (5, 7, 5));
        // After the freeze: 16 exploratory EVs, buffer cleared.
        let t = Time::from_ms(11);
        for _ in 0..16 {
            r.next(t, &mut rng);
        }
        assert!(!r.frozen(t));
        assert_eq!(r.random(), 17);
    }

    #[test]
    fn nscc_constants_and_initial_window() {
        let cfg = resolved(UetConfig::defaults());
        assert_eq!(cfg.recovery.kind, RecoveryKind::EarlyRecovery);
        assert_eq!(cfg.recovery.rto_min, Time::from_us(100));
        let s = UetSender::new(&cfg, &env()).unwrap();
        // maxwnd = 1.5 · 8 µs · 100 Gb/s = 150 KB.
        assert_eq!(s.window_bytes(), 150_000);
        assert_eq!(s.target_qdelay(), Time::from_us(8));
    }

    #[test]
    fn sleek_reads_the_held_count_unless_asked_for_the_span() {
        let read = |v: Option<&str>| {
            let mut tc = TransportConfig::new(crate::transport::TransportKind::Uet);
            if let Some(v) = v {
                tc.params.push(("sleek_ooo".into(), braid_core::Knob::Str(v.into())));
            }
            UetSender::read_config(&tc)
        };
        let held = read(None).unwrap();
        assert!(held.sleek_ooo_held && held.recovery.er_ood_held && UetSender::held_echo(&held));
        let span = read(Some("span")).unwrap();
        assert!(!span.recovery.er_ood_held && !UetSender::held_echo(&span));
        let e = read(Some("count")).unwrap_err();
        assert!(e.contains("sleek_ooo") && e.contains("held, span"), "{e}");
    }

    #[test]
    fn marked_acks_above_target_cut_the_window() {
        let mut s = UetSender::new(&resolved(UetConfig::defaults()), &env()).unwrap();
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(sent.len(), 150);
        let w0 = s.window_bytes();
        // Delay 40 µs (5 × target), every ACK marked: avg_delay climbs, MD at most once per base RTT.
        let mut now = Time::from_us(48);
        for (i, tx) in sent.iter().enumerate() {
            now = Time::from_us(48) + Time::from_ns(i as u64 * 80);
            s.on_ack(now, &ack(tx, tx.psn + 1, true, now - Time::from_us(48)));
        }
        assert!(s.window_bytes() < w0, "{} vs {w0}", s.window_bytes());
        let _ = now;
    }

    #[test]
    fn unmarked_low_delay_acks_keep_the_window_high() {
        let mut s = UetSender::new(&resolved(UetConfig::defaults()), &env()).unwrap();
        // Every packet is acknowledged 9 µs after it is sent (1 µs of queuing), unmarked.
        let mut pending: std::collections::BTreeMap<(Time, u32), TxPacket> = Default::default();
        let mut cum = 0;
        for step in 0..2000u64 {
            let now = Time::from_ns(step * 100);
            while let Some((&(t, k), _)) = pending.iter().next() {
                if t > now {
                    break;
                }
                let tx = pending.remove(&(t, k)).unwrap();
                cum = cum.max(tx.psn + 1);
                s.on_ack(t, &ack(&tx, cum, false, t - Time::from_us(9)));
            }
            while let Some(tx) = s.poll_transmit(now) {
                pending.insert((now + Time::from_us(9), tx.psn), tx);
            }
        }
        assert_eq!(s.window_bytes(), 150_000);
        assert_eq!(s.quick_adapts(), 0);
    }

    #[test]
    fn trimmed_nacks_resend_cut_the_window_and_recycle_only_last_hop_evs() {
        let cfg = resolved(UetConfig { network_trims: true, ..UetConfig::defaults() });
        let mut s = UetSender::new(&cfg, &env()).unwrap();
        // Trimming: the target is 0.75 × the network RTT (8 µs here).
        assert_eq!(s.target_qdelay(), Time::from_us(6));
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        let w0 = s.window_bytes();
        let nack = |tx: &TxPacket, last_hop: bool| AckIn {
            trimmed: true,
            trim_last_hop: last_hop,
            ..AckIn::plain(PacketKind::Nak, tx.psn, 0, tx.path, Time::ZERO, 2)
        };
        // An early-path trim: resent, window cut by the packet's bytes, EV not recycled.
        s.on_ack(Time::from_us(5), &nack(&sent[3], false));
        assert_eq!(s.trims_nacked(), 1);
        assert_eq!(s.window_bytes(), w0 - s.core.msg.mtu_bytes as u64);
        assert_eq!(s.core.rec.pending_retx().collect::<Vec<_>>(), vec![3]);
        assert_eq!(s.core.rec.stats().timeouts, 0);
        // A window-full sender does not resend past the window (htsim without SLEEK) …
        assert!(s.poll_transmit(Time::from_us(5)).is_none());
        // … until ACKs open it.
        s.on_ack(Time::from_us(9), &ack(&sent[0], 1, false, Time::from_us(1)));
        s.on_ack(Time::from_us(9), &ack(&sent[1], 2, false, Time::from_us(1)));
        let r = s.poll_transmit(Time::from_us(9)).expect("the trimmed packet goes again");
        assert_eq!((r.psn, r.retx), (3, true));
        // A last-hop trim recycles its EV into the REPS buffer; the early one did not: the
        // fresh entries are now the second ACK's EV and the last-hop trim's, nothing else.
        s.on_ack(Time::from_us(10), &nack(&sent[5], true));
        let mut rng = Rng::new(9);
        let mut reps = s.reps().clone();
        let before = reps.recycled();
        let t = Time::from_us(10);
        assert_eq!((reps.next(t, &mut rng), reps.next(t, &mut rng)), (sent[1].path, sent[5].path));
        reps.next(t, &mut rng);
        assert_eq!(reps.recycled(), before + 2);
    }

    #[test]
    fn ev_blocks_count_distinct_evs() {
        let cfg = resolved(UetConfig {
            paths: 8,
            ev_select: EvSelect::Oblivious,
            ..UetConfig::defaults()
        });
        let mut s = UetSender::new(&cfg, &env()).unwrap();
        for _ in 0..20 {
            s.poll_transmit(Time::ZERO).unwrap();
        }
        assert_eq!(s.take_ev_blocks(), (2, 16), "oblivious: every block of 8 is a permutation");
        assert_eq!(s.take_ev_blocks(), (0, 0));
    }
}
