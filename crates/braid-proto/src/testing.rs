//! A sender and its receiver joined by in-memory paths, driven by a tiny event loop without the
//! simulator: the way to test a transport (or a congestion control behind one) alone, as
//! quinn-proto's `Pair` tests QUIC endpoints.
//!
//! The sending NIC serialises one packet at a time at its line rate. Each packet then takes the
//! [`PathModel`] its logical path (or its entropy) selects: a FIFO bottleneck of fixed rate, a
//! one-way delay, optional random loss, optional jitter (uniform extra delay per packet, which
//! reorders packets within the path), optional ECN marking of packets that find a queue of at
//! least a threshold ahead of them, and optional stops of the reverse direction (a PFC PAUSE on
//! the ACKs' way back). Probes are MTU-sized and low priority: one that would wait behind data is
//! dropped.
//! ACKs take the path's delay back and are never lost. Receiver-driven transports (pulls, EQDS)
//! and trimming are not modelled.
//!
//! The loop is deterministic for a seed (loss and jitter draw from [`braid_core::Rng`]), keeps
//! the order of equal-time events by insertion, and allocates nothing per packet once its queue
//! has grown to the flow's window. Counters ([`PairStats`]) check conservation: every data packet
//! sent is dropped, in flight or received.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use braid_core::{PacketKind, Rate, Rng, Time};

use crate::cc::CcEnv;
use crate::events::{AckIn, FlowEnv, TxPacket};
use crate::receiver::{AckOut, DataIn, Receiver, RxVerdict};
use crate::transport::{Sender, SenderFactory, SenderOps, TransportConfig};

/// The environment of a one-message flow of `size_bytes` that starts at time zero, for a test:
/// a NIC of `line_rate`, packets of `mtu_bytes`, paths of base RTT `rtt` (so the network's
/// largest BDP is `line_rate × rtt`), the number of equal-cost paths unknown (0; set
/// `equal_cost_paths` where the transport reads it), UDP source port 49 152, seed 1.
pub fn flow_env(size_bytes: u64, line_rate: Rate, rtt: Time, mtu_bytes: u32) -> FlowEnv {
    let cc = CcEnv {
        line_rate,
        base_rtt: rtt,
        max_rtt: rtt,
        max_bdp_bytes: line_rate.bdp_bytes(rtt),
        mtu_bytes,
        tx_time_floor_ns: false,
    };
    FlowEnv::one_message(size_bytes, cc)
}

/// One path between the sender and the receiver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathModel {
    /// The bottleneck's rate (a FIFO queue without limit in front of it).
    pub rate: Rate,
    /// One-way propagation delay, each way.
    pub delay: Time,
    /// Probability that a data packet is lost at the bottleneck (probes and ACKs are not).
    pub loss: f64,
    /// Each data packet is delayed by a uniform extra `[0, jitter)` after the bottleneck, so
    /// packets of one path may arrive out of order.
    pub jitter: Time,
    /// A packet that finds at least this many bytes queued ahead of it is CE-marked.
    pub ecn_threshold_bytes: Option<u64>,
    /// The reverse direction stops for `.1` in every `.0` (ACKs arriving back during a stop wait
    /// for its end), as a PFC PAUSE stops a link.
    pub reverse_stops: Option<(Time, Time)>,
}

impl PathModel {
    /// A path of bottleneck `rate` and one-way `delay`, without loss, jitter, marking or stops.
    pub fn new(rate: Rate, delay: Time) -> PathModel {
        PathModel {
            rate,
            delay,
            loss: 0.0,
            jitter: Time::ZERO,
            ecn_threshold_bytes: None,
            reverse_stops: None,
        }
    }
    /// With random loss of data packets, probability `p`.
    pub fn with_loss(self, p: f64) -> PathModel {
        PathModel { loss: p, ..self }
    }
    /// With a uniform extra delay in `[0, jitter)` per data packet.
    pub fn with_jitter(self, jitter: Time) -> PathModel {
        PathModel { jitter, ..self }
    }
    /// With CE marks on packets that find `bytes` or more queued ahead.
    pub fn with_ecn(self, bytes: u64) -> PathModel {
        PathModel { ecn_threshold_bytes: Some(bytes), ..self }
    }
    /// With the reverse direction stopped for `stop` in every `every`.
    pub fn with_reverse_stops(self, every: Time, stop: Time) -> PathModel {
        PathModel { reverse_stops: Some((every, stop)), ..self }
    }
}

/// Which path a packet takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steering {
    /// Its logical path index modulo the number of paths (a network that maps logical paths one
    /// to one, Rondo §4.4).
    Path,
    /// Its entropy (UDP source port) modulo the number of paths (entropy-indexed switches).
    Entropy,
}

/// What the pair counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairStats {
    /// Data packets the sender sent (retransmissions included).
    pub data_sent: u64,
    /// Of those, lost on a path.
    pub data_lost: u64,
    /// Of those, received.
    pub data_received: u64,
    /// Data packets received more than once.
    pub duplicates: u64,
    /// Probes sent, and of those dropped behind data.
    pub probes_sent: u64,
    /// Probes dropped because data was queued on their path.
    pub probes_dropped: u64,
    /// Packets CE-marked.
    pub ecn_marked: u64,
    /// ACKs and NAKs the sender took.
    pub acks: u64,
    /// Packets the receiver delivered in order (each once).
    pub delivered: u64,
    /// Data packets sent on each path.
    pub sent_per_path: Vec<u64>,
}

/// How a run of [`Pair::run_until`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairEnd {
    /// Every byte of the flow was acknowledged, at this time.
    Complete(Time),
    /// Nothing was left to happen before the flow completed (the sender waits for nothing): the
    /// time of the last event.
    Stuck(Time),
    /// The time limit came first.
    TimeLimit,
}

#[derive(Clone, Copy, Debug)]
enum What {
    /// A data packet or probe reaches the receiver.
    Data { data: DataIn, probe: bool },
    /// An ACK, NAK or probe ACK reaches the sender.
    Ack(AckOut),
    /// The sender may send again, or a timer is due.
    Wake,
}

#[derive(Clone, Copy, Debug)]
struct Event {
    at: Time,
    seq: u64,
    what: What,
}

impl PartialEq for Event {
    fn eq(&self, o: &Event) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Event) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    fn cmp(&self, o: &Event) -> Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// A sender `S`, its receiver and the paths between them (see the module docs).
pub struct Pair<S: SenderOps> {
    /// The sender under test.
    pub sender: S,
    /// Its receiver.
    pub receiver: Receiver,
    /// The paths; a test may change one between two [`Pair::run_until`] calls (a delay step).
    pub paths: Vec<PathModel>,
    /// Which path a packet takes.
    pub steering: Steering,
    /// What happened so far.
    pub stats: PairStats,
    nic: Rate,
    mtu_bytes: u64,
    header_bytes: u64,
    path_free: Vec<Time>,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    now: Time,
    nic_free: Time,
    next_wake: Time,
    max_ood: u32,
    rng: Rng,
}

impl Pair<Sender> {
    /// The sender and receiver a scenario's `[transport]` gives a flow in `env` — built as the
    /// simulator builds them (the transport's typed configuration, its receiver mode, ACK
    /// coalescing, SACK bitmap) — over `paths`, steered by logical path.
    pub fn for_config(
        tc: &TransportConfig,
        env: &FlowEnv,
        paths: Vec<PathModel>,
    ) -> Result<Pair<Sender>, String> {
        let spec = SenderFactory::from_config(tc)?;
        let sender = spec.build(env)?;
        let pkts = env.size_bytes.div_ceil(env.cc.mtu_bytes as u64).max(1) as u32;
        let wire = env.cc.mtu_bytes as u64 + tc.header_bytes as u64;
        let receiver = tc.receiver(&spec, pkts, wire);
        Ok(Pair::new(sender, receiver, env, tc.header_bytes, paths))
    }
}

impl<S: SenderOps> Pair<S> {
    /// `sender` (built for `env`) and `receiver` over `paths`, each packet carrying
    /// `header_bytes` on the wire besides its payload; the flow begins at `env.start`, and loss
    /// and jitter draw from a stream seeded by `env.seed`.
    pub fn new(
        mut sender: S,
        receiver: Receiver,
        env: &FlowEnv,
        header_bytes: u32,
        paths: Vec<PathModel>,
    ) -> Pair<S> {
        assert!(!paths.is_empty(), "a pair needs at least one path");
        sender.begin(env.start);
        let mut p = Pair {
            sender,
            receiver,
            steering: Steering::Path,
            stats: PairStats { sent_per_path: vec![0; paths.len()], ..PairStats::default() },
            nic: env.cc.line_rate,
            mtu_bytes: env.cc.mtu_bytes as u64,
            header_bytes: header_bytes as u64,
            path_free: vec![Time::ZERO; paths.len()],
            paths,
            events: BinaryHeap::with_capacity(1024),
            seq: 0,
            now: env.start,
            nic_free: env.start,
            next_wake: env.start,
            max_ood: 0,
            rng: Rng::derive(env.seed, 0x7061_6972, 0),
        };
        p.push(env.start, What::Wake);
        p
    }

    /// Steered by `s` instead of by logical path.
    pub fn with_steering(mut self, s: Steering) -> Pair<S> {
        self.steering = s;
        self
    }

    /// The current time (of the last event run).
    pub fn now(&self) -> Time {
        self.now
    }

    /// The largest OOD of a data arrival since the last call (or the start).
    pub fn take_max_ood(&mut self) -> u32 {
        std::mem::take(&mut self.max_ood)
    }

    /// Data packets in flight on the paths (sent, neither lost nor received yet).
    pub fn data_in_flight(&self) -> u64 {
        self.stats.data_sent - self.stats.data_lost - self.stats.data_received
    }

    /// Run every event up to and including `until`; stops early when the flow completes or
    /// nothing is left to happen.
    pub fn run_until(&mut self, until: Time) -> PairEnd {
        loop {
            if self.sender.core().is_complete() {
                return PairEnd::Complete(self.now);
            }
            let Some(Reverse(ev)) = self.events.peek().copied() else {
                return PairEnd::Stuck(self.now);
            };
            if ev.at > until {
                return PairEnd::TimeLimit;
            }
            self.events.pop();
            self.now = ev.at;
            self.handle(ev.what);
        }
    }

    fn push(&mut self, at: Time, what: What) {
        self.seq += 1;
        self.events.push(Reverse(Event { at, seq: self.seq, what }));
    }

    fn handle(&mut self, what: What) {
        let now = self.now;
        match what {
            What::Data { data, probe } => self.arrive(now, data, probe),
            What::Ack(a) => {
                let ack = AckIn {
                    ts_rx: a.ts_rx,
                    ood: a.ood,
                    sack: a.sack,
                    ..AckIn::plain(a.kind, a.psn, a.cum_ack, a.path, a.ts_sent, a.hops)
                }
                .with_flags(a.flags);
                self.stats.acks += 1;
                self.sender.on_ack(now, &ack);
            }
            What::Wake => {}
        }
        if self.sender.poll_timeout().is_some_and(|t| t <= now) {
            self.sender.on_timeout(now);
        }
        while self.nic_free <= now {
            let Some(tx) = self.sender.poll_transmit(now) else { break };
            self.transmit(now, tx);
        }
        let mut wake = self.sender.next_send_time(now).max(self.nic_free);
        if let Some(t) = self.sender.poll_timeout() {
            wake = wake.min(t.max(now + Time::from_ps(1)));
        }
        if wake != Time::MAX && (wake < self.next_wake || self.next_wake <= now) {
            self.next_wake = wake.max(now + Time::from_ps(1));
            self.push(self.next_wake, What::Wake);
        }
    }

    /// The NIC serialises `tx` from `now`; it then takes its path.
    fn transmit(&mut self, now: Time, tx: TxPacket) {
        let probe = tx.kind == PacketKind::Probe;
        // Probes are MTU-sized on the wire, as the simulator's NIC sends them.
        let payload = if probe { self.mtu_bytes } else { tx.payload_bytes as u64 };
        let wire = payload + self.header_bytes;
        self.nic_free = now + self.nic.tx_time(wire);
        let n = self.paths.len();
        let i = match self.steering {
            Steering::Path => tx.path as usize % n,
            Steering::Entropy => tx.entropy as usize % n,
        };
        let path = self.paths[i];
        let at_bottleneck = self.nic_free;
        let waiting = self.path_free[i].saturating_sub(at_bottleneck);
        if probe {
            self.stats.probes_sent += 1;
            if waiting > Time::ZERO {
                self.stats.probes_dropped += 1;
                return;
            }
        } else {
            self.stats.data_sent += 1;
            self.stats.sent_per_path[i] += 1;
            if path.loss > 0.0 && self.rng.f64() < path.loss {
                self.stats.data_lost += 1;
                return;
            }
        }
        let queued_bytes = (waiting.ps() as u128 * path.rate.bps() as u128 / 8 / 1_000_000_000_000)
            .min(u64::MAX as u128) as u64;
        let ecn = path.ecn_threshold_bytes.is_some_and(|k| queued_bytes >= k);
        self.stats.ecn_marked += ecn as u64;
        self.path_free[i] = at_bottleneck.max(self.path_free[i]) + path.rate.tx_time(wire);
        let jitter = if path.jitter > Time::ZERO && !probe {
            Time::from_ps(self.rng.below(path.jitter.ps()))
        } else {
            Time::ZERO
        };
        let data = DataIn {
            psn: tx.psn,
            path: tx.path,
            entropy: tx.entropy,
            ecn_ce: ecn,
            ts_sent: now,
            hops: 1,
            ack_request: tx.ack_request,
        };
        self.push(self.path_free[i] + path.delay + jitter, What::Data { data, probe });
    }

    /// A data packet or probe reaches the receiver; its reply goes back over its path.
    fn arrive(&mut self, now: Time, data: DataIn, probe: bool) {
        let reply = if probe {
            Some(self.receiver.on_probe(now, &data))
        } else {
            self.stats.data_received += 1;
            let dups = self.receiver.duplicates();
            let (out, reply) = self.receiver.on_data_packet(now, &data, true);
            self.stats.duplicates += self.receiver.duplicates() - dups;
            if let RxVerdict::InOrder { delivered } = out.verdict {
                self.stats.delivered += delivered as u64;
            }
            self.max_ood = self.max_ood.max(out.ood);
            reply
        };
        let Some(ack) = reply else { return };
        let n = self.paths.len();
        let i = match self.steering {
            Steering::Path => data.path as usize % n,
            Steering::Entropy => data.entropy as usize % n,
        };
        let path = self.paths[i];
        let mut at = now + path.delay;
        if let Some((every, stop)) = path.reverse_stops {
            let into = at.ps() % every.ps();
            if into < stop.ps() {
                at = Time::from_ps(at.ps() - into + stop.ps());
            }
        }
        self.push(at, What::Ack(ack));
    }
}
