"""The streaming tracker without Spark: throttling, batch statistics, errors, and failure isolation."""

from __future__ import annotations

from typing import Any

import pytest

from spark_agent.counters import Counters
from spark_agent.streaming import StreamingContext, StreamingQueries, StreamListener, _batch_fields, _error_info

QUERY = {"id": "6a1f0f8e-6c1b-4a8e-9c51-2f1b1c1d1e1f", "runId": "0b7e5c2a-3d4f-4e5a-8b6c-7d8e9f0a1b2c"}


def _progress(batch: int, **extra: Any) -> dict[str, Any]:
    return {
        **QUERY,
        "timestamp": "2026-01-05T08:00:01.500Z",
        "batchId": batch,
        "numInputRows": 10,
        "inputRowsPerSecond": 5.0,
        "processedRowsPerSecond": 20.0,
        "durationMs": {"triggerExecution": 480},
        "sources": [{"description": "FileStreamSource[file:/in]"}],
        "sink": {"description": "FileSink[/out]"},
        **extra,
    }


def _tracker(emit: Any, interval_s: float = 60.0) -> tuple[StreamingQueries, Counters]:
    counters = Counters()
    ctx = StreamingContext(
        app_run_id="01a20ae5-5df4-7717-9faa-481425394c7e",
        app_job=("spark", "app"),
        spark_version="3.5.9",
        warehouse="file:/wh",
        interval_s=interval_s,
    )
    # No session: the tracker cannot ask Spark about the query, as when the lookup fails.
    return StreamingQueries(None, ctx, emit, counters), counters  # type: ignore[arg-type]


def test_progress_is_reported_at_once_then_at_most_once_per_interval() -> None:
    events: list[dict[str, Any]] = []
    queries, counters = _tracker(events.append)
    queries.query_started(
        query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z"
    )
    for batch in range(3):
        queries.query_progress(_progress(batch))
    queries.query_terminated(query_run_id=QUERY["runId"], exception=None)
    assert [e["eventType"] for e in events] == ["START", "RUNNING", "COMPLETE"]
    assert counters.get("streaming_progress_skipped_total") == 2
    assert events[0]["job"]["name"] == "app.stream.query_6a1f0f8e"
    # the final event carries the latest batch, not the one last reported
    assert events[-1]["run"]["facets"]["tributary_streaming"]["batchId"] == 2
    assert [(d["namespace"], d["name"]) for d in events[-1]["outputs"]] == [("file", "/out")]


def test_an_idle_query_sends_throttled_heartbeats_with_its_latest_batch() -> None:
    events: list[dict[str, Any]] = []
    queries, _ = _tracker(events.append, interval_s=0.0)
    queries.query_started(
        query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z"
    )
    queries.query_progress(_progress(4))
    queries.query_idle(query_run_id=QUERY["runId"], timestamp="2026-01-05T08:00:11.000Z")
    heartbeat = events[-1]
    assert (heartbeat["eventType"], heartbeat["eventTime"]) == ("RUNNING", "2026-01-05T08:00:11.000Z")
    facet = heartbeat["run"]["facets"]["tributary_streaming"]
    assert (facet["idle"], facet["batchId"], facet["progressAt"]) == (True, 4, "2026-01-05T08:00:01.500Z")
    assert "idle" not in events[-2]["run"]["facets"]["tributary_streaming"]

    slow, slow_counters = _tracker(events.append, interval_s=60.0)
    slow.query_started(query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z")
    slow.query_progress(_progress(0))
    slow.query_idle(query_run_id=QUERY["runId"], timestamp="2026-01-05T08:00:11.000Z")
    assert slow_counters.get("streaming_progress_skipped_total") == 1


def test_batch_statistics_leave_out_what_spark_could_not_measure() -> None:
    fields = _batch_fields(_progress(-1, inputRowsPerSecond=None, eventTime={"watermark": "2026-01-05T07:59:00.000Z"}))
    assert fields == {
        "progressAt": "2026-01-05T08:00:01.500Z",
        "numInputRows": 10,
        "processedRowsPerSecond": 20.0,
        "batchDurationMs": 480,
        "watermark": "2026-01-05T07:59:00.000Z",
    }


def test_a_jvm_error_keeps_its_first_line_as_message_and_the_whole_text_as_stack_trace() -> None:
    text = "org.apache.spark.SparkException: Job aborted.\n\tat org.apache.spark.Foo.bar(Foo.scala:1)"
    error = _error_info(text)
    assert (error.message, error.stack_trace, error.language) == (
        "org.apache.spark.SparkException: Job aborted.",
        text,
        "JAVA",
    )


def test_a_failing_callback_is_counted_and_never_raised_into_spark() -> None:
    # A fault the real emitter does not raise (its queue drops instead): injected to prove the isolation.
    def refuse(event: dict[str, Any]) -> None:
        raise OSError("disk full")

    queries, counters = _tracker(refuse)
    listener = StreamListener(queries, counters)

    class Started:
        id, runId, name, timestamp = QUERY["id"], QUERY["runId"], "q", "2026-01-05T08:00:00Z"

    listener.onQueryStarted(Started())
    assert counters.get("streaming_errors_total") == 1
    listener.active = False
    listener.onQueryStarted(Started())
    assert counters.get("streaming_errors_total") == 1


@pytest.mark.parametrize("interval", [0.0, 60.0])
def test_an_unknown_query_s_progress_is_ignored(interval: float) -> None:
    events: list[dict[str, Any]] = []
    queries, _ = _tracker(events.append, interval)
    queries.query_progress(_progress(0))
    queries.query_terminated(query_run_id=QUERY["runId"], exception="boom")
    assert events == []
