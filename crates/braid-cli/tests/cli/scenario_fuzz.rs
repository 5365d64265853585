//! Fuzz properties of the scenario reader and builder: every example and bench scenario, mutated
//! (lines deleted, duplicated or swapped, numbers replaced by huge, negative, zero or NaN-ish
//! values, unit strings replaced, text truncated), and arbitrary bytes, go through
//! `scenario::parse` and — when that succeeds — `build::build`, which must return `Ok` or an `Err`
//! with a message, never panic. Simulations are not run (too slow for a property). Explicit tests
//! check that scenarios asking for absurd sizes (hosts_per_leaf = 10^9, fat-tree k = 10^6,
//! size = "1000000TB", a huge duration, a topology whose routing tables would not fit in memory,
//! a flow to a host that does not exist) get an error quickly.
//!
//! Case counts are small so the whole file runs in about ten seconds in the test profile; set
//! `PROPTEST_CASES` for more.

#[path = "../../../braid-net/tests/support/mutate.rs"]
mod mutate;

use braid_cli::build::build;
use braid_cli::scenario::parse;
use mutate::*;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

/// (folder, text) of every example and bench scenario.
fn scenarios() -> &'static [(PathBuf, String)] {
    static ALL: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in [root.join("../../examples"), root.join("bench")] {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            for f in files {
                out.push((dir.clone(), std::fs::read_to_string(&f).unwrap()));
            }
        }
        assert!(out.len() >= 20, "found only {} scenarios", out.len());
        out
    })
}

/// Parse, then build if it parsed; neither may panic.
fn parse_and_build(text: &str, base: &Path) -> Result<(), TestCaseError> {
    let sc = no_panic("scenario::parse", text, || parse(text, base, &[], None))?;
    if let Some(sc) = sc {
        no_panic("build::build", text, || build(&sc).map(|_| ()))?;
    }
    Ok(())
}

const INSERTS: &[&str] = &[
    "\n",
    " ",
    "=",
    "[",
    "]",
    "\"",
    "#",
    "\n[workload]\n",
    "\n[topology]\n",
    "\nkind = \"fat-tree\"\n",
    "\u{feff}",
    "é",
    "-",
    "\n[[faults]]\nat = \"1us\"\nlink = 0\nchange = \"delay\"\nadd_delay = \"1e30s\"\n",
];

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn mutated_scenarios_parse_and_build_without_panic(which in 0..1000usize, ms in mutations(INSERTS)) {
        let all = scenarios();
        let (base, text) = &all[which % all.len()];
        let text = apply_all(text, &ms);
        parse_and_build(&text, base)?;
    }

    #[test]
    fn arbitrary_bytes_parse_without_panic(text in arbitrary_text(256)) {
        parse_and_build(&text, Path::new("."))?;
    }
}

/// Nasty values of each field type: zero, one, edges of the integer types, non-finite floats,
/// quantities with huge, zero, negative or unknown units.
const INTS: &[&str] =
    &["0", "-1", "1", "2", "3", "4294967296", "1000000000", "1000000000000", "9223372036854775807"];
const FLOATS: &[&str] = &["0", "-1", "0.5", "1", "1e300", "nan", "inf", "1e-300"];
const TIMES: &[&str] = &[
    "\"1e30s\"",
    "\"1e300s\"",
    "\"0us\"",
    "\"1ps\"",
    "\"1us\"",
    "\"1000000s\"",
    "\"-1us\"",
    "\"nanus\"",
    "0",
];
const SIZES: &[&str] = &[
    "\"1e30GB\"",
    "\"1000000TB\"",
    "\"1B\"",
    "\"10KB\"",
    "\"4GiB\"",
    "\"0B\"",
    "\"-1KB\"",
    "1",
    "0",
];
const RATES: &[&str] = &[
    "\"1e30Tbps\"",
    "\"0bps\"",
    "\"1bps\"",
    "\"1Kbps\"",
    "\"1e15bps\"",
    "\"100Gbps\"",
    "\"-1Gbps\"",
];
const HOSTS: &[&str] =
    &["1", "2", "4294967295", "\"0-1000000000\"", "\"all\"", "\"3,3\"", "\"0-3\"", "0"];
const CDFS: &[&str] = &["\"websearch\"", "\"hadoop\"", "\"nope\""];

/// (table, key, values) a generated scenario may set.
const FIELDS: &[(&str, &str, &[&str])] = &[
    ("topology", "leaves", INTS),
    ("topology", "spines", INTS),
    ("topology", "hosts_per_leaf", INTS),
    ("topology", "host_rate", RATES),
    ("topology", "fabric_rate", RATES),
    ("topology", "delay", TIMES),
    ("network", "mtu", SIZES),
    ("network", "header", SIZES),
    ("network", "buffer", SIZES),
    ("network", "kmin", SIZES),
    ("network", "kmax", SIZES),
    ("network", "reorder_buffer", SIZES),
    ("network", "loss_rate", FLOATS),
    ("network", "dt_alpha", FLOATS),
    ("network", "max_outstanding_psn", INTS),
    ("network", "max_outstanding_reads", INTS),
    ("transport", "read_size", SIZES),
    ("workload", "start", TIMES),
    ("workload", "senders", HOSTS),
    ("workload", "receiver", INTS),
    ("workload", "load", FLOATS),
    ("workload", "background", INTS),
    ("workload", "k", INTS),
    ("workload", "iterations", INTS),
    ("workload", "gap", TIMES),
    ("workload", "hosts", HOSTS),
    ("faults", "until", TIMES),
    ("output", "sample_interval", TIMES),
    ("", "stop", TIMES),
];
/// Workload kinds with their required fields; `SIZE`, `TIME`, `INT`, `FLOAT` are filled from
/// the nasty values.
const WORKLOADS: &[&str] = &[
    "kind = \"permutation\"\nsize = SIZE",
    "kind = \"incast\"\nsenders = INT\nsize = SIZE",
    "kind = \"all-to-all\"\nsize = SIZE",
    "kind = \"cdf\"\ncdf = \"websearch\"\nload = FLOAT\nduration = TIME",
    "kind = \"cdf\"\ncdf = CDF\nload = FLOAT\nflows = INT",
    "kind = \"moe\"\nsize = SIZE\nk = INT",
    "kind = \"collective\"\nop = \"allreduce\"\nsize = SIZE\niterations = INT",
];
const FAULTS: &[&str] = &[
    "change = \"down\"",
    "change = \"delay\"\nadd_delay = TIME",
    "change = \"delay\"\ndelay = TIME",
    "change = \"rate\"\nrate = RATE",
    "change = \"rate\"\nrate_factor = FLOAT",
    "change = \"loss\"\nloss = FLOAT",
];

/// `template` with each placeholder replaced by the value of its class picked by `pick`.
fn fill(template: &str, pick: &[usize; 6]) -> String {
    let classes: [(&str, &[&str]); 6] = [
        ("SIZE", SIZES),
        ("TIME", TIMES),
        ("INT", INTS),
        ("FLOAT", FLOATS),
        ("RATE", RATES),
        ("CDF", CDFS),
    ];
    let mut out = template.to_string();
    for (k, (ph, vals)) in classes.iter().enumerate() {
        out = out.replace(ph, vals[pick[k] % vals.len()]);
    }
    out
}

/// A small valid-shaped scenario: a workload and maybe a fault with nasty values, and 0–4 more
/// fields set to nasty values of their type.
fn generated_scenario() -> impl Strategy<Value = String> {
    (
        prop::sample::select(WORKLOADS),
        prop::option::of(prop::sample::select(FAULTS)),
        any::<[usize; 6]>(),
        prop::collection::btree_map(0..FIELDS.len(), any::<usize>(), 0..5),
    )
        .prop_map(|(workload, fault, pick, set)| {
            let mut tables: Vec<(&str, String)> = vec![
                ("", String::new()),
                ("topology", "kind = \"leaf-spine\"\n".into()),
                ("network", String::new()),
                ("transport", "kind = \"roce\"\ncc = \"fixed\"\n".into()),
                ("workload", format!("{}\n", fill(workload, &pick))),
                ("output", String::new()),
            ];
            if let Some(f) = fault {
                tables.push(("faults", format!("at = \"1us\"\nlink = 0\n{}\n", fill(f, &pick))));
            }
            for (k, v) in set {
                let (t, key, vals) = FIELDS[k];
                if let Some(entry) = tables.iter_mut().find(|e| e.0 == t) {
                    if !entry.1.contains(&format!("{key} =")) {
                        entry.1.push_str(&format!("{key} = {}\n", vals[v % vals.len()]));
                    }
                }
            }
            let mut text = String::from("name = \"g\"\nseed = 1\n");
            for (t, body) in tables {
                match t {
                    "" => text.push_str(&body),
                    "faults" => text.push_str(&format!("[[faults]]\n{body}")),
                    _ => text.push_str(&format!("[{t}]\n{body}")),
                }
            }
            text
        })
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn generated_scenarios_parse_and_build_without_panic(text in generated_scenario()) {
        parse_and_build(&text, Path::new("."))?;
    }
}

/// Every example and bench scenario still parses and builds.
#[test]
fn unmutated_scenarios_build() {
    for (base, text) in scenarios() {
        let t0 = Instant::now();
        let sc = parse(text, base, &[], None).unwrap_or_else(|e| panic!("{e}\n{text}"));
        build(&sc).unwrap_or_else(|e| panic!("{e}\n{text}"));
        eprintln!("{} built in {:?}", sc.name, t0.elapsed());
    }
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

/// `GOOD` with `from` replaced by `to` must fail to parse or to build with an error containing
/// `want` (how long that takes is printed, not asserted: a busy machine must not fail the gate).
fn rejects(from: &str, to: &str, want: &str) {
    assert!(GOOD.contains(from), "{from}");
    let text = GOOD.replace(from, to);
    let t0 = Instant::now();
    let e = match parse(&text, Path::new("."), &[], None) {
        Err(e) => e,
        Ok(sc) => build(&sc).map(|_| ()).expect_err(&text),
    };
    assert!(e.contains(want), "{to}: got `{e}`, wanted `{want}`");
    eprintln!("{to}: refused in {:?}", t0.elapsed());
}

#[test]
fn absurd_sizes_are_errors() {
    rejects("hosts_per_leaf = 2", "hosts_per_leaf = 1000000000", "too large");
    rejects("leaves = 2\nspines = 1", "leaves = 2\nspines = 100000000", "too large");
    rejects(
        "kind = \"leaf-spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2",
        "kind = \"fat-tree\"\nk = 1000000",
        "too large",
    );
    rejects("size = \"10KB\"", "size = \"1000000TB\"", "unit");
    rejects("size = \"10KB\"", "size = \"1e30GB\"", "limit");
}

/// The largest queue limit a size can say, with trimming on (whose header queue gets twice the
/// data queue's limit): it builds, with no overflow.
#[test]
fn the_largest_queue_limit_with_trimming_builds() {
    let text = "name = \"q\"\n[topology]\nkind = \"fat-tree\"\nk = 4\n[network]\ntrim = true\n\
                queue_limit = \"18446744073709551615B\"\n[transport]\nkind = \"uet\"\n\
                [workload]\nkind = \"permutation\"\nsize = \"10KB\"\n";
    let sc = parse(text, Path::new("."), &[], None).expect("the limit parses");
    assert!(build(&sc).is_ok());
}

#[test]
fn huge_durations_and_counts_are_errors() {
    let cdf = "kind = \"cdf\"\ncdf = \"websearch\"\nload = 0.5\n";
    rejects("kind = \"permutation\"\nsize = \"10KB\"", &format!("{cdf}duration = \"1e30s\""), "");
    rejects(
        "kind = \"permutation\"\nsize = \"10KB\"",
        &format!("{cdf}duration = \"1000000s\""),
        "flows",
    );
    rejects(
        "kind = \"permutation\"\nsize = \"10KB\"",
        &format!("{cdf}flows = 1000000000000"),
        "flows",
    );
}

#[test]
fn topologies_too_large_to_route_are_errors() {
    // Parses (a k = 128 fat-tree is within the topology bounds) but its next-hop tables would need
    // 8,192 destination classes × 2.1 × 10^6 nodes and links of work, beyond the limit: build must
    // refuse before allocating.
    rejects(
        "kind = \"leaf-spine\"\nleaves = 2\nspines = 1\nhosts_per_leaf = 2",
        "kind = \"fat-tree\"\nk = 128",
        "routing",
    );
}

#[test]
fn flows_to_missing_hosts_are_errors() {
    rejects(
        "kind = \"permutation\"\nsize = \"10KB\"",
        "kind = \"incast\"\nsenders = \"0-2\"\nreceiver = 99\nsize = \"1KB\"",
        "",
    );
}

#[test]
fn huge_fault_times_are_errors_or_fine() {
    for (fault, want) in [
        ("change = \"delay\"\nadd_delay = \"1e30s\"", "delay"),
        ("change = \"delay\"\ndelay = \"1e30s\"", "delay"),
        ("change = \"rate\"\nrate_factor = 1e300", "rate"),
        ("change = \"rate\"\nrate = \"1e30Tbps\"", "rate"),
    ] {
        let text = format!("{GOOD}\n[[faults]]\nat = \"1us\"\nlink = 0\n{fault}\n");
        let r = std::panic::catch_unwind(|| {
            parse(&text, Path::new("."), &[], None).map(|sc| build(&sc).map(|_| ()))
        });
        match r {
            Ok(Ok(Ok(()))) => panic!("{fault}: accepted"),
            Ok(Ok(Err(e))) | Ok(Err(e)) => assert!(e.contains(want), "{fault}: got `{e}`"),
            Err(_) => panic!("{fault}: panicked"),
        }
    }
    rejects(
        "[workload]",
        "[[faults]]\nat = \"1e30s\"\nlink = 0\nchange = \"down\"\n[workload]",
        "at",
    );
    rejects("size = \"10KB\"", "size = \"10KB\"\nstart = \"1e30s\"", "limit");
}
