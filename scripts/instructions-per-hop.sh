#!/usr/bin/env bash
# Instructions per packet-hop of `braid bench` scenarios, counted by cachegrind: the engine's
# per-hop cost as a figure that does not move with the machine's load (today's figures:
# BENCHMARKS.md, "Instructions per packet-hop").
#
#   scripts/instructions-per-hop.sh [BRAID] [SCENARIO ...]
#
# BRAID: the binary (default: target/release/braid, built if missing). SCENARIO: names of
# `braid bench` scenarios (default: (a) and (b) with RoCE, UET and Rondo). Prints one row per
# scenario: instructions (`I refs`), packet-hops, events, instructions per packet-hop and per
# event, and the build measured (`release+inline1000` by default, `release+pgo` for
# scripts/build-pgo.sh's; `braid bench`'s `build_label`).
# SETS='KEY=VALUE …' overrides fields of every scenario (`braid bench --set`), e.g.
# SETS='run.departures="events" run.order="insertion"' for the engine before departures on demand and the canonical order.
# BY_FUNCTION=N also prints, under each row, the N functions that execute the most instructions,
# per packet-hop, and the rest: the profile of what a packet-hop costs. Code the compiler inlined
# counts toward the function it was inlined into (cg_annotate's `file:function` rows summed by
# function).
# Needs valgrind; a scenario takes 5 s to 2 min under it.
set -euo pipefail
cd "$(dirname "$0")/.."

braid=${1:-target/release/braid}
if [ $# -gt 0 ]; then shift; fi
if [ "$braid" = target/release/braid ] && [ ! -x "$braid" ]; then
    cargo build --release -p braid-cli >&2
fi
if [ ! -x "$braid" ]; then
    echo "error: $braid is not an executable braid binary" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null; then
    echo "error: valgrind is not installed (apt-get install valgrind): instructions are counted by cachegrind" >&2
    exit 2
fi
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
    scenarios=(a-permutation-k8-2MB a-permutation-k8-2MB-uet a-permutation-k8-2MB-rondo
               b-permutation-k8-16MB b-permutation-k8-16MB-uet b-permutation-k8-16MB-rondo)
fi

printf '%-32s %16s %12s %12s %10s %10s  %s\n' scenario instructions packet_hops events per_hop per_event build,departures
for s in "${scenarios[@]}"; do
    set_args=()
    for kv in ${SETS:-}; do set_args+=(--set "$kv"); done
    cg_out=/dev/null
    if [ -n "${BY_FUNCTION:-}" ]; then
        cg_out=$(mktemp)
        trap 'rm -f "$cg_out"' EXIT
    fi
    out=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$cg_out" "$braid" bench --child "$s" "${set_args[@]}" 2>&1) || {
        echo "error: $braid bench --child $s failed:" >&2
        echo "$out" | tail -5 >&2
        exit 2
    }
    irefs=$(echo "$out" | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
    hops=$(echo "$out" | sed -n 's/^BENCH .* hops=\([0-9]*\).*/\1/p')
    events=$(echo "$out" | sed -n 's/^BENCH .* events=\([0-9]*\).*/\1/p')
    build=$(echo "$out" | sed -n 's/^BENCH .* build=\([^ ]*\).*/\1/p')
    departures=$(echo "$out" | sed -n 's/^BENCH .* departures=\([^ ]*\).*/\1/p')
    if [ -z "$irefs" ] || [ -z "$hops" ] || [ "$hops" = 0 ]; then
        echo "error: no instruction count or packet-hops for $s (unknown scenario? see crates/braid-cli/src/bench.rs)" >&2
        exit 2
    fi
    awk -v s="$s" -v i="$irefs" -v h="$hops" -v e="$events" -v b="${build:-unknown},${departures:-events}" \
        'BEGIN { printf "%-32s %16.0f %12.0f %12.0f %10.0f %10.0f  %s\n", s, i, h, e, i / h, i / e, b }'
    if [ -n "${BY_FUNCTION:-}" ]; then
        # cg_annotate's rows `IR (PCT%)  FILE:FUNCTION`, summed by FUNCTION (code inlined from
        # other files included), per packet-hop.
        cg_annotate --auto=no --threshold=0 "$cg_out" | awk -v h="$hops" -v top="$BY_FUNCTION" '
            /file:function/ { rows = 1; next }
            rows && /^ *[0-9,]+ \(/ {
                ir = $1; gsub(",", "", ir)
                f = $0; sub(/^ *[0-9,]+ \( *[0-9.]+%\) +/, "", f); sub(/^[^:]*:/, "", f); sub(/<impl braid_net::sim::Sim>::/, "Sim::", f)
                sum[f] += ir; total += ir
            }
            END {
                n = 0
                for (f in sum) { names[++n] = f }
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                    if (sum[names[j]] > sum[names[i]]) { t = names[i]; names[i] = names[j]; names[j] = t }
                rest = total
                for (i = 1; i <= n && i <= top; i++) {
                    printf "    %8.1f  %s\n", sum[names[i]] / h, names[i]; rest -= sum[names[i]]
                }
                printf "    %8.1f  (the rest: %d functions)\n", rest / h, (n > top ? n - top : 0)
            }'
        rm -f "$cg_out"
    fi
done
