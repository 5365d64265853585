//! Packet trimming end to end (`network.trim`): a 16 → 1 UET incast into one-BDP-ish queues.
//! With trimming on, every full-queue event becomes a 64-byte header that the receiver NACKs at
//! once, so no retransmission waits for a timeout and fewer packets are sent twice than when the
//! same queues drop; every byte is delivered and data packets are conserved. EQDS, which also
//! handles trims, completes without timeouts too; RoCE, which does not, still completes (its
//! receiver discards trimmed headers and its own recovery repairs them).

use std::path::Path;

use braid_cli::run::{run, RunResult};
use braid_cli::scenario::parse;
use braid_net::stats::DropReason;

const INCAST: &str = r#"
name = "trim-incast"
seed = 3
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 9
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "4086B"
header = "64B"
queue_limit = "100KB"
kmin = "20KB"
kmax = "80KB"
pmax = 1.0
ecn_scale_with_rate = false
[transport]
kind = "uet"
[routing]
kind = "ecmp"
[workload]
kind = "incast"
senders = 16
receiver = 0
size = "1MB"
"#;

fn incast(sets: &[&str]) -> RunResult {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = parse(INCAST, Path::new("."), &sets, None)
        .unwrap_or_else(|e| panic!("scenario error: {e}"));
    run(&sc, false).unwrap()
}

/// (retransmissions, timeouts) over all flows; checks that every flow completed with every byte.
fn check_complete(r: &RunResult) -> (u64, u64) {
    r.sim.conservation().unwrap();
    assert_eq!(r.sim.flows().len(), 16);
    let (mut retx, mut timeouts) = (0, 0);
    for (i, f) in r.sim.flows().iter().enumerate() {
        assert!(f.finish.is_some(), "flow did not complete");
        assert_eq!(f.delivered_bytes, f.size_bytes);
        let st = r.sim.conn_of(i).recovery_stats();
        retx += st.retransmissions;
        timeouts += st.timeouts;
    }
    assert_eq!(r.sim.data_in_flight(), 0);
    (retx, timeouts)
}

#[test]
fn uet_incast_with_trimming_has_no_timeouts_and_fewer_retransmissions() {
    let on = incast(&["network.trim=true", "network.trim_size=64B"]);
    let off = incast(&[]);
    let (retx_on, to_on) = check_complete(&on);
    let (retx_off, to_off) = check_complete(&off);
    let st = on.sim.stats();
    println!("trim on: {} trims, {retx_on} retx, {to_on} timeouts; off: {retx_off} retx, {to_off} timeouts", st.trims);
    assert!(st.trims > 0, "the incast must overflow the queue");
    // No switch dropped anything (the header queue never filled): every trimmed header reached
    // its receiver.
    let switch_drops = st.data_dropped[DropReason::BufferFull as usize]
        + st.data_dropped[DropReason::ClassLimit as usize];
    assert_eq!(switch_drops, 0);
    assert_eq!(st.trims, st.trimmed_arrived, "every trim reached the receiver");
    assert_eq!(to_on, 0, "trimmed packets are NACKed, not timed out");
    assert!(
        to_off > 0 || retx_off > retx_on,
        "without trimming the drops cost timeouts or more retransmissions"
    );
    assert!(retx_on < retx_off, "retransmissions with trimming {retx_on} vs without {retx_off}");
    assert_eq!(off.sim.stats().trims, 0);
}

#[test]
fn eqds_and_roce_complete_with_trimming_on() {
    let eqds = incast(&["network.trim=true", "transport.kind=eqds", "network.ecn=false"]);
    let (_, to) = check_complete(&eqds);
    assert_eq!(to, 0, "EQDS: trimmed packets are NACKed and pulled again");
    // RoCE does not handle trims: its NIC discards them like drops; go-back-N still finishes.
    let roce = incast(&["network.trim=true", "transport.kind=roce"]);
    check_complete(&roce);
}
