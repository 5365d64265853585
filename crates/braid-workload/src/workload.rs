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

mod deps;
pub use deps::*;

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
///
/// **Connections.** Each flow is one message. By default every message is sent on a connection
/// of its own (a new flow with fresh transport state); [`Workload::assign_connections`] with
/// [`ConnectionMode::PerPair`] puts every message between the same two hosts (and of the same
/// flow group) on one persistent connection, an RDMA queue pair as a collective library keeps
/// one per peer: the messages go out on it in the order they are released, one after another.
///
/// **Flow groups.** A flow belongs to a named group (`main` unless its generator says otherwise:
/// incast's background flows are `background`); a scenario may give a group its own transport
/// (`docs/workloads.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    /// The flows; a flow's id is its index here.
    pub flows: Vec<FlowSpec>,
    /// Shared storage for every flow's dependency list (flow indices), addressed by [`DepRange`].
    pub dep_list: Vec<u32>,
    /// The jobs that flows' `tag`s refer to.
    pub jobs: Vec<JobSpec>,
    /// Per flow, the connection it is sent on (dense indices from 0; flows with the same index
    /// share one). Empty: every flow is its own connection, numbered like the flow.
    pub conn_of: Vec<u32>,
    /// Per flow, its group (an index into `group_names`). Empty: every flow is in group 0.
    pub group_of: Vec<u16>,
    /// Group names; empty means the one group [`MAIN_GROUP`].
    pub group_names: Vec<String>,
}

/// The connection of a compute task (which sends nothing).
pub const NO_CONN: u32 = u32::MAX;

/// The name of the group of flows that no generator put elsewhere.
pub const MAIN_GROUP: &str = "main";

/// How a workload's messages map onto connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionMode {
    /// Every message is a new connection (a new flow with fresh transport state).
    PerMessage,
    /// One persistent connection per (source, destination, group): every message between the
    /// two hosts goes on it, in the order the messages are released.
    PerPair,
}

impl ConnectionMode {
    /// The scenario names (`workload.connections`).
    pub const NAMES: &'static [&'static str] = &["per-message", "per-pair"];

    /// Parse a scenario name.
    pub fn parse(s: &str) -> Result<ConnectionMode, String> {
        match s {
            "per-message" => Ok(ConnectionMode::PerMessage),
            "per-pair" => Ok(ConnectionMode::PerPair),
            _ => Err(format!("unknown connection mode `{s}` (valid: per-message, per-pair)")),
        }
    }

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            ConnectionMode::PerMessage => "per-message",
            ConnectionMode::PerPair => "per-pair",
        }
    }
}

impl Workload {
    /// An empty workload.
    pub fn new() -> Workload {
        Workload::default()
    }

    /// Add a compute task on host `host`: no bytes cross the network; it completes `delay`
    /// after its dependencies (or at absolute time `delay` without any), and flows may depend
    /// on it like on any flow. Replayed traces model compute this way (`crate::chakra`).
    /// Returns its index.
    pub fn add_task(&mut self, host: u32, delay: Time, deps: &[u32], tag: u32) -> u32 {
        self.add_flow(host, host, 0, delay, deps, tag)
    }

    /// Whether item `i` is a compute task ([`Workload::add_task`]), not a flow.
    #[inline]
    pub fn is_task(&self, i: usize) -> bool {
        self.flows.get(i).is_some_and(|f| f.size_bytes == 0)
    }

    /// Whether some item is a compute task.
    pub fn has_tasks(&self) -> bool {
        self.flows.iter().any(|f| f.size_bytes == 0)
    }

    /// The connection flow `i` is sent on ([`NO_CONN`] for a compute task).
    #[inline]
    pub fn conn(&self, i: usize) -> u32 {
        self.conn_of.get(i).copied().unwrap_or(i as u32)
    }

    /// Number of connections.
    pub fn n_conns(&self) -> usize {
        if self.conn_of.is_empty() {
            self.flows.len()
        } else {
            self.conn_of
                .iter()
                .filter(|&&c| c != NO_CONN)
                .map(|&c| c as usize + 1)
                .max()
                .unwrap_or(0)
        }
    }

    /// Whether some connection carries more than one message.
    pub fn has_shared_connections(&self) -> bool {
        self.n_conns() < self.flows.len()
    }

    /// The group of flow `i`.
    #[inline]
    pub fn group(&self, i: usize) -> u16 {
        self.group_of.get(i).copied().unwrap_or(0)
    }

    /// The name of group `g`.
    pub fn group_name(&self, g: u16) -> &str {
        self.group_names.get(g as usize).map(String::as_str).unwrap_or(MAIN_GROUP)
    }

    /// The index of group `name`, added if new.
    pub fn group_index(&mut self, name: &str) -> u16 {
        if self.group_names.is_empty() {
            self.group_names.push(MAIN_GROUP.to_string());
        }
        if let Some(i) = self.group_names.iter().position(|g| g == name) {
            return i as u16;
        }
        self.group_names.push(name.to_string());
        (self.group_names.len() - 1) as u16
    }

    /// Put flow `i` into group `name`.
    pub fn set_group(&mut self, i: usize, name: &str) {
        let g = self.group_index(name);
        if g == 0 && self.group_of.is_empty() {
            return;
        }
        if self.group_of.len() < self.flows.len() {
            self.group_of.resize(self.flows.len(), 0);
        }
        self.group_of[i] = g;
    }

    /// Map the messages onto connections (see [`ConnectionMode`]); replaces any earlier mapping.
    /// Connections are numbered in the order of their first message; compute tasks get
    /// [`NO_CONN`].
    pub fn assign_connections(&mut self, mode: ConnectionMode) {
        let tasks = self.has_tasks();
        match mode {
            ConnectionMode::PerMessage if !tasks => self.conn_of.clear(),
            ConnectionMode::PerMessage => {
                let mut next = 0u32;
                self.conn_of = self
                    .flows
                    .iter()
                    .map(|f| {
                        if f.size_bytes == 0 {
                            NO_CONN
                        } else {
                            next += 1;
                            next - 1
                        }
                    })
                    .collect();
            }
            ConnectionMode::PerPair => {
                let mut ids: std::collections::HashMap<(u32, u32, u16), u32> =
                    std::collections::HashMap::new();
                let mut conn_of = Vec::with_capacity(self.flows.len());
                for (i, f) in self.flows.iter().enumerate() {
                    if f.size_bytes == 0 {
                        conn_of.push(NO_CONN);
                        continue;
                    }
                    let next = ids.len() as u32;
                    conn_of.push(*ids.entry((f.src, f.dst, self.group(i))).or_insert(next));
                }
                self.conn_of = conn_of;
            }
        }
    }

    /// Keep only the first `n` flows (a file's first flows, for a quick run). An error if one of
    /// them depends on a flow beyond them.
    pub fn truncate(&mut self, n: usize) -> Result<(), String> {
        if n >= self.flows.len() {
            return Ok(());
        }
        for i in 0..n {
            if let Some(&d) = self.deps(i).iter().find(|&&d| d as usize >= n) {
                return Err(format!("flow {i} depends on flow {d}, beyond the first {n}"));
            }
        }
        self.flows.truncate(n);
        if !self.conn_of.is_empty() {
            self.conn_of.truncate(n);
            // Renumber the connections left densely, in order of first appearance.
            let mut map = std::collections::HashMap::new();
            for c in self.conn_of.iter_mut().filter(|c| **c != NO_CONN) {
                let next = map.len() as u32;
                *c = *map.entry(*c).or_insert(next);
            }
        }
        if !self.group_of.is_empty() {
            self.group_of.truncate(n);
        }
        Ok(())
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
    pub fn add_flow(
        &mut self,
        src: u32,
        dst: u32,
        size_bytes: u64,
        start: Time,
        deps: &[u32],
        tag: u32,
    ) -> u32 {
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
    pub fn add_flow_with(
        &mut self,
        src: u32,
        dst: u32,
        size_bytes: u64,
        start: Time,
        deps: DepRange,
        tag: u32,
    ) -> u32 {
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

    /// Append another workload, renumbering its flow indices, dependencies, job tags,
    /// connections and groups (groups are matched by name).
    pub fn append(&mut self, other: Workload) {
        let n_self = self.flows.len();
        let conn_off = self.n_conns() as u32;
        if !other.conn_of.is_empty() || !self.conn_of.is_empty() {
            if self.conn_of.is_empty() {
                self.conn_of = (0..n_self as u32).collect();
            }
            self.conn_of.extend((0..other.flows.len()).map(|i| match other.conn(i) {
                NO_CONN => NO_CONN,
                c => conn_off + c,
            }));
        }
        if other.group_of.iter().any(|&g| g != 0) {
            let map: Vec<u16> = (0..other.group_names.len().max(1))
                .map(|g| self.group_index(other.group_name(g as u16)))
                .collect();
            if self.group_of.len() < n_self {
                self.group_of.resize(n_self, 0);
            }
            self.group_of.extend((0..other.flows.len()).map(|i| map[other.group(i) as usize]));
        } else if !self.group_of.is_empty() {
            self.group_of.resize(n_self + other.flows.len(), 0);
        }
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
                return Err(format!("flow {i}: source host {} does not exist (the topology has {n_hosts} hosts, 0..{})", f.src, n_hosts.saturating_sub(1)));
            }
            if f.dst as usize >= n_hosts {
                return Err(format!(
                    "flow {i}: destination host {} does not exist (the topology has {n_hosts} hosts, 0..{})",
                    f.dst,
                    n_hosts.saturating_sub(1)
                ));
            }
            if f.src == f.dst && f.size_bytes > 0 {
                return Err(format!(
                    "flow {i}: source and destination are the same host ({})",
                    f.src
                ));
            }
            if f.size_bytes == 0 && f.src != f.dst {
                return Err(format!("flow {i}: size is 0 bytes"));
            }
            if f.deps.range().end > self.dep_list.len() {
                return Err(format!("flow {i}: dependency range {:?} is outside dep_list", f.deps));
            }
            for &d in self.deps(i) {
                if d as usize >= n {
                    return Err(format!(
                        "flow {i}: depends on flow {d}, which does not exist ({n} flows)"
                    ));
                }
                if d as usize == i {
                    return Err(format!("flow {i}: depends on itself"));
                }
            }
            if f.tag != NO_JOB && f.tag as usize >= self.jobs.len() {
                return Err(format!(
                    "flow {i}: job tag {} does not exist ({} jobs)",
                    f.tag,
                    self.jobs.len()
                ));
            }
        }
        if !self.conn_of.is_empty() {
            if self.conn_of.len() != n {
                return Err(format!(
                    "connections given for {} flows, but there are {n}",
                    self.conn_of.len()
                ));
            }
            let nc = self.n_conns();
            let mut first: Vec<u32> = vec![u32::MAX; nc];
            for (i, &c) in self.conn_of.iter().enumerate() {
                if (c == NO_CONN) != (self.flows[i].size_bytes == 0) {
                    return Err(format!("flow {i}: only a compute task has no connection"));
                }
                if c == NO_CONN {
                    continue;
                }
                let f0 = &mut first[c as usize];
                if *f0 == u32::MAX {
                    *f0 = i as u32;
                    continue;
                }
                let (a, b) = (&self.flows[*f0 as usize], &self.flows[i]);
                if (a.src, a.dst, self.group(*f0 as usize)) != (b.src, b.dst, self.group(i)) {
                    return Err(format!(
                        "flow {i}: on connection {c} with flow {f0}, but it goes {} → {} (group `{}`) and flow {f0} goes {} → {} (group `{}`)",
                        b.src,
                        b.dst,
                        self.group_name(self.group(i)),
                        a.src,
                        a.dst,
                        self.group_name(self.group(*f0 as usize)),
                        f0 = *f0
                    ));
                }
            }
            if let Some(c) = first.iter().position(|&f| f == u32::MAX) {
                return Err(format!(
                    "connection {c} carries no flow (connections must be numbered densely)"
                ));
            }
        }
        if !self.group_of.is_empty() && self.group_of.len() != n {
            return Err(format!(
                "groups given for {} flows, but there are {n}",
                self.group_of.len()
            ));
        }
        if let Some(i) =
            self.group_of.iter().position(|&g| g as usize >= self.group_names.len().max(1))
        {
            return Err(format!("flow {i}: group {} does not exist", self.group_of[i]));
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
        let mut ready: Vec<u32> =
            (0..n as u32).filter(|&i| gates.gate_of[i as usize] == NO_GATE).collect();
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

/// Helpers for the crate's tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// When the last item of `wl` finishes if each flow, once started, takes `dur(flow)` (a
    /// compute task finishes when it starts: its delay is its start offset).
    pub fn finish_time(wl: &Workload, dur: impl Fn(&FlowSpec) -> Time) -> Time {
        let mut tr = DepTracker::new(wl);
        let mut end = Time::ZERO;
        let mut pending: Vec<Release> = tr.initial();
        while let Some(r) = pending.pop() {
            let f = &wl.flows[r.flow as usize];
            let t = r.at + dur(f);
            end = end.max(t);
            let mut out = vec![];
            tr.on_complete(r.flow, t, &mut out);
            pending.extend(out);
        }
        end
    }
}
