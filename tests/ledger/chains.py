"""Chained streams for the ledger's tests: signed events of one producer instance, recorded as a worker records them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.verification import events_verify
from lineage_app.ledger.selectors import ledger_streams
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import StreamChain, public_key_pem
from tests.apply import accept
from tests.events import T0, run_event

PRODUCER = "edge-7"
# Deterministic, so a property's examples sign the same bytes every time.
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def register(key: Ed25519PrivateKey = KEY, producer: str = PRODUCER) -> None:
    ProducerKey.objects.get_or_create(producer=producer, public_key=public_key_pem(key.public_key()).strip() + "\n")


def contents(n: int, *, tag: str = "") -> list[dict[str, Any]]:
    """`n` different run events to sign (one run each, a minute apart)."""
    return [
        run_event(
            "COMPLETE",
            run_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"ledger-test/{tag}{i}")),
            job=f"job_{i}",
            at=T0 + timedelta(minutes=i),
        )
        for i in range(n)
    ]


def signed_stream(n: int, *, instance: str = "test:1", key: Ed25519PrivateKey = KEY) -> tuple[StreamChain, list]:
    """A chain and its `n` signed events, seq 1..n."""
    chain = StreamChain(key, instance)
    return chain, [chain.sign(event) for event in contents(n)]


def record(events: Sequence[dict[str, Any]]) -> None:
    """Accept `events` into the log and verify them, as a worker does before applying (no graph needed)."""
    ids = accept(*events)
    events_verify(events=list(LineageEvent.objects.filter(id__in=ids, status__in=LineageEvent.APPLYABLE)))


def states(producer: str = PRODUCER) -> dict[str, dict[str, Any]]:
    """Each stream's state as the API answers it, without the times (which say when, not what)."""
    answer = ledger_streams(producer=producer, limit=500)
    return {
        row["stream"]: {
            "state": row["state"],
            "high": row["high"],
            "contiguousTo": row["contiguousTo"],
            "gaps": [(gap["from"], gap["to"]) for gap in row["gaps"]],
            "forks": [(fork["seq"], tuple(fork["events"])) for fork in row["forks"]],
            "truncated": (row["truncated"]["from"], row["truncated"]["to"]) if row["truncated"] else None,
        }
        for row in answer["results"]
    }
