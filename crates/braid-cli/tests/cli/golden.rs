//! Golden outputs: every scenario in `examples/` and every `braid bench` scenario is run through
//! the `braid` binary, and every file it writes is compared, by a 64-bit FNV-1a digest and its
//! length, with `tests/golden/fixture.txt`. `summary.json` is compared without its wall-clock
//! lines (`wall_s`, `events_per_sec`, `packet_hops_per_sec`), the only fields that may differ
//! between two runs of the same scenario and seed.
//!
//! This is the project's determinism contract across refactors: the same scenario and seed give
//! the same bytes. A change that is *meant* to change outputs re-blesses the fixture with
//! `BRAID_BLESS=1 cargo test -p braid-cli --test cli golden::` and says why in its commit.
//!
//! The scenarios are split into a few tests so that the two cores of CI run them side by side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Summary lines that hold wall-clock figures.
const WALL_CLOCK_KEYS: &[&str] = &["\"wall_s\"", "\"events_per_sec\"", "\"packet_hops_per_sec\""];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/fixture.txt")
}

/// 64-bit FNV-1a: small, dependency-free and stable across toolchains.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The bytes of an output file as compared: `summary.json` loses its wall-clock lines.
fn comparable(name: &str, bytes: Vec<u8>) -> Vec<u8> {
    if name != "summary.json" {
        return bytes;
    }
    let text = String::from_utf8(bytes).expect("summary.json is UTF-8");
    let mut out = String::new();
    for line in text.lines() {
        if !WALL_CLOCK_KEYS.iter().any(|k| line.trim_start().starts_with(k)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// Run one scenario and return `file → "digest length"` for every file it wrote.
fn digests(label: &str, scenario: &Path) -> BTreeMap<String, String> {
    let out = std::env::temp_dir().join(format!("braid-golden-{}-{label}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(env!("CARGO_BIN_EXE_braid"))
        .current_dir(repo_root())
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .status()
        .expect("braid runs");
    assert!(status.success(), "`braid run {}` failed: {status}", scenario.display());
    let mut files: Vec<_> =
        std::fs::read_dir(&out).expect("output folder").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut map = BTreeMap::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = comparable(&name, std::fs::read(&f).expect("read output"));
        map.insert(name, format!("{:016x} {}", fnv1a64(&bytes), bytes.len()));
    }
    let _ = std::fs::remove_dir_all(&out);
    map
}

/// `label → (file → digest)` from the fixture.
fn fixture() -> BTreeMap<String, BTreeMap<String, String>> {
    let text = std::fs::read_to_string(fixture_path()).unwrap_or_default();
    let mut m: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let parts: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(parts.len(), 4, "fixture line `{line}`: want `scenario file digest length`");
        m.entry(parts[0].to_string())
            .or_default()
            .insert(parts[1].to_string(), format!("{} {}", parts[2], parts[3]));
    }
    m
}

/// Replace the fixture's lines for `labels` with `fresh` (bless mode).
fn bless(labels: &[String], fresh: &BTreeMap<String, BTreeMap<String, String>>) {
    // Tests run in parallel: serialise the read-modify-write with a lock file.
    let lock = fixture_path().with_extension("lock");
    let mut tries = 0;
    while std::fs::OpenOptions::new().write(true).create_new(true).open(&lock).is_err() {
        tries += 1;
        assert!(tries < 6000, "fixture lock {} held for 10 minutes", lock.display());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let mut all = fixture();
    for l in labels {
        all.remove(l);
    }
    for (l, files) in fresh {
        all.insert(l.clone(), files.clone());
    }
    let mut text = String::from(
        "# Golden output digests: scenario, file, FNV-1a 64 of its bytes (summary.json without wall-clock lines), length.\n\
         # Regenerate with BRAID_BLESS=1 cargo test -p braid-cli --test cli golden::, and say why in the commit.\n",
    );
    for (l, files) in &all {
        for (f, d) in files {
            text.push_str(&format!("{l} {f} {d}\n"));
        }
    }
    std::fs::write(fixture_path(), text).expect("write fixture");
    let _ = std::fs::remove_file(&lock);
}

/// Run the scenarios whose labels pass `select` and compare (or bless) them.
fn check(select: impl Fn(&str) -> bool) {
    let root = repo_root();
    let mut scenarios: Vec<(String, PathBuf)> = Vec::new();
    for dir in ["examples", "crates/braid-cli/bench"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("scenario folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        entries.sort();
        for p in entries {
            let label = p.file_stem().unwrap().to_string_lossy().into_owned();
            if select(&label) {
                scenarios.push((label, p.strip_prefix(&root).unwrap().to_path_buf()));
            }
        }
    }
    assert!(!scenarios.is_empty(), "no scenario selected");
    let mut fresh = BTreeMap::new();
    for (label, path) in &scenarios {
        fresh.insert(label.clone(), digests(label, path));
    }
    if std::env::var_os("BRAID_BLESS").is_some() {
        let labels: Vec<String> = scenarios.iter().map(|s| s.0.clone()).collect();
        bless(&labels, &fresh);
        return;
    }
    let want = fixture();
    let mut diffs = Vec::new();
    for (label, files) in &fresh {
        let Some(expected) = want.get(label) else {
            diffs.push(format!("{label}: not in the fixture (new scenario? bless it)"));
            continue;
        };
        for (f, d) in files {
            match expected.get(f) {
                Some(e) if e == d => {}
                Some(e) => diffs.push(format!("{label}/{f}: digest {d}, fixture {e}")),
                None => diffs.push(format!("{label}/{f}: written now, not in the fixture")),
            }
        }
        for f in expected.keys().filter(|f| !files.contains_key(*f)) {
            diffs.push(format!("{label}/{f}: in the fixture, not written now"));
        }
    }
    assert!(
        diffs.is_empty(),
        "outputs differ from tests/golden/fixture.txt:\n{}",
        diffs.join("\n")
    );
}

/// The inter-DC examples, the heaviest runs, one test each so they spread over the cores.
const HEAVY: &[&str] =
    &["lcmp-13dc", "lcmp-8dc-flows", "lcmp-8dc", "lcmp-dc1-dc8", "d-permutation-k16-2MB"];

#[test]
fn golden_light_scenarios() {
    check(|l| !HEAVY.contains(&l));
}

#[test]
fn golden_lcmp_13dc() {
    check(|l| l == "lcmp-13dc");
}

#[test]
fn golden_lcmp_8dc_flows() {
    check(|l| l == "lcmp-8dc-flows");
}

#[test]
fn golden_lcmp_8dc() {
    check(|l| l == "lcmp-8dc");
}

#[test]
fn golden_lcmp_dc1_dc8_and_k16() {
    check(|l| l == "lcmp-dc1-dc8" || l == "d-permutation-k16-2MB");
}

#[test]
fn fixture_covers_every_scenario() {
    let want = fixture();
    let root = repo_root();
    for dir in ["examples", "crates/braid-cli/bench"] {
        for e in std::fs::read_dir(root.join(dir)).expect("scenario folder") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|e| e == "toml") {
                let label = p.file_stem().unwrap().to_string_lossy().into_owned();
                assert!(
                    want.contains_key(&label),
                    "{} has no golden digests: bless it",
                    p.display()
                );
            }
        }
    }
}
