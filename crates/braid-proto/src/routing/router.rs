//! The switch side of routing as one sans-IO contract, [`SwitchRouter`]: a router per switch
//! that runs a scheme, told of each packet ([`RoutePacket`]: its addresses, the UDP ports the
//! switch hashes, its entropy, and the switch's seeded hash of them when asked) and lent a [`SwitchView`] (the
//! time, the candidate egresses — the minimum-hop next hops toward the packet's destination — by
//! local port index, every port's queue, rate, delay and bytes sent, and the control plane's
//! path attributes of the candidates), answering with the candidate the packet leaves by. It
//! may keep state (flow caches, congestion samples, splitting ratios), run a periodic timer and
//! hear of its ports going down, coming up or changing rate. It never reads a clock or touches
//! the simulator: the driver (`braid-net`'s `switch_routing.rs`) builds the view from its tables
//! and names no scheme.
//!
//! Braid's schemes are listed once, in `routers!` below, which builds [`RoutingKind`] (names,
//! parsing) and [`Router`] (enum dispatch, one `match` per call) from the list: ECMP,
//! entropy-indexed and path-index routing, WCMP, UCMP (the LCMP artifact's, with its optional
//! flow cache) and weighted UCMP, LCMP (the paper's design and the artifact's behaviour), RoCE
//! adaptive routing and a RedTE-like TE. A scheme written outside this crate implements
//! [`SwitchRouter`] and [`RouterBuild`] and is added with [`register_router`]; its switches then
//! run it behind one box (`docs/architecture.md`, "Add a routing scheme").

use std::fmt::Debug;

use braid_core::{Rng, Time};

pub use super::adaptive::Adaptive;
pub use super::hashed::{path_index, Ecmp, EntropyIndexed, PathIndex, Ucmp, UcmpWeighted, Wcmp};
use super::lcmp::Scored;
pub use super::lcmp_switch::{Lcmp, LcmpArtifact};
use super::select::PathAttr;
pub use super::te::Te;
use super::RoutingParams;
use crate::registry::{Named, Registry};

/// A packet as a switch's routing sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoutePacket {
    /// Source and destination addresses.
    pub src_ip: u32,
    /// Destination address.
    pub dst_ip: u32,
    /// The UDP source and destination ports the switches hash for this packet
    /// (`routing.per_entropy`, `routing.hash_dport`, `routing.ack_hash` applied).
    pub sport: u16,
    /// See `sport`.
    pub dport: u16,
    /// The packet's entropy (its UDP source port as the sender set it).
    pub entropy: u16,
    /// A data packet or probe (else an ACK, NAK or other control packet).
    pub is_data: bool,
    /// Bytes on the wire.
    pub size_bytes: u32,
    /// The switch's ECMP hash seed.
    pub seed: u32,
}

impl RoutePacket {
    /// The switch's seeded ECMP hash of the 5-tuple `(src_ip, dst_ip, sport, dport, UDP)`,
    /// computed when asked (a flow cache hit does not need it).
    #[inline]
    pub fn hash(&self) -> u32 {
        crate::hash::ecmp_hash(self.src_ip, self.dst_ip, self.sport, self.dport, self.seed)
    }
}

/// What a router reads of its switch, lent by the driver for one decision or tick.
pub trait SwitchView {
    /// The current time.
    fn now(&self) -> Time;
    /// The number of the switch's ports (local indices `0..port_count`).
    fn port_count(&self) -> usize;
    /// Bytes queued at local port `local`.
    fn queued_bytes(&self, local: u16) -> u64;
    /// The link rate of local port `local`, bit/s.
    fn rate_bps(&self, local: u16) -> u64;
    /// The one-way delay of local port `local`'s link.
    fn delay(&self, local: u16) -> Time;
    /// Bytes local port `local` has sent since the run began.
    fn tx_bytes(&self, local: u16) -> u64;
    /// The candidates of this decision, by local port, in the routing table's order (empty on a
    /// tick).
    fn candidates(&self) -> &[u16];
    /// The control plane's attributes of the remaining path through each candidate, aligned
    /// with [`SwitchView::candidates`] (empty unless the router [`SwitchRouter::needs_paths`]).
    fn paths(&self) -> &[PathAttr];
    /// The router's own score of each candidate's best path ([`SwitchRouter::path_score`]),
    /// aligned with the candidates (empty unless it needs paths).
    fn path_scores(&self) -> &[u8];
    /// An id of the candidate set: equal for two decisions iff their candidates are.
    fn set_id(&self) -> u32;
    /// For a data packet whose reverse direction (its ACKs) has more than one candidate here,
    /// one of which is the link it arrived on: that local port and the UDP ports the switches
    /// hash for the ACKs (asked only of routers that [`SwitchRouter::pins_reverse`]).
    fn reverse(&self) -> Option<(u16, u16, u16)>;
}

/// One switch's routing (see the module docs). Object-safe: Braid's own are dispatched by
/// [`Router`]'s `match`, a registered one runs as a `Box<dyn SwitchRouter>`.
pub trait SwitchRouter: Debug + Send {
    /// The candidate (an index into `v.candidates()`) `pkt` leaves by; `None` drops it.
    fn route(&mut self, pkt: &RoutePacket, v: &dyn SwitchView, rng: &mut Rng) -> Option<usize>;
    /// It decides even for a single candidate (a flow cache that must see every flow).
    #[inline]
    fn sees_single_hops(&self, _is_data: bool) -> bool {
        false
    }
    /// Its decisions read [`SwitchView::paths`].
    #[inline]
    fn needs_paths(&self) -> bool {
        false
    }
    /// Its score of a path of one-way `delay` and bottleneck `bottleneck_bps`, lower is better
    /// ([`SwitchView::path_scores`] gives the best per candidate); `None`: it scores no path.
    #[inline]
    fn path_score(&self, _delay: Time, _bottleneck_bps: u64) -> Option<u8> {
        None
    }
    /// It pins the reverse direction of a flow it routes ([`SwitchView::reverse`]).
    #[inline]
    fn pins_reverse(&self) -> bool {
        false
    }
    /// Its periodic timer: first at this interval from the start, then every interval.
    #[inline]
    fn tick_interval(&self) -> Option<Time> {
        None
    }
    /// Its periodic timer fired.
    fn on_tick(&mut self, _v: &dyn SwitchView) {}
    /// Local port `local` went down or came up (`up`), or its rate changed to `rate_bps`
    /// (`up = None`).
    fn on_port_change(&mut self, _local: u16, _up: Option<bool>, _rate_bps: u64) {}
    /// After a decision that scored candidates: the candidates scored, in the order of their
    /// cost, and how many the filter kept — once (`decisions.csv`); `None` otherwise.
    fn take_decision(&mut self) -> Option<(&[Scored], usize)> {
        None
    }
}

/// What a switch's router is built from, besides the scenario's routing knobs.
pub struct SwitchSetup<'a> {
    /// The link rate of each port, bit/s, by local index.
    pub port_rates: &'a [u64],
    /// The one-way delay of each port's link, by local index.
    pub port_delays: &'a [Time],
    /// The switch's shared buffer, bytes.
    pub buffer_bytes: u64,
    /// Path-index routing's divisor `D_t` of the switch's tier (`routing.kind = "path-index"`).
    pub tier_divisor: u32,
    /// The longest one-way delay of a candidate path from this switch to any destination
    /// (computed when called: it walks the topology).
    pub longest_path_delay: &'a mut dyn FnMut() -> Time,
}

/// How a scheme's router is built for one switch: the scheme's name and a constructor from the
/// scenario's routing knobs and the switch.
pub trait RouterBuild: SwitchRouter + Sized + 'static {
    /// The kebab-case name scenarios use (`routing.kind`).
    const NAME: &'static str;
    /// The router of one switch.
    fn build(params: &RoutingParams, sw: &mut SwitchSetup) -> Result<Self, String>;
}

/// The index of local port `lp` among the candidates.
#[inline]
pub(crate) fn position<V: SwitchView + ?Sized>(v: &V, lp: u16) -> Option<usize> {
    v.candidates().iter().position(|&c| c == lp)
}

/// A router's decision as an inherent generic `decide` (which [`Router`] calls statically, the
/// view's methods inlined) and `impl SwitchRouter` whose `route` calls it through
/// `&dyn SwitchView`, with the trait's other methods given after the body:
/// `impl_router! { T, |me, pkt, v, rng| { … } fn needs_paths(&self) -> bool { … } }`.
macro_rules! impl_router {
    ($t:ty, |$me:ident, $pkt:ident, $v:ident, $rng:ident| $body:block $($rest:tt)*) => {
        impl $t {
            /// [`SwitchRouter::route`](crate::routing::router::SwitchRouter::route), generic over
            /// the view (static dispatch from [`Router`](crate::routing::router::Router)).
            #[inline(always)]
            #[allow(unused_variables)]
            pub fn decide<V: $crate::routing::router::SwitchView + ?Sized>(
                &mut self,
                $pkt: &$crate::routing::router::RoutePacket,
                $v: &V,
                $rng: &mut braid_core::Rng,
            ) -> Option<usize> {
                let $me = self;
                $body
            }
        }

        impl $crate::routing::router::SwitchRouter for $t {
            fn route(
                &mut self,
                pkt: &$crate::routing::router::RoutePacket,
                v: &dyn $crate::routing::router::SwitchView,
                rng: &mut braid_core::Rng,
            ) -> Option<usize> {
                self.decide(pkt, v, rng)
            }
            $($rest)*
        }
    };
}
pub(crate) use impl_router;

/// A registered routing scheme: its name and constructor, monomorphised from its
/// [`RouterBuild`] impl.
#[derive(Debug)]
pub struct RouterPluginEntry {
    /// [`RouterBuild::NAME`].
    pub name: &'static str,
    /// [`RouterBuild::build`], boxed.
    pub build: RouterPluginBuild,
}

/// [`RouterBuild::build`] of a registered scheme.
pub type RouterPluginBuild =
    fn(&RoutingParams, &mut SwitchSetup) -> Result<Box<dyn SwitchRouter>, String>;

impl Named for RouterPluginEntry {
    fn name(&self) -> &'static str {
        self.name
    }
}

/// The registered routing schemes.
pub(crate) static PLUGINS: Registry<RouterPluginEntry> = Registry::new("routing scheme");

fn boxed<R: RouterBuild>(
    p: &RoutingParams,
    sw: &mut SwitchSetup,
) -> Result<Box<dyn SwitchRouter>, String> {
    Ok(Box::new(R::build(p, sw)?))
}

/// Add routing scheme `R`, written outside this crate, to those scenarios may name
/// (`routing.kind = R::NAME`) for the rest of the process; the switches that run the scheme
/// (every switch, or the DCIs of a topology with DCIs) each get one. Registering the same name
/// again is a no-op; a name of Braid's own is an error.
pub fn register_router<R: RouterBuild>() -> Result<(), String> {
    PLUGINS
        .add(R::NAME, RoutingKind::NAMES, || RouterPluginEntry { name: R::NAME, build: boxed::<R> })
}

/// Builds, from the one list of Braid's routing schemes, the kind enum [`RoutingKind`] and the
/// router enum [`Router`], each method dispatching in one `match` (a registered router through
/// its box).
macro_rules! routers {
    ($d:tt $( $(#[$doc:meta])* $variant:ident($router:ty) ),* $(,)?) => {
        /// The routing scheme a scenario selects (`routing.kind`): Braid's own, and those
        /// registered with [`register_router`] (`Plugin`, by registration number).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum RoutingKind {
            $( $(#[$doc])* $variant, )*
            /// A routing scheme registered at run time.
            Plugin(u16),
        }

        impl RoutingKind {
            /// Braid's own kinds' scenario names, in the order of the list.
            pub const NAMES: &'static [&'static str] = &[$(<$router as RouterBuild>::NAME),*];
            /// Braid's own kinds, in the order of the list.
            pub const BUILTIN: &'static [RoutingKind] = &[$(RoutingKind::$variant),*];

            /// The scenario name.
            pub fn name(self) -> &'static str {
                match self {
                    $( RoutingKind::$variant => <$router as RouterBuild>::NAME, )*
                    RoutingKind::Plugin(i) => PLUGINS.get(i).name,
                }
            }

            /// The router of one switch that runs this scheme.
            pub fn build(self, p: &RoutingParams, sw: &mut SwitchSetup) -> Result<Router, String> {
                Ok(match self {
                    $( RoutingKind::$variant => Router::$variant(<$router as RouterBuild>::build(p, sw)?), )*
                    RoutingKind::Plugin(i) => Router::Plugin((PLUGINS.get(i).build)(p, sw)?),
                })
            }
        }

        /// One switch's router: one of Braid's schemes, dispatched by `match`, or a registered
        /// one behind its box.
        #[derive(Debug)]
        pub enum Router {
            $( $(#[$doc])* $variant($router), )*
            /// A registered scheme's router.
            Plugin(Box<dyn SwitchRouter>),
        }

        /// [`Router::route`]: each of Braid's routers' generic `decide`, a registered one's
        /// `route`.
        macro_rules! route_static {
            ($d self_:expr, $d pkt:expr, $d v:expr, $d rng:expr) => {
                match $d self_ {
                    $( Router::$variant(r) => r.decide($d pkt, $d v, $d rng), )*
                    Router::Plugin(r) => r.route($d pkt, $d v, $d rng),
                }
            };
        }

        /// Calls [`SwitchRouter`] method `m` with arguments `a…` on the router inside.
        macro_rules! dispatch {
            ($d self_:expr, $d m:ident($d($d a:expr),*)) => {
                match $d self_ {
                    $( Router::$variant(r) => <$router as SwitchRouter>::$d m(r $d(, $d a)*), )*
                    Router::Plugin(r) => r.$d m($d($d a),*),
                }
            };
        }
    };
}

routers! {
    $
    /// MurmurHash3 of the 5-tuple (UDP source port = entropy), seeded per switch.
    Ecmp(Ecmp),
    /// Entropy modulo the number of next hops (the Rondo testbed's steering by UDP source port).
    EntropyIndexed(EntropyIndexed),
    /// The entropy as a path index read digit by digit (Rondo §4.4: "a transport-level path
    /// identifier that the network maps to a physical forwarding path"): a switch of tier `t`
    /// takes `⌊index / D_t⌋ mod n` of its `n` next hops, `D_t` being the product of the
    /// up-link fan-outs of the tiers below it, the index being the entropy's low byte offset by
    /// a scramble of its high byte ([`path_index`]). On a Clos or fat-tree a flow's logical
    /// paths `p = 0, 1, …` then reach distinct physical paths (16 between pods of the 320-host
    /// Clos), each flow starting at its own, where plain entropy-indexing repeats the same digit
    /// at every tier.
    PathIndex(PathIndex),
    /// Weighted-cost multipath: weights ∝ path capacity.
    Wcmp(Wcmp),
    /// The LCMP artifact's UCMP: hash among the maximum-capacity next hops.
    Ucmp(Ucmp),
    /// UCMP with weights: paths within a latency slack of the best, weights ∝ capacity.
    UcmpWeighted(UcmpWeighted),
    /// LCMP, the paper's design.
    Lcmp(Lcmp),
    /// LCMP as the published artifact behaves.
    LcmpArtifact(LcmpArtifact),
    /// RoCE adaptive routing: the least-loaded eligible port, per packet.
    Adaptive(Adaptive),
    /// A RedTE-like traffic-engineering baseline: splitting ratios per destination updated every
    /// `te_interval` from measured utilisations, new flows hashed onto them ([`super::te`]).
    Te(Te),
}

impl RoutingKind {
    /// Every name `routing.kind` may take: Braid's own, then the registered ones.
    pub fn names() -> Vec<&'static str> {
        let mut v = RoutingKind::NAMES.to_vec();
        v.extend(PLUGINS.names());
        v
    }

    /// Parse a scenario name (`entropy-indexed` is `entropy`).
    pub fn parse(s: &str) -> Result<RoutingKind, String> {
        let s = if s == "entropy-indexed" { "entropy" } else { s };
        if let Some(i) = RoutingKind::NAMES.iter().position(|&n| n == s) {
            return Ok(RoutingKind::BUILTIN[i]);
        }
        if let Some(i) = PLUGINS.id(s) {
            return Ok(RoutingKind::Plugin(i));
        }
        Err(format!("unknown routing kind `{s}` (known: {})", RoutingKind::names().join(", ")))
    }

    /// An LCMP kind.
    pub fn is_lcmp(self) -> bool {
        matches!(self, RoutingKind::Lcmp | RoutingKind::LcmpArtifact)
    }
}

impl Router {
    /// The router of a switch that does not run the scenario's scheme (the intra-DC switches of
    /// a topology with DCIs): plain ECMP — or the scheme's own ECMP when the scheme is ECMP.
    pub fn fallback(kind: RoutingKind, p: &RoutingParams) -> Router {
        match kind {
            RoutingKind::Ecmp => Router::Ecmp(Ecmp { spread: p.lcmp.max_delay_spread }),
            _ => Router::Ecmp(Ecmp::plain()),
        }
    }

    /// The decision of a router that reads nothing but the packet's entropy and hash (ECMP
    /// without a delay spread, entropy-indexed and path-index routing) among `n` candidates,
    /// without a view; `None`: it needs [`SwitchRouter::route`].
    #[inline(always)]
    pub fn route_by_header(&self, pkt: &RoutePacket, n: usize) -> Option<usize> {
        match self {
            Router::Ecmp(r) if r.spread.is_none() => Some(pkt.hash() as usize % n),
            Router::EntropyIndexed(_) => Some(pkt.entropy as usize % n),
            Router::PathIndex(r) => Some(r.index(pkt.entropy, n)),
            _ => None,
        }
    }

    /// See [`SwitchRouter::route`]: Braid's own routers read the view `V` statically, a
    /// registered one through `&dyn SwitchView`.
    #[inline]
    pub fn route<V: SwitchView>(
        &mut self,
        pkt: &RoutePacket,
        v: &V,
        rng: &mut Rng,
    ) -> Option<usize> {
        route_static!(self, pkt, v, rng)
    }
    /// See [`SwitchRouter::sees_single_hops`].
    #[inline]
    pub fn sees_single_hops(&self, is_data: bool) -> bool {
        dispatch!(self, sees_single_hops(is_data))
    }
    /// See [`SwitchRouter::needs_paths`].
    #[inline]
    pub fn needs_paths(&self) -> bool {
        dispatch!(self, needs_paths())
    }
    /// See [`SwitchRouter::path_score`].
    #[inline]
    pub fn path_score(&self, delay: Time, bottleneck_bps: u64) -> Option<u8> {
        dispatch!(self, path_score(delay, bottleneck_bps))
    }
    /// See [`SwitchRouter::pins_reverse`].
    #[inline]
    pub fn pins_reverse(&self) -> bool {
        dispatch!(self, pins_reverse())
    }
    /// See [`SwitchRouter::tick_interval`].
    #[inline]
    pub fn tick_interval(&self) -> Option<Time> {
        dispatch!(self, tick_interval())
    }
    /// See [`SwitchRouter::on_tick`].
    pub fn on_tick(&mut self, v: &dyn SwitchView) {
        dispatch!(self, on_tick(v))
    }
    /// See [`SwitchRouter::on_port_change`].
    pub fn on_port_change(&mut self, local: u16, up: Option<bool>, rate_bps: u64) {
        dispatch!(self, on_port_change(local, up, rate_bps))
    }
    /// See [`SwitchRouter::take_decision`].
    pub fn take_decision(&mut self) -> Option<(&[Scored], usize)> {
        dispatch!(self, take_decision())
    }

    /// The LCMP state of an LCMP switch (either profile).
    pub fn as_lcmp(&self) -> Option<&Lcmp> {
        match self {
            Router::Lcmp(r) | Router::LcmpArtifact(LcmpArtifact(r)) => Some(r),
            _ => None,
        }
    }

    /// The TE state of a TE switch.
    pub fn as_te(&self) -> Option<&Te> {
        match self {
            Router::Te(r) => Some(r),
            _ => None,
        }
    }

    /// The adaptive-routing state of an adaptive switch.
    pub fn as_adaptive(&self) -> Option<&Adaptive> {
        match self {
            Router::Adaptive(r) => Some(r),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    /// A router is held per switch (every switch of a large fat-tree): the schemes with large
    /// state keep it boxed, so a router of any scheme stays within two cache lines.
    #[test]
    fn a_router_stays_small() {
        assert!(
            std::mem::size_of::<super::Router>() <= 128,
            "{}",
            std::mem::size_of::<super::Router>()
        );
    }
}
