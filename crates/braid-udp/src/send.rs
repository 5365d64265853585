//! The sending end over UDP (`braid send`): one sans-IO sender of Braid's — the very type the
//! simulator's NICs drive — moved by a real clock. Logical path `p` is UDP socket `p mod n`
//! (one source port each, so a fabric hashing on ports, or `braid emulate`, keeps a logical
//! path on one physical path). The driver is the simulator's NIC in software: it asks the
//! sender for a packet whenever its line-rate clock is free (`poll_transmit`), sleeps until the
//! earliest of the NIC clock, the sender's pacing time (`next_send_time`), its timer
//! (`poll_timeout`) or an arriving ACK, and hands every ACK to `on_ack`.
//!
//! Before the transfer it opens a session (HELLO: size, MTU, receiver mode, stream seed) and
//! measures each path's round trip (PATH pings): the smallest and largest become the flow's base
//! and maximum RTT (`CcEnv`), and the HELLO's timestamps give the receiver's clock offset, which
//! maps the receiver's arrival timestamps onto the sender's clock (NTP-style: exact on one
//! machine up to the path asymmetry).

mod open;
pub use open::Lateness;
use open::*;

use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use braid_core::{PacketKind, Rate, Time};
use braid_proto::cc::{CcEnv, CcKind};
use braid_proto::events::{AckIn, FlowEnv};
use braid_proto::transport::{Sender, SenderFactory, TransportConfig};

use crate::io::{
    any_addr_for, bind, send_all, set_dscp, until, wait_readable, wait_until, Clock, RecvBatch,
    SendBatch, BATCH,
};
use crate::stream::{fill, payload_len, stream_digest};
use crate::wire::{self, DataHeader, Hello, Kind, RxModeWire, RxReport, WireError};
use braid_core::rng::mix64;

/// How `braid send` runs.
#[derive(Clone, Debug)]
pub struct SendOptions {
    /// The receiver (or the emulator in front of it).
    pub peer: SocketAddr,
    /// The transport, as a scenario's `[transport]` configures it.
    pub transport: TransportConfig,
    /// Bytes to send.
    pub size_bytes: u64,
    /// Payload bytes per packet.
    pub mtu_bytes: u32,
    /// Wire bytes a packet counts for besides its payload (the simulator's `network.header`).
    pub header_bytes: u32,
    /// UDP source ports (sockets) to spread logical paths over; also the flow's equal-cost path
    /// count (Rondo's `paths = "auto"`).
    pub paths: u16,
    /// The NIC's line rate: packets leave no faster.
    pub line_rate: Rate,
    /// The receiver's reorder buffer.
    pub reorder_buffer_bytes: u64,
    /// Go-back-N receivers' NAK interval.
    pub nak_interval: Time,
    /// Seed of the byte stream and of the sender's random stream.
    pub seed: u64,
    /// Stop after this long even if not complete.
    pub duration: Option<Duration>,
    /// No acknowledgement progress for this long ends the transfer as stalled.
    pub stall_timeout: Duration,
    /// How long to wait for the receiver to answer the HELLO.
    pub connect_timeout: Duration,
    /// The flow's base RTT, instead of the measured one.
    pub base_rtt: Option<Time>,
    /// DSCP of capacity probes (0: unmarked, like data). Rondo's probes must ride a strict
    /// low-priority class with a small drop threshold at every switch (§4.2.2); real switches
    /// find them by this mark. Default 1: the Lower-Effort PHB (RFC 8622).
    pub probe_dscp: u8,
    /// Print the sender's per-path state (window, ACK rate, inflight, delay, skip) to stderr
    /// this often (transports that keep per-path state: Rondo, RR spraying).
    pub trace_paths: Option<Time>,
}

/// A progress reading (about once a second).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Seconds since the transfer started.
    pub elapsed_s: f64,
    /// Bytes acknowledged cumulatively.
    pub acked_bytes: u64,
    /// Bytes to send.
    pub size_bytes: u64,
    /// Goodput over the last reading's interval, b/s.
    pub rate_bps: f64,
}

/// What a transfer achieved: the same fields a simulated run reports for a flow.
#[derive(Clone, Debug)]
pub struct SendReport {
    /// Transport name.
    pub transport: String,
    /// Congestion control name.
    pub cc: String,
    /// Loss recovery name.
    pub recovery: String,
    /// Bytes the transfer carries.
    pub size_bytes: u64,
    /// Every byte was acknowledged.
    pub complete: bool,
    /// Bytes acknowledged cumulatively.
    pub acked_bytes: u64,
    /// From the sender's start to the last acknowledgement.
    pub fct: Time,
    /// `acked_bytes` over `fct`: application goodput, b/s.
    pub goodput_bps: f64,
    /// Data packets sent (retransmissions included).
    pub data_packets_sent: u64,
    /// Probes sent.
    pub probes_sent: u64,
    /// Data packets sent per UDP source port (logical path mod `paths`).
    pub packets_per_path: Vec<u64>,
    /// Round trip measured on each path before the transfer.
    pub path_rtts: Vec<Time>,
    /// The base RTT the sender was built with.
    pub base_rtt: Time,
    /// Retransmitted packets.
    pub retransmissions: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// How late the driver woke for its deadlines.
    pub lateness: Lateness,
    /// Settings the driver changed, each with its reason (timer defaults raised to the measured
    /// round trip).
    pub notes: Vec<String>,
    /// The receiver's report (FIN_OK): OOD, duplicates (= spurious retransmissions), drops.
    pub receiver: RxReport,
    /// The receiver's digest equals the stream's (every byte once) and it delivered in order up
    /// to what the sender counts as acknowledged.
    pub verified: bool,
}

/// Why a transfer failed.
#[derive(Debug)]
pub enum SendError {
    /// The options or the transport cannot be run over UDP (exit 2).
    BadInput(String),
    /// Nobody answered, or the port is closed (exit 2).
    Unreachable(String),
    /// The receiver refused: another packet-format version, busy, or unsupported (exit 2).
    Refused(String),
    /// The transfer stopped making progress (exit 3); the report so far.
    Stalled(String, Box<SendReport>),
    /// A socket call failed (exit 1).
    Io(io::Error),
}

impl SendError {
    /// The process exit code of this failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            SendError::BadInput(_) | SendError::Unreachable(_) | SendError::Refused(_) => 2,
            SendError::Stalled(..) => 3,
            SendError::Io(_) => 1,
        }
    }
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::BadInput(s)
            | SendError::Unreachable(s)
            | SendError::Refused(s)
            | SendError::Stalled(s, _) => f.write_str(s),
            SendError::Io(e) => write!(f, "socket error: {e}"),
        }
    }
}

impl From<io::Error> for SendError {
    fn from(e: io::Error) -> Self {
        SendError::Io(e)
    }
}

/// Run one transfer. `progress` is called about once a second.
pub fn send(
    opts: &SendOptions,
    mut progress: impl FnMut(&Progress),
) -> Result<SendReport, SendError> {
    if opts.paths == 0 {
        return Err(SendError::BadInput("--paths must be at least 1".into()));
    }
    if opts.mtu_bytes == 0 || opts.mtu_bytes as usize + wire::DATA_HEADER_BYTES > wire::MAX_DATAGRAM
    {
        return Err(SendError::BadInput(format!(
            "--mtu {} is out of range (1 to {} bytes)",
            opts.mtu_bytes,
            wire::MAX_DATAGRAM - wire::DATA_HEADER_BYTES
        )));
    }
    if opts.size_bytes == 0 {
        return Err(SendError::BadInput("--size must be positive".into()));
    }
    if opts.line_rate.bps() == 0 {
        return Err(SendError::BadInput("--rate must be positive".into()));
    }
    let tc = &opts.transport;
    if tc.cc.kind == CcKind::Hpcc {
        return Err(SendError::BadInput(
            "HPCC needs in-band telemetry from switches, which UDP through a kernel cannot carry"
                .into(),
        ));
    }
    // Checked now (a sender for a reference environment); built again below once the round
    // trips are known.
    let spec = SenderFactory::from_config(tc).map_err(SendError::BadInput)?;
    let probe_env = FlowEnv {
        cc: CcEnv {
            line_rate: opts.line_rate,
            base_rtt: Time::from_ms(1),
            max_rtt: Time::from_ms(1),
            max_bdp_bytes: opts.line_rate.bdp_bytes(Time::from_ms(1)),
            mtu_bytes: opts.mtu_bytes,
            tx_time_floor_ns: false,
        },
        size_bytes: opts.size_bytes,
        connection_messages: None,
        equal_cost_paths: opts.paths as u32,
        longest_path_rtt: Time::ZERO,
        entropy: 49_152,
        start: Time::ZERO,
        seed: opts.seed,
    };
    let probe_sender = spec.build(&probe_env).map_err(SendError::BadInput)?;
    let (pulled, pulls_to_target) = (probe_sender.wants_pulls(), probe_sender.pulls_to_target());
    let clock = Clock::start();
    let paths = Paths::open(opts.peer, opts.paths)?;
    let session = mix64(
        opts.seed
            ^ (std::process::id() as u64) << 32
            ^ std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0),
    ) as u32;
    let rx_mode = if tc.receiver_buffers() {
        RxModeWire::Selective
    } else {
        RxModeWire::GoBackN { nak_interval_ns: opts.nak_interval.ns() }
    };
    let stream_seed = mix64(opts.seed ^ 0x5354_5245_414d);
    let mut hello = Hello {
        size_bytes: opts.size_bytes,
        mtu_bytes: opts.mtu_bytes,
        header_bytes: opts.header_bytes,
        rx_mode,
        sack_below: spec.sack_below(),
        held_echo: spec.held_echo(),
        ack_every_bytes: spec.ack_every_bytes().unwrap_or(0),
        reorder_buffer_bytes: opts.reorder_buffer_bytes,
        stream_seed,
        ts_ns: 0,
        // A receiver-driven transport is pulled at the line rate (the simulator paces pulls at the
        // receiving NIC's rate; here both ends' NICs are the sender's `--rate`).
        pull_rate_bps: if pulled { opts.line_rate.bps() } else { 0 },
        pulls_to_target,
        transport: tc.kind.name().to_string(),
    };
    let opened = open_session(&paths, opts, &clock, &mut hello, session)?;
    let min_rtt = opened.path_rtts.iter().copied().min().unwrap_or(Time::ZERO);
    let max_rtt = opened.path_rtts.iter().copied().max().unwrap_or(Time::ZERO);
    let pkt_time = opts.line_rate.tx_time((opts.mtu_bytes + opts.header_bytes) as u64);
    let base_rtt = opts.base_rtt.unwrap_or(min_rtt + pkt_time);
    let max_rtt = opts.base_rtt.unwrap_or(max_rtt + pkt_time).max(base_rtt);
    let (tc, notes) = timers_for_rtt(tc, max_rtt);
    let spec = SenderFactory::from_config(&tc).map_err(SendError::BadInput)?;
    let now = clock.now();
    let env = FlowEnv {
        cc: CcEnv {
            line_rate: opts.line_rate,
            base_rtt,
            max_rtt,
            max_bdp_bytes: opts.line_rate.bdp_bytes(max_rtt),
            mtu_bytes: opts.mtu_bytes,
            tx_time_floor_ns: false,
        },
        size_bytes: opts.size_bytes,
        connection_messages: None,
        equal_cost_paths: opts.paths as u32,
        // The paths' longest round trip as measured at the session's opening, on an idle
        // network: what the topology's longest path is to the simulator (Rondo's `rtt_bound`).
        longest_path_rtt: if spec.uses_longest_path_rtt() { max_rtt } else { Time::ZERO },
        entropy: paths.socks[0].local_addr().map(|a| a.port()).unwrap_or(49_152),
        start: now,
        seed: opts.seed,
    };
    let mut sender = spec.build(&env).map_err(SendError::BadInput)?;
    let cc_name = tc.kind.cc_name(tc.cc.kind).to_string();
    let recovery_name = tc.recovery.kind.name().to_string();
    run_transfer(opts, &paths, &clock, &mut sender, &opened, stream_seed, &mut progress)
        .map(|mut r| {
            r.notes = notes.clone();
            r.cc = cc_name.clone();
            r.recovery = recovery_name.clone();
            r.base_rtt = base_rtt;
            r
        })
        .map_err(|e| match e {
            SendError::Stalled(s, mut r) => {
                r.notes = notes;
                r.cc = cc_name;
                r.recovery = recovery_name;
                r.base_rtt = base_rtt;
                SendError::Stalled(s, r)
            }
            e => e,
        })
}

fn run_transfer(
    opts: &SendOptions,
    paths: &Paths,
    clock: &Clock,
    sender: &mut Sender,
    opened: &Opened,
    stream_seed: u64,
    progress: &mut impl FnMut(&Progress),
) -> Result<SendReport, SendError> {
    let peer = opts.peer;
    let session = opened.session;
    let mtu = opts.mtu_bytes;
    let n_paths = paths.socks.len();
    let refs = paths.refs();
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 64];
    let mut acks = RecvBatch::new();
    let mut out = SendBatch::new();
    let mut out_sock = 0usize;
    let start = clock.now();
    sender.begin(start);
    // The NIC: a packet leaves when its line-rate clock is free; a transmit ring of 8 packets
    // absorbs the driver's wake-up latency (as a real NIC's ring does).
    let pkt_time = opts.line_rate.tx_time((mtu + opts.header_bytes) as u64);
    let ring = pkt_time.mul_f64(8.0);
    let mut nic_free = start;
    let mut per_path = vec![0u64; n_paths];
    let (mut data_sent, mut probes_sent) = (0u64, 0u64);
    let mut blocked = false;
    let mut last_acked = 0u32;
    let mut last_progress_at = start;
    let stall = Time::from_ns(opts.stall_timeout.as_nanos() as u64);
    let end_by = opts.duration.map(|d| start + Time::from_ns(d.as_nanos() as u64));
    let tick = Time::from_ms(1000);
    let mut next_tick = start + tick;
    let mut trace_next = start;
    let mut tick_acked = 0u64;
    let total_pkts = opts.size_bytes.div_ceil(mtu as u64) as u32;
    let mut done_at = None;
    let mut lateness = Lateness::default();
    loop {
        // ACKs from every path.
        for s in &paths.socks {
            for _ in 0..8 {
                let got = match acks.recv(s) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                        return Err(refused_connection(peer))
                    }
                    Err(e) => return Err(e.into()),
                };
                for i in 0..got {
                    let (b, _) = acks.get(i);
                    let Ok(c) = wire::common(b) else { continue };
                    if c.session != session || !matches!(c.kind, Kind::Ack | Kind::Nak | Kind::Pull)
                    {
                        continue;
                    }
                    let Ok(a) = wire::ack(b) else { continue };
                    let now = clock.now();
                    let ts_rx =
                        Time::from_ns(((a.ts_rx_ns as i64 - opened.offset_ns).max(1)) as u64);
                    let kind =
                        if c.kind == Kind::Pull { PacketKind::Pull } else { wire::ack_kind(&a) };
                    let ack = AckIn {
                        ts_rx,
                        ood: a.ood,
                        sack: a.sack,
                        ..AckIn::plain(
                            kind,
                            a.psn,
                            a.cum_ack,
                            a.path,
                            Time::from_ns(a.ts_sent_ns),
                            a.hops,
                        )
                    }
                    .with_flags(a.flags);
                    sender.on_ack(now, &ack);
                    blocked = false;
                }
                if got < BATCH {
                    break;
                }
            }
        }
        let mut now = clock.now();
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.on_timeout(now);
            blocked = false;
        }
        if sender.is_complete() {
            done_at = Some(now);
            break;
        }
        // Transmit while the NIC is free and the sender has something.
        let mut burst = 0;
        while !blocked && nic_free <= now && burst < 32 {
            if sender.next_send_time(now) > now {
                break;
            }
            let Some(tx) = sender.poll_transmit(now) else {
                // As the simulator's NIC: a sender that declined may name a later time (its
                // scheduler held a path back); only one that names none waits for input.
                blocked = sender.next_send_time(now) <= now;
                break;
            };
            let probe = tx.kind == PacketKind::Probe;
            let rts = tx.kind == PacketKind::Rts;
            let len = if probe {
                mtu
            } else if rts {
                0
            } else {
                tx.payload_bytes
            };
            let h = DataHeader {
                probe,
                psn: tx.psn,
                path: tx.path,
                entropy: tx.entropy,
                flags: tx.flags(),
                hops: 0,
                ce: false,
                ts_sent_ns: now.ns(),
                pull_target: tx.pull_target,
            };
            let p = tx.path as usize % n_paths;
            let marked = probe && opts.probe_dscp != 0;
            if out_sock != p || out.is_full() || marked {
                flush_out(&mut out, &paths.socks[out_sock], peer)?;
                out_sock = p;
            }
            let pkt = out.slot();
            if rts {
                wire::put_rts(pkt, session, &h);
            } else {
                wire::put_data(pkt, session, &h);
            }
            let body = &mut pkt[wire::DATA_HEADER_BYTES..wire::DATA_HEADER_BYTES + len as usize];
            if probe || rts {
                body.fill(0);
            } else {
                debug_assert_eq!(len, payload_len(opts.size_bytes, mtu, tx.psn));
                fill(stream_seed, tx.psn, body);
            }
            out.commit_connected(wire::DATA_HEADER_BYTES + len as usize);
            if marked {
                // A probe leaves alone, marked for the switches' low-priority class.
                let s = &paths.socks[p];
                let v6 = peer.is_ipv6();
                set_dscp(s, v6, opts.probe_dscp)?;
                flush_out(&mut out, s, peer)?;
                set_dscp(s, v6, 0)?;
            }
            if probe {
                probes_sent += 1;
            } else if !rts {
                data_sent += 1;
                per_path[p] += 1;
            }
            nic_free = nic_free.max(now.saturating_sub(ring))
                + opts.line_rate.tx_time((len + opts.header_bytes) as u64);
            burst += 1;
            now = clock.now();
        }
        // A burst leaves in one `sendmmsg` per socket.
        flush_out(&mut out, &paths.socks[out_sock], peer)?;
        // Progress, stall and the time limit.
        let acked = sender.acked_packets();
        if acked > last_acked {
            last_acked = acked;
            last_progress_at = now;
        }
        let acked_bytes = (acked as u64 * mtu as u64).min(opts.size_bytes);
        if let Some(every) = opts.trace_paths {
            if now >= trace_next {
                trace_next = now + every;
                for p in sender.path_samples() {
                    eprintln!(
                        "path-trace t_ms={:.3} path={} window_bytes={} ack_rate_mbps={:.1} inflight_pkts={} margin_bytes={} fwd_delay_us={:.1} skip={} probing={}",
                        now.saturating_sub(start).us_f64() / 1e3,
                        p.path,
                        p.window_bytes,
                        p.ack_rate_bps as f64 / 1e6,
                        p.inflight_pkts,
                        p.margin_bytes,
                        p.fwd_delay_ns / 1e3,
                        p.skip,
                        p.probing
                    );
                }
            }
        }
        if now >= next_tick {
            let elapsed = now.saturating_sub(start).secs_f64();
            progress(&Progress {
                elapsed_s: elapsed,
                acked_bytes,
                size_bytes: opts.size_bytes,
                rate_bps: (acked_bytes - tick_acked) as f64 * 8.0 / tick.secs_f64(),
            });
            tick_acked = acked_bytes;
            next_tick = now + tick;
        }
        if end_by.is_some_and(|t| now >= t) {
            break;
        }
        if now.saturating_sub(last_progress_at) > stall {
            let report = report_of(
                opts,
                sender,
                start,
                now,
                data_sent,
                probes_sent,
                &per_path,
                opened,
                RxReport::default(),
                false,
                total_pkts,
            );
            return Err(SendError::Stalled(
                format!(
                    "the transfer to {peer} stopped making progress: {} of {} packets acknowledged, nothing new for {:?} (flow stuck at PSN {})",
                    acked, total_pkts, opts.stall_timeout, acked
                ),
                Box::new(report),
            ));
        }
        if burst >= 32 {
            continue;
        }
        // Sleep until the next thing that can happen without input, or an ACK.
        let mut wake =
            sender.poll_timeout().unwrap_or(Time::MAX).min(next_tick).min(last_progress_at + stall);
        if let Some(t) = end_by {
            wake = wake.min(t);
        }
        if !blocked {
            let nst = sender.next_send_time(now);
            if nst != Time::MAX {
                wake = wake.min(nst.max(nic_free));
            }
        }
        if wake > now {
            let woke = wait_until(&refs, clock, wake)?;
            if woke.is_none() {
                // Woken by the deadline, not a datagram: how late.
                let late = clock.now().saturating_sub(wake);
                lateness.waits += 1;
                lateness.sum_ns += late.ns();
                if late > Time::from_us(50) {
                    lateness.over_50us += 1;
                }
            }
        }
    }
    let end = done_at.unwrap_or_else(|| clock.now());
    // FIN: the sender's digest and what it counts as acknowledged; the receiver's report back.
    let acked = sender.acked_packets().min(total_pkts);
    let digest =
        if acked == total_pkts { stream_digest(stream_seed, opts.size_bytes, mtu).0 } else { 0 };
    let rx = finish(paths, clock, session, digest, acked, peer, &mut buf)?;
    let verified = match rx {
        Some(r) if acked == total_pkts => {
            r.digest == digest && r.cum_packets >= total_pkts && r.corrupt == 0
        }
        Some(r) => r.cum_packets >= acked && r.corrupt == 0,
        None => false,
    };
    let mut report = report_of(
        opts,
        sender,
        start,
        end,
        data_sent,
        probes_sent,
        &per_path,
        opened,
        rx.unwrap_or_default(),
        verified,
        total_pkts,
    );
    report.lateness = lateness;
    if rx.is_none() {
        return Err(SendError::Stalled(
            format!("{peer} sent no report (FIN_OK) after the transfer: delivery is unverified"),
            Box::new(report),
        ));
    }
    Ok(report)
}

/// Send the queued data packets on `sock`.
fn flush_out(out: &mut SendBatch, sock: &UdpSocket, peer: SocketAddr) -> Result<(), SendError> {
    if out.is_empty() {
        return Ok(());
    }
    out.flush(sock).map_err(|e| {
        if e.kind() == io::ErrorKind::ConnectionRefused {
            refused_connection(peer)
        } else {
            e.into()
        }
    })
}

/// Send FIN until FIN_OK (resent every 50 ms, 3 s in all).
fn finish(
    paths: &Paths,
    clock: &Clock,
    session: u32,
    digest: u64,
    acked: u32,
    peer: SocketAddr,
    buf: &mut [u8],
) -> Result<Option<RxReport>, SendError> {
    let s0 = &paths.socks[0];
    let mut out = [0u8; 64];
    let n = wire::put_fin(&mut out, session, digest, acked);
    let deadline = clock.now() + Time::from_ms(3000);
    while clock.now() < deadline {
        match s0.send(&out[..n]) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.into()),
        }
        let until_next = clock.now() + Time::from_ms(50);
        while clock.now() < until_next {
            wait_readable(&[s0], Some(until(clock.now(), until_next)))?;
            loop {
                let k = match recv_one(s0, buf, peer) {
                    Ok(Some(k)) => k,
                    Ok(None) => break,
                    Err(SendError::Unreachable(_)) => return Ok(None),
                    Err(e) => return Err(e),
                };
                let b = &buf[..k];
                if let Ok(c) = wire::common(b) {
                    if c.kind == Kind::FinOk && c.session == session {
                        return Ok(wire::fin_ok(b).ok());
                    }
                }
            }
        }
    }
    Ok(None)
}

#[allow(clippy::too_many_arguments)]
fn report_of(
    opts: &SendOptions,
    sender: &Sender,
    start: Time,
    end: Time,
    data_sent: u64,
    probes_sent: u64,
    per_path: &[u64],
    opened: &Opened,
    rx: RxReport,
    verified: bool,
    total_pkts: u32,
) -> SendReport {
    let acked = sender.acked_packets().min(total_pkts);
    let acked_bytes = (acked as u64 * opts.mtu_bytes as u64).min(opts.size_bytes);
    let fct = end.saturating_sub(start);
    let st = sender.recovery_stats();
    SendReport {
        transport: opts.transport.kind.name().to_string(),
        cc: String::new(),
        recovery: String::new(),
        size_bytes: opts.size_bytes,
        complete: acked == total_pkts,
        acked_bytes,
        fct,
        goodput_bps: if fct > Time::ZERO { acked_bytes as f64 * 8.0 / fct.secs_f64() } else { 0.0 },
        data_packets_sent: data_sent,
        probes_sent,
        packets_per_path: per_path.to_vec(),
        path_rtts: opened.path_rtts.clone(),
        base_rtt: Time::ZERO,
        retransmissions: st.retransmissions,
        timeouts: st.timeouts,
        receiver: rx,
        verified,
        lateness: Lateness::default(),
        notes: Vec::new(),
    }
}

/// Loss-recovery timers still at their datacenter defaults (`RecoveryConfig::new`: RTO 1 ms
/// initial, 200 µs minimum; IRN's 100 / 320 µs) fire spuriously on a path whose round trip is
/// milliseconds: raise each default below a multiple of the measured largest RTT to that
/// multiple (initial RTO 3×, minimum RTO 1.5×, IRN's low / high 1.5× / 4×). RACK's and TLP's
/// windows already scale with the measured RTT. A value the user set differs from the default
/// and is kept. Returns the configuration and one note per change.
fn timers_for_rtt(tc: &TransportConfig, max_rtt: Time) -> (TransportConfig, Vec<String>) {
    let mut tc = tc.clone();
    let d = braid_proto::recovery::RecoveryConfig::new(tc.recovery.kind);
    let mut notes = Vec::new();
    let r = &mut tc.recovery;
    let mut raise = |name: &str, v: &mut Time, default: Time, k: f64| {
        let want = max_rtt.mul_f64(k);
        if *v == default && want > *v {
            notes.push(format!(
                "recovery_params.{name}: {:.0} µs → {:.0} µs ({k}× the measured largest RTT {:.0} µs)",
                v.us_f64(),
                want.us_f64(),
                max_rtt.us_f64()
            ));
            *v = want;
        }
    };
    raise("rto_initial", &mut r.rto_initial, d.rto_initial, 3.0);
    raise("rto_min", &mut r.rto_min, d.rto_min, 1.5);
    raise("irn_rto_low", &mut r.irn_rto_low, d.irn_rto_low, 1.5);
    raise("irn_rto_high", &mut r.irn_rto_high, d.irn_rto_high, 4.0);
    if r.rto_max < r.rto_initial.mul_f64(4.0) {
        r.rto_max = r.rto_initial.mul_f64(4.0);
    }
    (tc, notes)
}
