"""A failure's blast radius: the datasets it should have written and everything downstream of them, with owners."""

from __future__ import annotations

from typing import Any

from lineage_app.graph import impact
from lineage_app.graph.model import KEY_SEPARATOR, NOW, Label
from lineage_app.graph.traversal import NodeRef

BLAST_DEPTH = 6  # hops downstream of a failure's outputs (dataset -> job -> dataset is two)
BLAST_LIMIT = 50  # datasets listed in one failure's blast radius (`total` counts them all)


def failure_blast_radius(*, keys: set[str]) -> dict[str, Any]:
    """The datasets with natural keys `keys` and everything downstream of them within `BLAST_DEPTH`
    hops (the impact traversal), nearest first, with their owners; at most `BLAST_LIMIT` listed."""
    starts: list[NodeRef] = [(Label.DATASET, key) for key in sorted(keys)]
    if not starts:
        return {"datasets": [], "owners": [], "total": 0, "truncated": False, "depth": BLAST_DEPTH}
    traversal = impact.impact_traverse(starts=starts, depth=BLAST_DEPTH, moment=NOW)
    starts.sort(key=traversal.node_id)
    reached = [*starts, *(ref for ref in traversal.assets() if ref[0] is Label.DATASET)]
    listed = reached[:BLAST_LIMIT]
    details = impact.impact_details(refs=listed)
    datasets: list[dict[str, Any]] = []
    for ref in listed:
        detail = details.get(ref, {})
        namespace, name = ref[1].split(KEY_SEPARATOR)
        datasets.append(
            {
                "id": traversal.node_id(ref),
                "namespace": namespace,
                "name": name,
                "distance": traversal.seen[ref].distance,
                "owners": sorted({owner["name"] for owner in detail.get("owners", [])}),
            }
        )
    return {
        "datasets": datasets,
        "owners": sorted({owner for dataset in datasets for owner in dataset["owners"]}),
        "total": len(reached),
        "truncated": len(reached) > len(listed),
        "depth": BLAST_DEPTH,
    }
