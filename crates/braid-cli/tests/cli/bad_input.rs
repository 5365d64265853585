//! Bad input ends with a clear message naming the field, exit code 2, no panic, and no
//! `summary.json` left behind.

use std::path::PathBuf;
use std::process::Command;

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("braid-bad-input-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const GOOD: &str = r#"
name = "ok"
seed = 1
[topology]
kind = "leaf-spine"
leaves = 2
spines = 1
hosts_per_leaf = 2
[transport]
kind = "roce"
cc = "fixed"
[workload]
kind = "permutation"
size = "10KB"
"#;

/// Run `braid run` on `text` (after the string replacement) and return (exit code, stderr).
fn braid_run(name: &str, text: &str, extra: &[&str]) -> (i32, String, PathBuf) {
    let d = tmpdir(name);
    let f = d.join("s.toml");
    std::fs::write(&f, text).unwrap();
    let out = d.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(&f)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .args(extra)
        .output()
        .unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned(), out)
}

fn expect_error(name: &str, text: &str, extra: &[&str], needle: &str) {
    let (code, err, out) = braid_run(name, text, extra);
    assert_eq!(code, 2, "{name}: exit code {code}, stderr: {err}");
    assert!(err.contains(needle), "{name}: message should mention `{needle}`: {err}");
    assert!(!err.contains("panicked"), "{name}: panicked: {err}");
    assert!(!out.join("summary.json").exists(), "{name}: summary.json left behind");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn good_scenario_runs() {
    let (code, err, out) = braid_run("good", GOOD, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.join("summary.json").exists());
    assert!(out.join("flows.csv").exists());
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn malformed_toml() {
    expect_error("malformed", "name = \"x\"\n[topology\nkind = 3", &[], "malformed TOML");
}

#[test]
fn unknown_kind() {
    expect_error(
        "unknown-kind",
        &GOOD.replace("leaf-spine", "hypercube"),
        &[],
        "unknown topology kind `hypercube`",
    );
    expect_error(
        "unknown-transport",
        GOOD,
        &["--set", "transport.kind=tcp-reno"],
        "transport.kind",
    );
    expect_error("unknown-cc", GOOD, &["--set", "transport.cc=bbr"], "transport.cc");
}

#[test]
fn unknown_field() {
    expect_error(
        "unknown-field",
        &GOOD.replace("spines = 1", "spines = 1\nspline = 3"),
        &[],
        "topology.spline",
    );
    // A misspelt table at the root names the root's tables, not "the fields of ``".
    expect_error(
        "unknown-root-table",
        GOOD,
        &["--set", "tranport.kind=uet"],
        "unknown table or field `tranport` at the top of the scenario (known: name, seed, ",
    );
    // A misspelt kind's sub-table is named as one, not as a field of the wrong type.
    expect_error(
        "unknown-sub-table",
        &format!("{GOOD}\n[transport.rocee]\nx = 1\n"),
        &[],
        "unknown sub-table `[transport.rocee]`",
    );
}

/// The real-packet commands name what is wrong too: a busy address, a path without its delay.
#[test]
fn real_packet_commands_name_the_address_and_the_missing_delay() {
    let busy = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(["recv", "--listen", &addr])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(["emulate", "--listen", "127.0.0.1:0", "--forward", &addr, "--path", "rate=50Mbps"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("needs `delay=`"), "{err}");
}

#[test]
fn negative_or_zero_rate() {
    expect_error(
        "zero-rate",
        GOOD,
        &["--set", "topology.host_rate=\"0Gbps\""],
        "topology.host_rate",
    );
    expect_error(
        "negative-rate",
        GOOD,
        &["--set", "topology.fabric_rate=\"-5Gbps\""],
        "topology.fabric_rate",
    );
}

#[test]
fn disconnected_topology() {
    let d = tmpdir("disc-topo");
    let topo = d.join("t.topo");
    std::fs::write(&topo, "braid-topology v1\nnode h0 host\nnode h1 host\nnode h2 host\nnode s0 switch\nlink h0 s0 100Gbps 1us\nlink h1 s0 100Gbps 1us\n")
        .unwrap();
    let text = GOOD.replace(
        "kind = \"leaf-spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2",
        &format!("kind = \"file\"\nfile = \"{}\"", topo.display()),
    );
    expect_error("disconnected", &text, &[], "disconnected");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn flow_to_missing_host() {
    let text = GOOD.replace(
        "kind = \"permutation\"\nsize = \"10KB\"",
        "kind = \"incast\"\nsenders = [0]\nreceiver = 99\nsize = \"10KB\"",
    );
    expect_error("missing-host", &text, &[], "99");
}

#[test]
fn reorder_buffer_smaller_than_a_packet() {
    expect_error(
        "tiny-reorder",
        GOOD,
        &["--set", "network.reorder_buffer=\"100B\"", "--set", "network.mtu=\"1000B\""],
        "network.reorder_buffer",
    );
}

#[test]
fn bad_set_and_bad_units() {
    expect_error("bad-set", GOOD, &["--set", "nonsense"], "--set");
    expect_error("bad-unit", GOOD, &["--set", "topology.delay=\"3 parsecs\""], "topology.delay");
}

#[test]
fn bad_inter_dc_spraying_knobs() {
    // Rondo's probe rate and the per-entropy / delay-spread routing knobs (Rondo over LCMP).
    expect_error(
        "probe-rate",
        GOOD,
        &["--set", "transport.kind=rondo", "--set", "transport.probe_rate=\"fast\""],
        "transport.probe_rate",
    );
    expect_error("per-entropy", GOOD, &["--set", "routing.per_entropy=3"], "routing.per_entropy");
    expect_error(
        "spread",
        GOOD,
        &["--set", "routing.max_delay_spread=\"-1ms\""],
        "routing.max_delay_spread",
    );
}

/// A fault naming a node that does not exist fails the run with exit 2 and sends the user to
/// `braid links`; `braid links` itself then still lists the links (the topology loads without the
/// faults) and repeats the faults' error on stderr.
#[test]
fn links_lists_the_topology_when_the_faults_do_not_load() {
    let text =
        format!("{GOOD}\n[[faults]]\nat = \"1us\"\nnodes = [\"host0\"]\nchange = \"down\"\n");
    let (code, err, out) = braid_run("bad-fault-node", &text, &[]);
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no node is named `host0`") && err.contains("braid links"), "{err}");
    let d = tmpdir("links-bad-fault");
    let f = d.join("s.toml");
    std::fs::write(&f, &text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_braid")).arg("links").arg(&f).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{err}");
    assert!(out.starts_with("link,a,a_name,b,b_name,rate_bps,delay_ns\n0,0,h0,"), "{out}");
    assert!(err.contains("[[faults]]") && err.contains("no node is named `host0`"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
