"""Invariant 2: any permutation, duplication and batching of the same events gives one graph."""

from __future__ import annotations

import json
from datetime import timedelta
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_app.graph.events import EventRecord
from lineage_app.graph.run_state import run_fold
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.ingest.validation import event_check
from tests.apply import accept
from tests.events import T0, dataset, facet, new_run_id, run_event, run_lifecycle
from tests.graph.identity_events import CONTRADICTED_ID, TABLE_ID, alias_events, catalog_events
from tests.graph_dump import graph_dump
from tests.time.scenario import DAY_1, JOB, one_run

pytestmark = pytest.mark.django_db


def _scenario() -> list[dict]:
    """Two runs of one job with a schema change between them, a failed run, a child run, one table
    named three ways (`s3a://` path, catalog name, location with its symlink: invariant 9), and one
    named four ways by three producers with the catalog and hierarchy facets (one contradicting its name)."""
    first = run_lifecycle()
    second_id = new_run_id()
    wider = dataset(
        "file:///data",
        "clean/orders",
        fields=[("id", "bigint"), ("amount_eur", "double"), ("country", "string")],
        owners=["team:payments"],
    )
    second = [
        run_event("START", run_id=second_id, at=T0 + timedelta(days=1)),
        run_event("COMPLETE", run_id=second_id, at=T0 + timedelta(days=1, minutes=3), outputs=[wider]),
        # A late OTHER event after completion adds facets but cannot reopen the run.
        run_event(
            "OTHER",
            run_id=second_id,
            at=T0 + timedelta(days=1, minutes=9),
            run_facets={"tags": facet(tags=[{"key": "env", "value": "prod", "source": "test"}])},
        ),
    ]
    failed = run_lifecycle(fail=True)
    child_id = new_run_id()
    parent = {"parent": facet(run={"runId": first[0]["run"]["runId"]}, job={"namespace": "spark", "name": "etl.daily"})}
    child = [
        run_event("START", run_id=child_id, job="etl.daily.write", at=T0, run_facets=parent),
        run_event("COMPLETE", run_id=child_id, job="etl.daily.write", at=T0 + timedelta(minutes=2), run_facets=parent),
    ]
    return first + second + failed + child + alias_events() + catalog_events() + _changing_inputs()


def _changing_inputs() -> list[dict]:
    """Invariant 11: one job's runs whose inputs change (A, B; then A, C; then a run reading A and E that
    failed before its COMPLETE; then a failed run reading D; then A, B again), so which edges are current,
    which run confirmed them and since when they are stale must not depend on order."""
    days = [DAY_1 + timedelta(days=n) for n in range(4)]
    failed_first = one_run(days[1] + timedelta(hours=12), ["A", "E"])
    run_id = failed_first[0]["run"]["runId"]
    return [
        *one_run(days[0], ["A", "B"]),
        *one_run(days[1], ["A", "C"]),
        *failed_first,
        run_event("FAIL", run_id=run_id, job=JOB, at=days[1] + timedelta(hours=12, minutes=5)),
        *one_run(days[2], ["A", "D"], state="FAIL"),
        *one_run(days[3], ["A", "B"]),
    ]


SCENARIO = _scenario()


def _apply_in(order: list[int], cuts: list[int]) -> list[str]:
    graph_wipe()
    LineageEvent.objects.all().delete()
    ids = accept(*(SCENARIO[i] for i in order))
    bounds = sorted({0, len(ids), *(c for c in cuts if 0 < c < len(ids))})
    for start, end in pairwise(bounds):
        events_apply(event_ids=ids[start:end])
    return graph_dump()


_REFERENCE: list[str] = []  # the in-order graph, computed once per session by the first test that needs it


@pytest.fixture
def reference_dump(graph, db) -> list[str]:  # type: ignore[no-untyped-def]
    # Inside the test's own transaction, so what it stores (events, ownership records) is rolled
    # back with it and no later test sees it.
    if not _REFERENCE:
        _REFERENCE.extend(_apply_in(list(range(len(SCENARIO))), [len(SCENARIO)]))
    return list(_REFERENCE)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    order=st.permutations(range(len(SCENARIO))).flatmap(
        lambda p: st.lists(st.sampled_from(range(len(SCENARIO))), max_size=4).map(lambda dups: list(p) + dups)
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=len(SCENARIO) + 4), max_size=4),
)
def test_any_arrival_order_duplication_and_batching_gives_the_same_graph(graph, reference_dump, order, cuts):  # type: ignore[no-untyped-def]
    assert _apply_in(order, cuts) == reference_dump


def _record(event: dict) -> EventRecord:
    checked = event_check(event)
    return EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event)


def test_late_start_does_not_rewind_a_completed_run() -> None:
    run_id = new_run_id()
    complete = run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=5))
    late_start = run_event("START", run_id=run_id, at=T0 + timedelta(minutes=7))
    fold = run_fold([_record(complete), _record(late_start)])
    assert fold.state == "COMPLETED"
    assert fold.ended_at == "2026-01-05T08:05:00.000000Z"


def test_the_first_terminal_event_in_time_wins() -> None:
    run_id = new_run_id()
    fail = run_event(
        "FAIL",
        run_id=run_id,
        at=T0 + timedelta(minutes=1),
        run_facets={"errorMessage": facet(message="disk full", programmingLanguage="python")},
    )
    complete = run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=2))
    fold = run_fold([_record(complete), _record(fail)])
    assert (fold.state, fold.error_message) == ("FAILED", "disk full")


def test_start_is_the_earliest_start_or_running_event() -> None:
    run_id = new_run_id()
    events = [
        run_event("RUNNING", run_id=run_id, at=T0 + timedelta(minutes=1)),
        run_event("START", run_id=run_id, at=T0 + timedelta(minutes=2)),
    ]
    fold = run_fold([_record(e) for e in events])
    assert (fold.state, fold.started_at) == ("RUNNING", "2026-01-05T08:01:00.000000Z")


def test_the_scenario_names_one_table_three_ways_and_it_converges(graph, reference_dump):  # type: ignore[no-untyped-def]
    datasets = [row for row in reference_dump if '"Dataset"' in row.split('"props"')[0]]
    ids = sorted(json.loads(row)["props"]["nodeId"] for row in datasets)
    assert "dataset:s3://lake:warehouse/orders" in ids
    assert not [i for i in ids if "sales.orders" in i or "s3a:" in i]
    assert {TABLE_ID, CONTRADICTED_ID} <= set(ids)
    assert not [i for i in ids if "customers" in i and i != TABLE_ID]
