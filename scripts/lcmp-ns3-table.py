#!/usr/bin/env python3
"""Braid vs ns-3 on the LCMP artifact's inputs: a markdown table from `braid repro lcmp-fig5|fig7|fig8` output.

Usage: lcmp-ns3-table.py OUT_DIR NET [--between A-B C-D]
  OUT_DIR  a repro output folder (runs.csv, runs/<run>/fct.txt)
  NET      8dc or 13dc (the reference rows' prefix in data/lcmp/ns3-reference.csv)

For every run it computes the artifact-rule percentiles of its fct.txt (scripts/lcmp-artifact-stats.py)
and prints them beside the published ns-3 numbers of the same load and scheme, with the ratio.
Standard library only.
"""
import csv, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
stats = os.path.join(here, "lcmp-artifact-stats.py")
ref_path = os.path.join(here, "..", "data", "lcmp", "ns3-reference.csv")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, net = argv[0], argv[1]
    between = argv[argv.index("--between") + 1 : argv.index("--between") + 3] if "--between" in argv else None
    ref = {}
    for r in csv.DictReader(l for l in open(ref_path) if not l.startswith("#")):
        ref[(r["label"], r["set"])] = r
    runs = list(csv.DictReader(open(os.path.join(out, "runs.csv"))))
    scheme = {"ECMP": "ECMP", "UCMP": "UCMP", "LCMP artifact": "LCMP"}
    print("| network | load | scheme | set | ns-3 p50 / p95 / p99 | Braid p50 / p95 / p99 | Braid / ns-3 |")
    print("|---|---|---|---|---|---|---|")
    for r in runs:
        f = os.path.join(out, "runs", r["run"], "fct.txt")
        if not os.path.exists(f):
            continue
        load = r["workload.file"].rsplit("-", 1)[-1].replace(".csv", "")
        cmd = ["python3", stats, "--label", "x"] + (["--between"] + between if between else []) + [f]
        rows = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().split("\n")[1:]
        netname = "ns-3 profile" if "ns3" in r["scenario_file"] else "Braid"
        for line in rows:
            _, s, n, p50, p95, p99 = line.split(",")
            b = [float(p50), float(p95), float(p99)]
            key = f"{net}-{load}-{scheme.get(r['case'], r['case'])}" + ("-dc1dc13" if between else "")
            if (key, s) not in ref or r["case"] not in scheme:
                ns3 = "—"
                ratio = ""
            else:
                a = [float(ref[(key, s)][k]) for k in ("p50", "p95", "p99")]
                ns3 = " / ".join(f"{x:.3g}" for x in a)
                ratio = " / ".join(f"{x / y:.2f}" for x, y in zip(b, a))
            print(f"| {netname} | {load} | {r['case']} | {s} | {ns3} | {' / '.join(f'{x:.3g}' for x in b)} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
