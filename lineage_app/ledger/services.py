"""Ledger writes: record verified events' chain positions and heartbeats, keeping each stream's gaps and forks.

Called at verification time (`ingest.verification.events_verify`) with every event it checked. Only a
VERIFIED signature's chain position counts: the position is signed (version 2), so no one without the
key can forge a gap or a fork. Everything else is recorded as unchained.

A seq is forked when two different hashes are attested for it: two events at the seq, an event at the
next seq whose `prev` names another one, or a heartbeat whose head does. Attestations only accumulate,
so each check is made when one is added, against those already stored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from lineage_app.ledger.models import Fork, Gap, Heartbeat, Link, Stream, Unchained
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import Signature, SignatureFormatError, is_heartbeat, read_heartbeat, read_signature


@dataclass(frozen=True, kw_only=True)
class LedgerEvent:
    """What the ledger needs of one verified (or not) logged event."""

    content_hash: str
    payload: Mapping[str, Any]
    event_time: datetime
    verified: bool


@dataclass(frozen=True, slots=True)
class _Link:
    content_hash: str
    seq: int
    prev: str | None
    event_time: datetime


@dataclass(frozen=True, slots=True)
class _Beat:
    content_hash: str
    seq: int
    head: str | None
    event_time: datetime


def ledger_record(*, events: Sequence[LedgerEvent]) -> None:
    """Record `events`: chained ones as links of their streams, heartbeats, and the rest as unchained.

    Idempotent (an event recorded twice changes nothing) and order-independent: any arrival order,
    batching or repetition of the same events leaves every stream in the same state.
    """
    links: dict[str, list[_Link]] = defaultdict(list)
    beats: dict[str, list[_Beat]] = defaultdict(list)
    keys: dict[str, str] = {}
    unchained: list[tuple[LedgerEvent, str]] = []
    for event in events:
        signature = _signature(event)
        if signature is None or not event.verified:
            unchained.append((event, str(event.payload.get("producer", ""))[:200]))
            continue
        if is_heartbeat(event.payload):
            try:
                heartbeat = read_heartbeat(event.payload, key=signature.key_id)
            except SignatureFormatError:
                unchained.append((event, signature.key_id))
                continue
            beats[heartbeat.stream].append(_Beat(event.content_hash, heartbeat.seq, heartbeat.head, event.event_time))
            keys[heartbeat.stream] = signature.key_id
        elif signature.chain is not None:
            chain = signature.chain
            links[chain.stream].append(_Link(event.content_hash, chain.seq, chain.prev, event.event_time))
            keys[chain.stream] = signature.key_id
        else:
            unchained.append((event, signature.key_id))
    producers = _producers(set(keys.values()) | {p for _, p in unchained if p.startswith("ed25519:")})
    if unchained:
        Unchained.objects.bulk_create(
            [
                Unchained(content_hash=e.content_hash, producer=producers.get(p, p), event_time=e.event_time)
                for e, p in unchained
            ],
            ignore_conflicts=True,
        )
    for name in sorted(keys):  # one lock order, so two workers never deadlock
        with transaction.atomic():
            stream = _stream_locked(name, keys[name], producers.get(keys[name], keys[name]))
            for link in sorted(links[name], key=lambda link: link.seq):
                _link_add(stream, link)
            for beat in beats[name]:
                _beat_add(stream, beat)
            stream.last_seen = timezone.now()
            stream.save()


def _signature(event: LedgerEvent) -> Signature | None:
    try:
        return read_signature(event.payload)
    except SignatureFormatError:
        return None


def _producers(key_ids: set[str]) -> dict[str, str]:
    if not key_ids:
        return {}
    return dict(ProducerKey.objects.filter(key_id__in=key_ids).values_list("key_id", "producer"))


def _stream_locked(name: str, key_id: str, producer: str) -> Stream:
    Stream.objects.get_or_create(stream=name, defaults={"key_id": key_id, "producer": producer[:200]})
    return Stream.objects.select_for_update().get(stream=name)


def _attested(stream: Stream, seq: int) -> set[str]:
    """Every hash stored as the event at `seq`: links there, `prev` of links at the next seq, heartbeat heads."""
    here = set(Link.objects.filter(stream=stream, seq=seq).values_list("content_hash", flat=True))
    named = Link.objects.filter(stream=stream, seq=seq + 1).exclude(prev="").values_list("prev", flat=True)
    heads = Heartbeat.objects.filter(stream=stream, seq=seq).exclude(head="").values_list("head", flat=True)
    return here | set(named) | set(heads)


def _attest(stream: Stream, seq: int, content_hash: str) -> None:
    """Fork `seq` if another hash than `content_hash` is already attested for it (call before storing it)."""
    if seq >= 1 and _attested(stream, seq) - {content_hash}:
        Fork.objects.get_or_create(stream=stream, seq=seq)


def _link_add(stream: Stream, link: _Link) -> None:
    at_seq = set(Link.objects.filter(stream=stream, seq=link.seq).values_list("content_hash", flat=True))
    if link.content_hash in at_seq:
        return
    _attest(stream, link.seq, link.content_hash)
    if link.prev is not None and link.seq > 1:
        _attest(stream, link.seq - 1, link.prev)
    Link.objects.create(
        stream=stream, seq=link.seq, content_hash=link.content_hash, prev=link.prev or "", event_time=link.event_time
    )
    if link.seq == 1 and link.prev and not stream.follows:
        stream.follows = link.prev
    if not at_seq:
        _seq_arrived(stream, link.seq)


def _seq_arrived(stream: Stream, seq: int) -> None:
    """A seq the stream had not had: it opens a gap below it, or fills (part of) one."""
    stream.seqs += 1
    if seq > stream.high:
        if seq > stream.high + 1:
            Gap.objects.create(stream=stream, from_seq=stream.high + 1, to_seq=seq - 1)
        stream.high = seq
        return
    gap = Gap.objects.filter(stream=stream, from_seq__lte=seq, to_seq__gte=seq).first()
    if gap is None:  # cannot happen while the store is consistent; nothing to close
        return
    if gap.from_seq == gap.to_seq:
        gap.delete()
    elif seq == gap.from_seq:
        Gap.objects.filter(pk=gap.pk).update(from_seq=seq + 1)
    elif seq == gap.to_seq:
        Gap.objects.filter(pk=gap.pk).update(to_seq=seq - 1)
    else:
        Gap.objects.filter(pk=gap.pk).update(to_seq=seq - 1)
        Gap.objects.create(stream=stream, from_seq=seq + 1, to_seq=gap.to_seq, noticed_at=gap.noticed_at)


def _beat_add(stream: Stream, beat: _Beat) -> None:
    if Heartbeat.objects.filter(content_hash=beat.content_hash).exists():
        return
    if beat.head is not None:
        _attest(stream, beat.seq, beat.head)
    Heartbeat.objects.create(
        stream=stream, seq=beat.seq, head=beat.head or "", event_time=beat.event_time, content_hash=beat.content_hash
    )
    # The newest heartbeat's seq and time, kept as a maximum (heartbeats only accumulate), not read back.
    if beat.seq > stream.announced:
        stream.announced, stream.announced_at = beat.seq, beat.event_time
    elif beat.seq == stream.announced:
        stream.announced_at = max(filter(None, (stream.announced_at, beat.event_time)))
