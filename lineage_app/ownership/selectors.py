"""Ownership reads: owners, assignments, and the effective owners of a node (from the graph)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count

from lineage_app.graph.driver import graph_read
from lineage_app.graph.node_resolve import owned_node_resolve
from lineage_app.graph.ownership import owners_for
from lineage_app.ownership.models import Owner, OwnershipAssignment


def owner_page(*, q: str | None, limit: int, offset: int) -> dict[str, Any]:
    """Owners by name (optionally whose name contains `q`), with how many assignments each has."""
    owners = Owner.objects.all()
    if q:
        owners = owners.filter(name__icontains=q)
    page = owners.annotate(assignment_count=Count("assignments")).order_by("name")[offset : offset + limit]
    return {
        "count": owners.count(),
        "results": [
            {
                "name": o.name,
                "kind": o.kind,
                "email": o.email,
                "channel": o.channel,
                "assignmentCount": o.assignment_count,
            }
            for o in page
        ],
    }


def assignment_row(a: OwnershipAssignment) -> dict[str, Any]:
    return {
        "id": a.pk,
        "owner": a.owner.name,
        "kind": a.owner.kind,
        "email": a.owner.email,
        "channel": a.owner.channel,
        "targetType": a.target_type,
        "namespace": a.namespace,
        "name": a.name,
        "role": a.role,
        "source": a.source,
    }


def assignment_page(*, namespace: str | None, source: str | None, limit: int, offset: int) -> dict[str, Any]:
    """Stored assignments, hand-set and event-sourced, by target."""
    found = OwnershipAssignment.objects.select_related("owner")
    if namespace:
        found = found.filter(namespace=namespace)
    if source:
        found = found.filter(source=source)
    return {"count": found.count(), "results": [assignment_row(a) for a in found[offset : offset + limit]]}


def ownership_for_node(*, node_id: str) -> dict[str, Any]:
    """The effective owners of `dataset:…`, `job:…` or `namespace:<name>` (hand-set, else event, else inherited)."""
    ref = owned_node_resolve(node_id=node_id)
    owners = graph_read(lambda tx: owners_for(tx, refs=[ref]))[ref]
    return {"nodeId": node_id, "count": len(owners), "results": owners}
