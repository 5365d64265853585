#!/usr/bin/env python3
"""FCT-slowdown percentiles of LCMP-artifact-format flow files, computed the artifact's way.

Usage: lcmp-artifact-stats.py [--label L] [--between A-B C-D] FCT_FILE [FCT_FILE ...]

Each FCT_FILE has the line format of the LCMP artifact's `fct_*.txt` (ns-3 HPCC fork) and of
Braid's `fct.txt` (`output.fct_artifact = true`): `sip dip sport dport size start_ns fct_ns
ideal_ns`. The rule, as `docs/lcmp.md` ("Comparing with ns-3") describes the artifact's analysis:
slowdown = fct / ideal clamped at >= 1; flows sorted by size (ties by line text); the largest
flow dropped; a percentile p of n values is the value at 0-based index int(n * p / 100) of the
sorted slowdowns. Rows: every flow, then the flow-size bins < 100 KB, 100 KB - 1 MB, >= 1 MB
(1 KB = 1000 B). `--between 0-15 192-207` keeps only flows between those two host-id ranges,
either direction (the artifact's 2-DC analysis, Fig 8). Prints CSV: label,set,flows,p50,p95,p99.
Standard library only.
"""
import sys

BINS = [("all", 0, None), ("<100KB", 0, 100_000), ("100KB-1MB", 100_000, 1_000_000), (">=1MB", 1_000_000, None)]


def pct(sorted_vals, p):
    n = len(sorted_vals)
    if n == 0:
        return None
    return sorted_vals[min(int(n * p / 100), n - 1)]


def host(ip_hex):
    return (int(ip_hex, 16) >> 8) & 0xFFFF


def in_range(h, r):
    lo, hi = r
    return lo <= h <= hi


def stats(path, between=None):
    rows = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 8 or w[3] != "100":
                continue
            if between:
                s, d = host(w[0]), host(w[1])
                a, b = between
                if not ((in_range(s, a) and in_range(d, b)) or (in_range(s, b) and in_range(d, a))):
                    continue
            size, fct, ideal = int(w[4]), float(w[6]), float(w[7])
            rows.append((size, line.rstrip("\n"), max(fct / ideal, 1.0) if ideal > 0 else float("inf")))
    rows.sort(key=lambda r: (r[0], r[1]))
    rows = rows[:-1]  # the artifact's script drops its last line (the largest flow)
    out = []
    for name, lo, hi in BINS:
        s = sorted(r[2] for r in rows if r[0] >= lo and (hi is None or r[0] < hi))
        out.append((name, len(s), pct(s, 50), pct(s, 95), pct(s, 99)))
    return out


def main(argv):
    label = None
    between = None
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--label":
            label = argv[i + 1]
            i += 2
        elif argv[i] == "--between":
            between = tuple(tuple(int(x) for x in r.split("-")) for r in argv[i + 1 : i + 3])
            i += 3
        else:
            files.append(argv[i])
            i += 1
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    print("label,set,flows,p50,p95,p99")
    for path in files:
        for name, n, p50, p95, p99 in stats(path, between):
            fmt = lambda x: "" if x is None else f"{x:.4f}"
            print(f"{label or path},{name},{n},{fmt(p50)},{fmt(p95)},{fmt(p99)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
