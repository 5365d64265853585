"""examples/python/compare_transports.py runs to completion (small scale) on a local Ray cluster."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd


def test_compare_transports_example(repo, tmp_path):
    out = tmp_path / "cmp"
    p = subprocess.run(
        [sys.executable, str(repo / "examples" / "python" / "compare_transports.py"), "--size", "512KB", "--seeds", "1,2", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    png = out / "compare_transports.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(out / "compare_transports.csv", index_col=0)
    assert list(table.index) == ["Rondo", "UET", "Falcon", "ECMP+DCQCN"]
    assert (table["jct_us"] > 0).all() and (table["fct_p99_us"] >= table["fct_p50_us"]).all()
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 8 and set(runs["status"]) == {"ok"}
    assert "ECMP+DCQCN" in p.stdout
