//! Read-only views of the simulator's state (and the few knobs set before a run), for the CLI's
//! outputs and for tests.

use super::*;

impl Sim {
    /// Network parameters.
    pub fn cfg(&self) -> &NetConfig {
        &self.cfg
    }

    /// The topology it was built from.
    pub fn topo(&self) -> &Topology {
        &self.topo
    }

    /// The event queue (current time, events processed, next event time).
    pub fn events(&self) -> &EventQueue<Ev> {
        &self.q
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.q.now()
    }

    /// When the run ended: the time its last flow completed, if every flow did (a partitioned
    /// run processes events on to the next boundary, but ends where one sequential queue
    /// would have stopped), else the current time.
    pub fn end_time(&self) -> Time {
        self.completed_at.unwrap_or(self.q.now())
    }

    /// Every port (two per link: `2·link` is the a→b direction).
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// Egress ports of each node.
    pub fn node_ports(&self) -> &[Vec<PortId>] {
        &self.node_ports
    }

    /// Hosts, by host index.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// Shared-buffer capacity of each node, in bytes.
    pub fn buffer_caps(&self) -> &[u64] {
        &self.buffer_cap
    }

    /// Next-hop tables.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// Use `other`'s topology and next-hop tables instead of this simulator's own copies: the
    /// partitions of a parallel run, built from one scenario, hold the same ones, and one copy
    /// serves them all (a partition that recomputes its routes after a link change takes its own
    /// again). Panics if they differ: the build is not deterministic.
    pub fn share_tables_of(&mut self, other: &Sim) {
        assert!(
            *self.topo == *other.topo,
            "partitions built from one scenario have different topologies"
        );
        assert!(
            self.routes == other.routes,
            "partitions built from one scenario have different routes"
        );
        self.topo = Arc::clone(&other.topo);
        // Held inline, not behind a pointer: `forward` reads them for every packet.
        self.routes = other.routes.clone();
    }

    /// Switch-side routing state and counters.
    pub fn routing(&self) -> &SwitchRouting {
        &self.routing
    }

    /// Switch-side routing, for control-plane queries
    /// ([`SwitchRouting::describe_candidates`]).
    pub fn routing_mut(&mut self) -> &mut SwitchRouting {
        &mut self.routing
    }

    /// Flows, by flow id.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// Flows, mutable (tests adjust start times).
    pub fn flows_mut(&mut self) -> &mut [Flow] {
        &mut self.flows
    }

    /// Connections, by index (a flow's is [`Flow::conn`]).
    pub fn conns(&self) -> &[Conn] {
        &self.conns
    }

    /// Connections, mutable (tests read senders' internal counters).
    pub fn conns_mut(&mut self) -> &mut [Conn] {
        &mut self.conns
    }

    /// The connection flow `f` is sent on.
    pub fn conn_of(&self, f: usize) -> &Conn {
        &self.conns[self.flows[f].conn as usize]
    }

    /// Run-wide counters.
    pub fn stats(&self) -> &SimStats {
        &self.stats
    }

    /// NIC-level OOD, sampled at every data arrival.
    pub fn nic_ood_hist(&self) -> &Histogram {
        &self.nic_ood_hist
    }

    /// NIC-level RBO, sampled at every data arrival.
    pub fn nic_rbo_hist(&self) -> &Histogram {
        &self.nic_rbo_hist
    }

    /// What is sampled (set before [`Sim::prepare`]).
    pub fn sampling_mut(&mut self) -> &mut SampleConfig {
        &mut self.samples.config
    }

    /// Per-port queue statistics from periodic samples (switch ports only).
    pub fn queue_stats(&self) -> &[PortQueueStats] {
        self.samples.queue_stats()
    }

    /// Time series rows `(time, port, bytes)`.
    pub fn queue_series(&self) -> &[(Time, u32, u64, u64)] {
        self.samples.queue_series()
    }

    /// Time series rows `(time, host, nic_ood, nic_rbo)`.
    pub fn ood_series(&self) -> &[(Time, u32, u64, u64)] {
        self.samples.ood_series()
    }

    /// Time series rows `(time, application bytes delivered in order so far)`.
    pub fn goodput_series(&self) -> &[(Time, u64)] {
        self.samples.goodput_series()
    }

    /// Time series rows `(time, flow, one logical path's state)`.
    pub fn path_series(&self) -> &[(Time, u32, PathSample)] {
        self.samples.path_series()
    }

    /// Captured packets `(time, egress port, packet)` of the links given to [`Sim::capture_link`].
    pub fn captured(&self) -> &[(Time, u32, Packet)] {
        &self.captured
    }

    /// Pulls sent and RTS packets received by the receiver-side pull pacers (EQDS).
    pub fn pull_counts(&self) -> (u64, u64) {
        self.hosts.iter().fold((0, 0), |(p, r), h| {
            (p + h.pull_pacer.pulls_sent(), r + h.pull_pacer.rts_received())
        })
    }
}
