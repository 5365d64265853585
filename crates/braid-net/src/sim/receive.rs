//! A packet reaching a host: data and probes go to the flow's `braid-proto` [`Receiver`]
//! (with the NIC's shared reorder-buffer room, Rondo §2.2), whose [`AckOut`] reply is queued as a
//! control packet; the NIC-level OOD/RBO and the delivery counters are updated from its outcome.
//! ACKs, NAKs and pulls go to the flow's sender; an RTS asks the pull pacer for pulls.
//!
//! [`Receiver`]: braid_proto::receiver::Receiver

use braid_core::packet::flags;
use braid_core::{FlowId, Packet, PacketKind, PktId, Time};
use braid_proto::receiver::{AckOut, DataIn, RxVerdict};
use braid_proto::transport::AckIn;

use super::Sim;
use crate::config::CLASS_CONTROL;
use crate::stats::DropReason;

impl Sim {
    /// A packet reached host `h`.
    pub(super) fn host_receive(&mut self, now: Time, h: u32, pkt: PktId) {
        let pk = *self.pkts.get(pkt.0);
        // Its INT stack (1 + handle, 0: none) goes with its reply or is freed below.
        let int = self.take_int(pkt);
        let f = pk.flow;
        match pk.kind {
            _ if f.idx() >= self.conns.len() => {
                // A bare packet of no flow (engine tests inject these): absorbed.
                self.free_int_stack(int);
                self.pkts.free(pkt.0);
            }
            PacketKind::Data if pk.flags & flags::TRIMMED != 0 => {
                self.receive_trimmed(now, h, pkt, int)
            }
            PacketKind::Data | PacketKind::Probe => {
                if pk.kind == PacketKind::Data {
                    self.pull_on_data(now, h, f, &pk);
                }
                let data = DataIn {
                    psn: pk.psn,
                    path: pk.path,
                    entropy: pk.entropy,
                    ecn_ce: pk.ecn_ce(),
                    ts_sent: pk.ts_sent,
                    hops: pk.hops,
                    ack_request: pk.kind == PacketKind::Data && pk.flags & flags::ACK_REQUEST != 0,
                };
                let reply = if pk.kind == PacketKind::Probe {
                    self.stats.probes_acked += 1;
                    let reply = self.conns[f.idx()].receiver.on_probe(now, &data);
                    self.pkts.free(pkt.0);
                    Some(reply)
                } else {
                    let reply = self.receive_data(now, h, f, &data, pk.flags);
                    self.pkts.free(pkt.0);
                    reply
                };
                // The data packet's INT stack moves to its reply (or is freed with it).
                match reply {
                    Some(a) => self.send_reply(now, h, &pk, &a, int),
                    None => self.free_int_stack(int),
                }
            }
            PacketKind::Ack | PacketKind::Nak => {
                self.pkts.free(pkt.0);
                let fl = &mut self.conns[f.idx()];
                if fl.idle() {
                    self.free_int_stack(int);
                    return;
                }
                let ack = AckIn {
                    ts_rx: pk.ts_rx,
                    ood: pk.ood,
                    int: if int > 0 { Some(self.ints.get(int - 1)) } else { None },
                    sack: pk.sack,
                    ..AckIn::plain(pk.kind, pk.psn, pk.cum_ack, pk.path, pk.ts_sent, pk.hops)
                }
                .with_flags(pk.flags);
                fl.sender_mut().on_ack(now, &ack);
                self.free_int_stack(int);
                self.after_sender_fed(now, f, h);
            }
            PacketKind::Pull | PacketKind::Rts => {
                self.pull_on_control(now, h, pk);
                self.free_int_stack(int);
                self.pkts.free(pkt.0);
            }
        }
    }

    /// A data packet that a switch trimmed to its header reached host `h` (`network.trim`): it is
    /// no longer in flight. A transport that handles trims (UET, EQDS) gets it — its receiver
    /// NAKs it at once, and a receiver-driven flow queues a pull for its retransmission (htsim
    /// `processTrimmed`); for the others the NIC discards it as if it had been dropped.
    /// `int` is the packet's INT stack (1 + handle, 0: none), already taken from it.
    fn receive_trimmed(&mut self, now: Time, h: u32, pkt: PktId, int: u32) {
        let pk = *self.pkts.get(pkt.0);
        self.pkts.free(pkt.0);
        self.stats.trimmed_arrived += 1;
        let f = pk.flow;
        // (In a parallel run a receiver cannot see its sender's completion: see `partition`.)
        if !self.conns[f.idx()].handles_trims || self.sender_seen_done(f) {
            self.free_int_stack(int);
            return;
        }
        self.pull_on_data(now, h, f, &pk);
        let data = DataIn {
            psn: pk.psn,
            path: pk.path,
            entropy: pk.entropy,
            ecn_ce: pk.ecn_ce(),
            ts_sent: pk.ts_sent,
            hops: pk.hops,
            ack_request: false,
        };
        let reply = self.conns[f.idx()].receiver.on_trimmed(
            now,
            &data,
            pk.flags & flags::TRIM_LAST_HOP != 0,
        );
        self.send_reply(now, h, &pk, &reply, int);
    }

    /// A data packet of connection `f` reached host `h`: the receiver decides, the NIC-level
    /// reorder metrics and the delivery counters follow. Returns the reply to send, if any.
    fn receive_data(
        &mut self,
        now: Time,
        h: u32,
        f: FlowId,
        data: &DataIn,
        pkt_flags: u8,
    ) -> Option<AckOut> {
        let mtu = self.cfg.mtu_bytes as u64;
        let host = &self.hosts[h as usize];
        let room = host.reorder_used + mtu <= self.cfg.reorder_buffer_bytes;
        let fl = &mut self.conns[f.idx()];
        let (out, reply) = fl.receiver.on_data_packet(now, data, room);
        // NIC-level reorder metrics.
        let host = &mut self.hosts[h as usize];
        host.reorder_used =
            (host.reorder_used as i64 + out.rbo_delta as i64 * mtu as i64).max(0) as u64;
        host.nic_rbo = (host.nic_rbo as i64 + out.rbo_delta as i64).max(0) as u64;
        host.nic_ood = host.nic_ood + out.ood as u64 - fl.ood as u64;
        host.nic_ood_max = host.nic_ood_max.max(host.nic_ood);
        fl.ood = out.ood;
        let shared = fl.shared;
        self.nic_ood_hist.record(host.nic_ood);
        self.nic_rbo_hist.record(host.nic_rbo);
        if shared && out.ood > 0 {
            if let Some(m) = self.msg_of_psn(f.idx(), data.psn) {
                let c = &mut self.flows[m as usize].counters;
                c.max_ood = c.max_ood.max(out.ood);
            }
        }
        let key = ((f.0 as u64) << 32) | data.psn as u64;
        match out.verdict {
            RxVerdict::InOrder { delivered } => {
                self.stats.data_delivered += 1;
                if shared {
                    self.deliver_in_order(now, f.idx());
                } else {
                    self.deliver_one(now, f.idx(), delivered, mtu);
                }
                self.note_repaired(now, key, pkt_flags);
            }
            RxVerdict::Buffered => {
                self.stats.data_delivered += 1;
                self.note_repaired(now, key, pkt_flags);
            }
            RxVerdict::Duplicate => {
                self.stats.data_dropped[DropReason::RxDuplicate as usize] += 1;
                self.stats.spurious_retx += 1;
                if shared {
                    if let Some(m) = self.msg_of_psn(f.idx(), data.psn) {
                        self.flows[m as usize].counters.spurious += 1;
                    }
                }
            }
            RxVerdict::DroppedOutOfOrder => {
                self.stats.data_dropped[DropReason::RxOutOfOrder as usize] += 1;
                self.note_lost(now, key);
            }
            RxVerdict::DroppedBufferFull => {
                self.stats.data_dropped[DropReason::RxBufferFull as usize] += 1;
                self.note_lost(now, key);
            }
        }
        reply
    }

    /// `delivered` more packets of connection `c`'s one message were delivered in order.
    #[inline]
    fn deliver_one(&mut self, now: Time, c: usize, delivered: u32, mtu: u64) {
        let m = self.conn_msg(c, 0) as usize;
        let complete = self.conns[c].receiver.is_complete();
        let fl = &mut self.flows[m];
        let before = fl.delivered_bytes;
        fl.delivered_bytes = (fl.delivered_bytes + delivered as u64 * mtu).min(fl.size_bytes);
        if complete && fl.delivered_at.is_none() {
            fl.delivered_at = Some(now);
            fl.delivered_bytes = fl.size_bytes;
            self.stats.app_bytes_delivered += fl.size_bytes;
            self.stats.last_delivery = self.stats.last_delivery.max(now);
            self.conns[c].delivered = 1;
        }
        self.stats.inorder_bytes += fl.delivered_bytes - before;
        if fl.delivered_bytes > before {
            fl.progress_at = Some(now);
        }
    }

    /// The in-order delivery point of shared connection `c` moved: every message it passed is
    /// delivered, and the one it is in has delivered its packets below it.
    fn deliver_in_order(&mut self, now: Time, c: usize) {
        let mtu = self.cfg.mtu_bytes as u64;
        let ne = self.conns[c].receiver.next_expected();
        while self.conns[c].delivered < self.conns[c].posted {
            let m = self.conn_msg(c, self.conns[c].delivered) as usize;
            let fl = &mut self.flows[m];
            let before = fl.delivered_bytes;
            if fl.psn_end <= ne {
                fl.delivered_bytes = fl.size_bytes;
                fl.delivered_at = Some(now);
                self.stats.app_bytes_delivered += fl.size_bytes;
                self.stats.last_delivery = self.stats.last_delivery.max(now);
                self.conns[c].delivered += 1;
            } else {
                fl.delivered_bytes =
                    (ne.saturating_sub(fl.psn_first) as u64 * mtu).min(fl.size_bytes);
            }
            self.stats.inorder_bytes += fl.delivered_bytes - before;
            if fl.delivered_bytes > before {
                fl.progress_at = Some(now);
            }
            if fl.delivered_at.is_none() {
                break;
            }
        }
    }

    /// Turn the receiver's reply to `data` into a control packet from host `h` back to the
    /// sender; it takes over the data packet's INT stack `int` (1 + handle; 0: none).
    fn send_reply(&mut self, now: Time, h: u32, data: &Packet, a: &AckOut, int: u32) {
        let ack = Packet {
            kind: a.kind,
            prio: if matches!(a.kind, PacketKind::Ack | PacketKind::Nak) {
                self.cfg.ack_class
            } else {
                CLASS_CONTROL
            },
            flags: a.flags,
            size_bytes: self.cfg.ack_bytes,
            src: data.dst,
            dst: data.src,
            flow: data.flow,
            entropy: a.entropy,
            path: a.path,
            psn: a.psn,
            cum_ack: a.cum_ack,
            ood: a.ood,
            ts_sent: a.ts_sent,
            ts_rx: a.ts_rx,
            hops: a.hops,
            sack: a.sack,
            ..Packet::default()
        };
        self.send_control(now, h, ack, int);
    }

    /// A pull or RTS reached host `h`: an RTS queues pulls at this (receiving) host; a pull is
    /// handed to the sender as an [`AckIn`] of kind `Pull`.
    fn pull_on_control(&mut self, now: Time, h: u32, pk: Packet) {
        let f = pk.flow;
        if f.idx() >= self.conns.len() {
            return; // a bare control packet (engine tests inject these without flows)
        }
        match pk.kind {
            PacketKind::Rts => {
                self.hosts[h as usize].pull_pacer.note_rts();
                let sender_done = self.sender_seen_done(f);
                let fl = &self.conns[f.idx()];
                if fl.wants_pulls && fl.receiver.is_complete() && !sender_done {
                    // The receiver has everything; its sender lost the last ACKs: ACK again.
                    let rts = DataIn {
                        psn: pk.psn,
                        path: pk.path,
                        entropy: pk.entropy,
                        ecn_ce: false,
                        ts_sent: pk.ts_sent,
                        hops: pk.hops,
                        ack_request: false,
                    };
                    let reply = fl.receiver.on_rts_complete(now, &rts);
                    self.send_reply(now, h, &pk, &reply, 0);
                } else if fl.wants_pulls {
                    self.pull_on_rts(now, h, f, pk.psn, pk.entropy);
                }
            }
            PacketKind::Pull => {
                let fl = &mut self.conns[f.idx()];
                if fl.idle() {
                    return;
                }
                let ack = AckIn {
                    ts_rx: pk.ts_rx,
                    ..AckIn::plain(
                        PacketKind::Pull,
                        pk.psn,
                        pk.cum_ack,
                        pk.path,
                        pk.ts_sent,
                        pk.hops,
                    )
                };
                fl.sender_mut().on_ack(now, &ack);
                self.after_sender_fed(now, f, h);
            }
            _ => {}
        }
    }
}

impl Sim {
    /// After a sender took an ACK or a pull: complete the messages its cumulative ACK passed
    /// (the connection goes idle when nothing posted is left), or re-arm its timer and let its
    /// NIC send what the sender may send now.
    #[inline]
    fn after_sender_fed(&mut self, now: Time, f: FlowId, h: u32) {
        let c = f.idx();
        // The sender had input (an ACK, a NAK, a pull): ask it again.
        self.send_wait[c] = Time::ZERO;
        let mut completed = false;
        loop {
            let cn = &self.conns[c];
            if cn.acked == cn.posted {
                break;
            }
            let m = self.conn_msg(c, cn.acked);
            if self.flows[m as usize].psn_end > cn.sender().acked_packets() {
                break;
            }
            let cn = &mut self.conns[c];
            cn.acked += 1;
            if cn.acked == cn.posted {
                let active = &mut self.hosts[cn.src_host as usize].active;
                if let Some(i) = active.iter().position(|&x| x == f) {
                    active.remove(i);
                }
                // A finished one-message connection takes no input any more (ACKs, pulls and
                // timers of an idle connection are ignored): its sender goes, its counters stay.
                if !cn.shared && self.release_finished {
                    cn.finished_stats = Some(cn.recovery_stats());
                    cn.sender = None;
                }
            }
            self.complete_flow(now, FlowId(m));
            completed = true;
        }
        if completed && self.conns[c].idle() {
            return;
        }
        self.arm_flow_timer(now, c);
        let port = self.hosts[h as usize].port;
        self.pump(now, port);
    }
}
