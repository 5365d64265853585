//! Loss recovery driven through a tiny fake network (quinn-proto style: two endpoints and a
//! channel with loss, delay and reordering), checking what the schemes must guarantee:
//! every byte delivered to the application exactly once and in order, whatever the loss; go-back-N
//! retransmitting more than selective repeat on the same loss trace; and Early Recovery under
//! reordering producing more spurious retransmissions as its OOD threshold falls (Rondo Fig 1a).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use braid_core::Knob;
use braid_core::{PacketKind, Rate, Rng, Time};
use braid_proto::cc::{CcConfig, CcEnv, CcKind};
use braid_proto::receiver::{Receiver, RxMode, RxReply, RxVerdict};
use braid_proto::recovery::{RecoveryConfig, RecoveryKind};
use braid_proto::transport::{AckIn, FlowEnv, RoceConfig, RoceSender, SenderOps, Transport};
use proptest::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Msg {
    /// Data psn, sent at (ps).
    Data(u32, u64),
    /// Ack: kind (0 ack, 1 nak), psn, cum, echo ts, ood, buffer-full flag.
    Ack(u8, u32, u32, u64, u32, bool),
    Wake,
}

struct Net {
    loss: f64,
    delay: Time,
    jitter: Time,
    rng: Rng,
    /// Drop by (psn, copy) hash so two schemes see the same loss trace.
    trace_seed: u64,
}

impl Net {
    fn lost(&self, psn: u32, copy: u32) -> bool {
        if self.loss <= 0.0 {
            return false;
        }
        let mut r = Rng::new(self.trace_seed ^ ((psn as u64) << 20) ^ copy as u64);
        r.f64() < self.loss
    }
    fn delay(&mut self) -> Time {
        if self.jitter == Time::ZERO {
            self.delay
        } else {
            self.delay + Time::from_ps(self.rng.below(self.jitter.ps()))
        }
    }
}

struct Outcome {
    delivered_in_order: Vec<u32>,
    retransmissions: u64,
    spurious: u64,
    complete: bool,
}

fn run(kind: RecoveryKind, er_threshold: u32, pkts: u32, net: &mut Net) -> Outcome {
    let env = CcEnv {
        line_rate: Rate::from_gbps(100),
        base_rtt: Time::from_us(4),
        max_rtt: Time::from_us(4),
        max_bdp_bytes: 50_000,
        mtu_bytes: 1000,
        tx_time_floor_ns: false,
    };
    let mut rc = RecoveryConfig::new(kind);
    rc.er_threshold = er_threshold;
    rc.rto_min = Time::from_us(50);
    rc.rto_initial = Time::from_us(100);
    let cfg = RoceConfig {
        cc: CcConfig::new(CcKind::Fixed).with("window", Knob::Str("64000B".into())),
        recovery: rc,
        header_bytes: 48,
    };
    let mut tx = RoceSender::new(
        &cfg,
        &FlowEnv {
            cc: env,
            size_bytes: pkts as u64 * 1000,
            connection_messages: None,
            equal_cost_paths: 0,
            longest_path_rtt: Time::ZERO,
            entropy: 1,
            start: Time::ZERO,
            seed: 0,
        },
    )
    .unwrap();
    let mode = if kind.receiver_buffers() {
        RxMode::Selective
    } else {
        RxMode::GoBackN { nak_interval: Time::from_us(4) }
    };
    let mut rx = Receiver::new(mode, pkts);
    let mut q: BinaryHeap<Reverse<(Time, u64, Msg)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut copies = vec![0u32; pkts as usize];
    let mut delivered = Vec::new();
    let mut now;
    q.push(Reverse((Time::ZERO, 0, Msg::Wake)));
    let deadline = Time::from_ms(200);
    while let Some(Reverse((t, _, m))) = q.pop() {
        now = t;
        if now > deadline {
            break;
        }
        match m {
            Msg::Data(psn, sent) => {
                let o = rx.on_data(now, psn, true);
                if let RxVerdict::InOrder { delivered: d } = o.verdict {
                    let first = o.cum_ack - d;
                    delivered.extend(first..o.cum_ack);
                }
                if o.reply != RxReply::None {
                    let k = if o.reply == RxReply::Nak { 1 } else { 0 };
                    seq += 1;
                    let at = now + net.delay();
                    q.push(Reverse((at, seq, Msg::Ack(k, psn, o.cum_ack, sent, o.ood, false))));
                }
            }
            Msg::Ack(k, psn, cum, ts, ood, full) => {
                let a = AckIn {
                    kind: if k == 1 { PacketKind::Nak } else { PacketKind::Ack },
                    psn,
                    cum_ack: cum,
                    path: 0,
                    ecn: false,
                    ts_sent: Time::from_ps(ts),
                    ts_rx: now,
                    ood,
                    probe: false,
                    rx_buffer_full: full,
                    trimmed: false,
                    trim_last_hop: false,
                    int: None,
                    hops: 1,
                    sack: 0,
                };
                tx.on_ack(now, &a);
            }
            Msg::Wake => {}
        }
        if tx.is_complete() {
            break;
        }
        if tx.poll_timeout().is_some_and(|d| d <= now) {
            tx.on_timeout(now);
        }
        while let Some(p) = tx.poll_transmit(now) {
            let c = copies[p.psn as usize];
            copies[p.psn as usize] += 1;
            if !net.lost(p.psn, c) {
                seq += 1;
                let at = now + net.delay();
                q.push(Reverse((at, seq, Msg::Data(p.psn, now.ps()))));
            }
        }
        let mut wake = tx.next_send_time(now);
        if let Some(d) = tx.poll_timeout() {
            wake = wake.min(d);
        }
        if wake != Time::MAX && wake > now {
            seq += 1;
            q.push(Reverse((wake, seq, Msg::Wake)));
        } else if wake == now {
            seq += 1;
            q.push(Reverse((now + Time::from_ps(1), seq, Msg::Wake)));
        }
    }
    Outcome {
        delivered_in_order: delivered,
        retransmissions: tx.recovery_stats().retransmissions,
        spurious: rx.duplicates(),
        complete: tx.is_complete() && rx.is_complete(),
    }
}

const SCHEMES: [RecoveryKind; 6] = [
    RecoveryKind::GoBackN,
    RecoveryKind::SelectiveRepeat,
    RecoveryKind::Irn,
    RecoveryKind::RackTlp,
    RecoveryKind::RackTlpPerPath,
    RecoveryKind::EarlyRecovery,
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]
    /// Under random loss up to 1 % (and reordering from delay jitter), every scheme delivers every
    /// packet to the application exactly once and in order.
    #[test]
    fn exactly_once_in_order(seed in 0u64..1_000_000, loss_permille in 0u32..=10, jitter_ns in 0u64..3000, scheme in 0usize..6) {
        let pkts = 400;
        let mut net = Net {
            loss: loss_permille as f64 / 1000.0,
            delay: Time::from_us(2),
            jitter: Time::from_ns(jitter_ns),
            rng: Rng::new(seed),
            trace_seed: seed,
        };
        let o = run(SCHEMES[scheme], 3, pkts, &mut net);
        prop_assert!(o.complete, "{:?} did not complete", SCHEMES[scheme]);
        let expect: Vec<u32> = (0..pkts).collect();
        prop_assert_eq!(o.delivered_in_order, expect);
    }
}

#[test]
fn go_back_n_retransmits_more_than_selective_repeat_on_the_same_trace() {
    for (seed, loss) in [(1u64, 0.005), (2, 0.01), (3, 0.01)] {
        let mk = || Net {
            loss,
            delay: Time::from_us(2),
            jitter: Time::ZERO,
            rng: Rng::new(seed),
            trace_seed: seed,
        };
        let gbn = run(RecoveryKind::GoBackN, 3, 2000, &mut mk());
        let sr = run(RecoveryKind::SelectiveRepeat, 3, 2000, &mut mk());
        assert!(gbn.complete && sr.complete);
        assert!(
            gbn.retransmissions > sr.retransmissions,
            "loss {loss}: gbn {} vs sr {}",
            gbn.retransmissions,
            sr.retransmissions
        );
    }
}

#[test]
fn early_recovery_trades_spurious_retransmissions_for_threshold() {
    // No loss at all; only reordering (up to 1 µs of jitter ≈ 12 packets at 100 Gb/s).
    let spurious_at = |thr: u32| -> u64 {
        (0..4u64)
            .map(|seed| {
                let mut net = Net {
                    loss: 0.0,
                    delay: Time::from_us(2),
                    jitter: Time::from_us(1),
                    rng: Rng::new(seed),
                    trace_seed: seed,
                };
                let o = run(RecoveryKind::EarlyRecovery, thr, 2000, &mut net);
                assert!(o.complete);
                o.spurious
            })
            .sum()
    };
    let s: Vec<u64> = [1, 4, 16, 64].iter().map(|&t| spurious_at(t)).collect();
    eprintln!("spurious retransmissions at thresholds 1, 4, 16, 64: {s:?}");
    assert!(s[0] > 0, "a threshold of one packet must misfire under reordering: {s:?}");
    assert!(
        s.windows(2).all(|w| w[0] >= w[1]),
        "spurious retransmissions must fall as the threshold rises: {s:?}"
    );
    assert!(s[0] > s[3], "{s:?}");
}
