"""The py4j `QueryExecutionListener` that tells the agent about every finished action."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import SparkSession

log = logging.getLogger("spark_agent")
OnAction = Callable[[str, Any, "int | None", Any], None]


class QueryListener:
    """Called on a JVM listener thread after each action; never raises back into Spark."""

    def __init__(self, on_action: OnAction) -> None:
        self._on_action = on_action
        self.active = True
        self.jvm_proxy: Any = None  # the JVM-side proxy, needed to unregister it

    def onSuccess(self, funcName: str, qe: Any, durationNs: int) -> None:
        self._call(funcName, qe, durationNs, None)

    def onFailure(self, funcName: str, qe: Any, exception: Any) -> None:
        self._call(funcName, qe, None, exception)

    def _call(self, func_name: str, qe: Any, duration_ns: int | None, exc: Any) -> None:
        if not self.active:
            return
        try:
            self._on_action(func_name, qe, duration_ns, exc)
        except Exception:
            log.debug("tributary: listener callback failed", exc_info=True)

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]


def register(spark: SparkSession, listener: QueryListener) -> None:
    ensure_callback_server_started(spark.sparkContext._gateway)
    # py4j makes a new JVM proxy each time a Python object is passed; keep the one that
    # gets registered so that `unregister` can name the same object.
    jvm = spark.sparkContext._jvm
    assert jvm is not None  # set when the session's context started its JVM
    listener.jvm_proxy = jvm.java.util.Objects.requireNonNull(listener)
    spark._jsparkSession.listenerManager().register(listener.jvm_proxy)


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
