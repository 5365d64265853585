//! A flow's per-path state over its life: built folded into one at construction (a flow that has
//! not started holds no per-path state), unfolded into the logical paths when it starts or a
//! message is posted, folded again and dropped when everything posted is acknowledged, and the
//! per-path samples the driver reads for `paths.csv` refreshed on each update.

use super::*;

impl RondoSender {
    /// Fold the paths of a flow that has not started into one (see `folded`).
    pub(super) fn fold_paths(&mut self) {
        if self.paths.is_empty() {
            return;
        }
        self.folded = Some(Box::new(self.paths[0].clone()));
        self.drop_path_state();
    }

    /// Free the per-path state: the paths, their samples, deficits and scratch.
    pub(super) fn drop_path_state(&mut self) {
        self.skips_pending = 0;
        self.base_rtts_current = false;
        self.paths = Vec::new();
        self.stable_paths = 0;
        self.samples = Vec::new();
        self.deficits = Deficits::new(0);
        self.open_scratch = Vec::new();
    }

    /// Unfold the paths (the flow starts, or a driver calls in before `begin`): the same state
    /// `new` built, path by path.
    #[inline(always)]
    pub(super) fn unfold_paths(&mut self) {
        if self.folded.is_some() {
            self.unfold_paths_now();
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn unfold_paths_now(&mut self) {
        let Some(proto) = self.folded.take() else { return };
        self.base_rtts_current = false;
        let n = self.n_paths;
        let e0 = proto.entropy;
        self.paths = (0..n)
            .map(|p| {
                let mut ps = (*proto).clone();
                ps.entropy = e0.wrapping_add(p as u16);
                ps
            })
            .collect();
        if self.keep_samples {
            self.samples = vec![PathSample::default(); n];
        }
        self.deficits = Deficits::new(n);
        self.open_scratch = Vec::with_capacity(n);
        self.stable_paths = self.paths.iter().filter(|p| self.path_is_stable(p)).count();
        self.refresh_samples(self.start);
    }

    pub(super) fn refresh_samples(&mut self, now: Time) {
        if !self.keep_samples {
            return;
        }
        // The samples show each path's skip: the pending ones are evaluated for them.
        self.settle_all_skips();
        let wire = (self.core.msg.mtu_bytes + self.header_bytes) as f64;
        for (i, ps) in self.paths.iter().enumerate() {
            let (rate, q) = match &ps.cc {
                PathCc::Arcc(a) => (a.rate_pkts_per_s, a.q),
                PathCc::Swift(_) => (ps.w / ps.srtt_s.max(1e-12), 0.0),
            };
            self.samples[i] = PathSample {
                path: i as u16,
                window_bytes: (ps.window() * self.core.msg.mtu_bytes as f64) as u64,
                ack_rate_bps: (rate * wire * 8.0) as u64,
                inflight_pkts: ps.sent.len() as u32,
                margin_bytes: (q * self.core.msg.mtu_bytes as f64) as u64,
                fwd_delay_ns: ps.fwd_s * 1e9,
                skip: ps.skip,
                probing: ps.probe.active(now),
            };
        }
    }
}

impl RondoSender {
    /// Record and build the data packet `psn` on path `p`, and advance the pacer.
    pub(super) fn send_data(&mut self, now: Time, p: usize, psn: u32, is_retx: bool) -> TxPacket {
        self.core.rec.on_sent(now, psn, p as u16);
        let ps = &mut self.paths[p];
        ps.sent.push_back(now);
        let timestamped = !is_retx && now >= ps.ts_next;
        if timestamped {
            ps.ts_next = now + self.ts_interval;
            ps.ts_pending.push_back((psn, now));
        }
        let entropy = ps.entropy;
        self.pacer.on_send(now);
        let payload = self.core.payload_of(psn);
        TxPacket { timestamped, ..self.core.data_packet(psn, is_retx, p as u16, entropy, payload) }
    }
}
