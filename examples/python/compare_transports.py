"""Compare Rondo, UET, Falcon and ECMP+DCQCN on a leaf-spine with one slow spine, on Ray.

    pip install .                                   # at the repository root (plus: pip install ray matplotlib)
    python examples/python/compare_transports.py    # a local Ray cluster; --address to use another

Sweeps examples/spray-slow-spine.toml (16 hosts, spine 0 10 us slower, a 4 MB permutation) over
four transports with `braid.sweep(..., executor="ray")`: each run is a Ray task. It then joins the
sweep's table (runs.csv, one row per run) with per-run statistics computed from each run's
flows.csv (pandas), averages over seeds, prints the table and draws one bar chart per metric into
OUT/compare_transports.png (matplotlib, headless). Every run is deterministic: the same seeds give
the same table on any machine. `--size 512KB --seeds 1` makes it a few-second check.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import braid  # noqa: E402

SCENARIO = Path(__file__).resolve().parents[1] / "spray-slow-spine.toml"

#: The transports compared: label → overrides (`--set`).
TRANSPORTS = {
    "Rondo": {"transport.kind": "rondo"},
    "UET": {"transport.kind": "uet"},
    "Falcon": {"transport.kind": "falcon"},
    "ECMP+DCQCN": {"transport.kind": "roce", "transport.cc": "dcqcn"},
}

#: The bars: (column, heading, scale).
METRICS = [
    ("jct_us", "job completion time (us)", 1.0),
    ("fct_slowdown_p99", "FCT slowdown p99", 1.0),
    ("fct_p99_us", "FCT p99 from flows.csv (us)", 1.0),
    ("nic_ood_p99", "NIC OOD p99 (packets)", 1.0),
]


def plan(seeds: list, size: str | None) -> dict:
    """The sweep plan (braid sweep's format, as a dict): one [[case]] per transport."""
    p: dict = {
        "scenario": str(SCENARIO),
        "seeds": seeds,
        "case": [{"label": label, "set": sets} for label, sets in TRANSPORTS.items()],
    }
    if size:
        p["set"] = {"workload.size": size}
    return p


def per_run_flow_stats(runs: pd.DataFrame, out: Path) -> pd.DataFrame:
    """FCT percentiles of each run, from its flows.csv (read as Arrow, then pandas)."""
    rows = []
    for name in runs["run"]:
        flows = braid.read_table(out / "runs" / name / "flows.csv").to_pandas()
        fct_us = flows["fct_ns"] / 1e3
        rows.append({"run": name, "fct_p50_us": fct_us.quantile(0.5), "fct_p99_us": fct_us.quantile(0.99), "flows": len(flows)})
    return pd.DataFrame(rows)


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--executor", choices=["ray", "local"], default="ray", help="default: ray")
    ap.add_argument("--address", help="a Ray cluster to use (ray.init(address=...)); default: a local one")
    ap.add_argument("--out", default="out/compare-transports", help="output folder (default: out/compare-transports)")
    ap.add_argument("--seeds", default="1,2", help="comma-separated seeds (default: 1,2)")
    ap.add_argument("--size", help="override workload.size (e.g. 512KB for a quick check)")
    ap.add_argument("--jobs", type=int, help="at most this many runs at once")
    a = ap.parse_args(argv)
    out = Path(a.out)
    seeds = [int(s) for s in a.seeds.split(",") if s.strip()]

    runs = braid.sweep(plan(seeds, a.size), executor=a.executor, address=a.address, out=out, jobs=a.jobs)
    bad = runs[runs["status"] != "ok"]
    if len(bad):
        print(bad[["run", "status"]].to_string(index=False), file=sys.stderr)
        return 1

    # Join the sweep's table with statistics computed from each run's flows.csv.
    joined = runs.merge(per_run_flow_stats(runs, out), on="run", validate="one_to_one")
    joined["jct_us"] = joined["sim_time_ns"] / 1e3
    table = (
        joined.groupby("case", sort=False)[[m for m, _, _ in METRICS] + ["fct_p50_us", "goodput_bps"]]
        .mean()
        .reindex(list(TRANSPORTS))
    )
    table["goodput_gbps"] = table.pop("goodput_bps") / 1e9
    print(f"{SCENARIO.name}, mean over seeds {seeds}:")
    print(table.round(2).to_string())
    table.to_csv(out / "compare_transports.csv")

    fig, axes = plt.subplots(1, len(METRICS), figsize=(4 * len(METRICS), 3.6))
    colours = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    for ax, (col, heading, scale) in zip(axes, METRICS):
        ax.bar(table.index, table[col] * scale, color=colours)
        ax.set_title(heading, fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{SCENARIO.stem}: one spine 10 us slower (mean over {len(seeds)} seed(s))", fontsize=11)
    fig.tight_layout()
    png = out / "compare_transports.png"
    fig.savefig(png, dpi=120)
    print(f"figure: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
