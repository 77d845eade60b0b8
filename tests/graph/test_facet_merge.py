"""A dataset's and a job's facets are the newest value per facet name, by event time, whatever order the
events arrive in; only a `_deleted` marker (itself ordered by event time) removes one (docs/time.md)."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from io import StringIO
from itertools import pairwise, permutations

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_app.explorer.selectors.datasets import dataset_detail
from lineage_app.explorer.selectors.jobs_and_runs import job_detail
from lineage_app.graph.driver import graph_read, graph_write, records
from lineage_app.graph.events import EventRecord
from lineage_app.graph.facet_store import facets_settle
from lineage_app.graph.facets import Sightings, sightings_merge, sightings_properties, sightings_stored
from lineage_app.graph.identity import identity_normalise
from lineage_app.graph.model import Label, natural_key
from lineage_app.graph.projection import graph_writes_for, rows_resolve
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.ingest.validation import event_check
from tests.apply import accept, accept_and_apply
from tests.events import T0, dataset, facet, run_event
from tests.graph.dbt_events import (
    JOB_NAMESPACE,
    NAMESPACE,
    TABLE,
    assertions_facet,
    dataset_event,
    dbt_model_run,
    dbt_test_run,
    deleted,
)
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

DAY = T0 + timedelta(days=10)
TABLE_ID = f"dataset:{NAMESPACE}:{TABLE}"
MODEL_JOB_ID = f"job:{JOB_NAMESPACE}:{TABLE}"
TYPES = {"order_id": "INTEGER", "status": "VARCHAR", "amount": "DECIMAL(18,2)"}
RUNS = [f"0c3e8a9e-1000-4000-8000-00000000000{i}" for i in range(6)]


def _groups() -> list[list[dict]]:
    """The scenario, as the groups of events one producer call sends: `dbt-ol run`, `dbt-ol test` (a test
    fails), a deletion of the test results older than that test, the next `dbt-ol run` (with column types
    from `dbt docs generate`, and no SQL: the model did not compile), a deletion of the table's
    documentation after it, and a late event of that run deleting its job's `dbt_node` facet."""
    later = dbt_model_run(
        run_id=RUNS[2], parent_run=RUNS[3], at=DAY + timedelta(days=1), description="Orders, deduplicated",
        types=TYPES, sql=None,
    )  # fmt: skip
    late = dict(later[-1], eventType="OTHER", eventTime=(later[-1]["eventTime"][:11] + "23:00:00Z"))
    late["job"] = dict(late["job"], facets={"dbt_node": deleted()})
    late["outputs"] = []
    return [
        dbt_model_run(run_id=RUNS[0], parent_run=RUNS[1], at=DAY, description="Orders, cleaned"),
        dbt_test_run(run_id=RUNS[4], parent_run=RUNS[5], at=DAY + timedelta(hours=1), status_passes=False),
        [dataset_event(at=DAY + timedelta(minutes=30), facets={"dataQualityAssertions": deleted()})],
        later,
        [dataset_event(at=DAY + timedelta(days=1, hours=1), facets={"documentation": deleted()})],
        [late],
    ]


GROUPS = _groups()
EVENTS = [event for group in GROUPS for event in group]


def test_a_dbt_test_run_keeps_the_facets_the_model_run_sent_and_the_next_run_keeps_the_test_results(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(*EVENTS, one_by_one=True)
    facets = dataset_detail(node_id=TABLE_ID)["facets"]
    assert sorted(facets) == ["dataQualityAssertions", "dataSource", "dbt_model"]  # documentation deleted
    assert facets["dataQualityAssertions"]["assertions"][1]["success"] is False  # the older deletion lost
    job = job_detail(node_id=MODEL_JOB_ID)
    assert sorted(job["facets"]) == ["jobType", "sql"]  # the second run sent no SQL: the first's stays
    assert job["jobType"] == "MODEL"


@pytest.mark.parametrize("deletion_first", [True, False])
def test_a_deletion_removes_a_facet_only_until_a_newer_event_sends_it_again(graph, deletion_first: bool):  # type: ignore[no-untyped-def]
    deletion = dataset_event(at=DAY + timedelta(hours=2), facets={"dataQualityAssertions": deleted()})
    retest = dbt_test_run(run_id=RUNS[1], parent_run=RUNS[3], at=DAY + timedelta(hours=3), status_passes=True)
    first = dbt_test_run(run_id=RUNS[0], parent_run=RUNS[2], at=DAY, status_passes=False)
    accept_and_apply(*([deletion, *first] if deletion_first else [*first, deletion]), one_by_one=True)
    assert "dataQualityAssertions" not in dataset_detail(node_id=TABLE_ID)["facets"]
    accept_and_apply(*retest)
    facets = dataset_detail(node_id=TABLE_ID)["facets"]
    assert facets["dataQualityAssertions"] == assertions_facet(status_passes=True)


def _record(event: dict) -> EventRecord:
    checked = event_check(event)
    return EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event)


def _merged_in(order: tuple[int, ...]) -> dict[str, dict]:
    """The facets the projection and the write path's merge give each dataset and job when the groups
    arrive in `order`, each as one batch (`graph.facet_store` does the same merge against the graph)."""
    held: dict[str, Sightings] = {}
    for index in order:
        rows = rows_resolve(graph_writes_for([_record(e) for e in GROUPS[index]], []), canonical={})
        for key, sightings in [*rows.dataset_facets.items(), *rows.job_facets.items()]:
            sightings_merge(held.setdefault(key, {}), sightings)
    return {key: sightings_properties(sightings) for key, sightings in held.items()}


def test_every_order_of_the_producer_calls_merges_to_the_same_facets() -> None:
    orders = list(permutations(range(len(GROUPS))))
    reference = _merged_in(orders[0])
    table = natural_key(*identity_normalise(NAMESPACE, TABLE))
    assert sorted(sightings_stored(reference[table]["facetsJson"])) == [
        "dataQualityAssertions",
        "dataSource",
        "dbt_model",
    ]
    assert all(_merged_in(order) == reference for order in orders[1:])  # 720 orders


def test_an_older_or_repeated_sighting_changes_nothing_so_nothing_is_written() -> None:
    held: Sightings = {"sql": ("2026-01-15T08:00:00.000000Z|b", {"query": "select 2"})}
    assert not sightings_merge(held, {"sql": ("2026-01-15T08:00:00.000000Z|b", {"query": "select 2"})})
    assert not sightings_merge(held, {"sql": ("2026-01-14T08:00:00.000000Z|a", {"query": "select 1"})})
    assert sightings_merge(held, {"sql": ("2026-01-16T08:00:00.000000Z|c", None)})
    assert sightings_properties(held)["facetsJson"] == "{}"


def test_facets_a_graph_kept_before_names_were_ordered_take_the_next_sighting_of_their_name() -> None:
    held = sightings_stored('{"documentation":{"description":"old"},"sql":{"query":"select 1"}}')
    assert sightings_merge(held, {"documentation": ("2026-01-15T08:00:00.000000Z|a", {"description": "new"})})
    assert json.loads(sightings_properties(held)["facetsJson"]) == {
        "documentation": {"description": "new"},
        "sql": {"query": "select 1"},
    }


def _apply_in(order: list[int], cuts: list[int]) -> list[str]:
    graph_wipe()
    LineageEvent.objects.all().delete()
    ids = accept(*(EVENTS[i] for i in order))
    bounds = sorted({0, len(ids), *(c for c in cuts if 0 < c < len(ids))})
    for start, end in pairwise(bounds):
        events_apply(event_ids=ids[start:end])
    return graph_dump()


_REFERENCE: list[str] = []


@pytest.fixture
def reference_dump(graph, db) -> list[str]:  # type: ignore[no-untyped-def]
    if not _REFERENCE:
        _REFERENCE.extend(_apply_in(list(range(len(EVENTS))), [len(EVENTS)]))
    return list(_REFERENCE)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    order=st.permutations(range(len(EVENTS))).flatmap(
        lambda p: st.lists(st.sampled_from(range(len(EVENTS))), max_size=3).map(lambda dups: list(p) + dups)
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=len(EVENTS) + 3), max_size=4),
)
def test_the_dbt_events_in_any_order_duplication_and_batching_give_one_graph(graph, reference_dump, order, cuts):  # type: ignore[no-untyped-def]
    assert _apply_in(order, cuts) == reference_dump


def test_rebuild_graph_gives_the_merged_facets_of_the_live_fold(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(*random.Random(3).sample(EVENTS, len(EVENTS)), one_by_one=True)
    incremental = graph_dump()
    call_command("rebuild_graph", "--no-progress", "--batch-size", "3", stdout=StringIO())
    assert graph_dump() == incremental
    assert sorted(dataset_detail(node_id=TABLE_ID)["facets"]) == ["dataQualityAssertions", "dataSource", "dbt_model"]


@pytest.mark.parametrize("link_first", [True, False])
def test_two_names_of_one_table_merge_their_facets_by_name(graph, link_first: bool):  # type: ignore[no-untyped-def]
    """The location and the catalog name each got facets before a symlink said they are one table: the
    table keeps the newest of each facet name of both."""
    by_location = dataset("s3://lake", "warehouse/orders")
    by_location["facets"]["documentation"] = facet(description="by location")
    by_location["facets"]["storage"] = facet(storageLayer="iceberg", fileFormat="parquet")
    by_catalog = dataset("hive://metastore", "sales.orders")
    by_catalog["facets"]["documentation"] = facet(description="by catalog, later")
    linked = dataset("s3://lake", "warehouse/orders")
    linked["facets"]["symlinks"] = facet(
        identifiers=[{"namespace": "hive://metastore", "name": "sales.orders", "type": "TABLE"}]
    )
    events = [
        run_event("COMPLETE", run_id=RUNS[0], job="write", at=DAY, outputs=[by_location]),
        run_event("COMPLETE", run_id=RUNS[1], job="read", at=DAY + timedelta(hours=1), inputs=[by_catalog]),
    ]
    link = run_event("COMPLETE", run_id=RUNS[2], job="link", at=DAY - timedelta(days=1), inputs=[linked])
    accept_and_apply(*([link, *events] if link_first else [*events, link]), one_by_one=True)
    facets = dataset_detail(node_id="dataset:s3://lake:warehouse/orders")["facets"]
    assert facets["documentation"]["description"] == "by catalog, later"
    assert facets["storage"]["storageLayer"] == "iceberg"
    assert sorted(facets) == ["documentation", "storage", "symlinks"]


def _sql_run(run_id: str, day: int, query: str) -> dict:
    event = run_event("COMPLETE", run_id=run_id, job="etl.daily", at=DAY + timedelta(days=day))
    event["job"]["facets"] = {"sql": facet(query=query, dialect="spark")}
    return event


JOB_KEY = natural_key("spark", "etl.daily")


def _job_sightings() -> dict:
    return graph_read(lambda tx: records(tx, SIGHTINGS, key=JOB_KEY))[0]


SIGHTINGS = "MATCH (j:Job {key: $key}) RETURN j.facetNames AS names, j.facetOrders AS orders, j.facetsJson AS facets"


def test_a_job_that_sends_the_same_sql_every_run_moves_its_order_and_rewrites_no_facet(graph):  # type: ignore[no-untyped-def]
    accept_and_apply(_sql_run(RUNS[0], 0, "select 1"), _sql_run(RUNS[1], 1, "select 1"), one_by_one=True)
    stored = _job_sightings()
    order = stored["orders"][0]
    assert stored["names"] == ["sql"] and order.startswith((DAY + timedelta(days=1)).strftime("%Y-%m-%d"))

    later = (DAY + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%S.000000Z|a")
    same = {JOB_KEY: {"sql": (later, json.loads(stored["facets"])["sql"])}}
    other = {JOB_KEY: {"sql": (later + "b", {"query": "select 2"}), "documentation": (later, {"description": "d"})}}
    assert graph_write(lambda tx: facets_settle(tx, Label.JOB, same)) == 0  # settled in the engine, nothing read
    assert _job_sightings()["orders"] == [later] and _job_sightings()["facets"] == stored["facets"]
    assert graph_write(lambda tx: facets_settle(tx, Label.JOB, same)) == 0  # the same sighting again
    assert graph_write(lambda tx: facets_settle(tx, Label.JOB, other)) == 1
    assert _job_sightings()["names"] == ["documentation", "sql"]
    unordered = {JOB_KEY: {"ownership": ("", {"owners": []}), "sql": ("", {"query": "select 0"})}}  # an alias's, kept
    assert graph_write(lambda tx: facets_settle(tx, Label.JOB, unordered)) == 1  # before names were ordered
    assert _job_sightings()["names"] == ["documentation", "ownership", "sql"]
    assert job_detail(node_id="job:spark:etl.daily")["facets"]["sql"] == {"query": "select 2"}


def test_a_late_run_older_than_a_repeated_sighting_does_not_take_its_name_back(graph):  # type: ignore[no-untyped-def]
    """Day 0 and day 2 send the same SQL (day 2 writes no facet), then day 1's run arrives late with other SQL:
    the newest sighting is day 2's, so the SQL stays, as it does when the days arrive in order."""
    accept_and_apply(_sql_run(RUNS[0], 0, "select 1"), _sql_run(RUNS[2], 2, "select 1"), one_by_one=True)
    accept_and_apply(_sql_run(RUNS[1], 1, "select 2"))
    assert job_detail(node_id="job:spark:etl.daily")["facets"]["sql"]["query"] == "select 1"
    accept_and_apply(_sql_run(RUNS[3], 3, "select 3"))
    assert job_detail(node_id="job:spark:etl.daily")["facets"]["sql"]["query"] == "select 3"


def test_a_node_written_before_the_sighting_lists_keeps_its_order_keys_and_is_upgraded(graph):  # type: ignore[no-untyped-def]
    """A job an earlier release wrote holds its order keys as `facetOrdersJson`: a late sighting still loses to
    them, and the node's next write keeps them as lists."""
    day_two = (DAY + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%S.000000Z|z")
    graph_write(
        lambda tx: tx.run(
            "CREATE (:Job {key: $key, nodeId: 'job:spark:etl.daily', namespace: 'spark', name: 'etl.daily', "
            "facetsJson: $facets, facetOrdersJson: $orders})",
            key=JOB_KEY,
            facets='{"sql":{"query":"select 1"}}',
            orders=json.dumps({"sql": day_two}),
        ).consume()
    )
    accept_and_apply(_sql_run(RUNS[1], 1, "select 2"))
    assert job_detail(node_id="job:spark:etl.daily")["facets"]["sql"] == {"query": "select 1"}
    upgraded = graph_read(
        lambda tx: records(
            tx, "MATCH (j:Job {key: $key}) RETURN j.facetOrdersJson AS legacy, j.facetOrders AS orders", key=JOB_KEY
        )
    )[0]
    assert upgraded == {"legacy": None, "orders": [day_two]}
