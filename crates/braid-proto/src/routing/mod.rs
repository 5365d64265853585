//! Switch-side routing decisions, sans-IO: which egress port a switch gives a packet among the
//! candidate next hops its routing table offers.
//!
//! Nothing here knows the simulator. A driver (the `braid-net` switch) owns the tables and the
//! ports; it hands each decision the candidates (local port index, link rate and delay, the
//! control plane's path score), the queue bytes it samples, a flow key and a hash, and gets a
//! port back. Time arrives as an argument; no call allocates once the scratch buffers have grown.
//!
//! | `routing.kind` | what | where |
//! |---|---|---|
//! | `ecmp` | per-flow MurmurHash3 of the 5-tuple seeded by the switch id (`docs/baselines.md`, switch routing) | [`crate::hash`] |
//! | `entropy` | next hop = UDP source port mod fan-out (the Rondo testbed's steering) | driver |
//! | `wcmp` | hash into a table with weights ∝ path capacity (`docs/baselines.md`, switch routing) | [`select`] |
//! | `ucmp` | the LCMP artifact's UCMP: hash among the maximum-capacity next hops (`docs/lcmp.md`, ECMP and UCMP) | [`select`] |
//! | `ucmp-weighted` | a weighted UCMP: paths within a latency slack of the best, weights ∝ capacity (`docs/baselines.md`, switch routing, a guess there) | [`select`] |
//! | `lcmp` | LCMP as the paper designs it (EuroSys'26 §3) | [`lcmp`] |
//! | `lcmp-artifact` | LCMP as its published artifact behaves (`docs/lcmp.md`, artifact profile) | [`lcmp`] |
//! | `adaptive` | RoCE adaptive routing: least-loaded eligible port per data packet by exact queue bytes, random ties; `quantized = true`: htsim's 4 levels (< 5/10/20 % of the port's buffer share, buffer / ports), recomputed per packet rather than every 0.1 µs; control packets ECMP-hashed (`docs/baselines.md`, switch routing) | [`select`] |
//!
//! On topologies with DCI switches only the DCIs run the selected scheme and every other switch
//! uses ECMP (as in the LCMP artifact); on topologies without DCIs the scheme runs on every switch.
//!
//! # LCMP: the paper's design and the artifact profile
//!
//! [`lcmp::LcmpRouter`] implements the paper's pipeline (§3.1.2, Fig. 2): flow identification in a
//! flow cache ([`flow_cache`]), on a miss the per-candidate costs `C = α·C_path + β·C_cong`
//! ([`cost`]: Alg. 1–2, Eq. 1–5), filtering to the cheaper half and hashing inside it (§3.4),
//! recording the choice, amortised garbage collection, and data-plane fast failover (§3.4). The
//! `lcmp-artifact` kind runs the same router with the artifact's behaviour, every difference being
//! one of the knobs below (lcmp.md lists the artifact's code; the paper wins where they differ):
//!
//! | aspect | `lcmp` (paper design) | `lcmp-artifact` | knob |
//! |---|---|---|---|
//! | scope of `C_path` | the whole remaining inter-DC path: its total one-way delay and bottleneck capacity, precomputed by the control plane (§3.2, "per-path quality score") | the local next-hop link only (`m_linkDelay[port]`, `m_linkBw[port]`) | `path_scope` = `path` \| `next-hop` |
//! | delay resolution | exact (picoseconds) | truncated to whole milliseconds | `delay_resolution` = `exact` \| `ms` |
//! | delay saturation | `auto`: the smallest 2^k ms ≥ the longest candidate path, so no candidate saturates (Alg. 1: "configured saturation point", e.g. 32, 64 ms) | 32 ms: 50, 100 and 250 ms cost the same | `max_delay` = `auto` \| duration |
//! | queue-level thresholds | `share·i/10` of the port's share of the switch's real buffer (`buffer / ports`; §3.1.2 "per-port egress buffer capacity"), 64-bit, graded | `5e9·i/10` in `uint32`: the last wraps to 205 MB, so the level is 0 or 25 (binary) | `queue_scale` = `port-share` \| `buffer` \| `artifact` \| size |
//! | sampling of `Q`, `T`, `D` | a periodic monitor over all ports (§3.3 "at a modest cadence"), trend normalised by the observed interval, `D` counted per sample | on each new flow, once per candidate, over all ports; interval always 1 ms; `D` counted per evaluation (never rises) | `sampling` = `periodic` \| `new-flow`, `monitor_interval` |
//! | filter | keep ⌈50 %⌉ of the candidates, plus any tied with the last kept | keep `n/2`, all when `n/2 < 2` | `keep` = `half` \| `artifact`, `keep_percent` |
//! | "highly congested" | `C_cong ≥ cost_threshold` | fused `C ≥ cost_threshold` | `congested` = `congestion` \| `fused` |
//! | fallback when none qualifies | the minimum-cost path (§3.4) | hash over all candidates | `fallback` = `min-cost` \| `hash-all` |
//! | flow key | the full 5-tuple (plus direction) | the artifact's lossy 32-bit `(sip≪16) \| (dip⊕sport⊕dport)` | `flow_key` = `5-tuple` \| `artifact` |
//! | ACKs / NAKs | follow the reverse of their flow's data path at each LCMP switch (the paper is silent; symmetric paths let RTT-based CCs measure the path they use) | an independent decision per direction (asymmetric paths) | `ack_routing` = `reverse` \| `independent` |
//! | fast failover | an entry on a down port is invalidated at its next packet, which is re-routed among live candidates (§3.4) | not implemented in the artifact (a stale entry would hit an assert); Braid keeps the failover in both profiles | — |
//! | route change | an entry whose port is no longer a candidate (the control plane recomputed the minimum-hop routes after a failure elsewhere) is re-decided too, so cached flows never leave the minimum-hop paths (which could loop) | not handled by the artifact | — |
//! | garbage collection | amortised, O(`gc_budget`) per packet | a full scan per packet (same expiry semantics: idle > `idle_timeout`, 2 s) | `idle_timeout`, `gc_budget` |
//!
//! Numeric knobs shared by both profiles, with the paper's defaults (the shifts are the values the
//! artifact's runs used, `docs/lcmp.md`, artifact profile): `alpha` 3, `beta` 1, `s_total` 2;
//! `w_dl` 3, `w_lc` 1, `s_path` 2, `max_capacity` 400 Gb/s; `w_ql` 2, `w_tl` 1, `w_dp` 1, `s_cong`
//! 2, `trend_k` 3, `dp_high` 204, `dp_low` 102, `dp_shift` 2; `cost_threshold` 204; `keep_percent`
//! 50; `monitor_interval` 100 µs (the paper gives no value: "a modest cadence"); `idle_timeout` 2 s
//! (the artifact's); `gc_budget` 2. The other kinds' knobs: `quantized` (adaptive, default false),
//! `wcmp_table` (64), `ucmp_slack` (percent, 100).

pub mod adaptive;
pub mod cost;
pub mod flow_cache;
pub mod hashed;
pub mod lcmp;
pub mod lcmp_switch;
mod params;
pub mod router;
pub mod select;
pub mod te;

use braid_core::{Knob, Rate, Time};

pub use flow_cache::{CacheLookup, CacheStats, FlowCache};
pub use lcmp::{Candidate, LcmpRouter, LcmpStats, Scored};
pub use params::*;
pub use router::{register_router, Router, RoutingKind, SwitchRouter};

/// The flow key of a packet for the flow cache: the 5-tuple (addresses, UDP ports, protocol) and
/// the direction (`reply` for ACKs, NAKs and other packets going back to the sender), or the
/// artifact's lossy 32-bit id.
#[inline]
pub fn flow_key(
    kind: FlowKeyKind,
    sip: u32,
    dip: u32,
    sport: u16,
    dport: u16,
    reply: bool,
) -> u128 {
    match kind {
        FlowKeyKind::FiveTuple => {
            (sip as u128) << 96
                | (dip as u128) << 64
                | (sport as u128) << 48
                | (dport as u128) << 32
                | (17u128 << 8)
                | reply as u128
        }
        FlowKeyKind::Artifact => ((sip << 16) | (dip ^ sport as u32 ^ dport as u32)) as u128,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::node_ip;

    #[test]
    fn kinds_round_trip() {
        for n in RoutingKind::NAMES {
            assert_eq!(RoutingKind::parse(n).unwrap().name(), *n);
        }
        assert!(RoutingKind::parse("ospf").unwrap_err().contains("known: ecmp"));
    }

    #[test]
    fn knobs_parse_and_reject() {
        let mut p = RoutingParams::for_kind(RoutingKind::Lcmp);
        p.apply_knob("alpha", &Knob::Int(0)).unwrap();
        p.apply_knob("max_delay", &Knob::Str("64ms".into())).unwrap();
        assert_eq!(p.lcmp.max_delay, MaxDelay::Fixed(Time::from_ms(64)));
        p.apply_knob("queue_scale", &Knob::Str("6GB".into())).unwrap();
        assert_eq!(p.lcmp.queue_scale, QueueScale::Bytes(6_000_000_000));
        p.apply_knob("sampling", &Knob::Str("new-flow".into())).unwrap();
        assert!(p
            .apply_knob("sampling", &Knob::Str("sometimes".into()))
            .unwrap_err()
            .contains("periodic"));
        assert!(p.apply_knob("alpha", &Knob::Int(-1)).unwrap_err().contains("routing.alpha"));
        assert!(p
            .apply_knob("gamma", &Knob::Int(1))
            .unwrap_err()
            .contains("unknown field `routing.gamma`"));
        assert!(p.apply_knob("dp_low", &Knob::Int(250)).unwrap_err().contains("dp_high"));
        let a = RoutingParams::for_kind(RoutingKind::LcmpArtifact);
        assert_eq!(a.lcmp.path_scope, PathScope::NextHop);
        assert_eq!(a.lcmp.alpha, 3);
    }

    /// The artifact's key collides for hosts 0,1,2,3,8,9,10,11 sending to the same host with the
    /// same ports (`docs/lcmp.md`, ECMP and UCMP); the 5-tuple key does not.
    #[test]
    fn artifact_key_is_lossy() {
        let d = node_ip(120);
        let k = |s: u32, kind| flow_key(kind, node_ip(s), d, 10000, 100, false);
        let art: Vec<u128> =
            [0, 1, 2, 3, 8, 9, 10, 11].iter().map(|&s| k(s, FlowKeyKind::Artifact)).collect();
        assert!(art.iter().all(|&x| x == art[0]));
        let full: std::collections::HashSet<u128> =
            [0, 1, 2, 3, 8, 9, 10, 11].iter().map(|&s| k(s, FlowKeyKind::FiveTuple)).collect();
        assert_eq!(full.len(), 8);
        assert_ne!(
            flow_key(FlowKeyKind::FiveTuple, 1, 2, 3, 4, false),
            flow_key(FlowKeyKind::FiveTuple, 1, 2, 3, 4, true)
        );
    }
}
