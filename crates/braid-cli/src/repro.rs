//! `braid repro ID --out DIR`: reproduce a paper figure from a plan file in the repository's
//! `repro/` folder (`repro/<ID>.toml`; the format is documented in `repro/README.md`).
//!
//! A repro plan is a sweep plan ([`crate::sweep`]) plus metadata (`id`, `paper`, `title`,
//! `claim`), a `[quick]` table of changes for a scaled-down smoke run, and one or more
//! `[[figure]]` tables ([`crate::plot::FigureSpec`]). `braid repro ID` checks that every run of
//! the plan is a valid scenario in this build — a plan that names a transport or routing kind that
//! is not available yet reports "needs …" and exits with code 2 — then runs the sweep (resumable),
//! draws the figures as `DIR/fig-<name>.png/.svg/.csv`, and writes `DIR/index.html`
//! ([`crate::report`]).

use std::fs;
use std::path::{Path, PathBuf};

use toml::{Table, Value};

use crate::plot::{build_figure, write_figure, FigureSpec, Results};
use crate::sweep::{self, Plan};

/// Top-level keys of a repro plan besides the sweep keys.
pub const REPRO_KEYS: &[&str] = &[
    "id",
    "paper",
    "title",
    "claim",
    "notes",
    "quick",
    "figure",
    "model",
    "model_changes",
    "check",
];

/// A parsed repro plan.
#[derive(Clone, Debug)]
pub struct ReproPlan {
    /// Id (`rondo-fig10`); the file is `repro/<id>.toml`.
    pub id: String,
    /// Paper and figure (`Rondo Fig 10`).
    pub paper: String,
    /// One-line description.
    pub title: String,
    /// The paper's claim this figure supports.
    pub claim: String,
    /// Notes: where Braid's set-up differs from the paper's, and why.
    pub notes: String,
    /// The sweep (full version).
    pub plan: Plan,
    /// Changes for `--quick`.
    pub quick: Option<Table>,
    /// Figures to draw.
    pub figures: Vec<FigureSpec>,
    /// `model`: the network profile every run of the plan keeps (`rondo-sim` for the Rondo
    /// evaluation); `None`: no model is enforced.
    pub model: Option<String>,
    /// `[model_changes]`: the model's fields this figure changes, each with the paper's words
    /// that change it (field, quote).
    pub model_changes: Vec<(String, String)>,
    /// `[[check]]`: the claims the evaluation table classes from this plan's runs.
    pub checks: Vec<crate::evaluate::Check>,
}

/// Whether a plan can run in this build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every run validates.
    Ready,
    /// Some runs need features or files that are not there yet (one entry per missing thing).
    Needs(Vec<String>),
}

impl Status {
    /// `ready`, `needs a, b`, or `invalid: …` for plans whose runs do not validate otherwise.
    pub fn text(&self) -> String {
        match self {
            Status::Ready => "ready".into(),
            Status::Needs(v) => {
                let (errs, needs): (Vec<&String>, Vec<&String>) =
                    v.iter().partition(|x| x.starts_with("error: "));
                let mut parts = Vec::new();
                if !needs.is_empty() {
                    parts.push(format!(
                        "needs {}",
                        needs.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ));
                }
                if !errs.is_empty() {
                    parts.push(format!(
                        "invalid: {}",
                        errs.iter().map(|s| &s[7..]).collect::<Vec<_>>().join("; ")
                    ));
                }
                parts.join("; ")
            }
        }
    }
}

impl ReproPlan {
    /// Read a repro plan file.
    pub fn load(path: &Path) -> Result<ReproPlan, String> {
        let text = fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let t: Table = text.parse().map_err(|e: toml::de::Error| {
            format!("{}: malformed TOML: {}", path.display(), e.message().trim())
        })?;
        Self::from_table(&t, path).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn from_table(t: &Table, path: &Path) -> Result<ReproPlan, String> {
        let s = |k: &str, req: bool| -> Result<String, String> {
            match t.get(k) {
                Some(Value::String(x)) => Ok(x.clone()),
                Some(o) => Err(format!("`{k}` must be a string, got {o}")),
                None if req => Err(format!("`{k}` is required")),
                None => Ok(String::new()),
            }
        };
        let id = s("id", true)?;
        let stem = path.file_stem().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default();
        if id != stem {
            return Err(format!("`id` is `{id}` but the file is named `{stem}.toml`"));
        }
        let plan = Plan::from_table(t, path, REPRO_KEYS)?;
        let quick = match t.get("quick") {
            None => None,
            Some(Value::Table(q)) => {
                for k in q.keys() {
                    if !["set", "seeds", "grid", "cases", "scenario"].contains(&k.as_str()) {
                        return Err(format!(
                            "unknown field `quick.{k}` (known: set, seeds, grid, cases, scenario)"
                        ));
                    }
                }
                Some(q.clone())
            }
            Some(_) => return Err("`quick` must be a table".into()),
        };
        let mut figures = Vec::new();
        match t.get("figure") {
            None => return Err("at least one `[[figure]]` is required".into()),
            Some(Value::Array(a)) => {
                for (i, f) in a.iter().enumerate() {
                    let ft = f
                        .as_table()
                        .ok_or_else(|| format!("`figure[{i}]` must be a table ([[figure]])"))?;
                    let spec = FigureSpec::from_table(ft, &format!("figure[{i}]"))?;
                    if figures.iter().any(|g: &FigureSpec| g.name == spec.name) {
                        return Err(format!("`figure[{i}].name`: `{}` is used twice", spec.name));
                    }
                    figures.push(spec);
                }
            }
            Some(_) => return Err("`figure` must be an array of tables ([[figure]])".into()),
        }
        let model = match t.get("model") {
            None => None,
            Some(Value::String(m)) => {
                crate::profile::check(Some(m)).map_err(|e| format!("`model`: {e}"))?;
                Some(m.clone())
            }
            Some(o) => return Err(format!("`model` must be a profile name (string), got {o}")),
        };
        let mut model_changes = Vec::new();
        match t.get("model_changes") {
            None => {}
            Some(Value::Table(c)) => {
                let Some(m) = &model else { return Err("`model_changes` needs `model`".into()) };
                let known = crate::profile::fields(m);
                for (k, v) in c {
                    let quote = v
                        .as_str()
                        .filter(|q| !q.trim().is_empty())
                        .ok_or_else(|| format!("`model_changes.\"{k}\"` must be the paper's words that change it (a string)"))?;
                    if !known.contains(k) {
                        return Err(format!("`model_changes.\"{k}\"`: `{k}` is not a field of the `{m}` model (its fields: {})", known.join(", ")));
                    }
                    model_changes.push((k.clone(), quote.to_string()));
                }
            }
            Some(_) => {
                return Err(
                    "`model_changes` must be a table of field = \"the paper's words\"".into()
                )
            }
        }
        let checks = match t.get("check") {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    c.as_table()
                        .ok_or_else(|| format!("`check[{i}]` must be a table ([[check]])"))
                        .and_then(|c| crate::evaluate::Check::from_table(c, &format!("check[{i}]")))
                })
                .collect::<Result<Vec<_>, String>>()?,
            Some(_) => return Err("`check` must be an array of tables ([[check]])".into()),
        };
        Ok(ReproPlan {
            id,
            paper: s("paper", true)?,
            title: s("title", true)?,
            claim: s("claim", true)?,
            notes: s("notes", false)?,
            plan,
            quick,
            figures,
            model,
            model_changes,
            checks,
        })
    }

    /// The fields a run may give a value other than the model's: the figure's own
    /// `model_changes`, what `[quick]` scales down (in a quick run), and `extra` (the
    /// alternatives a sensitivity run sets on the command line).
    fn allowed_changes(&self, quick: bool, extra: &[String]) -> Vec<String> {
        let mut ok: Vec<String> = self.model_changes.iter().map(|(k, _)| k.clone()).collect();
        if let (true, Some(q)) = (quick, &self.quick) {
            for part in ["set", "grid"] {
                if let Some(Value::Table(t)) = q.get(part) {
                    ok.extend(t.keys().cloned());
                }
            }
        }
        ok.extend(extra.iter().cloned());
        ok
    }

    /// Check that every run keeps the plan's `model`: it runs that network profile, and each field
    /// it gives a value other than the profile's is one the figure's text changes
    /// (`model_changes`), one `[quick]` scales down (quick runs), or one in `extra`. The error
    /// names every run and field that does not.
    pub fn check_model(
        &self,
        runs: &[sweep::RunSpec],
        scenarios: &[crate::scenario::Scenario],
        quick: bool,
        extra: &[String],
    ) -> Result<(), String> {
        let Some(model) = &self.model else { return Ok(()) };
        let ok = self.allowed_changes(quick, extra);
        let mut bad: Vec<String> = Vec::new();
        for (r, sc) in runs.iter().zip(scenarios) {
            if &sc.profile != model {
                bad.push(format!(
                    "run `{}` runs network.profile = \"{}\", not the plan's model `{model}`",
                    r.name, sc.profile
                ));
                continue;
            }
            let off: Vec<&String> =
                sc.profile_overrides.iter().filter(|f| !ok.contains(f)).collect();
            if !off.is_empty() {
                bad.push(format!(
                    "run `{}` changes {}",
                    r.name,
                    off.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        if bad.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{}: {} run(s) leave the `{model}` model without the figure's text saying so (a change the paper's text makes goes in the plan's [model_changes] with its words): {}",
            self.id,
            bad.len(),
            bad.join("; ")
        ))
    }

    /// The plan with the `[quick]` changes applied.
    pub fn quick_plan(&self) -> Result<Plan, String> {
        let mut p = self.plan.clone();
        let Some(q) = &self.quick else { return Ok(p) };
        let mut t = Table::new();
        if let Some(v) = q.get("set") {
            t.insert("set".into(), v.clone());
        }
        // A grid key given an empty list in `[quick]` is dropped from the grid (a quick run that
        // switches `workload.kind` must not keep setting the full run's `workload.file`).
        let mut dropped: Vec<String> = Vec::new();
        if let Some(v) = q.get("grid") {
            let mut g = v.as_table().cloned().ok_or("[quick] `grid` must be a table")?;
            g.retain(|k, v| {
                let empty = v.as_array().is_some_and(|a| a.is_empty());
                if empty {
                    dropped.push(k.to_string());
                }
                !empty
            });
            t.insert("grid".into(), Value::Table(g));
        }
        if let Some(v) = q.get("seeds") {
            t.insert("seeds".into(), v.clone());
        }
        // Parsing a plan needs a scenario; the placeholder is never used.
        t.insert(
            "scenario".into(),
            q.get("scenario").cloned().unwrap_or_else(|| Value::String("-".into())),
        );
        let qp = Plan::from_table(&t, &self.plan.file, &[]).map_err(|e| format!("[quick] {e}"))?;
        p.set.extend(qp.set);
        if q.contains_key("seeds") {
            p.seeds = qp.seeds;
        }
        if q.contains_key("scenario") {
            p.scenario = qp.scenario;
        }
        if !qp.grid_scenarios.is_empty() {
            p.grid_scenarios = qp.grid_scenarios;
        }
        p.grid.retain(|g| !dropped.contains(&g.0));
        for (k, vals) in qp.grid {
            match p.grid.iter_mut().find(|g| g.0 == k) {
                Some(g) => g.1 = vals,
                None => p.grid.push((k, vals)),
            }
        }
        p.grid.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(Value::Array(keep)) = q.get("cases") {
            let keep: Vec<&str> = keep.iter().filter_map(Value::as_str).collect();
            for k in &keep {
                if !p.cases.iter().any(|c| c.label == *k) {
                    return Err(format!("[quick] `cases`: no case labelled `{k}`"));
                }
            }
            p.cases.retain(|c| keep.contains(&c.label.as_str()));
        }
        Ok(p)
    }
}

/// Check that every run of `plan` validates. Errors that say a kind is not available in this
/// The network profiles (`network.profile`, `docs/ns3-equivalence.md`) the runs of `plan` use:
/// a `--set` of the run wins over its scenario file's field; none given is `braid`.
pub fn profiles(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in plan.expand() {
        let set = r.sets.iter().rev().find_map(|s| {
            s.strip_prefix("network.profile=").map(|v| v.trim().trim_matches('"').to_string())
        });
        let p = set.or_else(|| {
            let t: Table = fs::read_to_string(&r.scenario).ok()?.parse().ok()?;
            t.get("network")?.get("profile")?.as_str().map(str::to_string)
        });
        let p = p.unwrap_or_else(|| "braid".into());
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// build, or a missing scenario file, become "needs …" entries; any other error is reported as
/// `error: …` (also a reason not to run).
pub fn status(plan: &Plan) -> Status {
    let mut needs: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for r in plan.expand() {
        if !seen.insert((r.scenario.clone(), r.sets.clone())) {
            continue;
        }
        if !r.scenario.is_file() {
            let n = format!("scenario file {}", r.scenario.display());
            if !needs.contains(&n) {
                needs.push(n);
            }
            continue;
        }
        if let Err(e) = sweep::load_run(&r) {
            let n = classify(&e);
            if !needs.contains(&n) {
                needs.push(n);
            }
        }
    }
    if needs.is_empty() {
        Status::Ready
    } else {
        Status::Needs(needs)
    }
}

/// Turn a validation error into a short "needs" item: `transport.kind=rondo` for kinds that are
/// part of the scenario contract but not in this build, else `error: <message>`.
pub fn classify(e: &str) -> String {
    if let Some(i) = e.find("is part of Braid's scenario contract") {
        // "...`transport.kind`: transport kind `rondo` is part of ..." or "`routing.kind`: `lcmp` is part of ..."
        let head = &e[..i];
        let kind = head.rsplit('`').nth(1).unwrap_or("?");
        let field = head.split('`').nth(1).filter(|f| f.contains('.')).unwrap_or("kind");
        return format!("{field}={kind}");
    }
    let short: String = e.chars().take(160).collect();
    format!("error: {short}")
}

/// Where repro plans live: `--plans`, else `repro/` in the working directory or one of its
/// parents, else the source tree this binary was built from.
pub fn plans_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Ok(cwd) = std::env::current_dir() {
        for a in cwd.ancestors() {
            let c = a.join("repro");
            if c.join("README.md").is_file() {
                return c;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../repro")
}

/// Every repro plan in `dir`, sorted by paper then figure number.
pub fn list(dir: &Path) -> Result<Vec<Result<ReproPlan, String>>, String> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read repro plans in `{}`: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort_by_key(|p| {
        sort_key(&p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default())
    });
    Ok(files.iter().map(|f| ReproPlan::load(f)).collect())
}

fn sort_key(id: &str) -> (String, u32, String) {
    let (prefix, rest) = id.split_once("-fig").unwrap_or((id, ""));
    let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    (prefix.to_string(), n.parse().unwrap_or(0), rest.to_string())
}

/// Options of `braid repro ID`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output folder.
    pub out: PathBuf,
    /// Run the `[quick]` version.
    pub quick: bool,
    /// Parallel runs.
    pub jobs: Option<usize>,
    /// Progress bar.
    pub progress: bool,
    /// `--set table.field=value` for every run, applied before the plan's own overrides (a
    /// sensitivity run: the model with one open choice made the other way).
    pub sets: Vec<String>,
}

/// What `braid repro` produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Figure files written.
    pub files: Vec<PathBuf>,
    /// Sweep summary.
    pub sweep: sweep::Report,
    /// Figures that could not be drawn: (name, message).
    pub figure_errors: Vec<(String, String)>,
    /// Figures left out of a quick run because it runs none of their cases.
    pub skipped_figures: Vec<String>,
    /// Caption lines of each figure (name, lines).
    pub captions: Vec<(String, Vec<String>)>,
}

/// Run a repro plan: validate, sweep, draw, report. `Err` with exit code 2 semantics is
/// returned as `Err((2, msg))` for plans that cannot run in this build or bad input.
pub fn run(rp: &ReproPlan, opt: &Options) -> Result<Outcome, (u8, String)> {
    let mut plan = if opt.quick {
        rp.quick_plan().map_err(|e| (2, format!("{}: {e}", rp.id)))?
    } else {
        rp.plan.clone()
    };
    let mut cli_fields = Vec::new();
    let mut cli_sets = Vec::new();
    for s in &opt.sets {
        let (k, raw) = s
            .split_once('=')
            .ok_or_else(|| (2, format!("--set `{s}`: expected table.field=value")))?;
        let val = format!("v = {}", raw.trim())
            .parse::<Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or(Value::String(raw.trim().to_string()));
        cli_fields.push(k.trim().to_string());
        cli_sets.push((k.trim().to_string(), val));
    }
    cli_sets.append(&mut plan.set);
    plan.set = cli_sets;
    let st = status(&plan);
    if st != Status::Ready {
        return Err((2, format!("{}: cannot run in this build: {}", rp.id, st.text())));
    }
    let runs = plan.expand();
    let scenarios = sweep::load_all(&runs).map_err(|e| (2, e))?;
    rp.check_model(&runs, &scenarios, opt.quick, &cli_fields).map_err(|e| (2, e))?;
    let sw = sweep::execute(
        &plan,
        &runs,
        scenarios,
        &sweep::Options { out: opt.out.clone(), jobs: opt.jobs, progress: opt.progress },
    )
    .map_err(|e| (1, e))?;
    let meta = format!(
        "# Written by `braid repro`.\nid = {:?}\nquick = {}\nbraid_version = {:?}\nseeds = {:?}\nsets = {:?}\n",
        rp.id,
        opt.quick,
        env!("CARGO_PKG_VERSION"),
        plan.seeds,
        opt.sets
    );
    fs::write(opt.out.join("repro.toml"), meta)
        .map_err(|e| (1, format!("cannot write repro.toml: {e}")))?;
    let res = Results::load(&opt.out).map_err(|e| (1, e))?;
    let mut out = Outcome { sweep: sw, ..Default::default() };
    for f in &rp.figures {
        match build_figure(f, &res).and_then(|fig| {
            let files = write_figure(&fig, &opt.out.join(format!("fig-{}", f.name)))?;
            Ok((fig.caption, files))
        }) {
            Ok((cap, files)) => {
                out.captions.push((f.name.clone(), cap));
                out.files.extend(files);
            }
            // A quick run may leave out the cases a figure draws.
            Err(e)
                if opt.quick
                    && e.contains("no successful run matches")
                    && f.filter.iter().any(|_| true) =>
            {
                out.skipped_figures.push(f.name.clone());
            }
            Err(e) => out.figure_errors.push((f.name.clone(), e)),
        }
    }
    crate::report::write_report(&opt.out).map_err(|e| (1, e))?;
    Ok(out)
}
