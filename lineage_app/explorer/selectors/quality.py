"""A dataset's data quality: its current status and each run's checks and metrics of it, newest first."""

from __future__ import annotations

import json
from typing import Any

from lineage_app.graph import listings
from lineage_app.graph.model import NodeType
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.node_resolve import node_resolve
from lineage_app.graph.quality import UNKNOWN


def dataset_quality(*, node_id: str, limit: int, offset: int) -> dict[str, Any]:
    """The dataset `node_id` names (an alias resolves): its current quality status and its reports, one
    per run that checked or measured it, newest first (`graph.quality`)."""
    ref = node_resolve(node_id=node_id, kinds=(NodeType.DATASET,))
    key = ref[1]
    count, rows = listings.dataset_quality_page(key=key, limit=limit, offset=offset)
    return {
        "id": node_ref_id(ref),
        "status": listings.dataset_quality_statuses(keys=[key]).get(key, UNKNOWN),
        "count": count,
        "results": [
            {
                "runId": row["runId"],
                "job": row["job"],
                "runState": row["state"],
                "at": row["at"],
                "datasetVersion": row["datasetVersion"],
                "status": row["status"] or UNKNOWN,
                "checks": json.loads(row["checksJson"] or "[]"),
                "metrics": json.loads(row["metricsJson"]) if row["metricsJson"] else None,
            }
            for row in rows
        ],
    }
