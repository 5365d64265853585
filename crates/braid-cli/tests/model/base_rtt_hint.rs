//! The base RTT the driver hands to transports, and transports that survive a wrong one
//! (a topology hint shorter than every path).
//!
//! - A `[[faults]]` entry in effect when a flow starts is part of its path: base RTT and ideal
//!   FCT describe the network as it is then (`Sim::path_info_at`).
//! - Rondo's per-path `T_p` is never below the RTT measured on the path: when the hint is too
//!   short (here: delay added 1 ns after the flows start, so the driver cannot know it) the
//!   windows `W* = r̂·T_p + q` must still cover each path's pipe. Before the fix every flow of this
//!   scenario starved at windows below one packet.

use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_core::Time;

fn scenario(fault_at: &str, kind: &str) -> String {
    format!(
        r#"
name = "hint"
seed = 3
[topology]
kind = "clos3"
pods = 2
tors_per_pod = 2
aggs_per_pod = 2
cores = 4
hosts_per_tor = 4
delay = "1us"
[network]
mtu = "1000B"
pfc = true
[transport]
kind = "{kind}"
[routing]
kind = "ecmp"
[workload]
kind = "permutation"
size = "1MB"
[[faults]]
at = "{fault_at}"
random_fraction = 1.0
scope = "fabric"
change = "delay"
add_delay = "20us"
"#
    )
}

#[test]
fn faults_in_effect_at_the_start_are_in_the_ideal_fct() {
    let ideal = |fault_at: &str| -> Vec<Time> {
        let sc = parse(&scenario(fault_at, "roce"), Path::new("."), &[], None).unwrap();
        let (sim, _) = braid_cli::build::build(&sc).unwrap();
        sim.flows().iter().map(|f| f.ideal_fct).collect()
    };
    let (with, later) = (ideal("0us"), ideal("1ms"));
    assert_eq!(with.len(), later.len());
    let mut crossing = 0;
    for (i, (w, l)) in with.iter().zip(&later).enumerate() {
        // Every fabric link of the path gets +20 µs, and the ideal FCT crosses each link's delay
        // twice (data and the last ACK): +40 µs per fabric link (none between hosts of one ToR).
        assert!(w >= l, "flow {i}: ideal {w:?} with the fault, {l:?} without");
        let extra = w.ps() - l.ps();
        assert_eq!(
            extra % Time::from_us(40).ps(),
            0,
            "flow {i}: ideal {w:?} with the fault, {l:?} without"
        );
        crossing += usize::from(extra > 0);
    }
    assert!(crossing >= with.len() / 2, "only {crossing} of {} flows cross the fabric", with.len());
}

#[test]
fn rondo_survives_a_base_rtt_hint_that_is_too_short() {
    let sc = parse(
        &scenario("1ns", "rondo"),
        Path::new("."),
        &["run.max_sim_time=\"50ms\"".into()],
        None,
    )
    .unwrap();
    let r = run(&sc, false).unwrap();
    let flows = r.sim.flows();
    assert!(flows.iter().all(|f| f.finish.is_some()), "run ended {:?}", r.end);
    // Each flow alone would take 1 MB at 100 Gb/s (80 µs) plus a round trip of up to
    // 4 fabric hops × 2 × 21 µs: well under 300 µs. A permutation on a non-blocking Clos with
    // ECMP collisions at most doubles that; a starving path takes milliseconds.
    let worst = flows.iter().map(|f| f.finish.unwrap() - f.start).max().unwrap();
    assert!(
        worst < Time::from_us(900),
        "slowest Rondo flow took {:.1} µs",
        worst.ps() as f64 / 1e6
    );
}

/// `Sim::longest_base_rtt_at`, the bound of Rondo's `rtt_bound`: on a Clos whose equal-cost paths
/// are alike (no fault, or +20 µs on every fabric link) the longest minimum-hop path is the best
/// one; with +20 µs on half the fabric links some pairs' longest path is longer than their best by
/// whole multiples of 40 µs (each delayed link crossed by the data and by the ACK).
#[test]
fn the_longest_path_is_the_best_one_where_the_paths_are_alike() {
    let gaps = |fraction: &str| -> Vec<i128> {
        let text = scenario("0us", "roce")
            .replace("random_fraction = 1.0", &format!("random_fraction = {fraction}"));
        let sc = parse(&text, Path::new("."), &[], None).unwrap();
        let (mut sim, _) = braid_cli::build::build(&sc).unwrap();
        let (wire, ack) = (1064, sc.net.ack_bytes as u64);
        let pairs: Vec<(u32, u32)> = sim.flows().iter().map(|f| (f.src_host, f.dst_host)).collect();
        pairs
            .iter()
            .map(|&(s, d)| {
                let best = sim.path_info_at(s, d, Time::ZERO).unwrap().base_rtt(wire, ack);
                let longest = sim.longest_base_rtt_at(s, d, Time::ZERO, wire, ack).unwrap();
                longest.ps() as i128 - best.ps() as i128
            })
            .collect()
    };
    assert!(
        gaps("1.0").iter().all(|&g| g == 0),
        "every fabric link delayed alike: {:?}",
        gaps("1.0")
    );
    let half = gaps("0.5");
    assert!(half.iter().all(|&g| g >= 0 && g % Time::from_us(40).ps() as i128 == 0), "{half:?}");
    assert!(
        half.iter().any(|&g| g > 0),
        "no pair has a longer path with half the fabric delayed: {half:?}"
    );
}

/// Two faults in effect at different flows' starts: each flow's ideal FCT is that of the network
/// at its own start, whatever the order in which the driver asks for the pairs' paths (the ports
/// of one epoch must not answer for another's).
#[test]
fn each_flow_ideal_fct_is_of_the_network_at_its_own_start() {
    let dir = std::env::temp_dir().join(format!("braid-epochs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Hosts 0 → 8 and 1 → 9 cross pods. The first flow starts under the first fault (+20 µs on
    // every fabric link) only, the other two after the second (every fabric link at 50 µs).
    std::fs::write(
        dir.join("flows.csv"),
        "src,dst,size,start\n0,8,100KB,0us\n1,9,100KB,2ms\n0,8,100KB,2ms\n",
    )
    .unwrap();
    let text = scenario("0us", "roce").replace("kind = \"permutation\"\nsize = \"1MB\"", "kind = \"flow-file\"\nfile = \"flows.csv\"")
        + "[[faults]]\nat = \"1ms\"\nrandom_fraction = 1.0\nscope = \"fabric\"\nchange = \"delay\"\ndelay = \"50us\"\n";
    let ideal = |text: &str| -> Vec<Time> {
        let sc = parse(text, &dir, &[], None).unwrap();
        let (sim, _) = braid_cli::build::build(&sc).unwrap();
        sim.flows().iter().map(|f| f.ideal_fct).collect()
    };
    let both = ideal(&text);
    // Without the second fault every flow sees the first one only.
    let first_only = ideal(&text.replace("at = \"1ms\"", "at = \"1000ms\""));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(both[0], first_only[0], "the flow at 0 µs: {both:?} against {first_only:?}");
    // The later flows start with every fabric link at 50 µs instead of 21 µs.
    for i in [1, 2] {
        assert!(
            both[i] > first_only[i],
            "flow {i} starts after the second fault: {both:?} against {first_only:?}"
        );
    }
    assert!(both[2] > both[0], "the same pair at two epochs: {both:?}");
}
