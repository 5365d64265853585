//! Congestion control in the simulated network, checked against what each scheme's paper says
//! should happen with N long flows into one 100 Gb/s link:
//! DCTCP holds the queue around K (below K + N packets) at ≥ 95 % throughput; DCQCN converges to
//! C/N each without drops under PFC; HPCC keeps a near-zero standing queue at ≈ η × line rate and
//! reacts quickly to a new flow; TIMELY and Swift hold the RTT near their targets.

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::Time;
use braid_net::sim::Sim;

/// N senders (hosts 1..=N) and one receiver (host 0) under one switch.
fn incast(n: usize, cc: &str, extra: &[&str]) -> Sim {
    let senders: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let text = format!(
        r#"
name = "cc-{cc}"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 1
spines = 1
hosts_per_leaf = {hosts}
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
[transport]
kind = "roce"
cc = "{cc}"
recovery = "sr"
[workload]
kind = "incast"
senders = [{senders}]
receiver = 0
size = "200MB"
[output]
sample_interval = "1us"
"#,
        hosts = n + 1,
        senders = senders.join(", ")
    );
    let sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let sc = parse(&text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("{e}"));
    let (mut sim, _) = build(&sc).unwrap();
    sim.sampling_mut().queues_series = true;
    sim
}

fn started(mut sim: Sim) -> Sim {
    sim.prepare();
    sim
}

/// The switch port toward host 0 (the bottleneck).
fn bottleneck(sim: &Sim) -> usize {
    let h0 = sim.hosts()[0].node;
    sim.ports().iter().position(|p| p.peer == h0).unwrap()
}

/// Run to `t` and return each flow's delivered bytes.
fn run_to(sim: &mut Sim, t: Time) -> Vec<u64> {
    sim.run(Some(t), &mut |_| true);
    sim.flows().iter().map(|f| f.delivered_bytes).collect()
}

/// Queue samples of the bottleneck port in [from, to).
fn queue_samples(sim: &Sim, from: Time, to: Time) -> Vec<u64> {
    let b = bottleneck(sim) as u32;
    // The series records only non-empty samples; fill the gaps with zeros.
    let mut v = Vec::new();
    let mut by_time = std::collections::BTreeMap::new();
    for &(t, p, q, _) in sim.queue_series() {
        if p == b && t >= from && t < to {
            by_time.insert(t, q);
        }
    }
    let mut t = from;
    while t < to {
        v.push(*by_time.get(&t).unwrap_or(&0));
        t += Time::from_us(1);
    }
    v
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

fn rates_gbps(a: &[u64], b: &[u64], dt: Time) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| (y - x) as f64 * 8.0 / dt.secs_f64() / 1e9).collect()
}

#[test]
fn dctcp_window_holds_queue_near_k_at_full_throughput() {
    let n = 8;
    let k = 100_000u64;
    let mut sim = started(incast(
        n,
        "dctcp-window",
        &[
            "network.kmin=\"100000B\"",
            "network.kmax=\"100000B\"",
            "network.pmax=1.0",
            "network.ecn_scale_with_rate=false",
        ],
    ));
    let t0 = Time::from_ms(2);
    let t1 = Time::from_ms(6);
    let a = run_to(&mut sim, t0);
    let b = run_to(&mut sim, t1);
    let total: f64 = rates_gbps(&a, &b, t1 - t0).iter().sum();
    // Payload rate: the link carries 1048-byte packets for 1000 bytes of payload.
    let util = total / 100.0 * 1048.0 / 1000.0;
    assert!(util >= 0.95, "throughput {util}");
    let q = queue_samples(&sim, t0, t1);
    let max = *q.iter().max().unwrap();
    let m = mean(&q);
    assert!(max < k + n as u64 * 1048 + 1048, "queue max {max} exceeds K + N packets");
    assert!(m > 0.3 * k as f64 && m < 1.1 * k as f64, "queue mean {m} not around K = {k}");
    assert_eq!(sim.stats().data_dropped.iter().sum::<u64>(), 0);
}

#[test]
fn dcqcn_converges_to_fair_share_without_drops_under_pfc() {
    let n = 4;
    let mut sim = started(incast(n, "dcqcn", &["network.pfc=true"]));
    let t0 = Time::from_ms(3);
    let t1 = Time::from_ms(7);
    let a = run_to(&mut sim, t0);
    let b = run_to(&mut sim, t1);
    let r = rates_gbps(&a, &b, t1 - t0);
    let total: f64 = r.iter().sum();
    // C/N in payload terms: the link carries 1048 wire bytes per 1000 payload bytes.
    let share = 100.0 * 1000.0 / 1048.0 / n as f64;
    for x in &r {
        assert!((x - share).abs() < 0.1 * share, "rates {r:?}, C/N = {share}");
    }
    assert!(total > 80.0, "aggregate {total} Gb/s");
    assert_eq!(sim.stats().data_dropped.iter().sum::<u64>(), 0, "PFC must prevent drops");
}

#[test]
fn hpcc_keeps_near_zero_queue_at_eta() {
    let n = 4;
    let mut sim = started(incast(n, "hpcc", &[]));
    let t0 = Time::from_us(500);
    let t1 = Time::from_us(950);
    let a = run_to(&mut sim, t0);
    let b = run_to(&mut sim, t1);
    let total: f64 = rates_gbps(&a, &b, t1 - t0).iter().sum::<f64>() * 1048.0 / 1000.0;
    assert!((88.0..=99.0).contains(&total), "HPCC link rate {total} Gb/s (η = 0.95)");
    let q = queue_samples(&sim, t0, t1);
    let bdp = 100e9 / 8.0 * 8e-6;
    assert!(mean(&q) < 0.2 * bdp, "standing queue {} B", mean(&q));
}

#[test]
fn hpcc_reacts_fast_to_a_joining_flow() {
    let n = 4;
    let mut sim = incast(n, "hpcc", &[]);
    let join = Time::from_ms(1);
    sim.flows_mut()[3].start = join;
    let mut sim = started(sim);
    let a = run_to(&mut sim, join + Time::from_us(100));
    let b = run_to(&mut sim, join + Time::from_us(300));
    let r = rates_gbps(&a, &b, Time::from_us(200));
    let total: f64 = r.iter().sum();
    // Within ~10 RTTs the newcomer has most of its fair share.
    assert!(r[3] > 0.6 * total / n as f64, "rates after the join {r:?}");
    let q = queue_samples(&sim, join, join + Time::from_us(300));
    let peak = *q.iter().max().unwrap();
    assert!(peak < 150_000, "queue spike after the join: {peak} B");
}

#[test]
fn timely_and_swift_hold_rtt_near_their_targets() {
    // TIMELY: T_low = 50 µs, T_high = 500 µs; the RTT settles between them.
    let n = 4;
    let mut sim = started(incast(n, "timely", &[]));
    let (t0, t1) = (Time::from_ms(2), Time::from_ms(5));
    run_to(&mut sim, t0);
    run_to(&mut sim, t1);
    let q = queue_samples(&sim, t0, t1);
    let rtt_us = 8.0 + mean(&q) * 8.0 / 100e9 * 1e6;
    eprintln!("TIMELY mean RTT {rtt_us:.1} us");
    assert!(rtt_us > 25.0 && rtt_us < 500.0, "TIMELY mean RTT {rtt_us} µs");
    // Swift: target = base + hops·h + fs(cwnd) — a few µs above the ~8 µs base RTT here.
    let mut sim = started(incast(n, "swift", &[]));
    let a = run_to(&mut sim, t0);
    let b = run_to(&mut sim, t1);
    let total: f64 = rates_gbps(&a, &b, t1 - t0).iter().sum();
    let q = queue_samples(&sim, t0, t1);
    let qdelay_us = mean(&q) * 8.0 / 100e9 * 1e6;
    eprintln!("Swift throughput {total:.1} Gb/s, mean queueing delay {qdelay_us:.2} us");
    assert!(total > 85.0, "Swift throughput {total} Gb/s");
    assert!(qdelay_us < 60.0, "Swift queueing delay {qdelay_us} µs is far above its target range");
}
