"""The compiled fast-path validator and the reference validator agree on what is valid."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_app.ingest.validation import _event_kind, _fast_valid, _reference_error
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
