//! Departures on demand (`run.departures = "on-demand"`): a busy switch port puts no `TxDone`
//! per packet in the event queue. Its next departure is known from its own state (the
//! transmission in progress ends at `busy_until`, and the packet to send then is the head of its
//! highest unpaused class), so the departure is carried out when something first needs it:
//!
//! - a packet is queued at the port (a port free by then sends it at once, as a pump would
//!   before a `TxDone`), or the port's switch admits a packet whose refusal depends on the shared
//!   buffer, decides a PAUSE, or routes with a view of its ports' queues;
//! - the packet the port sent last arrives at the far end, `busy_until` + the link's delay: no
//!   later than the next departure's own arrival could be, so every arrival is still scheduled
//!   at or after the time it is scheduled;
//! - a PFC frame reaches the port, the link changes, the sampler or a switch-routing timer reads
//!   the ports, or the run ends.
//!
//! A departure carried out late is carried out *as of its own time*: it starts when the
//! transmission before it ended, and ECN and INT are marked from the port's queue as it was
//! then. That state is exact because every change to the port's queue first carries out the
//! departures due before it. Admission reads the switch's shared-buffer occupancy, which other
//! ports' late departures overstate: an admission that the overstated count would refuse
//! carries out the switch's due departures and is judged again, so the answer is the exact one.
//!
//! Ties: what happens at `t` (an arrival, a read, a frame) sees the port before its departure
//! due at `t` ([`before`]), which comes after everything else at `t` unless a packet queued at
//! `t` finds the port free — the places the event engine's `TxDone` and pump take. Under the
//! canonical order of equal-time events ([`super::order`]), where a departure's `TxDone` is the
//! last of its time, the two engines therefore give the same bytes; under the insertion order
//! they differ where that order put a `TxDone` before an arrival of its time, and agree
//! statistically (`docs/architecture.md`, "Departures: events or on demand").
//!
//! PFC: a PAUSE is judged on exact counts (a PAUSE that the overstated ingress count would send
//! carries out the switch's due departures first). While a switch pauses any upstream port, its
//! ports schedule their departures as events ([`Sim::pausing_upstream`]): a departure may
//! release the bytes that send the RESUME, which must leave at the departure's own time.
//!
//! Kept as events (the eager path, [`Sim::pump_port`]): host ports (a NIC pulls from its
//! senders, whose state other events change); ports of links with no delay, or whose delay a
//! fault changes (the last packet's arrival would not come after the next departure); every port
//! under the HPCC MMU (its shared-pool accounting is not judged twice), with packet capture (its
//! log is in transmission order), and, in a parallel run, ports whose far end is in another
//! partition (an arrival there cannot carry out the next departure here).

use braid_core::{PortId, Time};

use super::{Ev, Sim};

/// The last picosecond before `now`: what reads or changes a port at `now` first carries out
/// the departures due before it, and leaves one due at `now` itself to come after it (in the
/// event engine a packet's arrival at `t` was scheduled before the `TxDone` at `t`, so it came
/// first too).
#[inline(always)]
pub(super) fn before(now: Time) -> Time {
    Time::from_ps(now.ps().saturating_sub(1))
}

impl Sim {
    /// Let switch ports carry out their departures on demand (see the module comment; the
    /// default) or schedule a `TxDone` for each (`false`). Call before [`Sim::prepare`], which
    /// decides which ports may ([`crate::port::Port::on_demand`]).
    pub fn set_departures_on_demand(&mut self, on: bool) {
        self.departures_on_demand = on;
    }

    /// Which ports carry out their departures on demand: switch ports, when asked for
    /// ([`Sim::set_departures_on_demand`]) and nothing of the run needs every departure as an
    /// event. Returns why none may, if none may though it was asked for.
    pub(super) fn choose_departure_modes(&mut self) -> Option<&'static str> {
        if !self.departures_on_demand {
            return None;
        }
        let why = if self.mmu.is_some() {
            Some("the HPCC MMU")
        } else if !self.capture_ports.is_empty() {
            Some("packet capture")
        } else {
            None
        };
        // A link of no delay, or one a fault gives another delay, would let the packet a port
        // sent last arrive when the next departure is due, not after it: those ports keep
        // their departures as events.
        let mut delay_changes = vec![false; self.topo.links.len()];
        for e in &self.link_events {
            if matches!(e.change, crate::config::LinkChange::Delay(_)) {
                delay_changes[e.link as usize] = true;
            }
        }
        // In a parallel run, a port whose far end another partition holds sends its packets
        // as messages: no arrival there can carry out its next departure here.
        let remote = self.part.as_ref().map(|p| &p.port_remote[..]);
        for (i, p) in self.ports.iter_mut().enumerate() {
            p.may_depart_on_demand = why.is_none()
                && !p.at_host
                && p.delay > Time::ZERO
                && !delay_changes[i / 2]
                && !remote.is_some_and(|r| r[i]);
            p.on_demand = p.may_depart_on_demand;
        }
        self.any_on_demand = why.is_none() && self.ports.iter().any(|p| p.on_demand);
        why
    }

    /// Carry out every departure of `port` due at or before `now` (a no-op for a port whose
    /// departures are events, or that has none due by `now`). Callers that act at the event
    /// time pass [`before`] it.
    #[inline(always)]
    pub(super) fn catch_up(&mut self, now: Time, port: PortId) {
        if self.any_on_demand && self.due_at[port.idx()] <= now {
            self.catch_up_port(now, port);
        }
    }

    /// [`Sim::catch_up`] past its check: each queued packet in turn starts when the
    /// transmission before it ended, until the port is busy past `now` or has nothing to send.
    #[inline(never)]
    fn catch_up_port(&mut self, now: Time, port: PortId) {
        loop {
            let due = self.due_at[port.idx()];
            if due > now {
                return;
            }
            let p = &self.ports[port.idx()];
            debug_assert_eq!(
                due, p.busy_until,
                "a due departure starts when the port frees (port {}, on demand {}, now {now:?})",
                port.0, p.on_demand
            );
            let next = if p.up { p.next_class() } else { None };
            let Some(c) = next else {
                self.due_at[port.idx()] = Time::MAX;
                return;
            };
            let t = p.busy_until;
            let pkt = self.dequeue(port, c);
            let arrives = self.transmit(t, port, pkt);
            self.set_due(port);
            self.wake_if_lost(now, port, arrives);
        }
    }

    /// After on-demand `port` started a transmission (or its `TxDone` fired): its next departure
    /// is due when the transmission ends, if a packet waits.
    #[inline(always)]
    pub(super) fn set_due(&mut self, port: PortId) {
        let p = &self.ports[port.idx()];
        let due = if p.next_class().is_some() { p.busy_until } else { Time::MAX };
        self.set_due_at(port, due);
    }

    /// `port`'s next departure is due at `due` (`Time::MAX`: none): its switch's bound
    /// ([`Sim::node_due`]) is lowered with it, so that a walk over the switch's ports never
    /// skips it.
    #[inline(always)]
    fn set_due_at(&mut self, port: PortId, due: Time) {
        self.due_at[port.idx()] = due;
        let n = self.ports[port.idx()].node.idx();
        if due < self.node_due[n] {
            self.node_due[n] = due;
        }
    }

    /// After `port` started a transmission whose packet will not arrive (lost on the link):
    /// with more to send after `now`, the port needs a `TxDone` to carry out its next
    /// departure, since no arrival will (one due by `now` is carried out by the caller's loop).
    #[inline(always)]
    pub(super) fn wake_if_lost(&mut self, now: Time, port: PortId, arrives: bool) {
        if arrives {
            return;
        }
        let p = &mut self.ports[port.idx()];
        if !p.txdone_pending && p.busy_until > now && p.next_class().is_some() {
            p.txdone_pending = true;
            let t = p.busy_until;
            self.push_ev(t, Ev::TxDone { port: port.0 });
        }
    }

    /// Switch `node` starts (`on`) or stops pausing one of its upstream ports. While it pauses
    /// any, its ports schedule their departures as events: each departure may release the
    /// ingress bytes that send a RESUME, which must leave at the departure's own time. When it
    /// starts, the caller has carried out the switch's due departures (the PAUSE was judged on
    /// exact counts), so a busy port's next departure is its `busy_until`, and a free one with a
    /// packet waiting is `fresh`, the port the packet that made the switch pause was just queued
    /// at (it departs when the caller pumps it).
    pub(super) fn pausing_upstream(
        &mut self,
        now: Time,
        node: braid_core::NodeId,
        on: bool,
        fresh: Option<PortId>,
    ) {
        let n = &mut self.paused_upstreams[node.idx()];
        let was = *n;
        if on {
            *n += 1;
        } else {
            *n -= 1;
        }
        if !self.any_on_demand || (was > 0) == (*n > 0) {
            return;
        }
        // Back on demand, a port's next departure may be due before the switch's bound.
        self.node_due[node.idx()] = Time::ZERO;
        for i in 0..self.node_ports[node.idx()].len() {
            let port = self.node_ports[node.idx()][i];
            let p = &mut self.ports[port.idx()];
            // Host ports, and ports that keep their departures as events for the whole run.
            if !p.may_depart_on_demand {
                continue;
            }
            debug_assert!(
                !(on && p.on_demand
                    && p.up
                    && p.busy_until < now
                    && p.next_class().is_some()
                    && fresh != Some(port)),
                "port {} still has a departure due before {now:?}",
                port.0
            );
            p.on_demand = !on;
            if on && !p.txdone_pending && p.busy_until >= now && p.next_class().is_some() {
                p.txdone_pending = true;
                let t = p.busy_until;
                self.push_ev(t, Ev::TxDone { port: port.0 });
            }
            // Back on demand, a port with a packet waiting has its `TxDone` scheduled (or is
            // scheduling it: the RESUME is sent from inside a departure), which sets its due
            // time when it fires.
            self.due_at[port.idx()] = Time::MAX;
        }
    }

    /// Carry out the due departures of every port of switch `node` (before reading its shared
    /// buffer exactly, or routing with a view of its queues). Nothing to do before the
    /// earliest departure the switch may have due ([`Sim::node_due`]), which the walk over its
    /// ports then sets exactly.
    #[inline]
    pub(super) fn catch_up_node(&mut self, now: Time, node: braid_core::NodeId) {
        if self.node_due[node.idx()] <= now {
            self.catch_up_ports_of(now, node, None);
        }
    }

    /// [`Sim::catch_up_node`] while a packet queued at `fresh` after `now` waits for the caller
    /// to pump it (a port free by `now` with that packet waiting has no departure due by `now`).
    #[inline]
    pub(super) fn catch_up_node_but(&mut self, now: Time, node: braid_core::NodeId, fresh: PortId) {
        if self.node_due[node.idx()] <= now {
            self.catch_up_ports_of(now, node, Some(fresh));
        }
    }

    /// [`Sim::catch_up_node`] past its check.
    #[inline(never)]
    fn catch_up_ports_of(&mut self, now: Time, node: braid_core::NodeId, fresh: Option<PortId>) {
        let mut due = Time::MAX;
        for i in 0..self.node_ports[node.idx()].len() {
            let port = self.node_ports[node.idx()][i];
            self.catch_up(now, port);
            let p = &self.ports[port.idx()];
            debug_assert!(
                !(p.on_demand
                    && p.up
                    && p.busy_until <= now
                    && p.next_class().is_some()
                    && fresh != Some(port)),
                "port {} has a departure due by {now:?} that was not carried out",
                port.0
            );
            due = due.min(self.due_at[port.idx()]);
        }
        self.node_due[node.idx()] = due;
    }

    /// A packet was queued at on-demand `port` while it is busy: its switch may have a departure
    /// due at `busy_until` ([`Sim::node_due`] is a lower bound of them all).
    #[inline(always)]
    pub(super) fn note_due(&mut self, now: Time, port: PortId) {
        let p = &self.ports[port.idx()];
        if p.on_demand && p.busy_until > now {
            let due = p.busy_until;
            self.set_due_at(port, due);
        }
    }

    /// Carry out the due departures of every port (before the sampler or a routing timer reads
    /// them, and when the run stops).
    pub(super) fn catch_up_all(&mut self, now: Time) {
        if !self.any_on_demand {
            return;
        }
        for n in 0..self.node_due.len() {
            self.catch_up_node(now, braid_core::NodeId::from_idx(n));
        }
    }
}
