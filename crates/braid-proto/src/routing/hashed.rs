//! The routing schemes that hash or index a packet onto its candidates: ECMP (with
//! `routing.max_delay_spread`), entropy-indexed and path-index routing, UCMP as the LCMP
//! artifact implements it (and its flow cache), WCMP and weighted UCMP (`docs/baselines.md`,
//! switch routing; `docs/lcmp.md`, ECMP and UCMP).

use std::collections::HashMap;

use braid_core::Time;

use super::router::{impl_router, position, RouterBuild, SwitchSetup};
use super::select::{delay_limit, ecmp_within, ucmp_weighted, ucmp_within, wcmp};
use super::{flow_key, FlowKeyKind, RoutingParams};

/// ECMP: the switch's hash of the 5-tuple modulo the number of candidates; with
/// `routing.max_delay_spread`, only over the candidates whose path delay is within the spread of
/// the shortest.
#[derive(Clone, Debug)]
pub struct Ecmp {
    pub(crate) spread: Option<Time>,
}

impl Ecmp {
    /// Plain ECMP, what a switch runs when the scheme is not its to run (the intra-DC switches
    /// of a topology with DCIs).
    pub fn plain() -> Ecmp {
        Ecmp { spread: None }
    }
}

impl_router! { Ecmp, |me, pkt, v, _rng| {
    match me.spread {
        None => Some(pkt.hash() as usize % v.candidates().len()),
        Some(_) => {
            let attrs = v.paths();
            let lim = delay_limit(attrs, me.spread);
            Some(ecmp_within(attrs, pkt.hash(), |a| a.path_delay <= lim))
        }
    }
}
    #[inline]
    fn needs_paths(&self) -> bool {
        self.spread.is_some()
    }
}

impl RouterBuild for Ecmp {
    const NAME: &'static str = "ecmp";
    fn build(p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<Ecmp, String> {
        Ok(Ecmp { spread: p.lcmp.max_delay_spread })
    }
}

/// Entropy-indexed routing: the entropy modulo the number of candidates (the Rondo testbed's
/// steering by UDP source port).
#[derive(Clone, Debug)]
pub struct EntropyIndexed;

impl_router! { EntropyIndexed, |me, pkt, v, _rng| {
    Some(pkt.entropy as usize % v.candidates().len())
}
}

impl RouterBuild for EntropyIndexed {
    const NAME: &'static str = "entropy";
    fn build(_p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<EntropyIndexed, String> {
        Ok(EntropyIndexed)
    }
}

/// The path index `routing.kind = "path-index"` reads from a packet's entropy (UDP source port):
/// the low byte — a sprayer's logical path — offset by a scramble of the high byte, which a
/// flow's logical paths share. Consecutive logical paths keep consecutive indices (so distinct
/// physical paths), while each flow's path 0 starts at its own physical path: flows that start
/// together with the same per-path state would otherwise all burst onto the physical path of
/// their path 0 (or 15) at once. A random source port gives a uniformly random index.
#[inline]
pub fn path_index(entropy: u16) -> u16 {
    (entropy & 0xFF).wrapping_add((entropy >> 8).wrapping_mul(0x9E37))
}

/// Path-index routing ([`RoutingKind::PathIndex`]): `⌊index / D_t⌋ mod n` of the `n`
/// candidates, `D_t` the divisor of the switch's tier.
#[derive(Clone, Debug)]
pub struct PathIndex {
    divisor: u32,
}

impl_router! { PathIndex, |me, pkt, v, _rng| {
    Some(me.index(pkt.entropy, v.candidates().len()))
}
}

impl PathIndex {
    #[inline]
    pub(crate) fn index(&self, entropy: u16, n: usize) -> usize {
        (path_index(entropy) as usize / self.divisor as usize) % n
    }
}

impl RouterBuild for PathIndex {
    const NAME: &'static str = "path-index";
    fn build(_p: &RoutingParams, sw: &mut SwitchSetup) -> Result<PathIndex, String> {
        Ok(PathIndex { divisor: sw.tier_divisor.max(1) })
    }
}

/// UCMP as the LCMP artifact implements it: hash among the candidates of the largest link rate
/// (within `routing.max_delay_spread`); with `routing.ucmp_cache`, the first choice of each flow
/// is kept.
#[derive(Clone, Debug)]
pub struct Ucmp {
    pub(crate) spread: Option<Time>,
    key: FlowKeyKind,
    /// Flow key → local port (`routing.ucmp_cache`).
    cache: Option<HashMap<u128, u16>>,
}

impl_router! { Ucmp, |me, pkt, v, _rng| {
    let key = me.cache.as_ref().map(|cache| {
        let k = flow_key(me.key, pkt.src_ip, pkt.dst_ip, pkt.sport, pkt.dport, !pkt.is_data);
        (k, cache.get(&k).copied())
    });
    // A cached port that is no candidate here (a colliding key of a flow to elsewhere) is
    // re-decided: leaving the minimum-hop paths could loop.
    if let Some((_, Some(lp))) = key {
        if let Some(i) = position(v, lp) {
            return Some(i);
        }
    }
    let attrs = v.paths();
    let lim = delay_limit(attrs, me.spread);
    let i = ucmp_within(attrs, pkt.hash(), |a| a.path_delay <= lim);
    if let (Some((k, _)), Some(cache)) = (key, &mut me.cache) {
        cache.insert(k, v.candidates()[i]);
    }
    Some(i)
}
    #[inline]
    fn sees_single_hops(&self, _is_data: bool) -> bool {
        self.cache.is_some()
    }
    #[inline]
    fn needs_paths(&self) -> bool {
        true
    }
}

impl RouterBuild for Ucmp {
    const NAME: &'static str = "ucmp";
    fn build(p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<Ucmp, String> {
        Ok(Ucmp {
            spread: p.lcmp.max_delay_spread,
            key: p.lcmp.flow_key,
            cache: p.ucmp_cache.then(HashMap::new),
        })
    }
}

/// WCMP: weights ∝ path capacity in a table of `routing.wcmp_table` entries.
#[derive(Clone, Debug)]
pub struct Wcmp {
    table: u32,
}

impl_router! { Wcmp, |me, pkt, v, _rng| {
    Some(wcmp(v.paths(), pkt.hash(), me.table))
}
    #[inline]
    fn needs_paths(&self) -> bool {
        true
    }
}

impl RouterBuild for Wcmp {
    const NAME: &'static str = "wcmp";
    fn build(p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<Wcmp, String> {
        Ok(Wcmp { table: p.wcmp_table })
    }
}

/// Weighted UCMP: the paths within `routing.ucmp_slack_percent` of the shortest, weights ∝
/// capacity.
#[derive(Clone, Debug)]
pub struct UcmpWeighted {
    table: u32,
    slack_percent: u32,
}

impl_router! { UcmpWeighted, |me, pkt, v, _rng| {
    Some(ucmp_weighted(v.paths(), pkt.hash(), me.table, me.slack_percent))
}
    #[inline]
    fn needs_paths(&self) -> bool {
        true
    }
}

impl RouterBuild for UcmpWeighted {
    const NAME: &'static str = "ucmp-weighted";
    fn build(p: &RoutingParams, _sw: &mut SwitchSetup) -> Result<UcmpWeighted, String> {
        Ok(UcmpWeighted { table: p.wcmp_table, slack_percent: p.ucmp_slack_percent })
    }
}
