#!/usr/bin/env python3
"""Compare two engine settings of Braid on the same scenarios, for a change of engine that cannot
keep outputs byte-identical (BENCHMARKS.md, "Departures on demand and the canonical order").

    scripts/engine-comparison.py [--braid BIN] [--old 'KEY=VALUE ...'] [--new 'KEY=VALUE ...']
                                 [--seeds N] [--new-seeds M] [--perturb KEY=VALUE ...]
                                 [--out DIR] [SCENARIO.toml ...]

Each scenario (default: every file in examples/ and crates/braid-cli/bench/) runs with the old
settings (default: none, today's engine) at N seeds (default 5: the scenario's own seed, then
seed+1, ...) and with the new settings (default: departures on demand and the canonical order)
at M seeds (default 1: the scenario's own). For each metric of summary.json it
prints the old value at the scenario's seed, the new one, and a verdict:

  ok      within the tolerance of the old value at the same seed: 2 % for FCT p50, 5 % for FCT
          p99, NIC OOD p99 / max, drops and PFC pauses (absolute slack of 1 for counts below 20);
  spread  outside it, but the range the old engine spans over its runs overlaps the new engine's
          range over its own: the N (M) seeds, and each --perturb run;
  OUT     outside both: a difference to explain.

--perturb KEY=VALUE (repeatable) adds, in both engines at the scenario's seed, one run with that
override each: a change no physical network could tell apart (a link a picosecond longer, a rate
a few parts per million off) that moves which events fall at the same picosecond, and so
measures how far a metric depends on the order of ties. Runs whose seed does not move a metric
(a deterministic workload) need it for a spread.

Flows completed must be equal. Runs go to DIR (default /tmp/braid-engine-comparison), one folder
per scenario, setting and seed or perturbation; a rerun reuses a folder whose summary.json
exists.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

METRICS = [
    # (summary key, relative tolerance, label)
    ("fct_slowdown_p50", 0.02, "FCT slowdown p50"),
    ("fct_slowdown_p99", 0.05, "FCT slowdown p99"),
    ("packets_dropped", 0.05, "drops"),
    ("pfc_pauses", 0.05, "PFC pauses"),
    ("nic_ood_p99", 0.05, "NIC OOD p99"),
    ("nic_ood_max", 0.05, "NIC OOD max"),
]


def run(braid, scenario, sets, seed, out):
    if os.path.exists(os.path.join(out, "summary.json")):
        return json.load(open(os.path.join(out, "summary.json")))
    cmd = [braid, "run", scenario, "--quiet", "--out", out, "--seed", str(seed)]
    for kv in sets:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"error: {' '.join(cmd)} exited with {p.returncode}:\n{p.stderr[-2000:]}")
    return json.load(open(os.path.join(out, "summary.json")))


def tag(kv):
    """A folder-name form of an override."""
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in kv)[:60]


def seed_of(scenario):
    for line in open(scenario):
        s = line.split("#")[0].strip()
        if s.startswith("seed") and "=" in s:
            return int(s.split("=", 1)[1].strip())
    return 1


def verdict(key, tol, old, new, spread, new_spread):
    if old is None or new is None:
        return "-"
    slack = 1 if key in ("packets_dropped", "pfc_pauses") and max(old, new) < 20 else 0
    if abs(new - old) <= tol * abs(old) + slack + 1e-12:
        return "ok"
    lo, hi = min(spread), max(spread)
    if min(new_spread) - 1e-12 <= hi and lo <= max(new_spread) + 1e-12:
        return "spread"
    return "OUT"


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", default=os.path.join(repo, "target/release/braid"))
    ap.add_argument("--new", default='run.departures="on-demand" run.order="canonical"')
    ap.add_argument("--old", default="")
    ap.add_argument("--perturb", action="append", default=[])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--new-seeds", type=int, default=1)
    ap.add_argument("--out", default="/tmp/braid-engine-comparison")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    if not os.access(a.braid, os.X_OK):
        sys.exit(f"error: {a.braid} is not an executable braid binary (cargo build --release -p braid-cli)")
    scenarios = a.scenarios or sorted(glob.glob(os.path.join(repo, "examples/*.toml"))) + sorted(
        glob.glob(os.path.join(repo, "crates/braid-cli/bench/*.toml")))
    old_sets, new_sets = a.old.split(), a.new.split()
    print(f"old: {a.old or '(defaults)'}; new: {a.new or '(defaults)'}; seeds: old {a.seeds}, "
          f"new {a.new_seeds}; perturbations: {'; '.join(a.perturb) or 'none'}")
    print("| scenario | flows | " + " | ".join(f"{m[2]} old / new" for m in METRICS) + " |")
    print("|---|---|" + "---|" * len(METRICS))
    outs = 0
    for sc in scenarios:
        name = os.path.splitext(os.path.basename(sc))[0]
        base = seed_of(sc)
        olds = [run(a.braid, sc, old_sets, base + i, os.path.join(a.out, name, f"old-{base + i}"))
                for i in range(a.seeds)]
        news = [run(a.braid, sc, new_sets, base + i, os.path.join(a.out, name, f"new-{base + i}"))
                for i in range(a.new_seeds)]
        for i, kv in enumerate(a.perturb):
            olds.append(run(a.braid, sc, old_sets + [kv], base, os.path.join(a.out, name, f"old-p{i}-{tag(kv)}")))
            news.append(run(a.braid, sc, new_sets + [kv], base, os.path.join(a.out, name, f"new-p{i}-{tag(kv)}")))
        new = news[0]
        flows = "=" if olds[0].get("flows_completed") == new.get("flows_completed") else \
            f"OUT {olds[0].get('flows_completed')} / {new.get('flows_completed')}"
        outs += flows != "="
        cells = []
        for key, tol, _ in METRICS:
            o, n = olds[0].get(key), new.get(key)
            spread = [x.get(key) for x in olds if x.get(key) is not None]
            new_spread = [x.get(key) for x in news if x.get(key) is not None]
            v = verdict(key, tol, o, n, spread, new_spread)
            outs += v == "OUT"
            cells.append(f"{o} / {n} {v}")
        print(f"| {name} | {flows} | " + " | ".join(cells) + " |")
    print(f"\n{outs} result(s) outside both the tolerance and the spread")


if __name__ == "__main__":
    main()
