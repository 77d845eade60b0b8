"""Streaming query runs in the read API: live in the graph while running, their progress, and `stalled`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from rest_framework.test import APIClient

from tests.apply import accept_and_apply, as_json
from tests.events import dataset, new_run_id, run_event

pytestmark = pytest.mark.django_db

JOB = "clicks.stream.sessions"
SOURCE = dataset("kafka://broker:9092", "clicks")
SINK = dataset("s3://lake", "sessions")
INTERVAL = 30.0


def _streaming(**fields: Any) -> dict[str, Any]:
    return {
        "tributary_streaming": {
            "_producer": "https://example.com/tests/tributary",
            "_schemaURL": "https://example.com/TributaryStreamingRunFacet.json",
            "queryId": "6a1f0f8e-6c1b-4a8e-9c51-2f1b1c1d1e1f",
            "queryRunId": "0b7e5c2a-3d4f-4e5a-8b6c-7d8e9f0a1b2c",
            "startedAt": "2026-01-05T08:00:00.000Z",
            "intervalSeconds": INTERVAL,
            **fields,
        }
    }


def _get(client: APIClient, path: str, **params: Any) -> Any:
    response = client.get(f"/api/v1/{path}?{urlencode(params)}")
    assert response.status_code == 200, response.content
    return response.json()


def _live_run(run_id: str, *, last_progress: datetime, batch: int = 7) -> None:
    started = last_progress - timedelta(minutes=10)
    accept_and_apply(
        run_event("START", run_id=run_id, job=JOB, at=started, run_facets=_streaming()),
        run_event(
            "RUNNING",
            run_id=run_id,
            job=JOB,
            at=last_progress,
            inputs=[SOURCE],
            outputs=[SINK],
            run_facets=_streaming(
                progressAt=last_progress.isoformat().replace("+00:00", "Z"),
                batchId=batch,
                numInputRows=120,
                inputRowsPerSecond=40.0,
                processedRowsPerSecond=55.5,
            ),
        ),
        raw=as_json,
    )


def test_a_running_query_s_datasets_are_in_the_graph_before_it_ends(read_client: APIClient, graph: Any) -> None:
    run_id = new_run_id()
    _live_run(run_id, last_progress=datetime.now(UTC))
    run = _get(read_client, f"jobs/runs/{run_id}")
    assert run["state"] == "RUNNING"
    assert (run["inputs"], run["outputs"]) == (["dataset:kafka://broker:9092:clicks"], ["dataset:s3://lake:sessions"])
    job = _get(read_client, "jobs/detail", nodeId=f"job:spark:{JOB}")
    assert (job["inputs"], job["outputs"]) == (["dataset:kafka://broker:9092:clicks"], ["dataset:s3://lake:sessions"])
    lineage = _get(read_client, "lineage", nodeId="dataset:s3://lake:sessions", depth=2, direction="upstream")
    assert "dataset:kafka://broker:9092:clicks" in {node["id"] for node in lineage["graph"]}


def test_run_and_job_detail_show_a_live_query_s_progress(read_client: APIClient, graph: Any) -> None:
    run_id = new_run_id()
    now = datetime.now(UTC).replace(microsecond=0)
    _live_run(run_id, last_progress=now - timedelta(seconds=INTERVAL))
    expected = {
        "runningSince": "2026-01-05T08:00:00.000Z",
        "lastProgressAt": (now - timedelta(seconds=INTERVAL)).isoformat().replace("+00:00", "Z"),
        "inputRowsPerSecond": 40.0,
        "processedRowsPerSecond": 55.5,
        "batchId": 7,
        "intervalSeconds": INTERVAL,
        "stalled": False,
    }
    assert _get(read_client, f"jobs/runs/{run_id}")["streaming"] == expected
    job = _get(read_client, "jobs/detail", nodeId=f"job:spark:{JOB}")
    assert job["streaming"] == expected
    assert job["latestRun"]["streaming"] == expected
    runs = _get(read_client, "jobs/runs", nodeId=f"job:spark:{JOB}")["results"]
    assert [r["streaming"] for r in runs] == [expected]


def test_a_query_silent_for_the_stall_intervals_is_stalled(read_client: APIClient, graph: Any, settings: Any) -> None:
    settings.STREAMING_STALL_INTERVALS = 3
    quiet, silent = new_run_id(), new_run_id()
    now = datetime.now(UTC)
    _live_run(quiet, last_progress=now - timedelta(seconds=2.5 * INTERVAL))
    _live_run(silent, last_progress=now - timedelta(seconds=3.5 * INTERVAL))
    assert _get(read_client, f"jobs/runs/{quiet}")["streaming"]["stalled"] is False
    assert _get(read_client, f"jobs/runs/{silent}")["streaming"]["stalled"] is True


def test_an_ended_query_is_never_stalled_and_a_batch_run_has_no_streaming_block(
    read_client: APIClient, graph: Any
) -> None:
    run_id = new_run_id()
    long_ago = datetime.now(UTC) - timedelta(days=1)
    _live_run(run_id, last_progress=long_ago)
    accept_and_apply(
        run_event(
            "COMPLETE", run_id=run_id, job=JOB, at=long_ago + timedelta(seconds=5), run_facets=_streaming(batchId=8)
        ),
        raw=as_json,
    )
    finished = _get(read_client, f"jobs/runs/{run_id}")
    assert finished["state"] == "COMPLETED"
    assert (finished["streaming"]["stalled"], finished["streaming"]["batchId"]) == (False, 8)

    batch = new_run_id()
    accept_and_apply(
        run_event("START", run_id=batch, job="nightly"), run_event("COMPLETE", run_id=batch, job="nightly"), raw=as_json
    )
    assert "streaming" not in _get(read_client, f"jobs/runs/{batch}")
    job = _get(read_client, "jobs/detail", nodeId="job:spark:nightly")
    assert "streaming" not in job and "streaming" not in job["latestRun"]


def test_a_streaming_facet_that_fails_its_schema_is_left_out(read_client: APIClient, graph: Any) -> None:
    run_id = new_run_id()
    bad = run_event("RUNNING", run_id=run_id, job=JOB, run_facets=_streaming(batchId="seven"))
    accept_and_apply(bad, raw=as_json)
    run = _get(read_client, f"jobs/runs/{run_id}")
    assert run["events"][0]["warnings"][0]["path"] == "run.facets.tributary_streaming"
    assert "streaming" not in run
