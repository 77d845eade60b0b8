"""Every query parameter is bounded: out-of-range or malformed input is a 400 naming the parameter, never a 500."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest
from django.urls import URLResolver, get_resolver
from rest_framework.test import APIClient

from lineage_app.api_support import MAX_OFFSET, MAX_TEXT
from tests.explorer.known_graph import CLEAN, build_known_graph

pytestmark = pytest.mark.django_db

PAGED = ["datasets", "jobs", "namespaces", "owners", "failures", "failures/jobs", "ownership"]
HUGE = 2432902008176639999  # the offset schemathesis found a 500 with


@pytest.fixture
def known(graph: Any) -> None:
    build_known_graph()


def refused(client: APIClient, path: str, parameter: str, query: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/{path}?{query}")
    assert response.status_code == 400, (path, query, response.content)
    body = response.json()
    assert set(body) == {"error", "message", "path"} and body["path"] == parameter, body
    return body


@pytest.mark.parametrize("path", PAGED)
def test_an_offset_past_the_bound_is_a_400_naming_offset(known: None, read_client: APIClient, path: str) -> None:
    refused(read_client, path, "offset", f"offset={HUGE}")
    refused(read_client, path, "offset", f"offset={MAX_OFFSET + 1}")
    refused(read_client, path, "offset", "offset=-1")


@pytest.mark.parametrize("path", PAGED)
def test_the_largest_offset_allowed_is_an_empty_page(known: None, read_client: APIClient, path: str) -> None:
    response = read_client.get(f"/api/v1/{path}?offset={MAX_OFFSET}&limit=500")
    assert response.status_code == 200, response.content
    assert response.json()["results"] == []


@pytest.mark.parametrize(
    ("path", "parameter", "value"),
    [
        ("datasets", "limit", "0"),
        ("datasets", "limit", "501"),
        ("datasets", "limit", "1e3"),
        ("search", "limit", "99999999999999999999999"),
        ("lineage", "depth", "21"),
        ("lineage", "depth", "-1"),
        ("column-lineage", "depth", "9" * 30),
        ("impact", "depth", "0"),
        ("root-cause", "depth", "1000"),
        ("lineage", "asOf", "yesterday"),
        ("failures", "since", "2026-13-01"),
        ("failures/jobs", "until", "not a time"),
        ("lineage", "level", "planet"),
        ("lineage", "direction", "sideways"),
        ("failures", "classification", "doom"),
        ("search", "types", "dataset,planet"),
        ("search", "types", "dataset, job"),
    ],
)
def test_an_out_of_range_or_malformed_value_is_a_400_naming_the_parameter(
    known: None, read_client: APIClient, path: str, parameter: str, value: str
) -> None:
    required = {
        "lineage": {"nodeId": CLEAN},
        "column-lineage": {"nodeId": CLEAN},
        "impact": {"nodeId": CLEAN},
        "root-cause": {"nodeId": CLEAN},
        "search": {"q": "orders"},
    }.get(path, {})
    refused(read_client, path, parameter, urlencode({**required, parameter: value}))


@pytest.mark.parametrize(
    ("path", "parameter", "value"),
    [
        ("lineage", "asOf", "9999-12-31T23:59:59-23:59"),
        ("impact", "asOf", "0001-01-01T00:00:00+01:00"),
        ("failures", "since", "0001-01-01T00:00:00+14:00"),
        ("failures/jobs", "until", "9999-12-31T23:59:59-12:00"),
    ],
)
def test_a_time_past_the_first_or_last_moment_in_utc_means_that_moment(
    known: None, read_client: APIClient, path: str, parameter: str, value: str
) -> None:
    # A valid ISO 8601 time whose UTC form falls outside years 1-9999 (schema-valid, so a reader's
    # tool may send it) is the start or the end of time, not an error.
    required = {"lineage": {"nodeId": CLEAN}, "impact": {"nodeId": CLEAN}}.get(path, {})
    response = read_client.get(f"/api/v1/{path}?{urlencode({**required, parameter: value})}")
    assert response.status_code == 200, response.content


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("lineage", "nodeId"),
        ("datasets/detail", "nodeId"),
        ("datasets", "q"),
        ("jobs", "namespace"),
        ("owners", "q"),
        ("search", "q"),
        ("failures", "job"),
        ("impact", "nodeId"),
        ("ownership", "nodeId"),
    ],
)
def test_text_longer_than_the_bound_is_a_400_naming_the_parameter(
    known: None, read_client: APIClient, path: str, parameter: str
) -> None:
    body = refused(read_client, path, parameter, urlencode({parameter: "x" * (MAX_TEXT + 1)}))
    assert str(MAX_TEXT) in body["message"]


@pytest.mark.parametrize(
    ("path", "query", "parameter"),
    [
        ("lineage", f"nodeId={CLEAN}&asOf=", "asOf"),
        ("failures", "since=", "since"),
        ("datasets", "limit=", "limit"),
        ("lineage", "nodeId=", "nodeId"),
        ("impact", f"nodeId={CLEAN}&nodeId=", "nodeId"),
        ("failures", "classification=", "classification"),
        ("datasets", "q=a%00b", "q"),
    ],
)
def test_an_empty_value_or_a_nul_is_a_400_naming_the_parameter(
    known: None, read_client: APIClient, path: str, query: str, parameter: str
) -> None:
    refused(read_client, path, parameter, query)


def test_too_many_query_parameters_is_a_json_400_naming_the_repeated_one(known: None, read_client: APIClient) -> None:
    body = refused(read_client, "impact", "nodeId", "&".join([f"nodeId={CLEAN}"] * 1500))
    assert "query parameters" in body["message"]


def api_routes() -> set[str]:
    """Every route under `/api/v1/`, written as the schema writes paths (`{run_id}`)."""
    routes: set[str] = set()

    def walk(patterns: Any, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif route.startswith("api/v1/"):
                routes.add(re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route.removeprefix("api/v1/")))

    walk(get_resolver().url_patterns, "")
    return routes


def test_every_api_route_is_in_the_served_schema_with_its_answers_documented(read_client: APIClient) -> None:
    schema = read_client.get("/api/v1/schema?format=json").json()
    documented = {path.removeprefix("/api/v1/") for path in schema["paths"]}
    assert api_routes() - {"docs"} == documented  # the Redoc page is HTML for people, not an API
    for operations in schema["paths"].values():
        for method, operation in operations.items():
            assert any(
                (code.startswith("2") and answer.get("content")) or code == "204"
                for code, answer in operation["responses"].items()
            ), (method, operation["operationId"])
    batch = schema["paths"]["/api/v1/lineage/batch"]["post"]
    assert batch["requestBody"]["required"] is True
    assert {"200", "400", "401", "403", "413", "415", "503"} <= set(batch["responses"])
    assert "bearerAuth" in schema["components"]["securitySchemes"]
