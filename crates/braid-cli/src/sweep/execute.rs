//! Running a plan's runs: each in its own folder (skipped when complete with the same resolved
//! scenario), in parallel, cancellable; then the plan's figures, its inputs copied beside the
//! runs and `runs.csv`.

use super::*;

/// Load (validate) the scenario of a run.
pub fn load_run(r: &RunSpec) -> Result<Scenario, String> {
    scenario::load(&r.scenario, &r.sets, r.seed)
}

/// Whether `dir` already holds the complete outputs of `sc`.
pub fn is_complete(dir: &Path, sc: &Scenario) -> bool {
    dir.join("summary.json").is_file()
        && fs::read_to_string(dir.join("scenario.resolved.toml"))
            .map(|t| t == sc.resolved_toml)
            .unwrap_or(false)
}

/// Remove the folders under `runs_dir` that are not runs of this plan (an earlier plan's, written
/// into the same `--out`), so that nothing there is read as this plan's; returns their names.
pub fn remove_other_runs(runs_dir: &Path, runs: &[RunSpec]) -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(runs_dir) else { return Ok(removed) };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() && !runs.iter().any(|r| r.name == name) {
            fs::remove_dir_all(e.path()).map_err(|err| {
                format!("cannot remove `{}`, a run not in this plan: {err}", e.path().display())
            })?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
}

/// Validate every run of a plan up front. Errors name the run.
pub fn load_all(runs: &[RunSpec]) -> Result<Vec<Scenario>, String> {
    runs.iter().map(|r| load_run(r).map_err(|e| format!("run `{}`: {e}", r.name))).collect()
}

/// One run of a sweep into `dir` (a stale `summary.json` removed first): run, write the outputs,
/// check packet conservation. A panic in the run (a bug) is returned as an error, so it does not
/// take the other runs down. The error is what `runs.csv` shows after `failed: `. `cancel`: as
/// for [`crate::run::run_cancellable`].
pub fn run_one(dir: &Path, sc: &Scenario, cancel: &AtomicBool) -> Result<(), String> {
    let _ = fs::remove_file(dir.join("summary.json"));
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::run::run_cancellable(sc, false, cancel, |_| {}).and_then(|rr| {
            if cancel.load(Ordering::Relaxed) && rr.end == braid_net::sim::RunEnd::Interrupted {
                return Err(INTERRUPTED.into());
            }
            crate::run::write_outputs(dir, sc, &rr)?;
            rr.sim.conservation().map_err(|e| format!("packet conservation violated: {e}"))
        })
    }))
    .unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        Err(format!("the simulator panicked: {msg}"))
    })
}

/// The error of [`execute_cancellable`] (and of a run in it) when `cancel` was set.
pub const INTERRUPTED: &str = "interrupted";

/// Run the plan's runs that are not complete yet, `jobs` at a time, then write `runs.csv`.
pub fn execute(
    plan: &Plan,
    runs: &[RunSpec],
    scenarios: Vec<Scenario>,
    opt: &Options,
) -> Result<Report, String> {
    execute_cancellable(plan, runs, scenarios, opt, &AtomicBool::new(false))
}

/// [`execute`] that stops when `cancel` is set: the runs in flight end within milliseconds
/// (unwritten), no further run starts, `runs.csv` is not written and the result is
/// `Err(INTERRUPTED)`; the runs that completed are kept (a later sweep skips them).
pub fn execute_cancellable(
    plan: &Plan,
    runs: &[RunSpec],
    scenarios: Vec<Scenario>,
    opt: &Options,
    cancel: &AtomicBool,
) -> Result<Report, String> {
    let runs_dir = opt.out.join("runs");
    fs::create_dir_all(&runs_dir)
        .map_err(|e| format!("cannot create `{}`: {e}", runs_dir.display()))?;
    copy_inputs(plan, &opt.out)?;
    let mut pending = Vec::new();
    let mut report = Report { removed: remove_other_runs(&runs_dir, runs)?, ..Report::default() };
    for (r, sc) in runs.iter().zip(scenarios) {
        if is_complete(&runs_dir.join(&r.name), &sc) {
            report.skipped += 1;
        } else {
            pending.push((r, sc));
        }
    }
    let jobs = opt
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .max(1);
    let bar = if opt.progress && !pending.is_empty() {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(pending.len() as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs  ETA {eta_precise}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.set_message(format!("{} skipped, {jobs} at a time", report.skipped));
        b.enable_steady_tick(std::time::Duration::from_millis(500));
        Some(b)
    } else {
        None
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(64 << 20)
        .build()
        .map_err(|e| format!("cannot start worker threads: {e}"))?;
    let done = AtomicUsize::new(0);
    let start = Instant::now();
    let failed: Vec<(String, String)> = pool.install(|| {
        pending
            .par_iter()
            .with_max_len(1)
            .filter_map(|(r, sc)| {
                let res = if cancel.load(Ordering::Relaxed) {
                    Err(INTERRUPTED.into())
                } else {
                    run_one(&runs_dir.join(&r.name), sc, cancel)
                };
                done.fetch_add(1, Ordering::Relaxed);
                if let Some(b) = &bar {
                    b.inc(1);
                    b.set_message(r.name.clone());
                }
                res.err().map(|e| (r.name.clone(), e))
            })
            .collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let _ = start;
    if cancel.load(Ordering::Relaxed) {
        return Err(INTERRUPTED.into());
    }
    report.ran = pending.len();
    report.failed = failed;
    write_runs_csv(&opt.out, plan, runs, &report.failed)?;
    Ok(report)
}

/// Draw a plan's `[[figure]]`s from `out/runs.csv` into `out/fig-<name>.png/.svg/.csv`. Returns
/// each figure's PNG path or its error, in order.
pub fn draw_figures(out: &Path, figures: &[FigureSpec]) -> Vec<Result<PathBuf, String>> {
    if figures.is_empty() {
        return Vec::new();
    }
    match crate::plot::Results::load(out) {
        Ok(res) => figures
            .iter()
            .map(|f| {
                crate::plot::build_figure(f, &res)
                    .and_then(|fig| {
                        crate::plot::write_figure(&fig, &out.join(format!("fig-{}", f.name)))
                    })
                    .map(|files| files[0].clone())
                    .map_err(|e| format!("figure `{}`: {e}", f.name))
            })
            .collect(),
        Err(e) => vec![Err(e)],
    }
}

/// Copy the plan file and its scenario files into `out` (`OUT/plan.toml`, `OUT/scenarios/`).
pub fn copy_inputs(plan: &Plan, out: &Path) -> Result<(), String> {
    fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    if let Ok(t) = fs::read_to_string(&plan.file) {
        fs::write(out.join("plan.toml"), t)
            .map_err(|e| format!("cannot write `{}`: {e}", out.join("plan.toml").display()))?;
    }
    let sdir = out.join("scenarios");
    fs::create_dir_all(&sdir).map_err(|e| format!("cannot create `{}`: {e}", sdir.display()))?;
    for s in plan.scenario_files() {
        if let (Some(name), Ok(t)) = (s.file_name(), fs::read_to_string(&s)) {
            fs::write(sdir.join(name), t)
                .map_err(|e| format!("cannot write scenario copy: {e}"))?;
        }
    }
    Ok(())
}

/// Write `OUT/runs.csv` from the runs' `summary.json` files (see the module docs for columns).
pub fn write_runs_csv(
    out: &Path,
    plan: &Plan,
    runs: &[RunSpec],
    failed: &[(String, String)],
) -> Result<(), String> {
    let mut summaries = Vec::with_capacity(runs.len());
    let mut fields: Vec<String> = Vec::new();
    for r in runs {
        let p = out.join("runs").join(&r.name).join("summary.json");
        let s = read_summary(&p).unwrap_or_default();
        for (k, _) in &s {
            if !WALL_CLOCK_FIELDS.contains(&k.as_str()) && !fields.contains(k) {
                fields.push(k.clone());
            }
        }
        summaries.push(s);
    }
    let mut header: Vec<String> = vec!["run".into()];
    let has_cases = !plan.cases.is_empty();
    if has_cases {
        header.push("case".into());
    }
    header.push("scenario_file".into());
    header.extend(plan.grid.iter().map(|(k, _)| k.clone()));
    header.push("status".into());
    header.extend(fields.iter().cloned());
    let mut text = header.iter().map(|h| csv_cell(h)).collect::<Vec<_>>().join(",");
    text.push('\n');
    let base = plan.file.parent().map(Path::to_path_buf).unwrap_or_default();
    for (r, s) in runs.iter().zip(&summaries) {
        let mut row: Vec<String> = vec![r.name.clone()];
        if has_cases {
            row.push(r.case.clone().unwrap_or_default());
        }
        let sf = r.scenario.strip_prefix(&base).unwrap_or(&r.scenario);
        row.push(sf.to_string_lossy().into_owned());
        row.extend(r.params.iter().map(|(_, v)| v.clone()));
        let status = match failed.iter().find(|f| f.0 == r.name) {
            Some((_, e)) => format!("failed: {e}"),
            None if s.is_empty() => "missing".into(),
            None => {
                if s.iter().any(|(k, v)| k == "conservation_ok" && v == "false") {
                    "failed: packet conservation violated".into()
                } else {
                    "ok".into()
                }
            }
        };
        row.push(status);
        for f in &fields {
            row.push(s.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()).unwrap_or_default());
        }
        text.push_str(&row.iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(","));
        text.push('\n');
    }
    let p = out.join("runs.csv");
    let tmp = out.join(".runs.csv.tmp");
    fs::write(&tmp, text).map_err(|e| format!("cannot write `{}`: {e}", tmp.display()))?;
    fs::rename(&tmp, &p).map_err(|e| format!("cannot write `{}`: {e}", p.display()))
}
