//! Rondo's queue control on the Fig 2 topology:
//! - Fig 3 / Fig 19 (`examples/rondo-sync-start.toml`): sixteen senders start together towards four
//!   receivers over four paths; the data queues of the four bottleneck ports (`tor-left`'s uplinks
//!   P1–P4) stay balanced — the paper: the inter-path difference is always below 30 KB (≈ 200 KB
//!   for MP-RDMA and Falcon).
//! - Fig 18 (`examples/rondo-join-leave.toml`): 8 flows, 32 more join at 1 ms and leave about 1 ms
//!   later; the bottleneck (the receiver's downlink) stays busy, the queue does not spike when the
//!   32 join, and utilisation recovers within a few RTTs after they leave.
//!
//! The simulator is stepped by hand (1 µs) to read the data-class queue of each port (the probe
//! class, low priority and capped at 64 KB, is not data and not counted).

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::{NodeId, PortId, Time};
use braid_net::config::CLASS_DATA;
use braid_net::sim::{RunEnd, Sim};

fn load(file: &str) -> (Sim, braid_cli::scenario::Scenario) {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples"));
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let sc = parse(&text, dir, &["output.paths=false".to_string()], None).unwrap();
    let (mut sim, _) = build(&sc).unwrap();
    sim.prepare();
    (sim, sc)
}

fn node(sim: &Sim, name: &str) -> NodeId {
    NodeId::from_idx(sim.topo().nodes.iter().position(|n| n.name == name).unwrap())
}

fn port(sim: &Sim, from: &str, to: &str) -> PortId {
    let (a, b) = (node(sim, from), node(sim, to));
    PortId::from_idx(sim.ports().iter().position(|p| p.node == a && p.peer == b).unwrap())
}

#[test]
fn synchronized_start_keeps_inter_path_queues_balanced() {
    let (mut sim, _) = load("rondo-sync-start.toml");
    let uplinks: Vec<PortId> =
        (0..4).map(|i| port(&sim, "tor-left", &format!("path{i}"))).collect();
    let mut t = Time::ZERO;
    let (mut max_diff, mut max_diff_late, mut max_q) = (0u64, 0u64, 0u64);
    let mut samples = 0;
    loop {
        t += Time::from_us(1);
        let end = sim.run(Some(t), &mut |_| true);
        if sim.flows().iter().any(|f| f.finish.is_some()) {
            break; // the first completion changes the load: stop at the end of the common phase
        }
        let q: Vec<u64> =
            uplinks.iter().map(|p| sim.ports()[p.idx()].q_bytes[CLASS_DATA as usize]).collect();
        let diff = q.iter().max().unwrap() - q.iter().min().unwrap();
        max_diff = max_diff.max(diff);
        max_q = max_q.max(*q.iter().max().unwrap());
        if t > Time::from_us(100) {
            max_diff_late = max_diff_late.max(diff);
        }
        samples += 1;
        if end != RunEnd::StopTime {
            break;
        }
    }
    println!("{samples} samples: max inter-path queue difference {max_diff} B ({max_diff_late} B after 100 us), max queue {max_q} B");
    assert!(samples > 300, "the common phase should last a while ({samples} µs)");
    assert!(max_diff < 30_000, "inter-path data-queue difference reached {max_diff} B");
    assert!(max_diff_late < 20_000, "after convergence: {max_diff_late} B");
}

#[test]
fn flows_joining_and_leaving_converge_without_a_queue_spike() {
    let (mut sim, _) = load("rondo-join-leave.toml");
    let down = port(&sim, "tor-right", "rcv0");
    let rate = sim.ports()[down.idx()].rate.bps_f64();
    let step = Time::from_us(5);
    let mut t = Time::ZERO;
    let mut last_tx = 0u64;
    // (time, utilisation of the step ending then, data queue)
    let mut series: Vec<(Time, f64, u64)> = Vec::new();
    loop {
        t += step;
        let end = sim.run(Some(t), &mut |_| true);
        let p = &sim.ports()[down.idx()];
        let tx = p.tx_bytes_class[CLASS_DATA as usize];
        series.push((
            t,
            (tx - last_tx) as f64 * 8.0 / step.secs_f64() / rate,
            p.q_bytes[CLASS_DATA as usize],
        ));
        last_tx = tx;
        if end != RunEnd::StopTime {
            break;
        }
    }
    let join = Time::from_ms(1);
    let leave = sim.flows()[8..].iter().map(|f| f.finish.unwrap()).max().unwrap();
    let first_long_done = sim.flows()[..8].iter().map(|f| f.finish.unwrap()).min().unwrap();
    let util = |a: Time, b: Time| {
        let v: Vec<f64> = series.iter().filter(|s| s.0 > a && s.0 <= b).map(|s| s.1).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let qmax = |a: Time, b: Time| {
        series.iter().filter(|s| s.0 > a && s.0 <= b).map(|s| s.2).max().unwrap_or(0)
    };
    let before = util(Time::from_us(200), join);
    let during = util(join + Time::from_us(100), leave.min(Time::from_ms(2)));
    let q_before = qmax(Time::from_us(200), join);
    let q_join = qmax(join, join + Time::from_us(200));
    // After the joiners leave: first 5 µs step back at ≥ 95 % utilisation.
    let recovered = series.iter().find(|s| s.0 > leave && s.1 >= 0.95).map(|s| s.0 - leave);
    let after = util(leave + Time::from_us(50), first_long_done.saturating_sub(Time::from_us(20)));
    println!(
        "utilisation before {before:.3} during {during:.3} after {after:.3}; queue max before {q_before} B, within 200 us of the join {q_join} B; back to 95 % {:?} after the last joiner left at {leave}",
        recovered
    );
    assert!(before > 0.95 && during > 0.95 && after > 0.95);
    // Prop 2's queue bound (Appendix C.3, Eq 51; a fluid bound — packets overshoot it by ~10 %) with equal base RTTs: C·τq + N_l·q0/4 + N_S·W0,
    // N_l = 40 flows × 4 logical paths active, N_S = 32 × 4 starting, q0 = 3 KB, W0 = 4 KB (the
    // default 4 MTU, docs/rondo.md): 8.5 KB + 120 KB + 512 KB. The joiners send only W0 per path (their probes are starved by
    // the full link), so the spike is the W0 burst plus the margins, not a window's worth.
    let tau_q = 0.04 * 17e-6;
    let bound = 100e9 / 8.0 * tau_q + 160.0 * 750.0 + 128.0 * 4000.0;
    println!("Prop 2 bound {bound:.0} B");
    assert!(
        (q_join as f64) < 1.25 * bound,
        "queue spike when 32 flows join: {q_join} B (bound {bound:.0} B)"
    );
    let rtt = Time::from_us(17);
    assert!(
        recovered.is_some_and(|d| d <= rtt.mul_f64(5.0)),
        "recovery after the leave took {recovered:?}"
    );
}
