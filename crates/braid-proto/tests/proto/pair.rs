//! Every transport on `braid_proto::testing::Pair`, without the simulator: built from its
//! scenario defaults as the simulator builds it, each must deliver a flow exactly once and in
//! order over lossy, reordering paths, and a line-rate sender must finish at the time the path's
//! rate and delay give.

use braid_core::{Rate, Time};
use braid_proto::cc::{CcConfig, CcKind};
use braid_proto::testing::{flow_env, Pair, PairEnd, PathModel};
use braid_proto::transport::{FlowEnv, TransportConfig, TransportKind};

const MTU: u32 = 1000;
const HEADER: u32 = 64;

/// The `[transport]` a scenario with only `kind` set gives (64-byte headers).
fn defaults(kind: TransportKind) -> TransportConfig {
    TransportConfig { header_bytes: HEADER, ..TransportConfig::new(kind) }
}

/// A flow of `size_bytes` on a 100 Gb/s NIC whose `paths` equal-cost paths have base RTT `rtt`.
fn env(size_bytes: u64, rtt: Time, paths: u32) -> FlowEnv {
    FlowEnv {
        equal_cost_paths: paths,
        seed: 11,
        ..flow_env(size_bytes, Rate::from_gbps(100), rtt, MTU)
    }
}

/// Four 25 Gb/s paths of 4 µs one way, each losing 1 % of data packets and reordering them with
/// up to 2 µs of jitter (about eight packet times at 25 Gb/s).
fn lossy_paths() -> Vec<PathModel> {
    (0..4)
        .map(|_| {
            PathModel::new(Rate::from_gbps(25), Time::from_us(4))
                .with_loss(0.01)
                .with_jitter(Time::from_us(2))
        })
        .collect()
}

#[test]
fn every_transport_delivers_a_flow_once_and_in_order_over_lossy_reordering_paths() {
    let pkts = 400u64;
    for &kind in TransportKind::BUILTIN {
        let tc = defaults(kind);
        let e = env(pkts * MTU as u64, Time::from_us(8), 4);
        let mut pair = Pair::for_config(&tc, &e, lossy_paths()).unwrap();
        if pair.sender.wants_pulls() {
            continue; // receiver-driven (EQDS): the pair has no pull pacer
        }
        let end = pair.run_until(Time::from_ms(200));
        let s = &pair.stats;
        eprintln!(
            "{}: {end:?}, {} data sent, {} lost, {} duplicates, per path {:?}",
            kind.name(),
            s.data_sent,
            s.data_lost,
            s.duplicates,
            s.sent_per_path
        );
        assert!(matches!(end, PairEnd::Complete(_)), "{}: {end:?}", kind.name());
        assert_eq!(s.delivered, pkts, "{}: every packet delivered once, in order", kind.name());
        assert!(pair.receiver.is_complete(), "{}", kind.name());
        assert!(
            s.data_lost > 0,
            "{}: the paths lost nothing; the test proves nothing",
            kind.name()
        );
        // Conservation: every data packet sent was lost, received or is still on its way.
        assert_eq!(
            s.data_sent,
            s.data_lost + s.data_received + pair.data_in_flight(),
            "{}",
            kind.name()
        );
        // A retransmission is needed for each loss, and no packet is received more often than
        // it was sent.
        assert!(s.data_sent >= pkts + s.data_lost, "{}", kind.name());
        assert!(s.data_received - s.duplicates == pkts, "{}", kind.name());
    }
}

#[test]
fn a_line_rate_sender_finishes_when_the_path_says() {
    // RoCE with the fixed controller: line rate, no window. One 100 Gb/s path of 5 µs each
    // way: the last of N packets leaves the NIC at N·t, crosses the path's bottleneck (as fast
    // as the NIC, so no queue) and arrives 5 µs + t later; its ACK takes 5 µs back.
    let pkts = 1_000u64;
    let mut tc = defaults(TransportKind::parse("roce").unwrap());
    tc.cc = CcConfig::new(CcKind::Fixed);
    let e = env(pkts * MTU as u64, Time::from_us(10), 1);
    let path = PathModel::new(Rate::from_gbps(100), Time::from_us(5));
    let mut pair = Pair::for_config(&tc, &e, vec![path]).unwrap();
    let PairEnd::Complete(fct) = pair.run_until(Time::from_ms(10)) else {
        panic!("not complete");
    };
    let t = Rate::from_gbps(100).tx_time((MTU + HEADER) as u64);
    let expected = Time::from_ps(t.ps() * (pkts + 1)) + Time::from_us(10);
    eprintln!("FCT {fct:?}, expected N·t + t + 2·5 µs = {expected:?}");
    assert_eq!(fct, expected);
    assert_eq!(pair.stats.data_sent, pkts);
    assert_eq!(pair.stats.acks, pkts, "one ACK per packet");
}

#[test]
fn a_pair_runs_the_same_for_the_same_seed() {
    let run = || {
        let tc = defaults(TransportKind::parse("uet").unwrap());
        let mut pair =
            Pair::for_config(&tc, &env(300_000, Time::from_us(8), 4), lossy_paths()).unwrap();
        let end = pair.run_until(Time::from_ms(200));
        (end, pair.stats.clone())
    };
    assert_eq!(run(), run());
}
