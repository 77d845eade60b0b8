"""The issue's scenario end to end over HTTP: events posted to the ingest endpoint, answers read from the API."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.instants import utc_text
from tests.events import dataset, new_run_id, run_event
from tests.time.scenario import DAY_1, DAY_2, JOB, JOB_ID, NAMESPACE, dataset_id, field_id, one_run, two_days

pytestmark = pytest.mark.django_db

AFTER_DAY_1 = utc_text(DAY_1 + timedelta(hours=1))
AFTER_DAY_2 = utc_text(DAY_2 + timedelta(hours=1))


def post_and_apply(client: APIClient, events: list[dict[str, Any]]) -> None:
    """Post each event to `POST /api/v1/lineage` (the OpenLineage HTTP transport's endpoint), then apply
    everything pending, as a worker would."""
    for event in events:
        response = client.post("/api/v1/lineage", event, format="json")
        assert response.status_code in (200, 201), response.content
    pending = list(LineageEvent.objects.filter(status=LineageEvent.Status.PENDING).values_list("id", flat=True))
    events_apply(event_ids=pending)


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def upstream_of_out(client: APIClient, **params: Any) -> dict[str, dict[str, Any]]:
    body = get(client, "lineage", nodeId=dataset_id("OUT"), depth=2, direction="upstream", **params)
    return {e["origin"]: e for node in body["graph"] for e in node["outEdges"] if e["destination"] == JOB_ID}


def impacted(client: APIClient, name: str, **params: Any) -> tuple[list[str], dict[str, Any]]:
    response = client.get("/api/v1/impact", {"nodeId": dataset_id(name), "depth": 4, **params})
    assert response.status_code == 200
    body = json.loads(b"".join(response.streaming_content))
    assert response["X-Stale-Edges-Left-Out"] == str(body["summary"]["staleLeftOut"])
    return [a["id"] for a in body["assets"] if a["type"] != "DATASET_FIELD"], body["summary"]


def answers(client: APIClient) -> dict[str, Any]:
    """Every answer the scenario is checked by, as one comparable value."""
    diff = get(
        client,
        "lineage/diff",
        nodeId=dataset_id("OUT"),
        depth=2,
        direction="upstream",
        **{"from": AFTER_DAY_1, "to": AFTER_DAY_2},
    )
    return {
        "now": sorted(upstream_of_out(client)),
        "stale": {k: (e["current"], e["staleSince"]) for k, e in upstream_of_out(client, includeStale="true").items()},
        "day1": sorted(upstream_of_out(client, at=AFTER_DAY_1)),
        "impactB": impacted(client, "B"),
        "diff": diff["changes"],
    }


def test_the_scenario_over_http(graph, ingest_client: APIClient, read_client: APIClient) -> None:
    post_and_apply(ingest_client, two_days())
    assert sorted(upstream_of_out(read_client)) == [dataset_id("A"), dataset_id("C")]
    assert sorted(upstream_of_out(read_client, at=AFTER_DAY_1)) == [dataset_id("A"), dataset_id("B")]
    assert sorted(upstream_of_out(read_client, asOf=AFTER_DAY_1)) == [dataset_id("A"), dataset_id("B")]
    stale = upstream_of_out(read_client, includeStale="true")[dataset_id("B")]
    assert (stale["current"], stale["staleSince"]) == (False, utc_text(DAY_2 + timedelta(minutes=10)))

    assets, summary = impacted(read_client, "B")
    assert assets == [] and summary["staleLeftOut"] >= 1
    assets, summary = impacted(read_client, "B", includeStale="true")
    assert JOB_ID in assets and summary["staleLeftOut"] == 0

    diff = get(
        read_client,
        "lineage/diff",
        nodeId=dataset_id("OUT"),
        depth=2,
        direction="upstream",
        **{"from": AFTER_DAY_1, "to": AFTER_DAY_2},
    )
    assert diff["changes"]["addedNodes"] == [dataset_id("C")]
    assert diff["changes"]["removedNodes"] == [dataset_id("B")]
    assert diff["changes"]["addedEdges"] == [{"origin": dataset_id("C"), "destination": JOB_ID}]
    assert diff["changes"]["removedEdges"] == [{"origin": dataset_id("B"), "destination": JOB_ID}]
    change = {node["id"]: node["change"] for node in diff["graph"]}
    assert change == {
        dataset_id("A"): "unchanged",
        dataset_id("B"): "removed",
        dataset_id("C"): "added",
        dataset_id("OUT"): "unchanged",
        JOB_ID: "unchanged",
    }


@pytest.mark.parametrize("arrangement", ["reversed", "shuffled", "posted twice"])
def test_the_same_answers_whatever_the_arrival(
    graph, ingest_client: APIClient, read_client: APIClient, arrangement: str
) -> None:
    post_and_apply(ingest_client, two_days())
    reference = answers(read_client)
    from lineage_app.graph.writer import graph_wipe

    graph_wipe()
    LineageEvent.objects.all().delete()
    events = two_days()
    if arrangement == "reversed":
        events.reverse()
    elif arrangement == "shuffled":
        random.Random(5).shuffle(events)
    else:
        events = events + events
    for event in events:  # each applied on its own, in the order it came
        post_and_apply(ingest_client, [event])
    assert answers(read_client) == reference


def test_column_lineage_diff_names_the_derivation_that_went_and_the_one_that_came(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, two_days())
    body = get(
        read_client,
        "column-lineage/diff",
        nodeId=field_id("OUT", "total"),
        depth=1,
        direction="upstream",
        **{"from": AFTER_DAY_1, "to": AFTER_DAY_2},
    )
    assert body["changes"]["addedEdges"] == [
        {"origin": field_id("C", "amount"), "destination": field_id("OUT", "total")}
    ]
    assert body["changes"]["removedEdges"] == [
        {"origin": field_id("B", "amount"), "destination": field_id("OUT", "total")}
    ]


def test_the_diff_lists_schema_changes_of_the_datasets_in_either_graph(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    day_1 = one_run(DAY_1, ["A"])
    run_id = new_run_id()
    wider = dataset(NAMESPACE, "OUT", fields=[("total", "decimal(12,2)"), ("currency", "string")])
    day_2 = [
        run_event("START", run_id=run_id, job=JOB, at=DAY_2, inputs=[dataset(NAMESPACE, "A")], outputs=[wider]),
        run_event("COMPLETE", run_id=run_id, job=JOB, at=DAY_2 + timedelta(minutes=5), outputs=[wider]),
    ]
    post_and_apply(ingest_client, day_1 + day_2)
    body = get(
        read_client, "lineage/diff", nodeId=dataset_id("OUT"), depth=2, **{"from": AFTER_DAY_1, "to": AFTER_DAY_2}
    )
    (change,) = body["schemaChanges"]
    assert change["datasetId"] == dataset_id("OUT")
    assert change["addedFields"] == ["currency"] and change["removedFields"] == []
    assert change["changedFields"] == [{"name": "total", "fromType": "double", "toType": "decimal(12,2)"}]


def test_a_run_says_what_it_read_and_wrote_and_what_changed_since_the_previous_completed_run(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    day_1, day_2 = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"])
    post_and_apply(ingest_client, day_1 + day_2)
    run_id = day_2[0]["run"]["runId"]
    body = get(read_client, f"jobs/runs/{quote(run_id)}/lineage")
    assert body["jobId"] == JOB_ID and body["state"] == "COMPLETED"
    assert [d["id"] for d in body["reads"]] == [dataset_id("A"), dataset_id("C")]
    assert [d["id"] for d in body["writes"]] == [dataset_id("OUT")]
    assert body["previousRunId"] == day_1[0]["run"]["runId"]
    assert body["changes"] == {
        "addedReads": [dataset_id("C")],
        "removedReads": [dataset_id("B")],
        "addedWrites": [],
        "removedWrites": [],
    }
    first = get(read_client, f"jobs/runs/{quote(day_1[0]['run']['runId'])}/lineage")
    assert first["previousRunId"] is None and first["changes"] is None


def test_a_failed_run_is_compared_with_the_last_successful_one(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    failed = one_run(DAY_2, ["A", "C"], state="FAIL")
    post_and_apply(ingest_client, one_run(DAY_1, ["A", "B"]) + failed)
    body = get(read_client, f"jobs/runs/{quote(failed[0]['run']['runId'])}/lineage")
    assert body["state"] == "FAILED"
    assert body["changes"]["addedReads"] == [dataset_id("C")]
    assert body["changes"]["removedReads"] == [dataset_id("B")]


def test_a_dataset_lists_its_former_consumers_apart(graph, ingest_client: APIClient, read_client: APIClient) -> None:
    post_and_apply(ingest_client, two_days())
    b = get(read_client, "datasets/detail", nodeId=dataset_id("B"))
    assert b["consumers"] == []
    assert [(j["id"], j["staleSince"]) for j in b["formerConsumers"]] == [
        (JOB_ID, utc_text(DAY_2 + timedelta(minutes=10)))
    ]
    c = get(read_client, "datasets/detail", nodeId=dataset_id("C"))
    assert c["consumers"] == [JOB_ID] and c["formerConsumers"] == []


def test_a_diff_backwards_in_time_swaps_added_and_removed(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, two_days())
    params = {"nodeId": dataset_id("OUT"), "depth": 2, "direction": "upstream"}
    forwards = get(read_client, "lineage/diff", **params, **{"from": AFTER_DAY_1, "to": AFTER_DAY_2})["changes"]
    backwards = get(read_client, "lineage/diff", **params, **{"from": AFTER_DAY_2, "to": AFTER_DAY_1})["changes"]
    assert backwards["addedNodes"] == forwards["removedNodes"] == [dataset_id("B")]
    assert backwards["removedEdges"] == forwards["addedEdges"]


def test_a_failing_job_says_what_its_failure_read_that_the_last_success_did_not(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    day_1, failed = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"], state="FAIL")
    post_and_apply(ingest_client, day_1 + failed)
    (group,) = get(read_client, "failures/jobs")["results"]
    assert group["job"] == JOB_ID
    assert group["sinceLastSuccess"] == {
        "runId": day_1[0]["run"]["runId"],
        "addedReads": [dataset_id("C")],
        "removedReads": [dataset_id("B")],
        "addedWrites": [],
        "removedWrites": [],
    }


def test_a_diff_from_before_the_start_existed_shows_it_added(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, two_days())
    before_anything = utc_text(DAY_1 - timedelta(days=1))
    body = get(
        read_client, "lineage/diff", nodeId=dataset_id("C"), depth=2, **{"from": before_anything, "to": AFTER_DAY_2}
    )
    assert {node["id"]: node["change"] for node in body["graph"]}[dataset_id("C")] == "added"
    fields = get(
        read_client,
        "column-lineage/diff",
        nodeId=field_id("C", "amount"),
        depth=1,
        **{"from": before_anything, "to": AFTER_DAY_2},
    )
    assert {node["id"]: node["change"] for node in fields["graph"]}[field_id("C", "amount")] == "added"


def test_a_job_lists_what_it_reads_now_and_what_it_read_before_apart(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, two_days())
    job = get(read_client, "jobs/detail", nodeId=JOB_ID)
    assert job["inputs"] == [dataset_id("A"), dataset_id("C")]
    assert job["formerInputs"] == [dataset_id("B")]
    assert job["outputs"] == [dataset_id("OUT")] and job["formerOutputs"] == []


def test_root_cause_walks_the_current_graph_unless_asked_for_stale_edges(
    graph, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_and_apply(ingest_client, two_days())
    upstream = {a["id"] for a in get(read_client, "root-cause", nodeId=dataset_id("OUT"))["results"]}
    assert dataset_id("B") not in upstream and dataset_id("C") in upstream
    everything = {
        a["id"] for a in get(read_client, "root-cause", nodeId=dataset_id("OUT"), includeStale="true")["results"]
    }
    assert dataset_id("B") in everything
    then = {a["id"] for a in get(read_client, "root-cause", nodeId=dataset_id("OUT"), at=AFTER_DAY_1)["results"]}
    assert dataset_id("B") in then and dataset_id("C") not in then


def test_a_graph_written_before_edges_knew_time_reads_as_current(graph, read_client: APIClient) -> None:
    """Upgrading (docs/time.md): edges with no confirmation or staleSince, as an earlier version wrote
    them, are current; reads do not fail on them."""
    from lineage_app.graph.driver import graph_write

    def old_graph(tx) -> None:  # type: ignore[no-untyped-def]
        tx.run(
            "CREATE (:Dataset {key: $a, nodeId: $aId, namespace: $ns, name: 'A', firstSeen: $t, lastSeen: $t})"
            "-[:INPUT_TO {firstSeen: $t, lastSeen: $t}]->"
            "(:Job {key: $j, nodeId: $jobId, namespace: 'spark', name: 'etl', firstSeen: $t, lastSeen: $t})",
            a=f"{NAMESPACE}\x1fA",
            aId=dataset_id("A"),
            ns=NAMESPACE,
            j="spark\x1fetl",
            jobId=JOB_ID,
            t=utc_text(DAY_1),
        ).consume()

    graph_write(old_graph)
    body = get(read_client, "lineage", nodeId=dataset_id("A"), depth=1, direction="downstream")
    (edge,) = [e for node in body["graph"] for e in node["outEdges"]]
    assert (edge["destination"], edge["current"], edge["staleSince"]) == (JOB_ID, True, None)
