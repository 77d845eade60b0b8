"""`init_graph`'s backfills run once per graph: the first run fills what nodes written before them lack and records
each backfill done in the graph; later runs leave the graph's nodes unread (at a million datasets each scan takes
minutes); `--backfill` scans again; a graph wiped for a rebuild loses its records with its nodes."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from neo4j import ManagedTransaction
from rest_framework.test import APIClient

from lineage_app.graph.driver import graph_read, graph_write, records
from lineage_app.graph.model import Label
from lineage_app.graph.schema import BACKFILLS, BACKFILLS_DONE, graph_schema_init
from lineage_app.graph.writes import DELETE_SOME
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.events import dataset, facet, run_event

pytestmark = pytest.mark.django_db(transaction=True)

RUN_ID = "0b6f3c1e-7d2a-4e58-9c41-2a7e5d903f16"
ORDERS = ("s3://lake", "warehouse/OrderLines")


@pytest.fixture
def posted(graph: Any, ingest_client: APIClient) -> None:
    written = dataset(*ORDERS, fields=[("CustomerEmail", "string")])
    written["facets"]["tags"] = facet(tags=[{"key": "pii", "value": "true", "source": "CONFIG"}])
    body = [run_event("COMPLETE", run_id=RUN_ID, job="Nightly.OrderLines_Load", outputs=[written])]
    answer = ingest_client.post("/api/v1/lineage/batch", data=json.dumps(body), content_type="application/json")
    assert answer.json()["status"] == "success", answer.content
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 1


def _forget(tx: ManagedTransaction) -> None:
    """What a writer older than the backfills leaves: nodes without `searchName` and without `tags`."""
    for label in (Label.DATASET, Label.JOB, Label.FIELD, Label.DATASET_ALIAS):
        tx.run(f"MATCH (n:{label}) REMOVE n.searchName").consume()
    for label in (Label.DATASET, Label.JOB, Label.RUN):
        tx.run(f"MATCH (n:{label}) REMOVE n.tags").consume()


def _missing(tx: ManagedTransaction) -> dict[str, int]:
    rows = records(
        tx,
        f"MATCH (d:{Label.DATASET}) RETURN sum(CASE WHEN d.searchName IS NULL THEN 1 ELSE 0 END) AS searchName, "
        "sum(CASE WHEN d.tags IS NULL THEN 1 ELSE 0 END) AS tags",
    )
    return {name: int(rows[0][name]) for name in ("searchName", "tags")}


def _done(tx: ManagedTransaction) -> list[str]:
    return sorted(row["name"] for row in records(tx, BACKFILLS_DONE))


def _wipe_markers(tx: ManagedTransaction) -> None:
    tx.run(f"MATCH (b:{Label.BACKFILL}) DELETE b").consume()


def test_a_graph_from_before_the_records_is_backfilled_once_and_then_left_unread(posted: None) -> None:
    graph_write(_wipe_markers)  # a graph whose backfills were never recorded, with nodes that need them
    graph_write(_forget)
    first = graph_schema_init(index_timeout=0)
    assert set(first.backfills.ran) == set(BACKFILLS) and first.backfills.skipped == ()
    assert first.backfills.ran["searchName"] == dict.fromkeys(
        (Label.DATASET, Label.JOB, Label.FIELD, Label.DATASET_ALIAS), 1
    )
    assert first.backfills.ran["tags"] == {Label.DATASET: 1, Label.JOB: 0, Label.RUN: 1}  # the job has no facets
    assert graph_read(_missing) == {"searchName": 0, "tags": 0}
    assert graph_read(_done) == sorted(BACKFILLS)

    graph_write(_forget)  # as an old worker would, after the backfills were recorded
    second = graph_schema_init(index_timeout=0)
    assert second.backfills.ran == {} and second.backfills.skipped == tuple(BACKFILLS)
    assert graph_read(_missing) == {"searchName": 1, "tags": 1}, "a recorded backfill must not scan again"

    again = graph_schema_init(index_timeout=0, backfill_again=True)
    assert set(again.backfills.ran) == set(BACKFILLS)
    assert graph_read(_missing) == {"searchName": 0, "tags": 0}
    assert graph_read(_done) == sorted(BACKFILLS), "running again records each once"


def test_init_graph_says_which_backfills_ran_and_backfill_scans_again(posted: None) -> None:
    graph_write(_wipe_markers)
    out = StringIO()
    call_command("init_graph", "--index-timeout", "0", stdout=out)
    assert "backfills: searchName: 0 nodes; tags: 0 nodes" in out.getvalue()
    out = StringIO()
    call_command("init_graph", "--index-timeout", "0", stdout=out)
    assert "backfills: searchName: done before; tags: done before" in out.getvalue()
    graph_write(_forget)
    out = StringIO()
    call_command("init_graph", "--index-timeout", "0", "--backfill", stdout=out)
    assert "backfills: searchName: 4 nodes; tags: 2 nodes" in out.getvalue()
    assert graph_read(_missing) == {"searchName": 0, "tags": 0}


def test_a_wiped_graph_loses_its_records_with_its_nodes(posted: None) -> None:
    graph_schema_init(index_timeout=0)
    assert graph_read(_done) == sorted(BACKFILLS)
    while graph_write(lambda tx: records(tx, DELETE_SOME, limit=1000)[0]["deleted"]):
        pass
    assert graph_read(_done) == []
