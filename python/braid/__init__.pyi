"""Type stubs of the public :mod:`braid` API (docs/python.md is the reference)."""

import os
from pathlib import Path
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

import pandas
import pyarrow

__version__: str
WALL_CLOCK_FIELDS: Tuple[str, ...]

ScenarioLike = Union[str, os.PathLike[str], Mapping[str, Any]]
PlanLike = Union[str, os.PathLike[str], Mapping[str, Any]]
SetLike = Union[Mapping[str, Any], Sequence[str], None]
PathLike = Union[str, os.PathLike[str]]

class BraidError(Exception): ...
class ScenarioError(BraidError, ValueError): ...

class RunStalled(BraidError):
    result: Optional[Result]
    summary: Dict[str, Any]
    run_end: Optional[str]
    def __init__(self, message: str, result: Optional[Result] = ...) -> None: ...

class ConservationError(BraidError):
    result: Optional[Result]
    def __init__(self, message: str, result: Optional[Result] = ...) -> None: ...

class BraidWarning(UserWarning): ...

class ScenarioInfo:
    name: str
    seed: int
    hosts: int
    links: int
    flows: int
    scenario: str
    def __init__(self, name: str, seed: int, hosts: int, links: int, flows: int, scenario: str) -> None: ...

class Result:
    summary: Dict[str, Any]
    scenario: str
    run_end: str
    warnings: List[str]
    def __init__(self, files: Mapping[str, bytes], info: Mapping[str, Any]) -> None: ...
    @property
    def files(self) -> Mapping[str, bytes]: ...
    @property
    def table_names(self) -> List[str]: ...
    def text(self, name: str) -> str: ...
    def table(self, name: str) -> pyarrow.Table: ...
    @property
    def flows(self) -> pyarrow.Table: ...
    @property
    def queues(self) -> Optional[pyarrow.Table]: ...
    @property
    def ood(self) -> Optional[pyarrow.Table]: ...
    @property
    def goodput(self) -> Optional[pyarrow.Table]: ...
    @property
    def paths(self) -> Optional[pyarrow.Table]: ...
    @property
    def link_util(self) -> Optional[pyarrow.Table]: ...
    @property
    def slowdown_bins(self) -> Optional[pyarrow.Table]: ...
    @property
    def fct_stats(self) -> Optional[pyarrow.Table]: ...
    def __getattr__(self, name: str) -> pyarrow.Table: ...
    def write(self, directory: PathLike) -> Path: ...

def run(
    scenario: ScenarioLike,
    *,
    set: SetLike = ...,
    seed: Optional[int] = ...,
    out: Optional[PathLike] = ...,
) -> Result: ...
def validate(scenario: ScenarioLike, set: SetLike = ..., *, seed: Optional[int] = ...) -> ScenarioInfo: ...
def sweep(
    plan: PlanLike,
    *,
    executor: Literal["local", "ray"] = ...,
    jobs: Optional[int] = ...,
    out: Optional[PathLike] = ...,
    address: Optional[str] = ...,
    progress: bool = ...,
) -> pandas.DataFrame: ...
def load_runs(path: PathLike) -> pandas.DataFrame: ...
def to_csv(table: Any, path: Optional[PathLike] = ...) -> str: ...
def read_table(source: Union[PathLike, bytes]) -> pyarrow.Table: ...
