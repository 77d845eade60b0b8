"""Impact reports fold action jobs into their application job (`level=application`, the default), in every format."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
from pypdf import PdfReader
from rest_framework.test import APIClient

from tests.explorer.application_graph import (
    APP,
    BRONZE,
    EXPORT,
    GOLD,
    PUBLISH,
    REPORT,
    SILVER,
    TABLE,
    UPLOAD,
    WRITE,
    build_application_graph,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline(graph: Any) -> None:
    build_application_graph()


def impact(client: APIClient, *node_ids: str, **params: Any) -> dict[str, Any]:
    response = client.get("/api/v1/impact", {"nodeId": list(node_ids), **params})
    assert response.status_code == 200, response.content
    return json.loads(b"".join(response.streaming_content))


def download(client: APIClient, fmt: str) -> bytes:
    response = client.get("/api/v1/impact/report", {"nodeId": BRONZE, "depth": 10, "format": fmt})
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_an_application_appears_once_with_its_actions_and_paths_name_it(pipeline: None, read_client: APIClient) -> None:
    body = impact(read_client, BRONZE, depth=10)
    assert body["level"] == "application"
    assert [(a["id"], a["distance"]) for a in body["assets"]] == [
        (APP, 1),
        (SILVER, 2),
        (GOLD, 4),
        (UPLOAD, 5),
        (PUBLISH, 5),
        (REPORT, 6),
        (EXPORT, 6),
    ]
    found = {a["id"]: a for a in body["assets"]}
    assert (found[APP]["actions"], found[APP]["application"]) == ([TABLE, WRITE], None)
    assert found[UPLOAD]["actions"] == []  # an Airflow task: never rolled up into its DAG
    assert found[PUBLISH]["actions"] == []
    assert "actions" not in found[GOLD]
    assert found[APP]["path"] == [BRONZE, APP]
    assert found[GOLD]["path"] == [BRONZE, APP, SILVER, APP, GOLD]
    assert found[EXPORT]["path"] == [BRONZE, APP, SILVER, APP, GOLD, UPLOAD, EXPORT]
    assert found[APP]["lastRunState"] == "COMPLETED"  # the application's own run
    assert body["summary"]["total"] == 7 and body["summary"]["byType"] == {"DATASET": 4, "JOB": 3}


def test_at_action_level_each_action_job_is_a_row_naming_its_application(
    pipeline: None, read_client: APIClient
) -> None:
    body = impact(read_client, BRONZE, depth=10, level="action")
    assert body["level"] == "action"
    assert [(a["id"], a["distance"]) for a in body["assets"]] == [
        (WRITE, 1),
        (SILVER, 2),
        (TABLE, 3),
        (GOLD, 4),
        (UPLOAD, 5),
        (PUBLISH, 5),
        (REPORT, 6),
        (EXPORT, 6),
    ]
    found = {a["id"]: a for a in body["assets"]}
    assert (found[WRITE]["application"], found[UPLOAD]["application"], found[PUBLISH]["application"]) == (
        APP,
        None,
        None,
    )
    assert found[GOLD]["path"] == [BRONZE, WRITE, SILVER, TABLE, GOLD]


def test_the_impact_of_an_application_starts_from_its_actions(pipeline: None, read_client: APIClient) -> None:
    body = impact(read_client, APP, depth=10)
    assert body["nodeIds"] == [APP]
    assert [(a["id"], a["distance"]) for a in body["assets"]] == [
        (GOLD, 1),
        (SILVER, 1),
        (UPLOAD, 2),
        (PUBLISH, 2),
        (REPORT, 3),
        (EXPORT, 3),
    ]
    found = {a["id"]: a for a in body["assets"]}
    assert found[GOLD]["path"] == [APP, GOLD]
    assert found[EXPORT]["path"] == [APP, GOLD, UPLOAD, EXPORT]


def test_every_export_folds_the_actions_the_same_way(pipeline: None, read_client: APIClient) -> None:
    rows = list(csv.DictReader(io.StringIO(download(read_client, "csv").decode("utf-8"))))
    assert [row["id"] for row in rows] == [APP, SILVER, GOLD, UPLOAD, PUBLISH, REPORT, EXPORT]
    found = {row["id"]: row for row in rows}
    assert found[APP]["actions"] == f"{TABLE}; {WRITE}"
    assert found[UPLOAD]["actions"] == "" and found[GOLD]["actions"] == ""
    assert found[GOLD]["path"] == " > ".join([BRONZE, APP, SILVER, APP, GOLD])
    html = download(read_client, "html").decode("utf-8")
    assert f"actions: {TABLE}, {WRITE}" in html and "application level" in html
    assert WRITE not in html.replace(f"actions: {TABLE}, {WRITE}", "")  # no row, no path names the action
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(download(read_client, "pdf"))).pages)
    assert "actions:" in text and "Summary: 7 affected assets" in text
    assert json.loads(download(read_client, "json"))["summary"]["total"] == len(rows)
