"""Event-sourced ownership: the `ownership` facets of applied events, recorded as assignments."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from lineage_app.changes import ChangeRecord, EventsApplied, GraphRebuilt
from lineage_app.graph.events import EventRecord
from lineage_app.graph.model import owner_kind
from lineage_app.ownership.models import Owner, OwnershipAssignment
from lineage_app.ownership.services.graph_mirror import assignments_mirror, ownership_mirror_all

Assignment = OwnershipAssignment


def ownership_record_events(*, events: Sequence[EventRecord]) -> None:
    """Record the ownership facets of applied `events` as event-sourced assignments, in a few queries.

    Also re-mirrors the hand-set edges of every namespace, dataset and job the events touched:
    a hand-set assignment may name a node that only now exists in the graph.
    """
    found: set[tuple[str, str, str, str, str]] = set()  # owner, target_type, namespace, name, role
    touched: set[tuple[str, str, str]] = set()
    for event in events:
        payload = event.payload
        targets = [(Assignment.TargetType.JOB, payload.get("job") or {})]
        targets += [
            (Assignment.TargetType.DATASET, d) for side in ("inputs", "outputs") for d in payload.get(side) or []
        ]
        targets += [(Assignment.TargetType.DATASET, payload.get("dataset") or {})]  # a DatasetEvent
        for target_type, node in targets:
            if not node.get("namespace") or not node.get("name"):
                continue
            namespace, name = node["namespace"], node["name"]
            touched.update({(target_type, namespace, name), (Assignment.TargetType.NAMESPACE, namespace, "")})
            for owner in ((node.get("facets") or {}).get("ownership") or {}).get("owners") or []:
                if owner.get("name"):
                    found.add((owner["name"], target_type, namespace, name, owner.get("type") or "OWNER"))
    if found:
        with transaction.atomic():
            Owner.objects.bulk_create(
                [Owner(name=n, kind=owner_kind(n)) for n in sorted({f[0] for f in found})], ignore_conflicts=True
            )
            ids = dict(Owner.objects.filter(name__in={f[0] for f in found}).values_list("name", "pk"))
            Assignment.objects.bulk_create(
                [
                    Assignment(
                        owner_id=ids[o], target_type=t, namespace=ns, name=n, role=r, source=Assignment.Source.EVENT
                    )
                    for o, t, ns, n, r in sorted(found)
                ],
                ignore_conflicts=True,
            )
    if touched:
        manual = Assignment.objects.filter(
            source=Assignment.Source.MANUAL, namespace__in={ns for _, ns, _ in touched}
        ).select_related("owner")
        assignments_mirror(merge=[a for a in manual if (a.target_type, a.namespace, a.name) in touched])


def ownership_consume(records: Sequence[ChangeRecord]) -> None:
    """The consumer of applied batches' change records (`lineage_app.changes`): record and re-mirror their
    owners; after `rebuild_graph`, mirror every hand-set owner again (they live in the database, not the log)."""
    for record in records:
        if isinstance(record, EventsApplied):
            ownership_record_events(events=record.events)
        elif isinstance(record, GraphRebuilt):
            ownership_mirror_all()
