//! Conservative parallel simulation (`braid run --threads N`, `docs/parallel.md`): the network
//! is split into partitions ([`plan_partitions`]: datacenters, Clos pods or leaves with their
//! hosts, [`default_partitions`] of them unless the scenario says), advancing in windows; in each
//! window the threads take the partitions off a shared counter, largest first.
//!
//! A window starts at the earliest pending time T anywhere and ends at
//! min(T + lookahead, the next synchronisation boundary, the stop time), where the lookahead is
//! the smallest delay of a link between two partitions: nothing a partition does inside the
//! window can reach another before the window ends, so each processes its own events up to
//! there alone. At the barrier that ends a window every partition hands over the messages it
//! produced ([`crate::sim::Remote`], keyed as one queue would key them) and its counts.
//!
//! Decisions about the whole run are taken only at synchronisation boundaries, every
//! [`sync_quantum`] of simulated time, with all partitions' counts: whether every flow has
//! completed (the run then ends there), whether timers and the sampler re-arm, the progress
//! watchdog, the caller's progress callback. Boundaries do not depend on the partitioning, so
//! `--threads 1` and `--threads N` process the same events in the same per-node order and
//! [`crate::sim::merge_partitions`] gives the same outputs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use braid_core::Time;

use crate::sim::{merge_partitions, Messages, RunEnd, Sim};
use crate::topology::{NodeKind, Topology};

/// The smallest spacing of synchronisation boundaries, in simulated time ([`sync_quantum`]).
pub const MIN_SYNC_QUANTUM: Time = Time::from_ms(1);

/// A Clos core: a plain switch of tier 3, in no pod (a DCI is tier 3 too, but in its datacenter).
fn is_clos_core(n: &crate::topology::NodeSpec) -> bool {
    n.kind == NodeKind::Switch && n.tier == 3
}

/// The spacing of synchronisation boundaries for `topo`: [`MIN_SYNC_QUANTUM`], or the smallest
/// delay of a link between two groups (datacenters) if that is longer, so that windows between
/// datacenters can last a whole lookahead. A property of the topology, never of its partitioning.
pub fn sync_quantum(topo: &Topology) -> Time {
    let between_groups = topo
        .links
        .iter()
        .filter(|l| {
            let (a, b) = (&topo.nodes[l.a.idx()], &topo.nodes[l.b.idx()]);
            a.group != b.group && !is_clos_core(a) && !is_clos_core(b)
        })
        .map(|l| l.delay)
        .min();
    between_groups.map_or(MIN_SYNC_QUANTUM, |d| d.max(MIN_SYNC_QUANTUM))
}

/// Assign every node of `topo` to one of at most `n` partitions; returns the owner of each node
/// and the number of partitions used. The units kept whole are the topology's groups
/// (datacenters of an inter-DC network, pods of a Clos) when there are at least `n` of them,
/// else each ToR/leaf switch (tier 1) with its hosts; units are dealt out largest first to the
/// partition with the fewest hosts so far, and switches of no unit (Clos cores, spines above
/// the leaves) round robin. (Weighting units by the workload's bytes, sent and received or
/// along the datacenter chain, balanced the LCMP runs worse than host counts: BENCHMARKS.md,
/// "Tried and not kept".)
/// A topology with neither kind of unit is one partition.
pub fn plan_partitions(topo: &Topology, n: usize) -> (Vec<u16>, usize) {
    let n = n.clamp(1, u16::MAX as usize);
    let nodes = &topo.nodes;
    let is_host = |i: usize| nodes[i].kind == NodeKind::Host;
    // Units by groups: every node but a Clos core is in its group's unit.
    let by_group: Vec<Option<u32>> =
        nodes.iter().map(|x| (!is_clos_core(x)).then_some(x.group)).collect();
    let n_groups = {
        let mut g: Vec<u32> = by_group.iter().flatten().copied().collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    let unit: Vec<Option<u32>> = if n_groups >= n || n == 1 {
        by_group.clone()
    } else {
        // Units by leaves: each tier-1 switch, and each host with the switch it hangs off.
        let mut u: Vec<Option<u32>> = (0..nodes.len())
            .map(|i| (!is_host(i) && nodes[i].tier == 1).then_some(i as u32))
            .collect();
        for l in &topo.links {
            for (h, s) in [(l.a.idx(), l.b.idx()), (l.b.idx(), l.a.idx())] {
                if is_host(h) && !is_host(s) && nodes[s].tier == 1 {
                    u[h] = Some(s as u32);
                }
            }
        }
        if (0..nodes.len()).any(|i| is_host(i) && u[i].is_none()) {
            vec![Some(0); nodes.len()] // hosts off any leaf: no partitioning
        } else {
            u
        }
    };
    let mut units: Vec<u32> = unit.iter().flatten().copied().collect();
    units.sort_unstable();
    units.dedup();
    let parts = n.min(units.len()).max(1);
    let mut work = std::collections::BTreeMap::new();
    for (i, u) in unit.iter().enumerate() {
        if let Some(u) = u {
            *work.entry(*u).or_insert(0u128) += is_host(i) as u128;
        }
    }
    let mut by_size: Vec<(u128, u32)> = work.into_iter().map(|(u, w)| (w, u)).collect();
    by_size.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut load = vec![0u128; parts];
    let mut part_of_unit = std::collections::HashMap::new();
    for (w, u) in by_size {
        let p = (0..parts).min_by_key(|&p| (load[p], p)).expect("parts >= 1");
        load[p] += w.max(1);
        part_of_unit.insert(u, p as u16);
    }
    let mut rr = 0usize;
    let owner = unit
        .iter()
        .map(|u| match u {
            Some(u) => part_of_unit[u],
            None => {
                rr += 1;
                ((rr - 1) % parts) as u16
            }
        })
        .collect();
    (owner, parts)
}

/// The partitions `threads` threads share unless the scenario says (`run.partitions`): on an
/// inter-DC network a datacenter each, at most 8 per thread — the lookahead between
/// datacenters is long, so more partitions cost few windows, and threads taking them largest
/// first balance the load (BENCHMARKS.md, "One run on many cores") —; inside a datacenter, whose
/// windows last a microsecond and where every extra cut adds messages, one per thread.
pub fn default_partitions(topo: &Topology, threads: usize) -> usize {
    let threads = threads.max(1);
    if threads == 1 || !topo.nodes.iter().any(|x| x.kind == NodeKind::Dci) {
        return threads;
    }
    let mut groups: Vec<u32> = topo.nodes.iter().map(|x| x.group).collect();
    groups.sort_unstable();
    groups.dedup();
    groups.len().clamp(threads, 8 * threads)
}

/// The smallest delay of a link whose ends are in different partitions (`None`: no such link).
pub fn lookahead(topo: &Topology, owner: &[u16]) -> Option<Time> {
    topo.links.iter().filter(|l| owner[l.a.idx()] != owner[l.b.idx()]).map(|l| l.delay).min()
}

/// What each partition reports at a barrier.
#[derive(Clone, Copy, Debug, Default)]
struct Contrib {
    /// Earliest pending event or message (`Time::MAX`: none).
    next: Time,
    /// Flows completed here.
    done: u64,
    /// Flows started here.
    started: u64,
    /// Application bytes delivered in order here.
    inorder: u64,
    /// The latest completion of a flow sent from here.
    last_completion: Time,
}

/// A barrier for threads that each have a core: spin, then yield.
struct SpinBarrier {
    n: usize,
    count: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    /// Wait for every thread, or until `failed` is set (a thread panicked).
    fn wait(&self, failed: &AtomicBool) {
        let g = self.generation.load(Ordering::Acquire);
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            self.count.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == g && !failed.load(Ordering::Relaxed) {
            if spins < 2000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// State the partitions share: message slots and counts, double-buffered by window parity.
struct Shared {
    n: usize,
    /// `[parity][src][dst]`.
    slots: Vec<Mutex<Messages>>,
    /// `[parity][partition]`.
    contrib: Vec<Mutex<Contrib>>,
    barrier: SpinBarrier,
    /// Set when a worker panicked, so the others stop waiting.
    failed: AtomicBool,
    /// `[parity]`: the next partition to take in the window.
    next_task: [AtomicUsize; 2],
    /// `[parity]`: the progress callback asked to stop (read after the window's barrier).
    interrupt: [AtomicBool; 2],
    /// `[parity][partition]`: wall-clock nanoseconds its last window took (the order partitions
    /// are taken in; scheduling only, never outputs).
    cost_ns: Vec<std::sync::atomic::AtomicU64>,
}

impl Shared {
    fn slot(&self, parity: usize, src: usize, dst: usize) -> &Mutex<Messages> {
        &self.slots[(parity * self.n + src) * self.n + dst]
    }
}

/// How one thread spent its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkerStats {
    /// Windows processed.
    pub windows: u64,
    /// Partition-windows processed (a thread takes as many partitions per window as it can).
    pub tasks: u64,
    /// Wall-clock seconds spent processing partitions' windows (events, messages in and out).
    pub busy_s: f64,
    /// Wall-clock seconds spent deciding and at barriers (waiting for the slowest thread).
    pub sync_s: f64,
    /// Messages sent to other partitions.
    pub messages: u64,
    /// The sum over windows of the largest partition's wall-clock time in it: the run's length
    /// with a thread per partition and free synchronisation (a bound for projecting to more
    /// cores; the last window is not counted).
    pub critical_s: f64,
}

/// A run split over partitions, run by a number of threads.
pub struct ParallelSim {
    parts: Vec<Sim>,
    threads: usize,
    lookahead: Time,
    /// Per thread, after [`ParallelSim::run`].
    pub worker_stats: Vec<WorkerStats>,
}

impl ParallelSim {
    /// Make partitions out of `sims` (identical simulators, one per partition, flows added,
    /// not prepared) with the node owners `owner` (from [`plan_partitions`]). Errors: a link
    /// between partitions without delay (no lookahead), and, with more than one partition,
    /// packet capture or flow dependencies (not supported across partitions).
    pub fn new(mut sims: Vec<Sim>, owner: Vec<u16>, threads: usize) -> Result<ParallelSim, String> {
        let n = sims.len();
        assert!(n >= 1, "ParallelSim::new: no partition");
        let la = lookahead(sims[0].topo(), &owner);
        let lookahead = match la {
            Some(t) if t == Time::ZERO => {
                return Err("--threads: a link between two partitions has no delay, so the partitions cannot run apart (no lookahead)".into())
            }
            Some(t) => t,
            None => Time::MAX,
        };
        if n > 1 {
            if sims[0].capture_enabled() {
                return Err("--threads: packet capture (output.pcap) needs one thread".into());
            }
            if sims[0].has_dependencies() {
                return Err(
                    "--threads: flow dependencies (collectives, `after`) need one thread".into()
                );
            }
            if sims[0].has_shared_connections() {
                return Err("--threads: persistent connections (`workload.connections = \"per-pair\"`) need one thread".into());
            }
        }
        let owner: Arc<[u16]> = owner.into();
        for (i, s) in sims.iter_mut().enumerate() {
            s.make_partition(owner.clone(), i as u16, n);
        }
        Ok(ParallelSim {
            parts: sims,
            threads: threads.max(1),
            lookahead,
            worker_stats: Vec::new(),
        })
    }

    /// Partitions.
    pub fn n_parts(&self) -> usize {
        self.parts.len()
    }

    /// The partitions, in order (partition `i` owns the nodes `owner` gives `i`).
    pub fn parts(&self) -> &[Sim] {
        &self.parts
    }

    /// Threads that run them.
    pub fn n_threads(&self) -> usize {
        self.threads.clamp(1, self.parts.len())
    }

    /// The lookahead: the smallest delay of a link between partitions (`Time::MAX`: one).
    pub fn lookahead(&self) -> Time {
        self.lookahead
    }

    /// Schedule the initial events of every partition.
    pub fn prepare(&mut self) {
        for s in &mut self.parts {
            s.prepare();
        }
    }

    /// Run to the end (as [`Sim::run`]): every flow complete at a synchronisation boundary,
    /// `stop`, nothing left, the watchdog, or `progress` (called at boundaries with partition
    /// 0, whose counts are its own) asking to stop.
    pub fn run(&mut self, stop: Option<Time>, progress: &mut dyn FnMut(&Sim) -> bool) -> RunEnd {
        let n = self.parts.len();
        let threads = self.threads.clamp(1, n);
        let shared = Shared {
            n,
            slots: (0..2 * n * n).map(|_| Mutex::new(Messages::default())).collect(),
            contrib: (0..2 * n).map(|_| Mutex::new(Contrib::default())).collect(),
            barrier: SpinBarrier {
                n: threads,
                count: AtomicUsize::new(0),
                generation: AtomicUsize::new(0),
            },
            failed: AtomicBool::new(false),
            next_task: [AtomicUsize::new(0), AtomicUsize::new(0)],
            interrupt: [AtomicBool::new(false), AtomicBool::new(false)],
            cost_ns: (0..2 * n).map(|_| std::sync::atomic::AtomicU64::new(0)).collect(),
        };
        let total = self.parts[0].flows().len() as u64;
        let spans = (self.lookahead, sync_quantum(self.parts[0].topo()));
        let stop = stop.unwrap_or(Time::MAX);
        // Every partition's state before the first window.
        for (p, sim) in self.parts.iter_mut().enumerate() {
            publish(sim, &shared, p, 0);
        }
        let sims: Vec<Mutex<&mut Sim>> = self.parts.iter_mut().map(Mutex::new).collect();
        let results: Vec<(RunEnd, Option<Time>, WorkerStats)> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads)
                .map(|t| {
                    let (sh, sims) = (&shared, &sims);
                    s.spawn(move || worker(sims, sh, t, total, spans, stop, None))
                })
                .collect();
            let r0 = worker(&sims, &shared, 0, total, spans, stop, Some(progress));
            let mut out = vec![r0];
            for h in handles {
                match h.join() {
                    Ok(r) => out.push(r),
                    Err(e) => std::panic::resume_unwind(e),
                }
            }
            out
        });
        drop(sims);
        let windows = results[0].2.windows;
        assert!(
            self.parts.iter().all(|p| p.windows_run() == windows),
            "parallel run: a partition missed or repeated a window ({:?} of {windows})",
            self.parts.iter().map(|p| p.windows_run()).collect::<Vec<_>>()
        );
        for sim in &mut self.parts {
            sim.finish_partition(results[0].1);
        }
        self.worker_stats = results.iter().map(|r| r.2).collect();
        results[0].0
    }

    /// Merge the partitions into one simulator to read the results from
    /// ([`crate::sim::merge_partitions`]).
    pub fn into_sim(self) -> Sim {
        merge_partitions(self.parts)
    }
}

/// Publish partition `p`'s messages and counts into the `parity` slots; returns the messages.
fn publish(sim: &mut Sim, sh: &Shared, p: usize, parity: usize) -> u64 {
    // The earliest pending time counts the messages about to leave.
    let c = Contrib {
        next: sim.next_pending().unwrap_or(Time::MAX),
        done: sim.flows_done() as u64,
        started: sim.flows_started() as u64,
        inorder: sim.stats().inorder_bytes,
        last_completion: sim.last_completion(),
    };
    let mut sent = 0;
    for dst in 0..sh.n {
        if dst != p {
            let mut slot = sh.slot(parity, p, dst).lock().unwrap_or_else(|e| e.into_inner());
            let before = slot.len();
            sim.take_outbox(dst, &mut slot);
            sent += (slot.len() - before) as u64;
        }
    }
    *sh.contrib[parity * sh.n + p].lock().unwrap_or_else(|e| e.into_inner()) = c;
    sent
}

/// One thread. Every thread takes the same decisions from the same counts; within a window it
/// takes partitions off a shared counter until none is left (so a thread whose partitions are
/// light takes more of them). Returns how the run ended, the last completion if every flow
/// completed, and the thread's figures.
fn worker(
    sims: &[Mutex<&mut Sim>],
    sh: &Shared,
    me: usize,
    total: u64,
    spans: (Time, Time),
    stop: Time,
    mut progress: Option<&mut dyn FnMut(&Sim) -> bool>,
) -> (RunEnd, Option<Time>, WorkerStats) {
    let (la, quantum) = spans;
    /// Sets `failed` if the thread unwinds, so that the others stop waiting for it.
    struct PanicGuard<'a>(&'a AtomicBool);
    impl Drop for PanicGuard<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.store(true, Ordering::Relaxed);
            }
        }
    }
    let _guard = PanicGuard(&sh.failed);
    let n = sh.n;
    let lock = |p: usize| sims[p].lock().unwrap_or_else(|e| e.into_inner());
    let mut st = WorkerStats::default();
    let mut parity = 0usize;
    let mut inbox = Messages::default();
    let mut boundary: Option<Time> = None;
    let mut last_mark = (0u64, 0u64);
    let mut progress_at = Time::ZERO;
    let stall = lock(0).stall_timeout();
    let end = loop {
        let t_sync = Instant::now();
        let mut g = Contrib { next: Time::MAX, ..Contrib::default() };
        for p in 0..n {
            let c = *sh.contrib[parity * n + p].lock().unwrap_or_else(|e| e.into_inner());
            g.next = g.next.min(c.next);
            g.done += c.done;
            g.started += c.started;
            g.inorder += c.inorder;
            g.last_completion = g.last_completion.max(c.last_completion);
        }
        let all_done = g.done == total && total > 0;
        let finished = all_done.then_some(g.last_completion);
        if sh.interrupt[parity].load(Ordering::Acquire) || sh.failed.load(Ordering::Relaxed) {
            break (RunEnd::Interrupted, None);
        }
        if me == 0 {
            // The counter the next window takes partitions from (nobody uses it now).
            sh.next_task[parity ^ 1].store(0, Ordering::Relaxed);
            sh.interrupt[parity ^ 1].store(false, Ordering::Relaxed);
        }
        // A boundary is reached once nothing before it is pending anywhere.
        let mut at_boundary = None;
        if let Some(b) = boundary {
            if g.next >= b {
                boundary = None;
                if all_done {
                    break (RunEnd::AllFlowsComplete, finished);
                }
                at_boundary = Some(g.done < total);
                let mark = (g.inorder, g.done);
                if mark != last_mark || g.started == g.done {
                    last_mark = mark;
                    progress_at = b;
                } else if let Some(span) = stall {
                    if b.saturating_sub(progress_at) > span {
                        break (RunEnd::NoProgress, None);
                    }
                }
            }
        }
        if g.next == Time::MAX {
            break if g.done == total {
                (RunEnd::AllFlowsComplete, finished)
            } else {
                (RunEnd::Stalled, None)
            };
        }
        if g.next > stop {
            break if all_done {
                (RunEnd::AllFlowsComplete, finished)
            } else {
                (RunEnd::StopTime, None)
            };
        }
        let b = *boundary
            .get_or_insert_with(|| Time::from_ps((g.next.ps() / quantum.ps() + 1) * quantum.ps()));
        let end = g.next.saturating_add(la).min(b).min(stop.saturating_add(Time::from_ps(1)));
        st.sync_s += t_sync.elapsed().as_secs_f64();
        let t_busy = Instant::now();
        // Largest partitions first (by their last window's cost): the last one taken is small.
        // (Costs of the window before, double-buffered: every thread must see the same order, or
        // one partition would run twice and another not at all.)
        let mut order: Vec<(u64, usize)> =
            (0..n).map(|p| (sh.cost_ns[parity * n + p].load(Ordering::Relaxed), p)).collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // The previous window's largest partition: with a thread per partition, the window could
        // not have been shorter.
        st.critical_s += order[0].0 as f64 * 1e-9;
        loop {
            let k = sh.next_task[parity].fetch_add(1, Ordering::Relaxed);
            if k >= n {
                break;
            }
            let p = order[k].1;
            debug_assert!(k < n);
            let t_task = Instant::now();
            let mut sim = lock(p);
            if let Some(open) = at_boundary {
                sim.set_progress_at(progress_at);
                sim.boundary(open);
            }
            for src in 0..n {
                if src != p {
                    let mut slot =
                        sh.slot(parity, src, p).lock().unwrap_or_else(|e| e.into_inner());
                    std::mem::swap(&mut *slot, &mut inbox);
                    drop(slot);
                    sim.accept_remote(&mut inbox);
                }
            }
            sim.run_window(end);
            st.messages += publish(&mut sim, sh, p, parity ^ 1);
            st.tasks += 1;
            drop(sim);
            sh.cost_ns[(parity ^ 1) * n + p]
                .store(t_task.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        st.busy_s += t_busy.elapsed().as_secs_f64();
        // The progress callback sees partition 0 after its window (its counts are its own).
        if let (Some(cb), Some(_)) = (progress.as_mut(), at_boundary) {
            let s0 = lock(0);
            if !cb(&s0) {
                sh.interrupt[parity ^ 1].store(true, Ordering::Release);
            }
        }
        st.windows += 1;
        let t_sync = Instant::now();
        parity ^= 1;
        sh.barrier.wait(&sh.failed);
        st.sync_s += t_sync.elapsed().as_secs_f64();
    };
    (end.0, end.1, st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::clos::{fat_tree, leaf_spine, FatTreeParams, LeafSpineParams};

    /// Cut links of a partitioning.
    fn cuts(topo: &Topology, owner: &[u16]) -> usize {
        topo.links.iter().filter(|l| owner[l.a.idx()] != owner[l.b.idx()]).count()
    }

    #[test]
    fn a_fat_tree_splits_by_pods_with_cores_dealt_round_robin() {
        let t = fat_tree(&FatTreeParams { k: 4, ..FatTreeParams::default() }).unwrap();
        let (owner, n) = plan_partitions(&t, 2);
        assert_eq!(n, 2);
        for (i, x) in t.nodes.iter().enumerate() {
            if !(x.kind == NodeKind::Switch && x.tier == 3) {
                // A pod is whole: every node of a group has its group's owner.
                let first = t
                    .nodes
                    .iter()
                    .position(|y| {
                        y.group == x.group && !(y.kind == NodeKind::Switch && y.tier == 3)
                    })
                    .unwrap();
                assert_eq!(owner[i], owner[first], "pod {} split", x.group);
            }
        }
        let hosts = |p: u16| {
            t.nodes
                .iter()
                .enumerate()
                .filter(|(i, x)| x.kind == NodeKind::Host && owner[*i] == p)
                .count()
        };
        assert_eq!(hosts(0), hosts(1), "pods dealt evenly");
        let cores: Vec<u16> = t
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, x)| x.kind == NodeKind::Switch && x.tier == 3)
            .map(|(i, _)| owner[i])
            .collect();
        assert!(cores.contains(&0) && cores.contains(&1), "cores on both sides: {cores:?}");
        // Only links to cores are cut, and they all have the fabric delay: the lookahead.
        for l in &t.links {
            if owner[l.a.idx()] != owner[l.b.idx()] {
                assert!(t.nodes[l.a.idx()].tier == 3 || t.nodes[l.b.idx()].tier == 3);
            }
        }
        assert_eq!(lookahead(&t, &owner), Some(FatTreeParams::default().delay));
        assert_eq!(sync_quantum(&t), MIN_SYNC_QUANTUM);
    }

    #[test]
    fn a_leaf_spine_splits_by_leaves_with_their_hosts() {
        let p = LeafSpineParams {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 3,
            ..LeafSpineParams::default()
        };
        let t = leaf_spine(&p).unwrap();
        let (owner, n) = plan_partitions(&t, 2);
        assert_eq!(n, 2);
        // No host link is cut; every cut link is leaf–spine.
        for l in &t.links {
            let (a, b) = (&t.nodes[l.a.idx()], &t.nodes[l.b.idx()]);
            if owner[l.a.idx()] != owner[l.b.idx()] {
                assert!(a.kind != NodeKind::Host && b.kind != NodeKind::Host, "a host link is cut");
            }
        }
        assert!(cuts(&t, &owner) > 0);
        // More partitions than leaves: one per leaf.
        assert_eq!(plan_partitions(&t, 16).1, 4);
        assert_eq!(plan_partitions(&t, 1), (vec![0; t.nodes.len()], 1));
    }
}
