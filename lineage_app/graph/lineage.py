"""Lineage traversal: breadth-first, two dataset-lineage hops per round trip, each node visited once, in a budget."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import reads
from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Label

NodeRef = tuple[Label, str]  # a node by its label and natural key
Edge = tuple[NodeRef, NodeRef, tuple[tuple[str, Any], ...]]  # origin, destination, edge properties (data-flow order)
Row = tuple[NodeRef, NodeRef, tuple[tuple[str, Any], ...]]  # an edge as a hop found it: from, to, properties

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
            frontier, remaining = {start}, depth
            while frontier and remaining:
                # Dataset and job lineage goes two hops per round trip while two are left.
                two = remaining >= 2 and start[0] is not Label.FIELD
                step = _double_step if two else _step
                frontier = step(tx, graph, reached, frontier, direction, as_of, max_nodes)
                remaining -= 2 if two else 1
        graph.nodes = _summaries(tx, reached)
        return graph

    return graph_read(work)


def hop_rows(tx: ManagedTransaction, *, label: Label, keys: list[str], direction: str, as_of: str | None) -> list[Row]:
    """Every edge one hop from the `label` nodes named by `keys`, in one round trip."""
    query, end = reads.HOPS[(direction, label, as_of is not None)]
    return [((label, source), (end, target), tuple(zip(EDGE_PROPERTIES, extra, strict=False)))
            for source, target, *extra in records(tx, query, keys=keys, asOf=as_of)[0]["pairs"]]


def double_hop_rows(
    tx: ManagedTransaction, *, label: Label, keys: list[str], direction: str, as_of: str | None
) -> tuple[list[Row], list[Row]]:
    """Dataset / job lineage two hops from the `label` nodes named by `keys`, in one round trip:
    the first hop's edges, and every edge one hop beyond each node the first hop reached."""
    query, middle, end = reads.DOUBLE_HOPS[(direction, label, as_of is not None)]
    first: list[Row] = []
    beyond: list[Row] = []
    for sources, key, targets in records(tx, query, keys=keys, asOf=as_of)[0]["rows"]:
        first.extend(((label, source), (middle, key), ()) for source in sources)
        beyond.extend(((middle, key), (end, target), ()) for target in targets)
    return first, beyond


def by_label(nodes: Iterable[NodeRef]) -> list[tuple[Label, list[str]]]:
    """`nodes` grouped by label, labels and keys sorted."""
    grouped: dict[Label, list[str]] = {}
    for label, key in nodes:
        grouped.setdefault(label, []).append(key)
    return [(label, sorted(grouped[label])) for label in sorted(grouped)]


def _step(
    tx: ManagedTransaction, graph: LineageGraph, reached: set[NodeRef], frontier: set[NodeRef],
    direction: str, as_of: str | None, max_nodes: int,
) -> set[NodeRef]:
    rows: list[Row] = []
    for label, keys in by_label(frontier):
        rows.extend(hop_rows(tx, label=label, keys=keys, direction=direction, as_of=as_of))
    return _advance(graph, reached, rows, direction, max_nodes)


def _double_step(
    tx: ManagedTransaction, graph: LineageGraph, reached: set[NodeRef], frontier: set[NodeRef],
    direction: str, as_of: str | None, max_nodes: int,
) -> set[NodeRef]:
    """Two hops from one round trip, applied one after the other exactly as two `_step`s would:
    the second hop goes on only from middle nodes the first one newly reached."""
    first: list[Row] = []
    beyond: list[Row] = []
    for label, keys in by_label(frontier):
        hop_one, hop_two = double_hop_rows(tx, label=label, keys=keys, direction=direction, as_of=as_of)
        first.extend(hop_one)
        beyond.extend(hop_two)
    following = _advance(graph, reached, first, direction, max_nodes)
    second = [row for row in beyond if row[0] in following]
    return _advance(graph, reached, second, direction, max_nodes) if following else set()


def _advance(
    graph: LineageGraph, reached: set[NodeRef], rows: list[Row], direction: str, max_nodes: int
) -> set[NodeRef]:
    """Take one hop's edges into `graph`: the nodes not reached before, in key order up to the
    budget, and every edge between reached nodes. Returns the next frontier (empty once truncated)."""
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
    for label, keys in by_label(nodes):
        for row in node_summaries(tx, label=label, keys=keys):
            found[(label, row.pop("key"))] = row
    return found


def node_summaries(tx: ManagedTransaction, *, label: Label, keys: list[str]) -> list[dict[str, Any]]:
    """The summary of each node of `label` named by `keys`; datasets and jobs with their latest run."""
    return node_rows(tx, label=label, columns=reads.SUMMARY_COLUMNS[label], keys=keys)


def node_rows(
    tx: ManagedTransaction, *, label: Label, columns: tuple[tuple[str, str], ...], keys: list[str]
) -> list[dict[str, Any]]:
    """The `columns` ((name, property) pairs) of each `label` node named by `keys`, as dicts by name."""
    names = [name for name, _ in columns]
    statement = reads.node_columns(label, columns)
    return [dict(zip(names, values, strict=True)) for values in records(tx, statement, keys=keys)[0]["rows"]]


def run_find(*, run_id: str) -> dict[str, Any] | None:
    """A run's node properties with its inputs, outputs and child runs, or None."""
    rows = graph_read(lambda tx: records(tx, reads.RUN_DETAIL, runId=run_id))
    return rows[0] if rows else None
