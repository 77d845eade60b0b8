"""Read the whole graph once, so that the engine's page cache holds it: what `manage.py warm_graph` runs after the
engine starts (Neo4j Community has no page-cache warm-up of its own; docs/scale.md); and the nodes its read warm-up
(`lineage_app.warmup`) starts from."""

from __future__ import annotations

import time
from functools import partial

from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_read, statement_run
from lineage_app.graph.model import Label, Rel

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


# Where the read warm-up starts (`lineage_app.warmup.reads`): datasets a job writes and another reads, jobs that read
# and write, fields derived from another; the first `$n` the engine finds, each with its key and name.
WARM_STARTS = {
    Label.DATASET: f"""
MATCH (:{Label.JOB})-[:{Rel.OUTPUTS}]->(n:{Label.DATASET})-[:{Rel.INPUT_TO}]->(:{Label.JOB})
RETURN DISTINCT n.key AS key, n.name AS name LIMIT $n
""",
    Label.JOB: f"""
MATCH (:{Label.DATASET})-[:{Rel.INPUT_TO}]->(n:{Label.JOB})-[:{Rel.OUTPUTS}]->(:{Label.DATASET})
RETURN DISTINCT n.key AS key, n.name AS name LIMIT $n
""",
    Label.FIELD: f"""
MATCH (:{Label.FIELD})-[:{Rel.DERIVES}]->(n:{Label.FIELD})
RETURN DISTINCT n.key AS key, n.name AS name LIMIT $n
""",
}


def _starts(label: Label, n: int, tx: ManagedTransaction) -> list[tuple[str, str]]:
    return [(row["key"], row["name"]) for row in tx.run(WARM_STARTS[label], n=n)]


def warm_starts(*, label: Label, n: int) -> list[tuple[str, str]]:
    """Up to `n` nodes of `label` (a dataset, a job or a field) with lineage on both sides to start reads from, each
    as its key and name (`WARM_STARTS`)."""
    return graph_read(partial(_starts, label, n))


# How many more datasets than it needs `warm_starts_light` looks at, to keep those with the fewest consumers.
LIGHT_CANDIDATES = 10
WARM_CONSUMERS = f"""
UNWIND $keys AS k
MATCH (:{Label.DATASET} {{key: k}})-[:{Rel.INPUT_TO}]->(j:{Label.JOB})
RETURN k AS key, count(j) AS consumers
"""


def _consumers(keys: list[str], tx: ManagedTransaction) -> dict[str, int]:
    return {row["key"]: row["consumers"] for row in statement_run(tx, WARM_CONSUMERS, keys=keys)}


def warm_starts_light(*, n: int) -> list[tuple[str, str]]:
    """Up to `n` datasets to start reads without a node budget from (impact): of `n * LIGHT_CANDIDATES` of
    `warm_starts`', those with the fewest consumers, fewest first. The datasets the engine finds first are often the
    graph's hubs (the oldest tables, read by the most jobs), and an impact read from one reads a large part of the
    graph: on the 100k synthetic graph 7.6 MB in 2.3 s from its largest hub, 36 kB in 26 ms from a dataset read by five
    jobs; at 1M the warm-up's first impact read took 16.9 s."""
    candidates = warm_starts(label=Label.DATASET, n=n * LIGHT_CANDIDATES)
    consumers = graph_read(partial(_consumers, [key for key, _ in candidates]))
    found = sorted(range(len(candidates)), key=lambda i: (consumers.get(candidates[i][0], 0), i))
    return [candidates[i] for i in found[:n]]
