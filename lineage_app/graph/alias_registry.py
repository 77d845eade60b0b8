"""The alias registry inside the write transaction (docs/identity.md): a batch's spellings join it,
each set of connected names settles on its canonical name, and the nodes of names that lost it merge.

The canonical name of a set of linked names is `canonical_of` the whole set as the graph now holds
it, so it is the same whatever order the links arrived in. Writing the registry nodes first takes
their write locks, so a concurrent batch naming the same names waits and then resolves against
what this one committed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import identity_statements, lookups
from lineage_app.graph.driver import records, statement_run
from lineage_app.graph.facet_store import facets_read, facets_settle
from lineage_app.graph.facets import Sightings, sightings_merge
from lineage_app.graph.identity import Identity, canonical_of, identity_key
from lineage_app.graph.model import KEY_SEPARATOR, Label, NodeType
from lineage_app.graph.node_ids import node_id


class AliasRegistryRace(Exception):
    """The alias registry read back half of another worker's batch (a link to a name not yet
    visible, seen under ArcadeDB's read-committed isolation): run the transaction again."""


@dataclass
class _Registry:
    """What the registry holds of the names a batch reaches: each name's normalised identity, its
    canonical key as stored (None: not settled yet), and the names it is linked to."""

    normal: dict[str, Identity]
    stored: dict[str, str | None]
    neighbours: defaultdict[str, set[str]]


def identity_settle(
    tx: ManagedTransaction, *, spellings: list[dict[str, Any]], links: list[dict[str, Any]]
) -> tuple[dict[str, Identity], list[str]]:
    """Register a batch's `spellings` and `links` (symlinks); answer the canonical identity of every
    normalised key they reach, and the canonical keys that absorbed an alias's node."""
    if not spellings:
        return {}, []
    _spellings_register(tx, spellings=spellings, links=links)
    registry = _registry_read(tx, keys={row["key"] for row in spellings})
    canonical: dict[str, Identity] = {}
    alias_rows: list[dict[str, str]] = []
    merges: list[dict[str, str]] = []
    for component in _components(registry):
        identities = {registry.normal[key] for key in component}
        chosen = canonical_of(identities)
        chosen_key = identity_key(*chosen)
        alias_rows += _alias_rows(registry, component, chosen_key)
        for identity in identities:
            canonical[identity_key(*identity)] = chosen
        merges += _merge_rows(tx, identities, chosen)
    _canonical_write(tx, alias_rows=alias_rows, merges=merges)
    return canonical, sorted({row["toKey"] for row in merges})


def _spellings_register(
    tx: ManagedTransaction, *, spellings: list[dict[str, Any]], links: list[dict[str, Any]]
) -> None:
    statement_run(tx, identity_statements.MERGE_DATASET_ALIASES, rows=spellings).consume()
    if links:
        statement_run(tx, identity_statements.MERGE_ALIAS_LINKS, rows=links).consume()


def _registry_read(tx: ManagedTransaction, *, keys: set[str]) -> _Registry:
    """Every name connected to `keys` (symlinks either way, or the same normalised name), hop by hop."""
    registry = _Registry(normal={}, stored={}, neighbours=defaultdict(set))
    normal, stored, neighbours = registry.normal, registry.stored, registry.neighbours
    frontier = keys
    while frontier:
        ordered = sorted(frontier)
        for row in records(tx, lookups.READ_ALIAS_SPELLINGS, keys=ordered):
            normal[row["key"]] = (row["namespace"], row["name"])
            stored[row["key"]] = row["canonicalKey"]
            neighbours[row["key"]].add(row["other"])
        for row in records(tx, lookups.READ_ALIAS_LINKED, keys=ordered):
            neighbours[row["key"]].add(row["other"])
            neighbours[row["other"]].add(row["key"])
        frontier = {other for key in ordered for other in neighbours[key]} - normal.keys()
    unseen = sorted(neighbours.keys() - normal.keys())
    if unseen:
        raise AliasRegistryRace(f"alias names linked but not readable yet: {unseen[:3]}")
    return registry


def _components(registry: _Registry) -> Iterator[set[str]]:
    """The connected sets of names, each once, in the order of their least name."""
    done: set[str] = set()
    for start in sorted(registry.normal):
        if start in done:
            continue
        component: set[str] = set()
        stack = [start]
        while stack:
            key = stack.pop()
            if key not in component:
                component.add(key)
                stack.extend(registry.neighbours[key] - component)
        done |= component
        yield component


def _alias_rows(registry: _Registry, component: set[str], chosen_key: str) -> list[dict[str, str]]:
    """The names of `component` whose stored canonical key is not `chosen_key`, with it."""
    return [{"key": key, "canonicalKey": chosen_key} for key in sorted(component) if registry.stored[key] != chosen_key]


def _merge_rows(tx: ManagedTransaction, identities: set[Identity], chosen: Identity) -> list[dict[str, str]]:
    """A merge row for each Dataset node of a name in `identities` other than `chosen`: it moves into `chosen`'s."""
    chosen_key = identity_key(*chosen)
    stale = sorted({identity_key(*i) for i in identities} - {chosen_key})
    if not stale:
        return []
    return [
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


def _canonical_write(tx: ManagedTransaction, *, alias_rows: list[dict[str, str]], merges: list[dict[str, str]]) -> None:
    if alias_rows:
        statement_run(tx, identity_statements.SET_ALIAS_CANONICAL, rows=alias_rows).consume()
    if merges:
        moving = facets_read(tx, Label.DATASET, (row["fromKey"] for row in merges))
        for statement in identity_statements.MERGE_ALIAS_STATEMENTS:
            statement_run(tx, statement, rows=merges).consume()
        # The canonical node keeps the newest sighting of each facet name of the nodes merged into it.
        absorbed: dict[str, Sightings] = {}
        for row in merges:
            sightings_merge(absorbed.setdefault(row["toKey"], {}), moving.get(row["fromKey"], {}))
        facets_settle(tx, Label.DATASET, absorbed)
