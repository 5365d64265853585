//! Switches (the HPCC ns-3 switch model, Rondo §6.1): forwarding over the egress that switch
//! routing picks, admission into the shared buffer (dynamic threshold, per-class limits),
//! PFC PAUSE/RESUME by ingress accounting, ECN (RED-like) and INT marking at dequeue, and,
//! with `network.trim`, NDP-style packet trimming instead of dropping at a full data queue
//! (Handley et al., SIGCOMM'17; `docs/baselines.md`, packet trimming).

use braid_core::packet::flags;
use braid_core::{Arena, IntHop, IntStack, NodeId, Packet, PacketKind, PktId, PortId, Rng, Time};

use super::departures::before;
use super::Sim;
use crate::config::{NetConfig, CLASS_CONTROL, CLASS_DATA, NUM_CLASSES};
use crate::port::Port;
use crate::stats::{DropReason, SimStats};

/// RED-like marking probability for a queue of `q` bytes: 0 up to Kmin, rising linearly to `pmax`
/// at Kmax, 1 above Kmax (HPCC ns-3 `ShouldSendCN`; Kmin = Kmax gives DCTCP's step marking).
#[inline]
pub fn ecn_mark_probability(q: u64, kmin: u64, kmax: u64, pmax: f64) -> f64 {
    if q > kmax {
        1.0
    } else if q > kmin {
        pmax * (q - kmin) as f64 / (kmax - kmin).max(1) as f64
    } else {
        0.0
    }
}

impl Sim {
    /// Route `pkt` at switch `node` and queue it on the chosen egress port. The choice is made by
    /// the switch-side routing ([`crate::switch_routing`]) over a borrowed view of the network.
    pub(super) fn forward(&mut self, now: Time, node: NodeId, pkt: PktId, ingress: PortId) {
        let pk = self.pkts.get_mut(pkt.0);
        pk.ingress = ingress.0;
        pk.hops = pk.hops.saturating_add(1);
        let chosen = match self.routing.egress_without_view(
            &self.routes,
            &self.host_of_node,
            &self.hash_seed,
            node,
            self.pkts.get(pkt.0),
        ) {
            Ok(decided) => decided,
            Err(_) if self.any_on_demand && self.node_due[node.idx()] < now => {
                self.select_egress_on_demand(now, node, pkt, ingress)
            }
            Err(hops) => {
                let view = route_view!(self, now);
                self.routing.select_egress(
                    &view,
                    node,
                    self.pkts.get(pkt.0),
                    hops,
                    ingress,
                    &mut self.node_rng[node.idx()],
                )
            }
        };
        let Some(egress) = chosen else {
            self.drop_packet(now, pkt, DropReason::NoRoute);
            return;
        };
        self.routing.check_egress(&self.ports[egress.idx()]);
        self.enqueue(now, node, egress, pkt);
    }

    /// The routing decision that reads the view, with departures on demand: the switch's queues
    /// are exact once its due departures are carried out (`departures.rs`).
    #[inline(never)]
    fn select_egress_on_demand(
        &mut self,
        now: Time,
        node: NodeId,
        pkt: PktId,
        ingress: PortId,
    ) -> Option<PortId> {
        self.catch_up_node(before(now), node);
        let view = route_view!(self, now);
        let hops = self.routing.undecided(&view, node, self.pkts.get(pkt.0));
        self.routing.select_egress(
            &view,
            node,
            self.pkts.get(pkt.0),
            hops,
            ingress,
            &mut self.node_rng[node.idx()],
        )
    }

    /// Admit `pkt` into `port`'s queue at switch `node` (or drop it, or, with `network.trim`,
    /// trim), then pump the port.
    #[inline(always)]
    fn enqueue(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        // Departures due at the port before the packet arrived are carried out first; one due
        // at the same time comes after it (`departures.rs`).
        self.catch_up(before(now), port);
        if self.over_egress_cap(port, pkt) {
            // The ns-3 fork's egress queue refuses after the MMU admitted the packet: with the
            // leak, its ingress accounting is never released.
            if self.cfg.egress_cap_leak && self.refusal_now(now, node, port, pkt).is_none() {
                self.account_ingress(now, node, port, pkt);
                if self.pkts.get(pkt.0).prio == CLASS_DATA {
                    self.ecn_leak[port.idx()] += self.pkts.get(pkt.0).size_bytes as u64;
                }
            }
            self.drop_packet(now, pkt, DropReason::BufferFull);
            return;
        }
        if let Some(r) = self.refusal_now(now, node, port, pkt) {
            let pk = self.pkts.get(pkt.0);
            let trimmable =
                pk.kind == PacketKind::Data && pk.prio == CLASS_DATA && r != DropReason::LinkDown;
            if self.cfg.trim.enabled && trimmable {
                self.trim_on_overflow(now, node, port, pkt);
            } else {
                self.drop_packet(now, pkt, r);
            }
            return;
        }
        self.admit(now, node, port, pkt);
        self.pump(now, port);
    }

    /// [`Sim::refusal`], exact with departures on demand: the shared buffer's occupancy counts
    /// bytes that other ports' due departures have not yet released, so a refusal for a full
    /// buffer carries them out and judges again (an admission needs no second look: the count
    /// only overstates).
    #[inline(always)]
    fn refusal_now(
        &mut self,
        now: Time,
        node: NodeId,
        port: PortId,
        pkt: PktId,
    ) -> Option<DropReason> {
        let r = self.refusal(node, port, pkt);
        if r == Some(DropReason::BufferFull) && self.any_on_demand {
            self.catch_up_node(before(now), node);
            return self.refusal(node, port, pkt);
        }
        r
    }

    /// Why `port` at switch `node` cannot take `pkt` now, if it cannot: the link is down, the
    /// class's byte limit, or the shared buffer (its free space, or the port's dynamic share).
    #[inline(always)]
    fn refusal(&self, node: NodeId, port: PortId, pkt: PktId) -> Option<DropReason> {
        let pk = self.pkts.get(pkt.0);
        let size = pk.size_bytes as u64;
        let c = pk.prio as usize;
        let lossless = self.cfg.pfc.enabled && c == CLASS_DATA as usize;
        let used = self.buffer_used[node.idx()];
        let cap = self.buffer_cap[node.idx()];
        let p = &self.ports[port.idx()];
        let limit = self.class_limits[c];
        if !p.up {
            Some(DropReason::LinkDown)
        } else if limit > 0 && p.q_bytes[c] + size > limit {
            Some(DropReason::ClassLimit)
        } else if let Some(mmu) = &self.mmu {
            if lossless {
                let ing = PortId(pk.ingress);
                (!mmu.admits(node, ing, c, size, self.ports[ing.idx()].ingress_bytes))
                    .then_some(DropReason::BufferFull)
            } else if c == CLASS_CONTROL as usize {
                // The HPCC MMU does not account its highest-priority queue (ACKs with
                // `network.ack_class = "control"`, PFC frames): always admitted.
                None
            } else {
                self.lossy_refusal(p, c, size, used, cap)
            }
        } else if lossless {
            (used + size > cap).then_some(DropReason::BufferFull)
        } else {
            self.lossy_refusal(p, c, size, used, cap)
        }
    }

    /// Braid's admission of a lossy class: the shared buffer's free space, and the port's dynamic
    /// share of it (`network.dt_alpha`).
    #[inline]
    fn lossy_refusal(
        &self,
        p: &Port,
        c: usize,
        size: u64,
        used: u64,
        cap: u64,
    ) -> Option<DropReason> {
        // The shared buffer is full, or the port is over its dynamic share of what is free.
        if used + size > cap || self.over_dynamic_share(p.q_bytes[c] + size, cap - used) {
            Some(DropReason::BufferFull)
        } else {
            None
        }
    }

    /// Whether `queued` bytes exceed the port's dynamic share of `free` bytes,
    /// `queued > dt_alpha · free`: in integers when that is exact (`dt_alpha` = 1, buffers below
    /// 2^52 bytes, so both sides convert to floats exactly), else in floats.
    #[inline(always)]
    fn over_dynamic_share(&self, queued: u64, free: u64) -> bool {
        if self.dt_share_in_integers {
            queued > free
        } else {
            queued as f64 > self.cfg.dt_alpha * free as f64
        }
    }

    /// Whether `pkt` would bring `port`'s queued bytes to the egress cap (`network.egress_queue_cap`).
    #[inline]
    fn over_egress_cap(&self, port: PortId, pkt: PktId) -> bool {
        let cap = self.cfg.egress_cap_bytes;
        cap > 0
            && self.ports[port.idx()].queued_bytes() + self.pkts.get(pkt.0).size_bytes as u64 >= cap
    }

    /// Queue `pkt` on `port` at switch `node` (it was admitted): buffer and PFC accounting; a
    /// PAUSE goes upstream when the ingress passes XOFF.
    #[inline(always)]
    fn admit(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let pk = self.pkts.get(pkt.0);
        let size = pk.size_bytes as u64;
        let c = pk.prio as usize;
        let p = &mut self.ports[port.idx()];
        p.queues[c].push_back(pkt);
        p.q_bytes[c] += size;
        self.buffer_used[node.idx()] += size;
        self.note_due(now, port);
        self.account_ingress(now, node, port, pkt);
    }

    /// The PFC ingress accounting of an admitted lossless packet `pkt` at switch `node`, just
    /// queued at `port` (or refused there after admission); a PAUSE goes upstream when the
    /// ingress passes its threshold.
    #[inline(always)]
    fn account_ingress(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let pk = self.pkts.get(pkt.0);
        let size = pk.size_bytes as u64;
        let c = pk.prio as usize;
        if !(self.cfg.pfc.enabled && c == CLASS_DATA as usize) {
            return;
        }
        let ingress = PortId(pk.ingress);
        let mut pause = match &mut self.mmu {
            Some(mmu) => {
                mmu.on_admit(node, ingress, c, size, &mut self.ports[ingress.idx()].ingress_bytes)
            }
            None => {
                let xoff = self.xoff_threshold(node);
                let ip = &mut self.ports[ingress.idx()];
                ip.ingress_bytes += size;
                ip.ingress_bytes > xoff
            }
        };
        if pause && !self.ports[ingress.idx()].pause_sent && self.any_on_demand {
            // With departures on demand the ingress count and the buffer's occupancy may still
            // hold bytes that due departures release: judge again on exact counts.
            self.catch_up_node_but(before(now), node, port);
            pause = self.ports[ingress.idx()].ingress_bytes > self.xoff_threshold(node);
        }
        if pause && !self.ports[ingress.idx()].pause_sent {
            self.ports[ingress.idx()].pause_sent = true;
            self.pausing_upstream(now, node, true, Some(port));
            let t = self.pfc_arrival(now, ingress);
            let up = self.ports[ingress.idx()].node;
            self.push_pfc_for(t, ingress, c as u8, true, up);
            self.stats.pfc_pauses_sent += 1;
        }
    }

    /// When a PFC frame sent now toward the upstream of ingress `ing` takes effect there: after
    /// the link delay, and with `network.pfc_frame = "queued"` after the frame in transmission on
    /// the switch's port toward it and the PFC frame's own serialisation.
    #[inline]
    fn pfc_arrival(&self, now: Time, ing: PortId) -> Time {
        let ip = &self.ports[ing.idx()];
        if self.cfg.pfc_frame_queued {
            let back = &self.ports[ip.reverse.idx()];
            now.max(back.busy_until) + back.rate.tx_time(crate::config::PFC_FRAME_BYTES) + ip.delay
        } else {
            now + ip.delay
        }
    }

    /// The data packet `pkt` found `port`'s data queue full and trimming is on (NDP, Handley et
    /// al., SIGCOMM'17; htsim `CompositeQueue::receivePacket`): with probability ½ (the port's
    /// own random stream) it is trimmed; otherwise the most recently queued data packet is
    /// trimmed and `pkt` takes its place (if it then fits: a larger arrival than the packet it
    /// displaced is trimmed as well, so the data queue never exceeds its limit). A trimmed
    /// packet goes to the control class (served first), or is dropped if that is full too.
    fn trim_on_overflow(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let c = CLASS_DATA as usize;
        let trim_tail = !self.ports[port.idx()].queues[c].is_empty()
            && self.trim_rng[port.idx()].bernoulli(0.5);
        if trim_tail {
            let victim =
                self.ports[port.idx()].queues[c].pop_back().expect("data queue is not empty");
            self.release(port, c, victim);
            self.stats.trims_of_queued += 1;
            self.trim_into_header_queue(now, node, port, victim);
            if self.refusal_now(now, node, port, pkt).is_none() {
                self.admit(now, node, port, pkt);
                self.pump(now, port);
                return;
            }
        }
        self.trim_into_header_queue(now, node, port, pkt);
        self.pump(now, port);
    }

    /// Cut `pkt` to its header (`network.trim_size` bytes, flagged `TRIMMED`, and
    /// `TRIM_LAST_HOP` when `port` faces a host) and queue it in the control class of `port`,
    /// or drop it if that queue is full too.
    fn trim_into_header_queue(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let last_hop = self.is_host[self.ports[port.idx()].peer.idx()];
        let pk = self.pkts.get_mut(pkt.0);
        pk.size_bytes = self.cfg.trim.size_bytes;
        pk.prio = CLASS_CONTROL;
        pk.flags |= flags::TRIMMED | if last_hop { flags::TRIM_LAST_HOP } else { 0 };
        self.stats.trims += 1;
        let key = ((pk.flow.0 as u64) << 32) | pk.psn as u64;
        self.note_lost(now, key);
        match self.refusal_now(now, node, port, pkt) {
            Some(r) => self.drop_packet(now, pkt, r),
            None => self.admit(now, node, port, pkt),
        }
    }

    /// Remove the head packet of class `c` at `port`, releasing buffer and PFC accounting (a
    /// RESUME goes upstream when the ingress drops below XON).
    pub(super) fn dequeue(&mut self, port: PortId, c: usize) -> PktId {
        let pkt = self.ports[port.idx()].queues[c].pop_front().expect("class has a packet");
        self.release(port, c, pkt);
        pkt
    }

    /// `pkt` of class `c` has just been taken out of `port`'s queue: release its bytes from the
    /// queue, the switch's shared buffer and the PFC ingress accounting (a RESUME goes upstream
    /// when the ingress drops below XON).
    #[inline(always)]
    fn release(&mut self, port: PortId, c: usize, pkt: PktId) {
        let p = &mut self.ports[port.idx()];
        let node = p.node;
        let size = self.pkts.get(pkt.0).size_bytes as u64;
        p.q_bytes[c] -= size;
        if !p.at_host {
            self.buffer_used[node.idx()] -= size;
            if self.cfg.pfc.enabled && c == CLASS_DATA as usize {
                self.release_ingress(node, c, size, pkt);
            }
        }
    }

    /// The PFC part of [`Sim::release`]: `size` bytes of lossless class `c` that came in with
    /// `pkt` left switch `node`'s ingress accounting; a RESUME goes upstream below XON.
    fn release_ingress(&mut self, node: NodeId, c: usize, size: u64, pkt: PktId) {
        let ing = PortId(self.pkts.get(pkt.0).ingress);
        let resume = match &mut self.mmu {
            Some(mmu) => {
                mmu.on_release(node, ing, c, size, &mut self.ports[ing.idx()].ingress_bytes)
            }
            None => {
                let ip = &mut self.ports[ing.idx()];
                ip.ingress_bytes -= size;
                let in_bytes = ip.ingress_bytes;
                in_bytes
                    <= self.xoff_threshold(node).saturating_sub(self.cfg.pfc.resume_offset_bytes)
            }
        };
        if resume && self.ports[ing.idx()].pause_sent {
            self.ports[ing.idx()].pause_sent = false;
            self.pausing_upstream(self.q.now(), node, false, None);
            let t = self.pfc_arrival(self.q.now(), ing);
            let up = self.ports[ing.idx()].node;
            self.push_pfc_for(t, ing, c as u8, false, up);
            self.stats.pfc_resumes_sent += 1;
        }
    }

    /// PFC XOFF threshold of `node`: fixed, or the dynamic `free buffer >> shift`.
    fn xoff_threshold(&self, node: NodeId) -> u64 {
        match self.cfg.pfc.xoff_bytes {
            Some(x) => x,
            None => {
                (self.buffer_cap[node.idx()].saturating_sub(self.buffer_used[node.idx()]))
                    >> self.cfg.pfc.shift
            }
        }
    }

    /// A PAUSE or RESUME for class `c` reached `port` (only the lossless data class is paused:
    /// its ingress accounting is the only one that sends PFC frames).
    pub(super) fn on_pfc(&mut self, now: Time, port: PortId, c: usize, pause: bool) {
        debug_assert_eq!(c, CLASS_DATA as usize, "PFC frames pause the data class only");
        // A host whose ACK queue sits under the data priority (`network.host_ack_pausable`)
        // stops its ACKs with its data.
        // (Only the data class's pause is counted; the resume below pumps both.)
        if c == CLASS_DATA as usize
            && self.cfg.host_ack_pausable
            && self.is_host[self.ports[port.idx()].node.idx()]
        {
            self.ports[port.idx()].paused[CLASS_CONTROL as usize] = pause;
        }
        // Departures due before the frame happen as they would have without it.
        self.catch_up(before(now), port);
        let p = &mut self.ports[port.idx()];
        if pause {
            if !p.paused[c] {
                p.paused[c] = true;
                p.pause_started = now;
                p.pauses_received += 1;
            }
        } else if p.paused[c] {
            p.paused[c] = false;
            p.paused_ps += (now - p.pause_started).ps();
            self.pump(now, port);
            self.note_due(now, port);
        }
    }
}

/// A switch port `p` starts sending the forward-direction packet `pk`: ECN marking (RED-like on
/// the class's queue plus `leaked` bytes the port's ECN counter kept from packets dropped at the
/// egress cap, drawing from the switch's random stream, or with `mark_by_departure` = (seed,
/// port) from a generator of the departure's own) and an INT hop record, both at dequeue,
/// before the port's transmit counters move.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn mark_at_dequeue(
    now: Time,
    cfg: &NetConfig,
    p: &Port,
    leaked: u64,
    pk: &mut Packet,
    h: u32,
    node_rng: &mut [Rng],
    mark_by_departure: Option<(u64, u32)>,
    ints: &mut Arena<IntStack>,
    pkt_int: &mut Vec<u32>,
    stats: &mut SimStats,
) {
    let size = pk.size_bytes as u64;
    let c = pk.prio as usize;
    if cfg.ecn.enabled && c != CLASS_CONTROL as usize {
        let q = p.q_bytes[c] + if c == CLASS_DATA as usize { leaked } else { 0 };
        let prob = ecn_mark_probability(q, p.kmin, p.kmax, cfg.ecn.pmax);
        let draw = |node_rng: &mut [Rng]| match mark_by_departure {
            // The canonical order: a generator of this departure's own, so that the draw does
            // not depend on when other ports of the switch depart (`order.rs`).
            Some((seed, port)) => Rng::derive(
                seed,
                braid_core::rng::stream::MARK,
                ((port as u64) << 32) | (p.tx_pkts & 0xFFFF_FFFF),
            )
            .bernoulli(prob),
            None => node_rng[p.node.idx()].bernoulli(prob),
        };
        if prob >= 1.0 || (prob > 0.0 && draw(node_rng)) {
            pk.mark_ce();
            stats.ecn_marks += 1;
        }
    }
    if cfg.int_enabled {
        let mut int = pkt_int.get(h as usize).copied().unwrap_or(0);
        if int == 0 {
            int = ints.alloc(IntStack::default()) + 1;
            super::set_int_of(pkt_int, h, int);
        }
        ints.get_mut(int - 1).push(IntHop {
            ts: now,
            tx_bytes: p.tx_bytes + size,
            qlen_bytes: p.queued_bytes().min(u32::MAX as u64) as u32,
            rate_mbps: (p.rate.bps() / 1_000_000) as u32,
        });
    }
}

/// The byte limit of each class's queue on every port (0 = none), worked out once from the
/// configuration. With trimming on, the control class, which also holds trimmed headers, is
/// limited to twice the data class's limit unless it has a limit of its own (htsim
/// `CompositeQueue`: `2 × maxsize`).
pub(super) fn class_limits(cfg: &NetConfig) -> [u64; NUM_CLASSES] {
    let mut limits = cfg.class_limit_bytes;
    if cfg.trim.enabled && limits[CLASS_CONTROL as usize] == 0 {
        // Saturating: a data limit past half of u64 (no limit in effect) stays one.
        limits[CLASS_CONTROL as usize] =
            cfg.class_limit_bytes[CLASS_DATA as usize].saturating_mul(2);
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RoutingMode;
    use crate::topo::clos::{fat_tree, FatTreeParams};

    /// Where forwarding decides without the route view, it decides as the full decision does:
    /// every switch of a k = 4 fat-tree, packets to every host, data and ACKs, many entropies,
    /// under each routing scheme (the fast path answers for some, defers for the others).
    #[test]
    fn the_decision_without_the_view_is_the_full_decision() {
        let kinds = [
            RoutingMode::Ecmp,
            RoutingMode::EntropyIndexed,
            RoutingMode::PathIndex,
            RoutingMode::Ucmp,
            RoutingMode::Adaptive,
            RoutingMode::Lcmp,
        ];
        let mut rng = Rng::new(5);
        for kind in kinds {
            let topo = fat_tree(&FatTreeParams { k: 4, ..FatTreeParams::default() })
                .expect("k = 4 fat-tree");
            let mut sim = Sim::new(topo, NetConfig { routing: kind, ..NetConfig::default() }, 1);
            let hosts: Vec<NodeId> = sim.hosts.iter().map(|h| h.node).collect();
            let (mut fast, mut full) = (0, 0);
            for node in
                (0..sim.is_host.len()).map(NodeId::from_idx).filter(|n| !sim.is_host[n.idx()])
            {
                for &dst in &hosts {
                    for _ in 0..8 {
                        let src = hosts[rng.below(hosts.len() as u64) as usize];
                        let pkt_kind =
                            if rng.below(2) == 0 { PacketKind::Data } else { PacketKind::Ack };
                        let pk = Packet {
                            kind: pkt_kind,
                            src,
                            dst,
                            entropy: rng.below(1 << 16) as u16,
                            size_bytes: 1064,
                            ..Packet::default()
                        };
                        full += 1;
                        let Ok(decided) = sim.routing.egress_without_view(
                            &sim.routes,
                            &sim.host_of_node,
                            &sim.hash_seed,
                            node,
                            &pk,
                        ) else {
                            continue;
                        };
                        fast += 1;
                        let view = route_view!(sim, Time::ZERO);
                        let ingress = sim.node_ports[node.idx()][0];
                        let hops = sim.routing.undecided(&view, node, &pk);
                        let chosen = sim.routing.select_egress(
                            &view,
                            node,
                            &pk,
                            hops,
                            ingress,
                            &mut sim.node_rng[node.idx()],
                        );
                        assert_eq!(
                            decided, chosen,
                            "{kind:?}, {pkt_kind:?} at node {} to {}",
                            node.0, dst.0
                        );
                    }
                }
            }
            // ECMP-like schemes decide every packet without the view; the others only where one
            // next hop leaves nothing to choose (LCMP's data packets go to its flow cache).
            println!("{kind:?}: {fast} of {full} decided without the view");
            assert!(fast > 0);
            if matches!(
                kind,
                RoutingMode::Ecmp | RoutingMode::EntropyIndexed | RoutingMode::PathIndex
            ) {
                assert_eq!(fast, full);
            }
        }
    }
}
