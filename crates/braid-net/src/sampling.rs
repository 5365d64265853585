//! Periodic samples of the network's state: per-port queue statistics and the optional time
//! series (`queues.csv`, `ood.csv`, `goodput.csv`, `paths.csv`) — queue lengths, NIC-level OOD
//! and RBO as Rondo §2.2 defines them, in-order goodput, and multipath senders' per-path state.

use braid_core::Time;
use braid_proto::transport::PathSample;

use crate::endpoints::{Conn, Host};
use crate::port::Port;
use crate::stats::PortQueueStats;

/// Sampling configuration.
#[derive(Clone, Debug, Default)]
pub struct SampleConfig {
    /// Sampling interval (`None`: no periodic sampling).
    pub interval: Option<Time>,
    /// Record a `queues.csv` time series.
    pub queues_series: bool,
    /// Record an `ood.csv` time series.
    pub ood_series: bool,
    /// Record a `goodput.csv` time series.
    pub goodput_series: bool,
    /// Record a `paths.csv` time series: each active flow's per-logical-path state
    /// (the sender's `path_samples`; multipath senders that report it, such as Rondo).
    pub paths_series: bool,
}

/// What the samples hold so far.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    /// What to sample.
    pub config: SampleConfig,
    /// Per-port queue statistics (switch ports only).
    queue_stats: Vec<PortQueueStats>,
    /// Rows `(time, port, bytes)`.
    queue_series: Vec<(Time, u32, u64, u64)>,
    /// Rows `(time, host, nic_ood, nic_rbo)`.
    ood_series: Vec<(Time, u32, u64, u64)>,
    /// Rows `(time, application bytes delivered in order so far)`.
    goodput_series: Vec<(Time, u64)>,
    /// Rows `(time, flow, one logical path's state)`.
    path_series: Vec<(Time, u32, PathSample)>,
    /// In a parallel run: queue samples not yet in `queue_stats`, held until it is known
    /// whether they fall after the run's end ([`Samples::finish`]).
    deferred: Option<HeldSamples>,
}

/// Queue samples held back in a parallel run, kept as what they add to the statistics: the
/// times sampled (at each, every port of [`HeldSamples::ports`] was sampled, most of them
/// empty) and the samples of non-empty queues. A partition whose own flows are done holds its
/// samples until the run's end is known; with one entry per port and time those held samples
/// were most of a parallel run's extra memory, and nearly all of them were zeros.
#[derive(Clone, Debug, Default)]
struct HeldSamples {
    /// The times of the held samples, ascending.
    times: Vec<Time>,
    /// The ports sampled at each held time (the partition's switch ports: always the same).
    ports: Vec<u32>,
    /// `(time, port, bytes)` of the held samples of non-empty queues.
    nonzero: Vec<(Time, u32, u64)>,
}

impl HeldSamples {
    fn is_empty(&self) -> bool {
        self.times.is_empty()
    }
}

impl Samples {
    /// Empty samples for a network of `n_ports` ports, sampling nothing yet.
    pub fn new(n_ports: usize) -> Samples {
        Samples { queue_stats: vec![PortQueueStats::default(); n_ports], ..Samples::default() }
    }

    /// Add what another partition of a parallel run sampled (each samples only the ports,
    /// hosts and flows it owns, so queue statistics add up and rows do not overlap; the goodput
    /// rows, taken at the same times, sum). [`Samples::finish_merge`] restores the row order.
    pub(crate) fn merge_partition(&mut self, other: Samples) {
        for (a, b) in self.queue_stats.iter_mut().zip(&other.queue_stats) {
            a.merge(b);
        }
        self.queue_series.extend(other.queue_series);
        self.ood_series.extend(other.ood_series);
        self.path_series.extend(other.path_series);
        assert_eq!(
            self.goodput_series.len(),
            other.goodput_series.len(),
            "partitions sampled at different times"
        );
        for (a, b) in self.goodput_series.iter_mut().zip(&other.goodput_series) {
            debug_assert_eq!(a.0, b.0);
            a.1 += b.1;
        }
    }

    /// Hold queue samples back until [`Samples::commit`] or [`Samples::finish`] (a parallel run).
    pub(crate) fn defer(&mut self) {
        self.deferred = Some(HeldSamples::default());
    }

    /// Count the held-back queue samples (a synchronisation boundary: flows remain).
    pub(crate) fn commit(&mut self) {
        self.finish(None);
    }

    /// The end of a parallel run: count the held-back queue samples, and with `cutoff` (the
    /// last flow's completion plus one interval) drop every sample at or after it — the samples
    /// one queue would not have taken, since its sampler stops re-arming once every flow is done.
    pub(crate) fn finish(&mut self, cutoff: Option<Time>) {
        let keep = |t: Time| cutoff.is_none_or(|c| t < c);
        if let Some(d) = &mut self.deferred {
            // Every held sample kept is first counted as empty, then the non-empty ones get
            // their values: the same counts, sums, maxima and buckets as recording each.
            let kept = d.times.iter().filter(|&&t| keep(t)).count() as u64;
            if kept > 0 {
                for &i in &d.ports {
                    self.queue_stats[i as usize].record_empty(kept);
                }
            }
            for (t, i, q) in d.nonzero.drain(..) {
                if keep(t) {
                    self.queue_stats[i as usize].fill_empty(q);
                }
            }
            d.times.clear();
        }
        if cutoff.is_some() {
            self.queue_series.retain(|r| keep(r.0));
            self.ood_series.retain(|r| keep(r.0));
            self.goodput_series.retain(|r| keep(r.0));
            self.path_series.retain(|r| keep(r.0));
        }
    }

    /// Put the merged rows back in the order one queue records them: by time, then port, host
    /// or flow (stable, so a flow's paths keep their order).
    pub(crate) fn finish_merge(&mut self) {
        self.queue_series.sort_by_key(|r| (r.0, r.1));
        self.ood_series.sort_by_key(|r| (r.0, r.1));
        self.path_series.sort_by_key(|r| (r.0, r.1));
    }

    /// Take one sample at `now`. `is_host` is indexed by node; `inorder_bytes` is the
    /// application bytes delivered in order so far, all flows; `conns` the connections (`paths.csv` rows name the connection); `own` (by node, in a parallel
    /// run) limits the ports and hosts sampled to a partition's. `kept`: the sample is sure to
    /// fall before the run's end, so a parallel run need not hold it back — it is counted at
    /// once when nothing is held (held samples are counted first, so each port's samples are
    /// counted in time order either way).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        now: Time,
        ports: &[Port],
        is_host: &[bool],
        hosts: &[Host],
        inorder_bytes: u64,
        conns: &[Conn],
        own: Option<&[bool]>,
        kept: bool,
    ) {
        let owned = |n: braid_core::NodeId| own.is_none_or(|o| o[n.idx()]);
        let hold = self.deferred.as_ref().is_some_and(|d| !(kept && d.is_empty()));
        let mut held = match &mut self.deferred {
            Some(d) if hold => {
                // The ports sampled are the same at every time: listed at the first hold.
                let first = d.times.is_empty() && d.ports.is_empty();
                d.times.push(now);
                Some((d, first))
            }
            _ => None,
        };
        for (i, p) in ports.iter().enumerate() {
            if is_host[p.node.idx()] || !owned(p.node) {
                continue;
            }
            // The queue data waits in: probes below it are left out of the statistics and
            // recorded on their own.
            let q = p.queued_bytes_without_probes();
            match &mut held {
                Some((d, first)) => {
                    if *first {
                        d.ports.push(i as u32);
                    }
                    if q > 0 {
                        d.nonzero.push((now, i as u32, q));
                    }
                }
                None => self.queue_stats[i].record(q),
            }
            let probes = p.probe_bytes();
            if self.config.queues_series && (q > 0 || probes > 0) {
                self.queue_series.push((now, i as u32, q, probes));
            }
        }
        if self.config.ood_series {
            for (i, h) in hosts.iter().enumerate() {
                if (h.nic_ood > 0 || h.nic_rbo > 0) && owned(h.node) {
                    self.ood_series.push((now, i as u32, h.nic_ood, h.nic_rbo));
                }
            }
        }
        if self.config.goodput_series {
            self.goodput_series.push((now, inorder_bytes));
        }
        if self.config.paths_series {
            for (i, f) in conns.iter().enumerate() {
                if f.started && !f.idle() && f.has_sender() {
                    for s in f.sender().path_samples() {
                        self.path_series.push((now, i as u32, *s));
                    }
                }
            }
        }
    }

    /// Per-port queue statistics (switch ports; host ports stay empty).
    pub fn queue_stats(&self) -> &[PortQueueStats] {
        &self.queue_stats
    }
    /// Rows `(time, port, bytes, probe bytes)` of non-empty switch queues (bytes: every class but
    /// the probe class).
    pub fn queue_series(&self) -> &[(Time, u32, u64, u64)] {
        &self.queue_series
    }
    /// Rows `(time, host, nic_ood, nic_rbo)` of hosts with reordering.
    pub fn ood_series(&self) -> &[(Time, u32, u64, u64)] {
        &self.ood_series
    }
    /// Rows `(time, application bytes delivered in order so far)`.
    pub fn goodput_series(&self) -> &[(Time, u64)] {
        &self.goodput_series
    }
    /// Rows `(time, flow, one logical path's state)`.
    pub fn path_series(&self) -> &[(Time, u32, PathSample)] {
        &self.path_series
    }
}
