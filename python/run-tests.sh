#!/usr/bin/env bash
# The `braid` Python package's tests, from nothing: a fresh venv, `pip install <repo>` (maturin
# builds crates/braid-py), the test tools, the reference `braid` binary, then pytest.
#
#   bash python/run-tests.sh [VENV]        # VENV defaults to <target>/python-venv (recreated)
#
# Needs a CPython >= 3.9 with venv ($PYTHON, default python3), a Rust toolchain, and access to
# PyPI and crates.io. Extra arguments after VENV go to pytest (e.g. -k sweep). The builds share
# one Cargo target folder ($CARGO_TARGET_DIR, default <repo>/target).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
# The venv lives in this checkout's own target folder: two checkouts on one machine never share
# (or delete) each other's.
venv="${1:-$CARGO_TARGET_DIR/python-venv}"
shift || true
export CARGO_INCREMENTAL=0
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
start=$(date +%s)
step() { echo "== [$(($(date +%s) - start)) s] $*"; }

"$python" -c 'import sys; assert sys.version_info >= (3, 9), "the braid package needs CPython >= 3.9, this is " + sys.version' \
    || { echo "error: $python is older than 3.9 (set PYTHON)" >&2; exit 1; }
step "fresh venv in $venv ($("$python" --version))"
rm -rf "$venv"
"$python" -m venv "$venv"

# The extension in Cargo's dev profile, which is the test profile's settings (Cargo.toml): after
# the Rust tests (as in .ci/run) pip compiles only PyO3 and the extension, where a release build
# recompiles every crate (about 2 minutes on two cores). Its outputs are the same bytes (the tests
# compare bytes), with Rust's debug assertions on. A user's `pip install .` builds release.
export MATURIN_PEP517_ARGS="${MATURIN_PEP517_ARGS:---profile dev}"
step "pip install $repo (maturin builds the extension: $MATURIN_PEP517_ARGS) and the test tools"
"$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
    "$repo" "pytest>=7" "pyarrow>=12" "pandas>=1.5" "ray>=2.9" "matplotlib>=3.5" "tomli>=1; python_version < '3.11'"

# The reference binary in the dev (= test) profile: the one `cargo test` builds (so in .ci/run
# this compiles nothing). Outputs are the same bytes in every profile; the tests compare bytes.
step "the reference binary: cargo build -p braid-cli --locked"
(cd "$repo" && cargo build -p braid-cli --locked)
export BRAID_CLI="$CARGO_TARGET_DIR/debug/braid"

step "pytest python/tests"
cd "$repo"
status=0
"$venv/bin/python" -m pytest python/tests -v -p no:cacheprovider "$@" || status=$?
step "done (exit $status)"
exit "$status"
