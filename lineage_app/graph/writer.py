"""Apply projected rows to the graph in one write transaction, then settle derived state."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from neo4j import ManagedTransaction
from neo4j.exceptions import ConstraintError

from lineage_app.graph import identity_statements, lookups
from lineage_app.graph import writes as statements
from lineage_app.graph.driver import graph_write, records
from lineage_app.graph.identity import Identity, canonical_of, identity_key, identity_normalise
from lineage_app.graph.model import KEY_SEPARATOR, NodeType, natural_key
from lineage_app.graph.node_ids import node_id
from lineage_app.graph.projection import GraphWrites

# Two workers that MERGE the same new node at once (a Namespace, a DatasetAlias) both try to create
# it; the engine refuses the later create with a ConstraintError. Run again, the MERGE finds the
# node the other committed, so a few more tries settle it; a lasting violation still raises.
CONSTRAINT_RACE_TRIES = 4


class AliasRegistryRace(Exception):
    """The alias registry read back half of another worker's batch (a link to a name not yet
    visible, seen under ArcadeDB's read-committed isolation): run the transaction again."""


def graph_writes_apply(writes: GraphWrites) -> None:
    """Run every statement of `writes`, and re-derive current schemas, in one transaction.

    First the names the batch spells join the alias registry and resolve to canonical datasets
    (merging any node an alias had until now); then the events are projected under those names.
    """

    def work(tx: ManagedTransaction) -> None:
        canonical, merged = _identity_settle(tx, writes)
        resolved: dict[tuple[str, str], tuple[str, str]] = {}  # a batch spells the same names many times

        def resolve(namespace: str, name: str) -> tuple[str, str]:
            found = resolved.get((namespace, name))
            if found is None:
                normal = identity_normalise(namespace, name)
                found = resolved[namespace, name] = canonical.get(identity_key(*normal), normal)
            return found

        writes.project(resolve)
        known_versions, current_versions = _known_versions(tx, writes)
        candidates = writes.field_candidates(known_versions)
        existing_fields = _existing_field_keys(tx, sorted(candidates))
        new_fields = [row for key, row in candidates.items() if key not in existing_fields]
        for query, rows in writes.statements(known_versions=known_versions, new_fields=new_fields):
            tx.run(query, rows=rows).consume()
        unsettled = {v["datasetKey"] for v in writes.versions.rows() if v["key"] not in current_versions}
        _settle_current_versions(tx, sorted({*unsettled, *merged}))

    for attempt in range(CONSTRAINT_RACE_TRIES):
        try:
            graph_write(work)
            return
        except (ConstraintError, AliasRegistryRace):
            if attempt == CONSTRAINT_RACE_TRIES - 1:
                raise


def _known_versions(tx: ManagedTransaction, writes: GraphWrites) -> tuple[set[str], set[str]]:
    """The batch's schema versions the graph holds already, and those of them that are their
    dataset's current version: seeing a current version again changes nothing derived."""
    rows = [{"key": v["key"], "datasetKey": v["datasetKey"]} for v in writes.versions.rows()]
    if not rows:
        return set(), set()
    found = records(tx, lookups.READ_KNOWN_VERSIONS, rows=rows)
    return (set(found[0]["keys"]), set(found[0]["current"])) if found else (set(), set())


def _existing_field_keys(tx: ManagedTransaction, keys: list[str]) -> set[str]:
    """Which of `keys` name Field nodes in the graph: knowing them spares merging (and locking) a
    field again on every later sighting of its schema or column mapping."""
    if not keys:
        return set()
    found = records(tx, lookups.READ_FIELD_KEYS, keys=keys)
    return set(found[0]["keys"]) if found else set()


def _identity_settle(tx: ManagedTransaction, writes: GraphWrites) -> tuple[dict[str, Identity], list[str]]:
    """Register the batch's spellings and symlinks; answer the canonical identity of every normalised
    key they reach, and the canonical keys that absorbed an alias's node.

    The canonical name of a set of linked names is `canonical_of` the whole set as the graph now
    holds it, so it is the same whatever order the links arrived in. Writing the registry nodes
    first takes their write locks, so a concurrent batch naming the same names waits and then
    resolves against what this one committed.
    """
    spellings = writes.aliases.rows()
    if not spellings:
        return {}, []
    tx.run(identity_statements.MERGE_DATASET_ALIASES, rows=spellings).consume()
    if writes.alias_links.rows():
        tx.run(identity_statements.MERGE_ALIAS_LINKS, rows=writes.alias_links.rows()).consume()
    # The connected components (symlinks either way, or the same normalised name) of the batch's names.
    neighbours: dict[str, set[str]] = defaultdict(set)
    normal: dict[str, Identity] = {}
    stored: dict[str, str | None] = {}  # each name's canonical key as the registry holds it
    frontier = {row["key"] for row in spellings}
    while frontier:
        keys = sorted(frontier)
        for row in records(tx, lookups.READ_ALIAS_SPELLINGS, keys=keys):
            normal[row["key"]] = (row["namespace"], row["name"])
            stored[row["key"]] = row["canonicalKey"]
            neighbours[row["key"]].add(row["other"])
        for row in records(tx, lookups.READ_ALIAS_LINKED, keys=keys):
            neighbours[row["key"]].add(row["other"])
            neighbours[row["other"]].add(row["key"])
        frontier = {other for key in keys for other in neighbours[key]} - normal.keys()
    unseen = sorted(neighbours.keys() - normal.keys())
    if unseen:
        raise AliasRegistryRace(f"alias names linked but not readable yet: {unseen[:3]}")
    canonical: dict[str, Identity] = {}
    alias_rows: list[dict[str, str]] = []
    merges: list[dict[str, str]] = []
    done: set[str] = set()
    for start in sorted(normal):
        if start in done:
            continue
        component, stack = set(), [start]
        while stack:
            key = stack.pop()
            if key not in component:
                component.add(key)
                stack.extend(neighbours[key] - component)
        done |= component
        identities = {normal[key] for key in component}
        chosen = canonical_of(identities)
        chosen_key = identity_key(*chosen)
        alias_rows += [
            {"key": key, "canonicalKey": chosen_key} for key in sorted(component) if stored[key] != chosen_key
        ]
        for identity in identities:
            canonical[identity_key(*identity)] = chosen
        stale = sorted({identity_key(*i) for i in identities} - {chosen_key})
        if stale:
            merges += [
                {
                    "fromKey": row["key"],
                    "toKey": chosen_key,
                    "sep": KEY_SEPARATOR,
                    "toNodeId": node_id(NodeType.DATASET, *chosen),
                    "toNamespace": chosen[0],
                    "toName": chosen[1],
                    "fieldIdPrefix": node_id(NodeType.DATASET_FIELD, *chosen) + ":",
                }
                for row in records(tx, lookups.READ_DATASET_KEYS, keys=stale)
            ]
    if alias_rows:
        tx.run(identity_statements.SET_ALIAS_CANONICAL, rows=alias_rows).consume()
    if merges:
        for query in identity_statements.MERGE_ALIAS_STATEMENTS:
            tx.run(query, rows=merges).consume()
    return canonical, sorted({row["toKey"] for row in merges})


def _settle_current_versions(tx: ManagedTransaction, dataset_keys: list[str]) -> None:
    """A dataset's current schema is the version seen last; its fields take their types from it.

    Derived from the whole set of versions in the graph (not from the batch), so it comes
    out the same whichever order the versions arrived in.
    """
    if not dataset_keys:
        return
    ordered: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in records(tx, lookups.READ_DATASET_VERSION_ORDER, keys=dataset_keys):
        ordered[row["datasetKey"]].append(row)
    changed = [dataset_key for dataset_key, found in ordered.items() if not _is_current(found)]
    if not changed:
        return
    versions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in records(tx, lookups.READ_DATASET_VERSIONS, keys=changed):
        versions[row["datasetKey"]].append(row)
    dataset_rows, field_rows = [], []
    for dataset_key, found in versions.items():
        if _is_current(found):
            continue
        current = max(found, key=lambda v: v["lastKey"])
        current_types = dict(zip(current["fieldNames"], current["fieldTypes"], strict=True))
        dataset_rows.append(
            {
                "datasetKey": dataset_key,
                "version": current["version"],
                "versionCount": len(found),
                "fieldCount": len(current_types),
            }
        )
        last_types: dict[str, str] = {}
        for version in sorted(found, key=lambda v: v["lastKey"]):
            last_types.update(zip(version["fieldNames"], version["fieldTypes"], strict=True))
        namespace, name = current["namespace"], current["name"]
        for field_name, field_type in last_types.items():
            field_rows.append(
                {
                    "key": natural_key(namespace, name, field_name),
                    "type": current_types.get(field_name, field_type),
                    "current": field_name in current_types,
                }
            )
    if dataset_rows:
        tx.run(statements.SET_DATASET_CURRENT_VERSIONS, rows=dataset_rows).consume()
        tx.run(statements.SET_FIELD_TYPES, rows=field_rows).consume()


def _is_current(versions: list[dict[str, Any]]) -> bool:
    """Whether a dataset already holds its newest version as current (and its version count): then
    nothing derived changes, and its field lists need not even be read."""
    newest = max(versions, key=lambda v: v["lastKey"])
    return (newest["storedVersion"], newest["storedCount"]) == (newest["version"], len(versions))


def graph_wipe(*, chunk: int = 5000) -> None:
    """Delete every node and relationship, a chunk per transaction (before a replay)."""
    while graph_write(lambda tx: records(tx, statements.DELETE_SOME, limit=chunk)[0]["deleted"]):
        pass
