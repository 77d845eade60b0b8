"""The plan worker: one daemon thread that serialises plans (`toJSON`) on a JVM connection of its own, and warms
Spark's plan serialisation after install, so that neither the job's thread nor the listener thread waits for it."""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("spark_agent")


# Not a `ThreadPoolExecutor`: its threads are not daemons, and the interpreter's exit would wait for a plan being
# serialised; this thread never holds up the job's exit.
_jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
_lock = threading.Lock()
_thread: threading.Thread | None = None


def _forget_in_child() -> None:
    """A forked child has none of the parent's threads: it starts a plan worker of its own when it needs one,
    instead of queueing plans for a thread that is not there and waiting on them for ever."""
    global _jobs, _lock, _thread
    _jobs, _lock, _thread = queue.SimpleQueue(), threading.Lock(), None


os.register_at_fork(after_in_child=_forget_in_child)


def serialise_in_background(plan: Any) -> Future[str]:
    """The JSON of the JVM `plan` (`plan.toJSON()`), made on the plan worker."""
    return _submit(lambda: str(plan.toJSON()))


def warm_in_background(spark: SparkSession) -> Future[None]:
    """Serialise a small plan made of the nodes and expressions jobs use most, on the plan worker; never fails.

    Spark's `toJSON` reads each node's class by Scala reflection, which costs the first time the JVM meets a
    class (and, once per JVM, the reflection universe itself): 100 to 300 ms that the first actions would
    otherwise pay on the listener thread, and the last one in `close()`. The plan is a projection with casts and
    arithmetic, a filter, an aggregate, a join, a window function, a sort and a limit over a one-row `range`,
    made with the DataFrame API (not SQL text, whose parser a job may never load). Making it runs no Spark job
    and reads no data; its `QueryExecution` never executes, so no listener hears of it."""
    return _submit(lambda: _warm(spark))


def _warm(spark: SparkSession) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, StringType

    try:
        base = spark.range(1).select(
            "id",
            (F.col("id") % 2).alias("k"),
            (F.col("id").cast(DoubleType()) * F.rand(1)).alias("v"),
            F.col("id").cast(StringType()).alias("s"),
        )
        totals = base.groupBy("k").agg(F.sum("v").alias("total"), F.count("id").alias("n"))
        joined = base.join(totals, "k").where(F.col("v") > F.col("total") / F.col("n"))
        ranked = joined.withColumn("r", F.row_number().over(Window.partitionBy("k").orderBy(F.desc("v"))))
        plan = ranked.where(F.col("r") <= 10).orderBy("k").limit(10)
        plan._jdf.queryExecution().analyzed().toJSON()
    except Exception:  # a warm-up only saves time: the agent works the same without it
        log.debug("tributary: could not warm Spark's plan serialisation", exc_info=True)


def _submit(call: Callable[[], Any]) -> Future[Any]:
    global _thread
    future: Future[Any] = Future()
    _jobs.put((future, call))
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_work, name="tributary-plan", daemon=True)
            _thread.start()
    return future


def _work() -> None:
    while True:
        future, call = _jobs.get()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            future.set_result(call())
        except BaseException as exc:  # handed to whoever waits for the result
            future.set_exception(exc)
