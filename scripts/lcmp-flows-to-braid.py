#!/usr/bin/env python3
"""Convert an LCMP-artifact (ns-3 HPCC) flow file to Braid's flow CSV.

Usage: lcmp-flows-to-braid.py IN.txt OUT.csv "description line"

The artifact's format (docs/lcmp.md, traffic generator): `#` comment lines, the flow count, then
`src dst pg dport size start_s`. Braid's CSV keeps src, dst (host index = the artifact's node id)
and size, and rebases the start times so that the first flow starts at 0, exactly in decimal
nanoseconds (`start_s - first_start_s`). Standard library only.
"""
import sys
from decimal import Decimal


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst, desc = argv
    lines = [l.split() for l in open(src, encoding="utf-8") if l.strip() and not l.lstrip().startswith("#")]
    count = int(lines[0][0])
    flows = lines[1:]
    if len(flows) != count:
        print(f"{src}: the header says {count} flows, the file has {len(flows)}", file=sys.stderr)
        return 1
    t0 = Decimal(flows[0][5])
    name = src.rsplit("/", 1)[-1]
    with open(dst, "w") as out:
        out.write(f"# LCMP artifact flow list {name} (docs/lcmp.md, traffic generator), converted to\n")
        out.write("# Braid CSV by scripts/lcmp-flows-to-braid.py: host indices = artifact node ids, start rebased\n")
        out.write(f"# so that the first flow starts at 0 (ns). {desc}\n")
        out.write("src,dst,size,start\n")
        for f in flows:
            ns = (Decimal(f[5]) - t0) * Decimal(1_000_000_000)
            out.write(f"{int(f[0])},{int(f[1])},{int(f[4])},{int(ns)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
