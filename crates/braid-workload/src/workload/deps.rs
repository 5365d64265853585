//! Dependencies between workload items: who waits on whom (a compact adjacency of dependants,
//! gates shared by many waiters) and, during a run, which items a completion releases.

use super::*;

/// Per flow, the flows that depend on it (compressed sparse rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependents {
    pub(super) offsets: Vec<u32>,
    pub(super) list: Vec<u32>,
}

/// Compressed sparse rows: row `r` is `list[offsets[r]..offsets[r + 1]]`.
#[derive(Clone, Debug, Default)]
pub(super) struct Csr {
    pub(super) offsets: Vec<u32>,
    pub(super) list: Vec<u32>,
}

impl Csr {
    /// Build from (row, value) pairs produced twice by `pairs` (count, then fill).
    pub(super) fn build(rows: usize, pairs: impl Fn(&mut dyn FnMut(u32, u32))) -> Csr {
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

    pub(super) fn of(&self, row: u32) -> &[u32] {
        let r = row as usize;
        if r + 1 >= self.offsets.len() {
            return &[];
        }
        &self.list[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }
}

pub(super) const NO_GATE: u32 = u32::MAX;

/// Flows that share one stored dependency range share one "gate": the gate opens when all the
/// flows in the range have completed, and releases every flow waiting on it. This keeps the
/// bookkeeping linear even when thousands of flows wait on the same thousand flows.
#[derive(Clone, Debug, Default)]
pub(super) struct Gates {
    /// Per flow: the gate it waits on, or `NO_GATE`.
    pub(super) gate_of: Vec<u32>,
    /// Per gate: the number of dependency entries.
    pub(super) gate_len: Vec<u32>,
    /// Per gate: the flows waiting on it.
    pub(super) gate_flows: Csr,
    /// Per flow: the gates it is a dependency of (once per occurrence).
    pub(super) flow_gates: Csr,
}

impl Gates {
    pub(super) fn build(wl: &Workload) -> Gates {
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
                    out.push(Release {
                        flow: h,
                        at: ready_at[g].saturating_add(offsets[h as usize]),
                    });
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
