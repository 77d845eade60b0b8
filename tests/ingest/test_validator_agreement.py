"""The compiled fast-path validator and the reference (interpreted) validators agree on what is valid."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import ValidationError

from lineage_app.ingest.validation import (
    DELETABLE_SECTIONS,
    _event_kind,
    _facet_maps,
    _facet_validators,
    _fast_valid,
    _first_error,
    _validators,
)
from tests.events import run_lifecycle

BASE = run_lifecycle(fail=True)
REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=5),
    st.just([]),
    st.just({}),
    st.just("2026-01-05T08:00:00"),
    st.just("not-a-uuid"),
    st.just("2026-01-05T08:00:00+02:00"),
)


def _reference_error(payload: dict[str, Any], kind: str) -> ValidationError | None:
    """The oracle: the first error the interpreted jsonschema validators find, in the event or its facets."""
    error = _first_error(_validators()[kind].iter_errors(payload))
    return error if error is not None else _first_error(_facet_errors(payload))


def _facet_errors(payload: dict[str, Any]) -> Iterator[ValidationError]:
    """Errors of the standard facets an event carries, with paths from the event's root."""
    facet_validators = _facet_validators()
    for section, base, facets in _facet_maps(payload):
        for key, value in facets.items():
            validator = facet_validators.get((section, key))
            deleted = section in DELETABLE_SECTIONS and isinstance(value, dict) and value.get("_deleted") is True
            if validator is None or deleted:
                continue  # a deletion marker carries no content to check
            for error in validator.iter_errors({key: value}):
                error.path.extendleft(reversed(base))
                yield error


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


@settings(max_examples=300, deadline=None)
@given(event_index=st.integers(0, len(BASE) - 1), data=st.data(), delete=st.booleans(), replacement=REPLACEMENTS)
def test_fast_and_reference_validators_agree_on_mutated_events(event_index, data, delete, replacement):  # type: ignore[no-untyped-def]
    event = copy.deepcopy(BASE[event_index])
    path = data.draw(st.sampled_from(_paths(event)))
    parent = event
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    if not isinstance(event, dict) or not any(k in event for k in ("run", "job", "dataset")):
        return
    kind = _event_kind(event)
    assert _fast_valid(event, kind) == (_reference_error(event, kind) is None)
