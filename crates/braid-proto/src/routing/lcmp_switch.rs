//! An LCMP switch as a [`super::SwitchRouter`]: the flow cache per packet, a scored decision per
//! new flow, the congestion monitor, fast failover and the reverse pin of a flow's ACKs, around
//! the sans-IO [`LcmpRouter`] (EuroSys'26 §3).

use braid_core::Time;

use super::lcmp::{Candidate, LcmpRouter, Scored};
use super::router::{impl_router, position, RoutePacket, RouterBuild, SwitchSetup, SwitchView};
use super::{flow_key, AckRouting, MaxDelay, PathScope, RoutingParams, Sampling};

/// An LCMP switch ([`LcmpRouter`], EuroSys'26 §3): the flow cache per packet, a scored decision
/// per new flow, the periodic congestion monitor, fast failover, and the reverse-path pin of a
/// flow's ACKs (`ack_routing = reverse`).
#[derive(Clone, Debug)]
pub struct Lcmp {
    /// The switch's LCMP state (boxed: a [`Router`] stays small on the switches of other schemes).
    pub router: Box<LcmpRouter>,
    /// The candidates of a decision with their path delays (reused).
    offered: Vec<(Candidate, Time)>,
    /// Every port's queue bytes (reused).
    queues: Vec<u64>,
    /// Reverse-path entries recorded for ACKs.
    pub reverse_pins: u64,
    /// A decision was made since [`SwitchRouter::take_decision`] was last asked.
    decided: bool,
}

impl_router! { Lcmp, |me, pkt, v, _rng| {
    let p = me.router.params();
    let (key_kind, pins_reverse, cache_every) =
        (p.flow_key, p.ack_routing == AckRouting::Reverse, p.cache_every);
    let now = v.now();
    let cands = v.candidates();
    let n = cands.len();
    let key = flow_key(key_kind, pkt.src_ip, pkt.dst_ip, pkt.sport, pkt.dport, !pkt.is_data);
    // The reverse pin matters only to a single candidate's shortcut and to a new flow: asked
    // for after the cache.
    if n == 1 && !cache_every && !(pkt.is_data && pins_reverse && v.reverse().is_some()) {
        return Some(0);
    }
    let failover = match me.router.route_cached(now, key, |lp| position(v, lp)) {
        Ok(i) => return Some(i),
        Err(failover) => failover,
    };
    me.decide_new(pkt, v, key, failover)
}
    #[inline]
    fn sees_single_hops(&self, is_data: bool) -> bool {
        is_data || self.router.params().cache_every
    }
    #[inline]
    fn needs_paths(&self) -> bool {
        let p = self.router.params();
        p.path_scope == PathScope::Path || p.max_delay_spread.is_some()
    }
    #[inline]
    fn path_score(&self, delay: Time, bottleneck_bps: u64) -> Option<u8> {
        Some(self.router.path_score(delay, bottleneck_bps))
    }
    #[inline]
    fn pins_reverse(&self) -> bool {
        self.router.params().ack_routing == AckRouting::Reverse
    }
    #[inline]
    fn tick_interval(&self) -> Option<Time> {
        let p = self.router.params();
        (p.sampling == Sampling::Periodic).then_some(p.monitor_interval)
    }
    fn on_tick(&mut self, v: &dyn SwitchView) {
        self.queues.clear();
        for l in 0..v.port_count() as u16 {
            self.queues.push(v.queued_bytes(l));
        }
        self.router.monitor(v.now(), &self.queues);
    }
    fn on_port_change(&mut self, local: u16, up: Option<bool>, rate_bps: u64) {
        match up {
            Some(u) => self.router.set_port_up(local, u),
            None => self.router.set_port_rate(local, rate_bps),
        }
    }
    fn take_decision(&mut self) -> Option<(&[Scored], usize)> {
        std::mem::take(&mut self.decided).then(|| self.router.last_decision())
    }
}

impl Lcmp {
    /// The decision for a new flow `key` (or one whose egress went down: `failover`): the
    /// candidates scored, the reverse direction pinned. Out of line: the per-packet path is the
    /// cache.
    #[inline(never)]
    fn decide_new<V: SwitchView + ?Sized>(
        &mut self,
        pkt: &RoutePacket,
        v: &V,
        key: u128,
        failover: bool,
    ) -> Option<usize> {
        let now = v.now();
        let cands = v.candidates();
        let n = cands.len();
        // A new flow (or one whose port went down): the candidates, with their path attributes
        // when the decision reads them (`C_path`, or path delays for `routing.max_delay_spread`).
        let p = *self.router.params();
        let pins_reverse = p.ack_routing == AckRouting::Reverse;
        let reverse = if pkt.is_data && pins_reverse { v.reverse() } else { None };
        let need_cpath = p.path_scope == PathScope::Path;
        let need_delay = p.max_delay_spread.is_some() && n > 1;
        self.offered.clear();
        for (i, &lp) in cands.iter().enumerate() {
            let c = Candidate {
                port: lp,
                link_rate_bps: v.rate_bps(lp),
                link_delay: v.delay(lp),
                c_path: if need_cpath { v.path_scores()[i] } else { 0 },
            };
            self.offered.push((c, if need_delay { v.paths()[i].path_delay } else { Time::ZERO }));
        }
        let ports = v.port_count() as u16;
        let queues = |out: &mut Vec<u64>| out.extend((0..ports).map(|l| v.queued_bytes(l)));
        let rev = reverse
            .map(|(lp, rs, rd)| (flow_key(p.flow_key, pkt.dst_ip, pkt.src_ip, rs, rd, true), lp));
        let lp =
            self.router.route_new(now, key, n, &self.offered, queues, pkt.hash(), failover, rev)?;
        if rev.is_some() {
            self.reverse_pins += 1;
        }
        self.decided = true;
        position(v, lp)
    }
}

impl RouterBuild for Lcmp {
    const NAME: &'static str = "lcmp";
    fn build(p: &RoutingParams, sw: &mut SwitchSetup) -> Result<Lcmp, String> {
        // `max_delay = auto`: the smallest power-of-two multiple of 1 ms at least the longest
        // candidate path (path scope) or the switch's longest link (next-hop scope).
        let longest = if p.lcmp.max_delay == MaxDelay::Auto && p.lcmp.path_scope == PathScope::Path
        {
            (sw.longest_path_delay)()
        } else {
            sw.port_delays.iter().copied().max().unwrap_or(Time::ZERO)
        };
        let mut auto = Time::from_ms(1);
        while auto < longest {
            auto = Time::from_ps(auto.ps() * 2);
        }
        Ok(Lcmp {
            router: Box::new(LcmpRouter::new(p.lcmp, sw.port_rates, sw.buffer_bytes, auto)),
            offered: Vec::new(),
            queues: Vec::new(),
            reverse_pins: 0,
            decided: false,
        })
    }
}

/// [`Lcmp`] under the name of the artifact's profile (its knobs are the profile's).
#[derive(Clone, Debug)]
pub struct LcmpArtifact(pub Lcmp);

impl_router! { LcmpArtifact, |me, pkt, v, rng| {
    me.0.decide(pkt, v, rng)
}
    #[inline]
    fn sees_single_hops(&self, is_data: bool) -> bool {
        self.0.sees_single_hops(is_data)
    }
    #[inline]
    fn needs_paths(&self) -> bool {
        self.0.needs_paths()
    }
    #[inline]
    fn path_score(&self, delay: Time, bottleneck_bps: u64) -> Option<u8> {
        self.0.path_score(delay, bottleneck_bps)
    }
    #[inline]
    fn pins_reverse(&self) -> bool {
        self.0.pins_reverse()
    }
    #[inline]
    fn tick_interval(&self) -> Option<Time> {
        self.0.tick_interval()
    }
    fn on_tick(&mut self, v: &dyn SwitchView) {
        self.0.on_tick(v)
    }
    fn on_port_change(&mut self, local: u16, up: Option<bool>, rate_bps: u64) {
        self.0.on_port_change(local, up, rate_bps)
    }
    fn take_decision(&mut self) -> Option<(&[Scored], usize)> {
        self.0.take_decision()
    }
}

impl RouterBuild for LcmpArtifact {
    const NAME: &'static str = "lcmp-artifact";
    fn build(p: &RoutingParams, sw: &mut SwitchSetup) -> Result<LcmpArtifact, String> {
        Lcmp::build(p, sw).map(LcmpArtifact)
    }
}
