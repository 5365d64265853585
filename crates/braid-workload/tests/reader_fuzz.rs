//! Fuzz properties of the workload readers: the flow-file readers (`flowfile::parse_braid_csv`,
//! `parse_hpcc`, `parse_htsim`) and the flow-size CDF reader (`EmpiricalCdf::parse`). For
//! arbitrary bytes, "token soup" of each format's words and mutated valid files (the repo's
//! `data/flows/`, `examples/*flows*.csv`, `data/cdf/*.cdf`, plus HPCC and htsim files made from
//! them), every reader returns `Ok` or an `Err` with a message — never a panic — and whatever it
//! returns can be validated against a topology and sampled without panicking. Files that claim
//! absurd counts (10^12 flows, a host index far beyond the topology, a quadratic trigger fan-in)
//! get an error or a bounded result quickly.
//!
//! Case counts are small so the whole file runs in a few seconds; set `PROPTEST_CASES` for more.

#[path = "../../braid-net/tests/support/mutate.rs"]
mod mutate;

use braid_core::Rng;
use braid_workload::flowfile::{parse_braid_csv, parse_hpcc, parse_htsim};
use braid_workload::{write_hpcc, CdfFormat, EmpiricalCdf, Workload, MAX_FLOWS};
use mutate::*;
use proptest::prelude::*;
use std::time::Instant;

const LCMP_CSV: &str = include_str!("../../../data/flows/lcmp-8dc-websearch-0.3.csv");
const FIG4_CSV: &str = include_str!("../../../examples/rondo-fig4-flows.csv");
const JOIN_CSV: &str = include_str!("../../../examples/rondo-join-leave-flows.csv");
const SAMPLE_CSV: &str = include_str!("../../../examples/flows/sample.csv");
const CDFS: [&str; 4] = [
    include_str!("../../../data/cdf/websearch.cdf"),
    include_str!("../../../data/cdf/hadoop.cdf"),
    include_str!("../../../data/cdf/alistorage.cdf"),
    include_str!("../../../data/cdf/cachefollower.cdf"),
];
const HTSIM: &str = "\
# ring step
Nodes 16
Connections 4
Triggers 2
0->1 id 1 start 0 size 4096 send_done_trigger 10
1->2 id 2 start 2.5 size 4096 prio 3 flowsize_hint 7 send_done_trigger 10
2->3 id 3 trigger 10 size 8192 recv_done_trigger 20
3 -> 4 id 4 size 100 trigger 20
trigger id 10 barrier count 2
trigger id 20 oneshot
failure switch_type TOR switch_id 0 link_id 1
";

/// The first `n` lines of `text` (the LCMP file is long; mutating all of it is slow to shrink).
fn head(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}

fn csv_inputs() -> Vec<String> {
    vec![head(LCMP_CSV, 40), FIG4_CSV.to_string(), JOIN_CSV.to_string(), SAMPLE_CSV.to_string()]
}

/// An HPCC flow file made from the LCMP CSV's first flows.
fn hpcc_input() -> String {
    write_hpcc(&parse_braid_csv("lcmp", &head(LCMP_CSV, 40)).unwrap()).unwrap()
}

/// Everything a consumer does with a parsed workload: validate it for a 64-host topology, walk
/// its dependencies.
fn use_workload(wl: &Workload) -> Result<(), String> {
    for i in 0..wl.flows.len() {
        let _ = wl.deps(i);
    }
    wl.validate(64)
}

/// Everything a consumer does with a parsed CDF: mean, quantiles, samples, text.
fn use_cdf(c: &EmpiricalCdf) {
    let _ = c.mean();
    let _ = c.to_braid_text();
    for u in [0.0, 0.3, 0.999, 1.0] {
        let _ = c.quantile(u);
    }
    let mut rng = Rng::new(7);
    for _ in 0..16 {
        let _ = c.sample(&mut rng);
    }
}

const CSV_WORDS: &[&str] = &[
    "src,dst,size,start",
    "src,dst,size,start,tag,deps,id",
    "id start size src dst deps",
    "0",
    "1",
    "5",
    ",",
    ";",
    "1MB",
    "1e30GB",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "-1",
    "nan",
    "inf",
    "10us",
    "1e30s",
    "-",
    "#",
    "job",
    "\n",
];
const HPCC_WORDS: &[&str] = &[
    "1",
    "2",
    "1000000000000",
    "0",
    "3",
    "100",
    "4294967295",
    "1e308",
    "nan",
    "-1",
    "2.000001",
    "1e30",
    "\n",
];
const HTSIM_WORDS: &[&str] = &[
    "Nodes",
    "Connections",
    "1000000000000",
    "0->1",
    "5->0",
    "4294967295->0",
    "->",
    "id",
    "start",
    "size",
    "trigger",
    "send_done_trigger",
    "recv_done_trigger",
    "oneshot",
    "multishot",
    "barrier",
    "count",
    "1",
    "2",
    "0",
    "1e308",
    "nan",
    "-1",
    "\n",
];
const CDF_WORDS: &[&str] = &[
    "0", "1", "100", "0.5", "1.0", "100", "10KB", "1e308", "nan", "inf", "-1", "1e30GB", ",", "#",
    "\n",
];
const INSERTS: &[&str] =
    &["\n", " ", ",", ";", "#", "->", "\u{feff}", "\0", "é", "-", "1e999", "\n\n\n"];

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn braid_csv_arbitrary(text in arbitrary_text(512)) {
        if let Some(wl) = no_panic("parse_braid_csv", &text, || parse_braid_csv("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn braid_csv_soup(text in token_soup(CSV_WORDS, 60)) {
        if let Some(wl) = no_panic("parse_braid_csv", &text, || parse_braid_csv("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn braid_csv_mutated(which in 0..4usize, ms in mutations(INSERTS)) {
        let text = apply_all(&csv_inputs()[which], &ms);
        if let Some(wl) = no_panic("parse_braid_csv", &text, || parse_braid_csv("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn hpcc_flows_arbitrary(text in prop_oneof![arbitrary_text(512), token_soup(HPCC_WORDS, 60)]) {
        if let Some(wl) = no_panic("parse_hpcc", &text, || parse_hpcc("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn hpcc_flows_mutated(ms in mutations(INSERTS)) {
        let text = apply_all(&hpcc_input(), &ms);
        if let Some(wl) = no_panic("parse_hpcc", &text, || parse_hpcc("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn htsim_arbitrary(text in prop_oneof![arbitrary_text(512), token_soup(HTSIM_WORDS, 60)]) {
        if let Some(wl) = no_panic("parse_htsim", &text, || parse_htsim("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn htsim_mutated(ms in mutations(INSERTS)) {
        let text = apply_all(HTSIM, &ms);
        if let Some(wl) = no_panic("parse_htsim", &text, || parse_htsim("f", &text))? {
            no_panic("validate", &text, || use_workload(&wl))?;
        }
    }

    #[test]
    fn cdf_arbitrary(text in prop_oneof![arbitrary_text(512), token_soup(CDF_WORDS, 60)], auto in any::<bool>()) {
        let fmt = if auto { CdfFormat::Auto } else { CdfFormat::Hpcc };
        if let Some(c) = no_panic("EmpiricalCdf::parse", &text, || EmpiricalCdf::parse("c", &text, fmt))? {
            no_panic("use the CDF", &text, || { use_cdf(&c); Ok(()) })?;
        }
    }

    #[test]
    fn cdf_mutated(which in 0..4usize, ms in mutations(INSERTS)) {
        let text = apply_all(CDFS[which], &ms);
        if let Some(c) = no_panic("EmpiricalCdf::parse", &text, || EmpiricalCdf::parse("c", &text, CdfFormat::Braid))? {
            no_panic("use the CDF", &text, || { use_cdf(&c); Ok(()) })?;
        }
    }
}

/// `f` must fail, within five seconds (not minutes, even on a loaded machine), with a message
/// containing `want`.
fn fails_fast<T: std::fmt::Debug>(what: &str, want: &str, f: impl FnOnce() -> Result<T, String>) {
    let t0 = Instant::now();
    let e = f().expect_err(what);
    assert!(e.contains(want), "{what}: got `{e}`, wanted `{want}`");
    assert!(t0.elapsed().as_secs_f64() < 5.0, "{what}: took {:?}", t0.elapsed());
}

#[test]
fn valid_inputs_still_read() {
    for t in csv_inputs() {
        parse_braid_csv("f", &t).unwrap();
    }
    parse_braid_csv("f", LCMP_CSV).unwrap();
    parse_hpcc("f", &hpcc_input()).unwrap();
    parse_htsim("f", HTSIM).unwrap();
    for c in CDFS {
        EmpiricalCdf::parse("c", c, CdfFormat::Braid).unwrap();
    }
}

#[test]
fn huge_flow_counts_are_errors() {
    fails_fast("HPCC count 10^12", "limit", || {
        parse_hpcc("f", "1000000000000\n0 1 3 100 10 0.1\n")
    });
    fails_fast("HPCC count MAX_FLOWS + 1", "limit", || {
        parse_hpcc("f", &format!("{}\n", MAX_FLOWS + 1))
    });
    fails_fast("htsim Connections 10^12", "limit", || {
        parse_htsim("f", "Connections 1000000000000\n0->1 start 0 size 1\n")
    });
    fails_fast("htsim Nodes 10^12, host beyond", "outside", || {
        parse_htsim("f", "Nodes 4\n0->4294967295 start 0 size 1\n")
    });
}

#[test]
fn host_indices_beyond_the_topology_are_errors() {
    let wl = parse_braid_csv("f", "src,dst,size,start\n0,4294967295,1,0\n").unwrap();
    assert!(wl.validate(64).unwrap_err().contains("does not exist"));
    fails_fast("host beyond u32", "host index", || {
        parse_braid_csv("f", "src,dst,size,start\n0,4294967296,1,0\n")
    });
    let wl = parse_hpcc("f", "1\n0 4000000000 3 100 10 0.1\n").unwrap();
    assert!(wl.validate(64).unwrap_err().contains("does not exist"));
}

#[test]
fn huge_sizes_and_times_are_bounded_or_errors() {
    // A size or start that saturates is an error, not a silent u64::MAX.
    fails_fast("CSV size 1e30GB", "size", || {
        parse_braid_csv("f", "src,dst,size,start\n0,1,1e30GB,0\n")
    });
    fails_fast("CSV start 1e30s", "start", || {
        parse_braid_csv("f", "src,dst,size,start\n0,1,1,1e30s\n")
    });
    fails_fast("CSV start 1e30 ns", "start", || {
        parse_braid_csv("f", "src,dst,size,start\n0,1,1,1e30\n")
    });
    fails_fast("HPCC start 1e30 s", "start", || parse_hpcc("f", "1\n0 1 3 100 10 1e30\n"));
    fails_fast("htsim start 1e30 us", "start", || parse_htsim("f", "0->1 start 1e30 size 1\n"));
}

#[test]
fn htsim_trigger_fan_in_is_not_quadratic() {
    // n signalling flows and n flows waiting on one barrier: the dependency lists are shared, so
    // memory stays linear in the file.
    let n = 20_000;
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("{}->{} start 0 size 1 send_done_trigger 1\n", i % 60, i % 60 + 1));
    }
    for i in 0..n {
        s.push_str(&format!("{}->{} trigger 1 size 1\n", i % 60 + 1, i % 60));
    }
    s.push_str(&format!("trigger id 1 barrier count {n}\n"));
    let t0 = Instant::now();
    let wl = parse_htsim("f", &s).unwrap();
    assert_eq!(wl.flows.len(), 2 * n);
    assert_eq!(wl.deps(n).len(), n);
    assert!(wl.dep_list.len() <= 2 * n, "dep_list has {} entries", wl.dep_list.len());
    assert!(t0.elapsed().as_secs_f64() < 5.0, "took {:?}", t0.elapsed());
    use_workload(&wl).unwrap();
}

#[test]
fn cdf_point_count_is_bounded() {
    let mut s = String::new();
    let n = braid_workload::cdf::MAX_CDF_POINTS + 1;
    for i in 0..n {
        s.push_str(&format!("{i} {}\n", (i + 1) as f64 / n as f64));
    }
    fails_fast("too many CDF points", "points", || EmpiricalCdf::parse("c", &s, CdfFormat::Braid));
    fails_fast("CDF size 1e30GB", "size", || {
        EmpiricalCdf::parse("c", "0 0\n1e30GB 1\n", CdfFormat::Braid)
    });
}
