//! The receiver side of receiver-driven transports (EQDS): the pull pacer of each receiving NIC
//! (sans-IO).
//!
//! One pacer per receiving host sends at most one pull per full packet time (MTU + header) at
//! [`PULL_RATE_FRACTION`] of the NIC's link rate, round robin over the flows with pulls pending.
//! Every data packet carries its sender's **pull target** (htsim `EqdsSrc::computePullTarget`):
//! the cumulative pull number the receiver should reach so that the sender holds, in credit and
//! in pulls still to come, what it asks for ([`PullPacers::request_to_target`]; the receiver
//! keeps pulling while its pull count is below the highest target seen, htsim
//! `EqdsSink::handlePullTarget` / `backlog()`). On top of that a trimmed packet queues one pull
//! and an RTS as many as it asks for (its PSN field) ([`PullPacers::request`], htsim's
//! `_retx_backlog`); every pull sent counts towards the target too. A pull carries the flow's
//! cumulative pull count (its pull number) and is sent on the UDP source port of the flow's
//! latest data packet or RTS. This follows the
//! EQDS design of the Rondo paper's baselines (Rondo §6.1) and EQDS's pull pacing (NSDI '22, §3).
//!
//! The driver asks the flow's sender whether it takes part
//! ([`Sender::wants_pulls`](crate::transport::Sender::wants_pulls)), calls
//! [`PullPacers::request`] on data and RTS arrivals, schedules a tick at the time it returns,
//! and on each tick calls [`PullPacers::on_tick`], sends the [`PullOut`] it gets as a pull
//! packet, then re-arms with [`PullPacers::rearm`]. No clock reads: every call takes `now`.

use braid_core::Time;
use std::collections::VecDeque;

/// Fraction of the NIC's line rate the pull pacer paces pulls at.
pub const PULL_RATE_FRACTION: f64 = 0.99;

/// A pull the pacer wants sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PullOut {
    /// The flow (index) pulled.
    pub flow: u32,
    /// The flow's cumulative pull count, this pull included (carried in the PSN field).
    pub pull_number: u32,
    /// UDP source port for the pull.
    pub entropy: u16,
}

/// The pull pacers of all receiving hosts. Sized lazily on first use.
#[derive(Clone, Debug, Default)]
pub struct PullPacers {
    /// Per host: flows with pulls pending, in round-robin order.
    queues: Vec<VecDeque<u32>>,
    /// Per host: a tick is scheduled.
    armed: Vec<bool>,
    /// Per host: the earliest time of its next pull.
    next_at: Vec<Time>,
    /// Per flow: pulls queued by [`PullPacers::request`], not yet sent.
    pending: Vec<u32>,
    /// Per flow: the highest pull target seen (a cumulative pull number).
    target: Vec<u32>,
    /// Per flow: pulls sent (the cumulative pull number).
    sent: Vec<u32>,
    /// Per flow: UDP source port of its pulls (that of its latest data packet or RTS).
    entropy: Vec<u16>,
    /// Pulls sent, all hosts.
    pulls_sent: u64,
    /// RTS packets received, all hosts.
    rts_received: u64,
}

impl PullPacers {
    fn ensure(&mut self, hosts: usize, flows: usize) {
        if self.queues.len() < hosts {
            self.queues.resize_with(hosts, Default::default);
            self.armed.resize(hosts, false);
            self.next_at.resize(hosts, Time::ZERO);
        }
        if self.pending.len() < flows {
            self.pending.resize(flows, 0);
            self.target.resize(flows, 0);
            self.sent.resize(flows, 0);
            self.entropy.resize(flows, 0);
        }
    }

    /// Queue `n` pulls for `flow` at receiving host `host` (of `n_hosts`; `n_flows` flows in
    /// all), to be sent on UDP source port `entropy`. Returns the time of a tick to schedule
    /// when the host's pacer was idle.
    #[allow(clippy::too_many_arguments)]
    pub fn request(&mut self, now: Time, host: u32, flow: u32, n: u32, entropy: u16, n_hosts: usize, n_flows: usize) -> Option<Time> {
        self.ensure(n_hosts, n_flows);
        let (hi, fi) = (host as usize, flow as usize);
        self.entropy[fi] = entropy;
        if self.due(fi) == 0 {
            self.queues[hi].push_back(flow);
        }
        self.pending[fi] = self.pending[fi].saturating_add(n);
        self.arm(now, hi)
    }

    /// A data packet of `flow` carrying the pull target `target` (a cumulative pull number)
    /// reached receiving host `host`: the flow is pulled until its pull count reaches the highest
    /// target seen. Arguments and return value as [`PullPacers::request`].
    #[allow(clippy::too_many_arguments)]
    pub fn request_to_target(&mut self, now: Time, host: u32, flow: u32, target: u32, entropy: u16, n_hosts: usize, n_flows: usize) -> Option<Time> {
        self.ensure(n_hosts, n_flows);
        let (hi, fi) = (host as usize, flow as usize);
        self.entropy[fi] = entropy;
        if target <= self.target[fi] {
            return None;
        }
        let was_due = self.due(fi) > 0;
        self.target[fi] = target;
        if was_due || self.due(fi) == 0 {
            return None;
        }
        self.queues[hi].push_back(flow);
        self.arm(now, hi)
    }

    /// Pulls `flow` is owed: those queued plus what its target is ahead of its pull count.
    fn due(&self, fi: usize) -> u32 {
        self.pending[fi].saturating_add(self.target[fi].saturating_sub(self.sent[fi]))
    }

    fn arm(&mut self, now: Time, hi: usize) -> Option<Time> {
        if self.armed[hi] {
            return None;
        }
        self.armed[hi] = true;
        Some(self.next_at[hi].max(now))
    }

    /// Add another pacer set's counters (merging the partitions of a parallel run).
    pub fn merge_counts(&mut self, other: &PullPacers) {
        self.pulls_sent += other.pulls_sent;
        self.rts_received += other.rts_received;
    }

    /// Count an RTS that reached a receiver.
    pub fn note_rts(&mut self) {
        self.rts_received += 1;
    }

    /// The tick of `host`'s pacer: the next flow in round robin with a pull pending that is still
    /// pulled (`is_pulled`; flows no longer pulled lose their pending pulls) gets one pull, and the
    /// pacer waits `full_packet_time / PULL_RATE_FRACTION` before the next. Call
    /// [`PullPacers::rearm`] after sending the pull.
    pub fn on_tick(&mut self, now: Time, host: u32, full_packet_time: Time, mut is_pulled: impl FnMut(u32) -> bool) -> Option<PullOut> {
        let hi = host as usize;
        self.armed[hi] = false;
        while let Some(f) = self.queues[hi].pop_front() {
            let fi = f as usize;
            if self.due(fi) == 0 {
                continue;
            }
            if !is_pulled(f) {
                self.pending[fi] = 0;
                self.target[fi] = self.sent[fi];
                continue;
            }
            self.pending[fi] = self.pending[fi].saturating_sub(1);
            self.sent[fi] += 1;
            self.pulls_sent += 1;
            if self.due(fi) > 0 {
                self.queues[hi].push_back(f);
            }
            self.next_at[hi] = now + full_packet_time.mul_f64(1.0 / PULL_RATE_FRACTION);
            return Some(PullOut { flow: f, pull_number: self.sent[fi], entropy: self.entropy[fi] });
        }
        None
    }

    /// After a tick: the time of the next tick to schedule, if pulls are still pending and none is
    /// scheduled.
    pub fn rearm(&mut self, now: Time, host: u32) -> Option<Time> {
        let hi = host as usize;
        if self.queues[hi].is_empty() || self.armed[hi] {
            return None;
        }
        self.armed[hi] = true;
        Some(self.next_at[hi].max(now))
    }

    /// Pulls sent, all hosts.
    pub fn pulls_sent(&self) -> u64 {
        self.pulls_sent
    }

    /// RTS packets received, all hosts.
    pub fn rts_received(&self) -> u64 {
        self.rts_received
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulls_are_paced_round_robin() {
        let mut p = PullPacers::default();
        let gap = Time::from_ns(99);
        assert_eq!(p.request(Time::ZERO, 0, 0, 2, 5, 1, 2), Some(Time::ZERO));
        assert_eq!(p.request(Time::ZERO, 0, 1, 1, 6, 1, 2), None);
        let a = p.on_tick(Time::ZERO, 0, gap, |_| true).unwrap();
        assert_eq!(a, PullOut { flow: 0, pull_number: 1, entropy: 5 });
        assert_eq!(p.rearm(Time::ZERO, 0), Some(Time::from_ns(100)));
        let b = p.on_tick(Time::from_ns(100), 0, gap, |_| true).unwrap();
        assert_eq!(b.flow, 1);
        p.rearm(Time::from_ns(100), 0);
        // Flow 0 is no longer pulled: its pending pull is forgotten.
        assert_eq!(p.on_tick(Time::from_ns(200), 0, gap, |f| f != 0), None);
        assert_eq!(p.rearm(Time::from_ns(200), 0), None);
        assert_eq!(p.pulls_sent(), 2);
    }

    #[test]
    fn pulls_follow_the_highest_target() {
        let mut p = PullPacers::default();
        let gap = Time::from_ns(99);
        // Target 3: three pulls, then nothing; a lower target adds nothing.
        assert_eq!(p.request_to_target(Time::ZERO, 0, 0, 3, 5, 1, 1), Some(Time::ZERO));
        assert_eq!(p.request_to_target(Time::ZERO, 0, 0, 2, 5, 1, 1), None);
        let mut numbers = vec![];
        let mut t = Time::ZERO;
        while let Some(x) = p.on_tick(t, 0, gap, |_| true) {
            numbers.push(x.pull_number);
            match p.rearm(t, 0) {
                Some(next) => t = next,
                None => break,
            }
        }
        assert_eq!(numbers, [1, 2, 3]);
        // A trimmed packet's extra pull counts towards the target: target 5 after it gives one more.
        assert!(p.request(t, 0, 0, 1, 5, 1, 1).is_some());
        assert_eq!(p.on_tick(t, 0, gap, |_| true).unwrap().pull_number, 4);
        assert_eq!(p.rearm(t, 0), None);
        let t2 = p.request_to_target(t, 0, 0, 5, 5, 1, 1).expect("one pull owed");
        assert_eq!(p.on_tick(t2, 0, gap, |_| true).unwrap().pull_number, 5);
        assert_eq!(p.rearm(t2, 0), None);
        assert_eq!(p.pulls_sent(), 5);
    }
}
