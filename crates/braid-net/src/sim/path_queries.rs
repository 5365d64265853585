//! What the build asks of the network before a run (the scenario layer sets flows up from it):
//! each host pair's path (hops, rates, base RTT, equal-cost paths), the ideal FCT a slowdown
//! divides by, at the time a flow starts when scheduled link changes alter the network, the
//! longest path RTT Rondo's `rtt_bound` reads, and the ns-3 artifact's `maxRtt` / `maxBdp`.
//! Answers are cached per host pair (and link-state epoch) until the build caches are released.

use super::*;

impl Sim {
    /// The best path from host `src` to host `dst` (see [`PathInfo`]); `None` if unreachable.
    pub fn path_info(&mut self, src: u32, dst: u32) -> Option<PathInfo> {
        if let Some(p) = self.path_cache.get(&(src, dst)) {
            return Some(p.clone());
        }
        let dst_node = self.hosts[dst as usize].node;
        let src_node = self.hosts[src as usize].node;
        self.prepare_live_states();
        let states = self.live_port_states.as_deref().expect("just built");
        let info = crate::path::best_path_over(&self.routes, states, src_node, dst, dst_node)?;
        self.path_cache.insert((src, dst), info.clone());
        Some(info)
    }

    /// Make `live_port_states` the ports as they are now, in the compact form the path searches
    /// read (32 bytes a port, not the simulator's 320: at 393,216 ports the searches missed the
    /// cache at every hop), if a link change has not left them current.
    pub(super) fn prepare_live_states(&mut self) {
        if self.live_port_states.is_none() {
            self.live_port_states =
                Some(self.ports.iter().map(crate::path::PortState::of).collect());
        }
    }

    /// The best path from host `src` to host `dst` as the network is at time `at`: the link
    /// events added so far (see [`Sim::add_link_events`]) that take effect at or before `at` —
    /// a `[[faults]]` entry at 0 µs, say — change its rates and delays and take down links out
    /// of it. Without such events it is [`Sim::path_info`]. `None` if unreachable. (A link taken
    /// down is skipped, but routes are not recomputed around it: if every minimum-hop path is
    /// down, the path of the intact network is returned.)
    pub fn path_info_at(&mut self, src: u32, dst: u32, at: Time) -> Option<PathInfo> {
        let (epoch, changed) = self.epoch_at(at);
        if !changed {
            return self.path_info(src, dst);
        }
        if let Some(p) = self.path_cache_at.get(&(src, dst, epoch)) {
            return p.clone();
        }
        self.prepare_port_states(at);
        let dst_node = self.hosts[dst as usize].node;
        let info = crate::path::best_path_over(
            &self.routes,
            self.port_states(epoch),
            self.hosts[src as usize].node,
            dst,
            dst_node,
        )
        .or_else(|| self.path_info(src, dst));
        self.path_cache_at.insert((src, dst, epoch), info.clone());
        info
    }

    /// How many link events are in effect at `at` (they are kept sorted by time, so the first
    /// that many), and whether any of them changes a path (not only its loss rate).
    pub(super) fn epoch_at(&self, at: Time) -> (usize, bool) {
        let epoch = self.link_events.partition_point(|e| e.at <= at);
        (epoch, self.link_events[..epoch].iter().any(|e| !matches!(e.change, LinkChange::Loss(_))))
    }

    /// Makes the port states of the network at time `at` available to [`Sim::port_states`] —
    /// the ports as the link events in effect then leave them, or the live ports when none
    /// changes a path — and returns their epoch ([`Sim::epoch_at`]).
    pub(super) fn prepare_port_states(&mut self, at: Time) -> usize {
        let (epoch, changed) = self.epoch_at(at);
        if changed && self.port_states_at.as_ref().is_none_or(|(e, _)| *e != epoch) {
            let mut states: Vec<crate::path::PortState> =
                self.ports.iter().map(crate::path::PortState::of).collect();
            for e in &self.link_events[..epoch] {
                for p in [2 * e.link as usize, 2 * e.link as usize + 1] {
                    let st = &mut states[p];
                    match e.change {
                        LinkChange::Down => st.up = false,
                        LinkChange::Up => st.up = true,
                        LinkChange::Rate(bps) => st.rate = Rate(bps.max(1)),
                        LinkChange::Delay(d) => st.delay = d,
                        LinkChange::Loss(_) => {}
                    }
                }
            }
            self.port_states_at = Some((epoch, states));
        } else if !changed {
            self.prepare_live_states();
        }
        epoch
    }

    /// The port states [`Sim::prepare_port_states`] made available for `epoch`.
    pub(super) fn port_states(&self, epoch: usize) -> &[crate::path::PortState] {
        match (&self.port_states_at, &self.live_port_states) {
            (Some((e, s)), _) if *e == epoch => s,
            (_, Some(s)) => s,
            _ => unreachable!("prepare_port_states filled the states of this epoch"),
        }
    }

    /// The largest base RTT of the minimum-hop paths from host `src` to host `dst` as the network
    /// is at time `at` (the link events in effect then, as [`Sim::path_info_at`]); see
    /// [`crate::path::longest_base_rtt`]. `None` if unreachable.
    pub fn longest_base_rtt_at(
        &mut self,
        src: u32,
        dst: u32,
        at: Time,
        data_wire_bytes: u64,
        ack_bytes: u64,
    ) -> Option<Time> {
        let epoch = self.prepare_port_states(at);
        let (s_node, dst_node) = (self.hosts[src as usize].node, self.hosts[dst as usize].node);
        crate::path::longest_base_rtt(
            &self.routes,
            self.port_states(epoch),
            s_node,
            dst,
            dst_node,
            data_wire_bytes,
            ack_bytes,
        )
    }

    /// Braid's ideal FCT of a message of `size_bytes` from host `src` to host `dst` starting at
    /// `at`: [`PathInfo::ideal_fct`] on the best of the flow's candidate paths — every
    /// minimum-hop path it may take, with the link events in effect at `at` — for this size (a
    /// short message's best path is the lowest-delay one, a long one's the widest; docs/metrics.md).
    /// With `spray` (a transport, or switches, that send one flow over several paths) and parallel
    /// paths each narrower than the hosts' links (the Rondo testbed), the flow could use all of
    /// them at once: the ideal is then the lesser of that and [`crate::path::multipath_ideal_fct`]
    /// at the paths' maximum flow, capped by the hosts' links. No flow can beat it, so a slowdown
    /// under it is at least 1. `None` if unreachable.
    #[allow(clippy::too_many_arguments)]
    pub fn ideal_fct_at(
        &mut self,
        src: u32,
        dst: u32,
        at: Time,
        size_bytes: u64,
        mtu: u32,
        header: u32,
        ack_bytes: u32,
        spray: bool,
    ) -> Option<Time> {
        let epoch = self.epoch_at(at).0;
        let key = (src, dst, epoch);
        if !self.candidates_at.contains_key(&key) {
            self.prepare_port_states(at);
            let states = self.port_states(epoch);
            let (s_node, dst_node) = (self.hosts[src as usize].node, self.hosts[dst as usize].node);
            let c = crate::path::candidate_paths(&self.routes, states, s_node, dst, dst_node);
            // Spraying gains only where the widest path is narrower than the hosts' own links.
            let widest = c.iter().map(|p| p.bottleneck()).max().unwrap_or(Rate(0));
            let hosts_rate = c
                .iter()
                .map(|p| p.hops[0].0.min(p.hops[p.hops.len() - 1].0))
                .max()
                .unwrap_or(Rate(0));
            let mp = (widest < hosts_rate)
                .then(|| {
                    crate::path::multipath_rate(&self.routes, states, s_node, dst, dst_node)
                        .min(hosts_rate)
                })
                .filter(|&r| r > widest);
            self.candidates_at.insert(key, (c, mp));
        }
        let (paths, mp) = &self.candidates_at[&key];
        let single = paths.iter().map(|p| p.ideal_fct(size_bytes, mtu, header, ack_bytes)).min();
        let all = mp.filter(|_| spray).and_then(|r| {
            crate::path::multipath_ideal_fct(paths, r, size_bytes, mtu, header, ack_bytes)
        });
        match (single, all) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// How many equal-cost (minimum-hop) paths lead from host `src` to host `dst` (see
    /// [`crate::path::equal_cost_paths`]), cached per (source's first switch, destination).
    pub fn equal_cost_paths(&mut self, src: u32, dst: u32) -> u64 {
        let s_node = self.hosts[src as usize].node;
        let dst_node = self.hosts[dst as usize].node;
        self.prepare_live_states();
        let states = self.live_port_states.as_deref().expect("just built");
        crate::path::equal_cost_paths(&self.routes, states, s_node, dst, dst_node)
    }

    /// The LCMP artifact's ideal FCT of `size` bytes from host `src` to host `dst` (see
    /// [`crate::path::artifact_ideal_fct`]); `None` if unreachable.
    pub fn artifact_ideal_fct(
        &self,
        src: u32,
        dst: u32,
        size: u64,
        payload: u32,
        header: u32,
    ) -> Option<Time> {
        let d_node = self.hosts[dst as usize].node;
        crate::path::artifact_ideal_fct(
            &self.routes,
            &self.ports,
            self.hosts[src as usize].node,
            dst,
            d_node,
            size,
            payload,
            header,
        )
    }

    /// The ns-3 HPCC fork's largest RTT and BDP over every pair of hosts (see
    /// [`crate::path::ns3_max_rtt_bdp`]).
    pub fn ns3_max_rtt_bdp(&self, payload: u32, wrap: bool) -> (Time, u64) {
        let hosts: Vec<NodeId> = self.hosts.iter().map(|h| h.node).collect();
        crate::path::ns3_max_rtt_bdp(&self.routes, &self.ports, &hosts, payload, wrap)
    }
}
