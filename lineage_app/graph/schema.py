"""Constraints and indexes: uniqueness on every natural key, lookups by namespace and name, text and ordered indexes
for search; the backfills of what search reads on nodes written before it was kept (the lower-cased names,
`searchName`; the current tags, `tags`), each run once per graph; and the wait for the indexes to come online."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

from neo4j import ManagedTransaction

from lineage_app.graph.driver import graph_read, graph_write, records, statement_run
from lineage_app.graph.facets import tag_texts
from lineage_app.graph.model import Label, key_seek
from lineage_app.instants import utc_text

logger = logging.getLogger(__name__)

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
    (Label.BACKFILL, "name"),
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


# Tag search follows a `TAGGED` edge only if its tag is among the node's current tags (`tags`, which the writes keep
# beside the facets: `graph.facets.sightings_properties`, `graph.run_state`), and the graph check compares a run's
# `tags` with its fold's like its other properties. One batch of the backfill: up to `$batch` nodes of a label with
# facets and no `tags` yet, after `$after` in key order (so that each batch reads on from where the last stopped),
# read, then written with the tags of their facets.
_TAGGED_KEYS = ((Label.DATASET, "key"), (Label.JOB, "key"), (Label.RUN, "runId"))
TAGS_BACKFILL_READ = {
    label: f"""
MATCH (n:{label}) WHERE n.{key} > $after AND n.tags IS NULL AND n.facetsJson IS NOT NULL
WITH n ORDER BY n.{key} LIMIT $batch
RETURN n.{key} AS key, n.facetsJson AS facetsJson
"""
    for label, key in _TAGGED_KEYS
}
TAGS_BACKFILL_WRITE = {
    label: f"""
UNWIND $rows AS row
MATCH (n:{label} {{{key}: row.key}})
{key_seek("n", label, key)}
WHERE n.tags IS NULL
SET n.tags = row.tags
"""
    for label, key in _TAGGED_KEYS
}
TAGS_BATCH = 5_000


def _tags_batch(label: Label, batch: int, after: str, tx: ManagedTransaction) -> list[str]:
    rows = [
        {"key": row["key"], "tags": tag_texts(json.loads(row["facetsJson"] or "{}"))}
        for row in records(tx, TAGS_BACKFILL_READ[label], batch=batch, after=after)
    ]
    if rows:
        statement_run(tx, TAGS_BACKFILL_WRITE[label], rows=rows).consume()
    return [row["key"] for row in rows]


def tags_backfill(*, batch: int = TAGS_BATCH) -> dict[Label, int]:
    """Give every dataset, job and run with facets written before its current tags were kept (`tags`) the tags of
    its facets (an empty list for none), in transactions of `batch` nodes; return how many of each were written (none
    the second time). A node a newer write gave `tags` meanwhile keeps them."""
    written = {}
    for label in TAGS_BACKFILL_READ:
        written[label], after = 0, ""
        while keys := graph_write(partial(_tags_batch, label, batch, after)):
            written[label] += len(keys)
            after = max(keys)
    return written


# A backfill's marker: each backfill scans every node of its labels (the properties it fills cannot be indexed while
# missing: 6.6 to 12 s of Neo4j's time at a million datasets, docs/scale.md), so `graph_schema_init` runs it once per
# graph and then records it done.
# Every write since keeps the property, so only a writer older than the backfill (say, an old worker still running
# through an upgrade) could leave a node without it; `init_graph --backfill` scans again.
BACKFILLS_DONE = f"MATCH (b:{Label.BACKFILL}) RETURN b.name AS name"
BACKFILL_DONE = f"MERGE (b:{Label.BACKFILL} {{name: $name}}) SET b.doneAt = $doneAt"
BACKFILLS: dict[str, Callable[[], dict[Label, int]]] = {
    "searchName": search_names_backfill,
    "tags": tags_backfill,
}


@dataclass(frozen=True)
class BackfillsDone:
    """What `backfills_run` did: how many nodes each backfill it ran wrote, by label, and which it found done."""

    ran: dict[str, dict[Label, int]]
    skipped: tuple[str, ...]

    def message(self) -> str:
        ran = [f"{name}: {sum(counts.values()):,} nodes" for name, counts in self.ran.items()]
        skipped = [f"{name}: done before" for name in self.skipped]
        return "; ".join(ran + skipped)


def _backfills_done(tx: ManagedTransaction) -> set[str]:
    return {row["name"] for row in records(tx, BACKFILLS_DONE)}


def _backfill_record(name: str, tx: ManagedTransaction) -> None:
    tx.run(BACKFILL_DONE, name=name, doneAt=utc_text(datetime.now(UTC))).consume()


def backfills_run(*, again: bool = False) -> BackfillsDone:
    """Run each backfill this graph has not finished (every one, `again`), recording each done as it finishes; one
    stopped half-way runs again in full next time (each is safe to repeat)."""
    done = set() if again else graph_read(_backfills_done)
    ran = {}
    for name, backfill in BACKFILLS.items():
        if name in done:
            continue
        ran[name] = backfill()
        graph_write(partial(_backfill_record, name))
    return BackfillsDone(ran=ran, skipped=tuple(name for name in BACKFILLS if name not in ran))


# Each index's state (`ONLINE`, `POPULATING`, `FAILED`) and how far its population is. Neo4j 5 creates an index
# (`CREATE INDEX`, a constraint's) at once and populates it in the background: until it is `ONLINE` the planner
# does without it (the same answers, slowly: search on a large graph scans). Both engines answer this statement (the
# embedded ArcadeDB with its own index names, each `ONLINE`: it builds an index within the `CREATE` that makes it);
# ArcadeDB has no `db.awaitIndexes`, hence a look every `INDEX_POLL` seconds rather than that procedure.
INDEX_STATES = "SHOW INDEXES YIELD name, state, populationPercent RETURN name, state, populationPercent ORDER BY name"
INDEX_TIMEOUT = 300.0  # seconds `graph_schema_init` waits for indexes to come online, by default
INDEX_POLL = 0.5  # seconds between two looks at the indexes' states
INDEX_LOG_EVERY = 10.0  # seconds between two progress lines in the log while indexes populate


@dataclass(frozen=True)
class IndexState:
    """An index as `SHOW INDEXES` tells it: its name, its state and how far its population is (percent)."""

    name: str
    state: str
    percent: float

    def __str__(self) -> str:
        return f"{self.name} ({self.state}, {self.percent:.0f}%)"


def _index_rows(tx: ManagedTransaction) -> list[IndexState]:
    return [IndexState(row["name"], row["state"], float(row["populationPercent"] or 0)) for row in tx.run(INDEX_STATES)]


def index_states() -> list[IndexState]:
    """Every index of the graph database and its state (`INDEX_STATES`)."""
    return graph_read(_index_rows)


@dataclass(frozen=True)
class IndexWait:
    """What `indexes_await` waited for: the indexes that were not online at its first look, those still not online
    when it stopped (empty: all came online), its seconds and its timeout."""

    waited_for: tuple[str, ...]
    not_online: tuple[IndexState, ...]
    seconds: float
    timeout: float

    @property
    def online(self) -> bool:
        return not self.not_online

    def message(self) -> str:
        if not self.waited_for:
            return "every index was online already"
        if self.online:
            return f"waited {self.seconds:.1f}s for {len(self.waited_for)} indexes to come online: " + ", ".join(
                self.waited_for
            )
        failed = [index.name for index in self.not_online if index.state == "FAILED"]
        stopped = (
            f"stopped waiting after {self.seconds:.1f}s: {', '.join(failed)} FAILED and will not come online (see "
            "the engine's log; drop the index and run `init_graph` again)"
            if failed
            else f"gave up after {self.seconds:.1f}s (timeout {self.timeout:g}s)"
        )
        return (
            f"{stopped}; {len(self.not_online)} of the {len(self.waited_for)} indexes waited for are not online: "
            + ", ".join(str(index) for index in self.not_online)
            + ". Until they are, the reads that use them run without them (the same answers, slower: search scans); "
            "one that populates goes on in the background (run `init_graph` again to wait longer, `--index-timeout`)"
        )


def indexes_await(
    *,
    timeout: float = INDEX_TIMEOUT,
    states: Callable[[], list[IndexState]] = index_states,
    poll: float = INDEX_POLL,
) -> IndexWait:
    """Wait until every index is `ONLINE` or `timeout` seconds have passed, logging what it waits for and how far
    each index has populated; a `FAILED` index ends the wait at once (it never comes online). `states` is the
    engine's answer (`index_states`); a test may give another."""
    began = time.monotonic()
    pending = [index for index in states() if index.state != "ONLINE"]
    waited_for = tuple(index.name for index in pending)
    if pending:
        logger.info("waiting up to %gs for indexes to come online: %s", timeout, ", ".join(map(str, pending)))
    logged = began
    while pending and not any(index.state == "FAILED" for index in pending):
        now = time.monotonic()
        if now - began >= timeout:
            break
        if now - logged >= INDEX_LOG_EVERY:
            logger.info("still waiting for indexes to come online: %s", ", ".join(map(str, pending)))
            logged = now
        time.sleep(min(poll, max(timeout - (now - began), 0)))
        pending = [index for index in states() if index.state != "ONLINE"]
    wait = IndexWait(
        waited_for=waited_for, not_online=tuple(pending), seconds=time.monotonic() - began, timeout=timeout
    )
    if waited_for:
        (logger.info if wait.online else logger.warning)("%s", wait.message())
    return wait


@dataclass(frozen=True)
class SchemaInit:
    """What `graph_schema_init` did: the schema statements it ran, its backfills and its wait for the indexes."""

    statements: tuple[str, ...]
    backfills: BackfillsDone
    indexes: IndexWait


def graph_schema_init(*, index_timeout: float = INDEX_TIMEOUT, backfill_again: bool = False) -> SchemaInit:
    """Create every constraint and index that is missing, run the backfills (`searchName`, `tags`) this graph has not
    finished (all of them again, `backfill_again`), then wait up to `index_timeout` seconds for every index to be
    online (`indexes_await`; 0: do not wait)."""
    for statement in SCHEMA_STATEMENTS:
        graph_write(partial(_run, statement))
    backfills = backfills_run(again=backfill_again)
    return SchemaInit(statements=SCHEMA_STATEMENTS, backfills=backfills, indexes=indexes_await(timeout=index_timeout))
