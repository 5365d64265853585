//! The real clock and the socket helpers every driver shares: a monotonic clock in Braid's
//! [`Time`], non-blocking UDP sockets, and one wait on several sockets with a nanosecond
//! deadline (`ppoll`, with the process's timer slack cut to 1 µs so that pacing and timers wake
//! near their deadline rather than 50 µs late).

use std::io::{self, IoSlice, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsFd, AsRawFd};
use std::time::{Duration, Instant};

use braid_core::Time;
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags};
use nix::sys::socket::{recvmmsg, sendmmsg, MsgFlags, MultiHeaders, SockaddrStorage};
use nix::sys::time::TimeSpec;

use crate::wire::MAX_DATAGRAM;

/// A monotonic clock. Its readings start at one second so that no reading is zero (senders
/// read a zero timestamp as "none").
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: Instant,
}

/// The reading of a clock at its epoch.
const CLOCK_ORIGIN_NS: u64 = 1_000_000_000;

impl Clock {
    /// A clock starting now.
    pub fn start() -> Clock {
        set_fine_timer_slack();
        Clock { epoch: Instant::now() }
    }
    /// Nanoseconds since the epoch, plus one second.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64 + CLOCK_ORIGIN_NS
    }
    /// The reading as a [`Time`].
    #[inline]
    pub fn now(&self) -> Time {
        Time::from_ns(self.now_ns())
    }
}

/// Ask the kernel to wake this thread within 1 µs of a timer's deadline (Linux timer slack;
/// the default 50 µs would blur pacing). Failure only costs precision.
fn set_fine_timer_slack() {
    let _ = nix::sys::prctl::set_timerslack(1_000);
}

/// Socket buffer size asked for in each direction: a few milliseconds of packets at the rates
/// Braid drives, so that a late wake-up of a reader does not drop datagrams.
pub const SOCKET_BUFFER_BYTES: usize = 4 << 20;

/// A non-blocking UDP socket bound to `addr`, with [`SOCKET_BUFFER_BYTES`] of buffer each way
/// (forced past `net.core.rmem_max` when the process may; else as large as the kernel allows).
pub fn bind(addr: SocketAddr) -> io::Result<UdpSocket> {
    use nix::sys::socket::{setsockopt, sockopt};
    let s = UdpSocket::bind(addr)?;
    s.set_nonblocking(true)?;
    if setsockopt(&s, sockopt::RcvBufForce, &SOCKET_BUFFER_BYTES).is_err() {
        let _ = setsockopt(&s, sockopt::RcvBuf, &SOCKET_BUFFER_BYTES);
    }
    if setsockopt(&s, sockopt::SndBufForce, &SOCKET_BUFFER_BYTES).is_err() {
        let _ = setsockopt(&s, sockopt::SndBuf, &SOCKET_BUFFER_BYTES);
    }
    Ok(s)
}

/// Set the DSCP of what `sock` sends next (IPv4 TOS or IPv6 traffic class, ECN bits zero).
pub fn set_dscp(sock: &UdpSocket, v6: bool, dscp: u8) -> io::Result<()> {
    use nix::sys::socket::{setsockopt, sockopt};
    let tos = (dscp as i32) << 2;
    let r = if v6 {
        setsockopt(sock, sockopt::Ipv6TClass, &tos)
    } else {
        setsockopt(sock, sockopt::IpTos, &tos)
    };
    r.map_err(io::Error::from)
}

/// The unspecified address of `peer`'s family, port 0 (an ephemeral port).
pub fn any_addr_for(peer: &SocketAddr) -> SocketAddr {
    match peer {
        SocketAddr::V4(v) if v.ip().is_loopback() => "127.0.0.1:0".parse().expect("literal"),
        SocketAddr::V4(_) => "0.0.0.0:0".parse().expect("literal"),
        SocketAddr::V6(v) if v.ip().is_loopback() => "[::1]:0".parse().expect("literal"),
        SocketAddr::V6(_) => "[::]:0".parse().expect("literal"),
    }
}

/// Wait until one of `socks` is readable or `timeout` passed (`None`: no limit). Returns
/// whether one is readable.
pub fn wait_readable(socks: &[&UdpSocket], timeout: Option<Duration>) -> io::Result<bool> {
    let mut fds: Vec<PollFd> =
        socks.iter().map(|s| PollFd::new(s.as_fd(), PollFlags::POLLIN)).collect();
    let ts = timeout.map(TimeSpec::from_duration);
    match nix::poll::ppoll(&mut fds, ts, None) {
        Ok(n) => Ok(n > 0),
        Err(nix::errno::Errno::EINTR) => Ok(false),
        Err(e) => Err(io::Error::from(e)),
    }
}

/// Waits shorter than this spin (a socket check and a `sched_yield` per turn) instead of
/// sleeping: a sleeping thread wakes 50–100 µs late on a virtual machine, longer than a packet's
/// serialisation at the rates Braid drives, and a paced sender would lose that time on every
/// packet. Spinning with yields is what a polling datapath (DPDK, Rondo's prototype) does, while
/// still letting other processes on the core run.
pub const SPIN_BELOW: Time = Time::from_us(400);

/// Wait until `deadline` or until one of `socks` is readable: sleep in `ppoll` while the
/// deadline is far (waking [`SPIN_BELOW`]/2 early), spin for the rest. Returns `Some(())` when a
/// socket became readable, `None` when the deadline (or the early wake-up before a spin) came.
pub fn wait_until(socks: &[&UdpSocket], clock: &Clock, deadline: Time) -> io::Result<Option<()>> {
    let now = clock.now();
    if deadline <= now {
        return Ok(None);
    }
    if deadline.saturating_sub(now) > SPIN_BELOW {
        let sleep = deadline.saturating_sub(now) - Time::from_ps(SPIN_BELOW.ps() / 2);
        return Ok(wait_readable(socks, Some(Duration::from_nanos(sleep.ns())))?.then_some(()));
    }
    loop {
        if wait_readable(socks, Some(Duration::ZERO))? {
            return Ok(Some(()));
        }
        if clock.now() >= deadline {
            return Ok(None);
        }
        std::thread::yield_now();
    }
}

/// Wait until `sock` can take a datagram again (after `WouldBlock`), at most `timeout`.
pub fn wait_writable(sock: &UdpSocket, timeout: Duration) -> io::Result<()> {
    let mut fds = [PollFd::new(sock.as_fd(), PollFlags::POLLOUT)];
    match nix::poll::ppoll(&mut fds, Some(TimeSpec::from_duration(timeout)), None) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(io::Error::from(e)),
    }
}

/// Send `buf` on the connected `sock`, waiting while the socket buffer is full.
pub fn send_all(sock: &UdpSocket, buf: &[u8]) -> io::Result<()> {
    loop {
        match sock.send(buf) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_writable(sock, Duration::from_millis(5))?
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The time from `now` to `deadline` as a [`Duration`] (zero if passed).
pub fn until(now: Time, deadline: Time) -> Duration {
    Duration::from_nanos(deadline.saturating_sub(now).ns())
}

/// Datagrams moved per `recvmmsg` / `sendmmsg` call.
pub const BATCH: usize = 32;

fn std_addr(a: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = a.as_sockaddr_in() {
        return Some(SocketAddr::V4((*v4).into()));
    }
    a.as_sockaddr_in6().map(|v6| SocketAddr::V6((*v6).into()))
}

/// Up to [`BATCH`] datagrams read with one `recvmmsg` (buffers allocated once).
pub struct RecvBatch {
    bufs: Vec<Vec<u8>>,
    lens: [usize; BATCH],
    from: [Option<SocketAddr>; BATCH],
    headers: MultiHeaders<SockaddrStorage>,
    n: usize,
}

impl Default for RecvBatch {
    fn default() -> Self {
        RecvBatch::new()
    }
}

impl RecvBatch {
    /// Buffers for [`BATCH`] datagrams of up to [`MAX_DATAGRAM`] bytes.
    pub fn new() -> RecvBatch {
        RecvBatch {
            bufs: (0..BATCH).map(|_| vec![0u8; MAX_DATAGRAM + 64]).collect(),
            lens: [0; BATCH],
            from: [None; BATCH],
            headers: MultiHeaders::preallocate(BATCH, None),
            n: 0,
        }
    }

    /// Read the datagrams waiting on `sock` (without blocking): how many were read (0 when none
    /// waits). A connected socket whose peer's port is closed reports `ConnectionRefused`.
    pub fn recv(&mut self, sock: &UdpSocket) -> io::Result<usize> {
        self.n = 0;
        let mut it = self.bufs.iter_mut();
        let mut slices: [[IoSliceMut<'_>; 1]; BATCH] =
            std::array::from_fn(|_| [IoSliceMut::new(it.next().expect("one buffer per slot"))]);
        match recvmmsg(
            sock.as_raw_fd(),
            &mut self.headers,
            slices.iter_mut(),
            MsgFlags::MSG_DONTWAIT,
            None,
        ) {
            Ok(msgs) => {
                for m in msgs {
                    self.lens[self.n] = m.bytes;
                    self.from[self.n] = m.address.as_ref().and_then(std_addr);
                    self.n += 1;
                }
                Ok(self.n)
            }
            Err(Errno::EAGAIN | Errno::EINTR) => Ok(0),
            Err(e) => Err(io::Error::from(e)),
        }
    }

    /// Datagrams read by the last [`RecvBatch::recv`].
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the last read found none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Datagram `i` of the last read and its source.
    pub fn get(&self, i: usize) -> (&[u8], Option<SocketAddr>) {
        (&self.bufs[i][..self.lens[i]], self.from[i])
    }
}

/// Up to [`BATCH`] datagrams to send with one `sendmmsg`, each to its own address.
pub struct SendBatch {
    bufs: Vec<Vec<u8>>,
    lens: [usize; BATCH],
    to: [Option<SockaddrStorage>; BATCH],
    headers: MultiHeaders<SockaddrStorage>,
    n: usize,
}

impl Default for SendBatch {
    fn default() -> Self {
        SendBatch::new()
    }
}

impl SendBatch {
    /// Buffers for [`BATCH`] datagrams.
    pub fn new() -> SendBatch {
        SendBatch {
            bufs: (0..BATCH).map(|_| vec![0u8; MAX_DATAGRAM + 64]).collect(),
            lens: [0; BATCH],
            to: [None; BATCH],
            headers: MultiHeaders::preallocate(BATCH, None),
            n: 0,
        }
    }

    /// Whether no slot is left.
    pub fn is_full(&self) -> bool {
        self.n == BATCH
    }

    /// The next slot to write a datagram into; [`SendBatch::commit`] queues it.
    pub fn slot(&mut self) -> &mut [u8] {
        &mut self.bufs[self.n]
    }

    /// Queue the slot's first `len` bytes for `to`.
    pub fn commit(&mut self, len: usize, to: SocketAddr) {
        self.lens[self.n] = len;
        self.to[self.n] = Some(SockaddrStorage::from(to));
        self.n += 1;
    }

    /// Queue the slot's first `len` bytes for a connected socket's peer.
    pub fn commit_connected(&mut self, len: usize) {
        self.lens[self.n] = len;
        self.to[self.n] = None;
        self.n += 1;
    }

    /// Datagrams queued.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Send everything queued on `sock` (waiting while its buffer is full), then empty the batch.
    pub fn flush(&mut self, sock: &UdpSocket) -> io::Result<()> {
        let mut done = 0;
        while done < self.n {
            let slices: [[IoSlice<'_>; 1]; BATCH] =
                std::array::from_fn(|i| [IoSlice::new(&self.bufs[i][..self.lens[i]])]);
            let r = sendmmsg(
                sock.as_raw_fd(),
                &mut self.headers,
                slices[done..self.n].iter(),
                &self.to[done..self.n],
                [],
                MsgFlags::empty(),
            );
            match r {
                Ok(sent) => done += sent.count().max(1),
                Err(Errno::EAGAIN) => wait_writable(sock, Duration::from_millis(5))?,
                Err(Errno::EINTR) => {}
                // A reply whose sender has gone: drop it, as a lost datagram.
                Err(Errno::ECONNREFUSED) => done += 1,
                Err(e) => {
                    self.n = 0;
                    return Err(io::Error::from(e));
                }
            }
        }
        self.n = 0;
        Ok(())
    }
}
