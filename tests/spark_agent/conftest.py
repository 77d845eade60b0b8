"""Fixtures for the agent tests: one shared local SparkSession and event recorders."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, Recorded, read_events

import spark_agent
from tests.recording_server import RecordingServer

for var in list(os.environ):
    if var.startswith("TRIBUTARY_"):
        del os.environ[var]


@pytest.fixture
def seed(spark: Any, tmp_path: Path) -> str:
    """A parquet file of three orders (id, customer_id, price); a test module may seed its own instead."""
    path = str(tmp_path / "seed")
    rows = [(1, 10, 2.5), (2, 20, 4.0), (3, 10, 1.5)]
    spark.createDataFrame(rows, "id INT, customer_id INT, price DOUBLE").coalesce(1).write.parquet(path)
    return path


@pytest.fixture(scope="session")
def validator() -> EventValidator:
    return EventValidator()


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from pyspark.sql import SparkSession

    base = tmp_path_factory.mktemp("spark")
    session = (
        SparkSession.builder.master("local[2]")
        .appName("agent-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(base / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={base}")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def record(
    spark: Any, tmp_path: Path, validator: EventValidator
) -> Callable[..., contextlib.AbstractContextManager[Recorded]]:
    """`with record() as events:` runs its body under a fresh agent writing to a file;
    afterwards `events` holds every event emitted, each validated against the spec."""

    @contextlib.contextmanager
    def _record(app_name: str = "app", **options: Any) -> Iterator[Recorded]:
        path = tmp_path / f"{app_name}.jsonl"
        options = {"transport": "file", "file_path": str(path), **options}
        events = Recorded()
        agent = spark_agent.install(spark, app_name=app_name, **options)
        error: BaseException | None = None
        try:
            yield events
        except BaseException as exc:
            error = exc
            raise
        finally:
            agent.close(error)
            events.extend(read_events(path))
            for event in events:
                validator.validate(event)

    return _record


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    srv = RecordingServer()
    yield srv
    srv.stop()
