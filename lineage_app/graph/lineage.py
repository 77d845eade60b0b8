"""Lineage traversal: breadth-first, one round trip per hop, each node visited once, within a node budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Label

NodeRef = tuple[Label, str]  # a node by its label and natural key
Edge = tuple[NodeRef, NodeRef, tuple[tuple[str, Any], ...]]  # origin, destination, edge properties (data-flow order)

SUMMARIES = {
    Label.DATASET: reads.DATASET_SUMMARIES,
    Label.JOB: reads.JOB_SUMMARIES,
    Label.FIELD: reads.FIELD_SUMMARIES,
}
EDGE_PROPERTIES = ("job", "transformation", "subtype", "indirect")  # what a DERIVES pair carries after its ends


@dataclass
class LineageGraph:
    """The nodes reached, with their summaries, and directed edges in data-flow order.

    `truncated` is set when the node budget stopped the traversal before `depth`.
    """

    nodes: dict[NodeRef, dict[str, Any]] = field(default_factory=dict)
    edges: set[Edge] = field(default_factory=set)
    truncated: bool = False


def node_find(*, label: Label, candidate_keys: list[str]) -> str | None:
    """The first of `candidate_keys` that names an existing node of `label`."""
    query = reads.FIND_NODES[label]
    found = {row["key"] for row in graph_read(lambda tx: records(tx, query, keys=candidate_keys))}
    return next((key for key in candidate_keys if key in found), None)


def lineage_traverse(
    *, start: NodeRef, depth: int, directions: tuple[str, ...], as_of: str | None, max_nodes: int
) -> LineageGraph:
    """Everything within `depth` hops of `start` in the given directions, at most `max_nodes` nodes.

    Hops follow data flow: Dataset -> Job -> Dataset for dataset lineage, Field -> Field for
    column lineage. When a hop would pass the budget, the nodes it reaches are kept in key
    order up to the budget, the rest (and their edges) are left out, and `truncated` is set.
    """

    def work(tx: ManagedTransaction) -> LineageGraph:
        graph = LineageGraph()
        reached: set[NodeRef] = {start}
        for direction in directions:
            frontier = {start}
            for _ in range(depth):
                frontier = _step(tx, graph, reached, frontier, direction, as_of, max_nodes)
                if not frontier:
                    break
        graph.nodes = _summaries(tx, reached)
        return graph

    return graph_read(work)


def _step(
    tx: ManagedTransaction, graph: LineageGraph, reached: set[NodeRef], frontier: set[NodeRef],
    direction: str, as_of: str | None, max_nodes: int,
) -> set[NodeRef]:
    rows: list[tuple[NodeRef, NodeRef, tuple[tuple[str, Any], ...]]] = []
    for label in sorted({node_label for node_label, _ in frontier}):
        keys = sorted(key for node_label, key in frontier if node_label == label)
        query, end = reads.HOPS[(direction, label, as_of is not None)]
        for source, target, *extra in records(tx, query, keys=keys, asOf=as_of)[0]["pairs"]:
            rows.append(((label, source), (end, target), tuple(zip(EDGE_PROPERTIES, extra, strict=False))))
    new = sorted({target for _, target, _ in rows if target not in reached})
    room = max_nodes - len(reached)
    if len(new) > room:
        graph.truncated = True
        new = new[: max(room, 0)]
    following = set(new)
    reached.update(following)
    for source, target, properties in rows:
        if target in reached:
            graph.edges.add((source, target, properties) if direction == "downstream" else (target, source, properties))
    return set() if graph.truncated else following


def _summaries(tx: ManagedTransaction, nodes: set[NodeRef]) -> dict[NodeRef, dict[str, Any]]:
    found: dict[NodeRef, dict[str, Any]] = {}
    for label in sorted({node_label for node_label, _ in nodes}):
        keys = sorted(key for node_label, key in nodes if node_label == label)
        for row in node_summaries(tx, label=label, keys=keys):
            found[(label, row.pop("key"))] = row
    return found


def node_summaries(tx: ManagedTransaction, *, label: Label, keys: list[str]) -> list[dict[str, Any]]:
    """The summary of each node of `label` named by `keys`; datasets and jobs with their latest run."""
    rows = records(tx, SUMMARIES[label], keys=keys)[0]["rows"]
    for row in rows:
        if "runs" not in row:
            continue
        latest_time, run_id, state = latest_run(row.pop("runs"))
        if label is Label.DATASET:
            row["lastRunState"] = state
        else:
            row.update(latestRunId=run_id, latestRunState=state, latestRunTime=latest_time)
    return rows


def latest_run(runs: list[list[Any]]) -> tuple[str | None, str | None, str | None]:
    """(time, runId, state) of the latest of `[time, runId, state]` rows; the statement chose the time.

    Picked here rather than by sorting in the statement, which costs ArcadeDB several times more.
    """
    real = [run for run in runs if run[1] is not None]  # OPTIONAL MATCH gives ['', null, null]
    if not real:
        return None, None, None
    at, run_id, state = max(real, key=lambda run: (run[0], run[1]))
    return at or None, run_id, state


def run_find(*, run_id: str) -> dict[str, Any] | None:
    """A run's node properties with its inputs, outputs and child runs, or None."""
    rows = graph_read(lambda tx: records(tx, reads.RUN_DETAIL, runId=run_id))
    return rows[0] if rows else None
