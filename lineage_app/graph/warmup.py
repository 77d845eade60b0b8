"""Read the whole graph once, so that the engine's page cache holds it: what `manage.py warm_graph` runs after the
engine starts (Neo4j Community has no page-cache warm-up of its own; docs/scale.md)."""

from __future__ import annotations

import time
from functools import partial

from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_read
from lineage_app.graph.model import Label

# Every node's and relationship's properties (node, relationship, property and string records), then the unique-key
# indexes lineage seeks by: each statement answers one count.
WARM_NODES = "MATCH (n) RETURN count(properties(n)) AS n"
WARM_RELATIONSHIPS = "MATCH ()-[r]->() RETURN count(properties(r)) AS n"
WARM_KEYS = {
    label: f"MATCH (n:{label}) WHERE n.{prop} > '' RETURN count(n) AS n"
    for label, prop in ((Label.DATASET, "key"), (Label.JOB, "key"), (Label.FIELD, "key"), (Label.RUN, "runId"))
}
WARM_STATEMENTS = (WARM_NODES, WARM_RELATIONSHIPS, *WARM_KEYS.values())


def _count(statement: str, tx: ManagedTransaction) -> int:
    return int(tx.run(statement).single(strict=True)["n"])


def graph_warm() -> list[tuple[str, int, float]]:
    """Run each of `WARM_STATEMENTS` in a read transaction of its own; each with what it counted and its seconds."""
    done = []
    for statement in WARM_STATEMENTS:
        began = time.monotonic()
        count = graph_read(partial(_count, statement))
        done.append((statement, count, time.monotonic() - began))
    return done
