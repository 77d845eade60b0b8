"""Configuration precedence, dataset and job naming."""

from __future__ import annotations

import pytest

from spark_agent.config import AgentConfig, resolve_config
from spark_agent.naming import child_job_name, dataset_from_jdbc, dataset_from_uri, snake
from spark_agent.plan.model import DatasetId


def test_arguments_win_over_environment_variables() -> None:
    env = {
        "TRIBUTARY_URL": "http://env:8000",
        "TRIBUTARY_TOKEN": "env-token",
        "TRIBUTARY_NAMESPACE": "env-ns",
        "TRIBUTARY_TRANSPORT": "http+spill",
        "TRIBUTARY_FILE_PATH": "/tmp/spill.jsonl",
        "TRIBUTARY_SIGNING_KEY": "/keys/agent.pem",
        "TRIBUTARY_FLUSH_TIMEOUT": "2.5",
        "TRIBUTARY_READ_ACTIONS": "true",
    }
    config = resolve_config({"url": "http://arg:9000", "namespace": None}, env)
    assert config == AgentConfig(
        url="http://arg:9000",
        token="env-token",
        namespace="env-ns",
        transport="http+spill",
        file_path="/tmp/spill.jsonl",
        signing_key_path="/keys/agent.pem",
        flush_timeout_s=2.5,
        read_actions=True,
    )
    assert config.problems() == []


def test_the_transport_defaults_from_what_is_configured() -> None:
    assert resolve_config({}, {"TRIBUTARY_URL": "http://x"}).resolved_transport == "http"
    assert resolve_config({}, {"TRIBUTARY_FILE_PATH": "/tmp/x"}).resolved_transport == "file"
    assert resolve_config({}, {}).problems() == ["no destination: set TRIBUTARY_URL or TRIBUTARY_FILE_PATH"]
    assert resolve_config({"transport": "http+spill", "url": "http://x"}, {}).problems() == [
        "transport http+spill needs TRIBUTARY_FILE_PATH"
    ]
    assert "unknown transport" in resolve_config({"transport": "kafka"}, {}).problems()[0]


def test_unknown_options_are_refused() -> None:
    with pytest.raises(TypeError, match="colour"):
        resolve_config({"colour": "blue"}, {})


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("file:/data/orders/", DatasetId("file", "/data/orders")),
        ("file:///data/orders", DatasetId("file", "/data/orders")),
        ("file://nas01/share/orders", DatasetId("file://nas01", "/share/orders")),
        ("s3a://lake/raw/orders", DatasetId("s3://lake", "raw/orders")),
        ("s3://lake/raw/orders", DatasetId("s3://lake", "raw/orders")),
        ("gs://lake/raw/orders", DatasetId("gs://lake", "raw/orders")),
        (
            "hdfs://namenode:8020/warehouse/orders",
            DatasetId("hdfs://namenode:8020", "/warehouse/orders"),
        ),
        (
            "abfss://raw@acct.dfs.core.windows.net/orders",
            DatasetId("abfss://raw@acct.dfs.core.windows.net", "orders"),
        ),
    ],
)
def test_file_locations_follow_the_naming_spec(uri: str, expected: DatasetId) -> None:
    assert dataset_from_uri(uri) == expected


@pytest.mark.parametrize(
    ("url", "table", "expected"),
    [
        (
            "jdbc:postgresql://db:5433/sales",
            "orders",
            DatasetId("postgres://db:5433", "sales.public.orders"),
        ),
        (
            "jdbc:postgresql://db/sales?ssl=true",
            "crm.orders",
            DatasetId("postgres://db:5432", "sales.crm.orders"),
        ),
        ("jdbc:mysql://db:3306/shop", "orders", DatasetId("mysql://db:3306", "shop.orders")),
        ("jdbc:mariadb://db/shop", "orders", DatasetId("mysql://db:3306", "shop.orders")),
        (
            "jdbc:sqlserver://db:1433;databaseName=dw;encrypt=true",
            "orders",
            DatasetId("sqlserver://db:1433", "dw.dbo.orders"),
        ),
        ("jdbc:oracle:thin:@db:1521/ORCL", "HR.EMP", DatasetId("oracle://db:1521", "ORCL.HR.EMP")),
        ("jdbc:oracle:thin:@//db:1522/svc", "HR.EMP", DatasetId("oracle://db:1522", "svc.HR.EMP")),
        ("jdbc:derby:memory:lake;create=true", "APP.T", DatasetId("derby:memory:lake", "APP.T")),
        (
            "jdbc:postgresql://u:p@db:5432/sales",
            '"crm"."orders"',
            DatasetId("postgres://db:5432", "sales.crm.orders"),
        ),
    ],
)
def test_jdbc_tables_follow_the_naming_spec(url: str, table: str, expected: DatasetId) -> None:
    assert dataset_from_jdbc(url, table) == expected


def test_child_job_names_are_app_verb_target() -> None:
    assert child_job_name("etl", "write_parquet", "cleaned orders") == "etl.write_parquet.cleaned_orders"
    assert child_job_name("etl", "create_table", "default.orders") == "etl.create_table.default_orders"
    assert snake("collectToPython") == "collect_to_python"
