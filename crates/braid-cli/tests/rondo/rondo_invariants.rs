//! Rondo's invariants under random heterogeneity, on 20 seeded draws of a small
//! three-tier Clos (16 hosts, 1 MB permutation): extra delay of 0–50 µs on up to 10 % of the
//! links and rates cut to 25–75 % on up to 10 %, as `[[faults]]` in effect from the start.
//!
//! - **No starving flow.** Every flow completes, and the slowest within `K_MEDIAN` × the run's
//!   median slowdown (slowdown = FCT over the ideal FCT of the flow alone on the topology's best
//!   path with the faults, `docs/metrics.md`).
//! - **No window stuck below a packet.** No logical path of a running flow keeps a window below
//!   one MTU for more than 10 of the flow's base RTTs (ARCC's `W = r̂·T + q` with a margin `q`
//!   that recovers; capacity probing re-triggers).
//! - **Few spurious retransmissions.** With 0.1 % random loss of data packets on every link
//!   (`network.loss_on = "forward"`, a switch dropping data as in Rondo §2.2) the copies resent
//!   although the original arrived stay ≤ 0.1 % of the data packets (§6.2.5, Fig 15/16: 0.05 % for
//!   Early Recovery with a 4-packet threshold), and the run completes. When ACKs are lost too
//!   (`"all"`), a lost ACK of a packet above a hole hides its arrival until the hole is filled and
//!   Early Recovery resends it: about one spurious copy per such ACK, bounded here at 0.4 %.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::{Rng, Time};

/// Slowest flow over the median, at most. Measured worst over the 20 draws: 2.63 when this bound
/// was set; 3.03 (draw 3: four flows at 3.2–3.65× their ideal, sprayed over two paths 49 µs
/// longer than the other two) since the ideal FCT became the best of a flow's candidate paths
/// and W0 4 MTU (docs/metrics.md, docs/rondo.md). Starvation, what this guards against, showed
/// as tens of times the median.
const K_MEDIAN: f64 = 3.5;

/// One draw: (extra delay µs, fraction of links delayed, rate factor, fraction of links cut).
fn draw(seed: u64) -> (u64, f64, f64, f64) {
    let mut r = Rng::new(0x13_0000 + seed);
    let delay_us = r.below(51);
    let delay_frac = 0.04 + 0.06 * r.f64();
    let rate = 0.25 + 0.5 * r.f64();
    let rate_frac = 0.04 + 0.06 * r.f64();
    (delay_us, delay_frac, rate, rate_frac)
}

fn scenario(seed: u64, loss: f64, loss_on: &str) -> String {
    let (d, fd, rc, fr) = draw(seed);
    format!(
        r#"
name = "rondo-invariants"
seed = {seed}
[topology]
kind = "clos3"
pods = 2
tors_per_pod = 2
aggs_per_pod = 2
cores = 4
hosts_per_tor = 4
host_rate = "100Gbps"
fabric_rate = "200Gbps"
delay = "1us"
[network]
mtu = "1000B"
pfc = true
loss_rate = {loss}
loss_on = "{loss_on}"
[transport]
kind = "rondo"
[routing]
kind = "ecmp"
[workload]
kind = "permutation"
size = "1MB"
[output]
paths = true
sample_interval = "2us"
[run]
max_sim_time = "50ms"
[[faults]]
at = "0us"
random_fraction = {fd:.4}
change = "delay"
add_delay = "{d}us"
[[faults]]
at = "0us"
random_fraction = {fr:.4}
change = "rate"
rate_factor = {rc:.3}
"#
    )
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn no_flow_starves_and_no_window_stays_below_a_packet() {
    let mut worst_ratio = (0.0, 0);
    for seed in 1..=20 {
        let sc = parse(&scenario(seed, 0.0, "all"), Path::new("."), &[], None).unwrap();
        let r = run(&sc, false).unwrap();
        let mut slow: Vec<f64> = r
            .flows
            .iter()
            .map(|f| {
                f.slowdown().unwrap_or_else(|| {
                    panic!(
                        "draw {seed} {:?}: flow {} did not finish ({:?})",
                        draw(seed),
                        f.id,
                        r.end
                    )
                })
            })
            .collect();
        let max = slow.iter().copied().fold(0.0, f64::max);
        let med = median(&mut slow);
        if max / med > worst_ratio.0 {
            worst_ratio = (max / med, seed);
        }
        assert!(
            max <= K_MEDIAN * med,
            "draw {seed} {:?}: slowest flow at {max:.2}× its ideal FCT, median {med:.2}",
            draw(seed)
        );

        // Windows: the longest stretch a path of a running flow spends below one MTU.
        let flows = r.sim.flows();
        let mut below_since: std::collections::HashMap<(u32, u16), Time> = Default::default();
        for &(t, f, s) in r.sim.path_series() {
            let flow = &flows[f as usize];
            if flow.finish.is_some_and(|fin| t >= fin) {
                continue;
            }
            let key = (f, s.path);
            if s.window_bytes < 1000 {
                let since = *below_since.entry(key).or_insert(t);
                // The flow's base RTT is at most its ideal FCT minus its serialisation time.
                let base_rtt =
                    flow.ideal_fct.saturating_sub(Time::from_ps(flow.size_bytes * 8 * 10));
                assert!(
                    t - since <= base_rtt.mul_f64(10.0).max(Time::from_us(20)),
                    "draw {seed}: flow {f} path {} below one MTU ({} B) since {since:?}, now {t:?} (base RTT {base_rtt:?})",
                    s.path,
                    s.window_bytes
                );
            } else {
                below_since.remove(&key);
            }
        }
    }
    eprintln!("worst slowest/median over 20 draws: {:.2} (draw {})", worst_ratio.0, worst_ratio.1);
}

/// Spurious copies over data packets, and retransmissions and data packets, over the 20 draws.
fn spurious_ratio(loss_on: &str) -> (f64, u64, u64) {
    let (mut spurious, mut data, mut retx) = (0u64, 0u64, 0u64);
    for seed in 1..=20 {
        let sc = parse(
            &scenario(seed, 0.001, loss_on),
            Path::new("."),
            &["output.paths=false".into()],
            None,
        )
        .unwrap();
        let r = run(&sc, false).unwrap();
        assert!(
            r.flows.iter().all(|f| f.finish_ns.is_some()),
            "draw {seed}: run ended {:?}",
            r.end
        );
        spurious += r.flows.iter().map(|f| f.spurious_retransmissions).sum::<u64>();
        retx += r.flows.iter().map(|f| f.retransmissions).sum::<u64>();
        data += r.flows.iter().map(|f| f.size_bytes.div_ceil(1000)).sum::<u64>();
    }
    let ratio = spurious as f64 / data as f64;
    eprintln!("loss on {loss_on}: spurious {spurious} of {data} data packets ({:.3} %), {retx} retransmissions", 100.0 * ratio);
    // 0.1 % loss per link over 3–5 links: several per thousand packets are lost and resent.
    assert!(
        retx >= data / 1000,
        "too few retransmissions ({retx}) for 0.1 % loss: is the loss applied?"
    );
    (ratio, retx, data)
}

#[test]
fn random_data_loss_gives_few_spurious_retransmissions() {
    let (ratio, _, _) = spurious_ratio("forward");
    assert!(
        ratio <= 0.001,
        "spurious retransmissions {:.3} % of data packets (bound 0.1 %)",
        100.0 * ratio
    );
}

/// ACKs lost too: the ACK bitmap (the 64 PSNs below the acknowledged one) names a packet whose own
/// ACK was lost, so the bound is the same as for data loss alone (without the bitmap each lost
/// ACK above the cumulative ACK cost about one spurious copy: 0.25 % on the permutation example).
#[test]
fn lost_acks_do_not_read_as_lost_packets() {
    let (ratio, _, _) = spurious_ratio("all");
    assert!(
        ratio <= 0.001,
        "spurious retransmissions {:.3} % of data packets (bound 0.1 %)",
        100.0 * ratio
    );
}
