//! Host NICs: round-robin pulling of packets from the connections' senders when the NIC's port is free
//! (sans-IO `poll_transmit` / `next_send_time`, Rondo §5), pacing wake-ups, control packets
//! queued ahead of data, and the receiver-side pull pacer of receiver-driven transports
//! ([`braid_proto::pull_pacer`], EQDS): the driver only asks the connection's sender whether it wants
//! pulls, schedules the pacer's ticks and turns its pulls into packets.

use braid_core::packet::flags;
use braid_core::{FlowId, Packet, PacketKind, PktId, PortId, Time};

use braid_proto::pull_pacer::{FlowPulls, PulledFlows};

use super::{Ev, Sim};
use crate::config::{CLASS_CONTROL, CLASS_DATA, CLASS_PROBE};
use crate::endpoints::Conn;

/// Whether connection `c`'s receiver should still pull: a receiver-driven sender, not complete
/// at either end (the sender's end only when `sender_visible`: not in a parallel run, see
/// `partition`).
fn is_pulled(c: &Conn, sender_visible: bool) -> bool {
    c.wants_pulls && !(sender_visible && c.idle()) && !c.receiver.is_complete()
}

/// The connections as a pull pacer sees them.
struct ConnPulls<'a> {
    conns: &'a mut [Conn],
    sender_visible: bool,
}

impl PulledFlows for ConnPulls<'_> {
    fn pulls(&mut self, flow: u32) -> &mut FlowPulls {
        &mut self.conns[flow as usize].pulls
    }
    fn is_pulled(&self, flow: u32) -> bool {
        is_pulled(&self.conns[flow as usize], self.sender_visible)
    }
}

impl Sim {
    /// Ask the host's flows, round robin, for a packet to send now.
    pub(super) fn host_pull(&mut self, now: Time, h: u32, port: PortId) {
        let host = &self.hosts[h as usize];
        let n = host.active.len();
        if n == 0 {
            return;
        }
        let rr = host.rr % n;
        let mut earliest = Time::MAX;
        // Round robin from `rr`, wrapping by a compare rather than a 64-bit division per flow
        // asked (LCMP Fig 5 asks about three per packet-hop).
        let mut idx = if rr == 0 { n - 1 } else { rr - 1 };
        for _ in 0..n {
            idx = if idx + 1 == n { 0 } else { idx + 1 };
            let f = self.hosts[h as usize].active[idx];
            // An answer kept from before, still later than now: the sender has had no input
            // since, so asking again would give it again.
            let kept = self.send_wait[f.idx()];
            if kept > now {
                debug_assert_eq!(
                    self.conns[f.idx()].sender().next_send_time(now),
                    kept,
                    "a stable sender's next send time changed without input"
                );
                earliest = earliest.min(kept);
                continue;
            }
            let fl = &mut self.conns[f.idx()];
            let t = fl.sender().next_send_time(now);
            if t <= now {
                if let Some(tx) = fl.sender_mut().poll_transmit(now) {
                    let is_probe = tx.kind == PacketKind::Probe;
                    let payload = tx.payload_bytes;
                    let is_rts = tx.kind == PacketKind::Rts;
                    let size = if is_rts {
                        self.cfg.ack_bytes
                    } else if is_probe {
                        self.cfg.mtu_bytes + self.cfg.header_bytes
                    } else {
                        payload + self.cfg.header_bytes
                    };
                    if is_probe {
                        fl.probes_sent += 1;
                    }
                    let counted_retx = tx.retx && fl.shared && !is_rts;
                    let pkt = Packet {
                        kind: tx.kind,
                        prio: if is_probe {
                            CLASS_PROBE
                        } else if is_rts {
                            CLASS_CONTROL
                        } else {
                            CLASS_DATA
                        },
                        flags: tx.flags(),
                        size_bytes: size,
                        src: self.hosts[h as usize].node,
                        dst: self.hosts[fl.dst_host as usize].node,
                        flow: f,
                        entropy: tx.entropy,
                        path: tx.path,
                        psn: tx.psn,
                        ts_sent: now,
                        ..Packet::default()
                    }
                    .with_pull_target(tx.pull_target);
                    if is_probe {
                        self.stats.probes_sent += 1;
                    } else if !is_rts {
                        self.stats.data_injected += 1;
                        if tx.retx {
                            self.stats.retx_injected += 1;
                        }
                    }
                    if counted_retx {
                        if let Some(m) = self.msg_of_psn(f.idx(), tx.psn) {
                            self.flows[m as usize].counters.retransmissions += 1;
                        }
                    }
                    let id = PktId(self.pkts.alloc(pkt));
                    self.send_wait[f.idx()] = Time::ZERO;
                    self.hosts[h as usize].rr = idx + 1;
                    self.transmit(now, port, id);
                    self.arm_flow_timer(now, f.idx());
                    // Come back when the port is free: more packets may be ready.
                    let p = &mut self.ports[port.idx()];
                    if !p.txdone_pending {
                        p.txdone_pending = true;
                        let t = p.busy_until;
                        self.push_ev(t, Ev::TxDone { port: port.0 });
                    }
                    return;
                }
            }
            // Not ready now (or it declined): when it will be, kept if its answer is stable.
            let wait = if t <= now { fl.sender().next_send_time(now) } else { t };
            if wait > now {
                earliest = earliest.min(wait);
                if fl.sender().send_time_is_stable() {
                    self.send_wait[f.idx()] = wait;
                }
            }
        }
        let host = &mut self.hosts[h as usize];
        if earliest != Time::MAX && earliest < host.wake_at {
            host.wake_at = earliest;
            self.push_ev(earliest, Ev::NicWake { host: h });
        }
    }

    /// Queue a control packet (ACK, NAK, pull) on host `h`'s NIC, ahead of data, and pump it.
    pub(super) fn send_control(&mut self, now: Time, h: u32, pkt: Packet, int: u32) {
        let id = PktId(self.pkts.alloc(pkt));
        self.set_int(id, int);
        let port = self.hosts[h as usize].port;
        let p = &mut self.ports[port.idx()];
        p.queues[CLASS_CONTROL as usize].push_back(id);
        p.q_bytes[CLASS_CONTROL as usize] += self.cfg.ack_bytes as u64;
        self.pump(now, port);
    }

    /// A data packet `pk` of flow `f` reached its receiver at host `h`: a receiver-driven flow
    /// asks the host's pull pacer for pulls ([`braid_proto::pull_pacer::PullPacer::on_data`]).
    pub(super) fn pull_on_data(&mut self, now: Time, h: u32, f: FlowId, pk: &Packet) {
        if !self.conns.get(f.idx()).is_some_and(|c| c.wants_pulls)
            || !is_pulled(&self.conns[f.idx()], self.sender_end_visible())
        {
            return;
        }
        let c = &mut self.conns[f.idx()];
        let to_target = c.pulls_to_target;
        let trimmed = pk.flags & flags::TRIMMED != 0;
        if let Some(t) = self.hosts[h as usize].pull_pacer.on_data(
            now,
            f.0,
            &mut c.pulls,
            to_target,
            pk.pull_target(),
            trimmed,
            pk.entropy,
        ) {
            self.push_ev(t, Ev::PullTick { host: h });
        }
    }

    /// An RTS of flow `f` asking for `wanted` packets' worth of credit reached its receiver at
    /// host `h`: pulls for it, if it is still pulled.
    pub(super) fn pull_on_rts(&mut self, now: Time, h: u32, f: FlowId, wanted: u32, entropy: u16) {
        if !is_pulled(&self.conns[f.idx()], self.sender_end_visible()) {
            return;
        }
        let c = &mut self.conns[f.idx()];
        if let Some(t) =
            self.hosts[h as usize].pull_pacer.on_rts(now, f.0, &mut c.pulls, wanted, entropy)
        {
            self.push_ev(t, Ev::PullTick { host: h });
        }
    }

    /// Host `h`'s pull pacer ticks: send the pull it picks, then re-arm.
    pub(super) fn on_pull_tick(&mut self, now: Time, h: u32) {
        let hi = h as usize;
        let port = self.hosts[hi].port;
        let wire = (self.cfg.mtu_bytes + self.cfg.header_bytes) as u64;
        let full_packet_time = self.ports[port.idx()].rate.tx_time(wire);
        let mut flows = ConnPulls { conns: &mut self.conns, sender_visible: self.part.is_none() };
        if let Some(pull) = self.hosts[hi].pull_pacer.on_tick(now, full_packet_time, &mut flows) {
            let fl = &self.conns[pull.flow as usize];
            let pkt = Packet {
                kind: PacketKind::Pull,
                prio: CLASS_CONTROL,
                size_bytes: self.cfg.ack_bytes,
                src: self.hosts[hi].node,
                dst: self.hosts[fl.src_host as usize].node,
                flow: FlowId(pull.flow),
                entropy: pull.entropy,
                psn: pull.pull_number,
                cum_ack: fl.receiver.next_expected(),
                ts_sent: now,
                ts_rx: now,
                ..Packet::default()
            };
            self.send_control(now, h, pkt, 0);
        }
        if let Some(t) = self.hosts[hi].pull_pacer.rearm(now) {
            self.push_ev(t, Ev::PullTick { host: h });
        }
    }
}
