"""Reads of witnessing: the checkpoints, newest first, with their cosignatures; open alarms; the witness gauges."""

from __future__ import annotations

from typing import Any

from django.db.models import Max

from lineage_app.instants import utc_text
from lineage_app.ledger.models import Cosignature, LogCheckpoint, WitnessAlarm, WitnessKey
from lineage_app.ledger.proofs import b64
from lineage_app.observability.exposition import WitnessGauges


def checkpoint_history(*, limit: int, before: int | None) -> dict[str, Any]:
    """`limit` checkpoints smaller than tree size `before` (all, if None), newest first, each with its
    cosignatures and the note that carries them; `next` is the `before` of the following page."""
    rows = LogCheckpoint.objects.select_related("key").order_by("-size")
    if before is not None:
        rows = rows.filter(size__lt=before)
    page = list(rows[: limit + 1])
    more, page = len(page) > limit, page[:limit]
    cosignatures: dict[int, list[Cosignature]] = {}
    for cosignature in Cosignature.objects.filter(checkpoint__in=page, witness__revoked_at__isnull=True).select_related(
        "witness"
    ):
        cosignatures.setdefault(cosignature.checkpoint_id, []).append(cosignature)
    return {
        "count": LogCheckpoint.objects.count(),
        "next": page[-1].size if more else None,
        "witnesses": WitnessKey.objects.filter(revoked_at__isnull=True).count(),
        "unwitnessed": checkpoints_unwitnessed(),
        "alarms": [
            _alarm_view(alarm)
            for alarm in WitnessAlarm.objects.filter(resolved_at__isnull=True).select_related("witness")[:100]
        ],
        "results": [_checkpoint_view(checkpoint, cosignatures.get(checkpoint.pk, [])) for checkpoint in page],
    }


def _checkpoint_view(checkpoint: LogCheckpoint, cosignatures: list[Cosignature]) -> dict[str, Any]:
    return {
        "treeSize": checkpoint.size,
        "rootHash": b64(bytes(checkpoint.root_hash)),
        "keyId": checkpoint.key.key_id,
        "signedAt": utc_text(checkpoint.signed_at),
        "witnessed": bool(cosignatures),
        "cosignatures": [
            {
                "witness": c.witness.name,
                "keyHash": c.witness.key_hash,
                "cosignedAt": utc_text(c.cosigned_at),
                "receivedAt": utc_text(c.received_at),
            }
            for c in cosignatures
        ],
        "note": checkpoint.note + "".join(c.line for c in cosignatures),
    }


def _alarm_view(alarm: WitnessAlarm) -> dict[str, Any]:
    return {
        "id": alarm.pk,
        "witness": alarm.witness.name,
        "kind": alarm.kind,
        "reason": alarm.reason,
        "cosignedSize": alarm.cosigned_size,
        "cosignedRoot": alarm.cosigned_root or None,
        "offeredSize": alarm.offered_size,
        "offeredRoot": alarm.offered_root or None,
        "firstReportedAt": utc_text(alarm.first_reported_at),
        "lastReportedAt": utc_text(alarm.last_reported_at),
        "reports": alarm.reports,
        "report": alarm.report,
        "offered": alarm.offered,
    }


def checkpoints_unwitnessed() -> int:
    """Checkpoints signed after the newest one a registered witness cosigned (every one, if none was)."""
    newest = Cosignature.objects.filter(witness__revoked_at__isnull=True).aggregate(size=Max("checkpoint__size"))
    rows = LogCheckpoint.objects.all()
    if newest["size"] is not None:
        rows = rows.filter(size__gt=newest["size"])
    return rows.count()


def witness_gauges() -> WitnessGauges:
    return WitnessGauges(
        unwitnessed_checkpoints=checkpoints_unwitnessed(),
        alarms=WitnessAlarm.objects.filter(resolved_at__isnull=True).count(),
    )
