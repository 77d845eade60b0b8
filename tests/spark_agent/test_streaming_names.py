"""Naming streaming sources and sinks from Spark's progress descriptions."""

from __future__ import annotations

import pytest

from spark_agent.naming import stream_endpoint
from spark_agent.plan.model import DatasetId


def _name(description: str, kafka_servers: str | None = None) -> tuple[str, list[tuple[str, str]], bool]:
    found = stream_endpoint(description, query_label="q", kafka_servers=kafka_servers, warehouse="file:/wh")
    return found.kind, [(d.namespace, d.name) for d in found.datasets], found.known


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("FileStreamSource[file:/data/in]", ("file", [("file", "/data/in")], True)),
        ("FileStreamSource[s3a://lake/raw/events]", ("file", [("s3://lake", "raw/events")], True)),
        ("FileSink[/data/out]", ("file", [("file", "/data/out")], True)),
        ("FileSink[hdfs://nn:8020/out/]", ("file", [("hdfs://nn:8020", "/out")], True)),
        ("DeltaSink[s3://lake/orders]", ("delta", [("s3://lake", "orders")], True)),
        ("DeltaSource[file:/lake/orders]", ("delta", [("file", "/lake/orders")], True)),
        ("RateStreamV2[rowsPerSecond=1, rampUpTimeSeconds=0, numPartitions=default", ("rate", [("rate", "q")], True)),
        ("MemoryStream[value#1]", ("memory", [("memory", "q")], True)),
        ("MemorySink", ("memory", [("memory", "q")], True)),
        ("TextSocketV2[host: localhost, port: 9999]", ("socket", [("socket://localhost:9999", "/")], True)),
        ("ForeachBatchSink", ("foreachBatch", [], True)),
        ("org.apache.spark.sql.execution.streaming.ConsoleTable$@1f2e", ("console", [], True)),
        ("spark_catalog.default.events", ("table", [("file:/wh", "default.events")], True)),
        ("lake.db.events", ("table", [("file:/wh", "lake.db.events")], True)),
    ],
)
def test_known_sources_and_sinks_are_named_per_the_naming_spec(description: str, expected: tuple) -> None:
    assert _name(description) == expected


def test_kafka_topics_live_under_the_first_bootstrap_server() -> None:
    servers = "broker1:9092,broker2:9092"
    assert _name("KafkaV2[Subscribe[orders,payments]]", servers) == (
        "kafka",
        [("kafka://broker1:9092", "orders"), ("kafka://broker1:9092", "payments")],
        True,
    )
    assert _name("KafkaV2[Assign[orders-0, orders-1]]", servers)[1] == [("kafka://broker1:9092", "orders")]
    assert _name("KafkaV2[SubscribePattern[orders.*]]")[1] == [("kafka", "orders.*")]


def test_an_unknown_endpoint_is_named_safely_and_marked_unknown() -> None:
    found = stream_endpoint(
        "com.acme.MagicSource@6d06d69c[weird / stuff]", query_label="q", kafka_servers=None, warehouse="w"
    )
    assert found.kind == "unknown" and not found.known
    assert found.datasets == (DatasetId("unknown", "com_acme_MagicSource"),)
