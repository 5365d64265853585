//! The driver names no routing scheme and no transport: `braid-net` moves packets and asks
//! `braid-proto`'s routers and senders through their contracts (`docs/architecture.md`, "The
//! sans-IO rule", "Add a routing scheme"). Its source outside comments and test modules may not
//! name a scheme's or a transport's variant or type, so that adding one never needs an edit here.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_driver_names_no_routing_scheme_and_no_transport() {
    // Kinds and types of `braid_proto::routing` and `braid_proto::transport` that name one
    // scheme or transport. (`RoutingMode::Ecmp` as `NetConfig`'s default is a setting, allowed.)
    let named = [
        "RoutingKind::",
        "RoutingMode::",
        "as_lcmp",
        "as_te",
        "as_adaptive",
        "LcmpRouter",
        "TeRouter",
        "Lcmp",
        "Ucmp",
        "Wcmp",
        "Adaptive",
        "EntropyIndexed",
        "PathIndex",
        "TransportKind::",
        "Sender::",
        "RondoSender",
        "UetSender",
        "RoceSender",
        "MprdmaSender",
        "FalconSender",
        "EqdsSender",
        "RrpsSender",
    ];
    let allowed = ["routing: RoutingMode::Ecmp,"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "read {} files from {}", files.len(), src.display());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // Test modules close the files that have them.
        let code = text.split("\n#[cfg(test)]").next().unwrap();
        for (i, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap().trim();
            if line.is_empty() || allowed.contains(&line) {
                continue;
            }
            if let Some(n) = named.iter().find(|n| line.contains(*n)) {
                // The topology readers name topologies after papers (`topo/rondo.rs`), not
                // schemes: only identifiers count, so `rondo` in a path is fine.
                found.push(format!("{}:{}: `{n}` in {line}", f.display(), i + 1));
            }
        }
    }
    assert!(found.is_empty(), "the driver names schemes or transports:\n{}", found.join("\n"));
}
