//! A flow's life in the run loop: its start (the sender built, the NIC told), its timer, its
//! completion (messages of shared connections, tasks and dependants released), and the mapping
//! between a connection's PSNs and its messages.

use super::*;

impl Sim {
    pub(super) fn start_flow(&mut self, now: Time, f: FlowId) {
        let fl = &mut self.flows[f.idx()];
        if fl.started_at.is_some() {
            return;
        }
        fl.started_at = Some(now);
        fl.progress_at = Some(now);
        self.flows_started += 1;
        if fl.is_task() {
            self.complete_flow(now, f);
            return;
        }
        let (size, ci) = (fl.size_bytes, fl.conn as usize);
        let read_path_samples = self.samples.config.paths_series;
        // The sender is given input (its start, a message): ask it again.
        self.send_wait[ci] = Time::ZERO;
        let c = &mut self.conns[ci];
        if !c.started {
            c.started = true;
            if let Some(env) = c.pending.take() {
                c.sender = Some(Box::new(
                    self.factories[c.group as usize]
                        .build(&env)
                        .expect("a deferred sender was checked when its connection was made"),
                ));
            }
            // Senders that keep per-path samples for `paths.csv` (Rondo) need not when no
            // one reads them.
            c.sender_mut().set_path_samples(read_path_samples);
            c.sender_mut().begin(now);
        }
        let (first, end) = if c.shared {
            // A connection's total PSN space was checked to fit when it was built.
            let r = c
                .sender_mut()
                .post_message(now, size)
                .expect("connection PSN space checked at build");
            c.receiver.grow(r.1);
            r
        } else {
            (0, c.sender().posted_packets())
        };
        let was_idle = c.idle();
        self.conn_msgs[(c.msgs_at + c.posted) as usize] = f.0;
        c.posted += 1;
        let h = c.src_host as usize;
        let fl = &mut self.flows[f.idx()];
        fl.psn_first = first;
        fl.psn_end = end;
        if was_idle {
            self.hosts[h].active.push(FlowId(ci as u32));
        }
        self.arm_flow_timer(now, ci);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    pub(super) fn arm_flow_timer(&mut self, now: Time, c: usize) {
        let cn = &mut self.conns[c];
        if let Some(t) = cn.sender().poll_timeout() {
            let t = t.max(now);
            if t < cn.timer_at {
                cn.timer_at = t;
                self.push_ev(t, Ev::FlowTimer { conn: c as u32 });
            }
        }
    }

    pub(super) fn on_flow_timer(&mut self, now: Time, c: u32) {
        let ci = c as usize;
        // A timeout may be input to the sender: ask it again.
        self.send_wait[ci] = Time::ZERO;
        let cn = &mut self.conns[ci];
        if cn.timer_at <= now {
            cn.timer_at = Time::MAX;
        }
        if cn.idle() {
            return;
        }
        if cn.sender().poll_timeout().is_some_and(|t| t <= now) {
            if cn.shared {
                let before = cn.recovery_stats().timeouts;
                cn.sender_mut().on_timeout(now);
                let fired = cn.recovery_stats().timeouts - before;
                if fired > 0 {
                    let head = self.conn_msgs[(cn.msgs_at + cn.acked) as usize];
                    self.flows[head as usize].counters.timeouts += fired;
                }
            } else {
                cn.sender_mut().on_timeout(now);
            }
        }
        let h = self.conns[ci].src_host as usize;
        self.arm_flow_timer(now, ci);
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    /// Refresh [`Sim`]'s `all_flows_done` after a change of the flow count or the done count.
    #[inline]
    pub(crate) fn note_flow_count(&mut self) {
        self.all_flows_done = self.flows_done == self.flows.len() && !self.flows.is_empty();
    }

    /// Message `f` has every byte acknowledged (its connection has already counted it).
    pub(super) fn complete_flow(&mut self, now: Time, f: FlowId) {
        self.note_completion(now);
        let fl = &mut self.flows[f.idx()];
        fl.finish = Some(now);
        let h = fl.src_host as usize;
        self.flows_done += 1;
        self.note_flow_count();
        for i in 0..self.dependents[f.idx()].len() {
            let d = self.dependents[f.idx()][i];
            let dl = &mut self.flows[d.idx()];
            dl.deps_left -= 1;
            if dl.deps_left == 0 {
                let t = now + dl.start;
                self.push_ev(t, Ev::FlowStart { flow: d.0 });
            }
        }
        let port = self.hosts[h].port;
        self.pump(now, port);
    }

    /// The message in slot `k` of connection `c`'s posting order.
    #[inline]
    pub(crate) fn conn_msg(&self, c: usize, k: u32) -> u32 {
        self.conn_msgs[(self.conns[c].msgs_at + k) as usize]
    }

    /// The message of shared connection `c` that holds `psn`. Posted messages take consecutive
    /// PSN ranges in posting order; most packets belong to the oldest message the receiver has
    /// not delivered or the one after it, which are tried first, then a binary search.
    pub(crate) fn msg_of_psn(&self, c: usize, psn: u32) -> Option<u32> {
        let cn = &self.conns[c];
        let slots = &self.conn_msgs[cn.msgs_at as usize..(cn.msgs_at + cn.posted) as usize];
        let head = cn.delivered.min(cn.acked) as usize;
        for &m in slots.iter().skip(head).take(2) {
            let f = &self.flows[m as usize];
            if psn >= f.psn_first && psn < f.psn_end {
                return Some(m);
            }
        }
        let k = slots.partition_point(|&m| self.flows[m as usize].psn_end <= psn);
        slots.get(k).copied()
    }
}
