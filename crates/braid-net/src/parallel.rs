//! Conservative parallel simulation (`braid run --threads N`, `docs/parallel.md`): the network
//! is split into partitions ([`plan_partitions`]: datacenters, Clos pods or leaves with their
//! hosts), one thread each, advancing in windows.
//!
//! A window starts at the earliest pending time T anywhere and ends at
//! min(T + lookahead, the next synchronisation boundary, the stop time), where the lookahead is
//! the smallest delay of a link between two partitions: nothing a partition does inside the
//! window can reach another before the window ends, so each processes its own events up to
//! there alone. At the barrier that ends a window every partition hands over the messages it
//! produced ([`crate::sim::Remote`], keyed as one queue would key them) and its counts.
//!
//! Decisions about the whole run are taken only at synchronisation boundaries, every
//! [`SYNC_QUANTUM`] of simulated time, with all partitions' counts: whether every flow has
//! completed (the run then ends there), whether timers and the sampler re-arm, the progress
//! watchdog, the caller's progress callback. Boundaries do not depend on the partitioning, so
//! `--threads 1` and `--threads N` process the same events in the same per-node order and
//! [`crate::sim::merge_partitions`] gives the same outputs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use braid_core::Time;

use crate::sim::{merge_partitions, Remote, RunEnd, Sim};
use crate::topology::{NodeKind, Topology};

/// The spacing of synchronisation boundaries, in simulated time.
pub const SYNC_QUANTUM: Time = Time::from_ms(1);

/// Assign every node of `topo` to one of at most `n` partitions; returns the owner of each node
/// and the number of partitions used. The units kept whole are the topology's groups
/// (datacenters of an inter-DC network, pods of a Clos) when there are at least `n` of them,
/// else each ToR/leaf switch (tier 1) with its hosts; units are dealt out largest first to the
/// partition with the fewest hosts so far, and switches of no unit (Clos cores, spines above
/// the leaves) round robin. A topology with neither is one partition.
pub fn plan_partitions(topo: &Topology, n: usize) -> (Vec<u16>, usize) {
    let n = n.clamp(1, u16::MAX as usize);
    let nodes = &topo.nodes;
    let is_host = |i: usize| nodes[i].kind == NodeKind::Host;
    // Units by groups: every node but the cores (tier 3) is in its group's unit.
    let by_group: Vec<Option<u32>> = (0..nodes.len()).map(|i| (is_host(i) || nodes[i].tier != 3).then_some(nodes[i].group)).collect();
    let n_groups = {
        let mut g: Vec<u32> = by_group.iter().flatten().copied().collect();
        g.sort_unstable();
        g.dedup();
        g.len()
    };
    let unit: Vec<Option<u32>> = if n_groups >= n || n == 1 {
        by_group
    } else {
        // Units by leaves: each tier-1 switch, and each host with the switch it hangs off.
        let mut u: Vec<Option<u32>> = (0..nodes.len()).map(|i| (!is_host(i) && nodes[i].tier == 1).then_some(i as u32)).collect();
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
    let mut hosts_in = std::collections::BTreeMap::new();
    for (i, u) in unit.iter().enumerate() {
        if let Some(u) = u {
            *hosts_in.entry(*u).or_insert(0usize) += is_host(i) as usize;
        }
    }
    let mut by_size: Vec<(usize, u32)> = hosts_in.into_iter().map(|(u, h)| (h, u)).collect();
    by_size.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut load = vec![0usize; parts];
    let mut part_of_unit = std::collections::HashMap::new();
    for (h, u) in by_size {
        let p = (0..parts).min_by_key(|&p| (load[p], p)).expect("parts >= 1");
        load[p] += h.max(1);
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
    /// The progress callback asked to stop (partition 0 only).
    interrupt: bool,
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
    slots: Vec<Mutex<Vec<Remote>>>,
    /// `[parity][partition]`.
    contrib: Vec<Mutex<Contrib>>,
    barrier: SpinBarrier,
    /// Set when a worker panicked, so the others stop waiting.
    failed: AtomicBool,
}

impl Shared {
    fn slot(&self, parity: usize, src: usize, dst: usize) -> &Mutex<Vec<Remote>> {
        &self.slots[(parity * self.n + src) * self.n + dst]
    }
}

/// How one partition's thread spent its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkerStats {
    /// Windows processed.
    pub windows: u64,
    /// Wall-clock seconds spent processing events.
    pub busy_s: f64,
    /// Wall-clock seconds spent at barriers and exchanging messages.
    pub sync_s: f64,
    /// Messages sent to other partitions.
    pub messages: u64,
}

/// A run split over partitions, one thread each.
pub struct ParallelSim {
    parts: Vec<Sim>,
    lookahead: Time,
    /// Per partition, after [`ParallelSim::run`].
    pub worker_stats: Vec<WorkerStats>,
}

impl ParallelSim {
    /// Make partitions out of `sims` (identical simulators, one per partition, flows added,
    /// not prepared) with the node owners `owner` (from [`plan_partitions`]). Errors: a link
    /// between partitions without delay (no lookahead), and, with more than one partition,
    /// packet capture or flow dependencies (not supported across partitions).
    pub fn new(mut sims: Vec<Sim>, owner: Vec<u16>) -> Result<ParallelSim, String> {
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
            if !sims[0].captured().is_empty() || sims[0].capture_enabled() {
                return Err("--threads: packet capture (output.pcap) needs one thread".into());
            }
            if sims[0].has_dependencies() {
                return Err("--threads: flow dependencies (collectives, `after`) need one thread".into());
            }
        }
        let owner: Arc<[u16]> = owner.into();
        for (i, s) in sims.iter_mut().enumerate() {
            s.make_partition(owner.clone(), i as u16, n);
        }
        Ok(ParallelSim { parts: sims, lookahead, worker_stats: Vec::new() })
    }

    /// Partitions.
    pub fn n_parts(&self) -> usize {
        self.parts.len()
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
        let shared = Shared {
            n,
            slots: (0..2 * n * n).map(|_| Mutex::new(Vec::new())).collect(),
            contrib: (0..2 * n).map(|_| Mutex::new(Contrib::default())).collect(),
            barrier: SpinBarrier { n, count: AtomicUsize::new(0), generation: AtomicUsize::new(0) },
            failed: AtomicBool::new(false),
        };
        let total = self.parts[0].flows().len() as u64;
        let la = self.lookahead;
        let stop = stop.unwrap_or(Time::MAX);
        let results: Vec<(RunEnd, WorkerStats)> = std::thread::scope(|s| {
            let mut it = self.parts.iter_mut().enumerate();
            let (_, first) = it.next().expect("one partition");
            let handles: Vec<_> = it
                .map(|(i, sim)| {
                    let sh = &shared;
                    s.spawn(move || worker(sim, sh, i, total, la, stop, None))
                })
                .collect();
            let r0 = worker(first, &shared, 0, total, la, stop, Some(progress));
            let mut out = vec![r0];
            for h in handles {
                match h.join() {
                    Ok(r) => out.push(r),
                    Err(e) => std::panic::resume_unwind(e),
                }
            }
            out
        });
        self.worker_stats = results.iter().map(|r| r.1).collect();
        results[0].0
    }

    /// Merge the partitions into one simulator to read the results from
    /// ([`crate::sim::merge_partitions`]).
    pub fn into_sim(self) -> Sim {
        merge_partitions(self.parts)
    }
}

/// One partition's thread. Every worker takes the same decisions from the same counts.
fn worker(sim: &mut Sim, sh: &Shared, me: usize, total: u64, la: Time, stop: Time, mut progress: Option<&mut dyn FnMut(&Sim) -> bool>) -> (RunEnd, WorkerStats) {
    /// Sets `failed` if the worker unwinds, so that the others stop waiting for it.
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
    let mut st = WorkerStats::default();
    let mut parity = 0usize;
    let mut inbox: Vec<Remote> = Vec::new();
    let publish = |sim: &mut Sim, parity: usize, interrupt: bool, st: &mut WorkerStats| {
        // The earliest pending time counts the messages about to leave.
        let c = Contrib {
            next: sim.next_pending().unwrap_or(Time::MAX),
            done: sim.flows_done() as u64,
            started: sim.flows_started() as u64,
            inorder: sim.stats().inorder_bytes,
            interrupt,
            last_completion: sim.last_completion(),
        };
        for dst in 0..n {
            if dst != me {
                let mut slot = sh.slot(parity, me, dst).lock().unwrap_or_else(|e| e.into_inner());
                let before = slot.len();
                sim.take_outbox(dst, &mut slot);
                st.messages += (slot.len() - before) as u64;
            }
        }
        *sh.contrib[parity * n + me].lock().unwrap_or_else(|e| e.into_inner()) = c;
    };
    publish(sim, parity, false, &mut st);
    sh.barrier.wait(&sh.failed);
    let mut boundary: Option<Time> = None;
    let mut last_mark = (0u64, 0u64);
    let mut progress_at = Time::ZERO;
    let stall = sim.stall_timeout();
    let (mut all_done, mut last_completion): (bool, Time);
    let end = loop {
        let t_sync = Instant::now();
        for src in 0..n {
            if src != me {
                let mut slot = sh.slot(parity, src, me).lock().unwrap_or_else(|e| e.into_inner());
                std::mem::swap(&mut *slot, &mut inbox);
                drop(slot);
                sim.accept_remote(&mut inbox);
            }
        }
        let mut g = Contrib { next: Time::MAX, ..Contrib::default() };
        for p in 0..n {
            let c = *sh.contrib[parity * n + p].lock().unwrap_or_else(|e| e.into_inner());
            g.next = g.next.min(c.next);
            g.done += c.done;
            g.started += c.started;
            g.inorder += c.inorder;
            g.interrupt |= c.interrupt;
            g.last_completion = g.last_completion.max(c.last_completion);
        }
        all_done = g.done == total && total > 0;
        last_completion = g.last_completion;
        if g.interrupt {
            break RunEnd::Interrupted;
        }
        if sh.failed.load(Ordering::Relaxed) {
            break RunEnd::Interrupted;
        }
        let mut interrupt = false;
        // A boundary is reached once nothing before it is pending anywhere.
        if let Some(b) = boundary {
            if g.next >= b {
                boundary = None;
                if g.done == total && total > 0 {
                    break RunEnd::AllFlowsComplete;
                }
                sim.boundary(g.done < total);
                let mark = (g.inorder, g.done);
                if mark != last_mark || g.started == g.done {
                    last_mark = mark;
                    progress_at = b;
                } else if let Some(span) = stall {
                    if b.saturating_sub(progress_at) > span {
                        break RunEnd::NoProgress;
                    }
                }
                sim.set_progress_at(progress_at);
                if let Some(cb) = progress.as_mut() {
                    interrupt = !cb(sim);
                }
            }
        }
        if g.next == Time::MAX {
            break if g.done == total { RunEnd::AllFlowsComplete } else { RunEnd::Stalled };
        }
        if g.next > stop {
            break if g.done == total && total > 0 { RunEnd::AllFlowsComplete } else { RunEnd::StopTime };
        }
        let b = *boundary.get_or_insert_with(|| Time::from_ps((g.next.ps() / SYNC_QUANTUM.ps() + 1) * SYNC_QUANTUM.ps()));
        let end = g.next.saturating_add(la).min(b).min(stop.saturating_add(Time::from_ps(1)));
        st.sync_s += t_sync.elapsed().as_secs_f64();
        let t_busy = Instant::now();
        sim.run_window(end);
        st.busy_s += t_busy.elapsed().as_secs_f64();
        st.windows += 1;
        let t_sync = Instant::now();
        parity ^= 1;
        publish(sim, parity, interrupt, &mut st);
        sh.barrier.wait(&sh.failed);
        st.sync_s += t_sync.elapsed().as_secs_f64();
    };
    sim.finish_partition(all_done.then_some(last_completion));
    (end, st)
}
