//! UET (NSCC + REPS) on loaded fabrics.
//! - REPS converges on good entropy values: with one spine of a leaf-spine slowed to a quarter of
//!   the others, the number of distinct EVs a flow uses per block of 64 packets falls from the
//!   random first windows' toward the number its window keeps in circulation (marked EVs are not
//!   recycled), the queue into the slow spine stays well below an oblivious spray's
//!   (`ev_select = "oblivious"`, which keeps sending a quarter of its packets there), and the
//!   permutation finishes sooner.
//! - NSCC holds the queuing delay its flows see near its target (`target_qdelay`, by default the
//!   network's largest base RTT) on a 4:1 oversubscribed fabric, with ECN marking from 0.2 to 0.8
//!   of that delay's worth of queue (htsim's UET setting of Kmin/Kmax relative to the BDP).

use std::path::Path;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use braid_core::Time;
use braid_proto::transport::Sender;

fn scenario(text: &str, sets: &[&str]) -> braid_cli::scenario::Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    parse(text, Path::new("."), &sets, None).unwrap_or_else(|e| panic!("scenario error: {e}"))
}

/// 2 leaves × 4 spines × 8 hosts; spine 0's links (16: leaf0–spine0, 20: leaf1–spine0) run at
/// 25 Gb/s, the others at 100 Gb/s.
const SLOW_SPINE: &str = r#"
name = "uet-slow-spine"
seed = 5
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 8
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "4KB"
header = "64B"
kmin = "24KB"
kmax = "96KB"
pmax = 1.0
[transport]
kind = "uet"
paths = 64
[routing]
kind = "ecmp"
[workload]
kind = "permutation"
size = "16MB"
[[faults]]
at = "0us"
link = 16
change = "rate"
rate = "25Gbps"
[[faults]]
at = "0us"
link = 20
change = "rate"
rate = "25Gbps"
"#;

/// Per 50 µs window: (mean queue at the two uplinks into the slow spine, bytes; distinct EVs
/// per 64 packets), and the time the last flow finished.
fn slow_spine(sets: &[&str]) -> (Vec<(f64, f64)>, Time) {
    let sc = scenario(SLOW_SPINE, sets);
    let (mut sim, _) = build(&sc).unwrap();
    // Every flow's EV counts are read per window, finished flows' too.
    sim.keep_finished_senders();
    sim.prepare();
    // Uplink ports: link 16 + 4·leaf + spine, forward direction (leaf → spine) is port 2·link.
    let up = |leaf: usize, spine: usize| 2 * (16 + 4 * leaf + spine);
    let mut out = Vec::new();
    let mut t = Time::ZERO;
    for _ in 0..16 {
        let mut q = 0.0;
        for _ in 0..10 {
            t += Time::from_us(5);
            sim.run(Some(t), &mut |_| true);
            q += (sim.ports()[up(0, 0)].queued_bytes() + sim.ports()[up(1, 0)].queued_bytes())
                as f64
                / 20.0;
        }
        let (mut blocks, mut distinct) = (0u64, 0u64);
        for f in sim.conns_mut().iter_mut() {
            if let Some(Sender::Uet(s)) = f.sender_opt_mut() {
                let (b, k) = s.take_ev_blocks();
                blocks += b;
                distinct += k;
            }
        }
        out.push((q, distinct as f64 / blocks.max(1) as f64));
    }
    sim.run(None, &mut |_| true);
    assert!(sim.conservation().is_ok());
    assert!(sim.flows().iter().all(|f| f.delivered_bytes == f.size_bytes));
    let done = sim.flows().iter().filter_map(|f| f.finish).max().unwrap();
    (out, done)
}

#[test]
fn reps_converges_on_good_entropies() {
    // An ACK per packet (`ack_every_bytes = 0`), so that every good EV comes back to REPS: with
    // htsim's default of one ACK per 16 KB REPS recycles one EV in four and sprays the rest at
    // random, and its convergence is diluted (measured: 38.5 → 35.4 distinct EVs per block).
    let (reps, reps_done) = slow_spine(&["transport.ack_every_bytes=0"]);
    let (obl, obl_done) =
        slow_spine(&["transport.ev_select=\"oblivious\"", "transport.ack_every_bytes=0"]);
    eprintln!("REPS (slow-spine uplink queue B, distinct EVs/64 pkts) per 50 µs: {reps:.1?}; all done at {reps_done}");
    eprintln!("oblivious: {obl:.1?}; all done at {obl_done}");
    let late = |v: &[(f64, f64)], i: usize| {
        v[v.len() - 6..].iter().map(|x| if i == 0 { x.0 } else { x.1 }).sum::<f64>() / 6.0
    };
    let early = |v: &[(f64, f64)], i: usize| {
        v[..2].iter().map(|x| if i == 0 { x.0 } else { x.1 }).sum::<f64>() / 2.0
    };
    let (d0, d1) = (early(&reps, 1), late(&reps, 1));
    assert!(
        d1 < 0.75 * d0,
        "REPS should use fewer distinct EVs over time: early {d0:.1}, late {d1:.1}"
    );
    assert!(late(&obl, 1) > 60.0, "oblivious spraying uses every EV in each block");
    let mean_q = |v: &[(f64, f64)]| v.iter().map(|x| x.0).sum::<f64>() / v.len() as f64;
    assert!(
        mean_q(&reps) < 0.6 * mean_q(&obl),
        "REPS keeps the slow spine's queue lower: {:.0} B vs oblivious {:.0} B",
        mean_q(&reps),
        mean_q(&obl)
    );
    assert!(reps_done < obl_done, "REPS finishes first: {reps_done} vs {obl_done}");
}

/// 4 leaves of 8 hosts over 2 spines (2:1 oversubscribed), otherwise [`SLOW_SPINE`]'s network
/// without its slow links, each host sending 8 MB.
fn oversubscribed() -> String {
    let mut text = SLOW_SPINE.split("[[faults]]").next().unwrap().to_string();
    for (from, to) in [
        ("uet-slow-spine", "uet-permutation"),
        ("seed = 5", "seed = 3"),
        ("leaves = 2\nspines = 4", "leaves = 4\nspines = 2"),
        ("size = \"16MB\"", "size = \"8MB\""),
    ] {
        assert!(text.contains(from), "SLOW_SPINE has no `{from}`");
        text = text.replace(from, to);
    }
    text
}

#[test]
fn nscc_holds_the_queue_near_its_target_delay() {
    let sc = scenario(&oversubscribed(), &[]);
    let (mut sim, _) = build(&sc).unwrap();
    sim.prepare();
    // Warm up 200 µs, then average each active flow's queuing-delay samples over 400 µs.
    sim.run(Some(Time::from_us(200)), &mut |_| true);
    for f in sim.conns_mut().iter_mut() {
        if let Some(Sender::Uet(s)) = f.sender_opt_mut() {
            s.reset_delay_stats();
        }
    }
    sim.run(Some(Time::from_us(600)), &mut |_| true);
    let mut delays = Vec::new();
    let mut target = 0.0;
    for f in sim.conns().iter() {
        if let (Some(Sender::Uet(s)), false) = (f.sender_opt(), f.idle()) {
            let (d, k) = s.mean_delay();
            target = s.target_qdelay().us_f64();
            if k > 100 {
                delays.push(d.us_f64());
            }
        }
    }
    assert!(delays.len() >= 10, "too few long-lived flows: {}", delays.len());
    let mean = delays.iter().sum::<f64>() / delays.len() as f64;
    let max = delays.iter().cloned().fold(0.0, f64::max);
    eprintln!("NSCC queuing delay: mean {mean:.2} µs, max {max:.2} µs over {} flows; target {target:.2} µs", delays.len());
    assert!(
        mean > 0.3 * target && mean < 1.5 * target,
        "mean delay {mean:.2} µs vs target {target:.2} µs"
    );
    assert!(sim.conservation().is_ok());
}
