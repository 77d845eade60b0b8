"""Search: datasets (by any of their names), jobs and fields whose name contains a text, best match first."""

from __future__ import annotations

from typing import Any

from lineage_app.graph import listings
from lineage_app.graph.model import API_TYPES, Label
from lineage_app.graph.node_ids import node_ref_id

SEARCH_TYPES = {"dataset": Label.DATASET, "job": Label.JOB, "field": Label.FIELD}


def node_search(*, q: str, types: list[str], limit: int) -> dict[str, Any]:
    """Datasets, jobs and fields whose name contains `q`: exact match, then prefix, then substring;
    shorter names first; case-insensitive."""
    rows = listings.search_rows(q=q, labels=[SEARCH_TYPES[t] for t in types], limit=limit)
    if "dataset" in types:  # a dataset is found by any of its names; listed once, at its best rank
        best = {row["id"]: row for row in rows if row["label"] is Label.DATASET}
        for row in listings.dataset_alias_search_rows(q=q, limit=limit):
            if row["id"] not in best or row["rank"] < best[row["id"]]["rank"]:
                best[row["id"]] = row
        rows = [row for row in rows if row["label"] is not Label.DATASET] + list(best.values())
    rows.sort(key=lambda row: (row["rank"], len(row["name"]), row["id"]))
    results = []
    for row in rows[:limit]:
        item = {"id": row["id"], "type": API_TYPES[row["label"]], "namespace": row["namespace"], "name": row["name"]}
        if row["label"] is Label.FIELD:
            item["dataset"] = row["dataset"]
        elif row["label"] is Label.JOB:
            item["actionCount"] = row["actionCount"]
            item["application"] = node_ref_id((Label.JOB, row["application"])) if row["application"] else None
        results.append(item)
    return {"results": results}
