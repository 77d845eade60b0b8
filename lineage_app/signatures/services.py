"""Signature writes: record each event's verification status and quarantine what the policy holds back."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from django.core.exceptions import ValidationError

from lineage_app.ingest.models import LineageEvent
from lineage_app.signatures.models import ProducerKey, SignaturePolicy, pem_key_id
from lineage_app.signatures.selectors import event_namespace, events_check, policy_modes


def producer_key_register(
    *, producer: str, public_key: str, allowed_namespaces: Iterable[str] = (), note: str = ""
) -> tuple[ProducerKey, bool]:
    """Register `public_key` (Ed25519 PEM) for `producer`; returns the key and whether it is new.

    Registering the same key for the same producer again changes nothing, so a setup script may
    call this on every start. `ValidationError` for a PEM that is not an Ed25519 public key, or
    a key already registered for another producer.
    """
    kid = pem_key_id(public_key)
    existing = ProducerKey.objects.filter(key_id=kid).first()
    if existing is not None:
        if existing.producer != producer:
            raise ValidationError(f"key {kid} is already registered for producer {existing.producer!r}")
        return existing, False
    key = ProducerKey(
        producer=producer,
        public_key=public_key,
        key_id=kid,
        allowed_namespaces="\n".join(allowed_namespaces),
        note=note,
    )
    key.full_clean()
    key.save()
    return key, True


def events_verify(*, events: Sequence[LineageEvent]) -> list[LineageEvent]:
    """Verify `events`, store each one's status, quarantine those an enforcing policy refuses.

    Returns the events that may be applied. Nothing is dropped: a quarantined event stays in
    the log with `status_reason` saying why, and can be re-verified later.
    """
    if not events:
        return []
    outcomes = events_check(events=events)
    modes = policy_modes(namespaces={event_namespace(event=e) for e in events})
    by_status: dict[str, list[int]] = defaultdict(list)
    passed: list[LineageEvent] = []
    for event in events:
        outcome = outcomes[event.id]
        event.verification = outcome.status
        by_status[outcome.status].append(event.id)
        namespace = event_namespace(event=event)
        if outcome.ok or modes[namespace] != SignaturePolicy.Mode.ENFORCE:
            passed.append(event)
            continue
        event.status = LineageEvent.Status.QUARANTINED
        event.status_reason = f"signature policy enforce for {namespace!r}: {outcome.status}: {outcome.detail}"[:2000]
        LineageEvent.objects.filter(id=event.id).update(status=event.status, status_reason=event.status_reason)
    for status, ids in by_status.items():
        LineageEvent.objects.filter(id__in=ids).update(verification=status)
    return passed
