//! Collective communication over a group of hosts, as flows with data dependencies.
//!
//! The Rondo evaluation (arXiv 2611.04594, §6.2.3, Fig. 11) runs distributed-training traffic made
//! of "Allreduce, All-to-All, Allgather, Reduce-Scatter, and point-to-point communication" (traced
//! with ASTRA-sim/STAGE for a 7B MoE Transformer). This module builds those phases directly:
//!
//! - **ring all-reduce** of `size` bytes per host (NCCL's ring algorithm): reduce-scatter then
//!   all-gather, `2(n−1)` steps; in each step host *i* sends one chunk of ≈ `size/n` bytes to host
//!   *i+1* (ring order = the order of `hosts`). The buffer is split into `n` chunks whose sizes
//!   differ by at most one byte (each at least 1 byte).
//! - **reduce-scatter** / **all-gather**: the `n−1` ring steps of either half alone; `size` is the
//!   full per-host buffer (all-gather: the output buffer), each step moves one `size/n` chunk.
//! - **all-to-all**: host *i* sends chunk *j* (≈ `size/n` bytes of its `size`-byte buffer) to every
//!   other host *j*, all at once.
//! - **point-to-point** (pipeline): host *k* sends `size` bytes to host *k+1*, after it has received
//!   from host *k−1* — a pipeline-parallel activation hand-off along `hosts`. In a later phase each
//!   hop starts `gap` after its input arrived (the stage's compute).
//!
//! Dependencies model "a step starts when the data it depends on has arrived": ring step *s* of host
//! *i* waits for the flow host *i* received in step *s−1* and for its own step *s−1* send. Between
//! phases, each host waits only for its own part of the previous phase (what it sent and received —
//! a per-host, not a global, barrier), stored once per host and shared by all of that host's first
//! flows (see [`Workload::push_deps`]). The first flows of a later phase start `gap` after their
//! dependencies complete (modelling compute between phases); the very first phase starts at `start`.

use crate::workload::{DepRange, Workload};
use braid_core::Time;

/// A collective operation (the `op` of a `collective` workload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectiveOp {
    /// Ring all-reduce: reduce-scatter + all-gather, `2(n−1)` steps of `size/n` chunks.
    RingAllReduce,
    /// Ring all-gather: `n−1` steps.
    AllGather,
    /// Ring reduce-scatter: `n−1` steps.
    ReduceScatter,
    /// All-to-all: every host sends `size/n` to every other host at once.
    AllToAll,
    /// Point-to-point pipeline along the host list.
    PointToPoint,
    /// MoE-training-like trace: per iteration, an all-to-all among the experts followed by a ring
    /// all-reduce of the gradients.
    MoeTraining,
}

impl CollectiveOp {
    /// All ops with their scenario names.
    pub const ALL: &'static [(CollectiveOp, &'static str)] = &[
        (CollectiveOp::RingAllReduce, "ring-allreduce"),
        (CollectiveOp::AllGather, "all-gather"),
        (CollectiveOp::ReduceScatter, "reduce-scatter"),
        (CollectiveOp::AllToAll, "all-to-all"),
        (CollectiveOp::PointToPoint, "p2p"),
        (CollectiveOp::MoeTraining, "moe-training"),
    ];

    /// The scenario name (kebab-case).
    pub fn name(self) -> &'static str {
        CollectiveOp::ALL.iter().find(|(o, _)| *o == self).map(|(_, n)| *n).unwrap_or("?")
    }

    /// Parse a scenario name (`allreduce` and `ring-all-reduce` are accepted for `ring-allreduce`,
    /// `point-to-point` for `p2p`).
    pub fn parse(s: &str) -> Result<CollectiveOp, String> {
        let t = s.trim().to_ascii_lowercase();
        let t = match t.as_str() {
            "allreduce" | "all-reduce" | "ring-all-reduce" => "ring-allreduce",
            "point-to-point" => "p2p",
            "allgather" => "all-gather",
            "reducescatter" => "reduce-scatter",
            "alltoall" => "all-to-all",
            other => other,
        };
        CollectiveOp::ALL.iter().find(|(_, n)| *n == t).map(|(o, _)| *o).ok_or_else(|| {
            format!(
                "field `op`: unknown collective `{s}` (valid: {})",
                CollectiveOp::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
            )
        })
    }
}

/// Split `size` bytes into `n` chunks whose sizes differ by at most one byte (each ≥ 1).
pub fn split_chunks(size: u64, n: usize) -> Vec<u64> {
    let n64 = n.max(1) as u64;
    let (base, rem) = (size / n64, size % n64);
    (0..n64).map(|c| (base + u64::from(c < rem)).max(1)).collect()
}

/// Builds successive collective phases over one group of hosts, chaining their dependencies.
#[derive(Clone, Debug)]
pub struct CollectiveBuilder {
    hosts: Vec<u32>,
    /// Per host position: what must complete before the host's next phase (empty at first).
    frontier: Vec<DepRange>,
    start: Time,
    gap: Time,
}

impl CollectiveBuilder {
    /// A builder over `hosts` (≥ 2, distinct; ring order = list order). The first phase starts at
    /// `start`; later phases start `gap` after each host's previous phase.
    pub fn new(hosts: Vec<u32>, start: Time, gap: Time) -> Result<CollectiveBuilder, String> {
        if hosts.len() < 2 {
            return Err(format!(
                "field `hosts`: a collective needs at least 2 hosts, got {}",
                hosts.len()
            ));
        }
        let mut s = hosts.clone();
        s.sort_unstable();
        if let Some(w) = s.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("field `hosts`: host {} appears twice", w[0]));
        }
        let n = hosts.len();
        Ok(CollectiveBuilder { hosts, frontier: vec![DepRange::EMPTY; n], start, gap })
    }

    /// The hosts, in ring order.
    pub fn hosts(&self) -> &[u32] {
        &self.hosts
    }

    /// Start offset and dependencies of host position `i`'s first flows in a new phase.
    fn entry(&self, i: usize) -> (Time, DepRange) {
        let f = self.frontier[i];
        if f.is_empty() {
            (self.start, f)
        } else {
            (self.gap, f)
        }
    }

    /// Append one phase of `op` moving `size` bytes (per host; see the module docs) with job `tag`.
    /// [`CollectiveOp::MoeTraining`] is not a single phase and is rejected.
    pub fn phase(
        &mut self,
        wl: &mut Workload,
        op: CollectiveOp,
        size: u64,
        tag: u32,
    ) -> Result<(), String> {
        if size == 0 {
            return Err("field `size`: must be > 0 bytes".into());
        }
        let n = self.hosts.len();
        match op {
            CollectiveOp::RingAllReduce => {
                let steps = 2 * (n - 1);
                self.ring(wl, size, steps, tag, |i, s| {
                    if s < n - 1 {
                        (i + n - s) % n
                    } else {
                        (i + 1 + n - (s - (n - 1))) % n
                    }
                });
            }
            CollectiveOp::ReduceScatter | CollectiveOp::AllGather => {
                self.ring(wl, size, n - 1, tag, |i, s| (i + n - s) % n);
            }
            CollectiveOp::AllToAll => {
                let chunks = split_chunks(size, n);
                let mut touching: Vec<Vec<u32>> = vec![Vec::with_capacity(2 * (n - 1)); n];
                for i in 0..n {
                    let (start, deps) = self.entry(i);
                    for j in 0..n {
                        if i != j {
                            let f = wl.add_flow_with(
                                self.hosts[i],
                                self.hosts[j],
                                chunks[j],
                                start,
                                deps,
                                tag,
                            );
                            touching[i].push(f);
                            touching[j].push(f);
                        }
                    }
                }
                for (i, t) in touching.iter().enumerate() {
                    self.frontier[i] = wl.push_deps(t);
                }
            }
            CollectiveOp::PointToPoint => {
                let mut prev: Option<u32> = None;
                let mut new_frontier: Vec<Vec<u32>> = vec![Vec::new(); n];
                for k in 0..n - 1 {
                    let (start, deps) = self.entry(k);
                    let f = match prev {
                        None => wl.add_flow_with(
                            self.hosts[k],
                            self.hosts[k + 1],
                            size,
                            start,
                            deps,
                            tag,
                        ),
                        Some(p) => {
                            let mut d: Vec<u32> = wl.dep_list[deps.range()].to_vec();
                            d.push(p);
                            let off = if deps.is_empty() { Time::ZERO } else { self.gap };
                            wl.add_flow(self.hosts[k], self.hosts[k + 1], size, off, &d, tag)
                        }
                    };
                    new_frontier[k].push(f);
                    new_frontier[k + 1].push(f);
                    prev = Some(f);
                }
                for (i, t) in new_frontier.iter().enumerate() {
                    self.frontier[i] = wl.push_deps(t);
                }
            }
            CollectiveOp::MoeTraining => {
                return Err("`moe-training` is a sequence of phases, not one phase".into());
            }
        }
        Ok(())
    }

    /// `steps` ring steps; `chunk(i, s)` is the chunk host position `i` sends in step `s`.
    fn ring(
        &mut self,
        wl: &mut Workload,
        size: u64,
        steps: usize,
        tag: u32,
        chunk: impl Fn(usize, usize) -> usize,
    ) {
        let n = self.hosts.len();
        let chunks = split_chunks(size, n);
        let mut prev: Vec<u32> = Vec::with_capacity(n);
        let mut cur: Vec<u32> = Vec::with_capacity(n);
        for s in 0..steps {
            cur.clear();
            for i in 0..n {
                let to = self.hosts[(i + 1) % n];
                let bytes = chunks[chunk(i, s) % n];
                let f = if s == 0 {
                    let (start, deps) = self.entry(i);
                    wl.add_flow_with(self.hosts[i], to, bytes, start, deps, tag)
                } else {
                    // Own previous send, and the chunk received from the left neighbour.
                    let deps = [prev[i], prev[(i + n - 1) % n]];
                    wl.add_flow(self.hosts[i], to, bytes, Time::ZERO, &deps, tag)
                };
                cur.push(f);
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        for i in 0..n {
            self.frontier[i] = wl.push_deps(&[prev[i], prev[(i + n - 1) % n]]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{DepTracker, Release, NO_JOB};

    /// Run a workload where every flow takes `d` once started; return per-flow (start, finish).
    fn run(wl: &Workload, d: Time) -> Vec<(Time, Time)> {
        let mut tr = DepTracker::new(wl);
        let mut times = vec![(Time::MAX, Time::MAX); wl.flows.len()];
        let mut pending: Vec<Release> = tr.initial();
        while let Some(r) = pending.pop() {
            let f = r.flow as usize;
            assert_eq!(times[f].0, Time::MAX, "flow {f} released twice");
            times[f] = (r.at, r.at + d);
            let mut out = vec![];
            tr.on_complete(r.flow, r.at + d, &mut out);
            pending.extend(out);
        }
        times
    }

    #[test]
    fn two_step_collective_dependencies() {
        // All-gather over 3 hosts = 2 ring steps: step 2 flows depend on step 1 flows.
        let mut wl = Workload::new();
        let job = wl.add_job("ag", NO_JOB);
        let mut b = CollectiveBuilder::new(vec![0, 1, 2], Time::from_us(1), Time::ZERO).unwrap();
        b.phase(&mut wl, CollectiveOp::AllGather, 3000, job).unwrap();
        assert_eq!(wl.flows.len(), 6);
        for i in 0..3 {
            assert!(wl.deps(i).is_empty());
            assert_eq!(wl.flows[i].start, Time::from_us(1));
            assert_eq!(wl.flows[i].size_bytes, 1000);
        }
        for i in 3..6 {
            let f = wl.flows[i];
            let deps = wl.deps(i);
            assert_eq!(deps.len(), 2);
            assert!(deps.iter().all(|&d| d < 3));
            // one of them is the step-1 flow into this sender, the other its own step-1 send
            assert!(deps.iter().any(|&d| wl.flows[d as usize].dst == f.src));
            assert!(deps.iter().any(|&d| wl.flows[d as usize].src == f.src));
        }
        wl.validate(3).unwrap();
        let t = run(&wl, Time::from_us(10));
        assert!(t[3..].iter().all(|x| x.0 == Time::from_us(11)));
    }

    #[test]
    fn ring_allreduce_shape_and_timing() {
        let n = 8;
        let size = 8_000_003;
        let mut wl = Workload::new();
        let mut b = CollectiveBuilder::new((0..n).collect(), Time::ZERO, Time::ZERO).unwrap();
        b.phase(&mut wl, CollectiveOp::RingAllReduce, size, NO_JOB).unwrap();
        let n = n as usize;
        assert_eq!(wl.flows.len(), 2 * (n - 1) * n);
        // every flow goes to the ring neighbour
        for f in &wl.flows {
            assert_eq!(f.dst, (f.src + 1) % n as u32);
        }
        // each host sends all chunks but one in each half: 2(n-1)·size bytes in total
        assert_eq!(wl.total_bytes(), 2 * (n as u64 - 1) * size);
        wl.validate(n).unwrap();
        let d = Time::from_us(5);
        let t = run(&wl, d);
        let end = t.iter().map(|x| x.1).max().unwrap();
        assert_eq!(end, Time::from_us(5 * 2 * (n as u64 - 1)));
    }

    #[test]
    fn phases_chain_per_host_with_gap() {
        let mut wl = Workload::new();
        let mut b = CollectiveBuilder::new(vec![0, 1, 2, 3], Time::ZERO, Time::from_us(3)).unwrap();
        b.phase(&mut wl, CollectiveOp::AllToAll, 4000, NO_JOB).unwrap();
        let first = wl.flows.len();
        assert_eq!(first, 12);
        b.phase(&mut wl, CollectiveOp::RingAllReduce, 4000, NO_JOB).unwrap();
        // the all-reduce's first step of host 0 waits for all 6 all-to-all flows touching host 0
        let d = wl.deps(first);
        assert_eq!(d.len(), 6);
        assert!(d.iter().all(|&x| {
            let f = wl.flows[x as usize];
            f.src == 0 || f.dst == 0
        }));
        assert_eq!(wl.flows[first].start, Time::from_us(3));
        b.phase(&mut wl, CollectiveOp::AllToAll, 4000, NO_JOB).unwrap();
        b.phase(&mut wl, CollectiveOp::PointToPoint, 100, NO_JOB).unwrap();
        wl.validate(4).unwrap();
        let t = run(&wl, Time::from_us(10));
        assert!(t.iter().all(|x| x.0 != Time::MAX), "every flow starts");
        // a2a: 10us; gap 3; allreduce 6 steps = 60; gap 3; a2a 10; gap 3; p2p 3 hops, each stage
        // forwarding `gap` after its input arrived: 10 + 3 + 10 + 3 + 10
        let end = t.iter().map(|x| x.1).max().unwrap();
        assert_eq!(end, Time::from_us(10 + 3 + 60 + 3 + 10 + 3 + 36));
        assert!(b.phase(&mut wl, CollectiveOp::MoeTraining, 1, NO_JOB).is_err());
    }

    #[test]
    fn parse_ops_and_chunks() {
        assert_eq!(CollectiveOp::parse("ring-allreduce").unwrap(), CollectiveOp::RingAllReduce);
        assert_eq!(CollectiveOp::parse("AllReduce").unwrap(), CollectiveOp::RingAllReduce);
        assert_eq!(CollectiveOp::parse("moe-training").unwrap(), CollectiveOp::MoeTraining);
        let e = CollectiveOp::parse("broadcast").unwrap_err();
        assert!(e.contains("broadcast") && e.contains("ring-allreduce"), "{e}");
        assert_eq!(split_chunks(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(split_chunks(2, 4), vec![1, 1, 1, 1]);
        assert!(CollectiveBuilder::new(vec![1], Time::ZERO, Time::ZERO).is_err());
        assert!(CollectiveBuilder::new(vec![1, 2, 1], Time::ZERO, Time::ZERO).is_err());
    }
}
