"""Apply projected rows to the graph in one write transaction, then settle derived state."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import queries
from lineage_app.graph.driver import graph_write, records
from lineage_app.graph.model import natural_key
from lineage_app.graph.projection import GraphWrites


def graph_writes_apply(writes: GraphWrites) -> None:
    """Run every statement of `writes`, and re-derive current schemas, in one transaction."""

    def work(tx: ManagedTransaction) -> None:
        for query, rows in writes.statements():
            tx.run(query, rows=rows).consume()
        _settle_current_versions(tx, writes.touched_dataset_keys())

    graph_write(work)


def _settle_current_versions(tx: ManagedTransaction, dataset_keys: list[str]) -> None:
    """A dataset's current schema is the version seen last; its fields take their types from it.

    Derived from the whole set of versions in the graph (not from the batch), so it comes
    out the same whichever order the versions arrived in.
    """
    if not dataset_keys:
        return
    versions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in records(tx, queries.READ_DATASET_VERSIONS, keys=dataset_keys):
        versions[row["datasetKey"]].append(row)
    dataset_rows, field_rows = [], []
    for dataset_key, found in versions.items():
        current = max(found, key=lambda v: v["lastKey"])
        if (current["storedVersion"], current["storedCount"]) == (current["version"], len(found)):
            continue  # the newest version is already current: nothing derived changes
        current_types = dict(zip(current["fieldNames"], current["fieldTypes"], strict=True))
        dataset_rows.append(
            {"datasetKey": dataset_key, "version": current["version"],
             "versionCount": len(found), "fieldCount": len(current_types)}
        )
        last_types: dict[str, str] = {}
        for version in sorted(found, key=lambda v: v["lastKey"]):
            last_types.update(zip(version["fieldNames"], version["fieldTypes"], strict=True))
        namespace, name = current["namespace"], current["name"]
        for field_name, field_type in last_types.items():
            field_rows.append(
                {"key": natural_key(namespace, name, field_name),
                 "type": current_types.get(field_name, field_type),
                 "current": field_name in current_types}
            )
    if dataset_rows:
        tx.run(queries.SET_DATASET_CURRENT_VERSIONS, rows=dataset_rows).consume()
        tx.run(queries.SET_FIELD_TYPES, rows=field_rows).consume()


def graph_wipe(*, chunk: int = 5000) -> None:
    """Delete every node and relationship, a chunk per transaction (before a replay)."""
    while graph_write(lambda tx: records(tx, queries.DELETE_SOME, limit=chunk)[0]["deleted"]):
        pass
