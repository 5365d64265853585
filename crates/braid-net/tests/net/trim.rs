//! Packet trimming at a switch egress queue (`network.trim`, NDP-style as htsim's
//! `CompositeQueue`): two senders overload one switch port two to one; the data queue never
//! exceeds its limit, about half the trims cut the arrival and half the most recently queued
//! packet, trimmed headers overtake the data queue, and every packet leaves the switch (whole or
//! trimmed) or is counted as dropped.

use braid_core::packet::flags;
use braid_core::{LinkId, NodeId, Packet, PacketKind, PortId, Rate, Time};
use braid_net::config::{NetConfig, CLASS_CONTROL, CLASS_DATA};
use braid_net::sim::Sim;
use braid_net::topology::Topology;

const SIZE: u32 = 1000;
const LIMIT: u64 = 20 * SIZE as u64;
const PER_SENDER: u32 = 3000;

/// h0 and h2 → sw → h1, 100 Gb/s, 1 µs. Nodes: h0 = 0, h1 = 1, h2 = 2, sw = 3. Ports: 0 h0→sw,
/// 2 sw→h1 (link 1), 4 h2→sw.
fn vee() -> Topology {
    let mut t = Topology::new();
    let h0 = t.add_host("h0", 0);
    let h1 = t.add_host("h1", 0);
    let h2 = t.add_host("h2", 0);
    let sw = t.add_switch("sw", 0, 1);
    t.connect(h0, sw, Rate::from_gbps(100), Time::from_us(1));
    t.connect(sw, h1, Rate::from_gbps(100), Time::from_us(1));
    t.connect(h2, sw, Rate::from_gbps(100), Time::from_us(1));
    t
}

fn cfg(trim: bool) -> NetConfig {
    let mut cfg = NetConfig::default();
    cfg.ecn.enabled = false;
    cfg.class_limit_bytes = [0, LIMIT, 0];
    cfg.trim.enabled = trim;
    cfg.trim.size_bytes = 64;
    cfg
}

/// Both senders deliver `PER_SENDER` data packets to the switch at line rate each (PSNs tell
/// them apart; `ts_sent` = arrival at the switch). Steps the whole run, checking the data queue
/// of sw→h1 after every event; returns the simulator with sw→h1 captured.
fn overload(trim: bool, seed: u64) -> Sim {
    let mut sim = Sim::new(vee(), cfg(trim), seed);
    sim.capture_link(LinkId(1));
    let gap = Rate::from_gbps(100).tx_time(SIZE as u64);
    for i in 0..PER_SENDER {
        for (k, port) in [(0u32, PortId(0)), (1, PortId(4))] {
            let at = Time::from_ps(gap.ps() * i as u64 + k as u64 * 7_000);
            let pkt = Packet {
                kind: PacketKind::Data,
                prio: CLASS_DATA,
                size_bytes: SIZE,
                src: NodeId(if k == 0 { 0 } else { 2 }),
                dst: NodeId(1),
                psn: 2 * i + k,
                ts_sent: at,
                ..Packet::default()
            };
            sim.inject(at, pkt, port);
        }
    }
    while sim.step().is_some() {
        let q = &sim.ports()[2];
        assert!(
            q.q_bytes[CLASS_DATA as usize] <= LIMIT,
            "data queue {} > limit {LIMIT}",
            q.q_bytes[CLASS_DATA as usize]
        );
    }
    sim
}

#[test]
fn trimming_bounds_the_queue_halves_the_choice_serves_headers_first_and_conserves_packets() {
    let sim = overload(true, 1);
    let st = sim.stats();
    let total = 2 * PER_SENDER as u64;
    // Two to one: about half the packets cannot be carried whole.
    assert!(st.trims > total / 3 && st.trims < 2 * total / 3, "trims {} of {total}", st.trims);
    // Half the trims cut the arrival, half the most recently queued packet.
    let share = st.trims_of_queued as f64 / st.trims as f64;
    assert!((share - 0.5).abs() < 0.05, "share of trims that cut a queued packet: {share:.3}");
    // Conservation: every packet left the switch once (whole or trimmed) or was dropped.
    let sent = sim.captured().iter().filter(|(_, port, _)| *port == 2).collect::<Vec<_>>();
    let dropped: u64 = st.data_dropped.iter().sum();
    assert_eq!(
        sent.len() as u64 + dropped,
        total,
        "sent {} + dropped {dropped} ≠ {total}",
        sent.len()
    );
    let mut seen = vec![false; total as usize];
    for (_, _, pk) in &sent {
        assert!(!seen[pk.psn as usize], "psn {} sent twice", pk.psn);
        seen[pk.psn as usize] = true;
    }
    let trimmed: Vec<&Packet> =
        sent.iter().map(|x| &x.2).filter(|p| p.flags & flags::TRIMMED != 0).collect();
    assert_eq!(
        trimmed.len() as u64 + dropped,
        st.trims,
        "each trimmed packet sent once or dropped"
    );
    for p in &trimmed {
        assert_eq!((p.size_bytes, p.payload_bytes(64), p.prio), (64, 0, CLASS_CONTROL));
        assert!(p.flags & flags::TRIM_LAST_HOP != 0, "sw→h1 faces the destination host");
    }
    let port = &sim.ports()[2];
    let whole = sent.len() as u64 - trimmed.len() as u64;
    assert_eq!(port.tx_bytes, whole * SIZE as u64 + trimmed.len() as u64 * 64);
    // Headers first: a trimmed header waits at most for the packet being serialised (and a few
    // headers); whole packets wait behind a full data queue.
    let wait = |(t, _, p): &&(Time, u32, Packet)| t.saturating_sub(p.ts_sent).ps() as f64 / 1e3;
    let header_wait =
        sent.iter().filter(|x| x.2.flags & flags::TRIMMED != 0).map(wait).fold(0.0, f64::max);
    let data_waits: Vec<f64> =
        sent.iter().filter(|x| x.2.flags & flags::TRIMMED == 0).map(wait).collect();
    let data_wait = data_waits.iter().sum::<f64>() / data_waits.len() as f64;
    let one_packet_ns = 80.0;
    assert!(header_wait < 3.0 * one_packet_ns, "a header waited {header_wait} ns");
    assert!(data_wait > 10.0 * one_packet_ns, "data waited only {data_wait} ns on average");
}

#[test]
fn without_trimming_the_same_overload_drops_and_never_trims() {
    let sim = overload(false, 1);
    let st = sim.stats();
    assert_eq!(st.trims, 0);
    let dropped: u64 = st.data_dropped.iter().sum();
    assert!(dropped > 2 * PER_SENDER as u64 / 3, "dropped {dropped}");
    assert!(sim
        .captured()
        .iter()
        .all(|(_, _, p)| p.flags & flags::TRIMMED == 0 && p.size_bytes == SIZE));
}
