"""The exceptions and warnings of :mod:`braid` (the native module raises these classes too)."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = ["BraidError", "ScenarioError", "RunStalled", "ConservationError", "BraidWarning"]


class BraidError(Exception):
    """Something went wrong in Braid: an output could not be written, or the simulator failed.

    The base class of every exception :mod:`braid` raises.
    """


class ScenarioError(BraidError, ValueError):
    """Bad input: malformed TOML, an unknown kind or field, a bad value or ``set`` override, a bad
    sweep plan. The message is the one ``braid run`` / ``braid validate`` / ``braid sweep`` print
    (they exit with code 2), and names the field, e.g.
    ``examples/quickstart.toml: unknown transport kind `nope` in `transport.kind` ...``.
    """


class RunStalled(BraidError):
    """A run that stopped making progress or hit a limit (``braid run`` exits with code 3).

    ``run_end`` says why (``"stalled"``, ``"max_sim_time"``, ``"max_wall"``), ``summary`` is the
    partial ``summary.json`` (with ``stuck_flows``), and ``result`` the partial
    :class:`braid.Result` (its ``write()`` writes what the CLI writes for such a run: the resolved
    scenario and the partial summary).
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
        self.summary: Dict[str, Any] = dict(result.summary) if result is not None else {}
        self.run_end: Optional[str] = self.summary.get("run_end")


class ConservationError(BraidError):
    """The packet conservation check failed after a run (a simulator bug; ``braid run`` exits with
    code 1). ``result`` holds the run's outputs."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class BraidWarning(UserWarning):
    """Warnings :mod:`braid` emits: the offered-load warnings ``braid run`` prints, failed sweep
    runs, figures that could not be drawn."""
