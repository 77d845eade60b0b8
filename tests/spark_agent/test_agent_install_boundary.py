"""An agent reports only the actions that start after `install()`: Spark's listener bus is
asynchronous, so an action's end can reach a listener registered after the action ran."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_support import EventValidator, read_events
from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import functions as F

import spark_agent


class _Gate:
    """A `QueryExecutionListener` that holds Spark's shared listener queue in its first callback
    until released, so the ends of the actions after it wait in the queue, as they do on a busy
    driver."""

    def __init__(self) -> None:
        self.holding = threading.Event()
        self.release = threading.Event()

    def onSuccess(self, funcName: str, qe: Any, durationNs: int) -> None:
        self._hold()

    def onFailure(self, funcName: str, qe: Any, exception: Any) -> None:
        self._hold()

    def _hold(self) -> None:
        if not self.holding.is_set():
            self.holding.set()
            self.release.wait(60)

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]


@contextlib.contextmanager
def _queue_held(spark: Any) -> Iterator[_Gate]:
    """Spark's listener queue is held from here until a new `QueryExecutionListener` joins the
    session (the agent's, in `install()`), then let go."""
    ensure_callback_server_started(spark.sparkContext._gateway)
    gate = _Gate()
    manager = spark._jsparkSession.listenerManager()
    proxy = spark.sparkContext._jvm.java.util.Objects.requireNonNull(gate)
    manager.register(proxy)
    listeners = len(manager.listListeners())

    def release_once_another_joins() -> None:
        deadline = time.monotonic() + 60
        while len(manager.listListeners()) <= listeners and time.monotonic() < deadline:
            time.sleep(0.005)
        gate.release.set()

    try:
        spark.range(1).collect()  # its end is the one the gate holds the queue in
        assert gate.holding.wait(30), "the gate was never called"
        threading.Thread(target=release_once_another_joins, daemon=True).start()
        yield gate
    finally:
        gate.release.set()
        manager.unregister(proxy)


def _events(path: Path, validator: EventValidator) -> list[dict[str, Any]]:
    events = read_events(path)
    for event in events:
        validator.validate(event)
    return events


def _job_names(events: list[dict[str, Any]]) -> list[str]:
    return sorted({e["job"]["name"] for e in events})


def test_a_write_that_ended_before_install_but_was_still_queued_is_not_a_child_run(
    spark: Any, tmp_path: Path, validator: EventValidator
) -> None:
    path = tmp_path / "events.jsonl"
    with _queue_held(spark):
        spark.range(3).write.parquet(str(tmp_path / "before"))
        agent = spark_agent.install(spark, app_name="boundary", transport="file", file_path=str(path))
    spark.range(2).write.parquet(str(tmp_path / "after"))
    agent.close()

    events = _events(path, validator)
    assert _job_names(events) == ["boundary", "boundary.write_parquet.after"]
    assert agent.counters.get("actions_before_install_total") == 1
    app_complete = next(e for e in events if e["job"]["name"] == "boundary" and e["eventType"] == "COMPLETE")
    assert app_complete["run"]["facets"]["tributary_counters"]["recordsOut"] == 2


def test_a_write_still_running_at_install_is_not_a_child_run(
    spark: Any, tmp_path: Path, validator: EventValidator
) -> None:
    started, proceed = tmp_path / "started", tmp_path / "proceed"

    def wait_for_install(value: int) -> int:  # runs in a Python worker
        import os
        import time

        open(started, "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(proceed) and time.monotonic() < deadline:
            time.sleep(0.01)
        return value

    slow = spark.range(1, numPartitions=1).select(F.udf(wait_for_install, "long")("id").alias("id"))
    errors: list[BaseException] = []

    def write() -> None:
        try:
            slow.write.parquet(str(tmp_path / "during"))
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    path = tmp_path / "events.jsonl"
    agent = spark_agent.install(spark, app_name="boundary", transport="file", file_path=str(path))
    proceed.touch()
    writer.join(60)
    assert not writer.is_alive() and errors == []
    spark.range(2).write.parquet(str(tmp_path / "after"))
    agent.close()

    assert _job_names(_events(path, validator)) == ["boundary", "boundary.write_parquet.after"]
    assert agent.counters.get("actions_before_install_total") == 1


@pytest.mark.parametrize("ran_before", [False, True], ids=["first_run_after", "also_ran_before"])
def test_a_dataframe_built_before_install_is_reported_when_its_action_runs_after(
    spark: Any, tmp_path: Path, validator: EventValidator, ran_before: bool
) -> None:
    """Its `QueryExecution` is older than the agent; the action still started after install."""
    source = str(tmp_path / "source")
    spark.range(4).write.parquet(source)
    df = spark.read.parquet(source).where("id > 0")
    if ran_before:
        assert len(df.collect()) == 3
    spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(10_000)  # nothing earlier is pending
    path = tmp_path / "events.jsonl"
    agent = spark_agent.install(spark, app_name="boundary", transport="file", file_path=str(path), read_actions=True)
    assert len(df.collect()) == 3
    agent.close()

    events = _events(path, validator)
    app, read = _job_names(events)  # the read is `collect_to_python` on 3.5; its name is not the point
    assert app == "boundary" and read.startswith("boundary.collect") and read.endswith(".source")
    assert len({e["run"]["runId"] for e in events if e["job"]["name"] == read}) == 1
    assert agent.counters.get("actions_before_install_total") == 0


def test_the_boundary_is_spark_s_next_execution_id_read_without_making_a_plan(spark: Any) -> None:
    from spark_agent import listener

    jvm = spark.sparkContext._jvm
    mark = listener._next_query_execution_id(spark, jvm)
    # Reading it again takes no id: no plan was made for it.
    assert listener._next_query_execution_id(spark, jvm) == mark
    assert int(spark.range(1)._jdf.queryExecution().id()) == mark
