"""A hub's neighbours a page at a time: the members of the clusters a lineage answer gives in their place."""

from __future__ import annotations

from typing import Any

from lineage_app.graph import listings
from lineage_app.graph.model import API_TYPES, NOW, Moment
from lineage_app.graph.node_resolve import node_resolve


def neighbours_for_node(
    *,
    node_id: str,
    direction: str,
    namespace: str | None,
    q: str | None,
    after: str | None,
    limit: int,
    moment: Moment = NOW,
) -> dict[str, Any]:
    """The neighbours of dataset or job `node_id` one hop `direction`-wards over the edges `moment` names, by
    key after `after` (a member's key; None: from the first), at most `limit`, with `next` (the last one's key
    when more may follow, else None); only those in `namespace` and whose name contains `q`, unless None."""
    hub = node_resolve(node_id=node_id)
    label, rows = listings.neighbour_page(
        hub=hub, direction=direction, moment=moment, namespace=namespace, q=q, after=after or "", limit=limit + 1
    )
    page = rows[:limit]
    return {
        "nodeId": node_id,
        "direction": direction,
        "namespace": namespace,
        "members": [
            {"id": row["nodeId"], "type": API_TYPES[label], "data": {k: v for k, v in row.items() if k != "key"}}
            for row in page
        ],
        "next": page[-1]["key"] if len(rows) > limit else None,
    }
