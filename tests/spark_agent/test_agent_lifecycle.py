"""Application and child runs, failures, run ids, HTTP delivery, backend outages, signing."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, lineage, read_events
from pyspark.sql import functions as F

import spark_agent
from spark_agent import listener
from tests.recording_server import RecordingServer

pytestmark = pytest.mark.spark


@pytest.fixture
def seed(spark: Any, tmp_path: Path) -> str:
    path = str(tmp_path / "seed")
    spark.createDataFrame([(1, 2.5), (2, 4.0), (3, 1.5)], "id INT, price DOUBLE").write.parquet(path)
    return path


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_the_application_run_is_the_parent_of_one_child_run_per_action(
    spark: Any, record: Any, seed: str, tmp_path: Path
) -> None:
    with record("lifecycle", namespace="team-a") as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "copy"))

    start, end = events[0], events[-1]
    assert (start["eventType"], end["eventType"]) == ("START", "COMPLETE")
    assert start["run"]["runId"] == end["run"]["runId"]
    assert start["job"]["namespace"] == "team-a" and start["job"]["name"] == "lifecycle"
    assert start["job"]["facets"]["jobType"]["jobType"] == "APPLICATION"
    engine = start["run"]["facets"]["processing_engine"]
    assert (engine["name"], engine["version"]) == ("spark", spark.version)

    child_start = events.child("lifecycle.write_parquet.copy", "START")
    child_end = events.child("lifecycle.write_parquet.copy", "COMPLETE")
    assert child_start["run"]["runId"] == child_end["run"]["runId"] != start["run"]["runId"]
    assert child_start["eventTime"] <= child_end["eventTime"]
    parent = child_end["run"]["facets"]["parent"]
    assert parent["run"] == {"runId": start["run"]["runId"]}
    assert parent["job"] == {"namespace": "team-a", "name": "lifecycle"}
    assert parent["root"] == {"run": parent["run"], "job": parent["job"]}
    assert child_end["job"]["namespace"] == "team-a"
    assert child_end["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"
    assert "outputStatistics" not in child_start["outputs"][0].get("outputFacets", {})
    counters = child_end["run"]["facets"]["tributary_counters"]
    assert (counters["recordsIn"], counters["recordsOut"], counters["errorCount"]) == (3, 3, 0)
    assert counters["bytesIn"] > 0 and counters["bytesOut"] > 0
    totals = end["run"]["facets"]["tributary_counters"]
    assert (totals["recordsIn"], totals["recordsOut"]) == (3, 3)


def test_a_failing_action_emits_fail_with_its_error_and_stack_trace(
    spark: Any, record: Any, seed: str, tmp_path: Path
) -> None:
    with record("failing") as events:
        too_high = F.when(F.col("price") >= 3, F.raise_error(F.lit("price too high")))
        bad = spark.read.parquet(seed).select(too_high.otherwise(F.col("price")).alias("price"))
        with pytest.raises(Exception, match="price too high"):
            bad.write.parquet(str(tmp_path / "never"))

    failed = events.child("failing.write_parquet.never")
    assert failed["eventType"] == "FAIL"
    error = failed["run"]["facets"]["errorMessage"]
    assert "price too high" in error["message"]
    assert error["programmingLanguage"] == "JAVA"
    assert "at org.apache.spark" in error["stackTrace"]
    assert failed["run"]["facets"]["tributary_counters"]["errorCount"] == 1
    assert [d["name"] for d in failed["inputs"]] == [seed]
    # the script caught the error, so the application itself completed
    assert events.app("COMPLETE")["run"]["facets"]["tributary_counters"]["errorCount"] == 1


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "legacy"])
def test_a_malformed_cast_fails_the_action_under_ansi_mode_and_both_keep_their_lineage(
    spark: Any, record: Any, tmp_path: Path, ansi: bool
) -> None:
    """ANSI mode is on by default from Spark 4.0 (off in 3.5): a malformed cast then fails the
    action in its tasks instead of giving NULL. Both modes are set explicitly, on either version."""
    labels = str(tmp_path / "labels")
    spark.createDataFrame([(1, "7"), (2, "seven")], "id INT, label STRING").write.parquet(labels)
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        with record("casts") as events:
            numbers = spark.read.parquet(labels).select("id", F.col("label").cast("int").alias("n"))
            if ansi:
                with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
                    numbers.write.parquet(str(tmp_path / "numbers"))
            else:
                numbers.write.parquet(str(tmp_path / "numbers"))
    finally:
        spark.conf.set("spark.sql.ansi.enabled", previous)

    event = events.child("casts.write_parquet.numbers")
    assert event["eventType"] == ("FAIL" if ansi else "COMPLETE")
    (out,) = event["outputs"]
    assert lineage(out) == {"id": [(labels, "id", "IDENTITY")], "n": [(labels, "label", "TRANSFORMATION")]}
    if ansi:
        error = event["run"]["facets"]["errorMessage"]
        assert "CAST_INVALID_INPUT" in error["stackTrace"]
        assert events.app("COMPLETE")["run"]["facets"]["tributary_counters"]["errorCount"] == 1
    else:
        assert out["outputFacets"]["outputStatistics"]["rowCount"] == 2


def test_an_exception_in_the_application_fails_its_run(record: Any) -> None:
    with pytest.raises(ValueError, match="boom"), record("broken") as events:
        raise ValueError("boom")
    error = events.app("FAIL")["run"]["facets"]["errorMessage"]
    assert error["message"] == "ValueError: boom"
    assert error["programmingLanguage"] == "PYTHON"
    assert 'raise ValueError("boom")' in error["stackTrace"]


def test_with_run_id_adds_the_application_run_id(spark: Any, record: Any, seed: str, tmp_path: Path) -> None:
    with record("tagged") as events:
        tagged = spark_agent.with_run_id(spark.read.parquet(seed))
        run_ids = {row.tributary_run_id for row in tagged.collect()}
        tagged.write.parquet(str(tmp_path / "tagged"))
    assert run_ids == {events.app("START")["run"]["runId"]}
    assert lineage(events.child("tagged.write_parquet.tagged")["outputs"][0]) == {
        "id": [(seed, "id", "IDENTITY")],
        "price": [(seed, "price", "IDENTITY")],
        "tributary_run_id": [],
    }


def test_a_closed_agent_is_no_longer_called_by_spark(
    spark: Any, seed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    original = listener.QueryListener._call

    def counting(self: listener.QueryListener, *args: Any) -> None:
        calls.append(args[0])
        original(self, *args)

    monkeypatch.setattr(listener.QueryListener, "_call", counting)
    for name in ("first", "second"):
        agent = spark_agent.install(spark, app_name=name, file_path=str(tmp_path / "e.jsonl"))
        spark.read.parquet(seed).write.mode("overwrite").parquet(str(tmp_path / "copy"))
        agent.close()
    calls.clear()
    spark.read.parquet(seed).write.mode("overwrite").parquet(str(tmp_path / "copy"))
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(10_000)
    assert calls == []


def test_read_only_actions_are_child_runs_when_asked_for(spark: Any, record: Any, seed: str) -> None:
    with record("reads", read_actions=True) as events:
        assert spark.read.parquet(seed).where("price > 2").count() == 2
    (source,) = events.child("reads.count.seed")["inputs"]
    assert source["name"] == seed
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 3
    with record("quiet") as events:
        spark.read.parquet(seed).count()
    assert events.children() == []


def test_http_transport_posts_batches_with_the_bearer_token(
    spark: Any, seed: str, tmp_path: Path, server: RecordingServer, validator: EventValidator
) -> None:
    agent = spark_agent.install(spark, app_name="over_http", url=server.url, token="s3cret")
    spark.read.parquet(seed).write.parquet(str(tmp_path / "copy"))
    agent.close()

    assert [e["eventType"] for e in server.events] == ["START", "START", "COMPLETE", "COMPLETE"]
    for event in server.events:
        validator.validate(event)
    assert {r["path"] for r in server.requests} == {"/api/v1/lineage/batch"}
    assert {r["headers"]["Authorization"] for r in server.requests} == {"Bearer s3cret"}
    counters = agent.counters.snapshot()
    assert (counters["events_emitted_total"], counters["events_dropped_total"]) == (4, 0)


def test_a_dead_backend_changes_nothing_for_the_job_and_drops_are_counted(
    spark: Any, seed: str, tmp_path: Path
) -> None:
    agent = spark_agent.install(spark, app_name="offline", url=_closed_port_url(), flush_timeout_s=5)
    spark.read.parquet(seed).write.parquet(str(tmp_path / "copy"))
    assert spark.read.parquet(str(tmp_path / "copy")).count() == 3
    started = time.monotonic()
    agent.close()
    assert time.monotonic() - started < 5
    counters = agent.counters.snapshot()
    assert (counters["events_emitted_total"], counters["events_dropped_total"]) == (0, 4)


def test_a_dead_backend_spills_events_to_the_file(
    spark: Any, seed: str, tmp_path: Path, validator: EventValidator
) -> None:
    spill = tmp_path / "spill.jsonl"
    agent = spark_agent.install(
        spark,
        app_name="spilling",
        url=_closed_port_url(),
        transport="http+spill",
        file_path=str(spill),
    )
    spark.read.parquet(seed).write.parquet(str(tmp_path / "copy"))
    agent.close()
    events = read_events(spill)
    assert [e["eventType"] for e in events] == ["START", "START", "COMPLETE", "COMPLETE"]
    for event in events:
        validator.validate(event)
    counters = agent.counters.snapshot()
    assert (counters["events_spilled_total"], counters["events_dropped_total"]) == (4, 0)


def test_events_are_signed_when_a_key_is_configured(spark: Any, record: Any, seed: str, tmp_path: Path) -> None:
    signing = pytest.importorskip("lineage_protocol")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key_path = tmp_path / "agent.key"
    key_path.write_bytes(
        Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    signing.load_private_key(str(key_path))  # the format the signing module expects
    with record("signed", signing_key_path=str(key_path)) as events:
        spark.read.parquet(seed).write.parquet(str(tmp_path / "copy"))
    assert all("tributary_signature" in e["run"]["facets"] for e in events)
    # Chained (docs/ledger.md): seq 1..4 in one stream, each naming the one before; then the shutdown heartbeat.
    (heartbeat,) = [e for e in events if signing.HEARTBEAT_FACET in e["run"]["facets"]]
    chained = sorted(
        (e for e in events if e is not heartbeat), key=lambda e: e["run"]["facets"]["tributary_signature"]["seq"]
    )
    positions = [signing.read_signature(e).chain for e in chained]
    assert [p.seq for p in positions] == [1, 2, 3, 4]
    assert len({p.stream for p in positions}) == 1
    assert [p.prev for p in positions[1:]] == [signing.signed_hash(e) for e in chained[:-1]]
    beat = heartbeat["run"]["facets"][signing.HEARTBEAT_FACET]
    assert (beat["stream"], beat["seq"], beat["head"]) == (positions[0].stream, 4, signing.signed_hash(chained[-1]))
