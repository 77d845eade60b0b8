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


def _progress_of(queries: StreamingQueries, batch: int, **extra: Any) -> list[int]:
    """Report a batch's progress; return the batches whose progress the tracker read."""
    read: list[int] = []

    def read_progress() -> dict[str, Any]:
        read.append(batch)
        return _progress(batch, **extra)

    queries.query_progress(query_run_id=QUERY["runId"], read_progress=read_progress)
    return read


def test_progress_is_reported_at_once_then_at_most_once_per_interval_and_read_only_then() -> None:
    events: list[dict[str, Any]] = []
    queries, counters = _tracker(events.append)
    queries.query_started(
        query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z"
    )
    read = [b for batch in range(3) for b in _progress_of(queries, batch)]
    queries.query_terminated(query_run_id=QUERY["runId"], exception=None)
    assert [e["eventType"] for e in events] == ["START", "RUNNING", "COMPLETE"]
    assert read == [0], "a throttled batch's progress was read"
    assert counters.get("streaming_progress_skipped_total") == 2
    assert events[0]["job"]["name"] == "app.stream.query_6a1f0f8e"
    # Spark cannot be asked here for the latest batch (tests/spark_agent/test_streaming.py asks it): the one read
    assert events[-1]["run"]["facets"]["tributary_streaming"]["batchId"] == 0
    assert [(d["namespace"], d["name"]) for d in events[-1]["outputs"]] == [("file", "/out")]


def test_an_idle_query_sends_throttled_heartbeats_with_its_latest_batch() -> None:
    events: list[dict[str, Any]] = []
    queries, _ = _tracker(events.append, interval_s=0.0)
    queries.query_started(
        query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z"
    )
    _progress_of(queries, 4)
    queries.query_idle(query_run_id=QUERY["runId"], timestamp="2026-01-05T08:00:11.000Z")
    heartbeat = events[-1]
    assert (heartbeat["eventType"], heartbeat["eventTime"]) == ("RUNNING", "2026-01-05T08:00:11.000Z")
    facet = heartbeat["run"]["facets"]["tributary_streaming"]
    assert (facet["idle"], facet["batchId"], facet["progressAt"]) == (True, 4, "2026-01-05T08:00:01.500Z")
    assert "idle" not in events[-2]["run"]["facets"]["tributary_streaming"]

    slow, slow_counters = _tracker(events.append, interval_s=60.0)
    slow.query_started(query_id=QUERY["id"], query_run_id=QUERY["runId"], name=None, timestamp="2026-01-05T08:00:00Z")
    _progress_of(slow, 0)
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

    class JavaText:
        """What py4j gives for a JVM `UUID`: an object whose `toString()` is the text."""

        def __init__(self, text: str) -> None:
            self.text = text

        def toString(self) -> str:
            return self.text

    class Started:
        """The shape of the JVM's `QueryStartedEvent` as py4j shows it: accessor methods."""

        def id(self) -> JavaText:
            return JavaText(QUERY["id"])

        def runId(self) -> JavaText:
            return JavaText(QUERY["runId"])

        def name(self) -> str:
            return "q"

        def timestamp(self) -> str:
            return "2026-01-05T08:00:00Z"

    listener.onQueryStarted(Started())
    assert counters.get("streaming_errors_total") == 1
    listener.active = False
    listener.onQueryStarted(Started())
    assert counters.get("streaming_errors_total") == 1


@pytest.mark.parametrize("interval", [0.0, 60.0])
def test_an_unknown_query_s_progress_is_ignored(interval: float) -> None:
    events: list[dict[str, Any]] = []
    queries, _ = _tracker(events.append, interval)
    assert _progress_of(queries, 0) == []
    queries.query_terminated(query_run_id=QUERY["runId"], exception="boom")
    assert events == []
