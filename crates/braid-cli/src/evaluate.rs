//! `braid evaluate PAPER`: a paper's evaluation table, printed from its repro plans' output
//! folders, so that no number in it is typed by hand.
//!
//! Each repro plan may carry `[[check]]` tables (`repro/README.md`, "Checks"): a claim of the
//! paper, how Braid's number is read from the plan's runs (`runs.csv`, the runs' `flows.csv` and
//! `paths.csv`), and the rule that classes it — *match* when the `match` rule holds, *direction*
//! when only the weaker `direction` rule does, *miss* otherwise, *not run* when the plan's output
//! folder lacks the runs (named). Two kinds:
//!
//! - `kind = "best"`: in each group of runs (`by`: one group per combination of those runs.csv
//!   columns), `case`'s mean `y` against the best mean of every other case, counted as best when
//!   within `within` (a fraction) of it; `match` and `direction` are the groups that must count.
//! - `kind = "value"`: a number (`value`, the `column[key=value,…]:agg` form of the figures'
//!   captions, divided by `per` when given), per group of `by`; `match` / `direction` are bounds
//!   such as `">= 1.3"` or `"<= 2"` that every group's number must meet.
//!
//! With `--alt DIR` the table gets one class column per further folder of the same plans run
//! with one open choice made the other way (`braid repro ID --set …`, recorded in each folder's
//! `repro.toml`): the evaluation's sensitivity to that choice.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::plot::{eval_number, Results};
use crate::repro::ReproPlan;

/// A bound a number must meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// `<=` (true) or `>=` (false).
    pub at_most: bool,
    /// The limit.
    pub limit: f64,
}

impl Bound {
    fn parse(s: &str, what: &str) -> Result<Bound, String> {
        let t = s.trim();
        let (at_most, rest) = if let Some(r) = t.strip_prefix("<=") {
            (true, r)
        } else if let Some(r) = t.strip_prefix(">=") {
            (false, r)
        } else {
            return Err(format!(
                "`{what}` must be a bound such as \"<= 2\" or \">= 1.3\", got `{s}`"
            ));
        };
        let limit: f64 = rest
            .trim()
            .parse()
            .map_err(|_| format!("`{what}`: `{}` is not a number", rest.trim()))?;
        Ok(Bound { at_most, limit })
    }

    fn holds(&self, x: f64) -> bool {
        if self.at_most {
            x <= self.limit
        } else {
            x >= self.limit
        }
    }

    fn text(&self) -> String {
        format!("{} {}", if self.at_most { "≤" } else { "≥" }, fmt(self.limit))
    }
}

/// How a check reads Braid's number.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// `case` best (or within `within` of the best) of all cases on `y`, group by group.
    Best {
        /// The runs.csv column (or `a/b`, or a `flows:` metric) compared.
        y: String,
        /// The case under test.
        case: String,
        /// Group columns.
        by: Vec<String>,
        /// Only runs with these column values.
        filter: Vec<(String, String)>,
        /// The cases compared with `case` (empty: every other case).
        against: Vec<String>,
        /// Higher `y` is better (goodput); default lower (time, OOD).
        higher: bool,
        /// Tolerance as a fraction of the best other case's value.
        within: f64,
        /// Groups that must count for *match*.
        match_groups: usize,
        /// Groups that must count for *direction*.
        direction_groups: usize,
    },
    /// A number per group against bounds.
    Value {
        /// `column[key=value,…]:agg`.
        value: String,
        /// Divide by this expression (a speed-up: `sim_time_ns[case=ECMP]` per `sim_time_ns[case=Rondo]`).
        per: Option<String>,
        /// Group columns.
        by: Vec<String>,
        /// Bound every group meets for *match*.
        matches: Bound,
        /// Bound every group meets for *direction*.
        direction: Option<Bound>,
    },
}

/// One `[[check]]` of a repro plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The claim under test, as the table prints it.
    pub claim: String,
    /// The paper's number for it.
    pub paper: String,
    /// How Braid's number is read and classed.
    pub rule: Rule,
    /// Braid's numbers are multiplied by this before they are printed and compared.
    pub scale: f64,
    /// Their unit, printed after each.
    pub unit: String,
}

fn strs(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{what}` must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` must be a string or a list of strings")),
    }
}

impl Check {
    /// Read a `[[check]]` table; errors name the field (`what` is `check[i]`).
    pub fn from_table(t: &Table, what: &str) -> Result<Check, String> {
        const KEYS: &[&str] = &[
            "claim",
            "paper",
            "kind",
            "y",
            "case",
            "by",
            "filter",
            "against",
            "higher",
            "within",
            "match",
            "direction",
            "value",
            "per",
            "scale",
            "unit",
        ];
        for k in t.keys() {
            if !KEYS.contains(&k.as_str()) {
                return Err(format!("unknown field `{what}.{k}` (known: {})", KEYS.join(", ")));
            }
        }
        let s = |k: &str| -> Result<Option<String>, String> {
            match t.get(k) {
                None => Ok(None),
                Some(Value::String(x)) => Ok(Some(x.clone())),
                Some(o) => Err(format!("`{what}.{k}` must be a string, got {o}")),
            }
        };
        let req = |k: &str| s(k).and_then(|v| v.ok_or_else(|| format!("`{what}.{k}` is required")));
        let num = |k: &str, d: f64| -> Result<f64, String> {
            match t.get(k) {
                None => Ok(d),
                Some(Value::Float(x)) => Ok(*x),
                Some(Value::Integer(x)) => Ok(*x as f64),
                Some(o) => Err(format!("`{what}.{k}` must be a number, got {o}")),
            }
        };
        let by = strs(t.get("by"), &format!("{what}.by"))?;
        let rule = match req("kind")?.as_str() {
            "best" => {
                let count = |k: &str| -> Result<usize, String> {
                    match t.get(k) {
                        Some(Value::Integer(n)) if *n >= 0 => Ok(*n as usize),
                        None if k == "direction" => Ok(1),
                        Some(o) => Err(format!("`{what}.{k}` must be a number of groups, got {o}")),
                        None => Err(format!(
                            "`{what}.{k}` is required (the groups in which `case` must be best)"
                        )),
                    }
                };
                let filter = match t.get("filter") {
                    None => Vec::new(),
                    Some(Value::Table(f)) => f
                        .iter()
                        .map(|(k, v)| {
                            (
                                k.clone(),
                                v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()),
                            )
                        })
                        .collect(),
                    Some(_) => {
                        return Err(format!(
                            "`{what}.filter` must be a table such as {{ case = \"Rondo\" }}"
                        ))
                    }
                };
                Rule::Best {
                    y: req("y")?,
                    case: req("case")?,
                    by,
                    filter,
                    against: strs(t.get("against"), &format!("{what}.against"))?,
                    higher: t
                        .get("higher")
                        .map(|v| {
                            v.as_bool().ok_or(format!("`{what}.higher` must be true or false"))
                        })
                        .transpose()?
                        .unwrap_or(false),
                    within: num("within", 0.0)?,
                    match_groups: count("match")?,
                    direction_groups: count("direction")?,
                }
            }
            "value" => Rule::Value {
                value: req("value")?,
                per: s("per")?,
                by,
                matches: Bound::parse(&req("match")?, &format!("{what}.match"))?,
                direction: s("direction")?
                    .map(|d| Bound::parse(&d, &format!("{what}.direction")))
                    .transpose()?,
            },
            k => return Err(format!("`{what}.kind`: unknown kind `{k}` (known: best, value)")),
        };
        Ok(Check {
            claim: req("claim")?,
            paper: s("paper")?.unwrap_or_default(),
            rule,
            scale: num("scale", 1.0)?,
            unit: s("unit")?.unwrap_or_default(),
        })
    }

    /// The rule in words, as the table's "rule" column prints it.
    pub fn rule_text(&self) -> String {
        match &self.rule {
            Rule::Best {
                y,
                case,
                by,
                higher,
                within,
                match_groups,
                direction_groups,
                filter,
                against,
            } => {
                let tol = if *within > 0.0 {
                    format!(" or within {} %", fmt(within * 100.0))
                } else {
                    String::new()
                };
                let only = if filter.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        filter
                            .iter()
                            .map(|(k, v)| format!("{k}={v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let per =
                    if by.is_empty() { String::new() } else { format!(" per {}", by.join(" × ")) };
                let of = if against.is_empty() {
                    String::new()
                } else {
                    format!(" of {case}, {}", against.join(", "))
                };
                format!(
                    "{case} {} `{y}`{of}{tol}{per}{only}: match in ≥ {match_groups}, direction in ≥ {direction_groups}",
                    if *higher { "highest" } else { "lowest" }
                )
            }
            Rule::Value { value, per, by, matches, direction } => {
                let num = match per {
                    Some(p) => format!("`{value}` / `{p}`"),
                    None => format!("`{value}`"),
                };
                let per_group =
                    if by.is_empty() { String::new() } else { format!(" per {}", by.join(" × ")) };
                let dir =
                    direction.map(|d| format!(", direction {}", d.text())).unwrap_or_default();
                format!("{num}{per_group}: match {}{dir}", matches.text())
            }
        }
    }
}

/// The class of one check on one folder, with the numbers it rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `match`, `direction`, `miss`, or `not run`.
    pub class: String,
    /// Braid's numbers, as printed.
    pub braid: String,
    /// The number the class rests on, short (`2 of 6`, the worst group's value), for the
    /// alternatives' columns.
    pub short: String,
}

fn fmt(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 1000.0 || (v.fract() == 0.0 && a < 1e9) {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".into()
    } else {
        // Three significant digits: 0.997, 0.0512, 0.000400.
        let decimals = (2 - a.log10().floor() as i32).clamp(3, 9) as usize;
        format!("{v:.decimals$}")
    }
}

/// The distinct combinations of `by`'s columns among the successful runs matching `filter`.
fn groups(res: &Results, by: &[String], filter: &[(String, String)]) -> Vec<Vec<(String, String)>> {
    let mut out: Vec<Vec<(String, String)>> = Vec::new();
    for r in res.rows(filter) {
        let g: Vec<(String, String)> =
            by.iter().map(|c| (c.clone(), res.cell(r, c).unwrap_or("").to_string())).collect();
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

fn group_label(g: &[(String, String)]) -> String {
    g.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join("·")
}

/// Class `check` on the runs in `res`.
pub fn classify(check: &Check, res: &Results) -> Outcome {
    match &check.rule {
        Rule::Best {
            y,
            case,
            by,
            filter,
            against,
            higher,
            within,
            match_groups,
            direction_groups,
        } => {
            let gs = groups(res, by, filter);
            if gs.is_empty() {
                return Outcome {
                    class: "not run".into(),
                    braid: "no successful run".into(),
                    short: String::new(),
                };
            }
            let mut counted = 0;
            let mut parts = Vec::new();
            for g in &gs {
                let mut f: Vec<(String, String)> = filter.clone();
                f.extend(g.iter().cloned());
                let mut cases: Vec<String> = Vec::new();
                for r in res.rows(&f) {
                    let c = res.cell(r, "case").unwrap_or("").to_string();
                    if !cases.contains(&c) {
                        cases.push(c);
                    }
                }
                let mean_of = |c: &str| -> Option<f64> {
                    let mut ff = f.clone();
                    ff.push(("case".into(), c.to_string()));
                    let v: Vec<f64> =
                        res.rows(&ff).iter().filter_map(|r| res.number(r, y)).collect();
                    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
                };
                let Some(mine) = mean_of(case) else {
                    parts.push(format!("{}: no {case} run", group_label(g)));
                    continue;
                };
                let best = cases
                    .iter()
                    .filter(|c| *c != case && (against.is_empty() || against.contains(c)))
                    .filter_map(|c| mean_of(c).map(|v| (c.clone(), v)))
                    .fold(None::<(String, f64)>, |acc, (c, v)| match acc {
                        Some((_, b)) if (*higher && v <= b) || (!*higher && v >= b) => acc,
                        _ => Some((c, v)),
                    });
                let Some((other, b)) = best else {
                    parts.push(format!("{}: no other case", group_label(g)));
                    continue;
                };
                // How far `case` is behind the best other case (negative: ahead of it).
                let behind = if *higher { b / mine - 1.0 } else { mine / b - 1.0 };
                if behind <= *within + 1e-12 {
                    counted += 1;
                }
                let label = group_label(g);
                let head = if label.is_empty() { String::new() } else { format!("{label}: ") };
                parts.push(format!(
                    "{head}{} {}{} vs {other} {}{} ({}{} %)",
                    case,
                    fmt(mine * check.scale),
                    check.unit,
                    fmt(b * check.scale),
                    check.unit,
                    if behind >= 0.0 { "+" } else { "−" },
                    fmt(behind.abs() * 100.0)
                ));
            }
            let class = if counted >= *match_groups {
                "match"
            } else if counted >= *direction_groups {
                "direction"
            } else {
                "miss"
            };
            Outcome {
                class: class.into(),
                braid: format!("best in {counted} of {}: {}", gs.len(), parts.join("; ")),
                short: format!("{counted} of {}", gs.len()),
            }
        }
        Rule::Value { value, per, by, matches, direction } => {
            let gs = if by.is_empty() { vec![Vec::new()] } else { groups(res, by, &[]) };
            let mut vals = Vec::new();
            let mut parts = Vec::new();
            for g in &gs {
                let v = eval_number(value, res, g).and_then(|a| match per {
                    Some(p) => eval_number(p, res, g).filter(|b| *b != 0.0).map(|b| a / b),
                    None => Some(a),
                });
                let label = group_label(g);
                let head = if label.is_empty() { String::new() } else { format!("{label}: ") };
                match v {
                    Some(x) => {
                        let x = x * check.scale;
                        vals.push(x);
                        parts.push(format!("{head}{}{}", fmt(x), check.unit));
                    }
                    None => parts.push(format!("{head}no matching run")),
                }
            }
            if vals.len() < gs.len() || vals.is_empty() {
                return Outcome {
                    class: "not run".into(),
                    braid: parts.join("; "),
                    short: String::new(),
                };
            }
            let class = if vals.iter().all(|x| matches.holds(*x)) {
                "match"
            } else if direction.is_some_and(|d| vals.iter().all(|x| d.holds(*x))) {
                "direction"
            } else {
                "miss"
            };
            // The worst group against the match bound.
            let worst = vals.iter().copied().fold(
                if matches.at_most { f64::NEG_INFINITY } else { f64::INFINITY },
                |w, x| if matches.at_most { w.max(x) } else { w.min(x) },
            );
            Outcome {
                class: class.into(),
                braid: parts.join("; "),
                short: format!("{}{}", fmt(worst), check.unit),
            }
        }
    }
}

/// A plan's output folder as `braid evaluate` reads it.
#[derive(Clone, Debug, Default)]
pub struct Folder {
    /// The runs, when `runs.csv` is there.
    pub results: Option<PathBuf>,
    /// Whether `repro.toml` says the folder is a quick run.
    pub quick: Option<bool>,
    /// The `--set` overrides `repro.toml` records.
    pub sets: Vec<String>,
}

impl Folder {
    /// Read `dir` (a plan's output folder).
    pub fn read(dir: &Path) -> Folder {
        let mut f = Folder::default();
        if dir.join("runs.csv").is_file() {
            f.results = Some(dir.to_path_buf());
        }
        if let Ok(Ok(t)) = fs::read_to_string(dir.join("repro.toml")).map(|s| s.parse::<Table>()) {
            f.quick = t.get("quick").and_then(Value::as_bool);
            f.sets = t
                .get("sets")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
        }
        f
    }
}

/// What `braid evaluate` prints: the table, and the problems it found (a folder run with other
/// settings than its column's, a plan not run).
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    /// Markdown text.
    pub text: String,
    /// Problems, one line each (printed on stderr).
    pub problems: Vec<String>,
}

fn folder_of(root: &Path, id: &str, quick: bool) -> PathBuf {
    root.join(if quick { format!("{id}-quick") } else { id.to_string() })
}

/// Build the evaluation table of `plans` from `main` (the model's runs) and `alts` (the same
/// plans with one choice made the other way). Every check of every plan is a row (a plan without
/// checks has none); a plan whose folder is missing from `main` or an alternative, or holds a
/// quick run where a full one is read (or the reverse), is named in the problems.
pub fn table(plans: &[ReproPlan], main: &Path, alts: &[PathBuf], quick: bool) -> Evaluation {
    let mut out = Evaluation::default();
    let mut alt_names: Vec<String> = Vec::new();
    for a in alts {
        // The column's name: the overrides its folders were run with (the same in each).
        let mut sets: Option<Vec<String>> = None;
        for p in plans {
            let dir = folder_of(a, &p.id, quick);
            let f = Folder::read(&dir);
            if f.results.is_none() {
                out.problems.push(format!(
                    "{}: not run in {} (no {})",
                    p.id,
                    a.display(),
                    dir.join("runs.csv").display()
                ));
                continue;
            }
            if f.quick.is_some_and(|q| q != quick) {
                out.problems.push(format!(
                    "{}: {} is a {} run",
                    p.id,
                    dir.display(),
                    if quick { "full" } else { "quick" }
                ));
            }
            match &sets {
                None => sets = Some(f.sets.clone()),
                Some(s) if *s != f.sets => out.problems.push(format!(
                    "{}: `{}` was run with --set {} but other plans there with {}",
                    a.display(),
                    p.id,
                    f.sets.join(" "),
                    s.join(" ")
                )),
                _ => {}
            }
        }
        let s = sets.unwrap_or_default();
        alt_names.push(if s.is_empty() { a.display().to_string() } else { s.join(", ") });
    }
    let w = &mut out.text;
    let _ = write!(w, "| figure | claim | paper | Braid (the model) | rule | class |");
    for n in &alt_names {
        let _ = write!(w, " {n} |");
    }
    let _ = write!(w, "\n|---|---|---|---|---|---|");
    for _ in &alt_names {
        w.push_str("---|");
    }
    w.push('\n');
    // Each column's classes, counted for the tally under the table.
    let mut tally: Vec<Vec<String>> = vec![Vec::new(); 1 + alts.len()];
    for p in plans {
        if p.checks.is_empty() {
            continue;
        }
        let f = Folder::read(&folder_of(main, &p.id, quick));
        let dir = folder_of(main, &p.id, quick);
        if f.results.is_none() {
            out.problems.push(format!(
                "{}: not run (no {}; run `braid repro {}{} --out {}`)",
                p.id,
                dir.join("runs.csv").display(),
                p.id,
                if quick { " --quick" } else { "" },
                dir.display()
            ));
        } else {
            if f.quick.is_some_and(|q| q != quick) {
                out.problems.push(format!(
                    "{}: {} is a {} run, not a {} one",
                    p.id,
                    dir.display(),
                    if quick { "full" } else { "quick" },
                    if quick { "quick" } else { "full" }
                ));
            }
            if !f.sets.is_empty() {
                out.problems.push(format!(
                    "{}: {} was run with --set {}, not on the model",
                    p.id,
                    dir.display(),
                    f.sets.join(" ")
                ));
            }
        }
        let res = f.results.as_ref().and_then(|d| Results::load(d).ok());
        let alt_res: Vec<Option<Results>> = alts
            .iter()
            .map(|a| {
                Folder::read(&folder_of(a, &p.id, quick))
                    .results
                    .and_then(|d| Results::load(&d).ok())
            })
            .collect();
        for c in &p.checks {
            let o = match &res {
                Some(r) => classify(c, r),
                None => {
                    Outcome { class: "not run".into(), braid: String::new(), short: String::new() }
                }
            };
            let _ = write!(
                w,
                "| {} | {} | {} | {} | {} | {} |",
                p.paper.trim_start_matches("Rondo ").trim_start_matches("LCMP "),
                cell(&c.claim),
                cell(&c.paper),
                cell(&o.braid),
                cell(&c.rule_text()),
                o.class
            );
            tally[0].push(o.class.clone());
            for (i, r) in alt_res.iter().enumerate() {
                let a = match r {
                    Some(r) => classify(c, r),
                    None => Outcome {
                        class: "not run".into(),
                        braid: String::new(),
                        short: String::new(),
                    },
                };
                if a.short.is_empty() {
                    let _ = write!(w, " {} |", a.class);
                } else {
                    let _ = write!(w, " {} ({}) |", a.class, a.short.trim());
                }
                tally[i + 1].push(a.class);
            }
            w.push('\n');
        }
    }
    // The tally: how many claims each column classes match, direction, miss (and not run).
    let names = std::iter::once("the model".to_string()).chain(alt_names);
    let counts: Vec<String> = names
        .zip(&tally)
        .map(|(n, classes)| {
            let k = |c: &str| classes.iter().filter(|x| x.as_str() == c).count();
            let mut t = format!(
                "{n}: {} match, {} direction, {} miss",
                k("match"),
                k("direction"),
                k("miss")
            );
            if k("not run") > 0 {
                t.push_str(&format!(", {} not run", k("not run")));
            }
            t
        })
        .collect();
    let _ = writeln!(w, "\nClasses of the {} claims — {}.", tally[0].len(), counts.join("; "));
    out
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The plans of `paper` (`rondo`, `lcmp`: ids starting with `paper-`) that have checks, in
/// figure order.
pub fn plans_of(dir: &Path, paper: &str) -> Result<Vec<ReproPlan>, String> {
    let mut out = Vec::new();
    for p in crate::repro::list(dir)? {
        let p = p?;
        if p.id.starts_with(&format!("{paper}-")) && !p.checks.is_empty() {
            out.push(p);
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no repro plan in `{}` for `{paper}` has a [[check]] (plans are named `{paper}-…`)",
            dir.display()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_parse_and_name_their_fields() {
        let t: Table = "kind = \"value\"\nclaim = \"c\"\nvalue = \"x[case=A]\"\nmatch = \">= 1.3\"\ndirection = \">= 1\"".parse().unwrap();
        let c = Check::from_table(&t, "check[0]").unwrap();
        assert_eq!(c.rule_text(), "`x[case=A]`: match ≥ 1.30, direction ≥ 1");
        let bad: Table =
            "kind = \"value\"\nclaim = \"c\"\nvalue = \"x\"\nmatch = \"= 2\"".parse().unwrap();
        assert!(Check::from_table(&bad, "check[0]")
            .unwrap_err()
            .contains("`check[0].match` must be a bound"));
        let unknown: Table =
            "kind = \"best\"\nclaim = \"c\"\ny = \"x\"\ncase = \"A\"\nmatch = 1\nwithn = 0.1"
                .parse()
                .unwrap();
        assert!(Check::from_table(&unknown, "check[1]")
            .unwrap_err()
            .contains("unknown field `check[1].withn`"));
    }

    #[test]
    fn bounds() {
        let b = Bound::parse("<= 2", "m").unwrap();
        assert!(b.holds(2.0) && !b.holds(2.5));
        let g = Bound::parse(">=0.95", "m").unwrap();
        assert!(g.holds(0.95) && !g.holds(0.9));
    }
}
