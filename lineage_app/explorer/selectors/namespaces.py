"""Namespaces, a page at a time."""

from __future__ import annotations

from typing import Any

from lineage_app.graph import listings


def namespace_list(*, limit: int, offset: int) -> dict[str, Any]:
    count, rows = listings.namespace_page(limit=limit, offset=offset)
    return {"count": count, "results": rows}
