//! MP-RDMA (Lu et al., NSDI'18) as the Rondo paper uses it as a baseline (§6 "Baselines": "a
//! per-flow, ECN-driven congestion control. Its ACK-clocked path selection transmits packets over
//! responding paths and temporarily prunes paths whose delayed ACKs indicate excessive OOD").
//! Follows the MP-RDMA paper (an unofficial ns-3 port was read for structure only); Braid's
//! readings are in `docs/baselines.md`, MP-RDMA.
//!
//! **Window (per flow, in packets).** On every ACK: CE-marked ⇒ `cwnd −= 1/2`, else
//! `cwnd += 1/cwnd`; clamped to `[min_cwnd, max_cwnd]`. A loss episode (a recovery entered by
//! the loss-recovery scheme, or an RTO) multiplies `cwnd` by `loss_md` once \[GUESS: the paper's
//! exact loss reaction is not given].
//!
//! **ACK-clocked path selection over virtual paths (VPs).** VP `i < paths` is UDP source port
//! `base + i` (see `baseline_util`). An ACK that arrives on VP `p` lets
//! up to `min(awnd, 2)` packets go out on the **same** VP, with
//! `awnd = ⌊cwnd⌋ − outstanding − (packets already clocked but not sent)`. So load moves toward
//! VPs whose ACKs return quickly. The first window (and any restart after every outstanding
//! packet is gone) goes out on random VPs. **Exploration:** when an ACK clocks out two packets
//! (the window grew by one), the second goes on a new random VP (`grow_explore`, default on
//! \[PAPER, from memory: MP-RDMA explores new VPs as the window grows; without it a physical path
//! whose VPs all lost their clock after a window cut never recovers]); and each clocked packet,
//! with probability `explore_prob` and at most once per smoothed RTT, takes a random VP instead
//! \[GUESS on the rate: the paper says "a small probability"; default 1 %].
//!
//! **OOD-aware pruning.** An ACK whose PSN is at least `delta` (Δ) below the highest PSN
//! acknowledged so far, and which does not acknowledge a retransmission, is "late": it updates
//! the window and loss state but clocks out nothing, so the VP it came from loses its share until
//! it answers in time again.
//!
//! **Receiver bitmap and loss recovery.** The MP-RDMA receiver tracks `bitmap` (L = 64) PSNs
//! from its cumulative ACK (AACK) and cannot hold anything beyond; the paper's receiver NACKs the
//! hole (synchronisation), the sender enters recovery (`recovery_psn = snd_nxt`), resends the
//! holes and leaves recovery when `snd_una ≥ recovery_psn`. Braid's receiver is shared by all
//! transports and bounded by the NIC's shared reorder buffer instead (so every baseline is
//! compared on the same receiver resource, Rondo Fig 14); the bitmap's effect on the sender is
//! modelled with early recovery (`er`): a loss is inferred once the flow's OOD reaches L, i.e.
//! when the bitmap is exhausted \[interpretation: the paper's synchronisation rule ("AACK advances
//! over at most Δ PSNs; a hole found then is NACKed") would put the threshold at Δ; measured on
//! the Rondo testbed that turns most queueing skew into spurious retransmissions and halves the
//! goodput, see EXPERIMENTS.md; set `recovery_params.er_threshold` to Δ for that variant]. The
//! synchronisation packets themselves are not modelled. Any other `transport.recovery` can be
//! chosen.
//!
//! Knobs (`[transport]` fields): `paths` (VPs, default 64 \[GUESS: the paper draws source ports
//! from a large range]), `delta` (Δ, 32), `bitmap` (L, 64), `explore_prob` (0.01), `grow_explore` (true),
//! `init_cwnd` (packets; default one BDP of the flow), `min_cwnd` (1), `max_cwnd` (packets,
//! 100 000), `loss_md` (0.5). The ECN marking thresholds are the network's (`network.kmin`, …;
//! the HPCC ns-3 defaults, as for DCQCN \[GUESS]).

use std::collections::VecDeque;

use braid_core::{PacketKind, Rng, Time};

use super::baseline_util::{entropy_base, recovery_or_native};
use super::knobs::Knobs;
use super::{AckIn, FlowEnv, SenderOps, Transport, TransportConfig, TxPacket, MAX_PATHS};
use crate::cc::CcKind;
use crate::recovery::{RecoveryConfig, RecoveryKind, TimerFired};
use crate::transport::sender_core::SenderCore;

/// Parameters of an MP-RDMA sender (see the module docs).
#[derive(Clone, Debug)]
pub struct MprdmaConfig {
    /// Number of virtual paths (UDP source ports).
    pub paths: u32,
    /// OOD pruning threshold Δ, packets.
    pub delta: u32,
    /// Receiver bitmap length L, packets (the default early-recovery threshold).
    pub bitmap: u32,
    /// Probability that a clocked packet explores a random VP (at most once per RTT).
    pub explore_prob: f64,
    /// The second packet an ACK clocks out (the window grew) goes on a new random VP.
    pub grow_explore: bool,
    /// Initial window, packets (`None`: one BDP of the flow).
    pub init_cwnd: Option<f64>,
    /// Smallest window, packets.
    pub min_cwnd: f64,
    /// Largest window, packets.
    pub max_cwnd: f64,
    /// Window factor applied once per loss episode.
    pub loss_md: f64,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
    /// Header bytes per packet on the wire (for pacing bookkeeping only).
    pub header_bytes: u32,
}

impl MprdmaConfig {
    /// MP-RDMA's default parameters, with its native loss recovery (early recovery at the bitmap
    /// length); `header_bytes` per packet on the wire.
    pub fn defaults(header_bytes: u32) -> MprdmaConfig {
        MprdmaConfig {
            paths: 64,
            delta: 32,
            bitmap: 64,
            explore_prob: 0.01,
            grow_explore: true,
            init_cwnd: None,
            min_cwnd: 1.0,
            max_cwnd: 100_000.0,
            loss_md: 0.5,
            recovery: RecoveryConfig::new(RecoveryKind::EarlyRecovery),
            header_bytes,
        }
    }

    /// The scenario's loss recovery `given` over MP-RDMA's native one (early recovery at the bitmap
    /// length), after checking that the window bounds are consistent.
    pub fn with_recovery(mut self, given: &RecoveryConfig) -> Result<MprdmaConfig, String> {
        if self.min_cwnd > self.max_cwnd {
            return Err(format!(
                "the smallest window ({} packets) exceeds the largest ({} packets)",
                self.min_cwnd, self.max_cwnd
            ));
        }
        let mut native = RecoveryConfig::new(RecoveryKind::EarlyRecovery);
        native.er_threshold = self.bitmap;
        self.recovery = recovery_or_native(given, native);
        Ok(self)
    }
}

/// An MP-RDMA flow's sender (see the module docs).
#[derive(Clone, Debug)]
pub struct MprdmaSender {
    cfg: MprdmaConfig,
    pub(crate) core: SenderCore,
    line_bps: u64,
    base: u16,
    start: Time,
    cwnd: f64,
    /// VPs clocked by ACKs, waiting for their packet to go.
    clocked: VecDeque<u16>,
    /// Packets that may go on random VPs (first window, restarts).
    random_budget: u32,
    max_acked_psn: Option<u32>,
    last_explore: Option<Time>,
    last_recoveries: u64,
    /// The window before the RTO whose verdict is open, restored if it proves spurious.
    cwnd_before_rto: Option<f64>,
    rng: Rng,
    late_acks: u64,
    explorations: u64,
}

impl MprdmaSender {
    fn wnd(&self) -> u32 {
        self.cwnd as u32
    }

    fn random_vp(&mut self) -> u16 {
        self.rng.below(self.cfg.paths as u64) as u16
    }

    /// Whether something may be sent now (window open and a VP available).
    fn sendable(&self) -> bool {
        if !self.core.rec.has_data() || self.core.rec.outstanding() >= self.wnd() {
            return false;
        }
        !self.clocked.is_empty() || self.random_budget > 0 || self.core.rec.outstanding() == 0
    }

    /// The window in packets.
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    /// ACKs that were too late (OOD ≥ Δ) to clock out packets.
    pub fn late_acks(&self) -> u64 {
        self.late_acks
    }
    /// Clocked packets that explored a random VP.
    pub fn explorations(&self) -> u64 {
        self.explorations
    }
    /// The parameters in use.
    pub fn config(&self) -> &MprdmaConfig {
        &self.cfg
    }
}

impl Transport for MprdmaSender {
    const NAME: &'static str = "mprdma";

    const KNOBS: &'static [&'static str] = &[
        "paths",
        "delta",
        "bitmap",
        "explore_prob",
        "grow_explore",
        "init_cwnd",
        "min_cwnd",
        "max_cwnd",
        "loss_md",
    ];

    type Config = MprdmaConfig;

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::EarlyRecovery
    }

    fn cc_name(_configured: CcKind) -> &'static str {
        "mprdma-ecn-window"
    }

    fn read_config(tc: &TransportConfig) -> Result<MprdmaConfig, String> {
        let k = Knobs::new("mprdma", &tc.params, Self::KNOBS)?;
        let d = MprdmaConfig::defaults(tc.header_bytes);
        let c = MprdmaConfig {
            delta: k.u32_in("delta", d.delta, 1, 1 << 20)?,
            bitmap: k.u32_in("bitmap", d.bitmap, 1, 1 << 24)?,
            paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
            explore_prob: k.f64_in("explore_prob", d.explore_prob, 0.0, 1.0)?,
            grow_explore: k.bool("grow_explore", d.grow_explore)?,
            init_cwnd: k.opt_f64_in("init_cwnd", 1.0, 1e7)?.or(d.init_cwnd),
            min_cwnd: k.f64_in("min_cwnd", d.min_cwnd, 1.0, 1e7)?,
            max_cwnd: k.f64_in("max_cwnd", d.max_cwnd, 1.0, 1e9)?,
            loss_md: k.f64_in("loss_md", d.loss_md, 0.0, 1.0)?,
            ..d
        };
        c.with_recovery(&tc.recovery)
            .map_err(|e| format!("`transport.min_cwnd`, `transport.max_cwnd`: {e}"))
    }

    /// A sender for one flow.
    fn new(cfg: &MprdmaConfig, env: &FlowEnv) -> Result<MprdmaSender, String> {
        let cfg = cfg.clone();
        env.cc.check()?;
        let core = SenderCore::for_env(env, RecoveryConfig { hole_first: true, ..cfg.recovery })?;
        let mtu = core.mtu_bytes();
        let bdp_pkts = (env.cc.bdp_bytes() as f64 / mtu as f64).ceil().max(1.0);
        let cwnd = cfg.init_cwnd.unwrap_or(bdp_pkts).clamp(cfg.min_cwnd, cfg.max_cwnd);
        Ok(MprdmaSender {
            core,
            line_bps: env.cc.line_rate.bps(),
            base: entropy_base(env.entropy, cfg.paths),
            start: env.start,
            cwnd,
            clocked: VecDeque::with_capacity(cwnd as usize + 4),
            random_budget: cwnd as u32,
            max_acked_psn: None,
            last_explore: None,
            last_recoveries: 0,
            cwnd_before_rto: None,
            rng: Rng::new(env.seed),
            late_acks: 0,
            explorations: 0,
            cfg,
        })
    }
}

impl SenderOps for MprdmaSender {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    /// The flow starts at `now` (see [`crate::transport::Sender::begin`]).
    fn begin(&mut self, now: Time) {
        self.start = now;
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.start || !self.sendable() {
            return None;
        }
        let (psn, retx) = self.core.rec.next_psn()?;
        let vp = if let Some(vp) = self.clocked.pop_front() {
            vp
        } else if self.random_budget > 0 {
            self.random_budget -= 1;
            self.random_vp()
        } else {
            // Restart: nothing outstanding and nothing clocked.
            self.random_budget = self.wnd().saturating_sub(1);
            self.random_vp()
        };
        Some(self.core.send_data(now, psn, retx, vp, self.base + vp))
    }

    /// Its window and clocking tests are state: an answer stands until the next input.
    fn send_time_is_stable(&self) -> bool {
        true
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if self.sendable() {
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
        let was_retx = self.core.rec.tx_count(ack.psn) > 1;
        let late = !was_retx
            && self.max_acked_psn.is_some_and(|m| ack.psn.saturating_add(self.cfg.delta) <= m);
        let sum = self.core.rec.on_ack(now, ack);
        if sum.spurious_rto {
            if let Some(w) = self.cwnd_before_rto.take() {
                self.cwnd = self.cwnd.max(w);
            }
        } else if sum.advanced {
            self.cwnd_before_rto = None;
        }
        if !ack.rx_buffer_full {
            self.max_acked_psn = Some(self.max_acked_psn.map_or(ack.psn, |m| m.max(ack.psn)));
        }
        // Window.
        if ack.ecn {
            self.cwnd -= 0.5;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
        let st = self.core.rec.stats();
        if st.recoveries > self.last_recoveries {
            self.cwnd *= self.cfg.loss_md;
        }
        self.last_recoveries = st.recoveries;
        self.cwnd = self.cwnd.clamp(self.cfg.min_cwnd, self.cfg.max_cwnd);
        let w = self.wnd() as usize;
        while self.clocked.len() > w {
            self.clocked.pop_front();
        }
        if late {
            self.late_acks += 1;
            return;
        }
        if ack.rx_buffer_full || (ack.path as u32) >= self.cfg.paths {
            return;
        }
        // ACK clocking: up to two packets on the VP this ACK came from.
        let used = self.core.rec.outstanding() as i64
            + self.clocked.len() as i64
            + self.random_budget as i64;
        let awnd = (self.wnd() as i64 - used).clamp(0, 2);
        for k in 0..awnd {
            let srtt = self.core.rec.srtt().unwrap_or(Time::ZERO);
            let may_explore = self.last_explore.is_none_or(|t| now >= t + srtt);
            let vp = if k == 1 && self.cfg.grow_explore {
                // The window grew by a packet: the extra packet explores a new VP.
                self.explorations += 1;
                self.random_vp()
            } else if may_explore && self.rng.bernoulli(self.cfg.explore_prob) {
                self.last_explore = Some(now);
                self.explorations += 1;
                self.random_vp()
            } else {
                ack.path
            };
            self.clocked.push_back(vp);
        }
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time> {
        self.core.rec.poll_timeout()
    }

    /// See [`crate::transport::Sender::on_timeout`].
    fn on_timeout(&mut self, now: Time) {
        if self.core.rec.on_timeout(now) == TimerFired::Rto {
            self.cwnd_before_rto.get_or_insert(self.cwnd);
            self.cwnd = (self.cwnd * self.cfg.loss_md).clamp(self.cfg.min_cwnd, self.cfg.max_cwnd);
            // Restart the clock: the resent packets go on random VPs.
            self.clocked.clear();
            self.random_budget = self.wnd();
        }
        self.last_recoveries = self.core.rec.stats().recoveries;
    }

    /// The window in bytes.
    fn window_bytes(&self) -> u64 {
        (self.cwnd * self.core.msg.mtu_bytes as f64) as u64
    }

    /// Line rate (MP-RDMA is window-clocked, not paced).
    fn rate_bps(&self) -> u64 {
        self.line_bps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{SenderOps, Transport};

    fn env() -> FlowEnv {
        crate::transport::test_env(1_000_000, 7)
    }

    fn resolved(c: MprdmaConfig) -> MprdmaConfig {
        c.with_recovery(&RecoveryConfig::new(RecoveryKind::EarlyRecovery)).unwrap()
    }

    fn ack(tx: &TxPacket, cum: u32, ecn: bool, sent: Time) -> AckIn<'static> {
        let kind = if cum > tx.psn { PacketKind::Ack } else { PacketKind::Nak };
        AckIn { ecn, ..AckIn::plain(kind, tx.psn, cum, tx.path, sent, 2) }
    }

    #[test]
    fn first_window_then_ack_clocking_on_the_same_vp() {
        let cfg =
            resolved(MprdmaConfig { init_cwnd: Some(4.0), paths: 8, ..MprdmaConfig::defaults(48) });
        assert_eq!(cfg.recovery.kind, RecoveryKind::EarlyRecovery);
        assert_eq!(cfg.recovery.er_threshold, 64);
        let mut s = MprdmaSender::new(&cfg, &env()).unwrap();
        let t0 = Time::ZERO;
        let sent: Vec<TxPacket> = (0..4).map(|_| s.poll_transmit(t0).unwrap()).collect();
        assert!(s.poll_transmit(t0).is_none(), "window of 4");
        assert_eq!(s.next_send_time(t0), Time::MAX);
        for tx in &sent {
            assert!(tx.path < 8);
            assert_eq!(tx.entropy, s.base + tx.path);
        }
        // ACK of PSN 0 (no ECN): cwnd 4.25, one slot frees → one packet, on the same VP.
        s.on_ack(Time::from_us(10), &ack(&sent[0], 1, false, t0));
        let tx = s.poll_transmit(Time::from_us(10)).unwrap();
        assert_eq!(tx.path, sent[0].path);
        assert!(s.poll_transmit(Time::from_us(10)).is_none());
        // ECN-marked ACK: cwnd − 0.5 → 3.75 → floor 3; with 3 outstanding nothing is clocked.
        s.on_ack(Time::from_us(11), &ack(&sent[1], 2, true, t0));
        assert!((s.cwnd() - 3.75).abs() < 1e-9, "{}", s.cwnd());
        assert!(s.poll_transmit(Time::from_us(11)).is_none());
    }

    #[test]
    fn late_acks_clock_nothing() {
        let cfg = resolved(MprdmaConfig {
            init_cwnd: Some(20.0),
            delta: 4,
            explore_prob: 0.0,
            ..MprdmaConfig::defaults(48)
        });
        let mut s = MprdmaSender::new(&cfg, &env()).unwrap();
        let t0 = Time::ZERO;
        let sent: Vec<TxPacket> = (0..20).map(|_| s.poll_transmit(t0).unwrap()).collect();
        // PSN 10 arrives first (OOD), then PSN 1: 1 + 4 ≤ 10 → late, nothing clocked.
        s.on_ack(Time::from_us(5), &ack(&sent[10], 0, false, t0));
        let n_after_10 = std::iter::from_fn(|| s.poll_transmit(Time::from_us(5))).count();
        assert!(n_after_10 >= 1);
        s.on_ack(Time::from_us(6), &ack(&sent[1], 0, false, t0));
        assert_eq!(s.late_acks(), 1);
        assert!(s.poll_transmit(Time::from_us(6)).is_none());
    }
}
