"""Who may read, what bad parameters get back, and the OpenAPI schema that documents every read endpoint."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.explorer.known_graph import CLEAN, LOAD, RUN_A, build_known_graph

pytestmark = pytest.mark.django_db

READ_PATHS = [
    f"lineage?nodeId={CLEAN}",
    "column-lineage?nodeId=datasetField:db:clean.orders:id",
    "namespaces",
    "datasets",
    f"datasets/detail?nodeId={CLEAN}",
    f"datasets/versions/diff?nodeId={CLEAN}",
    "jobs",
    f"jobs/detail?nodeId={LOAD}",
    f"jobs/runs?nodeId={LOAD}",
    f"jobs/runs/{RUN_A}",
    "failures",
    "failures/jobs",
    "search?q=orders",
]


@pytest.fixture
def known(graph: Any) -> None:
    build_known_graph()


@pytest.mark.parametrize("path", READ_PATHS)
def test_an_anonymous_caller_is_refused(db: None, path: str) -> None:
    response = APIClient().get(f"/api/v1/{path}")
    assert response.status_code in (401, 403)
    assert "error" in response.json()


@pytest.mark.parametrize("path", READ_PATHS)
def test_an_ingest_token_may_not_read(ingest_client: APIClient, path: str) -> None:
    assert ingest_client.get(f"/api/v1/{path}").status_code == 403


@pytest.mark.parametrize("path", READ_PATHS)
def test_a_read_token_and_a_logged_in_user_may_read(known: None, read_client: APIClient, path: str) -> None:
    assert read_client.get(f"/api/v1/{path}").status_code == 200
    session = APIClient()
    session.force_login(get_user_model().objects.create_user(username="ana", password="x" * 12))
    assert session.get(f"/api/v1/{path}").status_code == 200


@pytest.mark.parametrize(
    ("path", "params", "status", "where"),
    [
        ("lineage", {"nodeId": "dataset:db:nope"}, 404, "nodeId"),
        ("lineage", {"nodeId": "table:db:x"}, 404, "nodeId"),
        ("lineage", {"nodeId": CLEAN, "depth": 21}, 400, "depth"),
        ("lineage", {"nodeId": CLEAN, "depth": -1}, 400, "depth"),
        ("lineage", {"nodeId": CLEAN, "asOf": "last tuesday"}, 400, "asOf"),
        ("lineage", {"nodeId": CLEAN, "direction": "sideways"}, 400, "direction"),
        ("lineage", {}, 400, "nodeId"),
        ("column-lineage", {"nodeId": "datasetField:db:clean.orders:nope"}, 404, "nodeId"),
        ("column-lineage", {"nodeId": CLEAN}, 404, "nodeId"),
        ("column-lineage", {"nodeId": "datasetField:db:clean.orders:id", "depth": 99}, 400, "depth"),
        ("datasets", {"limit": 501}, 400, "limit"),
        ("datasets", {"offset": -1}, 400, "offset"),
        ("datasets/detail", {"nodeId": LOAD}, 404, "nodeId"),
        ("jobs/detail", {"nodeId": "job:spark:nope"}, 404, "nodeId"),
        ("jobs/runs", {"nodeId": CLEAN}, 404, "nodeId"),
        ("failures", {"job": "job:spark:nope"}, 404, "job"),
        ("failures", {"since": "yesterday"}, 400, "since"),
        ("search", {}, 400, "q"),
        ("search", {"q": "x", "types": "dataset,table"}, 400, "types"),
    ],
)
def test_bad_parameters_get_a_clear_error_naming_the_parameter(
    known: None, read_client: APIClient, path: str, params: dict[str, Any], status: int, where: str
) -> None:
    response = read_client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == status, response.content
    body = response.json()
    assert body["error"] == ("not_found" if status == 404 else "invalid")
    assert body["path"] == where
    assert body["message"]


def test_an_unknown_run_is_a_404(graph: Any, read_client: APIClient) -> None:
    assert read_client.get("/api/v1/jobs/runs/00000000-0000-4000-8000-000000000999").status_code == 404


def test_the_openapi_schema_generates_and_documents_every_read_endpoint(read_client: APIClient) -> None:
    response = read_client.get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    for path in [
        "lineage",
        "column-lineage",
        "namespaces",
        "datasets",
        "datasets/detail",
        "datasets/versions/diff",
        "jobs",
        "jobs/detail",
        "jobs/runs",
        "jobs/runs/{run_id}",
        "failures",
        "failures/jobs",
        "search",
    ]:
        assert "get" in paths[f"/api/v1/{path}"], path
    assert "post" in paths["/api/v1/lineage"]  # GET and POST share the URL
    lineage_parameters = {p["name"] for p in paths["/api/v1/lineage"]["get"]["parameters"]}
    assert lineage_parameters == {
        "nodeId",
        "depth",
        "direction",
        "at",
        "asOf",
        "includeStale",
        "includeInferred",
        "includeTemporary",
        "level",
    }
    assert "truncated" in schema["components"]["schemas"]["LineageGraph"]["properties"]
