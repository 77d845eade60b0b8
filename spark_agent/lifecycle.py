"""The agent: the application run's lifecycle and a child run for every action."""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
import time
import traceback
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.java_gateway import ensure_callback_server_started
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from lineage_protocol import EventType
from spark_agent import facets, hooks, listener, streaming
from spark_agent.actions import ActionAssembler
from spark_agent.config import AgentConfig, resolve_config
from spark_agent.counters import Counters
from spark_agent.emitter import build_emitter
from spark_agent.ids import new_run_id
from spark_agent.naming import child_job_name, path_tail
from spark_agent.owners import DeclaredOwner, OwnerRules, parse_owner_rules
from spark_agent.plan import worker
from spark_agent.plan.extract import ExtractContext, extract
from spark_agent.plan.model import ActionFacts, DatasetInfo, ErrorInfo

if TYPE_CHECKING:
    from lineage_protocol import Head, StreamChain

log = logging.getLogger("spark_agent")
RUN_ID_COLUMN = "tributary_run_id"
REPORTED = ("events_emitted_total", "events_dropped_total", "events_spilled_total")

# counters-facet field -> agent counter (the application's final event carries totals)
_TOTALS = {
    "recordsIn": "records_in_total",
    "recordsOut": "records_out_total",
    "bytesIn": "bytes_in_total",
    "bytesOut": "bytes_out_total",
    "errorCount": "actions_failed_total",
    "unresolvedColumns": "unresolved_columns_total",
    "unknownPlanNodes": "unknown_plan_nodes_total",
}

_current: Agent | None = None


class ConnectSessionError(TypeError):
    """`install()` was given a Spark Connect client session: lineage has to be taken in the server."""


class Agent:
    """One application run. Use `install()` to create it; `close()` (or process exit) ends it."""

    def __init__(self, spark: SparkSession, config: AgentConfig) -> None:
        started = time.perf_counter()
        self.config = config
        self.counters = Counters()
        app_name = config.app_name or spark.sparkContext.appName
        # Spark refuses to start a context without `spark.app.name`, so a live session has one.
        assert app_name is not None
        self.app_name = app_name
        self.job = (config.namespace, self.app_name)
        self.run_id = new_run_id()
        self._spark = spark
        self._spark_version = spark.version
        self._lock = threading.Lock()
        self._closed = False
        self._error: ErrorInfo | None = None
        self._aborted = False
        for problem in config.problems():
            log.warning("tributary: %s; lineage events will be dropped", problem)
        self._emitter = build_emitter(config, self.counters)
        self._quality: dict[str, dict[str, Any]] = {}  # dataset name -> its reported data-quality facets
        self._dataset_owners = _owner_rules("dataset_owners", config.dataset_owners)
        self._job_owners = _owner_rules("job_owners", config.job_owners)
        self._chain = _chain(_load_signing_key(config.signing_key_path), spark, config)
        self._ctx = ExtractContext(
            jvm=spark.sparkContext._jvm,
            session=spark._jsparkSession,
            warehouse=_warehouse(spark),
            read_actions=config.read_actions,
        )
        self._assembler = ActionAssembler(self._emit_action, config.merge_window_s)
        self._emit(self._app_event(EventType.START, time.time()))
        self._listener = listener.QueryListener(self._on_action, self.counters)
        self._streams = streaming.StreamingQueries(
            spark,
            streaming.StreamingContext(
                app_run_id=self.run_id,
                app_job=self.job,
                spark_version=self._spark_version,
                warehouse=self._ctx.warehouse,
                interval_s=config.streaming_progress_interval_s,
            ),
            self._emit,
            self.counters,
        )
        self._beats_stop = threading.Event()
        if self._chain is not None:
            threading.Thread(target=self._heartbeats, name="tributary-heartbeat", daemon=True).start()
        self._stream_listener = streaming.StreamListener(self._streams, self.counters)
        # Both listeners need py4j's callback server. Each costs the JVM a proxy class and a few round trips: the
        # streaming listener joins on a thread (and JVM connection) of its own while this one registers the
        # action listener, and install returns once both have joined, so that nothing started after it is missed.
        ensure_callback_server_started(spark.sparkContext._gateway)
        streams_joining = threading.Thread(target=self._follow_streams, name="tributary-streams", daemon=True)
        streams_joining.start()
        # With `read_actions`, a read on a DataFrame built before install must be told apart exactly from one
        # that ran before: install waits for the boundary. Otherwise it is settled in the background.
        listener.register(spark, self._listener, settle_in_background=not config.read_actions)
        streams_joining.join()
        # Off this thread: the first actions' plan reads, and the last one's in `close()`, then find Spark's
        # reflection warm.
        worker.warm_in_background(spark)
        hooks.track(self)
        self.counters.add("agent_install_ms", _ms_since(started))

    # ----- public ------------------------------------------------------------------------

    @property
    def session(self) -> SparkSession:
        return self._spark

    @property
    def closed(self) -> bool:
        return self._closed

    def flush(self, timeout_s: float | None = None) -> bool:
        """Deliver everything observed so far; return whether it all went out in time."""
        timeout = self.config.flush_timeout_s if timeout_s is None else timeout_s
        started = time.monotonic()
        listener.drain(self._spark, timeout)
        self._assembler.flush()
        return self._emitter.flush(max(0.0, timeout - (time.monotonic() - started)))

    def close(self, error: BaseException | None = None) -> None:
        """End the application run: FAIL if `error` (or an uncaught exception) was seen,
        ABORT after SIGTERM/SIGINT, else COMPLETE. Flushes within the flush timeout."""
        global _current
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if error is not None:
            self.note_uncaught(error)
        started = time.monotonic()
        timeout = self.config.flush_timeout_s
        listener.drain(self._spark, timeout)
        try:
            listener.unregister(self._spark, self._listener)
        except Exception:  # the session may already be stopped
            log.debug("tributary: could not unregister the listener", exc_info=True)
        try:
            streaming.unregister(self._spark, self._stream_listener)
        except Exception:  # the session may already be stopped
            log.debug("tributary: could not unregister the streaming listener", exc_info=True)
        # A query still running now is cut off by the application's end (or a signal).
        self._streams.abort_all()
        self._assembler.close()
        state = EventType.ABORT if self._aborted else EventType.FAIL if self._error else EventType.COMPLETE
        self._emit(self._app_event(state, time.time()))
        self._beats_stop.set()
        self._heartbeat()
        self._emitter.close(max(0.1, timeout - (time.monotonic() - started)))
        hooks.untrack(self)
        if _current is self:
            _current = None
        self.counters.add("agent_close_ms", _ms_since(started))
        values = self.counters.snapshot()
        report = " ".join(f"{k}={values[k]}" for k in REPORTED)
        cost = (
            f"install {values['agent_install_ms']} ms, {values['actions_total']} actions "
            f"{values['agent_listener_ms_total']} ms on Spark's listener thread, close {values['agent_close_ms']} ms"
        )
        print(f"tributary: {self.job[1]} run {self.run_id} {state}: {report} ({cost})", file=sys.stderr)

    def report_quality(
        self,
        dataset: str,
        *,
        assertions: list[dict[str, Any]] | None = None,
        metrics: dict[str, Any] | None = None,
    ) -> None:
        """Report data-quality results of `dataset` (a path, or a catalog table's name such as
        `default.daily_revenue`): from now on, the final event of every action that reads or writes it
        carries them as the standard `dataQualityAssertions` facet (`assertions`: each with `assertion`,
        `success`, and optionally `column`, `severity`, `actual`, `expected`, `name`) and
        `dataQualityMetrics` facet (`metrics`: `rowCount`, `bytes`, `columnMetrics` …). A later report of
        the same dataset replaces the facets it names."""
        if not isinstance(dataset, str) or not dataset:
            raise ValueError("report_quality needs the dataset's path or table name")
        name = dataset.removeprefix("file:")  # the agent names a file dataset by its path
        found = facets.data_quality(assertions, metrics)
        # The actions run so far are emitted first: Spark tells the agent of an action a little after it ends.
        listener.drain(self._spark, self.config.flush_timeout_s)
        self._assembler.flush()
        with self._lock:
            self._quality[name] = {**self._quality.get(name, {}), **found}

    def note_uncaught(self, exc: BaseException) -> None:
        """Remember why the application is ending (used by `close`)."""
        if isinstance(exc, KeyboardInterrupt):
            self._aborted = True
        elif isinstance(exc, SystemExit):
            if exc.code not in (None, 0):
                self._error = self._error or ErrorInfo(f"SystemExit: {exc.code}", "", "PYTHON")
        elif self._error is None:
            stack = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            self._error = ErrorInfo(f"{type(exc).__name__}: {exc}", stack, "PYTHON")

    def note_signal(self, signum: int) -> None:
        self._aborted = True

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        self.close(exc)

    def _follow_streams(self) -> None:
        try:
            streaming.register(self._spark, self._stream_listener)
        except Exception:
            log.warning("tributary: cannot follow streaming queries; they will have no lineage", exc_info=True)

    # ----- events ------------------------------------------------------------------------

    def _on_action(self, func_name: str, qe: Any, duration_ns: int | None, exc: Any) -> None:
        """Runs on Spark's listener thread, never on the thread that ran the action."""
        started = time.perf_counter()
        try:
            facts = extract(self._ctx, func_name, qe, duration_ns, exc)
        except Exception:
            self.counters.add("extraction_errors_total")
            log.debug("tributary: could not extract lineage for %s", func_name, exc_info=True)
            facts = None
        if facts is not None:
            self._assembler.add(facts)
        self.counters.add("agent_listener_ms_total", _ms_since(started))

    def _emit_action(self, facts: ActionFacts) -> None:
        values = facets.action_counters(facts)
        self._count_action(values)
        target = facts.outputs[0] if facts.outputs else facts.inputs[0] if facts.inputs else None
        target_name = facts.target or (path_tail(target.id) if target else facts.func_name)
        job = (self.config.namespace, child_job_name(self.app_name, facts.verb, target_name))
        run_id = new_run_id()
        run_facets = {
            **facets.parent(self.run_id, self.job),
            **facets.processing_engine(self._spark_version),
        }
        job_facets = {
            **facets.job_type("SQL_JOB"),
            **facets.job_ownership(self._job_owners.owners_for([job[1]])),
        }
        start = facts.end_time - max(facts.duration_s, 0.001)
        with self._lock:
            reported = dict(self._quality)

        def quality(info: DatasetInfo) -> dict[str, Any] | None:
            names = [info.id.name, info.symlink.name if info.symlink is not None else ""]
            return next((reported[name] for name in names if name in reported), None)

        for final in (False, True):
            state = EventType.START if not final else EventType.FAIL if facts.error else EventType.COMPLETE
            extra: dict[str, Any] = {}
            if final:
                extra = facets.counters(values)
                if facts.error:
                    extra.update(facets.error_message(facts.error))
            self._emit(
                facets.run_event(
                    state,
                    facts.end_time if final else start,
                    run_id,
                    job,
                    {**run_facets, **extra},
                    job_facets,
                    [
                        facets.dataset(d, output=False, final=final, owners=self._owners_of(d), quality=quality(d))
                        for d in facts.inputs
                    ],
                    [
                        facets.dataset(d, output=True, final=final, owners=self._owners_of(d), quality=quality(d))
                        for d in facts.outputs
                    ],
                )
            )

    def _owners_of(self, info: DatasetInfo) -> list[DeclaredOwner]:
        names = [info.id.name, info.symlink.name if info.symlink is not None else ""]
        return self._dataset_owners.owners_for(names)

    def _count_action(self, values: dict[str, int]) -> None:
        self.counters.add("actions_total")
        for key, name in _TOTALS.items():
            self.counters.add(name, values[key])

    def _app_event(self, state: EventType, when: float) -> dict[str, Any]:
        run_facets = facets.processing_engine(self._spark_version)
        if state != EventType.START:
            values = self.counters.snapshot()
            run_facets.update(facets.counters({k: values[n] for k, n in _TOTALS.items()}))
        if state == EventType.FAIL and self._error is not None:
            run_facets.update(facets.error_message(self._error))
        job_facets = {
            **facets.job_type("APPLICATION"),
            **facets.job_ownership(self._job_owners.owners_for([self.job[1]])),
        }
        return facets.run_event(state, when, self.run_id, self.job, run_facets, job_facets)

    def _heartbeats(self) -> None:
        while not self._beats_stop.wait(self.config.heartbeat_interval_s):
            self._heartbeat()

    def _heartbeat(self) -> None:
        """Queue a signed heartbeat announcing the chain's head, and keep the head beside the file transport."""
        if self._chain is None:
            return
        try:
            self._emitter.put(self._chain.heartbeat(namespace=self.config.namespace))
            chain_head_keep(self.config, self._chain.head())
        except Exception:  # lineage never hurts the job
            log.warning("tributary: could not send a heartbeat", exc_info=True)

    def _emit(self, event: dict[str, Any]) -> None:
        if self._chain is not None:
            try:
                event = self._chain.sign(event)
            except Exception:
                self.counters.add("events_signing_failed_total")
                log.warning("tributary: could not sign an event; sending it unsigned", exc_info=True)
        self._emitter.put(event)


def install(spark: SparkSession, **options: Any) -> Agent:
    """Start lineage for `spark`: emits the application START now and a child run per action.

    Options (all optional; environment variables fill the gaps): `url`, `token`,
    `namespace`, `transport` (`http`, `file`, `http+spill`), `file_path`,
    `signing_key_path`, `app_name`, `flush_timeout_s`, `read_actions`, `dataset_owners`,
    `job_owners` (pattern -> owner(s): an `ownership` facet on what matches),
    `streaming_progress_interval_s` (a streaming query's RUNNING events: at most one per this).

    Raises `ConnectSessionError` (a `TypeError`) for a Spark Connect client session, which has no
    JVM to listen to."""
    global _current
    _require_classic(spark)
    agent = Agent(spark, resolve_config(options))
    _current = agent
    return agent


def current_agent() -> Agent | None:
    """The most recently installed agent that is still running."""
    return _current


def counters() -> dict[str, int]:
    """The current agent's counters (`events_emitted_total`, `events_dropped_total`, ...)."""
    agent = _current
    return agent.counters.snapshot() if agent is not None else {}


def with_run_id(df: DataFrame, column: str = RUN_ID_COLUMN) -> DataFrame:
    """`df` plus a column holding the current application run id."""
    agent = _current
    if agent is None:
        raise RuntimeError("spark_agent.install(spark) must be called before with_run_id()")
    return df.withColumn(column, F.lit(agent.run_id))


def _require_classic(spark: SparkSession) -> None:
    """The agent listens in the driver's JVM through py4j. A Spark Connect client session
    (`builder.remote(...)`, `SPARK_REMOTE`, or Spark 4's `spark.api.mode=connect`) runs its
    queries in a server process and has no JVM here: PySpark raises `AttributeError` for its
    `_jsparkSession`, which `getattr` turns into `None`."""
    if getattr(spark, "_jsparkSession", None) is None:
        kind = f"{type(spark).__module__}.{type(spark).__qualname__}"
        raise ConnectSessionError(
            f"spark_agent needs a classic SparkSession, whose driver JVM runs in this process; {kind} "
            "is a Spark Connect client session (builder.remote(...), SPARK_REMOTE or spark.api.mode=connect), "
            "whose queries run in the Connect server: lineage has to be taken there"
        )


def _ms_since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _warehouse(spark: SparkSession) -> str:
    return str(spark.conf.get("spark.sql.warehouse.dir", "spark-warehouse"))


def _owner_rules(option: str, value: Any) -> OwnerRules:
    try:
        return parse_owner_rules(value)
    except ValueError as exc:
        log.warning("tributary: ignoring %s: %s", option, exc)
        return OwnerRules()


def _chain(key: Any, spark: SparkSession, config: AgentConfig) -> StreamChain | None:
    """The application's signing chain (`None` without a key): a new stream per application, following the
    head kept beside the file transport or spill by the application before it (docs/ledger.md)."""
    if key is None:
        return None
    from lineage_protocol import StreamChain  # signing's modules load only when there is a key

    try:
        app_id = re.sub(r"[^A-Za-z0-9._:@-]", "-", str(spark.sparkContext.applicationId))[:100]
        return StreamChain(key, f"spark:{app_id}:{uuid.uuid4().hex[:8]}", after=chain_head_kept(config))
    except Exception:
        log.warning("tributary: cannot start a signing chain; events will be unsigned", exc_info=True)
        return None


def chain_head_kept(config: AgentConfig) -> Head | None:
    """The head the previous application kept beside the file transport, if there is one and it reads."""
    if not config.file_path:
        return None
    from lineage_protocol import Head

    try:
        kept = json.loads(_head_path(config.file_path).read_text())
        return Head(str(kept["stream"]), int(kept["seq"]), kept["hash"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def chain_head_keep(config: AgentConfig, head: Head) -> None:
    """Keep `head` beside the file transport (replaced atomically) for the next application's stream to name."""
    if not config.file_path or head.seq == 0:
        return
    path = _head_path(config.file_path)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"stream": head.stream, "seq": head.seq, "hash": head.hash}))
    os.replace(partial, path)


def _head_path(file_path: str) -> Path:
    """`.<file name>.chain-head` in the file's directory: hidden, so `ship` never sends it."""
    path = Path(file_path)
    return path.with_name(f".{path.name}.chain-head")


def _load_signing_key(path: str | None) -> Any:
    if not path:
        return None
    try:
        from lineage_protocol import load_private_key

        return load_private_key(path)
    except Exception:
        log.warning("tributary: cannot load signing key %s; events will be unsigned", path, exc_info=True)
        return None
