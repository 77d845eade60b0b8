"""Reads of witnessing: the checkpoints, newest first, with their cosignatures; open alarms; the witness gauges;
and where each event stands: its chain position, its leaf, the first checkpoint that includes it, witnessed or not."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from django.db.models import Max

from lineage_app.instants import utc_text
from lineage_app.ledger.models import Cosignature, Link, LogCheckpoint, WitnessAlarm, WitnessKey
from lineage_app.ledger.proofs import b64, leaf_indexes
from lineage_app.observability.exposition import WitnessGauges


def checkpoint_history(*, limit: int, before: int | None) -> dict[str, Any]:
    """`limit` checkpoints smaller than tree size `before` (all, if None), newest first, each with its
    cosignatures and the note that carries them; `next` is the `before` of the following page."""
    rows = LogCheckpoint.objects.select_related("key").order_by("-size")
    if before is not None:
        rows = rows.filter(size__lt=before)
    page = list(rows[: limit + 1])
    more, page = len(page) > limit, page[:limit]
    cosignatures = checkpoint_cosignatures([checkpoint.size for checkpoint in page])
    return {
        "count": LogCheckpoint.objects.count(),
        "next": page[-1].size if more else None,
        "witnesses": WitnessKey.objects.filter(revoked_at__isnull=True).count(),
        "unwitnessed": checkpoints_unwitnessed(),
        "alarms": [
            _alarm_view(alarm)
            for alarm in WitnessAlarm.objects.filter(resolved_at__isnull=True).select_related("witness")[:100]
        ],
        "results": [_checkpoint_view(checkpoint, cosignatures.get(checkpoint.size, [])) for checkpoint in page],
    }


def checkpoint_cosignatures(sizes: Sequence[int]) -> dict[int, list[Cosignature]]:
    """The cosignatures of registered, unrevoked witnesses on the checkpoints of tree sizes `sizes`, by size (a
    checkpoint none cosigned is left out), each with its witness; one query."""
    by_size: dict[int, list[Cosignature]] = {}
    cosignatures = Cosignature.objects.filter(checkpoint__size__in=list(sizes), witness__revoked_at__isnull=True)
    for cosignature in cosignatures.select_related("checkpoint", "witness"):
        by_size.setdefault(cosignature.checkpoint.size, []).append(cosignature)
    return by_size


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


def _witnessed_size() -> int | None:
    """The tree size of the newest checkpoint a registered witness cosigned (None if none): it vouched for the
    history of that many leaves."""
    newest = Cosignature.objects.filter(witness__revoked_at__isnull=True).aggregate(size=Max("checkpoint__size"))
    return newest["size"]


def checkpoints_unwitnessed() -> int:
    """Checkpoints signed after the newest one a registered witness cosigned (every one, if none was)."""
    witnessed = _witnessed_size()
    rows = LogCheckpoint.objects.all()
    return (rows if witnessed is None else rows.filter(size__gt=witnessed)).count()


def witness_gauges() -> WitnessGauges:
    return WitnessGauges(
        unwitnessed_checkpoints=checkpoints_unwitnessed(),
        alarms=WitnessAlarm.objects.filter(resolved_at__isnull=True).count(),
    )


def events_ledger_positions(*, content_hashes: Sequence[str]) -> dict[str, dict[str, Any]]:
    """For each content hash: `chain` (its verified `stream` and `seq`, or None when unchained) and `inclusion`
    (its `leafIndex`, the tree size of the first checkpoint that includes it or None while none does, and
    whether a witness cosigned a checkpoint that includes it); four queries, however many events."""
    chain: dict[str, dict[str, Any]] = {}
    for content_hash, stream, seq in Link.objects.filter(content_hash__in=list(content_hashes)).values_list(
        "content_hash", "stream__stream", "seq"
    ):
        chain.setdefault(content_hash, {"stream": stream, "seq": seq})
    leaves = leaf_indexes(content_hashes=content_hashes)
    sizes: list[int] = []
    if leaves:
        low, high = min(leaves.values()), max(leaves.values())
        above = LogCheckpoint.objects.filter(size__gt=high).order_by("size").values_list("size", flat=True).first()
        covering = LogCheckpoint.objects.filter(size__gt=low)
        if above is not None:
            covering = covering.filter(size__lte=above)
        sizes = sorted(covering.values_list("size", flat=True))
    witnessed_size = _witnessed_size() or 0

    def inclusion(index: int) -> dict[str, Any]:
        at = bisect_right(sizes, index)  # the first checkpoint whose size exceeds the leaf's index
        return {
            "leafIndex": index,
            "checkpoint": sizes[at] if at < len(sizes) else None,
            "witnessed": index < witnessed_size,
        }

    return {
        content_hash: {
            "chain": chain.get(content_hash),
            "inclusion": inclusion(leaves[content_hash]) if content_hash in leaves else None,
        }
        for content_hash in content_hashes
    }
