"""Properties of tolerant facets over mutated events: a problem inside a facet is never a 400, and
the event without the facets its warnings name is fully valid."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lineage_app.ingest.validation import EventInvalid, _event_kind, _fast_valid, event_check, payload_without
from tests.events import facet, run_lifecycle
from tests.ingest.test_validator_agreement import _paths

BASE = run_lifecycle(fail=True)
for _event in BASE:
    _event["run"]["facets"]["parent"] = facet(
        run={"runId": "6f1c2d3e-4b5a-4c6d-8e7f-901234567890"}, job={"namespace": "airflow", "name": "dag.task"}
    )
    _event["inputs"][0]["facets"]["symlinks"] = facet(identifiers=[{"namespace": "hive", "name": "t", "type": "TABLE"}])
FACET_MAPS = ("facets", "inputFacets", "outputFacets")
# Values that may break a schema but not the log itself: integers within RFC 8785's range, text without
# NUL (an uncanonicalisable or unstorable event is refused whatever part of it holds the value).
REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53) + 1, 2**53 - 1),
    st.text(max_size=5, alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))),
    st.just([]),
    st.just({}),
    st.just("2026-01-05T08:00:00"),
    st.just("not-a-uuid"),
)


def _inside_a_facet(path: tuple[Any, ...]) -> bool:
    """A path into a facet map's member (or the map itself), not into the event core."""
    return any(step in FACET_MAPS for step in path if isinstance(step, str))


def _mutate(event: dict[str, Any], path: tuple[Any, ...], delete: bool, replacement: Any) -> None:
    parent: Any = event
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement


@settings(max_examples=300, deadline=None)
@given(event_index=st.integers(0, len(BASE) - 1), data=st.data(), delete=st.booleans(), replacement=REPLACEMENTS)
def test_a_mutation_inside_a_facet_is_a_warning_never_a_rejection(event_index, data, delete, replacement):  # type: ignore[no-untyped-def]
    event = copy.deepcopy(BASE[event_index])
    path = data.draw(st.sampled_from([p for p in _paths(event) if _inside_a_facet(p)]))
    _mutate(event, path, delete, replacement)
    try:
        checked = event_check(event)
    except EventInvalid as exc:  # pragma: no cover - the assertion says what went wrong
        raise AssertionError(f"a change at {path} was refused: {exc.as_dict()}") from exc
    applied = payload_without(event, [w.at for w in checked.warnings])
    assert _fast_valid(applied, _event_kind(applied))
    for warning in checked.warnings:  # each names a facet (or facet map) at the start of the changed path
        assert tuple(path[: len(warning.at)]) == warning.at


@settings(max_examples=200, deadline=None)
@given(event_index=st.integers(0, len(BASE) - 1), data=st.data(), delete=st.booleans(), replacement=REPLACEMENTS)
def test_any_mutated_event_is_rejected_or_valid_once_its_warned_facets_are_left_out(  # type: ignore[no-untyped-def]
    event_index, data, delete, replacement
):
    event = copy.deepcopy(BASE[event_index])
    _mutate(event, data.draw(st.sampled_from(_paths(event))), delete, replacement)
    try:
        checked = event_check(event)
    except EventInvalid:
        return
    applied = payload_without(event, [w.at for w in checked.warnings])
    assert _fast_valid(applied, _event_kind(applied))
    assert event == copy.deepcopy(event) and checked.payload is event  # the stored payload is not altered
