"""``python -m braid``: the package's command line.

::

    python -m braid sweep PLAN.toml [--executor local|ray] [--address ADDR] [--out DIR] [--jobs N] [--quiet]
    python -m braid run SCENARIO.toml [--out DIR] [--seed N] [--set table.field=value ...] [--quiet]
    python -m braid validate SCENARIO.toml [--set table.field=value ...]

The verbs behave as the ``braid`` binary's, with its exit codes: 0 success, 1 a failed run or
figure (sweep) or a conservation violation, 2 bad input, 3 a run that stopped early; 130 on
Ctrl-C. ``sweep --executor ray`` runs each run as a Ray task (a new local Ray instance, or the
cluster ``--address`` names).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import List, Optional

import braid


def _sweep(a: argparse.Namespace) -> int:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", braid.BraidWarning)
        frame = braid.sweep(a.plan, executor=a.executor, jobs=a.jobs, out=a.out, address=a.address, progress=not a.quiet)
    at = frame.attrs
    out = Path(at["out"])
    print(
        f"{a.plan}: {at['ran'] + at['skipped']} runs ({at['ran']} run now, {at['skipped']} reused: complete with the "
        f"same resolved scenario), {len(at['failed'])} failed; results in {out / 'runs.csv'}"
    )
    if at["removed"]:
        print(f"removed {len(at['removed'])} run folder(s) not in this plan: {', '.join(at['removed'])}")
    for w in caught:
        print(f"error: {w.message}", file=sys.stderr)
    return 1 if caught else 0


def _run(a: argparse.Namespace) -> int:
    out = a.out if a.out is not None else "out"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", braid.BraidWarning)
        try:
            r = braid.run(a.scenario, set=a.sets, seed=a.seed, out=out)
        except (braid.RunStalled, braid.ConservationError) as e:
            # The run ended but is not a success: its outputs are written; exit 3 (stalled, as
            # `braid run`) or 1 (packet conservation broken).
            _print_warnings(caught)
            if not a.quiet and e.result is not None:
                print(str(e.result), end="")
                print(f"  outputs in {out}")
            print(f"error: {e}", file=sys.stderr)
            return 3 if isinstance(e, braid.RunStalled) else 1
    _print_warnings(caught)
    if not a.quiet:
        print(str(r), end="")
        print(f"  outputs in {out}")
    return 0


def _print_warnings(caught: List[warnings.WarningMessage]) -> None:
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)


def _validate(a: argparse.Namespace) -> int:
    info = braid.validate(a.scenario, set=a.sets)
    print(f"{a.scenario}: ok ({info.hosts} hosts, {info.links} links, {info.flows} flows)")
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    p = argparse.ArgumentParser(prog="python -m braid", description="Braid from Python: sweep (locally or on Ray), run, validate.")
    sub = p.add_subparsers(dest="verb", required=True)

    s = sub.add_parser("sweep", help="run a sweep plan (braid sweep's format), locally or on Ray; writes OUT/runs.csv")
    s.add_argument("plan", help="the plan file (TOML)")
    s.add_argument("--executor", choices=["local", "ray"], default="local", help="where runs execute (default: local)")
    s.add_argument("--address", help="Ray cluster address (ray.init(address=...)); default: a new local Ray instance")
    s.add_argument("--out", help="output folder (default: out/<plan name>)")
    s.add_argument("--jobs", type=int, help="at most this many runs at once")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.set_defaults(func=_sweep)

    r = sub.add_parser("run", help="run one scenario; writes summary.json, flows.csv, time series into --out")
    r.add_argument("scenario", help="the scenario file (TOML)")
    r.add_argument("--out", help="output folder (default: out)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="TABLE.FIELD=VALUE", help="override a field (repeatable)")
    r.add_argument("--quiet", action="store_true", help="no summary on the terminal")
    r.set_defaults(func=_run)

    v = sub.add_parser("validate", help="check a scenario without running it")
    v.add_argument("scenario", help="the scenario file (TOML)")
    v.add_argument("--set", dest="sets", action="append", default=[], metavar="TABLE.FIELD=VALUE", help="override a field (repeatable)")
    v.set_defaults(func=_validate)

    a = p.parse_args(argv)
    if getattr(a, "jobs", None) is not None and a.jobs < 1:
        p.error("--jobs must be at least 1")
    try:
        return int(a.func(a))
    except braid.ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except braid.BraidError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
