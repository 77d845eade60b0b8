"""Structured Streaming: a child run per streaming query, with throttled progress, from a `StreamingQueryListener`."""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import SparkSession

from lineage_protocol import EventType
from spark_agent import facets
from spark_agent.counters import Counters
from spark_agent.ids import new_run_id
from spark_agent.naming import StreamEndpoint, child_job_name, job_segment, path_tail, stream_endpoint
from spark_agent.plan import jvm
from spark_agent.plan.model import DatasetInfo, ErrorInfo

log = logging.getLogger("spark_agent")
Emit = Callable[[dict[str, Any]], None]
_KAFKA_SERVERS = "kafka.bootstrap.servers"


@dataclass
class _Query:
    """What the agent knows of one running query (one start of it)."""

    run_id: str
    query_id: str
    query_run_id: str
    name: str | None
    label: str  # names what has no location of its own (rate, memory): the query's name, else its id
    started_at: float
    job: tuple[str, str]
    handle: Any  # the JVM `StreamExecution`, to name its sources should it fail before any progress
    kafka_servers: str | None
    sink: str | None
    sink_kafka: tuple[str | None, str | None] = (None, None)  # the sink's bootstrap servers and topic options
    sources: list[str] = field(default_factory=list)
    latest: dict[str, Any] = field(default_factory=dict)  # the latest batch's facet fields
    last_emitted: float | None = None  # monotonic time of the last RUNNING event
    unread: bool = False  # the latest batch's progress was throttled, so not read


@dataclass(frozen=True)
class StreamingContext:
    """What the tracker needs from the application run."""

    app_run_id: str
    app_job: tuple[str, str]
    spark_version: str
    warehouse: str
    interval_s: float


class StreamingQueries:
    """The live streaming queries of one application run and the events they emit.

    Every callback is failure-isolated: a problem costs a counted error, never the query."""

    def __init__(self, spark: SparkSession, ctx: StreamingContext, emit: Emit, counters: Counters) -> None:
        self._spark = spark
        self._ctx = ctx
        self._emit = emit
        self._counters = counters
        self._lock = threading.Lock()
        self._live: dict[str, _Query] = {}

    # ----- listener callbacks ------------------------------------------------------------

    def query_started(self, *, query_id: str, query_run_id: str, name: str | None, timestamp: str) -> None:
        handle = _execution(self._spark, query_id)
        sink = _call_text(lambda: handle.sink().toString()) if handle is not None else None
        sink_kafka = _sink_kafka(handle) if handle is not None else (None, None)
        label = job_segment(name) if name else f"query_{query_id[:8]}"
        target = name
        if target is None and sink is not None:
            endpoint = self._endpoint(sink, label, *sink_kafka)
            target = path_tail(endpoint.datasets[0]) if endpoint.known and endpoint.datasets else None
        query = _Query(
            run_id=new_run_id(),
            query_id=query_id,
            query_run_id=query_run_id,
            name=name,
            label=label,
            started_at=_epoch(timestamp),
            job=(self._ctx.app_job[0], child_job_name(self._ctx.app_job[1], "stream", target or label)),
            handle=handle,
            kafka_servers=_kafka_servers(handle) if handle is not None else None,
            sink=sink,
            sink_kafka=sink_kafka,
        )
        with self._lock:
            self._live[query_run_id] = query
        self._counters.add("streaming_queries_total")
        self._emit(self._event(query, EventType.START, query.started_at))

    def query_progress(self, *, query_run_id: str, read_progress: Callable[[], dict[str, Any]]) -> None:
        """A micro-batch ended. Its progress is read (`read_progress`: the JSON Spark keeps of it) only when a
        RUNNING event is due; a throttled one is only counted, and read at the end should it be the latest."""
        with self._lock:
            query = self._live.get(query_run_id)
            if query is None:
                return
            due = self._due(query)
            query.unread = not due
        if not due:
            self._counters.add("streaming_progress_skipped_total")
            return
        progress = read_progress()
        with self._lock:
            self._take_progress(query, progress)
        self._emit(self._event(query, EventType.RUNNING, _epoch(str(progress.get("timestamp")))))

    def _take_progress(self, query: _Query, progress: dict[str, Any]) -> None:
        query.sources = [str(s.get("description", "")) for s in progress.get("sources", [])]
        query.sink = str((progress.get("sink") or {}).get("description") or query.sink or "")
        query.latest = _batch_fields(progress)
        query.unread = False

    def query_idle(self, *, query_run_id: str, timestamp: str) -> None:
        """Spark 3.5 reports an idle query (waiting for data) instead of empty progress: a heartbeat,
        throttled like progress, so that a quiet query is not taken for a stalled one."""
        with self._lock:
            query = self._live.get(query_run_id)
            if query is None:
                return
            due = self._due(query)
        if due:
            self._emit(self._event(query, EventType.RUNNING, _epoch(timestamp), idle=True))
        else:
            self._counters.add("streaming_progress_skipped_total")

    def query_terminated(self, *, query_run_id: str, exception: str | None) -> None:
        with self._lock:
            query = self._live.pop(query_run_id, None)
        if query is None:
            return
        if query.unread and query.handle is not None:
            # The latest batch's progress was throttled: the final event carries it all the same.
            latest = _call_text(lambda: query.handle.lastProgress().json())
            if latest:
                self._take_progress(query, json.loads(latest))
        if not query.sources and query.handle is not None:
            # It failed (or stopped) before its first progress: ask Spark what it was reading.
            sources = _call_text(lambda: "\u0001".join(s.toString() for s in jvm.seq(query.handle.sources())))
            query.sources = [s for s in (sources or "").split("\u0001") if s]
        error = _error_info(exception) if exception else None
        self._emit(self._event(query, EventType.FAIL if error else EventType.COMPLETE, time.time(), error))

    def _due(self, query: _Query) -> bool:
        """Whether a RUNNING event is due (the first at once, then one per interval); marks it sent."""
        now = time.monotonic()
        if query.last_emitted is not None and now - query.last_emitted < self._ctx.interval_s:
            return False
        query.last_emitted = now
        return True

    # ----- the application ends ----------------------------------------------------------

    def abort_all(self) -> None:
        """ABORT every query still running: the application is ending under it."""
        with self._lock:
            queries = list(self._live.values())
            self._live.clear()
        for query in queries:
            self._emit(self._event(query, EventType.ABORT, time.time()))

    # ----- events ------------------------------------------------------------------------

    def _endpoint(
        self, description: str, label: str, kafka_servers: str | None, kafka_topic: str | None = None
    ) -> StreamEndpoint:
        return stream_endpoint(
            description,
            query_label=label,
            kafka_servers=kafka_servers,
            warehouse=self._ctx.warehouse,
            kafka_topic=kafka_topic,
        )

    def _event(
        self, query: _Query, state: EventType, when: float, error: ErrorInfo | None = None, *, idle: bool = False
    ) -> dict[str, Any]:
        sources = [(d, self._endpoint(d, query.label, query.kafka_servers)) for d in query.sources]
        sink = self._endpoint(query.sink, query.label, *query.sink_kafka) if query.sink else None
        unknown = sum(1 for _, e in sources if not e.known) + (1 if sink is not None and not sink.known else 0)
        if unknown and state != EventType.RUNNING:
            self._counters.add("streaming_unknown_endpoints_total", unknown)
        values: dict[str, Any] = {
            "queryId": query.query_id,
            "queryRunId": query.query_run_id,
            **({"queryName": query.name} if query.name else {}),
            "startedAt": facets.iso_time(query.started_at),
            "intervalSeconds": self._ctx.interval_s,
            **query.latest,
            **({"idle": True} if idle else {}),
            "sources": [{"description": d, "kind": e.kind} for d, e in sources],
            **({"sink": {"description": query.sink, "kind": sink.kind}} if sink is not None and query.sink else {}),
            "unknownEndpoints": unknown,
        }
        run_facets = {
            **facets.parent(self._ctx.app_run_id, self._ctx.app_job),
            **facets.processing_engine(self._ctx.spark_version),
            **facets.streaming(values),
            **(facets.error_message(error) if error is not None else {}),
        }
        final = state not in (EventType.START, EventType.RUNNING)
        inputs = _unique(ds for _, e in sources for ds in e.datasets)
        outputs = _unique(sink.datasets) if sink is not None else []
        return facets.run_event(
            state,
            when,
            query.run_id,
            query.job,
            run_facets,
            facets.job_type("SQL_JOB", processing="STREAMING"),
            [facets.dataset(DatasetInfo(id=d), output=False, final=final) for d in inputs],
            [facets.dataset(DatasetInfo(id=d), output=True, final=final) for d in outputs],
        )


class StreamListener:
    """Hands Spark's streaming query events to `StreamingQueries`; never raises back into Spark.

    It takes the JVM's events as they come (py4j), not through PySpark's `StreamingQueryListener`, which
    turns every progress into a Python object field by field, tens of py4j calls per micro-batch, before
    a listener can tell that it is throttled. Here a progress costs two calls, and its JSON a third,
    only when a RUNNING event is due. Spark 3.5 and 4 deliver the same events to this interface."""

    def __init__(self, queries: StreamingQueries, counters: Counters) -> None:
        self._queries = queries
        self._counters = counters
        self.active = True
        self.jvm_wrapper: Any = None  # the JVM-side listener, needed to remove it

    def onQueryStarted(self, event: Any) -> None:
        self._call(
            lambda: self._queries.query_started(
                query_id=str(event.id().toString()),
                query_run_id=str(event.runId().toString()),
                name=_text_or_none(event.name()),
                timestamp=str(event.timestamp()),
            )
        )

    def onQueryProgress(self, event: Any) -> None:
        progress = event.progress()
        self._call(
            lambda: self._queries.query_progress(
                query_run_id=str(progress.runId().toString()), read_progress=lambda: json.loads(str(progress.json()))
            )
        )

    def onQueryIdle(self, event: Any) -> None:
        self._call(
            lambda: self._queries.query_idle(
                query_run_id=str(event.runId().toString()), timestamp=str(event.timestamp())
            )
        )

    def onQueryTerminated(self, event: Any) -> None:
        self._call(
            lambda: self._queries.query_terminated(
                query_run_id=str(event.runId().toString()), exception=_text_or_none(jvm.option(event.exception()))
            )
        )

    def _call(self, callback: Callable[[], None]) -> None:
        if not self.active:
            return
        try:
            callback()
        except Exception:
            self._counters.add("streaming_errors_total")
            log.debug("tributary: streaming listener callback failed", exc_info=True)

    class Java:
        implements = ["org.apache.spark.sql.streaming.PythonStreamingQueryListener"]


def register(spark: SparkSession, listener: StreamListener) -> None:
    ensure_callback_server_started(spark.sparkContext._gateway)
    jvm = spark.sparkContext._jvm
    assert jvm is not None  # set when the session's context started its JVM
    listener.jvm_wrapper = jvm.org.apache.spark.sql.streaming.PythonStreamingQueryListenerWrapper(listener)
    spark._jsparkSession.streams().addListener(listener.jvm_wrapper)


def unregister(spark: SparkSession, listener: StreamListener) -> None:
    listener.active = False
    if listener.jvm_wrapper is not None:
        spark._jsparkSession.streams().removeListener(listener.jvm_wrapper)


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _execution(spark: SparkSession, query_id: str) -> Any:
    """The JVM `StreamExecution` of a live query, or None."""
    try:
        wrapper = spark._jsparkSession.streams().get(query_id)
        return wrapper.streamingQuery() if wrapper is not None else None
    except Exception:
        log.debug("tributary: cannot look up streaming query %s", query_id, exc_info=True)
        return None


def _kafka_servers(handle: Any) -> str | None:
    """The Kafka bootstrap servers among the options of the query's sources, when it reads Kafka."""
    try:
        for leaf in jvm.seq(handle.analyzedPlan().collectLeaves()):
            if jvm.node_name(leaf) == "StreamingRelationV2":
                value = leaf.extraOptions().get(_KAFKA_SERVERS)
                if value:
                    return str(value)
    except Exception:
        log.debug("tributary: cannot read the streaming query's source options", exc_info=True)
    return None


def _sink_kafka(handle: Any) -> tuple[str | None, str | None]:
    """The `kafka.bootstrap.servers` and `topic` options the query was started with, which name a Kafka sink
    (its description does not). Spark keeps a query's `DataStreamWriter` options in the execution's private
    `extraOptions` (MicroBatchExecution, Spark 3.5 and 4), read here by reflection; `logicalPlan().writeOptions()`
    holds them too, but asking for that plan from the start callback, which runs on the query's thread before
    the query builds its plan, would build it there, outside the query's own session. Only these two options
    are read: the others may hold credentials (`kafka.sasl.jaas.config`)."""
    try:
        options = _private_field(handle, "extraOptions")
        if options is None:
            return None, None
        found: dict[str, str] = {}
        for pair in jvm.seq(options.toSeq()):
            key = str(pair._1()).lower()
            if key in (_KAFKA_SERVERS, "topic"):
                found[key] = str(pair._2())
        return found.get(_KAFKA_SERVERS), found.get("topic")
    except Exception:
        log.debug("tributary: cannot read the streaming query's sink options", exc_info=True)
        return None, None


def _private_field(obj: Any, name: str) -> Any:
    """The value of the JVM field `name` of `obj` or of one of its superclasses, None if there is none."""
    cls = obj.getClass()
    while cls is not None:
        for declared in cls.getDeclaredFields():
            if declared.getName() == name:
                declared.setAccessible(True)
                return declared.get(obj)
        cls = cls.getSuperclass()
    return None


def _call_text(read: Callable[[], Any]) -> str | None:
    try:
        return str(read())
    except Exception:
        log.debug("tributary: cannot describe a streaming endpoint", exc_info=True)
        return None


def _batch_fields(progress: dict[str, Any]) -> dict[str, Any]:
    """The latest batch's statistics for the facet; Spark leaves out rates it could not compute."""
    out: dict[str, Any] = {"progressAt": facets.iso_time(_epoch(str(progress.get("timestamp"))))}
    for key in ("batchId", "numInputRows"):
        if isinstance(progress.get(key), int) and progress[key] >= 0:
            out[key] = progress[key]
    for key in ("inputRowsPerSecond", "processedRowsPerSecond"):
        value = progress.get(key)
        if isinstance(value, int | float) and math.isfinite(value) and value >= 0:
            out[key] = float(value)
    took = (progress.get("durationMs") or {}).get("triggerExecution")
    if isinstance(took, int) and took >= 0:
        out["batchDurationMs"] = took
    watermark = (progress.get("eventTime") or {}).get("watermark")
    if watermark:
        out["watermark"] = str(watermark)
    return out


def _epoch(timestamp: str) -> float:
    """Spark's `2026-11-24T00:08:29.873Z` as epoch seconds (now, if it is not one)."""
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


def _error_info(text: str) -> ErrorInfo:
    """The error a query died of: its whole text as the stack trace; as message the Python
    exception line when a Python callback (`foreachBatch`) raised it, else the first line."""
    lines = text.splitlines()
    message = lines[0] if lines else text
    if "Traceback (most recent call last)" in text:
        tail = text.split("Traceback (most recent call last)", 1)[1].splitlines()
        for line in tail[1:]:
            if not line.strip() or line.startswith("\tat "):
                break
            if not line.startswith((" ", "\t")):
                message = line
        return ErrorInfo(message, text, "PYTHON")
    return ErrorInfo(message, text, "JAVA")


def _unique(datasets: Any) -> list[Any]:
    return list(dict.fromkeys(datasets))
