//! The defaults matrix: every transport at its defaults — and the reference
//! RoCE transport with each congestion control — on one small scenario per topology and workload
//! kind Braid ships. Every cell must
//! - complete every flow (no stall, no limit reached),
//! - conserve packets (injected = delivered + dropped + in flight, per class),
//! - deliver each byte exactly once (per flow and in the application byte count),
//! - end within [`BOUND`] × the scenario's lower bound on the makespan (see [`makespan_floor`]).
//!
//! The test prints the matrix of `end / floor` ratios (run with `--nocapture` to see it) and fails
//! listing every cell that breaks a rule. Scenarios are small (≤ 16 hosts, ≤ 2 MB per flow) so the
//! whole matrix runs in seconds in the optimised test profile.

use std::collections::BTreeMap;
use std::path::Path;

use braid_cli::run::run;
use braid_cli::scenario::{host_rate, parse};
use braid_core::Time;
use braid_net::sim::RunEnd;

/// How many times the makespan floor a cell of a lossless scenario may take. The floor ignores
/// path pinning, queueing, congestion-control start-up and the sharing of fabric links. Measured
/// worst cells (seeds as below): 10.2 — RoCE with DCQCN on the testbed (the flow is hashed onto
/// the 10 Gb/s path, 7.2 × the 70 Gb/s floor at line rate, and DCQCN tuned for 100 Gb/s keeps
/// ~70 % of it); 7.5 — MP-RDMA on the inter-DC scenario (the 7.6 MB flow DC0 → DC2 meets a 3 ms
/// queue at the 25 Gb/s DCI link before its first ACK and the 1 ms initial RTO fires; the RTO is
/// found spurious and the window restored, but MP-RDMA restarts its ACK clock on random paths —
/// 10.2 without the restore; DCTCP's window form went from 12.6 to 5.3 the same way).
const BOUND: f64 = 15.0;
/// The bound on the scenario with 1 % random loss and a failed link: a single-path transport
/// that loses a retransmission or a tail packet waits for its RTO (hundreds of µs, doubling) on a
/// run whose floor is 36 µs. Its end is a draw from that ladder of timeouts, not a margin over the
/// floor: RoCE (go-back-N) over seeds 1–40 ends at 0.28–0.89 ms in most runs, at 1.46–1.49 ms
/// (41×) in about one in eight and at 3.07 ms (85×) once, under either order of equal-time events.
const BOUND_LOSSY: f64 = 100.0;

/// The transports under test: each kind at its defaults (the registry,
/// `TransportKind::BUILTIN_NAMES`), then RoCE with each other congestion control (`CcKind::ALL`).
fn transports() -> Vec<(String, Vec<String>)> {
    use braid_proto::cc::CcKind;
    let mut v: Vec<(String, Vec<String>)> = braid_proto::transport::TransportKind::BUILTIN_NAMES
        .iter()
        .map(|k| (k.to_string(), Vec::new()))
        .collect();
    for &cc in CcKind::ALL.iter().filter(|&&c| c != CcKind::Dcqcn) {
        v.push((format!("roce+{cc}"), vec![format!("transport.cc=\"{cc}\"")]));
    }
    v
}

/// One small scenario per topology kind and workload kind. `{kind}` is the transport kind.
const SCENARIOS: &[(&str, &str)] = &[
    (
        "testbed",
        r#"
name = "m-testbed"
seed = 1
[topology]
kind = "testbed"
[network]
mtu = "1000B"
[transport]
kind = "{kind}"
[routing]
kind = "entropy"
[workload]
kind = "incast"
senders = [0]
receiver = 1
size = "2MB"
"#,
    ),
    (
        "four-path+10us",
        r#"
name = "m-four-path"
seed = 2
[topology]
kind = "four-path"
extra_delay = "10us"
[network]
mtu = "1000B"
[transport]
kind = "{kind}"
[routing]
kind = "entropy"
[workload]
kind = "flow-file"
file = "../../../examples/rondo-fig4-flows.csv"
"#,
    ),
    (
        "leaf-spine incast",
        r#"
name = "m-incast"
seed = 3
[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
[network]
mtu = "1000B"
[transport]
kind = "{kind}"
[routing]
kind = "ecmp"
[workload]
kind = "incast"
senders = "1-7"
receiver = 0
size = "256KB"
"#,
    ),
    (
        "fat-tree permutation",
        r#"
name = "m-permutation"
seed = 4
[topology]
kind = "fat-tree"
k = 4
[network]
mtu = "1000B"
[transport]
kind = "{kind}"
[routing]
kind = "ecmp"
[workload]
kind = "permutation"
size = "512KB"
"#,
    ),
    (
        "clos3 1% loss + link down",
        r#"
name = "m-clos-loss"
seed = 5
[topology]
kind = "clos3"
pods = 2
tors_per_pod = 2
aggs_per_pod = 2
cores = 2
hosts_per_tor = 2
[network]
mtu = "1000B"
loss_rate = 0.01
[transport]
kind = "{kind}"
[routing]
kind = "ecmp"
[workload]
kind = "all-to-all"
size = "64KB"
[[faults]]
at = "20us"
random_fraction = 0.05
scope = "fabric"
change = "down"
"#,
    ),
    (
        "inter-DC cdf",
        r#"
name = "m-inter-dc"
seed = 6
[topology]
kind = "inter-dc"
dcs = 3
hosts_per_dc = 4
leaves = 2
spines = 2
links = [
  { a = 0, b = 1, rate = "100Gbps", delay = "50us" },
  { a = 1, b = 2, rate = "100Gbps", delay = "50us" },
  { a = 0, b = 2, rate = "25Gbps", delay = "100us" },
]
[network]
mtu = "1000B"
pfc = true
[transport]
kind = "{kind}"
[routing]
kind = "lcmp"
[workload]
kind = "cdf"
cdf = "websearch"
load = 0.3
flows = 40
inter_group = true
"#,
    ),
];

/// A lower bound on when the last flow can finish, for any transport and any routing: each flow
/// from its start needs its bytes at the max-flow rate between its two hosts plus the shortest
/// one-way propagation delay, and each host's NIC serialises everything it sends (or receives)
/// back to back from its first start.
///
/// Not the per-flow ideal FCT Braid reports: that one is taken through one path's bottleneck,
/// which on the heterogeneous multipath testbed is slower than what spraying over all paths
/// reaches (slowdowns below 1).
fn makespan_floor(r: &braid_cli::run::RunResult, sc: &braid_cli::scenario::Scenario) -> Time {
    let topo = &sc.topology;
    let flows = r.sim.flows();
    let hosts = topo.hosts();
    let nic = |h: u32| host_rate(topo, hosts[h as usize]);
    let mut floor = Time::ZERO;
    let mut by_host: BTreeMap<(bool, u32), (Time, u64)> = BTreeMap::new();
    let mut pair_floor: BTreeMap<(u32, u32), (f64, Time)> = BTreeMap::new();
    for f in flows {
        let (flow_bps, prop) = *pair_floor.entry((f.src_host, f.dst_host)).or_insert_with(|| {
            let (a, b) = (hosts[f.src_host as usize].idx(), hosts[f.dst_host as usize].idx());
            (max_flow_bps(topo, a, b), shortest_delay(topo, a, b))
        });
        let tx = Time::from_ps((f.size_bytes as f64 * 8.0 / flow_bps * 1e12) as u64);
        floor = floor.max(f.start + tx + prop);
        for key in [(true, f.src_host), (false, f.dst_host)] {
            let e = by_host.entry(key).or_insert((f.start, 0));
            e.0 = e.0.min(f.start);
            e.1 += f.size_bytes;
        }
    }
    for (&(_, host), &(first, bytes)) in &by_host {
        floor = floor.max(first + nic(host).tx_time(bytes));
    }
    floor
}

/// The max-flow rate (bit/s) from node `s` to node `t`, every link carrying its rate each way
/// (Edmonds–Karp; the scenarios are small).
fn max_flow_bps(topo: &braid_net::Topology, s: usize, t: usize) -> f64 {
    let n = topo.nodes.len();
    // Residual capacity of each arc (see `arcs`).
    let mut cap: Vec<f64> = topo.links.iter().flat_map(|l| [l.rate.bps() as f64; 2]).collect();
    let adj = arcs(topo);
    let mut total = 0.0;
    loop {
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut queue = std::collections::VecDeque::from([s]);
        let mut seen = vec![false; n];
        seen[s] = true;
        while let Some(u) = queue.pop_front() {
            for &(v, arc) in &adj[u] {
                if !seen[v] && cap[arc] > 0.0 {
                    seen[v] = true;
                    via[v] = Some(arc);
                    queue.push_back(v);
                }
            }
        }
        if !seen[t] {
            return total;
        }
        // Walk back from t: an arc's tail is the other end of its link.
        let tail = |arc: usize| {
            let l = &topo.links[arc / 2];
            if arc % 2 == 0 {
                l.a.idx()
            } else {
                l.b.idx()
            }
        };
        let (mut push, mut v) = (f64::INFINITY, t);
        while v != s {
            let arc = via[v].unwrap();
            push = push.min(cap[arc]);
            v = tail(arc);
        }
        let mut v = t;
        while v != s {
            let arc = via[v].unwrap();
            cap[arc] -= push;
            cap[arc ^ 1] += push;
            v = tail(arc);
        }
        total += push;
    }
}

/// Per node, its outgoing arcs `(neighbour, arc)`: arc `2i` is link `i` from `a` to `b`, arc
/// `2i + 1` from `b` to `a`.
fn arcs(topo: &braid_net::Topology) -> Vec<Vec<(usize, usize)>> {
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); topo.nodes.len()];
    for (i, l) in topo.links.iter().enumerate() {
        adj[l.a.idx()].push((l.b.idx(), 2 * i));
        adj[l.b.idx()].push((l.a.idx(), 2 * i + 1));
    }
    adj
}

/// The smallest one-way propagation delay from node `s` to node `t` (Dijkstra).
fn shortest_delay(topo: &braid_net::Topology, s: usize, t: usize) -> Time {
    let n = topo.nodes.len();
    let adj = arcs(topo);
    let mut dist = vec![u64::MAX; n];
    let mut heap = std::collections::BinaryHeap::from([std::cmp::Reverse((0u64, s))]);
    dist[s] = 0;
    while let Some(std::cmp::Reverse((d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, arc) in &adj[u] {
            let nd = d + topo.links[arc / 2].delay.ps();
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(std::cmp::Reverse((nd, v)));
            }
        }
    }
    Time::from_ps(dist[t])
}

#[test]
fn every_transport_at_its_defaults_on_every_small_scenario() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut failures = Vec::new();
    let mut matrix: Vec<(String, Vec<String>)> = Vec::new();
    for (tname, extra) in transports() {
        let kind = tname.split('+').next().unwrap();
        let mut row = Vec::new();
        for (sname, text) in SCENARIOS {
            let text = text.replace("{kind}", kind);
            let mut sets: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
            // A generous watchdog so a stuck cell ends fast and is reported, not spun.
            sets.push("run.max_sim_time=\"200ms\"".into());
            let cell = format!("{tname} on {sname}");
            let sc = match parse(&text, &base, &sets, None) {
                Ok(sc) => sc,
                Err(e) => {
                    failures.push(format!("{cell}: scenario error: {e}"));
                    row.push("ERR".into());
                    continue;
                }
            };
            let r = match run(&sc, false) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{cell}: run error: {e}"));
                    row.push("ERR".into());
                    continue;
                }
            };
            let mut bad = Vec::new();
            if r.end != RunEnd::AllFlowsComplete {
                bad.push(format!("run ended {:?}", r.end));
            }
            if let Err(e) = r.sim.conservation() {
                bad.push(format!("conservation: {e:?}"));
            }
            let flows = r.sim.flows();
            let total: u64 = flows.iter().map(|f| f.size_bytes).sum();
            let incomplete: Vec<usize> = flows
                .iter()
                .enumerate()
                .filter(|(_, f)| f.finish.is_none())
                .map(|(i, _)| i)
                .collect();
            if !incomplete.is_empty() {
                bad.push(format!(
                    "{} of {} flows incomplete (first: {:?})",
                    incomplete.len(),
                    flows.len(),
                    &incomplete[..incomplete.len().min(5)]
                ));
            }
            for (i, f) in flows.iter().enumerate() {
                if f.finish.is_some() && f.delivered_bytes != f.size_bytes {
                    bad.push(format!(
                        "flow {i} delivered {} of {} bytes",
                        f.delivered_bytes, f.size_bytes
                    ));
                }
            }
            let app = r.sim.stats().app_bytes_delivered;
            if app != total {
                bad.push(format!(
                    "application received {app} bytes, the flows hold {total} (exactly once)"
                ));
            }
            let end = flows.iter().filter_map(|f| f.finish).max().unwrap_or(Time::ZERO);
            let floor = makespan_floor(&r, &sc);
            let ratio = end.ps() as f64 / floor.ps().max(1) as f64;
            let bound = if sname.contains("loss") { BOUND_LOSSY } else { BOUND };
            if ratio > bound {
                bad.push(format!(
                    "ended at {:.1} µs, {ratio:.1} × the floor of {:.1} µs (bound {bound})",
                    end.ps() as f64 / 1e6,
                    floor.ps() as f64 / 1e6
                ));
            }
            row.push(if bad.is_empty() { format!("{ratio:.2}") } else { format!("{ratio:.2}!") });
            for b in bad {
                failures.push(format!("{cell}: {b}"));
            }
        }
        matrix.push((tname.to_string(), row));
    }
    // The matrix: makespan over its floor; `!` marks a failed cell.
    let w = 18;
    let mut out = format!("{:w$}", "end / floor");
    for (s, _) in SCENARIOS {
        out += &format!(" | {:>w$}", s);
    }
    out += "\n";
    for (t, row) in &matrix {
        out += &format!("{t:w$}");
        for c in row {
            out += &format!(" | {c:>w$}");
        }
        out += "\n";
    }
    eprintln!("{out}");
    assert!(
        failures.is_empty(),
        "{} failing cells:\n{}\n\n{out}",
        failures.len(),
        failures.join("\n")
    );
}
