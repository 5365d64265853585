//! Fuzz properties of the topology readers: the Internet Topology Zoo GML reader
//! (`topo::parse_gml`, `topo::zoo_gml`), the ns-3 HPCC/LCMP reader (`topo::hpcc_file`) and
//! Braid's own format (`topo::braid_file`). For arbitrary bytes, for "token soup" of each format's
//! words and for mutated valid files (the repo's `data/topologies/*.topo`, two Zoo files in
//! `tests/data/zoo/`, inline HPCC files), every reader returns `Ok` or an `Err` with a message —
//! never a panic — and a file claiming absurd sizes (10^12 nodes or links, node id 2^32 − 1) gets
//! an error quickly instead of an allocation proportional to the number it read.
//!
//! Case counts are small so the whole file runs in a few seconds; set `PROPTEST_CASES` for more.

#[path = "../support/mutate.rs"]
mod mutate;

use braid_net::topo::{self, ZooParams, MAX_LINKS, MAX_NODES};
use mutate::*;
use proptest::prelude::*;
use std::time::Instant;

const TOPO_8DC: &str = include_str!("../../../../data/topologies/lcmp-8dc.topo");
const TOPO_13DC: &str = include_str!("../../../../data/topologies/lcmp-13dc.topo");
const ABILENE: &str = include_str!("../data/zoo/Abilene.gml");
const BSONET: &str = include_str!("../data/zoo/BsonetEurope.gml");

/// A two-DC network in the LCMP four-field form.
const HPCC_2DC: &str = "\
# two DCs: hosts 0-3, leaves 4-5, DCIs 6-7
8 2 2 7
4 5
6 7
0 4 100Gbps 1us 0
1 4 100Gbps 1us 0
2 5 100Gb/s 1000ns 0
3 5 12.5GBps 1us 0
4 6 400Gbps 1us 0
5 7 400Gbps 1us 0
6 7 200Gbps 25ms 0
";

/// A small fat-tree-like network in the HPCC three-field form.
const HPCC_3F: &str = "\
5 3 4
2 3
4 # spine
0 2 100Gbps 1us 0
1 3 100Gb/s 1000ns 0
2 4 400Gbps 2us 0
3 4 50GBps 2us 0.0
";

/// Zoo parameters that keep each DC tiny, so building stays fast.
fn small_zoo() -> ZooParams {
    let mut p = ZooParams::default();
    p.intra.hosts_per_dc = 2;
    p.intra.leaves = 1;
    p.intra.spines = 1;
    p
}

const GML_WORDS: &[&str] = &[
    "graph",
    "node",
    "edge",
    "[",
    "]",
    "id",
    "source",
    "target",
    "label",
    "\"x\"",
    "\"",
    "0",
    "1",
    "2",
    "-1",
    "4294967295",
    "9223372036854775807",
    "1e308",
    "1.5",
    "LinkSpeed",
    "LinkSpeedUnits",
    "\"G\"",
    "LinkSpeedRaw",
    "Latitude",
    "Longitude",
    "90.5",
    "#",
    "multigraph",
];
const HPCC_WORDS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "1000000000000",
    "18446744073709551615",
    "-1",
    "100Gbps",
    "1GBps",
    "1Gb/s",
    "0bps",
    "1us",
    "1e30s",
    "nan",
    "0",
    "0.0",
    "0.1",
    "#",
    "\n",
];
const BRAID_WORDS: &[&str] = &[
    "braid-topology v1\n",
    "node",
    "link",
    "a",
    "b",
    "c",
    "host",
    "switch",
    "dci",
    "group=1",
    "tier=2",
    "tier=999",
    "buffer=1e30GB",
    "buffer=22MiB",
    "100Gbps",
    "1e30Tbps",
    "1us",
    "1e30s",
    "#",
    "\n",
];
const INSERTS: &[&str] =
    &["\n", " ", "#", "[", "]", "\"", "=", "\u{feff}", "\0", "é", "-", "1e999", "\n\n\n"];

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn gml_arbitrary_bytes(text in arbitrary_text(512)) {
        no_panic("parse_gml", &text, || topo::parse_gml(&text))?;
        no_panic("zoo_gml", &text, || topo::zoo_gml(&text, &small_zoo()))?;
    }

    #[test]
    fn gml_token_soup(text in token_soup(GML_WORDS, 80)) {
        no_panic("zoo_gml", &text, || topo::zoo_gml(&text, &small_zoo()))?;
    }

    #[test]
    fn gml_mutated(which in 0..2usize, ms in mutations(INSERTS)) {
        let text = apply_all([ABILENE, BSONET][which], &ms);
        no_panic("zoo_gml", &text, || topo::zoo_gml(&text, &small_zoo()))?;
    }

    #[test]
    fn hpcc_arbitrary_bytes(text in arbitrary_text(512)) {
        no_panic("hpcc_file", &text, || topo::hpcc_file(&text))?;
    }

    #[test]
    fn hpcc_token_soup(text in token_soup(HPCC_WORDS, 80)) {
        no_panic("hpcc_file", &text, || topo::hpcc_file(&text))?;
    }

    #[test]
    fn hpcc_mutated(which in 0..2usize, ms in mutations(INSERTS)) {
        let text = apply_all([HPCC_2DC, HPCC_3F][which], &ms);
        no_panic("hpcc_file", &text, || topo::hpcc_file(&text))?;
    }

    #[test]
    fn braid_arbitrary_bytes(text in arbitrary_text(512)) {
        no_panic("braid_file", &text, || topo::braid_file(&text))?;
    }

    #[test]
    fn braid_token_soup(text in token_soup(BRAID_WORDS, 80)) {
        no_panic("braid_file", &text, || topo::braid_file(&text))?;
    }

    #[test]
    fn braid_mutated(which in 0..2usize, ms in mutations(INSERTS)) {
        let text = apply_all([TOPO_8DC, TOPO_13DC][which], &ms);
        no_panic("braid_file", &text, || topo::braid_file(&text))?;
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
    topo::hpcc_file(HPCC_2DC).unwrap();
    topo::hpcc_file(HPCC_3F).unwrap();
    topo::braid_file(TOPO_8DC).unwrap();
    topo::braid_file(TOPO_13DC).unwrap();
    topo::zoo_gml(ABILENE, &small_zoo()).unwrap();
    topo::zoo_gml(BSONET, &small_zoo()).unwrap();
}

#[test]
fn hpcc_huge_counts_are_errors() {
    fails_fast("10^12 nodes", "too many", || topo::hpcc_file("1000000000000 1 1\n0\n"));
    fails_fast("MAX_NODES + 1 nodes", "too many", || {
        topo::hpcc_file(&format!("{} 1 1\n0\n", MAX_NODES + 1))
    });
    fails_fast("10^12 links", "links", || {
        topo::hpcc_file("3 1 1000000000000\n2\n0 2 1Gbps 1us 0\n")
    });
    fails_fast("u64::MAX switches", "not a non-negative integer", || {
        topo::hpcc_file("3 18446744073709551616 1\n")
    });
    fails_fast("usize::MAX switches + DCIs", "exceed", || {
        topo::hpcc_file(&format!("3 {} {} 1\n", usize::MAX, usize::MAX))
    });
    fails_fast("huge switch id", "not below the node count", || {
        topo::hpcc_file("3 1 1\n4294967295\n")
    });
    fails_fast("huge link end", "not below the node count", || {
        topo::hpcc_file("3 1 1\n2\n0 18446744073709551615 1Gbps 1us 0\n")
    });
}

#[test]
fn gml_huge_ids_are_errors_or_fine() {
    // A node id of 2^32 − 1 (or 2^63 − 1) is just a key: it must not size anything.
    let g = "graph [ node [ id 4294967295 ] node [ id 9223372036854775807 ] edge [ source 4294967295 target 9223372036854775807 ] ]";
    let t0 = Instant::now();
    let t = topo::zoo_gml(g, &small_zoo()).unwrap();
    assert_eq!(t.hosts().len(), 4);
    assert!(t0.elapsed().as_secs_f64() < 5.0);
    fails_fast("edge to a huge unknown id", "is not a node id", || {
        topo::zoo_gml(
            "graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 4294967296 ] ]",
            &small_zoo(),
        )
    });
    fails_fast("absurd link speed", "above the limit", || {
        topo::zoo_gml(
            "graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 2 LinkSpeedRaw 1e300 ] ]",
            &small_zoo(),
        )
    });
    // Many DCs of the default size: more nodes than the bound.
    let mut p = ZooParams::default();
    p.intra.hosts_per_dc = MAX_NODES;
    fails_fast("hosts_per_dc beyond the bound", "too large", || {
        topo::zoo_gml("graph [ node [ id 1 ] node [ id 2 ] edge [ source 1 target 2 ] ]", &p)
    });
}

#[test]
fn braid_huge_values_are_errors() {
    let head = "braid-topology v1\nnode a host\nnode b host\n";
    fails_fast("huge rate", "above the limit", || {
        topo::braid_file(&format!("{head}link a b 1e30Tbps 1us\n"))
    });
    fails_fast("huge delay", "above the limit", || {
        topo::braid_file(&format!("{head}link a b 1Gbps 1e30s\n"))
    });
    fails_fast("NaN rate", "rate", || topo::braid_file(&format!("{head}link a b NaNGbps 1us\n")));
    fails_fast("group beyond u32", "group", || {
        topo::braid_file("braid-topology v1\nnode a host group=4294967296\n")
    });
}

#[test]
fn builders_reject_sizes_beyond_the_bounds() {
    use topo::{fat_tree, leaf_spine, FatTreeParams, LeafSpineParams};
    fails_fast("hosts_per_leaf = 10^9", "too large", || {
        leaf_spine(&LeafSpineParams { hosts_per_leaf: 1_000_000_000, ..Default::default() })
    });
    fails_fast("leaves × spines beyond MAX_LINKS", "too large", || {
        leaf_spine(&LeafSpineParams {
            leaves: MAX_LINKS,
            spines: 2,
            hosts_per_leaf: 1,
            ..Default::default()
        })
    });
    fails_fast("fat-tree k = 10^6", "too large", || {
        fat_tree(&FatTreeParams { k: 1_000_000, ..Default::default() })
    });
}
