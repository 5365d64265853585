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

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use braid_core::rng::stream;
use braid_core::{Rng, Time};

use crate::collective::split_chunks;
use crate::hosts::HostSel;
use crate::workload::{Workload, NO_JOB};

/// Chakra node types (`NodeType` of `et_def.proto`).
pub mod node_type {
    /// Metadata.
    pub const METADATA: u32 = 1;
    /// Memory load.
    pub const MEM_LOAD: u32 = 2;
    /// Memory store.
    pub const MEM_STORE: u32 = 3;
    /// Compute.
    pub const COMP: u32 = 4;
    /// Point-to-point send.
    pub const COMM_SEND: u32 = 5;
    /// Point-to-point receive.
    pub const COMM_RECV: u32 = 6;
    /// Collective.
    pub const COMM_COLL: u32 = 7;
}

/// Chakra collective types (`CollectiveCommType`).
pub mod coll_type {
    /// All-reduce.
    pub const ALL_REDUCE: i64 = 0;
    /// All-gather.
    pub const ALL_GATHER: i64 = 2;
    /// All-to-all.
    pub const ALL_TO_ALL: i64 = 6;
    /// Reduce-scatter.
    pub const REDUCE_SCATTER: i64 = 7;
}

/// The name of a collective type, for messages and job names.
pub fn coll_name(t: i64) -> &'static str {
    match t {
        0 => "all-reduce",
        1 => "reduce",
        2 => "all-gather",
        3 => "gather",
        4 => "scatter",
        5 => "broadcast",
        6 => "all-to-all",
        7 => "reduce-scatter",
        8 => "reduce-scatter-block",
        9 => "barrier",
        _ => "unknown",
    }
}

/// One node of a rank's trace, with the fields a network replay reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EtNode {
    /// Node id (unique within the rank).
    pub id: u64,
    /// `NodeType`.
    pub kind: u32,
    /// Data and control dependencies (node ids of the same rank).
    pub deps: Vec<u64>,
    /// `duration_micros`.
    pub duration_us: u64,
    /// `comm_type` (collectives).
    pub comm_type: Option<i64>,
    /// `comm_size`.
    pub comm_size: Option<i64>,
    /// Process group: `pg_name` (a decimal id) or `comm_group`.
    pub pg: Option<i64>,
    /// `comm_src` (receives).
    pub comm_src: Option<i64>,
    /// `comm_dst` (sends).
    pub comm_dst: Option<i64>,
    /// `comm_tag`.
    pub comm_tag: Option<i64>,
    /// `num_ops` (compute).
    pub num_ops: Option<i64>,
    /// `tensor_size` (compute).
    pub tensor_size: Option<i64>,
}

/// A protobuf reader over one message body (the wire format, without generated code).
struct Wire<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// One field of a message: its number and its value.
enum Val<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Bytes(&'a [u8]),
}

impl<'a> Wire<'a> {
    fn new(buf: &'a [u8]) -> Wire<'a> {
        Wire { buf, pos: 0 }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for i in 0..10 {
            let b = *self.buf.get(self.pos).ok_or("truncated varint")?;
            self.pos += 1;
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint longer than 10 bytes".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or("a field runs past the end of its message")?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn next(&mut self) -> Result<Option<(u32, Val<'a>)>, String> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let field = (key >> 3) as u32;
        let v = match key & 7 {
            0 => Val::Varint(self.varint()?),
            1 => Val::Fixed64(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"))),
            2 => {
                let n = self.varint()?;
                Val::Bytes(self.take(usize::try_from(n).map_err(|_| "length too large")?)?)
            }
            5 => Val::Fixed32(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes"))),
            w => return Err(format!("field {field} has wire type {w}, which Chakra does not use")),
        };
        Ok(Some((field, v)))
    }
}

/// Packed or unpacked repeated varints.
fn push_varints(v: Val, out: &mut Vec<u64>) -> Result<(), String> {
    match v {
        Val::Varint(x) => out.push(x),
        Val::Bytes(b) => {
            let mut w = Wire::new(b);
            while w.pos < b.len() {
                out.push(w.varint()?);
            }
        }
        _ => return Err("a dependency list is not a list of integers".into()),
    }
    Ok(())
}

/// An attribute's name and its value as an integer (any integer case of the oneof, a bool, or a
/// decimal string) or a string.
fn read_attr(b: &[u8]) -> Result<(String, Option<i64>, Option<String>), String> {
    let mut w = Wire::new(b);
    let (mut name, mut int, mut text) = (String::new(), None, None);
    while let Some((f, v)) = w.next()? {
        match (f, v) {
            (1, Val::Bytes(s)) => name = String::from_utf8_lossy(s).into_owned(),
            // int32, int64, uint32, uint64, bool (varints; int32 is sign-extended to 64 bits)
            (7 | 9 | 11 | 13 | 27, Val::Varint(x)) => int = Some(x as i64),
            // sint32, sint64 (ZigZag)
            (15 | 17, Val::Varint(x)) => int = Some(((x >> 1) as i64) ^ -((x & 1) as i64)),
            (19 | 23, Val::Fixed32(x)) => {
                int = Some(if f == 23 { x as i32 as i64 } else { x as i64 })
            }
            (21 | 25, Val::Fixed64(x)) => int = Some(x as i64),
            (3, Val::Fixed64(x)) => int = Some(f64::from_bits(x) as i64),
            (5, Val::Fixed32(x)) => int = Some(f32::from_bits(x) as i64),
            (29, Val::Bytes(s)) => text = Some(String::from_utf8_lossy(s).into_owned()),
            _ => {}
        }
    }
    Ok((name, int, text))
}

fn read_node(b: &[u8]) -> Result<EtNode, String> {
    let mut w = Wire::new(b);
    let mut n = EtNode::default();
    while let Some((f, v)) = w.next()? {
        match (f, v) {
            (1, Val::Varint(x)) => n.id = x,
            (3, Val::Varint(x)) => n.kind = x as u32,
            (4 | 5, v) => push_varints(v, &mut n.deps)?,
            (7, Val::Varint(x)) => n.duration_us = x,
            (10, Val::Bytes(a)) => {
                let (name, int, text) = read_attr(a)?;
                let int =
                    int.or_else(|| text.as_deref().and_then(|t| t.trim().parse::<i64>().ok()));
                match name.as_str() {
                    "comm_type" => n.comm_type = int,
                    "comm_size" => n.comm_size = int,
                    "pg_name" | "comm_group" => {
                        if let Some(t) = text.as_deref().filter(|t| t.trim().is_empty()) {
                            let _ = t; // an empty pg_name: no group
                        } else {
                            n.pg = int.or(n.pg);
                            if int.is_none() && text.is_some() {
                                return Err(format!(
                                    "pg_name {:?} is not a comm-group id",
                                    text.unwrap_or_default()
                                ));
                            }
                        }
                    }
                    "comm_src" => n.comm_src = int,
                    "comm_dst" => n.comm_dst = int,
                    "comm_tag" => n.comm_tag = int,
                    "num_ops" => n.num_ops = int,
                    "tensor_size" => n.tensor_size = int,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    n.deps.sort_unstable();
    n.deps.dedup();
    Ok(n)
}

/// Read one rank's trace (plain or gzip bytes). `name` is for messages.
pub fn read_et(bytes: &[u8], name: &str) -> Result<Vec<EtNode>, String> {
    let plain;
    let data: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| format!("{name}: not a readable gzip file: {e}"))?;
        plain = out;
        &plain
    } else {
        bytes
    };
    if data.is_empty() {
        return Err(format!("{name}: empty file (a Chakra ET starts with its GlobalMetadata)"));
    }
    let mut w = Wire::new(data);
    let mut nodes = Vec::new();
    let mut first = true;
    while w.pos < data.len() {
        let at = w.pos;
        let len = w.varint().map_err(|e| format!("{name}: byte {at}: message length: {e}"))?;
        let body = w
            .take(usize::try_from(len).unwrap_or(usize::MAX))
            .map_err(|_| format!("{name}: byte {at}: a message of {len} bytes runs past the end of the file ({} bytes): truncated?", data.len()))?;
        if first {
            first = false;
            // GlobalMetadata: only checked to be a well-formed message.
            let mut m = Wire::new(body);
            while m.next().map_err(|e| format!("{name}: GlobalMetadata: {e}"))?.is_some() {}
            continue;
        }
        let node = read_node(body).map_err(|e| format!("{name}: node at byte {at}: {e}"))?;
        nodes.push(node);
    }
    Ok(nodes)
}

/// Parse a comm-group file: `{"<id>": [rank, …], …}`.
pub fn read_comm_groups(text: &str, name: &str) -> Result<BTreeMap<i64, Vec<u32>>, String> {
    let err = |at: usize, what: &str| {
        format!("{name}: byte {at}: {what} (expected {{\"<group id>\": [rank, …], …}})")
    };
    let b = text.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut groups = BTreeMap::new();
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return Err(err(i, "not a JSON object"));
    }
    i += 1;
    loop {
        ws(&mut i);
        match b.get(i) {
            Some(b'}') => break,
            Some(b'"') => {}
            _ => return Err(err(i, "a group id in quotes")),
        }
        let s = i + 1;
        let e = s + text[s..].find('"').ok_or_else(|| err(i, "an unterminated string"))?;
        let id: i64 = text[s..e]
            .trim()
            .parse()
            .map_err(|_| err(s, &format!("group id `{}` is not an integer", &text[s..e])))?;
        i = e + 1;
        ws(&mut i);
        if b.get(i) != Some(&b':') {
            return Err(err(i, "`:`"));
        }
        i += 1;
        ws(&mut i);
        if b.get(i) != Some(&b'[') {
            return Err(err(i, "a list of ranks"));
        }
        let s = i + 1;
        let e = s + text[s..].find(']').ok_or_else(|| err(i, "an unterminated list"))?;
        let mut ranks = Vec::new();
        for t in text[s..e].split(',').map(str::trim).filter(|t| !t.is_empty()) {
            ranks.push(t.parse::<u32>().map_err(|_| {
                err(s, &format!("rank `{t}` of group {id} is not a non-negative integer"))
            })?);
        }
        if groups.insert(id, ranks).is_some() {
            return Err(err(s, &format!("group {id} is given twice")));
        }
        i = e + 1;
        ws(&mut i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'}') => break,
            _ => return Err(err(i, "`,` or `}`")),
        }
    }
    Ok(groups)
}

/// A whole trace: every rank's nodes and the process groups.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Nodes by rank.
    pub ranks: Vec<Vec<EtNode>>,
    /// Process groups by id.
    pub groups: BTreeMap<i64, Vec<u32>>,
}

/// The file prefix of a trace given as a prefix (`dir/moe7b`, files `dir/moe7b.0.et`, …) or as
/// a directory holding the files of one prefix.
pub fn trace_prefix(path: &Path) -> Result<PathBuf, String> {
    if path.is_dir() {
        let mut prefixes: Vec<String> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter_map(|n| n.strip_suffix(".0.et").map(str::to_string))
            .collect();
        prefixes.sort();
        return match prefixes.as_slice() {
            [p] => Ok(path.join(p)),
            [] => Err(format!("`{}` holds no Chakra trace (no `*.0.et` file)", path.display())),
            _ => Err(format!(
                "`{}` holds several traces ({}); name one as `{}/PREFIX`",
                path.display(),
                prefixes.join(", "),
                path.display()
            )),
        };
    }
    Ok(path.to_path_buf())
}

/// Load every rank of the trace at `prefix` and its comm-group file (`groups`, or
/// `PREFIX.json` when it exists; none means every collective spans every rank).
pub fn load_trace(prefix: &Path, groups: Option<&Path>) -> Result<Trace, String> {
    let prefix = trace_prefix(prefix)?;
    let mut ranks = Vec::new();
    loop {
        let p = PathBuf::from(format!("{}.{}.et", prefix.display(), ranks.len()));
        if !p.exists() {
            break;
        }
        let bytes = std::fs::read(&p).map_err(|e| format!("cannot read `{}`: {e}", p.display()))?;
        ranks.push(read_et(&bytes, &p.display().to_string())?);
    }
    if ranks.is_empty() {
        return Err(format!(
            "no Chakra trace at `{}` (expected `{}.0.et`, `.1.et`, …)",
            prefix.display(),
            prefix.display()
        ));
    }
    let gpath = groups.map(Path::to_path_buf).or_else(|| {
        let p = PathBuf::from(format!("{}.json", prefix.display()));
        p.exists().then_some(p)
    });
    let groups = match gpath {
        None => BTreeMap::new(),
        Some(p) => {
            let t = std::fs::read_to_string(&p)
                .map_err(|e| format!("cannot read comm-group file `{}`: {e}", p.display()))?;
            read_comm_groups(&t, &p.display().to_string())?
        }
    };
    Ok(Trace { ranks, groups })
}

/// Where ranks run.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    /// Round robin over pods (host groups), filling each pod in host order.
    Spread,
    /// Rank `r` on the `r`-th host.
    Contiguous,
    /// Distinct random hosts (seeded).
    Random,
    /// These hosts, rank by rank.
    Hosts(HostSel),
}

impl Placement {
    /// Parse `spread`, `contiguous`, `random` or a host list (`"0-63,128-191"`).
    pub fn parse(s: &str) -> Result<Placement, String> {
        match s {
            "spread" => Ok(Placement::Spread),
            "contiguous" => Ok(Placement::Contiguous),
            "random" => Ok(Placement::Random),
            other => HostSel::parse(other).map(Placement::Hosts).map_err(|e| {
                format!("`{other}` is neither spread, contiguous, random nor a host list: {e}")
            }),
        }
    }

    /// The host of each of `ranks` ranks on `n_hosts` hosts whose groups (pods) are
    /// `host_groups` (empty: one group).
    pub fn hosts(
        &self,
        ranks: usize,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Vec<u32>, String> {
        if ranks > n_hosts {
            return Err(format!(
                "the trace has {ranks} ranks but the topology only {n_hosts} hosts"
            ));
        }
        Ok(match self {
            Placement::Contiguous => (0..ranks as u32).collect(),
            Placement::Random => {
                let mut rng = Rng::derive(seed, stream::WORKLOAD, crate::patterns::streams::CHAKRA);
                let mut all: Vec<u32> = (0..n_hosts as u32).collect();
                for t in 0..ranks {
                    let j = t + rng.index(n_hosts - t);
                    all.swap(t, j);
                }
                all.truncate(ranks);
                all
            }
            Placement::Hosts(sel) => {
                let h = sel.first(n_hosts, "placement")?;
                if h.len() < ranks {
                    return Err(format!("`placement` lists {} hosts for {ranks} ranks", h.len()));
                }
                h[..ranks].to_vec()
            }
            Placement::Spread => {
                let mut pods: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
                for h in 0..n_hosts as u32 {
                    pods.entry(host_groups.get(h as usize).copied().unwrap_or(0))
                        .or_default()
                        .push(h);
                }
                if pods.len() <= 1 {
                    // One pod: evenly spaced over the hosts.
                    (0..ranks).map(|r| (r * n_hosts / ranks) as u32).collect()
                } else {
                    let pods: Vec<Vec<u32>> = pods.into_values().collect();
                    let mut next = vec![0usize; pods.len()];
                    let mut out = Vec::with_capacity(ranks);
                    let mut p = 0;
                    while out.len() < ranks {
                        if next[p] < pods[p].len() {
                            out.push(pods[p][next[p]]);
                            next[p] += 1;
                        }
                        p = (p + 1) % pods.len();
                    }
                    out
                }
            }
        })
    }
}

/// How compute nodes take time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ComputeModel {
    /// They take none: the replay measures communication alone.
    None,
    /// `duration_micros` (0 when absent).
    Duration,
    /// ASTRA-sim's roofline: `num_ops / min(mem_bw · num_ops / tensor_size, peak)`.
    Roofline {
        /// Peak compute, operations per second.
        peak_ops_per_s: f64,
        /// Local memory bandwidth, bytes (tensor elements) per second.
        mem_per_s: f64,
    },
}

/// How a collective is decomposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollAlgo {
    /// Around a ring of the members.
    Ring,
    /// Every member to every other at once.
    Direct,
}

impl CollAlgo {
    /// Parse `ring` or `direct`.
    pub fn parse(s: &str) -> Result<CollAlgo, String> {
        match s {
            "ring" => Ok(CollAlgo::Ring),
            "direct" => Ok(CollAlgo::Direct),
            _ => Err(format!("unknown algorithm `{s}` (valid: ring, direct)")),
        }
    }
}

/// Parameters of the `chakra` workload kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ChakraSpec {
    /// The trace: a file prefix or a directory.
    pub trace: PathBuf,
    /// The comm-group file (default `PREFIX.json`).
    pub comm_groups: Option<PathBuf>,
    /// Where ranks run.
    pub placement: Placement,
    /// How compute nodes take time.
    pub compute: ComputeModel,
    /// Bytes per `comm_size` unit.
    pub elem_bytes: f64,
    /// Every message's size is multiplied by this.
    pub size_scale: f64,
    /// All-reduce algorithm.
    pub all_reduce: CollAlgo,
    /// All-gather algorithm.
    pub all_gather: CollAlgo,
    /// Reduce-scatter algorithm.
    pub reduce_scatter: CollAlgo,
    /// When the trace starts.
    pub start: Time,
}

impl ChakraSpec {
    /// Load the trace and build its workload on `n_hosts` hosts in groups (pods)
    /// `host_groups`.
    pub fn generate(
        &self,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Workload, String> {
        let trace = load_trace(&self.trace, self.comm_groups.as_deref())?;
        let hosts = self
            .placement
            .hosts(trace.ranks.len(), n_hosts, host_groups, seed)
            .map_err(|e| format!("field `placement`: {e}"))?;
        replay(&trace, &hosts, self)
    }
}

/// What a node's completion is, as workload items that must complete (empty: time `start`).
type Handle = Vec<u32>;

/// Above this many items a handle is collapsed into one zero-delay task.
const MAX_HANDLE: usize = 8;

struct Builder<'a> {
    wl: Workload,
    spec: &'a ChakraSpec,
    hosts: &'a [u32],
    top: u32,
    jobs: HashMap<&'static str, u32>,
}

impl Builder<'_> {
    fn job(&mut self, name: &'static str) -> u32 {
        if let Some(&j) = self.jobs.get(name) {
            return j;
        }
        let j = self.wl.add_job(name, self.top);
        self.jobs.insert(name, j);
        j
    }

    /// One handle for `items`: themselves, or one zero-delay task that waits for them all.
    fn handle(&mut self, rank: usize, mut items: Vec<u32>) -> Handle {
        items.sort_unstable();
        items.dedup();
        if items.len() <= MAX_HANDLE {
            return items;
        }
        vec![self.wl.add_task(self.hosts[rank], Time::ZERO, &items, self.top)]
    }

    /// A message from rank `a` to rank `b`, waiting for `deps` (a flow without dependencies
    /// starts at the trace's start).
    fn message(&mut self, a: usize, b: usize, bytes: u64, deps: &[u32], job: u32) -> u32 {
        let start = if deps.is_empty() { self.spec.start } else { Time::ZERO };
        self.wl.add_flow(self.hosts[a], self.hosts[b], bytes, start, deps, job)
    }

    fn bytes(&self, size: i64) -> u64 {
        ((size.max(0) as f64) * self.spec.elem_bytes * self.spec.size_scale).round().max(1.0) as u64
    }

    /// The messages of one collective instance among `members` (ranks, sorted), each entering
    /// with `entry[i]`; returns each member's completion handle.
    fn collective(
        &mut self,
        ctype: i64,
        size: i64,
        members: &[usize],
        entry: &[Handle],
    ) -> Result<Vec<Handle>, String> {
        let n = members.len();
        if n == 1 {
            return Ok(entry.to_vec());
        }
        let job = self.job(coll_name(ctype));
        let total = self.bytes(size);
        let algo = match ctype {
            coll_type::ALL_REDUCE => self.spec.all_reduce,
            coll_type::ALL_GATHER => self.spec.all_gather,
            coll_type::REDUCE_SCATTER => self.spec.reduce_scatter,
            coll_type::ALL_TO_ALL => CollAlgo::Direct,
            t => {
                return Err(format!(
                    "collective `{}` ({t}) is not supported (ASTRA-sim neither replays it)",
                    coll_name(t)
                ))
            }
        };
        // A ring all-gather moves the whole per-rank input each step; the others a 1/N chunk.
        let chunks = split_chunks(total, n);
        let gather = ctype == coll_type::ALL_GATHER;
        let mut out = Vec::with_capacity(n);
        match algo {
            CollAlgo::Ring => {
                let steps = if ctype == coll_type::ALL_REDUCE { 2 * (n - 1) } else { n - 1 };
                let mut prev: Vec<u32> = Vec::new();
                for s in 0..steps {
                    let mut cur = Vec::with_capacity(n);
                    for i in 0..n {
                        let b = if gather { total } else { chunks[(i + n - s % n) % n] };
                        let deps: Vec<u32> = if s == 0 {
                            entry[i].clone()
                        } else {
                            vec![prev[i], prev[(i + n - 1) % n]]
                        };
                        cur.push(self.message(members[i], members[(i + 1) % n], b, &deps, job));
                    }
                    prev = cur;
                }
                for i in 0..n {
                    out.push(vec![prev[i], prev[(i + n - 1) % n]]);
                }
            }
            CollAlgo::Direct => {
                // All-gather sends the whole input to each peer; the others a 1/N chunk.
                let phases = if ctype == coll_type::ALL_REDUCE { 2 } else { 1 };
                let mut enter: Vec<Handle> = entry.to_vec();
                for _ in 0..phases {
                    let mut touching: Vec<Vec<u32>> = vec![Vec::with_capacity(2 * (n - 1)); n];
                    for i in 0..n {
                        for j in 0..n {
                            if i != j {
                                let b = if gather { total } else { chunks[j] };
                                let f = self.message(members[i], members[j], b, &enter[i], job);
                                touching[i].push(f);
                                touching[j].push(f);
                            }
                        }
                    }
                    enter = touching
                        .into_iter()
                        .enumerate()
                        .map(|(i, t)| self.handle(members[i], t))
                        .collect();
                }
                out = enter;
            }
        }
        Ok(out)
    }

    /// The delay of compute node `n`.
    fn compute_delay(&self, n: &EtNode) -> Time {
        match self.spec.compute {
            ComputeModel::None => Time::ZERO,
            ComputeModel::Duration => Time::from_us(n.duration_us),
            ComputeModel::Roofline { peak_ops_per_s, mem_per_s } => {
                let (ops, ts) = (
                    n.num_ops.unwrap_or(0).max(0) as f64,
                    n.tensor_size.unwrap_or(0).max(0) as f64,
                );
                if n.duration_us > 0 {
                    Time::from_us(n.duration_us)
                } else if ops <= 0.0 || ts <= 0.0 {
                    Time::ZERO
                } else {
                    let perf = (mem_per_s * ops / ts).min(peak_ops_per_s);
                    Time::from_secs_f64(ops / perf)
                }
            }
        }
    }
}

/// Build the workload of `trace` with rank `r` on host `hosts[r]`.
pub fn replay(trace: &Trace, hosts: &[u32], spec: &ChakraSpec) -> Result<Workload, String> {
    let nr = trace.ranks.len();
    // Index nodes and check dependencies.
    let mut pos: Vec<HashMap<u64, usize>> = Vec::with_capacity(nr);
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut m = HashMap::with_capacity(nodes.len());
        for (k, n) in nodes.iter().enumerate() {
            if m.insert(n.id, k).is_some() {
                return Err(format!("rank {r}: node id {} appears twice", n.id));
            }
        }
        for n in nodes {
            if let Some(d) = n.deps.iter().find(|d| !m.contains_key(d)) {
                return Err(format!(
                    "rank {r}: node {} depends on node {d}, which the rank's trace does not have",
                    n.id
                ));
            }
        }
        pos.push(m);
    }
    // Members of each group used, and collective instances: the k-th node (by id) of group g on
    // each member rank.
    let all: Vec<u32> = (0..nr as u32).collect();
    let members_of = |pg: Option<i64>| -> Result<Vec<usize>, String> {
        let ranks = match pg {
            None | Some(0) => &all,
            Some(g) => trace
                .groups
                .get(&g)
                .ok_or_else(|| format!("process group {g} is not in the comm-group file"))?,
        };
        let mut m: Vec<usize> = ranks.iter().map(|&r| r as usize).collect();
        m.sort_unstable();
        m.dedup();
        if let Some(&r) = m.iter().find(|&&r| r >= nr) {
            return Err(format!(
                "process group {} names rank {r}, but the trace has {nr} ranks",
                pg.unwrap_or(0)
            ));
        }
        Ok(m)
    };
    // (group, instance k) -> per member rank: node position.
    let mut instance_of: Vec<HashMap<usize, (i64, usize)>> = vec![HashMap::new(); nr];
    let mut instances: BTreeMap<(i64, usize), Vec<(usize, usize)>> = BTreeMap::new();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut colls: Vec<(u64, usize)> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == node_type::COMM_COLL)
            .map(|(k, n)| (n.id, k))
            .collect();
        colls.sort_unstable();
        let mut count: HashMap<i64, usize> = HashMap::new();
        for (_, k) in colls {
            let n = &nodes[k];
            let g = n.pg.unwrap_or(0);
            let members = members_of(n.pg).map_err(|e| format!("rank {r}, node {}: {e}", n.id))?;
            if !members.contains(&r) {
                return Err(format!(
                    "rank {r}, node {}: rank {r} is not a member of process group {g}",
                    n.id
                ));
            }
            if n.comm_type.is_none() || n.comm_size.is_none() {
                return Err(format!(
                    "rank {r}, node {}: a collective without `comm_type` or `comm_size`",
                    n.id
                ));
            }
            let c = count.entry(g).or_insert(0);
            instance_of[r].insert(k, (g, *c));
            instances.entry((g, *c)).or_default().push((r, k));
            *c += 1;
        }
    }
    for ((g, c), parts) in &instances {
        let members = members_of(Some(*g).filter(|&g| g != 0))?;
        let (r0, k0) = parts[0];
        let n0 = &trace.ranks[r0][k0];
        if parts.len() != members.len() {
            let have: Vec<usize> = parts.iter().map(|p| p.0).collect();
            let missing: Vec<usize> =
                members.iter().copied().filter(|m| !have.contains(m)).collect();
            return Err(format!(
                "collective #{c} of process group {g} ({} of {} bytes units, node {} of rank {r0}) has no matching node on rank(s) {missing:?}",
                coll_name(n0.comm_type.unwrap_or(-1)),
                n0.comm_size.unwrap_or(0),
                n0.id
            ));
        }
        for &(r, k) in parts {
            let n = &trace.ranks[r][k];
            if n.comm_type != n0.comm_type || n.comm_size != n0.comm_size {
                return Err(format!(
                    "collective #{c} of process group {g}: rank {r0} node {} is {} of {}, rank {r} node {} is {} of {}",
                    n0.id,
                    coll_name(n0.comm_type.unwrap_or(-1)),
                    n0.comm_size.unwrap_or(0),
                    n.id,
                    coll_name(n.comm_type.unwrap_or(-1)),
                    n.comm_size.unwrap_or(0)
                ));
            }
        }
    }
    // Sends and receives, matched on (src, dst, tag) in id order.
    let mut sends: HashMap<(usize, usize, i64), Vec<(usize, usize)>> = HashMap::new();
    let mut recv_of: HashMap<(usize, usize), (usize, usize, i64, usize)> = HashMap::new();
    let mut recv_count: HashMap<(usize, usize, i64), usize> = HashMap::new();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        let mut order: Vec<(u64, usize)> =
            nodes.iter().enumerate().map(|(k, n)| (n.id, k)).collect();
        order.sort_unstable();
        for (_, k) in order {
            let n = &nodes[k];
            let peer = |v: Option<i64>, what: &str| -> Result<usize, String> {
                match v {
                    Some(p) if p >= 0 && (p as usize) < nr && p as usize != r => Ok(p as usize),
                    Some(p) => Err(format!(
                        "rank {r}, node {}: {what} {p} is not another rank of the trace (0–{})",
                        n.id,
                        nr - 1
                    )),
                    None => Err(format!(
                        "rank {r}, node {}: a point-to-point node without `{what}`",
                        n.id
                    )),
                }
            };
            match n.kind {
                node_type::COMM_SEND => {
                    let d = peer(n.comm_dst, "comm_dst")?;
                    sends.entry((r, d, n.comm_tag.unwrap_or(0))).or_default().push((r, k));
                }
                node_type::COMM_RECV => {
                    let s = peer(n.comm_src, "comm_src")?;
                    let key = (s, r, n.comm_tag.unwrap_or(0));
                    let c = recv_count.entry(key).or_insert(0);
                    recv_of.insert((r, k), (s, r, key.2, *c));
                    *c += 1;
                }
                node_type::COMP
                | node_type::COMM_COLL
                | node_type::METADATA
                | node_type::MEM_LOAD
                | node_type::MEM_STORE => {}
                t => return Err(format!("rank {r}, node {}: unknown node type {t}", n.id)),
            }
        }
    }
    for (&(s, d, tag), &c) in &recv_count {
        let have = sends.get(&(s, d, tag)).map_or(0, Vec::len);
        if have != c {
            return Err(format!("rank {d} receives {c} message(s) from rank {s} with tag {tag}, but rank {s} sends {have}"));
        }
    }
    for (&(s, d, tag), v) in &sends {
        if recv_count.get(&(s, d, tag)).copied().unwrap_or(0) != v.len() {
            return Err(format!("rank {s} sends {} message(s) to rank {d} with tag {tag} that rank {d} never receives", v.len()));
        }
    }
    let mut b = Builder { wl: Workload::new(), spec, hosts, top: 0, jobs: HashMap::new() };
    b.top = b.wl.add_job("chakra", NO_JOB);
    // Global worklist: a node is built once its dependencies are; a collective instance once
    // all its members are ready; a receive once its send's message exists.
    let mut handle: Vec<Vec<Option<Handle>>> =
        trace.ranks.iter().map(|n| vec![None; n.len()]).collect();
    let mut unmet: Vec<Vec<usize>> =
        trace.ranks.iter().map(|n| n.iter().map(|x| x.deps.len()).collect()).collect();
    let mut dependents: Vec<Vec<Vec<usize>>> =
        trace.ranks.iter().map(|n| vec![Vec::new(); n.len()]).collect();
    for (r, nodes) in trace.ranks.iter().enumerate() {
        for (k, n) in nodes.iter().enumerate() {
            for d in &n.deps {
                dependents[r][pos[r][d]].push(k);
            }
        }
    }
    let mut ready: Vec<(usize, usize)> = Vec::new();
    for (r, u) in unmet.iter().enumerate() {
        for (k, &c) in u.iter().enumerate().rev() {
            if c == 0 {
                ready.push((r, k));
            }
        }
    }
    let mut waiting_coll: HashMap<(i64, usize), usize> = HashMap::new();
    let mut send_msg: HashMap<(usize, usize, i64, usize), u32> = HashMap::new();
    let mut send_count: HashMap<(usize, usize, i64), usize> = HashMap::new();
    let mut waiting_recv: HashMap<(usize, usize, i64, usize), (usize, usize)> = HashMap::new();
    let mut built = 0usize;
    let total: usize = trace.ranks.iter().map(Vec::len).sum();
    let entry = |handle: &Vec<Vec<Option<Handle>>>, r: usize, k: usize| -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for d in &trace.ranks[r][k].deps {
            v.extend(handle[r][pos[r][d]].as_ref().expect("dependency built first"));
        }
        v
    };
    let mut done: Vec<(usize, usize, Handle)> = Vec::new();
    while let Some((r, k)) = ready.pop() {
        let n = &trace.ranks[r][k];
        match n.kind {
            node_type::COMM_COLL => {
                let key = instance_of[r][&k];
                let c = waiting_coll.entry(key).or_insert(0);
                *c += 1;
                let parts = &instances[&key];
                if *c == parts.len() {
                    let mut parts = parts.clone();
                    parts.sort_unstable();
                    let members: Vec<usize> = parts.iter().map(|p| p.0).collect();
                    let mut entries = Vec::with_capacity(parts.len());
                    for &(pr, pk) in &parts {
                        let e = entry(&handle, pr, pk);
                        entries.push(b.handle(pr, e));
                    }
                    let outs = b
                        .collective(
                            n.comm_type.unwrap_or(-1),
                            n.comm_size.unwrap_or(0),
                            &members,
                            &entries,
                        )
                        .map_err(|e| format!("rank {r}, node {}: {e}", n.id))?;
                    for (&(pr, pk), h) in parts.iter().zip(outs) {
                        done.push((pr, pk, h));
                    }
                }
            }
            node_type::COMM_SEND => {
                let d = n.comm_dst.unwrap_or(0) as usize;
                let tag = n.comm_tag.unwrap_or(0);
                let c = send_count.entry((r, d, tag)).or_insert(0);
                let key = (r, d, tag, *c);
                *c += 1;
                let deps = entry(&handle, r, k);
                let deps = b.handle(r, deps);
                let job = b.job("send-recv");
                let bytes = b.bytes(n.comm_size.unwrap_or(0));
                let f = b.message(r, d, bytes, &deps, job);
                send_msg.insert(key, f);
                done.push((r, k, vec![f]));
                if let Some((rr, rk)) = waiting_recv.remove(&key) {
                    let mut e = entry(&handle, rr, rk);
                    e.push(f);
                    let h = b.handle(rr, e);
                    done.push((rr, rk, h));
                }
            }
            node_type::COMM_RECV => {
                let key = recv_of[&(r, k)];
                match send_msg.get(&key) {
                    Some(&f) => {
                        let mut e = entry(&handle, r, k);
                        e.push(f);
                        let h = b.handle(r, e);
                        done.push((r, k, h));
                    }
                    None => {
                        waiting_recv.insert(key, (r, k));
                    }
                }
            }
            _ => {
                let e = entry(&handle, r, k);
                let delay = if n.kind == node_type::COMP { b.compute_delay(n) } else { Time::ZERO };
                let h = if delay > Time::ZERO {
                    let e = b.handle(r, e);
                    let d = if e.is_empty() { spec.start + delay } else { delay };
                    vec![b.wl.add_task(hosts[r], d, &e, b.top)]
                } else {
                    b.handle(r, e)
                };
                done.push((r, k, h));
            }
        }
        for (dr, dk, h) in done.drain(..) {
            handle[dr][dk] = Some(h);
            built += 1;
            for &x in &dependents[dr][dk] {
                unmet[dr][x] -= 1;
                if unmet[dr][x] == 0 {
                    ready.push((dr, x));
                }
            }
        }
    }
    if built < total {
        let (r, k) = (0..nr)
            .flat_map(|r| (0..trace.ranks[r].len()).map(move |k| (r, k)))
            .find(|&(r, k)| handle[r][k].is_none())
            .expect("some node is unbuilt");
        let n = &trace.ranks[r][k];
        let why = if unmet[r][k] > 0 {
            "its dependencies never complete (a cycle)".to_string()
        } else if n.kind == node_type::COMM_COLL {
            "it waits for the other members of its collective, which never get there (a cycle across ranks)".to_string()
        } else {
            "it waits for a message that is never sent (a cycle across ranks)".to_string()
        };
        return Err(format!(
            "{} of {total} nodes can never run: e.g. rank {r}, node {}: {why}",
            total - built,
            n.id
        ));
    }
    if b.wl.flows.iter().all(|f| f.size_bytes == 0) {
        return Err("the trace has no communication".into());
    }
    Ok(b.wl)
}

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
