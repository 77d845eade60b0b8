"""A canonical dump of the whole graph, so two graphs can be compared for equality."""

from __future__ import annotations

import json
from typing import Any

from lineage_app.graph.driver import graph_read, records
from lineage_app.graph.model import Label

# Lineage only: a backfill's record (`graph.schema`) says when `init_graph` ran, not what the events said.
ALL_NODES = f"MATCH (n) WHERE NOT n:{Label.BACKFILL} RETURN labels(n) AS labels, properties(n) AS props"
ALL_RELATIONSHIPS = (
    "MATCH (a)-[r]->(b) RETURN type(r) AS type, properties(r) AS props, "
    "labels(a) AS aLabels, properties(a) AS a, labels(b) AS bLabels, properties(b) AS b"
)


def _identity(labels: list[str], props: dict[str, Any]) -> str:
    natural = props.get("key") or props.get("runId") or props.get("name")
    return f"{sorted(labels)}:{natural}"


def graph_dump() -> list[str]:
    def work(tx):  # type: ignore[no-untyped-def]
        nodes = [
            json.dumps({"labels": sorted(row["labels"]), "props": row["props"]}, sort_keys=True)
            for row in records(tx, ALL_NODES)
        ]
        edges = [
            json.dumps(
                {
                    "type": row["type"],
                    "props": row["props"],
                    "from": _identity(row["aLabels"], row["a"]),
                    "to": _identity(row["bLabels"], row["b"]),
                },
                sort_keys=True,
            )
            for row in records(tx, ALL_RELATIONSHIPS)
        ]
        return sorted(nodes) + sorted(edges)

    return graph_read(work)
