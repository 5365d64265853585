//! Synthetic traffic patterns: N-to-1 incast, permutation, all-to-all, MoE-like all-to-all.
//!
//! These are the "typical traffic patterns" of the Rondo evaluation (arXiv 2611.04594, §6.2.2):
//! "Incast induces last-hop congestion, while permutation traffic has each host send to one host and
//! receive from exactly one host, stressing the network fabric. In MoE-like all-to-all traffic, each
//! host simultaneously sends data to multiple randomly selected receivers." Each pattern is one job
//! (the paper reports its JCT); incast background flows belong to no job.
//!
//! Randomness comes only from `braid_core::Rng` streams derived from the scenario seed with
//! `stream::WORKLOAD`, so the same seed gives byte-identical flows on every machine.

use crate::hosts::HostSel;
use crate::workload::{check_flow_count, Workload, NO_JOB};
use braid_core::rng::stream;
use braid_core::{Rng, Time};

/// Stream indices (under `stream::WORKLOAD`) used by the patterns; Poisson senders use their host
/// index, so these sit at the top of the range.
pub(crate) mod streams {
    pub const INCAST: u64 = u64::MAX - 1;
    pub const PERMUTATION: u64 = u64::MAX - 2;
    pub const MOE: u64 = u64::MAX - 3;
    pub const BACKGROUND: u64 = u64::MAX - 4;
    pub const ALL_TO_ALL: u64 = u64::MAX - 5;
    pub const CHAKRA: u64 = u64::MAX - 6;
}

/// The group of incast's background flows (a scenario may give them their own transport).
pub const BACKGROUND_GROUP: &str = "background";

/// N-to-1 incast: `senders` each send `size` bytes to `receiver` at `start`.
#[derive(Clone, Debug, PartialEq)]
pub struct IncastSpec {
    /// The senders: a count picks that many distinct hosts at random (never the receiver); a list
    /// names them; `All` is every host but the receiver.
    pub senders: HostSel,
    /// The receiving host.
    pub receiver: u32,
    /// Bytes per sender.
    pub size: u64,
    /// Start time of every incast flow.
    pub start: Time,
    /// Number of background flows: long flows between uniformly random host pairs (neither end is
    /// the receiver), all starting at `start`.
    pub background: u32,
    /// Bytes per background flow.
    pub background_size: u64,
}

impl IncastSpec {
    /// Generate the flows (job `incast`; background flows have no job).
    pub fn generate(&self, n_hosts: usize, seed: u64) -> Result<Workload, String> {
        if self.receiver as usize >= n_hosts {
            return Err(format!(
                "field `receiver`: host {} does not exist (the topology has {n_hosts} hosts)",
                self.receiver
            ));
        }
        if self.size == 0 {
            return Err("field `size`: must be > 0 bytes".into());
        }
        let mut rng = Rng::derive(seed, stream::WORKLOAD, streams::INCAST);
        let senders = self.senders.random(n_hosts, &[self.receiver], "senders", &mut rng)?;
        if senders.is_empty() {
            return Err("field `senders`: no senders".into());
        }
        if senders.contains(&self.receiver) {
            return Err(format!("field `senders`: includes the receiver {}", self.receiver));
        }
        let mut wl = Workload::new();
        let job = wl.add_job("incast", NO_JOB);
        for &s in &senders {
            wl.add_flow(s, self.receiver, self.size, self.start, &[], job);
        }
        if self.background > 0 {
            check_flow_count(self.background as u128, "field `background`")?;
            if self.background_size == 0 {
                return Err("field `background_size`: must be > 0 bytes".into());
            }
            let pool: Vec<u32> = (0..n_hosts as u32).filter(|&h| h != self.receiver).collect();
            if pool.len() < 2 {
                return Err(
                    "field `background`: needs at least two hosts besides the receiver".into()
                );
            }
            let mut rng = Rng::derive(seed, stream::WORKLOAD, streams::BACKGROUND);
            for _ in 0..self.background {
                let a = rng.index(pool.len());
                let mut b = rng.index(pool.len() - 1);
                if b >= a {
                    b += 1;
                }
                let f =
                    wl.add_flow(pool[a], pool[b], self.background_size, self.start, &[], NO_JOB);
                wl.set_group(f as usize, BACKGROUND_GROUP);
            }
        }
        Ok(wl)
    }
}

/// Permutation: each selected host sends `size` bytes to exactly one other selected host and
/// receives from exactly one (a uniformly random derangement, seeded).
#[derive(Clone, Debug, PartialEq)]
pub struct PermutationSpec {
    /// The hosts (a count means the first `n`).
    pub hosts: HostSel,
    /// Bytes per flow.
    pub size: u64,
    /// Start time.
    pub start: Time,
}

/// A uniformly random derangement of `0..n` (no fixed point) by rejection sampling of Fisher–Yates
/// shuffles (expected e ≈ 2.72 shuffles). `n` must be ≥ 2.
pub fn derangement(n: usize, rng: &mut Rng) -> Result<Vec<usize>, String> {
    if n < 2 {
        return Err(format!("a permutation needs at least 2 hosts, got {n}"));
    }
    let mut p: Vec<usize> = (0..n).collect();
    loop {
        for (i, v) in p.iter_mut().enumerate() {
            *v = i;
        }
        rng.shuffle(&mut p);
        if p.iter().enumerate().all(|(i, &v)| i != v) {
            return Ok(p);
        }
    }
}

impl PermutationSpec {
    /// Generate the flows (job `permutation`).
    pub fn generate(&self, n_hosts: usize, seed: u64) -> Result<Workload, String> {
        if self.size == 0 {
            return Err("field `size`: must be > 0 bytes".into());
        }
        let hosts = self.hosts.first(n_hosts, "hosts")?;
        let mut rng = Rng::derive(seed, stream::WORKLOAD, streams::PERMUTATION);
        let p = derangement(hosts.len(), &mut rng).map_err(|e| format!("field `hosts`: {e}"))?;
        let mut wl = Workload::new();
        let job = wl.add_job("permutation", NO_JOB);
        for (i, &j) in p.iter().enumerate() {
            wl.add_flow(hosts[i], hosts[j], self.size, self.start, &[], job);
        }
        Ok(wl)
    }
}

/// How an all-to-all's messages are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum A2aSchedule {
    /// Every message at `start`.
    Simultaneous,
    /// Pairwise exchange in rounds (NCCL's and MPI's pairwise all-to-all): in round `r` each
    /// host sends to one peer and receives from one, and starts round `r + 1` once its round-`r`
    /// send and receive have both completed.
    Pairwise,
}

impl A2aSchedule {
    /// Parse `simultaneous` or `pairwise`.
    pub fn parse(s: &str) -> Result<A2aSchedule, String> {
        match s {
            "simultaneous" => Ok(A2aSchedule::Simultaneous),
            "pairwise" => Ok(A2aSchedule::Pairwise),
            _ => Err(format!("unknown schedule `{s}` (valid: simultaneous, pairwise)")),
        }
    }
}

/// All-to-all with evenly loaded receivers: every selected host sends `size` bytes to each of
/// `peers` others (default: all of them), and every host receives from exactly as many.
///
/// Peers are chosen by shifts: with `n` hosts, host `i` sends to host `(i + s) mod n` for each
/// shift `s` of a set of `peers` distinct shifts in `1..n` — all of them for a full all-to-all,
/// otherwise a seeded random subset. Each shift is a permutation of the hosts, so every host
/// sends and receives exactly `peers · size` bytes, whatever the subset (the MoE-like `moe`
/// kind picks random receivers instead, so some hosts receive from many more senders than
/// others). Issued all at once or in pairwise-exchange rounds ([`A2aSchedule`]), one round per
/// shift.
#[derive(Clone, Debug, PartialEq)]
pub struct AllToAllSpec {
    /// The hosts (a count means the first `n`).
    pub hosts: HostSel,
    /// Bytes per ordered pair.
    pub size: u64,
    /// Start time.
    pub start: Time,
    /// Peers per host (`None`: every other host).
    pub peers: Option<u32>,
    /// All at once, or in rounds.
    pub schedule: A2aSchedule,
}

impl AllToAllSpec {
    /// Generate the flows (job `all-to-all`): `n · peers` flows; all at once in source-major
    /// order (each source's destinations in host order), or in rounds (shift by shift, each
    /// round in host order).
    pub fn generate(&self, n_hosts: usize, seed: u64) -> Result<Workload, String> {
        if self.size == 0 {
            return Err("field `size`: must be > 0 bytes".into());
        }
        let hosts = self.hosts.first(n_hosts, "hosts")?;
        let n = hosts.len();
        if n < 2 {
            return Err("field `hosts`: all-to-all needs at least 2 hosts".into());
        }
        let peers = match self.peers {
            None => n - 1,
            Some(k) if k == 0 || k as usize >= n => {
                return Err(format!(
                "field `peers`: must be between 1 and the number of hosts minus one ({}), got {k}",
                n - 1
            ))
            }
            Some(k) => k as usize,
        };
        check_flow_count(n as u128 * peers as u128, "all-to-all")?;
        let shifts: Vec<usize> = if peers == n - 1 {
            (1..n).collect()
        } else {
            let mut rng = Rng::derive(seed, stream::WORKLOAD, streams::ALL_TO_ALL);
            let mut all: Vec<usize> = (1..n).collect();
            for t in 0..peers {
                let j = t + rng.index(all.len() - t);
                all.swap(t, j);
            }
            all.truncate(peers);
            all
        };
        let mut wl = Workload::new();
        let job = wl.add_job("all-to-all", NO_JOB);
        if self.schedule == A2aSchedule::Simultaneous {
            // All at once: source-major order (for every pair, destinations in host order).
            let mut dests: Vec<usize> = Vec::with_capacity(peers);
            for i in 0..n {
                dests.clear();
                dests.extend(shifts.iter().map(|&s| (i + s) % n));
                dests.sort_unstable();
                for &j in &dests {
                    wl.add_flow(hosts[i], hosts[j], self.size, self.start, &[], job);
                }
            }
            return Ok(wl);
        }
        let mut prev: Vec<u32> = Vec::new();
        let mut prev_shift = 0usize;
        for (r, &s) in shifts.iter().enumerate() {
            let base = wl.flows.len() as u32;
            for i in 0..n {
                let (src, dst) = (hosts[i], hosts[(i + s) % n]);
                match self.schedule {
                    A2aSchedule::Pairwise if r > 0 => {
                        // Its own previous send, and the message it received in the previous
                        // round (from the host `prev_shift` before it).
                        let deps = [prev[i], prev[(i + n - prev_shift) % n]];
                        wl.add_flow(src, dst, self.size, Time::ZERO, &deps, job);
                    }
                    _ => {
                        wl.add_flow(src, dst, self.size, self.start, &[], job);
                    }
                }
            }
            prev = (base..base + n as u32).collect();
            prev_shift = s;
        }
        Ok(wl)
    }
}

/// MoE-like all-to-all: every selected host sends `size` bytes to each of `k` distinct receivers
/// chosen uniformly at random among the other selected hosts, all at once.
#[derive(Clone, Debug, PartialEq)]
pub struct MoeSpec {
    /// The hosts (a count means the first `n`).
    pub hosts: HostSel,
    /// Receivers per sender (1 ≤ k ≤ n−1).
    pub k: u32,
    /// Bytes per flow.
    pub size: u64,
    /// Start time.
    pub start: Time,
}

impl MoeSpec {
    /// Generate the flows (job `moe`).
    pub fn generate(&self, n_hosts: usize, seed: u64) -> Result<Workload, String> {
        if self.size == 0 {
            return Err("field `size`: must be > 0 bytes".into());
        }
        let hosts = self.hosts.first(n_hosts, "hosts")?;
        let n = hosts.len();
        if self.k == 0 || self.k as usize >= n.max(1) {
            return Err(format!(
                "field `k`: must be between 1 and the number of hosts minus one ({}), got {}",
                n.saturating_sub(1),
                self.k
            ));
        }
        check_flow_count(n as u128 * self.k as u128, "moe")?;
        let mut rng = Rng::derive(seed, stream::WORKLOAD, streams::MOE);
        let mut wl = Workload::new();
        let job = wl.add_job("moe", NO_JOB);
        let mut others: Vec<usize> = Vec::with_capacity(n);
        for i in 0..n {
            others.clear();
            others.extend((0..n).filter(|&j| j != i));
            for t in 0..self.k as usize {
                let j = t + rng.index(others.len() - t);
                others.swap(t, j);
                wl.add_flow(hosts[i], hosts[others[t]], self.size, self.start, &[], job);
            }
        }
        Ok(wl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn permutation_is_a_derangement() {
        for n in [2usize, 3, 16, 128, 320] {
            let spec = PermutationSpec { hosts: HostSel::All, size: 1000, start: Time::ZERO };
            let wl = spec.generate(n, 42).unwrap();
            assert_eq!(wl.flows.len(), n);
            let mut sent = vec![0; n];
            let mut recv = vec![0; n];
            for f in &wl.flows {
                assert_ne!(f.src, f.dst);
                sent[f.src as usize] += 1;
                recv[f.dst as usize] += 1;
            }
            assert!(sent.iter().all(|&c| c == 1) && recv.iter().all(|&c| c == 1));
            wl.validate(n).unwrap();
        }
        let e = PermutationSpec { hosts: HostSel::All, size: 1, start: Time::ZERO }
            .generate(1, 1)
            .unwrap_err();
        assert!(e.contains("at least 2"), "{e}");
    }

    fn a2a(peers: Option<u32>, schedule: A2aSchedule) -> AllToAllSpec {
        AllToAllSpec { hosts: HostSel::All, size: 10, start: Time::ZERO, peers, schedule }
    }

    #[test]
    fn all_to_all_covers_every_pair_once() {
        let n = 12;
        let wl = a2a(None, A2aSchedule::Simultaneous).generate(n, 1).unwrap();
        assert_eq!(wl.flows.len(), n * (n - 1));
        let pairs: HashSet<(u32, u32)> = wl.flows.iter().map(|f| (f.src, f.dst)).collect();
        assert_eq!(pairs.len(), n * (n - 1));
        assert!(wl.flows.iter().all(|f| f.src != f.dst));
    }

    /// Receivers are evenly loaded for any peer count, up to the 1,024 hosts of a k = 16
    /// fat-tree (the `moe` kind's random receivers are not: its busiest receiver takes several
    /// times the mean).
    #[test]
    fn all_to_all_loads_every_receiver_equally() {
        for (n, peers) in [(16usize, 3u32), (250, 8), (1024, 8), (1024, 31), (128, 127)] {
            let wl = AllToAllSpec {
                hosts: HostSel::All,
                size: 1000,
                start: Time::ZERO,
                peers: Some(peers),
                schedule: A2aSchedule::Simultaneous,
            }
            .generate(n, 7)
            .unwrap();
            let mut rx = vec![0u64; n];
            let mut tx = vec![0u64; n];
            let mut pairs = HashSet::new();
            for f in &wl.flows {
                rx[f.dst as usize] += f.size_bytes;
                tx[f.src as usize] += f.size_bytes;
                assert!(pairs.insert((f.src, f.dst)), "a pair twice");
                assert_ne!(f.src, f.dst);
            }
            let (lo, hi) = (*rx.iter().min().unwrap(), *rx.iter().max().unwrap());
            assert!(hi as f64 <= lo as f64 * 1.01, "n={n} peers={peers}: receivers {lo}..{hi}");
            assert!(tx.iter().all(|&b| b == peers as u64 * 1000));
            assert_eq!(lo, peers as u64 * 1000);
        }
        // The MoE-like kind, for contrast, is bound by its busiest receiver.
        let moe = MoeSpec { hosts: HostSel::All, k: 8, size: 1000, start: Time::ZERO }
            .generate(1024, 7)
            .unwrap();
        let mut rx = vec![0u64; 1024];
        for f in &moe.flows {
            rx[f.dst as usize] += f.size_bytes;
        }
        assert!(*rx.iter().max().unwrap() >= 2 * 8 * 1000);
        assert!(a2a(Some(12), A2aSchedule::Simultaneous).generate(12, 1).is_err());
        assert!(a2a(Some(0), A2aSchedule::Simultaneous).generate(12, 1).is_err());
    }

    #[test]
    fn pairwise_rounds_wait_for_their_send_and_receive() {
        let n = 6;
        let wl = a2a(None, A2aSchedule::Pairwise).generate(n, 1).unwrap();
        wl.validate(n).unwrap();
        for (k, f) in wl.flows.iter().enumerate() {
            let deps = wl.deps(k);
            if k < n {
                assert!(deps.is_empty());
                continue;
            }
            assert_eq!(deps.len(), 2, "flow {k}");
            assert!(deps.iter().any(|&d| wl.flows[d as usize].src == f.src), "its own send");
            assert!(deps.iter().any(|&d| wl.flows[d as usize].dst == f.src), "what it received");
        }
    }

    #[test]
    fn moe_sends_to_k_distinct_receivers() {
        let wl = MoeSpec { hosts: HostSel::Count(16), k: 4, size: 100, start: Time::ZERO }
            .generate(32, 3)
            .unwrap();
        assert_eq!(wl.flows.len(), 64);
        for s in 0..16u32 {
            let d: HashSet<u32> = wl.flows.iter().filter(|f| f.src == s).map(|f| f.dst).collect();
            assert_eq!(d.len(), 4);
            assert!(d.iter().all(|&x| x < 16 && x != s));
        }
        assert!(MoeSpec { hosts: HostSel::All, k: 16, size: 1, start: Time::ZERO }
            .generate(16, 1)
            .is_err());
        assert!(MoeSpec { hosts: HostSel::All, k: 0, size: 1, start: Time::ZERO }
            .generate(16, 1)
            .is_err());
    }

    #[test]
    fn incast_shape_and_reproducibility() {
        let spec = IncastSpec {
            senders: HostSel::Count(8),
            receiver: 3,
            size: 64_000,
            start: Time::from_us(10),
            background: 4,
            background_size: 10_000_000,
        };
        let a = spec.generate(32, 9).unwrap();
        let b = spec.generate(32, 9).unwrap();
        let c = spec.generate(32, 10).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.flows.len(), 12);
        let incast: Vec<_> = a.flows.iter().filter(|f| f.tag == 0).collect();
        assert_eq!(incast.len(), 8);
        assert!(incast.iter().all(|f| f.dst == 3 && f.src != 3 && f.start == Time::from_us(10)));
        let senders: HashSet<u32> = incast.iter().map(|f| f.src).collect();
        assert_eq!(senders.len(), 8);
        assert!(a.flows.iter().filter(|f| f.tag == NO_JOB).all(|f| f.src != 3 && f.dst != 3));
        a.validate(32).unwrap();
        let e = IncastSpec { receiver: 40, ..spec.clone() }.generate(32, 1).unwrap_err();
        assert!(e.contains("host 40 does not exist"), "{e}");
        let e =
            IncastSpec { senders: HostSel::List(vec![1, 3]), ..spec }.generate(32, 1).unwrap_err();
        assert!(e.contains("receiver"), "{e}");
    }
}
