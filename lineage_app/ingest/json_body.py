"""Strict decoding of ingest request bodies: UTF-8 only, no NaN / Infinity, bounded nesting, no
duplicate member names, and for a batch each element's exact bytes as sent."""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings

from lineage_app.ingest.json_text import nesting_depth_bound
from lineage_app.ingest.validation import EventInvalid


class NotAJsonArray(EventInvalid):
    """The body is well-formed JSON, but a batch must be an array."""


def _reject_constant(name: str) -> None:
    raise EventInvalid(f"malformed JSON: {name} is not a JSON value")


class _DuplicateName(Exception):
    """An object names a member twice (not a `ValueError`: malformed JSON is told apart from it)."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from its members as written, refusing one that names a member twice: readers disagree on
    which value wins, so a signature over one reading would vouch for a document others read differently."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _DuplicateName
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_members)
_WHITESPACE = re.compile(r"[ \t\n\r]*")  # what JSON allows between tokens


def json_decode(body: bytes, *, max_depth: int | None = None) -> Any:
    """The JSON value of `body`, nesting bounded by `max_depth` (default `INGEST_MAX_JSON_DEPTH`)."""
    return _decoded(_text(body, max_depth=max_depth or settings.INGEST_MAX_JSON_DEPTH))


def json_array_items(body: bytes, *, max_depth: int) -> list[tuple[Any, bytes]]:
    """Each element of the JSON array `body`, decoded, with its exact bytes as sent (what the
    event log keeps: not a re-encoding); each element nests at most `max_depth` levels.
    Raises `NotAJsonArray` for any other JSON value."""
    text = _text(body, max_depth=max_depth, enclosing=1)
    index = _skip_space(text, 0)
    if not text.startswith("[", index):
        _decoded(text)  # malformed JSON is reported as such
        raise NotAJsonArray("a batch must be a JSON array of events")
    items: list[tuple[Any, bytes]] = []
    index = _skip_space(text, index + 1)
    closed = text.startswith("]", index)
    try:
        while not closed:
            try:
                value, end = _DECODER.raw_decode(text, index)
            except _DuplicateName:
                raise _duplicate_name(text, index, path=f"[{len(items)}]") from None
            items.append((value, text[index:end].encode("utf-8")))
            index = _skip_space(text, end)
            if text.startswith(",", index):
                index = _skip_space(text, index + 1)
            elif text.startswith("]", index):
                closed = True
            else:
                raise json.JSONDecodeError("Expecting ',' delimiter", text, index)
        if _skip_space(text, index + 1) != len(text):
            raise json.JSONDecodeError("Extra data", text, _skip_space(text, index + 1))
    except ValueError as exc:
        raise _malformed(exc) from exc
    return items


def _text(body: bytes, *, max_depth: int, enclosing: int = 0) -> str:
    """`body` as text, once it is known to nest at most `max_depth` levels below its `enclosing` ones."""
    text = _utf8(body)
    _check_depth(body, max_depth=max_depth, enclosing=enclosing)
    return text


def _utf8(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EventInvalid(f"body is not valid UTF-8 (byte {exc.start})") from exc


def _check_depth(body: bytes, *, max_depth: int, enclosing: int) -> None:
    """Bound the nesting of the whole `body` before any of it is parsed, in linear time, so that the
    decoder (which recurses) never descends into a hostile body; `enclosing` levels (a batch's array)
    come on top of each value's `max_depth`. Counting brackets first spares the measurement for small events."""
    limit = max_depth + enclosing
    if body.count(b"[") + body.count(b"{") > limit and nesting_depth_bound(body, limit=limit) > limit:
        raise EventInvalid(f"JSON is nested deeper than {max_depth} levels, the maximum depth of an event")


def _decoded(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except _DuplicateName:
        raise _duplicate_name(text, _skip_space(text, 0), path="") from None
    except ValueError as exc:
        raise _malformed(exc) from exc


def _duplicate_name(text: str, index: int, *, path: str) -> EventInvalid:
    """The refusal of the value at `index` of `text` (at `path`), which names a member twice: it is read again
    with every member kept, to say where."""
    where, name = _first_duplicate(_PAIRS_DECODER.raw_decode(text, index)[0], path) or (path, "?")
    return EventInvalid(f"duplicate member name {name!r}: each name may appear once in an object", path=where or "$")


class _Pairs(list[tuple[str, Any]]):
    """An object as its members were written, duplicates kept."""


_PAIRS_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_Pairs)


def _first_duplicate(node: Any, path: str) -> tuple[str, str] | None:
    """The path and name of the first member named twice in its object, depth first."""
    if isinstance(node, _Pairs):
        names: set[str] = set()
        for name, _ in node:
            if name in names:
                return _member_path(path, name), name
            names.add(name)
        children = [(_member_path(path, name), child) for name, child in node]
    elif isinstance(node, list):
        children = [(f"{path}[{i}]", child) for i, child in enumerate(node)]
    else:
        return None
    for child_path, child in children:
        if (found := _first_duplicate(child, child_path)) is not None:
            return found
    return None


def _member_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _skip_space(text: str, index: int) -> int:
    match = _WHITESPACE.match(text, index)
    return match.end() if match else index


def _malformed(exc: ValueError) -> EventInvalid:
    if isinstance(exc, json.JSONDecodeError):
        return EventInvalid(f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    return EventInvalid(f"malformed JSON: {exc}")  # e.g. an integer literal longer than Python's int digit limit
