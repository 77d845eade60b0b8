"""The plan worker serialises plans off the calling thread, and its warm-up after install never fails a job."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

from pyspark.sql import functions as F

from spark_agent.plan import worker


def test_a_plan_is_serialised_on_the_worker_thread(spark: Any) -> None:
    plan = spark.range(3).where(F.col("id") > 1)._jdf.queryExecution().analyzed()
    seen: list[str] = []
    original = plan.toJSON

    class Spy:
        def toJSON(self) -> Any:
            seen.append(threading.current_thread().name)
            return original()

    text = worker.serialise_in_background(Spy()).result(timeout=60)
    assert seen == ["tributary-plan"]
    assert json.loads(text) == json.loads(str(plan.toJSON()))


def test_a_failing_serialisation_is_handed_to_the_caller_and_the_worker_goes_on(spark: Any) -> None:
    class Broken:
        def toJSON(self) -> Any:
            raise RuntimeError("no plan")

    failed = worker.serialise_in_background(Broken())
    assert isinstance(failed.exception(timeout=60), RuntimeError)
    plan = spark.range(1)._jdf.queryExecution().analyzed()
    assert json.loads(worker.serialise_in_background(plan).result(timeout=60))


def test_the_warm_up_runs_no_spark_job_and_never_fails(spark: Any) -> None:
    tracker = spark.sparkContext.statusTracker()
    jobs_before = len(tracker.getJobIdsForGroup(None))
    worker.warm_in_background(spark).result(timeout=120)
    assert len(tracker.getJobIdsForGroup(None)) == jobs_before

    class Stopped:
        def range(self, *args: Any) -> Any:
            raise RuntimeError("the session is stopped")

    assert worker.warm_in_background(Stopped()).result(timeout=60) is None  # type: ignore[arg-type]


def test_a_forked_child_serialises_on_a_plan_worker_of_its_own() -> None:
    """The child of a fork after the worker started would otherwise queue for a thread it does not have."""
    assert worker._submit(lambda: "parent").result(timeout=5) == "parent"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return into pytest
        try:
            answer = worker._submit(lambda: "child").result(timeout=5)
        except BaseException as exc:
            answer = repr(exc)
        os.write(write, answer.encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 100) == b"child"
