//! `output.pcap`: packets crossing chosen links are written as a classic nanosecond pcap with
//! Ethernet/IPv4/UDP/RoCEv2 BTH headers. The round trip is checked with tshark (Debian package
//! `tshark`; `.ci/run` installs it): UDP port 4791, data PSNs 0..n−1 in order, RC SEND opcodes,
//! ACKNOWLEDGE (17) with an AETH for ACKs, and probes as SEND Only with Immediate (5) under Rondo.
//! Without tshark the tshark tests fail, unless `BRAID_SKIP_TSHARK=1` says to skip them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("braid-pcap-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Whether to run the tshark checks: yes when tshark runs; no when it does not and
/// `BRAID_SKIP_TSHARK=1` says to skip them; otherwise the test fails, naming the tool and the
/// variable.
fn have_tshark() -> bool {
    if Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return true;
    }
    if std::env::var("BRAID_SKIP_TSHARK").as_deref() == Ok("1") {
        eprintln!(
            "note: tshark not found; skipping the pcap round-trip check (BRAID_SKIP_TSHARK=1)"
        );
        return false;
    }
    panic!("tshark is not installed (Debian package `tshark`; .ci/run installs it); set BRAID_SKIP_TSHARK=1 to skip this check");
}

const SCENARIO: &str = r#"
name = "pcap-roundtrip"
seed = 3

[topology]
kind = "leaf-spine"
leaves = 2
spines = 2
hosts_per_leaf = 2
host_rate = "100Gbps"
fabric_rate = "100Gbps"
delay = "1us"

[network]
mtu = "1000B"
header = "58B"

[transport]
kind = "roce"
cc = "dcqcn"

[workload]
kind = "incast"
senders = [1]
receiver = 0
size = "50KB"

[output]
pcap = ["1", 0]
"#;

fn run(dir: &Path, text: &str) -> PathBuf {
    let sc = dir.join("s.toml");
    std::fs::write(&sc, text).unwrap();
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out.join("capture.pcap")
}

fn tshark(pcap: &Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut c = Command::new("tshark");
    c.arg("-r").arg(pcap).args(["-T", "fields", "-E", "separator=,"]);
    for f in fields {
        c.args(["-e", f]);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "tshark failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn pcap_header_is_classic_nanosecond() {
    let d = tmp("header");
    let p = run(&d, SCENARIO);
    let b = std::fs::read(&p).unwrap();
    assert_eq!(&b[..4], &0xa1b2_3c4du32.to_le_bytes(), "nanosecond magic");
    assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1, "Ethernet link type");
    // The first record: caplen = Ethernet + IPv4 + UDP + BTH = 54 bytes, orig_len = 54 + 1000 + 4 (ICRC).
    assert_eq!(u32::from_le_bytes(b[32..36].try_into().unwrap()), 54);
    assert_eq!(u32::from_le_bytes(b[36..40].try_into().unwrap()), 1058);
    // UDP destination port 4791 at offset 24 (global header) + 16 (record) + 14 + 20 + 2.
    assert_eq!(u16::from_be_bytes([b[76], b[77]]), 4791);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn pcap_roundtrip_with_tshark() {
    if !have_tshark() {
        return;
    }
    let d = tmp("tshark");
    let p = run(&d, &SCENARIO.replace("pcap = [\"1\", 0]", "pcap = [1]"));
    let rows = tshark(
        &p,
        &[
            "udp.dstport",
            "infiniband.bth.psn",
            "infiniband.bth.opcode",
            "infiniband.bth.destqp",
            "ip.src",
            "infiniband.aeth.syndrome",
            "infiniband.bth.a",
        ],
    );
    // 50 KB in 1000-byte packets: 50 data packets from host 1 (11.0.1.1), each ACKed by host 0.
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r[0] == "4791"), "every packet goes to UDP port 4791");
    let data: Vec<&Vec<String>> = rows.iter().filter(|r| r[4] == "11.0.1.1").collect();
    let acks: Vec<&Vec<String>> = rows.iter().filter(|r| r[4] == "11.0.0.1").collect();
    assert_eq!(data.len(), 50, "{rows:?}");
    assert_eq!(acks.len(), 50);
    let psns: Vec<u32> = data.iter().map(|r| r[1].parse().unwrap()).collect();
    assert_eq!(psns, (0..50).collect::<Vec<u32>>(), "data PSNs in order on the sender's link");
    assert_eq!(data[0][2], "0", "SEND First");
    assert!(data[1..49].iter().all(|r| r[2] == "1"), "SEND Middle");
    assert_eq!(data[49][2], "2", "SEND Last");
    assert!(
        data.iter().all(|r| r[3] == "0x000100" && r[6] == "1"),
        "QPN 0x100 + flow 0, AckReq set"
    );
    assert!(acks.iter().all(|r| r[2] == "17" && r[5] == "31"), "ACKNOWLEDGE with an ACK syndrome");
    // Capturing host 0's link as well (link 0) records every packet a second time, at the receiver.
    let both = run(&d, SCENARIO);
    let rows2 = tshark(&both, &["infiniband.bth.psn"]);
    assert_eq!(rows2.len(), 2 * rows.len());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn pcap_probes_are_distinguishable() {
    if !have_tshark() {
        return;
    }
    // Rondo probes at flow start: SEND Only with Immediate "PROB" (0x50524f42).
    let text = SCENARIO
        .replace("kind = \"roce\"\ncc = \"dcqcn\"", "kind = \"rondo\"")
        .replace("size = \"50KB\"", "size = \"2MB\"");
    let d = tmp("probe");
    let p = run(&d, &text);
    let rows = tshark(&p, &["infiniband.bth.opcode", "infiniband.immdt", "infiniband.bth.psn"]);
    let probes = rows.iter().filter(|r| r[0] == "5").count();
    let summary = std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    let sent: u64 = summary
        .lines()
        .find(|l| l.contains("\"probes_sent\""))
        .and_then(|l| l.split(':').nth(1))
        .map(|v| v.trim().trim_end_matches(',').parse().unwrap())
        .unwrap_or_else(|| panic!("no probes_sent in summary.json:\n{summary}"));
    // A 2 MB Rondo flow probes its paths at start: the scenario is chosen so that it does.
    assert!(sent > 0, "this Rondo run sent no probes; the scenario must make it probe:\n{summary}");
    assert!(probes > 0, "{sent} probes were sent but none is in the capture");
    assert!(
        probes as u64 >= sent,
        "{sent} probes sent, {probes} in the capture of the sender's link (every probe crosses it)"
    );
    assert!(
        rows.iter()
            .filter(|r| r[0] == "5")
            .all(|r| r[1].contains("50524f42") || r[1].contains("50:52:4f:42")),
        "{rows:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn pcap_bad_link_is_rejected() {
    let d = tmp("bad");
    let sc = d.join("s.toml");
    std::fs::write(&sc, SCENARIO.replace("pcap = [\"1\", 0]", "pcap = [\"99\"]")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_braid"))
        .arg("run")
        .arg(&sc)
        .arg("--out")
        .arg(d.join("out"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("output.pcap[0]") && e.contains("link 99 does not exist"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
