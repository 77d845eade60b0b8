"""Structured Streaming through the agent: a run per query, live in the graph while it runs, COMPLETE / FAIL / ABORT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, read_events
from pyspark.sql.streaming import StreamingQueryListener

import spark_agent
from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.ingest.validation import event_check
from spark_agent.naming import stream_endpoint
from spark_agent.streaming import _execution, _sink_kafka
from tests.apply import accept_and_apply, as_json

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


class Live:
    """An agent writing to a file, whose events can be read (and validated) while queries run."""

    def __init__(self, spark: Any, path: Path, validator: EventValidator, **options: Any) -> None:
        self.path = path
        self.validator = validator
        self.agent = spark_agent.install(spark, app_name="streams", transport="file", file_path=str(path), **options)

    def events(self) -> list[dict[str, Any]]:
        assert self.agent.flush(10)
        events = read_events(self.path)
        for event in events:
            self.validator.validate(event)
        return events

    def query_events(self, job_suffix: str) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["job"]["name"] == f"streams.stream.{job_suffix}"]


@pytest.fixture
def live(spark: Any, tmp_path: Path, validator: EventValidator) -> Iterator[Callable[..., Live]]:
    made: list[Live] = []

    def _make(**options: Any) -> Live:
        made.append(Live(spark, tmp_path / "events.jsonl", validator, **options))
        return made[-1]

    yield _make
    for one in made:
        one.agent.close()
    for query in spark.streams.active:
        query.stop()


def _wait_for_batches(query: Any, rows: int, timeout: float = 45) -> None:
    """Until the query's batches have read at least `rows` rows."""
    deadline = time.monotonic() + timeout
    while sum(p["numInputRows"] for p in query.recentProgress) < rows:
        assert query.exception() is None, query.exception()
        assert time.monotonic() < deadline, query.recentProgress
        time.sleep(0.2)


def _apply(events: list[dict[str, Any]]) -> None:
    checked = [event_check(e) for e in events]
    # the server checks `tributary_streaming` against its schema: the agent's facets pass whole
    assert [c.warnings for c in checked] == [()] * len(events)
    accept_and_apply(*events, raw=as_json)


def _names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["namespace"], d["name"]) for d in datasets]


@pytest.mark.django_db
def test_a_file_stream_is_in_the_graph_while_it_runs_and_completes_when_stopped(
    spark: Any, tmp_path: Path, live: Callable[..., Live], graph: Any
) -> None:
    source, sink = tmp_path / "in", tmp_path / "out"
    spark.range(5).selectExpr("id", "cast(id as string) as s").write.json(str(source / "a"))
    agent = live(streaming_progress_interval_s=0)
    spark.conf.set("spark.sql.streaming.noDataProgressEventInterval", "1s")  # read when the query starts
    try:
        query = (
            spark.readStream.schema("id long, s string")
            .json(str(source / "a"))
            .writeStream.format("parquet")
            .option("path", str(sink))
            .option("checkpointLocation", str(tmp_path / "checkpoint"))
            .trigger(processingTime="1 second")
            .start()
        )
    finally:
        spark.conf.unset("spark.sql.streaming.noDataProgressEventInterval")
    _wait_for_batches(query, 5)
    so_far = agent.query_events("out")
    assert [e["eventType"] for e in so_far][:2] == ["START", "RUNNING"]
    running = so_far[1]
    assert _names(running["inputs"]) == [("file", str(source / "a"))]
    assert _names(running["outputs"]) == [("file", str(sink))]
    facet = running["run"]["facets"]["tributary_streaming"]
    assert (facet["queryId"], facet["batchId"], facet["numInputRows"]) == (str(query.id), 0, 5)
    assert facet["sources"] == [{"description": f"FileStreamSource[file:{source / 'a'}]", "kind": "file"}]
    assert facet["sink"]["kind"] == "file" and facet["unknownEndpoints"] == 0
    assert running["run"]["facets"]["parent"]["run"]["runId"] == agent.agent.run_id

    # Applied while the query runs, the run is RUNNING and its datasets are in the graph.
    _apply(agent.events())
    run = run_for_id(run_id=running["run"]["runId"])
    assert run["state"] == "RUNNING"
    assert run["inputs"] == [f"dataset:file:{source / 'a'}"]
    assert run["outputs"] == [f"dataset:file:{sink}"]

    # Waiting for data, it still sends RUNNING heartbeats (Spark reports it idle, not progressing).
    deadline = time.monotonic() + 30
    while not any(e["run"]["facets"]["tributary_streaming"].get("idle") for e in agent.query_events("out")):
        assert time.monotonic() < deadline
        time.sleep(0.5)

    query.stop()
    final = agent.query_events("out")[-1]
    assert final["eventType"] == "COMPLETE"
    assert final["run"]["runId"] == running["run"]["runId"]
    assert final["run"]["facets"]["tributary_streaming"]["batchId"] >= 0


@pytest.mark.django_db
def test_a_rate_stream_into_foreach_batch_reports_progress_at_most_once_per_interval(
    spark: Any, tmp_path: Path, live: Callable[..., Live], graph: Any
) -> None:
    target = tmp_path / "batches"

    def write(frame: Any, batch_id: int) -> None:
        frame.write.mode("append").parquet(str(target))

    agent = live(streaming_progress_interval_s=600)
    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 20)
        .load()
        .writeStream.queryName("ticks")
        .foreachBatch(write)
        .trigger(processingTime="1 second")
        .start()
    )
    _wait_for_batches(query, 40)
    assert len(query.recentProgress) >= 3
    events = agent.query_events("ticks")
    # the first progress at once, then nothing more within the interval
    assert [e["eventType"] for e in events] == ["START", "RUNNING"]
    assert _names(events[1]["inputs"]) == [("rate", "ticks")]
    assert events[1]["outputs"] == []
    facet = events[1]["run"]["facets"]["tributary_streaming"]
    assert facet["sink"] == {"description": "ForeachBatchSink", "kind": "foreachBatch"}
    assert facet["queryName"] == "ticks" and facet["intervalSeconds"] == 600

    # What foreachBatch writes is an action of the application: in the graph while the query runs.
    _apply(agent.events())
    assert run_for_id(run_id=events[1]["run"]["runId"])["inputs"] == ["dataset:rate:ticks"]
    writers = [e for e in agent.events() if e["job"]["name"] == "streams.write_parquet.batches"]
    assert writers and _names(writers[-1]["outputs"]) == [("file", str(target))]

    query.stop()
    final = agent.query_events("ticks")[-1]
    assert final["eventType"] == "COMPLETE"
    assert agent.agent.counters.get("streaming_progress_skipped_total") >= 2
    # the final event carries the latest batch, whose progress was throttled, not the one last reported
    assert final["run"]["facets"]["tributary_streaming"]["batchId"] == query.lastProgress["batchId"] > 0


def test_a_failing_batch_fails_the_query_run_with_the_error(spark: Any, live: Callable[..., Live]) -> None:
    def explode(frame: Any, batch_id: int) -> None:
        raise ValueError(f"batch {batch_id} is poisoned")

    agent = live()
    query = (
        spark.readStream.format("rate")
        .load()
        .writeStream.queryName("poisoned")
        .foreachBatch(explode)
        .trigger(processingTime="1 second")
        .start()
    )
    with pytest.raises(Exception, match="poisoned"):
        query.awaitTermination(60)
    events = agent.query_events("poisoned")
    assert [e["eventType"] for e in events] == ["START", "FAIL"]
    error = events[-1]["run"]["facets"]["errorMessage"]
    assert error["message"] == "ValueError: batch 0 is poisoned"
    assert error["programmingLanguage"] == "PYTHON"
    assert "in explode" in error["stackTrace"]
    # it died before its first progress: its source is still named
    assert _names(events[-1]["inputs"]) == [("rate", "poisoned")]


def test_sigterm_aborts_a_running_query_and_the_application(tmp_path: Path, validator: EventValidator) -> None:
    events_path, marker = tmp_path / "events.jsonl", tmp_path / "ready"
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import time
            from pathlib import Path
            from pyspark.sql import SparkSession
            import spark_agent
            spark = (SparkSession.builder.master("local[1]").appName("endless")
                     .config("spark.ui.enabled", "false").getOrCreate())
            spark_agent.install(spark, transport="file", file_path={str(events_path)!r})
            query = (spark.readStream.format("rate").load().writeStream.format("memory")
                     .queryName("forever").trigger(processingTime="1 second").start())
            while not query.recentProgress:
                time.sleep(0.2)
            Path({str(marker)!r}).touch()
            query.awaitTermination()
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIBUTARY_")}
    proc = subprocess.Popen([sys.executable, str(script)], env={**env, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 80
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    events = read_events(events_path)
    for event in events:
        validator.validate(event)
    states = {(e["job"]["name"], e["eventType"]) for e in events}
    assert {("endless.stream.forever", "START"), ("endless.stream.forever", "ABORT")} <= states
    assert ("endless", "ABORT") in states
    aborted = next(e for e in events if e["eventType"] == "ABORT" and e["job"]["name"] == "endless.stream.forever")
    assert _names(aborted["outputs"]) == [("memory", "forever")]


def test_a_sinks_kafka_topic_and_servers_are_read_from_the_live_query_when_it_starts(spark: Any) -> None:
    """A Kafka sink's description names no topic; its `topic` and `kafka.bootstrap.servers` options do. The
    Kafka connector is not on this classpath, so the queries write to `noop` with those options: what the agent
    reads, from the start callback, are the options of the live query, whatever its sink."""
    seen: dict[str, tuple[str | None, str | None]] = {}

    class Started(StreamingQueryListener):
        def onQueryStarted(self, event: Any) -> None:
            seen[str(event.name)] = _sink_kafka(_execution(spark, str(event.id)))

        def onQueryProgress(self, event: Any) -> None:
            pass

        def onQueryIdle(self, event: Any) -> None:
            pass

        def onQueryTerminated(self, event: Any) -> None:
            pass

    listener = Started()
    spark.streams.addListener(listener)
    try:
        for name, topic in (("to_orders", "orders"), ("per_row", None)):
            writer = (
                spark.readStream.format("rate")
                .load()
                .writeStream.format("noop")
                .queryName(name)
                .option("kafka.bootstrap.servers", "broker1:9092,broker2:9092")
                .option("kafka.sasl.jaas.config", "not to be read")
            )
            query = (writer.option("Topic", topic) if topic else writer).start()  # option names: any case
            try:
                deadline = time.monotonic() + 30
                while name not in seen:
                    assert time.monotonic() < deadline
                    time.sleep(0.1)
                assert _sink_kafka(_execution(spark, str(query.id))) == seen[name]
            finally:
                query.stop()
    finally:
        spark.streams.removeListener(listener)
    assert seen == {
        "to_orders": ("broker1:9092,broker2:9092", "orders"),
        "per_row": ("broker1:9092,broker2:9092", None),
    }
    kafka_table = "org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@1a2b3c"
    servers, topic = seen["to_orders"]
    named = stream_endpoint(kafka_table, query_label="q", kafka_servers=servers, warehouse="w", kafka_topic=topic)
    assert [(d.namespace, d.name) for d in named.datasets] == [("kafka://broker1:9092", "orders")]
