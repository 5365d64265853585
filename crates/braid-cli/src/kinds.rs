//! Kinded tables: `[topology]`, `[transport]`, `[routing]` and `[workload]` each pick a `kind`, and
//! may carry the knobs of several kinds side by side so that `--set <table>.kind=…` switches
//! between them (`docs/architecture.md`, "Scenario files: several kinds in one file").
//!
//! A kinded table has three sorts of fields:
//! - *common* fields at its top level, read by every kind (`kind`; `transport.paths`,
//!   `transport.recovery_params`, `transport.verb` and `transport.read_size`; every top-level
//!   `[routing]` knob);
//! - *per-kind sub-tables* named after a kind (`[transport.uet]`, `[workload.flow-file]`), read
//!   only when that kind is active;
//! - *flat kind-specific* fields at the top level (the older layout, `transport.cc`). Those
//!   written in the file belong to the kind written in the file; those given by
//!   `--set <table>.<field>=…` belong to the active kind (the one after every `--set`).
//!
//! The active kind's fields are merged (`--set` > its sub-table > the file's top level); every
//! other kind that has fields here is still assembled and validated by the caller, then dropped.
//! This module only rearranges TOML; the scenario parser reads and checks the values.

use toml::{Table, Value};

/// The layout of one kinded table.
pub struct KindedTable {
    /// Table name (`transport`).
    pub name: &'static str,
    /// The names of its kinds, which are also the names of its per-kind sub-tables.
    pub kinds: &'static [&'static str],
    /// The kind when `kind` is not given (`None`: `kind` is required).
    pub default_kind: Option<&'static str>,
    /// Top-level fields shared by every kind besides `kind` (`None`: every top-level field).
    pub common: Option<&'static [&'static str]>,
    /// Kinds added at run time (transports registered with
    /// `braid_proto::transport::register_transport`, routing schemes with
    /// `braid_proto::routing::register_router`): whether a name is one.
    pub registered: Option<fn(&str) -> bool>,
}

/// `[transport]`: the congestion control and loss recovery (`cc`, `cc_params`, `window`,
/// `recovery`) belong to a transport; the number of paths, the recovery timers and the RDMA verb
/// (`verb`, `read_size`: how the NIC moves the data, Rondo Appendix A) are shared.
pub const TRANSPORT: KindedTable = KindedTable {
    name: "transport",
    kinds: braid_proto::transport::TransportKind::BUILTIN_NAMES,
    default_kind: None,
    common: Some(&["paths", "recovery_params", "verb", "read_size"]),
    registered: Some(|k| braid_proto::transport::TransportKind::parse(k).is_ok()),
};

/// `[workload]`: every field but `kind` and `connections` (how messages map onto connections)
/// belongs to a workload kind.
pub const WORKLOAD: KindedTable = KindedTable {
    name: "workload",
    kinds: &[
        "incast",
        "permutation",
        "all-to-all",
        "moe",
        "cdf",
        "flow-file",
        "collective",
        "chakra",
    ],
    default_kind: None,
    common: Some(&["connections"]),
    registered: None,
};

/// `[routing]`: every routing kind accepts every top-level routing knob (a knob affects only the
/// kinds that read it), so top-level knobs are all common.
pub const ROUTING: KindedTable = KindedTable {
    name: "routing",
    kinds: braid_net::config::RoutingMode::NAMES,
    default_kind: Some("ecmp"),
    common: None,
    registered: Some(|k| braid_net::config::RoutingMode::parse(k).is_ok()),
};

/// `[topology]`: every field but `kind` belongs to a topology kind.
pub const TOPOLOGY: KindedTable = KindedTable {
    name: "topology",
    kinds: crate::topology_kinds::NAMES,
    default_kind: None,
    common: Some(&[]),
    registered: None,
};

impl KindedTable {
    /// Whether `k` names one of the table's kinds, built in or registered at run time.
    pub fn has_kind(&self, k: &str) -> bool {
        self.kinds.contains(&k) || self.registered.is_some_and(|r| r(k))
    }
}

/// Every kinded table of a scenario.
pub const TABLES: [&KindedTable; 4] = [&TOPOLOGY, &TRANSPORT, &ROUTING, &WORKLOAD];

/// One kind's fields, merged from the table's top level and the kind's sub-table.
#[derive(Clone, Debug)]
pub struct KindFields {
    /// Table name (`transport`).
    pub table_name: &'static str,
    /// The kind (empty when the table names none: the parser reports that).
    pub kind: String,
    /// The merged fields, `kind` included, in the order of the file.
    pub table: Table,
    /// Fields read from the `[table.kind]` sub-table (errors name them there).
    pub from_sub: Vec<String>,
    /// Kind-specific fields, by their scenario names (`transport.cc`, `transport.uet.paths`).
    pub own: Vec<String>,
}

impl KindFields {
    /// Rewrite the field names in a parser error so that fields read from the kind's sub-table are
    /// named there (`transport.paths` → `transport.uet.paths`; workload errors say ``field `x` ``).
    pub fn locate(&self, err: String) -> String {
        if self.from_sub.is_empty() {
            return err;
        }
        // Every other `-separated piece is a quoted name; each is rewritten at most once.
        let pieces: Vec<&str> = err.split('`').collect();
        let mut out = String::with_capacity(err.len() + 16);
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                out.push('`');
            }
            let after_field = i > 0 && pieces[i - 1].ends_with("field ");
            match (i % 2 == 1).then(|| self.sub_name(piece, after_field)).flatten() {
                Some(named) => out.push_str(&named),
                None => out.push_str(piece),
            }
        }
        out
    }

    /// `table.kind.key…` for a quoted name `table.key…` (or a bare `key` after "field ") whose
    /// key was read from the sub-table.
    fn sub_name(&self, quoted: &str, after_field: bool) -> Option<String> {
        let (table, kind) = (self.table_name, &self.kind);
        if after_field && self.from_sub.iter().any(|k| k == quoted) {
            return Some(format!("{table}.{kind}.{quoted}"));
        }
        let rest = quoted.strip_prefix(table)?.strip_prefix('.')?;
        let key = rest.split('.').next()?;
        self.from_sub.iter().any(|k| k == key).then(|| format!("{table}.{kind}.{rest}"))
    }
}

/// A kinded table split by kind: the active kind's fields and those of every other kind present.
#[derive(Clone, Debug)]
pub struct Split {
    /// The fields the run uses.
    pub active: KindFields,
    /// Other kinds' fields: validated, not used.
    pub inactive: Vec<KindFields>,
}

/// The field (`cc` for `transport.cc=…`) a `--set` assignment writes at the top level of the
/// kinded table `spec`, if it does (a write into a kind's sub-table is not one).
pub fn set_field(spec: &KindedTable, assignment: &str) -> Option<String> {
    let path = assignment.split_once('=')?.0.trim();
    let mut parts = path.split('.');
    let (table, field) = (parts.next()?, parts.next()?);
    let into_sub_table = parts.next().is_some() && spec.has_kind(field);
    (table == spec.name && !into_sub_table).then(|| field.to_string())
}

/// `Err` when `--set table.field=…` would overwrite a kind's sub-table with a value: the field is
/// also the name of a kind (`workload.cdf`, `topology.file`) and the file has that kind's
/// sub-table; the error says to write `table.kind.field=…` instead.
pub fn check_set_target(root: &Table, assignment: &str) -> Result<(), String> {
    let Some((path, _)) = assignment.split_once('=') else { return Ok(()) };
    let parts: Vec<&str> = path.trim().split('.').collect();
    let [table, field] = parts[..] else { return Ok(()) };
    let Some(spec) = TABLES.iter().find(|s| s.name == table) else { return Ok(()) };
    if spec.has_kind(field)
        && root.get(table).and_then(|t| t.get(field)).is_some_and(Value::is_table)
    {
        return Err(format!(
            "--set `{path}`: `[{table}.{field}]` is the sub-table of {table} kind `{field}` in this file; set its field as `{table}.{field}.{field}=…`"
        ));
    }
    Ok(())
}

/// The kind a table names (or its default).
pub fn kind_of<'a>(spec: &KindedTable, t: &'a Table) -> Option<&'a str> {
    match t.get("kind") {
        Some(v) => v.as_str(),
        None => spec.default_kind,
    }
}

/// Split table `t` (after `--set`) of layout `spec`. `file_kind` is the kind the file itself
/// wrote; `set_fields` are the top-level fields given by `--set`. A table without a readable kind
/// is returned whole as the active one (the parser reports the missing or malformed `kind`).
pub fn split(
    spec: &KindedTable,
    t: &Table,
    file_kind: Option<&str>,
    set_fields: &[String],
) -> Result<Split, String> {
    let Some(active) = kind_of(spec, t) else {
        let whole = KindFields {
            table_name: spec.name,
            kind: String::new(),
            table: t.clone(),
            from_sub: Vec::new(),
            own: Vec::new(),
        };
        return Ok(Split { active: whole, inactive: Vec::new() });
    };
    let l = Layout { spec, t, active, file_kind: file_kind.unwrap_or(active), set_fields };
    let mut kinds = vec![active];
    for (k, v) in t {
        let kind = if l.is_sub(k, v) {
            k.as_str()
        } else if l.is_common(k) {
            continue;
        } else {
            l.owner(k)
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let mut assembled = Vec::with_capacity(kinds.len());
    for kind in kinds {
        assembled.push(l.assemble(kind)?);
    }
    let active = assembled.remove(0);
    Ok(Split { active, inactive: assembled })
}

/// A kinded table being split: which kind runs, which the file wrote, which fields `--set` gave.
struct Layout<'a> {
    spec: &'a KindedTable,
    t: &'a Table,
    active: &'a str,
    file_kind: &'a str,
    set_fields: &'a [String],
}

impl<'a> Layout<'a> {
    /// Whether `k = v` is a kind's sub-table.
    fn is_sub(&self, k: &str, v: &Value) -> bool {
        self.spec.has_kind(k) && v.is_table()
    }

    /// Whether top-level field `k` is read by every kind.
    fn is_common(&self, k: &str) -> bool {
        k == "kind" || self.spec.common.is_none_or(|c| c.contains(&k))
    }

    /// Whether `--set` gave top-level field `k`.
    fn by_set(&self, k: &str) -> bool {
        self.set_fields.iter().any(|s| s == k) && self.t.contains_key(k)
    }

    /// The kind a flat kind-specific field belongs to.
    fn owner(&self, k: &str) -> &'a str {
        if self.by_set(k) {
            self.active
        } else {
            self.file_kind
        }
    }

    /// The fields of `kind`: common fields, the flat fields it owns and its sub-table, in file
    /// order; `--set` > sub-table > top level.
    fn assemble(&self, kind: &str) -> Result<KindFields, String> {
        let name = self.spec.name;
        let sub = self.t.get(kind).and_then(Value::as_table).filter(|_| self.spec.has_kind(kind));
        let mut out = KindFields {
            table_name: name,
            kind: kind.to_string(),
            table: Table::new(),
            from_sub: Vec::new(),
            own: Vec::new(),
        };
        for (k, v) in self.t {
            if self.is_sub(k, v) {
                if k != kind {
                    continue;
                }
                for (sk, sv) in sub.into_iter().flatten() {
                    if sk == "kind" {
                        return Err(format!(
                            "`{name}.{kind}.kind`: a kind's sub-table cannot set `kind`"
                        ));
                    }
                    if self.by_set(sk) {
                        continue; // `--set table.field` wins over the sub-table
                    }
                    out.table.insert(sk.clone(), sv.clone());
                    out.from_sub.push(sk.clone());
                    out.own.push(format!("{name}.{kind}.{sk}"));
                }
            } else if k == "kind" {
                out.table.insert(k.clone(), Value::String(kind.to_string()));
            } else if self.is_common(k) || self.owner(k) == kind {
                if sub.is_some_and(|s| s.contains_key(k)) && !self.by_set(k) {
                    continue; // the sub-table wins over the file's top level
                }
                out.table.insert(k.clone(), v.clone());
                if !self.is_common(k) {
                    out.own.push(format!("{name}.{k}"));
                }
            }
        }
        Ok(out)
    }
}

/// The comment put at the head of `scenario.resolved.toml` when fields of inactive kinds were
/// validated and dropped (empty when none were).
pub fn dropped_note(splits: &[Split]) -> String {
    let mut lines = Vec::new();
    for s in splits {
        for i in &s.inactive {
            if !i.own.is_empty() {
                lines.push(format!(
                    "#   {} kind `{}`: {}\n",
                    i.table_name,
                    i.kind,
                    i.own.join(", ")
                ));
            }
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!("# Fields of inactive kinds (validated, not used; dropped below):\n{}", lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> Table {
        s.parse().unwrap()
    }

    #[test]
    fn kind_lists_match_the_parsers() {
        for k in TRANSPORT.kinds {
            assert_eq!(braid_proto::transport::TransportKind::parse(k).unwrap().name(), *k);
        }
        let wl: Vec<&str> = braid_workload::KINDS.iter().map(|(k, _)| *k).collect();
        assert_eq!(WORKLOAD.kinds, wl.as_slice());
    }

    #[test]
    fn flat_fields_follow_the_file_kind_and_set_fields_the_active_one() {
        let t = table("kind = \"uet\"\ncc = \"fixed\"\nwindow = \"1KB\"\npaths = 4\nrecovery = \"sr\"\n[uet]\nev_select = \"reps\"\n");
        let s = split(&TRANSPORT, &t, Some("roce"), &["recovery".into()]).unwrap();
        let a = &s.active;
        assert_eq!(
            (a.kind.as_str(), a.table.keys().cloned().collect::<Vec<_>>().join(",")),
            ("uet", "ev_select,kind,paths,recovery".into())
        );
        assert_eq!(a.from_sub, vec!["ev_select".to_string()]);
        assert_eq!(s.inactive.len(), 1);
        let i = &s.inactive[0];
        assert_eq!(
            (i.kind.as_str(), i.table.keys().cloned().collect::<Vec<_>>().join(",")),
            ("roce", "cc,kind,paths,window".into())
        );
        assert_eq!(i.own, vec!["transport.cc".to_string(), "transport.window".into()]);
    }

    #[test]
    fn precedence_is_set_then_sub_table_then_top_level() {
        let t =
            table("kind = \"roce\"\ncc = \"hpcc\"\npaths = 2\n[roce]\ncc = \"dcqcn\"\npaths = 8\n");
        let s = split(&TRANSPORT, &t, None, &[]).unwrap();
        assert_eq!(s.active.table["cc"].as_str(), Some("dcqcn"));
        assert_eq!(s.active.table["paths"].as_integer(), Some(8));
        let s = split(&TRANSPORT, &t, None, &["cc".into()]).unwrap();
        assert_eq!(s.active.table["cc"].as_str(), Some("hpcc"));
        assert_eq!(s.active.locate("`transport.paths`: bad".into()), "`transport.roce.paths`: bad");
        let w =
            split(&WORKLOAD, &table("kind = \"cdf\"\n[cdf]\ncdf = \"x\"\nbogus = 1\n"), None, &[])
                .unwrap();
        let e = w.active.locate("unknown field `bogus`, field `cdf`: `workload.cdf.y`".into());
        assert_eq!(
            e,
            "unknown field `workload.cdf.bogus`, field `workload.cdf.cdf`: `workload.cdf.cdf.y`"
        );
        assert!(split(&TRANSPORT, &table("kind = \"roce\"\n[uet]\nkind = \"uet\"\n"), None, &[])
            .is_err());
    }

    #[test]
    fn set_fields_are_top_level_fields_of_the_table() {
        assert_eq!(set_field(&TRANSPORT, "transport.cc=hpcc"), Some("cc".into()));
        assert_eq!(set_field(&TRANSPORT, "transport.cc_params.ai=2"), Some("cc_params".into()));
        assert_eq!(set_field(&TRANSPORT, "transport.uet.paths=2"), None);
        assert_eq!(set_field(&WORKLOAD, "transport.cc=hpcc"), None);
        assert_eq!(set_field(&WORKLOAD, "workload.cdf=hadoop"), Some("cdf".into()));
        let root = table("[workload]\nkind = \"flow-file\"\n[workload.cdf]\ncdf = \"websearch\"\n");
        assert!(check_set_target(&root, "workload.cdf=hadoop")
            .unwrap_err()
            .contains("workload.cdf.cdf"));
        assert!(check_set_target(&root, "workload.cdf.cdf=hadoop").is_ok());
    }
}
