"""Constraints and indexes: uniqueness on every natural key, lookups by namespace and name."""

from __future__ import annotations

from functools import partial

from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_write
from lineage_app.graph.model import Label

UNIQUE_KEYS: tuple[tuple[Label, str], ...] = (
    (Label.NAMESPACE, "name"),
    (Label.DATASET, "key"),
    (Label.DATASET_VERSION, "key"),
    (Label.FIELD, "key"),
    (Label.JOB, "key"),
    (Label.RUN, "runId"),
    (Label.OWNER, "name"),
    (Label.TAG, "key"),
    (Label.DATASET_ALIAS, "key"),
)

LOOKUP_INDEXES: tuple[tuple[Label, str], ...] = (
    (Label.DATASET, "name"),
    (Label.DATASET, "namespace"),
    (Label.JOB, "name"),
    (Label.JOB, "namespace"),
    (Label.FIELD, "name"),
    (Label.RUN, "state"),
    # A root run's page lists the runs naming it their root (`graph.hierarchy`).
    (Label.RUN, "rootRunId"),
    # Every applied batch resolves its datasets' names through the alias registry by these.
    (Label.DATASET_ALIAS, "normalKey"),
    (Label.DATASET_ALIAS, "canonicalKey"),
)

SCHEMA_STATEMENTS: tuple[str, ...] = tuple(
    f"CREATE CONSTRAINT {label.value.lower()}_{prop}_unique IF NOT EXISTS "
    f"FOR (n:{label.value}) REQUIRE n.{prop} IS UNIQUE"
    for label, prop in UNIQUE_KEYS
) + tuple(
    f"CREATE INDEX {label.value.lower()}_{prop}_lookup IF NOT EXISTS FOR (n:{label.value}) ON (n.{prop})"
    for label, prop in LOOKUP_INDEXES
)


def _run(statement: str, tx: ManagedTransaction) -> None:
    tx.run(statement).consume()


def graph_schema_init() -> list[str]:
    """Create every constraint and index that is missing; return the statements run."""
    for statement in SCHEMA_STATEMENTS:
        graph_write(partial(_run, statement))
    return list(SCHEMA_STATEMENTS)
