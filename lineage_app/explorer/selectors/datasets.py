"""Datasets: the listing, a dataset's detail page, and what changed between two of its schema versions."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from lineage_app.graph import listings
from lineage_app.graph.model import NOW, Label, NodeType
from lineage_app.graph.node_ids import NodeNotFound
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.schema_fields import field_descriptions, schema_change
from lineage_app.graph.traversal import lineage_traverse

LAST_RUNS = 10
# How many of the latest runs' write statistics the dataset page draws as a trend.
WRITE_STATISTICS_RUNS = 50


class VersionNotFound(LookupError):
    def __init__(self, message: str, *, parameter: str) -> None:
        super().__init__(message)
        self.parameter = parameter


def dataset_list(*, namespace: str | None, q: str | None, limit: int, offset: int) -> dict[str, Any]:
    count, rows = listings.dataset_page(namespace=namespace, q=q, limit=limit, offset=offset)
    return {
        "count": count,
        "results": [
            {
                "id": row["nodeId"],
                "namespace": row["namespace"],
                "name": row["name"],
                "fieldCount": row["fieldCount"] or 0,
                "currentVersion": row["currentVersion"],
                "lastSeen": row["lastSeen"],
                "lastRunState": row["lastRunState"],
            }
            for row in rows
        ],
    }


def dataset_detail(*, node_id: str) -> dict[str, Any]:
    """A dataset with its fields, schema versions (oldest first), owners, producers, consumers, last runs and
    the rows and bytes its latest runs wrote (oldest first)."""
    _, key = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    found = listings.dataset_find(key=key, last_runs=LAST_RUNS, write_statistics=WRITE_STATISTICS_RUNS)
    if found is None:
        raise NodeNotFound(f"no dataset with id {node_id!r}")
    return {
        "id": found["id"],
        "namespace": found["namespace"],
        "name": found["name"],
        "facets": json.loads(found["facetsJson"] or "{}"),
        "currentVersion": found["currentVersion"],
        "fields": _described(found["fields"], found["versions"]),
        "versions": [
            {
                "version": v["version"],
                "firstSeen": v["firstSeen"],
                "lastSeen": v["lastSeen"],
                "createdByRun": v["createdByRun"],
                "fields": [{"name": n, "type": t} for n, t in zip(v["fieldNames"], v["fieldTypes"], strict=True)],
            }
            for v in found["versions"]
        ],
        "owners": found["owners"],
        "producers": [job["id"] for job in found["producers"] if job["staleSince"] is None],
        "consumers": [job["id"] for job in found["consumers"] if job["staleSince"] is None],
        "inferredConsumers": [job["id"] for job in found["consumers"] if job["staleSince"] is None and job["inferred"]],
        "formerProducers": [job for job in found["producers"] if job["staleSince"] is not None],
        "formerConsumers": [job for job in found["consumers"] if job["staleSince"] is not None],
        "lastRuns": found["lastRuns"],
        "writeStatistics": found["writeStatistics"][::-1],
        "aliases": [_alias(a) for a in listings.dataset_aliases(key=key)],
    }


def _described(fields: list[dict[str, Any]], versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`fields` with their descriptions: each the newest a schema version sent (`field_descriptions`), or None."""
    known = field_descriptions(versions)
    return [{**field, "description": known.get(field["name"]) or None} for field in fields]


def _alias(row: dict[str, Any]) -> dict[str, Any]:
    """Another name of a dataset, and where it was seen first."""
    return {
        "namespace": row["namespace"],
        "name": row["name"],
        "source": {
            "kind": row["kind"],
            "type": row["type"],
            "job": row["job"],
            "producer": row["producer"],
            "event": row["event"],
            "firstSeen": row["firstSeen"],
        },
    }


def dataset_version_diff(*, node_id: str, from_version: str | None, to_version: str | None) -> dict[str, Any]:
    """Fields added, removed and retyped between two schema versions, and every dataset downstream; a
    type one of the two left empty is no retyping (`schema_change`).

    `to_version` defaults to the current version and `from_version` to the one before it.
    """
    start = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    detail = listings.dataset_find(key=start[1], last_runs=0, write_statistics=0)
    assert detail is not None  # just resolved
    order = [v["version"] for v in detail["versions"]]
    to_version = to_version or detail["currentVersion"] or (order[-1] if order else None)
    if to_version is None or to_version not in order:
        raise VersionNotFound(f"{node_id!r} has no schema version {to_version!r}", parameter="to")
    if from_version is None:
        index = order.index(to_version)
        from_version = order[index - 1] if index > 0 else to_version
    if from_version is None or from_version not in order:
        raise VersionNotFound(f"{node_id!r} has no schema version {from_version!r}", parameter="from")
    fields = listings.dataset_version_fields(key=start[1], versions=[from_version, to_version])
    before, after = dict(fields[from_version]), dict(fields[to_version])
    change = schema_change(fields[from_version], fields[to_version])
    retyped = set(change.retyped) if change else set()
    renamed = change.renamed if change else []
    graph = lineage_traverse(
        start=start,
        depth=settings.LINEAGE_MAX_DEPTH,
        directions=("downstream",),
        moment=NOW,
        max_nodes=settings.LINEAGE_MAX_NODES,
    )
    downstream = sorted(
        summary["nodeId"] for ref, summary in graph.nodes.items() if ref[0] is Label.DATASET and ref != start
    )
    return {
        "from": from_version,
        "to": to_version,
        "added": [{"name": n, "type": t} for n, t in fields[to_version] if n not in before],
        "removed": [{"name": n, "type": t} for n, t in fields[from_version] if n not in after],
        "changed": [{"name": n, "fromType": before[n], "toType": t} for n, t in fields[to_version] if n in retyped],
        "renamed": [{"from": was, "to": now} for was, now in renamed],
        "downstream": downstream,
        "truncated": graph.truncated,
    }
