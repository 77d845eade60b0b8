"""Datasets' and jobs' facets in the write transaction: a batch's sightings settled against each node's
lists in the engine (`graph.facets`), and the facets rewritten only on the nodes a newer sighting brings
other content for: a job that sends the same SQL every run moves its order keys and writes no facet."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from neo4j import ManagedTransaction

from lineage_app.graph import lookups, writes
from lineage_app.graph.driver import records, statement_run
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
    """The sightings each node of `label` named by `keys` holds, by key (nodes not in the graph left out)."""
    ordered = sorted(set(keys))
    if not ordered:
        return {}
    return {row["key"]: _held(row) for row in records(tx, _READ[label], keys=ordered)}


def facets_settle(tx: ManagedTransaction, label: Label, newer: Mapping[str, Sightings]) -> int:
    """Merge `newer` sightings into the facets of the nodes of `label` they name (by key): the engine keeps
    each name's newer sighting and answers, with what they hold, the nodes whose content changed, the only ones
    rewritten; how many were.

    Run after the batch has written those nodes, which holds their write locks: a concurrent batch
    naming one of them waits, then reads what this one committed.
    """
    rows = [{"key": key, **sighting_lists(sightings)} for key, sightings in sorted(newer.items()) if sightings]
    answered = records(tx, _SETTLE[label], rows=rows) if rows else []
    rewritten = []
    for answer in answered:
        key, held = answer["key"], _held(answer)
        if answer["legacy"]:  # its order keys were read from `facetOrdersJson`: the batch merges in full
            sightings_merge(held, newer[key])
        else:  # the lists hold the newer orders already: the changed names take the batch's content
            held.update({name: newer[key][name] for name in answer["changed"]})
        rewritten.append({"key": key, **sightings_properties(held)})
    if rewritten:
        statement_run(tx, _WRITE[label], rows=rewritten).consume()
    return len(rewritten)


def _held(row: Mapping[str, Any]) -> Sightings:
    """A node's sightings from what it keeps (`writes.facets_held`). A node written before the sighting lists
    keeps its order keys as `facetOrdersJson`, read instead."""
    names, orders = row["facetNames"], row["facetOrders"]
    if row["facetOrdersJson"] is not None:
        legacy = json.loads(row["facetOrdersJson"])
        names, orders = list(legacy), list(legacy.values())
    return sightings_stored(row["facetsJson"], names, orders)
