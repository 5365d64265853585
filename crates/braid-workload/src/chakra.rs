//! Chakra execution traces (the MLCommons Chakra ET format that ASTRA-sim and STAGE write),
//! replayed as Braid flows over persistent connections.
//!
//! The Rondo paper's training workload (arXiv 2611.04594, §6.2.1, §6.2.3, Fig 11) is "the
//! communication trace of training a 7B MoE Transformer", made with STAGE and ASTRA-sim. STAGE
//! writes one Chakra ET file per rank; this module reads such files and turns their
//! communication into a [`Workload`] (`docs/workloads.md`, "Chakra traces").
//!
//! **The format.** A rank's file `PREFIX.<rank>.et` (plain, or gzip-compressed as Chakra's own
//! readers accept) is a sequence of protobuf messages, each preceded by its length as a varint:
//! a `GlobalMetadata`, then `Node`s (schema `et_def.proto` of mlcommons/chakra). A node has an
//! `id` (1), a `type` (3), `ctrl_deps` (4) and `data_deps` (5) — ids of nodes of the same rank
//! that must finish first —, `duration_micros` (7) and attributes (10) by name: `comm_type`,
//! `comm_size`, `pg_name` (or `comm_group`), `comm_src`, `comm_dst`, `comm_tag`, `num_ops`,
//! `tensor_size`. Numeric attributes are read from whichever integer member of the value is
//! set, as ASTRA-sim's feeder does. The process groups come from the comm-group file
//! `PREFIX.json`, `{"<id>": [rank, …], …}`; a group id of `0` or none means every rank.
//!
//! **Replay.** Every node of every rank becomes Braid workload items with dependencies:
//! - a **compute** node is a delay ([`Workload::add_task`]): `duration_micros`, or ASTRA-sim's
//!   roofline `num_ops / min(mem_bw · num_ops / tensor_size, peak)` (`compute = "roofline"`), or
//!   nothing (`compute = "none"`, what isolates communication time);
//! - a **collective** is decomposed into the messages its algorithm sends, as ASTRA-sim's
//!   system layer does for a group smaller than the whole machine (a one-dimensional ring over
//!   the group's members, sorted by rank): ring all-reduce = `2(N−1)` steps of `S/N`, ring
//!   all-gather = `N−1` steps of `S` (ASTRA-sim's `comm_size` of an all-gather is the per-rank
//!   input), ring reduce-scatter = `N−1` steps of `S/N`, all-to-all = every member sends `S/N`
//!   to every other at once (ASTRA-sim's `direct`); `direct` all-reduce, all-gather and
//!   reduce-scatter send to every member at once instead of around the ring. In a ring each
//!   step of a member waits for its own previous send and for the chunk it received;
//! - a **send** is one message to `comm_dst`; the matching **receive** (same source,
//!   destination and tag) completes when that message has arrived and its own dependencies have
//!   completed.
//!
//! A collective's instances are matched across ranks by order: the k-th node (by id) of group
//! `g` on each member rank is the same instance, and its type and size must agree. Sizes are
//! `comm_size · elem_bytes · size_scale` bytes (at least 1): ASTRA-sim reads `comm_size` as
//! bytes, STAGE writes tensor elements (`elem_bytes = 2` for bf16); `size_scale` shrinks a
//! trace whose full volume would take too long to simulate packet by packet, and is reported.
//! What ASTRA-sim does and this does not: it splits each collective into
//! `preferred-dataset-splits` chunks that it pipelines, and it models the GPU's own memory and
//! compute queues; here a collective's messages go out whole, and compute nodes run as soon as
//! their dependencies allow.
//!
//! **Placement.** Rank `r` runs on a host chosen by `placement`: `spread` (the default; a
//! cluster scheduler spreading the job across pods: rank `r` goes to pod `r mod P`, filling
//! each pod's hosts in order; with one pod, ranks are spaced evenly over the hosts), `contiguous`
//! (rank `r` on the `r`-th host), `random` (seeded), or an explicit host list.

mod load;
mod replay;
mod wire;

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use braid_core::rng::stream;
use braid_core::{Rng, Time};

use crate::collective::split_chunks;
use crate::hosts::HostSel;
use crate::workload::{Workload, NO_JOB};

pub use load::*;
pub use replay::*;
pub use wire::*;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A hand-made Chakra ET: protobuf messages written byte by byte.
    pub struct EtWriter {
        pub out: Vec<u8>,
    }

    fn varint(v: u64, out: &mut Vec<u8>) {
        let mut v = v;
        loop {
            let b = (v & 0x7F) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn key(f: u32, wt: u32, out: &mut Vec<u8>) {
        varint(((f << 3) | wt) as u64, out);
    }

    fn bytes_field(f: u32, b: &[u8], out: &mut Vec<u8>) {
        key(f, 2, out);
        varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }

    /// An attribute: an int64 or a string value.
    pub enum A<'a> {
        I(&'a str, i64),
        S(&'a str, &'a str),
    }

    impl EtWriter {
        pub fn new() -> EtWriter {
            let mut meta = Vec::new();
            bytes_field(1, b"0.0.4", &mut meta);
            let mut out = Vec::new();
            varint(meta.len() as u64, &mut out);
            out.extend(meta);
            EtWriter { out }
        }

        pub fn node(mut self, id: u64, kind: u32, deps: &[u64], attrs: &[A]) -> EtWriter {
            let mut m = Vec::new();
            key(1, 0, &mut m);
            varint(id, &mut m);
            bytes_field(2, format!("n{id}").as_bytes(), &mut m);
            key(3, 0, &mut m);
            varint(kind as u64, &mut m);
            if !deps.is_empty() {
                let mut p = Vec::new();
                for &d in deps {
                    varint(d, &mut p);
                }
                bytes_field(5, &p, &mut m);
            }
            for a in attrs {
                let mut b = Vec::new();
                match a {
                    A::I(n, v) => {
                        bytes_field(1, n.as_bytes(), &mut b);
                        key(9, 0, &mut b);
                        varint(*v as u64, &mut b);
                    }
                    A::S(n, v) => {
                        bytes_field(1, n.as_bytes(), &mut b);
                        bytes_field(29, v.as_bytes(), &mut b);
                    }
                }
                bytes_field(10, &b, &mut m);
            }
            varint(m.len() as u64, &mut self.out);
            self.out.extend(m);
            self
        }
    }

    pub fn spec() -> ChakraSpec {
        ChakraSpec {
            trace: PathBuf::new(),
            comm_groups: None,
            placement: Placement::Contiguous,
            compute: ComputeModel::Duration,
            elem_bytes: 1.0,
            size_scale: 1.0,
            all_reduce: CollAlgo::Ring,
            all_gather: CollAlgo::Ring,
            reduce_scatter: CollAlgo::Ring,
            start: Time::ZERO,
        }
    }

    /// Four ranks: compute (10 µs) → all-reduce over all → all-to-all in group 1 (ranks 0, 1)
    /// → rank 0 sends to rank 2, which receives.
    pub fn small_trace() -> Trace {
        let mut ranks = Vec::new();
        for r in 0..4u32 {
            let mut w = EtWriter::new()
                .node(1, node_type::COMP, &[], &[A::I("num_ops", 100), A::I("tensor_size", 10)])
                .node(
                    2,
                    node_type::COMM_COLL,
                    &[1],
                    &[A::I("comm_type", 0), A::I("comm_size", 4000), A::S("pg_name", "2")],
                );
            if r < 2 {
                w = w.node(
                    3,
                    node_type::COMM_COLL,
                    &[2],
                    &[A::I("comm_type", 6), A::I("comm_size", 2000), A::S("pg_name", "1")],
                );
            }
            if r == 0 {
                w = w.node(
                    4,
                    node_type::COMM_SEND,
                    &[3],
                    &[A::I("comm_size", 500), A::I("comm_dst", 2), A::I("comm_tag", 7)],
                );
            }
            if r == 2 {
                w = w.node(
                    4,
                    node_type::COMM_RECV,
                    &[2],
                    &[A::I("comm_size", 500), A::I("comm_src", 0), A::I("comm_tag", 7)],
                );
                w = w.node(5, node_type::COMP, &[4], &[]);
            }
            let mut nodes = read_et(&w.out, "test").unwrap();
            // Durations: 10 µs on node 1 (set directly: the writer has no field 7).
            nodes[0].duration_us = 10;
            ranks.push(nodes);
        }
        let groups = read_comm_groups(r#"{"1": [0, 1], "2": [0,1,2,3]}"#, "g").unwrap();
        Trace { ranks, groups }
    }

    #[test]
    fn reads_what_it_wrote() {
        let w = EtWriter::new().node(
            7,
            node_type::COMM_COLL,
            &[3, 5],
            &[A::I("comm_type", 6), A::I("comm_size", 1 << 40), A::S("pg_name", "33")],
        );
        let n = read_et(&w.out, "t").unwrap();
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].id, n[0].kind, n[0].deps.clone()), (7, node_type::COMM_COLL, vec![3, 5]));
        assert_eq!((n[0].comm_type, n[0].comm_size, n[0].pg), (Some(6), Some(1 << 40), Some(33)));
        // gzip-compressed, as Chakra's readers accept
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &w.out).unwrap();
        assert_eq!(read_et(&gz.finish().unwrap(), "t").unwrap(), n);
    }

    #[test]
    fn malformed_traces_are_refused_with_the_reason() {
        let w = EtWriter::new().node(1, node_type::COMP, &[], &[]);
        let e = read_et(&w.out[..w.out.len() - 2], "x.0.et").unwrap_err();
        assert!(e.contains("x.0.et") && e.contains("runs past the end"), "{e}");
        assert!(read_et(&[], "e").unwrap_err().contains("empty"));
        let e = read_et(&[0x02, 0x0b, 0x00], "w").unwrap_err();
        assert!(e.contains("wire type 3"), "{e}");
        let e = read_et(&[0x1f, 0x8b, 0x00], "g").unwrap_err();
        assert!(e.contains("gzip"), "{e}");
        let e = read_comm_groups(r#"{"1": [0, x]}"#, "g.json").unwrap_err();
        assert!(e.contains("g.json") && e.contains("rank `x`"), "{e}");
        assert!(read_comm_groups("[1]", "g").is_err());
    }

    #[test]
    fn replays_collectives_sends_and_compute() {
        let t = small_trace();
        let wl = replay(&t, &[10, 11, 12, 13], &spec()).unwrap();
        wl.validate(16).unwrap();
        let flows: Vec<_> = wl.flows.iter().filter(|f| f.size_bytes > 0).collect();
        // all-reduce over 4: 2·3 steps × 4 = 24 messages of 1000; all-to-all over 2: 2 of 1000;
        // one send of 500
        assert_eq!(flows.len(), 24 + 2 + 1);
        let ar: u64 = flows
            .iter()
            .filter(|f| wl.jobs[f.tag as usize].name == "all-reduce")
            .map(|f| f.size_bytes)
            .sum();
        assert_eq!(ar, 24 * 1000);
        assert!(flows.iter().all(|f| (10..14).contains(&f.src) && (10..14).contains(&f.dst)));
        let send = flows.iter().find(|f| wl.jobs[f.tag as usize].name == "send-recv").unwrap();
        assert_eq!((send.src, send.dst, send.size_bytes), (10, 12, 500));
        // Compute: a 10 µs task per rank at the root.
        let tasks: Vec<_> = wl.flows.iter().filter(|f| f.size_bytes == 0).collect();
        assert!(tasks.iter().filter(|f| f.start == Time::from_us(10)).count() == 4, "{tasks:?}");
        // Run it with every message taking 1 µs: all-reduce 6 steps, all-to-all 1, send 1.
        let end = crate::workload::tests_support::finish_time(&wl, |f| {
            if f.size_bytes == 0 {
                Time::ZERO
            } else {
                Time::from_us(1)
            }
        });
        assert_eq!(end, Time::from_us(10 + 6 + 1 + 1));
    }

    #[test]
    fn inconsistent_traces_are_refused() {
        let mut t = small_trace();
        t.ranks[1][1].comm_size = Some(999);
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("process group 2") && e.contains("999"), "{e}");
        let mut t = small_trace();
        t.ranks[3].remove(1);
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("no matching node on rank(s) [3]"), "{e}");
        let mut t = small_trace();
        t.ranks[0][0].deps = vec![2];
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("never run"), "{e}");
        let mut t = small_trace();
        t.ranks[0][3].comm_tag = Some(8);
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("tag"), "{e}");
        let mut t = small_trace();
        t.ranks[2][1].deps = vec![42];
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("node 42"), "{e}");
        let mut t = small_trace();
        t.groups.remove(&1);
        let e = replay(&t, &[0, 1, 2, 3], &spec()).unwrap_err();
        assert!(e.contains("process group 1"), "{e}");
    }

    #[test]
    fn placements() {
        let groups: Vec<u32> = (0..20).map(|h| h / 4).collect();
        assert_eq!(Placement::Spread.hosts(6, 20, &groups, 1).unwrap(), vec![0, 4, 8, 12, 16, 1]);
        assert_eq!(Placement::Spread.hosts(4, 20, &[], 1).unwrap(), vec![0, 5, 10, 15]);
        assert_eq!(Placement::Contiguous.hosts(3, 20, &groups, 1).unwrap(), vec![0, 1, 2]);
        let r = Placement::Random.hosts(8, 20, &groups, 1).unwrap();
        let mut s = r.clone();
        s.sort_unstable();
        s.dedup();
        assert_eq!(s.len(), 8);
        assert!(Placement::Spread.hosts(30, 20, &groups, 1).is_err());
        assert_eq!(
            Placement::parse("2-4").unwrap().hosts(3, 20, &groups, 1).unwrap(),
            vec![2, 3, 4]
        );
    }
}
