"""RFC 8785 canonical JSON bytes, through the C encoder when that is provably identical.

Used for the signature of an event (agent and server) and for the event log's content hash.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import rfc8785

# Every JSON string, escapes included (the unrolled-loop pattern).
_STRING_LITERAL = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# What the C encoder writes differently from RFC 8785 outside strings: a float (its repr has a
# `.` or an exponent after a digit) or an integer that may lie beyond +-(2**53 - 1) (16 digits
# or more). ASCII classes, not `\d`: outside strings the encoder writes only ASCII, and they are faster.
_NUMBER_RFC8785_WRITES_DIFFERENTLY = re.compile(r"[0-9](?:[.eE]|[0-9]{15})")
# From U+D800 up, code-point order (Python's `sort_keys`) and UTF-16 order (RFC 8785's) can
# differ, and lone surrogates must be refused: leave those documents to `rfc8785`.
_FROM_SURROGATES_UP = re.compile("[\ud800-\U0010ffff]")


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 (JCS) bytes of a decoded JSON value, or `rfc8785.CanonicalizationError`.

    `value` is as JSON decoding gives it: dicts with string keys, lists, strings, numbers,
    booleans, None (a non-string key would be written as a string, where RFC 8785 refuses it).

    The C encoder, keys sorted and no whitespace, agrees byte for byte with RFC 8785 when every
    number is an integer within +-(2**53 - 1) and every character is below U+D800: the escapes
    are the same, and there code-point order is UTF-16 order. Anything else goes to `rfc8785`.
    """
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):  # NaN, infinity, a non-JSON type: `rfc8785` raises its own error
        return _rfc8785(value)
    if not text.isascii() and _FROM_SURROGATES_UP.search(text):
        return _rfc8785(value)
    if _NUMBER_RFC8785_WRITES_DIFFERENTLY.search(outside_strings(text)):
        return _rfc8785(value)
    return text.encode("utf-8")


def content_hash(canonical: bytes) -> str:
    """An event's idempotency key: lowercase hex SHA-256 of its canonical bytes (`canonical_json`).

    The server's event log deduplicates on it, so it must never change for an event that exists.
    """
    return hashlib.sha256(canonical).hexdigest()


def canonical_json_of_any(value: Any) -> bytes:
    """`canonical_json` for any Python value: the fast bytes only when they decode back to a value
    equal to `value` (so no non-string key, tuple or other non-JSON type was written as JSON),
    else `rfc8785`, which encodes what JSON can express and refuses the rest."""
    fast = canonical_json(value)
    if json.loads(fast) == value:
        return fast
    return _rfc8785(value)


def _rfc8785(value: Any) -> bytes:
    try:
        return rfc8785.dumps(value)
    except UnicodeEncodeError as exc:  # `rfc8785` sorts member names as UTF-16, which a lone surrogate breaks
        raise rfc8785.CanonicalizationError("input contains non-UTF-8 codepoints") from exc


def outside_strings(text: str) -> str:
    """JSON `text` with its string literals cut out; text after an unterminated `"` may go or stay."""
    # Without backslashes every `"` opens or closes a string, so splitting on it is exact.
    return "".join(text.split('"')[::2]) if "\\" not in text else _STRING_LITERAL.sub("", text)
