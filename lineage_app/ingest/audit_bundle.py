"""Offline audit bundles: the selected events as accepted, with the checkpoints, proofs and keys to verify them.

The format is `lineage_protocol.bundle`'s (docs/ledger.md, "Offline audit"). Besides the selection, each of
its streams brings its nearest stored links outside it, so an event missing at a window's edge is a gap too.
The events are read in leaf order a chunk at a time, with their inclusion proofs made per chunk from the
stored subtree roots, and written as they are read: memory stays bounded whatever the selection's size. The
seal, signed with the log's key, is computed over every byte written before it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any

from django.db.models import Max, Min, Q, QuerySet
from django.utils import timezone

from lineage_app.ingest.models import LineageEvent
from lineage_app.instants import utc_text
from lineage_app.ledger.checkpoint_history import checkpoint_cosignatures
from lineage_app.ledger.checkpoints import log_note_sign, log_origin
from lineage_app.ledger.log_keys import log_key_record, log_signing_key
from lineage_app.ledger.models import Heartbeat, Link, LogCheckpoint, LogLeaf, Unchained
from lineage_app.ledger.proofs import (
    SignedCheckpoint,
    checkpoint_at,
    checkpoint_due,
    checkpoint_latest,
    log_keys,
    log_nodes,
    proof_consistency,
)
from lineage_app.ledger.tree import inclusion_ranges, ranges_hashes, ranges_refs
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import (
    BundleCheckpoint,
    BundleConsistency,
    BundledKey,
    bundle_event,
    bundle_header,
    bundle_line,
    bundle_seal_text,
    hashes_from_text,
)

# Leaves per read: their events' bytes and the stored roots of their proofs, one query each.
CHUNK = 200


class BundleRefused(Exception):
    """A bundle that cannot be written as asked: nothing selected, or events no checkpoint covers yet."""


@dataclass(frozen=True, kw_only=True)
class AuditSelection:
    """Which events a bundle holds: a producer's (as registered with its keys), a job namespace's, accepted in
    [`since`, `until`); each `None` for no bound."""

    producer: str | None = None
    namespace: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def as_header(self) -> dict[str, str | None]:
        """The selection as the bundle's header states it (`lineage_protocol`'s `SELECTION_MEMBERS`)."""
        return {
            "producer": self.producer,
            "namespace": self.namespace,
            "from": utc_text(self.since) if self.since else None,
            "to": utc_text(self.until) if self.until else None,
        }


@dataclass(frozen=True, kw_only=True)
class BundleWritten:
    """What a bundle holds: its events, and the tree size their proofs are against."""

    events: int
    checkpoint: int


def _selected(selection: AuditSelection) -> QuerySet[LineageEvent]:
    """The events of `selection`. A namespace selects the streams that carry its events, each with all its events
    in the window (a relay's stream mixes namespaces, and a chain can be checked only whole), and every other
    event of the namespace."""
    events = LineageEvent.objects.all()
    if selection.since:
        events = events.filter(received_at__gte=selection.since)
    if selection.until:
        events = events.filter(received_at__lt=selection.until)
    if selection.producer:
        producer = selection.producer
        events = events.filter(
            Q(content_hash__in=Link.objects.filter(stream__producer=producer).values("content_hash"))
            | Q(content_hash__in=Heartbeat.objects.filter(stream__producer=producer).values("content_hash"))
            | Q(content_hash__in=Unchained.objects.filter(producer=producer).values("content_hash"))
        )
    if selection.namespace:
        in_namespace = events.filter(job_namespace=selection.namespace)
        streams = Link.objects.filter(content_hash__in=in_namespace.values("content_hash")).values("stream")
        events = events.filter(
            Q(job_namespace=selection.namespace)
            | Q(content_hash__in=Link.objects.filter(stream__in=streams).values("content_hash"))
            | Q(content_hash__in=Heartbeat.objects.filter(stream__in=streams).values("content_hash"))
        )
    return events


def _neighbours(events: QuerySet[LineageEvent]) -> QuerySet[LineageEvent]:
    """For each stream the selection holds links of, its nearest stored links just outside them: the highest seq
    below its lowest selected one and the lowest above its highest. With them an event missing at the edge of a
    time window shows as a gap, as one inside it does."""
    spans = (
        Link.objects.filter(content_hash__in=events.values("content_hash"))
        .values("stream")
        .annotate(low=Min("seq"), high=Max("seq"))
    )
    stored = LineageEvent.objects.values("content_hash")
    hashes = []
    for span in spans:
        links = Link.objects.filter(stream=span["stream"], content_hash__in=stored)
        hashes += [
            found
            for found in (
                links.filter(seq__lt=span["low"]).order_by("-seq").values_list("content_hash", flat=True).first(),
                links.filter(seq__gt=span["high"]).order_by("seq").values_list("content_hash", flat=True).first(),
            )
            if found
        ]
    return LineageEvent.objects.filter(content_hash__in=hashes)


def _checkpoints(last_leaf: int) -> tuple[SignedCheckpoint, SignedCheckpoint]:
    """The first checkpoint that covers leaf `last_leaf` (the proofs are against it: the oldest, so the most
    likely to be witnessed) and the latest; `BundleRefused` if none covers it yet."""
    latest = checkpoint_latest()
    if latest is None or latest.size <= last_leaf:
        signed = f"the latest covers {latest.size} leaves" if latest else "the log has no checkpoint yet"
        raise BundleRefused(
            f"the selection reaches leaf {last_leaf}, which no checkpoint covers yet ({signed}); the next is due "
            f"by {utc_text(checkpoint_due(latest))}, or sign one now with `manage.py check_log --sign`"
        )
    size = LogCheckpoint.objects.filter(size__gt=last_leaf).order_by("size").values_list("size", flat=True).first()
    first = checkpoint_at(size)
    assert first is not None
    return first, latest


def _producer_keys(selection: AuditSelection) -> list[BundledKey]:
    keys = ProducerKey.objects.order_by("producer", "key_id")
    if selection.producer:
        keys = keys.filter(producer=selection.producer)
    return [BundledKey(k.producer, k.key_id, k.public_key) for k in keys]


def audit_bundle_write(*, selection: AuditSelection, write: Callable[[bytes], object]) -> BundleWritten:
    """Write the bundle of `selection` through `write`; `BundleRefused` before writing anything if it cannot."""
    selected = _selected(selection)
    leaves = LogLeaf.objects.filter(
        Q(event_id__in=selected.values("id")) | Q(event_id__in=_neighbours(selected).values("id"))
    )
    last_leaf = leaves.aggregate(last=Max("leaf_index"))["last"]
    if last_leaf is None:
        raise BundleRefused("no accepted event matches the selection")
    first, latest = _checkpoints(last_leaf)
    origin = log_origin()
    log_key_record(private_key=log_signing_key(), origin=origin)  # the seal's key, listed before it signs
    checkpoints = [first] if first.size == latest.size else [first, latest]
    consistency = [
        BundleConsistency(
            old.size, new.size, tuple(hashes_from_text(proof_consistency(first=old.size, second=new.size)["proof"]))
        )
        for old, new in pairwise(checkpoints)
    ]
    # The cosignatures of the bundled checkpoints as the Trust page shows them, and the keys that check them.
    cosignatures = checkpoint_cosignatures([c.size for c in checkpoints])
    digest, lines = hashlib.sha256(), 0

    def line(value: dict[str, Any]) -> None:
        nonlocal lines
        data = bundle_line(value)
        digest.update(data)
        write(data)
        lines += 1

    line(
        bundle_header(
            origin=origin,
            created_at=utc_text(timezone.now()),
            selection=selection.as_header(),
            checkpoint=first.size,
            checkpoints=[
                BundleCheckpoint(c.note, tuple(cosignature.line for cosignature in cosignatures.get(c.size, [])))
                for c in checkpoints
            ],
            consistency=consistency,
            log_keys=[key["verifierKey"] for key in log_keys()],
            witness_keys=sorted({c.witness.verifier_key for signed in cosignatures.values() for c in signed}),
            producer_keys=_producer_keys(selection),
        )
    )
    events = 0
    rows = leaves.order_by("leaf_index").values_list("leaf_index", "event_id", "accepted_at")
    chunk: list[tuple[int, int, datetime]] = []
    for row in rows.iterator(chunk_size=CHUNK):
        chunk.append(row)
        if len(chunk) == CHUNK:
            events += _write_chunk(chunk, first.size, line)
            chunk = []
    events += _write_chunk(chunk, first.size, line)
    note, _ = log_note_sign(bundle_seal_text(origin=origin, lines=lines, digest=digest.digest()))
    write(bundle_line({"seal": note}))
    return BundleWritten(events=events, checkpoint=first.size)


def _write_chunk(chunk: list[tuple[int, int, datetime]], size: int, line: Callable[[dict[str, Any]], None]) -> int:
    if not chunk:
        return 0
    raws = dict(LineageEvent.objects.filter(id__in=[event_id for _, event_id, _ in chunk]).values_list("id", "raw"))
    ranges = {index: inclusion_ranges(index, size) for index, _, _ in chunk}
    nodes = log_nodes(set().union(*(ranges_refs(r) for r in ranges.values())))
    for index, event_id, accepted_at in chunk:
        line(
            bundle_event(
                leaf_index=index,
                accepted_at=accepted_at,
                raw=bytes(raws[event_id]),
                audit_path=ranges_hashes(ranges[index], nodes),
            )
        )
    return len(chunk)
