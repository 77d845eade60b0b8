"""Datasets' and jobs' facets in the write transaction: a batch's sightings settled against each node's
lists in the engine (`graph.facets`), and the facets rewritten only on the nodes a newer sighting brings
other content for: a job that sends the same SQL every run moves its order keys and writes no facet."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.driver import records
from lineage_app.graph.facets import (
    Sightings,
    sighting_lists,
    sightings_merge,
    sightings_properties,
    sightings_stored,
)
from lineage_app.graph.model import Label

_READ = {Label.DATASET: lookups.READ_DATASET_FACETS, Label.JOB: lookups.READ_JOB_FACETS}
_SETTLE = {Label.DATASET: writes.SETTLE_DATASET_FACET_SIGHTINGS, Label.JOB: writes.SETTLE_JOB_FACET_SIGHTINGS}
_WRITE = {Label.DATASET: writes.SET_DATASET_FACETS, Label.JOB: writes.SET_JOB_FACETS}


def facets_read(tx: ManagedTransaction, label: Label, keys: Iterable[str]) -> dict[str, Sightings]:
    """The sightings each node of `label` named by `keys` holds, by key (nodes not in the graph left out).
    A node written before the sighting lists keeps its order keys as `facetOrdersJson`, read instead."""
    ordered = sorted(set(keys))
    if not ordered:
        return {}
    held = {}
    for row in records(tx, _READ[label], keys=ordered):
        names, orders = row["facetNames"], row["facetOrders"]
        if row["facetOrdersJson"] is not None:
            legacy = json.loads(row["facetOrdersJson"])
            names, orders = list(legacy), list(legacy.values())
        held[row["key"]] = sightings_stored(row["facetsJson"], names, orders)
    return held


def facets_settle(tx: ManagedTransaction, label: Label, newer: Mapping[str, Sightings]) -> int:
    """Merge `newer` sightings into the facets of the nodes of `label` they name (by key): the engine keeps
    each name's newer sighting and answers the nodes whose content changed, the only ones read and rewritten;
    how many were.

    Run after the batch has written those nodes, which holds their write locks: a concurrent batch
    naming one of them waits, then reads what this one committed.
    """
    rows = [{"key": key, **sighting_lists(sightings)} for key, sightings in sorted(newer.items()) if sightings]
    if not rows:
        return 0
    answered = {row["key"]: row for row in records(tx, _SETTLE[label], rows=rows)}
    if not answered:
        return 0
    stored = facets_read(tx, label, answered)
    rewritten = []
    for key, answer in answered.items():
        held = stored[key]
        if answer["legacy"]:  # its order keys were read from `facetOrdersJson`: the batch merges in full
            sightings_merge(held, newer[key])
        else:  # the lists hold the newer orders already: the changed names take the batch's content
            held.update({name: newer[key][name] for name in answer["changed"]})
        rewritten.append({"key": key, **sightings_properties(held)})
    tx.run(_WRITE[label], rows=rewritten).consume()
    return len(rewritten)
