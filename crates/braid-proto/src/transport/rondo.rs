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
pub mod config;
mod pacer;
mod probing;
pub mod rrps;
mod sample;
mod scheduler;
mod select;
pub mod unsent;

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
use scheduler::{bits, eq7_skip_and_lead_over};
use select::Deficits;
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

/// What one pass over the paths' windows found ([`RondoSender::open_windows`]): the sum of the
/// open windows (packets) and how many paths are open.
#[derive(Clone, Copy, Debug, Default)]
struct OpenWindows {
    sum: f64,
    count: usize,
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
    fn recompute_pacer(&mut self) {
        self.pacer.set_rate(self.paths.iter().map(|p| (p.window(), p.base_rtt)));
    }

    /// Data copies in flight on path `p`: those sent after the latest copy whose ACK came back
    /// on it. A logical path is one FIFO route, so an ACK for the copy sent at `t` means every
    /// earlier copy on the path has arrived or is lost; ACK loss is covered by later ACKs. This
    /// counts what is physically in the pipe, including copies that loss recovery has (perhaps
    /// spuriously) declared lost and sent again elsewhere — recovery's own count forgets those,
    /// and a spurious retransmission would otherwise inject data no window accounts for.
    #[inline]
    fn inflight(&self, p: usize) -> u32 {
        self.paths[p].sent.len() as u32
    }

    /// Open window of path `p` for the next transmission. At the tail of a flow a path whose
    /// skip reaches past the last unsent PSN is closed to new data: Eq 7 asks for the
    /// `(skip_p + 1)`-th smallest unsent PSN and there is none — every PSN left arrives earlier
    /// on a faster path, while the slow path could only carry the last one late (an OOD of
    /// `R·ΔD` at the end of every flow, and a later finish).
    ///
    /// Always inlined (it runs for every path on every transmission decision); the RNIC's PSN
    /// range check, set only with `network.max_outstanding_psn` or `max_outstanding_reads`, is
    /// out of line. A closed window is tested first: the skip is then not read (it would not
    /// change the answer), so a path's pending skip is evaluated only once its window opens.
    #[inline(always)]
    fn open(&self, now: Time, p: usize, new_data: bool) -> f64 {
        let room = self.room(p);
        if room <= 0.0 {
            return room;
        }
        if new_data && self.sched_on {
            let skip = self.scheduled_skip(now, p).0;
            if skip > 0 && skip >= self.unsent.remaining() {
                return 0.0;
            }
        }
        if new_data && self.core.rec.config().psn_limit.is_set() && !self.psn_in_range(now, p) {
            return 0.0;
        }
        room
    }

    /// Path `p`'s window less its data in flight, at least 0.
    #[inline(always)]
    fn room(&self, p: usize) -> f64 {
        (self.paths[p].window() - self.inflight(p) as f64).max(0.0)
    }

    /// The RNIC's PSN range (Appendix A): the PSN a new-data packet on path `p` would take
    /// must be in it.
    #[cold]
    #[inline(never)]
    fn psn_in_range(&self, now: Time, p: usize) -> bool {
        let k = if self.sched_on { self.scheduled_skip(now, p).0 } else { 0 };
        self.unsent.nth(k).is_some_and(|psn| self.core.rec.psn_allowed(psn))
    }

    /// The skip a new-data packet on path `p` takes now: Eq 7's, unless the smallest unsent
    /// PSN has been the smallest for more than twice `p`'s lead over the fastest path
    /// (`skip_expiry`): the paths with no skip, which take the smallest unsent PSN whenever they
    /// send, have then stopped sending, so it goes now.
    #[inline]
    fn effective_skip(&self, now: Time, p: usize) -> u32 {
        if !self.sched_on {
            return 0;
        }
        let (skip, lead_s) = self.scheduled_skip(now, p);
        if skip > 0 && self.skip_expiry && (now - self.lowest_since).secs_f64() > 2.0 * lead_s {
            return 0;
        }
        skip
    }

    /// Eq 7's skip of path `p` and its lead: the scheduler's, and at start-up, for a path with
    /// no data echo yet, at least the lower bound its missing echo gives ([`Self::unmeasured_skip`]).
    #[inline]
    fn scheduled_skip(&self, now: Time, p: usize) -> (u32, f64) {
        let own = self.skip_of(p);
        if self.paths[p].fwd_n == 0 && self.aligned.is_some() {
            let bound = self.unmeasured_skip(now, p);
            if bound.0 > own.0 {
                return bound;
            }
        }
        own
    }

    /// Path `p`'s Eq 7 skip and lead as the scheduler last set them (evaluated now if pending,
    /// [`Self::skips_pending`]).
    #[inline]
    fn skip_of(&self, p: usize) -> (u32, f64) {
        let ps = &self.paths[p];
        if p < 64 && self.skips_pending & (1 << p) != 0 {
            self.pending_skip(p)
        } else {
            (ps.skip, ps.skip_lead_s)
        }
    }

    /// A pending row of Eq 7 evaluated from the start-up tables, as the evaluation that named it
    /// would have. (Without `skip_expiry` the lead is neither stored nor read.)
    #[inline(never)]
    fn pending_skip(&self, p: usize) -> (u32, f64) {
        let Some(al) = &self.aligned else {
            unreachable!("skips are pending only while the start-up tables exist")
        };
        let (skip, lead_s) = al.skip_and_lead_at_last_rates(p, self.cfg_max_skip);
        #[cfg(debug_assertions)]
        {
            let (want, want_lead) = self.eager_skips[p];
            debug_assert!(
                skip == want && lead_s.to_bits() == want_lead.to_bits(),
                "path {p}'s pending skip changed since it was marked"
            );
        }
        (skip, lead_s)
    }

    /// Store the pending skips of the paths whose windows are open (the only ones a
    /// transmission decision reads, [`Self::open`]).
    fn settle_open_skips(&mut self) {
        for p in bits(self.skips_pending) {
            if self.room(p) > 0.0 {
                self.settle_skip(p);
            }
        }
    }

    /// Store path `p`'s pending skip and lead.
    fn settle_skip(&mut self, p: usize) {
        let (skip, lead_s) = self.pending_skip(p);
        self.store_skip(p, skip, lead_s);
        self.skips_pending &= !(1 << p);
    }

    /// Path `p`'s skip, and with `skip_expiry` (its only reader) its lead.
    #[inline]
    fn store_skip(&mut self, p: usize, skip: u32, lead_s: f64) {
        let ps = &mut self.paths[p];
        ps.skip = skip;
        if self.skip_expiry {
            ps.skip_lead_s = lead_s;
        }
    }

    /// Store every pending skip (before the path samples read them).
    fn settle_all_skips(&mut self) {
        for p in bits(self.skips_pending) {
            self.settle_skip(p);
        }
    }

    /// At start-up, a lower bound of the skip (and lead) of a path `p` with no data echo yet: its
    /// cumulative ACKs, carried back by faster paths, can open its window before its own first
    /// echo returns. Its oldest timestamped packet has then waited `now − sent` without an echo,
    /// so its round trip exceeds the shortest measured one by at least `waited − RTT_min`. With
    /// a path's extra delay the same both ways (a longer link is longer in both directions, and
    /// ACKs return on the logical path of their data) half of that is one way: `D_p ≥ D_min +
    /// (waited − RTT_min) / 2`, and Eq 7 is taken with that lower bound against the measured
    /// paths' forward-delay estimates. Without a measured path, or before the wait exceeds the
    /// shortest round trip, it takes no skip, as before any difference is known.
    #[cold]
    #[inline(never)]
    fn unmeasured_skip(&self, now: Time, p: usize) -> (u32, f64) {
        let Some(&(_, sent)) = self.paths[p].ts_pending.front() else { return (0, 0.0) };
        let waited_s = now.saturating_sub(sent).secs_f64();
        // The start-up tables exist only for at most `MAX_ALIGNED_PATHS` paths: a bit set holds them.
        let (mut d_min_s, mut rtt_min_s) = (f64::INFINITY, f64::INFINITY);
        let mut measured = 0u64;
        for (q, qs) in self.paths.iter().enumerate().take(MAX_ALIGNED_PATHS) {
            if q != p && qs.fwd_n > 0 && qs.rtt_seeded {
                d_min_s = d_min_s.min(qs.fwd_s);
                rtt_min_s = rtt_min_s.min(qs.min_rtt.secs_f64());
                measured |= 1 << q;
            }
        }
        if measured == 0 || waited_s <= rtt_min_s {
            return (0, 0.0);
        }
        let d_p_s = d_min_s + 0.5 * (waited_s - rtt_min_s);
        eq7_skip_and_lead_over(
            bits(measured),
            |q| self.paths[q].rate_pps(),
            |q| (d_p_s - self.paths[q].fwd_s).max(0.0),
            self.cfg_max_skip,
        )
    }

    /// New data `psn` was taken while `lowest` was the smallest unsent PSN (`skip_expiry`
    /// only): when it was the smallest, the next one starts waiting now.
    ///
    /// The wait is timed from when a PSN became the smallest unsent, not from when a slower
    /// path first passed it over: a PSN that a path 40 µs slower than the fastest passes over
    /// is normally reached by the faster paths about 40 µs later, and timed from that pass, a
    /// path 20 µs slower (allowed twice its own lead) took it over first and delivered it 20 µs
    /// late — on Fig 13's delay scenario a NIC-level OOD of about R̄ × 20 µs ≈ 200 all run.
    #[inline]
    fn note_lowest(&mut self, now: Time, psn: u32, lowest: u32) {
        if psn == lowest {
            self.lowest_since = now;
        }
    }

    /// Some path is open for the next transmission (a queued retransmission goes first).
    fn any_open(&self, now: Time) -> bool {
        let new_data = !self.core.rec.has_retx();
        (0..self.paths.len()).any(|p| self.open(now, p, new_data) > 0.0)
    }

    /// Path of the next transmission (deficit or random), new data or a retransmission; `None`
    /// when every window is closed.
    fn choose_path(&mut self, now: Time, new_data: bool) -> Option<usize> {
        let open = self.open_windows(now, new_data);
        self.pick_open(open)
    }

    /// Every path's open window for the next transmission (new data or a retransmission), kept
    /// in `open_scratch` for [`RondoSender::pick_open`]: their sum and how many are open.
    fn open_windows(&mut self, now: Time, new_data: bool) -> OpenWindows {
        let mut open = std::mem::take(&mut self.open_scratch);
        open.clear();
        let mut sum = 0.0;
        let mut count = 0usize;
        for p in 0..self.paths.len() {
            let o = self.open(now, p, new_data);
            if o > 0.0 {
                sum += o;
                count += 1;
            }
            open.push(o);
        }
        self.open_scratch = open;
        OpenWindows { sum, count }
    }

    /// The path of the next transmission among the open windows [`RondoSender::open_windows`]
    /// just found (deficit or random); `None` when none is open.
    fn pick_open(&mut self, OpenWindows { sum, count }: OpenWindows) -> Option<usize> {
        let open = std::mem::take(&mut self.open_scratch);
        let chosen = if count == 0 {
            None
        } else {
            match self.selection {
                PathSelection::Random => {
                    let mut k = self.rng.index(count);
                    let mut pick = None;
                    for (p, &o) in open.iter().enumerate() {
                        if o > 0.0 {
                            if k == 0 {
                                pick = Some(p);
                                break;
                            }
                            k -= 1;
                        }
                    }
                    pick
                }
                PathSelection::Deficit => self.deficits.pick(&open, sum),
            }
        };
        self.open_scratch = open;
        chosen
    }

    /// Some path is in a probing phase.
    fn in_probe_phase(&self, now: Time) -> bool {
        self.probing && self.paths.iter().any(|p| p.probe.active(now))
    }

    /// A probe may go now: a phase is running and the probe pacer allows it (`probe_rate`).
    fn probing_now(&self, now: Time) -> bool {
        now >= self.probe_next_at && self.in_probe_phase(now)
    }

    /// Record and build the data packet `psn` on path `p`, and advance the pacer.
    fn send_data(&mut self, now: Time, p: usize, psn: u32, is_retx: bool) -> TxPacket {
        self.core.rec.on_sent(now, psn, p as u16);
        let ps = &mut self.paths[p];
        ps.sent.push_back(now);
        let timestamped = !is_retx && now >= ps.ts_next;
        if timestamped {
            ps.ts_next = now + self.ts_interval;
            ps.ts_pending.push_back((psn, now));
        }
        let entropy = ps.entropy;
        self.pacer.on_send(now);
        let payload = self.core.payload_of(psn);
        TxPacket { timestamped, ..self.core.data_packet(psn, is_retx, p as u16, entropy, payload) }
    }

    /// The periodic control of every path: ARCC windows, probing triggers, timestamps, skips,
    /// pacer.
    fn update(&mut self, now: Time) {
        if now < self.next_update {
            return;
        }
        self.stats.updates += 1;
        let data_left = self.unsent.remaining() > 0;
        let best = self.refresh_base_rtts();
        let mut next = Time::MAX;
        for i in 0..self.paths.len() {
            next = next.min(self.update_path(i, now, best, data_left));
        }
        self.next_update = next;
        self.recompute_pacer();
        self.compute_skips();
        self.refresh_samples(now);
    }

    /// Every path's base RTT `T_p` from the topology's hint and the smallest RTTs measured (see
    /// the module docs). Returns the smallest RTT measured on any path.
    fn refresh_base_rtts(&mut self) -> Time {
        if self.base_rtts_current {
            // No path's smallest RTT fell since they were computed: the same inputs.
            return self.best_rtt;
        }
        self.base_rtts_current = true;
        let best = self.paths.iter().map(|p| p.min_rtt).min().unwrap_or(Time::MAX);
        self.best_rtt = best;
        for ps in self.paths.iter_mut() {
            // Never below what the path has been measured to take: the topology's figure is a
            // hint, and one that is too short (links slower or longer than the driver knew)
            // would pin `W* = r̂·T_p + q` below the path's pipe, and the window, its ACK rate and
            // the probing trigger would starve together (tests/rondo/rondo_invariants.rs).
            // Nor above the longest path the topology has (`rtt_bound`): a measured excess
            // beyond it is queueing — a standing queue the path met when first measured, which
            // the floor would otherwise count as propagation for as long as the flow runs.
            ps.base_rtt = if ps.min_rtt == Time::MAX {
                self.t_env
            } else if self.rtt_floor {
                (self.t_env + (ps.min_rtt - best)).max(ps.min_rtt)
            } else {
                self.t_env + (ps.min_rtt - best)
            }
            .min(self.t_bound);
        }
        best
    }

    /// Path `i`'s control at `now`, if its update is due (every `Tu` of its own base RTT, so
    /// that a long path is not corrected several times per round trip of its feedback): expire
    /// lost copies, take the ACK-rate sample into ARCC, run the probing phases, drop stale
    /// timestamp requests. Returns the path's next update time.
    fn update_path(&mut self, i: usize, now: Time, best: Time, data_left: bool) -> Time {
        let ps = &mut self.paths[i];
        if now < ps.next_update {
            return ps.next_update;
        }
        let tu = self.tu_rel.resolve(ps.base_rtt).max(Time::from_ps(1));
        ps.next_update = now + tu;
        let next = ps.next_update;
        let last = ps.last_update;
        ps.last_update = now;
        let interval = now.saturating_sub(last).secs_f64();
        if interval <= 0.0 {
            return next;
        }
        // A copy unanswered for 4 base RTTs or 2 smoothed RTTs of its path, whichever is longer
        // (and no later one answered), was lost.
        let expire =
            now.saturating_sub(ps.base_rtt.mul_f64(4.0).max(Time::from_secs_f64(2.0 * ps.srtt_s)));
        while ps.sent.front().is_some_and(|&t| t < expire) {
            ps.sent.pop_front();
        }
        let inflight = ps.sent.len() as f64;
        let oldest = ps.sent.front().copied().unwrap_or(Time::MAX);
        let hold = self.arcc_update(i, now, last, interval, tu, inflight);
        self.probing_update(i, now, best, tu, oldest, data_left);
        let ps = &mut self.paths[i];
        if !hold {
            ps.sample.clear();
        }
        next
    }

    /// ARCC's window update of path `i` from its ACK-rate sample (§4.2.1): `last` is the previous
    /// update, `interval` the seconds since, `tu` the path's update interval, `inflight` its
    /// copies in flight. Returns whether the sample's counts must be kept for the next update.
    fn arcc_update(
        &mut self,
        i: usize,
        now: Time,
        last: Time,
        interval: f64,
        tu: Time,
        inflight: f64,
    ) -> bool {
        let ps = &mut self.paths[i];
        let mut hold = false;
        if let PathCc::Arcc(a) = &mut ps.cc {
            // The first update measures from the first ACK if that came mid-interval, over
            // half an interval — but on a path more than twice as long as the topology's
            // hint, over one base RTT of the path when probe ACKs are in it: until then each
            // probe ACK clocks out one extra data packet (§4.2.2), so when `W = r̂·T + q` is
            // first set the path already carries about `r̂·T`. A short first sample on such
            // a path makes the window jump from `W0` to a pipe many times the hint's at once,
            // a burst into the path. (On paths of the hint's length the longer sample would
            // only let the credits of many flows starting together pile onto one queue.)
            let long_path = ps.min_rtt != Time::MAX && ps.min_rtt > self.t_env.mul_f64(2.0);
            let first_span = if long_path && ps.sample.probe_acks > 0 && ps.probe.credit_open {
                ps.base_rtt
            } else {
                Time::from_ps(tu.ps() / 2)
            };
            // On a long path the ACKs keep accumulating until then (`hold`); on others the
            // first update that finds its first ACK before the previous update uses the
            // interval, as before.
            let span;
            (span, hold) = ps.sample.span(a.seeded, interval, last, now, long_path, first_span);
            if span > 0.0 {
                ps.sample.resumed = false;
                let sample = ps.sample.packets() as f64 / span;
                a.update(&self.params, sample, inflight, ps.base_rtt.secs_f64());
                ps.w = a.w;
                if a.fast {
                    self.stats.fast_drains += 1;
                }
                if ps.sample.probe_acks > 0 && ps.probe.credit_open {
                    ps.probe.close_credits();
                }
            }
        }
        hold
    }

    /// Path `i`'s capacity probing at an update (§4.2.2): the start-up phase's length, then the
    /// trigger of a new phase once every packet sent long enough ago (`oldest`) was acknowledged.
    fn probing_update(
        &mut self,
        i: usize,
        now: Time,
        best: Time,
        tu: Time,
        oldest: Time,
        data_left: bool,
    ) {
        let ps = &mut self.paths[i];
        if self.probing && ps.probe.startup {
            // §4.2.2: at start-up "each path starts with an initial window W0, and probes
            // for additional capacity" — for three base RTTs of the path. Timed from the
            // topology's hint alone, a path longer than the hint (a slower route, added
            // delay) would stop probing before its first probe ACK came back, lose its
            // credits, and then jump from W0 to W* in one update: a burst into one path
            // that every sharing flow makes at once (four-path set-up, +20 µs: 226 KB).
            // The path's length is the hint plus its excess over the flow's best path: a
            // standing queue that every path crosses (flows joining a full link) must not
            // stretch the phase, or the credits of many joiners pile onto that queue.
            let excess = if ps.min_rtt == Time::MAX { Time::ZERO } else { ps.min_rtt - best };
            let mut end = self.start + (self.t_env + excess).mul_f64(self.cfg_probe_phase);
            if ps.min_rtt == Time::MAX {
                // No data ACK yet: the path's RTT is still unknown.
                end = end.max(now + tu);
            }
            ps.probe.stretch_startup(now, end);
        }
        if self.probing {
            let slack = Time::from_secs_f64(self.cfg_probe_slack * self.tau_q_s);
            let all_acked =
                oldest == Time::MAX || now.saturating_sub(oldest) <= ps.base_rtt + slack;
            let phase = ps.base_rtt.mul_f64(self.cfg_probe_phase);
            if ps.probe.on_update(now, all_acked, self.cfg_probe_trigger, data_left, phase) {
                self.stats.probe_phases += 1;
            }
        }
    }

    /// Eq 7 for every path. Skips are recomputed from the EWMA estimates while every path's
    /// forward-delay estimate is stable (the last `stable_samples` samples within `stable_tol` of
    /// it); otherwise the previous skips stay in force, so one outlier does not switch the
    /// scheduler off and a real delay change is picked up once the new estimates settle. Before
    /// the gate first opens, skips come from the arrival-aligned differences ([`aligned`];
    /// `scheduler_start = "first-samples"`, the default) or are zero (`"stable"`).
    fn compute_skips(&mut self) {
        if !self.scheduler {
            return;
        }
        let stable = self.stable_paths == self.paths.len();
        debug_assert_eq!(
            stable,
            self.paths.iter().all(|p| self.path_is_stable(p)),
            "stable_paths is off"
        );
        if stable {
            self.sched_stable = true;
            self.sched_on = true;
            // Past the gate the skips come from the EWMA estimates: the start-up tables are
            // not read again.
            self.release_startup_tables();
            self.set_skips(|ps, p, q| (ps[p].fwd_s - ps[q].fwd_s).max(0.0));
        } else if !self.sched_stable && self.aligned.as_ref().is_some_and(|a| a.check_ready()) {
            // Until the gate first opens: the arrival-aligned differences ([`aligned`]), which a
            // queue shared by all paths does not move.
            self.sched_on = true;
            let Some(al) = self.aligned.as_mut() else { unreachable!("checked") };
            let n = self.paths.len();
            // Each path's rate once (the start-up estimate keeps at most `MAX_ALIGNED_PATHS`),
            // not once per pair: the same quotients, so the same skips bit for bit.
            let mut rates = [0.0f64; MAX_ALIGNED_PATHS];
            for (r, ps) in rates.iter_mut().zip(&self.paths) {
                *r = ps.rate_pps();
            }
            if self.startup_skips_per_sample {
                // Every change of the tables is followed by this evaluation: each row is
                // evaluated when first read (`skips_pending`), with these rates.
                al.set_rates(&rates[..n]);
                // At most `MAX_ALIGNED_PATHS` (32) paths have start-up tables.
                self.skips_pending = (1u64 << n) - 1;
            } else {
                // Only the rows whose inputs changed since the last evaluation: a delay sample
                // moves the differences of its own path's pairs, an ACK the rate of its path.
                let stale = al.rows_to_recompute(&rates[..n]);
                // Only the paths a packet on `p` arrives later than contribute (the others'
                // terms are zero): kept as a bit set by the start-up estimate. One pass over
                // them gives both the skip and the lead `skip_expiry` reads.
                for p in bits(stale) {
                    let Some(al) = self.aligned.as_ref() else { unreachable!("checked") };
                    let (skip, lead_s) = al.skip_and_lead(p, &rates[..n], self.cfg_max_skip);
                    self.store_skip(p, skip, lead_s);
                }
            }
            // Debug builds check that every row is what evaluating it now gives, and keep that
            // for the pending rows' later reads to be checked against.
            #[cfg(debug_assertions)]
            {
                let Some(al) = self.aligned.as_ref() else { unreachable!("checked") };
                self.eager_skips =
                    (0..n).map(|p| al.skip_and_lead(p, &rates[..n], self.cfg_max_skip)).collect();
                for p in 0..n {
                    let (skip, lead_s) = self.eager_skips[p];
                    let (have, have_lead) = self.skip_of(p);
                    debug_assert_eq!(have, skip, "path {p}'s skip is stale");
                    debug_assert!(
                        !self.skip_expiry || have_lead.to_bits() == lead_s.to_bits(),
                        "path {p}'s lead is stale"
                    );
                }
            }
        }
    }

    /// Whether path `ps`'s forward-delay estimate is stable ([`PathState::is_stable`] with
    /// `stable_samples`).
    #[inline]
    fn path_is_stable(&self, ps: &PathState) -> bool {
        ps.is_stable(self.cfg_stable_samples.max(1))
    }

    /// A delay sample went into the start-up tables: with `startup_skips = "per-sample"` (the
    /// default) the skips follow it at once, not only at the next update — the credits the
    /// first ACKs open would otherwise go unscheduled.
    fn after_startup_sample(&mut self) {
        if self.startup_skips_per_sample && self.aligned.is_some() && !self.sched_stable {
            self.compute_skips();
        }
    }

    /// Release the start-up scheduler's tables for good.
    fn release_startup_tables(&mut self) {
        // Both callers replace the skips at once: the gate's evaluation writes every path's
        // (`set_skips`), a finished flow drops its paths. The pending rows are not evaluated:
        // the sample that opened the gate has already changed the tables they would read.
        self.skips_pending = 0;
        self.aligned = None;
        self.aligned_paths = 0;
    }

    /// Eq 7 with `excess(paths, p, q)` = how much later than on path `q` a packet sent now on
    /// path `p` arrives (0 when not later).
    fn set_skips(&mut self, excess: impl Fn(&[PathState], usize, usize) -> f64) {
        let n = self.paths.len();
        // Each path's rate once, not once per pair (the same quotients, so the same skips bit
        // for bit), and one pass per path for the skip and the lead together.
        // (On the stack for the usual few paths; `paths = N` allows up to `config::MAX_PATHS`.)
        let mut on_stack = [0.0f64; MAX_ALIGNED_PATHS];
        let mut on_heap = Vec::new();
        let rates: &mut [f64] = if n <= MAX_ALIGNED_PATHS {
            &mut on_stack[..n]
        } else {
            on_heap.resize(n, 0.0);
            &mut on_heap
        };
        for (r, ps) in rates.iter_mut().zip(&self.paths) {
            *r = ps.rate_pps();
        }
        for p in 0..n {
            let paths = &self.paths;
            let (skip, lead_s) = eq7_skip_and_lead_over(
                (0..n).filter(|&q| q != p),
                |q| rates[q],
                |q| excess(paths, p, q),
                self.cfg_max_skip,
            );
            self.store_skip(p, skip, lead_s);
        }
    }

    /// Fold the paths of a flow that has not started into one (see `folded`).
    fn fold_paths(&mut self) {
        if self.paths.is_empty() {
            return;
        }
        self.folded = Some(Box::new(self.paths[0].clone()));
        self.drop_path_state();
    }

    /// Free the per-path state: the paths, their samples, deficits and scratch.
    fn drop_path_state(&mut self) {
        self.skips_pending = 0;
        self.base_rtts_current = false;
        self.paths = Vec::new();
        self.stable_paths = 0;
        self.samples = Vec::new();
        self.deficits = Deficits::new(0);
        self.open_scratch = Vec::new();
    }

    /// Unfold the paths (the flow starts, or a driver calls in before `begin`): the same state
    /// `new` built, path by path.
    #[inline(always)]
    fn unfold_paths(&mut self) {
        if self.folded.is_some() {
            self.unfold_paths_now();
        }
    }

    #[cold]
    #[inline(never)]
    fn unfold_paths_now(&mut self) {
        let Some(proto) = self.folded.take() else { return };
        self.base_rtts_current = false;
        let n = self.n_paths;
        let e0 = proto.entropy;
        self.paths = (0..n)
            .map(|p| {
                let mut ps = (*proto).clone();
                ps.entropy = e0.wrapping_add(p as u16);
                ps
            })
            .collect();
        if self.keep_samples {
            self.samples = vec![PathSample::default(); n];
        }
        self.deficits = Deficits::new(n);
        self.open_scratch = Vec::with_capacity(n);
        self.stable_paths = self.paths.iter().filter(|p| self.path_is_stable(p)).count();
        self.refresh_samples(self.start);
    }

    fn refresh_samples(&mut self, now: Time) {
        if !self.keep_samples {
            return;
        }
        // The samples show each path's skip: the pending ones are evaluated for them.
        self.settle_all_skips();
        let wire = (self.core.msg.mtu_bytes + self.header_bytes) as f64;
        for (i, ps) in self.paths.iter().enumerate() {
            let (rate, q) = match &ps.cc {
                PathCc::Arcc(a) => (a.rate_pkts_per_s, a.q),
                PathCc::Swift(_) => (ps.w / ps.srtt_s.max(1e-12), 0.0),
            };
            self.samples[i] = PathSample {
                path: i as u16,
                window_bytes: (ps.window() * self.core.msg.mtu_bytes as f64) as u64,
                ack_rate_bps: (rate * wire * 8.0) as u64,
                inflight_pkts: ps.sent.len() as u32,
                margin_bytes: (q * self.core.msg.mtu_bytes as f64) as u64,
                fwd_delay_ns: ps.fwd_s * 1e9,
                skip: ps.skip,
                probing: ps.probe.active(now),
            };
        }
    }

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

impl Transport for RondoSender {
    const NAME: &'static str = "rondo";

    const KNOBS: &'static [&'static str] = RondoConfig::KNOBS;

    type Config = RondoConfig;

    fn default_cc() -> CcKind {
        CcKind::Arcc
    }

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::EarlyRecovery
    }

    fn read_config(tc: &TransportConfig) -> Result<RondoConfig, String> {
        RondoConfig::from_knobs(tc)
    }

    fn uses_longest_path_rtt(cfg: &RondoConfig) -> bool {
        cfg.rtt_bound
    }

    fn sack_below(cfg: &RondoConfig) -> bool {
        cfg.ack_bitmap
    }

    /// A sender for the flow (or connection) `fenv`.
    fn new(cfg: &RondoConfig, fenv: &FlowEnv) -> Result<RondoSender, String> {
        let (env, entropy, start, seed) = (&fenv.cc, fenv.entropy, fenv.start, fenv.seed);
        env.check()?;
        let core = SenderCore::for_env(
            fenv,
            RecoveryConfig {
                er_per_packet: cfg.er_per_packet,
                er_path_confirm: cfg.er_path_confirm,
                sack_below: cfg.ack_bitmap,
                ..cfg.recovery
            },
        )?;
        let mtu = core.mtu_bytes();
        let pkts = core.msg.packets as u64;
        if env.base_rtt == Time::ZERO {
            return Err("rondo needs a positive base RTT".into());
        }
        let n = cfg.paths_for(fenv.equal_cost_paths) as usize;
        let t_env = env.base_rtt;
        let tau_q = cfg.tau_q.resolve(RondoConfig::tau_q_reference(env)).secs_f64();
        let params = ArccParams {
            q0: cfg.q0.packets(mtu),
            tau_q_s: tau_q,
            alpha: cfg.alpha,
            alpha_side: cfg.alpha_side,
            gamma: cfg.gamma,
            w0: cfg.initial_window_pkts(env, mtu, n as u16, fenv.equal_cost_paths),
            fast_drain: cfg.fast_drain,
            w_min: 1.0 / 16.0,
        };
        let swift_mode = cfg.cc.kind == CcKind::Swift;
        let swift_cfg = if swift_mode {
            // One flow BDP split over the paths, unless the scenario sets `init_cwnd`.
            let mut c = CcConfig::new(CcKind::Swift).with(
                "init_cwnd",
                Knob::Str(format!("{}B", (env.bdp_bytes() / n as u64).max(mtu as u64))),
            );
            c.overrides.extend(cfg.cc.overrides.iter().cloned());
            let mut sc = SwiftConfig::defaults_for(env);
            for (k, v) in &c.overrides {
                sc.apply_knob(k, v)?;
            }
            sc.check()?;
            Some(sc)
        } else {
            if let Some((k, _)) = cfg.cc.overrides.first() {
                return Err(format!(
                    "`transport.cc_params.{k}`: ARCC's parameters are fields of the `rondo` transport (`tu`, `q0`, `tau_q`, `alpha`, `gamma`, `w0`, …)"
                ));
            }
            None
        };
        let e0 = entropy & 0xFF00;
        let probe_until =
            if cfg.probing { start + t_env.mul_f64(cfg.probe_phase) } else { Time::ZERO };
        let paths = (0..n)
            .map(|p| {
                let cc = match &swift_cfg {
                    Some(sc) => PathCc::Swift(Box::new(Swift::new(sc.clone(), env))),
                    None => PathCc::Arcc(ArccPath::new(&params)),
                };
                let w = match &cc {
                    PathCc::Arcc(a) => a.w,
                    PathCc::Swift(s) => s.cwnd() / mtu as f64,
                };
                PathState {
                    entropy: e0.wrapping_add(p as u16),
                    cc,
                    sample: AckSample::default(),
                    base_rtt: t_env,
                    min_rtt: Time::MAX,
                    srtt_s: t_env.secs_f64(),
                    rtt_seeded: false,
                    probe: PathProbing::new(probe_until, cfg.probing),
                    fwd_s: 0.0,
                    fwd_n: 0,
                    stable: 0,
                    ts_next: if cfg.scheduler { start } else { Time::MAX },
                    // Taken on the path's first transmission (and returned at completion).
                    ts_pending: VecDeque::new(),
                    skip: 0,
                    skip_lead_s: 0.0,
                    w,
                    sent: VecDeque::new(),
                    last_update: start,
                    next_update: start + cfg.tu.resolve(t_env).max(Time::from_ps(1)),
                }
            })
            .collect();
        let tu = cfg.tu.resolve(t_env).max(Time::from_ps(1));
        let ts_interval = cfg.ts_interval.resolve(t_env);
        let mut s = RondoSender {
            core,
            header_bytes: cfg.header_bytes,
            start,
            t_env,
            tu,
            ts_interval,
            tau_q_s: tau_q,
            stable_tol_s: cfg.stable_tol.resolve(t_env).secs_f64(),
            params,
            cfg_probe_phase: cfg.probe_phase,
            cfg_probe_trigger: cfg.probe_trigger,
            cfg_probe_slack: cfg.probe_slack,
            cfg_delay_gain: cfg.delay_gain,
            cfg_stable_samples: cfg.stable_samples,
            rtt_floor: cfg.rtt_floor,
            t_bound: if cfg.rtt_bound && fenv.longest_path_rtt > Time::ZERO {
                fenv.longest_path_rtt.max(t_env)
            } else {
                Time::MAX
            },
            skip_expiry: cfg.skip_expiry,
            startup_skips_per_sample: cfg.startup_skips_per_sample,
            lowest_since: start,
            cfg_max_skip: cfg.max_skip_pkts(env, mtu),
            probing: cfg.probing,
            probe_rate_unsent: cfg.probe_rate_unsent,
            probe_next_at: start,
            scheduler: cfg.scheduler,
            selection: cfg.path_selection,
            swift_mode,
            unsent: UnsentSet::new(pkts as u32),
            paths,
            samples: vec![PathSample::default(); n],
            pacer: FlowPacer::new(start),
            deficits: Deficits::new(n),
            open_scratch: Vec::with_capacity(n),
            next_update: start + tu,
            tu_rel: cfg.tu,
            probe_rr: 0,
            sched_on: false,
            stable_paths: 0,
            sched_stable: false,
            aligned: None,
            paths_released: false,
            folded: None,
            base_rtts_current: false,
            best_rtt: Time::MAX,
            n_paths: n,
            keep_samples: true,
            skips_pending: 0,
            #[cfg(debug_assertions)]
            eager_skips: Vec::new(),
            aligned_paths: if cfg.scheduler
                && cfg.scheduler_from_first_samples
                && n <= MAX_ALIGNED_PATHS
            {
                n
            } else {
                0
            },
            startup_sched: cfg.scheduler
                && cfg.scheduler_from_first_samples
                && n <= MAX_ALIGNED_PATHS,
            rng: Rng::new(seed),
            stats: RondoStats::default(),
        };
        if cfg.probing {
            s.stats.probe_phases = n as u64;
        }
        s.recompute_pacer();
        s.refresh_samples(start);
        s.fold_paths();
        Ok(s)
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
