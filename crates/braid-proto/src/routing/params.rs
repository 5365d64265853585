//! The routing knobs of a scenario (`[routing]`): LCMP's parameters and their choices
//! (`docs/lcmp.md`), UCMP's, WCMP's and TE's, parsed and checked by name ([`RoutingParams::apply_knob`]).

use super::*;

/// What a candidate's path-quality score covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathScope {
    /// The whole remaining path to the destination DC's DCI (or host): total one-way delay and
    /// bottleneck capacity (paper §3.2).
    Path,
    /// The next-hop link only (the artifact).
    NextHop,
}

/// How delays enter Alg. 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelayResolution {
    /// Exact.
    Exact,
    /// Truncated to whole milliseconds (the artifact).
    WholeMs,
}

/// The delay saturation point of Alg. 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxDelay {
    /// The smallest power-of-two number of milliseconds (at least 1 ms) at least as long as the
    /// longest candidate path the switch scores (with `path_scope = next-hop`: its longest link),
    /// computed by the control plane at bootstrap.
    Auto,
    /// A fixed point (the paper's example and the artifact: 32 ms).
    Fixed(Time),
}

/// The queue-level thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueScale {
    /// `share·i/10` of the port's share of the switch's buffer, `buffer / ports` (paper §3.1.2:
    /// "the switch divides its per-port egress buffer capacity into levels").
    PortShare,
    /// `buffer·i/10` of the whole shared buffer.
    Buffer,
    /// `capacity·i/10` of a given capacity in bytes.
    Bytes(u64),
    /// The artifact's `5e9·i/10` in `uint32` (binary in practice).
    Artifact,
}

/// When congestion signals are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// A periodic monitor over all ports.
    Periodic,
    /// On each new flow, once per candidate (the artifact).
    NewFlow,
}

/// Which candidates survive the filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepRule {
    /// `⌈n·keep_percent/100⌉` (at least 1), plus candidates tied with the last kept.
    Half,
    /// The artifact: `n/2`, or all when `n/2 < 2`.
    Artifact,
}

/// Which cost the "highly congested" threshold tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestedTest {
    /// `C_cong ≥ cost_threshold`.
    Congestion,
    /// The fused `C ≥ cost_threshold` (the artifact).
    Fused,
}

/// What to do when no kept candidate qualifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// The minimum-cost candidate (paper §3.4).
    MinCost,
    /// Hash over all candidates (the artifact).
    HashAll,
}

/// The flow-cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKeyKind {
    /// Source and destination address, ports, and direction.
    FiveTuple,
    /// The artifact's lossy 32-bit `(sip ≪ 16) | (dip ⊕ sport ⊕ dport)`.
    Artifact,
}

/// How ACKs, NAKs and CNPs are routed at LCMP switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckRouting {
    /// Along the reverse of the data path.
    Reverse,
    /// An independent decision for the reverse direction (the artifact).
    Independent,
}

/// Every LCMP knob (see the module table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LcmpParams {
    /// Weight of `C_path` in Eq. 1.
    pub alpha: u32,
    /// Weight of `C_cong` in Eq. 1.
    pub beta: u32,
    /// Right shift of Eq. 1.
    pub s_total: u32,
    /// Weight of the delay score in Eq. 2.
    pub w_dl: u32,
    /// Weight of the capacity score in Eq. 2.
    pub w_lc: u32,
    /// Right shift of Eq. 2.
    pub s_path: u32,
    /// Weight of the queue level in Eq. 4.
    pub w_ql: u32,
    /// Weight of the trend level in Eq. 4.
    pub w_tl: u32,
    /// Weight of the duration penalty in Eq. 4.
    pub w_dp: u32,
    /// Right shift of Eq. 5.
    pub s_cong: u32,
    /// EWMA shift `K` of Eq. 3.
    pub trend_k: u32,
    /// The duration counter rises while `Q ≥ dp_high` (80 % of 255).
    pub dp_high: u8,
    /// The duration counter falls while `Q ≤ dp_low` (40 % of 255).
    pub dp_low: u8,
    /// `D = counter ≫ dp_shift`.
    pub dp_shift: u32,
    /// "Highly congested" threshold (80 % of 255).
    pub cost_threshold: u8,
    /// Percentage of candidates the filter keeps.
    pub keep_percent: u32,
    /// Capacity of the top class of Alg. 2.
    pub max_capacity: Rate,
    /// Delay saturation point of Alg. 1.
    pub max_delay: MaxDelay,
    /// Scope of `C_path`.
    pub path_scope: PathScope,
    /// Delay resolution.
    pub delay_resolution: DelayResolution,
    /// Queue thresholds.
    pub queue_scale: QueueScale,
    /// Sampling of congestion signals.
    pub sampling: Sampling,
    /// Period of the monitor (`sampling = periodic`).
    pub monitor_interval: Time,
    /// Filter rule.
    pub keep: KeepRule,
    /// Which cost the threshold tests.
    pub congested: CongestedTest,
    /// Fallback.
    pub fallback: Fallback,
    /// Flow-cache key.
    pub flow_key: FlowKeyKind,
    /// ACK routing.
    pub ack_routing: AckRouting,
    /// Flow-cache idle timeout.
    pub idle_timeout: Time,
    /// Flow-cache entries examined per operation by the collector.
    pub gc_budget: u32,
    /// At most this many flow-cache entries per switch (`routing.flow_cache_capacity`; `None`:
    /// unbounded). LCMP §4 sizes a DCI's cache at 50,000 entries; a new flow that finds it full
    /// is hashed by plain ECMP over the candidates and not cached (§5's fallback).
    pub flow_cache_capacity: Option<usize>,
    /// Cache every first decision, those with a single candidate and those of ACKs included
    /// (`cache_every = true`, the artifact's: its switch looks the packet's key up before anything
    /// else and caches whatever it chose). With its lossy 32-bit key a later flow whose key
    /// collides then reuses that port — 1,124 of the 2,774 flows of the Fig 5 30 % run collide
    /// at their first DCI. Default false: only decisions among several candidates are cached.
    pub cache_every: bool,
    /// Only candidates whose path's base (propagation) delay is within this of the best
    /// candidate's stay candidates (`routing.max_delay_spread`; `None`, the default and `"inf"`:
    /// no filter). Applied before scoring, so the cost filter and hash work inside the
    /// delay-bounded set: the knob that trades path capacity against the reordering a
    /// multipath transport spraying over them must absorb (Rondo over LCMP). ECMP and UCMP
    /// (`routing.kind = "ecmp"` / `"ucmp"`) hash inside the same set.
    pub max_delay_spread: Option<Time>,
}

impl LcmpParams {
    /// The paper's design with its default weights.
    pub fn paper() -> LcmpParams {
        LcmpParams {
            alpha: 3,
            beta: 1,
            s_total: 2,
            w_dl: 3,
            w_lc: 1,
            s_path: 2,
            w_ql: 2,
            w_tl: 1,
            w_dp: 1,
            s_cong: 2,
            trend_k: 3,
            dp_high: 204,
            dp_low: 102,
            dp_shift: 2,
            cost_threshold: 204,
            keep_percent: 50,
            max_capacity: Rate::from_gbps(400),
            max_delay: MaxDelay::Auto,
            path_scope: PathScope::Path,
            delay_resolution: DelayResolution::Exact,
            queue_scale: QueueScale::PortShare,
            sampling: Sampling::Periodic,
            monitor_interval: Time::from_us(100),
            keep: KeepRule::Half,
            congested: CongestedTest::Congestion,
            fallback: Fallback::MinCost,
            flow_key: FlowKeyKind::FiveTuple,
            ack_routing: AckRouting::Reverse,
            idle_timeout: Time::from_ms(2000),
            gc_budget: 2,
            flow_cache_capacity: None,
            cache_every: false,
            max_delay_spread: None,
        }
    }

    /// The artifact's effective behaviour (`docs/lcmp.md`, artifact profile).
    pub fn artifact() -> LcmpParams {
        LcmpParams {
            max_delay: MaxDelay::Fixed(Time::from_ms(32)),
            path_scope: PathScope::NextHop,
            delay_resolution: DelayResolution::WholeMs,
            queue_scale: QueueScale::Artifact,
            sampling: Sampling::NewFlow,
            keep: KeepRule::Artifact,
            congested: CongestedTest::Fused,
            fallback: Fallback::HashAll,
            flow_key: FlowKeyKind::Artifact,
            ack_routing: AckRouting::Independent,
            cache_every: true,
            ..LcmpParams::paper()
        }
    }
}

/// Every routing knob of a scenario's `[routing]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingParams {
    /// LCMP knobs (used by `lcmp` and `lcmp-artifact`).
    pub lcmp: LcmpParams,
    /// Adaptive routing: compare 4 quantised queue levels instead of exact bytes.
    pub quantized: bool,
    /// WCMP table size the weights are reduced to.
    pub wcmp_table: u32,
    /// `ucmp-weighted`: keep paths whose latency is within this percentage above the best.
    pub ucmp_slack_percent: u32,
    /// How each switch orders its next hops toward a host (`routing.nexthop_order`); hashing
    /// schemes pick `hops[hash % n]`, so the order decides which link a hash value means.
    pub nexthop_order: NextHopOrder,
    /// The destination port the switches' hash reads for data (`routing.hash_dport`; default
    /// 4791, RoCEv2's UDP port; the LCMP artifact's flows carry 100).
    pub hash_dport: u16,
    /// TE's knobs (`routing.kind = "te"`: `te_interval`, `te_step`, `te_granularity`,
    /// `te_window`, `te_threshold`).
    pub te: te::TeParams,
    /// UCMP keeps a flow cache at each switch that runs it, keyed by `flow_key` and never
    /// expired, and reuses a cached port while it is a candidate (`routing.ucmp_cache`; the LCMP
    /// artifact's UCMP, whose lossy key makes colliding flows share a port). Default false: a
    /// stateless hash.
    pub ucmp_cache: bool,
    /// ACKs and NAKs are hashed with their own ports, source and destination swapped
    /// (`routing.ack_hash = "swapped"`, as the ns-3 fork's receivers address them), instead of
    /// the data packet's (`"flow"`, default).
    pub ack_hash_swapped: bool,
    /// Switches hash and key a packet by its whole entropy (`routing.per_entropy = true`, the
    /// default), so each of a sprayer's logical paths (Rondo's, UET's, …: one UDP source port
    /// each) is hashed, and at an LCMP switch decided and cached, on its own. `false` clears the
    /// entropy's low byte first, so a flow's logical paths (Rondo: `(entropy & 0xFF00) + p`)
    /// share one decision — LCMP's pinning of a whole flow to one path.
    pub per_entropy: bool,
}

/// The order of a switch's next hops toward a destination host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextHopOrder {
    /// The switch's port order (its links in topology order). Default.
    Port,
    /// The ns-3 HPCC fork's: the order its breadth-first search visits the neighbours, which is
    /// the order of their object addresses — in practice hosts by ascending node id, then
    /// switches by descending node id (every row of the LCMP artifact's published routing tables
    /// follows it; `docs/ns3-equivalence.md`, next hops).
    Ns3Bfs,
}

impl Default for RoutingParams {
    fn default() -> Self {
        RoutingParams {
            lcmp: LcmpParams::paper(),
            quantized: false,
            wcmp_table: 64,
            ucmp_slack_percent: 100,
            nexthop_order: NextHopOrder::Port,
            hash_dport: crate::hash::ROCE_DPORT,
            ack_hash_swapped: false,
            per_entropy: true,
            ucmp_cache: false,
            te: te::TeParams::default(),
        }
    }
}

/// The `[routing]` knob names other than `kind`.
pub const KNOBS: &[&str] = &[
    "quantized",
    "wcmp_table",
    "ucmp_slack",
    "alpha",
    "beta",
    "s_total",
    "w_dl",
    "w_lc",
    "s_path",
    "w_ql",
    "w_tl",
    "w_dp",
    "s_cong",
    "trend_k",
    "dp_high",
    "dp_low",
    "dp_shift",
    "cost_threshold",
    "keep_percent",
    "max_capacity",
    "max_delay",
    "path_scope",
    "delay_resolution",
    "queue_scale",
    "sampling",
    "monitor_interval",
    "keep",
    "congested",
    "fallback",
    "flow_key",
    "ack_routing",
    "idle_timeout",
    "gc_budget",
    "nexthop_order",
    "hash_dport",
    "ack_hash",
    "ucmp_cache",
    "cache_every",
    "flow_cache_capacity",
    "max_delay_spread",
    "per_entropy",
    "te_interval",
    "te_step",
    "te_granularity",
    "te_window",
    "te_threshold",
];

fn small(key: &str, v: &Knob, max: u64) -> Result<u64, String> {
    let x = v.as_u64().map_err(|e| format!("`routing.{key}`: {e}"))?;
    if x > max {
        return Err(format!("`routing.{key}` must be at most {max}, got {x}"));
    }
    Ok(x)
}

fn choice<T: Copy>(key: &str, v: &Knob, opts: &[(&str, T)]) -> Result<T, String> {
    let s = v.as_str().map_err(|e| format!("`routing.{key}`: {e}"))?;
    opts.iter().find(|o| o.0 == s).map(|o| o.1).ok_or_else(|| {
        format!(
            "`routing.{key}`: unknown value `{s}` (known: {})",
            opts.iter().map(|o| o.0).collect::<Vec<_>>().join(", ")
        )
    })
}

impl RoutingParams {
    /// Defaults for a kind (the artifact profile for `lcmp-artifact`).
    pub fn for_kind(kind: RoutingKind) -> RoutingParams {
        let mut p = RoutingParams::default();
        if kind == RoutingKind::LcmpArtifact {
            p.lcmp = LcmpParams::artifact();
        }
        p
    }

    /// Set one knob by name; errors name the field.
    pub fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        if !lcmp_knob(&mut self.lcmp, key, v)? && !te_knob(&mut self.te, key, v)? {
            self.switch_knob(key, v)?;
        }
        if self.lcmp.dp_low > self.lcmp.dp_high {
            return Err(format!(
                "`routing.dp_low` ({}) is above `routing.dp_high` ({})",
                self.lcmp.dp_low, self.lcmp.dp_high
            ));
        }
        Ok(())
    }

    /// The knobs of every switch's next-hop choice (hashing, WCMP/UCMP tables); anything else is
    /// an unknown field.
    fn switch_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        match key {
            "quantized" => {
                self.quantized = v.as_bool().map_err(|e| format!("`routing.{key}`: {e}"))?
            }
            "wcmp_table" => {
                self.wcmp_table = small(key, v, 1 << 16)? as u32;
                if self.wcmp_table == 0 {
                    return Err("`routing.wcmp_table` must be at least 1".into());
                }
            }
            "ucmp_slack" => self.ucmp_slack_percent = small(key, v, 100_000)? as u32,
            "nexthop_order" => {
                self.nexthop_order = choice(
                    key,
                    v,
                    &[("port", NextHopOrder::Port), ("ns3-bfs", NextHopOrder::Ns3Bfs)],
                )?
            }
            "hash_dport" => self.hash_dport = small(key, v, u16::MAX as u64)? as u16,
            "ack_hash" => {
                self.ack_hash_swapped = choice(key, v, &[("flow", false), ("swapped", true)])?
            }
            "per_entropy" => {
                self.per_entropy = v.as_bool().map_err(|e| format!("`routing.{key}`: {e}"))?
            }
            "ucmp_cache" => {
                self.ucmp_cache = v.as_bool().map_err(|e| format!("`routing.{key}`: {e}"))?
            }
            other => {
                return Err(format!(
                    "unknown field `routing.{other}` (known: kind, {})",
                    KNOBS.join(", ")
                ))
            }
        }
        Ok(())
    }
}

/// `routing.<key>` as a positive duration.
fn knob_time(key: &str, v: &Knob) -> Result<Time, String> {
    v.as_time().map_err(|e| format!("`routing.{key}`: expected a duration such as \"100us\": {e}"))
}

/// LCMP's knobs (`docs/lcmp.md`): the cost weights, the filter, the flow cache. `Ok(false)`:
/// `key` is not one of them.
fn lcmp_knob(l: &mut LcmpParams, key: &str, v: &Knob) -> Result<bool, String> {
    let time = |v: &Knob| knob_time(key, v);
    match key {
        "alpha" => l.alpha = small(key, v, 1 << 16)? as u32,
        "beta" => l.beta = small(key, v, 1 << 16)? as u32,
        "s_total" => l.s_total = small(key, v, 32)? as u32,
        "w_dl" => l.w_dl = small(key, v, 1 << 16)? as u32,
        "w_lc" => l.w_lc = small(key, v, 1 << 16)? as u32,
        "s_path" => l.s_path = small(key, v, 32)? as u32,
        "w_ql" => l.w_ql = small(key, v, 1 << 16)? as u32,
        "w_tl" => l.w_tl = small(key, v, 1 << 16)? as u32,
        "w_dp" => l.w_dp = small(key, v, 1 << 16)? as u32,
        "s_cong" => l.s_cong = small(key, v, 32)? as u32,
        "trend_k" => l.trend_k = small(key, v, 32)? as u32,
        "dp_high" => l.dp_high = small(key, v, 255)? as u8,
        "dp_low" => l.dp_low = small(key, v, 255)? as u8,
        "dp_shift" => l.dp_shift = small(key, v, 32)? as u32,
        "cost_threshold" => l.cost_threshold = small(key, v, 255)? as u8,
        "keep_percent" => {
            l.keep_percent = small(key, v, 100)? as u32;
            if l.keep_percent == 0 {
                return Err("`routing.keep_percent` must be between 1 and 100".into());
            }
        }
        "max_capacity" => {
            let r = v.as_rate().map_err(|e| {
                format!("`routing.{key}`: expected a rate such as \"400Gbps\": {e}")
            })?;
            if r.bps() == 0 {
                return Err("`routing.max_capacity` must be positive".into());
            }
            l.max_capacity = r;
        }
        "max_delay" => {
            l.max_delay = if v.as_str().ok() == Some("auto") {
                MaxDelay::Auto
            } else {
                let t = time(v)?;
                if t == Time::ZERO {
                    return Err("`routing.max_delay` must be positive (or \"auto\")".into());
                }
                MaxDelay::Fixed(t)
            }
        }
        "path_scope" => {
            l.path_scope =
                choice(key, v, &[("path", PathScope::Path), ("next-hop", PathScope::NextHop)])?
        }
        "delay_resolution" => {
            l.delay_resolution = choice(
                key,
                v,
                &[("exact", DelayResolution::Exact), ("ms", DelayResolution::WholeMs)],
            )?
        }
        "queue_scale" => {
            l.queue_scale = match v.as_str().ok() {
                Some("port-share") => QueueScale::PortShare,
                Some("buffer") => QueueScale::Buffer,
                Some("artifact") => QueueScale::Artifact,
                _ => {
                    let b = v
                        .as_bytes()
                        .map_err(|e| format!("`routing.queue_scale`: expected \"port-share\", \"buffer\", \"artifact\" or a size such as \"16MiB\": {e}"))?;
                    if b == 0 {
                        return Err("`routing.queue_scale` must be a positive size".into());
                    }
                    QueueScale::Bytes(b)
                }
            }
        }
        "sampling" => {
            l.sampling = choice(
                key,
                v,
                &[("periodic", Sampling::Periodic), ("new-flow", Sampling::NewFlow)],
            )?
        }
        "monitor_interval" => {
            let t = time(v)?;
            if t == Time::ZERO {
                return Err("`routing.monitor_interval` must be positive".into());
            }
            l.monitor_interval = t;
        }
        "keep" => {
            l.keep = choice(key, v, &[("half", KeepRule::Half), ("artifact", KeepRule::Artifact)])?
        }
        "congested" => {
            l.congested = choice(
                key,
                v,
                &[("congestion", CongestedTest::Congestion), ("fused", CongestedTest::Fused)],
            )?
        }
        "fallback" => {
            l.fallback =
                choice(key, v, &[("min-cost", Fallback::MinCost), ("hash-all", Fallback::HashAll)])?
        }
        "flow_key" => {
            l.flow_key = choice(
                key,
                v,
                &[("5-tuple", FlowKeyKind::FiveTuple), ("artifact", FlowKeyKind::Artifact)],
            )?
        }
        "ack_routing" => {
            l.ack_routing = choice(
                key,
                v,
                &[("reverse", AckRouting::Reverse), ("independent", AckRouting::Independent)],
            )?
        }
        "idle_timeout" => {
            let t = time(v)?;
            if t == Time::ZERO {
                return Err("`routing.idle_timeout` must be positive".into());
            }
            l.idle_timeout = t;
        }
        "gc_budget" => {
            l.gc_budget = small(key, v, 1 << 16)? as u32;
            if l.gc_budget == 0 {
                return Err("`routing.gc_budget` must be at least 1".into());
            }
        }
        "cache_every" => {
            l.cache_every = v.as_bool().map_err(|e| format!("`routing.{key}`: {e}"))?
        }
        "max_delay_spread" => {
            l.max_delay_spread = match v {
                Knob::Str(s) if s == "inf" => None,
                _ => Some(v.as_time().map_err(|e| {
                    format!("`routing.{key}`: expected a duration such as \"1ms\" or \"inf\": {e}")
                })?),
            }
        }
        "flow_cache_capacity" => {
            let c = small(key, v, 1 << 32)?;
            if c == 0 {
                return Err("`routing.flow_cache_capacity` must be at least 1 entry".into());
            }
            l.flow_cache_capacity = Some(c as usize);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The traffic-engineering knobs (`te_*`). `Ok(false)`: `key` is not one of them.
fn te_knob(te: &mut te::TeParams, key: &str, v: &Knob) -> Result<bool, String> {
    let time = |v: &Knob| knob_time(key, v);
    match key {
        "te_interval" | "te_window" => {
            let t = time(v)?;
            if t == Time::ZERO {
                return Err(format!("`routing.{key}` must be positive"));
            }
            if key == "te_interval" {
                te.interval = t;
            } else {
                te.window = t;
            }
        }
        "te_step" | "te_threshold" => {
            let x = v.as_f64().map_err(|e| format!("`routing.{key}`: {e}"))?;
            if !(0.0..=1.0).contains(&x) || (key == "te_step" && x == 0.0) {
                return Err(format!(
                    "`routing.{key}` must be in {}, got {x}",
                    if key == "te_step" { "(0, 1]" } else { "[0, 1]" }
                ));
            }
            if key == "te_step" {
                te.step = x;
            } else {
                te.threshold = x;
            }
        }
        "te_granularity" => {
            let g = small(key, v, 1 << 16)? as u32;
            if g == 0 {
                return Err("`routing.te_granularity` must be at least 1".into());
            }
            te.granularity = g;
        }
        _ => return Ok(false),
    }
    Ok(true)
}
