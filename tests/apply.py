"""Events into the event log and onto the graph as the ingest API and a worker would, for tests that need them there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lineage_app.ingest.services import events_accept, events_apply
from lineage_app.ingest.validation import event_check


def as_json(event: dict[str, Any]) -> bytes:
    """An event's JSON, as a producer would have posted it: the raw bytes the log keeps."""
    return json.dumps(event).encode()


def accept(*events: dict[str, Any], raw: Callable[[dict[str, Any]], bytes] = lambda _: b"{}") -> list[int]:
    """Check and store `events` in the event log in one transaction, each with `raw(event)` as its raw bytes
    (`{}` unless a test reads them back); their ids, in the order given."""
    return [answer.id for answer in events_accept(items=[(event_check(e), raw(e)) for e in events], token=None)]


def accept_and_apply(
    *events: dict[str, Any], raw: Callable[[dict[str, Any]], bytes] = lambda _: b"{}", one_by_one: bool = False
) -> list[int]:
    """`accept` `events`, then apply them to the graph: in one batch, or with `one_by_one` each in its own,
    in the order given; their ids."""
    ids = accept(*events, raw=raw)
    for batch in [[i] for i in ids] if one_by_one else [ids]:
        events_apply(event_ids=batch)
    return ids
