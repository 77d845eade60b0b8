"""Events sent by the official `openlineage-python` client over real HTTP are accepted and projected unchanged."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import (
    DatasetEvent,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    RunState,
    StaticDataset,
)
from openlineage.client.facet_v2 import job_type_job, output_statistics_output_dataset, schema_dataset, sql_job
from openlineage.client.serde import Serde
from openlineage.client.transport.http import ApiKeyTokenProvider, HttpCompression, HttpConfig, HttpTransport
from openlineage.client.uuid import generate_new_uuid

from lineage_app.accounts.services import token_create
from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.explorer.selectors.lineage import lineage_for_node
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply

pytestmark = pytest.mark.django_db(transaction=True)

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"
START = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


def http_client(url: str, *, compression: HttpCompression | None = None) -> OpenLineageClient:
    token = token_create(name="openlineage-python", scope="ingest")[1]
    config = HttpConfig(
        url=url,
        endpoint="api/v1/lineage",
        auth=ApiKeyTokenProvider({"apiKey": token}),
        compression=compression,
        retry={"total": 0},
    )
    return OpenLineageClient(transport=HttpTransport(config))


def schema(*fields: tuple[str, str]) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(
        fields=[schema_dataset.SchemaDatasetFacetFields(name=n, type=t) for n, t in fields]
    )


def run_events(run_id: str) -> list[RunEvent]:
    job = Job(
        namespace="airflow",
        name="orders.clean",
        facets={
            "sql": sql_job.SQLJobFacet(query="INSERT INTO clean.orders SELECT id, amount FROM raw.orders"),
            "jobType": job_type_job.JobTypeJobFacet(processingType="BATCH", integration="AIRFLOW", jobType="TASK"),
        },
    )
    source = InputDataset(
        namespace="postgres://db:5432",
        name="raw.orders",
        facets={"schema": schema(("id", "BIGINT"), ("amount", "DECIMAL"))},
    )
    target = OutputDataset(
        namespace="postgres://db:5432",
        name="clean.orders",
        facets={"schema": schema(("id", "BIGINT"), ("amount", "DECIMAL"))},
        outputFacets={
            "outputStatistics": output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                rowCount=42, size=4096
            )
        },
    )

    def event(state: RunState, at: datetime) -> RunEvent:
        return RunEvent(
            eventType=state,
            eventTime=at.isoformat(),
            run=Run(runId=run_id),
            job=job,
            producer=PRODUCER,
            inputs=[source],
            outputs=[target],
        )

    return [event(RunState.START, START), event(RunState.COMPLETE, START + timedelta(minutes=3))]


def as_sent(event: Any) -> dict[str, Any]:
    return json.loads(Serde.to_json(event))


def test_run_events_from_the_http_transport_are_stored_byte_for_byte(live_server: Any) -> None:
    client = http_client(live_server.url)
    events = run_events(str(generate_new_uuid()))
    for event in events:
        client.emit(event)
    rows = list(LineageEvent.objects.order_by("event_time"))
    assert [row.event_type for row in rows] == ["START", "COMPLETE"]
    assert [bytes(row.raw) for row in rows] == [Serde.to_json(e).encode() for e in events]
    assert [row.payload for row in rows] == [as_sent(e) for e in events]


def test_run_events_from_the_http_transport_are_projected_into_the_graph(graph: Any, live_server: Any) -> None:
    client = http_client(live_server.url)
    run_id = str(generate_new_uuid())
    for event in run_events(run_id):
        client.emit(event)
    assert events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True))) == 2

    run = run_for_id(run_id=run_id)
    assert run["id"] == f"run:{run_id}"
    assert run["state"] == "COMPLETED"
    assert run["durationMs"] == 3 * 60 * 1000
    assert run["inputs"] == ["dataset:postgres://db:5432:raw.orders"]
    assert run["outputs"] == ["dataset:postgres://db:5432:clean.orders"]

    lineage = lineage_for_node(
        node_id="dataset:postgres://db:5432:raw.orders", depth=2, direction="downstream", level="action"
    )
    assert [node["id"] for node in lineage["graph"]] == [
        "dataset:postgres://db:5432:clean.orders",
        "dataset:postgres://db:5432:raw.orders",
        "job:airflow:orders.clean",
    ]


def test_a_client_that_emits_the_same_event_twice_stores_it_once(live_server: Any) -> None:
    client = http_client(live_server.url)
    event = run_events(str(generate_new_uuid()))[0]
    client.emit(event)
    client.emit(event)
    assert LineageEvent.objects.count() == 1


def test_gzip_compressed_events_from_the_http_transport_are_accepted(live_server: Any) -> None:
    client = http_client(live_server.url, compression=HttpCompression.GZIP)
    events = run_events(str(generate_new_uuid()))
    for event in events:
        client.emit(event)
    assert [row.payload for row in LineageEvent.objects.order_by("event_time")] == [as_sent(e) for e in events]


def test_dataset_and_job_events_from_the_http_transport_are_accepted(live_server: Any) -> None:
    client = http_client(live_server.url)
    dataset_event = DatasetEvent(
        eventTime=START.isoformat(),
        producer=PRODUCER,
        dataset=StaticDataset(
            namespace="s3://lake", name="ref/countries", facets={"schema": schema(("code", "STRING"))}
        ),
    )
    job_event = JobEvent(
        eventTime=START.isoformat(),
        producer=PRODUCER,
        job=Job(namespace="flink", name="orders.stream", facets={"sql": sql_job.SQLJobFacet(query="SELECT 1")}),
        inputs=[InputDataset(namespace="kafka://broker:9092", name="orders")],
        outputs=[OutputDataset(namespace="s3://lake", name="raw/orders")],
    )
    client.emit(dataset_event)
    client.emit(job_event)
    assert sorted(LineageEvent.objects.values_list("kind", flat=True)) == ["dataset", "job"]
    payloads = [row.payload for row in LineageEvent.objects.order_by("kind")]
    assert payloads == [as_sent(dataset_event), as_sent(job_event)]


def test_the_http_transport_gets_an_error_for_a_read_scope_token(live_server: Any) -> None:
    token = token_create(name="dashboard", scope="read")[1]
    transport = HttpTransport(
        HttpConfig(url=live_server.url, auth=ApiKeyTokenProvider({"apiKey": token}), retry={"total": 0})
    )
    with pytest.raises(requests.HTTPError) as raised:
        transport.emit(run_events(str(generate_new_uuid()))[0])
    assert raised.value.response.status_code == 403
    assert "ingest" in raised.value.response.json()["message"]
    assert LineageEvent.objects.count() == 0


def test_the_client_has_no_batch_emission_of_its_own() -> None:
    # openlineage-python 1.54 sends one event per request: no `emit_batch`, and its HTTP transport
    # serialises a single event. A batch is the client's events, serialised by its `Serde`, posted through
    # the transport's own session and auth (below). When a release adds a batch path, this fails: use it.
    assert not [name for name in dir(OpenLineageClient) if "batch" in name.lower()]
    assert not [name for name in dir(HttpTransport) if "batch" in name.lower()]


def post_batch_as_the_client(transport: HttpTransport, events: list[Any]) -> requests.Response:
    """The array of the client's events, serialised by its `Serde`, posted with its transport's session and token."""
    body = "[" + ",".join(Serde.to_json(event) for event in events) + "]"
    headers = {"Content-Type": "application/json", "Authorization": transport.config.auth.get_bearer()}
    return transport.session.post(f"{transport.url}/api/v1/lineage/batch", data=body, headers=headers, timeout=10)


def test_a_batch_of_the_clients_events_is_answered_with_the_openlineage_receipt(live_server: Any) -> None:
    transport = http_client(live_server.url).transport
    assert isinstance(transport, HttpTransport)
    events = run_events(str(generate_new_uuid()))
    answer = post_batch_as_the_client(transport, [*events, events[0]])
    assert answer.status_code == 200
    receipt = answer.json()
    assert receipt["status"] == "success"
    assert receipt["summary"] == {"received": 3, "successful": 3, "failed": 0, "retriable": 0, "non_retriable": 0}
    assert receipt["failed_events"] == []
    assert [r["status"] for r in receipt["results"]] == ["accepted", "accepted", "duplicate"]
    assert [row.payload for row in LineageEvent.objects.order_by("event_time")] == [as_sent(e) for e in events]


def test_a_batch_with_an_event_the_spec_refuses_names_it_as_a_non_retriable_failure(live_server: Any) -> None:
    transport = http_client(live_server.url).transport
    assert isinstance(transport, HttpTransport)
    good, _ = run_events(str(generate_new_uuid()))
    no_zone = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime="2026-01-05T08:03:00",
        run=Run(runId=str(generate_new_uuid())),
        job=Job(namespace="airflow", name="orders.clean"),
        producer=PRODUCER,
    )
    receipt = post_batch_as_the_client(transport, [good, no_zone]).json()
    assert receipt["status"] == "partial_success"
    assert receipt["summary"] == {"received": 2, "successful": 1, "failed": 1, "retriable": 0, "non_retriable": 1}
    (failure,) = receipt["failed_events"]
    assert (failure["index"], failure["retriable"]) == (1, False)
    assert "timezone" in failure["reason"] and failure["reason"].endswith("(at eventTime)")
    assert [row.payload for row in LineageEvent.objects.all()] == [as_sent(good)]


def test_the_http_transport_pointed_at_the_batch_endpoint_gets_a_clear_400(live_server: Any) -> None:
    token = token_create(name="openlineage-python", scope="ingest")[1]
    config = HttpConfig(
        url=live_server.url,
        endpoint="api/v1/lineage/batch",
        auth=ApiKeyTokenProvider({"apiKey": token}),
        retry={"total": 0},
    )
    with pytest.raises(requests.HTTPError) as raised:
        HttpTransport(config).emit(run_events(str(generate_new_uuid()))[0])
    assert raised.value.response.status_code == 400
    assert raised.value.response.json() == {
        "error": "invalid_batch",
        "message": "a batch must be a JSON array of events",
        "path": "$",
    }
    assert LineageEvent.objects.count() == 0
