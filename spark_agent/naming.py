"""Job and dataset names, following the OpenLineage naming specification."""

from __future__ import annotations

import re
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
