//! `braid._native`: the Rust half of the `braid` Python package (`python/braid/`).
//!
//! The glue is deliberately thin: every scenario is read by `braid_cli::scenario`, every run
//! writes its files with `braid_cli::run::write_outputs`, and `runs.csv` is written by
//! `braid_cli::sweep::write_runs_csv`, so the package produces the bytes the `braid` binary
//! produces. Python builds Arrow tables from those files (`pyarrow.csv`); no Arrow crate here.
//!
//! What this module adds to the CLI's library:
//!
//! - Runs happen with the GIL released, on a background thread; the calling thread wakes every
//!   [`POLL`] to call `PyErr_CheckSignals`, so Ctrl-C raises `KeyboardInterrupt`. The run itself
//!   is stopped through a cancellation flag read by `Sim::run`'s progress callback (every 65,536
//!   events): `braid_cli::run::run_cancellable`.
//! - [`Plan`]: a sweep plan whose runs execute here on a rayon pool ([`Plan::run_local`]) or one
//!   at a time anywhere ([`sweep_run`], the body of a Ray task); the driver then writes `runs.csv`.
//! - Conversions: a Python dict to scenario TOML ([`to_toml`]), `--set` strings from a dict,
//!   Braid's float format for `braid.to_csv` ([`fmt_floats`]).
//!
//! Errors: bad input raises `braid.ScenarioError` with the CLI's message (exit code 2 there);
//! other failures raise `braid.BraidError`. The Python classes live in `braid/_errors.py`.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use braid_cli::plot::FigureSpec;
use braid_cli::run::{self, RunResult};
use braid_cli::scenario::{self, Scenario};
use braid_cli::sweep::{self, RunSpec};
use braid_net::sim::RunEnd;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use rayon::prelude::*;

/// How often a waiting call wakes to check for Ctrl-C (and report sweep progress).
const POLL: Duration = Duration::from_millis(50);

/// Stack size of the threads that run simulations (as `braid sweep`'s workers).
const STACK: usize = 64 << 20;

/// The message a run stopped by the cancellation flag reports.
const CANCELLED: &str = sweep::INTERRUPTED;

// ---------------------------------------------------------------------------------------------
// Errors

fn py_error(py: Python<'_>, class: &str, msg: String) -> PyErr {
    let made = py
        .import("braid._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((msg.clone(),)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// `braid.ScenarioError` (a `ValueError`): bad scenario or plan, the CLI's exit code 2.
fn scenario_error(py: Python<'_>, msg: String) -> PyErr {
    py_error(py, "ScenarioError", msg)
}

/// `braid.BraidError`: anything else that went wrong (cannot write, a simulator panic).
fn braid_error(py: Python<'_>, msg: String) -> PyErr {
    py_error(py, "BraidError", msg)
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

/// Run `f`, turning a panic into an error message (bad input must never crash Python).
fn no_panic<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|p| Err(format!("{what} panicked: {}", panic_text(p))))
}

// ---------------------------------------------------------------------------------------------
// Waiting without the GIL

/// Run `work` on a background thread (GIL released) while this thread checks for signals every
/// [`POLL`]. `tick` runs with the GIL at each wake-up (sweep progress). When a signal handler
/// raises (Ctrl-C → `KeyboardInterrupt`), `cancel` is set, the work is awaited (it stops within
/// milliseconds) and the exception is returned.
fn detached<T: Send>(
    py: Python<'_>,
    cancel: &AtomicBool,
    work: impl FnOnce() -> T + Send,
    mut tick: impl FnMut(Python<'_>) -> PyResult<()> + Send,
) -> PyResult<T> {
    let (out, interrupt) = py.detach(|| {
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel::<()>();
            let spawned = std::thread::Builder::new()
                .name("braid-run".into())
                .stack_size(STACK)
                .spawn_scoped(s, move || {
                    let r = work();
                    let _ = tx.send(());
                    r
                });
            let handle = match spawned {
                Ok(h) => h,
                Err(e) => return (Err(format!("cannot start a thread: {e}")), None),
            };
            let mut interrupt: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(POLL) {
                    Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
                if interrupt.is_none() {
                    if let Err(e) = Python::attach(|py| py.check_signals().and_then(|_| tick(py))) {
                        cancel.store(true, Ordering::Relaxed);
                        interrupt = Some(e);
                    }
                }
            }
            (
                handle.join().map_err(|p| format!("the simulator panicked: {}", panic_text(p))),
                interrupt,
            )
        })
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    out.map_err(|e| braid_error(py, e))
}

// ---------------------------------------------------------------------------------------------
// Running

/// `braid_cli::run::run_cancellable` with the offered-load warnings `braid run` prints collected
/// into `warnings`; a run stopped by `cancel` is an error.
fn run_cancellable(
    sc: &Scenario,
    cancel: &AtomicBool,
    warnings: &mut Vec<String>,
) -> Result<RunResult, String> {
    let r = run::run_cancellable(sc, false, cancel, |load| warnings.extend(load.warnings(5)))?;
    if cancel.load(Ordering::Relaxed) && r.end == RunEnd::Interrupted {
        return Err(CANCELLED.into());
    }
    Ok(r)
}

/// One run of a sweep into `dir`: `braid_cli::sweep::run_one`, the code of `braid sweep`'s workers.
fn sweep_run_into(dir: &Path, sc: &Scenario, cancel: &AtomicBool) -> Result<(), String> {
    sweep::run_one(dir, sc, cancel)
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/// A validated scenario (`braid_cli::scenario::Scenario`), from a file or from TOML text.
#[pyclass(module = "braid._native", frozen)]
struct NativeScenario {
    sc: Scenario,
    /// The file it came from (`None`: TOML text), for messages as the CLI prints them.
    path: Option<String>,
}

/// Read a scenario: from `path`, or from `text` with file paths inside resolved against the
/// current directory. `sets` are `--set` strings, `seed` the `--seed` override.
#[pyfunction]
#[pyo3(signature = (path, text, sets, seed))]
fn load_scenario(
    py: Python<'_>,
    path: Option<String>,
    text: Option<String>,
    sets: Vec<String>,
    seed: Option<u64>,
) -> PyResult<NativeScenario> {
    let res = py.detach(|| {
        no_panic("reading the scenario", || match (&path, &text) {
            (Some(p), _) => scenario::load(Path::new(p), &sets, seed),
            (None, Some(t)) => {
                let base = std::env::current_dir().unwrap_or_default();
                scenario::parse(t, &base, &sets, seed)
            }
            (None, None) => Err("no scenario given".into()),
        })
    });
    match res {
        Ok(sc) => Ok(NativeScenario { sc, path }),
        Err(e) => Err(scenario_error(py, e)),
    }
}

#[pymethods]
impl NativeScenario {
    /// The scenario after overrides, as `scenario.resolved.toml` holds it.
    #[getter]
    fn resolved(&self) -> String {
        self.sc.resolved_toml.clone()
    }

    /// The scenario's `name`.
    #[getter]
    fn name(&self) -> String {
        self.sc.name.clone()
    }

    /// The seed the run uses.
    #[getter]
    fn seed(&self) -> u64 {
        self.sc.seed
    }

    /// What `braid validate` checks: build the simulator. Returns (hosts, links, flows).
    fn check(&self, py: Python<'_>) -> PyResult<(usize, usize, usize)> {
        let res =
            py.detach(|| no_panic("building the scenario", || braid_cli::build::build(&self.sc)));
        match res {
            Ok((sim, _)) => Ok((sim.n_hosts(), self.sc.topology.links.len(), sim.flows().len())),
            Err(e) => Err(scenario_error(
                py,
                match &self.path {
                    Some(p) => format!("{p}: {e}"),
                    None => e,
                },
            )),
        }
    }

    /// Run, GIL released, and write every output into `dir` (`braid run`'s files). Returns a
    /// dict: `run_end`, `stopped_early`, `stuck_message` (a stopped-early run's explanation),
    /// `conservation_error`, `warnings` (offered-load warnings) and `human` (the terminal summary).
    fn run<'py>(&self, py: Python<'py>, dir: PathBuf) -> PyResult<Bound<'py, PyDict>> {
        let cancel = AtomicBool::new(false);
        let sc = &self.sc;
        let outcome = detached(
            py,
            &cancel,
            || {
                let mut warnings = Vec::new();
                let r = run_cancellable(sc, &cancel, &mut warnings)?;
                run::write_outputs(&dir, sc, &r).map_err(|e| format!("\0write:{e}"))?;
                let stuck = r.end.stopped_early().then(|| run::stuck_message(&r));
                Ok::<_, String>((
                    r.end,
                    stuck,
                    r.sim.conservation().err(),
                    warnings,
                    run::human_summary(sc, &r),
                ))
            },
            |_| Ok(()),
        )?;
        match outcome {
            Ok((end, stuck, cons, warnings, human)) => {
                let d = PyDict::new(py);
                d.set_item("run_end", braid_cli::run::run_end_name(end))?;
                d.set_item("stopped_early", end.stopped_early())?;
                d.set_item("stuck_message", stuck)?;
                d.set_item("conservation_error", cons)?;
                d.set_item("warnings", warnings)?;
                d.set_item("human", human)?;
                Ok(d)
            }
            Err(e) => match e.strip_prefix("\0write:") {
                Some(w) => Err(braid_error(py, w.to_string())),
                // `braid run` reports a build error with exit code 2.
                None => Err(scenario_error(py, e)),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sweeps

/// A sweep plan (`braid_cli::sweep::Plan`) with its expanded runs and `[[figure]]`s.
#[pyclass(module = "braid._native", frozen)]
struct Plan {
    plan: sweep::Plan,
    runs: Vec<RunSpec>,
    figures: Vec<FigureSpec>,
    /// The plan's TOML text (copied to `OUT/plan.toml`).
    text: String,
    /// The plan file as given (`None`: a plan made from a dict), for messages.
    label: Option<String>,
}

fn figures_of(t: &toml::Table) -> Result<Vec<FigureSpec>, String> {
    match t.get("figure") {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let ft = f.as_table().ok_or_else(|| format!("`figure[{i}]` must be a table"))?;
                FigureSpec::from_table(ft, &format!("figure[{i}]"))
            })
            .collect(),
        Some(_) => Err("`figure` must be an array of tables ([[figure]])".into()),
    }
}

/// Read a plan: the file `path` (as `braid sweep PATH` does), or TOML `text` whose relative
/// paths resolve against the folder of `file` (the plan's stand-in file name).
#[pyfunction]
#[pyo3(signature = (path, text, file=None))]
fn load_plan(
    py: Python<'_>,
    path: Option<String>,
    text: Option<String>,
    file: Option<PathBuf>,
) -> PyResult<Plan> {
    let res = no_panic("reading the plan", || {
        let (text, file) = match (path, text) {
            (Some(p), _) => {
                let p = PathBuf::from(p);
                let plan = sweep::Plan::load(&p)?;
                let figures = sweep::Plan::figures(&p)?;
                let text = fs::read_to_string(&p).unwrap_or_default();
                let runs = plan.expand();
                return Ok(Plan {
                    plan,
                    runs,
                    figures,
                    text,
                    label: Some(p.display().to_string()),
                });
            }
            (None, Some(t)) => (t, file.unwrap_or_else(|| PathBuf::from("plan.toml"))),
            (None, None) => return Err("no plan given".into()),
        };
        let t: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            format!("plan: malformed TOML: {}", e.message().trim())
        })?;
        let plan = sweep::Plan::from_table(&t, &file, sweep::PLAN_EXTRA_KEYS)?;
        let figures = figures_of(&t)?;
        let runs = plan.expand();
        Ok(Plan { plan, runs, figures, text, label: None })
    });
    res.map_err(|e| scenario_error(py, e))
}

fn spec_dict<'py>(py: Python<'py>, r: &RunSpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &r.name)?;
    d.set_item("scenario", r.scenario.to_string_lossy().into_owned())?;
    d.set_item("case", &r.case)?;
    d.set_item("params", r.params.clone())?;
    d.set_item("seed", r.seed)?;
    d.set_item("sets", r.sets.clone())?;
    Ok(d)
}

#[pymethods]
impl Plan {
    /// The runs, in order: dicts with `name`, `scenario`, `case`, `params`, `seed`, `sets`.
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.runs.iter().map(|r| spec_dict(py, r)).collect()
    }

    /// The grid keys (columns of `runs.csv` after `scenario_file`).
    #[getter]
    fn grid_keys(&self) -> Vec<String> {
        self.plan.grid.iter().map(|g| g.0.clone()).collect()
    }

    /// Validate every run (`braid sweep` does so before running anything), create
    /// `out/runs/`, remove the run folders there that are not this plan's, copy the plan and its
    /// scenarios into `out`, and return the indices of the runs whose outputs are not complete
    /// yet (the others are reused, as by `braid sweep`) and the names of the folders removed.
    fn prepare(&self, py: Python<'_>, out: PathBuf) -> PyResult<(Vec<usize>, Vec<String>)> {
        let res = py.detach(|| {
            let scenarios = no_panic("reading the scenarios", || sweep::load_all(&self.runs))
                .map_err(|e| (true, e))?;
            let runs_dir = out.join("runs");
            fs::create_dir_all(&runs_dir)
                .map_err(|e| (false, format!("cannot create `{}`: {e}", runs_dir.display())))?;
            let removed =
                sweep::remove_other_runs(&runs_dir, &self.runs).map_err(|e| (false, e))?;
            copy_inputs(&self.plan, &self.text, &out).map_err(|e| (false, e))?;
            let pending = self
                .runs
                .iter()
                .zip(&scenarios)
                .enumerate()
                .filter(|(_, (r, sc))| !sweep::is_complete(&runs_dir.join(&r.name), sc))
                .map(|(i, _)| i)
                .collect();
            Ok((pending, removed))
        });
        res.map_err(|(bad_input, e)| {
            if bad_input {
                scenario_error(
                    py,
                    match &self.label {
                        Some(l) => format!("{l}: {e}"),
                        None => format!("plan: {e}"),
                    },
                )
            } else {
                braid_error(py, e)
            }
        })
    }

    /// Run the runs `pending` (indices) into `out/runs/<run>/`, `jobs` at a time on a rayon pool
    /// (default: the number of cores), GIL released. `progress(done)` is called as runs finish.
    /// Returns the failed runs as (name, message). Ctrl-C stops every run and raises.
    #[pyo3(signature = (out, pending, jobs=None, progress=None))]
    fn run_local(
        &self,
        py: Python<'_>,
        out: PathBuf,
        pending: Vec<usize>,
        jobs: Option<usize>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Vec<(String, String)>> {
        let scenarios = py.detach(|| {
            pending.iter().map(|&i| sweep::load_run(&self.runs[i])).collect::<Result<Vec<_>, _>>()
        });
        let scenarios = scenarios.map_err(|e| scenario_error(py, e))?;
        let jobs = jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
            .max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .stack_size(STACK)
            .build()
            .map_err(|e| braid_error(py, format!("cannot start worker threads: {e}")))?;
        let cancel = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let runs_dir = out.join("runs");
        let work: Vec<(&RunSpec, &Scenario)> =
            pending.iter().map(|&i| &self.runs[i]).zip(&scenarios).collect();
        let mut reported = 0;
        let failed = detached(
            py,
            &cancel,
            || {
                pool.install(|| {
                    work.par_iter()
                        .with_max_len(1)
                        .filter_map(|(r, sc)| {
                            let res = if cancel.load(Ordering::Relaxed) {
                                Err(CANCELLED.to_string())
                            } else {
                                sweep_run_into(&runs_dir.join(&r.name), sc, &cancel)
                            };
                            done.fetch_add(1, Ordering::Relaxed);
                            res.err().map(|e| (r.name.clone(), e))
                        })
                        .collect::<Vec<_>>()
                })
            },
            |py| {
                let n = done.load(Ordering::Relaxed);
                if n != reported {
                    reported = n;
                    if let Some(cb) = &progress {
                        cb.call1(py, (n,))?;
                    }
                }
                Ok(())
            },
        )?;
        if let Some(cb) = &progress {
            cb.call1(py, (done.load(Ordering::Relaxed),))?;
        }
        Ok(failed)
    }

    /// Write `out/runs.csv` from the runs' `summary.json` files (`braid sweep`'s code);
    /// `failed` are (run, message) pairs.
    fn write_runs_csv(
        &self,
        py: Python<'_>,
        out: PathBuf,
        failed: Vec<(String, String)>,
    ) -> PyResult<()> {
        py.detach(|| sweep::write_runs_csv(&out, &self.plan, &self.runs, &failed))
            .map_err(|e| braid_error(py, e))
    }

    /// Draw the plan's `[[figure]]`s into `out` and write `out/index.html`, as `braid sweep`
    /// does. Returns the error messages (empty: all drawn, or no figures).
    fn draw_figures(&self, py: Python<'_>, out: PathBuf) -> Vec<String> {
        py.detach(|| {
            if self.figures.is_empty() {
                return Vec::new();
            }
            let mut errors: Vec<String> = sweep::draw_figures(&out, &self.figures)
                .into_iter()
                .filter_map(Result::err)
                .collect();
            if let Err(e) = braid_cli::report::write_report(&out) {
                errors.push(e);
            }
            errors
        })
    }
}

/// Copy the plan and its scenario files into `out` (`braid_cli::sweep::copy_inputs`); the plan's
/// text is written to `out/plan.toml` too, so a plan made from a dict is copied as well.
fn copy_inputs(plan: &sweep::Plan, text: &str, out: &Path) -> Result<(), String> {
    sweep::copy_inputs(plan, out)?;
    fs::write(out.join("plan.toml"), text)
        .map_err(|e| format!("cannot write `{}`: {e}", out.join("plan.toml").display()))
}

/// One sweep run anywhere (the body of a Ray task): read the scenario from `text` (the file
/// `scenario`'s contents, shipped by the driver; its relative paths resolve against the file's
/// folder) or from the file itself, apply `sets` and `seed`, run (GIL released, Ctrl-C stops it)
/// and write the outputs into `dir`. Returns `None`, or the failure `runs.csv` reports.
#[pyfunction]
#[pyo3(signature = (scenario, text, sets, seed, dir))]
fn sweep_run(
    py: Python<'_>,
    scenario: String,
    text: Option<String>,
    sets: Vec<String>,
    seed: Option<u64>,
    dir: PathBuf,
) -> PyResult<Option<String>> {
    let cancel = AtomicBool::new(false);
    detached(
        py,
        &cancel,
        || {
            let path = Path::new(&scenario);
            let sc = no_panic("reading the scenario", || match &text {
                Some(t) => scenario::parse(t, path.parent().unwrap_or(Path::new("")), &sets, seed)
                    .map_err(|e| format!("{}: {e}", path.display())),
                None => scenario::load(path, &sets, seed),
            })?;
            sweep_run_into(&dir, &sc, &cancel)
        },
        |_| Ok(()),
    )
    .map(|r| r.err())
}

// ---------------------------------------------------------------------------------------------
// Conversions

/// A Python value as a TOML value; `at` names it in errors.
fn py_to_toml(v: &Bound<'_, PyAny>, at: &str) -> Result<toml::Value, String> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(toml::Value::Boolean(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return v
            .extract::<i64>()
            .map(toml::Value::Integer)
            .map_err(|_| format!("`{at}`: {v} does not fit a 64-bit TOML integer"));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(toml::Value::Float(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_string()));
    }
    if v.hasattr("__fspath__").unwrap_or(false) {
        let p = v.call_method0("__fspath__").map_err(|e| e.to_string())?;
        return Ok(toml::Value::String(p.to_string()));
    }
    if let Ok(m) = v.cast::<PyMapping>() {
        return mapping_to_table(m, at).map(toml::Value::Table);
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut a = Vec::new();
        for (i, x) in v.try_iter().map_err(|e| e.to_string())?.enumerate() {
            let x = x.map_err(|e| e.to_string())?;
            a.push(py_to_toml(&x, &format!("{at}[{i}]"))?);
        }
        return Ok(toml::Value::Array(a));
    }
    let ty = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(format!("`{at}`: a {ty} has no TOML form (use str, int, float, bool, list or dict)"))
}

fn mapping_to_table(m: &Bound<'_, PyMapping>, at: &str) -> Result<toml::Table, String> {
    let mut t = toml::Table::new();
    let items = m.items().map_err(|e| e.to_string())?;
    for kv in items.iter() {
        let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
            kv.extract().map_err(|e: PyErr| e.to_string())?;
        let key: String =
            k.extract().map_err(|_| format!("`{at}`: keys must be strings, got {k}"))?;
        let here = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
        if v.is_none() {
            continue; // TOML has no null: a None field is left out (its default applies).
        }
        t.insert(key, py_to_toml(&v, &here)?);
    }
    Ok(t)
}

/// A dict (the scenario or plan TOML schema) as TOML text. `None` values are left out.
#[pyfunction]
fn to_toml(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let m = obj
        .cast::<PyMapping>()
        .map_err(|_| PyTypeError::new_err("a scenario or plan must be a path or a dict"))?;
    let t = mapping_to_table(m, "").map_err(|e| scenario_error(py, e))?;
    toml::to_string(&t)
        .map_err(|e| scenario_error(py, format!("cannot write the dict as TOML: {e}")))
}

/// `--set` strings from a dict of dotted overrides: a `str` value is taken as command-line text
/// (`"uet"`, `"1MB"`, `"true"` → exactly what `--set k=v` reads), any other value is written
/// as its TOML literal. A list of `"table.field=value"` strings is passed through.
#[pyfunction]
fn set_strings(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if obj.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        let mut out = Vec::new();
        for kv in m.items()?.iter() {
            let (k, v): (String, Bound<'_, PyAny>) = kv.extract()?;
            if let Ok(s) = v.cast::<PyString>() {
                out.push(format!("{k}={s}"));
            } else {
                let tv = py_to_toml(&v, &k).map_err(|e| scenario_error(py, format!("set: {e}")))?;
                out.push(format!("{k}={tv}"));
            }
        }
        return Ok(out);
    }
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("`set` must be a dict {\"table.field\": value} or a list of \"table.field=value\" strings"));
    }
    obj.extract::<Vec<String>>()
        .map_err(|_| PyTypeError::new_err("`set` must be a dict {\"table.field\": value} or a list of \"table.field=value\" strings"))
}

/// Braid's float format (`braid_metrics::fmt_f64`: at most 3 decimals, trailing zeros trimmed,
/// `null` for NaN/∞); `None` gives an empty cell.
#[pyfunction]
fn fmt_floats(values: Vec<Option<f64>>) -> Vec<String> {
    values.into_iter().map(|v| v.map(braid_metrics::fmt_f64).unwrap_or_default()).collect()
}

/// The wall-clock fields of `summary.json` (`braid_cli::sweep::WALL_CLOCK_FIELDS`).
#[pyfunction]
fn wall_clock_fields() -> Vec<&'static str> {
    sweep::WALL_CLOCK_FIELDS.to_vec()
}

/// The module `braid._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeScenario>()?;
    m.add_class::<Plan>()?;
    m.add_function(wrap_pyfunction!(load_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(load_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
    m.add_function(wrap_pyfunction!(to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(set_strings, m)?)?;
    m.add_function(wrap_pyfunction!(fmt_floats, m)?)?;
    m.add_function(wrap_pyfunction!(wall_clock_fields, m)?)?;
    m.add("CRATE_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
