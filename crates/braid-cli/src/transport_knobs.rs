//! The `[transport]` table's transport-specific knobs → the typed configuration of each transport
//! ([`TransportSpec`]), read once per scenario. Strings with units (`"128KB"`, `"10us"`), numbers
//! and enum names are parsed here with `braid_core`'s unit parsers; errors name the scenario field
//! (`transport.paths`). braid-proto holds the defaults and checks the values.

use braid_core::{Knob, Time};
use braid_proto::cc::{CcEnv, CcKind};
use braid_proto::recovery::RecoveryConfig;
use braid_proto::transport::falcon::PathSelect;
use braid_proto::transport::rondo::{AlphaSide, Amount, PathSelection, RelTime};
use braid_proto::transport::uet::EvSelect;
use braid_proto::transport::{
    EqdsConfig, FalconConfig, FlowEnv, MprdmaConfig, RoceConfig, RondoConfig, RrpsConfig, TransportConfig, TransportKind, TransportSpec, UetConfig, MAX_PATHS,
};

/// Knob names of the `mprdma` transport.
pub const MPRDMA_KNOBS: &[&str] = &["paths", "delta", "bitmap", "explore_prob", "grow_explore", "init_cwnd", "min_cwnd", "max_cwnd", "loss_md"];

/// Knob names of the `falcon` transport.
pub const FALCON_KNOBS: &[&str] = &[
    "paths",
    "path_select",
    "retx_same_path",
    "ncwnd_init",
    "ncwnd_min",
    "ncwnd_max",
    "ncwnd_target",
    "ncwnd_ai",
    "ncwnd_beta",
    "ncwnd_max_md",
    "plb",
    "plb_rounds",
    "plb_congested_frac",
    "plb_target_mult",
];

/// Knob names of the `uet` transport.
pub const UET_KNOBS: &[&str] =
    &["paths", "ev_select", "reps_buffer", "reps_freeze", "reps_freeze_time", "target_qdelay", "ood_threshold", "quick_adapt", "ack_every_bytes"];

/// Knob names of the `eqds` transport.
pub const EQDS_KNOBS: &[&str] = &["paths", "credit_spec", "rts", "pull_targets"];

/// Read the transport-specific knobs of `tc` once into the kind's typed configuration. Errors
/// name the scenario field at fault.
pub fn transport_spec(tc: &TransportConfig) -> Result<TransportSpec, String> {
    Ok(match tc.kind {
        TransportKind::Roce => {
            // RoCE is single-path. `paths` is accepted (and has no effect) so that a multipath
            // scenario can be rerun as the ECMP + DCQCN baseline by changing `transport.kind` only.
            if let Some((k, _)) = tc.params.iter().find(|(k, _)| k != "paths") {
                return Err(format!("unknown field `transport.{k}` for transport `roce`"));
            }
            TransportSpec::Roce(RoceConfig { cc: tc.cc.clone(), recovery: tc.recovery, header_bytes: tc.header_bytes })
        }
        TransportKind::Mprdma => TransportSpec::Mprdma(mprdma(tc)?),
        TransportKind::Falcon => TransportSpec::Falcon(falcon(tc)?),
        TransportKind::Uet => TransportSpec::Uet(uet(tc)?),
        TransportKind::Eqds => TransportSpec::Eqds(eqds(tc)?),
        TransportKind::Rondo => TransportSpec::Rondo(rondo(tc)?),
        TransportKind::Rrps => TransportSpec::Rrps(rrps(tc)?),
    })
}

/// Check every knob by building a sender for a reference 100 Gb/s environment.
pub fn validate(tc: &TransportConfig) -> Result<(), String> {
    let env = FlowEnv {
        cc: CcEnv::reference_100g(),
        size_bytes: 1 << 20,
        connection_messages: None,
        equal_cost_paths: 0,
        entropy: 49_152,
        start: Time::ZERO,
        seed: 1,
    };
    transport_spec(tc)?.build(&env).map(|_| ())
}

fn rrps(tc: &TransportConfig) -> Result<RrpsConfig, String> {
    let mut paths = 4u16;
    for (k, v) in &tc.params {
        match k.as_str() {
            "paths" => {
                let n = v.as_u64().map_err(|e| format!("`transport.paths`: {e}"))?;
                if n == 0 || n > 256 {
                    return Err(format!("`transport.paths` must be between 1 and 256, got {n}"));
                }
                paths = n as u16;
            }
            _ => return Err(format!("unknown field `transport.{k}` for transport `rrps` (known: paths)")),
        }
    }
    Ok(RrpsConfig { cc: tc.cc.clone(), recovery: tc.recovery, header_bytes: tc.header_bytes, paths })
}

fn mprdma(tc: &TransportConfig) -> Result<MprdmaConfig, String> {
    let k = Knobs::new("mprdma", &tc.params, MPRDMA_KNOBS)?;
    let d = MprdmaConfig::defaults(tc.header_bytes);
    let c = MprdmaConfig {
        delta: k.u32_in("delta", d.delta, 1, 1 << 20)?,
        bitmap: k.u32_in("bitmap", d.bitmap, 1, 1 << 24)?,
        paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
        explore_prob: k.f64_in("explore_prob", d.explore_prob, 0.0, 1.0)?,
        grow_explore: k.bool("grow_explore", d.grow_explore)?,
        init_cwnd: k.opt_f64_in("init_cwnd", 1.0, 1e7)?.or(d.init_cwnd),
        min_cwnd: k.f64_in("min_cwnd", d.min_cwnd, 1.0, 1e7)?,
        max_cwnd: k.f64_in("max_cwnd", d.max_cwnd, 1.0, 1e9)?,
        loss_md: k.f64_in("loss_md", d.loss_md, 0.0, 1.0)?,
        ..d
    };
    c.with_recovery(&tc.recovery).map_err(|e| format!("`transport.min_cwnd`, `transport.max_cwnd`: {e}"))
}

fn falcon(tc: &TransportConfig) -> Result<FalconConfig, String> {
    let k = Knobs::new("falcon", &tc.params, FALCON_KNOBS)?;
    let swift_overrides = if tc.cc.kind == CcKind::Swift {
        tc.cc.overrides.clone()
    } else if tc.cc.overrides.is_empty() {
        Vec::new()
    } else {
        return Err(format!(
            "`transport.cc_params`: transport `falcon` runs Swift on each path; set `transport.cc = \"swift\"` to tune it (got `{}`)",
            tc.cc.kind.name()
        ));
    };
    let d = FalconConfig::defaults();
    let c = FalconConfig {
        paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
        select: match k.choice("path_select", &["max-window", "wrr"])? {
            "wrr" => PathSelect::WeightedRoundRobin,
            _ => PathSelect::MaxWindow,
        },
        retx_same_path: k.bool("retx_same_path", d.retx_same_path)?,
        swift_overrides,
        ncwnd_init: k.opt_f64_in("ncwnd_init", 1.0, 1e7)?.or(d.ncwnd_init),
        ncwnd_min: k.f64_in("ncwnd_min", d.ncwnd_min, 0.01, 1e7)?,
        ncwnd_max: k.f64_in("ncwnd_max", d.ncwnd_max, 1.0, 1e7)?,
        ncwnd_target: k.opt_f64_in("ncwnd_target", 0.0, 1e9)?.or(d.ncwnd_target),
        ncwnd_ai: k.f64_in("ncwnd_ai", d.ncwnd_ai, 0.0, 1e6)?,
        ncwnd_beta: k.f64_in("ncwnd_beta", d.ncwnd_beta, 0.0, 1.0)?,
        ncwnd_max_md: k.f64_in("ncwnd_max_md", d.ncwnd_max_md, 0.0, 1.0)?,
        plb: k.bool("plb", d.plb)?,
        plb_rounds: k.u32_in("plb_rounds", d.plb_rounds, 1, 1 << 20)?,
        plb_congested_frac: k.f64_in("plb_congested_frac", d.plb_congested_frac, 0.0, 1.0)?,
        plb_target_mult: k.f64_in("plb_target_mult", d.plb_target_mult, 0.0, 1e6)?,
        ..d
    };
    c.with_recovery(&tc.recovery).map_err(|e| format!("`transport.ncwnd_min`, `transport.ncwnd_max`: {e}"))
}

fn uet(tc: &TransportConfig) -> Result<UetConfig, String> {
    let k = Knobs::new("uet", &tc.params, UET_KNOBS)?;
    if !tc.cc.overrides.is_empty() {
        return Err("`transport.cc_params`: transport `uet` has its own congestion control (NSCC); its knobs are `transport` fields".into());
    }
    let d = UetConfig::defaults();
    let ood_threshold = k.opt_u32_in("ood_threshold", 1, 1 << 24)?;
    let c = UetConfig {
        paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
        ev_select: match k.choice("ev_select", &["reps", "oblivious"])? {
            "oblivious" => EvSelect::Oblivious,
            _ => EvSelect::Reps,
        },
        reps_buffer: k.u32_in("reps_buffer", d.reps_buffer, 1, 1 << 16)?,
        reps_freeze: k.bool("reps_freeze", d.reps_freeze)?,
        reps_freeze_time: k.opt_time("reps_freeze_time")?.unwrap_or(d.reps_freeze_time),
        target_qdelay: k.opt_time("target_qdelay")?.or(d.target_qdelay),
        ood_threshold: ood_threshold.or(d.ood_threshold),
        quick_adapt: k.bool("quick_adapt", d.quick_adapt)?,
        ack_every_bytes: k.u32_in("ack_every_bytes", d.ack_every_bytes as u32, 0, 1 << 30)? as u64,
        network_trims: tc.network_trims,
        ..d
    };
    Ok(c.with_recovery(&tc.recovery))
}

fn eqds(tc: &TransportConfig) -> Result<EqdsConfig, String> {
    let k = Knobs::new("eqds", &tc.params, EQDS_KNOBS)?;
    if !tc.cc.overrides.is_empty() {
        return Err("`transport.cc_params`: transport `eqds` is receiver-driven and has no congestion control to tune".into());
    }
    let d = EqdsConfig::defaults();
    let c = EqdsConfig {
        paths: k.u32_in("paths", d.paths, 1, MAX_PATHS)?,
        credit_spec: k.opt_bytes("credit_spec")?.or(d.credit_spec),
        pull_targets: k.bool("pull_targets", d.pull_targets)?,
        rts: k.bool("rts", d.rts)?,
        ..d
    };
    Ok(c.with_recovery(&tc.recovery))
}

/// Knob names of the `rondo` transport.
pub const RONDO_KNOBS: &[&str] = &[
    "paths",
    "path_selection",
    "probing",
    "scheduler",
    "scheduler_start",
    "tu",
    "q0",
    "tau_q",
    "alpha",
    "alpha_side",
    "gamma",
    "w0",
    "fast_drain",
    "probe_phase",
    "probe_trigger",
    "probe_slack",
    "delay_gain",
    "stable_samples",
    "stable_tol",
    "max_skip",
    "probe_rate",
    "ts_interval",
    "er_threshold",
    "er_mode",
    "ack_bitmap",
    "rtt_floor",
];

fn rondo(tc: &TransportConfig) -> Result<RondoConfig, String> {
    let mut c = RondoConfig::defaults(tc.cc.clone(), tc.recovery, tc.header_bytes).map_err(|e| format!("`transport.cc`: {e}"))?;
    for (k, v) in &tc.params {
        let r: Result<(), String> = (|| {
            match k.as_str() {
                "paths" if v.as_str().is_ok_and(|s| s == "auto") => {
                    c.paths_auto = true;
                    c.paths = 16;
                }
                "paths" => {
                    let n = v.as_u64().map_err(|_| "must be \"auto\" or a number of paths".to_string())?;
                    if n == 0 || n > 256 {
                        return Err(format!("must be \"auto\" or between 1 and 256, got {n}"));
                    }
                    c.paths = n as u16;
                    c.paths_auto = false;
                }
                "path_selection" => c.path_selection = one_of(v.as_str()?, &[("deficit", PathSelection::Deficit), ("random", PathSelection::Random)])?,
                "probing" => {
                    c.probing = v.as_bool()?;
                    c.check_probing()?;
                }
                "scheduler" => c.scheduler = v.as_bool()?,
                "scheduler_start" => c.scheduler_from_first_samples = one_of(v.as_str()?, &[("stable", false), ("first-samples", true)])?,
                "tu" => c.tu = rel_time(v)?,
                "q0" => c.q0 = amount(v)?,
                "tau_q" => c.tau_q = rel_time(v)?,
                "alpha" => c.alpha = unit_interval(v, false)?,
                "alpha_side" => c.alpha_side = alpha_side(v.as_str()?)?,
                "gamma" => c.gamma = unit_interval(v, false)?,
                "w0" => c.w0 = Some(amount(v)?),
                "fast_drain" => c.fast_drain = v.as_nonneg_f64()?,
                "probe_phase" => {
                    let x = v.as_nonneg_f64()?;
                    if x == 0.0 {
                        return Err("must be positive".into());
                    }
                    c.probe_phase = x
                }
                "probe_trigger" => {
                    let n = v.as_u64()?;
                    if n == 0 {
                        return Err("must be at least 1".into());
                    }
                    c.probe_trigger = n.min(u32::MAX as u64) as u32
                }
                "probe_slack" => c.probe_slack = v.as_nonneg_f64()?,
                "delay_gain" => c.delay_gain = unit_interval(v, false)?,
                "stable_samples" => c.stable_samples = v.as_u64()?.min(u32::MAX as u64) as u32,
                "stable_tol" => c.stable_tol = rel_time(v)?,
                "max_skip" => c.max_skip = Some(v.as_u64()?.min(u32::MAX as u64) as u32),
                "probe_rate" => c.probe_rate_unsent = one_of(v.as_str()?, &[("unsent", true), ("line-rate", false)])?,
                "ts_interval" => c.ts_interval = rel_time(v)?,
                "er_threshold" => recovery_knob(&mut c.recovery, "er_threshold", v)?,
                "er_mode" => {
                    (c.er_per_packet, c.er_path_confirm) =
                        one_of(v.as_str()?, &[("per-packet", (true, false)), ("per-path", (true, true)), ("episode", (false, false))])?
                }
                "ack_bitmap" => c.ack_bitmap = v.as_bool()?,
                "rtt_floor" => c.rtt_floor = v.as_bool()?,
                _ => return Err(format!("unknown field for transport `rondo` (known: {})", RONDO_KNOBS.join(", "))),
            }
            Ok(())
        })();
        r.map_err(|e| format!("`transport.{k}`: {e}"))?;
    }
    c.check_recovery().map_err(|e| format!("`transport.recovery`: {e}"))?;
    Ok(c)
}

/// A duration relative to the base RTT: a duration with units (`"10us"`) or a positive multiple
/// of the base RTT.
fn rel_time(v: &Knob) -> Result<RelTime, String> {
    if let Knob::Str(s) = v {
        if let Ok(t) = braid_core::units::parse_duration(s) {
            if t == Time::ZERO {
                return Err("must be positive".into());
            }
            return Ok(RelTime::Abs(t));
        }
    }
    let k = v.as_f64().map_err(|e| format!("{e} (give a multiple of the base RTT, or a duration such as \"10us\")"))?;
    if !(k > 0.0 && k.is_finite()) {
        return Err(format!("must be positive, got {k}"));
    }
    Ok(RelTime::Rtts(k))
}

/// An amount of data: a size with units (`"3KB"`) or a positive number of MTUs.
fn amount(v: &Knob) -> Result<Amount, String> {
    if let Knob::Str(s) = v {
        if let Ok(b) = braid_core::units::parse_size(s) {
            if b == 0 {
                return Err("must be positive".into());
            }
            return Ok(Amount::Bytes(b));
        }
    }
    let k = v.as_f64().map_err(|e| format!("{e} (give a number of MTUs, or a size such as \"3KB\")"))?;
    if !(k > 0.0 && k.is_finite()) {
        return Err(format!("must be positive, got {k}"));
    }
    Ok(Amount::Mtus(k))
}

/// A number in `(0, 1]`, or `[0, 1]` when `zero_ok`.
fn unit_interval(v: &Knob, zero_ok: bool) -> Result<f64, String> {
    let x = v.as_f64()?;
    if !(x <= 1.0 && (x > 0.0 || (zero_ok && x == 0.0))) {
        return Err(format!("must be in {}0, 1], got {x}", if zero_ok { "[" } else { "(" }));
    }
    Ok(x)
}

/// ARCC's `alpha_side`: `"sample"` or `"history"`.
/// The value named `s` among `options`, or an error listing the names.
fn one_of<T: Copy>(s: &str, options: &[(&str, T)]) -> Result<T, String> {
    options.iter().find(|o| o.0 == s).map(|o| o.1).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|o| o.0).collect();
        format!("unknown value `{s}` (known: {})", names.join(", "))
    })
}

fn alpha_side(s: &str) -> Result<AlphaSide, String> {
    one_of(s, &[("sample", AlphaSide::Sample), ("history", AlphaSide::History)])
}

/// Set the loss-recovery knob `key` of `[transport.recovery_params]` (or Rondo's `er_threshold`).
pub fn recovery_knob(r: &mut RecoveryConfig, key: &str, v: &Knob) -> Result<(), String> {
    let pos_time = |v: &Knob| -> Result<Time, String> {
        let t = v.as_time()?;
        if t == Time::ZERO {
            return Err("must be positive".into());
        }
        Ok(t)
    };
    let res: Result<(), String> = (|| {
        match key {
            "rto_min" => r.rto_min = pos_time(v)?,
            "rto_initial" => r.rto_initial = pos_time(v)?,
            "rto_max" => r.rto_max = pos_time(v)?,
            "irn_rto_low" => r.irn_rto_low = pos_time(v)?,
            "irn_rto_high" => r.irn_rto_high = pos_time(v)?,
            "irn_n" => r.irn_n = v.as_u64()? as u32,
            "er_threshold" => {
                let t = v.as_u64()?;
                if t == 0 {
                    return Err("must be at least 1 packet".into());
                }
                r.er_threshold = t as u32
            }
            "reo_frac" => r.reo_frac = v.as_nonneg_f64()?,
            "min_reo" => r.min_reo = v.as_time()?,
            "tlp_factor" => r.tlp_factor = v.as_nonneg_f64()?,
            "tlp_min" => r.tlp_min = v.as_time()?,
            "nak_interval" => r.nak_interval = v.as_time()?,
            "ack_duplicates" => r.ack_duplicates = v.as_bool()?,
            _ => {
                return Err("unknown knob (known: rto_min, rto_initial, rto_max, irn_rto_low, irn_rto_high, irn_n, er_threshold, reo_frac, min_reo, tlp_factor, tlp_min, nak_interval, ack_duplicates)".to_string())
            }
        }
        Ok(())
    })();
    res.map_err(|e| format!("recovery knob `{key}`: {e}"))
}

/// Reads a transport's knobs from `TransportConfig::params`, rejecting unknown names; errors name
/// the field (`transport.paths`) and the transport.
struct Knobs<'a> {
    transport: &'static str,
    params: &'a [(String, Knob)],
}

impl<'a> Knobs<'a> {
    /// Check every knob name against `known`; the error names the field and lists the known ones.
    fn new(transport: &'static str, params: &'a [(String, Knob)], known: &[&str]) -> Result<Knobs<'a>, String> {
        for (k, _) in params {
            if !known.contains(&k.as_str()) {
                return Err(format!("unknown field `transport.{k}` for transport `{transport}` (known: {})", known.join(", ")));
            }
        }
        Ok(Knobs { transport, params })
    }

    fn get(&self, name: &str) -> Option<&'a Knob> {
        self.params.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    fn err(&self, name: &str, e: impl std::fmt::Display) -> String {
        format!("`transport.{name}` (transport `{}`): {e}", self.transport)
    }

    /// An integer in `[lo, hi]`.
    fn u32_in(&self, name: &str, default: u32, lo: u32, hi: u32) -> Result<u32, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => {
                let x = v.as_u64().map_err(|e| self.err(name, e))?;
                if x < lo as u64 || x > hi as u64 {
                    return Err(self.err(name, format!("must be between {lo} and {hi}, got {x}")));
                }
                Ok(x as u32)
            }
        }
    }

    /// An optional integer in `[lo, hi]`.
    fn opt_u32_in(&self, name: &str, lo: u32, hi: u32) -> Result<Option<u32>, String> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.u32_in(name, lo, lo, hi).map(Some)
    }

    /// A real number in `[lo, hi]`.
    fn f64_in(&self, name: &str, default: f64, lo: f64, hi: f64) -> Result<f64, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => {
                let x = v.as_f64().map_err(|e| self.err(name, e))?;
                if !(x.is_finite() && x >= lo && x <= hi) {
                    return Err(self.err(name, format!("must be between {lo} and {hi}, got {x}")));
                }
                Ok(x)
            }
        }
    }

    /// An optional real number in `[lo, hi]`.
    fn opt_f64_in(&self, name: &str, lo: f64, hi: f64) -> Result<Option<f64>, String> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.f64_in(name, lo, lo, hi).map(Some)
    }

    /// An optional duration with units (`"10us"`); zero is rejected.
    fn opt_time(&self, name: &str) -> Result<Option<Time>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => {
                let t = v.as_time().map_err(|e| self.err(name, e))?;
                if t == Time::ZERO {
                    return Err(self.err(name, "must be positive"));
                }
                Ok(Some(t))
            }
        }
    }

    /// An optional size (bytes or a string with units); zero is rejected.
    fn opt_bytes(&self, name: &str) -> Result<Option<u64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => {
                let b = v.as_bytes().map_err(|e| self.err(name, e))?;
                if b == 0 {
                    return Err(self.err(name, "must be positive"));
                }
                Ok(Some(b))
            }
        }
    }

    /// A boolean.
    fn bool(&self, name: &str, default: bool) -> Result<bool, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.as_bool().map_err(|e| self.err(name, e)),
        }
    }

    /// One of `choices` (default the first).
    fn choice(&self, name: &str, choices: &[&'static str]) -> Result<&'static str, String> {
        match self.get(name) {
            None => Ok(choices[0]),
            Some(v) => {
                let s = v.as_str().map_err(|e| self.err(name, e))?;
                choices.iter().copied().find(|c| *c == s).ok_or_else(|| self.err(name, format!("unknown value `{s}` (known: {})", choices.join(", "))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_proto::cc::CcConfig;
    use braid_proto::recovery::RecoveryKind;

    fn tcfg(kind: TransportKind, recovery: RecoveryKind, params: &[(&str, Knob)]) -> TransportConfig {
        TransportConfig {
            kind,
            cc: CcConfig::new(CcKind::Dcqcn),
            recovery: RecoveryConfig::new(recovery),
            header_bytes: 48,
            network_trims: false,
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        }
    }

    #[test]
    fn knobs_reject_unknown_and_bad_values() {
        let p = vec![("paths".to_string(), Knob::Int(4)), ("bogus".to_string(), Knob::Int(1))];
        let e = Knobs::new("falcon", &p, &["paths"]).err().unwrap();
        assert!(e.contains("transport.bogus") && e.contains("falcon") && e.contains("paths"), "{e}");
        let p = vec![("paths".to_string(), Knob::Int(0))];
        let k = Knobs::new("falcon", &p, &["paths"]).unwrap();
        let e = k.u32_in("paths", 4, 1, 64).unwrap_err();
        assert!(e.contains("transport.paths"), "{e}");
    }

    #[test]
    fn mprdma_unknown_knob_is_an_error() {
        let t = tcfg(TransportKind::Mprdma, RecoveryKind::EarlyRecovery, &[("probing", Knob::Bool(true))]);
        let e = mprdma(&t).unwrap_err();
        assert!(e.contains("transport.probing") && e.contains("mprdma"), "{e}");
    }

    #[test]
    fn mprdma_knobs_reach_the_config() {
        let t = tcfg(TransportKind::Mprdma, RecoveryKind::EarlyRecovery, &[("init_cwnd", Knob::Int(4)), ("paths", Knob::Int(8))]);
        let c = mprdma(&t).unwrap();
        assert_eq!((c.init_cwnd, c.paths, c.recovery.er_threshold, c.header_bytes), (Some(4.0), 8, 64, 48));
    }

    #[test]
    fn falcon_cc_params_need_swift() {
        let mut t = tcfg(TransportKind::Falcon, RecoveryKind::RackTlpPerPath, &[]);
        t.cc = CcConfig::new(CcKind::Dcqcn).with("ai", Knob::Float(2.0));
        assert!(falcon(&t).is_err());
        t.cc = CcConfig::new(CcKind::Swift).with("ai", Knob::Float(2.0));
        let c = falcon(&t).unwrap();
        assert_eq!(c.swift_overrides.len(), 1);
        let t = tcfg(TransportKind::Falcon, RecoveryKind::RackTlpPerPath, &[("path_select", Knob::Str("best".into()))]);
        let e = falcon(&t).unwrap_err();
        assert!(e.contains("transport.path_select"), "{e}");
    }

    #[test]
    fn uet_and_eqds_defaults_are_native() {
        let c = uet(&tcfg(TransportKind::Uet, RecoveryKind::EarlyRecovery, &[])).unwrap();
        assert_eq!(c.recovery.rto_min, Time::from_us(100));
        let p = [("paths", Knob::Int(8)), ("credit_spec", Knob::Str("100KB".into()))];
        let c = eqds(&tcfg(TransportKind::Eqds, RecoveryKind::EarlyRecovery, &p)).unwrap();
        assert_eq!((c.paths, c.credit_spec, c.recovery.er_threshold), (8, Some(100_000), u32::MAX));
    }
}
