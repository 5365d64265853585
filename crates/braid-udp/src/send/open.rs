//! Opening a transfer: the paths (one UDP socket per logical path), the handshake with the
//! receiver (its refusals named), and how late the sender runs against its schedule.

use super::*;

/// The sockets of a transfer, one per path, connected to the peer.
pub(super) struct Paths {
    pub(super) socks: Vec<UdpSocket>,
}

impl Paths {
    pub(super) fn open(peer: SocketAddr, n: u16) -> Result<Paths, SendError> {
        let mut socks = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let s = bind(any_addr_for(&peer))?;
            s.connect(peer)?;
            socks.push(s);
        }
        Ok(Paths { socks })
    }
    pub(super) fn refs(&self) -> Vec<&UdpSocket> {
        self.socks.iter().collect()
    }
}

pub(super) fn refused_connection(peer: SocketAddr) -> SendError {
    SendError::Unreachable(format!("nothing listens on {peer} (connection refused)"))
}

/// Read one datagram from `sock` if there is one: `Ok(None)` when none is waiting.
pub(super) fn recv_one(
    sock: &UdpSocket,
    buf: &mut [u8],
    peer: SocketAddr,
) -> Result<Option<usize>, SendError> {
    match sock.recv(buf) {
        Ok(n) => Ok(Some(n)),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
            Ok(None)
        }
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => Err(refused_connection(peer)),
        Err(e) => Err(e.into()),
    }
}

/// Map a REFUSE or a datagram of another version to the error it means.
pub(super) fn refusal(b: &[u8], peer: SocketAddr) -> Option<SendError> {
    if let Some((reason, version, text)) = wire::refuse(b) {
        return Some(match reason {
            1 => SendError::Refused(format!(
                "{peer} speaks Braid packet format version {version}; this sender speaks {}",
                wire::VERSION
            )),
            3 => SendError::Refused(format!("{peer} is busy: {text}")),
            _ => SendError::Refused(format!("{peer} refused the transfer: {text}")),
        });
    }
    if let Err(WireError::Version(v)) = wire::common(b) {
        return Some(SendError::Refused(format!(
            "{peer} speaks Braid packet format version {v}; this sender speaks {}",
            wire::VERSION
        )));
    }
    None
}

/// How late the driver woke for its own deadlines (pacing, the NIC clock, timers): the real
/// clock's cost to a paced sender, which the simulator does not have.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lateness {
    /// Waits that ended at their deadline.
    pub waits: u64,
    /// Sum of their lateness, ns.
    pub sum_ns: u64,
    /// Those more than 50 µs late.
    pub over_50us: u64,
}

/// The hand-shake's findings.
pub(super) struct Opened {
    pub(super) session: u32,
    /// Receiver clock − sender clock, ns.
    pub(super) offset_ns: i64,
    pub(super) path_rtts: Vec<Time>,
}

pub(super) fn open_session(
    paths: &Paths,
    opts: &SendOptions,
    clock: &Clock,
    hello: &mut Hello,
    session: u32,
) -> Result<Opened, SendError> {
    let peer = opts.peer;
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 64];
    let mut out = [0u8; 256];
    let start = clock.now();
    let deadline = start + Time::from_ns(opts.connect_timeout.as_nanos() as u64);
    let mut best_rtt = Time::MAX;
    let mut offset_ns = 0i64;
    let mut answered = false;
    let mut next_hello = start;
    let s0 = &paths.socks[0];
    // HELLO until answered (resent every 100 ms), then two more for a better clock offset.
    let mut samples = 0;
    while samples < 3 {
        let now = clock.now();
        if now >= deadline {
            return Err(SendError::Unreachable(format!(
                "no answer from {peer} within {:?}",
                opts.connect_timeout
            )));
        }
        if now >= next_hello {
            hello.ts_ns = now.ns();
            let n = wire::put_hello(&mut out, session, hello);
            send_all(s0, &out[..n]).map_err(|e| {
                if e.kind() == io::ErrorKind::ConnectionRefused {
                    refused_connection(peer)
                } else {
                    e.into()
                }
            })?;
            next_hello = now + Time::from_ms(if answered { 1 } else { 100 });
        }
        wait_readable(&[s0], Some(until(now, next_hello.min(deadline))))?;
        while let Some(n) = recv_one(s0, &mut buf, peer)? {
            let b = &buf[..n];
            if let Some(e) = refusal(b, peer) {
                return Err(e);
            }
            let Ok(c) = wire::common(b) else { continue };
            if c.kind != Kind::HelloOk || c.session != session {
                continue;
            }
            let Ok((echo, rx_ns)) = wire::hello_ok(b) else { continue };
            let t1 = clock.now().ns();
            let rtt = Time::from_ns(t1.saturating_sub(echo));
            if rtt < best_rtt {
                best_rtt = rtt;
                offset_ns = rx_ns as i64 - ((echo + t1) / 2) as i64;
            }
            answered = true;
            samples += 1;
            next_hello = clock.now();
        }
    }
    // Each path's round trip: three PATH pings per socket.
    let n = paths.socks.len();
    let mut rtts = vec![Time::MAX; n];
    let mut got = vec![0u32; n];
    let path_deadline = clock.now()
        + Time::from_ms(2_000).max(Time::from_ns(opts.connect_timeout.as_nanos() as u64));
    let mut next_round = clock.now();
    let refs = paths.refs();
    while got.iter().any(|&g| g < 3) {
        let now = clock.now();
        if now >= path_deadline {
            let p = got.iter().position(|&g| g == 0).unwrap_or(0);
            return Err(SendError::Unreachable(format!(
                "path {p} (UDP source port {}) to {peer} got no answer",
                paths.socks[p].local_addr().map(|a| a.port()).unwrap_or(0)
            )));
        }
        if now >= next_round {
            // In path order: an emulator numbering new source ports as they appear gives
            // logical path p its path p.
            for (p, s) in paths.socks.iter().enumerate() {
                if got[p] < 3 {
                    let k = wire::put_path(&mut out, false, session, p as u16, clock.now().ns());
                    send_all(s, &out[..k]).map_err(|e| {
                        if e.kind() == io::ErrorKind::ConnectionRefused {
                            refused_connection(peer)
                        } else {
                            e.into()
                        }
                    })?;
                }
            }
            next_round = now + Time::from_ms(20);
        }
        wait_readable(&refs, Some(until(now, next_round)))?;
        for s in &paths.socks {
            while let Some(k) = recv_one(s, &mut buf, peer)? {
                let b = &buf[..k];
                let Ok(c) = wire::common(b) else { continue };
                if c.kind != Kind::PathOk || c.session != session {
                    continue;
                }
                if let Ok((p, ts)) = wire::path(b) {
                    let p = p as usize;
                    if p < n {
                        rtts[p] = rtts[p].min(Time::from_ns(clock.now().ns().saturating_sub(ts)));
                        got[p] += 1;
                    }
                }
            }
        }
    }
    Ok(Opened { session, offset_ns, path_rtts: rtts })
}
