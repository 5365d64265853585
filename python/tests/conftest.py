"""Fixtures of the `braid` package's tests (run them with python/run-tests.sh).

The reference for every output is the `braid` binary: `$BRAID_CLI` if set, else
`target/release/braid`, built here with `cargo build --release -p braid-cli --locked` (a no-op
when it is up to date). Nothing is skipped when a tool is missing: the fixture fails, naming it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

REPO = Path(__file__).resolve().parents[2]

#: summary.json lines that measure the machine (braid.WALL_CLOCK_FIELDS).
WALL = ("wall_s", "events_per_sec", "packet_hops_per_sec")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `braid` binary the package is compared with."""
    env = os.environ.get("BRAID_CLI")
    if env:
        p = Path(env)
        assert p.is_file(), f"BRAID_CLI={env} is not a file"
        return p
    cargo = shutil.which("cargo")
    assert cargo, "cargo is not on PATH: the tests build the reference `braid` binary (or set BRAID_CLI)"
    subprocess.run([cargo, "build", "--release", "-p", "braid-cli", "--locked"], cwd=REPO, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    if not target.is_absolute():
        target = REPO / target
    p = target / "release" / "braid"
    assert p.is_file(), f"cargo built no {p}"
    return p


def run_cli(cli: Path, *args: str, cwd: Path = REPO, check: bool = True) -> subprocess.CompletedProcess:
    """Run the `braid` binary; `check` asserts exit code 0."""
    p = subprocess.run([str(cli), *args], cwd=cwd, capture_output=True, text=True)
    if check:
        assert p.returncode == 0, f"braid {' '.join(args)} exited {p.returncode}: {p.stderr}"
    return p


def cli_error(p: subprocess.CompletedProcess) -> str:
    """The message of a failed `braid` command (its stderr after `error: `)."""
    err = p.stderr
    assert err.startswith("error: "), err
    return err[len("error: "):].rstrip("\n")


def without_wall_clock(summary_text: str) -> str:
    """summary.json without the lines that measure the machine."""
    return "".join(l for l in summary_text.splitlines(True) if not any(f'"{w}":' in l for w in WALL))


def dir_files(d: Path) -> Dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def assert_same_outputs(a: Path, b: Path) -> None:
    """Two output folders hold the same files with the same bytes (summary.json: but for the
    wall-clock fields)."""
    fa, fb = dir_files(a), dir_files(b)
    assert sorted(fa) == sorted(fb)
    for name in fa:
        if name.endswith("summary.json"):
            assert without_wall_clock(fa[name].decode()) == without_wall_clock(fb[name].decode()), name
        else:
            assert fa[name] == fb[name], f"{name} differs"


@pytest.fixture(scope="session")
def ray_cluster():
    """A local Ray cluster of two CPUs for the whole session (`ray.init(num_cpus=2)`)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def small_plan(tmp: Path, repo: Path, extra: str = "") -> Path:
    """A plan of a few quick runs of examples/quickstart.toml: two cases x two transports x two
    seeds (8 runs), one case label with a comma (quoted in runs.csv)."""
    p = tmp / "plan.toml"
    p.write_text(
        f'''scenario = "{(repo / "examples" / "quickstart.toml").as_posix()}"
seeds = [1, 2]
set = {{ "workload.size" = "256KB" }}

[grid]
"transport.kind" = ["roce", "uet"]

[[case]]
label = "dcqcn"

[[case]]
label = "hpcc, 128KB"
set = {{ "transport.roce.cc" = "hpcc", "workload.size" = "128KB" }}
{extra}'''
    )
    return p


def names(d: Path) -> List[str]:
    return sorted(p.name for p in d.iterdir())
