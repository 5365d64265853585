//! Reading a TOML table field by field, with errors that name the field, and a check that no
//! unknown field was given (unknown fields are errors, never silently ignored).

use std::cell::RefCell;

use braid_core::units::{parse_duration, parse_rate, parse_size};
use braid_core::{Knob, Rate, Time};
use toml::{Table, Value};

/// A table being read; remembers which keys were used.
pub struct Fields<'a> {
    /// Dotted path of the table (`network`, `transport.cc_params`).
    pub path: String,
    table: &'a Table,
    used: RefCell<Vec<String>>,
}

impl<'a> Fields<'a> {
    /// Wrap a table found at `path`.
    pub fn new(path: &str, table: &'a Table) -> Fields<'a> {
        Fields { path: path.to_string(), table, used: RefCell::new(Vec::new()) }
    }

    /// The full dotted name of `key`.
    pub fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    fn raw(&self, key: &str) -> Option<&'a Value> {
        let v = self.table.get(key);
        if v.is_some() {
            self.used.borrow_mut().push(key.to_string());
        }
        v
    }

    /// Whether the key is present (marks it used).
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// A string field.
    pub fn str(&self, key: &str) -> Result<Option<&'a str>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(format!("`{}` must be a string, got {}", self.name(key), v.type_str())),
        }
    }

    /// A required string field.
    pub fn req_str(&self, key: &str) -> Result<&'a str, String> {
        self.str(key)?.ok_or_else(|| format!("`{}` is required", self.name(key)))
    }

    /// A duration with units (`"10us"`).
    pub fn time(&self, key: &str) -> Result<Option<Time>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => {
                parse_duration(s).map(Some).map_err(|e| format!("`{}`: {e}", self.name(key)))
            }
            Some(Value::Integer(0)) => Ok(Some(Time::ZERO)),
            Some(v) => Err(format!(
                "`{}` must be a duration with units such as \"10us\", got {}",
                self.name(key),
                v
            )),
        }
    }

    /// A positive rate with units (`"100Gbps"`).
    pub fn rate(&self, key: &str) -> Result<Option<Rate>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => {
                let r = parse_rate(s).map_err(|e| format!("`{}`: {e}", self.name(key)))?;
                if r.bps() == 0 {
                    return Err(format!(
                        "`{}` must be a positive rate, got \"{s}\"",
                        self.name(key)
                    ));
                }
                Ok(Some(r))
            }
            Some(v) => Err(format!(
                "`{}` must be a rate with units such as \"100Gbps\", got {}",
                self.name(key),
                v
            )),
        }
    }

    /// A size in bytes: a string with units (`"1.2MB"`, `"1000B"`), or 0. As for every
    /// quantity (durations, rates), a bare number is refused with the unit it needs named.
    pub fn size(&self, key: &str) -> Result<Option<u64>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Integer(0)) => Ok(Some(0)),
            Some(Value::Integer(i)) => {
                Err(braid_core::units::bare_size_error(&self.name(key), &i.to_string()))
            }
            Some(Value::String(s)) => {
                parse_size(s).map(Some).map_err(|e| format!("`{}`: {e}", self.name(key)))
            }
            Some(v) => Err(format!(
                "`{}` must be a size with units such as \"4KB\", got {}",
                self.name(key),
                v
            )),
        }
    }

    /// A non-negative integer.
    pub fn uint(&self, key: &str) -> Result<Option<u64>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if *i >= 0 => Ok(Some(*i as u64)),
            Some(v) => {
                Err(format!("`{}` must be a non-negative integer, got {}", self.name(key), v))
            }
        }
    }

    /// A positive integer.
    pub fn pos_uint(&self, key: &str) -> Result<Option<u64>, String> {
        match self.uint(key)? {
            Some(0) => Err(format!("`{}` must be at least 1", self.name(key))),
            x => Ok(x),
        }
    }

    /// A float (integers accepted).
    pub fn float(&self, key: &str) -> Result<Option<f64>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Float(f)) if f.is_finite() => Ok(Some(*f)),
            Some(Value::Integer(i)) => Ok(Some(*i as f64)),
            Some(v) => Err(format!("`{}` must be a number, got {}", self.name(key), v)),
        }
    }

    /// A probability in [0, 1].
    pub fn prob(&self, key: &str) -> Result<Option<f64>, String> {
        match self.float(key)? {
            Some(p) if !(0.0..=1.0).contains(&p) => {
                Err(format!("`{}` must be between 0 and 1, got {p}", self.name(key)))
            }
            x => Ok(x),
        }
    }

    /// A boolean.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(format!("`{}` must be true or false, got {}", self.name(key), v)),
        }
    }

    /// A sub-table.
    pub fn table(&self, key: &str) -> Result<Option<Fields<'a>>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Table(t)) => Ok(Some(Fields::new(&self.name(key), t))),
            Some(v) => Err(format!("`{}` must be a table, got {}", self.name(key), v.type_str())),
        }
    }

    /// An array.
    pub fn array(&self, key: &str) -> Result<Option<&'a Vec<Value>>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(format!("`{}` must be an array, got {}", self.name(key), v.type_str())),
        }
    }

    /// Every field not yet used, as knobs (for tables passed on to a library by name).
    pub fn rest_as_knobs(&self) -> Result<Vec<(String, Knob)>, String> {
        let used = self.used.borrow().clone();
        let mut out = Vec::new();
        for (k, v) in self.table {
            if used.contains(k) {
                continue;
            }
            out.push((k.clone(), to_knob(&self.name(k), v)?));
            self.used.borrow_mut().push(k.clone());
        }
        Ok(out)
    }

    /// Fail on any field that was not read.
    pub fn finish(&self, known: &[&str]) -> Result<(), String> {
        let used = self.used.borrow();
        for k in self.table.keys() {
            if !used.contains(k) {
                let mut msg = if self.path.is_empty() {
                    format!("unknown table or field `{k}` at the top of the scenario")
                } else {
                    format!("unknown field `{}`", self.name(k))
                };
                if !known.is_empty() {
                    let of = if self.path.is_empty() {
                        "known"
                    } else {
                        &format!("known fields of `{}`", self.path)
                    };
                    msg.push_str(&format!(" ({of}: {})", known.join(", ")));
                }
                return Err(msg);
            }
        }
        Ok(())
    }
}

/// Convert a scalar TOML value into a knob.
pub fn to_knob(name: &str, v: &Value) -> Result<Knob, String> {
    Ok(match v {
        Value::Integer(i) => Knob::Int(*i),
        Value::Float(f) => Knob::Float(*f),
        Value::Boolean(b) => Knob::Bool(*b),
        Value::String(s) => Knob::Str(s.clone()),
        // A list of host indices (or other integers) becomes "a,b,c", the form host selections parse.
        Value::Array(a) if a.iter().all(|x| x.is_integer()) => {
            // Always with a trailing comma, so a one-element list is not read as a count.
            Knob::Str(a.iter().map(|x| format!("{x},")).collect::<String>())
        }
        // A table here is a sub-table no kind owns (a misspelt `[transport.rondo]`, say).
        Value::Table(_) => {
            return Err(format!("unknown sub-table `[{name}]` (a sub-table of a kind's knobs is named after the kind, e.g. `[transport.rondo]`)"))
        }
        other => return Err(format!("`{name}` must be a number, string or boolean, got {}", other.type_str())),
    })
}

/// Apply a `--set path.to.field=value` override to a scenario table. The value is read as TOML
/// when it parses as a TOML value (`3`, `0.5`, `true`, `"x"`, `[1, 2]`), otherwise as a string.
pub fn apply_set(root: &mut Table, assignment: &str) -> Result<(), String> {
    let (path, raw) = assignment
        .split_once('=')
        .ok_or_else(|| format!("--set `{assignment}` must have the form table.field=value"))?;
    let path = path.trim();
    if path.is_empty() {
        return Err(format!("--set `{assignment}` names no field"));
    }
    let value = parse_value(raw.trim());
    let parts: Vec<&str> = path.split('.').collect();
    let mut t = root;
    for p in &parts[..parts.len() - 1] {
        let entry = t.entry(p.to_string()).or_insert_with(|| Value::Table(Table::new()));
        t = match entry {
            Value::Table(x) => x,
            _ => return Err(format!("--set `{path}`: `{p}` is not a table")),
        };
    }
    t.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}

fn parse_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    match doc.parse::<Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// The text a value has in a run name and in `runs.csv`: strings bare, others as TOML.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_overrides_nested_fields() {
        let mut t: Table = "[transport]\nkind = \"roce\"\n".parse().unwrap();
        apply_set(&mut t, "transport.cc=dcqcn").unwrap();
        apply_set(&mut t, "transport.cc_params.t_inc=\"300us\"").unwrap();
        apply_set(&mut t, "seed=7").unwrap();
        assert_eq!(t["transport"]["cc"].as_str(), Some("dcqcn"));
        assert_eq!(t["transport"]["cc_params"]["t_inc"].as_str(), Some("300us"));
        assert_eq!(t["seed"].as_integer(), Some(7));
        assert!(apply_set(&mut t, "novalue").is_err());
    }

    #[test]
    fn unknown_fields_are_named() {
        let t: Table = "a = 1\nb = 2\n".parse().unwrap();
        let f = Fields::new("network", &t);
        f.uint("a").unwrap();
        let e = f.finish(&["a"]).unwrap_err();
        assert!(e.contains("network.b"), "{e}");
    }
}
