//! Periodic samples of the network's state: per-port queue statistics and the optional time
//! series (`queues.csv`, `ood.csv`, `goodput.csv`, `paths.csv`) — queue lengths, NIC-level OOD
//! and RBO as Rondo §2.2 defines them, in-order goodput, and multipath senders' per-path state.

use braid_core::Time;
use braid_proto::transport::PathSample;

use crate::endpoints::{Flow, Host};
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
    queue_series: Vec<(Time, u32, u64)>,
    /// Rows `(time, host, nic_ood, nic_rbo)`.
    ood_series: Vec<(Time, u32, u64, u64)>,
    /// Rows `(time, application bytes delivered in order so far)`.
    goodput_series: Vec<(Time, u64)>,
    /// Rows `(time, flow, one logical path's state)`.
    path_series: Vec<(Time, u32, PathSample)>,
}

impl Samples {
    /// Empty samples for a network of `n_ports` ports, sampling nothing yet.
    pub fn new(n_ports: usize) -> Samples {
        Samples { queue_stats: vec![PortQueueStats::default(); n_ports], ..Samples::default() }
    }

    /// Take one sample at `now`. `is_host` is indexed by node; `inorder_bytes` is the
    /// application bytes delivered in order so far, all flows.
    pub fn record(&mut self, now: Time, ports: &[Port], is_host: &[bool], hosts: &[Host], inorder_bytes: u64, flows: &[Flow]) {
        for (i, p) in ports.iter().enumerate() {
            if is_host[p.node.idx()] {
                continue;
            }
            let q = p.queued_bytes();
            self.queue_stats[i].record(q);
            if self.config.queues_series && q > 0 {
                self.queue_series.push((now, i as u32, q));
            }
        }
        if self.config.ood_series {
            for (i, h) in hosts.iter().enumerate() {
                if h.nic_ood > 0 || h.nic_rbo > 0 {
                    self.ood_series.push((now, i as u32, h.nic_ood, h.nic_rbo));
                }
            }
        }
        if self.config.goodput_series {
            self.goodput_series.push((now, inorder_bytes));
        }
        if self.config.paths_series {
            for (i, f) in flows.iter().enumerate() {
                if f.started_at.is_some() && f.finish.is_none() {
                    for s in f.sender.path_samples() {
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
    /// Rows `(time, port, bytes)` of non-empty switch queues.
    pub fn queue_series(&self) -> &[(Time, u32, u64)] {
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
