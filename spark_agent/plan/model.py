"""Plain data the plan extractors hand to the event builder (no py4j objects)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class DatasetId:
    """A dataset's OpenLineage identity."""

    namespace: str
    name: str


@dataclass(frozen=True)
class Symlink:
    """Another name for a dataset, such as its catalog table (`default.orders`)."""

    namespace: str
    name: str
    type: str = "TABLE"


@dataclass(frozen=True)
class Stats:
    """Rows, bytes and files read from or written to one dataset by one action."""

    rows: int | None = None
    size: int | None = None
    files: int | None = None

    def plus(self, other: Stats) -> Stats:
        """Sum of two measurements; an unknown side leaves the other as is."""

        def add(a: int | None, b: int | None) -> int | None:
            return b if a is None else a if b is None else a + b

        return Stats(add(self.rows, other.rows), add(self.size, other.size), add(self.files, other.files))


@dataclass
class DatasetInfo:
    """One input or output of an action, with what is known about it."""

    id: DatasetId
    schema: list[dict[str, Any]] | None = None
    symlink: Symlink | None = None
    stats: Stats | None = None
    lifecycle: str | None = None
    column_lineage: dict[str, Any] | None = None


@dataclass(frozen=True)
class ErrorInfo:
    """An error as reported by Spark or Python."""

    message: str
    stack_trace: str
    language: str


@dataclass
class ActionFacts:
    """Everything the agent learnt from one listener callback."""

    qe_id: int
    func_name: str
    verb: str
    target: str | None
    end_time: float
    duration_s: float
    inputs: list[DatasetInfo] = field(default_factory=list)
    outputs: list[DatasetInfo] = field(default_factory=list)
    error: ErrorInfo | None = None
    unresolved_columns: int = 0
    unknown_nodes: list[str] = field(default_factory=list)

    def absorb(self, nested: ActionFacts) -> None:
        """Merge a nested execution (e.g. the file write inside a CTAS) into this action."""
        by_id = {d.id: d for d in self.inputs}
        for ds in nested.inputs:
            mine = by_id.get(ds.id)
            if mine is None:
                self.inputs.append(replace(ds))
                by_id[ds.id] = self.inputs[-1]
            elif mine.stats is None:
                mine.stats = ds.stats
        outs = {d.id: d for d in self.outputs}
        for ds in nested.outputs:
            mine = outs.get(ds.id)
            if mine is not None and ds.stats is not None:
                mine.stats = ds.stats if mine.stats is None else mine.stats
        if self.error is None and nested.error is not None:
            self.error = nested.error
        self.duration_s = max(self.duration_s, nested.duration_s)
