"""What the relay makes of a request body: strictly parsed events, signed as the next links of the relay's stream
unless already signed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lineage_protocol import (
    SIGNATURE_FACET,
    CanonicalizationError,
    StreamChain,
    canonical_json,
    content_hash,
    parse_event,
)

_WHITESPACE = re.compile(r"[ \t\n\r]*")


class EventRefused(ValueError):
    """This event cannot be signed and forwarded; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotABatch(ValueError):
    """The batch body is not a JSON array."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Signed:
    """What to buffer for one event: its bytes and, when the relay chained it, the content hash of the event as
    the producer sent it (`source`), by which a producer's retry is recognised."""

    body: bytes
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Retried:
    """An event the relay has already chained (a producer that lost the answer sent it again): not signed twice."""

    source: str


def event_signed(*, raw: bytes | str, chain: StreamChain, chained: Callable[[str], bool]) -> Signed | Retried:
    """What to buffer for one serialised event: signed as `chain`'s next link, or untouched when there is nothing
    to add. The caller stores what this returns before signing anything else (`Relay.store`).

    An event that already carries a `tributary_signature` facet was signed where it was made and is
    kept byte for byte; a dataset or job event has no run facets to carry a signature and is kept
    as it came. The server verifies both. An event `chained` says the relay signed before is `Retried`:
    signing it again would give it a second place in the chain, and the server a second event.
    Raises `EventRefused`.
    """
    try:
        event = parse_event(raw)
    except ValueError as exc:
        raise EventRefused(f"not a JSON object the relay can sign: {exc}") from None
    run = event.get("run")
    if not isinstance(run, Mapping) or _has_signature(run):
        return Signed(raw.encode() if isinstance(raw, str) else raw)
    try:
        source = content_hash(canonical_json(event))
    except CanonicalizationError as exc:
        raise EventRefused(f"cannot sign the event: {exc}") from None
    if chained(source):
        return Retried(source)
    try:
        signed = chain.sign(event)
    except ValueError as exc:
        raise EventRefused(f"cannot sign the event: {exc}") from None
    return Signed(json.dumps(signed, separators=(",", ":"), ensure_ascii=False).encode(), source)


def batch_items(*, raw: bytes) -> list[str]:
    """The serialised elements of a JSON array, each as it was written, for `event_signed` to parse strictly.

    Raises `NotABatch` when the body is not one JSON array.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotABatch(f"the body is not UTF-8: {exc}") from None
    decoder = json.JSONDecoder()
    at = _skip_whitespace(text, 0)
    if text[at : at + 1] != "[":
        raise NotABatch("a batch must be a JSON array of events")
    at = _skip_whitespace(text, at + 1)
    items: list[str] = []
    if text[at : at + 1] == "]":
        return _ended(text, at + 1, items)
    while True:
        try:
            _, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise NotABatch(f"element {len(items)} is not valid JSON: {exc.msg} (character {exc.pos})") from None
        except RecursionError:
            raise NotABatch(f"element {len(items)} is nested too deeply") from None
        items.append(text[at:end])
        at = _skip_whitespace(text, end)
        separator = text[at : at + 1]
        if separator == "]":
            return _ended(text, at + 1, items)
        if separator != ",":
            raise NotABatch(f"expected ',' or ']' after element {len(items) - 1} (character {at})")
        at = _skip_whitespace(text, at + 1)


def _ended(text: str, at: int, items: list[str]) -> list[str]:
    if _skip_whitespace(text, at) != len(text):
        raise NotABatch(f"unexpected data after the array (character {at})")
    return items


def _skip_whitespace(text: str, at: int) -> int:
    match = _WHITESPACE.match(text, at)
    return match.end() if match else at


def _has_signature(run: Mapping[str, Any]) -> bool:
    facets = run.get("facets")
    return isinstance(facets, Mapping) and SIGNATURE_FACET in facets
