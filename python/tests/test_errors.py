"""Bad input raises braid.ScenarioError with the CLI's message (never a crash)."""

from __future__ import annotations

import pytest

import braid

try:
    import tomllib
except ImportError:  # Python < 3.11 (python/run-tests.sh installs tomli there)
    import tomli as tomllib

from conftest import cli_error, run_cli

QUICKSTART = "examples/quickstart.toml"


@pytest.mark.parametrize(
    "sets, field",
    [
        ({"transport.kind": "nope"}, "transport.kind"),
        ({"transport.foo": 1}, "transport.foo"),
        ({"topology.leaves": 0}, "topology.leaves"),
        ({"workload.size": "lots"}, "field `size`"),
        ({"run.stall_timeout": "0s"}, "run.stall_timeout"),
        ({"nonsense.field": True}, "nonsense"),
    ],
)
def test_bad_overrides_give_the_cli_message(cli, repo, monkeypatch, sets, field):
    monkeypatch.chdir(repo)
    args = [x for k, v in sets.items() for x in ("--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}")]
    p = run_cli(cli, "run", QUICKSTART, *args, "--out", "/nonexistent/never-written", "--quiet", check=False)
    assert p.returncode == 2, p.stderr
    for call in (lambda: braid.run(QUICKSTART, set=sets), lambda: braid.validate(QUICKSTART, sets)):
        with pytest.raises(braid.ScenarioError) as e:
            call()
        assert str(e.value) == cli_error(p)
        assert field in str(e.value)
        assert isinstance(e.value, ValueError)


def test_validate_gives_the_cli_message_for_a_bad_scenario(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    bad = tmp_path / "bad.toml"
    bad.write_text((repo / QUICKSTART).read_text().replace('kind = "ecmp"', 'kind = "ecmp"\nfrobnicate = 3'))
    p = run_cli(cli, "validate", str(bad), check=False)
    assert p.returncode == 2
    with pytest.raises(braid.ScenarioError) as e:
        braid.validate(bad)
    assert str(e.value) == cli_error(p)
    assert "routing.frobnicate" in str(e.value)


def test_malformed_toml_and_missing_files(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    bad = tmp_path / "broken.toml"
    bad.write_text("name = \n[topology")
    for path in (bad, tmp_path / "missing.toml"):
        p = run_cli(cli, "run", str(path), "--out", str(tmp_path / "o"), "--quiet", check=False)
        assert p.returncode == 2
        with pytest.raises(braid.ScenarioError) as e:
            braid.run(path)
        assert str(e.value) == cli_error(p)


def test_bad_dict_scenarios(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(braid.ScenarioError, match=r"missing table \[transport\]"):
        braid.validate({"name": "x", "topology": {"kind": "leaf-spine"}})
    d = tomllib.loads((repo / QUICKSTART).read_text())
    with pytest.raises(braid.ScenarioError, match="unknown table or field `colour` at the top of the scenario"):
        braid.validate({**d, "colour": "blue"})
    with pytest.raises(braid.ScenarioError, match=r"transport\.roce\.frobnicate"):
        braid.validate({**d, "transport": {**d["transport"], "roce": {"frobnicate": 1}}})
    with pytest.raises(braid.ScenarioError, match=r"topology\.delay"):
        braid.run({"topology": {"kind": "leaf-spine", "delay": object()}})
    # A file a dict scenario names resolves against the current directory: not found here.
    d = {
        "topology": {"kind": "leaf-spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2},
        "transport": {"kind": "roce"},
        "workload": {"kind": "flow-file", "file": "flows/sample.csv"},
    }
    with pytest.raises(braid.ScenarioError, match="flows/sample.csv"):
        braid.run(d)
    with pytest.raises(TypeError):
        braid.run(42)
    with pytest.raises(braid.ScenarioError, match="seed"):
        braid.run(repo / QUICKSTART, seed=-1)


def test_bad_plans(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    plan = tmp_path / "plan.toml"
    plan.write_text(f'scenario = "{(repo / QUICKSTART).as_posix()}"\n[grid]\n"transport.kind" = ["roce", "nope"]\n')
    p = run_cli(cli, "sweep", str(plan), "--out", str(tmp_path / "cli"), "--quiet", check=False)
    assert p.returncode == 2
    with pytest.raises(braid.ScenarioError) as e:
        braid.sweep(plan, out=tmp_path / "py")
    assert str(e.value) == cli_error(p)
    assert "transport.kind=nope" in str(e.value)
    plan.write_text('scenario = "x.toml"\nseedz = 3\n')
    p = run_cli(cli, "sweep", str(plan), "--out", str(tmp_path / "cli"), "--quiet", check=False)
    with pytest.raises(braid.ScenarioError) as e:
        braid.sweep(plan, out=tmp_path / "py")
    assert str(e.value) == cli_error(p) and "seedz" in str(e.value)
    with pytest.raises(ValueError):
        braid.sweep(plan, executor="slurm")
