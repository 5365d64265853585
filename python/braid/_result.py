"""Run results in memory (:class:`Result`) and Braid's CSV format both ways
(:func:`read_table`, :func:`to_csv`)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Union

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow

__all__ = ["Result", "read_table", "to_csv"]

#: The CSV files a run can write whose tables have their own attribute on :class:`Result`.
SERIES = ("queues", "ood", "goodput", "paths", "link_util", "slowdown_bins", "fct_stats")


def read_table(source: Union[str, os.PathLike, bytes]) -> "pyarrow.Table":
    """Read one of Braid's CSV files (a path, or the file's bytes) into a ``pyarrow.Table``.

    Column types are inferred over the whole file (integers stay ``int64``, a column with any
    decimal is ``double``); empty cells are nulls; ``true``/``false`` are booleans. Other text
    stays text, exactly as written (``null`` too), so :func:`to_csv` gives the bytes back.
    """
    import pyarrow.csv as pcsv

    data = source if isinstance(source, (bytes, bytearray)) else Path(source).read_bytes()
    # One block for the whole file, so the types are inferred from every row rather than from
    # the first megabyte (a column whose first values are integral may have decimals later).
    block = max(1 << 20, min(len(data) + 1, (1 << 31) - 1))
    return pcsv.read_csv(
        io.BytesIO(data),
        read_options=pcsv.ReadOptions(block_size=block),
        convert_options=pcsv.ConvertOptions(
            null_values=[""],
            true_values=["true"],
            false_values=["false"],
            strings_can_be_null=False,
            timestamp_parsers=[],
        ),
    )


def _csv_cell(s: str) -> str:
    # braid_cli::table::csv_cell: quote a cell that holds a comma, a quote or a line break.
    if any(c in s for c in ',"\n\r'):
        return '"' + s.replace('"', '""') + '"'
    return s


def _as_arrow(table: Any) -> "pyarrow.Table":
    import pyarrow as pa

    if isinstance(table, pa.Table):
        return table
    if isinstance(table, pa.RecordBatch):
        return pa.Table.from_batches([table])
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(table, pd.DataFrame):
        if not isinstance(table.index, pd.RangeIndex):
            table = table.reset_index()
        return pa.Table.from_pandas(table, preserve_index=False)
    if hasattr(table, "to_arrow"):  # polars
        return table.to_arrow()
    return pa.table(table)


def _format_column(col: "pyarrow.ChunkedArray") -> List[str]:
    import pyarrow as pa

    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = col.type
    values = col.to_pylist()
    if pa.types.is_null(t):
        return [""] * len(values)
    if pa.types.is_floating(t):
        return _native.fmt_floats([None if v is None else float(v) for v in values])
    if pa.types.is_integer(t):
        return ["" if v is None else str(v) for v in values]
    if pa.types.is_boolean(t):
        return ["" if v is None else ("true" if v else "false") for v in values]
    return ["" if v is None else _csv_cell(v if isinstance(v, str) else str(v)) for v in values]


def to_csv(table: Any, path: Union[str, os.PathLike, None] = None) -> str:
    """Write a table in Braid's CSV format and return the text (also written to ``path`` if
    given).

    ``table`` is a ``pyarrow.Table``/``RecordBatch``, a ``pandas.DataFrame``, a
    ``polars.DataFrame`` or anything ``pyarrow.table()`` accepts. The format is the one every
    Braid CSV file uses: a header line, ``,`` between cells, ``\\n`` after every line; floats with
    at most three decimals and trailing zeros trimmed (``braid_metrics::fmt_f64``: ``1.25``,
    ``0``, ``1710540.48``; ``null`` for NaN), integers plainly, ``true``/``false``, empty cells
    for nulls, text quoted only when it holds a comma, a quote or a line break. So
    ``to_csv(braid.run(s).flows)`` is byte for byte the ``flows.csv`` that ``braid run s`` writes,
    and ``to_csv(braid.sweep(plan))`` the ``runs.csv`` of ``braid sweep plan``.
    """
    t = _as_arrow(table)
    cols = [_format_column(t.column(i)) for i in range(t.num_columns)]
    lines = [",".join(_csv_cell(str(n)) for n in t.column_names)]
    lines.extend(",".join(row) for row in zip(*cols))
    text = "\n".join(lines) + "\n"
    if path is not None:
        Path(path).write_bytes(text.encode("utf-8"))
    return text


def write_files(directory: Union[str, os.PathLike], files: Mapping[str, bytes]) -> Path:
    """Write a run's files into ``directory`` as ``braid run`` does: a stale ``summary.json`` is
    removed first and the new one is written last (atomically), so a folder with a
    ``summary.json`` holds a complete run."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    summary = d / "summary.json"
    if summary.exists():
        summary.unlink()
    for name, data in files.items():
        if name == "summary.json":
            continue
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    if "summary.json" in files:
        tmp = d / ".summary.json.tmp"
        tmp.write_bytes(files["summary.json"])
        os.replace(tmp, summary)
    return d


def read_files(directory: Union[str, os.PathLike]) -> Dict[str, bytes]:
    """Every file under ``directory``, by path relative to it (``/``-separated)."""
    root = Path(directory)
    out: Dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


class Result:
    """The outcome of :func:`braid.run`: every file ``braid run`` writes, in memory.

    Attributes:
        summary: ``summary.json`` as a dict (field order kept; ``null`` is ``None``).
        scenario: the resolved scenario (``scenario.resolved.toml``): the scenario after ``set``
            and ``seed``, with only the running kinds' fields.
        run_end: why the run ended (``summary["run_end"]``: ``all_flows_complete``,
            ``stop_time``, or for a stopped-early run ``stalled``, ``max_sim_time``, ``max_wall``).
        warnings: the offered-load warnings ``braid run`` prints before running.
        files: the output files by name (bytes), exactly as the CLI writes them.

    Tables (``pyarrow.Table``, see :func:`braid.read_table`; ``.to_pandas()``,
    ``polars.from_arrow()``): :attr:`flows` and one per recorded time series — :attr:`queues`,
    :attr:`ood`, :attr:`goodput`, :attr:`paths`, :attr:`link_util`, :attr:`slowdown_bins`,
    :attr:`fct_stats` (``None`` when the run did not write that file) — and any other CSV file
    by name: :meth:`table` (``result.table("queues")``) or attribute (``result.queues``).
    """

    def __init__(self, files: Mapping[str, bytes], info: Mapping[str, Any]) -> None:
        self._files = dict(files)
        self._tables: Dict[str, "pyarrow.Table"] = {}
        self.summary: Dict[str, Any] = json.loads(self._files["summary.json"].decode("utf-8"))
        self.scenario: str = self._files.get("scenario.resolved.toml", b"").decode("utf-8")
        self.run_end: str = str(self.summary.get("run_end", info.get("run_end", "")))
        self.warnings: List[str] = list(info.get("warnings", []))
        self._human: str = str(info.get("human", ""))

    @property
    def files(self) -> Mapping[str, bytes]:
        """The output files by name (read-only), bytes as ``braid run`` writes them."""
        return MappingProxyType(self._files)

    @property
    def table_names(self) -> List[str]:
        """The names of the CSV files this run wrote, without ``.csv`` (``flows``, ``queues``, …)."""
        return [n[:-4] for n in self._files if n.endswith(".csv")]

    def text(self, name: str) -> str:
        """An output file's text (``"flows.csv"``, ``"fct.txt"``, ``"summary.json"``, …)."""
        return self._files[name].decode("utf-8")

    def table(self, name: str) -> "pyarrow.Table":
        """The CSV file ``name`` (``"queues"`` or ``"queues.csv"``) as a ``pyarrow.Table``.
        Raises ``KeyError`` when the run did not write it."""
        key = name if name.endswith(".csv") else name + ".csv"
        if key not in self._files:
            raise KeyError(f"this run wrote no {key} (it wrote: {', '.join(sorted(self._files))})")
        if key not in self._tables:
            self._tables[key] = read_table(self._files[key])
        return self._tables[key]

    def _maybe(self, name: str) -> Optional["pyarrow.Table"]:
        return self.table(name) if name + ".csv" in self._files else None

    @property
    def flows(self) -> "pyarrow.Table":
        """``flows.csv``: one row per flow (id, src, dst, size, start, finish, FCT, ideal FCT,
        slowdown, retransmissions, …; times in ns). A stopped-early run has none: ``KeyError``."""
        return self.table("flows")

    @property
    def queues(self) -> Optional["pyarrow.Table"]:
        """``queues.csv`` (``output.queues = true``): time_ns, port, node, peer, bytes, probe_bytes
        (``bytes`` leaves out Rondo's low-priority probe class, whose bytes are ``probe_bytes``)."""
        return self._maybe("queues")

    @property
    def ood(self) -> Optional["pyarrow.Table"]:
        """``ood.csv`` (``output.ood = true``): time_ns, host, nic_ood, nic_rbo."""
        return self._maybe("ood")

    @property
    def goodput(self) -> Optional["pyarrow.Table"]:
        """``goodput.csv`` (``output.goodput = true``): time_ns, delivered_bytes, goodput_bps."""
        return self._maybe("goodput")

    @property
    def paths(self) -> Optional["pyarrow.Table"]:
        """``paths.csv`` (``output.paths = true``): per flow and logical path, window, ACK rate,
        inflight, margin, forward delay, skip, probing (senders that report them: Rondo)."""
        return self._maybe("paths")

    @property
    def link_util(self) -> Optional["pyarrow.Table"]:
        """``link_util.csv`` (``output.link_util = true``): DCI-to-DCI link utilisation."""
        return self._maybe("link_util")

    @property
    def slowdown_bins(self) -> Optional["pyarrow.Table"]:
        """``slowdown_bins.csv``: FCT slowdown p50/p99 by flow-size bin."""
        return self._maybe("slowdown_bins")

    @property
    def fct_stats(self) -> Optional["pyarrow.Table"]:
        """``fct_stats.csv`` (``output.fct_artifact = true``): the LCMP artifact's percentiles."""
        return self._maybe("fct_stats")

    def __getattr__(self, name: str) -> "pyarrow.Table":
        # Any other CSV file the run wrote, by name.
        if not name.startswith("_") and name + ".csv" in self.__dict__.get("_files", {}):
            return self.table(name)
        raise AttributeError(name)

    def write(self, directory: Union[str, os.PathLike]) -> Path:
        """Write every output file into ``directory`` (created if needed), the same files and
        bytes ``braid run --out directory`` writes, ``summary.json`` last. Returns the folder."""
        return write_files(directory, self._files)

    def __str__(self) -> str:
        return self._human or repr(self)

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<braid.Result {s.get('scenario')!r} seed={s.get('seed')} {self.run_end}: "
            f"{s.get('flows_completed')}/{s.get('flows_total')} flows, files: {', '.join(sorted(self._files))}>"
        )
