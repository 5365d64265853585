//! Reading a transport's `[transport]` knobs into its typed configuration: the helpers every
//! [`Transport::read_config`](super::Transport::read_config) uses. Strings with units (`"128KB"`, `"10us"`),
//! numbers and enum names are parsed with `braid_core`'s unit parsers; errors name the scenario
//! field (`transport.paths`) and the transport.

use braid_core::{Knob, Time};

use super::rondo::{Amount, RelTime};
use crate::recovery::RecoveryConfig;

/// A duration relative to the base RTT: a duration with units (`"10us"`) or a positive multiple
/// of the base RTT.
pub fn rel_time(v: &Knob) -> Result<RelTime, String> {
    if let Knob::Str(s) = v {
        if let Ok(t) = braid_core::units::parse_duration(s) {
            if t == Time::ZERO {
                return Err("must be positive".into());
            }
            return Ok(RelTime::Abs(t));
        }
    }
    let k = v.as_f64().map_err(|e| {
        format!("{e} (give a multiple of the base RTT, or a duration such as \"10us\")")
    })?;
    if !(k > 0.0 && k.is_finite()) {
        return Err(format!("must be positive, got {k}"));
    }
    Ok(RelTime::Rtts(k))
}

/// An amount of data: a size with units (`"3KB"`) or a positive number of MTUs.
pub fn amount(v: &Knob) -> Result<Amount, String> {
    if let Knob::Str(s) = v {
        if let Ok(b) = braid_core::units::parse_size(s) {
            if b == 0 {
                return Err("must be positive".into());
            }
            return Ok(Amount::Bytes(b));
        }
    }
    let k = v
        .as_f64()
        .map_err(|e| format!("{e} (give a number of MTUs, or a size such as \"3KB\")"))?;
    if !(k > 0.0 && k.is_finite()) {
        return Err(format!("must be positive, got {k}"));
    }
    Ok(Amount::Mtus(k))
}

/// A number in `(0, 1]`, or `[0, 1]` when `zero_ok`.
pub fn unit_interval(v: &Knob, zero_ok: bool) -> Result<f64, String> {
    let x = v.as_f64()?;
    if !(x <= 1.0 && (x > 0.0 || (zero_ok && x == 0.0))) {
        return Err(format!("must be in {}0, 1], got {x}", if zero_ok { "[" } else { "(" }));
    }
    Ok(x)
}

/// The value named `s` among `options`, or an error listing the names.
pub fn one_of<T: Copy>(s: &str, options: &[(&str, T)]) -> Result<T, String> {
    options.iter().find(|o| o.0 == s).map(|o| o.1).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|o| o.0).collect();
        format!("unknown value `{s}` (known: {})", names.join(", "))
    })
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
pub struct Knobs<'a> {
    transport: &'static str,
    params: &'a [(String, Knob)],
}

impl<'a> Knobs<'a> {
    /// Check every knob name against `known`; the error names the field and lists the known ones.
    pub fn new(
        transport: &'static str,
        params: &'a [(String, Knob)],
        known: &[&str],
    ) -> Result<Knobs<'a>, String> {
        for (k, _) in params {
            if !known.contains(&k.as_str()) {
                return Err(format!(
                    "unknown field `transport.{k}` for transport `{transport}` (known: {})",
                    known.join(", ")
                ));
            }
        }
        Ok(Knobs { transport, params })
    }

    /// The value of knob `name` (the last one given), if any.
    pub fn get(&self, name: &str) -> Option<&'a Knob> {
        self.params.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// An error about knob `name` that names the field and the transport.
    pub fn err(&self, name: &str, e: impl std::fmt::Display) -> String {
        format!("`transport.{name}` (transport `{}`): {e}", self.transport)
    }

    /// An integer in `[lo, hi]`.
    pub fn u32_in(&self, name: &str, default: u32, lo: u32, hi: u32) -> Result<u32, String> {
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
    pub fn opt_u32_in(&self, name: &str, lo: u32, hi: u32) -> Result<Option<u32>, String> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.u32_in(name, lo, lo, hi).map(Some)
    }

    /// A real number in `[lo, hi]`.
    pub fn f64_in(&self, name: &str, default: f64, lo: f64, hi: f64) -> Result<f64, String> {
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
    pub fn opt_f64_in(&self, name: &str, lo: f64, hi: f64) -> Result<Option<f64>, String> {
        if self.get(name).is_none() {
            return Ok(None);
        }
        self.f64_in(name, lo, lo, hi).map(Some)
    }

    /// An optional duration with units (`"10us"`); zero is rejected.
    pub fn opt_time(&self, name: &str) -> Result<Option<Time>, String> {
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
    pub fn opt_bytes(&self, name: &str) -> Result<Option<u64>, String> {
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
    pub fn bool(&self, name: &str, default: bool) -> Result<bool, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v.as_bool().map_err(|e| self.err(name, e)),
        }
    }

    /// One of `choices` (default the first).
    pub fn choice(&self, name: &str, choices: &[&'static str]) -> Result<&'static str, String> {
        match self.get(name) {
            None => Ok(choices[0]),
            Some(v) => {
                let s = v.as_str().map_err(|e| self.err(name, e))?;
                choices.iter().copied().find(|c| *c == s).ok_or_else(|| {
                    self.err(name, format!("unknown value `{s}` (known: {})", choices.join(", ")))
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CcConfig, CcKind};
    use crate::recovery::RecoveryKind;
    use crate::transport::{
        EqdsSender, FalconSender, MprdmaSender, Transport, TransportConfig, TransportKind,
        UetSender,
    };

    fn mprdma(t: &TransportConfig) -> Result<crate::transport::MprdmaConfig, String> {
        MprdmaSender::read_config(t)
    }
    fn falcon(t: &TransportConfig) -> Result<crate::transport::FalconConfig, String> {
        FalconSender::read_config(t)
    }
    fn uet(t: &TransportConfig) -> Result<crate::transport::UetConfig, String> {
        UetSender::read_config(t)
    }
    fn eqds(t: &TransportConfig) -> Result<crate::transport::EqdsConfig, String> {
        EqdsSender::read_config(t)
    }

    fn tcfg(
        kind: TransportKind,
        recovery: RecoveryKind,
        params: &[(&str, Knob)],
    ) -> TransportConfig {
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
        assert!(
            e.contains("transport.bogus") && e.contains("falcon") && e.contains("paths"),
            "{e}"
        );
        let p = vec![("paths".to_string(), Knob::Int(0))];
        let k = Knobs::new("falcon", &p, &["paths"]).unwrap();
        let e = k.u32_in("paths", 4, 1, 64).unwrap_err();
        assert!(e.contains("transport.paths"), "{e}");
    }

    #[test]
    fn mprdma_unknown_knob_is_an_error() {
        let t = tcfg(
            TransportKind::Mprdma,
            RecoveryKind::EarlyRecovery,
            &[("probing", Knob::Bool(true))],
        );
        let e = mprdma(&t).unwrap_err();
        assert!(e.contains("transport.probing") && e.contains("mprdma"), "{e}");
    }

    #[test]
    fn mprdma_knobs_reach_the_config() {
        let t = tcfg(
            TransportKind::Mprdma,
            RecoveryKind::EarlyRecovery,
            &[("init_cwnd", Knob::Int(4)), ("paths", Knob::Int(8))],
        );
        let c = mprdma(&t).unwrap();
        assert_eq!(
            (c.init_cwnd, c.paths, c.recovery.er_threshold, c.header_bytes),
            (Some(4.0), 8, 64, 48)
        );
    }

    #[test]
    fn falcon_cc_params_need_swift() {
        let mut t = tcfg(TransportKind::Falcon, RecoveryKind::RackTlpPerPath, &[]);
        t.cc = CcConfig::new(CcKind::Dcqcn).with("ai", Knob::Float(2.0));
        assert!(falcon(&t).is_err());
        t.cc = CcConfig::new(CcKind::Swift).with("ai", Knob::Float(2.0));
        let c = falcon(&t).unwrap();
        assert_eq!(c.swift_overrides.len(), 1);
        let t = tcfg(
            TransportKind::Falcon,
            RecoveryKind::RackTlpPerPath,
            &[("path_select", Knob::Str("best".into()))],
        );
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
