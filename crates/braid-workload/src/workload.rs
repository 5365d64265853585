//! The workload representation: flows plus dependencies plus jobs.
//!
//! A [`Workload`] is a flat `Vec<FlowSpec>`; each flow names the flows that must complete before it
//! may start through a [`DepRange`] into one shared `dep_list` (so a [`FlowSpec`] stays small, `Copy`
//! and free of heap fields), and a `tag` that groups it into a [`JobSpec`] for job-completion times.
//!
//! Start-time rule (what a simulator must do):
//! - a flow with no dependencies starts at `start` (absolute simulated time);
//! - a flow with dependencies starts at `start` **after the last of its dependencies completes**
//!   (`start` is then an offset, e.g. a compute gap between two collective phases).
//!
//! [`Workload::dependents`] and [`Workload::unmet_deps`] give the two arrays a simulator needs for this
//! (per flow: who waits on me; how many flows I still wait for), and [`DepTracker`] does the whole
//! bookkeeping for a driver that reports completions. Dependencies may point to any flow (earlier or
//! later in the vector); [`Workload::validate`] rejects cycles, so every flow can eventually start.
//!
//! The design follows htsim's connection-matrix triggers (`trigger`, `send_done_trigger`) and
//! ASTRA-sim-style dependency graphs, flattened into index arrays as `docs/architecture.md`
//! (hot-path rules) asks for hot state.

use braid_core::Time;

/// The most flows a generator will produce (about 4 GB of `FlowSpec`s); larger requests are errors
/// rather than an out-of-memory abort.
pub const MAX_FLOWS: u64 = 100_000_000;

/// The largest flow a reader accepts: 10^15 bytes (1 PB, about a day at 100 Gb/s). A larger size
/// in a file is a unit typo (`1e30GB` would otherwise saturate to `u64::MAX` bytes).
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000_000;

/// The latest flow start a reader accepts: 10^6 s (about 11.6 days; 10^18 ps, a nineteenth of the
/// picosecond clock's range, so that start plus any flow time stays representable).
pub const MAX_START: Time = Time::from_ps(1_000_000_000_000_000_000);

/// Error unless `n` flows is at most [`MAX_FLOWS`].
pub fn check_flow_count(n: u128, what: &str) -> Result<(), String> {
    if n > MAX_FLOWS as u128 {
        return Err(format!(
            "{what} would generate about {n} flows, more than the limit of {MAX_FLOWS}"
        ));
    }
    Ok(())
}

/// The `tag` of a flow that belongs to no job (its FCT matters on its own, e.g. Poisson traffic).
pub const NO_JOB: u32 = u32::MAX;

/// A slice `dep_list[start .. start + len]` of a [`Workload`]'s shared dependency list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DepRange {
    /// First index into [`Workload::dep_list`].
    pub start: u32,
    /// Number of dependencies.
    pub len: u32,
}

impl DepRange {
    /// No dependencies.
    pub const EMPTY: DepRange = DepRange { start: 0, len: 0 };

    /// True when the flow has no dependencies.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The index range into the shared list.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// One flow to be simulated: a message of `size_bytes` from host `src` to host `dst`.
///
/// Small and `Copy` (40 bytes): hosts are dense host indices (0-based, in the order the topology
/// numbers its hosts), not node ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowSpec {
    /// Sending host index.
    pub src: u32,
    /// Receiving host index.
    pub dst: u32,
    /// Application bytes to deliver (> 0).
    pub size_bytes: u64,
    /// Earliest start: absolute when `deps` is empty, otherwise an offset after the last dependency
    /// has completed.
    pub start: Time,
    /// The flows (indices into [`Workload::flows`]) that must complete before this one may start.
    pub deps: DepRange,
    /// Index into [`Workload::jobs`] for JCT grouping, or [`NO_JOB`].
    pub tag: u32,
}

/// A job (or a phase of a job): a named group of flows whose completion time is reported as a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// Human-readable name, e.g. `incast` or `iter3/ring-allreduce`.
    pub name: String,
    /// The enclosing job (an index into [`Workload::jobs`]), or [`NO_JOB`] for a top-level job.
    /// A job's JCT covers its own flows and the flows of all jobs nested in it.
    pub parent: u32,
}

/// A set of flows with dependencies, grouped into jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    /// The flows; a flow's id is its index here.
    pub flows: Vec<FlowSpec>,
    /// Shared storage for every flow's dependency list (flow indices), addressed by [`DepRange`].
    pub dep_list: Vec<u32>,
    /// The jobs that flows' `tag`s refer to.
    pub jobs: Vec<JobSpec>,
}

/// Per flow, the flows that depend on it (compressed sparse rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependents {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

/// Compressed sparse rows: row `r` is `list[offsets[r]..offsets[r + 1]]`.
#[derive(Clone, Debug, Default)]
struct Csr {
    offsets: Vec<u32>,
    list: Vec<u32>,
}

impl Csr {
    /// Build from (row, value) pairs produced twice by `pairs` (count, then fill).
    fn build(rows: usize, pairs: impl Fn(&mut dyn FnMut(u32, u32))) -> Csr {
        let mut offsets = vec![0u32; rows + 1];
        pairs(&mut |r, _| {
            if (r as usize) < rows {
                offsets[r as usize + 1] += 1;
            }
        });
        for i in 0..rows {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut list = vec![0u32; offsets[rows] as usize];
        pairs(&mut |r, v| {
            if (r as usize) < rows {
                let slot = &mut fill[r as usize];
                list[*slot as usize] = v;
                *slot += 1;
            }
        });
        Csr { offsets, list }
    }

    fn of(&self, row: u32) -> &[u32] {
        let r = row as usize;
        if r + 1 >= self.offsets.len() {
            return &[];
        }
        &self.list[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }
}

const NO_GATE: u32 = u32::MAX;

/// Flows that share one stored dependency range share one "gate": the gate opens when all the
/// flows in the range have completed, and releases every flow waiting on it. This keeps the
/// bookkeeping linear even when thousands of flows wait on the same thousand flows.
#[derive(Clone, Debug, Default)]
struct Gates {
    /// Per flow: the gate it waits on, or `NO_GATE`.
    gate_of: Vec<u32>,
    /// Per gate: the number of dependency entries.
    gate_len: Vec<u32>,
    /// Per gate: the flows waiting on it.
    gate_flows: Csr,
    /// Per flow: the gates it is a dependency of (once per occurrence).
    flow_gates: Csr,
}

impl Gates {
    fn build(wl: &Workload) -> Gates {
        let n = wl.flows.len();
        let mut ids = std::collections::HashMap::new();
        let mut ranges: Vec<DepRange> = Vec::new();
        let mut gate_of = vec![NO_GATE; n];
        for (i, f) in wl.flows.iter().enumerate() {
            if f.deps.is_empty() || f.deps.range().end > wl.dep_list.len() {
                continue;
            }
            let g = *ids.entry((f.deps.start, f.deps.len)).or_insert_with(|| {
                ranges.push(f.deps);
                (ranges.len() - 1) as u32
            });
            gate_of[i] = g;
        }
        let gate_len: Vec<u32> = ranges.iter().map(|r| r.len).collect();
        let gate_flows = Csr::build(ranges.len(), |emit| {
            for (i, &g) in gate_of.iter().enumerate() {
                if g != NO_GATE {
                    emit(g, i as u32);
                }
            }
        });
        let flow_gates = Csr::build(n, |emit| {
            for (g, r) in ranges.iter().enumerate() {
                for &d in &wl.dep_list[r.range()] {
                    emit(d, g as u32);
                }
            }
        });
        Gates { gate_of, gate_len, gate_flows, flow_gates }
    }
}

impl Dependents {
    /// The flows waiting on `flow` (empty for an unknown index).
    pub fn of(&self, flow: u32) -> &[u32] {
        let f = flow as usize;
        if f + 1 >= self.offsets.len() {
            return &[];
        }
        &self.list[self.offsets[f] as usize..self.offsets[f + 1] as usize]
    }
}

impl Workload {
    /// An empty workload.
    pub fn new() -> Workload {
        Workload::default()
    }

    /// Number of flows.
    pub fn len(&self) -> usize {
        self.flows.len()
    }

    /// True when there are no flows.
    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    /// Add a job and return its index (to use as a flow `tag`, or as another job's `parent`).
    pub fn add_job(&mut self, name: impl Into<String>, parent: u32) -> u32 {
        self.jobs.push(JobSpec { name: name.into(), parent });
        (self.jobs.len() - 1) as u32
    }

    /// Add a flow and return its index. `deps` are flow indices (duplicates are removed); `start` is
    /// absolute when `deps` is empty and an offset after the dependencies otherwise.
    pub fn add_flow(&mut self, src: u32, dst: u32, size_bytes: u64, start: Time, deps: &[u32], tag: u32) -> u32 {
        let deps = self.push_deps(deps);
        self.add_flow_with(src, dst, size_bytes, start, deps, tag)
    }

    /// Store a dependency list once (duplicates removed) so that several flows can share it through
    /// [`Workload::add_flow_with`]. Sharing keeps per-host barriers (e.g. "all flows of host *i* in
    /// the next all-to-all wait for everything host *i* did in the previous phase") linear in size.
    pub fn push_deps(&mut self, deps: &[u32]) -> DepRange {
        if deps.is_empty() {
            return DepRange::EMPTY;
        }
        let start = self.dep_list.len();
        if deps.len() <= 32 {
            for &d in deps {
                if !self.dep_list[start..].contains(&d) {
                    self.dep_list.push(d);
                }
            }
        } else {
            let mut v = deps.to_vec();
            v.sort_unstable();
            v.dedup();
            self.dep_list.extend_from_slice(&v);
        }
        DepRange { start: start as u32, len: (self.dep_list.len() - start) as u32 }
    }

    /// Add a flow whose dependencies are an already stored range (see [`Workload::push_deps`]).
    pub fn add_flow_with(&mut self, src: u32, dst: u32, size_bytes: u64, start: Time, deps: DepRange, tag: u32) -> u32 {
        self.flows.push(FlowSpec { src, dst, size_bytes, start, deps, tag });
        (self.flows.len() - 1) as u32
    }

    /// The dependencies of flow `i` (empty for an unknown index or a malformed range).
    pub fn deps(&self, i: usize) -> &[u32] {
        match self.flows.get(i) {
            Some(f) => self.dep_list.get(f.deps.range()).unwrap_or(&[]),
            None => &[],
        }
    }

    /// True when some flow has dependencies.
    pub fn has_deps(&self) -> bool {
        self.flows.iter().any(|f| !f.deps.is_empty())
    }

    /// Sum of all flow sizes in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.flows.iter().fold(0u64, |a, f| a.saturating_add(f.size_bytes))
    }

    /// For each flow, the flows that depend on it (expanded per flow; for very large shared
    /// barriers prefer [`DepTracker`], whose bookkeeping stays linear in the stored ranges).
    pub fn dependents(&self) -> Dependents {
        let csr = Csr::build(self.flows.len(), |emit| {
            for i in 0..self.flows.len() {
                for &d in self.deps(i) {
                    emit(d, i as u32);
                }
            }
        });
        Dependents { offsets: csr.offsets, list: csr.list }
    }

    /// For each flow, how many dependencies it waits for before it may start.
    pub fn unmet_deps(&self) -> Vec<u32> {
        (0..self.flows.len()).map(|i| self.deps(i).len() as u32).collect()
    }

    /// Append another workload, renumbering its flow indices, dependencies and job tags.
    pub fn append(&mut self, other: Workload) {
        let flow_off = self.flows.len() as u32;
        let dep_off = self.dep_list.len() as u32;
        let job_off = self.jobs.len() as u32;
        self.dep_list.extend(other.dep_list.iter().map(|d| d + flow_off));
        for mut j in other.jobs {
            if j.parent != NO_JOB {
                j.parent += job_off;
            }
            self.jobs.push(j);
        }
        for mut f in other.flows {
            if !f.deps.is_empty() {
                f.deps.start += dep_off;
            }
            if f.tag != NO_JOB {
                f.tag += job_off;
            }
            self.flows.push(f);
        }
    }

    /// Check the workload against a topology with `n_hosts` hosts: hosts exist, no flow to itself,
    /// sizes are positive, dependency ranges and indices are valid, tags and job parents are valid,
    /// and the dependency graph has no cycle. The message names the first offending flow.
    pub fn validate(&self, n_hosts: usize) -> Result<(), String> {
        let n = self.flows.len();
        if n > u32::MAX as usize - 1 {
            return Err(format!("too many flows ({n})"));
        }
        for (i, f) in self.flows.iter().enumerate() {
            if f.src as usize >= n_hosts {
                return Err(format!(
                    "flow {i}: source host {} does not exist (the topology has {n_hosts} hosts, 0..{})",
                    f.src,
                    n_hosts.saturating_sub(1)
                ));
            }
            if f.dst as usize >= n_hosts {
                return Err(format!(
                    "flow {i}: destination host {} does not exist (the topology has {n_hosts} hosts, 0..{})",
                    f.dst,
                    n_hosts.saturating_sub(1)
                ));
            }
            if f.src == f.dst {
                return Err(format!("flow {i}: source and destination are the same host ({})", f.src));
            }
            if f.size_bytes == 0 {
                return Err(format!("flow {i}: size is 0 bytes"));
            }
            if f.deps.range().end > self.dep_list.len() {
                return Err(format!("flow {i}: dependency range {:?} is outside dep_list", f.deps));
            }
            for &d in self.deps(i) {
                if d as usize >= n {
                    return Err(format!("flow {i}: depends on flow {d}, which does not exist ({n} flows)"));
                }
                if d as usize == i {
                    return Err(format!("flow {i}: depends on itself"));
                }
            }
            if f.tag != NO_JOB && f.tag as usize >= self.jobs.len() {
                return Err(format!("flow {i}: job tag {} does not exist ({} jobs)", f.tag, self.jobs.len()));
            }
        }
        for (j, job) in self.jobs.iter().enumerate() {
            if job.parent != NO_JOB && job.parent as usize >= j {
                return Err(format!(
                    "job {j} (`{}`): parent {} must be an earlier job",
                    job.name, job.parent
                ));
            }
        }
        // Kahn's algorithm over the shared-range gates: every flow must become startable.
        let gates = Gates::build(self);
        let mut unmet = gates.gate_len.clone();
        let mut ready: Vec<u32> = (0..n as u32).filter(|&i| gates.gate_of[i as usize] == NO_GATE).collect();
        let mut seen = 0usize;
        let mut started = vec![false; n];
        for &r in &ready {
            started[r as usize] = true;
        }
        while let Some(f) = ready.pop() {
            seen += 1;
            for &g in gates.flow_gates.of(f) {
                let u = &mut unmet[g as usize];
                *u -= 1;
                if *u == 0 {
                    for &h in gates.gate_flows.of(g) {
                        if !started[h as usize] {
                            started[h as usize] = true;
                            ready.push(h);
                        }
                    }
                }
            }
        }
        if seen != n {
            let stuck = started.iter().position(|&s| !s).unwrap_or(0);
            return Err(format!(
                "the dependencies form a cycle: {} flows can never start (e.g. flow {stuck})",
                n - seen
            ));
        }
        Ok(())
    }
}

/// A flow that has become startable, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The flow index.
    pub flow: u32,
    /// The time at which it starts.
    pub at: Time,
}

/// Dependency bookkeeping for a driver: tells it which flows to start, and when, as flows complete.
///
/// Usage: start every flow from [`DepTracker::initial`]; on each completion call
/// [`DepTracker::on_complete`], which appends the flows that become startable. Flows that share a
/// stored dependency range share one counter, so the cost is linear in the stored dependencies.
#[derive(Clone, Debug)]
pub struct DepTracker {
    gates: Gates,
    unmet: Vec<u32>,
    ready_at: Vec<Time>,
    offsets: Vec<Time>,
    done: Vec<bool>,
}

impl DepTracker {
    /// Bookkeeping for `wl` (which should have passed [`Workload::validate`]).
    pub fn new(wl: &Workload) -> DepTracker {
        let gates = Gates::build(wl);
        let unmet = gates.gate_len.clone();
        let ready_at = vec![Time::ZERO; unmet.len()];
        DepTracker {
            gates,
            unmet,
            ready_at,
            offsets: wl.flows.iter().map(|f| f.start).collect(),
            done: vec![false; wl.flows.len()],
        }
    }

    /// The flows with no dependencies, at their absolute start times (in flow order).
    pub fn initial(&self) -> Vec<Release> {
        (0..self.offsets.len())
            .filter(|&i| self.gates.gate_of[i] == NO_GATE)
            .map(|i| Release { flow: i as u32, at: self.offsets[i] })
            .collect()
    }

    /// Record that `flow` completed at `now`; push the flows that become startable onto `out`
    /// (at the time of their last dependency's completion plus their own `start` offset).
    /// Repeated or unknown completions are ignored.
    pub fn on_complete(&mut self, flow: u32, now: Time, out: &mut Vec<Release>) {
        match self.done.get_mut(flow as usize) {
            Some(d) if !*d => *d = true,
            _ => return,
        }
        let Self { gates, unmet, ready_at, offsets, .. } = self;
        for &g in gates.flow_gates.of(flow) {
            let g = g as usize;
            if unmet[g] == 0 {
                continue;
            }
            if now > ready_at[g] {
                ready_at[g] = now;
            }
            unmet[g] -= 1;
            if unmet[g] == 0 {
                for &h in gates.gate_flows.of(g as u32) {
                    out.push(Release { flow: h, at: ready_at[g].saturating_add(offsets[h as usize]) });
                }
            }
        }
    }

    /// Number of dependencies `flow` still waits for.
    pub fn unmet(&self, flow: u32) -> u32 {
        match self.gates.gate_of.get(flow as usize) {
            Some(&g) if g != NO_GATE => self.unmet[g as usize],
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowspec_is_small_and_copy() {
        fn is_copy<T: Copy>() {}
        is_copy::<FlowSpec>();
        assert!(std::mem::size_of::<FlowSpec>() <= 40, "{}", std::mem::size_of::<FlowSpec>());
    }

    #[test]
    fn dependents_and_unmet() {
        let mut w = Workload::new();
        let a = w.add_flow(0, 1, 10, Time::ZERO, &[], NO_JOB);
        let b = w.add_flow(1, 2, 10, Time::ZERO, &[], NO_JOB);
        let c = w.add_flow(2, 0, 10, Time::from_ns(5), &[a, b, a], NO_JOB);
        assert_eq!(w.deps(c as usize), &[a, b]);
        assert_eq!(w.unmet_deps(), vec![0, 0, 2]);
        let d = w.dependents();
        assert_eq!(d.of(a), &[c]);
        assert_eq!(d.of(b), &[c]);
        assert!(d.of(c).is_empty());
        assert!(d.of(99).is_empty());
        w.validate(3).unwrap();

        let mut t = DepTracker::new(&w);
        assert_eq!(t.initial().len(), 2);
        let mut out = vec![];
        t.on_complete(a, Time::from_ns(100), &mut out);
        assert!(out.is_empty());
        t.on_complete(b, Time::from_ns(50), &mut out);
        assert_eq!(out, vec![Release { flow: c, at: Time::from_ns(105) }]);
        t.on_complete(b, Time::from_ns(60), &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn validate_names_problems() {
        let mut w = Workload::new();
        w.add_flow(0, 7, 10, Time::ZERO, &[], NO_JOB);
        let e = w.validate(4).unwrap_err();
        assert!(e.contains("destination host 7 does not exist"), "{e}");

        let mut w = Workload::new();
        w.add_flow(0, 1, 10, Time::ZERO, &[1], NO_JOB);
        w.add_flow(1, 0, 10, Time::ZERO, &[0], NO_JOB);
        let e = w.validate(2).unwrap_err();
        assert!(e.contains("cycle"), "{e}");

        let mut w = Workload::new();
        w.add_flow(1, 1, 10, Time::ZERO, &[], NO_JOB);
        assert!(w.validate(2).unwrap_err().contains("same host"));
        let mut w = Workload::new();
        w.add_flow(0, 1, 0, Time::ZERO, &[], NO_JOB);
        assert!(w.validate(2).unwrap_err().contains("size is 0"));
        let mut w = Workload::new();
        w.add_flow(0, 1, 1, Time::ZERO, &[], 3);
        assert!(w.validate(2).unwrap_err().contains("job tag 3"));
    }

    #[test]
    fn append_renumbers() {
        let mut a = Workload::new();
        let j = a.add_job("a", NO_JOB);
        a.add_flow(0, 1, 1, Time::ZERO, &[], j);
        let mut b = Workload::new();
        let j0 = b.add_job("b", NO_JOB);
        let j1 = b.add_job("b/1", j0);
        let f = b.add_flow(1, 0, 1, Time::ZERO, &[], j0);
        b.add_flow(0, 1, 1, Time::ZERO, &[f], j1);
        a.append(b);
        assert_eq!(a.flows.len(), 3);
        assert_eq!(a.deps(2), &[1]);
        assert_eq!(a.flows[2].tag, 2);
        assert_eq!(a.jobs[2].parent, 1);
        a.validate(2).unwrap();
    }
}
