//! Open-loop Poisson traffic with flow sizes from an empirical CDF, calibrated to a target load.
//!
//! Calibration (the HPCC/LCMP generator's, `traffic_gen*.py`, `docs/lcmp.md`, traffic generator):
//! every sending host runs an independent Poisson process whose mean inter-arrival time is
//!
//! ```text
//! mean_gap = mean_size · 8 / (load · host_link_rate)        [seconds; mean_size in bytes]
//! ```
//!
//! so each sender offers `load` of its own link rate on average, and the offered load of a run,
//! `total_bytes · 8 / (duration · Σ sender link rates)`, converges to `load`. Load is relative to the
//! **host NIC** rate summed over the senders — not to any fabric or WAN link. Each flow's size is a
//! sample of the CDF ([`EmpiricalCdf::sample`]) and its destination is uniform among the hosts the
//! sender may reach: all other hosts, or only hosts in another group (DC) when `inter_group` is set
//! (LCMP's inter-DC traffic), optionally restricted to a receiver set (the LCMP `_specify2dc`
//! variant: DC1 hosts send only to DC8 hosts).
//!
//! Differences from the HPCC script, on purpose: the destination is uniform over the allowed *hosts*
//! (the script picks a uniform other DC, then a host in it — the same when DCs are equal-sized),
//! arrivals start at `start` (not at a fixed 2.0 s),
//! every arrival inside the window is kept (the script drops a flow whose *next* arrival falls
//! outside the window), and sizes are rounded rather than truncated (see [`crate::cdf`]).
//!
//! Each sender draws from its own stream `Rng::derive(seed, stream::WORKLOAD, host)`, so adding or
//! removing one sender does not change what the others send. Flows are returned sorted by start time
//! (ties by sender host index).

use crate::cdf::EmpiricalCdf;
use crate::workload::{check_flow_count, Workload, NO_JOB};
use braid_core::rng::stream;
use braid_core::{Rate, Rng, Time};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// When a generated run stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// Keep arrivals in `[start, start + duration)`.
    Duration(Time),
    /// Stop after this many flows in total (across all senders).
    Flows(u64),
}

/// A fully resolved Poisson traffic configuration (see the module docs for the calibration).
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonConfig {
    /// Flow-size distribution.
    pub cdf: EmpiricalCdf,
    /// Target load on each sender's host link, in `(0, 1]`.
    pub load: f64,
    /// The host link rate that `load` is relative to.
    pub host_rate: Rate,
    /// When to stop.
    pub stop: Stop,
    /// Time of the start of the arrival window.
    pub start: Time,
    /// The sending hosts.
    pub senders: Vec<u32>,
    /// The hosts that may receive (`None`: every host).
    pub receivers: Option<Vec<u32>>,
    /// Only send to hosts whose group differs from the sender's (inter-DC traffic).
    pub inter_group: bool,
}

/// Mean inter-arrival time per sender, in seconds: `mean_size·8 / (load·rate)`.
pub fn mean_interarrival_secs(mean_size_bytes: f64, load: f64, host_rate: Rate) -> f64 {
    mean_size_bytes * 8.0 / (load * host_rate.bps_f64())
}

/// Offered load of a set of flows: `total_bytes·8 / (duration · n_senders · host_rate)`.
pub fn offered_load(total_bytes: u64, duration: Time, n_senders: usize, host_rate: Rate) -> f64 {
    let denom = duration.secs_f64() * n_senders as f64 * host_rate.bps_f64();
    if denom > 0.0 {
        total_bytes as f64 * 8.0 / denom
    } else {
        0.0
    }
}

/// Check that `load` is in `(0, 1]`.
pub fn check_load(load: f64) -> Result<(), String> {
    if !(load.is_finite() && load > 0.0 && load <= 1.0) {
        return Err(format!(
            "field `load`: must be in (0, 1] (a fraction of the host link rate), got {load}"
        ));
    }
    Ok(())
}

impl PoissonConfig {
    /// Generate the flows. `host_groups[i]` is the group (DC) of host `i`; an empty slice means
    /// one group.
    pub fn generate(
        &self,
        n_hosts: usize,
        host_groups: &[u32],
        seed: u64,
    ) -> Result<Workload, String> {
        check_load(self.load)?;
        if self.host_rate.bps() == 0 {
            return Err("field `host_rate`: must be > 0".into());
        }
        match self.stop {
            Stop::Duration(d) if d == Time::ZERO => {
                return Err("field `duration`: must be > 0".into())
            }
            Stop::Flows(0) => return Err("field `flows`: must be > 0".into()),
            _ => {}
        }
        if !host_groups.is_empty() && host_groups.len() != n_hosts {
            return Err(format!(
                "host groups given for {} hosts but the topology has {n_hosts}",
                host_groups.len()
            ));
        }
        let group = |h: u32| host_groups.get(h as usize).copied().unwrap_or(0);
        if self.senders.is_empty() {
            return Err("field `senders`: no sending hosts".into());
        }
        for &s in &self.senders {
            if s as usize >= n_hosts {
                return Err(format!(
                    "field `senders`: host {s} does not exist (the topology has {n_hosts} hosts)"
                ));
            }
        }
        let receivers: Vec<u32> = match &self.receivers {
            Some(r) => {
                if let Some(&h) = r.iter().find(|&&h| h as usize >= n_hosts) {
                    return Err(format!("field `receivers`: host {h} does not exist (the topology has {n_hosts} hosts)"));
                }
                r.clone()
            }
            None => (0..n_hosts as u32).collect(),
        };
        // Allowed destinations per sender: shared lists keyed by the sender's group when
        // inter-group, else one list (the sender itself is skipped when drawing).
        let mut by_group: HashMap<u32, Vec<u32>> = HashMap::new();
        if self.inter_group {
            for &s in &self.senders {
                let g = group(s);
                by_group.entry(g).or_insert_with(|| {
                    receivers.iter().copied().filter(|&r| group(r) != g).collect()
                });
            }
        }
        let dest_list = |s: u32| -> &[u32] {
            if self.inter_group {
                by_group.get(&group(s)).map(|v| v.as_slice()).unwrap_or(&[])
            } else {
                &receivers
            }
        };
        for &s in &self.senders {
            let l = dest_list(s);
            if l.is_empty() || (l.len() == 1 && l[0] == s) {
                return Err(format!(
                    "sender host {s} has no allowed destination{}",
                    if self.inter_group {
                        format!(" outside its group {}", group(s))
                    } else {
                        String::new()
                    }
                ));
            }
        }
        let mean_gap = mean_interarrival_secs(self.cdf.mean(), self.load, self.host_rate);
        if !(mean_gap.is_finite() && mean_gap > 0.0) {
            return Err(format!(
                "the CDF mean {} gives no valid inter-arrival time",
                self.cdf.mean()
            ));
        }
        match self.stop {
            Stop::Flows(n) => check_flow_count(n as u128, "field `flows`")?,
            Stop::Duration(d) => {
                let expected = self.senders.len() as f64 * d.secs_f64() / mean_gap;
                check_flow_count(expected.min(1e30) as u128, "this load and duration")?;
            }
        }
        let end = match self.stop {
            Stop::Duration(d) => self.start.saturating_add(d),
            Stop::Flows(_) => Time::MAX,
        };
        let max_flows = match self.stop {
            Stop::Flows(n) => n,
            Stop::Duration(_) => u64::MAX,
        };

        let mut rngs: Vec<Rng> =
            self.senders.iter().map(|&s| Rng::derive(seed, stream::WORKLOAD, s as u64)).collect();
        let mut heap: BinaryHeap<Reverse<(Time, u32, usize)>> = BinaryHeap::new();
        for (i, r) in rngs.iter_mut().enumerate() {
            let t = self.start.saturating_add(Time::from_secs_f64(r.exp(mean_gap)));
            heap.push(Reverse((t, self.senders[i], i)));
        }
        let mut wl = Workload::new();
        while let Some(Reverse((t, s, i))) = heap.pop() {
            if t >= end || wl.flows.len() as u64 >= max_flows {
                break;
            }
            let r = &mut rngs[i];
            let size = self.cdf.sample(r);
            let list = dest_list(s);
            let dst = if let Some(pos) = list.iter().position(|&h| h == s) {
                let k = r.index(list.len() - 1);
                list[if k >= pos { k + 1 } else { k }]
            } else {
                list[r.index(list.len())]
            };
            wl.add_flow(s, dst, size, t, &[], NO_JOB);
            let next = t.saturating_add(Time::from_secs_f64(r.exp(mean_gap)));
            heap.push(Reverse((next, s, i)));
        }
        Ok(wl)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(cdf: &str, load: f64, stop: Stop, n: u32) -> PoissonConfig {
        PoissonConfig {
            cdf: EmpiricalCdf::builtin(cdf).unwrap(),
            load,
            host_rate: Rate::from_gbps(100),
            stop,
            start: Time::ZERO,
            senders: (0..n).collect(),
            receivers: None,
            inter_group: false,
        }
    }

    #[test]
    fn load_calibration_within_two_percent() {
        // The relative standard deviation of the offered load is ≈ sqrt(1 + CV²)/sqrt(flows), with
        // size CV ≈ 2 (WebSearch), 2.6 (Cache Follower), 5.6 (Hadoop): the runs are long enough
        // (~120k, ~160k, ~830k flows) to put 2 % at about 3σ.
        for (cdf, load, secs) in
            [("websearch", 0.5, 1.0), ("hadoop", 0.5, 0.5), ("cachefollower", 0.8, 0.3)]
        {
            let n = 32;
            let d = Time::from_secs_f64(secs);
            let wl = cfg(cdf, load, Stop::Duration(d), n).generate(n as usize, &[], 1).unwrap();
            let measured = offered_load(wl.total_bytes(), d, n as usize, Rate::from_gbps(100));
            let err = (measured - load).abs() / load;
            eprintln!("{cdf}: offered {measured:.4} vs {load} ({} flows)", wl.flows.len());
            assert!(
                err < 0.02,
                "{cdf}: offered {measured:.4} vs target {load} ({:.2}%), {} flows",
                err * 100.0,
                wl.flows.len()
            );
            assert!(wl.flows.len() > 50_000, "{cdf}: {}", wl.flows.len());
            assert!(wl.flows.windows(2).all(|w| w[0].start <= w[1].start));
            assert!(wl.flows.iter().all(|f| f.start < d && f.src != f.dst));
        }
    }

    #[test]
    fn interarrival_matches_lcmp_formula() {
        // lcmp.md: mean inter-arrival 1e9/(bw*load/8/avg) ns.
        let avg = 1_711_250.0;
        let g = mean_interarrival_secs(avg, 0.3, Rate::from_gbps(100));
        assert!((g * 1e9 - 1e9 / (100e9 * 0.3 / 8.0 / avg)).abs() < 1e-6);
    }

    #[test]
    fn reproducible_by_seed() {
        let c = cfg("websearch", 0.3, Stop::Flows(500), 16);
        let a = c.generate(16, &[], 5).unwrap();
        let b = c.generate(16, &[], 5).unwrap();
        let d = c.generate(16, &[], 6).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, d);
        assert_eq!(a.flows.len(), 500);
    }

    #[test]
    fn inter_group_and_receiver_set() {
        let groups: Vec<u32> = (0..32).map(|h| h / 8).collect();
        let mut c = cfg("hadoop", 0.5, Stop::Flows(5000), 32);
        c.inter_group = true;
        let wl = c.generate(32, &groups, 2).unwrap();
        assert!(wl.flows.iter().all(|f| groups[f.src as usize] != groups[f.dst as usize]));
        // Destinations spread over every other group.
        let mut seen = [false; 4];
        for f in wl.flows.iter().filter(|f| f.src == 0) {
            seen[groups[f.dst as usize] as usize] = true;
        }
        assert_eq!(seen, [false, true, true, true]);

        // DC1 -> DC8 style.
        let mut c = cfg("websearch", 0.3, Stop::Flows(1000), 0);
        c.senders = (0..8).collect();
        c.receivers = Some((24..32).collect());
        c.inter_group = true;
        let wl = c.generate(32, &groups, 3).unwrap();
        assert!(wl.flows.iter().all(|f| f.src < 8 && f.dst >= 24));

        // No allowed destination.
        let mut c = cfg("websearch", 0.3, Stop::Flows(10), 0);
        c.senders = vec![0];
        c.receivers = Some(vec![1, 2]);
        c.inter_group = true;
        let e = c.generate(32, &groups, 3).unwrap_err();
        assert!(e.contains("no allowed destination"), "{e}");
    }

    #[test]
    fn bad_parameters() {
        for load in [0.0, -0.1, 1.5, f64::NAN] {
            let e = cfg("websearch", load, Stop::Flows(10), 4).generate(4, &[], 1).unwrap_err();
            assert!(e.contains("`load`"), "{e}");
        }
        let e = cfg("websearch", 0.5, Stop::Flows(10), 8).generate(4, &[], 1).unwrap_err();
        assert!(e.contains("host 4 does not exist"), "{e}");
        let e =
            cfg("websearch", 0.5, Stop::Duration(Time::ZERO), 4).generate(4, &[], 1).unwrap_err();
        assert!(e.contains("duration"), "{e}");
        let e = cfg("websearch", 0.5, Stop::Flows(10), 4).generate(4, &[0, 1], 1).unwrap_err();
        assert!(e.contains("groups"), "{e}");
    }
}
