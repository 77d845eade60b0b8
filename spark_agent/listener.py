"""The py4j `QueryExecutionListener` that tells the agent about every finished action."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import SparkSession

from spark_agent.counters import Counters

log = logging.getLogger("spark_agent")
OnAction = Callable[[str, Any, "int | None", Any], None]
# How long `register` waits for Spark's listener bus to deliver what ended before it.
INSTALL_DRAIN_TIMEOUT_S = 5.0


class QueryListener:
    """Called on a JVM listener thread after each action; never raises back into Spark.

    Spark's listener bus is asynchronous: the end of an action that ran before `register`
    can still be queued when the listener joins it, and an action can be running then.
    Neither started after the agent was installed, so neither is passed on (`register` says
    which they are; `actions_before_install_total` counts them)."""

    def __init__(self, on_action: OnAction, counters: Counters) -> None:
        self._on_action = on_action
        self._counters = counters
        self.active = True
        self.jvm_proxy: Any = None  # the JVM-side proxy, needed to unregister it
        self._lock = threading.Lock()
        self._mark: int | None = None  # the next QueryExecution id when registered
        self._running: set[int] = set()  # QueryExecution ids executing when registered
        self._drained = False  # every action that ended before `register` has been seen

    def onSuccess(self, funcName: str, qe: Any, durationNs: int) -> None:
        self._call(funcName, qe, durationNs, None)

    def onFailure(self, funcName: str, qe: Any, exception: Any) -> None:
        self._call(funcName, qe, None, exception)

    def _call(self, func_name: str, qe: Any, duration_ns: int | None, exc: Any) -> None:
        if not self.active:
            return
        try:
            if self._started_before_install(qe):
                self._counters.add("actions_before_install_total")
                log.debug("tributary: %s (query execution %s) started before install; not reported", func_name, qe.id())
                return
            self._on_action(func_name, qe, duration_ns, exc)
        except Exception:
            log.debug("tributary: listener callback failed", exc_info=True)

    def _started_before_install(self, qe: Any) -> bool:
        """A `QueryExecution` is made before its first execution starts and ids only grow, so
        one numbered from the mark on was made, and ran, after registration. An older one (a
        DataFrame built earlier) ran before install if it was executing at registration, or
        if its end reached the listener before the bus was drained."""
        qe_id = int(qe.id())
        with self._lock:
            if self._mark is None:  # still registering: whatever arrives now ended before
                return True
            if qe_id >= self._mark:
                return False
            if not self._drained:
                return True
            if qe_id in self._running:
                self._running.discard(qe_id)
                return True
            return False

    def _opened(self, mark: int) -> None:
        with self._lock:
            self._mark = mark

    def _running_found(self, running: set[int]) -> None:
        with self._lock:
            self._running = {i for i in running if self._mark is not None and i < self._mark}

    def _drain_done(self) -> None:
        with self._lock:
            self._drained = True

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]


def register(
    spark: SparkSession,
    listener: QueryListener,
    drain_timeout_s: float = INSTALL_DRAIN_TIMEOUT_S,
    *,
    settle_in_background: bool = False,
) -> None:
    """Register `listener`; it passes on only actions that start after this returns.

    The order matters: once registered, the next `QueryExecution` id is the mark (every
    action started from then on has it or a larger one, or an older DataFrame's); the executions
    running then are remembered; draining the bus delivers every end posted before.

    Finding the running executions and draining the bus take a py4j reflection walk and a wait
    (tens to hundreds of milliseconds in a fresh driver). With `settle_in_background` they run on a
    thread of their own and `register` returns once the mark is taken: until they are done, an action
    on a DataFrame built before install is taken for one that ran before install. Only actions that
    reuse an older DataFrame's execution (reads such as `collect`, not writes, which always get a new
    one) can be affected, in the first moments after install."""
    ensure_callback_server_started(spark.sparkContext._gateway)
    # py4j makes a new JVM proxy each time a Python object is passed; keep the one that
    # gets registered so that `unregister` can name the same object.
    jvm = spark.sparkContext._jvm
    assert jvm is not None  # set when the session's context started its JVM
    listener.jvm_proxy = jvm.java.util.Objects.requireNonNull(listener)
    spark._jsparkSession.listenerManager().register(listener.jvm_proxy)
    listener._opened(_next_query_execution_id(spark, jvm))

    def settle() -> None:
        listener._running_found(_running_query_ids(jvm))
        if not drain(spark, drain_timeout_s):
            log.debug(
                "tributary: Spark's listener bus did not drain in %.1f s at install; an action that ended "
                "just before may be reported",
                drain_timeout_s,
            )
        listener._drain_done()

    if settle_in_background:
        threading.Thread(target=settle, name="tributary-install", daemon=True).start()
    else:
        settle()


def _next_query_execution_id(spark: SparkSession, jvm: Any) -> int:
    """The id the next `QueryExecution` will get: Spark numbers them from an `AtomicLong` in
    `QueryExecution`'s companion object (private in 3.5 and 4, hence reflection: a few py4j calls).
    Should that field not be there, a plan is made to take an id (tens of milliseconds)."""
    try:
        cls = jvm.java.lang.Class.forName("org.apache.spark.sql.execution.QueryExecution$")
        field = cls.getDeclaredField("_nextExecutionId")
        field.setAccessible(True)
        counter = field.get(cls.getField("MODULE$").get(None))  # an `AtomicLong`
        # py4j hands a `java.lang.Number` over as its value (an `AtomicLong` too, in the py4j of Spark 3.5).
        return int(counter if isinstance(counter, int) else counter.get())
    except Exception:
        log.debug("tributary: cannot read the next query execution id; making a plan for one", exc_info=True)
        return int(spark._jsparkSession.range(0).queryExecution().id())


def _running_query_ids(jvm: Any) -> set[int]:
    """The ids of the `QueryExecution`s executing now: Spark's `SQLExecution` keeps them in a
    map by execution id while they run (private in 3.5, hence reflection)."""
    try:
        cls = jvm.java.lang.Class.forName("org.apache.spark.sql.execution.SQLExecution$")
        field = cls.getDeclaredField("executionIdToQueryExecution")
        field.setAccessible(True)
        running = field.get(cls.getField("MODULE$").get(None))  # a ConcurrentHashMap
        # py4j shows a Java map as a Python mapping whose `values()` looks keys up again, with
        # Python ints that do not equal Java's Long keys: take the values on the Java side.
        return {int(qe.id()) for qe in jvm.java.util.Collections.list(running.elements())}
    except Exception:
        log.debug("tributary: cannot list the executions running at install", exc_info=True)
        return set()


def unregister(spark: SparkSession, listener: QueryListener) -> None:
    listener.active = False
    if listener.jvm_proxy is not None:
        spark._jsparkSession.listenerManager().unregister(listener.jvm_proxy)


def drain(spark: SparkSession, timeout_s: float) -> bool:
    """Wait until Spark's listener bus has delivered every pending event."""
    sc = spark.sparkContext
    if getattr(sc, "_jsc", None) is None:
        return True
    try:
        sc._jsc.sc().listenerBus().waitUntilEmpty(int(timeout_s * 1000))
        return True
    except Exception:
        return False
