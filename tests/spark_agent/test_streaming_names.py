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


# The exact descriptions Spark and the table libraries give their sinks (`SinkProgress.description` is the
# sink's toString).
_KAFKA_TABLE = "org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@1a2b3c"  # inner class, no toString


def test_a_kafka_sink_is_named_by_its_topic_and_servers_options() -> None:
    found = stream_endpoint(
        _KAFKA_TABLE, query_label="q", kafka_servers="broker1:9092,broker2:9092", warehouse="w", kafka_topic="orders"
    )
    assert (found.kind, found.datasets, found.known) == ("kafka", (DatasetId("kafka://broker1:9092", "orders"),), True)
    # the V1 sink (spark.sql.streaming.disabledV2Writers): kafka010.KafkaSink.toString is "KafkaSink"
    v1 = stream_endpoint("KafkaSink", query_label="q", kafka_servers="b:9092", warehouse="w", kafka_topic="t")
    assert v1.datasets == (DatasetId("kafka://b:9092", "t"),)


def test_a_kafka_sink_whose_rows_name_their_topics_is_the_cluster_marked_unknown() -> None:
    found = stream_endpoint(_KAFKA_TABLE, query_label="q", kafka_servers="broker1:9092", warehouse="w")
    assert (found.kind, found.known) == ("kafka", False)
    assert found.datasets == (DatasetId("unknown", "kafka_broker1_9092_topic_per_row"),)


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        # Delta: org.apache.spark.sql.delta.sources.DeltaSink.toString is s"DeltaSink[$path]", the path as given
        ("DeltaSink[/data/delta/events]", ("delta", [("file", "/data/delta/events")], True)),
        ("DeltaSink[s3a://lake/delta/orders]", ("delta", [("s3://lake", "delta/orders")], True)),
        # Iceberg: org.apache.iceberg.spark.source.SparkTable.toString is its table's name, which is
        # <catalog>.<namespace>.<table> for a catalog's table, and the location for one loaded by path
        # (HadoopTables.load: new BaseTable(ops, location))
        ("local.db.events", ("table", [("file:/wh", "local.db.events")], True)),
        ("spark_catalog.db.events", ("table", [("file:/wh", "db.events")], True)),
        ("/tmp/iceberg/events", ("table", [("file", "/tmp/iceberg/events")], True)),
        ("hdfs://nn:8020/warehouse/events", ("table", [("hdfs://nn:8020", "/warehouse/events")], True)),
        ("s3://lake/warehouse/events", ("table", [("s3://lake", "warehouse/events")], True)),
    ],
)
def test_delta_and_iceberg_sinks_are_named_from_their_descriptions(description: str, expected: tuple) -> None:
    assert _name(description) == expected
