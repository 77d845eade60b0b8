"""Verification writes: record each logged event's signature status and chain position (the ledger), quarantine
what an enforcing policy holds back."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from lineage_app.ingest.models import LineageEvent
from lineage_app.ledger.services import LedgerEvent, ledger_record
from lineage_app.signatures.models import SignaturePolicy
from lineage_app.signatures.selectors import events_check, policy_modes


def events_verify(*, events: Sequence[LineageEvent]) -> list[LineageEvent]:
    """Verify `events`, store each one's status, quarantine those an enforcing policy refuses.

    Returns the events that may be applied. Nothing is dropped: a quarantined event stays in
    the log with `status_reason` saying why, and can be re-verified later.
    """
    if not events:
        return []
    outcomes = events_check(events=events)
    modes = policy_modes(namespaces={e.policy_namespace for e in events})
    by_status: dict[str, list[int]] = defaultdict(list)
    passed: list[LineageEvent] = []
    for event in events:
        outcome = outcomes[event.id]
        event.verification = outcome.status
        by_status[outcome.status].append(event.id)
        namespace = event.policy_namespace
        if outcome.ok or modes[namespace] != SignaturePolicy.Mode.ENFORCE:
            passed.append(event)
            continue
        event.status = LineageEvent.Status.QUARANTINED
        event.status_reason = f"signature policy enforce for {namespace!r}: {outcome.status}: {outcome.detail}"[:2000]
        LineageEvent.objects.filter(id=event.id).update(status=event.status, status_reason=event.status_reason)
    for status, ids in by_status.items():
        LineageEvent.objects.filter(id__in=ids).update(verification=status)
    ledger_record(
        events=[
            LedgerEvent(
                content_hash=e.content_hash,
                payload=e.payload,
                event_time=e.event_time,
                verified=outcomes[e.id].ok,
            )
            for e in events
        ]
    )
    return passed
