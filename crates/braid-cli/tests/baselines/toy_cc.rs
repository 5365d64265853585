//! Adding a congestion control from outside Braid's crates, in this one file: AIMD on ECN marks
//! (a window grown by one packet per round trip, halved at most once per window of data when an
//! ACK echoes a mark), written against `braid_proto::cc::{CongestionControl, CcAlgorithm,
//! CcParams}`, registered with `register_cc`, named in `transport.cc` and driving RoCE's sender
//! through the scenario parser and the simulator like any of Braid's own (`docs/architecture.md`,
//! "Add a congestion control").
//!
//! Held to what AIMD must do (Chiu & Jain, 1989): two flows through one bottleneck converge to
//! equal shares, whatever their start, and with a marking threshold at least one
//! bandwidth-delay product the halved window still fills the link, so the bottleneck stays busy.

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::{Knob, Rate, Time};
use braid_net::sim::RunEnd;
use braid_proto::cc::{
    register_cc, AckEvent, CcAlgorithm, CcConfig, CcEnv, CcKind, CcParams, CongestionControl,
};
use braid_proto::testing::{flow_env, Pair, PairEnd, PathModel};
use braid_proto::transport::{TransportConfig, TransportKind};

use crate::scratch::TmpDir;

/// The toy controller's knobs.
#[derive(Clone, Debug)]
struct AimdConfig {
    /// Window added per round trip, bytes.
    increase_bytes: u64,
    /// Factor the window is multiplied by on a marked window.
    decrease: f64,
    /// First window, bytes.
    initial_window_bytes: u64,
}

impl CcParams for AimdConfig {
    const KNOBS: &'static [&'static str] = &["increase", "decrease", "initial_window"];

    fn defaults_for(env: &CcEnv) -> AimdConfig {
        AimdConfig {
            increase_bytes: env.mtu_bytes as u64,
            decrease: 0.5,
            initial_window_bytes: env.bdp_bytes().max(env.mtu_bytes as u64),
        }
    }

    fn apply_knob(&mut self, key: &str, v: &Knob) -> Result<(), String> {
        let bytes = |v: &Knob| match v {
            Knob::Int(n) if *n > 0 => Ok(*n as u64),
            _ => Err(format!("toy-aimd: `{key}` must be a positive number of bytes, got {v:?}")),
        };
        match key {
            "increase" => self.increase_bytes = bytes(v)?,
            "initial_window" => self.initial_window_bytes = bytes(v)?,
            "decrease" => match v {
                Knob::Float(f) if *f > 0.0 && *f < 1.0 => self.decrease = *f,
                _ => return Err(format!("toy-aimd: `decrease` must be in (0, 1), got {v:?}")),
            },
            _ => {
                return Err(format!(
                    "toy-aimd: unknown knob `{key}` (known: {})",
                    Self::KNOBS.join(", ")
                ))
            }
        }
        Ok(())
    }
}

/// AIMD on ECN marks: `cwnd += increase · acked / cwnd` per ACK, `cwnd ·= decrease` on the
/// first marked ACK of a window (then marks are ignored until an ACK covers data sent after the
/// decrease). Paced at line rate; the window limits it.
#[derive(Clone, Debug)]
struct Aimd {
    cfg: AimdConfig,
    cwnd_bytes: f64,
    min_bytes: f64,
    line: Rate,
    /// `snd_nxt` at the last decrease: no decrease again before the cumulative ACK passes it.
    hold_until_bytes: u64,
}

impl CongestionControl for Aimd {
    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.ecn && ev.ack_seq_bytes > self.hold_until_bytes {
            self.cwnd_bytes = (self.cwnd_bytes * self.cfg.decrease).max(self.min_bytes);
            self.hold_until_bytes = ev.snd_nxt_bytes;
        } else {
            self.cwnd_bytes +=
                self.cfg.increase_bytes as f64 * ev.newly_acked_bytes as f64 / self.cwnd_bytes;
        }
    }

    fn rate(&self) -> Rate {
        self.line
    }

    fn window_bytes(&self) -> u64 {
        self.cwnd_bytes as u64
    }
}

impl CcAlgorithm for Aimd {
    const NAME: &'static str = "toy-aimd";
    type Config = AimdConfig;

    fn build(cfg: AimdConfig, env: &CcEnv) -> Result<Aimd, String> {
        Ok(Aimd {
            cwnd_bytes: cfg.initial_window_bytes as f64,
            min_bytes: env.mtu_bytes as f64,
            line: env.line_rate,
            hold_until_bytes: 0,
            cfg,
        })
    }
}

/// Hosts 0 and 1 send to host 2 under one switch: 100 Gb/s links of 1 µs, so the receiver's
/// link is the bottleneck and the base RTT about 4.3 µs (a BDP of about 54 KB). The switch marks
/// every packet that finds 64 KB queued ahead of it.
const SCENARIO: &str = r#"
name = "toy-cc"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = 3
host_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "64B"
ecn = true
kmin = "64KB"
kmax = "64KB"
pmax = 1.0
[transport]
kind = "roce"
cc = "toy-aimd"
[routing]
kind = "ecmp"
[workload]
kind = "flow-file"
file = "flows.csv"
"#;

/// Flow 0 (40 MB) alone for 200 µs, then flow 1 (20 MB) joins it.
const FLOWS: &str = "src,dst,size,start\n0,2,40MB,0us\n1,2,20MB,200us\n";

#[test]
fn a_registered_congestion_control_shares_a_bottleneck_equally_and_fills_it() {
    register_cc::<Aimd>().unwrap();
    let dir = TmpDir::new("toy-cc", "share");
    std::fs::write(dir.join("flows.csv"), FLOWS).unwrap();
    let sc = parse(SCENARIO, &dir, &[], None).unwrap();
    let r = run(&sc, false).unwrap();
    assert_eq!(r.end, RunEnd::AllFlowsComplete);
    r.sim.conservation().unwrap();
    let flows = r.sim.flows();
    for f in flows {
        assert_eq!(f.delivered_bytes, f.size_bytes, "every byte delivered once");
    }
    // The link carries 1,064 bytes for each 1,000 of payload: shares and use count wire bytes.
    let wire = |payload_bytes: u64| payload_bytes as f64 * 1064.0 / 1000.0 * 8.0;
    let line_bps = 100e9;
    let secs = |t: Time| t.ps() as f64 * 1e-12;
    // The joiner's average rate over its life: half the bottleneck if the shares are equal
    // (the first flow sends for the whole of the joiner's life, so the two share it throughout).
    let (first, joiner) = (&flows[0], &flows[1]);
    let joiner_fct = joiner.finish.unwrap() - joiner.start;
    let joiner_share = wire(joiner.size_bytes) / secs(joiner_fct) / line_bps;
    // The bottleneck's use from the first packet to the last: every wire byte of both flows over
    // the time the link was needed.
    let busy = first.finish.unwrap().max(joiner.finish.unwrap()) - first.start;
    let total = wire(first.size_bytes + joiner.size_bytes);
    let utilisation = total / secs(busy) / line_bps;
    eprintln!(
        "toy-aimd: joiner's share {joiner_share:.3} of the bottleneck over its {:.0} µs; \
         bottleneck utilisation {utilisation:.3} (wire bytes of both flows / time to the last \
         byte / line rate)",
        secs(joiner_fct) * 1e6
    );
    assert!(
        (0.45..=0.55).contains(&joiner_share),
        "AIMD converges to equal shares: the joiner got {joiner_share:.3} of the bottleneck"
    );
    assert!(utilisation >= 0.95, "the marking threshold is above one BDP: {utilisation:.3}");
    let dropped: u64 = r.sim.stats().data_dropped.iter().sum();
    assert_eq!(dropped, 0, "ECN keeps the queue far from the buffer: no drop");
}

#[test]
fn a_registered_congestion_control_is_named_and_knob_checked_like_the_others() {
    register_cc::<Aimd>().unwrap();
    register_cc::<Aimd>().unwrap(); // registering twice is harmless
    let k = CcKind::parse("toy-aimd").unwrap();
    assert_eq!(k.name(), "toy-aimd");
    assert_eq!(k.knobs(), AimdConfig::KNOBS);
    assert!(!k.reads_int());
    assert!(CcKind::names().contains(&"toy-aimd"));
    let e = CcKind::parse("cubic").unwrap_err();
    assert!(e.contains("toy-aimd") && e.contains("dcqcn"), "{e}");
    // Its knobs are checked when the scenario is read: a known one takes, an unknown one is
    // named with the known ones, a bad value names the knob.
    let dir = TmpDir::new("toy-cc", "knobs");
    std::fs::write(dir.join("flows.csv"), FLOWS).unwrap();
    let set = |s: &str| parse(SCENARIO, &dir, &[s.to_string()], None);
    set("transport.cc_params.decrease=0.7").unwrap();
    let e = set("transport.cc_params.beta=0.7").unwrap_err();
    assert!(e.contains("beta") && e.contains("increase"), "{e}");
    let e = set("transport.cc_params.decrease=1.5").unwrap_err();
    assert!(e.contains("decrease") && e.contains("(0, 1)"), "{e}");
    // It drives the other sender built on one controller too (round-robin spraying).
    parse(SCENARIO, &dir, &["transport.kind=rrps".to_string()], None).unwrap();
    // Braid's own names cannot be taken.
    #[derive(Clone, Debug)]
    struct Impostor(Aimd);
    impl CongestionControl for Impostor {
        fn on_ack(&mut self, ev: &AckEvent) {
            self.0.on_ack(ev)
        }
        fn rate(&self) -> Rate {
            self.0.rate()
        }
    }
    impl CcAlgorithm for Impostor {
        const NAME: &'static str = "arcc";
        type Config = AimdConfig;
        fn build(cfg: AimdConfig, env: &CcEnv) -> Result<Impostor, String> {
            Aimd::build(cfg, env).map(Impostor)
        }
    }
    let e = register_cc::<Impostor>().unwrap_err();
    assert!(e.contains("arcc") && e.contains("Braid's own"), "{e}");
}

/// The same controller on `braid_proto::testing::Pair`, without the simulator: RoCE's sender (a
/// 100 Gb/s NIC) on one 50 Gb/s path of 2 µs each way (a BDP of 25 KB) that marks packets
/// finding 32 KB queued.
/// AIMD's saw-tooth: the window climbs to about BDP + K, where marks halve it, and since
/// half of BDP + K is still above the BDP the path never idles.
#[test]
fn on_an_in_memory_pair_the_window_saw_tooths_between_half_and_all_of_bdp_plus_threshold() {
    register_cc::<Aimd>().unwrap();
    let pkts = 40_000u64;
    let line = Rate::from_gbps(100);
    let rtt = Time::from_us(4);
    let env = flow_env(pkts * 1000, line, rtt, 1000);
    let tc = TransportConfig {
        cc: CcConfig::new(CcKind::parse("toy-aimd").unwrap()),
        header_bytes: 64,
        ..TransportConfig::new(TransportKind::parse("roce").unwrap())
    };
    let k = 32_000u64;
    let bottleneck = Rate::from_gbps(50);
    let path = PathModel::new(bottleneck, Time::from_us(2)).with_ecn(k);
    let mut pair = Pair::for_config(&tc, &env, vec![path]).unwrap();
    // Skip the first 200 µs (the first window is one BDP, it climbs from there), then sample.
    pair.run_until(Time::from_us(200));
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut t = Time::from_us(200);
    let end = loop {
        t += Time::from_ns(200);
        match pair.run_until(t) {
            PairEnd::TimeLimit => {
                let w = pair.sender.window_bytes();
                (lo, hi) = (lo.min(w), hi.max(w));
            }
            other => break other,
        }
    };
    let PairEnd::Complete(fct) = end else { panic!("{end:?}") };
    let wire_bytes = pkts as f64 * 1064.0;
    let utilisation = wire_bytes * 8.0 / (fct.ps() as f64 * 1e-12) / 50e9;
    // BDP plus the threshold, in payload bytes: the window at which marks start.
    let bdp = bottleneck.bdp_bytes(rtt) as f64 * 1000.0 / 1064.0;
    let top = bdp + k as f64 * 1000.0 / 1064.0;
    eprintln!(
        "toy-aimd on a pair: window {lo}..{hi} B (BDP + K = {top:.0} B), utilisation \
         {utilisation:.3} (wire bytes / FCT / path rate), {} marks",
        pair.stats.ecn_marked
    );
    assert!(pair.stats.ecn_marked > 0);
    assert!(hi as f64 >= 0.9 * top && (hi as f64) <= 1.2 * top, "peak {hi} vs {top:.0}");
    assert!(lo as f64 >= 0.4 * top && (lo as f64) <= 0.6 * top, "trough {lo} vs {top:.0}");
    assert!(utilisation >= 0.97, "half of BDP + K is above the BDP: {utilisation:.3}");
}
