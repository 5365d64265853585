//! Checks of the engine against what the network model must do: strict priority, ECN marking
//! probability, PFC pause/resume, link failure, determinism of the event order.

use braid_core::{NodeId, Packet, PacketKind, PortId, Rate, Time};
use braid_net::config::{NetConfig, CLASS_DATA, CLASS_PROBE};
use braid_net::sim::{ecn_mark_probability, Sim};
use braid_net::topology::Topology;

/// host0 — sw — host1, 100 Gb/s, 1 µs.
fn line() -> Topology {
    let mut t = Topology::new();
    let h0 = t.add_host("h0", 0);
    let h1 = t.add_host("h1", 0);
    let sw = t.add_switch("sw", 0, 1);
    t.connect(h0, sw, Rate::from_gbps(100), Time::from_us(1));
    t.connect(sw, h1, Rate::from_gbps(100), Time::from_us(1));
    t
}

/// Make a packet from h0 to h1 "arrive" at the switch over h0's port at `at`.
fn inject(sim: &mut Sim, at: Time, kind: PacketKind, prio: u8, size: u32) {
    let pkt = Packet {
        kind,
        prio,
        size_bytes: size,
        src: NodeId(0),
        dst: NodeId(1),
        ..Packet::default()
    };
    sim.inject(at, pkt, PortId(0));
}

fn run_until(sim: &mut Sim, t: Time) {
    while sim.events().peek_time().is_some_and(|next| next <= t) {
        sim.step();
    }
}

#[test]
fn strict_priority_low_class_gets_only_the_leftover() {
    let cfg = NetConfig {
        class_limit_bytes: [0; braid_net::config::NUM_CLASSES],
        ..NetConfig::default()
    };
    let mut sim = Sim::new(line(), cfg, 1);
    let size = 1000u32;
    let c = Rate::from_gbps(100);
    // High class offered at 60 % of the link, low class at 100 %, for 200 µs.
    let horizon = Time::from_us(200);
    let hi_gap = c.tx_time(size as u64).mul_f64(1.0 / 0.6);
    let lo_gap = c.tx_time(size as u64);
    let mut t = Time::ZERO;
    while t < horizon {
        inject(&mut sim, t, PacketKind::Pull, CLASS_DATA, size);
        t += hi_gap;
    }
    let mut t = Time::ZERO;
    while t < horizon {
        inject(&mut sim, t, PacketKind::Pull, CLASS_PROBE, size);
        t += lo_gap;
    }
    let measure = Time::from_us(150);
    run_until(&mut sim, measure);
    let port = &sim.ports()[2]; // sw → h1
    assert_eq!(port.node, NodeId(2));
    let sent = c.bytes_in(measure) as f64;
    let hi = port.tx_bytes_class[CLASS_DATA as usize] as f64 / sent;
    let lo = port.tx_bytes_class[CLASS_PROBE as usize] as f64 / sent;
    assert!((hi - 0.6).abs() < 0.02, "high class share {hi}");
    assert!((lo - 0.4).abs() < 0.02, "low class share {lo}");
}

#[test]
fn ecn_marking_follows_kmin_kmax_pmax() {
    assert_eq!(ecn_mark_probability(100, 200, 400, 0.2), 0.0);
    assert!((ecn_mark_probability(300, 200, 400, 0.2) - 0.1).abs() < 1e-12);
    assert_eq!(ecn_mark_probability(401, 200, 400, 0.2), 1.0);
    // On a controlled queue: fill the switch port with N packets at once, let it drain, and
    // compare the marks with Σ p(q) over the queue each departing packet sees, across seeds.
    let size = 1000u64;
    let n = 600u64; // 600 KB burst
    let (kmin, kmax, pmax) = (100_000u64, 400_000u64, 0.3);
    let expected: f64 =
        (1..=n).map(|i| ecn_mark_probability((n - i) * size, kmin, kmax, pmax)).sum();
    let mut total = 0u64;
    let runs = 40;
    for seed in 0..runs {
        let mut cfg = NetConfig::default();
        cfg.ecn.kmin_bytes = kmin;
        cfg.ecn.kmax_bytes = kmax;
        cfg.ecn.pmax = pmax;
        cfg.ecn.scale_with_rate = false;
        let mut sim = Sim::new(line(), cfg, seed);
        for _ in 0..n {
            inject(&mut sim, Time::ZERO, PacketKind::Rts, CLASS_DATA, size as u32);
        }
        run_until(&mut sim, Time::from_ms(1));
        total += sim.stats().ecn_marks;
    }
    let mean = total as f64 / runs as f64;
    // Marks above Kmax are certain; the RED part is binomial: allow 4 standard deviations.
    let tol = 4.0 * (expected / runs as f64).sqrt() + 1.0;
    assert!((mean - expected).abs() < tol, "mean marks {mean}, expected {expected} ± {tol}");
}

#[test]
fn event_order_is_deterministic() {
    let run = || {
        let mut sim = Sim::new(line(), NetConfig::default(), 3);
        for i in 0..100 {
            inject(
                &mut sim,
                Time::from_ns(i * 7 % 50),
                PacketKind::Pull,
                (i % 3) as u8,
                500 + (i as u32 % 7) * 100,
            );
        }
        run_until(&mut sim, Time::from_ms(1));
        (
            sim.events().popped(),
            sim.ports().iter().map(|p| p.tx_bytes).collect::<Vec<_>>(),
            sim.events().now(),
        )
    };
    assert_eq!(run(), run());
}

/// A link that starts losing packets by a scheduled change draws the same random stream as one
/// that loses them from the start: the per-port loss streams are made only when some link can
/// lose packets, and nothing draws from them before (the same packets are lost either way).
#[test]
fn loss_set_by_a_link_change_draws_the_stream_a_loss_from_the_start_draws() {
    use braid_net::config::{LinkChange, LinkEvent};
    let lost = |cfg: NetConfig, events: &[LinkEvent]| {
        let mut sim = Sim::new(line(), cfg, 7);
        sim.add_link_events(events);
        sim.prepare();
        let mut t = Time::from_us(1);
        for _ in 0..2_000 {
            inject(&mut sim, t, PacketKind::Pull, CLASS_DATA, 1000);
            t += Time::from_ns(100);
        }
        run_until(&mut sim, Time::from_ms(1));
        let s = sim.stats();
        (s.control_dropped, sim.ports()[2].tx_pkts)
    };
    let from_start = lost(NetConfig { loss_rate: 0.3, ..NetConfig::default() }, &[]);
    let changes: Vec<LinkEvent> = (0..2)
        .map(|link| LinkEvent { at: Time::ZERO, link, change: LinkChange::Loss(0.3) })
        .collect();
    let by_change = lost(NetConfig::default(), &changes);
    assert_eq!(by_change, from_start, "(packets lost, packets sent on sw→h1)");
    let (dropped, sent) = from_start;
    assert!(
        sent == 2_000 && (500..700).contains(&dropped),
        "about 30 % of 2,000 lost: {dropped} of {sent}"
    );
}
