//! Building a Rondo sender: its `Transport` impl — the name, knobs and defaults scenarios see,
//! the configuration read from `[transport]` ([`super::config`]) and the constructor that lays out
//! a flow's logical paths (entropies, `W0`, probing, the scheduler's start-up tables) from the
//! flow's environment.

// The constructor reads most of the parent module's types.
use super::*;

impl Transport for RondoSender {
    const NAME: &'static str = "rondo";

    const KNOBS: &'static [&'static str] = RondoConfig::KNOBS;

    type Config = RondoConfig;

    fn default_cc() -> CcKind {
        CcKind::Arcc
    }

    fn default_recovery() -> RecoveryKind {
        RecoveryKind::EarlyRecovery
    }

    fn read_config(tc: &TransportConfig) -> Result<RondoConfig, String> {
        RondoConfig::from_knobs(tc)
    }

    fn uses_longest_path_rtt(cfg: &RondoConfig) -> bool {
        cfg.rtt_bound
    }

    fn sack_below(cfg: &RondoConfig) -> bool {
        cfg.ack_bitmap
    }

    /// A sender for the flow (or connection) `fenv`.
    fn new(cfg: &RondoConfig, fenv: &FlowEnv) -> Result<RondoSender, String> {
        let (env, entropy, start, seed) = (&fenv.cc, fenv.entropy, fenv.start, fenv.seed);
        env.check()?;
        let core = SenderCore::for_env(
            fenv,
            RecoveryConfig {
                er_per_packet: cfg.er_per_packet,
                er_path_confirm: cfg.er_path_confirm,
                sack_below: cfg.ack_bitmap,
                ..cfg.recovery
            },
        )?;
        let mtu = core.mtu_bytes();
        let pkts = core.msg.packets as u64;
        if env.base_rtt == Time::ZERO {
            return Err("rondo needs a positive base RTT".into());
        }
        let n = cfg.paths_for(fenv.equal_cost_paths) as usize;
        let t_env = env.base_rtt;
        let tau_q = cfg.tau_q.resolve(RondoConfig::tau_q_reference(env)).secs_f64();
        let params = ArccParams {
            q0: cfg.margin_cap_pkts(mtu, n as u16, fenv.equal_cost_paths),
            tau_q_s: tau_q,
            alpha: cfg.alpha,
            alpha_side: cfg.alpha_side,
            gamma: cfg.gamma,
            w0: cfg.initial_window_pkts(env, mtu, n as u16, fenv.equal_cost_paths),
            fast_drain: cfg.fast_drain,
            w_min: 1.0 / 16.0,
        };
        let swift_mode = cfg.cc.kind == CcKind::Swift;
        let swift_cfg = if swift_mode {
            // One flow BDP split over the paths, unless the scenario sets `init_cwnd`.
            let mut c = CcConfig::new(CcKind::Swift).with(
                "init_cwnd",
                Knob::Str(format!("{}B", (env.bdp_bytes() / n as u64).max(mtu as u64))),
            );
            c.overrides.extend(cfg.cc.overrides.iter().cloned());
            let mut sc = SwiftConfig::defaults_for(env);
            for (k, v) in &c.overrides {
                sc.apply_knob(k, v)?;
            }
            sc.check()?;
            Some(sc)
        } else {
            if let Some((k, _)) = cfg.cc.overrides.first() {
                return Err(format!(
                    "`transport.cc_params.{k}`: ARCC's parameters are fields of the `rondo` transport (`tu`, `q0`, `tau_q`, `alpha`, `gamma`, `w0`, …)"
                ));
            }
            None
        };
        let e0 = entropy & 0xFF00;
        let probe_until =
            if cfg.probing { start + t_env.mul_f64(cfg.probe_phase) } else { Time::ZERO };
        let paths = (0..n)
            .map(|p| {
                let cc = match &swift_cfg {
                    Some(sc) => PathCc::Swift(Box::new(Swift::new(sc.clone(), env))),
                    None => PathCc::Arcc(ArccPath::new(&params)),
                };
                let w = match &cc {
                    PathCc::Arcc(a) => a.w,
                    PathCc::Swift(s) => s.cwnd() / mtu as f64,
                };
                PathState {
                    entropy: e0.wrapping_add(p as u16),
                    cc,
                    sample: AckSample::default(),
                    base_rtt: t_env,
                    min_rtt: Time::MAX,
                    srtt_s: t_env.secs_f64(),
                    rtt_seeded: false,
                    probe: PathProbing::new(probe_until, cfg.probing),
                    fwd_s: 0.0,
                    fwd_n: 0,
                    stable: 0,
                    ts_next: if cfg.scheduler { start } else { Time::MAX },
                    // Taken on the path's first transmission (and returned at completion).
                    ts_pending: VecDeque::new(),
                    skip: 0,
                    skip_lead_s: 0.0,
                    w,
                    sent: VecDeque::new(),
                    last_update: start,
                    next_update: start + cfg.tu.resolve(t_env).max(Time::from_ps(1)),
                }
            })
            .collect();
        let tu = cfg.tu.resolve(t_env).max(Time::from_ps(1));
        let ts_interval = cfg.ts_interval.resolve(t_env);
        let mut s = RondoSender {
            core,
            header_bytes: cfg.header_bytes,
            start,
            t_env,
            tu,
            ts_interval,
            tau_q_s: tau_q,
            stable_tol_s: cfg.stable_tol.resolve(t_env).secs_f64(),
            params,
            cfg_probe_phase: cfg.probe_phase,
            cfg_probe_trigger: cfg.probe_trigger,
            cfg_probe_slack: cfg.probe_slack,
            cfg_delay_gain: cfg.delay_gain,
            cfg_stable_samples: cfg.stable_samples,
            rtt_floor: cfg.rtt_floor,
            t_bound: if cfg.rtt_bound && fenv.longest_path_rtt > Time::ZERO {
                fenv.longest_path_rtt.max(t_env)
            } else {
                Time::MAX
            },
            skip_expiry: cfg.skip_expiry,
            startup_skips_per_sample: cfg.startup_skips_per_sample,
            lowest_since: start,
            cfg_max_skip: cfg.max_skip_pkts(env, mtu),
            probing: cfg.probing,
            probe_rate_unsent: cfg.probe_rate_unsent,
            probe_next_at: start,
            scheduler: cfg.scheduler,
            selection: cfg.path_selection,
            swift_mode,
            unsent: UnsentSet::new(pkts as u32),
            paths,
            samples: vec![PathSample::default(); n],
            pacer: FlowPacer::new(start),
            deficits: Deficits::new(n),
            open_scratch: Vec::with_capacity(n),
            next_update: start + tu,
            tu_rel: cfg.tu,
            probe_rr: 0,
            sched_on: false,
            stable_paths: 0,
            sched_stable: false,
            aligned: None,
            paths_released: false,
            folded: None,
            base_rtts_current: false,
            best_rtt: Time::MAX,
            n_paths: n,
            keep_samples: true,
            skips_pending: 0,
            #[cfg(debug_assertions)]
            eager_skips: Vec::new(),
            aligned_paths: if cfg.scheduler
                && cfg.scheduler_from_first_samples
                && n <= MAX_ALIGNED_PATHS
            {
                n
            } else {
                0
            },
            startup_sched: cfg.scheduler
                && cfg.scheduler_from_first_samples
                && n <= MAX_ALIGNED_PATHS,
            rng: Rng::new(seed),
            stats: RondoStats::default(),
        };
        if cfg.probing {
            s.stats.probe_phases = n as u64;
        }
        s.recompute_pacer();
        s.refresh_samples(start);
        s.fold_paths();
        Ok(s)
    }
}
