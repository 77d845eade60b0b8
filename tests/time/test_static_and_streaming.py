"""Static lineage (a JobEvent replaces what the job declared) and streaming runs that emit complete snapshots."""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from typing import Any

import pytest

from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.graph.model import Moment
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.instants import utc_text
from tests.apply import accept_and_apply
from tests.events import PRODUCER, T0, dataset, facet, new_run_id, run_event
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

NS = "kafka://broker:9092"


def _inputs(job_id: str, moment: Moment | None = None) -> dict[str, dict[str, Any]]:
    """The datasets reading into `job_id`, each with its edge."""
    body = lineage_for_node(node_id=job_id, depth=1, direction="upstream", moment=moment or Moment(), level="action")
    return {e["origin"]: e for node in body["graph"] for e in node["outEdges"] if e["destination"] == job_id}


def job_event(at: Any, inputs: list[str]) -> dict[str, Any]:
    return {
        "eventTime": utc_text(at),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": "catalog", "name": "orders_view", "facets": {}},
        "inputs": [{"namespace": "db", "name": name} for name in inputs],
        "outputs": [{"namespace": "db", "name": "orders_view"}],
    }


VIEW = "job:catalog:orders_view"


@pytest.mark.parametrize("order", ["in order", "reversed"])
def test_a_job_event_replaces_the_inputs_the_job_declared(graph, order: str) -> None:
    events = [job_event(T0, ["orders", "customers"]), job_event(T0 + timedelta(days=1), ["orders", "accounts"])]
    accept_and_apply(*(events if order == "in order" else events[::-1]), one_by_one=True)
    assert sorted(_inputs(VIEW)) == ["dataset:db:accounts", "dataset:db:orders"]
    stale = _inputs(VIEW, Moment(stale=True))["dataset:db:customers"]
    assert stale["staleSince"] == utc_text(T0 + timedelta(days=1))


def _streaming_events(content_mode: str) -> tuple[str, list[dict[str, Any]]]:
    """A streaming query's run: RUNNING events every ten minutes reading topics `a`, `b`, then `a`, `c`."""
    run_id = new_run_id()
    job_type = facet(
        processingType="STREAMING",
        integration="SPARK",
        jobType="SQL_JOB",
        emissionPattern={"eventTrigger": "PERIODIC", "eventContentMode": content_mode, "windowDuration": 600},
    )
    events = []
    for n, topics in enumerate([["a", "b"], ["a", "b"], ["a", "c"]]):
        event = run_event(
            "START" if n == 0 else "RUNNING",
            run_id=run_id,
            job="clicks_to_lake",
            at=T0 + timedelta(minutes=10 * n),
            inputs=[dataset(NS, topic) for topic in topics],
            outputs=[dataset("s3://lake", "clicks")],
        )
        event["job"]["facets"]["jobType"] = job_type
        events.append(event)
    return run_id, events


STREAM = "job:spark:clicks_to_lake"


def test_a_complete_snapshot_replaces_the_running_query_s_inputs_in_any_order(graph) -> None:
    _, events = _streaming_events("COMPLETE_SNAPSHOT")
    random.Random(3).shuffle(events)
    accept_and_apply(*events, one_by_one=True)
    assert sorted(_inputs(STREAM)) == [f"dataset:{NS}:a", f"dataset:{NS}:c"]
    stale = _inputs(STREAM, Moment(stale=True))[f"dataset:{NS}:b"]
    assert stale["staleSince"] == utc_text(T0 + timedelta(minutes=20))
    at_ten = _inputs(STREAM, Moment(at=utc_text(T0 + timedelta(minutes=15))))
    assert sorted(at_ten) == [f"dataset:{NS}:a", f"dataset:{NS}:b"]


def test_complete_snapshots_give_one_graph_in_every_arrival_order_and_duplicated(graph) -> None:
    """The latest snapshot in time decides, whichever arrived last: an earlier snapshot arriving after a
    later one keeps no confirmation on `b`, which the later one dropped."""
    _, events = _streaming_events("COMPLETE_SNAPSHOT")
    dumps = set()
    for order in itertools.permutations(events):
        graph_wipe()
        LineageEvent.objects.all().delete()
        accept_and_apply(*order, order[0], one_by_one=True)
        assert sorted(_inputs(STREAM)) == [f"dataset:{NS}:a", f"dataset:{NS}:c"], order
        dumps.add("\n".join(graph_dump()))
    assert len(dumps) == 1


def test_accumulative_events_merge_within_the_run(graph) -> None:
    _, events = _streaming_events("ACCUMULATIVE")
    accept_and_apply(*events)
    assert sorted(_inputs(STREAM)) == [f"dataset:{NS}:a", f"dataset:{NS}:b", f"dataset:{NS}:c"]


def test_a_renamed_dataset_keeps_its_history_under_one_node(graph) -> None:
    old, new = dataset("db", "sales.orders_v1"), dataset("db", "sales.orders")
    new["facets"]["lifecycleStateChange"] = facet(
        lifecycleStateChange="RENAME", previousIdentifier={"namespace": "db", "name": "sales.orders_v1"}
    )
    accept_and_apply(
        run_event("COMPLETE", run_id=new_run_id(), job="load", at=T0, outputs=[old]),
        run_event("COMPLETE", run_id=new_run_id(), job="report", at=T0 + timedelta(days=1), inputs=[new]),
    )
    body = lineage_for_node(node_id="dataset:db:sales.orders", depth=2, direction="both", level="action")
    ids = sorted(node["id"] for node in body["graph"])
    assert "job:spark:load" in ids and "job:spark:report" in ids  # one node: the writer before, the reader after
    assert len([i for i in ids if i.startswith("dataset:")]) == 1


def _dataset_event(at: Any, name: str, change: str) -> dict[str, Any]:
    table = dataset("db", name)
    table["facets"]["lifecycleStateChange"] = facet(lifecycleStateChange=change)
    return {
        "eventTime": utc_text(at),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": table,
    }


@pytest.mark.parametrize("order", ["in order", "the drop first"])
def test_a_dropped_table_retires_its_edges_until_it_is_written_again(graph, order: str) -> None:
    table = dataset("db", "tmp.orders")
    write = run_event("COMPLETE", run_id=new_run_id(), job="load", at=T0, outputs=[table])
    read = run_event("COMPLETE", run_id=new_run_id(), job="report", at=T0 + timedelta(hours=1), inputs=[table])
    drop = _dataset_event(T0 + timedelta(days=1), "tmp.orders", "DROP")
    events = [write, read, drop] if order == "in order" else [drop, read, write]
    accept_and_apply(*events, one_by_one=True)
    body = lineage_for_node(node_id="dataset:db:tmp.orders", depth=1, direction="both", level="action")
    assert [node["id"] for node in body["graph"]] == ["dataset:db:tmp.orders"]
    everything = lineage_for_node(
        node_id="dataset:db:tmp.orders", depth=1, direction="both", moment=Moment(stale=True), level="action"
    )
    stale = {e["staleSince"] for node in everything["graph"] for e in node["outEdges"]}
    assert stale == {utc_text(T0 + timedelta(days=1))}

    accept_and_apply(run_event("COMPLETE", run_id=new_run_id(), job="load", at=T0 + timedelta(days=2), outputs=[table]))
    again = lineage_for_node(node_id="dataset:db:tmp.orders", depth=1, direction="both", level="action")
    assert sorted(node["id"] for node in again["graph"]) == ["dataset:db:tmp.orders", "job:spark:load"]


def test_a_deleted_column_lineage_facet_retires_the_derivations_into_the_dataset(graph) -> None:
    from lineage_app.explorer.selectors.lineage import column_lineage_for_node

    target = dataset("db", "mart", fields=[("total", "double")], column_lineage={"total": [("db", "src", "amount")]})
    accept_and_apply(
        run_event("COMPLETE", run_id=new_run_id(), job="build", at=T0, inputs=[dataset("db", "src")], outputs=[target])
    )
    deletion = dataset("db", "mart")
    deletion["facets"]["columnLineage"] = {"_producer": PRODUCER, "_schemaURL": "https://x/y.json", "_deleted": True}
    deletion["facets"]["documentation"] = {"_producer": PRODUCER, "_schemaURL": "https://x/y.json", "_deleted": True}
    accept_and_apply(
        {
            "eventTime": utc_text(T0 + timedelta(days=1)),
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": deletion,
        }
    )
    field = "datasetField:db:mart:total"
    assert [n["id"] for n in column_lineage_for_node(node_id=field, depth=1, direction="upstream")["graph"]] == [field]
    stale = column_lineage_for_node(node_id=field, depth=1, direction="upstream", moment=Moment(stale=True))
    edges = [e for node in stale["graph"] for e in node["outEdges"]]
    assert [e["staleSince"] for e in edges] == [utc_text(T0 + timedelta(days=1))]
