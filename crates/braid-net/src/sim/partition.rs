//! One partition of a parallel run (`braid run --threads N`, `docs/parallel.md`): a [`Sim`] that
//! owns some of the network's nodes and processes only their events.
//!
//! Every partition is a whole simulator built from the same scenario; the nodes it does not own
//! stay idle in it. A packet sent over a link to a node of another partition, and a PFC frame
//! toward one, leave as a [`Remote`] message with the key (time, origin, origin's sequence) the
//! event would have had in one queue; [`crate::parallel`] hands the messages over at the end of
//! each window. With origin keys ([`braid_core::EventQueue::use_origin_keys`]) every node sees
//! its events in the same order whatever the partitioning, so the merged outputs
//! ([`merge_partitions`]) are the same bytes for every thread count.
//!
//! What a node reads of another node's state in one queue, and may not here, changes with the
//! mode for every thread count alike: a receiver does not see that its sender has completed (it
//! keeps answering until the sender's end ignores it), and the loss-to-repair delay is matched
//! from logs after the run (a drop, then the delivery of a retransmission of that packet).

use std::collections::HashMap;
use std::sync::Arc;

use braid_core::packet::flags;
use braid_core::{IntStack, NodeId, Packet, PktId, PortId, Time};

use super::{Ev, Sim};

/// An event for another partition: a packet arriving over a cut link, or a PFC frame toward a
/// port of it, with its time and its key's sequence part. 88 bytes: a window of inter-DC traffic
/// waits in these until the window ends (BENCHMARKS.md, "Memory of a parallel run"), so a
/// packet's INT stack, which few carry, travels beside it in [`Messages`].
#[derive(Clone, Debug)]
pub struct Remote {
    /// When it happens.
    pub at: Time,
    /// The sequence part of its key ([`braid_core::EventQueue::reserve_seq`] at the sender).
    pub seq: u64,
    /// The arriving packet (an arrival only).
    pub pkt: Packet,
    /// The port: the one an arriving packet was sent on, the one a PFC frame pauses or resumes.
    pub port: u32,
    /// What it is ([`Remote::ARRIVAL`], [`Remote::ARRIVAL_INT`], or [`Remote::pfc`]).
    kind: u32,
}

const _: () = assert!(std::mem::size_of::<Remote>() == 88, "a message is a packet and 24 bytes");

impl Remote {
    /// A packet arriving over the link of `port`.
    const ARRIVAL: u32 = 0;
    /// A packet with an INT stack: its stack is the next one of its buffer's [`Messages`].
    const ARRIVAL_INT: u32 = 1;
    /// A PFC frame: `PFC | class << 8 | pause << 16`.
    const PFC: u32 = 2;

    fn pfc(class: u8, pause: bool) -> u32 {
        Self::PFC | (class as u32) << 8 | (pause as u32) << 16
    }

    /// The event it is at its destination (an arrival's packet handle is set when it is stored).
    pub fn event(&self) -> Ev {
        match self.kind & 0xFF {
            Self::ARRIVAL | Self::ARRIVAL_INT => Ev::Arrive { pkt: 0, port: self.port },
            _ => Ev::Pfc {
                port: self.port,
                class: (self.kind >> 8) as u8,
                pause: self.kind >> 16 != 0,
            },
        }
    }
}

/// Messages for one partition, in the order they were sent, and the INT stacks of the arrivals
/// that carry one, in the same order.
#[derive(Clone, Debug, Default)]
pub struct Messages {
    list: Vec<Remote>,
    ints: Vec<IntStack>,
}

impl Messages {
    /// How many.
    pub fn len(&self) -> usize {
        self.list.len()
    }
    /// None.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// The messages, in the order they were sent.
    pub fn iter(&self) -> impl Iterator<Item = &Remote> {
        self.list.iter()
    }
    /// Move all of `other`'s messages behind these.
    pub fn append(&mut self, other: &mut Messages) {
        self.list.append(&mut other.list);
        self.ints.append(&mut other.ints);
    }
}

/// A drained message buffer of more than this many messages is freed rather than kept for the
/// next window ([`Sim::accept_remote`]).
const KEEP_MESSAGES: usize = 4096;

/// What a partition knows beyond its own nodes.
pub(crate) struct Part {
    /// This partition.
    pub me: u16,
    /// The owning partition of every node.
    pub owner: Arc<[u16]>,
    /// Per node: this partition owns it (what periodic work looks at).
    pub own_node: Vec<bool>,
    /// Per port: its far end belongs to another partition.
    pub port_remote: Vec<bool>,
    /// Messages for each partition, in the order they were sent.
    pub outbox: Vec<Messages>,
    /// Whether flows remained, anywhere, at the last synchronisation boundary (what timers and
    /// sampling ask instead of the global count of completed flows).
    pub open: bool,
    /// `(time, key sequence, flow·psn | lost << 63)`: a data packet dropped (`lost`), or a
    /// retransmitted one delivered, for the loss-to-repair delay ([`LOST_BIT`]; 24 bytes an
    /// entry: a large run logs hundreds of thousands).
    pub loss_log: Vec<(Time, u64, u64)>,
    /// The latest completion of a flow sent from here.
    pub last_completion: Time,
    /// Windows this partition has processed (every partition processes every window once).
    pub windows: u64,
    /// The end of the last window processed (events before it have run).
    pub window_end: Time,
    /// Events of the virtual origins processed (every partition processes them all; the merged
    /// event count takes them once).
    pub virtual_events: u64,
    /// Flows sent from here (counted at the first sample, once every flow has been added).
    pub own_flows: Option<usize>,
}

/// Virtual origins after the nodes: the sampler, the routing timers and the link changes, whose
/// events every partition processes.
pub(super) const ORIGIN_SAMPLE: u32 = 0;
pub(super) const ORIGIN_ROUTING: u32 = 1;
pub(super) const ORIGIN_LINK: u32 = 2;
const VIRTUAL_ORIGINS: usize = 3;

/// The bit of a loss-log entry's flow·psn key that marks a loss (clear: a repair). Flow numbers
/// stay below 2^31, so the key never uses it.
const LOST_BIT: u64 = 1 << 63;

impl Sim {
    /// Make this simulator partition `me` of a parallel run: it owns the nodes `owner` maps to
    /// `me`, and events are ordered by origin keys (or by canonical keys, when
    /// [`Sim::set_canonical_order`] was set first). Call before [`Sim::prepare`].
    pub fn make_partition(&mut self, owner: Arc<[u16]>, me: u16, n_parts: usize) {
        assert_eq!(owner.len(), self.topo.nodes.len(), "make_partition: one owner per node");
        let port_remote = self
            .ports
            .iter()
            .map(|p| owner[p.peer.idx()] != me && owner[p.node.idx()] == me)
            .collect();
        // Canonical keys are functions of the events, the same in every partition; otherwise
        // ties are broken by origin node.
        if !self.canonical {
            self.q.use_origin_keys(self.topo.nodes.len() + VIRTUAL_ORIGINS);
        }
        self.keep_own_senders(&owner, me);
        self.part = Some(Box::new(Part {
            me,
            own_node: owner.iter().map(|&o| o == me).collect(),
            owner,
            port_remote,
            outbox: vec![Messages::default(); n_parts],
            open: !self.flows.is_empty(),
            loss_log: Vec::new(),
            virtual_events: 0,
            last_completion: Time::ZERO,
            windows: 0,
            window_end: Time::ZERO,
            own_flows: None,
        }));
        self.samples.defer();
    }

    /// Let go of the senders of connections whose sending host is not partition `me`'s under
    /// `owner` (one partition per node): only the sending host's partition drives a sender, and
    /// the merge takes that copy. Done by [`Sim::make_partition`]; a builder of partitions may
    /// call it as soon as each is built, so that they do not all hold every sender at once.
    pub fn keep_own_senders(&mut self, owner: &[u16], me: u16) {
        for c in &mut self.conns {
            if owner[self.hosts[c.src_host as usize].node.idx()] != me {
                c.sender = None;
                c.pending = None;
            }
        }
    }

    /// Whether this simulator owns `node` (always, outside a parallel run).
    #[inline]
    pub(super) fn owns(&self, node: NodeId) -> bool {
        self.part.as_ref().is_none_or(|p| p.owner[node.idx()] == p.me)
    }

    /// Whether a receiver may see that its sender has completed: only in one sequential queue.
    #[inline]
    pub(super) fn sender_end_visible(&self) -> bool {
        self.part.is_none()
    }

    /// Whether flows may still come (timers and the sampler re-arm while so): the exact count in
    /// one queue, the count at the last synchronisation boundary in a parallel run.
    #[inline]
    pub(super) fn more_to_come(&self) -> bool {
        match &self.part {
            None => self.flows_done < self.flows.len(),
            Some(p) => p.open,
        }
    }

    #[inline]
    fn virtual_origin(&self, v: u32) -> u32 {
        self.topo.nodes.len() as u32 + v
    }

    /// The node whose state `ev` changes (its origin for the events it schedules); counts the
    /// events of virtual origins.
    #[inline]
    pub(super) fn event_origin(&mut self, ev: &Ev) -> u32 {
        let virt = match *ev {
            Ev::Arrive { port, .. } => return self.ports[port as usize].peer.0,
            Ev::TxDone { port } | Ev::Pfc { port, .. } => return self.ports[port as usize].node.0,
            Ev::NicWake { host } | Ev::PullTick { host } => {
                return self.hosts[host as usize].node.0
            }
            Ev::FlowTimer { conn } => {
                return self.hosts[self.conns[conn as usize].src_host as usize].node.0
            }
            Ev::FlowStart { flow } => {
                return self.hosts[self.flows[flow as usize].src_host as usize].node.0
            }
            Ev::Sample => ORIGIN_SAMPLE,
            Ev::Routing { .. } => ORIGIN_ROUTING,
            Ev::Link { .. } => ORIGIN_LINK,
        };
        if let Some(p) = &mut self.part {
            p.virtual_events += 1;
        }
        self.virtual_origin(virt)
    }

    /// Name a virtual origin (`ORIGIN_*`) for what is scheduled next.
    pub(super) fn set_origin_virtual(&mut self, v: u32) {
        let o = self.virtual_origin(v);
        self.q.set_origin(o);
    }

    /// If `port`'s far end belongs to another partition, send the packet that arrives there at
    /// `at` (key sequence `seq`) as a message and free it here; returns whether it did.
    #[inline]
    pub(super) fn send_if_remote(&mut self, port: PortId, at: Time, seq: u64, pkt: PktId) -> bool {
        if !self.part.as_ref().is_some_and(|part| part.port_remote[port.idx()]) {
            return false;
        }
        let pk = *self.pkts.get(pkt.0);
        let int = self.take_int(pkt);
        let part = self.part.as_mut().expect("checked");
        let dst = part.owner[self.ports[port.idx()].peer.idx()] as usize;
        let out = &mut part.outbox[dst];
        let kind = if int == 0 {
            Remote::ARRIVAL
        } else {
            out.ints.push(*self.ints.get(int - 1));
            self.ints.free(int - 1);
            Remote::ARRIVAL_INT
        };
        out.list.push(Remote { at, seq, pkt: pk, port: port.0, kind });
        self.pkts.free(pkt.0);
        true
    }

    /// Send a PFC frame reaching `port` at `at` (PAUSE or RESUME of `class`) to `node`, the
    /// port's node: scheduled here, or a message to its partition.
    pub(super) fn push_pfc_for(
        &mut self,
        at: Time,
        port: PortId,
        class: u8,
        pause: bool,
        node: NodeId,
    ) {
        match &mut self.part {
            Some(p) if p.owner[node.idx()] != p.me => {
                let seq = self.event_key(Ev::Pfc { port: port.0, class, pause });
                let p = self.part.as_mut().expect("matched");
                let kind = Remote::pfc(class, pause);
                p.outbox[p.owner[node.idx()] as usize].list.push(Remote {
                    at,
                    seq,
                    pkt: Packet::default(),
                    port: port.0,
                    kind,
                });
            }
            _ => self.push_ev(at, Ev::Pfc { port: port.0, class, pause }),
        }
    }

    /// Whether connection `f`'s receiver may act on its sender having completed everything
    /// posted (see [`Sim::sender_end_visible`]).
    #[inline]
    pub(super) fn sender_seen_done(&self, f: braid_core::FlowId) -> bool {
        self.sender_end_visible() && self.conns[f.idx()].idle()
    }

    /// Take in messages from other partitions. Arrivals join their port's wire queue as a local
    /// transmission does (one link's arrivals come in order), so only each link's head arrival
    /// sits in the event queue.
    pub fn accept_remote(&mut self, msgs: &mut Messages) {
        let mut ints = msgs.ints.drain(..);
        for m in msgs.list.drain(..) {
            debug_assert!(
                m.at >= self.q.now(),
                "a message from the past: the lookahead was broken"
            );
            match m.kind {
                Remote::ARRIVAL | Remote::ARRIVAL_INT => {
                    let id = self.pkts.alloc(m.pkt);
                    if m.kind == Remote::ARRIVAL_INT {
                        let s = ints
                            .next()
                            .expect("an arrival with an INT stack has one in its buffer");
                        let int = self.ints.alloc(s) + 1;
                        self.set_int(PktId(id), int);
                    }
                    let p = &self.ports[m.port as usize];
                    debug_assert!(
                        !p.wire_head || p.wire.tail() < (m.at, m.seq),
                        "arrivals of one link out of order"
                    );
                    self.put_on_wire(PortId(m.port), m.at, m.seq, id);
                }
                _ => self.q.push_with_seq(m.at, m.seq, m.event()),
            }
        }
        debug_assert!(ints.next().is_none(), "an INT stack without its arrival");
        drop(ints);
        // The buffer circulates (outbox → slot → a worker's inbox → slot → outbox) and would keep
        // the capacity of the busiest window for the whole run in each of its places: long
        // windows (milliseconds of inter-DC traffic) made these buffers most of a parallel run's
        // memory. A large drained buffer is freed; small ones are kept to spare short windows
        // the allocations.
        if msgs.list.capacity() > KEEP_MESSAGES {
            msgs.list = Vec::new();
        }
        if msgs.ints.capacity() > KEEP_MESSAGES {
            msgs.ints = Vec::new();
        }
    }

    /// The messages for partition `dst` sent since the last call (handed over without a copy
    /// when `into` is empty, as it is when its reader has taken the previous ones).
    pub fn take_outbox(&mut self, dst: usize, into: &mut Messages) {
        if let Some(p) = &mut self.part {
            if into.is_empty() {
                std::mem::swap(into, &mut p.outbox[dst]);
            } else {
                into.append(&mut p.outbox[dst]);
            }
        }
    }

    /// The earliest time at which something is pending here: an event in the queue or a message
    /// not yet handed over.
    pub fn next_pending(&self) -> Option<Time> {
        let msgs = self
            .part
            .iter()
            .flat_map(|p| p.outbox.iter().flat_map(|m| m.iter()))
            .map(|m| m.at)
            .min();
        match (self.q.peek_time(), msgs) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Windows processed so far ([`Sim::run_window`] calls).
    pub fn windows_run(&self) -> u64 {
        self.part.as_ref().map_or(0, |p| p.windows)
    }

    /// Process every queued event before `end`.
    pub fn run_window(&mut self, end: Time) {
        if let Some(p) = &mut self.part {
            p.windows += 1;
            p.window_end = end;
        }
        while let Some(t) = self.q.peek_time() {
            if t >= end {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.handle(now, ev);
        }
    }

    /// At a synchronisation boundary, not the run's end: record whether flows remain anywhere,
    /// and count the queue samples taken so far.
    pub fn boundary(&mut self, open: bool) {
        if let Some(p) = &mut self.part {
            p.open = open;
        }
        self.samples.commit();
    }

    /// The latest completion of a flow sent from this partition.
    pub fn last_completion(&self) -> Time {
        self.part.as_ref().map_or(Time::ZERO, |p| p.last_completion)
    }

    /// Whether a queue sample taken now is sure to be kept at the run's end: a flow sent from
    /// this partition is still incomplete, so the last completion, and the cutoff one interval
    /// after it ([`Sim::finish_partition`]), are later than now (a flow that never completes
    /// leaves no cutoff). Flows complete where they are sent (flow dependencies, the one other
    /// way to start a flow, need one thread). Always false outside a parallel run.
    pub(super) fn sample_surely_kept(&mut self) -> bool {
        let Some(p) = &self.part else { return false };
        let own = match p.own_flows {
            Some(n) => n,
            None => {
                let n = self
                    .flows
                    .iter()
                    .filter(|f| p.own_node[self.hosts[f.src_host as usize].node.idx()])
                    .count();
                if let Some(p) = &mut self.part {
                    p.own_flows = Some(n);
                }
                n
            }
        };
        self.flows_done < own
    }

    /// The run has ended; `t_end`: when its last flow completed, if all did. Samples and log
    /// rows one queue would not have taken after that are dropped.
    pub fn finish_partition(&mut self, t_end: Option<Time>) {
        // Departures on demand due before the last window's end happen, as their `TxDone`s
        // would have in it (`departures.rs`).
        if let Some(end) = self.part.as_ref().map(|p| p.window_end) {
            self.catch_up_all(super::departures::before(end));
        }
        self.completed_at = t_end;
        let cutoff = t_end.map(|t| t + self.samples.config.interval.unwrap_or(Time::ZERO));
        self.samples.finish(cutoff);
        if let Some(t) = t_end {
            self.routing.truncate_logs(t);
        }
    }

    /// Note a flow's completion (its latest time, in a parallel run).
    #[inline]
    pub(super) fn note_completion(&mut self, now: Time) {
        if let Some(p) = &mut self.part {
            p.last_completion = p.last_completion.max(now);
        }
    }

    /// Flows started here (by their senders) so far.
    pub fn flows_started(&self) -> usize {
        self.flows_started
    }

    /// Set when the run last made progress (the parallel driver's watchdog decides it).
    pub fn set_progress_at(&mut self, t: Time) {
        self.progress_at = t;
    }

    /// The stall timeout ([`Sim::set_stall_timeout`]).
    pub fn stall_timeout(&self) -> Option<Time> {
        self.stall_timeout
    }

    /// A data packet `key` (flow·psn) was lost (dropped, or trimmed) now.
    #[inline]
    pub(super) fn note_lost(&mut self, now: Time, key: u64) {
        match &mut self.part {
            None => {
                self.lost_at.entry(key as u128).or_insert(now);
            }
            Some(p) => {
                assert!(key & LOST_BIT == 0, "flow number above 2^31");
                p.loss_log.push((now, self.q.last_seq(), key | LOST_BIT));
            }
        }
    }

    /// A data packet `key` (flow·psn; `pkt_flags` its flags) was accepted by its receiver now:
    /// a loss of it is repaired.
    #[inline]
    pub(super) fn note_repaired(&mut self, now: Time, key: u64, pkt_flags: u8) {
        match &mut self.part {
            None => {
                if let Some(t) = self.lost_at.remove(&(key as u128)) {
                    self.stats.retx_delay_sum_ps += (now - t).ps() as u128;
                    self.stats.retx_delay_count += 1;
                }
            }
            Some(p) if pkt_flags & flags::RETX != 0 => {
                p.loss_log.push((now, self.q.last_seq(), key))
            }
            Some(_) => {}
        }
    }
}

/// Data packets queued at `sim`'s ports (only its own ports ever hold any), and the packets
/// alive in its arena.
fn live_counts(sim: &Sim) -> (u64, u64) {
    let data = |h: &PktId| sim.pkts.get(h.0).kind == braid_core::PacketKind::Data;
    let queued = sim
        .ports
        .iter()
        .flat_map(|p| p.queues.iter())
        .map(|q| q.iter().filter(|h| data(h)).count() as u64)
        .sum();
    (queued, sim.pkts.live() as u64)
}

/// Merge the partitions of a parallel run, after it, into one simulator whose read-only views
/// ([`Sim::flows`], [`Sim::stats`], the time series, …) are what one queue would show: each
/// port, host, switch and flow end from the partition that owns it, counters and samples added
/// up (a partition samples and logs only what it owns), logs in (time, entity) order, the loss-to-repair delay matched over all partitions' logs in event
/// order. The merged simulator is for reading; it cannot run on.
pub fn merge_partitions(mut parts: Vec<Sim>) -> Sim {
    let rest = parts.split_off(1);
    let mut m = parts.pop().expect("at least one partition");
    let owner = m.part.as_ref().expect("a partition").owner.clone();
    let host_nodes: Vec<NodeId> = m.hosts.iter().map(|h| h.node).collect();
    let mut log = std::mem::take(&mut m.part.as_mut().expect("a partition").loss_log);
    let (mut foreign_queued, mut foreign_live) = (0u64, 0u64);
    for (j, mut o) in rest.into_iter().enumerate() {
        let own = |n: NodeId| owner[n.idx()] as usize == j + 1;
        let (q, l) = live_counts(&o);
        foreign_queued += q;
        foreign_live += l;
        for (mp, p) in m.ports.iter_mut().zip(&mut o.ports) {
            if own(p.node) {
                // Its queued packets live in the other arena: counted above, not carried over.
                p.queues.iter_mut().for_each(|q| q.clear());
                std::mem::swap(mp, p);
            }
        }
        for (mh, host) in m.hosts.iter_mut().zip(&mut o.hosts) {
            if own(host.node) {
                std::mem::swap(mh, host);
            }
        }
        for (mc, c) in m.conns.iter_mut().zip(&mut o.conns) {
            if own(host_nodes[c.src_host as usize]) {
                std::mem::swap(&mut mc.sender, &mut c.sender);
                std::mem::swap(&mut mc.pending, &mut c.pending);
                mc.finished_stats = c.finished_stats;
                mc.timer_at = c.timer_at;
                mc.probes_sent = c.probes_sent;
                mc.started = c.started;
                mc.posted = c.posted;
                mc.acked = c.acked;
            }
            if own(host_nodes[c.dst_host as usize]) {
                std::mem::swap(&mut mc.receiver, &mut c.receiver);
                mc.pulls = c.pulls;
                mc.ood = c.ood;
                mc.delivered = c.delivered;
            }
        }
        for (mf, fl) in m.flows.iter_mut().zip(&mut o.flows) {
            if own(host_nodes[fl.src_host as usize]) {
                mf.started_at = fl.started_at;
                mf.finish = fl.finish;
                mf.deps_left = fl.deps_left;
                mf.psn_first = fl.psn_first;
                mf.psn_end = fl.psn_end;
                mf.counters.retransmissions = fl.counters.retransmissions;
                mf.counters.timeouts = fl.counters.timeouts;
                mf.progress_at = mf.progress_at.max(fl.progress_at);
            }
            if own(host_nodes[fl.dst_host as usize]) {
                mf.delivered_at = fl.delivered_at;
                mf.delivered_bytes = fl.delivered_bytes;
                mf.counters.max_ood = fl.counters.max_ood;
                mf.counters.spurious = fl.counters.spurious;
                mf.progress_at = mf.progress_at.max(fl.progress_at);
            }
        }
        for (mk, k) in m.conn_msgs.iter_mut().zip(&o.conn_msgs) {
            if *k != u32::MAX && own(host_nodes[o.flows[*k as usize].src_host as usize]) {
                *mk = *k;
            }
        }
        m.stats.merge(&o.stats);
        m.nic_ood_hist.merge(&o.nic_ood_hist);
        m.nic_rbo_hist.merge(&o.nic_rbo_hist);
        m.q.absorb(&o.q, o.part.as_ref().map_or(0, |p| p.virtual_events));
        m.flows_done += o.flows_done;
        m.flows_started += o.flows_started;
        m.note_flow_count();
        let Sim { samples, routing, part, .. } = o;
        m.samples.merge_partition(samples);
        m.routing.merge_partition(routing, own);
        log.extend(part.expect("a partition").loss_log);
    }
    m.samples.finish_merge();
    m.routing.finish_merge();
    // The loss-to-repair delay, matched in event order as one queue's map does.
    log.sort_by_key(|e| (e.0, e.1));
    let mut lost: HashMap<u64, Time> = HashMap::new();
    for (t, _, entry) in log {
        let key = entry & !LOST_BIT;
        if entry & LOST_BIT != 0 {
            lost.entry(key).or_insert(t);
        } else if let Some(t0) = lost.remove(&key) {
            m.stats.retx_delay_sum_ps += (t - t0).ps() as u128;
            m.stats.retx_delay_count += 1;
        }
    }
    m.foreign_live = (foreign_queued, foreign_live);
    m
}
