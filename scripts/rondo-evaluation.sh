#!/usr/bin/env bash
# The Rondo evaluation on its one network model (`network.profile = "rondo-sim"`, docs/rondo.md,
# "The evaluation's network model"): every plan of §6.2-6.4 and the appendix run on the model, then
# again with each open choice made the other way, and the evaluation table printed from the runs
# (`braid evaluate`; EXPERIMENTS.md holds its output).
#
#   scripts/rondo-evaluation.sh [OUT] [--quick] [--only CHOICE]
#
# OUT (default out/rondo-eval) gets one folder per CHOICE, each holding one folder per plan:
#   model/           the model as it is;
#   placed/          logical paths placed on the equal-cost paths one to one (routing.kind =
#                    path-index) instead of hashed;
#   buffer-3mb/      3 MB switch buffers instead of 32 MiB;
#   paths4/          Rondo with four logical paths per equal-cost path, sharing its W0;
#   paths16/         Rondo with 16 logical paths for every flow (W0 per logical path);
#   paths16-w0phys/  the same, W0 per physical path;
#   paths16-phys/    the same, W0 and the margin cap q0 per physical path;
#   rtt-bound/       Rondo's T_p also bounded by the topology's longest path (rtt_bound).
# The first two alternatives are the model's open choices; the others are candidate changes of
# Rondo's defaults or of the model's logical-path count, not adopted (EXPERIMENTS.md says why).
# `braid repro` reuses a finished run whose resolved scenario is unchanged, whatever binary made
# it: after a code change pass a new OUT. About 20 min per choice on two cores (Fig 22's k = 16
# runs are half of it).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=out/rondo-eval
QUICK=()
ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=(--quick); shift ;;
    --only) ONLY="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) OUT="$1"; shift ;;
  esac
done
BRAID=${BRAID:-target/release/braid}
[ -x "$BRAID" ] || cargo build --release -p braid-cli
PLANS="10 11 12 13 14 15 16 17 18 21 22 23 25 26 27"
CHOICES="model placed buffer-3mb paths4 paths16 paths16-w0phys paths16-phys rtt-bound"
for choice in $CHOICES; do
  [ -n "$ONLY" ] && [ "$ONLY" != "$choice" ] && continue
  case $choice in
    model) args=() ;;
    placed) args=(--set routing.kind=path-index) ;;
    buffer-3mb) args=(--set network.buffer=3MB) ;;
    paths4) args=(--set transport.rondo.paths_per_physical=4 --set 'transport.rondo.w0_per="physical-path"') ;;
    paths16) args=(--set transport.rondo.paths=16) ;;
    paths16-w0phys) args=(--set transport.rondo.paths=16 --set 'transport.rondo.w0_per="physical-path"') ;;
    paths16-phys) args=(--set transport.rondo.paths=16 --set 'transport.rondo.w0_per="physical-path"'
                        --set 'transport.rondo.q0_per="physical-path"') ;;
    rtt-bound) args=(--set transport.rondo.rtt_bound=true) ;;
  esac
  for n in $PLANS; do
    id=rondo-fig$n
    dir="$OUT/$choice/$id"
    [ ${#QUICK[@]} -gt 0 ] && dir="$dir-quick"
    echo "== $choice $id" >&2
    "$BRAID" repro "$id" "${QUICK[@]}" --quiet --out "$dir" "${args[@]}" >/dev/null
  done
done
alts=()
for choice in placed buffer-3mb paths4 paths16 paths16-w0phys paths16-phys rtt-bound; do
  [ -d "$OUT/$choice" ] && alts+=(--alt "$OUT/$choice")
done
"$BRAID" evaluate rondo --from "$OUT/model" "${alts[@]}" "${QUICK[@]}"
