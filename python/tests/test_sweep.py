"""braid.sweep: the DataFrame is the CLI's runs.csv, locally and on a local Ray cluster; runs
are resumable; run folders hold the CLI's files."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

import braid
from conftest import assert_same_outputs, run_cli, small_plan


@pytest.fixture(scope="module")
def cli_sweep(cli, repo, tmp_path_factory):
    """`braid sweep` of the small plan: (plan file, output folder)."""
    tmp = tmp_path_factory.mktemp("cli-sweep")
    plan = small_plan(tmp, repo)
    run_cli(cli, "sweep", str(plan), "--out", str(tmp / "out"), "--quiet")
    return plan, tmp / "out"


def check_equal_to_cli(frame: pd.DataFrame, cli_out, out) -> None:
    cli_csv = (cli_out / "runs.csv").read_text()
    # The CSV text: the DataFrame written in Braid's format, and the file the sweep wrote.
    assert braid.to_csv(frame) == cli_csv
    assert (out / "runs.csv").read_text() == cli_csv
    # The DataFrame itself: equal to the CLI's runs.csv read the same way, and to it read as strings.
    pd.testing.assert_frame_equal(frame, braid.load_runs(cli_out / "runs.csv"))
    as_text = pd.read_csv(cli_out / "runs.csv", dtype=str, keep_default_na=False)
    assert list(frame.columns) == list(as_text.columns)
    assert len(frame) == len(as_text) == 8
    assert list(frame["run"]) == list(as_text["run"])
    # Every run folder: the CLI's files, byte for byte (summary.json but for the wall clock).
    assert_same_outputs(cli_out / "runs", out / "runs")
    assert (out / "plan.toml").read_text() == (cli_out / "plan.toml").read_text()
    assert sorted(p.name for p in (out / "scenarios").iterdir()) == sorted(p.name for p in (cli_out / "scenarios").iterdir())


def test_local_sweep_equals_the_cli_runs_csv(cli_sweep, tmp_path):
    plan, cli_out = cli_sweep
    frame = braid.sweep(plan, executor="local", out=tmp_path / "py", jobs=2)
    check_equal_to_cli(frame, cli_out, tmp_path / "py")
    assert frame.attrs["ran"] == 8 and frame.attrs["skipped"] == 0 and frame.attrs["failed"] == []
    assert list(frame.columns[:5]) == ["run", "case", "scenario_file", "transport.kind", "status"]
    assert set(frame["status"]) == {"ok"}
    assert frame["run"][0] == "dcqcn__transport.kind=roce__seed=1"
    assert frame["case"][7] == "hpcc, 128KB"
    assert not any(w in frame.columns for w in braid.WALL_CLOCK_FIELDS)
    assert frame["seed"].dtype.kind == "i" and frame["sim_time_ns"].dtype.kind in "if"


def test_ray_sweep_equals_the_cli_runs_csv(cli_sweep, ray_cluster, tmp_path):
    plan, cli_out = cli_sweep
    frame = braid.sweep(plan, executor="ray", out=tmp_path / "ray")
    check_equal_to_cli(frame, cli_out, tmp_path / "ray")
    assert frame.attrs["ran"] == 8
    # Resumable: the complete runs are skipped; a deleted or changed run runs again.
    again = braid.sweep(plan, executor="ray", out=tmp_path / "ray", jobs=1)
    assert again.attrs["ran"] == 0 and again.attrs["skipped"] == 8
    pd.testing.assert_frame_equal(again, frame)
    shutil.rmtree(tmp_path / "ray" / "runs" / frame["run"][3])
    (tmp_path / "ray" / "runs" / frame["run"][5] / "scenario.resolved.toml").write_text("# changed\n")
    third = braid.sweep(plan, executor="ray", out=tmp_path / "ray")
    assert third.attrs["ran"] == 2 and third.attrs["skipped"] == 6
    check_equal_to_cli(third, cli_out, tmp_path / "ray")


def test_local_sweep_resumes_like_the_cli(cli_sweep, cli, tmp_path):
    plan, cli_out = cli_sweep
    shutil.copytree(cli_out, tmp_path / "out")
    frame = braid.sweep(plan, out=tmp_path / "out")
    assert frame.attrs["skipped"] == 8
    check_equal_to_cli(frame, cli_out, tmp_path / "out")
    # ... and the CLI resumes a Python sweep.
    (tmp_path / "out" / "runs" / frame["run"][0] / "summary.json").unlink()
    p = run_cli(cli, "sweep", str(plan), "--out", str(tmp_path / "out"), "--quiet")
    assert "(1 run now, 7 reused" in p.stdout


def test_a_dict_plan(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    plan = {
        "scenario": "examples/quickstart.toml",
        "seeds": [3],
        "set": {"workload.size": "128KB"},
        "grid": {"transport.kind": ["roce", "rondo"]},
    }
    frame = braid.sweep(plan, out=tmp_path / "d")
    assert list(frame["run"]) == ["transport.kind=roce__seed=3", "transport.kind=rondo__seed=3"]
    assert list(frame["scenario_file"]) == ["examples/quickstart.toml"] * 2
    assert list(frame["transport"]) == ["roce", "rondo"]
    assert (tmp_path / "d" / "plan.toml").is_file() and (tmp_path / "d" / "scenarios" / "quickstart.toml").is_file()
    # Each run is the run braid.run gives with the same overrides.
    r = braid.run("examples/quickstart.toml", set={"workload.size": "128KB", "transport.kind": "rondo"}, seed=3)
    assert (tmp_path / "d" / "runs" / frame["run"][1] / "flows.csv").read_bytes() == r.files["flows.csv"]


def test_runs_that_stop_early_are_rows_not_errors(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    plan = {"scenario": "examples/quickstart.toml", "grid": {"run.max_sim_time": ["20us", "1s"]}}
    # A run that stops early is a complete run for a sweep (its run_end says why), as in the CLI.
    frame = braid.sweep(plan, out=tmp_path / "f")
    assert list(frame["run_end"]) == ["max_sim_time", "all_flows_complete"]
    assert list(frame["status"]) == ["ok", "ok"]


def test_ray_tasks_resolve_a_scenario_s_files_like_the_cli(cli, repo, ray_cluster, tmp_path, monkeypatch):
    # A plan given by a relative path, whose scenario names a flow file relative to itself: the
    # Ray workers (whose current directory is not the driver's) must find it as the CLI does.
    shutil.copy(repo / "examples" / "flow-file.toml", tmp_path / "flow-file.toml")
    shutil.copytree(repo / "examples" / "flows", tmp_path / "flows")
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "p.toml").write_text('scenario = "../flow-file.toml"\n[grid]\n"transport.kind" = ["roce", "rondo"]\n')
    monkeypatch.chdir(tmp_path)
    run_cli(cli, "sweep", "plans/p.toml", "--out", "cli", "--quiet", cwd=tmp_path)
    frame = braid.sweep("plans/p.toml", executor="ray", out="ray")
    assert set(frame["status"]) == {"ok"} and list(frame["scenario_file"]) == ["../flow-file.toml"] * 2
    assert (tmp_path / "ray" / "runs.csv").read_text() == (tmp_path / "cli" / "runs.csv").read_text()
    assert_same_outputs(tmp_path / "cli" / "runs", tmp_path / "ray" / "runs")
