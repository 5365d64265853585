//! The receiver side of receiver-driven transports (EQDS): the pull pacer of each receiving NIC
//! (sans-IO).
//!
//! One pacer per receiving host sends at most one pull per full packet time (MTU + header) at
//! [`PULL_RATE_FRACTION`] of the NIC's link rate, round robin over the flows with pulls pending.
//! Every data packet carries its sender's **pull target** (htsim `EqdsSrc::computePullTarget`):
//! the cumulative pull number the receiver should reach so that the sender holds, in credit and
//! in pulls still to come, what it asks for ([`PullPacer::request_to_target`]; the receiver
//! keeps pulling while its pull count is below the highest target seen, htsim
//! `EqdsSink::handlePullTarget` / `backlog()`). On top of that a trimmed packet queues one pull
//! and an RTS as many as it asks for (its PSN field) ([`PullPacer::request`], htsim's
//! `_retx_backlog`); every pull sent counts towards the target too. A pull carries the flow's
//! cumulative pull count (its pull number) and is sent on the UDP source port of the flow's
//! latest data packet or RTS. This follows the
//! EQDS design of the Rondo paper's baselines (Rondo §6.1) and EQDS's pull pacing (NSDI '22, §3).
//!
//! Each receiving host owns one [`PullPacer`]; each receiver-driven flow's connection holds its
//! [`FlowPulls`]. The driver asks the flow's sender whether it takes part
//! ([`SenderOps::wants_pulls`](crate::transport::SenderOps::wants_pulls)), hands data and RTS
//! arrivals to [`PullPacer::on_data`] / [`PullPacer::on_rts`] (the policy: how many pulls each
//! asks for), schedules a tick at the time they return, and on each tick calls
//! [`PullPacer::on_tick`], sends the [`PullOut`] it gets as a pull packet, then re-arms with
//! [`PullPacer::rearm`]. No clock reads: every call takes `now`.

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

/// The receiving end's pull state of one receiver-driven flow: what its receiver still owes
/// it in pulls. Lives with the flow's connection.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowPulls {
    /// Pulls queued by [`PullPacer::request`], not yet sent.
    pending: u32,
    /// The highest pull target seen (a cumulative pull number).
    target: u32,
    /// Pulls sent (the cumulative pull number).
    sent: u32,
    /// UDP source port of its pulls (that of its latest data packet or RTS).
    entropy: u16,
}

impl FlowPulls {
    /// Pulls the flow is owed: those queued plus what its target is ahead of its pull count.
    fn due(&self) -> u32 {
        self.pending.saturating_add(self.target.saturating_sub(self.sent))
    }
}

/// The flows a pacer pulls, as its driver holds them: their pull state, and whether each is
/// still pulled (its receiver is not complete, its sender not done).
pub trait PulledFlows {
    /// Flow `flow`'s pull state.
    fn pulls(&mut self, flow: u32) -> &mut FlowPulls;
    /// Whether flow `flow` is still pulled.
    fn is_pulled(&self, flow: u32) -> bool;
}

/// The pull pacer of one receiving host.
#[derive(Clone, Debug, Default)]
pub struct PullPacer {
    /// Flows with pulls pending, in round-robin order.
    queue: VecDeque<u32>,
    /// A tick is scheduled.
    armed: bool,
    /// The earliest time of the next pull.
    next_at: Time,
    /// Pulls sent.
    pulls_sent: u64,
    /// RTS packets received.
    rts_received: u64,
}

impl PullPacer {
    /// Queue `n` pulls for `flow` (pull state `st`), to be sent on UDP source port `entropy`.
    /// Returns the time of a tick to schedule when the pacer was idle.
    pub fn request(
        &mut self,
        now: Time,
        flow: u32,
        st: &mut FlowPulls,
        n: u32,
        entropy: u16,
    ) -> Option<Time> {
        st.entropy = entropy;
        if st.due() == 0 {
            self.queue.push_back(flow);
        }
        st.pending = st.pending.saturating_add(n);
        self.arm(now)
    }

    /// A data packet of `flow` carrying the pull target `target` (a cumulative pull number)
    /// arrived: the flow is pulled until its pull count reaches the highest target seen.
    /// Arguments and return value as [`PullPacer::request`].
    pub fn request_to_target(
        &mut self,
        now: Time,
        flow: u32,
        st: &mut FlowPulls,
        target: u32,
        entropy: u16,
    ) -> Option<Time> {
        st.entropy = entropy;
        if target <= st.target {
            return None;
        }
        let was_due = st.due() > 0;
        st.target = target;
        if was_due || st.due() == 0 {
            return None;
        }
        self.queue.push_back(flow);
        self.arm(now)
    }

    /// The receiver-driven policy for a data packet of `flow` that arrived at `now` (EQDS,
    /// htsim `EqdsSink`): one pull per packet, or, with pull targets (`to_target`), pulls up to
    /// the packet's `pull_target` plus one for a packet that was trimmed (its retransmission
    /// needs a credit of its own). Returns the time of a tick to schedule, if any.
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        now: Time,
        flow: u32,
        st: &mut FlowPulls,
        to_target: bool,
        pull_target: u32,
        trimmed: bool,
        entropy: u16,
    ) -> Option<Time> {
        if !to_target {
            return self.request(now, flow, st, 1, entropy);
        }
        let tick = self.request_to_target(now, flow, st, pull_target, entropy);
        if trimmed {
            return tick.or(self.request(now, flow, st, 1, entropy));
        }
        tick
    }

    /// An RTS asking for `wanted` packets' worth of credit arrived for `flow`: that many pulls
    /// (at least one). Returns the time of a tick to schedule, if any.
    pub fn on_rts(
        &mut self,
        now: Time,
        flow: u32,
        st: &mut FlowPulls,
        wanted: u32,
        entropy: u16,
    ) -> Option<Time> {
        self.request(now, flow, st, wanted.max(1), entropy)
    }

    fn arm(&mut self, now: Time) -> Option<Time> {
        if self.armed {
            return None;
        }
        self.armed = true;
        Some(self.next_at.max(now))
    }

    /// Count an RTS that reached this host.
    pub fn note_rts(&mut self) {
        self.rts_received += 1;
    }

    /// The pacer's tick: the next flow in round robin with a pull pending that is still pulled
    /// (flows no longer pulled lose their pending pulls) gets one pull, and the pacer waits
    /// `full_packet_time / PULL_RATE_FRACTION` before the next. Call [`PullPacer::rearm`] after
    /// sending the pull.
    pub fn on_tick(
        &mut self,
        now: Time,
        full_packet_time: Time,
        flows: &mut impl PulledFlows,
    ) -> Option<PullOut> {
        self.armed = false;
        while let Some(f) = self.queue.pop_front() {
            if flows.pulls(f).due() == 0 {
                continue;
            }
            if !flows.is_pulled(f) {
                let st = flows.pulls(f);
                st.pending = 0;
                st.target = st.sent;
                continue;
            }
            let st = flows.pulls(f);
            st.pending = st.pending.saturating_sub(1);
            st.sent += 1;
            let out = PullOut { flow: f, pull_number: st.sent, entropy: st.entropy };
            self.pulls_sent += 1;
            if st.due() > 0 {
                self.queue.push_back(f);
            }
            self.next_at = now + full_packet_time.mul_f64(1.0 / PULL_RATE_FRACTION);
            return Some(out);
        }
        None
    }

    /// After a tick: the time of the next tick to schedule, if pulls are still pending and none is
    /// scheduled.
    pub fn rearm(&mut self, now: Time) -> Option<Time> {
        if self.queue.is_empty() || self.armed {
            return None;
        }
        self.armed = true;
        Some(self.next_at.max(now))
    }

    /// Pulls sent by this pacer.
    pub fn pulls_sent(&self) -> u64 {
        self.pulls_sent
    }

    /// RTS packets this host received.
    pub fn rts_received(&self) -> u64 {
        self.rts_received
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Flows held in a vector; `pulled[f]` says whether flow `f` is still pulled.
    struct Flows {
        st: Vec<FlowPulls>,
        pulled: Vec<bool>,
    }

    impl PulledFlows for Flows {
        fn pulls(&mut self, flow: u32) -> &mut FlowPulls {
            &mut self.st[flow as usize]
        }
        fn is_pulled(&self, flow: u32) -> bool {
            self.pulled[flow as usize]
        }
    }

    fn flows(n: usize) -> Flows {
        Flows { st: vec![FlowPulls::default(); n], pulled: vec![true; n] }
    }

    #[test]
    fn pulls_are_paced_round_robin() {
        let mut p = PullPacer::default();
        let mut fl = flows(2);
        let gap = Time::from_ns(99);
        assert_eq!(p.request(Time::ZERO, 0, &mut fl.st[0], 2, 5), Some(Time::ZERO));
        assert_eq!(p.request(Time::ZERO, 1, &mut fl.st[1], 1, 6), None);
        let a = p.on_tick(Time::ZERO, gap, &mut fl).unwrap();
        assert_eq!(a, PullOut { flow: 0, pull_number: 1, entropy: 5 });
        assert_eq!(p.rearm(Time::ZERO), Some(Time::from_ns(100)));
        let b = p.on_tick(Time::from_ns(100), gap, &mut fl).unwrap();
        assert_eq!(b.flow, 1);
        p.rearm(Time::from_ns(100));
        // Flow 0 is no longer pulled: its pending pull is forgotten.
        fl.pulled[0] = false;
        assert_eq!(p.on_tick(Time::from_ns(200), gap, &mut fl), None);
        assert_eq!(p.rearm(Time::from_ns(200)), None);
        assert_eq!(p.pulls_sent(), 2);
    }

    #[test]
    fn pulls_follow_the_highest_target() {
        let mut p = PullPacer::default();
        let mut fl = flows(1);
        let gap = Time::from_ns(99);
        // Target 3: three pulls, then nothing; a lower target adds nothing.
        assert_eq!(p.request_to_target(Time::ZERO, 0, &mut fl.st[0], 3, 5), Some(Time::ZERO));
        assert_eq!(p.request_to_target(Time::ZERO, 0, &mut fl.st[0], 2, 5), None);
        let mut numbers = vec![];
        let mut t = Time::ZERO;
        while let Some(x) = p.on_tick(t, gap, &mut fl) {
            numbers.push(x.pull_number);
            match p.rearm(t) {
                Some(next) => t = next,
                None => break,
            }
        }
        assert_eq!(numbers, [1, 2, 3]);
        // A trimmed packet's extra pull counts towards the target: target 5 after it gives one more.
        assert!(p.request(t, 0, &mut fl.st[0], 1, 5).is_some());
        assert_eq!(p.on_tick(t, gap, &mut fl).unwrap().pull_number, 4);
        assert_eq!(p.rearm(t), None);
        let t2 = p.request_to_target(t, 0, &mut fl.st[0], 5, 5).expect("one pull owed");
        assert_eq!(p.on_tick(t2, gap, &mut fl).unwrap().pull_number, 5);
        assert_eq!(p.rearm(t2), None);
        assert_eq!(p.pulls_sent(), 5);
    }

    #[test]
    fn data_policy_one_pull_per_packet_or_up_to_the_target() {
        let mut p = PullPacer::default();
        let mut fl = flows(1);
        // Without targets: one pull per arriving packet.
        assert_eq!(p.on_data(Time::ZERO, 0, &mut fl.st[0], false, 0, false, 7), Some(Time::ZERO));
        assert_eq!(
            p.on_data(Time::ZERO, 0, &mut fl.st[0], false, 0, false, 7),
            None,
            "already armed"
        );
        assert_eq!(fl.st[0].due(), 2);
        // With targets: up to the target, plus one for a trimmed packet.
        let mut p = PullPacer::default();
        let mut fl = flows(1);
        assert_eq!(p.on_data(Time::ZERO, 0, &mut fl.st[0], true, 4, true, 7), Some(Time::ZERO));
        assert_eq!(fl.st[0].due(), 5);
        // An RTS asks for at least one pull.
        assert_eq!(p.on_rts(Time::ZERO, 0, &mut fl.st[0], 0, 7), None);
        assert_eq!(fl.st[0].due(), 6);
    }
}
