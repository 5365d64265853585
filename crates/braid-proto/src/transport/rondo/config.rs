//! Rondo's configuration: the `[transport]` knobs of `transport.kind = "rondo"`, their defaults
//! (Rondo §6.2.1) and how they are read.

use braid_core::Time;

use crate::cc::{CcConfig, CcEnv, CcKind};
use crate::recovery::RecoveryConfig;
use crate::transport::knobs::{amount, one_of, recovery_knob, rel_time, unit_interval};
use crate::transport::TransportConfig;

use super::AlphaSide;

/// How the controller picks the path of a transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSelection {
    /// Deficit-based (§4.2.3).
    Deficit,
    /// Uniformly among paths with an open window (random packet spraying, the Fig 21 ablation).
    Random,
}

/// A duration given either as a multiple of a reference RTT (a plain number) or absolutely (a
/// string with a unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RelTime {
    /// This many reference RTTs.
    Rtts(f64),
    /// An absolute duration.
    Abs(Time),
}

impl RelTime {
    /// The duration for reference RTT `rtt`.
    pub fn resolve(self, rtt: Time) -> Time {
        match self {
            RelTime::Rtts(k) => rtt.mul_f64(k),
            RelTime::Abs(t) => t,
        }
    }
}

/// An amount of data given in MTUs (a plain number) or bytes (a string with a unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// This many MTU-sized packets.
    Mtus(f64),
    /// Bytes.
    Bytes(u64),
}

impl Amount {
    /// In packets of `mtu` bytes.
    pub fn packets(self, mtu: u32) -> f64 {
        match self {
            Amount::Mtus(k) => k,
            Amount::Bytes(b) => b as f64 / mtu.max(1) as f64,
        }
    }
}

/// Rondo's configuration: the `[transport]` fields of a scenario with `kind = "rondo"`.
#[derive(Clone, Debug)]
pub struct RondoConfig {
    /// `arcc` (default) or `swift` (per-path Swift, ablation).
    pub cc: CcConfig,
    /// Loss recovery (default: Early Recovery with threshold 4).
    pub recovery: RecoveryConfig,
    /// Header bytes added to each packet's payload on the wire.
    pub header_bytes: u32,
    /// `paths`: logical paths per flow (1 to 256), or with `paths_auto` the most a flow takes.
    pub paths: u16,
    /// `paths = "auto"` (the default): [`AUTO_PATHS_PER_PHYSICAL`] logical path per equal-cost
    /// physical path between the flow's two hosts ([`FlowEnv::equal_cost_paths`](crate::events::FlowEnv::equal_cost_paths)), at least
    /// [`MIN_AUTO_PATHS`] (the four of the paper's prototype, §5) and at most `paths`
    /// ([`MAX_AUTO_PATHS`]): 16 between pods of the paper's Clos (§6.2.1), 4 inside a pod, 25–64
    /// between pods of Fig 22's fat-trees. See the module docs.
    pub paths_auto: bool,
    /// `path_selection`: `"deficit"` (default) or `"random"`.
    pub path_selection: PathSelection,
    /// `probing`: capacity probing on (default for ARCC) or off.
    pub probing: bool,
    /// `scheduler`: packet scheduler on (default) or off.
    pub scheduler: bool,
    /// `scheduler_start`: when the scheduler starts skipping — `"first-samples"` (default: from
    /// arrival-aligned first samples until the stability gate first opens, see the module docs;
    /// flows of more than 32 logical paths start at the gate) or `"stable"` (only once the gate
    /// opens, the literal §4.3 reading).
    pub scheduler_from_first_samples: bool,
    /// `tu`: ARCC update interval (default 0.5 base RTT).
    pub tu: RelTime,
    /// `q0`: margin cap (default 3 MTU).
    pub q0: Amount,
    /// `tau_q`: target queueing delay (default 0.04 × the network's largest base RTT).
    pub tau_q: RelTime,
    /// `alpha`: ACK-rate EWMA parameter (default 0.8).
    pub alpha: f64,
    /// `alpha_side`: which side α weights (`"history"`, default, or `"sample"`).
    pub alpha_side: AlphaSide,
    /// `gamma`: window EWMA gain (default 0.5).
    pub gamma: f64,
    /// `w0`: initial window per path. Unset (`None`): [`DEFAULT_W0_PKTS`] (4 MTU) with capacity probing (§4.2.2: each
    /// path starts at `W0` and probes for the rest), and one line-rate BDP split over the paths
    /// without it — the capacity-agnostic start of the baselines (§3.2, Fig 3), which is what the
    /// "w/o probing" variants of the Fig 21 ablation need: with `W0` = 2 MTU and no probing ARCC
    /// can grow only by its margin (`q0/4` per update) and a 2 MB flow takes ~4× its ideal FCT.
    pub w0: Option<Amount>,
    /// `fast_drain`: direct window update when `d_p > fast_drain·τq` (default 2).
    pub fast_drain: f64,
    /// `probe_phase`: length of a probing phase in path base RTTs (default 3).
    pub probe_phase: f64,
    /// `probe_trigger`: consecutive fully-acknowledged updates that start a phase (default 5).
    pub probe_trigger: u32,
    /// `probe_slack`: slack of the "acknowledged within T" check, as a fraction of τq (default 0.5).
    pub probe_slack: f64,
    /// `delay_gain`: EWMA gain of the forward-delay estimate (default 0.5).
    pub delay_gain: f64,
    /// `stable_samples`: consecutive stable delay samples before the scheduler acts (default 3).
    pub stable_samples: u32,
    /// `stable_tol`: a sample is stable within this of the estimate (default 0.05 base RTT).
    pub stable_tol: RelTime,
    /// `max_skip`: largest skip in packets. Unset (`None`): [`RondoConfig::max_skip_pkts`] —
    /// 4096, or the line-rate packets of the network's largest base RTT when that is more.
    pub max_skip: Option<u32>,
    /// `probe_rate`: how fast a probing flow may send probes — `"unsent"` (default: at most the
    /// flow's unsent data packets per base RTT, and never above line rate) or `"line-rate"`
    /// (every denied send opportunity of the phase, the literal §4.2.2 reading). See the module
    /// docs, "Probing at long RTTs".
    pub probe_rate_unsent: bool,
    /// `ts_interval`: a data packet per path carries a timestamp request at most this often
    /// (default 0.125 base RTT, i.e. `Tu/4`).
    pub ts_interval: RelTime,
    /// `er_mode` for `recovery = "er"`: `"per-path"` (default: per packet, confirmed by a later
    /// delivery on the packet's path), `"per-packet"` (the paper's literal rule,
    /// [`RecoveryConfig::er_per_packet`]) or `"episode"` (the shared UET-style episodes).
    pub er_per_packet: bool,
    /// `er_mode = "per-path"`: per packet, confirmed by a later delivery on the packet's own
    /// path ([`RecoveryConfig::er_path_confirm`]).
    pub er_path_confirm: bool,
    /// `ack_bitmap`: every per-packet ACK carries the bitmap of the 64 PSNs below the acknowledged
    /// one (default true; the prototype's "bitmap-based packet arrival tracking", Appendix D).
    /// Without it a lost ACK of a packet above the cumulative ACK reads as a lost packet once a
    /// later packet on its path is acknowledged: at 0.1 % loss on every link that made 0.25 % of
    /// the packets sent spurious copies on `examples/rondo-permutation.toml`, 0 with data-only loss.
    pub ack_bitmap: bool,
    /// `rtt_floor`: `T_p` is never below the smallest RTT measured on the path (default true; see
    /// "Base RTT `T` per path" in the module docs). It keeps a path whose every route is longer
    /// than the topology's hint from starving, and it also counts a standing queue that a flow
    /// joins into that flow's `T_p` (Fig 25's late joiner takes more than its share); `false`
    /// trusts the hint plus each path's excess over the flow's best path.
    pub rtt_floor: bool,
    /// `rtt_bound`: `T_p` is never above the base RTT of the longest minimum-hop path between the
    /// flow's hosts, as the topology (with the link changes in effect at the flow's start) gives
    /// it (default false). Where the equal-cost paths are alike that pins `T_p` to the topology's
    /// figure — the paper's "derived from the topology" — so that neither the floor nor a path's
    /// excess over the flow's best path counts a standing queue the path met as propagation
    /// (flows joining one by one then share equally, Prop 1); where paths differ (a delayed link,
    /// the testbed) a path may still be measured up to the longest. (On real packets, `braid send`,
    /// the longest is the paths' largest round trip measured when the session opens.) A path made longer after the
    /// flow started is not in the bound and starves as without the floor (+20 µs on every fabric
    /// link 1 ns after the start: 27.8 ms instead of 0.52 ms). Not the default: measured on every
    /// figure it brings Figs 17, 21 and 25 closer to the paper but costs Fig 12's Web Search 50 %
    /// panel 4 % of p99 slowdown and lets Fig 10's incast reorder by 1–2 packets (`docs/rondo.md`,
    /// "Base RTT per path").
    pub rtt_bound: bool,
    /// `skip_expiry`: a PSN the scheduler left for a faster path (a skip) is sent by the next
    /// transmission on any path once it has waited more than twice the sending path's lead over
    /// the fastest path, `max_q (D_p − D_q)`. Eq 7 leaves the skipped PSNs "for transmissions
    /// expected to arrive earlier", which take about one lead to use them; when no faster path
    /// sends for longer (its window full while its ACKs are held), they arrive after everything
    /// the skipping path keeps sending, and the reordering grows for as long as they wait.
    /// Default true: the paper leaves open what happens to a reservation no faster path takes;
    /// measured on every figure, expiry brings Fig 23's maxima within the paper's range and
    /// raises the OOD of Figs 9c (+10 µs), 11, 13 and 21 a little without changing any figure's outcome
    /// (`docs/rondo.md`, "Skipped PSNs that wait"); `false` keeps every reservation until a
    /// faster path sends.
    pub skip_expiry: bool,
    /// `startup_skips`: when the start-up scheduler (`scheduler_start = "first-samples"`, before
    /// the stability gate first opens) recomputes Eq 7 — `"per-sample"` (default: on every delay
    /// sample that adds a pairing, so the credits the first ACKs open are scheduled at once) or
    /// `"per-update"` (with ARCC's window update every `Tu`, as §5 runs "ARCC and skip
    /// calculations … periodically off the critical path"). Past the gate skips are per update
    /// either way.
    pub startup_skips_per_sample: bool,
    /// `paths_per_physical`: logical paths per equal-cost physical path under `paths = "auto"`
    /// (default [`AUTO_PATHS_PER_PHYSICAL`]).
    pub paths_per_physical: u32,
    /// `w0_per = "physical-path"`: `W0` is the initial window of each *physical* path, shared by
    /// the logical paths a flow has per physical path (each starts at `W0 / k` with `k` logical
    /// paths per physical path), so that a flow's first window, and Prop 2's `N_S·W0` term, do not
    /// grow with its logical paths; `"logical-path"` (default): each logical path starts at `W0`.
    pub w0_per_physical: bool,
    /// `q0_per = "physical-path"`: the margin cap `q0` is each *physical* path's, shared by the
    /// logical paths a flow has per physical path (each caps its margin at `q0 / k`), so that the
    /// standing queue of a flow's margins (Prop 2's `N_l·q0/4` term at the start, `N_l·q0` at
    /// most) does not grow with its logical paths; `"logical-path"` (default): `q0` each.
    pub q0_per_physical: bool,
}

/// Each of a flow's `n` logical paths' share of a physical path's `amount` when `shared`
/// (`w0_per` / `q0_per = "physical-path"`) and the flow has more logical paths than its
/// `equal_cost` physical ones: `amount · equal_cost / n`; `None`: each has the whole amount.
fn physical_share(shared: bool, amount: f64, n: u16, equal_cost: u32) -> Option<f64> {
    (shared && equal_cost > 0 && n as u32 > equal_cost)
        .then(|| amount * equal_cost as f64 / n as f64)
}

/// The initial window per path with capacity probing, in packets (`w0` unset): "a few MTU" (§4.2.2).
/// Measured on the paper's Fig 12 workloads (the 320-host Clos, 50 % load, p99 FCT slowdown; W0 =
/// 2 / 3 / 4 / 6 / 12 MTU): Web Search 5.24 / 4.83 / 4.45 / 4.24 / 4.30, Cache Follower 6.12 /
/// 6.02 / 5.82 / 5.74 (MP-RDMA 4.50 / 6.08, Falcon 4.85 / 5.88): a flow of a few packets per path
/// finishes in its first round trip instead of waiting for its probes. See docs/rondo.md.
pub const DEFAULT_W0_PKTS: f64 = 4.0;

/// The fewest logical paths `paths = "auto"` gives a flow: the four of the paper's prototype
/// (§5), so that a flow whose hosts have one or two physical paths still has logical paths to
/// spread over when a failure or a hash collision takes one.
pub const MIN_AUTO_PATHS: u32 = 4;

/// The most logical paths `paths = "auto"` gives a flow (one per equal-cost physical path up to
/// this many): 64, every path between pods of the largest fat-tree of the paper's Fig 22
/// (k = 16), as §6.2.1 gives a flow as many logical paths as there are equal-cost paths. With a
/// cap of 16 a flow of Fig 22's all-to-all spread over 16 of its 25–64 paths between pods, and
/// the slowest flows took 817–865 µs at k = 12–16 where every path gives 740–741 (placed one to
/// one). Flows of more than 32 logical paths start their scheduler at the stability gate, not
/// from arrival-aligned first samples (module docs).
pub const MAX_AUTO_PATHS: u16 = 64;

/// The most logical paths a flow may have (`paths = N`).
pub const MAX_PATHS: usize = 256;

/// Logical paths per physical path under `paths = "auto"`. More cover the physical paths more
/// evenly under ECMP (four hashed onto four leave at least one unused nine times in ten) but raise the OOD where
/// path delays differ; one per physical path is the measured compromise (module docs).
pub const AUTO_PATHS_PER_PHYSICAL: u32 = 1;

impl RondoConfig {
    /// Rondo's default parameters with congestion control `cc` (`arcc`, the default, or `swift`,
    /// an ablation; capacity probing is on with ARCC), loss recovery `recovery` and
    /// `header_bytes` per packet on the wire.
    pub fn defaults(
        cc: CcConfig,
        recovery: RecoveryConfig,
        header_bytes: u32,
    ) -> Result<RondoConfig, String> {
        match cc.kind {
            CcKind::Arcc | CcKind::Swift => {}
            other => {
                return Err(format!(
                    "transport `rondo` takes `cc = \"arcc\"` (its own controller, the default) or `\"swift\"` (per-path Swift, an ablation), not `{other}`"
                ))
            }
        }
        Ok(RondoConfig {
            probing: cc.kind == CcKind::Arcc,
            cc,
            recovery,
            header_bytes,
            paths: MAX_AUTO_PATHS,
            paths_auto: true,
            path_selection: PathSelection::Deficit,
            scheduler: true,
            scheduler_from_first_samples: true,
            tu: RelTime::Rtts(0.5),
            q0: Amount::Mtus(3.0),
            tau_q: RelTime::Rtts(0.04),
            alpha: 0.8,
            alpha_side: AlphaSide::History,
            gamma: 0.5,
            w0: None,
            fast_drain: 2.0,
            probe_phase: 3.0,
            probe_trigger: 5,
            probe_slack: 0.5,
            delay_gain: 0.5,
            stable_samples: 3,
            stable_tol: RelTime::Rtts(0.05),
            max_skip: None,
            probe_rate_unsent: true,
            ts_interval: RelTime::Rtts(0.125),
            er_per_packet: true,
            er_path_confirm: true,
            ack_bitmap: true,
            rtt_floor: true,
            rtt_bound: false,
            skip_expiry: true,
            startup_skips_per_sample: true,
            paths_per_physical: AUTO_PATHS_PER_PHYSICAL,
            w0_per_physical: false,
            q0_per_physical: false,
        })
    }

    /// The number of logical paths of a flow whose hosts are joined by `equal_cost` physical
    /// paths (0: unknown): `paths`, or with `paths_auto` one per physical path, at most `paths`.
    pub fn paths_for(&self, equal_cost: u32) -> u16 {
        if !self.paths_auto || equal_cost == 0 {
            return self.paths;
        }
        equal_cost
            .saturating_mul(self.paths_per_physical)
            .clamp(MIN_AUTO_PATHS.min(self.paths as u32), self.paths as u32) as u16
    }

    /// The initial window per path in packets of `mtu` bytes for a flow of `n` logical paths
    /// (see [`RondoConfig::w0`]).
    pub fn initial_window_pkts(&self, env: &CcEnv, mtu: u32, n: u16, equal_cost: u32) -> f64 {
        let per_path = match self.w0 {
            Some(a) => a.packets(mtu),
            None if self.probing => DEFAULT_W0_PKTS,
            None => return (env.bdp_bytes() as f64 / mtu.max(1) as f64 / n.max(1) as f64).max(1.0),
        };
        match physical_share(self.w0_per_physical, per_path, n, equal_cost) {
            // k logical paths per physical path share its W0, none below one packet.
            Some(share) => share.max(1.0),
            None => per_path,
        }
    }

    /// The margin cap per path in packets of `mtu` bytes for a flow of `n` logical paths over
    /// `equal_cost` physical ones (see [`RondoConfig::q0_per_physical`]).
    pub fn margin_cap_pkts(&self, mtu: u32, n: u16, equal_cost: u32) -> f64 {
        let per_path = self.q0.packets(mtu);
        physical_share(self.q0_per_physical, per_path, n, equal_cost).unwrap_or(per_path)
    }

    /// The largest skip in packets: `max_skip`, or by default `max(4096, line-rate packets of
    /// the network's largest base RTT)`. A skip is at most `R·ΔD`, and `ΔD` is below the largest
    /// RTT, so the default never binds on a path set the NIC could fill; 4096 (the datacenter
    /// figure, above every skip measured there) keeps the cap for µs networks, and between
    /// datacenters `R·ΔD` reaches 10^4–10^6 packets (docs/rondo.md, between datacenters).
    pub fn max_skip_pkts(&self, env: &CcEnv, mtu: u32) -> u32 {
        self.max_skip.unwrap_or_else(|| {
            let pkts = env.line_rate.bdp_bytes(env.max_rtt) / mtu.max(1) as u64;
            pkts.clamp(4096, u32::MAX as u64) as u32
        })
    }

    /// The reference RTT of `tau_q` given as a multiple: the network's largest base RTT (§6.2.1,
    /// where every RTT is a few µs), but between datacenters, where that is hundreds of ms, the
    /// flow's own base RTT once it is above 1 ms — a queueing target of 4 % of the *network's*
    /// largest RTT would let a 5 ms flow queue 20 ms on each path. Below 1 ms (every datacenter
    /// RTT) the figure is the paper's.
    pub fn tau_q_reference(env: &CcEnv) -> Time {
        env.max_rtt.max(env.base_rtt).min(env.base_rtt.max(Time::from_ms(1)))
    }

    /// Capacity probing needs ARCC's capacity estimate.
    pub fn check_probing(&self) -> Result<(), String> {
        if self.probing && self.cc.kind != CcKind::Arcc {
            return Err("capacity probing needs ARCC's capacity estimate; use `cc = \"arcc\"` or `probing = false`".into());
        }
        Ok(())
    }

    /// Rondo sprays packets over paths: the loss recovery must be selective.
    pub fn check_recovery(&self) -> Result<(), String> {
        if !self.recovery.kind.receiver_buffers() {
            return Err("rondo sprays packets over paths and needs a selective scheme (er, sr, irn, rack-tlp, rack-tlp-per-path), not go-back-N".into());
        }
        Ok(())
    }
}

impl RondoConfig {
    /// The `[transport]` knobs of transport `rondo`.
    pub const KNOBS: &'static [&'static str] = &[
        "paths",
        "path_selection",
        "probing",
        "scheduler",
        "scheduler_start",
        "tu",
        "q0",
        "tau_q",
        "alpha",
        "alpha_side",
        "gamma",
        "w0",
        "fast_drain",
        "probe_phase",
        "probe_trigger",
        "probe_slack",
        "delay_gain",
        "stable_samples",
        "stable_tol",
        "max_skip",
        "probe_rate",
        "ts_interval",
        "er_threshold",
        "er_mode",
        "ack_bitmap",
        "rtt_floor",
        "rtt_bound",
        "skip_expiry",
        "startup_skips",
        "paths_per_physical",
        "w0_per",
        "q0_per",
    ];

    /// Read the `[transport]` knobs of `tc` (on top of [`RondoConfig::defaults`]); errors name
    /// the field.
    pub fn from_knobs(tc: &TransportConfig) -> Result<RondoConfig, String> {
        let mut c = RondoConfig::defaults(tc.cc.clone(), tc.recovery, tc.header_bytes)
            .map_err(|e| format!("`transport.cc`: {e}"))?;
        for (k, v) in &tc.params {
            let r: Result<(), String> = (|| {
                match k.as_str() {
                    "paths" if v.as_str().is_ok_and(|s| s == "auto") => {
                        c.paths_auto = true;
                        c.paths = 16;
                    }
                    "paths" => {
                        let n = v
                            .as_u64()
                            .map_err(|_| "must be \"auto\" or a number of paths".to_string())?;
                        if n == 0 || n > MAX_PATHS as u64 {
                            return Err(format!(
                                "must be \"auto\" or between 1 and {MAX_PATHS}, got {n}"
                            ));
                        }
                        c.paths = n as u16;
                        c.paths_auto = false;
                    }
                    "path_selection" => {
                        c.path_selection = one_of(
                            v.as_str()?,
                            &[
                                ("deficit", PathSelection::Deficit),
                                ("random", PathSelection::Random),
                            ],
                        )?
                    }
                    "probing" => {
                        c.probing = v.as_bool()?;
                        c.check_probing()?;
                    }
                    "scheduler" => c.scheduler = v.as_bool()?,
                    "scheduler_start" => {
                        c.scheduler_from_first_samples =
                            one_of(v.as_str()?, &[("stable", false), ("first-samples", true)])?
                    }
                    "tu" => c.tu = rel_time(v)?,
                    "q0" => c.q0 = amount(v)?,
                    "tau_q" => c.tau_q = rel_time(v)?,
                    "alpha" => c.alpha = unit_interval(v, false)?,
                    "alpha_side" => {
                        c.alpha_side = one_of(
                            v.as_str()?,
                            &[("sample", AlphaSide::Sample), ("history", AlphaSide::History)],
                        )?
                    }
                    "gamma" => c.gamma = unit_interval(v, false)?,
                    "w0" => c.w0 = Some(amount(v)?),
                    "fast_drain" => c.fast_drain = v.as_nonneg_f64()?,
                    "probe_phase" => {
                        let x = v.as_nonneg_f64()?;
                        if x == 0.0 {
                            return Err("must be positive".into());
                        }
                        c.probe_phase = x
                    }
                    "probe_trigger" => {
                        let n = v.as_u64()?;
                        if n == 0 {
                            return Err("must be at least 1".into());
                        }
                        c.probe_trigger = n.min(u32::MAX as u64) as u32
                    }
                    "probe_slack" => c.probe_slack = v.as_nonneg_f64()?,
                    "delay_gain" => c.delay_gain = unit_interval(v, false)?,
                    "stable_samples" => c.stable_samples = v.as_u64()?.min(u32::MAX as u64) as u32,
                    "stable_tol" => c.stable_tol = rel_time(v)?,
                    "max_skip" => c.max_skip = Some(v.as_u64()?.min(u32::MAX as u64) as u32),
                    "probe_rate" => {
                        c.probe_rate_unsent =
                            one_of(v.as_str()?, &[("unsent", true), ("line-rate", false)])?
                    }
                    "ts_interval" => c.ts_interval = rel_time(v)?,
                    "er_threshold" => recovery_knob(&mut c.recovery, "er_threshold", v)?,
                    "er_mode" => {
                        (c.er_per_packet, c.er_path_confirm) = one_of(
                            v.as_str()?,
                            &[
                                ("per-packet", (true, false)),
                                ("per-path", (true, true)),
                                ("episode", (false, false)),
                            ],
                        )?
                    }
                    "ack_bitmap" => c.ack_bitmap = v.as_bool()?,
                    "rtt_floor" => c.rtt_floor = v.as_bool()?,
                    "rtt_bound" => c.rtt_bound = v.as_bool()?,
                    "skip_expiry" => c.skip_expiry = v.as_bool()?,
                    "startup_skips" => {
                        c.startup_skips_per_sample =
                            one_of(v.as_str()?, &[("per-sample", true), ("per-update", false)])?
                    }
                    "paths_per_physical" => {
                        let n = v.as_u64()?;
                        if n == 0 || n > MAX_PATHS as u64 {
                            return Err(format!("must be between 1 and {MAX_PATHS}, got {n}"));
                        }
                        c.paths_per_physical = n as u32;
                    }
                    "w0_per" => {
                        c.w0_per_physical = one_of(
                            v.as_str()?,
                            &[("logical-path", false), ("physical-path", true)],
                        )?
                    }
                    "q0_per" => {
                        c.q0_per_physical = one_of(
                            v.as_str()?,
                            &[("logical-path", false), ("physical-path", true)],
                        )?
                    }
                    _ => {
                        return Err(format!(
                            "unknown field for transport `rondo` (known: {})",
                            Self::KNOBS.join(", ")
                        ))
                    }
                }
                Ok(())
            })();
            r.map_err(|e| format!("`transport.{k}`: {e}"))?;
        }
        c.check_recovery().map_err(|e| format!("`transport.recovery`: {e}"))?;
        c.check_scheduler_knobs(tc)?;
        Ok(c)
    }

    /// A scheduler knob set where the scheduler part it changes does not run is refused rather
    /// than silently ignored: `skip_expiry` needs the scheduler, `startup_skips` its start-up
    /// estimate (`scheduler_start = "first-samples"`).
    fn check_scheduler_knobs(&self, tc: &TransportConfig) -> Result<(), String> {
        let set = |k: &str| tc.params.iter().any(|(n, _)| n == k);
        if set("skip_expiry") && self.skip_expiry && !self.scheduler {
            return Err("`transport.skip_expiry`: has no effect with `scheduler = false`".into());
        }
        if set("startup_skips") && !(self.scheduler && self.scheduler_from_first_samples) {
            return Err(
                "`transport.startup_skips`: has no effect without the start-up scheduler (`scheduler = true`, `scheduler_start = \"first-samples\"`)".into()
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::RecoveryKind;

    fn cfg() -> RondoConfig {
        RondoConfig::defaults(
            CcConfig::new(CcKind::Arcc),
            RecoveryConfig::new(RecoveryKind::EarlyRecovery),
            64,
        )
        .unwrap()
    }

    /// `paths = "auto"` gives `paths_per_physical` logical paths per equal-cost path, at least
    /// four and at most `paths`; `w0_per = "physical-path"` keeps a flow's first window at `W0` per
    /// physical path however many logical paths share it (Prop 2's `N_S·W0`), never below a packet.
    #[test]
    fn logical_paths_per_physical_path_and_their_first_window() {
        let env = CcEnv::reference_100g();
        let mut c = cfg();
        assert_eq!(
            (c.paths_for(1), c.paths_for(4), c.paths_for(16), c.paths_for(100)),
            (4, 4, 16, 64)
        );
        c.paths_per_physical = 4;
        assert_eq!((c.paths_for(1), c.paths_for(4), c.paths_for(16)), (4, 16, 64));
        // Each logical path starts at W0 = 4 MTU unless the physical path's W0 is shared.
        assert_eq!(c.initial_window_pkts(&env, 1000, 16, 4), 4.0);
        c.w0_per_physical = true;
        let first = |c: &RondoConfig, eq: u32| {
            c.paths_for(eq) as f64 * c.initial_window_pkts(&env, 1000, c.paths_for(eq), eq)
        };
        assert_eq!(first(&c, 4), 16.0, "four physical paths: 4 x W0 in all");
        assert_eq!(first(&c, 16), 64.0);
        // One physical path under four logical ones: a packet each, not a quarter of W0.
        assert_eq!(c.initial_window_pkts(&env, 1000, 4, 1), 1.0);
        assert_eq!(
            c.initial_window_pkts(&env, 1000, 4, 0),
            4.0,
            "equal-cost count unknown: W0 per logical path"
        );
        // The margin cap: q0 = 3 MTU per logical path, or shared by a physical path's.
        assert_eq!(c.margin_cap_pkts(1000, 16, 4), 3.0);
        c.q0_per_physical = true;
        assert_eq!(c.margin_cap_pkts(1000, 16, 4), 0.75);
        assert_eq!(c.margin_cap_pkts(1000, 4, 4), 3.0, "one logical path per physical path");
        assert_eq!(c.margin_cap_pkts(1000, 16, 0), 3.0, "equal-cost count unknown");
    }
}
