//! `braid send`, `braid recv` and `braid emulate`: Braid's transports on real UDP packets
//! (`braid_udp`, `docs/udp.md`). This module turns command-line options into the driver's
//! options, prints the progress line and the summary — the fields of a simulated run's flow,
//! each named with its definition — and maps failures to exit codes (2: bad input, unreachable
//! or refusing peer; 3: no progress).

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use braid_core::units::{parse_duration, parse_rate, parse_size};
use braid_core::Time;
use braid_metrics::{Summary, Value};
use braid_udp::emulate::{EmulateOptions, Emulator, PathSpec, PathStats, Select};
use braid_udp::recv::{RecvError, RecvOptions, RecvResult, UdpReceiver};
use braid_udp::send::{Progress, SendError, SendOptions, SendReport};
use toml::Table;

/// The options of `braid send` as typed (they are the command line's: `braid send --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct SendArgs {
    /// The receiver (`braid recv`) or emulator address, host:port.
    pub addr: String,
    /// Transport (`transport.kind`): rondo, roce, uet, mprdma, falcon, eqds, rrps.
    #[arg(long, default_value = "rondo")]
    pub transport: String,
    /// Congestion control (`transport.cc`), for transports that take one.
    #[arg(long)]
    pub cc: Option<String>,
    /// Loss recovery (`transport.recovery`).
    #[arg(long)]
    pub recovery: Option<String>,
    /// A transport knob as in a scenario's [transport] (`--knob scheduler=false`); repeatable.
    #[arg(long = "knob", value_name = "KEY=VALUE")]
    pub knobs: Vec<String>,
    /// Bytes to send.
    #[arg(long, default_value = "100MB")]
    pub size: String,
    /// UDP source ports (one socket each) that logical paths are spread over; also the
    /// equal-cost path count Rondo's `paths = "auto"` reads.
    #[arg(long, default_value_t = 1)]
    pub paths: u16,
    /// The sending NIC's line rate.
    #[arg(long, default_value = "1Gbps")]
    pub rate: String,
    /// Payload bytes per packet.
    #[arg(long, default_value = "1000B")]
    pub mtu: String,
    /// Header bytes each packet counts for on the wire (the simulator's network.header).
    #[arg(long, default_value = "64B")]
    pub header: String,
    /// The receiver's reorder buffer.
    #[arg(long, default_value = "1.2MB")]
    pub reorder_buffer: String,
    /// Seed of the byte stream and the transport's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop after this long, complete or not.
    #[arg(long)]
    pub duration: Option<String>,
    /// No acknowledgement progress for this long ends the transfer (exit 3).
    #[arg(long, default_value = "10s")]
    pub stall_timeout: String,
    /// Build the sender with this base RTT instead of the measured one.
    #[arg(long)]
    pub base_rtt: Option<String>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
    /// Print the sender's per-path state (window, ACK rate, inflight, forward delay, skip)
    /// to stderr this often, e.g. `--trace-paths 10ms`.
    #[arg(long, value_name = "INTERVAL")]
    pub trace_paths: Option<String>,
    /// DSCP that marks capacity probes for the switches' low-priority class (0: unmarked;
    /// default 1, the Lower-Effort PHB of RFC 8622).
    #[arg(long, default_value_t = 1)]
    pub probe_dscp: u8,
}

/// The options of `braid recv` (`braid recv --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct RecvArgs {
    /// Address to listen on.
    #[arg(long, default_value = "0.0.0.0:7000")]
    pub listen: String,
    /// Serve one transfer, then exit (0 when verified).
    #[arg(long)]
    pub once: bool,
    /// With --once: exit 3 when nothing arrives for this long.
    #[arg(long, default_value = "30s")]
    pub idle_timeout: String,
    /// Print each transfer's report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The options of `braid emulate` (`braid emulate --help`).
#[derive(Clone, Debug, clap::Args)]
pub struct EmulateArgs {
    /// Where senders send.
    #[arg(long)]
    pub listen: String,
    /// The receiver.
    #[arg(long)]
    pub forward: String,
    /// A path: `rate=100Mbps,delay=1ms[,queue=256KB][,probe_queue=64KB][,loss=0.01][,jitter=50us][,ecn=64KB]`; repeatable.
    #[arg(long = "path", value_name = "SPEC")]
    pub paths: Vec<String>,
    /// How a sender's source port picks its path: `order` (the i-th new port rides path i),
    /// `hash` (ECMP) or `lcmp` (LCMP's decision core: path cost from delay and rate, queue
    /// congestion, the cheaper half, a hash inside it).
    #[arg(long, default_value = "order")]
    pub select: String,
    /// Bytes a datagram occupies on an emulated link besides itself.
    #[arg(long, default_value = "32B")]
    pub overhead: String,
    /// Seed of loss and jitter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Exit (printing per-path counters as JSON) once no datagram arrived for this long.
    #[arg(long)]
    pub exit_idle: Option<String>,
    /// Spin on short waits instead of sleeping: deliveries on time to a few µs instead of
    /// 50-100 µs late, at the cost of a core.
    #[arg(long)]
    pub spin: bool,
}

/// A resolved address, or an error that names it.
fn resolve(addr: &str, what: &str) -> Result<SocketAddr, String> {
    let mut it = addr
        .to_socket_addrs()
        .map_err(|e| format!("{what} `{addr}` is not a valid host:port address ({e})"))?;
    it.next().ok_or_else(|| format!("{what} `{addr}` resolves to no address"))
}

fn dur(s: &str, what: &str) -> Result<Duration, String> {
    let t = parse_duration(s).map_err(|e| format!("{what}: {e}"))?;
    Ok(Duration::from_nanos(t.ns()))
}

/// Build the sender's options (every error names its option).
pub fn send_options(a: &SendArgs) -> Result<SendOptions, String> {
    let peer = resolve(&a.addr, "address")?;
    let mut t = Table::new();
    t.insert("kind".into(), toml::Value::String(a.transport.clone()));
    if let Some(cc) = &a.cc {
        t.insert("cc".into(), toml::Value::String(cc.clone()));
    }
    if let Some(r) = &a.recovery {
        t.insert("recovery".into(), toml::Value::String(r.clone()));
    }
    for k in &a.knobs {
        crate::fields::apply_set(&mut t, k).map_err(|e| format!("--knob: {e}"))?;
    }
    let header = parse_size(&a.header).map_err(|e| format!("--header: {e}"))?;
    if header > 4096 {
        return Err(format!("--header {header} B is larger than 4096 B"));
    }
    // `paths = "auto"` sizes Rondo's logical paths by the equal-cost path count, here `--paths`.
    let transport = crate::scenario::transport_from_table(&t, header as u32)?;
    let mtu = parse_size(&a.mtu).map_err(|e| format!("--mtu: {e}"))?;
    if mtu == 0 || mtu > (braid_udp::wire::MAX_DATAGRAM - braid_udp::wire::DATA_HEADER_BYTES) as u64
    {
        return Err(format!(
            "--mtu {mtu} B is out of range (1 to {} B)",
            braid_udp::wire::MAX_DATAGRAM - braid_udp::wire::DATA_HEADER_BYTES
        ));
    }
    if a.paths == 0 || a.paths as u32 > braid_proto::transport::MAX_PATHS {
        return Err(format!(
            "--paths {} is out of range (1 to {})",
            a.paths,
            braid_proto::transport::MAX_PATHS
        ));
    }
    Ok(SendOptions {
        peer,
        transport,
        size_bytes: parse_size(&a.size).map_err(|e| format!("--size: {e}"))?,
        mtu_bytes: mtu as u32,
        header_bytes: header as u32,
        paths: a.paths,
        line_rate: parse_rate(&a.rate).map_err(|e| format!("--rate: {e}"))?,
        reorder_buffer_bytes: parse_size(&a.reorder_buffer)
            .map_err(|e| format!("--reorder-buffer: {e}"))?,
        nak_interval: Time::from_us(4),
        seed: a.seed,
        duration: a.duration.as_deref().map(|d| dur(d, "--duration")).transpose()?,
        stall_timeout: dur(&a.stall_timeout, "--stall-timeout")?,
        connect_timeout: Duration::from_secs(3),
        base_rtt: a
            .base_rtt
            .as_deref()
            .map(|d| parse_duration(d).map_err(|e| format!("--base-rtt: {e}")))
            .transpose()?,
        probe_dscp: if a.probe_dscp < 64 {
            a.probe_dscp
        } else {
            return Err(format!("--probe-dscp {} is not a DSCP (0 to 63)", a.probe_dscp));
        },
        trace_paths: a
            .trace_paths
            .as_deref()
            .map(|d| parse_duration(d).map_err(|e| format!("--trace-paths: {e}")))
            .transpose()?,
    })
}

/// The summary of a transfer, in the fields (and names) of a simulated run's flows.
pub fn send_summary(r: &SendReport) -> Summary {
    let mut s = Summary::default();
    s.str("transport", &r.transport);
    s.str("cc", &r.cc);
    s.str("recovery", &r.recovery);
    s.int("size_bytes", r.size_bytes);
    s.set("complete", Value::Bool(r.complete));
    s.set("verified", Value::Bool(r.verified));
    s.int("acked_bytes", r.acked_bytes);
    s.float("fct_us", r.fct.us_f64());
    s.float("goodput_gbps", r.goodput_bps / 1e9);
    s.int("data_packets_sent", r.data_packets_sent);
    s.int("probes_sent", r.probes_sent);
    s.int("retransmissions", r.retransmissions);
    s.int("spurious_retransmissions", r.receiver.duplicates);
    s.int("timeouts", r.timeouts);
    s.int("rx_drops", r.receiver.rx_drops);
    s.int("corrupt", r.receiver.corrupt);
    s.float("nic_ood_mean", r.receiver.ood_mean_milli as f64 / 1000.0);
    s.int("nic_ood_p99", r.receiver.ood_p99);
    s.int("nic_ood_max", r.receiver.ood_max);
    s.float("base_rtt_us", r.base_rtt.us_f64());
    s.set(
        "path_rtt_us",
        Value::List(
            r.path_rtts
                .iter()
                .map(|t| Value::Float(if *t == Time::MAX { f64::NAN } else { t.us_f64() }))
                .collect(),
        ),
    );
    s.set(
        "packets_per_path",
        Value::List(r.packets_per_path.iter().map(|&n| Value::Int(n as i128)).collect()),
    );
    s.float("wake_late_mean_us", r.lateness.sum_ns as f64 / r.lateness.waits.max(1) as f64 / 1e3);
    s.int("wake_late_over_50us", r.lateness.over_50us);
    s.set("notes", Value::List(r.notes.iter().map(|n| Value::Str(n.clone())).collect()));
    s.set(
        "definitions",
        Value::Obj(vec![
            ("fct_us".into(), Value::Str("sender's start (after the hand-shake) to the last cumulative acknowledgement, or to --duration's end".into())),
            ("goodput_gbps".into(), Value::Str("acked_bytes × 8 / fct: application payload, headers excluded".into())),
            ("spurious_retransmissions".into(), Value::Str("data packets the receiver already had (as in a simulated run)".into())),
            ("nic_ood".into(), Value::Str("receiving NIC's out-of-order degree at each data arrival (Rondo §2.2)".into())),
            (
                "wake_late".into(),
                Value::Str("how late the sender's driver woke for its own deadlines (pacing, NIC clock, timers): the real clock's cost".into()),
            ),
            ("verified".into(), Value::Str("the receiver's digest of every accepted packet equals the stream's, each PSN once".into())),
        ]),
    );
    s
}

fn human_send(r: &SendReport) -> String {
    let share: u64 = r.packets_per_path.iter().sum::<u64>().max(1);
    let shares: Vec<String> = r
        .packets_per_path
        .iter()
        .map(|&n| format!("{:.1}%", n as f64 * 100.0 / share as f64))
        .collect();
    format!(
        "{} ({} / {}): {} of {} bytes in {:.3} ms, goodput {:.3} Gb/s (payload over FCT)\n  \
         NIC OOD mean {:.2} p99 {} max {} | retransmissions {} (spurious {}), timeouts {}, receiver drops {}\n  \
         packets per path {} | base RTT {:.1} µs | driver woke {:.1} µs late on average | delivery {}\n",
        r.transport,
        r.cc,
        r.recovery,
        r.acked_bytes,
        r.size_bytes,
        r.fct.us_f64() / 1000.0,
        r.goodput_bps / 1e9,
        r.receiver.ood_mean_milli as f64 / 1000.0,
        r.receiver.ood_p99,
        r.receiver.ood_max,
        r.retransmissions,
        r.receiver.duplicates,
        r.timeouts,
        r.receiver.rx_drops,
        shares.join(" / "),
        r.base_rtt.us_f64(),
        r.lateness.sum_ns as f64 / r.lateness.waits.max(1) as f64 / 1e3,
        if r.verified { "verified (digest matches)" } else { "NOT VERIFIED" }
    )
}

/// `braid send`: returns the process exit code.
pub fn send_main(a: &SendArgs) -> u8 {
    let opts = match send_options(a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let quiet = a.quiet;
    let progress = |p: &Progress| {
        if !quiet {
            eprintln!(
                "  {:6.1} s  {:>12} of {} bytes  {:8.3} Gb/s",
                p.elapsed_s,
                p.acked_bytes,
                p.size_bytes,
                p.rate_bps / 1e9
            );
        }
    };
    match braid_udp::send::send(&opts, progress) {
        Ok(r) => {
            for n in &r.notes {
                eprintln!("note: {n}");
            }
            if a.json {
                print!("{}", send_summary(&r).to_json());
            } else {
                print!("{}", human_send(&r));
            }
            if !r.verified {
                eprintln!("error: the receiver's report does not match the stream: delivery is not verified");
                return 1;
            }
            if !r.complete {
                eprintln!("note: stopped at --duration before every byte was acknowledged; the report covers the acknowledged prefix");
            }
            0
        }
        Err(SendError::Stalled(msg, r)) => {
            if a.json {
                let mut s = send_summary(&r);
                s.str("error", &msg);
                print!("{}", s.to_json());
            }
            eprintln!("error: {msg}");
            3
        }
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code() as u8
        }
    }
}

fn recv_summary(r: &RecvResult) -> Summary {
    let mut s = Summary::default();
    s.str("peer", &r.peer.to_string());
    s.str("transport", &r.transport);
    s.int("size_bytes", r.size_bytes);
    s.set("finished", Value::Bool(r.finished));
    s.set("verified", Value::Bool(r.verified));
    s.int("delivered_bytes", r.report.delivered_bytes);
    s.int("packets", r.report.packets);
    s.int("arrivals", r.report.arrivals);
    s.int("spurious_retransmissions", r.report.duplicates);
    s.int("rx_drops", r.report.rx_drops);
    s.int("corrupt", r.report.corrupt);
    s.float("nic_ood_mean", r.report.ood_mean_milli as f64 / 1000.0);
    s.int("nic_ood_p99", r.report.ood_p99);
    s.int("nic_ood_max", r.report.ood_max);
    s
}

/// `braid recv`: returns the process exit code.
pub fn recv_main(a: &RecvArgs) -> u8 {
    let bound = (|| -> Result<UdpReceiver, String> {
        let listen = resolve(&a.listen, "--listen")?;
        let idle_timeout = dur(&a.idle_timeout, "--idle-timeout")?;
        UdpReceiver::bind(RecvOptions { listen, once: a.once, idle_timeout })
            .map_err(|e| e.to_string())
    })();
    let rx = match bound {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    eprintln!(
        "braid recv: listening on {}",
        rx.local_addr().map(|a| a.to_string()).unwrap_or_default()
    );
    match rx.serve(|line| eprintln!("{line}")) {
        Ok(results) => {
            let mut code = 0;
            for r in &results {
                if a.json {
                    print!("{}", recv_summary(r).to_json());
                }
                if !r.verified {
                    code = 1;
                }
            }
            code
        }
        Err(RecvError::Idle(Some(r))) => {
            if a.json {
                print!("{}", recv_summary(&r).to_json());
            }
            eprintln!("error: {}", RecvError::Idle(Some(r)));
            3
        }
        Err(e @ RecvError::Idle(None)) => {
            eprintln!("error: {e} within --idle-timeout {}", a.idle_timeout);
            3
        }
        Err(e @ RecvError::Bind(..)) => {
            eprintln!("error: {e}");
            2
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn path_stats_json(stats: &[PathStats]) -> String {
    let mut s = Summary::default();
    let list = stats
        .iter()
        .map(|p| {
            Value::Obj(vec![
                ("forwarded".into(), Value::Int(p.forwarded as i128)),
                ("bytes".into(), Value::Int(p.bytes as i128)),
                ("probes".into(), Value::Int(p.probes as i128)),
                ("dropped_queue".into(), Value::Int(p.dropped_queue as i128)),
                ("dropped_probe".into(), Value::Int(p.dropped_probe as i128)),
                ("lost".into(), Value::Int(p.lost as i128)),
                ("marked".into(), Value::Int(p.marked as i128)),
                ("max_queue_bytes".into(), Value::Int(p.max_queue_bytes as i128)),
                ("replies".into(), Value::Int(p.replies as i128)),
            ])
        })
        .collect();
    s.set("paths", Value::List(list));
    s.to_json()
}

/// `braid emulate`: returns the process exit code.
pub fn emulate_main(a: &EmulateArgs) -> u8 {
    let bound = (|| -> Result<Emulator, String> {
        let paths = a.paths.iter().map(|p| PathSpec::parse(p)).collect::<Result<Vec<_>, _>>()?;
        if paths.is_empty() {
            return Err("at least one --path is needed (e.g. --path rate=100Mbps,delay=1ms)".into());
        }
        let select = match a.select.as_str() {
            "order" => Select::Order,
            "hash" | "ecmp" => Select::Hash,
            "lcmp" => Select::Lcmp,
            other => return Err(format!("--select `{other}`: expected `order`, `hash` or `lcmp`")),
        };
        Emulator::bind(EmulateOptions {
            listen: resolve(&a.listen, "--listen")?,
            forward: resolve(&a.forward, "--forward")?,
            paths,
            select,
            overhead_bytes: parse_size(&a.overhead).map_err(|e| format!("--overhead: {e}"))? as u32,
            seed: a.seed,
            exit_idle: a.exit_idle.as_deref().map(|d| dur(d, "--exit-idle")).transpose()?,
            spin: a.spin,
        })
    })();
    let em = match bound {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    eprintln!(
        "braid emulate: listening on {}",
        em.local_addr().map(|a| a.to_string()).unwrap_or_default()
    );
    match em.run(|l| eprintln!("{l}")) {
        Ok(stats) => {
            print!("{}", path_stats_json(&stats));
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
