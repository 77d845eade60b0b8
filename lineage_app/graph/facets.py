"""A dataset's or job's facets: the newest sighting of each facet name, by event order (docs/time.md).

Events name a node's facets a few at a time (a dbt test sends the test results of a table, its run the
description and schema), so the node keeps each facet name's newest value, not the newest event's map.
A facet sent as `{"_deleted": true}` is a sighting too: it deletes its name until a newer event sends
the facet again. Keeping the newest sighting per name is a maximum, so any order of the same events
gives the same facets.

A node keeps each name's newest sighting as three lists sorted by name (`facetNames`, and each name's
`facetOrders` and `facetHashes`: its order key and a hash of its content, "" for a deletion) beside the
live facets (`facetsJson`): the write path settles a batch's sightings against the lists in the engine and
rewrites the facets only where a newer sighting brings other content (`graph.facet_store`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from lineage_app.graph.model import json_property

# A facet name's newest sighting: the order key of the event that sent it, and the facet (None: deleted).
Sighting = tuple[str, dict[str, Any] | None]
# A node's sightings by facet name.
Sightings = dict[str, Sighting]


def is_deleted(facet: Any) -> bool:
    """Whether a facet is a deletion marker (`{"_deleted": true}`): it deletes the facet it names."""
    return isinstance(facet, dict) and facet.get("_deleted") is True


def sightings_of(facets: Mapping[str, Any], order: str) -> Sightings:
    """The sightings one event's facet map brings, each at the event's `order`."""
    return {name: (order, None if is_deleted(value) else value) for name, value in facets.items()}


def sightings_merge(into: Sightings, newer: Mapping[str, Sighting]) -> bool:
    """Fold `newer` into `into`, each name keeping its newest sighting; whether `into` changed."""
    changed = False
    for name, sighting in newer.items():
        held = into.get(name)
        if held is None or sighting[0] > held[0]:
            into[name] = sighting
            changed = True
    return changed


def facet_hash(facet: dict[str, Any] | None) -> str:
    """A fingerprint of a facet's content ("" for a deletion): two sightings with the same hash keep the
    same facet, so the newer one moves only its name's order key."""
    if facet is None:
        return ""
    return hashlib.blake2b(json_property(facet).encode(), digest_size=8).hexdigest()


def sighting_lists(sightings: Mapping[str, Sighting]) -> dict[str, list[str]]:
    """`sightings` as the node's lists, sorted by name: `names`, and each name's `orders` and `hashes`."""
    names = sorted(sightings)
    return {
        "names": names,
        "orders": [sightings[name][0] for name in names],
        "hashes": [facet_hash(sightings[name][1]) for name in names],
    }


def sightings_stored(
    facets_json: str | None, names: list[str] | None = None, orders: list[str] | None = None
) -> Sightings:
    """A node's sightings from its `facetsJson` (the live facets) and its `facetNames` and `facetOrders`
    (each name's order key, deleted names too). A facet a graph written before names were ordered holds
    has no order key: any sighting is newer (`manage.py rebuild_graph` orders them all)."""
    facets = json.loads(facets_json or "{}")
    ordered = dict(zip(names or [], orders or [], strict=True))
    return {name: (ordered.get(name, ""), facets.get(name)) for name in facets.keys() | ordered.keys()}


def facets_held(var: str) -> str:
    """Cypher RETURN items of what node `var` keeps of its facets, as `sightings_properties` writes them (and the
    `facetOrdersJson` of a node written before the lists): `graph.facet_store` reads its sightings from them."""
    return (
        f"{var}.facetsJson AS facetsJson, {var}.facetNames AS facetNames, {var}.facetOrders AS facetOrders, "
        f"{var}.facetOrdersJson AS facetOrdersJson"
    )


def sightings_properties(sightings: Mapping[str, Sighting]) -> dict[str, Any]:
    """The node properties that keep `sightings`: the live facets as the read API's `facets`, the lists of
    each name's order key and content hash (`sighting_lists`), the tags the live facets carry (`tag_texts`: tag
    search follows only their `TAGGED` edges), what the `jobType` facet says (read on Job nodes) and whether the
    `datasetType` facet says temporary (read on Dataset nodes, `is_temporary`)."""
    live = {name: facet for name, (_, facet) in sightings.items() if facet is not None}
    job_type = live.get("jobType") or {}
    lists = sighting_lists(sightings)
    return {
        "temporary": is_temporary(live),
        "facetsJson": json_property(live),
        "facetNames": lists["names"],
        "facetOrders": lists["orders"],
        "facetHashes": lists["hashes"],
        "tags": tag_texts(live),
        "jobType": job_type.get("jobType"),
        "processingType": job_type.get("processingType"),
        "integration": job_type.get("integration"),
    }


def airflow_trigger(facets: Mapping[str, Any]) -> str | None:
    """How the Airflow DAG run a run belongs to was triggered (its `run_type`: `scheduled`, `manual`, `backfill`,
    `dataset_triggered`, …), from the run facets the Airflow provider sends: a DAG run's `airflowDagRun`, a task
    run's `airflow`, each with the `dagRun`; None for a run that sent neither."""
    for name in ("airflowDagRun", "airflow"):
        facet = facets.get(name)
        dag_run = facet.get("dagRun") if isinstance(facet, dict) else None
        run_type = dag_run.get("run_type") if isinstance(dag_run, dict) else None
        if isinstance(run_type, str) and run_type:
            return run_type.lower()
    return None


def is_temporary(facets: Mapping[str, Any]) -> bool:
    """Whether a dataset's facets say it is temporary: its `datasetType` facet's `subType` is `TEMPORARY`
    (as a job's intermediate output, `datasetType` `JOB_OUTPUT`, is: any type with that subtype counts)."""
    dataset_type = facets.get("datasetType")
    return isinstance(dataset_type, dict) and str(dataset_type.get("subType") or "").upper() == "TEMPORARY"


def tag_texts(facets: Mapping[str, Any]) -> list[str]:
    """The tags of a `tags` facet (TagsJobFacet, TagsDatasetFacet, TagsRunFacet: `{key, value, source}`),
    each as `key:value` (`key` alone when it has no value): how the graph's Tag nodes and search name them."""
    tags = (facets.get("tags") or {}).get("tags") if isinstance(facets.get("tags"), dict) else None
    texts = []
    for tag in tags if isinstance(tags, list) else []:
        if isinstance(tag, dict) and tag.get("key") not in (None, ""):
            value = tag.get("value")
            texts.append(f"{tag['key']}:{value}" if value not in (None, "") else str(tag["key"]))
    return list(dict.fromkeys(texts))
