//! Braid's metrics and output writers.
//!
//! - [`FlowRecord`] and [`write_flows_csv`]: one row per flow, times in nanoseconds (the output
//!   contract of `docs/metrics.md`).
//! - [`Summary`]: an ordered set of named values written as `summary.json`, with stable formatting
//!   so the same run gives the same bytes.
//! - [`jain_index`]: Jain's fairness index.
//!
//! Percentiles follow Braid's one rule, nearest rank, in `braid_core::percentile` (`None` for no
//! data; the callers writing `summary.json` print 0 for it). `docs/metrics.md` defines every
//! printed metric.

use std::fmt::Write as _;
use std::io::{self, Write};

/// One flow's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowRecord {
    /// Flow id.
    pub id: u32,
    /// Source host index.
    pub src: u32,
    /// Destination host index.
    pub dst: u32,
    /// Message size in bytes.
    pub size_bytes: u64,
    /// Start time (ns).
    pub start_ns: f64,
    /// Completion time (ns), if completed.
    pub finish_ns: Option<f64>,
    /// Braid's ideal FCT (ns): the flow alone on its best path (`docs/metrics.md`).
    pub ideal_fct_ns: f64,
    /// The LCMP artifact's ideal ("standalone") FCT (ns), `None` when unreachable
    /// (`docs/metrics.md`, two ideal FCTs).
    pub ideal_fct_artifact_ns: Option<f64>,
    /// Retransmitted packets.
    pub retransmissions: u64,
    /// Spurious retransmissions (copies that arrived although the original had).
    pub spurious_retransmissions: u64,
    /// Largest OOD seen at the receiver.
    pub max_ood: u32,
    /// RTO expiries.
    pub timeouts: u64,
    /// The connection it was sent on (its own unless connections are shared).
    pub conn: u32,
    /// Its flow group (`main` unless the workload put it elsewhere).
    pub group: String,
    /// The transport it ran (the kind, e.g. `rondo`, `roce`).
    pub transport: String,
}

impl FlowRecord {
    /// FCT in ns.
    pub fn fct_ns(&self) -> Option<f64> {
        self.finish_ns.map(|f| f - self.start_ns)
    }
    /// FCT / Braid's ideal FCT.
    pub fn slowdown(&self) -> Option<f64> {
        self.fct_ns().map(|f| if self.ideal_fct_ns > 0.0 { f / self.ideal_fct_ns } else { 1.0 })
    }
    /// FCT / the artifact's ideal FCT, clamped at ≥ 1 as the artifact's analysis does.
    pub fn slowdown_artifact(&self) -> Option<f64> {
        let ideal = self.ideal_fct_artifact_ns?;
        self.fct_ns().map(|f| (f / ideal.max(1.0)).max(1.0))
    }
}

/// Format a float with up to 3 decimals, trailing zeros trimmed (stable across runs).
pub fn fmt_f64(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Write `flows.csv`.
pub fn write_flows_csv<W: Write>(w: &mut W, flows: &[FlowRecord]) -> io::Result<()> {
    writeln!(
        w,
        "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retransmissions,spurious_retransmissions,max_ood,timeouts,ideal_fct_artifact_ns,slowdown_artifact,conn,group,transport"
    )?;
    for f in flows {
        let (finish, fct, slow) = match (f.finish_ns, f.fct_ns(), f.slowdown()) {
            (Some(a), Some(b), Some(c)) => (fmt_f64(a), fmt_f64(b), fmt_f64(c)),
            _ => (String::new(), String::new(), String::new()),
        };
        let ideal_a = f.ideal_fct_artifact_ns.map(fmt_f64).unwrap_or_default();
        let slow_a = f.slowdown_artifact().map(fmt_f64).unwrap_or_default();
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f.id,
            f.src,
            f.dst,
            f.size_bytes,
            fmt_f64(f.start_ns),
            finish,
            fct,
            fmt_f64(f.ideal_fct_ns),
            slow,
            f.retransmissions,
            f.spurious_retransmissions,
            f.max_ood,
            f.timeouts,
            ideal_a,
            slow_a,
            f.conn,
            f.group,
            f.transport
        )?;
    }
    Ok(())
}

/// A JSON value of a summary.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i128),
    /// A float (NaN/∞ are written as null).
    Float(f64),
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// A nested object, in insertion order.
    Obj(Vec<(String, Value)>),
    /// A list (written on one line).
    List(Vec<Value>),
}

/// The headline numbers of a run, in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Fields.
    pub fields: Vec<(String, Value)>,
}

impl Summary {
    /// Add or replace a field.
    pub fn set(&mut self, key: &str, v: Value) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.0 == key) {
            f.1 = v;
        } else {
            self.fields.push((key.to_string(), v));
        }
    }
    /// Add an integer.
    pub fn int(&mut self, key: &str, v: impl Into<i128>) {
        self.set(key, Value::Int(v.into()));
    }
    /// Add a float.
    pub fn float(&mut self, key: &str, v: f64) {
        self.set(key, Value::Float(v));
    }
    /// Add a string.
    pub fn str(&mut self, key: &str, v: &str) {
        self.set(key, Value::Str(v.to_string()));
    }
    /// Look a field up.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.iter().find(|f| f.0 == key).map(|f| &f.1)
    }
    /// The JSON text.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        write_obj(&mut s, &self.fields, 0);
        s.push('\n');
        s
    }
}

fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn write_obj(s: &mut String, fields: &[(String, Value)], indent: usize) {
    s.push_str("{\n");
    for (i, (k, v)) in fields.iter().enumerate() {
        s.push_str(&"  ".repeat(indent + 1));
        s.push_str(&escape(k));
        s.push_str(": ");
        match v {
            Value::Int(x) => {
                let _ = write!(s, "{x}");
            }
            Value::Float(x) => {
                if x.is_finite() {
                    // JSON numbers: plain decimal, stable.
                    let _ = write!(s, "{}", fmt_f64(*x));
                } else {
                    s.push_str("null");
                }
            }
            Value::Str(x) => s.push_str(&escape(x)),
            Value::Bool(b) => {
                let _ = write!(s, "{b}");
            }
            Value::Obj(o) => write_obj(s, o, indent + 1),
            Value::List(l) => write_list(s, l),
        }
        if i + 1 < fields.len() {
            s.push(',');
        }
        s.push('\n');
    }
    s.push_str(&"  ".repeat(indent));
    s.push('}');
}

/// A list of scalars on one line (`[1, 2, "x"]`; nested objects as `{…}` on one line too).
fn write_list(s: &mut String, l: &[Value]) {
    s.push('[');
    for (i, v) in l.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        match v {
            Value::Int(x) => {
                let _ = write!(s, "{x}");
            }
            Value::Float(x) if x.is_finite() => s.push_str(&fmt_f64(*x)),
            Value::Float(_) => s.push_str("null"),
            Value::Str(x) => s.push_str(&escape(x)),
            Value::Bool(b) => {
                let _ = write!(s, "{b}");
            }
            Value::List(inner) => write_list(s, inner),
            Value::Obj(o) => {
                let mut t = String::new();
                write_obj(&mut t, o, 0);
                s.push_str(&t.replace('\n', " "));
            }
        }
    }
    s.push(']');
}

/// Jain's fairness index of `x`: (Σx)² / (n · Σx²); 1 when all equal.
pub fn jain_index(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (n * s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain() {
        assert!((jain_index(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn summary_json_is_stable() {
        let mut s = Summary::default();
        s.str("scenario", "q\"x");
        s.int("seed", 1);
        s.float("slowdown", 1.25);
        s.float("nan", f64::NAN);
        assert_eq!(s.to_json(), "{\n  \"scenario\": \"q\\\"x\",\n  \"seed\": 1,\n  \"slowdown\": 1.25,\n  \"nan\": null\n}\n");
    }
}
