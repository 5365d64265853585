//! Falcon (Singhvi et al., SIGCOMM'25) as the Rondo paper describes the baseline (§6
//! "Baselines": "a per-path Swift-like congestion control, adjusting its window according to the
//! path's RTT. It transmits packets on the path with the maximum available window. It uses PLB
//! to remap persistently congested paths, a NIC congestion window to avoid buffer exhaustion and
//! per-path RACK-TLP for loss recovery"). Details: the Falcon paper plus
//! the defaults of Google's public Falcon simulator Isekai (`docs/baselines.md`, Falcon and Swift).
//!
//! **Paths.** A connection has `paths` logical paths (flow labels; default 4, the paper's Gen2
//! degree of multipathing). Path `i` starts on UDP source port `base + i` (see
//! `baseline_util`); PLB may move it to another port.
//!
//! **Per-path fabric window.** One [`Swift`] per path (the crate's Swift, as in htsim), fed with
//! the RTT of that path's ACKs. Defaults are Swift's with Isekai's window bounds: `max_cwnd` 256
//! MSS, flow scaling up to `fs_max` = 256 packets, and an initial window of one BDP split evenly
//! over the paths \[GUESS: the initial per-path window is not published]. With `transport.cc =
//! "swift"`, `transport.cc_params` override these per-path Swift knobs.
//!
//! **NIC window (receiver backpressure).** A per-connection window `ncwnd` (packets, Isekai:
//! 1–256, `ai` 1, `β` 0.8, max MD 0.5) updated Swift-like on the receiver's reorder occupancy:
//! the ACK's `ood` (the flow's out-of-order degree at the receiver when the packet arrived, Braid's
//! stand-in for Falcon's quantised RX-buffer level) against `ncwnd_target` packets: below target
//! `ncwnd += ai/ncwnd`; above, at most once per smoothed RTT,
//! `ncwnd ← ncwnd · max(1 − β(occ − target)/occ, 1 − max_md)`. A NAK saying the receiver's shared
//! reorder buffer was full cuts `ncwnd` by `max_md` (at most once per RTT). \[GUESS: Isekai's
//! "target level 15" is on a quantised scale Isekai does not publish; `ncwnd_target` defaults to
//! one BDP in packets (NIC line rate × the network's largest base RTT, at least 8), the size of the
//! shared reorder buffer Falcon provisions per the Rondo paper (§6.2.5, footnote 4).]
//!
//! **Limits.** `inflight_p < fcwnd_p` on each path and `Σ inflight < min(Σ fcwnd_p, ncwnd)`.
//! A path whose Swift window is below one MSS is paced at Swift's rate.
//!
//! **Path selection.** `path_select = "max-window"` (default, the paper): the path with the
//! largest open window `fcwnd_p − inflight_p`; `"wrr"`: Isekai Gen2's fcwnd-weighted round robin
//! (smooth weighted round robin over the paths with an open window). Retransmissions use the path
//! of the original if its window is open (`retx_same_path`, default on), else the selected path.
//!
//! **PLB** (`plb`, default on; Isekai knobs): per path, a round lasts one smoothed RTT of that
//! path; it is congested when at least `plb_congested_frac` (0.5) of its ACKs had an RTT above
//! `plb_target_mult` (1.01) × the Swift target; after `plb_rounds` (5) congested rounds in a row
//! the path moves to a random UDP source port in the ephemeral range.
//!
//! **Loss recovery.** Per-path RACK-TLP (`rack-tlp-per-path`, reorder window 0.25 RTT, TLP at
//! 1.1 SRTT) with an RTO of at least 250 µs (Isekai), unless `transport.recovery` names another
//! scheme. A RACK loss applies Swift's fast-retransmit decrease to the path of each lost packet;
//! an RTO applies Swift's RTO reaction to every path with packets outstanding.

use braid_core::{PacketKind, Rng, Time};

use super::baseline_util::{entropy_base, recovery_or_native};
use super::knobs::Knobs;
use super::{AckIn, FlowEnv, SenderOps, Transport, TransportConfig, TxPacket, MAX_PATHS};
use crate::cc::{AckEvent, CcEnv, CcKind, CongestionControl, Swift, SwiftConfig};
use crate::recovery::{RecoveryConfig, RecoveryKind, TimerFired};
use crate::transport::sender_core::SenderCore;

/// How Falcon picks a path for each packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSelect {
    /// The path with the largest open window (the paper).
    MaxWindow,
    /// fcwnd-weighted round robin (Isekai Gen2).
    WeightedRoundRobin,
}

/// Parameters of a Falcon sender (see the module docs).
#[derive(Clone, Debug)]
pub struct FalconConfig {
    /// Logical paths per connection.
    pub paths: u32,
    /// Path selection.
    pub select: PathSelect,
    /// Retransmit on the original path when its window is open.
    pub retx_same_path: bool,
    /// Swift knob overrides for every path (from `transport.cc_params` when `cc = "swift"`).
    pub swift_overrides: Vec<(String, braid_core::Knob)>,
    /// Initial NIC window, packets (`None`: `ncwnd_max`).
    pub ncwnd_init: Option<f64>,
    /// Smallest NIC window, packets.
    pub ncwnd_min: f64,
    /// Largest NIC window, packets.
    pub ncwnd_max: f64,
    /// Target receiver occupancy (OOD), packets (`None`: one BDP at the NIC's line rate and the
    /// network's largest base RTT).
    pub ncwnd_target: Option<f64>,
    /// NIC window additive increase, packets per RTT.
    pub ncwnd_ai: f64,
    /// NIC window decrease gain.
    pub ncwnd_beta: f64,
    /// Largest NIC window decrease per event.
    pub ncwnd_max_md: f64,
    /// PLB on.
    pub plb: bool,
    /// Consecutive congested rounds before a repath.
    pub plb_rounds: u32,
    /// Fraction of a round's ACKs above target that makes it congested.
    pub plb_congested_frac: f64,
    /// ACKs with RTT above this multiple of the Swift target count as congested.
    pub plb_target_mult: f64,
    /// Loss recovery.
    pub recovery: RecoveryConfig,
}

impl FalconConfig {
    /// Falcon's default parameters (no Swift overrides), with its native loss recovery
    /// (per-path RACK-TLP, RTO at least 250 µs).
    pub fn defaults() -> FalconConfig {
        FalconConfig {
            paths: 4,
            select: PathSelect::MaxWindow,
            retx_same_path: true,
            swift_overrides: Vec::new(),
            ncwnd_init: None,
            ncwnd_min: 1.0,
            ncwnd_max: 256.0,
            ncwnd_target: None,
            ncwnd_ai: 1.0,
            ncwnd_beta: 0.8,
            ncwnd_max_md: 0.5,
            plb: true,
            plb_rounds: 5,
            plb_congested_frac: 0.5,
            plb_target_mult: 1.01,
            recovery: Self::native_recovery(),
        }
    }

    fn native_recovery() -> RecoveryConfig {
        let mut native = RecoveryConfig::new(RecoveryKind::RackTlpPerPath);
        native.rto_min = Time::from_us(250);
        native
    }

    /// The scenario's loss recovery `given` over Falcon's native one, after checking that the NIC
    /// window bounds are consistent.
    pub fn with_recovery(mut self, given: &RecoveryConfig) -> Result<FalconConfig, String> {
        if self.ncwnd_min > self.ncwnd_max {
            return Err(format!(
                "the smallest NIC window ({} packets) exceeds the largest ({} packets)",
                self.ncwnd_min, self.ncwnd_max
            ));
        }
        self.recovery = recovery_or_native(given, Self::native_recovery());
        Ok(self)
    }

    /// The Swift configuration of one path.
    fn swift_config(&self, env: &CcEnv) -> Result<SwiftConfig, String> {
        let mss = env.mtu_bytes.max(1) as u64;
        let mut s = SwiftConfig::defaults_for(env);
        s.max_cwnd = 256 * mss;
        s.fs_max = 256.0;
        s.init_cwnd = (env.bdp_bytes() / self.paths as u64).max(mss);
        for (k, v) in &self.swift_overrides {
            s.apply_knob(k, v).map_err(|e| format!("`transport.cc_params.{k}`: {e}"))?;
        }
        s.check()?;
        Ok(s)
    }
}

#[derive(Clone, Debug)]
struct Path {
    swift: Swift,
    entropy: u16,
    next_tx: Time,
    /// Smooth-WRR running weight.
    wrr: f64,
    round_start: Time,
    round_acks: u32,
    round_congested: u32,
    congested_rounds: u32,
}

/// A Falcon connection's sender (see the module docs).
#[derive(Clone, Debug)]
pub struct FalconSender {
    cfg: FalconConfig,
    pub(crate) core: SenderCore,
    line_bps: u64,
    start: Time,
    paths: Vec<Path>,
    ncwnd: f64,
    ncwnd_target: f64,
    last_ncwnd_cut: Option<Time>,
    rr: usize,
    touched: Vec<bool>,
    rng: Rng,
    repaths: u64,
}

impl FalconSender {
    /// Open window of path `i` in bytes (may be negative).
    fn open(&self, i: usize) -> f64 {
        self.paths[i].swift.window_bytes() as f64
            - self.core.rec.path_outstanding(i as u16) as f64 * self.core.msg.mtu_bytes as f64
    }

    fn total_window_bytes(&self) -> f64 {
        let f: f64 = self.paths.iter().map(|p| p.swift.window_bytes() as f64).sum();
        f.min(self.ncwnd * self.core.msg.mtu_bytes as f64)
    }

    fn connection_open(&self) -> bool {
        (self.core.rec.outstanding() as f64) * (self.core.msg.mtu_bytes as f64)
            < self.total_window_bytes()
    }

    /// The path to send on now, if any.
    fn pick(&mut self, now: Time, retx_of: Option<u16>) -> Option<usize> {
        if let (true, Some(p)) = (self.cfg.retx_same_path, retx_of) {
            let p = p as usize;
            if p < self.paths.len() && self.open(p) > 0.0 && self.paths[p].next_tx <= now {
                return Some(p);
            }
        }
        let n = self.paths.len();
        match self.cfg.select {
            PathSelect::MaxWindow => {
                let mut best: Option<(usize, f64)> = None;
                for k in 0..n {
                    let i = (self.rr + k) % n;
                    let o = self.open(i);
                    if o > 0.0 && self.paths[i].next_tx <= now && best.is_none_or(|(_, b)| o > b) {
                        best = Some((i, o));
                    }
                }
                let i = best?.0;
                self.rr = (i + 1) % n;
                Some(i)
            }
            PathSelect::WeightedRoundRobin => {
                let mut total = 0.0;
                let mut best: Option<usize> = None;
                for i in 0..n {
                    if self.open(i) > 0.0 && self.paths[i].next_tx <= now {
                        let w = self.paths[i].swift.window_bytes() as f64;
                        self.paths[i].wrr += w;
                        total += w;
                        if best.is_none_or(|b| self.paths[i].wrr > self.paths[b].wrr) {
                            best = Some(i);
                        }
                    }
                }
                let i = best?;
                self.paths[i].wrr -= total;
                Some(i)
            }
        }
    }

    fn any_path_ready(&self, now: Time) -> Option<Time> {
        let mut t: Option<Time> = None;
        for (i, p) in self.paths.iter().enumerate() {
            if self.open(i) > 0.0 {
                let ti = p.next_tx.max(now);
                t = Some(t.map_or(ti, |x: Time| x.min(ti)));
            }
        }
        t
    }

    /// Swift window of path `i`, bytes.
    pub fn path_cwnd(&self, i: usize) -> f64 {
        self.paths[i].swift.cwnd()
    }
    /// NIC window, packets.
    pub fn ncwnd(&self) -> f64 {
        self.ncwnd
    }
    /// UDP source port path `i` currently uses.
    pub fn path_entropy(&self, i: usize) -> u16 {
        self.paths[i].entropy
    }
    /// PLB repaths so far.
    pub fn repaths(&self) -> u64 {
        self.repaths
    }
    /// The parameters in use.
    pub fn config(&self) -> &FalconConfig {
        &self.cfg
    }
}

impl Transport for FalconSender {
    const NAME: &'static str = "falcon";

    const KNOBS: &'static [&'static str] = &[
        "paths",
        "path_select",
        "retx_same_path",
        "ncwnd_init",
        "ncwnd_min",
        "ncwnd_max",
        "ncwnd_target",
        "ncwnd_ai",
        "ncwnd_beta",
        "ncwnd_max_md",
        "plb",
        "plb_rounds",
        "plb_congested_frac",
        "plb_target_mult",
    ];

    type Config = FalconConfig;

    fn default_cc() -> CcKind {
        CcKind::Swift
    }

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::RackTlpPerPath
    }

    fn read_config(tc: &TransportConfig) -> Result<FalconConfig, String> {
        let k = Knobs::new("falcon", &tc.params, Self::KNOBS)?;
        let swift_overrides = if tc.cc.kind == CcKind::Swift {
            tc.cc.overrides.clone()
        } else if tc.cc.overrides.is_empty() {
            Vec::new()
        } else {
            return Err(format!(
                "`transport.cc_params`: transport `falcon` runs Swift on each path; set `transport.cc = \"swift\"` to tune it (got `{}`)",
                tc.cc.kind.name()
            ));
        };
        let d = FalconConfig::defaults();
        let c = FalconConfig {
            paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
            select: match k.choice("path_select", &["max-window", "wrr"])? {
                "wrr" => PathSelect::WeightedRoundRobin,
                _ => PathSelect::MaxWindow,
            },
            retx_same_path: k.bool("retx_same_path", d.retx_same_path)?,
            swift_overrides,
            ncwnd_init: k.opt_f64_in("ncwnd_init", 1.0, 1e7)?.or(d.ncwnd_init),
            ncwnd_min: k.f64_in("ncwnd_min", d.ncwnd_min, 0.01, 1e7)?,
            ncwnd_max: k.f64_in("ncwnd_max", d.ncwnd_max, 1.0, 1e7)?,
            ncwnd_target: k.opt_f64_in("ncwnd_target", 0.0, 1e9)?.or(d.ncwnd_target),
            ncwnd_ai: k.f64_in("ncwnd_ai", d.ncwnd_ai, 0.0, 1e6)?,
            ncwnd_beta: k.f64_in("ncwnd_beta", d.ncwnd_beta, 0.0, 1.0)?,
            ncwnd_max_md: k.f64_in("ncwnd_max_md", d.ncwnd_max_md, 0.0, 1.0)?,
            plb: k.bool("plb", d.plb)?,
            plb_rounds: k.u32_in("plb_rounds", d.plb_rounds, 1, 1 << 20)?,
            plb_congested_frac: k.f64_in("plb_congested_frac", d.plb_congested_frac, 0.0, 1.0)?,
            plb_target_mult: k.f64_in("plb_target_mult", d.plb_target_mult, 0.0, 1e6)?,
            ..d
        };
        c.with_recovery(&tc.recovery)
            .map_err(|e| format!("`transport.ncwnd_min`, `transport.ncwnd_max`: {e}"))
    }

    /// A sender for one flow.
    fn new(cfg: &FalconConfig, env: &FlowEnv) -> Result<FalconSender, String> {
        let cfg = cfg.clone();
        env.cc.check()?;
        let core = SenderCore::for_env(env, RecoveryConfig { hole_first: true, ..cfg.recovery })?;
        let mtu = core.mtu_bytes();
        let sc = cfg.swift_config(&env.cc)?;
        let base = entropy_base(env.entropy, cfg.paths);
        let paths = (0..cfg.paths)
            .map(|i| Path {
                swift: Swift::new(sc.clone(), &env.cc),
                entropy: base + i as u16,
                next_tx: env.start,
                wrr: 0.0,
                round_start: env.start,
                round_acks: 0,
                round_congested: 0,
                congested_rounds: 0,
            })
            .collect();
        let ncwnd = cfg.ncwnd_init.unwrap_or(cfg.ncwnd_max).clamp(cfg.ncwnd_min, cfg.ncwnd_max);
        Ok(FalconSender {
            core,
            line_bps: env.cc.line_rate.bps(),
            start: env.start,
            paths,
            ncwnd,
            ncwnd_target: cfg.ncwnd_target.unwrap_or(
                (env.cc.line_rate.bdp_bytes(env.cc.max_rtt) as f64 / mtu as f64).ceil().max(8.0),
            ),
            last_ncwnd_cut: None,
            rr: 0,
            touched: vec![false; cfg.paths as usize],
            rng: Rng::new(env.seed),
            repaths: 0,
            cfg,
        })
    }
}

impl SenderOps for FalconSender {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    fn cc_kind(&self) -> Option<CcKind> {
        Some(CcKind::Swift)
    }

    /// The flow starts at `now` (see [`crate::transport::Sender::begin`]): pacing and Swift's
    /// rounds run from `now`.
    fn begin(&mut self, now: Time) {
        if now == self.start {
            return;
        }
        self.start = now;
        for p in &mut self.paths {
            p.next_tx = now;
            p.round_start = now;
        }
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.start || !self.core.rec.has_data() || !self.connection_open() {
            return None;
        }
        let (psn, retx) = self.core.rec.next_psn()?;
        let orig = if retx { self.core.rec.sent_path(psn) } else { None };
        let Some(i) = self.pick(now, orig) else {
            self.core.rec.unget(psn, retx);
            return None;
        };
        self.core.rec.on_sent(now, psn, i as u16);
        let payload = self.core.payload_of(psn);
        let p = &mut self.paths[i];
        let rate = p.swift.rate();
        if rate.bps() < self.line_bps {
            p.next_tx = now + rate.tx_time(payload as u64);
        }
        let entropy = p.entropy;
        Some(self.core.data_packet(psn, retx, i as u16, entropy, payload))
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if !self.core.rec.has_data() || !self.connection_open() {
            return Time::MAX;
        }
        self.any_path_ready(now).map_or(Time::MAX, |t| t.max(self.start))
    }

    /// See [`crate::transport::Sender::on_ack`].
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        if !matches!(ack.kind, PacketKind::Ack | PacketKind::Nak) || ack.probe {
            return;
        }
        let newly_this = !ack.rx_buffer_full
            && !self.core.rec.is_acked(ack.psn)
            && self.core.rec.tx_count(ack.psn) > 0;
        let retx_before = self.core.rec.pending_retx().count();
        let sum = self.core.rec.on_ack(now, ack);
        let rtt = now.saturating_sub(ack.ts_sent);
        let mtu = self.core.msg.mtu_bytes as u64;
        // Per-path Swift and PLB.
        let pi = ack.path as usize;
        if pi < self.paths.len() {
            let ev = AckEvent {
                now,
                newly_acked_bytes: if newly_this { mtu } else { 0 },
                ack_seq_bytes: self.core.rec.una() as u64 * mtu,
                snd_nxt_bytes: self.core.rec.max_sent() as u64 * mtu,
                ecn: ack.ecn,
                rtt: Some(rtt),
                int: None,
                hops: ack.hops,
            };
            let p = &mut self.paths[pi];
            let target = p.swift.target_delay(p.swift.cwnd(), ack.hops);
            p.swift.on_ack(&ev);
            if self.cfg.plb {
                p.round_acks += 1;
                if rtt.ps() as f64 > self.cfg.plb_target_mult * target.ps() as f64 {
                    p.round_congested += 1;
                }
                if now >= p.round_start + p.swift.srtt() {
                    let congested = p.round_congested as f64
                        >= self.cfg.plb_congested_frac * p.round_acks as f64;
                    p.congested_rounds = if congested { p.congested_rounds + 1 } else { 0 };
                    p.round_start = now;
                    p.round_acks = 0;
                    p.round_congested = 0;
                    if p.congested_rounds >= self.cfg.plb_rounds {
                        p.congested_rounds = 0;
                        p.entropy = 49_152 + self.rng.below(16_384) as u16;
                        self.repaths += 1;
                    }
                }
            }
        }
        // RACK losses: fast-retransmit decrease on the path of each newly lost packet.
        if sum.loss {
            self.touched.iter_mut().for_each(|t| *t = false);
            for psn in self.core.rec.pending_retx().skip(retx_before) {
                if let Some(p) = self.core.rec.sent_path(psn) {
                    if let Some(t) = self.touched.get_mut(p as usize) {
                        *t = true;
                    }
                }
            }
            for (i, t) in self.touched.iter().enumerate() {
                if *t {
                    self.paths[i].swift.on_nak(now);
                }
            }
        }
        // NIC window from the receiver's reorder occupancy.
        let srtt = self.core.rec.srtt().unwrap_or(rtt);
        let can_cut = self.last_ncwnd_cut.is_none_or(|t| now >= t + srtt);
        let occ = ack.ood as f64;
        let prev = self.ncwnd;
        if ack.rx_buffer_full {
            if can_cut {
                self.ncwnd *= 1.0 - self.cfg.ncwnd_max_md;
            }
        } else if occ <= self.ncwnd_target {
            self.ncwnd += self.cfg.ncwnd_ai / self.ncwnd.max(1.0);
        } else if can_cut {
            let f = (1.0 - self.cfg.ncwnd_beta * (occ - self.ncwnd_target) / occ)
                .max(1.0 - self.cfg.ncwnd_max_md);
            self.ncwnd *= f;
        }
        self.ncwnd = self.ncwnd.clamp(self.cfg.ncwnd_min, self.cfg.ncwnd_max);
        if self.ncwnd < prev {
            self.last_ncwnd_cut = Some(now);
        }
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time> {
        self.core.rec.poll_timeout()
    }

    /// See [`crate::transport::Sender::on_timeout`].
    fn on_timeout(&mut self, now: Time) {
        self.touched
            .iter_mut()
            .enumerate()
            .for_each(|(i, t)| *t = self.core.rec.path_outstanding(i as u16) > 0);
        if self.core.rec.on_timeout(now) == TimerFired::Rto {
            for (i, t) in self.touched.iter().enumerate() {
                if *t {
                    self.paths[i].swift.on_rto(now);
                }
            }
        }
    }

    /// The connection's window in bytes: `min(Σ fcwnd_p, ncwnd)`.
    fn window_bytes(&self) -> u64 {
        self.total_window_bytes() as u64
    }

    /// Line rate (Falcon paces only paths whose window is below one MSS).
    fn rate_bps(&self) -> u64 {
        self.line_bps
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{SenderOps, Transport};
    use braid_core::Knob;

    fn env() -> FlowEnv {
        crate::transport::test_env(10_000_000, 3)
    }

    fn resolved(c: FalconConfig) -> FalconConfig {
        c.with_recovery(&RecoveryConfig::new(RecoveryKind::RackTlpPerPath)).unwrap()
    }

    fn ack(tx: &TxPacket, cum: u32, rtt: Time, now: Time, ood: u32) -> AckIn<'static> {
        AckIn {
            ts_rx: now,
            ood,
            ..AckIn::plain(PacketKind::Ack, tx.psn, cum, tx.path, now - rtt, 2)
        }
    }

    #[test]
    fn defaults_and_spread_over_paths() {
        let cfg = resolved(FalconConfig::defaults());
        assert_eq!(cfg.recovery.kind, RecoveryKind::RackTlpPerPath);
        assert_eq!(cfg.recovery.rto_min, Time::from_us(250));
        let mut s = FalconSender::new(&cfg, &env()).unwrap();
        // BDP 100 KB over 4 paths: 25 packets each, 100 in all; max-window spreads them evenly.
        let sent: Vec<TxPacket> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
        assert_eq!(sent.len(), 100);
        let mut per = [0; 4];
        for t in &sent {
            per[t.path as usize] += 1;
        }
        assert_eq!(per, [25, 25, 25, 25]);
        assert_eq!(s.path_entropy(1), s.path_entropy(0) + 1);
        assert_eq!(s.path_entropy(0) % 4, 0);
    }

    /// Drive a sender against per-path RTTs: every packet is acknowledged `rtt(path)` after it
    /// is sent, with the receiver's cumulative ACK. Returns packets sent per path after `warm`.
    fn drive(s: &mut FalconSender, rtt: impl Fn(u16) -> Time, steps: u64, warm: u64) -> Vec<u64> {
        let mut pending: std::collections::BTreeMap<(Time, u32), TxPacket> = Default::default();
        let mut got = vec![false; 1_000_001];
        let mut cum = 0u32;
        let mut per = vec![0u64; 4];
        for step in 0..steps {
            let now = Time::from_ns(step * 100);
            while let Some((&(t, k), _)) = pending.iter().next() {
                if t > now {
                    break;
                }
                let tx = pending.remove(&(t, k)).unwrap();
                got[tx.psn as usize] = true;
                while got[cum as usize] {
                    cum += 1;
                }
                let a = ack(&tx, cum, rtt(tx.path), t, 0);
                s.on_ack(t, &a);
            }
            while let Some(tx) = s.poll_transmit(now) {
                if step > warm {
                    per[tx.path as usize] += 1;
                }
                pending.insert((now + rtt(tx.path), tx.psn), tx);
            }
        }
        per
    }

    #[test]
    fn slow_path_window_shrinks_and_traffic_moves() {
        let cfg = resolved(FalconConfig { plb: false, ..FalconConfig::defaults() });
        let mut s =
            FalconSender::new(&cfg, &FlowEnv { size_bytes: 1_000_000_000, ..env() }).unwrap();
        // Path 3 has 40 µs of queueing, the others none.
        let per = drive(
            &mut s,
            |p| if p == 3 { Time::from_us(48) } else { Time::from_us(8) },
            20_000,
            10_000,
        );
        assert!(s.path_cwnd(3) < s.path_cwnd(0), "{} vs {}", s.path_cwnd(3), s.path_cwnd(0));
        assert!(per[3] * 2 < per[0], "{per:?}");
    }

    #[test]
    fn plb_repaths_a_persistently_congested_path() {
        let cfg = resolved(FalconConfig::defaults());
        let mut s =
            FalconSender::new(&cfg, &FlowEnv { size_bytes: 1_000_000_000, ..env() }).unwrap();
        let e3 = s.path_entropy(3);
        // Path 3's RTT stays above the Swift target for any window it can reach.
        drive(&mut s, |p| if p == 3 { Time::from_us(45) } else { Time::from_us(8) }, 60_000, 0);
        assert!(s.repaths() >= 1);
        assert_ne!(s.path_entropy(3), e3);
    }

    #[test]
    fn receiver_occupancy_shrinks_the_nic_window() {
        let cfg = resolved(FalconConfig {
            ncwnd_target: Some(8.0),
            plb: false,
            ..FalconConfig::defaults()
        });
        let mut s = FalconSender::new(&cfg, &env()).unwrap();
        let w0 = s.ncwnd();
        let tx = s.poll_transmit(Time::ZERO).unwrap();
        s.on_ack(Time::from_us(10), &ack(&tx, 0, Time::from_us(10), Time::from_us(10), 80));
        // occ 80 vs target 8: factor max(1 − 0.8·72/80, 0.5) = 0.5.
        assert!((s.ncwnd() - w0 * 0.5).abs() < 1e-9, "{}", s.ncwnd());
        // Within one RTT: no second cut.
        let tx = s.poll_transmit(Time::from_us(10)).unwrap();
        s.on_ack(Time::from_us(11), &ack(&tx, 0, Time::from_us(1), Time::from_us(11), 80));
        assert!((s.ncwnd() - w0 * 0.5).abs() < 1e-9);
        // The connection window follows ncwnd.
        assert!(s.window_bytes() <= (s.ncwnd() * 1000.0) as u64);
    }

    #[test]
    fn swift_overrides_reach_every_path() {
        let c = resolved(FalconConfig {
            swift_overrides: vec![("ai".into(), Knob::Float(2.0))],
            ..FalconConfig::defaults()
        });
        assert_eq!(c.swift_config(&CcEnv::reference_100g()).unwrap().ai, 2.0);
    }
}
