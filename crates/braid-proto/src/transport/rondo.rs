//! Rondo: packet spraying with controlled reordering (Zhang et al., arXiv 2611.04594), as a
//! sans-IO sender. `transport.kind = "rondo"`; round-robin spraying, the testbed baseline, is
//! [`rrps`] (`transport.kind = "rrps"`).
//!
//! What follows which part of the paper:
//! - **Logical paths** (§4.2, footnote 2): `paths` entropy values; path `p` uses UDP source port
//!   `(flow entropy & 0xFF00) + p`, so under `routing.kind = "entropy"` with a power-of-two number
//!   of next hops logical path `p` is physical path `p mod n` (the testbed's steering, §5).
//! - **ARCC** (§4.2.1, Appendix C.2; [`arcc`]): every `Tu` each path's ACK rate over the interval
//!   (data ACKs and probe ACKs, per packet) feeds an EWMA `r̂_p`; pipe `r̂_p·T_p`, own queue
//!   `Q_p = inflight_p − r̂_p·T_p`, delay `d_p = Q_p/r̂_p`; margin AIMD toward `τq` (`+q0/4` up to
//!   `q0`, or `×τq/d_p`); target `W*_p = r̂_p·T_p + q_p`; set directly on a large queue, else
//!   `W ← (1−γ)W + γW*`. Defaults §6.2.1: `Tu = 0.5·T`, `q0 = 3 MTU`, `τq = 0.04·max base RTT`
//!   (between DCs, of the flow's own RTT: [`RondoConfig::tau_q_reference`]),
//!   `α = 0.8`, `γ = 0.5`; `W0 = 4 MTU` per path with probing ([`DEFAULT_W0_PKTS`]) (one line-rate BDP over the paths without it: [`RondoConfig::w0`]).
//! - **One flow pacer** (§4.2.1): data leaves at most at `Σ_p W_p/T_p` (one packet every
//!   `1/rate`, at most one gap of catch-up); windows bound each path's inflight.
//! - **Capacity probing** (§4.2.2): MTU-sized [`PacketKind::Probe`] packets with the reserved PSN
//!   [`PROBE_PSN`], never retransmitted, sent whenever no data packet may go (window or pacer)
//!   while a path is in a probing phase, round robin over the probing paths, up to line rate but
//!   paced to at most the flow's unsent data packets per base RTT (`probe_rate`; see "Probing at
//!   long RTTs" below); the simulator queues them in the low-priority probe class with its small
//!   drop threshold. Probe ACKs count toward the path's ACK-rate sample (so into `r̂_p` and the
//!   window), and until the first update that includes probe ACKs each probe ACK raises the
//!   path's window by one packet ("one extra data packet per probe ACK"). Phases: at flow start
//!   on every path, and on a path after `probe_trigger` (5) consecutive updates in which every
//!   data packet sent on it at least `T_p` (+ slack) earlier was acknowledged; a phase lasts
//!   `probe_phase` (3) base RTTs. Probes are not goodput: they carry no application bytes and the
//!   receiver does not deliver them (the simulator counts them apart: `probes_sent`).
//! - **Deficit-based path selection** (§4.2.3): on every transmission the pacer allows,
//!   `O_p = max(0, W_p − inflight_p)`, `Z_p += O_p/ΣO` for every path with `O_p > 0`, send on the
//!   largest `Z_p`, `Z_p −= 1`. `path_selection = "random"` picks uniformly among open paths (the
//!   RPS ablation of Fig 21).
//! - **Packet scheduler** (§4.3, Eq 7, Appendix C.4): a data packet per path carries a timestamp
//!   request every `ts_interval` (`Tu/4`); the echo gives the forward delay `D_p = ts_rx − ts_sent`
//!   (EWMA, gain `delay_gain`) however late it comes back (a pending timestamp is given up only
//!   when a later packet of its path is answered first). While every path's last
//!   `stable_samples` (3) samples stayed within `stable_tol` (0.05 T) of its estimate, skips are
//!   recomputed on every update (before that, from arrival-aligned first samples; see below):
//!   `skip_p = ⌊Σ_{p'≠p} (W_p'/RTT_p')·max(D_p − D_p', 0)⌋`; a new-data transmission on `p`
//!   carries the `(skip_p + 1)`-th smallest unsent PSN ([`unsent::UnsentSet`]). Retransmissions
//!   go before new data and keep their PSN.
//! - **Loss recovery** (§2.2, §6.2.5): the shared [`Recovery`](crate::recovery::Recovery) — Early Recovery with a 4-packet
//!   threshold by default, per packet and confirmed on the packet's own path
//!   ([`RecoveryConfig::er_path_confirm`]; `er_mode = "per-packet"` for the paper's literal rule,
//!   `"episode"` for the shared episode form), or any selective scheme by
//!   `transport.recovery` — with its RTO backstop. The receiver side (per-packet ACKs with PSN and
//!   path, probe ACKs flagged, the NIC's shared reorder buffer, in-order delivery, NAKs on buffer
//!   overflow) is the simulator's, unchanged.
//!
//! Ambiguities and how they are resolved (EXPERIMENTS.md, section "Rondo", has the measurements):
//! - **Which side α weights** (`alpha_side`): read as the weight of the history,
//!   `r̂ ← 0.8·r̂ + 0.2·sample` ("smoothing parameter"); `"sample"` gives `r̂ ← 0.8·sample + 0.2·r̂`.
//!   In the fluid model (Prop 1, `arcc` tests) both converge to the fair share, the sample
//!   reading faster. In packet-level runs per-path ACK counts per `Tu` are small (32-to-1 incast
//!   over 4 paths: under one packet per interval) and the sample reading chases the noise: Fig 4
//!   at ΔD = 0 p99 OOD 6 vs 3 and 306 vs 368 Gb/s; Fig 17's incast is as fair either way (Jain
//!   0.998 vs 0.997) with a 1 % longer job (docs/rondo.md, "Readings Braid chose"). So the history
//!   reading is the default.
//! - **Base RTT `T` per path**: the paper's `T` is "derived from the topology". With paths of
//!   different delay (§6.1 heterogeneous test, Fig 4) one flow-wide `T` starves the slow path
//!   (`W = r̂·T + q` cannot sustain `r̂` once the path's RTT exceeds `T`), contradicting the
//!   68 Gb/s the paper measures. So `T_p` = the topology's base RTT of the flow + (smallest RTT
//!   seen on `p` − smallest RTT seen on any of the flow's paths): the persistent extra delay of a
//!   path is added, while a standing queue that every path crosses (a joiner arriving at a busy
//!   last hop) is not mistaken for propagation. `Tu` is per path too (`0.5·T_p`), so a long path
//!   is not corrected several times per round trip of its own feedback. `T_p` is never below the
//!   smallest RTT measured on `p`: the topology's figure is a hint, and a hint that is too short
//!   (every path of the flow longer than the driver knew) would hold `W*` below the pipe — the
//!   window, the ACK-rate sample and the probing trigger then starve together (a 4 MB flow took
//!   30 ms instead of 0.3 ms on the Clos with +20 µs on 5 % of fabric links). Overestimating
//!   `T_p` by a standing queue only keeps that queue; underestimating it starves the path.
//! - **"Large" queue for the direct update**: `d_p > fast_drain·τq` with `fast_drain = 2`. A literal
//!   reading would be "d_p above target"; the paper only says "large", and its proofs
//!   (Appendix C.2–C.3) assume the smoothed update in multiplicative-decrease epochs, which a
//!   threshold of 1 would never allow.
//! - **The ACK-rate sample** counts one packet per data ACK arriving on the path (per-packet
//!   ACKs), plus probe ACKs; a NAK of a packet dropped at the receiver's full reorder buffer does
//!   not count (the paper's "ACK rate"): counted, it held the window at the network's rate while
//!   the receiver discarded, and on Fig 14's incast with a 32 KB buffer and DCQCN background
//!   72,668 packets were dropped and resent (16,865 without it; JCT 8.99 → 5.53 ms). The first ACKs arrive mid-interval, so a path's first update measures from its first
//!   ACK (over at least `Tu/2`), keeping `W0` and the probe credits until then.
//! - **`inflight_p`** is the number of data copies sent on `p` after the latest copy whose ACK came
//!   back on `p` (a logical path is one FIFO route). Loss recovery's own count forgets a packet
//!   once it declares it lost; under reordering that declaration can be spurious and the old copy
//!   is still queued, so windows built on recovery's count let spurious retransmissions pile up
//!   data no window accounts for — a feedback loop (more queue, more reordering, more spurious
//!   retransmissions) seen on the testbed before this choice.
//! - **Probing trigger**: per path; "acknowledged" is checked with a slack of `probe_slack·τq`
//!   beyond `T_p` (default ½ τq), since ARCC keeps about `τq` of queue on a busy path and none on a
//!   path with spare capacity.
//! - **Probe credits** raise the window (not a one-shot send token), so the pacer counts them too;
//!   they end on the path's first update that includes probe ACKs, or with the phase.
//! - **Stability gate**: while a path's delay samples are unstable the previous skips stay in force
//!   rather than switching the scheduler off, so one outlier does not release the whole `R̄·ΔD` of
//!   reordering.
//! - **Before the gate first opens** (§4.3: "enables packet scheduling only after the
//!   forward-delay estimate remains stable for several consecutive samples"): read literally
//!   (`scheduler_start = "stable"`), skips are zero through the start-up, whose swinging queues
//!   keep the gate shut for ~10 RTTs — and the start-up's `R̄·ΔD` then sets the whole run's
//!   maximum OOD (four-path set-up, ΔD = 20 µs: 214 packets with the scheduler, 249 without). The
//!   default, `"first-samples"`, schedules from the first samples: the differences `D_p − D_q`
//!   are taken from samples that *arrived* at the receiver close together ([`aligned`]), which a
//!   queue every path shares does not move (at the start of an incast the first samples of
//!   identical paths differ by microseconds), data with data and probe with probe (probes carry a
//!   timestamp request, so a long path's first probe ACK gives its delay before its first data
//!   echo). A difference counts once it exceeds its pair's arrival gap. Skips follow each new
//!   pairing at once until the gate opens, from the first pair measured on (a path not yet
//!   compared is left out of the others' sums: its echo is later, so it is the slower one); a
//!   path with no data echo yet whose window reopens (cumulative ACKs carried back by faster
//!   paths) takes at least the skip its missing echo bounds ([`RondoSender`]'s
//!   `unmeasured_skip`). From the gate on, the EWMA estimates as before. Measured
//!   (EXPERIMENTS.md, Rondo under heterogeneity): four-path max OOD 68 / 31 / 55 / 99 at ΔD = 10 / 15 / 20 / 25 µs (132 / 188 /
//!   249 / 303 without the scheduler), 32-to-1 incast still 0, testbed +10 µs mean OOD 2.9 (4.9
//!   with `"stable"`).
//! - **Start-up probing on long paths** (§4.2.2, "at flow startup, each path starts with an
//!   initial window W0, and probes for additional capacity"): the phase lasts `probe_phase` ×
//!   (the hint + the path's excess RTT over the flow's best path), and does not end before the
//!   path's first data ACK — timed from the topology's hint alone, a path longer than the hint
//!   stopped probing before its first probe ACK returned. On a path more than twice the hint's
//!   length the first ARCC update that includes probe ACKs measures over one base RTT of the
//!   path, so the probe ACKs have clocked out about `r̂·T` of data (one extra packet each) before
//!   `W = r̂·T + q` is set: a shorter first sample made the window jump from
//!   `W0` to `W*` at once, a burst that all flows sharing the path made together (four-path
//!   set-up, +20 µs: a 226 KB queue on the slow path and 190 packets of OOD).
//! - **Probing at long RTTs** (`probe_rate = "unsent"`, default): the literal rule fills every
//!   denied send slot of a three-RTT phase with a probe, a line-rate BDP per RTT whatever the
//!   flow's size — harmless at µs RTTs, but between DCs a 1 MB flow sent 323,401 probes for its
//!   1,000 data packets. Each probe ACK stands for one data packet, so probes are paced to at most
//!   the unsent packets per base RTT (one every `T/unsent`). Paced rather than sent as a burst of
//!   that many: a burst measures the spare capacity of an instant, and on a shared inter-DC path
//!   the Web Search p99 slowdown was 27 instead of 6.8. `"line-rate"` keeps the literal rule.
//! - **Skips at inter-DC scale**: `max_skip` defaults to `max(4096, line-rate packets of the
//!   network's largest base RTT)` ([`RondoConfig::max_skip_pkts`]), so it never cuts `R·ΔD`
//!   (~60,000 packets at 100 Gb/s and 5 ms); the unsent-PSN selection is `O(log n)`
//!   ([`unsent::UnsentSet`]).
//! - **The tail** (Eq 7 asks for the `(skip_p + 1)`-th smallest unsent PSN): when fewer remain,
//!   path `p` takes no new data — every PSN left arrives earlier on a faster path, and the slow
//!   path could only carry the last one, late (an OOD of `R·ΔD` and a later finish at the end of
//!   every flow). Retransmissions still go on any open path.
//! - **Early Recovery**: §2.2 defines it per packet ("retransmits an unacknowledged packet when the
//!   gap between its PSN and the highest acknowledged PSN exceeds a fixed threshold"); the shared
//!   recovery's episode form resends every hole below the highest SACK, which under Rondo's
//!   residual reordering retransmits far more (EXPERIMENTS.md). The default, `er_mode =
//!   "per-path"`, adds one condition to the per-packet rule: a packet sent later *on the same
//!   logical path* has been delivered. A logical path is one FIFO route, so that delivery means
//!   loss, not reordering. Without it (`er_mode = "per-packet"`, the literal rule) every packet
//!   overtaken by more than 4 is resent, and the resent copies take the send opportunities the
//!   scheduler counted on for the lowest PSNs, which reorders the stream further: on the Clos
//!   with +20 µs on 5 % of fabric links, 64,000 of 1.28 M packets were resent, all spuriously
//!   (0 with the path condition), and on a homogeneous Clos permutation at 0.1 % loss 1.9 %
//!   (0.27 %; paper, Fig 16: 0.05 %). The loss-recovery delay is the same (16.4 vs 16.4 µs).
//! - **How many logical paths** (`paths`; the paper's prototype uses four, §5, and its
//!   simulations do not say): by default one per equal-cost physical path between the flow's
//!   two hosts, at least 4 and at most 64 (`paths = "auto"`, [`MAX_AUTO_PATHS`]): 16 between
//!   pods of the §6.2.1 Clos, 25–64 between pods of Fig 22's fat-trees (k = 10–16), 4 inside a
//!   pod and on the testbed. ARCC is fair per logical
//!   path (Prop 1), not per flow: four logical paths ECMP-hashed onto sixteen physical ones
//!   collide, and a flow whose paths met the hot links keeps a smaller share. Measured on the
//!   all-to-all of Fig 22 (k = 6, 8 peers per host): the slowest flow took 859 µs with 4 paths,
//!   816 with 8, 755 with 16 (UET's 64 entropies: 745); on the Clos permutation of Fig 10
//!   0.52 ms with 4, 0.50 with one per physical path, 0.40 with 16 everywhere (UET 0.38). More
//!   logical than physical paths cover them more evenly but raise the OOD where delays differ:
//!   the leaf-spine with one slow spine (4 physical paths) gave p99 OOD 75 / 136 / 202 with 4 /
//!   8 / 16 logical paths at about the same JCT. A number sets it (`paths = 4` keeps the
//!   prototype's); the cap under `"auto"` is fixed. It was 16 until 2026-12-03: on Fig 22's
//!   all-to-all (8 peers per host) a flow then used 16 of the 25–64 paths between pods, and the
//!   job took 771 / 817 / 865 / 856 µs at k = 10 / 12 / 14 / 16; with one logical path per
//!   physical path it takes 769 / 740 / 741 / 741 µs (NIC-level OOD p99 13–22 against 21–32).
//! - **`cc = "swift"`** (the "per-path Swift" ablation of Fig 21): each path runs
//!   [`crate::cc::Swift`] (initial window one flow BDP split over the paths) instead of ARCC; the
//!   pacer, path selection and scheduler are unchanged; probing is unavailable (it needs ARCC's
//!   capacity estimate) and Swift reacts to delay only (losses are left to recovery).
//!
//! Code layout, one mechanism per module: [`config`] (the knobs and their defaults), [`arcc`]
//! (the window update of one path), `sample` (the ACK-rate sample it takes), `probing` (one
//! path's probing phases and credits), `select` (deficit-based path selection), `pacer` (the flow
//! pacer), `scheduler` (Eq 7's skips), [`aligned`] (the arrival-aligned delay differences of the
//! start-up scheduler), [`unsent`] (the unsent PSNs the scheduler picks from); this file holds
//! the sender that drives them per packet and per update.
//!
//! Hot path: no allocation per packet in steady state (path state, rings and the unsent bitmap
//! are sized up front or grow once; `tests/proto/rondo_sansio.rs` counts allocations), no trait
//! objects; ARCC and the skips run once per path per `Tu`.

pub mod aligned;
pub mod arcc;
mod build;
pub mod config;
mod pacer;
mod paths;
mod probing;
pub mod rrps;
mod sample;
mod scheduler;
mod select;
pub mod unsent;
mod update;

pub use arcc::{AlphaSide, ArccParams, ArccPath};
pub use config::{
    Amount, PathSelection, RelTime, RondoConfig, AUTO_PATHS_PER_PHYSICAL, DEFAULT_W0_PKTS,
    MAX_AUTO_PATHS, MIN_AUTO_PATHS,
};
pub use rrps::{RrpsConfig, RrpsSender};

use std::collections::VecDeque;

use braid_core::{Knob, PacketKind, Rng, Time};

use crate::cc::{AckEvent, CcConfig, CcKind, CongestionControl, Swift, SwiftConfig};
use crate::recovery::{RecoveryConfig, RecoveryKind};
use crate::transport::sender_core::SenderCore;
use crate::transport::{AckIn, FlowEnv, SenderOps, Transport, TransportConfig, TxPacket};
use aligned::StartupDelays;
use pacer::FlowPacer;
use probing::PathProbing;
use sample::AckSample;
use select::{Deficits, OpenWindows};
use unsent::UnsentSet;

/// Most logical paths for which the start-up scheduler keeps its pairwise table (`n²` entries and
/// a ring of samples per path); with more, the scheduler starts at the stability gate.
const MAX_ALIGNED_PATHS: usize = 32;

/// The PSN every probe carries.
pub const PROBE_PSN: u32 = u32::MAX;

/// One logical path's state as reported for time series (`paths.csv`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathSample {
    /// Logical path index.
    pub path: u16,
    /// Window in bytes (probe credits included).
    pub window_bytes: u64,
    /// ACK-rate estimate `r̂_p` in bit/s of data-packet wire size.
    pub ack_rate_bps: u64,
    /// Data packets outstanding on the path.
    pub inflight_pkts: u32,
    /// Margin `q_p` in bytes.
    pub margin_bytes: u64,
    /// Smoothed forward delay (ns; relative to the receiver's clock).
    pub fwd_delay_ns: f64,
    /// The path's current skip.
    pub skip: u32,
    /// A probing phase is running on the path.
    pub probing: bool,
}

/// Counters of a Rondo sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RondoStats {
    /// Probe packets sent.
    pub probes_sent: u64,
    /// Probe ACKs received.
    pub probe_acks: u64,
    /// Probing phases started (the start-up phase counts once per path).
    pub probe_phases: u64,
    /// ARCC updates that used the direct (fast-drain) correction, over all paths.
    pub fast_drains: u64,
    /// New-data transmissions that skipped at least one unsent PSN.
    pub skipped_sends: u64,
    /// Window updates run (per flow, each covering every path).
    pub updates: u64,
}

#[derive(Clone, Debug)]
enum PathCc {
    Arcc(ArccPath),
    /// Boxed: Swift's state is four times ARCC's, and only the Fig 21 ablation uses it; inline,
    /// it sized every path of every flow (a million-flow all-to-all keeps 16 paths per flow).
    Swift(Box<Swift>),
}

#[derive(Clone, Debug)]
struct PathState {
    entropy: u16,
    cc: PathCc,
    /// ARCC's ACK-rate sample of the current interval.
    sample: AckSample,
    /// Base RTT `T_p` = topology base RTT + (`min_rtt` − the smallest `min_rtt` of the flow's
    /// paths): the persistent extra delay of this path over the best one, without any standing
    /// queue that all paths share — but never below `min_rtt` (see the module docs). Refreshed
    /// at every update.
    base_rtt: Time,
    /// Smallest RTT seen on the path (`Time::MAX` before the first sample).
    min_rtt: Time,
    /// Smoothed RTT.
    srtt_s: f64,
    rtt_seeded: bool,
    /// Capacity probing on this path.
    probe: PathProbing,
    /// Forward-delay estimate `D_p` (EWMA of the echoed samples), seconds.
    fwd_s: f64,
    /// Forward-delay samples taken so far.
    fwd_n: u32,
    /// Consecutive samples within `stable_tol` of the estimate (the scheduler's stability gate
    /// needs `stable_samples` on every path).
    stable: u32,
    /// Earliest time the next data packet on the path may carry a timestamp request.
    ts_next: Time,
    /// Timestamped packets awaiting their echo, (PSN, send time), in send order.
    ts_pending: VecDeque<(u32, Time)>,
    /// The packet scheduler's skip (Eq 7): a new-data packet on this path carries the
    /// `(skip + 1)`-th smallest unsent PSN.
    skip: u32,
    /// How much later than on the fastest path a packet sent now on this path arrives, in
    /// seconds: the lead that justifies the skip, and half of how long the smallest unsent PSN
    /// may wait for a faster path before this one takes it (`skip_expiry`).
    skip_lead_s: f64,
    /// Window in packets (mirrors the controller).
    w: f64,
    /// Last and next ARCC update of this path.
    last_update: Time,
    next_update: Time,
    /// Send times of the data copies in flight on this path, oldest first (see
    /// [`RondoSender::inflight`]).
    sent: VecDeque<Time>,
}

impl PathState {
    #[inline]
    fn window(&self) -> f64 {
        self.w + self.probe.extra
    }

    /// Its sending rate `R_p` of Eq 7 (packets per second): the window over the smoothed RTT.
    #[inline]
    fn rate_pps(&self) -> f64 {
        self.window() / self.srtt_s.max(1e-12)
    }

    /// Whether its forward-delay estimate is stable: sampled, and the last `k` samples within
    /// `stable_tol` of it (the scheduler's gate, §4.3).
    #[inline]
    fn is_stable(&self, k: u32) -> bool {
        self.fwd_n > 0 && self.stable >= k
    }
}

/// A Rondo flow's sender. See the module docs.
#[derive(Clone, Debug)]
pub struct RondoSender {
    pub(crate) core: SenderCore,
    header_bytes: u32,
    start: Time,
    /// Topology base RTT of the flow.
    t_env: Time,
    tu: Time,
    ts_interval: Time,
    /// Target queueing delay τq.
    tau_q_s: f64,
    /// Stability tolerance of the forward-delay estimate.
    stable_tol_s: f64,
    params: ArccParams,
    cfg_probe_phase: f64,
    cfg_probe_trigger: u32,
    cfg_probe_slack: f64,
    cfg_delay_gain: f64,
    cfg_stable_samples: u32,
    /// [`RondoConfig::rtt_floor`].
    rtt_floor: bool,
    /// [`RondoConfig::rtt_bound`]: the largest `T_p` (the longest of the flow's minimum-hop
    /// paths, [`FlowEnv::longest_path_rtt`]); `Time::MAX` when unbounded.
    t_bound: Time,
    /// [`RondoConfig::skip_expiry`].
    skip_expiry: bool,
    /// [`RondoConfig::startup_skips_per_sample`].
    startup_skips_per_sample: bool,
    /// When the smallest unsent PSN became the smallest: the last time a packet took the
    /// smallest (or the flow began; `skip_expiry`).
    lowest_since: Time,
    cfg_max_skip: u32,
    probing: bool,
    probe_rate_unsent: bool,
    /// Earliest time of the next probe (`probe_rate = "unsent"`).
    probe_next_at: Time,
    scheduler: bool,
    selection: PathSelection,
    swift_mode: bool,
    unsent: UnsentSet,
    paths: Vec<PathState>,
    samples: Vec<PathSample>,
    /// The flow pacer (`Σ W_p / T_p`).
    pacer: FlowPacer,
    /// The deficit-based path selection's `Z_p`.
    deficits: Deficits,
    /// Each path's open window for the transmission being chosen (reused, no allocation).
    open_scratch: Vec<f64>,
    /// Earliest update due on any path.
    next_update: Time,
    tu_rel: RelTime,
    probe_rr: usize,
    sched_on: bool,
    /// The stability gate has opened once (skips from the EWMA estimates since).
    sched_stable: bool,
    /// Paths whose forward-delay estimate is stable now (sampled, and the last
    /// `stable_samples` samples within `stable_tol`): the gate opens when all are.
    stable_paths: usize,
    /// Arrival-aligned delay differences for the start-up scheduler (`scheduler_start =
    /// "first-samples"`): allocated when the flow starts sending, released once the stability
    /// gate opens (they are not read after) or a flow of one message completes; `None` otherwise.
    aligned: Option<StartupDelays>,
    /// Paths the start-up scheduler's estimate is to be built for when the flow starts (0: none,
    /// or already released).
    aligned_paths: usize,
    /// Bit `p`: path `p`'s skip and lead are not stored yet. With `startup_skips_per_sample`
    /// (the default) a start-up evaluation of Eq 7 only takes the paths' rates and marks every
    /// row, and a row is evaluated when first read ([`Self::skip_of`]): a sample that pairs with
    /// many paths moves many rows, and most are moved again by the next sample before a
    /// transmission reads them. The inputs cannot change unnoticed in between, since every
    /// change of the start-up tables is followed at once by such an evaluation.
    skips_pending: u64,
    /// Debug builds: each row's skip and lead as an eager evaluation gave them when it was
    /// marked pending; a later read must give the same ([`Self::pending_skip`]).
    #[cfg(debug_assertions)]
    eager_skips: Vec<(u32, f64)>,
    /// Whether the completed one-message flow has released its per-path state.
    paths_released: bool,
    /// Until the flow starts: its paths folded into one (they differ only in their entropy,
    /// `entropy + p`), so a run that builds every flow up front holds ~250 bytes of path state
    /// per waiting flow instead of ~4 KB ([`RondoSender::unfold_paths`]).
    folded: Option<Box<PathState>>,
    /// The paths' base RTTs `T_p` are those of their current smallest RTTs (no path's smallest
    /// RTT fell since [`RondoSender::refresh_base_rtts`] last computed them), and `best_rtt` is
    /// the smallest of those.
    base_rtts_current: bool,
    best_rtt: Time,
    /// The number of logical paths (`paths.len()` once unfolded).
    n_paths: usize,
    /// The driver reads the path samples (`paths.csv`); when it does not, they are not kept.
    keep_samples: bool,
    /// The start-up scheduler is configured: probes ask for a timestamp.
    startup_sched: bool,
    rng: Rng,
    stats: RondoStats,
}

impl RondoSender {
    /// Every byte acknowledged.
    pub fn is_complete(&self) -> bool {
        self.core.is_complete()
    }
    /// Rondo's own counters.
    pub fn stats(&self) -> RondoStats {
        self.stats
    }
    /// `arcc`, or `swift` for the per-path Swift ablation.
    pub fn controller(&self) -> CcKind {
        if self.swift_mode {
            CcKind::Swift
        } else {
            CcKind::Arcc
        }
    }
    /// Whether the packet scheduler is currently reordering transmissions.
    pub fn scheduler_active(&self) -> bool {
        self.sched_on
    }
    /// The ARCC update interval `Tu`.
    pub fn update_interval(&self) -> Time {
        self.tu
    }
}

impl SenderOps for RondoSender {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    fn cc_kind(&self) -> Option<CcKind> {
        Some(self.controller())
    }

    /// The flow (or connection) starts at `now`, which may be later than the start it was
    /// built with (a flow that waited for its dependencies): the start-up probing phase, the
    /// first ARCC updates, the first timestamp and the pacer run from `now`.
    fn begin(&mut self, now: Time) {
        self.unfold_paths();
        if now == self.start {
            return;
        }
        self.start = now;
        let probe_until =
            if self.probing { now + self.t_env.mul_f64(self.cfg_probe_phase) } else { Time::ZERO };
        for ps in &mut self.paths {
            ps.probe.until = probe_until;
            ps.ts_next = if self.scheduler { now } else { Time::MAX };
            ps.last_update = now;
            ps.next_update = now + self.tu;
        }
        self.probe_next_at = now;
        self.pacer.next_tx_at = now;
        self.next_update = now + self.tu;
        self.refresh_samples(now);
    }

    /// A message was posted on the connection at `now` (its packets are already in the core).
    /// After an idle period (everything posted before was acknowledged), the connection keeps
    /// its windows, rate estimates, delays and skips — a warm QP — but its ARCC measurement
    /// restarts now: an interval that spans the idle time would read as an ACK rate near zero.
    fn on_post(&mut self, now: Time, was_idle: bool) {
        self.unfold_paths();
        self.unsent.grow(self.core.msg.packets);
        if !was_idle {
            return;
        }
        let mut next = Time::MAX;
        for ps in &mut self.paths {
            let tu = self.tu_rel.resolve(ps.base_rtt).max(Time::from_ps(1));
            ps.last_update = now;
            ps.next_update = now + tu;
            ps.sample.resume();
            next = next.min(ps.next_update);
        }
        self.next_update = next;
        self.pacer.next_tx_at = self.pacer.next_tx_at.max(now);
        self.probe_next_at = self.probe_next_at.max(now);
    }

    /// See [`crate::transport::Sender::poll_transmit`].
    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        self.unfold_paths();
        if now < self.start || self.core.rec.is_complete() {
            return None;
        }
        if self.aligned_paths > 0 && self.aligned.is_none() {
            // The flow's first transmission: its start-up scheduler's tables (per-flow memory
            // is taken when a flow sends, not when the run builds every flow).
            self.aligned = Some(StartupDelays::new(self.aligned_paths));
        }
        if self.unsent.remaining() == 0 && !self.core.rec.has_retx() {
            return None;
        }
        if self.skips_pending != 0 {
            self.settle_open_skips();
        }
        // Some path is open (`any_open`), found by the same pass that the path choice reads.
        let new_data = !self.core.rec.has_retx();
        let open = if self.pacer.allows(now) {
            self.open_windows(now, new_data)
        } else {
            OpenWindows::default()
        };
        if open.count > 0 {
            let retx = self.core.rec.next_retx();
            if retx.is_some() || self.unsent.remaining() > 0 {
                // A stale queued retransmission may have vanished: then new data, which the
                // tail rule may hold back (the windows are asked again, for new data). Taking
                // a retransmission changes nothing a window reads.
                let p = if retx.is_none() == new_data {
                    self.pick_open(open)
                } else {
                    self.choose_path(now, retx.is_none())
                }?;
                let (psn, is_retx) = match retx {
                    Some(r) => (r, true),
                    None => {
                        let k = self.effective_skip(now, p);
                        let lowest = self.unsent.lowest();
                        let psn = self.unsent.nth(k).expect("unsent data remains");
                        if psn != lowest {
                            self.stats.skipped_sends += 1;
                        }
                        self.unsent.mark_sent(psn);
                        if self.skip_expiry {
                            self.note_lowest(now, psn, lowest);
                        }
                        self.core.rec.set_next_new(self.unsent.lowest());
                        (psn, false)
                    }
                };
                return Some(self.send_data(now, p, psn, is_retx));
            }
        }
        if self.probing_now(now) {
            let n = self.paths.len();
            for i in 0..n {
                let p = (self.probe_rr + i) % n;
                if self.paths[p].probe.active(now) {
                    self.probe_rr = p + 1;
                    self.stats.probes_sent += 1;
                    if self.probe_rate_unsent {
                        // Paced to at most the unsent data packets per base RTT (each probe ACK
                        // stands for one data packet): probing faster finds capacity the flow
                        // has no data to use — between DCs a 1 MB flow would otherwise send a
                        // line-rate BDP of probes every RTT. Paced, not in bursts: a burst of
                        // probes measures the spare capacity of a moment, not a rate (tried:
                        // the Web Search run's p99 slowdown 27 instead of 6.8 on a shared path).
                        let gap =
                            Time::from_ps(self.t_env.ps() / self.unsent.remaining().max(1) as u64);
                        self.probe_next_at = now + gap;
                    }
                    return Some(TxPacket {
                        kind: PacketKind::Probe,
                        psn: PROBE_PSN,
                        payload_bytes: 0,
                        entropy: self.paths[p].entropy,
                        path: p as u16,
                        retx: false,
                        // With the start-up scheduler every probe asks for a timestamp: on a
                        // long path the first probe ACKs return before the first data echo.
                        timestamped: self.startup_sched,
                        last: false,
                        ack_request: false,
                        pull_target: 0,
                    });
                }
            }
        }
        None
    }

    /// See [`crate::transport::Sender::next_send_time`].
    fn next_send_time(&self, now: Time) -> Time {
        if self.core.rec.is_complete()
            || (self.unsent.remaining() == 0 && !self.core.rec.has_retx())
        {
            return Time::MAX;
        }
        let now = now.max(self.start);
        if self.folded.is_some() {
            // Not started (`begin` unfolds): the flow may want to send from its start on; the
            // call to `poll_transmit` then unfolds and decides.
            return self.pacer.next_tx_at.max(now);
        }
        let data = if self.any_open(now) { self.pacer.next_tx_at.max(now) } else { Time::MAX };
        let probe = if self.in_probe_phase(now) { self.probe_next_at.max(now) } else { Time::MAX };
        data.min(probe)
    }

    /// See [`crate::transport::Sender::on_ack`].
    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        self.unfold_paths();
        let p = ack.path as usize;
        if ack.probe {
            self.stats.probe_acks += 1;
            if let Some(ps) = self.paths.get_mut(p) {
                ps.sample.on_probe_ack(now);
                if ps.probe.on_probe_ack() {
                    self.recompute_pacer();
                }
                if let Some(al) = &mut self.aligned {
                    if ack.ts_rx > Time::ZERO && !self.sched_stable {
                        let d = ack.ts_rx.ps() as f64 * 1e-12 - ack.ts_sent.ps() as f64 * 1e-12;
                        al.add_probe(
                            p,
                            ack.ts_rx.ps() as f64 * 1e-12,
                            d,
                            self.ts_interval.secs_f64(),
                        );
                        self.after_startup_sample();
                    }
                }
            }
            return;
        }
        let sum = self.core.rec.on_ack(now, ack);
        let mtu = self.core.msg.mtu_bytes as u64;
        let Some(ps) = self.paths.get_mut(p) else { return };
        let mut sampled = false;
        while ps.sent.front().is_some_and(|&t| t <= ack.ts_sent) {
            ps.sent.pop_front();
        }
        // A NAK of a packet the full reorder buffer dropped is not a delivery: counted in the
        // ACK-rate sample it kept the window at the network's rate while the receiver discarded
        // (see "The ACK-rate sample" in the module docs).
        ps.sample.on_data_ack(now, !ack.rx_buffer_full);
        let rtt = now.saturating_sub(ack.ts_sent);
        if rtt > Time::ZERO {
            if rtt < ps.min_rtt {
                ps.min_rtt = rtt;
                self.base_rtts_current = false;
            }
            if !ps.rtt_seeded {
                ps.rtt_seeded = true;
                ps.srtt_s = rtt.secs_f64();
            } else {
                ps.srtt_s += (rtt.secs_f64() - ps.srtt_s) / 8.0;
            }
        }
        // Echoes come back in send order on a path: older pending entries lost their packet or ACK.
        while ps.ts_pending.front().is_some_and(|e| e.1 < ack.ts_sent) {
            ps.ts_pending.pop_front();
        }
        if ps.ts_pending.front().is_some_and(|e| e.1 == ack.ts_sent && e.0 == ack.psn) {
            ps.ts_pending.pop_front();
            let d = ack.ts_rx.ps() as f64 * 1e-12 - ack.ts_sent.ps() as f64 * 1e-12;
            sampled = true;
            if let Some(al) = &mut self.aligned {
                al.add_data(p, ack.ts_rx.ps() as f64 * 1e-12, d, self.ts_interval.secs_f64());
            }
            let k = self.cfg_stable_samples.max(1);
            let was_stable = ps.is_stable(k);
            if ps.fwd_n == 0 {
                ps.fwd_s = d;
                ps.stable = 1;
            } else {
                if (d - ps.fwd_s).abs() <= self.stable_tol_s {
                    ps.stable = ps.stable.saturating_add(1);
                } else {
                    ps.stable = 0;
                }
                ps.fwd_s += self.cfg_delay_gain * (d - ps.fwd_s);
            }
            ps.fwd_n = ps.fwd_n.saturating_add(1);
            let is_stable = ps.is_stable(k);
            if is_stable != was_stable {
                if is_stable {
                    self.stable_paths += 1;
                } else {
                    self.stable_paths -= 1;
                }
            }
        }
        if let PathCc::Swift(sw) = &mut ps.cc {
            sw.on_ack(&AckEvent {
                now,
                newly_acked_bytes: if sum.newly_acked > 0 { mtu } else { 0 },
                ack_seq_bytes: self.core.rec.una() as u64 * mtu,
                snd_nxt_bytes: self.core.rec.max_sent() as u64 * mtu,
                ecn: ack.ecn,
                rtt: if rtt > Time::ZERO { Some(rtt) } else { None },
                int: ack.int,
                hops: ack.hops,
            });
            ps.w = sw.cwnd() / mtu as f64;
            self.recompute_pacer();
        }
        if sampled {
            self.after_startup_sample();
        }
        if self.core.is_complete() && !self.core.is_connection() && !self.paths_released {
            // A flow of one message is done. Nothing follows from its paths: transmissions,
            // send times, timers and window updates all stop at completion (`poll_transmit`,
            // `next_send_time`, `poll_timeout`, `on_timeout`), a late ACK finds no path below,
            // and a driver reads a finished flow's counters, never its windows or path samples
            // (those are read for flows still sending). So the per-path state (~4 KB with 16
            // paths) is released with the start-up tables: a run holds path state for the
            // flows in progress, not for every flow it has finished (a million-flow all-to-all
            // in pairwise rounds: BENCHMARKS.md, "Memory").
            self.release_startup_tables();
            self.paths_released = true;
            self.drop_path_state();
        }
    }

    /// See [`crate::transport::Sender::poll_timeout`].
    fn poll_timeout(&self) -> Option<Time> {
        if self.core.rec.is_complete() {
            return None;
        }
        Some(match self.core.rec.poll_timeout() {
            Some(t) => t.min(self.next_update),
            None => self.next_update,
        })
    }

    /// See [`crate::transport::Sender::on_timeout`].
    fn on_timeout(&mut self, now: Time) {
        self.unfold_paths();
        if self.core.rec.poll_timeout().is_some_and(|t| t <= now) {
            self.core.rec.on_timeout(now);
        }
        if now >= self.next_update && !self.core.rec.is_complete() {
            self.update(now);
        }
    }

    /// The flow pacer's rate (`Σ W_p / T_p`) in bit/s of data-packet wire size.
    fn rate_bps(&self) -> u64 {
        (self.pacer.pkts_per_s * (self.core.msg.mtu_bytes + self.header_bytes) as f64 * 8.0) as u64
    }

    /// Sum of the per-path windows in bytes.
    fn window_bytes(&self) -> u64 {
        if let Some(ps) = &self.folded {
            return (ps.window() * self.core.msg.mtu_bytes as f64) as u64 * self.n_paths as u64;
        }
        self.paths.iter().map(|p| (p.window() * self.core.msg.mtu_bytes as f64) as u64).sum()
    }

    /// Per-path state as of the last window update.
    fn path_samples(&self) -> &[PathSample] {
        &self.samples
    }

    /// Not read: the samples are dropped and no longer refreshed at each update.
    fn set_path_samples(&mut self, read: bool) {
        if !read && self.keep_samples {
            self.keep_samples = false;
            self.samples = Vec::new();
        }
    }
}
