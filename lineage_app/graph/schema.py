"""Constraints and indexes: uniqueness on every natural key, lookups by namespace and name, text and ordered indexes
for search; and the backfill of the lower-cased names search reads (`searchName`) on nodes written before them."""

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

# Search matches `searchName` (the lower-cased name) with CONTAINS: Neo4j 5 serves that from a TEXT index
# (trigrams), not from a range index. The embedded ArcadeDB takes the same statement and builds its own
# (range) index, which does not serve CONTAINS there: search scans the label on the embedded engine.
TEXT_INDEXES: tuple[tuple[Label, str], ...] = (
    (Label.DATASET, "searchName"),
    (Label.JOB, "searchName"),
    (Label.FIELD, "searchName"),
    (Label.DATASET_ALIAS, "searchName"),
)

# Search's exact and prefix tiers (`graph.reads.SEARCH_TIERS`) read their matches in the order of these range
# indexes and stop after a window of them: Neo4j serves `=` and `STARTS WITH` on `searchName` from them in
# (`searchName`, tie) order, so a name that tens of thousands of nodes share costs its window, not its matches.
# ArcadeDB takes the same statement and the search statements' `USING` hints naming these indexes.
ORDER_INDEXES: tuple[tuple[Label, str, str], ...] = (
    (Label.DATASET, "searchName", "nodeId"),
    (Label.JOB, "searchName", "nodeId"),
    (Label.FIELD, "searchName", "nodeId"),
    (Label.DATASET_ALIAS, "searchName", "key"),
)

SCHEMA_STATEMENTS: tuple[str, ...] = (
    tuple(
        f"CREATE CONSTRAINT {label.value.lower()}_{prop}_unique IF NOT EXISTS "
        f"FOR (n:{label.value}) REQUIRE n.{prop} IS UNIQUE"
        for label, prop in UNIQUE_KEYS
    )
    + tuple(
        f"CREATE INDEX {label.value.lower()}_{prop}_lookup IF NOT EXISTS FOR (n:{label.value}) ON (n.{prop})"
        for label, prop in LOOKUP_INDEXES
    )
    + tuple(
        f"CREATE TEXT INDEX {label.value.lower()}_{prop}_text IF NOT EXISTS FOR (n:{label.value}) ON (n.{prop})"
        for label, prop in TEXT_INDEXES
    )
    + tuple(
        f"CREATE INDEX {label.value.lower()}_search_order IF NOT EXISTS FOR (n:{label.value}) ON (n.{prop}, n.{tie})"
        for label, prop, tie in ORDER_INDEXES
    )
)

# One batch of the backfill: up to `$batch` nodes of a label that have a name but no `searchName` yet.
SEARCH_NAME_BACKFILL = {
    label: f"""
MATCH (n:{label}) WHERE n.searchName IS NULL AND n.name IS NOT NULL
WITH n LIMIT $batch
SET n.searchName = toLower(n.name)
RETURN count(n) AS written
"""
    for label, _ in TEXT_INDEXES
}
SEARCH_NAME_BATCH = 20_000


def _run(statement: str, tx: ManagedTransaction) -> None:
    tx.run(statement).consume()


def _backfill_batch(label: Label, batch: int, tx: ManagedTransaction) -> int:
    return int(tx.run(SEARCH_NAME_BACKFILL[label], batch=batch).single(strict=True)["written"])


def search_names_backfill(*, batch: int = SEARCH_NAME_BATCH) -> dict[Label, int]:
    """Give every dataset, job, field and dataset alias written before search read `searchName` its lower-cased
    name, in transactions of `batch` nodes; return how many of each were written (none the second time)."""
    written = {}
    for label in SEARCH_NAME_BACKFILL:
        written[label] = 0
        while count := graph_write(partial(_backfill_batch, label, batch)):
            written[label] += count
    return written


def graph_schema_init() -> list[str]:
    """Create every constraint and index that is missing, then backfill `searchName` where it is missing; return
    the schema statements run."""
    for statement in SCHEMA_STATEMENTS:
        graph_write(partial(_run, statement))
    search_names_backfill()
    return list(SCHEMA_STATEMENTS)
