"""The single-event ingestion endpoint's contract: what it accepts, what it refuses, and what it stores."""

from __future__ import annotations

import copy
import gzip
import json
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from lineage_app.accounts.services import token_create
from lineage_app.ingest.models import LineageEvent
from tests.events import PRODUCER, T0, dataset, facet, new_run_id, run_event

pytestmark = pytest.mark.django_db

URL = "/api/v1/lineage"
DATASET_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent"
JOB_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent"


def post(client: APIClient, body: Any, *, content_type: str = "application/json", **extra: Any) -> Any:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(URL, data=data, content_type=content_type, **extra)


def assert_error(response: Any, status: int, *, error: str | None = None, path: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert isinstance(body["error"], str) and body["error"]
    assert isinstance(body["message"], str) and body["message"]
    if error is not None:
        assert body["error"] == error, body
    if path is not None:
        assert body["path"] == path, body
    return body


def full_run_event(event_type: str = "START") -> dict[str, Any]:
    """A RunEvent carrying a standard facet of every section: run, job, dataset, input and output."""
    source = dataset("postgres://db:5432", "public.orders", fields=[("id", "bigint"), ("amount", "double")])
    source["facets"]["dataSource"] = facet(name="postgres://db:5432", uri="postgres://db:5432/shop")
    source["facets"]["symlinks"] = facet(identifiers=[{"namespace": "hive", "name": "shop.orders", "type": "TABLE"}])
    source["inputFacets"] = {
        "dataQualityMetrics": facet(rowCount=10, bytes=2048, columnMetrics={"id": {"nullCount": 0}}),
        "inputStatistics": facet(rowCount=10, size=2048, fileCount=1),
    }
    target = dataset(
        "s3://lake",
        "clean/orders",
        fields=[("id", "bigint")],
        column_lineage={"id": [("postgres://db:5432", "public.orders", "id")]},
        owners=["team:data"],
    )
    target["facets"]["documentation"] = facet(description="orders without test rows")
    target["facets"]["lifecycleStateChange"] = facet(lifecycleStateChange="OVERWRITE")
    target["outputFacets"] = {"outputStatistics": facet(rowCount=9, size=1900, fileCount=1)}
    event = run_event(
        event_type,
        run_id=new_run_id(),
        inputs=[source],
        outputs=[target],
        run_facets={
            "nominalTime": facet(nominalStartTime="2026-01-05T08:00:00Z"),
            "parent": facet(run={"runId": new_run_id()}, job={"namespace": "airflow", "name": "dag.task"}),
            "processing_engine": facet(version="3.5.1", name="spark", openlineageAdapterVersion="1.54.0"),
        },
    )
    event["job"]["facets"] = {
        "sql": facet(query="INSERT INTO clean.orders SELECT id FROM public.orders"),
        "jobType": facet(processingType="BATCH", integration="SPARK", jobType="JOB"),
        "documentation": facet(description="cleans orders"),
        "sourceCodeLocation": facet(type="git", url="https://example.com/repo.git"),
    }
    if event_type == "FAIL":
        event["run"]["facets"]["errorMessage"] = facet(message="boom", programmingLanguage="python")
    return event


def dataset_event() -> dict[str, Any]:
    return {
        "eventTime": "2026-01-05T08:00:00.123456+02:00",
        "producer": PRODUCER,
        "schemaURL": DATASET_SCHEMA_URL,
        "dataset": dataset("s3://lake", "ref/countries", fields=[("code", "string")], owners=["team:ref"]),
    }


def job_event() -> dict[str, Any]:
    job_facets = {"sql": facet(query="SELECT 1"), "jobType": facet(processingType="STREAMING", integration="FLINK")}
    return {
        "eventTime": "2026-01-05T08:00:00Z",
        "producer": PRODUCER,
        "schemaURL": JOB_SCHEMA_URL,
        "job": {"namespace": "flink", "name": "orders.stream", "facets": job_facets},
        "inputs": [dataset("kafka://broker:9092", "orders", fields=[("id", "bigint")])],
        "outputs": [dataset("s3://lake", "raw/orders")],
    }


# --- accepted ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("event_type", ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"])
def test_a_run_event_of_every_event_type_with_standard_facets_is_accepted_and_stored(
    ingest_client: APIClient, event_type: str
) -> None:
    event = full_run_event(event_type)
    response = post(ingest_client, event)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body == {"id": body["id"], "status": "accepted", "leafIndex": body["leafIndex"], "warnings": []}
    assert isinstance(body["leafIndex"], int)
    row = LineageEvent.objects.get(id=body["id"])
    assert row.kind == "run"
    assert row.event_type == event_type
    assert row.run_id == event["run"]["runId"]
    assert (row.job_namespace, row.job_name) == ("spark", "etl.daily")
    assert row.payload == event
    assert row.status == LineageEvent.Status.PENDING


def test_a_dataset_event_is_accepted_and_stored_with_its_time_in_utc(ingest_client: APIClient) -> None:
    response = post(ingest_client, dataset_event())
    assert response.status_code == 201, response.content
    row = LineageEvent.objects.get(id=response.json()["id"])
    assert (row.kind, row.event_type, row.run_id) == ("dataset", "", "")
    assert row.event_time.isoformat() == "2026-01-05T06:00:00.123456+00:00"


def test_a_job_event_is_accepted_and_stored(ingest_client: APIClient) -> None:
    response = post(ingest_client, job_event())
    assert response.status_code == 201, response.content
    row = LineageEvent.objects.get(id=response.json()["id"])
    assert (row.kind, row.job_namespace, row.job_name, row.run_id) == ("job", "flink", "orders.stream", "")


def test_the_raw_bytes_are_stored_exactly_as_received(ingest_client: APIClient) -> None:
    raw = json.dumps(full_run_event(), indent=3, ensure_ascii=False).replace('"etl.daily"', '"etl.täglich"').encode()
    response = post(ingest_client, raw, content_type="application/json; charset=utf-8")
    assert response.status_code == 201, response.content
    assert bytes(LineageEvent.objects.get(id=response.json()["id"]).raw) == raw


def test_an_uppercase_run_id_is_stored_in_lowercase(ingest_client: APIClient) -> None:
    run_id = new_run_id()
    response = post(ingest_client, run_event("START", run_id=run_id.upper()))
    assert response.status_code == 201, response.content
    assert LineageEvent.objects.get().run_id == run_id


def test_the_same_event_posted_again_is_a_duplicate_answered_200_with_the_first_id(ingest_client: APIClient) -> None:
    event = full_run_event()
    first = post(ingest_client, event)
    second = post(ingest_client, event)
    assert first.status_code == 201
    assert second.status_code == 200, second.content
    assert second.json() == {
        "id": first.json()["id"],
        "status": "duplicate",
        "leafIndex": first.json()["leafIndex"],
        "warnings": [],
    }
    assert LineageEvent.objects.count() == 1


def test_the_same_event_reserialised_with_other_key_order_and_whitespace_is_a_duplicate(
    ingest_client: APIClient,
) -> None:
    event = full_run_event()
    first = post(ingest_client, json.dumps(event, separators=(",", ":")).encode())
    reordered = json.dumps(event, sort_keys=True, indent=4).encode()
    assert reordered != json.dumps(event).encode()
    second = post(ingest_client, b"\n  " + reordered + b"\n")
    assert second.status_code == 200, second.content
    assert second.json() == {
        "id": first.json()["id"],
        "status": "duplicate",
        "leafIndex": first.json()["leafIndex"],
        "warnings": [],
    }
    assert LineageEvent.objects.count() == 1


def test_an_event_that_differs_in_one_facet_value_is_not_a_duplicate(ingest_client: APIClient) -> None:
    event = full_run_event()
    changed = copy.deepcopy(event)
    changed["job"]["facets"]["sql"]["query"] += " WHERE id > 0"
    assert post(ingest_client, event).status_code == 201
    assert post(ingest_client, changed).status_code == 201
    assert LineageEvent.objects.count() == 2


def test_a_gzip_body_as_the_openlineage_http_transport_sends_it_is_accepted(ingest_client: APIClient) -> None:
    event = full_run_event()
    response = post(ingest_client, gzip.compress(json.dumps(event).encode()), HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 201, response.content
    row = LineageEvent.objects.get()
    assert row.payload == event
    assert bytes(row.raw) == json.dumps(event).encode()


# --- refused: body problems ----------------------------------------------------------------------------


def with_change(change: Any) -> dict[str, Any]:
    event = full_run_event()
    change(event)
    return event


def deep_nesting(levels: int) -> bytes:
    event = run_event("START", run_id=new_run_id())
    event["run"]["facets"] = {"custom": facet(value="X")}
    text = json.dumps(event)
    return text.replace('"X"', "[" * levels + "]" * levels).encode()


def escape_in_job_name(escape: str) -> bytes:
    """An event whose job name holds the JSON escape `escape` (`etl<escape>daily`)."""
    return json.dumps(run_event("START", run_id=new_run_id())).replace("etl.daily", f"etl{escape}daily").encode()


def escape_in_member_name(escape: str) -> bytes:
    """An event with a custom run facet member named `val<escape>ue`."""
    event = with_change(lambda e: e["run"]["facets"].update(custom=facet(value=1)))
    return json.dumps(event).replace('"value"', f'"val{escape}ue"').encode()


def rows_unchanged(before: int) -> None:
    assert LineageEvent.objects.count() == before


INVALID_BODIES: list[tuple[str, bytes, str]] = [
    ("malformed JSON", b'{"eventType": "START", ', "$"),
    ("empty body", b"", "$"),
    ("trailing garbage", json.dumps(run_event("START", run_id=new_run_id())).encode() + b" x", "$"),
    ("invalid UTF-8", json.dumps(run_event("START", run_id=new_run_id())).encode().replace(b"etl", b"\xff\xfe"), "$"),
    (
        "NaN",
        json.dumps(
            with_change(lambda e: e["outputs"][0]["outputFacets"]["outputStatistics"].update(rowCount=float("nan"))),
            allow_nan=True,
        ).encode(),
        "$",
    ),
    (
        "Infinity",
        json.dumps(
            with_change(lambda e: e["run"]["facets"].update(custom=facet(value=float("inf")))), allow_nan=True
        ).encode(),
        "$",
    ),
    ("nesting beyond the depth limit", deep_nesting(80), "$"),
    ("a JSON array", json.dumps([run_event("START", run_id=new_run_id())]).encode(), "$"),
    ("a JSON string", b'"START"', "$"),
    ("a JSON number", b"42", "$"),
    ("JSON null", b"null", "$"),
    ("an object that is no OpenLineage event", b'{"hello": "world"}', "$"),
    ("a lone surrogate", escape_in_job_name("\\ud800"), "job.name"),
    ("a lone surrogate in a member name", escape_in_member_name("\\udc00"), "run.facets.custom.val\\udc00ue"),
    ("a NUL character", escape_in_job_name("\\u0000"), "job.name"),
    ("a NUL character in a member name", escape_in_member_name("\\u0000"), "run.facets.custom.val\\u0000ue"),
    (
        "an integer beyond the JSON-safe range",
        json.dumps(with_change(lambda e: e["run"]["facets"].update(custom=facet(value=2**64)))).encode(),
        "run.facets.custom.value",
    ),
    (
        "an integer with thousands of digits",
        json.dumps(run_event("START", run_id=new_run_id()))
        .replace('"run": {', '"run": {"n": 1' + "0" * 5000 + ", ")
        .encode(),
        "$",
    ),
]


def test_text_that_merely_spells_a_nul_escape_is_accepted(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id())
    event["job"]["name"] = "etl\\u0000daily"  # a backslash, then "u0000": six ordinary characters
    assert post(ingest_client, event).status_code == 201


@pytest.mark.parametrize(
    ("body", "path"), [(b, p) for _, b, p in INVALID_BODIES], ids=[n for n, _, _ in INVALID_BODIES]
)
def test_a_body_that_is_not_one_json_event_is_rejected_with_400_and_nothing_is_stored(
    ingest_client: APIClient, body: bytes, path: str
) -> None:
    before = LineageEvent.objects.count()
    assert_error(post(ingest_client, body), 400, error="invalid_event", path=path)
    rows_unchanged(before)


def test_nesting_within_the_depth_limit_is_accepted(ingest_client: APIClient) -> None:
    assert post(ingest_client, deep_nesting(40)).status_code == 201


def test_brackets_inside_strings_do_not_count_towards_the_depth_limit(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id())
    event["run"]["facets"] = {"custom": facet(value="[{" * 100)}
    assert post(ingest_client, event).status_code == 201


def drop(key: str, *parents: str) -> Any:
    def change(event: dict[str, Any]) -> None:
        target = event
        for parent in parents:
            target = target[parent]
        del target[key]

    return change


def put(value: Any, *path: str | int) -> Any:
    def change(event: dict[str, Any]) -> None:
        target: Any = event
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


SCHEMA_VIOLATIONS: list[tuple[str, Any, str, str]] = [
    ("eventTime as a number", put(1767600000, "eventTime"), "eventTime", "not of type 'string'"),
    ("eventTime without timezone", put("2026-01-05T08:00:00", "eventTime"), "eventTime", "timezone"),
    ("eventTime that is a date only", put("2026-01-05", "eventTime"), "eventTime", "ISO 8601"),
    ("eventTime that is no time", put("yesterday at noon", "eventTime"), "eventTime", "date-time"),
    ("eventTime out of range once in UTC", put("0001-01-01T00:00:00+14:00", "eventTime"), "eventTime", "range"),
    ("missing eventTime", drop("eventTime"), "eventTime", "required"),
    ("missing producer", drop("producer"), "producer", "required"),
    ("unknown eventType", put("FINISHED", "eventType"), "eventType", "FINISHED"),
    ("inputs not a list", put({"namespace": "a", "name": "b"}, "inputs"), "inputs", "not of type 'array'"),
    ("outputs not a list", put("s3://lake/x", "outputs"), "outputs", "not of type 'array'"),
    ("run not an object", put("abc", "run"), "run", "not of type 'object'"),
    ("missing runId", drop("runId", "run"), "run.runId", "runId"),
    ("non-UUID runId", put("run-42", "run", "runId"), "run.runId", "run-42"),
    ("runId as a URN", put("urn:uuid:6f1c2d3e-4b5a-4c6d-8e7f-901234567890", "run", "runId"), "run.runId", "urn"),
    ("runId without hyphens", put("6f1c2d3e4b5a4c6d8e7f901234567890", "run", "runId"), "run.runId", "uuid"),
    ("runId as a number", put(42, "run", "runId"), "run.runId", "not of type 'string'"),
    ("missing job name", drop("name", "job"), "job.name", "name"),
    ("job namespace not a string", put(["a"], "job", "namespace"), "job.namespace", "not of type 'string'"),
    ("dataset without a name", drop("name", "inputs", 0), "inputs[0].name", "name"),
]

# A facet that fails its schema: (name, change, the facet's path, the precise path a strict policy names, words).
FACET_VIOLATIONS: list[tuple[str, Any, str, str, str]] = [
    (
        "a facet map that is not an object",
        put(["x"], "run", "facets"),
        "run.facets",
        "run.facets",
        "not of type 'object'",
    ),
    (
        "a facet that is not an object",
        put("x", "run", "facets", "custom"),
        "run.facets.custom",
        "run.facets.custom",
        "object",
    ),
    (
        "a facet without _producer",
        drop("_producer", "job", "facets", "sql"),
        "job.facets.sql",
        "job.facets.sql._producer",
        "_producer",
    ),
    (
        "schema field name not a string",
        put(7, "inputs", 0, "facets", "schema", "fields", 0, "name"),
        "inputs[0].facets.schema",
        "inputs[0].facets.schema.fields[0].name",
        "not of type 'string'",
    ),
    (
        "schema fields not a list",
        put({"id": "bigint"}, "outputs", 0, "facets", "schema", "fields"),
        "outputs[0].facets.schema",
        "outputs[0].facets.schema.fields",
        "not of type 'array'",
    ),
    (
        "sql facet without a query",
        drop("query", "job", "facets", "sql"),
        "job.facets.sql",
        "job.facets.sql.query",
        "query",
    ),
    (
        "parent facet with a non-UUID runId",
        put("nope", "run", "facets", "parent", "run", "runId"),
        "run.facets.parent",
        "run.facets.parent.run.runId",
        "nope",
    ),
    (
        "input statistics with a string rowCount",
        put("ten", "inputs", 0, "inputFacets", "inputStatistics", "rowCount"),
        "inputs[0].inputFacets.inputStatistics",
        "inputs[0].inputFacets.inputStatistics.rowCount",
        "not of type 'integer'",
    ),
    (
        "output statistics with a string size",
        put("big", "outputs", 0, "outputFacets", "outputStatistics", "size"),
        "outputs[0].outputFacets.outputStatistics",
        "outputs[0].outputFacets.outputStatistics.size",
        "not of type 'integer'",
    ),
    (
        "errorMessage facet without programmingLanguage",
        put(facet(message="boom"), "run", "facets", "errorMessage"),
        "run.facets.errorMessage",
        "run.facets.errorMessage.programmingLanguage",
        "programmingLanguage",
    ),
    (
        "lifecycle state outside its enum",
        put("EXPLODE", "outputs", 0, "facets", "lifecycleStateChange", "lifecycleStateChange"),
        "outputs[0].facets.lifecycleStateChange",
        "outputs[0].facets.lifecycleStateChange.lifecycleStateChange",
        "EXPLODE",
    ),
]


@pytest.mark.parametrize(
    ("change", "path", "words"), [(c, p, w) for _, c, p, w in SCHEMA_VIOLATIONS], ids=[n for n, *_ in SCHEMA_VIOLATIONS]
)
def test_an_event_that_breaks_the_spec_is_rejected_with_the_path_of_the_failing_field(
    ingest_client: APIClient, change: Any, path: str, words: str
) -> None:
    before = LineageEvent.objects.count()
    body = assert_error(post(ingest_client, with_change(change)), 400, error="invalid_event", path=path)
    assert words in body["message"], body
    rows_unchanged(before)


@pytest.mark.parametrize(
    ("change", "facet_path", "words"),
    [(c, f, w) for _, c, f, _, w in FACET_VIOLATIONS],
    ids=[n for n, *_ in FACET_VIOLATIONS],
)
def test_an_event_with_a_facet_that_breaks_its_schema_is_stored_and_answered_with_a_warning(
    ingest_client: APIClient, change: Any, facet_path: str, words: str
) -> None:
    event = with_change(change)
    response = post(ingest_client, event)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "accepted"
    assert [w["path"] for w in body["warnings"]] == [facet_path], body
    assert words in body["warnings"][0]["message"], body
    row = LineageEvent.objects.get(id=body["id"])
    assert row.payload == event  # stored as sent, the invalid facet included
    assert [{"path": w["path"], "message": w["message"]} for w in row.facet_warnings] == body["warnings"]


@override_settings(FACET_POLICY="strict")
@pytest.mark.parametrize(
    ("change", "path", "words"),
    [(c, p, w) for _, c, _, p, w in FACET_VIOLATIONS],
    ids=[n for n, *_ in FACET_VIOLATIONS],
)
def test_under_a_strict_facet_policy_a_facet_that_breaks_its_schema_is_rejected_with_its_precise_path(
    ingest_client: APIClient, change: Any, path: str, words: str
) -> None:
    before = LineageEvent.objects.count()
    body = assert_error(post(ingest_client, with_change(change)), 400, error="invalid_event", path=path)
    assert words in body["message"], body
    rows_unchanged(before)


def test_a_dataset_event_without_its_dataset_name_is_rejected_with_its_path(ingest_client: APIClient) -> None:
    event = dataset_event()
    del event["dataset"]["name"]
    assert_error(post(ingest_client, event), 400, path="dataset.name")
    assert LineageEvent.objects.count() == 0


def test_a_job_event_with_an_invalid_job_facet_is_stored_with_a_warning(ingest_client: APIClient) -> None:
    event = job_event()
    event["job"]["facets"]["jobType"]["processingType"] = 1
    response = post(ingest_client, event)
    assert response.status_code == 201, response.content
    assert response.json()["warnings"] == [
        {"path": "job.facets.jobType", "message": "processingType: 1 is not of type 'string'"}
    ]


@override_settings(FACET_POLICY="strict")
def test_under_a_strict_policy_a_job_event_with_an_invalid_job_facet_is_rejected_with_its_path(
    ingest_client: APIClient,
) -> None:
    event = job_event()
    event["job"]["facets"]["jobType"]["processingType"] = 1
    assert_error(post(ingest_client, event), 400, path="job.facets.jobType.processingType")
    assert LineageEvent.objects.count() == 0


def test_a_facet_marked_deleted_needs_no_other_fields(ingest_client: APIClient) -> None:
    event = job_event()
    event["job"]["facets"]["sql"] = facet(_deleted=True)
    assert post(ingest_client, event).status_code == 201


# --- refused: transport problems -----------------------------------------------------------------------


@override_settings(INGEST_MAX_EVENT_BYTES=2048)
def test_a_body_over_the_size_limit_is_rejected_with_413(ingest_client: APIClient) -> None:
    event = full_run_event()
    assert len(json.dumps(event)) > 2048
    body = assert_error(post(ingest_client, event), 413, error="payload_too_large")
    assert "2048" in body["message"]
    assert LineageEvent.objects.count() == 0


@override_settings(INGEST_MAX_EVENT_BYTES=2048)
def test_a_gzip_body_that_inflates_over_the_size_limit_is_rejected_with_413(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id())
    event["run"]["facets"] = {"custom": facet(value="a" * 100_000)}
    compressed = gzip.compress(json.dumps(event).encode())
    assert len(compressed) < 2048
    assert_error(post(ingest_client, compressed, HTTP_CONTENT_ENCODING="gzip"), 413, error="payload_too_large")
    assert LineageEvent.objects.count() == 0


def test_a_body_that_claims_gzip_but_is_not_is_rejected_with_400(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id())
    assert_error(post(ingest_client, event, HTTP_CONTENT_ENCODING="gzip"), 400, path="$")
    assert LineageEvent.objects.count() == 0


def test_an_unknown_content_encoding_is_rejected_with_415(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id())
    assert_error(post(ingest_client, event, HTTP_CONTENT_ENCODING="br"), 415)
    assert LineageEvent.objects.count() == 0


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz", "application/xml"],
)
def test_a_body_that_is_not_declared_json_is_rejected_with_415(ingest_client: APIClient, content_type: str) -> None:
    body = assert_error(
        post(ingest_client, run_event("START", run_id=new_run_id()), content_type=content_type),
        415,
        error="unsupported_media_type",
    )
    assert "application/json" in body["message"]
    assert LineageEvent.objects.count() == 0


def test_a_request_without_a_token_is_rejected_with_401_and_a_bearer_challenge(db: None) -> None:
    response = post(APIClient(), run_event("START", run_id=new_run_id()))
    assert_error(response, 401)
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert LineageEvent.objects.count() == 0


@pytest.mark.parametrize(
    "header",
    ["Bearer trb_000000000000_not-a-real-secret", "Bearer nonsense", "Bearer ", "Bearer trb__", "Basic dXNlcjpwYXNz"],
)
def test_a_request_with_an_unknown_token_is_rejected_with_401_and_a_bearer_challenge(db: None, header: str) -> None:
    response = post(APIClient(), run_event("START", run_id=new_run_id()), HTTP_AUTHORIZATION=header)
    assert_error(response, 401)
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert LineageEvent.objects.count() == 0


def test_a_token_with_the_right_prefix_but_a_wrong_secret_is_rejected_with_401(ingest_token: str) -> None:
    forged = ingest_token[:-4] + ("AAAA" if not ingest_token.endswith("AAAA") else "BBBB")
    response = post(APIClient(), run_event("START", run_id=new_run_id()), HTTP_AUTHORIZATION=f"Bearer {forged}")
    assert_error(response, 401)
    assert LineageEvent.objects.count() == 0


def test_a_read_scope_token_is_refused_with_403(read_client: APIClient) -> None:
    body = assert_error(post(read_client, run_event("START", run_id=new_run_id())), 403)
    assert "ingest" in body["message"]
    assert LineageEvent.objects.count() == 0


def test_auth_is_checked_before_the_body_so_a_bad_body_without_a_token_is_401(db: None) -> None:
    assert_error(post(APIClient(), b"{not json", content_type="text/plain"), 401)


def test_the_stored_event_records_which_token_sent_it(db: None) -> None:
    token, plaintext = token_create(name="spark prod", scope="ingest")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    response = post(client, run_event("START", run_id=new_run_id(), at=T0))
    assert response.status_code == 201
    assert LineageEvent.objects.get().token == token


# ---- duplicate member names: one answer on the server and in the agent's verifier ----


def with_duplicate(event: dict[str, Any], parent: tuple[str, ...], name: str, first: Any) -> bytes:
    """`event` serialised with `name` written twice in the object at `parent`: `first`, then its real value."""
    text = json.dumps(event)
    holder = event
    for key in parent:
        holder = holder[key]
    real = f"{json.dumps(name)}: {json.dumps(holder[name])}"
    assert text.count(real) == 1
    return text.replace(real, f"{json.dumps(name)}: {json.dumps(first)}, {real}").encode()


@pytest.mark.parametrize(
    ("parent", "name", "first", "path"),
    [
        ((), "eventType", "FAIL", "eventType"),
        (("run",), "runId", new_run_id(), "run.runId"),
        (("job",), "name", "someone.else", "job.name"),
    ],
)
def test_an_event_naming_a_member_twice_is_rejected_with_the_path_of_the_repeat_and_nothing_is_stored(
    ingest_client: APIClient, parent: tuple[str, ...], name: str, first: Any, path: str
) -> None:
    from lineage_protocol import EventParseError, parse_event

    body = with_duplicate(run_event("START", run_id=new_run_id()), parent, name, first)
    before = LineageEvent.objects.count()
    answer = assert_error(post(ingest_client, body), 400, error="invalid_event", path=path)
    assert repr(name) in answer["message"]
    rows_unchanged(before)
    with pytest.raises(EventParseError, match="duplicate"):  # the agent's verifier refuses the same bytes
        parse_event(body)


def test_a_duplicate_inside_a_facet_or_a_dataset_list_is_named_by_its_full_path(ingest_client: APIClient) -> None:
    event = run_event("START", run_id=new_run_id(), inputs=[dataset("db", "a"), dataset("db", "b")])
    text = json.dumps(event).replace('"name": "b"', '"name": "b", "name": "c"', 1)
    assert_error(post(ingest_client, text.encode()), 400, error="invalid_event", path="inputs[1].name")


def test_a_batch_element_naming_a_member_twice_rejects_the_batch_naming_the_element(ingest_client: APIClient) -> None:
    good = json.dumps(run_event("START", run_id=new_run_id()))
    bad = with_duplicate(run_event("START", run_id=new_run_id()), ("job",), "namespace", "x").decode()
    before = LineageEvent.objects.count()
    response = ingest_client.post(f"{URL}/batch", data=f"[{good}, {bad}]".encode(), content_type="application/json")
    assert_error(response, 400, error="invalid_event", path="[1].job.namespace")
    rows_unchanged(before)


def test_names_repeated_in_different_objects_and_colons_or_quotes_in_strings_are_not_duplicates(
    ingest_client: APIClient,
) -> None:
    event = run_event("START", run_id=new_run_id(), job='quoted \\": name: x', inputs=[dataset("s3://b", "k:v")])
    event["run"]["facets"] = {"note": facet(text='a "quoted": colon', name="name")}
    response = post(ingest_client, event)
    assert response.status_code == 201, response.content
