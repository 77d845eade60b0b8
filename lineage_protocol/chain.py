"""Per-producer chains: each signed event names its stream, its `seq` and the content hash of the one before;
signed heartbeats announce a stream's head so that a withheld tail shows.

A heartbeat is an OpenLineage run event of a dedicated shape: `eventType` `OTHER`, job
`<namespace>`/`tributary.heartbeat`, a run id derived from the stream, and a `tributary_heartbeat` run
facet (`stream`, `seq`, `head`). It is signed like any event (version 1: the facet is covered by the
signature) and so travels through every transport unchanged; the server records it in the ledger and
never projects it into the lineage graph.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol.canonical import canonical_json, content_hash
from lineage_protocol.signature import (
    DEFAULT_PRODUCER,
    ChainLink,
    SignatureFormatError,
    hash_problem,
    key_id,
    seq_problem,
    sign_event,
    stream_name,
    stream_problem,
)

HEARTBEAT_FACET = "tributary_heartbeat"
HEARTBEAT_JOB = "tributary.heartbeat"
HEARTBEAT_SCHEMA_URL = (
    "https://github.com/tributary/tributary/blob/main/spark_agent/schemas/TributaryHeartbeatRunFacet.json"
)
_RUN_EVENT_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
_STREAM_RUNS = uuid.UUID("6f1b8a52-2f0e-4d7c-9a51-3c2b7e0d9f10")
# A stream's states, worst first: the one it shows when several apply (the server's ledger and the audit verifier).
STREAM_STATES = ("fork", "gap", "truncated", "contiguous")


@dataclass(frozen=True, slots=True)
class Head:
    """The last event a stream signed: its `seq` (0 before the first) and content hash (`None` before the first)."""

    stream: str
    seq: int
    hash: str | None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """A parsed `tributary_heartbeat` facet: `stream` had signed up to `seq`, whose event hashes to `head`."""

    stream: str
    seq: int
    head: str | None


def signed_hash(event: Mapping[str, Any]) -> str:
    """The content hash of a signed event as the server's event log keys it (its canonical bytes, facet included)."""
    return content_hash(canonical_json(event))


class StreamChain:
    """One producer instance's chain: signs events in order, each naming its predecessor; thread-safe.

    `after` is the head of the stream this instance follows (kept by a relay's buffer or an agent's spill
    file): the new stream's first event names it as `prev`, which ties the two streams together.
    """

    def __init__(
        self,
        private_key: Ed25519PrivateKey,
        instance: str,
        *,
        producer: str = DEFAULT_PRODUCER,
        after: Head | None = None,
    ) -> None:
        self._key = private_key
        self._producer = producer
        self.stream = stream_name(key_id(private_key.public_key()), instance)
        self.after = after
        self._lock = threading.Lock()
        self._head = Head(self.stream, 0, None)

    def head(self) -> Head:
        with self._lock:
            return self._head

    def sign(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """`event` signed as the stream's next link. Raises what `sign_event` raises, and then takes no seq."""
        with self._lock:
            seq = self._head.seq + 1
            prev = self._head.hash if seq > 1 else (self.after.hash if self.after else None)
            signed = sign_event(event, self._key, producer=self._producer, chain=ChainLink(self.stream, seq, prev))
            self._head = Head(self.stream, seq, signed_hash(signed))
            return signed

    def rewind(self, head: Head) -> None:
        """Take back the links signed after `head` (they were never stored, so no one will see them)."""
        with self._lock:
            if head.stream == self.stream and head.seq <= self._head.seq:
                self._head = head

    def heartbeat(self, *, namespace: str = "tributary", when: datetime | None = None) -> dict[str, Any]:
        """A signed heartbeat announcing the current head at `when` (now)."""
        head = self.head()
        return sign_event(heartbeat_event(head, namespace=namespace, when=when), self._key, producer=self._producer)


def stream_state(*, forks: int, gaps: int, high: int, announced: int) -> str:
    """The one state a stream shows: `fork`, then `gap`, then `truncated` (a heartbeat announced a seq beyond
    the highest arrived), else `contiguous`."""
    if forks:
        return "fork"
    if gaps:
        return "gap"
    if announced > high:
        return "truncated"
    return "contiguous"


def heartbeat_event(head: Head, *, namespace: str, when: datetime | None = None) -> dict[str, Any]:
    """The unsigned heartbeat event announcing `head`."""
    moment = (when or datetime.now(UTC)).astimezone(UTC)
    return {
        "eventType": "OTHER",
        "eventTime": moment.isoformat(timespec="microseconds").replace("+00:00", "Z"),
        "producer": DEFAULT_PRODUCER,
        "schemaURL": _RUN_EVENT_SCHEMA,
        "run": {
            "runId": str(uuid.uuid5(_STREAM_RUNS, head.stream)),
            "facets": {
                HEARTBEAT_FACET: {
                    "_producer": DEFAULT_PRODUCER,
                    "_schemaURL": HEARTBEAT_SCHEMA_URL,
                    "stream": head.stream,
                    "seq": head.seq,
                    "head": head.hash,
                }
            },
        },
        "job": {"namespace": namespace, "name": HEARTBEAT_JOB},
        "inputs": [],
        "outputs": [],
    }


def is_heartbeat(event: Mapping[str, Any]) -> bool:
    """Whether `event` has the heartbeat's shape (a `tributary_heartbeat` run facet), well-formed or not."""
    run = event.get("run")
    facets = run.get("facets") if isinstance(run, Mapping) else None
    return isinstance(facets, Mapping) and HEARTBEAT_FACET in facets


def read_heartbeat(event: Mapping[str, Any], *, key: str) -> Heartbeat:
    """The heartbeat of a heartbeat event signed by key id `key`; `SignatureFormatError` if it is not one."""
    run = event.get("run")
    facets = run.get("facets") if isinstance(run, Mapping) else None
    facet = facets.get(HEARTBEAT_FACET) if isinstance(facets, Mapping) else None
    if not isinstance(facet, Mapping):
        raise SignatureFormatError(f"`{HEARTBEAT_FACET}` must be an object")
    seq, head = facet.get("seq"), facet.get("head")
    problem = stream_problem(facet.get("stream"), key) or seq_problem(seq, "seq", least=0)
    if not problem and (seq == 0) != (head is None):
        problem = "`head` is null exactly when `seq` is 0"
    if not problem and head is not None:
        problem = hash_problem(head, "head")
    if problem:
        raise SignatureFormatError(problem)
    return Heartbeat(stream=facet["stream"], seq=int(seq or 0), head=head)
