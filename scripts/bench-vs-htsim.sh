#!/usr/bin/env bash
# Braid vs htsim, speed on identical scenarios (BENCHMARKS.md, "Per core against htsim").
#
#   scripts/bench-vs-htsim.sh HTSIM_SRC [SCRATCH]
#
# HTSIM_SRC is a checkout of the public UEC htsim (github.com/ultraethernet/uet-htsim, the folder
# holding `htsim/sim`, or that `sim` folder itself) that you fetched; nothing of it enters this
# repository. The script copies its `sim` folder to SCRATCH (default /tmp/braid-vs-htsim), builds
# `htsim_uec` there (cmake, C++ compiler), builds Braid (release), generates the four scenarios'
# connection matrices with htsim's own generators (seed 1) and runs each scenario on both
# simulators, REPEAT times (default 3, best process wall time kept), one at a time:
#
#   (a) permutation, k = 8 fat-tree (128 hosts), 2 MB      (b) the same, 16 MB
#   (c) 32 -> 1 incast, 8 MB, k = 8                         (d) permutation, k = 16 (1,024 hosts), 2 MB
#
# Both run UET (NSCC + REPS) with htsim's reference settings: 100 Gb/s, 1 us links, 4,150 B
# packets, one-BDP trimming queues, one ACK per 16 KB (Braid: examples/uet-htsim.toml with
# transport.ack_every_bytes = 16384, the same .cm file). htsim
# does not count packet-hops; both simulate the same flows over the same links, so the
# packet-hops/s of both columns use Braid's count for the scenario (data and control packets, one
# per link crossed) over each simulator's process wall time (the whole process, start-up and
# output included, as the shell times it). Braid's own `wall_s` (its event loop only, from
# summary.json) is printed beside it with its ratio, so the two readings are never confused.
# FCT p50 / p99 (us, nearest rank) of both are printed as the check that the two runs simulate the
# same thing.
#
# BRAID=path/to/braid runs that binary instead of building target/release/braid (e.g. the
# profile-guided build of scripts/build-pgo.sh, target/pgo/release/braid). BRAID_SETS='KEY=VALUE …'
# adds overrides to every Braid run, printed with the table (e.g. the engine before:
# BRAID_SETS='run.departures="events" run.order="insertion"').
#
# Needs: bash, python3, cmake (apt-get install cmake, or pip install cmake), g++ or clang++.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
src=$1
scratch=${2:-/tmp/braid-vs-htsim}
repeat=${REPEAT:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)

if [[ -d "$src/htsim/sim" ]]; then
    sim="$src/htsim/sim"
elif [[ -d "$src/sim/datacenter" ]]; then
    sim="$src/sim"
elif [[ -d "$src/datacenter" ]]; then
    sim="$src"
else
    echo "error: $src holds no htsim sim/ folder (expected htsim/sim, sim or the sim folder itself)" >&2
    exit 2
fi
case "$(cd "$scratch" 2>/dev/null && pwd || echo "$scratch")/" in
    "$repo"/*) echo "error: SCRATCH must be outside the repository ($repo)" >&2; exit 2 ;;
esac
command -v cmake >/dev/null || { echo "error: cmake not found (apt-get install cmake, or pip install cmake)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 not found" >&2; exit 2; }

mkdir -p "$scratch"
echo "== building htsim_uec in $scratch/sim (from $sim)" >&2
rm -rf "$scratch/sim"
cp -r "$sim" "$scratch/sim"
cmake -S "$scratch/sim" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release >"$scratch/cmake.log" 2>&1 \
    || { tail -20 "$scratch/cmake.log" >&2; exit 1; }
cmake --build "$scratch/build" --parallel --target htsim_uec >>"$scratch/cmake.log" 2>&1 \
    || { tail -20 "$scratch/cmake.log" >&2; exit 1; }
htsim=$(find "$scratch/build" -type f -name htsim_uec -perm -u+x | head -1)
[[ -n "$htsim" ]] || { echo "error: htsim_uec not found after the build (see $scratch/cmake.log)" >&2; exit 1; }

if [[ -n "${BRAID:-}" ]]; then
    braid=$(cd "$(dirname "$BRAID")" && pwd)/$(basename "$BRAID")
    [[ -x "$braid" ]] || { echo "error: BRAID=$BRAID is not an executable" >&2; exit 2; }
    echo "== Braid: $braid" >&2
else
    echo "== building Braid (release)" >&2
    (cd "$repo" && cargo build --release -q -p braid-cli)
    braid="$repo/target/release/braid"
fi

echo "== connection matrices (htsim's generators, seed 1)" >&2
gen="$scratch/sim/datacenter/connection_matrices"
cms="$scratch/cms"
mkdir -p "$cms"
(cd "$cms" \
    && python3 "$gen/gen_permutation.py" perm_128_2MB.cm 128 128 2000000 0 1 >/dev/null \
    && python3 "$gen/gen_permutation.py" perm_128_16MB.cm 128 128 16000000 0 1 >/dev/null \
    && python3 "$gen/gen_incast.py" incast_32to1_8MB.cm 128 32 8000000 0 1 0 >/dev/null \
    && python3 "$gen/gen_permutation.py" perm_1024_2MB.cm 1024 1024 2000000 0 1 >/dev/null)

HTSIM="$htsim" BRAID="$braid" REPO="$repo" CMS="$cms" SCRATCH="$scratch" REPEAT="$repeat" BRAID_SETS="${BRAID_SETS:-}" python3 - <<'EOF'
import csv, json, os, re, subprocess, sys, time

htsim, braid, repo, cms, scratch = (os.environ[k] for k in ("HTSIM", "BRAID", "REPO", "CMS", "SCRATCH"))
repeat = int(os.environ["REPEAT"])
extra_sets = os.environ["BRAID_SETS"].split()
common = ["-sender_cc_only", "-load_balancing_algo", "reps", "-queue_size_bdp_factor", "1", "-tiers", "3",
          "-linkspeed", "100000", "-hop_latency", "1", "-mtu", "4150", "-seed", "13"]
scenarios = [
    ("(a) permutation k=8, 2 MB", "perm_128_2MB.cm", 20000, []),
    ("(b) permutation k=8, 16 MB", "perm_128_16MB.cm", 50000, []),
    ("(c) incast 32->1, 8 MB", "incast_32to1_8MB.cm", 50000, []),
    ("(d) permutation k=16, 2 MB", "perm_1024_2MB.cm", 20000, ["topology.k=16"]),
]

def timed(cmd, cwd):
    """Wall seconds, the child's peak RSS in MiB (GNU time's %M; NaN without /usr/bin/time), stdout."""
    rss_file = os.path.join(scratch, "rss.txt")
    gnu_time = os.path.exists("/usr/bin/time")
    full = (["/usr/bin/time", "-f", "%M", "-o", rss_file] if gnu_time else []) + cmd
    t0 = time.perf_counter()
    p = subprocess.run(full, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} exited with {p.returncode}:\n{p.stdout[-2000:]}")
    mib = float(open(rss_file).read().split()[-1]) / 1024.0 if gnu_time else float("nan")
    return wall, mib, p.stdout

def pct(xs, p):
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, -(-len(xs) * p // 100) - 1))] if xs else float("nan")

rows = []
for name, cm, end_us, sets in scenarios:
    path = os.path.join(cms, cm)
    best_h = None
    for _ in range(repeat):
        w, mib, out = timed([htsim, "-tm", path, "-end", str(end_us)] + common, scratch)
        if best_h is None or w < best_h[0]:
            best_h = (w, mib, out)
    # htsim: "Flow … starting at S … finished at F" per flow (us).
    starts = {m.group(1): float(m.group(2)) for m in re.finditer(r"Flow (\S+) flowId \d+ \S+ \d+ starting at ([0-9.e+-]+)", best_h[2])}
    fcts = [float(m.group(2)) - starts.get(m.group(1), 0.0) for m in re.finditer(r"Flow (\S+) flowId .*? finished at ([0-9.e+-]+)", best_h[2])]
    best_b = None
    for i in range(repeat):
        out_dir = os.path.join(scratch, "braid", cm.replace(".cm", ""))
        cmd = [braid, "run", os.path.join(repo, "examples/uet-htsim.toml"), "--out", out_dir,
               "--set", f'workload.file="{path}"', "--set", "transport.ack_every_bytes=16384"]
        cmd += [a for s in sets + extra_sets for a in ("--set", s)]
        w, mib, _ = timed(cmd, repo)
        s = json.load(open(os.path.join(out_dir, "summary.json")))
        # Best by process wall time (start-up, scenario parsing and output writing included, as
        # htsim's is); the run's own `wall_s` (the event loop only) is reported beside it.
        if best_b is None or w < best_b[0]:
            fb = [float(r["fct_ns"]) / 1e3 for r in csv.DictReader(open(os.path.join(out_dir, "flows.csv"))) if r.get("fct_ns")]
            best_b = (w, mib, s["packet_hops"], s["events"], fb, s["wall_s"])
    hops = best_b[2]
    rows.append((name, best_h[0], best_h[1], best_b[0], best_b[1], hops, best_b[3],
                 hops / best_h[0], hops / best_b[0], pct(fcts, 50), pct(fcts, 99), len(fcts),
                 pct(best_b[4], 50), pct(best_b[4], 99), len(best_b[4]), best_b[5]))

print(f"\nBraid vs htsim (UET, NSCC + REPS), best of {repeat} by process wall time, one process at a time; packet-hops = Braid's count for the scenario")
if extra_sets:
    print("Braid runs with: " + "  ".join(extra_sets))
print("Process wall: the whole process, as the shell times it (both simulators). Run wall_s: Braid's own event-loop time from summary.json (start-up and output writing left out).")
print("| scenario | htsim process wall s | htsim MiB | Braid process wall s | Braid run wall_s | Braid MiB | packet-hops | Braid events | htsim packet-hops/s | Braid packet-hops/s (process) | Braid / htsim (process wall) | Braid / htsim (run wall_s) | htsim FCT p50 / p99 us (flows) | Braid FCT p50 / p99 us (flows) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {r[1]:.2f} | {r[2]:.0f} | {r[3]:.2f} | {r[15]:.2f} | {r[4]:.0f} | {r[5]:,} | {r[6]:,} | {r[7]/1e6:.2f} M | {r[8]/1e6:.2f} M | {r[1]/r[3]:.1f}x | {r[1]/r[15]:.1f}x | "
          f"{r[9]:.1f} / {r[10]:.1f} ({r[11]}) | {r[12]:.1f} / {r[13]:.1f} ({r[14]}) |")
EOF
