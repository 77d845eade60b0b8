"""Every GET endpoint answers what the served OpenAPI schema documents: on a known graph, each answer
validates against its documented response, with no key the schema does not declare at any depth and
every required one present; and no key a selector answers is silently left out by its serializer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from jsonschema import Draft202012Validator
from rest_framework import serializers
from rest_framework.test import APIClient

from lineage_app.accounts.services import token_create
from lineage_app.alerts.models import Incident
from lineage_app.alerts.services import route_create, subscription_create
from lineage_app.api_support import ResponseIncomplete, ResponseSerializer, page_of
from lineage_app.ingest.models import LineageEvent
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_app.notify.models import Delivery, Destination
from lineage_app.ownership import services as ownership
from tests.apply import accept_and_apply
from tests.events import dataset, facet, new_run_id, run_event
from tests.explorer.application_graph import APP, APP_RUN, DAG_RUN, WRITE, build_application_graph
from tests.explorer.known_graph import (
    AGGREGATE,
    AMOUNT_EUR,
    CLEAN,
    EARLY,
    LATE,
    LOAD,
    MART,
    RAW,
    RUN_A,
    RUN_D,
    build_known_graph,
)

pytestmark = pytest.mark.django_db

ELSEWHERE = "dataset:warehouse:clean.orders"  # same name as CLEAN, another namespace, no lineage between
FIELD = AMOUNT_EUR

# (documented path, actual path, query): what each GET endpoint is asked on the known graph, chosen so
# that optional and nullable fields show up both ways (datasets and jobs, application and action level,
# failed and completed runs, a run known only as a parent, connected and unconnected datasets).
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("/api/v1/lineage", "/api/v1/lineage", {"nodeId": CLEAN}),
    ("/api/v1/lineage", "/api/v1/lineage", {"nodeId": APP, "depth": 4}),
    ("/api/v1/lineage", "/api/v1/lineage", {"nodeId": APP, "depth": 4, "level": "action"}),
    ("/api/v1/column-lineage", "/api/v1/column-lineage", {"nodeId": FIELD, "depth": 4}),
    # A cluster's members a page at a time: a first page with a cursor to the next, and a last one without.
    (
        "/api/v1/lineage/neighbours",
        "/api/v1/lineage/neighbours",
        {"nodeId": RAW, "direction": "downstream", "limit": 1},
    ),
    ("/api/v1/lineage/neighbours", "/api/v1/lineage/neighbours", {"nodeId": CLEAN, "direction": "upstream"}),
    ("/api/v1/lineage/diff", "/api/v1/lineage/diff", {"nodeId": CLEAN, "from": EARLY, "to": LATE}),
    ("/api/v1/lineage/diff", "/api/v1/lineage/diff", {"nodeId": APP, "depth": 4, "from": EARLY, "to": LATE}),
    ("/api/v1/column-lineage/diff", "/api/v1/column-lineage/diff", {"nodeId": FIELD, "from": EARLY, "to": LATE}),
    ("/api/v1/namespaces", "/api/v1/namespaces", {}),
    ("/api/v1/datasets", "/api/v1/datasets", {}),
    ("/api/v1/datasets/detail", "/api/v1/datasets/detail", {"nodeId": CLEAN}),
    ("/api/v1/datasets/detail", "/api/v1/datasets/detail", {"nodeId": RAW}),
    ("/api/v1/datasets/near-miss", "/api/v1/datasets/near-miss", {"a": RAW, "b": MART}),
    ("/api/v1/datasets/near-miss", "/api/v1/datasets/near-miss", {"a": CLEAN, "b": ELSEWHERE}),
    ("/api/v1/datasets/versions/diff", "/api/v1/datasets/versions/diff", {"nodeId": CLEAN}),
    ("/api/v1/datasets/quality", "/api/v1/datasets/quality", {"nodeId": ELSEWHERE}),
    ("/api/v1/datasets/quality", "/api/v1/datasets/quality", {"nodeId": CLEAN}),
    ("/api/v1/jobs", "/api/v1/jobs", {}),
    ("/api/v1/jobs/detail", "/api/v1/jobs/detail", {"nodeId": AGGREGATE}),
    ("/api/v1/jobs/detail", "/api/v1/jobs/detail", {"nodeId": APP}),
    ("/api/v1/jobs/detail", "/api/v1/jobs/detail", {"nodeId": WRITE}),
    ("/api/v1/jobs/runs", "/api/v1/jobs/runs", {"nodeId": LOAD}),
    ("/api/v1/jobs/runs", "/api/v1/jobs/runs", {"nodeId": AGGREGATE}),
    ("/api/v1/jobs/runs/{run_id}", f"/api/v1/jobs/runs/{RUN_A}", {}),
    ("/api/v1/jobs/runs/{run_id}", f"/api/v1/jobs/runs/{RUN_D}", {}),
    ("/api/v1/jobs/runs/{run_id}", f"/api/v1/jobs/runs/{APP_RUN}", {}),
    ("/api/v1/jobs/runs/{run_id}", f"/api/v1/jobs/runs/{DAG_RUN}", {}),
    ("/api/v1/jobs/runs/{run_id}/lineage", f"/api/v1/jobs/runs/{RUN_A}/lineage", {}),
    ("/api/v1/jobs/runs/{run_id}/lineage", f"/api/v1/jobs/runs/{RUN_D}/lineage", {}),
    ("/api/v1/jobs/runs/{run_id}/lineage", f"/api/v1/jobs/runs/{APP_RUN}/lineage", {}),
    ("/api/v1/failures", "/api/v1/failures", {}),
    ("/api/v1/failures/jobs", "/api/v1/failures/jobs", {}),
    ("/api/v1/search", "/api/v1/search", {"q": "orders"}),
    ("/api/v1/search", "/api/v1/search", {"q": "daily_revenue"}),
    ("/api/v1/owners", "/api/v1/owners", {}),
    ("/api/v1/ownership", "/api/v1/ownership", {}),
    ("/api/v1/ownership", "/api/v1/ownership", {"nodeId": CLEAN}),
    ("/api/v1/ownership", "/api/v1/ownership", {"nodeId": MART}),
    ("/api/v1/me", "/api/v1/me", {}),
    ("/api/v1/facet-warnings", "/api/v1/facet-warnings", {}),
    ("/api/v1/impact", "/api/v1/impact", {"nodeId": RAW}),
    ("/api/v1/impact", "/api/v1/impact", {"nodeId": [FIELD, APP], "level": "action"}),
    ("/api/v1/root-cause", "/api/v1/root-cause", {"nodeId": MART}),
    ("/api/v1/incidents", "/api/v1/incidents", {}),
    ("/api/v1/incidents/{incident_id}", "/api/v1/incidents/{incident_id}", {}),  # the known graph's failure's
    ("/api/v1/alerts/rules", "/api/v1/alerts/rules", {}),
    ("/api/v1/alerts/routes", "/api/v1/alerts/routes", {}),
    ("/api/v1/alerts/deadlines", "/api/v1/alerts/deadlines", {}),
    ("/api/v1/alerts/subscriptions", "/api/v1/alerts/subscriptions", {}),  # a user's own: asked as one
    ("/api/v1/ledger/streams", "/api/v1/ledger/streams", {}),
    # The transparency log, checkpointed once `known` is built; `{event_id}` is its newest event.
    ("/api/v1/ledger/checkpoint", "/api/v1/ledger/checkpoint", {}),
    ("/api/v1/ledger/proof", "/api/v1/ledger/proof", {"event": "{event_id}"}),
    ("/api/v1/ledger/consistency", "/api/v1/ledger/consistency", {"from": 1}),
    ("/api/v1/ledger/checkpoints", "/api/v1/ledger/checkpoints", {}),
]
# A download in the format asked for (`json`, `csv`, `html`, `pdf`): documented as a binary file.
NOT_JSON = {"/api/v1/impact/report"}


@pytest.fixture
def known(graph: Any, settings: Any, tmp_path: Path) -> None:
    """The known graph and the application graph, an unconnected namesake of `CLEAN`, a hand-set owner,
    and an event with a facet left out (so that every list has something in it)."""
    build_known_graph()
    build_application_graph()
    audited = dataset("warehouse", "clean.orders")
    audited["facets"]["dataQualityAssertions"] = facet(
        assertions=[
            {"assertion": "not_null", "success": True, "column": "id"},
            {"assertion": "accepted_values", "success": False, "column": "status", "actual": "1", "expected": "0"},
        ]
    )
    audited["inputFacets"] = {
        "dataQualityMetrics": facet(rowCount=40, columnMetrics={"status": {"nullCount": 0, "distinctCount": 4}})
    }
    accept_and_apply(
        run_event(
            "COMPLETE",
            run_id=new_run_id(),
            job="audit",
            namespace="warehouse",
            inputs=[audited],
            run_facets={"custom": "not an object"},
        )
    )
    ownership.assignment_create(
        owner="team:finance", target_type="dataset", namespace="db", name="mart.revenue", role="owner"
    )
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "ledger.key"
    checkpoint_sign()


@pytest.fixture
def left_out(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What output serializers leave out of the answers they shape. Watching, not faking: the
    serializer still runs. A selector key no serializer declares never reaches a client, so without
    this a new selector field would vanish unnoticed."""
    found: list[str] = []
    shape = ResponseSerializer.to_representation

    def watched(self: ResponseSerializer, instance: Any) -> Any:
        if undeclared := set(instance) - {name for name, _, _ in self._plan}:
            found.append(f"{type(self).__name__}: {sorted(undeclared)}")
        return shape(self, instance)

    monkeypatch.setattr(ResponseSerializer, "to_representation", watched)
    return found


@pytest.fixture
def schema(read_client: APIClient) -> dict[str, Any]:
    response = read_client.get("/api/v1/schema?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def strict(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema that refuses undeclared keys: `nullable` becomes a union
    with null, and every object that lists its properties allows no others."""
    if isinstance(node, list):
        return [strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: strict(value) for key, value in node.items()}
    if node.get("type") == "object" and "properties" in node:
        node.setdefault("additionalProperties", False)
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def answer_of(client: APIClient, path: str, query: dict[str, Any]) -> Any:
    response = client.get(f"{path}?{urlencode(query, doseq=True)}" if query else path)
    assert response.status_code == 200, (path, query, response.content[:500])
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return json.loads(body)


def problems_of(schema: dict[str, Any], documented: str, answer: Any) -> list[str]:
    """Where `answer` departs from the documented 200 response of `GET documented`."""
    operation = schema["paths"][documented]["get"]
    response = operation["responses"]["200"]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({"components": strict(schema["components"]), **strict(response)})
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '$'}: {error.message[:300]}"
        for error in validator.iter_errors(answer)
    ]


def test_every_get_endpoint_answers_what_the_schema_documents(
    known: None, read_client: APIClient, schema: dict[str, Any], left_out: list[str]
) -> None:
    failed = []
    incident = Incident.objects.order_by("id").first()
    assert incident is not None, "the known graph's failed run opens an incident"
    route_create(
        owner="team:finance", destination=Destination.objects.create(name="d", kind="webhook", url="http://h/").pk
    )
    user = User.objects.create_user("subscriber")
    subscription_create(user=user, subscriber=None, target_type="namespace", namespace="db", name="")
    as_user = APIClient()
    as_user.force_authenticate(user)
    newest_event = str(LineageEvent.objects.order_by("-id").values_list("id", flat=True)[0])
    for documented, path, query in CALLS:
        client = as_user if path == "/api/v1/alerts/subscriptions" else read_client
        query = {key: newest_event if value == "{event_id}" else value for key, value in query.items()}
        answer = answer_of(client, path.replace("{incident_id}", str(incident.pk)), query)
        for problem in problems_of(schema, documented, answer):
            failed.append(f"GET {path} {query}: {problem}")
    assert not failed, "\n".join(failed)
    assert not left_out, "selector keys no serializer declares:\n" + "\n".join(sorted(set(left_out)))


def test_every_documented_json_get_endpoint_is_called_above(schema: dict[str, Any]) -> None:
    documented = {path for path, operations in schema["paths"].items() if "get" in operations}
    documented -= {"/api/v1/schema", "/api/v1/docs"} | NOT_JSON
    assert documented == {call[0] for call in CALLS + ADMIN_CALLS}


# The admins' GET endpoints (notification destinations and deliveries), asked with an `admin` token.
ADMIN_CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("/api/v1/alerts/destinations", "/api/v1/alerts/destinations", {}),
    ("/api/v1/alerts/destinations/{destination_id}", "/api/v1/alerts/destinations/{hook}", {}),
    ("/api/v1/alerts/destinations/{destination_id}", "/api/v1/alerts/destinations/{slack}", {}),
    ("/api/v1/alerts/deliveries", "/api/v1/alerts/deliveries", {}),
    ("/api/v1/alerts/deliveries", "/api/v1/alerts/deliveries", {"state": "dead"}),
]


def test_every_admin_get_endpoint_answers_what_the_schema_documents(
    read_client: APIClient, schema: dict[str, Any], left_out: list[str]
) -> None:
    hook = Destination.objects.create(name="hook", kind="webhook", url="http://h/", secret="s")
    slack = Destination.objects.create(name="slack", kind="slack", url="https://hooks.slack.com/services/T/B/K")
    Destination.objects.create(name="mail", kind="email", email="oncall@example.com")
    for n, (state, sent_at) in enumerate([("pending", None), ("sent", "2026-01-05T08:00:00Z"), ("dead", None)]):
        Delivery.objects.create(
            destination=hook,
            idempotency_key=f"incident:{n}",
            message={"title": "t", "summary": "s"},
            state=state,
            attempts=n,
            last_error="HTTP 503" if state == "dead" else "",
            next_attempt_at="2026-01-05T08:00:00Z",
            sent_at=sent_at,
        )
    admin = APIClient()
    admin.credentials(HTTP_AUTHORIZATION=f"Bearer {token_create(name='admin', scope='admin')[1]}")
    failed = []
    for documented, path, query in ADMIN_CALLS:
        path = path.replace("{hook}", str(hook.pk)).replace("{slack}", str(slack.pk))
        for problem in problems_of(schema, documented, answer_of(admin, path, query)):
            failed.append(f"GET {path} {query}: {problem}")
    assert not failed, "\n".join(failed)
    assert not left_out, "selector keys no serializer declares:\n" + "\n".join(sorted(set(left_out)))


def test_the_strict_schema_refuses_an_undeclared_key_and_a_missing_one(
    known: None, read_client: APIClient, schema: dict[str, Any]
) -> None:
    """The checks above can fail: a key too many, deep inside, or one too few, is reported."""
    answer = answer_of(read_client, "/api/v1/lineage", {"nodeId": CLEAN})
    answer["graph"][0]["data"]["undeclared"] = 1
    del answer["truncated"]
    problems = problems_of(schema, "/api/v1/lineage", answer)
    assert any(p.startswith("graph/0/data:") and "undeclared" in p for p in problems), problems
    assert any(p.startswith("$:") and "truncated" in p for p in problems), problems


class _Item(ResponseSerializer):
    name = serializers.CharField()
    note = serializers.CharField(allow_null=True, required=False)


_Page = page_of("ContractTestPage", _Item())


def test_an_output_serializer_leaves_out_undeclared_keys_and_absent_optional_ones() -> None:
    answer = {"count": 2, "secret": "x", "results": [{"name": "a", "internal": 1}, {"name": "b", "note": None}]}
    assert _Page(answer).data == {"count": 2, "results": [{"name": "a"}, {"name": "b", "note": None}]}


def test_an_output_serializer_refuses_an_answer_without_a_required_field() -> None:
    with pytest.raises(ResponseIncomplete, match=r"\['name'\]"):
        _ = _Page({"count": 1, "results": [{"note": "no name"}]}).data
