"""Datasets' and jobs' facets in the write transaction: read as stored, merged per facet name with
newer sightings (`graph.facets`), and written back only on the nodes whose facets change."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.driver import records
from lineage_app.graph.facets import Sightings, sightings_merge, sightings_properties, sightings_stored
from lineage_app.graph.model import Label

_READ = {Label.DATASET: lookups.READ_DATASET_FACETS, Label.JOB: lookups.READ_JOB_FACETS}
_WRITE = {Label.DATASET: writes.SET_DATASET_FACETS, Label.JOB: writes.SET_JOB_FACETS}


def facets_read(tx: ManagedTransaction, label: Label, keys: Iterable[str]) -> dict[str, Sightings]:
    """The sightings each node of `label` named by `keys` holds, by key (nodes not in the graph left out)."""
    ordered = sorted(set(keys))
    if not ordered:
        return {}
    return {
        row["key"]: sightings_stored(row["facetsJson"], row["facetOrdersJson"])
        for row in records(tx, _READ[label], keys=ordered)
    }


def facets_settle(tx: ManagedTransaction, label: Label, newer: Mapping[str, Sightings]) -> None:
    """Merge `newer` sightings into the facets of the nodes of `label` they name (by key), writing
    the nodes whose facets change: a batch that brings nothing newer than the graph writes nothing.

    Run after the batch has written those nodes, which holds their write locks: a concurrent batch
    naming one of them waits, then reads what this one committed.
    """
    stored = facets_read(tx, label, newer)
    rows = []
    for key, sightings in newer.items():
        held = stored.get(key, {})
        if sightings_merge(held, sightings):
            rows.append({"key": key, **sightings_properties(held)})
    if rows:
        tx.run(_WRITE[label], rows=rows).consume()
