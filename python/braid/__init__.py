"""Braid from Python: run, validate and sweep Braid scenarios.

Braid is a deterministic, packet-level network simulator written in Rust. This package drives
the same code as the ``braid`` command (``crates/braid-cli``), in-process, and produces the same
bytes for the same scenario and seed::

    import braid
    r = braid.run("examples/quickstart.toml", set={"transport.kind": "uet"})
    print(r.summary["fct_slowdown_p99"]); df = r.flows.to_pandas()

- :func:`run` runs one scenario (a file or a dict) and returns a :class:`Result`: the summary as
  a dict, ``flows.csv`` and every recorded time series as ``pyarrow.Table``s, the resolved
  scenario, and :meth:`Result.write` to write the CLI's files.
- :func:`validate` checks a scenario as ``braid validate`` does.
- :func:`sweep` runs a sweep plan, locally or on Ray, and returns ``runs.csv`` as a
  ``pandas.DataFrame``; :func:`load_runs` reads one.
- :func:`to_csv` writes a table in Braid's CSV format; :func:`read_table` reads one.
- ``python -m braid sweep PLAN.toml --executor ray`` (also ``run`` and ``validate``).

Errors: bad input raises :class:`ScenarioError` (a ``ValueError``) with the CLI's message,
naming the field; a run that stalls or hits a limit raises :class:`RunStalled` with the partial
summary. Simulations run with the GIL released and stop on Ctrl-C (``KeyboardInterrupt``).
The API reference is ``docs/python.md``.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from . import _native
from ._errors import BraidError, BraidWarning, ConservationError, RunStalled, ScenarioError
from ._result import Result, read_files, read_table, to_csv
from ._sweep import load_runs, sweep

__all__ = [
    "run",
    "validate",
    "sweep",
    "load_runs",
    "to_csv",
    "read_table",
    "Result",
    "ScenarioInfo",
    "BraidError",
    "ScenarioError",
    "RunStalled",
    "ConservationError",
    "BraidWarning",
    "WALL_CLOCK_FIELDS",
    "__version__",
]

__version__: str = _native.CRATE_VERSION

#: ``summary.json`` fields that measure the machine, not the simulation (``wall_s``,
#: ``events_per_sec``, ``packet_hops_per_sec``): the only ones that differ between two runs of the
#: same scenario and seed, and the ones ``runs.csv`` leaves out.
WALL_CLOCK_FIELDS: tuple = tuple(_native.wall_clock_fields())

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
SetLike = Union[Mapping[str, Any], Sequence[str], None]


@dataclass(frozen=True)
class ScenarioInfo:
    """What :func:`validate` found: the scenario's ``name`` and ``seed``, the built network's
    ``hosts``, ``links`` and ``flows``, and the resolved scenario TOML (``scenario``)."""

    name: str
    seed: int
    hosts: int
    links: int
    flows: int
    scenario: str

    def __str__(self) -> str:
        return f"{self.name}: ok ({self.hosts} hosts, {self.links} links, {self.flows} flows)"


def _load(scenario: ScenarioLike, set: SetLike, seed: Optional[int]) -> "_native.NativeScenario":
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ScenarioError(f"seed must be a non-negative integer, got {seed!r}")
    sets = _native.set_strings(set)
    if isinstance(scenario, Mapping):
        return _native.load_scenario(None, _native.to_toml(scenario), sets, seed)
    if isinstance(scenario, (str, os.PathLike)):
        return _native.load_scenario(os.fspath(scenario), None, sets, seed)
    raise TypeError(f"a scenario must be a path or a dict, not {type(scenario).__name__}")


def validate(scenario: ScenarioLike, set: SetLike = None, *, seed: Optional[int] = None) -> ScenarioInfo:
    """Check a scenario without running it, as ``braid validate`` does: parse every table, apply
    the overrides, build the network and the workload.

    Args:
        scenario: a scenario file, or a dict in the scenario schema (the TOML tables as nested
            dicts; relative file paths in it resolve against the current directory).
        set: overrides, as ``--set``: ``{"transport.kind": "uet", "workload.size": "1MB"}``. A
            ``str`` value is read as command-line text (``"1MB"``, ``"true"``, ``"[1, 2]"``); other
            values (``int``, ``float``, ``bool``, lists, dicts) are written as TOML. A list of
            ``"table.field=value"`` strings works too.
        seed: overrides the scenario's seed (``--seed``).

    Returns:
        A :class:`ScenarioInfo`.

    Raises:
        ScenarioError: with the CLI's message, naming the field.
    """
    sc = _load(scenario, set, seed)
    hosts, links, flows = sc.check()
    return ScenarioInfo(name=sc.name, seed=sc.seed, hosts=hosts, links=links, flows=flows, scenario=sc.resolved)


def run(
    scenario: ScenarioLike,
    *,
    set: SetLike = None,
    seed: Optional[int] = None,
    out: Union[str, os.PathLike, None] = None,
) -> Result:
    """Run a scenario, as ``braid run SCENARIO [--set ...] [--seed N] [--out OUT]``.

    The simulation runs in this process on a background thread with the GIL released (other
    Python threads keep running); Ctrl-C stops it and raises ``KeyboardInterrupt``. The same
    scenario and seed give byte-identical files to the CLI's.

    Args:
        scenario: a scenario file, or a dict in the scenario schema (relative file paths in it
            resolve against the current directory).
        set: overrides, as ``--set`` (see :func:`validate`).
        seed: overrides the scenario's seed (``--seed``).
        out: also write the outputs into this folder, as ``braid run --out`` does (a stale
            ``summary.json`` there is removed before the run). Default: nothing is written; the
            files stay in memory (:attr:`Result.files`, :meth:`Result.write`).

    Returns:
        A :class:`Result`.

    Raises:
        ScenarioError: bad input (the CLI's exit code 2), with the CLI's message.
        RunStalled: the run stopped early — no progress for ``run.stall_timeout``, or a
            ``[run]`` limit (the CLI's exit code 3); carries the partial summary and result.
        ConservationError: the packet conservation check failed (the CLI's exit code 1).
        BraidError: an output could not be written, or the simulator panicked.
    """
    sc = _load(scenario, set, seed)
    if out is not None:
        stale = Path(out) / "summary.json"
        if stale.exists():
            stale.unlink()
    with tempfile.TemporaryDirectory(prefix="braid-run-") as tmp:
        info = sc.run(tmp)
        files = read_files(tmp)
    result = Result(files, info)
    for w in result.warnings:
        warnings.warn(w[len("warning: "):] if w.startswith("warning: ") else w, BraidWarning, stacklevel=2)
    if out is not None:
        result.write(out)
    if info["conservation_error"]:
        raise ConservationError(f"packet conservation violated: {info['conservation_error']}", result)
    if info["stopped_early"]:
        raise RunStalled(str(info["stuck_message"]), result)
    return result
