"""Lineage reads shaped for the API: Marquez-style node lists with in / out edges."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from typing import Any

from lineage_app.graph.events import utc_text
from lineage_app.graph.lineage import NodeRef, lineage_traverse, node_find, run_find
from lineage_app.graph.model import Label, NodeType, natural_key
from lineage_app.ingest.selectors import run_events
from lineage_app.signatures.selectors import verification_worst

NODE_LABELS = {NodeType.DATASET: Label.DATASET, NodeType.JOB: Label.JOB}
DIRECTIONS = {"upstream": ("upstream",), "downstream": ("downstream",), "both": ("upstream", "downstream")}


class NodeNotFound(LookupError):
    pass


def node_resolve(*, node_id: str) -> NodeRef:
    """The graph node a `dataset:<ns>:<name>` or `job:<ns>:<name>` id names.

    Namespaces and names may themselves contain ':' (`file://…`, `host:5432`), so every
    split is tried and the one that exists wins.
    """
    kind, _, rest = node_id.partition(":")
    try:
        label = NODE_LABELS[NodeType(kind)]
    except ValueError:
        raise NodeNotFound(f"nodeId must start with 'dataset:' or 'job:' (got {node_id!r})") from None
    positions = [i for i, char in enumerate(rest) if char == ":"]
    candidates = [natural_key(rest[:i], rest[i + 1 :]) for i in positions]
    key = node_find(label=label, candidate_keys=candidates) if candidates else None
    if key is None:
        raise NodeNotFound(f"no {kind} with id {node_id!r}")
    return (label, key)


def lineage_for_node(*, node_id: str, depth: int, direction: str, as_of: datetime | None) -> dict[str, Any]:
    start = node_resolve(node_id=node_id)
    graph = lineage_traverse(
        start=start, depth=depth, directions=DIRECTIONS[direction],
        as_of=utc_text(as_of) if as_of else None,
    )
    ids = {ref: summary["nodeId"] for ref, summary in graph.nodes.items()}
    in_edges: dict[NodeRef, list[dict[str, str]]] = defaultdict(list)
    out_edges: dict[NodeRef, list[dict[str, str]]] = defaultdict(list)
    for origin, destination in sorted(graph.edges):
        edge = {"origin": ids[origin], "destination": ids[destination]}
        out_edges[origin].append(edge)
        in_edges[destination].append(edge)
    nodes = [
        {
            "id": ids[ref],
            "type": "DATASET" if ref[0] is Label.DATASET else "JOB",
            "data": summary,
            "inEdges": in_edges[ref],
            "outEdges": out_edges[ref],
        }
        for ref, summary in sorted(graph.nodes.items(), key=lambda item: ids[item[0]])
    ]
    return {"nodeId": ids[start], "depth": depth, "direction": direction, "graph": nodes}


def run_for_id(*, run_id: str) -> dict[str, Any]:
    """A run from the graph, with its events from the event log and their worst signature status."""
    found = run_find(run_id=run_id.lower())
    if found is None:
        raise NodeNotFound(f"no run with id {run_id!r}")
    run = dict(found["run"])
    facets = json.loads(run.pop("facetsJson", None) or "{}")
    run.pop("nodeId", None)
    events = run_events(run_id=run["runId"])
    return {
        "id": f"run:{run['runId']}",
        **run,
        "facets": facets,
        "inputs": sorted(found["inputs"]),
        "outputs": sorted(found["outputs"]),
        "children": sorted(found["children"]),
        "verification": verification_worst(statuses=[event["verification"] or "" for event in events]),
        "events": events,
    }
