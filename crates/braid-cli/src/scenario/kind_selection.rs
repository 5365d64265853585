//! Kinded tables (`crate::kinds`) in a scenario: which kind of each table and of each group's
//! transport runs, and the inactive kinds' fields checked all the same.

use super::*;

/// The transport kind each `[groups.<name>.transport]` table of the file names, by group.
pub(super) fn group_transport_kinds(root: &Table) -> Vec<(String, Option<String>)> {
    let Some(groups) = root.get("groups").and_then(toml::Value::as_table) else {
        return Vec::new();
    };
    groups
        .iter()
        .map(|(name, g)| {
            let kind = g
                .get("transport")
                .and_then(toml::Value::as_table)
                .and_then(|t| kinds::kind_of(&kinds::TRANSPORT, t))
                .map(str::to_string);
            (name.clone(), kind)
        })
        .collect()
}

/// Split each group's transport table as [`select_kinds`] splits `[transport]` (a group's
/// `--set groups.<name>.transport.<field>=…` plays the part of `--set transport.<field>=…`),
/// and replace it with its active kind's fields. Checks the form of `[groups]`: each entry a
/// table holding one table, `transport`, and no group named `main` (whose transport is
/// `[transport]`).
pub(super) fn select_group_kinds(
    root: &mut Table,
    file_kinds: &[(String, Option<String>)],
    sets: &[String],
) -> Result<Vec<(String, Split)>, String> {
    let Some(groups) = root.get_mut("groups") else { return Ok(Vec::new()) };
    let groups = groups
        .as_table_mut()
        .ok_or("`groups` must be a table of flow groups, e.g. `[groups.background.transport]`")?;
    let mut out = Vec::new();
    for (name, g) in groups.iter_mut() {
        if name == MAIN_GROUP {
            return Err(format!("`[groups.{MAIN_GROUP}]`: the `{MAIN_GROUP}` group runs `[transport]`; give other groups their own"));
        }
        let g = g
            .as_table_mut()
            .ok_or_else(|| format!("`groups.{name}` must be a table with a `transport` table"))?;
        if let Some(k) = g.keys().find(|k| *k != "transport") {
            return Err(format!(
                "unknown field `groups.{name}.{k}` (known fields of `groups.{name}`: transport)"
            ));
        }
        let t = g
            .get("transport")
            .and_then(toml::Value::as_table)
            .ok_or_else(|| format!("`groups.{name}` needs a `transport` table (`[groups.{name}.transport]`, the form of `[transport]`)"))?;
        let prefix = format!("groups.{name}.");
        let group_sets: Vec<String> =
            sets.iter().filter_map(|a| a.strip_prefix(&prefix)).map(str::to_string).collect();
        let set_fields: Vec<String> =
            group_sets.iter().filter_map(|a| kinds::set_field(&kinds::TRANSPORT, a)).collect();
        let file_kind = file_kinds.iter().find(|(n, _)| n == name).and_then(|(_, k)| k.as_deref());
        let split = kinds::split(&kinds::TRANSPORT, t, file_kind, &set_fields)
            .map_err(|e| format!("[groups.{name}] {e}"))?;
        g.insert("transport".into(), toml::Value::Table(split.active.table.clone()));
        out.push((name.clone(), split));
    }
    Ok(out)
}

/// Split each kinded table (`crate::kinds`) into its active kind's fields, which replace the
/// table in `root` (what the run uses and `scenario.resolved.toml` records), and the fields of
/// other kinds, checked later by [`check_inactive_kinds`]. `file_kinds` are the kinds the file
/// wrote, in the order of [`kinds::TABLES`].
pub(super) fn select_kinds(
    root: &mut Table,
    file_kinds: &[Option<String>],
    sets: &[String],
) -> Result<Vec<Split>, String> {
    let mut splits = Vec::with_capacity(kinds::TABLES.len());
    for (spec, file_kind) in kinds::TABLES.iter().zip(file_kinds) {
        let set_fields: Vec<String> =
            sets.iter().filter_map(|a| kinds::set_field(spec, a)).collect();
        let split = match root.get(spec.name).and_then(toml::Value::as_table) {
            Some(t) => kinds::split(spec, t, file_kind.as_deref(), &set_fields)?,
            None => kinds::split(spec, &Table::new(), None, &[])?,
        };
        if root.get(spec.name).is_some_and(toml::Value::is_table) {
            root.insert(spec.name.to_string(), toml::Value::Table(split.active.table.clone()));
        }
        splits.push(split);
    }
    Ok(splits)
}

/// Validate the fields of every inactive kind as if that kind were active; errors say which kind
/// and name the field where it is written (`transport.uet.foo`).
pub(super) fn check_inactive_kinds(
    splits: &[Split],
    base: &Path,
    header_bytes: u32,
) -> Result<(), String> {
    for i in splits.iter().flat_map(|s| &s.inactive) {
        let f = Fields::new(i.table_name, &i.table);
        let checked = match i.table_name {
            "topology" => crate::topology_kinds::parse_topology(&f, base).map(|_| ()),
            "transport" => parse_verb(&f).and_then(|_| parse_transport(&f)).and_then(|mut tc| {
                tc.header_bytes = header_bytes;
                tc.validate().map_err(|e| format!("[transport] {e}"))
            }),
            "routing" => parse_routing(&f).map(|_| ()),
            _ => parse_workload(&f, base).map(|_| ()),
        };
        checked.map_err(|e| {
            format!("{} kind `{}` (inactive in this run): {}", i.table_name, i.kind, i.locate(e))
        })?;
    }
    Ok(())
}
