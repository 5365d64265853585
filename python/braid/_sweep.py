"""Sweeps: :func:`sweep` runs a plan (``braid sweep``'s format) locally or on Ray and returns
``runs.csv`` as a ``pandas.DataFrame``; :func:`load_runs` reads any sweep's ``runs.csv``."""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import BraidError, BraidWarning
from ._result import read_files, write_files

if TYPE_CHECKING:  # pragma: no cover
    import pandas

__all__ = ["sweep", "load_runs", "load_plan"]

PlanLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def load_runs(path: Union[str, os.PathLike]) -> "pandas.DataFrame":
    """Read a sweep's ``runs.csv`` (give the file or the sweep's output folder) into a
    ``pandas.DataFrame``, with the types :func:`braid.sweep` returns.

    Numbers become ``int64``/``float64``, ``true``/``false`` booleans, empty cells missing
    values (NaN); other text stays exactly as written (``null`` too). ``braid.to_csv()`` of the
    result gives the file's bytes back.
    """
    import pandas as pd

    p = Path(path)
    if p.is_dir():
        p = p / "runs.csv"
    return pd.read_csv(p, keep_default_na=False, na_values=[""])


def load_plan(plan: PlanLike) -> "_native.Plan":
    """Read and expand a plan (a path, or a dict in the plan schema) without running it.
    Raises :class:`braid.ScenarioError` on a bad plan. (Internal; :func:`sweep` uses it.)"""
    if isinstance(plan, Mapping):
        stand_in = Path.cwd() / "plan.toml"  # relative paths in a dict plan: the current directory
        return _native.load_plan(None, _native.to_toml(plan), stand_in)
    if isinstance(plan, (str, os.PathLike)):
        return _native.load_plan(os.fspath(plan), None)
    raise TypeError(f"a plan must be a path or a dict, not {type(plan).__name__}")


class _Progress:
    """`k/n runs` on stderr, rewritten in place."""

    def __init__(self, total: int, skipped: int, enabled: bool) -> None:
        self.total, self.skipped, self.enabled = total, skipped, enabled

    def __call__(self, done: int) -> None:
        if self.enabled and self.total:
            end = "\n" if done >= self.total else ""
            sys.stderr.write(f"\rbraid sweep: {done}/{self.total} runs done ({self.skipped} reused){end}")
            sys.stderr.flush()


def sweep(
    plan: PlanLike,
    *,
    executor: str = "local",
    jobs: Optional[int] = None,
    out: Union[str, os.PathLike, None] = None,
    address: Optional[str] = None,
    progress: bool = False,
) -> "pandas.DataFrame":
    """Run a sweep plan and return its ``runs.csv`` as a ``pandas.DataFrame``.

    Exactly ``braid sweep PLAN --out OUT``: the same plan format (``crates/braid-cli/src/sweep.rs``:
    ``scenario``, ``seeds``, ``set``, ``[grid]``, ``[[case]]``, ``[[figure]]``), the same runs in
    the same order with the same names, ``OUT/runs/<run>/`` with each run's files as ``braid run``
    writes them, ``OUT/runs.csv`` written by the CLI's own code (so the frame equals the CSV the
    CLI writes, and ``braid.to_csv(frame)`` is that file byte for byte), the plan and scenarios
    copied into ``OUT``, the plan's figures and ``OUT/index.html``. Runs whose folder already holds
    a ``summary.json`` and the same ``scenario.resolved.toml`` are skipped, so an interrupted
    sweep resumes. Every run is validated before anything runs.

    Args:
        plan: a plan file, or a dict in the plan schema (relative paths in it resolve against the
            current directory; it is copied to ``OUT/plan.toml``).
        executor: ``"local"`` — the runs in parallel on this machine (a Rust thread pool, GIL
            released, as ``braid sweep``); ``"ray"`` — each run a Ray task (``num_cpus=1``): the
            driver ships the scenario text and overrides, the task returns the run's files, the
            driver writes them and ``runs.csv``. Files a scenario references (flow files,
            topologies) must be at the same path on the Ray nodes.
        jobs: at most this many runs at once (default: local, the number of cores; Ray, as many
            as the cluster schedules).
        out: the output folder (default ``out/<plan file name without .toml>``, or ``out/sweep``
            for a dict plan — the CLI's default).
        address: with ``executor="ray"``, the cluster to connect to (``ray.init(address=...)``,
            e.g. ``"auto"`` or ``"ray://head:10001"``); default: the Ray instance this process
            already started, else a new local one.
        progress: print ``k/n runs done`` on stderr.

    Returns:
        The ``runs.csv`` table (see :func:`load_runs`). ``frame.attrs`` holds ``out``, ``ran``,
        ``skipped`` (runs reused), ``removed`` (run folders not in the plan, removed) and
        ``failed`` (a list of (run, message)); a failed run also has
        ``status`` = ``failed: …`` and emits a :class:`braid.BraidWarning`.

    Raises:
        ScenarioError: a bad plan, or a run whose scenario or overrides are bad (the CLI's message,
            naming the run and the field).
        KeyboardInterrupt: on Ctrl-C, after stopping the runs in flight (finished runs are kept and
            skipped next time).
    """
    if executor not in ("local", "ray"):
        raise ValueError(f"executor must be 'local' or 'ray', not {executor!r}")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    if address is not None and executor != "ray":
        raise ValueError("address= is for executor='ray'")
    p = load_plan(plan)
    if out is None:
        stem = Path(os.fspath(plan)).stem if not isinstance(plan, Mapping) else "sweep"
        out = Path("out") / (stem or "sweep")
    out = Path(out)
    pending, removed = p.prepare(out)
    n_runs = len(p.runs())
    report = _Progress(len(pending), n_runs - len(pending), progress)
    if executor == "local":
        failed = p.run_local(out, pending, jobs, report)
    else:
        failed = _execute_ray(p, out, pending, jobs, address, report)
    p.write_runs_csv(out, failed)
    for name, msg in failed:
        warnings.warn(f"run `{name}`: {msg}", BraidWarning, stacklevel=2)
    for msg in p.draw_figures(out):
        warnings.warn(msg, BraidWarning, stacklevel=2)
    frame = load_runs(out / "runs.csv")
    frame.attrs.update(out=str(out), ran=len(pending), skipped=n_runs - len(pending), removed=list(removed), failed=list(failed))
    return frame


def _ray_task(scenario: str, text: Optional[str], sets: Sequence[str], seed: Optional[int]) -> Tuple[Optional[str], Dict[str, bytes]]:
    """The body of one Ray task: run one sweep run into a temporary folder (the Rust code of
    ``braid sweep``'s workers) and return (failure or ``None``, the run's files)."""
    with tempfile.TemporaryDirectory(prefix="braid-ray-") as d:
        err = _native.sweep_run(scenario, text, list(sets), seed, d)
        return err, read_files(d)


def _ray_init(address: Optional[str]) -> Any:
    try:
        import ray
    except ImportError as e:
        raise BraidError("executor='ray' needs Ray: pip install 'ray' (or the package's [ray] extra)") from e
    if not ray.is_initialized():
        if address is not None:
            ray.init(address=address)
        else:
            ray.init(include_dashboard=False)
    return ray


def _execute_ray(
    plan: "_native.Plan",
    out: Path,
    pending: List[int],
    jobs: Optional[int],
    address: Optional[str],
    report: Callable[[int], None],
) -> List[Tuple[str, str]]:
    """Run the runs ``pending`` as Ray tasks (at most ``jobs`` in flight), writing each run's
    files into ``out/runs/<run>/`` as they come back. Returns the failed runs."""
    if not pending:
        return []
    ray = _ray_init(address)
    task = ray.remote(num_cpus=1, max_retries=0)(_ray_task)
    specs = plan.runs()
    texts: Dict[str, str] = {}
    queue = list(pending)
    queue.reverse()
    limit = jobs or len(queue)
    inflight: Dict[Any, str] = {}
    failed: List[Tuple[str, str]] = []
    done = 0
    try:
        while queue or inflight:
            while queue and len(inflight) < limit:
                s = specs[queue.pop()]
                stale = out / "runs" / s["name"] / "summary.json"
                if stale.exists():
                    stale.unlink()
                # The task gets the file's text and its absolute path (the folder its relative
                # paths resolve against): a worker's current directory is not the driver's.
                scenario = os.path.abspath(s["scenario"])
                if scenario not in texts:
                    texts[scenario] = Path(scenario).read_text(encoding="utf-8")
                ref = task.remote(scenario, texts[scenario], s["sets"], s["seed"])
                inflight[ref] = s["name"]
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
            for ref in ready:
                name = inflight.pop(ref)
                try:
                    err, files = ray.get(ref)
                except ray.exceptions.RayError as e:  # a worker died: the run failed, the rest go on
                    err, files = f"the Ray task failed: {e}", {}
                if files:
                    write_files(out / "runs" / name, files)
                if err is not None:
                    failed.append((name, err))
                done += 1
                report(done)
    except KeyboardInterrupt:
        for ref in inflight:
            ray.cancel(ref, force=True)
        raise
    return failed
