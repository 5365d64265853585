//! Adding a transport from outside Braid's crates, in this one file: a fixed-window, single-path
//! sender written against `braid_proto::transport::{Transport, SenderOps}`, registered with
//! `register_transport`, and run end to end through the scenario parser and the simulator like
//! any of Braid's own (`docs/architecture.md`, "Add a transport").
//!
//! Held to what a window-limited sender must do (Little's law): with a window of `W` packets on a
//! path of round-trip time `RTT`, it moves `W` packets per round trip, so a flow of `N` packets
//! takes `N / W` round trips — twice as long with half the window — until the window exceeds the
//! bandwidth-delay product, where the flow runs at line rate (its ideal FCT).

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::Time;
use braid_net::sim::RunEnd;
use braid_proto::cc::CcKind;
use braid_proto::recovery::{RecoveryConfig, RecoveryKind};
use braid_proto::testing::{flow_env, Pair, PairEnd, PathModel};
use braid_proto::transport::knobs::Knobs;
use braid_proto::transport::{
    register_transport, AckIn, FlowEnv, SenderCore, SenderOps, Transport, TransportConfig,
    TransportKind, TxPacket,
};

/// The toy transport's configuration.
#[derive(Clone, Debug)]
struct FixedWindowConfig {
    window_packets: u32,
    /// Ask the driver for the network's longest path RTT (`FlowEnv::longest_path_rtt`).
    longest_path_rtt: bool,
    recovery: RecoveryConfig,
}

/// At most `window_packets` packets outstanding, all on the flow's one UDP source port; no
/// congestion control, no pacing beyond the NIC's serialisation.
#[derive(Clone, Debug)]
struct FixedWindow {
    core: SenderCore,
    window_packets: u32,
    entropy: u16,
    start: Time,
    line_bps: u64,
}

impl FixedWindow {
    fn may_send(&self) -> bool {
        self.core.rec.has_data()
            && (self.core.rec.has_retx() || self.core.rec.outstanding() < self.window_packets)
    }
}

impl Transport for FixedWindow {
    const NAME: &'static str = "fixed-window";

    const KNOBS: &'static [&'static str] = &["window_packets", "paths", "longest_path_rtt"];

    const MULTIPATH: bool = false;

    type Config = FixedWindowConfig;

    fn default_cc() -> CcKind {
        CcKind::Fixed
    }

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::SelectiveRepeat
    }

    fn cc_name(_configured: CcKind) -> &'static str {
        "fixed-window"
    }

    fn read_config(tc: &TransportConfig) -> Result<FixedWindowConfig, String> {
        let k = Knobs::new(Self::NAME, &tc.params, Self::KNOBS)?;
        Ok(FixedWindowConfig {
            window_packets: k.u32_in("window_packets", 8, 1, 1 << 20)?,
            longest_path_rtt: k.bool("longest_path_rtt", false)?,
            recovery: tc.recovery,
        })
    }

    fn uses_longest_path_rtt(cfg: &FixedWindowConfig) -> bool {
        cfg.longest_path_rtt
    }

    fn new(cfg: &FixedWindowConfig, env: &FlowEnv) -> Result<FixedWindow, String> {
        // The driver works out the longest path RTT for the transports that ask, and only for
        // them (the reference environment of `TransportConfig::validate` has none).
        if cfg.longest_path_rtt != (env.longest_path_rtt > Time::ZERO) && env.size_bytes != 1 << 20
        {
            return Err(format!(
                "asked for the longest path RTT: {}, given {:?}",
                cfg.longest_path_rtt, env.longest_path_rtt
            ));
        }
        Ok(FixedWindow {
            core: SenderCore::for_env(env, cfg.recovery)?,
            window_packets: cfg.window_packets,
            entropy: env.entropy,
            start: env.start,
            line_bps: env.cc.line_rate.bps(),
        })
    }
}

impl SenderOps for FixedWindow {
    fn core(&self) -> &SenderCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut SenderCore {
        &mut self.core
    }

    fn begin(&mut self, now: Time) {
        self.start = now;
    }

    fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
        if now < self.start || !self.may_send() {
            return None;
        }
        let (psn, retx) = self.core.rec.next_psn()?;
        Some(self.core.send_data(now, psn, retx, 0, self.entropy))
    }

    fn next_send_time(&self, now: Time) -> Time {
        if self.may_send() {
            now.max(self.start)
        } else {
            Time::MAX
        }
    }

    fn on_ack(&mut self, now: Time, ack: &AckIn) {
        self.core.rec.on_ack(now, ack);
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.core.rec.poll_timeout()
    }

    fn on_timeout(&mut self, now: Time) {
        if self.core.rec.poll_timeout().is_some_and(|t| t <= now) {
            self.core.rec.on_timeout(now);
        }
    }

    fn rate_bps(&self) -> u64 {
        self.line_bps
    }

    fn window_bytes(&self) -> u64 {
        self.window_packets as u64 * self.core.msg.mtu_bytes as u64
    }
}

/// One 1 MB flow between two hosts under one leaf: 5 µs per link, so a 20 µs base RTT.
const SCENARIO: &str = r#"
name = "toy-transport"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 2
host_rate = "100Gbps"
delay = "5us"
[network]
mtu = "1000B"
[transport]
kind = "fixed-window"
[routing]
kind = "ecmp"
[workload]
kind = "incast"
senders = [0]
receiver = 1
size = "1000000B"
"#;

/// Run the scenario with `window_packets = w`: (FCT, ideal FCT).
fn fct_with_window(w: u32) -> (Time, Time) {
    register_transport::<FixedWindow>().unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let sc = parse(SCENARIO, &base, &[format!("transport.window_packets={w}")], None).unwrap();
    let r = run(&sc, false).unwrap();
    assert_eq!(r.end, RunEnd::AllFlowsComplete);
    r.sim.conservation().unwrap();
    let f = &r.sim.flows()[0];
    assert_eq!(f.delivered_bytes, f.size_bytes, "every byte delivered once");
    assert_eq!(r.sim.stats().app_bytes_delivered, f.size_bytes);
    (f.finish.unwrap() - f.start, f.ideal_fct)
}

#[test]
fn a_registered_transport_runs_end_to_end_at_window_over_rtt() {
    let rtt = Time::from_us(20);
    let packets = 1000.0;
    let (fct8, _) = fct_with_window(8);
    let (fct16, _) = fct_with_window(16);
    // N / W round trips (plus each packet's serialisation, < 2 % of a round trip here).
    for (w, fct) in [(8.0, fct8), (16.0, fct16)] {
        let expected = packets / w * rtt.ps() as f64;
        let ratio = fct.ps() as f64 / expected;
        eprintln!("window {w}: FCT {:.1} µs = {ratio:.4} × N/W round trips", fct.ps() as f64 / 1e6);
        assert!(
            (1.0..1.05).contains(&ratio),
            "window {w}: FCT {fct:?} is {ratio:.3} × N/W round trips"
        );
    }
    let halving = fct8.ps() as f64 / fct16.ps() as f64;
    assert!((1.95..2.05).contains(&halving), "doubling the window halves the FCT: {halving:.3}");
    // A window far above the BDP (~250 packets): the flow runs at line rate.
    let (fct, ideal) = fct_with_window(2000);
    let slowdown = fct.ps() as f64 / ideal.ps() as f64;
    eprintln!(
        "window 2000: FCT {:.1} µs = {slowdown:.4} × the ideal FCT (line rate on the best path)",
        fct.ps() as f64 / 1e6
    );
    assert!((1.0..1.02).contains(&slowdown), "FCT {fct:?} vs ideal {ideal:?}: {slowdown:.3}");
}

#[test]
fn a_registered_transport_gets_the_longest_path_rtt_when_it_asks() {
    register_transport::<FixedWindow>().unwrap();
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for ask in [false, true] {
        let set = [format!("transport.longest_path_rtt={ask}")];
        let sc = parse(SCENARIO, &base, &set, None).unwrap();
        // The sender refuses to be built when the environment disagrees with what it asked.
        let r = run(&sc, false).unwrap_or_else(|e| panic!("asked {ask}: {e}"));
        assert_eq!(r.end, RunEnd::AllFlowsComplete);
    }
}

#[test]
fn a_registered_transport_is_named_like_the_others() {
    register_transport::<FixedWindow>().unwrap();
    let k = TransportKind::parse("fixed-window").unwrap();
    assert_eq!(k.name(), "fixed-window");
    assert_eq!(k.knobs(), FixedWindow::KNOBS);
    assert_eq!(k.default_recovery(), RecoveryKind::SelectiveRepeat);
    assert!(TransportKind::names().contains(&"fixed-window"));
    let e = TransportKind::parse("no-such").unwrap_err();
    assert!(e.contains("fixed-window") && e.contains("rondo"), "{e}");
    // Its knobs are checked like any transport's: an unknown one is named, with the known ones.
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let e = parse(SCENARIO, &base, &["transport.wnd=4".to_string()], None).unwrap_err();
    assert!(e.contains("transport.wnd") && e.contains("window_packets"), "{e}");
    // Braid's own names cannot be taken.
    #[derive(Clone, Debug)]
    struct Impostor(FixedWindow);
    impl Transport for Impostor {
        const NAME: &'static str = "rondo";
        const KNOBS: &'static [&'static str] = &[];
        type Config = FixedWindowConfig;
        fn read_config(tc: &TransportConfig) -> Result<FixedWindowConfig, String> {
            FixedWindow::read_config(tc)
        }
        fn new(cfg: &FixedWindowConfig, env: &FlowEnv) -> Result<Impostor, String> {
            FixedWindow::new(cfg, env).map(Impostor)
        }
    }
    impl SenderOps for Impostor {
        fn core(&self) -> &SenderCore {
            &self.0.core
        }
        fn core_mut(&mut self) -> &mut SenderCore {
            &mut self.0.core
        }
        fn poll_transmit(&mut self, now: Time) -> Option<TxPacket> {
            self.0.poll_transmit(now)
        }
        fn next_send_time(&self, now: Time) -> Time {
            self.0.next_send_time(now)
        }
        fn on_ack(&mut self, now: Time, ack: &AckIn) {
            self.0.on_ack(now, ack)
        }
        fn poll_timeout(&self) -> Option<Time> {
            self.0.poll_timeout()
        }
        fn on_timeout(&mut self, now: Time) {
            self.0.on_timeout(now)
        }
        fn rate_bps(&self) -> u64 {
            self.0.rate_bps()
        }
    }
    assert!(register_transport::<Impostor>().unwrap_err().contains("rondo"));
}

/// The same transport on `braid_proto::testing::Pair`, without the simulator: one 100 Gb/s path
/// of 10 µs each way, so a window of `W` packets moves `W` per 20 µs round trip — the flow of
/// 1,000 packets takes `1000 / W` round trips.
#[test]
fn on_an_in_memory_pair_a_window_moves_one_window_per_round_trip() {
    register_transport::<FixedWindow>().unwrap();
    let rtt = Time::from_us(20);
    let line = braid_core::Rate::from_gbps(100);
    let env = flow_env(1_000_000, line, rtt, 1000);
    for w in [8u32, 16] {
        let tc = TransportConfig {
            header_bytes: 64,
            params: vec![("window_packets".into(), braid_core::Knob::Int(w as i64))],
            ..TransportConfig::new(TransportKind::parse("fixed-window").unwrap())
        };
        let path = PathModel::new(line, Time::from_us(10));
        let mut pair = Pair::for_config(&tc, &env, vec![path]).unwrap();
        let PairEnd::Complete(fct) = pair.run_until(Time::from_ms(100)) else {
            panic!("window {w}: not complete")
        };
        let expected = 1000.0 / w as f64 * rtt.ps() as f64;
        let ratio = fct.ps() as f64 / expected;
        eprintln!(
            "pair, window {w}: FCT {:.1} µs = {ratio:.4} × N/W round trips",
            fct.ps() as f64 / 1e6
        );
        assert!((1.0..1.05).contains(&ratio), "window {w}: {ratio:.3} × N/W round trips");
        assert_eq!(pair.stats.delivered, 1000);
    }
}
