//! Parsing of quantities written with units, as scenario files write them.
//!
//! - Durations: `ps`, `ns`, `us` (or `µs`), `ms`, `s` — `"10us"`, `"2.5ms"`.
//! - Sizes: `B`, `KB`/`MB`/`GB` (decimal: 10^3, 10^6, 10^9) and `KiB`/`MiB`/`GiB` (binary) — `"1.2MB"`.
//! - Rates: `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps` — `"100Gbps"`.
//!
//! Negative numbers, NaN and missing or unknown units are errors with a message that says why.

use crate::time::{Rate, Time};

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
        })
        .unwrap_or(s.len());
    // An 'e' that starts a unit (none of ours do) would be mis-split; our units never start with e/E.
    let (num, unit) = s.split_at(end);
    if num.is_empty() {
        return Err(format!("`{s}` does not start with a number"));
    }
    let v: f64 = num.parse().map_err(|_| format!("`{num}` is not a number (in `{s}`)"))?;
    if !v.is_finite() {
        return Err(format!("`{s}` is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("`{s}` is negative"));
    }
    Ok((v, unit.trim()))
}

/// Parse a duration such as `"10us"` or `"2.5ms"`.
pub fn parse_duration(s: &str) -> Result<Time, String> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        "" => return Err(format!("duration `{s}` has no unit (use ps, ns, us, ms or s)")),
        u => return Err(format!("unknown duration unit `{u}` in `{s}` (use ps, ns, us, ms or s)")),
    };
    Ok(Time::from_ps((v * scale).round() as u64))
}

/// The error for a size given as a bare number `value` (for field `field`, or unnamed when
/// empty): every quantity needs its unit, as durations and rates do.
pub fn bare_size_error(field: &str, value: &str) -> String {
    let what = if field.is_empty() { String::new() } else { format!("`{field}` = {value}: ") };
    format!("{what}a size needs a unit: write \"{value}B\" for bytes (or \"{value}KB\", \"{value}MB\", \"{value}KiB\", …); a bare number is refused")
}

/// Parse a size in bytes such as `"1.2MB"`, `"4KiB"` or `"1000B"`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "B" | "" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => {
            return Err(format!(
                "unknown size unit `{u}` in `{s}` (use B, KB, MB, GB, KiB, MiB, GiB)"
            ))
        }
    };
    Ok((v * scale).round() as u64)
}

/// Parse a rate such as `"100Gbps"`.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (v, unit) = split_number(s)?;
    let scale = match unit {
        "bps" => 1.0,
        "Kbps" | "kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        "" => return Err(format!("rate `{s}` has no unit (use bps, Kbps, Mbps, Gbps, Tbps)")),
        u => {
            return Err(format!(
                "unknown rate unit `{u}` in `{s}` (use bps, Kbps, Mbps, Gbps, Tbps)"
            ))
        }
    };
    Ok(Rate((v * scale).round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(parse_duration("10us").unwrap(), Time::from_us(10));
        assert_eq!(parse_duration("2.5ms").unwrap(), Time::from_us(2500));
        assert_eq!(parse_duration("0ns").unwrap(), Time::ZERO);
        assert_eq!(parse_size("1.2MB").unwrap(), 1_200_000);
        assert_eq!(parse_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_rate("100Gbps").unwrap(), Rate::from_gbps(100));
        assert_eq!(parse_rate("2.5Gbps").unwrap(), Rate(2_500_000_000));
    }

    #[test]
    fn rejects_bad_quantities() {
        assert!(parse_duration("10").unwrap_err().contains("no unit"));
        assert!(parse_duration("-1us").unwrap_err().contains("negative"));
        assert!(parse_rate("100Gb").unwrap_err().contains("unknown rate unit"));
        assert!(parse_size("abc").is_err());
    }
}

/// A scenario knob's value, as read from a scenario file, before it is given a meaning.
///
/// Protocol configurations (`braid-proto`) accept knobs by name through an `apply_knob(key, &Knob)`
/// method, so they need no serialisation framework; unknown names are errors.
#[derive(Clone, Debug, PartialEq)]
pub enum Knob {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string (possibly a quantity with units, such as `"10us"`).
    Str(String),
}

impl Knob {
    /// The value as a float (integers convert; strings parse as plain numbers).
    pub fn as_f64(&self) -> Result<f64, String> {
        match self {
            Knob::Int(i) => Ok(*i as f64),
            Knob::Float(f) => Ok(*f),
            Knob::Str(s) => s.trim().parse().map_err(|_| format!("`{s}` is not a number")),
            Knob::Bool(b) => Err(format!("expected a number, got `{b}`")),
        }
    }
    /// The value as a non-negative float.
    pub fn as_nonneg_f64(&self) -> Result<f64, String> {
        let v = self.as_f64()?;
        if !(v >= 0.0 && v.is_finite()) {
            return Err(format!("must be a non-negative number, got {v}"));
        }
        Ok(v)
    }
    /// The value as a non-negative integer.
    pub fn as_u64(&self) -> Result<u64, String> {
        match self {
            Knob::Int(i) if *i >= 0 => Ok(*i as u64),
            Knob::Int(i) => Err(format!("must be non-negative, got {i}")),
            Knob::Float(f) if *f >= 0.0 && f.fract() == 0.0 => Ok(*f as u64),
            Knob::Str(s) => {
                s.trim().parse().map_err(|_| format!("`{s}` is not a non-negative integer"))
            }
            other => Err(format!("expected a non-negative integer, got {other:?}")),
        }
    }
    /// The value as a boolean.
    pub fn as_bool(&self) -> Result<bool, String> {
        match self {
            Knob::Bool(b) => Ok(*b),
            Knob::Str(s) if s == "true" => Ok(true),
            Knob::Str(s) if s == "false" => Ok(false),
            other => Err(format!("expected true or false, got {other:?}")),
        }
    }
    /// The value as a string.
    pub fn as_str(&self) -> Result<&str, String> {
        match self {
            Knob::Str(s) => Ok(s),
            other => Err(format!("expected a string, got {other:?}")),
        }
    }
    /// The value as a duration with units (`"10us"`).
    pub fn as_time(&self) -> Result<Time, String> {
        parse_duration(self.as_str()?)
    }
    /// The value as a rate with units (`"100Gbps"`).
    pub fn as_rate(&self) -> Result<Rate, String> {
        parse_rate(self.as_str()?)
    }
    /// The value as a size: a string with units (`"1.2MB"`, `"64B"`), or 0. A bare number is
    /// refused with the unit it needs named ([`bare_size_error`]): `size = 1` is one byte or a
    /// typo for one megabyte, and a scenario must say which.
    pub fn as_bytes(&self) -> Result<u64, String> {
        match self {
            Knob::Str(s) => parse_size(s),
            Knob::Int(0) => Ok(0),
            Knob::Int(n) => Err(bare_size_error("", &n.to_string())),
            Knob::Float(f) => Err(bare_size_error("", &f.to_string())),
            other => Err(format!("expected a size with units such as \"4KB\", got {other:?}")),
        }
    }
}
