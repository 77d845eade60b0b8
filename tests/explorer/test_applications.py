"""Application (parent) jobs carry their action jobs' lineage: `level=application|action` on `/api/v1/lineage`."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.explorer.application_graph import (
    APP,
    APP_RUN,
    BRONZE,
    DAG,
    EXPORT,
    GOLD,
    PUBLISH,
    REPORT,
    SILVER,
    TABLE,
    TABLE_RUN,
    UPLOAD,
    WRITE,
    WRITE_RUN,
    build_application_graph,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline(graph: Any) -> None:
    build_application_graph()


def lineage(client: APIClient, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/v1/lineage?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def nodes(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {node["id"]: node["data"] for node in body["graph"]}


def edges(body: dict[str, Any]) -> set[tuple[str, str]]:
    found = {(e["origin"], e["destination"]) for node in body["graph"] for e in node["outEdges"]}
    assert found == {(e["origin"], e["destination"]) for node in body["graph"] for e in node["inEdges"]}
    return found


def test_an_application_job_carries_the_lineage_of_its_actions_by_default(
    pipeline: None, read_client: APIClient
) -> None:
    body = lineage(read_client, nodeId=APP, depth=2)
    assert (body["nodeId"], body["level"], body["truncated"]) == (APP, "application", False)
    found = nodes(body)
    assert set(found) == {APP, BRONZE, SILVER, GOLD, PUBLISH, UPLOAD}
    assert edges(body) == {(BRONZE, APP), (APP, SILVER), (SILVER, APP), (APP, GOLD), (GOLD, PUBLISH), (GOLD, UPLOAD)}
    assert found[APP]["actions"] == [TABLE, WRITE]
    assert found[APP]["level"] == "application"
    assert found[APP]["name"] == "daily_revenue"
    assert "application" not in found[UPLOAD]  # an Airflow task: a step of the pipeline, never rolled up
    assert [node["id"] for node in body["graph"]] == sorted(found)


def test_lineage_around_a_dataset_shows_the_application_not_its_actions(pipeline: None, read_client: APIClient) -> None:
    near = lineage(read_client, nodeId=GOLD, depth=2, direction="upstream")
    assert set(nodes(near)) == {GOLD, APP, SILVER}
    assert edges(near) == {(SILVER, APP), (APP, GOLD)}
    assert nodes(near)[APP]["actions"] == [TABLE]  # only the actions this answer reached
    far = lineage(read_client, nodeId=GOLD, depth=4, direction="upstream", level="application")
    assert set(nodes(far)) == {GOLD, APP, SILVER, BRONZE}
    assert edges(far) == {(BRONZE, APP), (APP, SILVER), (SILVER, APP), (APP, GOLD)}
    assert nodes(far)[APP]["actions"] == [TABLE, WRITE]


def test_action_level_shows_action_jobs_each_naming_its_application(pipeline: None, read_client: APIClient) -> None:
    body = lineage(read_client, nodeId=APP, depth=2, level="action")
    assert (body["nodeId"], body["level"]) == (APP, "action")
    found = nodes(body)
    # The application job has no lineage of its own: its actions stand for it.
    assert set(found) == {WRITE, TABLE, BRONZE, SILVER, GOLD, PUBLISH, UPLOAD}
    assert edges(body) == {
        (BRONZE, WRITE),
        (WRITE, SILVER),
        (SILVER, TABLE),
        (TABLE, GOLD),
        (GOLD, PUBLISH),
        (GOLD, UPLOAD),
    }
    assert found[WRITE]["application"] == APP and found[TABLE]["application"] == APP
    assert "application" not in found[UPLOAD]
    assert "application" not in found[PUBLISH] and "actions" not in found[PUBLISH]
    assert "application" not in found[GOLD]


def test_a_job_with_no_parent_and_no_children_is_unchanged(pipeline: None, read_client: APIClient) -> None:
    for level in ("application", "action"):
        body = lineage(read_client, nodeId=PUBLISH, depth=1, level=level)
        found = nodes(body)
        assert set(found) == {GOLD, PUBLISH, REPORT}
        assert edges(body) == {(GOLD, PUBLISH), (PUBLISH, REPORT)}
        assert not {"actions", "application", "level"} & set(found[PUBLISH])


def test_an_airflow_dag_is_an_orchestrator_whose_tasks_are_never_rolled_up(
    pipeline: None, read_client: APIClient
) -> None:
    # Its task is a step of the pipeline, not an internal of the DAG: drawn as itself at either level.
    for level in ("application", "action"):
        upstream = lineage(read_client, nodeId=EXPORT, depth=2, direction="upstream", level=level)
        assert set(nodes(upstream)) == {EXPORT, UPLOAD, GOLD}
        assert edges(upstream) == {(GOLD, UPLOAD), (UPLOAD, EXPORT)}
        assert "application" not in nodes(upstream)[UPLOAD]
    opened = lineage(read_client, nodeId=DAG, depth=2, direction="downstream")
    assert set(nodes(opened)) == {DAG}  # known only as the task's parent: no lineage of its own
    assert not nodes(opened)[DAG].get("actions")


def test_an_action_job_opened_at_application_level_is_drawn_as_its_application(
    pipeline: None, read_client: APIClient
) -> None:
    body = lineage(read_client, nodeId=WRITE, depth=2, direction="downstream")
    assert body["nodeId"] == WRITE
    assert set(nodes(body)) == {APP, SILVER}
    assert edges(body) == {(APP, SILVER), (SILVER, APP)}
    assert nodes(body)[APP]["actions"] == [TABLE, WRITE]


def test_depth_zero_from_an_application_is_the_application_alone(pipeline: None, read_client: APIClient) -> None:
    body = lineage(read_client, nodeId=APP, depth=0)
    assert [(node["id"], node["data"]["actions"]) for node in body["graph"]] == [(APP, [TABLE, WRITE])]
    assert edges(body) == set()


def test_the_node_budget_holds_at_application_level(pipeline: None, read_client: APIClient, settings: Any) -> None:
    settings.LINEAGE_MAX_NODES = 5
    # Action level reaches the application, its two actions, bronze and silver; gold would be a sixth.
    body = lineage(read_client, nodeId=APP, depth=10)
    assert body["truncated"] is True
    assert set(nodes(body)) == {APP, BRONZE, SILVER}
    assert edges(body) == {(BRONZE, APP), (APP, SILVER), (SILVER, APP)}
    settings.LINEAGE_MAX_NODES = 2  # fewer than the application and its actions
    body = lineage(read_client, nodeId=APP, depth=10, level="action")
    assert body["truncated"] is True
    assert set(nodes(body)) == {TABLE}
    body = lineage(read_client, nodeId=APP, depth=10)
    assert body["truncated"] is True
    assert nodes(body)[APP]["actions"] == [TABLE]
    settings.LINEAGE_MAX_NODES = 1  # no room for any action: the application is drawn alone
    body = lineage(read_client, nodeId=APP, depth=10, level="action")
    assert (body["truncated"], set(nodes(body))) == (True, {APP})


def test_an_unknown_level_is_a_400(pipeline: None, read_client: APIClient) -> None:
    response = read_client.get(f"/api/v1/lineage?{urlencode({'nodeId': APP, 'level': 'stage'})}")
    assert response.status_code == 400
    assert "level" in response.content.decode()


def test_the_schema_documents_the_level_parameter(read_client: APIClient) -> None:
    response = read_client.get("/api/v1/schema?format=json")
    assert response.status_code == 200
    schema = response.json()
    parameters = {p["name"]: p for p in schema["paths"]["/api/v1/lineage"]["get"]["parameters"]}
    assert parameters["level"]["schema"]["enum"] == ["application", "action"]
    assert parameters["level"]["schema"]["default"] == "application"
    data = schema["components"]["schemas"]["LineageGraphNodeData"]["properties"]
    assert {"actions", "application", "level"} <= set(data)


# ---- job detail and search ----


def get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def test_an_application_jobs_detail_rolls_up_its_actions_inputs_and_outputs(
    pipeline: None, read_client: APIClient
) -> None:
    detail = get(read_client, "jobs/detail", nodeId=APP)
    assert detail["actions"] == [TABLE, WRITE]
    assert detail["inputs"] == [BRONZE, SILVER]
    assert detail["outputs"] == [GOLD, SILVER]
    assert detail["application"] is None
    assert detail["latestRun"]["runId"] == "00000000-0000-4000-8000-0000000000a1"
    action = get(read_client, "jobs/detail", nodeId=WRITE)
    assert (action["actions"], action["application"]) == ([], APP)
    assert (action["inputs"], action["outputs"]) == ([BRONZE], [SILVER])
    dag = get(read_client, "jobs/detail", nodeId=DAG)
    assert (dag["actions"], dag["inputs"], dag["outputs"]) == ([], [], [])  # an orchestrator: its task is no action
    plain = get(read_client, "jobs/detail", nodeId=PUBLISH)
    assert (plain["actions"], plain["application"], plain["inputs"]) == ([], None, [GOLD])


def test_search_finds_the_application_first_and_says_it_is_one(pipeline: None, read_client: APIClient) -> None:
    hits = get(read_client, "search", q="daily_revenue")["results"]
    assert [hit["id"] for hit in hits] == [APP, TABLE, WRITE, GOLD]  # exact, then prefix, then substring
    by_id = {hit["id"]: hit for hit in hits}
    assert (by_id[APP]["actionCount"], by_id[APP]["application"]) == (2, None)
    assert (by_id[WRITE]["actionCount"], by_id[WRITE]["application"]) == (0, APP)
    assert "actionCount" not in by_id[GOLD]
    jobs = get(read_client, "search", q="nightly", types="job")["results"]
    assert [(hit["id"], hit["actionCount"], hit["application"]) for hit in jobs] == [(DAG, 0, None), (UPLOAD, 0, None)]


def test_an_application_run_lists_what_its_actions_read_and_wrote(pipeline: None, read_client: APIClient) -> None:
    response = read_client.get(f"/api/v1/jobs/runs/{APP_RUN}")
    assert response.status_code == 200, response.content
    run = response.json()
    # The application run read and wrote nothing itself: its actions did, and its page says so.
    assert (run["inputs"], run["outputs"]) == ([], [])
    assert run["children"] == sorted([TABLE_RUN, WRITE_RUN])
    assert (run["stepInputs"], run["stepOutputs"]) == ([BRONZE, SILVER], [GOLD, SILVER])
    action = read_client.get(f"/api/v1/jobs/runs/{WRITE_RUN}").json()
    assert (action["inputs"], action["outputs"], action["stepInputs"], action["stepOutputs"]) == (
        [BRONZE],
        [SILVER],
        [],
        [],
    )
