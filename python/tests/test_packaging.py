"""The package as installed: its stub, its command line, its workspace."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import braid
from conftest import run_cli, small_plan


def test_the_extension_is_built_in_the_root_workspace(repo):
    # scenario.resolved.toml is written by the `toml` crate, and so on: the extension must use the
    # same version of every crate as the `braid` binary for the same bytes, and share its release
    # build. One workspace, one Cargo.lock: the extension is a member, with no lockfile of its own.
    root = (repo / "Cargo.toml").read_text()
    assert '"crates/braid-py"' in root and "\nexclude =" not in root
    assert not (repo / "crates" / "braid-py" / "Cargo.lock").exists()
    lock = (repo / "Cargo.lock").read_text()
    assert 'name = "braid-py"' in lock and 'name = "pyo3"' in lock


def syn_features(repo, package: str) -> set:
    """The features of `syn` (a proc-macro dependency) in `cargo build -p <package>`'s graph."""
    out = subprocess.run(
        ["cargo", "tree", "-p", package, "-e", "features", "-i", "syn", "--locked", "--offline"],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout
    return set(re.findall(r'syn feature "([^"]+)"', out))


def test_the_binary_and_the_extension_build_braid_cli_alike(repo):
    # braid-cli's library is one build for `braid` and for the extension only if every crate below
    # it has the same features in both graphs; PyO3's macros turn on features of `syn` that clap's
    # derive shares, and braid-cli's Cargo.toml names them. A PyO3 upgrade that turns on another
    # shows here (and pip would compile braid-cli again).
    assert syn_features(repo, "braid-cli") == syn_features(repo, "braid-py")


def test_the_stub_covers_the_public_api(repo):
    stub = (Path(braid.__file__).parent / "__init__.pyi").read_text()
    for name in braid.__all__:
        assert re.search(rf"^(def|class) {name}\b|^{name}\b", stub, re.M), f"{name} is not in __init__.pyi"
    assert (Path(braid.__file__).parent / "py.typed").is_file()
    for name in braid.__all__:
        obj = getattr(braid, name)
        if callable(obj) and not name.startswith("_"):
            assert obj.__doc__, f"{name} has no docstring"


def py_braid(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "braid", *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_python_m_braid_sweep_on_ray(cli, repo, tmp_path):
    plan = small_plan(tmp_path, repo)
    run_cli(cli, "sweep", str(plan), "--out", str(tmp_path / "cli"), "--quiet")
    p = py_braid("sweep", str(plan), "--executor", "ray", "--out", str(tmp_path / "ray"), "--jobs", "2", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"{plan}: 8 runs (8 run now, 0 reused: complete with the same resolved scenario), 0 failed; results in {tmp_path / 'ray' / 'runs.csv'}" in p.stdout
    assert (tmp_path / "ray" / "runs.csv").read_text() == (tmp_path / "cli" / "runs.csv").read_text()
    p = py_braid("sweep", str(plan), "--out", str(tmp_path / "ray"), "--quiet", cwd=tmp_path)
    assert "(0 run now, 8 reused" in p.stdout


def test_python_m_braid_run_and_validate(cli, repo, tmp_path):
    p = py_braid("run", "examples/quickstart.toml", "--out", str(tmp_path / "r"), "--set", "transport.kind=uet", cwd=repo)
    assert p.returncode == 0, p.stderr
    assert "quickstart (seed 1): 8/8 flows completed" in p.stdout
    run_cli(cli, "run", "examples/quickstart.toml", "--out", str(tmp_path / "c"), "--set", "transport.kind=uet", "--quiet")
    assert (tmp_path / "r" / "flows.csv").read_bytes() == (tmp_path / "c" / "flows.csv").read_bytes()
    p = py_braid("validate", "examples/quickstart.toml", cwd=repo)
    assert p.stdout.strip() == run_cli(cli, "validate", "examples/quickstart.toml").stdout.strip()
    p = py_braid("run", "examples/quickstart.toml", "--set", "transport.kind=nope", cwd=repo)
    c = run_cli(cli, "run", "examples/quickstart.toml", "--set", "transport.kind=nope", check=False)
    assert (p.returncode, p.stderr) == (2, c.stderr)
    p = py_braid("run", "examples/quickstart.toml", "--out", str(tmp_path / "s"), "--set", "run.max_sim_time=20us", "--quiet", cwd=repo)
    assert p.returncode == 3 and "run.max_sim_time" in p.stderr


def test_the_docs_first_example_runs(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    doc = (repo / "docs" / "python.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    assert len(code.strip().splitlines()) == 3
    exec(compile(code, "docs/python.md", "exec"), {})
    assert capsys.readouterr().out.strip()
