//! Setting a run up: connections and their senders and receivers, flows, tasks and their
//! dependencies, scheduled link changes, notes for `summary.json`, and [`Sim::prepare`], which
//! fixes what the run loop needs before the first event (wire modes, the direct-arrival bound).

use super::*;

impl Sim {
    /// Add a connection from host `src_host` to host `dst_host` in flow group `group`, with
    /// its sender and receiver, that will carry `messages` messages ([`Sim::add_flow`]). With
    /// one message the sender and receiver are built for it; with more, as a persistent
    /// connection to which each message is posted when it starts. Returns its index.
    pub fn add_conn(
        &mut self,
        src_host: u32,
        dst_host: u32,
        group: u16,
        sender: Sender,
        receiver: Receiver,
        messages: u32,
    ) -> u32 {
        let id = self.conns.len() as u32;
        self.send_wait.push(Time::ZERO);
        let msgs_at = self.conn_msgs.len() as u32;
        self.conn_msgs.extend(std::iter::repeat_n(u32::MAX, messages as usize));
        self.conns.push(Conn {
            src_host,
            dst_host,
            group,
            wants_pulls: sender.wants_pulls(),
            pulls_to_target: sender.pulls_to_target(),
            handles_trims: sender.handles_trims(),
            sender: Some(Box::new(sender)),
            pending: None,
            finished_stats: None,
            receiver,
            pulls: Default::default(),
            timer_at: Time::MAX,
            ood: 0,
            probes_sent: 0,
            shared: messages > 1,
            msgs_at,
            msgs_len: messages,
            posted: 0,
            acked: 0,
            delivered: 0,
            started: false,
        });
        id
    }

    /// The transport of each flow group (by group index), from which deferred senders are built
    /// ([`Sim::defer_sender`]).
    pub fn set_sender_factories(&mut self, factories: Vec<SenderFactory>) {
        self.factories = factories;
    }

    /// The transport connection `conn`'s group runs, if the groups' transports were given
    /// ([`Sim::set_sender_factories`]).
    pub fn sender_factory(&self, conn: usize) -> Option<&SenderFactory> {
        self.factories.get(self.conns[conn].group as usize)
    }

    /// Build connection `conn`'s sender only when it first starts, from `env` and its group's
    /// transport ([`Sim::set_sender_factories`]), rather than keep the one it was made with: a
    /// run's senders then take memory only while their connections are in progress. The
    /// sender it was made with (the same build: `SenderFactory::build` is a function of `env`)
    /// has checked `env`, so the build at the start cannot fail.
    pub fn defer_sender(&mut self, conn: u32, env: FlowEnv) {
        let c = &mut self.conns[conn as usize];
        assert!(
            (c.group as usize) < self.factories.len(),
            "defer_sender: no transport for group {} (Sim::set_sender_factories)",
            c.group
        );
        assert!(!c.started, "defer_sender: connection {conn} has started");
        c.sender = None;
        c.pending = Some(Box::new(env));
    }

    /// Keep every sender after its connection finishes (for tools and tests that read senders
    /// after a run; by default a finished one-message connection lets its sender go and keeps
    /// its recovery counters).
    pub fn keep_finished_senders(&mut self) {
        self.release_finished = false;
    }

    /// Call `f` with connection `conn`'s sender — built for the occasion if it is deferred and
    /// has not started — or `None` if it was released or is another partition's.
    pub fn with_sender<R>(&self, conn: usize, f: impl FnOnce(&Sender) -> R) -> Option<R> {
        let c = &self.conns[conn];
        match (&c.sender, &c.pending) {
            (Some(s), _) => Some(f(s)),
            (None, Some(env)) => Some(f(&self.factories[c.group as usize]
                .build(env)
                .expect("a deferred sender was checked when its connection was made"))),
            (None, None) => None,
        }
    }

    /// Add a flow: a message of `size_bytes` on connection `conn` ([`Sim::add_conn`]), which
    /// starts at `start` (an offset after its dependencies, if it has any). Returns its id.
    pub fn add_flow(
        &mut self,
        conn: u32,
        size_bytes: u64,
        start: Time,
        ideal_fct: Time,
        tag: u32,
    ) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        let c = &self.conns[conn as usize];
        if c.msgs_len == 1 {
            // A connection of one message: its slot is known now (a receiver in another
            // partition of a parallel run never sees the post).
            self.conn_msgs[c.msgs_at as usize] = id.0;
        }
        self.flows.push(Flow {
            src_host: c.src_host,
            dst_host: c.dst_host,
            conn,
            size_bytes,
            start,
            started_at: None,
            finish: None,
            delivered_at: None,
            psn_first: 0,
            psn_end: 0,
            ideal_fct,
            deps_left: 0,
            delivered_bytes: 0,
            progress_at: None,
            tag,
            counters: MessageCounters::default(),
        });
        self.dependents.push(Vec::new());
        self.note_flow_count();
        id
    }

    /// Add a compute task on host `host`: it sends nothing and completes as soon as it starts,
    /// `start` after its dependencies (absolute without any); flows may depend on it. Returns
    /// its id (in the flows' numbering).
    pub fn add_task(&mut self, host: u32, start: Time, tag: u32) -> FlowId {
        let id = FlowId::from_idx(self.flows.len());
        self.flows.push(Flow {
            src_host: host,
            dst_host: host,
            conn: crate::endpoints::NO_CONN,
            size_bytes: 0,
            start,
            started_at: None,
            finish: None,
            delivered_at: None,
            psn_first: 0,
            psn_end: 0,
            ideal_fct: Time::ZERO,
            deps_left: 0,
            delivered_bytes: 0,
            progress_at: None,
            tag,
            counters: MessageCounters::default(),
        });
        self.dependents.push(Vec::new());
        self.note_flow_count();
        id
    }

    /// Make `flow` wait for `on` to complete before it starts.
    pub fn add_dependency(&mut self, flow: FlowId, on: FlowId) {
        self.flows[flow.idx()].deps_left += 1;
        self.dependents[on.idx()].push(flow);
    }

    /// Schedule link changes.
    pub fn add_link_events(&mut self, evs: &[LinkEvent]) {
        for e in evs {
            self.link_events.push(*e);
        }
        // Stable: events at the same time keep the order they were given in.
        self.link_events.sort_by_key(|e| e.at);
        // A link that will lose packets needs the per-port loss streams (32 bytes a port, 12.6 MB
        // on a k = 64 fat-tree, so not made for runs without loss).
        if self.port_rng.is_empty()
            && self.link_events.iter().any(|e| matches!(e.change, LinkChange::Loss(x) if x > 0.0))
        {
            self.port_rng = streams(self.master_seed, stream::LINK, self.ports.len());
        }
        self.path_cache_at.clear();
        self.candidates_at.clear();
        self.port_states_at = None;
        self.live_port_states = None;
    }

    /// Record a warning about the run's set-up ([`Sim::notes`]).
    pub fn add_note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// The warnings recorded about the run's set-up.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Whether any link is captured ([`Sim::capture_link`]).
    pub fn capture_enabled(&self) -> bool {
        self.capture_ports.iter().any(|&c| c)
    }

    /// Whether some connection carries more than one message ([`Sim::add_conn`]).
    pub fn has_shared_connections(&self) -> bool {
        self.conns.iter().any(|c| c.shared)
    }

    /// Whether any flow waits for another ([`Sim::add_dependency`]).
    pub fn has_dependencies(&self) -> bool {
        self.dependents.iter().any(|d| !d.is_empty())
    }

    /// Flows completed so far.
    pub fn flows_done(&self) -> usize {
        self.flows_done
    }

    /// Let the caches that served the build go: the paths of each host pair and their ideal
    /// FCTs (one entry per host pair: most of a large all-to-all's memory until now) and the
    /// ports' states they were computed over. A later look recomputes them. [`Sim::prepare`]
    /// calls it; a parallel run's builder calls it as soon as a partition is built, so that
    /// the partitions' caches do not all live at once.
    pub fn release_build_caches(&mut self) {
        self.path_cache = HashMap::default();
        self.path_cache_at = HashMap::default();
        self.candidates_at = HashMap::default();
        self.port_states_at = None;
        self.live_port_states = None;
        crate::path::release_scratch();
    }

    /// Schedule the initial events. Call once before [`Sim::run`].
    pub fn prepare(&mut self) {
        self.release_build_caches();
        self.choose_wire_modes();
        if let Some(why) = self.choose_departure_modes() {
            self.notes.push(format!(
                "run.departures = \"on-demand\" is not taken: {why} needs every departure as an event, so this run schedules them as events (docs/architecture.md, \"Departures\")"
            ));
        }
        for f in 0..self.flows.len() {
            let node = self.hosts[self.flows[f].src_host as usize].node;
            if self.flows[f].deps_left == 0 && self.owns(node) {
                let t = self.flows[f].start;
                self.q.set_origin(node.0);
                self.push_ev(t, Ev::FlowStart { flow: f as u32 });
            }
        }
        self.set_origin_virtual(partition::ORIGIN_LINK);
        for i in 0..self.link_events.len() {
            let at = self.link_events[i].at;
            self.push_ev(at, Ev::Link { idx: i as u32 });
        }
        self.set_origin_virtual(partition::ORIGIN_SAMPLE);
        if let Some(iv) = self.samples.config.interval {
            self.push_ev(iv, Ev::Sample);
        }
        self.set_origin_virtual(partition::ORIGIN_ROUTING);
        for (t, timer) in self.routing.initial_timers().into_iter().flatten() {
            self.push_ev(t, Ev::Routing { timer });
        }
    }

    /// Which links put every arrival straight into the event queue ([`Port::wire_direct`]): those
    /// of delay at most [`DIRECT_ARRIVAL_MAX_DELAY`] (or what [`Sim::set_direct_arrivals`] set)
    /// that no scheduled change gives another delay.
    /// Their arrivals are within the calendar's horizon, and a link's arrivals come in key order
    /// (each transmission starts after the one before it ends), so the event queue holds them
    /// with the keys they would have had from the wire queue; a link whose delay changes keeps
    /// the wire queue, which delivers in order when a shorter delay would let a packet overtake.
    pub(super) fn choose_wire_modes(&mut self) {
        // Link `l` joins ports `2l` and `2l + 1`.
        let mut delay_changes = vec![false; self.topo.links.len()];
        for e in &self.link_events {
            if matches!(e.change, LinkChange::Delay(_)) {
                delay_changes[e.link as usize] = true;
            }
        }
        for (i, p) in self.ports.iter_mut().enumerate() {
            debug_assert!(!p.wire_head, "choose_wire_modes: port {i} carries packets");
            p.wire_direct = self.direct_arrival_max_delay.is_some_and(|max| p.delay <= max)
                && !delay_changes[i / 2];
        }
    }

    /// Let links of delay at most `max_delay` put their arrivals straight into the event queue
    /// instead of the wire queue (`None`: no link; the default is [`DIRECT_ARRIVAL_MAX_DELAY`]).
    /// Call before [`Sim::prepare`]. Events keep the same keys either way, so outputs are the
    /// same: only time and memory change (tests compare the two).
    pub fn set_direct_arrivals(&mut self, max_delay: Option<Time>) {
        self.direct_arrival_max_delay = max_delay;
    }
}
