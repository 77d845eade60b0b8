"""A run page shows the run's place in its chain (ParentRunFacet `parent` and `root`): an Airflow DAG run lists its
task, the Spark application and its actions below it, and every run links its root and parent, whatever arrived
first, also when the DAG run or the task never sends an event of its own."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.explorer.airflow_spark_chain import (
    ACTION_RUNS,
    ACTIONS,
    APP,
    APP_RUN,
    BY_DAY,
    CLEAN,
    DAG,
    DAG_RUN,
    RAW,
    TASK,
    TASK_RUN,
    chain_runs,
)

pytestmark = pytest.mark.django_db

ORDERS = {
    "as they ran": ("dag", "task", "application", "action1", "action2"),
    "children first": ("action2", "action1", "application", "task", "dag"),
    "mixed": ("action1", "dag", "application", "action2", "task"),
}


def post_one_by_one(client: APIClient, levels: tuple[str, ...]) -> None:
    """Each level's events posted over HTTP and applied as its own batch, in the order given."""
    runs = chain_runs()
    for level in levels:
        answer = client.post("/api/v1/lineage/batch", data=json.dumps(runs[level]), content_type="application/json")
        assert answer.json()["status"] == "success", answer.content
        pending = LineageEvent.objects.filter(status=LineageEvent.Status.PENDING).values_list("id", flat=True)
        events_apply(event_ids=list(pending))


def hierarchy(client: APIClient, run_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/jobs/runs/{run_id}")
    assert response.status_code == 200, response.content
    return response.json()["hierarchy"]


def ref(body: dict[str, Any] | None) -> tuple[str, str] | None:
    return (body["runId"], body["jobId"]) if body else None


def refs(bodies: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(body["runId"], body["jobId"], body["parentRunId"]) for body in bodies]


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_every_run_of_the_chain_knows_its_root_parent_and_children_in_any_arrival_order(
    graph: Any, ingest_client: APIClient, read_client: APIClient, order: tuple[str, ...]
) -> None:
    post_one_by_one(ingest_client, order)
    dag = hierarchy(read_client, DAG_RUN)
    assert (dag["root"], dag["parent"]) == (None, None)
    assert refs(dag["children"]) == [(TASK_RUN, TASK, DAG_RUN)]
    assert refs(dag["descendants"]) == [
        (APP_RUN, APP, TASK_RUN),
        (ACTION_RUNS[0], ACTIONS[0], APP_RUN),
        (ACTION_RUNS[1], ACTIONS[1], APP_RUN),
    ]
    task = hierarchy(read_client, TASK_RUN)
    assert (ref(task["root"]), ref(task["parent"])) == ((DAG_RUN, DAG), (DAG_RUN, DAG))
    assert refs(task["children"]) == [(APP_RUN, APP, TASK_RUN)]
    application = hierarchy(read_client, APP_RUN)
    assert (ref(application["root"]), ref(application["parent"])) == ((DAG_RUN, DAG), (TASK_RUN, TASK))
    assert refs(application["children"]) == [
        (ACTION_RUNS[0], ACTIONS[0], APP_RUN),
        (ACTION_RUNS[1], ACTIONS[1], APP_RUN),
    ]
    assert application["descendants"] == []
    action = hierarchy(read_client, ACTION_RUNS[1])
    assert (ref(action["root"]), ref(action["parent"]), action["children"]) == ((DAG_RUN, DAG), (APP_RUN, APP), [])


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_the_application_level_folds_the_actions_into_the_spark_application_never_into_the_dag_or_task(
    graph: Any, ingest_client: APIClient, read_client: APIClient, order: tuple[str, ...]
) -> None:
    post_one_by_one(ingest_client, order)
    response = read_client.get(f"/api/v1/lineage?{urlencode({'nodeId': BY_DAY, 'depth': 6, 'direction': 'upstream'})}")
    assert response.status_code == 200, response.content
    nodes = {node["id"]: node["data"] for node in response.json()["graph"]}
    assert set(nodes) == {BY_DAY, APP, RAW, CLEAN}
    assert nodes[APP]["actions"] == sorted(ACTIONS)
    assert "application" not in nodes[APP]


def test_a_root_that_never_sent_an_event_is_linked_and_lists_the_runs_it_started(
    graph: Any, ingest_client: APIClient, read_client: APIClient
) -> None:
    post_one_by_one(ingest_client, ("action2", "application", "action1"))
    application = hierarchy(read_client, APP_RUN)
    assert (ref(application["root"]), ref(application["parent"])) == ((DAG_RUN, DAG), (TASK_RUN, TASK))
    dag = hierarchy(read_client, DAG_RUN)
    assert dag["children"] == []
    assert refs(dag["descendants"]) == [
        (TASK_RUN, TASK, None),  # the task, known only as the application's parent
        (APP_RUN, APP, TASK_RUN),
        (ACTION_RUNS[0], ACTIONS[0], APP_RUN),
        (ACTION_RUNS[1], ACTIONS[1], APP_RUN),
    ]
    response = read_client.get(f"/api/v1/jobs/runs/{DAG_RUN}")
    assert (response.json()["state"], response.json()["jobName"]) == ("NEW", "orders_nightly")
