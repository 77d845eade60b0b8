"""Hand-set ownership mirrored into the graph: `OWNED_BY {source:'manual'}` edges and owners' contacts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lineage_app.graph.driver import graph_write
from lineage_app.graph.model import Label, natural_key
from lineage_app.graph.ownership import (
    manual_owners_delete,
    manual_owners_delete_all,
    manual_owners_merge,
    owner_contacts_set,
)
from lineage_app.ownership.models import Owner, OwnershipAssignment

Assignment = OwnershipAssignment
TARGET_LABELS = {
    Assignment.TargetType.NAMESPACE: Label.NAMESPACE,
    Assignment.TargetType.DATASET: Label.DATASET,
    Assignment.TargetType.JOB: Label.JOB,
}
MIRROR_CHUNK = 1000


def target_ref(*, target_type: str, namespace: str, name: str) -> tuple[Label, str]:
    """The graph node an assignment's target names: a Namespace by name, a Dataset or Job by natural key."""
    label = TARGET_LABELS[Assignment.TargetType(target_type)]
    return (label, namespace if label == Label.NAMESPACE else natural_key(namespace, name))


def assignment_graph_row(*, assignment: Assignment, owner: Owner | None = None) -> dict[str, Any]:
    """The edge `assignment` is in the graph; `owner` stands in for its owner (say, under a former name)."""
    owner = owner or assignment.owner
    label, key = target_ref(target_type=assignment.target_type, namespace=assignment.namespace, name=assignment.name)
    return {
        "label": label,
        "targetKey": key,
        "owner": owner.name,
        "kind": owner.kind,
        "contact": owner.contact,
        "role": assignment.role,
    }


def assignments_mirror(*, merge: Iterable[Assignment] = (), delete: Iterable[dict[str, Any]] = ()) -> None:
    """Write the edges of the hand-set assignments `merge` and remove the edges `delete` (graph rows), together."""
    merge_rows = [assignment_graph_row(assignment=a) for a in merge]
    delete_rows = list(delete)
    if not merge_rows and not delete_rows:
        return

    def work(tx: Any) -> None:
        manual_owners_delete(tx, rows=delete_rows)
        manual_owners_merge(tx, rows=merge_rows)

    graph_write(work)


def owner_contacts_mirror(*, owners: Iterable[Owner]) -> None:
    """Refresh the kind and contact of `owners` on their graph nodes."""
    rows = [{"owner": o.name, "kind": o.kind, "contact": o.contact} for o in owners]
    graph_write(lambda tx: owner_contacts_set(tx, rows=rows))


def ownership_mirror_all() -> int:
    """Re-create every hand-set `OWNED_BY` edge from the database (after `rebuild_graph`); returns how many."""
    graph_write(manual_owners_delete_all)
    manual = list(Assignment.objects.filter(source=Assignment.Source.MANUAL).select_related("owner").order_by("pk"))
    for start in range(0, len(manual), MIRROR_CHUNK):
        assignments_mirror(merge=manual[start : start + MIRROR_CHUNK])
    return len(manual)
