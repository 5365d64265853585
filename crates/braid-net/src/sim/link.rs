//! Links: when a port starts its next transmission (strict priority, PFC pauses, the host NIC's
//! turn), serialisation, random loss, the wire queue (a link delivers in order, so only its head
//! packet's arrival sits in the event queue), arrivals, drops with their reason, and scheduled link
//! changes (down/up, rate, delay, loss), Rondo §6.2.1's failure experiments.

use braid_core::{NodeId, PacketKind, PktId, PortId, Rate, Time};

use super::departures::before;
use super::switch::mark_at_dequeue;
use super::{Ev, Sim};
use crate::config::{LinkChange, CLASS_DATA, NUM_CLASSES};
use crate::port::NOT_A_HOST;
use crate::routes::{Graph, Routes};
use crate::stats::DropReason;

impl Sim {
    /// Start the next transmission on `port` if it is idle and has something to send.
    ///
    /// The common call, a packet queued behind a transmission whose end is already scheduled,
    /// returns here without entering [`Sim::pump_port`] (no call, no register saves).
    #[inline(always)]
    pub(super) fn pump(&mut self, now: Time, port: PortId) {
        let p = &self.ports[port.idx()];
        if p.busy_until > now && (p.txdone_pending || p.on_demand) {
            return;
        }
        self.pump_port(now, port);
    }

    /// [`Sim::pump`] past its early return: a busy port here has no `TxDone` scheduled yet.
    pub(super) fn pump_port(&mut self, now: Time, port: PortId) {
        let p = &mut self.ports[port.idx()];
        if p.on_demand {
            // Departures on demand (`departures.rs`): a port free by now starts now (one whose
            // departure is due at `now` itself starts it here, as a pump at `now` would before
            // its `TxDone`); a busy one carries out its next departure when something needs it.
            if p.busy_until <= now && p.up {
                if let Some(c) = p.next_class() {
                    let pkt = self.dequeue(port, c);
                    let arrives = self.transmit(now, port, pkt);
                    self.set_due(port);
                    self.wake_if_lost(now, port, arrives);
                }
            }
            return;
        }
        if p.busy_until > now {
            debug_assert!(!p.txdone_pending, "pump returns early when the TxDone is scheduled");
            p.txdone_pending = true;
            let t = p.busy_until;
            self.push_ev(t, Ev::TxDone { port: port.0 });
            return;
        }
        if !p.up {
            return;
        }
        let at_host = p.at_host;
        if let Some(c) = p.next_class() {
            let pkt = self.dequeue(port, c);
            self.transmit(now, port, pkt);
            let p = &mut self.ports[port.idx()];
            // The packet behind it is most likely the next one sent, a serialisation time from
            // now: start loading it (a hint, `braid_core::prefetch`).
            if let Some(next) = p.queues[c].front() {
                self.pkts.prefetch(next.0);
            }
            // Hosts always come back (their flows may have more); switches when packets wait.
            if !p.txdone_pending && (at_host || p.next_class().is_some()) {
                p.txdone_pending = true;
                let t = p.busy_until;
                self.push_ev(t, Ev::TxDone { port: port.0 });
            }
        } else if at_host {
            let h = self.host_of_node[self.ports[port.idx()].node.idx()];
            if !self.ports[port.idx()].paused[CLASS_DATA as usize] {
                self.host_pull(now, h, port);
            }
        }
    }

    /// Start serialising `pkt` on the idle `port` at `now` (the time the departure is due, which
    /// for a departure on demand may be before the event being handled): switch marking at
    /// dequeue, counters, capture, random loss, then onto the wire. Returns whether the packet
    /// is on its way (false: lost on the link).
    pub(super) fn transmit(&mut self, now: Time, port: PortId, pkt: PktId) -> bool {
        let p = &mut self.ports[port.idx()];
        let is_switch = !p.at_host;
        let pk = self.pkts.get_mut(pkt.0);
        let size = pk.size_bytes as u64;
        if is_switch && pk.kind.is_forward() {
            let leaked = if self.ecn_leak.is_empty() { 0 } else { self.ecn_leak[port.idx()] };
            mark_at_dequeue(
                now,
                &self.cfg,
                p,
                leaked,
                pk,
                pkt.0,
                &mut self.node_rng,
                self.canonical.then_some((self.master_seed, port.0)),
                &mut self.ints,
                &mut self.pkt_int,
                &mut self.stats,
            );
        }
        p.tx_bytes += size;
        p.tx_pkts += 1;
        p.tx_bytes_class[pk.prio as usize] += size;
        let ser = p.rate.tx_time_as(size, self.cfg.tx_time_floor_ns);
        p.busy_until = now + ser;
        if !self.capture_ports.is_empty() && self.capture_ports[port.idx()] {
            self.captured.push((now, port.0, *pk));
        }
        if p.loss > 0.0
            && (!self.cfg.loss_forward_only || pk.kind.is_forward())
            && self.port_rng[port.idx()].bernoulli(p.loss)
        {
            self.drop_packet(now, pkt, DropReason::LinkLoss);
            return false;
        }
        // The arrival goes into the event queue now on a short link (`wire_direct`); on a long
        // one only the head packet's is there, the rest wait in the port's wire queue (links
        // deliver in order): far fewer calendar entries on long links.
        // A departure carried out on demand after the link's delay fell may be due before the
        // event being handled: it arrives now, behind the packet that triggered it (as the wire
        // queue delivers).
        let at = (now + ser + p.delay).max(self.q.now());
        let seq = self.arrival_key(port.0);
        if self.send_if_remote(port, at, seq, pkt) {
            return true;
        }
        self.put_on_wire(port, at, seq, pkt.0);
        true
    }

    /// Put `pkt` on `port`'s link, arriving at `at` with the event sequence `seq` reserved for
    /// it: its arrival goes into the event queue if the link is short ([`crate::port::Port::wire_direct`])
    /// or `pkt` is the head, else into the wire queue (a local transmission, or a packet from
    /// another partition of a parallel run).
    #[inline(always)]
    pub(super) fn put_on_wire(&mut self, port: PortId, at: Time, seq: u64, pkt: u32) {
        let p = &mut self.ports[port.idx()];
        if !p.wire_direct {
            if p.wire_head {
                p.wire.push(at, seq, pkt);
                return;
            }
            p.wire_head = true;
            p.wire.set_head(at, seq);
        }
        self.q.push_with_seq(at, seq, Ev::Arrive { pkt, port: port.0 });
    }

    /// `pkt` reached the far end of `port`: schedule the next packet on the wire, then hand it to
    /// the host or switch there.
    #[inline(always)]
    pub(super) fn on_arrive(&mut self, now: Time, pkt: PktId, port: PortId) {
        self.stats.packet_hops += 1;
        let p = &mut self.ports[port.idx()];
        // The packet behind the arriving one is stored relative to it: this event's time and
        // sequence. After a link's delay fell, the packet behind may be due before this one:
        // links deliver in order, so it arrives now, right behind it.
        if !p.wire_direct {
            match p.wire.pop(now, self.q.last_seq()) {
                Some((t, seq, next)) => {
                    self.q.push_with_seq(t.max(now), seq, Ev::Arrive { pkt: next, port: port.0 })
                }
                None => p.wire_head = false,
            }
        }
        // The packet the port sent last has arrived: its next departure, due at least a link
        // delay ago, is carried out now, with any due after it before `now` (departures on
        // demand, `departures.rs`).
        self.catch_up(before(now), port);
        let p = &self.ports[port.idx()];
        if !p.up {
            self.drop_packet(now, pkt, DropReason::LinkDown);
            return;
        }
        if p.peer_host != NOT_A_HOST {
            self.host_receive(now, p.peer_host, pkt);
        } else {
            self.forward(now, p.peer, pkt, port);
        }
    }

    /// Drop `pkt` for `reason`: count it, remember when a data packet was first lost (for the
    /// retransmission delay), free it.
    pub(super) fn drop_packet(&mut self, now: Time, pkt: PktId, reason: DropReason) {
        let pk = *self.pkts.get(pkt.0);
        self.free_int(pkt);
        match pk.kind {
            PacketKind::Data => {
                self.stats.data_dropped[reason as usize] += 1;
                self.note_lost(now, ((pk.flow.0 as u64) << 32) | pk.psn as u64);
            }
            PacketKind::Probe => self.stats.probes_dropped += 1,
            _ => self.stats.control_dropped += 1,
        }
        self.pkts.free(pkt.0);
    }

    /// A scheduled link change.
    pub(super) fn on_link_event(&mut self, now: Time, idx: usize) {
        let e = self.link_events[idx];
        let li = e.link as usize;
        let ports = [PortId::from_idx(2 * li), PortId::from_idx(2 * li + 1)];
        if !matches!(e.change, LinkChange::Loss(_)) {
            self.live_port_states = None;
        }
        // Departures due before the change happen under the link as it was.
        for &p in &ports {
            self.catch_up(before(now), p);
        }
        match e.change {
            LinkChange::Down | LinkChange::Up => {
                let up = matches!(e.change, LinkChange::Up);
                for &p in &ports {
                    self.ports[p.idx()].up = up;
                    // What follows is the port's node's work (its origin in a parallel run).
                    self.q.set_origin(self.ports[p.idx()].node.0);
                    if !up {
                        // Drop everything queued on the dead port.
                        for c in 0..NUM_CLASSES {
                            while !self.ports[p.idx()].queues[c].is_empty() {
                                let pkt = self.dequeue(p, c);
                                self.drop_packet(now, pkt, DropReason::LinkDown);
                            }
                        }
                    }
                }
                self.recompute_routes();
                self.routing.on_link_change(ports, Some(up), &self.ports);
                if up {
                    for &p in &ports {
                        if self.owns(self.ports[p.idx()].node) {
                            self.q.set_origin(self.ports[p.idx()].node.0);
                            self.pump(now, p);
                        }
                    }
                }
            }
            LinkChange::Rate(bps) => {
                for &p in &ports {
                    self.ports[p.idx()].rate = Rate(bps.max(1));
                }
                self.routing.on_link_change(ports, None, &self.ports);
            }
            LinkChange::Delay(d) => {
                for &p in &ports {
                    self.ports[p.idx()].delay = d;
                }
                self.routing.on_link_change(ports, None, &self.ports);
            }
            LinkChange::Loss(x) => {
                for &p in &ports {
                    self.ports[p.idx()].loss = x;
                }
            }
        }
    }

    fn recompute_routes(&mut self) {
        let port_peer: Vec<NodeId> = self.ports.iter().map(|p| p.peer).collect();
        let port_up: Vec<bool> = self.ports.iter().map(|p| p.up).collect();
        let hosts: Vec<NodeId> = self.hosts.iter().map(|h| h.node).collect();
        self.routes = Routes::compute(
            &Graph {
                node_ports: &self.node_ports,
                port_peer: &port_peer,
                is_host: &self.is_host,
                port_up: &port_up,
                ns3_order: self.cfg.routing_params.nexthop_order
                    == braid_proto::routing::NextHopOrder::Ns3Bfs,
            },
            &hosts,
        );
    }
}
