"""Job and dataset names, following the OpenLineage naming specification."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from spark_agent.plan.model import DatasetId

_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ORACLE = re.compile(r"([^:/]+)(?::(\d+))?[:/]?(.*)")
# Object stores whose dataset names carry no leading slash (bucket-relative keys).
_BUCKET_SCHEMES = {
    "s3": "s3",
    "s3a": "s3",
    "s3n": "s3",
    "gs": "gs",
    "wasbs": "wasbs",
    "abfss": "abfss",
}
# JDBC sub-protocols whose OpenLineage namespace scheme differs from the JDBC one.
_JDBC_SCHEMES = {"postgresql": "postgres", "mariadb": "mysql"}
_DEFAULT_PORTS = {"postgres": 5432, "mysql": 3306, "sqlserver": 1433, "oracle": 1521, "db2": 50000}


def dataset_from_uri(uri: str) -> DatasetId:
    """A file or object-store location as a dataset (`file`, `s3://bucket`, `hdfs://host:port`)."""
    parts = urlsplit(uri)
    scheme = parts.scheme or "file"
    path = parts.path.rstrip("/") or "/"
    if scheme == "file":
        return DatasetId("file" if not parts.netloc else f"file://{parts.netloc}", path)
    if scheme in _BUCKET_SCHEMES:
        return DatasetId(f"{_BUCKET_SCHEMES[scheme]}://{parts.netloc}", path.lstrip("/") or "/")
    return DatasetId(f"{scheme}://{parts.netloc}", path)


def dataset_from_jdbc(url: str, table: str) -> DatasetId:
    """A JDBC table as a dataset: `postgres://host:5432` + `db.schema.table`, and so on.

    URLs without a host (embedded databases such as `jdbc:derby:memory:db`) use the
    database locator as namespace (`derby:memory:db`) and the table as name."""
    body = url[len("jdbc:") :] if url.lower().startswith("jdbc:") else url
    sub, _, rest = body.partition(":")
    sub = sub.lower()
    scheme = _JDBC_SCHEMES.get(sub, sub)
    table = _strip_quotes(table.strip())
    if scheme == "oracle":
        return _oracle(rest, table)
    if not rest.startswith("//"):
        locator = rest.split(";", 1)[0].split("?", 1)[0]
        return DatasetId(f"{scheme}:{locator}", table)
    authority, _, tail = rest[2:].partition("/")
    authority, _, params = authority.partition(";")
    host, port = _host_port(authority.rsplit("@", 1)[-1].split(",", 1)[0], scheme)
    database = tail.split("?", 1)[0].split(";", 1)[0]
    if not database:
        database = _param(params, "databaseName") or _param(params, "database")
    namespace = f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}"
    if scheme == "postgres" and table.count(".") == 0:
        table = f"public.{table}"
    if scheme == "sqlserver" and table.count(".") == 0:
        table = f"dbo.{table}"
    return DatasetId(namespace, f"{database}.{table}" if database else table)


def _oracle(rest: str, table: str) -> DatasetId:
    locator = rest.split("@", 1)[-1].lstrip("/")
    match = _ORACLE.match(locator)
    host, port, service = match.groups() if match else (locator, None, "")
    namespace = f"oracle://{host}:{port or _DEFAULT_PORTS['oracle']}"
    return DatasetId(namespace, f"{service}.{table}" if service else table)


def _host_port(authority: str, scheme: str) -> tuple[str, int | None]:
    host, sep, port = authority.rpartition(":")
    if sep and port.isdigit():
        return host, int(port)
    return authority, _DEFAULT_PORTS.get(scheme)


def _param(params: str, key: str) -> str:
    for item in params.split(";"):
        name, _, value = item.partition("=")
        if name.strip().lower() == key.lower():
            return value.strip()
    return ""


def _strip_quotes(table: str) -> str:
    return ".".join(part.strip('"`[]') for part in table.split("."))


def snake(name: str) -> str:
    """`collectToPython` -> `collect_to_python`."""
    return _CAMEL.sub("_", name).lower()


def job_segment(text: str) -> str:
    """A fragment safe to use between the dots of a job name."""
    return _UNSAFE.sub("_", text).strip("_") or "unnamed"


def child_job_name(app_name: str, verb: str, target: str) -> str:
    """`<app>.<verb>.<target>`, e.g. `etl.write_parquet.cleaned_orders`."""
    return f"{app_name}.{verb}.{job_segment(target)}"


def path_tail(dataset: DatasetId) -> str:
    """The last segment of a dataset's name: `/lake/silver/orders_clean` -> `orders_clean`."""
    return dataset.name.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class StreamEndpoint:
    """A streaming source or sink: what kind it is and the datasets it stands for.

    `known` is false when the agent did not recognise Spark's description; the endpoint is then
    one dataset in the `unknown` namespace named after the description, so it stays visible."""

    kind: str
    datasets: tuple[DatasetId, ...]
    known: bool = True


_BRACKETED = re.compile(r"^(\w+)\[(.*)\]?$", re.DOTALL)
_SOCKET = re.compile(r"host:\s*([^,\]]+),\s*port:\s*(\d+)")
_KAFKA_STRATEGY = re.compile(r"^(Subscribe|SubscribePattern|Assign)\[(.*)\]$", re.DOTALL)
_LOCATION = re.compile(r"^(/|[A-Za-z][\w+.-]*:/)\S*$")
_TABLE_NAME = re.compile(r"^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*){1,3}$")
# Sinks that hand rows to user code or to the screen: no dataset of their own.
_NO_DATASET = {
    "ForeachBatchSink": "foreachBatch",
    "ForeachWriterTable": "foreach",
    "ForeachSink": "foreach",
    "ConsoleTable": "console",
    "ConsoleSink": "console",
    "NoopTable": "noop",
}


def stream_endpoint(
    description: str,
    *,
    query_label: str,
    kafka_servers: str | None,
    warehouse: str,
    kafka_topic: str | None = None,
) -> StreamEndpoint:
    """Name a source or sink from its progress `description` (`FileStreamSource[file:/in]`,
    `KafkaV2[Subscribe[orders]]`, `FileSink[/out]`, `MemorySink`, `ForeachBatchSink`, ...).

    Rate, memory and socket streams have no location: rate and memory ones are named after the
    query (`query_label`), a socket after its address. Kafka topics live in
    `kafka://<first bootstrap server>` (`kafka_servers`, from the source's or the sink's options).
    A Kafka sink's description names no topic: it is `kafka_topic`, the sink's `topic` option; without
    one, each row names its topic (a `topic` column), and the sink is marked unknown."""
    text = description.strip()
    kind_of = text.split("@", 1)[0]
    # Spark's Kafka sink: the V2 `KafkaSourceProvider.KafkaTable`, which does not override toString
    # (`org.apache.spark.sql.kafka010.KafkaSourceProvider$KafkaTable@1a2b3c`), or the V1 `KafkaSink`
    # (toString `KafkaSink`) when V2 writers are disabled.
    if kind_of.endswith("KafkaSourceProvider$KafkaTable") or text == "KafkaSink":
        namespace = _kafka_namespace(kafka_servers)
        if kafka_topic:
            return StreamEndpoint("kafka", (DatasetId(namespace, kafka_topic),))
        return StreamEndpoint("kafka", (DatasetId("unknown", job_segment(f"{namespace} topic per row")),), known=False)
    for marker, kind in _NO_DATASET.items():
        if text.startswith(marker) or f".{marker}" in text.split("@", 1)[0]:
            return StreamEndpoint(kind, ())
    match = _BRACKETED.match(text)
    head, body = (match.group(1), match.group(2).removesuffix("]")) if match else (text, "")
    if head in ("FileStreamSource", "FileSink") and body:
        return StreamEndpoint("file", (dataset_from_uri(body),))
    if head in ("DeltaSource", "DeltaSink") and body:
        return StreamEndpoint("delta", (dataset_from_uri(body),))
    if head in ("KafkaV2", "KafkaSource", "KafkaSourceV1"):
        topics = _kafka_topics(body)
        if topics:
            namespace = _kafka_namespace(kafka_servers)
            return StreamEndpoint("kafka", tuple(DatasetId(namespace, topic) for topic in topics))
    if head.startswith("RateStream") or head.startswith("RatePerMicroBatch") or head == "RateSourceV2":
        return StreamEndpoint("rate", (DatasetId("rate", query_label),))
    if head in ("MemoryStream", "MemorySink", "MemorySinkV2"):
        return StreamEndpoint("memory", (DatasetId("memory", query_label),))
    if head.startswith("TextSocket"):
        found = _SOCKET.search(body)
        if found:
            return StreamEndpoint("socket", (DatasetId(f"socket://{found.group(1).strip()}:{found.group(2)}", "/"),))
    if _LOCATION.match(text):
        # An Iceberg table loaded by its path (`.format("iceberg").start("s3://lake/events")`): Iceberg's
        # `SparkTable.toString` is its table's name, which `HadoopTables.load` sets to the location.
        return StreamEndpoint("table", (dataset_from_uri(text),))
    if _TABLE_NAME.match(text):
        # A catalog table written through DataSource V2 is described by its name: Iceberg's
        # `SparkTable.toString` is `<catalog>.<namespace>.<table>`, a V2 session catalog's `<db>.<table>`.
        return StreamEndpoint("table", (DatasetId(warehouse, text.removeprefix("spark_catalog.")),))
    unsafe = text.split("@", 1)[0]
    return StreamEndpoint("unknown", (DatasetId("unknown", job_segment(unsafe)[:200]),), known=False)


def _kafka_namespace(servers: str | None) -> str:
    first = (servers or "").split(",", 1)[0].strip()
    return f"kafka://{first}" if first else "kafka"


def _kafka_topics(body: str) -> list[str]:
    match = _KAFKA_STRATEGY.match(body.strip())
    if match is None:
        return []
    strategy, items = match.groups()
    names = [item.strip() for item in items.split(",") if item.strip()]
    if strategy == "Assign":
        # `Assign[orders-0, orders-1]`: topic-partition pairs
        names = [name.rsplit("-", 1)[0] for name in names]
    return list(dict.fromkeys(names))
