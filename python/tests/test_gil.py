"""Simulations release the GIL and stop on Ctrl-C (KeyboardInterrupt)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import braid

LONG = {"workload.size": "64MB", "output.queues": False, "output.ood": False}


def test_a_run_releases_the_gil(repo, monkeypatch):
    monkeypatch.chdir(repo)
    count = 0
    stop = threading.Event()

    def counter() -> None:
        nonlocal count
        while not stop.is_set():
            count += 1

    # The counting rate alone, for reference.
    t = threading.Thread(target=counter)
    t.start()
    time.sleep(0.2)
    c0 = count
    time.sleep(0.2)
    rate = (count - c0) / 0.2
    # Now during a run of a few hundred milliseconds.
    c1 = count
    t0 = time.perf_counter()
    r = braid.run("examples/quickstart.toml", set=LONG)
    elapsed = time.perf_counter() - t0
    during = count - c1
    stop.set()
    t.join()
    assert r.run_end == "all_flows_complete"
    assert elapsed > 0.1, f"the run took only {elapsed:.3f} s: too short to tell"
    # With the GIL held for the run the counter would stand still; released, it keeps a good
    # part of its rate (2 cores: the simulation, the counter and the waiting thread share them).
    assert during > 0.2 * rate * elapsed, f"counted {during} in {elapsed:.3f} s at {rate:.0f}/s alone"


def _interrupt(repo, code: str, after: float) -> tuple:
    """Run `code` in a new interpreter, send it SIGINT `after` seconds after it says `go`, and
    return (exit code, stderr, seconds from the signal to the exit)."""
    script = "import signal, sys, braid\nsignal.signal(signal.SIGINT, signal.default_int_handler)\nprint('go', flush=True)\n" + textwrap.dedent(code)
    p = subprocess.Popen([sys.executable, "-c", script], cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "go"
    time.sleep(after)
    assert p.poll() is None, "the run ended before the signal: make it longer"
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("Ctrl-C did not stop the run within 60 s")
    return p.returncode, err, time.perf_counter() - t0


def test_ctrl_c_stops_a_run(repo):
    code, err, took = _interrupt(repo, 'braid.run("examples/quickstart.toml", set={"workload.size": "8GB"})', 1.0)
    assert "KeyboardInterrupt" in err, err
    assert code != 0
    assert took < 5, f"took {took:.1f} s to stop"


def test_ctrl_c_stops_a_local_sweep(repo, tmp_path):
    out = tmp_path / "s"
    code, err, took = _interrupt(
        repo,
        f'braid.sweep({{"scenario": "examples/quickstart.toml", "set": {{"workload.size": "8GB"}}, "seeds": [1, 2, 3]}}, out={str(out)!r})',
        1.5,
    )
    assert "KeyboardInterrupt" in err, err
    assert took < 5, f"took {took:.1f} s to stop"
    # Nothing complete was left behind, so the next sweep runs everything again.
    assert not list(out.glob("runs/*/summary.json"))
