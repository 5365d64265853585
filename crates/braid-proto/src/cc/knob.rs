//! Helpers that turn a scenario [`Knob`] into a checked parameter value, with error messages that
//! name the knob and the algorithm (`knob `t_dec` for dcqcn: must be positive, got 0ps`).

use braid_core::{Knob, Rate, Time};

/// `Err` for an unknown knob name, listing the known ones.
pub(crate) fn unknown(algo: &str, key: &str, known: &[&str]) -> String {
    format!("unknown knob `{key}` for {algo} (known: {})", known.join(", "))
}

fn bad(algo: &str, key: &str, msg: impl std::fmt::Display) -> String {
    format!("knob `{key}` for {algo}: {msg}")
}

/// A duration with units that must be strictly positive.
pub(crate) fn pos_time(algo: &str, key: &str, v: &Knob) -> Result<Time, String> {
    let t = v
        .as_time()
        .map_err(|e| bad(algo, key, format!("expected a duration such as \"10us\": {e}")))?;
    if t == Time::ZERO {
        return Err(bad(algo, key, "must be positive, got 0"));
    }
    Ok(t)
}

/// A duration with units that may be zero.
pub(crate) fn nonneg_time(algo: &str, key: &str, v: &Knob) -> Result<Time, String> {
    v.as_time().map_err(|e| bad(algo, key, format!("expected a duration such as \"10us\": {e}")))
}

/// A rate with units that must be strictly positive.
pub(crate) fn pos_rate(algo: &str, key: &str, v: &Knob) -> Result<Rate, String> {
    let r = v
        .as_rate()
        .map_err(|e| bad(algo, key, format!("expected a rate such as \"100Mbps\": {e}")))?;
    if r.bps() == 0 {
        return Err(bad(algo, key, "must be positive, got 0bps"));
    }
    Ok(r)
}

/// A rate with units that may be zero.
pub(crate) fn nonneg_rate(algo: &str, key: &str, v: &Knob) -> Result<Rate, String> {
    v.as_rate().map_err(|e| bad(algo, key, format!("expected a rate such as \"100Mbps\": {e}")))
}

/// A finite float in `[lo, hi]`, or `(lo, hi]` when `lo_open`.
pub(crate) fn float_in(
    algo: &str,
    key: &str,
    v: &Knob,
    lo: f64,
    lo_open: bool,
    hi: f64,
) -> Result<f64, String> {
    let x = v.as_f64().map_err(|e| bad(algo, key, e))?;
    let lo_ok = if lo_open { x > lo } else { x >= lo };
    if !x.is_finite() || !lo_ok || x > hi {
        let l = if lo_open { "(" } else { "[" };
        let h = if hi.is_infinite() { "inf)".to_string() } else { format!("{hi}]") };
        return Err(bad(algo, key, format!("must be in {l}{lo}, {h}, got {x}")));
    }
    Ok(x)
}

/// A strictly positive finite float.
pub(crate) fn pos_float(algo: &str, key: &str, v: &Knob) -> Result<f64, String> {
    float_in(algo, key, v, 0.0, true, f64::INFINITY)
}

/// A non-negative integer that fits in `u32`.
pub(crate) fn uint32(algo: &str, key: &str, v: &Knob) -> Result<u32, String> {
    let n = v.as_u64().map_err(|e| bad(algo, key, e))?;
    u32::try_from(n).map_err(|_| bad(algo, key, format!("too large: {n}")))
}

/// A boolean.
pub(crate) fn boolean(algo: &str, key: &str, v: &Knob) -> Result<bool, String> {
    v.as_bool().map_err(|e| bad(algo, key, e))
}

/// A size in bytes (plain integer or `"1.2MB"`) that must be strictly positive.
pub(crate) fn pos_bytes(algo: &str, key: &str, v: &Knob) -> Result<u64, String> {
    let b = v.as_bytes().map_err(|e| bad(algo, key, e))?;
    if b == 0 {
        return Err(bad(algo, key, "must be positive, got 0 bytes"));
    }
    Ok(b)
}

/// A cross-field consistency error.
pub(crate) fn inconsistent(algo: &str, msg: impl std::fmt::Display) -> String {
    format!("{algo} configuration: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_knob_and_algo() {
        let e = pos_time("dcqcn", "t_dec", &Knob::Str("0us".into())).unwrap_err();
        assert!(e.contains("`t_dec`") && e.contains("dcqcn"), "{e}");
        let e = pos_time("dcqcn", "t_dec", &Knob::Int(5)).unwrap_err();
        assert!(e.contains("duration"), "{e}");
        let e = float_in("hpcc", "eta", &Knob::Float(1.5), 0.0, true, 1.0).unwrap_err();
        assert!(e.contains("`eta`") && e.contains("(0, 1]"), "{e}");
        let e = float_in("hpcc", "eta", &Knob::Float(f64::NAN), 0.0, true, 1.0).unwrap_err();
        assert!(e.contains("`eta`"), "{e}");
        assert!(uint32("x", "n", &Knob::Int(-1)).is_err());
        assert!(uint32("x", "n", &Knob::Int(1 << 40)).is_err());
        assert!(pos_rate("x", "r", &Knob::Str("-5Mbps".into())).is_err());
        assert_eq!(pos_bytes("x", "w", &Knob::Str("1.5KB".into())).unwrap(), 1500);
        assert!(boolean("x", "b", &Knob::Int(1)).is_err());
        let u = unknown("dcqcn", "foo", &["a", "b"]);
        assert_eq!(u, "unknown knob `foo` for dcqcn (known: a, b)");
    }
}
