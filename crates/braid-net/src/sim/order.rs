//! The canonical order of equal-time events (`run.order = "canonical"`, `docs/architecture.md`,
//! "Equal-time events"): an event's tie-break key is a function of the event itself — its kind's
//! rank, the entity it acts on (a port, host, connection, flow, link change or timer) and that
//! entity's own count of such events — not of when it was scheduled. So the order of two events
//! at the same time does not depend on which handler ran first, and a departure carried out on
//! demand ([`super::departures`]) gets the key its `TxDone` would have had: a run gives the same
//! bytes whichever ports depart on demand.
//!
//! At equal times the ranks run in this order, each for a reason:
//! 1. scheduled link changes (the network as it is at `t` applies to everything at `t`);
//! 2. flow starts;
//! 3. switch-routing timers and 4. samples, which read ports as they are before `t`'s departures;
//! 5. PFC frames (a port paused at `t` does not start a packet at `t`);
//! 6. arrivals, by port (a packet that arrives at `t` is queued before the port's departure at
//!    `t`: the order of the event engine's insertion sequence in the common case);
//! 7. connection timers (after the ACKs of `t`), 8. pull ticks and 9. NIC wake-ups;
//! 10. departures (`TxDone`), last: a port's transmission at `t` sends what has arrived by `t`.
//!
//! Key layout: rank in the top 4 bits, the entity in the next 28, its count in the low 32 (a
//! count wraps after 2^32 events of one kind on one entity; the key stays a function of the
//! event, so the order stays deterministic).

use braid_core::Time;

use super::{Ev, Sim};

/// The ranks of [`Ev`]'s kinds at equal times (lower first).
mod rank {
    pub const LINK: u64 = 0;
    pub const FLOW_START: u64 = 1;
    pub const ROUTING: u64 = 2;
    pub const SAMPLE: u64 = 3;
    pub const PFC: u64 = 4;
    pub const ARRIVE: u64 = 5;
    pub const FLOW_TIMER: u64 = 6;
    pub const PULL_TICK: u64 = 7;
    pub const NIC_WAKE: u64 = 8;
    pub const TX_DONE: u64 = 9;
}

/// Entities are numbered below 2^28.
const ENTITY_BITS: u32 = 28;

/// The key of an event of `rank` on `entity`, its `count`-th of that kind.
#[inline(always)]
fn key(rank: u64, entity: u32, count: u32) -> u64 {
    debug_assert!(entity < 1 << ENTITY_BITS, "entity {entity} beyond the key's 28 bits");
    (rank << 60) | ((entity as u64) << 32) | count as u64
}

/// The next count of entity `i` in `counts` (grown as entities appear).
#[inline(always)]
fn bump(counts: &mut Vec<u32>, i: usize) -> u32 {
    if i >= counts.len() {
        counts.resize(i + 1, 0);
    }
    let c = counts[i];
    counts[i] = c.wrapping_add(1);
    c
}

/// Per-entity counts of the events whose key needs one beyond the port's transmission count.
#[derive(Clone, Debug, Default)]
pub(super) struct EventCounts {
    /// PFC frames per paused port.
    pfc: Vec<u32>,
    /// NIC wake-ups and pull ticks per host.
    host: Vec<u32>,
    /// Timers per connection.
    conn: Vec<u32>,
    /// Samples.
    sample: u32,
    /// Routing timers, per timer kind.
    routing: [u32; 2],
}

impl Sim {
    /// Order equal-time events canonically (see the module comment; the default) or, with
    /// `false`, by insertion (in a parallel run, by origin node). Call before
    /// [`Sim::make_partition`] and [`Sim::prepare`].
    pub fn set_canonical_order(&mut self, on: bool) {
        assert!(self.part.is_none(), "set_canonical_order: call it before make_partition");
        self.canonical = on;
    }

    /// Schedule `ev` at `at`: with its canonical key, or by insertion (or origin).
    #[inline(always)]
    pub(super) fn push_ev(&mut self, at: Time, ev: Ev) {
        if self.canonical {
            let k = self.canonical_key(ev);
            self.q.push_with_seq(at, k, ev);
        } else {
            self.q.push(at, ev);
        }
    }

    /// The key `ev` would be scheduled with now (for an event another partition schedules).
    #[inline]
    pub(super) fn event_key(&mut self, ev: Ev) -> u64 {
        if self.canonical {
            self.canonical_key(ev)
        } else {
            self.q.reserve_seq()
        }
    }

    /// The key of the arrival at the far end of `port` of the packet it just started sending:
    /// canonical (the port's transmission count), or the next insertion sequence.
    #[inline(always)]
    pub(super) fn arrival_key(&mut self, port: u32) -> u64 {
        if self.canonical {
            key(rank::ARRIVE, port, self.ports[port as usize].tx_pkts as u32)
        } else {
            self.q.reserve_seq()
        }
    }

    /// `ev`'s canonical key (counting it for its entity).
    fn canonical_key(&mut self, ev: Ev) -> u64 {
        let c = &mut self.ev_counts;
        match ev {
            Ev::Arrive { port, .. } => {
                key(rank::ARRIVE, port, self.ports[port as usize].tx_pkts as u32)
            }
            // One `TxDone` at most per transmission of a port.
            Ev::TxDone { port } => {
                key(rank::TX_DONE, port, self.ports[port as usize].tx_pkts as u32)
            }
            Ev::NicWake { host } => key(rank::NIC_WAKE, host, bump(&mut c.host, host as usize)),
            Ev::PullTick { host } => key(rank::PULL_TICK, host, bump(&mut c.host, host as usize)),
            Ev::FlowTimer { conn } => key(rank::FLOW_TIMER, conn, bump(&mut c.conn, conn as usize)),
            Ev::FlowStart { flow } => key(rank::FLOW_START, flow, 0),
            Ev::Pfc { port, .. } => key(rank::PFC, port, bump(&mut c.pfc, port as usize)),
            Ev::Link { idx } => key(rank::LINK, idx, 0),
            Ev::Sample => {
                c.sample = c.sample.wrapping_add(1);
                key(rank::SAMPLE, 0, c.sample)
            }
            Ev::Routing { timer } => {
                let i = timer as usize;
                c.routing[i] = c.routing[i].wrapping_add(1);
                key(rank::ROUTING, i as u32, c.routing[i])
            }
        }
    }
}
