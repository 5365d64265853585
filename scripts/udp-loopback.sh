#!/usr/bin/env bash
# Direct loopback, one path, no emulator: each transport's goodput over real UDP and the CPU it
# costs (user + system seconds per GB of payload, sender and receiver), one transfer each.
#
#   bash scripts/udp-loopback.sh [BRAID] [SIZE] [NIC RATE]
#   (defaults: target/release/braid, 500MB, 10Gbps; TRANSPORTS="rondo uet" to choose)
#
# Prints one markdown row per transport: goodput (Gb/s, payload over FCT), sender and receiver
# CPU s/GB, retransmissions, and whether the receiver's digest verified the stream.
set -euo pipefail
B=${1:-target/release/braid}
SIZE=${2:-500MB}
RATE=${3:-10Gbps}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "| transport | goodput Gb/s | sender CPU s/GB | receiver CPU s/GB | retransmissions | verified |"
echo "|---|---|---|---|---|---|"
for t in ${TRANSPORTS:-rondo roce uet mprdma falcon rrps eqds}; do
  /usr/bin/time -f "%U %S" -o "$T/rx.time" "$B" recv --listen 127.0.0.1:0 --once --idle-timeout 30s >/dev/null 2>"$T/rx.err" &
  rx=$!
  for _ in $(seq 50); do grep -q "listening on" "$T/rx.err" 2>/dev/null && break; sleep 0.05; done
  addr=$(sed -n 's/.*listening on //p' "$T/rx.err" | head -1)
  /usr/bin/time -f "%U %S" -o "$T/tx.time" "$B" send "$addr" --transport "$t" --size "$SIZE" --rate "$RATE" --json --quiet > "$T/tx.json" 2>"$T/tx.err" || true
  wait $rx || true
  python3 - "$t" "$T" <<'PY'
import json, sys
t, d = sys.argv[1], sys.argv[2]
s = json.load(open(f"{d}/tx.json"))
tu, ts = map(float, open(f"{d}/tx.time").read().split())
ru, rs = map(float, open(f"{d}/rx.time").read().split())
gb = s["acked_bytes"] / 1e9
print(f"| {t} | {s['goodput_gbps']:.2f} | {(tu + ts) / gb:.2f} | {(ru + rs) / gb:.2f} | {s['retransmissions']} | {s['verified']} |")
PY
done
