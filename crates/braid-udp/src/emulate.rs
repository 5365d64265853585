//! A multipath network on one machine (`braid emulate`): it forwards UDP from senders to one
//! receiver over N emulated paths and the receiver's replies back over the same path — the
//! testbed switch of Rondo §6.1 in software. Each path is a link of its own rate with a drop-tail
//! queue, a one-way propagation delay (both directions), optional random loss, per-packet jitter
//! (which reorders within the path) and an ECN threshold; Rondo's probes (datagram kind PROBE) go
//! to a strict-priority low class with its own small drop threshold, as the paper's switch
//! configures them (§4.2.2). Replies are delayed but not rate-limited.
//!
//! Paths are chosen per sender source port: `order` gives the i-th new source port path
//! `i mod N` (the sender announces its ports in logical-path order, so logical path p rides path
//! p), `hash` hashes the port (ECMP). The emulator keeps one upstream socket per sender port, so
//! the receiver's replies find their way back (a NAT in effect).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use braid_core::units::{parse_duration, parse_rate, parse_size};
use braid_core::{Rate, Rng, Time};
use braid_proto::routing::lcmp::{Candidate, LcmpRouter};
use braid_proto::routing::LcmpParams;

use crate::io::{any_addr_for, bind, wait_readable, wait_until, Clock, RecvBatch, BATCH};
use crate::wire::{self, Kind};
use braid_core::rng::mix64;

/// One emulated path.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// Link rate (forward direction).
    pub rate: Rate,
    /// One-way propagation delay, each direction.
    pub delay: Time,
    /// Drop-tail limit of the data class, bytes waiting.
    pub queue_bytes: u64,
    /// Drop threshold of the probe class, bytes waiting.
    pub probe_queue_bytes: u64,
    /// Probability a forward datagram is lost.
    pub loss: f64,
    /// Uniform extra delay in `[0, jitter)` per forward datagram (reorders within the path).
    pub jitter: Time,
    /// Mark data packets CE when this many bytes wait ahead of them.
    pub ecn_bytes: Option<u64>,
}

impl PathSpec {
    /// Parse `rate=100Mbps,delay=1ms[,queue=256KB][,probe_queue=64KB][,loss=0.01][,jitter=50us][,ecn=64KB]`.
    pub fn parse(s: &str) -> Result<PathSpec, String> {
        let mut p = PathSpec {
            rate: Rate::from_bps(0),
            delay: Time::ZERO,
            queue_bytes: 256_000,
            probe_queue_bytes: 64_000,
            loss: 0.0,
            jitter: Time::ZERO,
            ecn_bytes: None,
        };
        let (mut has_rate, mut has_delay) = (false, false);
        for kv in s.split(',').filter(|x| !x.trim().is_empty()) {
            let (k, v) =
                kv.split_once('=').ok_or_else(|| format!("path `{s}`: `{kv}` is not key=value"))?;
            let (k, v) = (k.trim(), v.trim());
            let e = |m: String| format!("path `{s}`: {k}: {m}");
            match k {
                "rate" => {
                    p.rate = parse_rate(v).map_err(e)?;
                    has_rate = true;
                }
                "delay" => {
                    p.delay = parse_duration(v).map_err(e)?;
                    has_delay = true;
                }
                "queue" => p.queue_bytes = parse_size(v).map_err(e)?,
                "probe_queue" => p.probe_queue_bytes = parse_size(v).map_err(e)?,
                "loss" => {
                    p.loss = v.parse::<f64>().map_err(|x| e(x.to_string()))?;
                    if !(0.0..1.0).contains(&p.loss) {
                        return Err(e("must be in [0, 1)".into()));
                    }
                }
                "jitter" => p.jitter = parse_duration(v).map_err(e)?,
                "ecn" => p.ecn_bytes = Some(parse_size(v).map_err(e)?),
                _ => return Err(format!("path `{s}`: unknown key `{k}` (rate, delay, queue, probe_queue, loss, jitter, ecn)")),
            }
        }
        if !has_rate || p.rate.bps() == 0 {
            return Err(format!("path `{s}`: needs a positive `rate=` (e.g. rate=100Mbps)"));
        }
        if !has_delay {
            return Err(format!("path `{s}`: needs `delay=` (the one-way delay, e.g. delay=1ms; delay=0us for none)"));
        }
        Ok(p)
    }
}

/// How a sender's source port picks its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    /// The i-th new source port rides path `i mod N`.
    Order,
    /// ECMP: a hash of the source port.
    Hash,
    /// LCMP's decision core (`braid_proto::routing::lcmp`, the paper's design): at a sender
    /// port's first datagram, each path's cost from its delay and rate (`C_path`) and its queue
    /// (`C_cong`, sampled every `monitor_interval`), the cheaper half kept, the port hashed
    /// inside it; the choice is remembered for the port.
    Lcmp,
}

/// How `braid emulate` runs.
#[derive(Clone, Debug)]
pub struct EmulateOptions {
    /// Where senders send.
    pub listen: SocketAddr,
    /// The receiver.
    pub forward: SocketAddr,
    /// The paths.
    pub paths: Vec<PathSpec>,
    /// Path selection.
    pub select: Select,
    /// Bytes a datagram occupies on an emulated link besides itself (Ethernet, IP, UDP).
    pub overhead_bytes: u32,
    /// Seed of loss and jitter.
    pub seed: u64,
    /// Stop when no datagram arrived for this long after the first.
    pub exit_idle: Option<Duration>,
    /// Spin on waits under [`crate::io::SPIN_BELOW`] instead of sleeping: deliveries on time to
    /// a few µs rather than 50–100 µs late, at the cost of a core (use it when the machine has
    /// one to spare beyond the sender's and the receiver's).
    pub spin: bool,
}

/// What one path did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Datagrams forwarded (data and probes).
    pub forwarded: u64,
    /// Wire bytes forwarded.
    pub bytes: u64,
    /// Probes forwarded.
    pub probes: u64,
    /// Dropped at the full data queue.
    pub dropped_queue: u64,
    /// Probes dropped at the probe class's threshold.
    pub dropped_probe: u64,
    /// Lost at random.
    pub lost: u64,
    /// Marked CE.
    pub marked: u64,
    /// Largest data-queue backlog, bytes.
    pub max_queue_bytes: u64,
    /// Replies carried back.
    pub replies: u64,
}

/// A datagram to deliver: (time, arrival order, buffer, client, forward rather than a reply).
type Due = (Time, u64, usize, u32, bool);

struct Client {
    addr: SocketAddr,
    up: UdpSocket,
    path: usize,
}

#[derive(Default)]
struct Link {
    hi: VecDeque<(usize, u32)>,
    lo: VecDeque<(usize, u32)>,
    hi_bytes: u64,
    lo_bytes: u64,
    /// The datagram on the wire: (finish time, buffer, client).
    busy: Option<(Time, usize, u32)>,
    stats: PathStats,
}

/// A pool of datagram buffers (no allocation per packet once warm).
struct Pool {
    bufs: Vec<Vec<u8>>,
    lens: Vec<usize>,
    free: Vec<usize>,
}

impl Pool {
    fn take(&mut self) -> usize {
        self.free.pop().unwrap_or_else(|| {
            self.bufs.push(vec![0u8; wire::MAX_DATAGRAM + 64]);
            self.lens.push(0);
            self.bufs.len() - 1
        })
    }
    fn give(&mut self, i: usize) {
        self.free.push(i);
    }
}

/// LCMP's router over the emulated paths (local port `i` = path `i`; a path's `C_path` from its
/// one-way delay and rate, the delay saturation the smallest 2^k ms at or above the longest path,
/// the capacity scale the fastest path), and the candidates it decides among.
/// [`RecvBatch::recv`] on `sock`, an interrupted read or a refusal from a closed peer counting as
/// nothing read.
fn recv_tolerant(batch: &mut RecvBatch, sock: &UdpSocket) -> io::Result<usize> {
    match batch.recv(sock) {
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::Interrupted | io::ErrorKind::ConnectionRefused
            ) =>
        {
            Ok(0)
        }
        r => r,
    }
}

fn lcmp_router(paths: &[PathSpec]) -> (LcmpRouter, Vec<Candidate>) {
    let mut p = LcmpParams::paper();
    let fastest = paths.iter().map(|x| x.rate.bps()).max().unwrap_or(1);
    p.max_capacity = Rate::from_bps(fastest);
    let longest_ms =
        paths.iter().map(|x| x.delay.ns().div_ceil(1_000_000)).max().unwrap_or(1).max(1);
    let max_delay = Time::from_ms(longest_ms.next_power_of_two());
    let rates: Vec<u64> = paths.iter().map(|x| x.rate.bps()).collect();
    let buffer: u64 = paths.iter().map(|x| x.queue_bytes).sum();
    let router = LcmpRouter::new(p, &rates, buffer, max_delay);
    let cands = paths
        .iter()
        .enumerate()
        .map(|(i, x)| Candidate {
            port: i as u16,
            link_rate_bps: x.rate.bps(),
            link_delay: x.delay,
            c_path: router.path_score(x.delay, x.rate.bps()),
        })
        .collect();
    (router, cands)
}

/// A bound emulator.
pub struct Emulator {
    front: UdpSocket,
    opts: EmulateOptions,
}

impl Emulator {
    /// Bind the front socket.
    pub fn bind(opts: EmulateOptions) -> Result<Emulator, String> {
        if opts.paths.is_empty() {
            return Err("at least one --path is needed".into());
        }
        let front =
            bind(opts.listen).map_err(|e| format!("cannot listen on {}: {e}", opts.listen))?;
        Ok(Emulator { front, opts })
    }

    /// The address senders send to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.front.local_addr()
    }

    /// Forward until idle (or forever without `exit_idle`); returns each path's counters.
    pub fn run(&self, mut log: impl FnMut(&str)) -> io::Result<Vec<PathStats>> {
        let clock = Clock::start();
        let o = &self.opts;
        let mut rng = Rng::new(o.seed);
        let mut links: Vec<Link> = o.paths.iter().map(|_| Link::default()).collect();
        let mut clients: Vec<Client> = Vec::new();
        let mut by_addr: HashMap<SocketAddr, u32> = HashMap::new();
        let mut pool = Pool { bufs: Vec::new(), lens: Vec::new(), free: Vec::new() };
        let mut due: BinaryHeap<Reverse<Due>> = BinaryHeap::new();
        let mut order = 0u64;
        let mut batch = RecvBatch::new();
        let mut lcmp = (o.select == Select::Lcmp).then(|| lcmp_router(&o.paths));
        let mut next_monitor = Time::ZERO;
        let mut queues = vec![0u64; o.paths.len()];
        let mut last_rx: Option<Time> = None;
        let idle = o.exit_idle.map(|d| Time::from_ns(d.as_nanos() as u64));
        loop {
            let now = clock.now();
            if let (Some(i), Some(t)) = (idle, last_rx) {
                if now.saturating_sub(t) > i
                    && due.is_empty()
                    && links.iter().all(|l| l.busy.is_none())
                {
                    return Ok(links.into_iter().map(|l| l.stats).collect());
                }
            }
            // Datagrams from senders.
            for _ in 0..8 {
                let got = recv_tolerant(&mut batch, &self.front)?;
                for i in 0..got {
                    let (d, src) = batch.get(i);
                    let Some(src) = src else { continue };
                    let n = d.len();
                    let b = pool.take();
                    pool.bufs[b][..n].copy_from_slice(d);
                    {
                        last_rx = Some(now);
                        pool.lens[b] = n;
                        let c = match by_addr.get(&src) {
                            Some(&c) => c,
                            None => {
                                let up = bind(any_addr_for(&o.forward))?;
                                up.connect(o.forward)?;
                                let hash = mix64(src.port() as u64);
                                let path = match &mut lcmp {
                                    None if o.select == Select::Order => {
                                        clients.len() % links.len()
                                    }
                                    None => (hash % links.len() as u64) as usize,
                                    Some((router, cands)) => {
                                        for (q, l) in queues.iter_mut().zip(&links) {
                                            *q = l.hi_bytes;
                                        }
                                        let key = ((hash as u128) << 64) | src.port() as u128;
                                        router
                                            .decide(now, key, hash as u32, cands, &queues, false)
                                            .map_or(0, |p| p as usize)
                                    }
                                };
                                log(&format!("sender port {} → path {path}", src.port()));
                                clients.push(Client { addr: src, up, path });
                                by_addr.insert(src, clients.len() as u32 - 1);
                                clients.len() as u32 - 1
                            }
                        };
                        let p = clients[c as usize].path;
                        let spec = &o.paths[p];
                        let link = &mut links[p];
                        let bytes = (n + o.overhead_bytes as usize) as u64;
                        let is_data = n >= 4 && pool.bufs[b][3] == Kind::Data as u8;
                        let is_probe = n >= 4 && pool.bufs[b][3] == Kind::Probe as u8;
                        if (is_data || is_probe) && spec.loss > 0.0 && rng.f64() < spec.loss {
                            link.stats.lost += 1;
                            pool.give(b);
                        } else if is_probe {
                            if link.lo_bytes + bytes > spec.probe_queue_bytes {
                                link.stats.dropped_probe += 1;
                                pool.give(b);
                            } else {
                                link.lo_bytes += bytes;
                                link.lo.push_back((b, c));
                            }
                        } else if link.hi_bytes + bytes > spec.queue_bytes {
                            link.stats.dropped_queue += 1;
                            pool.give(b);
                        } else {
                            if is_data && spec.ecn_bytes.is_some_and(|k| link.hi_bytes > k) {
                                wire::mark_hop(&mut pool.bufs[b][..n], true);
                                link.stats.marked += 1;
                            }
                            link.hi_bytes += bytes;
                            link.stats.max_queue_bytes =
                                link.stats.max_queue_bytes.max(link.hi_bytes);
                            link.hi.push_back((b, c));
                        }
                    }
                }
                if got < BATCH {
                    break;
                }
            }
            // Replies from the receiver: back over the client's path, after its delay.
            for (ci, cl) in clients.iter().enumerate() {
                for _ in 0..8 {
                    let got = recv_tolerant(&mut batch, &cl.up)?;
                    for i in 0..got {
                        let (d, _) = batch.get(i);
                        let b = pool.take();
                        pool.bufs[b][..d.len()].copy_from_slice(d);
                        pool.lens[b] = d.len();
                        last_rx = Some(now);
                        links[cl.path].stats.replies += 1;
                        order += 1;
                        due.push(Reverse((
                            now + o.paths[cl.path].delay,
                            order,
                            b,
                            ci as u32,
                            false,
                        )));
                    }
                    if got < BATCH {
                        break;
                    }
                }
            }
            // Links: finish transmissions back to back, start the next (probes only when no data waits).
            let now = clock.now();
            if let Some((router, _)) = &mut lcmp {
                if now >= next_monitor {
                    for (q, l) in queues.iter_mut().zip(&links) {
                        *q = l.hi_bytes;
                    }
                    router.monitor(now, &queues);
                    next_monitor = now + router.params().monitor_interval;
                }
            }
            for (p, link) in links.iter_mut().enumerate() {
                let spec = &o.paths[p];
                loop {
                    let free_at = match link.busy {
                        Some((fin, b, c)) if fin <= now => {
                            let jitter = if spec.jitter > Time::ZERO {
                                Time::from_ps(rng.below(spec.jitter.ps()))
                            } else {
                                Time::ZERO
                            };
                            order += 1;
                            due.push(Reverse((fin + spec.delay + jitter, order, b, c, true)));
                            link.busy = None;
                            fin
                        }
                        Some(_) => break,
                        None => now,
                    };
                    let next = if let Some(x) = link.hi.pop_front() {
                        link.hi_bytes -= (pool.lens[x.0] + o.overhead_bytes as usize) as u64;
                        x
                    } else if let Some(x) = link.lo.pop_front() {
                        link.lo_bytes -= (pool.lens[x.0] + o.overhead_bytes as usize) as u64;
                        link.stats.probes += 1;
                        x
                    } else {
                        break;
                    };
                    let bytes = (pool.lens[next.0] + o.overhead_bytes as usize) as u64;
                    link.stats.forwarded += 1;
                    link.stats.bytes += bytes;
                    link.busy = Some((free_at + spec.rate.tx_time(bytes), next.0, next.1));
                }
            }
            // Deliveries due.
            while let Some(&Reverse((t, _, b, c, fwd))) = due.peek() {
                if t > now {
                    break;
                }
                due.pop();
                let cl = &clients[c as usize];
                let data = &pool.bufs[b][..pool.lens[b]];
                let _ = if fwd { cl.up.send(data) } else { self.front.send_to(data, cl.addr) };
                pool.give(b);
            }
            // Sleep until the next finish or delivery, or a datagram.
            let mut wake = due.peek().map_or(Time::MAX, |r| r.0 .0);
            for l in &links {
                if let Some((fin, ..)) = l.busy {
                    wake = wake.min(fin);
                }
            }
            if let (Some(i), Some(t)) = (idle, last_rx) {
                wake = wake.min(t + i + Time::from_ms(1));
            }
            if lcmp.is_some() && !clients.is_empty() {
                wake = wake.min(next_monitor);
            }
            let now = clock.now();
            if wake > now {
                let mut socks: Vec<&UdpSocket> = Vec::with_capacity(clients.len() + 1);
                socks.push(&self.front);
                socks.extend(clients.iter().map(|c| &c.up));
                // Sleep by default: the emulator shares the machine with a spinning sender and a
                // receiver, and a late wake-up only delays a delivery (the links' timelines are
                // exact: a transmission starts when the previous one ended, not when the
                // emulator noticed). `spin` trades a core for on-time deliveries.
                if o.spin && wake != Time::MAX {
                    wait_until(&socks, &clock, wake)?;
                } else {
                    let timeout = if wake == Time::MAX {
                        Duration::from_millis(100)
                    } else {
                        Duration::from_nanos(wake.saturating_sub(now).ns())
                    };
                    wait_readable(&socks, Some(timeout))?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_specs_parse_and_errors_name_the_key() {
        let p = PathSpec::parse("rate=100Mbps,delay=1ms,queue=64KB,loss=0.01,jitter=20us,ecn=32KB")
            .unwrap();
        assert_eq!(p.rate, Rate::from_bps(100_000_000));
        assert_eq!(p.delay, Time::from_ms(1));
        assert_eq!(p.queue_bytes, 64_000);
        assert_eq!(p.ecn_bytes, Some(32_000));
        assert!(PathSpec::parse("delay=1ms").unwrap_err().contains("rate"));
        assert!(PathSpec::parse("rate=50Mbps").unwrap_err().contains("delay="));
        assert!(PathSpec::parse("rate=1Gbps,colour=red").unwrap_err().contains("colour"));
        assert!(PathSpec::parse("rate=1Gbps,loss=2").unwrap_err().contains("loss"));
    }
}
