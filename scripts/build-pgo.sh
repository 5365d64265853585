#!/usr/bin/env bash
# A profile-guided (PGO) release build of `braid`: the same code and the same outputs, laid out by
# the compiler for the branches and calls a real run takes (BENCHMARKS.md, "The profile-guided
# build", measured 2026-12-04: 7-14 % fewer instructions per packet-hop and 5-7 % less wall time
# than the default release build; `.cargo/config.toml`'s inliner threshold, which RUSTFLAGS here
# replace, adds nothing on top of the profile).
#
#   scripts/build-pgo.sh            # writes target/pgo/release/braid
#
# Three steps: an instrumented build (target/pgo-gen), a training run of every scenario in
# `examples/` with it (each writes its counts), then the release build that reads the merged
# counts (target/pgo). Training on the shipped examples, not on `braid bench`'s scenarios, keeps
# the bench figures honest: they measure scenarios the profile did not see. Takes about 3 minutes on
# two cores; `braid bench` of the result prints `build: release+pgo`. Needs `llvm-profdata` of
# the compiler's own LLVM: the `llvm-tools` rustup component, added here if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    echo "llvm-profdata not found; adding the llvm-tools component" >&2
    rustup component add llvm-tools >&2 || true
fi
if [ ! -x "$profdata" ]; then
    echo "error: $profdata is missing: install it with 'rustup component add llvm-tools' (it must match rustc's LLVM)" >&2
    exit 2
fi

work="$repo/target/pgo-data"
rm -rf "$work"
mkdir -p "$work/raw" "$work/out"

echo "1/3 instrumented build (target/pgo-gen)" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$work/build-scripts" CARGO_TARGET_DIR="$repo/target/pgo-gen" \
    cargo build --release -q -p braid-cli

echo "2/3 training: every scenario in examples/" >&2
for f in examples/*.toml; do
    name=$(basename "$f" .toml)
    if ! LLVM_PROFILE_FILE="$work/raw/braid-%p-%m.profraw" \
        target/pgo-gen/release/braid run "$f" --quiet --out "$work/out/$name" >"$work/out/$name.log" 2>&1; then
        echo "error: training run of $f failed (log: $work/out/$name.log)" >&2
        exit 2
    fi
done
"$profdata" merge -o "$work/braid.profdata" "$work"/raw/*.profraw

echo "3/3 release build with the profile (target/pgo)" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$work/braid.profdata" CARGO_TARGET_DIR="$repo/target/pgo" \
    cargo build --release -q -p braid-cli
echo "target/pgo/release/braid"
