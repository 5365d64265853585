"""braid.run: the same bytes as `braid run`, tables, the resolved scenario, dict scenarios."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import braid

try:  # the tests read TOML files into dicts; the package itself needs no TOML library
    import tomllib
except ImportError:  # Python < 3.11 (python/run-tests.sh installs tomli there)
    import tomli as tomllib

from conftest import assert_same_outputs, names, run_cli, without_wall_clock

QUICKSTART = "examples/quickstart.toml"


@pytest.fixture(scope="module")
def cli_quickstart(cli, repo, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli-quickstart")
    run_cli(cli, "run", QUICKSTART, "--out", str(out), "--quiet")
    return out


def test_the_package_is_the_installed_one():
    # The tests must exercise `pip install`'s result, not the source tree.
    assert "site-packages" in braid.__file__, braid.__file__
    assert braid._native.__file__.endswith((".so", ".pyd"))


def test_quickstart_flows_match_the_cli_byte_for_byte(repo, cli_quickstart, monkeypatch):
    monkeypatch.chdir(repo)
    r = braid.run(QUICKSTART)
    assert isinstance(r.flows, pa.Table)
    assert r.flows.num_rows == 8
    # Through the Arrow table and back: Braid's CSV format exactly.
    assert braid.to_csv(r.flows) == (cli_quickstart / "flows.csv").read_text()
    # And the raw files too.
    assert r.files["flows.csv"] == (cli_quickstart / "flows.csv").read_bytes()


def test_every_output_file_matches_the_cli(repo, cli_quickstart, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    r = braid.run(QUICKSTART)
    r.write(tmp_path / "w")
    assert_same_outputs(cli_quickstart, tmp_path / "w")
    # out= writes the same files as Result.write.
    braid.run(QUICKSTART, out=tmp_path / "o")
    assert_same_outputs(cli_quickstart, tmp_path / "o")
    # Every recorded table round-trips to the CLI's bytes.
    for name in r.table_names:
        assert braid.to_csv(r.table(name)) == (cli_quickstart / f"{name}.csv").read_text(), name


def test_summary_scenario_and_time_series(repo, cli_quickstart, monkeypatch):
    monkeypatch.chdir(repo)
    r = braid.run(QUICKSTART)
    assert r.summary["scenario"] == "quickstart"
    assert r.summary["flows_completed"] == r.summary["flows_total"] == 8
    assert r.run_end == "all_flows_complete"
    assert list(r.summary) == list(__import__("json").loads((cli_quickstart / "summary.json").read_text()))
    assert r.scenario == (cli_quickstart / "scenario.resolved.toml").read_text()
    # The quickstart records queues and OOD; goodput and paths are off.
    assert r.queues.column_names == ["time_ns", "port", "node", "peer", "bytes", "probe_bytes"]
    assert r.ood.column_names == ["time_ns", "host", "nic_ood", "nic_rbo"]
    assert r.goodput is None and r.paths is None
    assert r.slowdown_bins is not None and r.slowdown_bins == r.table("slowdown_bins.csv")
    df = r.flows.to_pandas()
    assert (df["slowdown"] >= 1).all()
    with pytest.raises(KeyError):
        r.table("link_util")
    with pytest.raises(AttributeError):
        r.no_such_table


def test_set_and_seed_match_the_cli(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    sets = {"transport.kind": "uet", "workload.size": "512KB", "output.goodput": True}
    # UET at line rate overloads the leaves' uplinks: braid run warns, so does braid.run.
    with pytest.warns(braid.BraidWarning, match="offered load exceeds capacity"):
        r = braid.run(QUICKSTART, set=sets, seed=7, out=tmp_path / "py")
    assert r.warnings and all(w.startswith("warning: ") for w in r.warnings)
    run_cli(cli, "run", QUICKSTART, "--set", "transport.kind=uet", "--set", "workload.size=512KB", "--set", "output.goodput=true",
            "--seed", "7", "--out", str(tmp_path / "cli"), "--quiet")
    assert_same_outputs(tmp_path / "cli", tmp_path / "py")
    assert r.summary["seed"] == 7 and r.summary["transport"] == "uet"
    assert r.goodput is not None and braid.to_csv(r.goodput) == (tmp_path / "cli" / "goodput.csv").read_text()
    # A list of "table.field=value" strings is the same as the dict.
    with pytest.warns(braid.BraidWarning):
        r2 = braid.run(QUICKSTART, set=["transport.kind=uet", "workload.size=512KB", "output.goodput=true"], seed=7)
    assert r2.files["flows.csv"] == r.files["flows.csv"]


def test_same_scenario_and_seed_give_the_same_bytes(repo, monkeypatch):
    monkeypatch.chdir(repo)
    a = braid.run("examples/spray-slow-spine.toml", set={"workload.size": "1MB"})
    b = braid.run("examples/spray-slow-spine.toml", set={"workload.size": "1MB"})
    assert a.files.keys() == b.files.keys()
    for k in a.files:
        if k != "summary.json":
            assert a.files[k] == b.files[k], k
    assert without_wall_clock(a.text("summary.json")) == without_wall_clock(b.text("summary.json"))


def test_a_dict_scenario_runs_like_its_file(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    d = tomllib.loads((repo / QUICKSTART).read_text())
    r = braid.run(d)
    run_cli(cli, "run", QUICKSTART, "--out", str(tmp_path / "cli"), "--quiet")
    assert r.files["flows.csv"] == (tmp_path / "cli" / "flows.csv").read_bytes()
    assert r.scenario == (tmp_path / "cli" / "scenario.resolved.toml").read_text()


def test_a_dict_scenario_resolves_files_against_the_current_directory(cli, repo, tmp_path, monkeypatch):
    # examples/flow-file.toml names a flow file relative to examples/: from a dict, paths are
    # relative to the current directory instead.
    text = (repo / "examples" / "flow-file.toml").read_text()
    d = tomllib.loads(text)
    monkeypatch.chdir(repo / "examples")
    r = braid.run(d)
    run_cli(cli, "run", "examples/flow-file.toml", "--out", str(tmp_path / "cli"), "--quiet")
    assert r.files["flows.csv"] == (tmp_path / "cli" / "flows.csv").read_bytes()


def test_result_write_for_a_stalled_run_writes_what_the_cli_writes(cli, repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    sets = ["network.loss_rate=1.0", "run.stall_timeout=5ms"]
    p = run_cli(cli, "run", QUICKSTART, *[x for s in sets for x in ("--set", s)], "--out", str(tmp_path / "cli"), "--quiet", check=False)
    assert p.returncode == 3
    with pytest.raises(braid.RunStalled) as e:
        braid.run(QUICKSTART, set=sets, out=tmp_path / "py")
    assert e.value.run_end == "stalled"
    assert e.value.summary["run_end"] == "stalled" and e.value.summary["stuck_flows_total"] == 8
    assert "no progress" in str(e.value) and "8 of 8 flows incomplete" in str(e.value)
    assert names(tmp_path / "py") == ["scenario.resolved.toml", "summary.json"]
    assert_same_outputs(tmp_path / "cli", tmp_path / "py")
    e.value.result.write(tmp_path / "w")
    assert_same_outputs(tmp_path / "cli", tmp_path / "w")


def test_a_limit_raises_run_stalled_with_the_partial_summary(repo, monkeypatch):
    monkeypatch.chdir(repo)
    with pytest.raises(braid.RunStalled) as e:
        braid.run(QUICKSTART, set={"run.max_sim_time": "20us"})
    assert e.value.run_end == "max_sim_time"
    assert "stuck_flows" in e.value.summary
    assert isinstance(e.value, braid.BraidError) and not isinstance(e.value, braid.ScenarioError)


def test_to_csv_formats_like_braid(tmp_path):
    import pandas as pd

    t = pa.table(
        {
            "i": pa.array([1, None, -3], pa.int64()),
            "f": [1.25, 0.0, 1710540.48],
            "g": [2.0, float("nan"), 1 / 3],
            "s": ["a", "b,c", 'q"x'],
            "b": [True, False, None],
            "n": pa.array([None, None, None], pa.null()),
        }
    )
    text = 'i,f,g,s,b,n\n1,1.25,2,a,true,\n,0,null,"b,c",false,\n-3,1710540.48,0.333,"q""x",,\n'
    assert braid.to_csv(t) == text
    assert braid.to_csv(t, tmp_path / "t.csv") == (tmp_path / "t.csv").read_text()
    # pandas: NaN is a missing value there, so an empty cell.
    df = pd.DataFrame({"x": [0.1, float("nan")], "y": ["u", None]})
    assert braid.to_csv(df) == "x,y\n0.1,u\n,\n"
    # A table read back from Braid's format is written back unchanged.
    assert braid.to_csv(braid.read_table(text.encode())) == text


def test_validate(repo, monkeypatch):
    monkeypatch.chdir(repo)
    info = braid.validate(QUICKSTART)
    assert (info.name, info.hosts, info.links, info.flows) == ("quickstart", 8, 12, 8)
    assert str(info) == "quickstart: ok (8 hosts, 12 links, 8 flows)"
    assert 'kind = "roce"' in info.scenario
    assert braid.validate(QUICKSTART, {"transport.kind": "rondo"}).scenario != info.scenario
