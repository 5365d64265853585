//! One LCMP switch (EuroSys'26 §3): bootstrap tables, the congestion monitor, the flow cache, the
//! per-new-flow decision (cost, filter, hash), and fast failover.
//!
//! Driving protocol (sans-IO; the driver owns the ports and the routing table):
//! 1. [`LcmpRouter::new`] at bootstrap with the switch's port rates and buffer (§3.1.2 step 1:
//!    capacity classes, queue thresholds, per-rate trend thresholds, level scores).
//! 2. Per packet, [`LcmpRouter::lookup`] with the packet's flow key: a hit returns the cached
//!    egress (§3.1.2 step 2); an entry on a port that went down is invalidated (§3.4 fast
//!    failover) and reported as such.
//! 3. On a miss, [`LcmpRouter::decide`] with the live candidates ([`Candidate`]: local port, link
//!    rate and delay, the control plane's `C_path`), the queue bytes of every port of the switch,
//!    and the packet's ECMP hash; it scores, filters, hashes and records the choice (§3.1.2 step 3,
//!    §3.4).
//! 4. With `sampling = periodic`, [`LcmpRouter::monitor`] every `monitor_interval` with the queue
//!    bytes of every port (§3.3 "Sampling and robustness").
//! 5. [`LcmpRouter::set_port_up`] when a port's link fails or returns; the driver must also stop
//!    offering a down port as a candidate (the router skips it anyway).

use braid_core::Time;

use super::cost::{
    capacity_score, capacity_score_artifact, congestion_cost, delay_score, delay_score_artifact,
    duration_penalty, duration_update, path_cost, queue_level, queue_thresholds,
    queue_thresholds_artifact, sat8, total_cost, trend_level, trend_thresholds, trend_update,
    LEVELS,
};
use super::flow_cache::{CacheLookup, FlowCache};
use super::{
    CongestedTest, DelayResolution, Fallback, KeepRule, LcmpParams, MaxDelay, PathScope,
    QueueScale, Sampling,
};

/// One candidate next hop of a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The switch's local port index.
    pub port: u16,
    /// Rate of the next-hop link, bit/s.
    pub link_rate_bps: u64,
    /// One-way propagation delay of the next-hop link.
    pub link_delay: Time,
    /// The control plane's `C_path` of the best path through this next hop (used when
    /// `path_scope = path`; see [`LcmpRouter::path_score`]).
    pub c_path: u8,
}

/// Congestion state of one port (paper §4: queueCur, queuePrev, trend, durCnt, lastSample).
#[derive(Clone, Debug)]
struct PortState {
    rate_bps: u64,
    up: bool,
    prev: u64,
    trend: i64,
    dur: u32,
    last_sample: Time,
    sampled: bool,
    /// Levels from the last periodic sample.
    q: u8,
    t: u8,
    trend_thr: [u64; LEVELS],
}

impl PortState {
    fn new(rate_bps: u64) -> PortState {
        PortState {
            rate_bps,
            up: true,
            prev: 0,
            trend: 0,
            dur: 0,
            last_sample: Time::ZERO,
            sampled: false,
            q: 0,
            t: 0,
            trend_thr: trend_thresholds(rate_bps),
        }
    }
}

/// Counters of one LCMP switch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LcmpStats {
    /// Full decisions (cache misses with at least one live candidate).
    pub decisions: u64,
    /// Decisions that re-routed a flow whose cached port had gone down.
    pub failovers: u64,
    /// Decisions that fell back (no kept candidate qualified).
    pub fallbacks: u64,
    /// Decisions whose kept set lost a candidate to the congestion test.
    pub congestion_filtered: u64,
    /// Monitor samples taken (per port).
    pub samples: u64,
    /// Decisions per local port.
    pub chosen: Vec<u64>,
    /// Packets hashed with plain ECMP because the flow cache was full
    /// (`routing.flow_cache_capacity`; LCMP §5: "switches fall back to ECMP").
    pub cache_full_fallbacks: u64,
    /// Distinct flow keys among them: the flows that found the cache full.
    pub cache_full_flows: u64,
}

/// One candidate as the last decision scored it (see [`LcmpRouter::last_decision`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scored {
    /// The fused cost `C` (Eq 1).
    pub cost: u8,
    /// The congestion cost `C_cong`.
    pub cong: u8,
    /// The path cost `C_path`.
    pub c_path: u8,
    /// The candidate's local port.
    pub port: u16,
}

/// The LCMP logic of one switch.
#[derive(Clone, Debug)]
pub struct LcmpRouter {
    p: LcmpParams,
    max_delay: Time,
    q_thresh: [u64; LEVELS],
    ports: Vec<PortState>,
    cache: FlowCache,
    scratch: Vec<Scored>,
    /// The candidates scored (those within the delay spread).
    cands: Vec<Candidate>,
    /// Queue bytes per local port for a decision (`sampling = "new-flow"`).
    queues: Vec<u64>,
    /// How many candidates the last decision kept.
    last_keep: usize,
    /// Keys of the flows that found the cache full (for [`LcmpStats::cache_full_flows`]; a
    /// measurement, not switch state).
    full_keys: std::collections::HashSet<u128>,
    /// Counters.
    pub stats: LcmpStats,
}

impl LcmpRouter {
    /// Bootstrap a switch with ports of the given rates (bit/s, by local index) and a shared buffer
    /// of `buffer_bytes` (the queue-level thresholds derive from it, see [`QueueScale`]). `max_delay` is the resolved saturation point of Alg. 1 (for
    /// [`MaxDelay::Auto`], what the control plane computed for this switch).
    pub fn new(
        p: LcmpParams,
        port_rates_bps: &[u64],
        buffer_bytes: u64,
        max_delay: Time,
    ) -> LcmpRouter {
        let q_thresh = match p.queue_scale {
            QueueScale::PortShare => {
                queue_thresholds(buffer_bytes / port_rates_bps.len().max(1) as u64)
            }
            QueueScale::Buffer => queue_thresholds(buffer_bytes),
            QueueScale::Bytes(b) => queue_thresholds(b),
            QueueScale::Artifact => queue_thresholds_artifact(),
        };
        let max_delay = match p.max_delay {
            MaxDelay::Fixed(t) => t,
            MaxDelay::Auto => max_delay,
        };
        LcmpRouter {
            p,
            max_delay,
            q_thresh,
            ports: port_rates_bps.iter().map(|&r| PortState::new(r)).collect(),
            cache: FlowCache::new(p.idle_timeout, p.gc_budget)
                .with_capacity_limit(p.flow_cache_capacity),
            scratch: Vec::with_capacity(port_rates_bps.len()),
            cands: Vec::with_capacity(port_rates_bps.len()),
            queues: Vec::with_capacity(port_rates_bps.len()),
            last_keep: 0,
            full_keys: std::collections::HashSet::new(),
            stats: LcmpStats { chosen: vec![0; port_rates_bps.len()], ..LcmpStats::default() },
        }
    }

    /// The parameters.
    pub fn params(&self) -> &LcmpParams {
        &self.p
    }

    /// The saturation point of Alg. 1 in use.
    pub fn max_delay(&self) -> Time {
        self.max_delay
    }

    /// The flow cache (for its counters).
    pub fn cache(&self) -> &FlowCache {
        &self.cache
    }

    /// Eq. 2 for a path of total one-way `delay` and bottleneck `bottleneck_bps`, with this
    /// switch's tables (Alg. 1 with the configured resolution and saturation, Alg. 2).
    pub fn path_score(&self, delay: Time, bottleneck_bps: u64) -> u8 {
        let (d, c) = match self.p.delay_resolution {
            DelayResolution::Exact => (
                delay_score(delay, self.max_delay),
                capacity_score(bottleneck_bps, self.p.max_capacity.bps()),
            ),
            DelayResolution::WholeMs => (
                delay_score_artifact(delay, (self.max_delay.ns() / 1_000_000).max(1)),
                capacity_score_artifact(bottleneck_bps),
            ),
        };
        path_cost(d, c, self.p.w_dl, self.p.w_lc, self.p.s_path)
    }

    /// Mark local port `port` up or down (data-plane liveness, §3.4).
    pub fn set_port_up(&mut self, port: u16, up: bool) {
        if let Some(s) = self.ports.get_mut(port as usize) {
            s.up = up;
        }
    }

    /// Whether local port `port` is up.
    pub fn port_up(&self, port: u16) -> bool {
        self.ports.get(port as usize).is_some_and(|s| s.up)
    }

    /// A port's rate changed: rebuild its trend thresholds ("created on demand" for new rates).
    pub fn set_port_rate(&mut self, port: u16, rate_bps: u64) {
        if let Some(s) = self.ports.get_mut(port as usize) {
            s.rate_bps = rate_bps;
            s.trend_thr = trend_thresholds(rate_bps);
        }
    }

    /// Flow identification (§3.1.2 step 2): the cached egress of `key`, refreshing its last-seen
    /// time; runs one amortised GC step.
    #[inline]
    pub fn lookup(&mut self, now: Time, key: u128) -> CacheLookup {
        let ports = &self.ports;
        self.cache.lookup(now, key, |p| ports.get(p as usize).is_some_and(|s| s.up))
    }

    /// LCMP's per-packet policy at this switch (§3.1.2, §3.4), first step, for a packet of flow
    /// `key`: its cached egress while that is still a candidate — `candidate` says which one
    /// (e.g. its index), given the local port, or `None`. `Err(failover)` when the flow needs a
    /// decision ([`LcmpRouter::route_new`]): `failover` is true when it had an egress that went
    /// down or — after the control plane changed the routes (a failure elsewhere) — is no longer
    /// a candidate.
    #[inline(always)]
    pub fn route_cached<T>(
        &mut self,
        now: Time,
        key: u128,
        candidate: impl Fn(u16) -> Option<T>,
    ) -> Result<T, bool> {
        match self.lookup(now, key) {
            CacheLookup::Hit(lp) => candidate(lp).ok_or(true),
            CacheLookup::Invalidated(_) => Err(true),
            CacheLookup::Miss => Err(false),
        }
    }

    /// LCMP's per-packet policy, second step: a full decision ([`LcmpRouter::decide`]) for flow
    /// `key` among the candidates `offered` — each with the delay of its best path — of
    /// `next_hops` next hops: with `max_delay_spread` (and more than one next hop) only those
    /// within the spread of the best path delay are scored. `queues` fills in every local port's
    /// queue bytes now (read with `sampling = "new-flow"`); `hash` is the packet's ECMP hash at
    /// this switch; `failover` comes from [`LcmpRouter::route_cached`]. After a decision,
    /// `reverse` (if given) names the reverse direction's flow key and the local port the packet
    /// came in on: the flow's ACKs are pinned to come back that way. Returns the local port, or
    /// `None` when no candidate is up.
    #[allow(clippy::too_many_arguments)]
    pub fn route_new(
        &mut self,
        now: Time,
        key: u128,
        next_hops: usize,
        offered: &[(Candidate, Time)],
        queues: impl FnOnce(&mut Vec<u64>),
        hash: u32,
        failover: bool,
        reverse: Option<(u128, u16)>,
    ) -> Option<u16> {
        let spread = self.p.max_delay_spread.filter(|_| next_hops > 1);
        let max_delay = match spread {
            Some(s) => offered.iter().map(|o| o.1).min().unwrap_or(Time::ZERO).saturating_add(s),
            None => Time::MAX,
        };
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        cands.extend(offered.iter().filter(|o| spread.is_none() || o.1 <= max_delay).map(|o| o.0));
        let mut qs = std::mem::take(&mut self.queues);
        qs.clear();
        if self.p.sampling == Sampling::NewFlow {
            queues(&mut qs);
        }
        let decided = self.decide(now, key, hash, &cands, &qs, failover);
        self.cands = cands;
        self.queues = qs;
        let lp = decided?;
        if let Some((rkey, rport)) = reverse {
            self.pin(now, rkey, rport);
        }
        Some(lp)
    }

    /// Record `port` as the egress of `key` without a decision (the reverse path of a flow's ACKs).
    pub fn pin(&mut self, now: Time, key: u128, port: u16) {
        let _ = self.cache.insert(now, key, port);
    }

    /// The periodic monitor (§3.3): sample every port's queue bytes (`queues[local port]`), update
    /// the trend EWMA with the observed interval, the queue level and the duration counter.
    pub fn monitor(&mut self, now: Time, queues: &[u64]) {
        let p = self.p;
        for (s, &q) in self.ports.iter_mut().zip(queues) {
            let delta = q as i64 - s.prev as i64;
            s.trend = trend_update(s.trend, delta, p.trend_k);
            s.prev = q;
            let interval =
                if s.sampled { now.saturating_sub(s.last_sample) } else { p.monitor_interval };
            s.last_sample = now;
            s.sampled = true;
            s.q = queue_level(q, &self.q_thresh);
            s.t = trend_level(s.trend, &s.trend_thr, interval.max(Time::from_ps(1)));
            s.dur = duration_update(s.dur, s.q, p.dp_high, p.dp_low);
            self.stats.samples += 1;
        }
    }

    /// The artifact's `MonitorCongestionState()`: every port's trend from the queue delta since
    /// the previous call (32-bit arithmetic, as the artifact).
    fn artifact_sample_all(&mut self, now: Time, queues: &[u64]) {
        let k = self.p.trend_k;
        for (s, &q) in self.ports.iter_mut().zip(queues) {
            let cur = q as u32;
            let delta = cur.wrapping_sub(s.prev as u32) as i32;
            let tr = s.trend as i32;
            s.trend = (tr - (tr >> k.min(31)) + (delta >> k.min(31))) as i64;
            s.prev = cur as u64;
            s.last_sample = now;
            self.stats.samples += 1;
        }
    }

    /// The full decision for a new flow (§3.1.2 step 3, §3.4): score the live candidates, keep
    /// the cheaper part, hash inside it (or fall back), record the choice for `key`, and return
    /// the chosen local port. `queues[i]` is the queue bytes of local port `i` now; `hash` is the
    /// packet's ECMP hash at this switch; `failover` tells that the flow's cached port went down.
    /// Returns `None` when no candidate is up.
    pub fn decide(
        &mut self,
        now: Time,
        key: u128,
        hash: u32,
        cands: &[Candidate],
        queues: &[u64],
        failover: bool,
    ) -> Option<u16> {
        let p = self.p;
        if self.cache.is_full() {
            // No room to remember a decision: plain ECMP over the live candidates, the same for
            // every packet of the flow while the cache stays full (nothing is cached).
            // Every packet of such a flow comes here: pick the (hash mod live)-th live candidate
            // without collecting them (no allocation per packet).
            let ports = &self.ports;
            let is_live = |c: &&Candidate| ports.get(c.port as usize).is_some_and(|s| s.up);
            let live = cands.iter().filter(is_live).count();
            if live == 0 {
                return None;
            }
            let port = cands.iter().filter(is_live).nth(hash as usize % live).map(|c| c.port)?;
            self.stats.cache_full_fallbacks += 1;
            if self.full_keys.insert(key) {
                self.stats.cache_full_flows += 1;
            }
            self.scratch.clear();
            self.last_keep = 0;
            return Some(port);
        }
        self.scratch.clear();
        for c in cands {
            let Some(ps) = self.ports.get(c.port as usize) else { continue };
            if !ps.up {
                continue;
            }
            let c_path = match p.path_scope {
                PathScope::Path => c.c_path,
                PathScope::NextHop => self.path_score(c.link_delay, c.link_rate_bps),
            };
            let (q, t, d) = match p.sampling {
                Sampling::Periodic => {
                    let s = &self.ports[c.port as usize];
                    (s.q, s.t, duration_penalty(s.dur, p.dp_shift))
                }
                Sampling::NewFlow => {
                    // `docs/lcmp.md`, artifact profile: sample all ports, then this candidate's
                    // levels, with `interval_ms` = 1 (the previous sample was just taken).
                    self.artifact_sample_all(now, queues);
                    let qb = queues.get(c.port as usize).copied().unwrap_or(0);
                    let s = &mut self.ports[c.port as usize];
                    let q = queue_level(qb, &self.q_thresh);
                    s.dur = duration_update(s.dur, q, p.dp_high, p.dp_low);
                    let d = duration_penalty(s.dur, p.dp_shift);
                    let t = trend_level(s.trend, &s.trend_thr, Time::from_ms(1));
                    (q, t, d)
                }
            };
            let cong = congestion_cost(q, t, d, p.w_ql, p.w_tl, p.w_dp, p.s_cong);
            let cost = total_cost(c_path, cong, p.alpha, p.beta, p.s_total);
            self.scratch.push(Scored { cost, cong, c_path, port: c.port });
        }
        let n = self.scratch.len();
        if n == 0 {
            return None;
        }
        // Sort by (cost, port): ties break on the lower port index, as the artifact's pair sort.
        self.scratch.sort_unstable_by_key(|s| (s.cost, s.port));
        let keep: usize = match p.keep {
            KeepRule::Artifact => {
                let half = n / 2;
                if half < 2 {
                    n
                } else {
                    half
                }
            }
            KeepRule::Half => {
                let mut k = (n * p.keep_percent as usize).div_ceil(100).clamp(1, n);
                while k < n && self.scratch[k].cost == self.scratch[k - 1].cost {
                    k += 1;
                }
                k
            }
        };
        self.last_keep = keep;
        let thr = p.cost_threshold;
        let pass = |s: &Scored| match p.congested {
            CongestedTest::Congestion => s.cong < thr,
            CongestedTest::Fused => s.cost < thr,
        };
        let m = self.scratch[..keep].iter().filter(|s| pass(s)).count();
        let port = if m > 0 {
            if m < keep {
                self.stats.congestion_filtered += 1;
            }
            // Hash-based ECMP inside the reduced set, in ascending cost order.
            let mut k = hash as usize % m;
            let mut chosen = self.scratch[0].port;
            for s in &self.scratch[..keep] {
                if pass(s) {
                    if k == 0 {
                        chosen = s.port;
                        break;
                    }
                    k -= 1;
                }
            }
            chosen
        } else {
            self.stats.fallbacks += 1;
            match p.fallback {
                Fallback::HashAll => self.scratch[hash as usize % n].port,
                Fallback::MinCost => {
                    let min = self.scratch[0].cost;
                    let ties = self.scratch.iter().take_while(|s| s.cost == min).count();
                    self.scratch[hash as usize % ties].port
                }
            }
        };
        self.stats.decisions += 1;
        if failover {
            self.stats.failovers += 1;
        }
        if let Some(c) = self.stats.chosen.get_mut(port as usize) {
            *c += 1;
        }
        let _ = self.cache.insert(now, key, port);
        Some(port)
    }

    /// The candidates of the last [`LcmpRouter::decide`], sorted by (cost, port), and how many of
    /// them the filter kept (before the congestion threshold) — for decision logs.
    pub fn last_decision(&self) -> (&[Scored], usize) {
        (&self.scratch, self.last_keep)
    }

    /// The costs this switch would give `cands` now, without deciding (for tests and reports):
    /// `(local port, C_path, C_cong, C)` in candidate order. Periodic sampling only (the
    /// artifact's sampling mutates state on every evaluation).
    pub fn costs(&self, cands: &[Candidate]) -> Vec<(u16, u8, u8, u8)> {
        let p = self.p;
        cands
            .iter()
            .map(|c| {
                let c_path = match p.path_scope {
                    PathScope::Path => c.c_path,
                    PathScope::NextHop => self.path_score(c.link_delay, c.link_rate_bps),
                };
                let s = &self.ports[c.port as usize];
                let cong = congestion_cost(
                    s.q,
                    s.t,
                    duration_penalty(s.dur, p.dp_shift),
                    p.w_ql,
                    p.w_tl,
                    p.w_dp,
                    p.s_cong,
                );
                (c.port, c_path, cong, total_cost(c_path, cong, p.alpha, p.beta, p.s_total))
            })
            .collect()
    }

    /// The last sampled `(Q, T, D)` of a local port.
    pub fn levels(&self, port: u16) -> (u8, u8, u8) {
        let s = &self.ports[port as usize];
        (s.q, s.t, sat8((s.dur as u64) >> self.p.dp_shift))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::{LcmpParams, RoutingKind, RoutingParams};

    const G: u64 = 1_000_000_000;

    /// posCor DC1's DCI: ports 0–1 to spines (400 G, 1 µs), ports 2–7 to DC2…DC7.
    fn poscor_rates() -> Vec<u64> {
        vec![400 * G, 400 * G, 200 * G, 200 * G, 100 * G, 100 * G, 40 * G, 40 * G]
    }

    fn poscor_cands(r: &LcmpRouter) -> Vec<Candidate> {
        // (port, rate G, per-hop delay ms): DC2 200/25, DC3 200/100, DC4 100/10, DC5 100/40, DC6 40/5, DC7 40/20.
        [(2, 200, 25), (3, 200, 100), (4, 100, 10), (5, 100, 40), (6, 40, 5), (7, 40, 20)]
            .iter()
            .map(|&(p, g, d)| Candidate {
                port: p,
                link_rate_bps: g * G,
                link_delay: Time::from_ms(d),
                c_path: r.path_score(Time::from_ms(2 * d), g * G),
            })
            .collect()
    }

    fn spread(r: &mut LcmpRouter, cands: &[Candidate], queues: &[u64], n: u32) -> Vec<u64> {
        let mut c = vec![0u64; 8];
        for k in 0..n {
            let h = crate::hash::ecmp_hash(k, 7, k as u16, 4791, 176);
            let p = r.decide(Time::ZERO, k as u128, h, cands, queues, false).unwrap();
            c[p as usize] += 1;
        }
        c
    }

    /// Paper design, no congestion: C_path over the whole path (256 ms saturation) ranks DC6 48,
    /// DC4 48, DC2 51 first; new flows hash over those three only.
    #[test]
    fn paper_filters_to_the_cheaper_half() {
        let mut r =
            LcmpRouter::new(LcmpParams::paper(), &poscor_rates(), 128 << 20, Time::from_ms(256));
        let cands = poscor_cands(&r);
        let costs: Vec<u8> = r.costs(&cands).iter().map(|c| c.3).collect();
        assert_eq!(costs, vec![51, 135, 48, 82, 48, 64]);
        let c = spread(&mut r, &cands, &[0; 8], 3000);
        assert_eq!(c[3] + c[5] + c[7], 0, "{c:?}");
        for p in [2, 4, 6] {
            assert!(c[p] > 800, "{c:?}");
        }
        assert_eq!(r.stats.decisions, 3000);
        assert_eq!(r.cache().len(), 3000);
    }

    /// The artifact profile on posCor: per-hop costs DC6 64, DC4 82, DC7 132, DC2 135 (lcmp.md
    /// §4.2): the kept three are DC6, DC4, DC7.
    /// A full flow cache (`routing.flow_cache_capacity`): the switch stops caching, and new
    /// flows are hashed by plain ECMP over all live candidates (LCMP §5's fallback) — including
    /// the high-cost ones the filter would have removed — counted once per flow.
    #[test]
    fn a_full_cache_falls_back_to_ecmp() {
        let mut p = LcmpParams::paper();
        p.flow_cache_capacity = Some(100);
        let mut r = LcmpRouter::new(p, &poscor_rates(), 128 << 20, Time::from_ms(256));
        let cands = poscor_cands(&r);
        let c = spread(&mut r, &cands, &[0; 8], 3000);
        assert_eq!(r.cache().len(), 100);
        assert_eq!(r.stats.decisions, 100);
        assert_eq!(r.stats.cache_full_flows, 2900);
        // The 100 cached decisions used the kept half only; the 2,900 ECMP ones spread over all six.
        for port in 2..8 {
            assert!(c[port] > 300, "port {port}: {c:?}");
        }
        // Repeated packets of a fallen-back flow take the same port and count once.
        let key = 5000u128;
        let a = r.decide(Time::from_ms(1), key, 77, &cands, &[0; 8], false);
        let b = r.decide(Time::from_ms(2), key, 77, &cands, &[0; 8], false);
        assert_eq!(a, b);
        assert_eq!(r.stats.cache_full_flows, 2901);
    }

    #[test]
    fn artifact_keeps_dc7_not_dc2() {
        let mut r = LcmpRouter::new(LcmpParams::artifact(), &poscor_rates(), 128 << 20, Time::ZERO);
        let cands = poscor_cands(&r);
        let c = spread(&mut r, &cands, &[0; 8], 3000);
        assert_eq!(c[2] + c[3] + c[5], 0, "{c:?}");
        for p in [4, 6, 7] {
            assert!(c[p] > 800, "{c:?}");
        }
        // A non-empty queue gives the artifact's binary level 25 → C_cong (2·25) ≫ 2 = 12, +3 in C:
        // DC7 135 ties DC2 135 and the lower port (DC2) wins the third place.
        let mut q = [0u64; 8];
        q[7] = 1000;
        let mut r = LcmpRouter::new(LcmpParams::artifact(), &poscor_rates(), 128 << 20, Time::ZERO);
        let c = spread(&mut r, &cands, &q, 3000);
        assert_eq!(c[7], 0, "{c:?}");
        assert!(c[2] > 800, "{c:?}");
    }

    /// The artifact keeps every candidate when n ≤ 3 and falls back to a hash over all; the
    /// paper keeps ⌈n/2⌉ (plus ties) and falls back to the minimum cost.
    #[test]
    fn keep_rules_and_fallbacks() {
        let rates = vec![100 * G, 100 * G, 40 * G];
        let cands: Vec<Candidate> = (0..3)
            .map(|p| Candidate {
                port: p,
                link_rate_bps: rates[p as usize],
                link_delay: Time::from_ms(1 + p as u64),
                c_path: 0,
            })
            .collect();
        let mut a = LcmpRouter::new(LcmpParams::artifact(), &rates, 1 << 20, Time::ZERO);
        let c = spread(&mut a, &cands, &[0; 3], 900);
        assert!(c[..3].iter().all(|&x| x > 200), "{c:?}");
        let mut pp = LcmpParams::paper();
        pp.path_scope = crate::routing::PathScope::NextHop;
        let mut b = LcmpRouter::new(pp, &rates, 1 << 20, Time::from_ms(32));
        let c = spread(&mut b, &cands, &[0; 3], 900);
        // ⌈3/2⌉ = 2 cheapest: ports 0 and 1.
        assert_eq!(c[2], 0, "{c:?}");
        // Every kept candidate highly congested (C_cong ≥ 204): the minimum fused cost wins.
        let mut pp = LcmpParams::paper();
        pp.path_scope = crate::routing::PathScope::NextHop;
        pp.cost_threshold = 1;
        let mut b = LcmpRouter::new(pp, &rates, 1 << 20, Time::from_ms(32));
        b.monitor(Time::from_us(100), &[1 << 20, 1 << 20, 1 << 20]);
        let p = b.decide(Time::from_us(100), 1, 12345, &cands, &[0; 3], false).unwrap();
        assert_eq!(p, 0);
        assert_eq!(b.stats.fallbacks, 1);
    }

    /// Congestion sampled by the periodic monitor moves new flows away from a growing queue.
    #[test]
    fn monitor_steers_new_flows() {
        let mut p = LcmpParams::paper();
        p.queue_scale = QueueScale::Buffer;
        let mut r = LcmpRouter::new(p, &poscor_rates(), 128 << 20, Time::from_ms(256));
        let cands = poscor_cands(&r);
        // DC4's port (4) grows 3.3 MB every 100 µs (2.6× its 100 G line rate): after four samples
        // the trend EWMA (≈ 1.37 MB per interval) is above the top level (1.25 MB per 100 µs),
        // and the 13.2 MB queue is still in the first level of a 128 MiB buffer.
        let mut q = [0u64; 8];
        for i in 1..=4u64 {
            q[4] = i * 3_300_000;
            r.monitor(Time::from_us(100 * i), &q);
        }
        let (ql, tl, _) = r.levels(4);
        assert_eq!(ql, 25);
        assert_eq!(tl, 255);
        let costs: Vec<u8> = r.costs(&cands).iter().map(|c| c.3).collect();
        // C_cong = (2·25 + 255) ≫ 2 = 76 → C(DC4) = (3·65 + 76) ≫ 2 = 67, behind DC7's 64.
        assert_eq!(costs[2], 67);
        let c = spread(&mut r, &cands, &q, 3000);
        assert_eq!(c[4], 0, "{c:?}");
        assert!(c[2] > 800 && c[6] > 800 && c[7] > 800, "{c:?}");
        // With the default per-port share (128 MiB / 8 ports = 16 MiB, levels of 1.68 MB) the
        // same 13.2 MB queue is level 7 (204): C_cong = (2·204 + 255) ≫ 2 = 165, C(DC4) = 90.
        let mut r =
            LcmpRouter::new(LcmpParams::paper(), &poscor_rates(), 128 << 20, Time::from_ms(256));
        for i in 1..=4u64 {
            q[4] = i * 3_300_000;
            r.monitor(Time::from_us(100 * i), &q);
        }
        assert_eq!(r.levels(4).0, 204);
        assert_eq!(r.costs(&cands)[2].3, 90);
    }

    /// Fast failover: an entry on a port that went down is invalidated at the next lookup and the
    /// flow is re-decided among the live candidates.
    #[test]
    fn fast_failover() {
        let mut r =
            LcmpRouter::new(LcmpParams::paper(), &poscor_rates(), 128 << 20, Time::from_ms(256));
        let cands = poscor_cands(&r);
        let key = 42u128;
        let h = 7u32;
        let p0 = r.decide(Time::ZERO, key, h, &cands, &[0; 8], false).unwrap();
        assert_eq!(r.lookup(Time::from_us(1), key), CacheLookup::Hit(p0));
        r.set_port_up(p0, false);
        assert_eq!(r.lookup(Time::from_us(2), key), CacheLookup::Invalidated(p0));
        let p1 = r.decide(Time::from_us(2), key, h, &cands, &[0; 8], true).unwrap();
        assert_ne!(p1, p0);
        assert_eq!(r.lookup(Time::from_us(3), key), CacheLookup::Hit(p1));
        assert_eq!(r.stats.failovers, 1);
        // No live candidate at all: no decision.
        for p in 0..8 {
            r.set_port_up(p, false);
        }
        assert_eq!(r.decide(Time::from_us(4), 9, h, &cands, &[0; 8], false), None);
    }

    /// The artifact's on-demand sampling: n back-to-back samples per decision, so after the first
    /// the trend only decays (`docs/lcmp.md`, artifact profile, sampling row).
    #[test]
    fn artifact_sampling_decays_the_trend() {
        let p = RoutingParams::for_kind(RoutingKind::LcmpArtifact).lcmp;
        let mut r = LcmpRouter::new(p, &poscor_rates(), 128 << 20, Time::ZERO);
        let cands = poscor_cands(&r);
        let mut q = [0u64; 8];
        q[4] = 8_000_000;
        r.decide(Time::ZERO, 1, 0, &cands, &q, false);
        // 6 samples: the first sees Δ = 8 MB → trend 1 MB; five more decay it by 1/8 each.
        let mut t: i32 = 0;
        t = t - (t >> 3) + (8_000_000 >> 3);
        for _ in 0..5 {
            t -= t >> 3;
        }
        assert_eq!(r.ports[4].trend, t as i64);
        assert_eq!(r.stats.samples, 6 * 8);
    }
}
