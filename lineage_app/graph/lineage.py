"""Dataset lineage traversal: breadth-first, one round trip per hop, each node visited once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Label

NodeRef = tuple[Label, str]  # a node by its label and natural key

HOPS = {
    ("downstream", Label.DATASET): (reads.DOWNSTREAM_OF_DATASETS, Label.JOB),
    ("downstream", Label.JOB): (reads.DOWNSTREAM_OF_JOBS, Label.DATASET),
    ("upstream", Label.DATASET): (reads.UPSTREAM_OF_DATASETS, Label.JOB),
    ("upstream", Label.JOB): (reads.UPSTREAM_OF_JOBS, Label.DATASET),
}


@dataclass
class LineageGraph:
    """The nodes reached, with their summaries, and directed edges in data-flow order."""

    nodes: dict[NodeRef, dict[str, Any]] = field(default_factory=dict)
    edges: set[tuple[NodeRef, NodeRef]] = field(default_factory=set)


def node_find(*, label: Label, candidate_keys: list[str]) -> str | None:
    """The first of `candidate_keys` that names an existing node of `label`."""
    query = reads.FIND_DATASETS if label is Label.DATASET else reads.FIND_JOBS
    found = {row["key"] for row in graph_read(lambda tx: records(tx, query, keys=candidate_keys))}
    return next((key for key in candidate_keys if key in found), None)


def lineage_traverse(
    *, start: NodeRef, depth: int, directions: tuple[str, ...], as_of: str | None
) -> LineageGraph:
    """Everything within `depth` hops of `start`, following data flow in the given directions."""

    def work(tx: ManagedTransaction) -> LineageGraph:
        graph = LineageGraph()
        reached: set[NodeRef] = {start}
        for direction in directions:
            frontier = {start}
            for _ in range(depth):
                frontier = _step(tx, graph, reached, frontier, direction, as_of)
                if not frontier:
                    break
        graph.nodes = _summaries(tx, reached)
        return graph

    return graph_read(work)


def _step(
    tx: ManagedTransaction, graph: LineageGraph, reached: set[NodeRef], frontier: set[NodeRef],
    direction: str, as_of: str | None,
) -> set[NodeRef]:
    following: set[NodeRef] = set()
    for label in (Label.DATASET, Label.JOB):
        keys = sorted(key for node_label, key in frontier if node_label is label)
        if not keys:
            continue
        query, end = HOPS[(direction, label)]
        for row in records(tx, query, keys=keys, asOf=as_of):
            source: NodeRef = (label, row["source"])
            target: NodeRef = (end, row["target"])
            graph.edges.add((source, target) if direction == "downstream" else (target, source))
            if target not in reached:
                reached.add(target)
                following.add(target)
    return following


def _summaries(tx: ManagedTransaction, nodes: set[NodeRef]) -> dict[NodeRef, dict[str, Any]]:
    found: dict[NodeRef, dict[str, Any]] = {}
    for label, query in ((Label.DATASET, reads.DATASET_SUMMARIES), (Label.JOB, reads.JOB_SUMMARIES)):
        keys = sorted(key for node_label, key in nodes if node_label is label)
        if keys:
            for row in records(tx, query, keys=keys):
                found[(label, row.pop("key"))] = row
    return found


def run_find(*, run_id: str) -> dict[str, Any] | None:
    """A run's node properties with its inputs, outputs and child runs, or None."""
    rows = graph_read(lambda tx: records(tx, reads.RUN_DETAIL, runId=run_id))
    return rows[0] if rows else None
