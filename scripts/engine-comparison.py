#!/usr/bin/env python3
"""Compare two engine settings of Braid on the same scenarios, for a change of engine that cannot
keep outputs byte-identical (BENCHMARKS.md, "The engine: departures on demand and the canonical
order").

    scripts/engine-comparison.py [--braid BIN] [--old 'KEY=VALUE ...'] [--new 'KEY=VALUE ...']
                                 [--seeds N] [--new-seeds M] [--perturb KEY=VALUE ...]
                                 [--repro] [--differences] [--out DIR] [SCENARIO.toml | ID ...]

Each scenario (default: every file in examples/ and crates/braid-cli/bench/) runs with the old
settings (default: the engine before departures on demand and the canonical order) at N seeds
(default 5: the scenario's own seed, then seed+1, ...) and with the new settings (default: none,
today's engine) at M seeds (default 1: the scenario's own). For each metric of summary.json it
prints the old value at the scenario's seed, the new one, and a verdict:

  ok      within the tolerance of the old value at the same seed: 2 % for FCT p50, 5 % for FCT
          p99, NIC OOD p99 / max, drops and PFC pauses (a count below 20 also within 1);
  spread  outside it, but the range the old engine spans over its runs overlaps the new engine's
          range over its own: the N (M) seeds, and each --perturb run;
  OUT     outside both: a difference to explain.

--perturb KEY=VALUE (repeatable) adds, in both engines at the scenario's seed, one run with that
override each: a change no physical network could tell apart (a link a picosecond longer, a rate
a few parts per million off) that moves which events fall at the same picosecond, and so
measures how far a metric depends on the order of ties. Runs whose seed does not move a metric
(a deterministic workload) need it for a spread.

--repro compares `braid repro ID --quick` instead (default: every plan in repro/), run by run:
each run with the old settings at its own seed, then its resolved scenario again at the next N-1
seeds; the new likewise at M; and each --perturb (a plan that sets the same field keeps its own).
--differences prints only the rows with a result out of tolerance.

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
    slack = 1 if key not in ("fct_slowdown_p50", "fct_slowdown_p99") and max(old, new) < 20 else 0
    if abs(new - old) <= tol * abs(old) + slack + 1e-12:
        return "ok"
    lo, hi = min(spread), max(spread)
    if min(new_spread) - 1e-12 <= hi and lo <= max(new_spread) + 1e-12:
        return "spread"
    return "OUT"


def repro_runs(braid, plan, sets, out):
    """`braid repro PLAN --quick` with `sets`: run name -> summary."""
    if not os.path.exists(os.path.join(out, "runs.csv")):
        cmd = [braid, "repro", plan, "--quick", "--quiet", "--jobs", "1", "--out", out]
        for kv in sets:
            cmd += ["--set", kv]
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode not in (0, 3):
            sys.exit(f"error: {' '.join(cmd)} exited with {p.returncode}:\n{p.stderr[-2000:]}")
    runs = {}
    for d in sorted(glob.glob(os.path.join(out, "runs", "*", "summary.json"))):
        runs[os.path.basename(os.path.dirname(d))] = json.load(open(d))
    return runs


def rerun(braid, repo, resolved, sets, seed, out):
    """A repro run's resolved scenario again at `seed` (relative flow files are the plan's)."""
    if not os.path.exists(os.path.join(out, "summary.json")):
        os.makedirs(out, exist_ok=True)
        base = os.path.join(repo, "repro", "scenarios")
        lines = []
        for line in open(resolved):
            k, _, v = line.partition("=")
            v = v.strip()
            if k.strip() in ("file", "trace") and v.startswith('"') and not v.startswith('"/'):
                line = f'{k.strip()} = "{os.path.join(base, v.strip(chr(34)))}"\n'
            lines.append(line)
        scenario = os.path.join(out, "scenario.toml")
        open(scenario, "w").write("".join(lines))
    return run(braid, os.path.join(out, "scenario.toml"), sets, seed, out)


def row(label, olds, news):
    """The table row of one case and how many of its results are out."""
    new = news[0]
    flows = "=" if olds[0].get("flows_completed") == new.get("flows_completed") else \
        f"OUT {olds[0].get('flows_completed')} / {new.get('flows_completed')}"
    outs = flows != "="
    cells = []
    for key, tol, _ in METRICS:
        o, n = olds[0].get(key), new.get(key)
        spread = [x.get(key) for x in olds if x.get(key) is not None]
        new_spread = [x.get(key) for x in news if x.get(key) is not None]
        v = verdict(key, tol, o, n, spread, new_spread)
        outs += v == "OUT"
        cells.append(f"{o} / {n} {v}")
    ok = flows == "=" and all(c.endswith(" ok") or c.endswith(" -") for c in cells)
    return f"| {label} | {flows} | " + " | ".join(cells) + " |", outs, ok


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", default=os.path.join(repo, "target/release/braid"))
    ap.add_argument("--new", default="")
    ap.add_argument("--old", default='run.departures="events" run.order="insertion"')
    ap.add_argument("--perturb", action="append", default=[])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--new-seeds", type=int, default=1)
    ap.add_argument("--repro", action="store_true")
    ap.add_argument("--differences", action="store_true")
    ap.add_argument("--out", default="/tmp/braid-engine-comparison")
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    if not os.access(a.braid, os.X_OK):
        sys.exit(f"error: {a.braid} is not an executable braid binary (cargo build --release -p braid-cli)")
    old_sets, new_sets = a.old.split(), a.new.split()
    print(f"old: {a.old or '(defaults)'}; new: {a.new or '(defaults)'}; seeds: old {a.seeds}, "
          f"new {a.new_seeds}; perturbations: {'; '.join(a.perturb) or 'none'}")
    print("| scenario | flows | " + " | ".join(f"{m[2]} old / new" for m in METRICS) + " |")
    print("|---|---|" + "---|" * len(METRICS))
    outs = cases = all_ok = 0

    def show(label, olds, news):
        nonlocal outs, cases, all_ok
        line, o, ok = row(label, olds, news)
        outs += o
        cases += 1
        all_ok += ok
        if not (a.differences and ok):
            print(line, flush=True)

    if a.repro:
        plans = a.scenarios or sorted(os.path.splitext(os.path.basename(p))[0]
                                      for p in glob.glob(os.path.join(repo, "repro/*.toml")))
        for plan in plans:
            d = os.path.join(a.out, "repro", plan)
            old0 = repro_runs(a.braid, plan, old_sets, os.path.join(d, "old-0"))
            new0 = repro_runs(a.braid, plan, new_sets, os.path.join(d, "new-0"))
            pert = [(repro_runs(a.braid, plan, old_sets + [kv], os.path.join(d, f"old-p{i}-{tag(kv)}")),
                     repro_runs(a.braid, plan, new_sets + [kv], os.path.join(d, f"new-p{i}-{tag(kv)}")))
                    for i, kv in enumerate(a.perturb)]
            for name in new0:
                if name not in old0:
                    continue
                # Each run again at the next seeds, from its resolved scenario (whatever seeds the
                # plan fixes), for the seeds' spread.
                seed = old0[name].get("seed", 1)
                res = lambda e: os.path.join(d, f"{e}-0", "runs", name, "scenario.resolved.toml")
                olds = [old0[name]] + [rerun(a.braid, repo, res("old"), old_sets, seed + i,
                                             os.path.join(d, "seeds", name, f"old-{seed + i}"))
                                       for i in range(1, a.seeds)]
                news = [new0[name]] + [rerun(a.braid, repo, res("new"), new_sets, seed + i,
                                             os.path.join(d, "seeds", name, f"new-{seed + i}"))
                                       for i in range(1, a.new_seeds)]
                olds += [o[name] for o, _ in pert if name in o]
                news += [n[name] for _, n in pert if name in n]
                show(f"{plan}/{name}", olds, news)
    else:
        scenarios = a.scenarios or sorted(glob.glob(os.path.join(repo, "examples/*.toml"))) + sorted(
            glob.glob(os.path.join(repo, "crates/braid-cli/bench/*.toml")))
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
            show(name, olds, news)
    print(f"\n{cases} case(s), {all_ok} with every result within tolerance; {outs} result(s) outside "
          f"both the tolerance and the spread")


if __name__ == "__main__":
    main()
