//! The receiving end over UDP (`braid recv`): one socket, one transfer at a time. Every data
//! packet is checked against the stream ([`crate::stream`]) and handed to the same sans-IO
//! [`Receiver`] the simulator's NICs run; its [`braid_proto::receiver::AckOut`] goes back to the
//! datagram's source address — the sender's socket of that logical path, so an ACK returns over
//! the path its packet took. The NIC-level OOD is recorded at every data arrival as the
//! simulator records it (one flow per NIC here, so the NIC's OOD is the flow's).

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use braid_core::packet::flags;
use braid_core::percentile::Histogram;
use braid_core::{PacketKind, Rate, Time};
use braid_proto::pull_pacer::{FlowPulls, PullPacer, PulledFlows};
use braid_proto::receiver::{AckOut, DataIn, Receiver, RxMode, RxVerdict};

use crate::io::{bind, wait_readable, wait_until, Clock, RecvBatch, SendBatch};
use crate::stream::{expected_hash, packet_hash, payload_len, Digest};
use crate::wire::{self, AckWire, Kind, RefuseReason, RxModeWire, RxReport, WireError};

/// How `braid recv` runs.
#[derive(Clone, Debug)]
pub struct RecvOptions {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Serve one transfer, then return.
    pub once: bool,
    /// With `once`: give up when no datagram arrived for this long (before or during the transfer).
    pub idle_timeout: Duration,
}

/// One transfer as the receiver saw it.
#[derive(Clone, Debug)]
pub struct RecvResult {
    /// Who sent it (the sender's first socket).
    pub peer: SocketAddr,
    /// The transport the sender named.
    pub transport: String,
    /// Bytes the transfer carries.
    pub size_bytes: u64,
    /// Whether the sender's FIN came (the transfer completed at the sender).
    pub finished: bool,
    /// The sender's digest matched the receiver's (every byte once).
    pub verified: bool,
    /// The receiver's counters.
    pub report: RxReport,
}

/// Why the receiver stopped.
#[derive(Debug)]
pub enum RecvError {
    /// The address could not be bound (the address, the reason).
    Bind(SocketAddr, io::Error),
    /// A socket call failed.
    Io(io::Error),
    /// `once`: nothing arrived for the idle timeout (`Some`: a transfer had started and stalled).
    Idle(Option<Box<RecvResult>>),
}

impl std::fmt::Display for RecvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecvError::Bind(a, e) => write!(f, "cannot listen on {a}: {e}"),
            RecvError::Io(e) => write!(f, "socket error: {e}"),
            RecvError::Idle(None) => write!(f, "no transfer arrived"),
            RecvError::Idle(Some(r)) => {
                write!(
                    f,
                    "the transfer from {} stalled: {} of {} bytes delivered, no datagram since",
                    r.peer, r.report.delivered_bytes, r.size_bytes
                )
            }
        }
    }
}

/// One transfer in progress.
struct Transfer {
    id: u32,
    peer: SocketAddr,
    hello: wire::Hello,
    rx: Receiver,
    total_pkts: u32,
    digest: Digest,
    delivered_bytes: u64,
    packets: u32,
    duplicates: u64,
    rx_drops: u64,
    corrupt: u64,
    arrivals: u64,
    reorder_used: u64,
    /// The NIC OOD at each data arrival (the simulator's histogram: the same nearest-rank p99).
    ood: Histogram,
    /// The sender's FIN: (its digest, packets it counts as acknowledged).
    fin: Option<(u64, u32)>,
    /// Receiver-driven transports: the pull pacer.
    pulling: Option<Pulling>,
}

/// The receiving NIC's pull pacer for a receiver-driven transfer (EQDS), as the simulator's
/// NIC drives [`PullPacer`].
struct Pulling {
    pacer: PullPacer,
    st: FlowPulls,
    /// One full packet's time at the pull rate.
    full_packet_time: Time,
    to_target: bool,
    /// The next tick, if armed.
    next_tick: Option<Time>,
    /// Where pulls go: the source of the flow's latest data packet or RTS.
    to: Option<SocketAddr>,
}

/// The one flow a transfer's pacer pulls.
struct OneFlow<'a> {
    st: &'a mut FlowPulls,
    pulled: bool,
}

impl PulledFlows for OneFlow<'_> {
    fn pulls(&mut self, _flow: u32) -> &mut FlowPulls {
        self.st
    }
    fn is_pulled(&self, _flow: u32) -> bool {
        self.pulled
    }
}

impl Pulling {
    fn arm(&mut self, t: Option<Time>) {
        if let Some(t) = t {
            self.next_tick = Some(self.next_tick.map_or(t, |n| n.min(t)));
        }
    }
}

impl Transfer {
    fn open(id: u32, peer: SocketAddr, hello: wire::Hello) -> Result<Transfer, String> {
        let pkts = hello.size_bytes.div_ceil(hello.mtu_bytes as u64);
        if pkts == 0 || pkts > u32::MAX as u64 / 2 {
            return Err(format!(
                "a transfer of {} bytes in {}-byte packets is out of range",
                hello.size_bytes, hello.mtu_bytes
            ));
        }
        let mode = match hello.rx_mode {
            RxModeWire::Selective => RxMode::Selective,
            RxModeWire::GoBackN { nak_interval_ns } => {
                RxMode::GoBackN { nak_interval: Time::from_ns(nak_interval_ns) }
            }
        };
        let mut rx = Receiver::new(mode, pkts as u32)
            .with_sack_below(hello.sack_below)
            .with_held_echo(hello.held_echo);
        if hello.ack_every_bytes > 0 {
            rx = rx.with_ack_coalescing(
                hello.ack_every_bytes,
                hello.mtu_bytes as u64 + hello.header_bytes as u64,
            );
        }
        let pulling = (hello.pull_rate_bps > 0).then(|| Pulling {
            pacer: PullPacer::default(),
            st: FlowPulls::default(),
            full_packet_time: Rate::from_bps(hello.pull_rate_bps)
                .tx_time(hello.mtu_bytes as u64 + hello.header_bytes as u64),
            to_target: hello.pulls_to_target,
            next_tick: None,
            to: None,
        });
        Ok(Transfer {
            id,
            peer,
            total_pkts: pkts as u32,
            rx,
            hello,
            digest: Digest::default(),
            delivered_bytes: 0,
            packets: 0,
            duplicates: 0,
            rx_drops: 0,
            corrupt: 0,
            arrivals: 0,
            reorder_used: 0,
            ood: Histogram::default(),
            fin: None,
            pulling,
        })
    }

    fn report(&self) -> RxReport {
        RxReport {
            digest: self.digest.0,
            delivered_bytes: self.delivered_bytes,
            packets: self.packets,
            ood_max: self.ood.max() as u32,
            ood_p99: self.ood.percentile(99.0) as u32,
            ood_mean_milli: (self.ood.mean() * 1000.0).round() as u64,
            duplicates: self.duplicates,
            rx_drops: self.rx_drops,
            corrupt: self.corrupt,
            arrivals: self.arrivals,
            cum_packets: self.rx.next_expected(),
        }
    }

    fn result(&self) -> RecvResult {
        let report = self.report();
        let verified = match self.fin {
            Some((d, n)) if n == self.total_pkts => {
                d == self.digest.0 && report.cum_packets == n && self.corrupt == 0
            }
            Some((_, n)) => report.cum_packets >= n && self.corrupt == 0,
            None => false,
        };
        RecvResult {
            peer: self.peer,
            transport: self.hello.transport.clone(),
            size_bytes: self.hello.size_bytes,
            finished: self.fin.is_some(),
            verified,
            report,
        }
    }

    /// An RTS (receiver-driven transports) arrived: pulls for the credit it asks for, or, when
    /// every packet is in already, an ACK (its sender lost the last ones).
    fn on_rts(&mut self, now: Time, b: &[u8], src: SocketAddr) -> Option<AckOut> {
        let h = wire::data(b).ok()?;
        let din = DataIn {
            psn: h.psn,
            path: h.path,
            entropy: h.entropy,
            ecn_ce: false,
            ts_sent: Time::from_ns(h.ts_sent_ns),
            hops: h.hops,
            ack_request: false,
        };
        let p = self.pulling.as_mut()?;
        p.pacer.note_rts();
        if self.rx.is_complete() {
            return Some(self.rx.on_rts_complete(now, &din));
        }
        let t = p.pacer.on_rts(now, 0, &mut p.st, h.psn, h.entropy);
        p.arm(t);
        p.to = Some(src);
        None
    }

    /// The pull pacer's tick, if due: the pull to send (as an ACK-shaped datagram) and where.
    fn pull_tick(&mut self, now: Time) -> Option<(AckWire, SocketAddr)> {
        let complete = self.rx.is_complete();
        let cum = self.rx.next_expected();
        let p = self.pulling.as_mut()?;
        if p.next_tick.is_none_or(|t| t > now) {
            return None;
        }
        p.next_tick = None;
        let mut flows = OneFlow { st: &mut p.st, pulled: !complete };
        let out = p.pacer.on_tick(now, p.full_packet_time, &mut flows);
        let t = p.pacer.rearm(now);
        p.arm(t);
        let pull = out?;
        let a = AckWire {
            nak: false,
            psn: pull.pull_number,
            cum_ack: cum,
            ood: 0,
            path: 0,
            entropy: pull.entropy,
            flags: 0,
            hops: 0,
            ts_sent_ns: now.ns(),
            ts_rx_ns: now.ns(),
            sack: 0,
        };
        Some((a, p.to?))
    }

    /// A data packet or probe of this transfer arrived: returns the reply to send.
    fn on_data(&mut self, now: Time, b: &[u8], src: SocketAddr) -> Option<AckOut> {
        let h = wire::data(b).ok()?;
        self.arrivals += 1;
        let din = DataIn {
            psn: h.psn,
            path: h.path,
            entropy: h.entropy,
            ecn_ce: h.ce,
            ts_sent: Time::from_ns(h.ts_sent_ns),
            hops: h.hops,
            ack_request: !h.probe && h.flags & flags::ACK_REQUEST != 0,
        };
        if h.probe {
            return Some(self.rx.on_probe(now, &din));
        }
        let payload = &b[wire::DATA_HEADER_BYTES..];
        let mtu = self.hello.mtu_bytes;
        if h.psn >= self.total_pkts
            || payload.len() as u32 != payload_len(self.hello.size_bytes, mtu, h.psn)
        {
            self.corrupt += 1;
            return None;
        }
        let hash = packet_hash(h.psn, payload);
        if hash != expected_hash(self.hello.stream_seed, h.psn, payload.len() as u32) {
            self.corrupt += 1;
            return None;
        }
        let room = self.reorder_used + mtu as u64 <= self.hello.reorder_buffer_bytes;
        if !self.rx.is_complete() {
            if let Some(p) = &mut self.pulling {
                let t = p.pacer.on_data(
                    now,
                    0,
                    &mut p.st,
                    p.to_target,
                    h.pull_target,
                    false,
                    h.entropy,
                );
                p.arm(t);
                p.to = Some(src);
            }
        }
        let (out, reply) = self.rx.on_data_packet(now, &din, room);
        self.reorder_used =
            (self.reorder_used as i64 + out.rbo_delta as i64 * mtu as i64).max(0) as u64;
        self.ood.record(out.ood as u64);
        match out.verdict {
            RxVerdict::InOrder { .. } | RxVerdict::Buffered => {
                self.digest.add(hash);
                self.packets += 1;
                self.delivered_bytes += payload.len() as u64;
            }
            RxVerdict::Duplicate => self.duplicates += 1,
            RxVerdict::DroppedOutOfOrder | RxVerdict::DroppedBufferFull => self.rx_drops += 1,
        }
        reply
    }
}

fn ack_wire(a: &AckOut) -> AckWire {
    AckWire {
        nak: a.kind == PacketKind::Nak,
        psn: a.psn,
        cum_ack: a.cum_ack,
        ood: a.ood,
        path: a.path,
        entropy: a.entropy,
        flags: a.flags,
        hops: a.hops,
        ts_sent_ns: a.ts_sent.ns(),
        ts_rx_ns: a.ts_rx.ns(),
        sack: a.sack,
    }
}

/// A transfer with no datagram for this long may be replaced by a new one.
const ABANDONED_AFTER: Time = Time::from_ms(3000);

/// Queue a reply in `batch`, sending the batch when it is full.
fn queue(batch: &mut SendBatch, sock: &UdpSocket, bytes: &[u8], to: SocketAddr) -> io::Result<()> {
    batch.slot()[..bytes.len()].copy_from_slice(bytes);
    batch.commit(bytes.len(), to);
    if batch.is_full() {
        batch.flush(sock)?;
    }
    Ok(())
}

/// A bound receiver (bind first, so a caller knows the port before serving).
pub struct UdpReceiver {
    sock: UdpSocket,
    opts: RecvOptions,
}

impl UdpReceiver {
    /// Bind the listening socket.
    pub fn bind(opts: RecvOptions) -> Result<UdpReceiver, RecvError> {
        let sock = bind(opts.listen).map_err(|e| RecvError::Bind(opts.listen, e))?;
        Ok(UdpReceiver { sock, opts })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// Serve transfers; `log` gets one line per event worth telling (a transfer opened, finished,
    /// a refused datagram). With `once`, returns after the first transfer's FIN (and a short
    /// linger to answer a repeated FIN).
    pub fn serve(&self, mut log: impl FnMut(&str)) -> Result<Vec<RecvResult>, RecvError> {
        let clock = Clock::start();
        let mut batch = RecvBatch::new();
        let mut replies = SendBatch::new();
        let mut out = [0u8; 256];
        let mut current: Option<Transfer> = None;
        let mut results = Vec::new();
        let mut last_rx = clock.now();
        let mut done_at: Option<Time> = None;
        let mut current_seen = clock.now();
        let linger = Time::from_ms(300);
        let idle = Time::from_ns(self.opts.idle_timeout.as_nanos() as u64);
        let mut warned_foreign = 0u32;
        loop {
            let now = clock.now();
            if let Some(t) = done_at {
                if now >= t + linger {
                    if let Some(s) = current.take() {
                        results.push(s.result());
                    }
                    return Ok(results);
                }
            }
            if self.opts.once && now.saturating_sub(last_rx) > idle {
                return Err(RecvError::Idle(current.as_ref().map(|s| Box::new(s.result()))));
            }
            // The pull pacer (receiver-driven transports): every pull that is due.
            if let Some(s) = current.as_mut() {
                while let Some((a, to)) = s.pull_tick(now) {
                    wire::put_pull(&mut out, s.id, &a);
                    queue(&mut replies, &self.sock, &out[..wire::ACK_BYTES], to)
                        .map_err(RecvError::Io)?;
                }
                replies.flush(&self.sock).map_err(RecvError::Io)?;
            }
            let n = match batch.recv(&self.sock) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => 0,
                Err(e) => return Err(RecvError::Io(e)),
            };
            if n == 0 {
                match current.as_ref().and_then(|s| s.pulling.as_ref()).and_then(|p| p.next_tick) {
                    Some(t) => {
                        wait_until(&[&self.sock], &clock, t).map_err(RecvError::Io)?;
                    }
                    None => {
                        wait_readable(&[&self.sock], Some(Duration::from_millis(50)))
                            .map_err(RecvError::Io)?;
                    }
                }
                continue;
            }
            let now = clock.now();
            last_rx = now;
            for i in 0..n {
                let (b, src) = batch.get(i);
                let Some(src) = src else { continue };
                if b.len() >= 8 && current.as_ref().is_some_and(|s| s.id.to_be_bytes() == b[4..8]) {
                    current_seen = now;
                }
                let c = match wire::common(b) {
                    Ok(c) => c,
                    Err(WireError::Version(v)) => {
                        if b.len() >= 8 && b[3] == Kind::Hello as u8 {
                            let session_id = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
                            let k = wire::put_refuse(
                                &mut out,
                                session_id,
                                RefuseReason::Version,
                                &format!("this receiver speaks version {}", wire::VERSION),
                            );
                            queue(&mut replies, &self.sock, &out[..k], src)
                                .map_err(RecvError::Io)?;
                            log(&format!("refused {src}: it speaks packet format version {v}, this receiver {}", wire::VERSION));
                        }
                        continue;
                    }
                    Err(e) => {
                        if warned_foreign < 3 {
                            log(&format!("ignored a datagram from {src}: {e}"));
                            warned_foreign += 1;
                        }
                        continue;
                    }
                };
                match c.kind {
                    Kind::Hello => {
                        let Ok(hello) = wire::hello(b) else { continue };
                        // A transfer whose sender has gone quiet for a while (killed, unplugged)
                        // no longer holds the receiver.
                        let busy =
                            current.as_ref().is_some_and(|s| s.id != c.session && s.fin.is_none())
                                && now.saturating_sub(current_seen) < ABANDONED_AFTER;
                        if busy {
                            let k = wire::put_refuse(
                                &mut out,
                                c.session,
                                RefuseReason::Busy,
                                "serving another transfer",
                            );
                            queue(&mut replies, &self.sock, &out[..k], src)
                                .map_err(RecvError::Io)?;
                            continue;
                        }
                        if current.as_ref().is_none_or(|s| s.id != c.session) {
                            if let Some(s) = current.take() {
                                results.push(s.result());
                            }
                            match Transfer::open(c.session, src, hello.clone()) {
                                Ok(s) => {
                                    log(&format!(
                                        "transfer from {src}: {} bytes, transport {}, {}-byte packets",
                                        hello.size_bytes, hello.transport, hello.mtu_bytes
                                    ));
                                    current = Some(s);
                                    done_at = None;
                                }
                                Err(e) => {
                                    let k = wire::put_refuse(
                                        &mut out,
                                        c.session,
                                        RefuseReason::Unsupported,
                                        &e,
                                    );
                                    queue(&mut replies, &self.sock, &out[..k], src)
                                        .map_err(RecvError::Io)?;
                                    continue;
                                }
                            }
                        }
                        let k = wire::put_hello_ok(&mut out, c.session, hello.ts_ns, now.ns());
                        queue(&mut replies, &self.sock, &out[..k], src).map_err(RecvError::Io)?;
                    }
                    Kind::Path => {
                        if current.as_ref().is_some_and(|s| s.id == c.session) {
                            if let Ok((p, ts)) = wire::path(b) {
                                let k = wire::put_path(&mut out, true, c.session, p, ts);
                                queue(&mut replies, &self.sock, &out[..k], src)
                                    .map_err(RecvError::Io)?;
                            }
                        }
                    }
                    Kind::Data | Kind::Probe => {
                        let Some(s) = current.as_mut().filter(|s| s.id == c.session) else {
                            continue;
                        };
                        if let Some(a) = s.on_data(now, b, src) {
                            wire::put_ack(&mut out, c.session, &ack_wire(&a));
                            queue(&mut replies, &self.sock, &out[..wire::ACK_BYTES], src)
                                .map_err(RecvError::Io)?;
                        }
                    }
                    Kind::Rts => {
                        let Some(s) = current.as_mut().filter(|s| s.id == c.session) else {
                            continue;
                        };
                        if let Some(a) = s.on_rts(now, b, src) {
                            wire::put_ack(&mut out, c.session, &ack_wire(&a));
                            queue(&mut replies, &self.sock, &out[..wire::ACK_BYTES], src)
                                .map_err(RecvError::Io)?;
                        }
                    }
                    Kind::Fin => {
                        let Some(s) = current.as_mut().filter(|s| s.id == c.session) else {
                            continue;
                        };
                        let Ok(fin) = wire::fin(b) else { continue };
                        if s.fin.is_none() {
                            s.fin = Some(fin);
                            let r = s.result();
                            log(&format!(
                                "transfer from {} finished: {} bytes delivered, {}, OOD p99 {} max {}",
                                r.peer,
                                r.report.delivered_bytes,
                                if r.verified { "verified" } else { "NOT verified" },
                                r.report.ood_p99,
                                r.report.ood_max
                            ));
                        }
                        let k = wire::put_fin_ok(&mut out, c.session, &s.report());
                        queue(&mut replies, &self.sock, &out[..k], src).map_err(RecvError::Io)?;
                        if self.opts.once && done_at.is_none() {
                            done_at = Some(now);
                        }
                    }
                    Kind::Ack
                    | Kind::Nak
                    | Kind::Pull
                    | Kind::HelloOk
                    | Kind::FinOk
                    | Kind::Refuse
                    | Kind::PathOk => {}
                }
            }
            replies.flush(&self.sock).map_err(RecvError::Io)?;
        }
    }
}
