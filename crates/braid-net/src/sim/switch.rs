//! Switches (the HPCC ns-3 switch model, Rondo §6.1): forwarding over the egress that switch
//! routing picks, admission into the shared buffer (dynamic threshold, per-class limits),
//! PFC PAUSE/RESUME by ingress accounting, and ECN (RED-like) and INT marking at dequeue.

use braid_core::{Arena, IntHop, IntStack, NodeId, Packet, PktId, PortId, Rng, Time};

use super::{Ev, Sim};
use crate::config::{NetConfig, CLASS_CONTROL, CLASS_DATA};
use crate::port::Port;
use crate::stats::{DropReason, SimStats};
use crate::switch_routing::RouteView;

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
        let view = RouteView {
            now,
            ports: &self.ports,
            node_ports: &self.node_ports,
            routes: &self.routes,
            host_of_node: &self.host_of_node,
            hash_seed: &self.hash_seed,
            buffer_cap: &self.buffer_cap,
        };
        let chosen = self.routing.select_egress(&view, node, self.pkts.get(pkt.0), ingress, &mut self.node_rng[node.idx()]);
        let Some(egress) = chosen else {
            self.drop_packet(now, pkt, DropReason::NoRoute);
            return;
        };
        self.routing.check_egress(&self.ports[egress.idx()]);
        self.enqueue(now, node, egress, pkt);
    }

    /// Admit `pkt` into `port`'s queue at switch `node` (or drop it), then pump the port.
    fn enqueue(&mut self, now: Time, node: NodeId, port: PortId, pkt: PktId) {
        let pk = self.pkts.get(pkt.0);
        let size = pk.size_bytes as u64;
        let c = pk.prio as usize;
        let ingress = PortId(pk.ingress);
        let lossless = self.cfg.pfc.enabled && c == CLASS_DATA as usize;
        let used = self.buffer_used[node.idx()];
        let cap = self.buffer_cap[node.idx()];
        let p = &self.ports[port.idx()];
        let limit = self.cfg.class_limit_bytes[c];
        let reason = if !p.up {
            Some(DropReason::LinkDown)
        } else if limit > 0 && p.q_bytes[c] + size > limit {
            Some(DropReason::ClassLimit)
        } else if used + size > cap {
            Some(DropReason::BufferFull)
        } else if !lossless && (p.q_bytes[c] + size) as f64 > self.cfg.dt_alpha * (cap - used) as f64 {
            Some(DropReason::BufferFull)
        } else {
            None
        };
        if let Some(r) = reason {
            self.drop_packet(now, pkt, r);
            return;
        }
        let p = &mut self.ports[port.idx()];
        p.queues[c].push_back(pkt);
        p.q_bytes[c] += size;
        self.buffer_used[node.idx()] += size;
        if lossless {
            let xoff = self.xoff_threshold(node);
            let ip = &mut self.ports[ingress.idx()];
            ip.ingress_bytes[c] += size;
            if !ip.pause_sent[c] && ip.ingress_bytes[c] > xoff {
                ip.pause_sent[c] = true;
                let t = now + ip.delay;
                self.q.push(t, Ev::Pfc { port: ingress.0, class: c as u8, pause: true });
                self.stats.pfc_pauses_sent += 1;
            }
        }
        self.pump(now, port);
    }

    /// Remove the head packet of class `c` at `port`, releasing buffer and PFC accounting (a
    /// RESUME goes upstream when the ingress drops below XON).
    pub(super) fn dequeue(&mut self, port: PortId, c: usize) -> PktId {
        let p = &mut self.ports[port.idx()];
        let pkt = p.queues[c].pop_front().expect("class has a packet");
        let node = p.node;
        let size = self.pkts.get(pkt.0).size_bytes as u64;
        p.q_bytes[c] -= size;
        if !self.is_host[node.idx()] {
            self.buffer_used[node.idx()] -= size;
            if self.cfg.pfc.enabled && c == CLASS_DATA as usize {
                let ing = PortId(self.pkts.get(pkt.0).ingress);
                let ip = &mut self.ports[ing.idx()];
                ip.ingress_bytes[c] -= size;
                if ip.pause_sent[c] {
                    let xon = self.xoff_threshold(node).saturating_sub(self.cfg.pfc.resume_offset_bytes);
                    let ip = &mut self.ports[ing.idx()];
                    if ip.ingress_bytes[c] <= xon {
                        ip.pause_sent[c] = false;
                        let t = self.q.now() + ip.delay;
                        self.q.push(t, Ev::Pfc { port: ing.0, class: c as u8, pause: false });
                        self.stats.pfc_resumes_sent += 1;
                    }
                }
            }
        }
        pkt
    }

    /// PFC XOFF threshold of `node`: fixed, or the dynamic `free buffer >> shift`.
    fn xoff_threshold(&self, node: NodeId) -> u64 {
        match self.cfg.pfc.xoff_bytes {
            Some(x) => x,
            None => (self.buffer_cap[node.idx()].saturating_sub(self.buffer_used[node.idx()])) >> self.cfg.pfc.shift,
        }
    }

    /// A PAUSE or RESUME for class `c` reached `port`.
    pub(super) fn on_pfc(&mut self, now: Time, port: PortId, c: usize, pause: bool) {
        let p = &mut self.ports[port.idx()];
        if pause {
            if !p.paused[c] {
                p.paused[c] = true;
                p.pause_started[c] = now;
                p.pauses_received += 1;
            }
        } else if p.paused[c] {
            p.paused[c] = false;
            p.paused_ps += (now - p.pause_started[c]).ps();
            self.pump(now, port);
        }
    }
}

/// A switch port `p` starts sending the forward-direction packet `pk`: ECN marking (RED-like on
/// the class's queue, drawing from the switch's random stream) and an INT hop record, both at
/// dequeue, before the port's transmit counters move.
#[inline]
pub(super) fn mark_at_dequeue(
    now: Time,
    cfg: &NetConfig,
    p: &Port,
    pk: &mut Packet,
    node_rng: &mut [Rng],
    ints: &mut Arena<IntStack>,
    stats: &mut SimStats,
) {
    let size = pk.size_bytes as u64;
    let c = pk.prio as usize;
    if cfg.ecn.enabled && c != CLASS_CONTROL as usize {
        let prob = ecn_mark_probability(p.q_bytes[c], p.kmin, p.kmax, cfg.ecn.pmax);
        if prob >= 1.0 || (prob > 0.0 && node_rng[p.node.idx()].bernoulli(prob)) {
            pk.ecn_ce = true;
            stats.ecn_marks += 1;
        }
    }
    if cfg.int_enabled {
        if pk.int == 0 {
            pk.int = ints.alloc(IntStack::default()) + 1;
        }
        ints.get_mut(pk.int - 1).push(IntHop {
            ts: now,
            tx_bytes: p.tx_bytes + size,
            qlen_bytes: p.queued_bytes().min(u32::MAX as u64) as u32,
            rate_mbps: (p.rate.bps() / 1_000_000) as u32,
        });
    }
}
