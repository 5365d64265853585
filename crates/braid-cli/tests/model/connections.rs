//! Traffic as applications make it (`docs/workloads.md`): persistent connections that carry many
//! messages, flow groups with their own transport, and a Chakra training trace replayed end to
//! end.
//!
//! What must hold, for every transport:
//! - a connection's state carries over: a message posted on a warm connection does not start
//!   again from a new flow's window — it finishes no later than the same message on a fresh
//!   connection, and for Rondo it starts at the window the previous message ended with and
//!   finishes at its ideal FCT;
//! - messages go out in order on their connection and complete in order, each byte is
//!   delivered once (the receiver's in-order point passes every message exactly once, nothing
//!   is left in flight, packets are conserved);
//! - each group of a mixed run runs its own protocol, and the outputs name it.

use crate::scratch;

use std::path::Path;
use std::process::Command;

use braid_cli::run::run;
use braid_cli::scenario::parse;
use braid_proto::transport::SenderFactory;

const TRANSPORTS: &[&str] = &["roce", "rondo", "rrps", "mprdma", "falcon", "uet", "eqds"];

/// Two leaves of 8 hosts, four spines.
const NET: &str = r#"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 4
hosts_per_leaf = 8
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"
[network]
mtu = "1000B"
header = "48B"
pfc = true
"#;

/// A scenario over `NET` with transport `kind` and the flow file `flows`, written to `dir`.
fn scenario(dir: &Path, kind: &str, flows: &str, extra: &str) -> braid_cli::scenario::Scenario {
    std::fs::write(dir.join("flows.csv"), flows).unwrap();
    let text = format!("name = \"conn\"\n{NET}\n[transport]\nkind = \"{kind}\"\n[workload]\nkind = \"flow-file\"\nfile = \"flows.csv\"\n{extra}");
    parse(&text, dir, &[], None).unwrap()
}

/// Three 2 MB messages from host 0 to host 8, each posted 20 µs after the previous completes.
const CHAIN: &str =
    "src,dst,size,start,deps,conn\n0,8,2MB,0,,1\n0,8,2MB,20us,0,1\n0,8,2MB,20us,1,1\n";

fn fcts(r: &braid_cli::run::RunResult) -> Vec<f64> {
    r.flows.iter().map(|f| f.fct_ns().expect("completed")).collect()
}

#[test]
fn a_warm_connection_carries_its_state_to_the_next_message_on_every_transport() {
    let d = scratch::TmpDir::new("conn", "warm");
    for kind in TRANSPORTS {
        let warm = run(&scenario(&d, kind, CHAIN, ""), false).unwrap();
        let cold_flows = CHAIN.replace(",1\n", ",\n");
        let cold = run(&scenario(&d, kind, &cold_flows, ""), false).unwrap();
        assert_eq!(warm.sim.conns().len(), 1, "{kind}: one connection");
        assert_eq!(cold.sim.conns().len(), 3, "{kind}: a connection per message");
        for r in [&warm, &cold] {
            r.sim.conservation().unwrap();
            assert_eq!(r.sim.data_in_flight(), 0, "{kind}");
            assert!(
                r.flows.iter().all(|f| f.finish_ns.is_some()),
                "{kind}: every message completes"
            );
            assert!(
                r.sim
                    .flows()
                    .iter()
                    .all(|f| f.delivered_bytes == f.size_bytes && f.delivered_at.is_some()),
                "{kind}"
            );
        }
        // In order on the connection: consecutive PSN ranges, and completions in that order.
        let m = warm.sim.flows();
        assert_eq!(
            (m[0].psn_first, m[1].psn_first, m[2].psn_first),
            (0, m[0].psn_end, m[1].psn_end),
            "{kind}"
        );
        assert_eq!(
            warm.sim.conns()[0].receiver.next_expected(),
            m[2].psn_end,
            "{kind}: every PSN delivered"
        );
        assert_eq!(warm.sim.conns()[0].receiver.duplicates(), 0, "{kind}: no byte twice");
        let (w, c) = (fcts(&warm), fcts(&cold));
        for k in 1..3 {
            assert!(
                w[k] <= c[k] * 1.02,
                "{kind}: message {k} on the warm connection took {} ns, on a fresh one {} ns",
                w[k],
                c[k]
            );
        }
    }
}

#[test]
fn rondo_resumes_at_the_window_the_last_message_ended_with() {
    let d = scratch::TmpDir::new("conn", "rondo");
    let sc = scenario(&d, "rondo", CHAIN, "[output]\npaths = true\nsample_interval = \"2us\"\n");
    let warm = run(&sc, false).unwrap();
    let flows = warm.sim.flows();
    // The summed window of the connection's paths at a sample time.
    let window_at = |t_ns: f64| -> u64 {
        let rows = warm.sim.path_series();
        let t = rows.iter().map(|r| r.0.ns_f64()).filter(|&x| x <= t_ns).fold(0.0, f64::max);
        rows.iter().filter(|r| r.0.ns_f64() == t).map(|r| r.2.window_bytes).sum()
    };
    let end1 = flows[0].finish.unwrap().ns_f64();
    let start2 = flows[1].started_at.unwrap().ns_f64();
    let before = window_at(end1 - 4_000.0);
    // Over the second message's first 20 µs the window never falls below 90 % of that.
    for k in 1..10 {
        let w = window_at(start2 + 2_000.0 * k as f64);
        assert!(
            w as f64 >= 0.9 * before as f64,
            "window {w} B at {} µs into message 2, {before} B at the end of message 1",
            2 * k
        );
    }
    // Without a new probing round trip or W0 the later messages run at their ideal FCT.
    for f in &warm.flows[1..] {
        assert!(f.slowdown().unwrap() < 1.005, "message {} slowdown {:?}", f.id, f.slowdown());
    }
    let cold = run(&scenario(&d, "rondo", &CHAIN.replace(",1\n", ",\n"), ""), false).unwrap();
    assert!(cold.flows[1].slowdown().unwrap() > 1.03, "a fresh connection pays its start-up");
}

#[test]
fn messages_posted_together_go_out_one_after_another() {
    let d = scratch::TmpDir::new("conn", "queue");
    let flows = "src,dst,size,start,conn\n0,8,1MB,0,1\n0,8,500KB,0,1\n0,8,2MB,0,1\n1,9,1MB,0,\n";
    for kind in TRANSPORTS {
        let sc = scenario(&d, kind, flows, "");
        let r = run(&sc, false).unwrap();
        r.sim.conservation().unwrap();
        let m = r.sim.flows();
        assert_eq!(r.sim.conns().len(), 2, "{kind}");
        assert!(
            m[0].finish < m[1].finish && m[1].finish < m[2].finish,
            "{kind}: completions in posting order"
        );
        assert!(
            m[0].delivered_at < m[1].delivered_at && m[1].delivered_at < m[2].delivered_at,
            "{kind}"
        );
        // The last message waited behind the first two: it cannot beat their bytes at line rate.
        let line_ns = 3_500_000.0 * 8.0 / 100.0;
        assert!(r.flows[2].finish_ns.unwrap() >= line_ns, "{kind}");
        // connections.csv: the shared connection's lifetime totals.
        let dir = d.join(format!("out-{kind}"));
        braid_cli::run::write_outputs(&dir, &sc, &r).unwrap();
        let csv = std::fs::read_to_string(dir.join("connections.csv")).unwrap();
        let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
        assert_eq!(
            &row[..8],
            &["0", "0", "8", "main", *kind, "3", "3", "3500000"],
            "{kind}: {csv}"
        );
    }
}

#[test]
fn each_group_runs_its_own_transport_and_the_outputs_name_it() {
    let d = scratch::TmpDir::new("conn", "mixed");
    let flows = "src,dst,size,start,group\n0,8,2MB,0,\n1,9,2MB,0,\n2,10,2MB,0,background\n3,11,2MB,0,background\n";
    let extra = "[groups.background.transport]\nkind = \"roce\"\ncc = \"dcqcn\"\n";
    let sc = scenario(&d, "rondo", flows, extra);
    let r = run(&sc, false).unwrap();
    r.sim.conservation().unwrap();
    assert_eq!(r.sim.data_in_flight(), 0);
    for (i, f) in r.flows.iter().enumerate() {
        let bg = i >= 2;
        assert_eq!(f.group, if bg { "background" } else { "main" });
        assert_eq!(f.transport, if bg { "roce" } else { "rondo" });
        // The sender is built from the group's transport when the flow starts (and let go when
        // it finishes): the transport it is built from, and the one built then, are checked.
        let conn = r.sim.flows()[i].conn as usize;
        let spec = r.sim.sender_factory(conn).expect("groups' transports given");
        assert!(
            if bg {
                matches!(spec, SenderFactory::Roce(_))
            } else {
                matches!(spec, SenderFactory::Rondo(_))
            },
            "flow {i}"
        );
        assert!(
            r.sim.with_sender(conn, |_| ()).is_none(),
            "flow {i}: a finished one-message flow keeps no sender"
        );
        assert!(f.finish_ns.is_some());
    }
    // Rondo sprays, RoCE keeps one path: only the foreground has probes.
    assert!(r.sim.conns()[0].probes_sent > 0 && r.sim.conns()[2].probes_sent == 0);
    let g = format!("{:?}", r.summary.get("group_transports"));
    assert!(g.contains("background") && g.contains("roce (dcqcn)"), "{g}");
    // A group the workload does not make is named, not an error; `main` cannot be a group.
    let e = parse(&format!("name = \"x\"\n{NET}\n[transport]\nkind = \"rondo\"\n[workload]\nkind = \"permutation\"\nsize = \"1KB\"\n[groups.main.transport]\nkind = \"roce\"\n"), &d, &[], None)
        .unwrap_err();
    assert!(e.contains("groups.main"), "{e}");
    let e = parse(&format!("name = \"x\"\n{NET}\n[transport]\nkind = \"rondo\"\n[workload]\nkind = \"permutation\"\nsize = \"1KB\"\n[groups.bg.transport]\nkind = \"roce\"\ncc = \"nope\"\n"), &d, &[], None)
        .unwrap_err();
    assert!(e.contains("groups.bg") && e.contains("nope"), "{e}");
    // `--set` reaches a group's transport.
    let sets = vec!["groups.background.transport.kind=\"uet\"".to_string()];
    let text = format!("name = \"x\"\n{NET}\n[transport]\nkind = \"rondo\"\n[workload]\nkind = \"flow-file\"\nfile = \"flows.csv\"\n{extra}");
    let sc = parse(&text, &d, &sets, None).unwrap();
    assert_eq!(sc.group_transport("background").kind.name(), "uet");
}

#[test]
fn the_moe_trace_replays_end_to_end_on_persistent_connections() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sc = braid_cli::scenario::load(
        &root.join("examples/moe-training.toml"),
        &["workload.size_scale=0.0005".into(), "transport.kind=\"roce\"".into()],
        None,
    )
    .unwrap();
    let r = run(&sc, false).unwrap();
    r.sim.conservation().unwrap();
    assert_eq!(r.sim.data_in_flight(), 0);
    assert!(r.flows.iter().all(|f| f.finish_ns.is_some()));
    // 128 ranks, one iteration: every collective instance decomposed (data/chakra/moe7b).
    assert_eq!(r.flows.len(), 103_552);
    let conns = r.sim.conns().len();
    assert!(conns < 2_000 && r.flows.len() > 50 * conns, "{conns} connections");
    let hosts: std::collections::HashSet<u32> = r.flows.iter().map(|f| f.src).collect();
    assert_eq!(hosts.len(), 128);
    // Spread over the five pods (host h is in pod h / 64).
    let pods: std::collections::HashSet<u32> = hosts.iter().map(|h| h / 64).collect();
    assert_eq!(pods.len(), 5);
    let jct = format!("{:?}", r.summary.get("jct_per_job_ns"));
    for job in ["chakra", "all-reduce", "all-to-all", "all-gather", "reduce-scatter", "send-recv"] {
        assert!(jct.contains(job), "{job} in {jct}");
    }
}

/// Writes scenario `text` to `f`, runs it into `out` and returns its stderr, checking that the
/// run was refused with exit 2.
fn refused(f: &Path, text: String, out: &Path) -> String {
    std::fs::write(f, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(f)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    err
}

#[test]
fn malformed_traces_end_with_exit_2_and_the_reason() {
    let d = scratch::TmpDir::new("conn", "bad-trace");
    // A truncated rank file: a length prefix promising more than the file holds.
    std::fs::write(d.join("t.0.et"), [0x02u8, 0x0a, 0x00, 0x30, 0x08]).unwrap();
    std::fs::write(d.join("t.1.et"), [0x00u8]).unwrap();
    let text = format!("name = \"x\"\n{NET}\n[transport]\nkind = \"roce\"\n[workload]\nkind = \"chakra\"\ntrace = \"t\"\n");
    let f = d.join("s.toml");
    let err = refused(&f, text, &d.join("out"));
    assert!(err.contains("t.0.et") && err.contains("past the end"), "{err}");
    assert!(!d.join("out/summary.json").exists());
    // No trace at all.
    let text = format!("name = \"x\"\n{NET}\n[transport]\nkind = \"roce\"\n[workload]\nkind = \"chakra\"\ntrace = \"missing\"\n");
    let err = refused(&f, text, &d.join("out"));
    assert!(err.contains("no Chakra trace"), "{err}");
}

/// A connection holds a sender only while it is in progress: none is built before its first
/// message starts, and a one-message connection lets its sender go when it finishes but keeps
/// its loss-recovery counters; a shared connection keeps its sender for the messages to come. The
/// runs' outputs do not depend on it (the golden fixture is the same bytes as when every sender
/// was built with the run).
#[test]
fn senders_live_only_while_their_connections_are_in_progress() {
    let d = scratch::TmpDir::new("conn", "lifetime");
    // Two one-message flows, the second starting after the first has finished, and a chain on a
    // shared connection.
    let flows = "src,dst,size,start,deps,conn\n0,8,2MB,0,,\n1,9,2MB,400us,,\n2,10,2MB,0,,7\n2,10,2MB,20us,2,7\n";
    for kind in TRANSPORTS {
        let sc = scenario(&d, kind, flows, "");
        let (mut sim, _) = braid_cli::build::build(&sc).unwrap();
        assert!(
            sim.conns().iter().all(|c| !c.has_sender() && c.holds_sender()),
            "{kind}: a sender was built before its start"
        );
        sim.prepare();
        sim.run(Some(braid_core::Time::from_us(300)), &mut |_| true);
        let first = sim.flows()[0].conn as usize;
        let second = sim.flows()[1].conn as usize;
        assert!(sim.flows()[0].finish.is_some(), "{kind}: the first flow should be done by 300 µs");
        assert!(
            !sim.conns()[first].has_sender() && !sim.conns()[first].holds_sender(),
            "{kind}: a finished flow kept its sender"
        );
        assert!(
            !sim.conns()[second].has_sender() && sim.conns()[second].holds_sender(),
            "{kind}: a flow not started has a sender"
        );
        sim.run(None, &mut |_| true);
        assert!(sim.flows().iter().all(|f| f.finish.is_some()), "{kind}: every flow completes");
        let shared = sim.flows()[2].conn as usize;
        assert!(sim.conns()[shared].has_sender(), "{kind}: a shared connection lets its sender go");
        // The counters outlive the sender: the same as a run that keeps every sender.
        let (mut keep, _) = braid_cli::build::build(&sc).unwrap();
        keep.keep_finished_senders();
        keep.prepare();
        keep.run(None, &mut |_| true);
        for c in 0..sim.conns().len() {
            assert!(keep.conns()[c].has_sender(), "{kind}: keep_finished_senders let one go");
            assert_eq!(
                sim.conns()[c].recovery_stats(),
                keep.conns()[c].recovery_stats(),
                "{kind}: connection {c}'s counters"
            );
        }
    }
}
