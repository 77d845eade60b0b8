"""The check of the transparency log's leaves against the event log: every leaf's event is still stored, unchanged.

A leaf outlives its event only through retention (`prune_events`, which marks the leaf pruned with a
signed record). Any other event missing from the log, or whose content hash or acceptance time no
longer gives its leaf, was deleted or changed behind the server's back: `log_check` records what it
found (`/metrics`: `tributary_ledger_log_mismatches`) and raises `LogMismatch` naming the leaves.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, models

from lineage_app.ingest.models import LineageEvent
from lineage_app.ledger.checkpoints import log_audit_record
from lineage_app.ledger.models import LogAudit, LogLeaf
from lineage_app.ledger.proofs import leaves_between, leaves_pruned, log_size
from lineage_protocol import event_leaf_hash

CHUNK = 5000
DETAIL = 20


class LogMismatch(RuntimeError):
    """Stored events no longer match the log's leaves: one was deleted or changed outside retention."""


def log_check(*, full: bool) -> LogAudit:
    """Compare leaves with events, record the finding, and raise `LogMismatch` if any leaf is wrong.

    Not `full`: count the stored events against the unpruned leaves (one statement) and read the
    leaves only when the counts differ. `full`: read every leaf, which also finds a changed event."""
    size = log_size()
    events, unpruned = _counts()
    missing, mismatched, detail = 0, 0, list[dict[str, Any]]()
    if full or events != unpruned:
        missing, mismatched, detail = _compare(size)
    extra = events - (unpruned - missing)
    if extra > 0:
        detail.append({"leafIndex": None, "problem": f"{extra} stored event(s) have no leaf"})
    audit = log_audit_record(tree_size=size, missing=missing, mismatched=mismatched + max(extra, 0), detail=detail)
    if missing or mismatched or extra > 0:
        raise LogMismatch(
            f"the event log no longer matches the transparency log: {missing} leaf(s) lost their event, "
            f"{mismatched} event(s) changed, {max(extra, 0)} event(s) without a leaf; first: {detail[:3]}"
        )
    return audit


def _counts() -> tuple[int, int]:
    """Stored events and unpruned leaves, in one statement: one snapshot, so accepts and prunes running
    meanwhile (each adds or removes both together) cannot make them differ."""
    events, leaves = (connection.ops.quote_name(m._meta.db_table) for m in (LineageEvent, LogLeaf))
    field = LogLeaf._meta.get_field("pruned_by")
    assert isinstance(field, models.ForeignKey)
    pruned = connection.ops.quote_name(field.column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT COUNT(*) FROM {events}), (SELECT COUNT(*) FROM {leaves} WHERE {pruned} IS NULL)"
        )
        counted, unpruned = cursor.fetchone()
    return counted, unpruned


def _compare(size: int) -> tuple[int, int, list[dict[str, Any]]]:
    missing, mismatched, detail = 0, 0, list[dict[str, Any]]()
    for start in range(0, size, CHUNK):
        leaves = [leaf for leaf in leaves_between(start, start + CHUNK) if not leaf[5]]
        stored = {
            pk: (content_hash, received_at)
            for pk, content_hash, received_at in LineageEvent.objects.filter(
                id__in=[leaf[2] for leaf in leaves]
            ).values_list("id", "content_hash", "received_at")
        }
        for index, content_hash, event_id, _, leaf, _ in leaves:
            if event_id not in stored:
                missing += 1
                problem = f"event {event_id} ({content_hash}) is gone from the event log"
            elif event_leaf_hash(content_hash=stored[event_id][0], accepted_at=stored[event_id][1]) != leaf:
                mismatched += 1
                problem = f"event {event_id} no longer hashes to its leaf"
            else:
                continue
            if len(detail) < DETAIL:
                detail.append({"leafIndex": index, "problem": problem})
    if missing:  # retention may have pruned some of them since their leaves were read
        late = leaves_pruned([d["leafIndex"] for d in detail if "gone" in d["problem"]])
        missing -= len(late)
        detail = [d for d in detail if d["leafIndex"] not in late]
    return missing, mismatched, detail
