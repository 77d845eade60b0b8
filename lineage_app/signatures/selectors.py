"""Signature reads: check logged events against the registered producer keys, without writing anything."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings

from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import SignatureFormatError, VerificationStatus, check_event, load_public_key, read_signature

# Worst first: a run shows the worst status among its events. Blank (not checked yet) ranks
# just above VERIFIED, so a run is VERIFIED only when every event was checked and passed.
SEVERITY = [
    VerificationStatus.INVALID_SIGNATURE,
    VerificationStatus.REVOKED_KEY,
    VerificationStatus.NAMESPACE_NOT_ALLOWED,
    VerificationStatus.UNKNOWN_KEY,
    VerificationStatus.RETIRED_KEY,
    VerificationStatus.UNSIGNED,
    "",
    VerificationStatus.VERIFIED,
]


class SignedEvent(Protocol):
    """What verification reads of a logged event (the event log's row satisfies it)."""

    @property
    def id(self) -> int: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...
    @property
    def event_time(self) -> datetime: ...
    @property
    def received_at(self) -> datetime: ...
    @property
    def policy_namespace(self) -> str: ...


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """An event's verification status and, when it is not VERIFIED, why."""

    status: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == VerificationStatus.VERIFIED


def verification_worst(*, statuses: Iterable[str]) -> str | None:
    """The worst of `statuses` by `SEVERITY`; `None` if there are none, or the worst is not checked yet."""
    worst = min(statuses, key=SEVERITY.index, default="")
    return worst or None


def keys_for_events(*, events: Iterable[SignedEvent]) -> dict[str, ProducerKey]:
    """The registered keys the events' signature facets name, by key id, in one query."""
    wanted = set()
    for event in events:
        try:
            signature = read_signature(event.payload)
        except SignatureFormatError:
            continue
        if signature is not None:
            wanted.add(signature.key_id)
    return {key.key_id: key for key in ProducerKey.objects.filter(key_id__in=wanted)} if wanted else {}


def public_keys(*, keys: Mapping[str, ProducerKey]) -> dict[str, Ed25519PublicKey]:
    return {kid: load_public_key(key.public_key) for kid, key in keys.items()}


def event_verification(
    *, event: SignedEvent, keys: Mapping[str, ProducerKey], public: Mapping[str, Ed25519PublicKey] | None = None
) -> Outcome:
    """Check one event: the signature itself first, then the state and scope of the key that made it.

    A key is judged at the event's eventTime (`active_from`, `retired_at`: rotation) except for
    revocation, which is judged at `received_at`: a stolen key can claim any eventTime.
    An event from before `active_from` is UNKNOWN_KEY: the key was not the producer's yet.
    """
    public = public_keys(keys=keys) if public is None else public
    result = check_event(event.payload, keys=public)
    if result.status is not VerificationStatus.VERIFIED:  # unsigned, invalid, or a key the registry lacks
        detail = f"key {result.key_id} is not registered" if result.status is VerificationStatus.UNKNOWN_KEY else None
        return Outcome(status=result.status, detail=detail or result.detail)
    key = keys[result.key_id or ""]
    if key.revoked_at is not None and event.received_at >= key.revoked_at:
        return Outcome(
            status=VerificationStatus.REVOKED_KEY,
            detail=f"key {key.key_id} ({key.producer}) revoked at {key.revoked_at.isoformat()}",
        )
    if key.active_from is not None and event.event_time < key.active_from:
        return Outcome(
            status=VerificationStatus.UNKNOWN_KEY,
            detail=f"key {key.key_id} ({key.producer}) is active only from {key.active_from.isoformat()}",
        )
    if key.retired_at is not None and event.event_time >= key.retired_at:
        return Outcome(
            status=VerificationStatus.RETIRED_KEY,
            detail=f"key {key.key_id} ({key.producer}) retired at {key.retired_at.isoformat()}",
        )
    namespace = event.policy_namespace
    if key.namespaces and namespace not in key.namespaces:
        return Outcome(
            status=VerificationStatus.NAMESPACE_NOT_ALLOWED,
            detail=f"key {key.key_id} ({key.producer}) may not sign for namespace {namespace!r}",
        )
    return Outcome(status=VerificationStatus.VERIFIED)


def events_check(*, events: Sequence[SignedEvent]) -> dict[int, Outcome]:
    """Check a batch of events, loading the keys they name once; by event id."""
    keys = keys_for_events(events=events)
    public = public_keys(keys=keys)
    return {event.id: event_verification(event=event, keys=keys, public=public) for event in events}


def policy_modes(*, namespaces: Iterable[str]) -> dict[str, str]:
    """The policy mode of each namespace: its `SignaturePolicy`, else `SIGNATURE_POLICY_DEFAULT`."""
    wanted = set(namespaces)
    modes = dict(SignaturePolicy.objects.filter(namespace__in=wanted).values_list("namespace", "mode"))
    return {namespace: modes.get(namespace, settings.SIGNATURE_POLICY_DEFAULT) for namespace in wanted}
