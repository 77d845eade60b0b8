"""One `neo4j` driver per process, created lazily (so after Celery forks) and closed at exit."""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from neo4j import Driver, GraphDatabase, ManagedTransaction, NotificationDisabledClassification, Result
from neo4j.exceptions import ServiceUnavailable, SessionExpired, TransientError

from lineage_app.observability.metrics import GRAPH_QUERY_SECONDS, GRAPH_RETRIES, retry_reason

T = TypeVar("T")
# The graph engine is down, restarting or busy: work that failed with one of these succeeds once it is back.
GRAPH_UNAVAILABLE = (ServiceUnavailable, SessionExpired, TransientError)

# Notifications the engine need not send: a statement naming a label, relationship type or property no node or edge
# has yet (`UNRECOGNIZED`). A graph without Spark applications, quality checks or subsets lacks some of them, and
# Neo4j then answered every lineage read with about 30 of these, each logged as a warning (about 30 KB of log a
# read); deprecations and performance notes (a cartesian product) still come through. Both engines take it.
QUIET_NOTIFICATIONS = [NotificationDisabledClassification.UNRECOGNIZED]

_lock = threading.Lock()
_driver: Driver | None = None


def graph_driver() -> Driver:
    """The process's driver; built on first use from the `NEO4J_*` settings."""
    global _driver
    with _lock:
        if _driver is None:
            _driver = GraphDatabase.driver(
                settings.NEO4J_URI,
                auth=(settings.NEO4J_USER, settings.NEO4J_PASSWORD),
                connection_timeout=5,
                max_transaction_retry_time=15,
                notifications_disabled_classifications=QUIET_NOTIFICATIONS,
            )
        return _driver


def graph_driver_reset() -> None:
    """Drop the driver (after a fork, or when settings change in tests)."""
    global _driver
    with _lock:
        if _driver is not None:
            _driver.close()
        _driver = None


def graph_read(work: Callable[[ManagedTransaction], T]) -> T:
    """Run a retry-safe read function in a managed read transaction."""
    # Timed from the first attempt to the last retry: what the caller waits (the session is pooled).
    with (
        graph_driver().session(database=settings.NEO4J_DATABASE) as session,
        GRAPH_QUERY_SECONDS.labels(kind="read").time(),
    ):
        return session.execute_read(_counting_retries(work, "read"))


def graph_write(work: Callable[[ManagedTransaction], T]) -> T:
    """Run a retry-safe write function in a managed write transaction."""
    # Timed from the first attempt to the last retry: what the caller waits (the session is pooled).
    with (
        graph_driver().session(database=settings.NEO4J_DATABASE) as session,
        GRAPH_QUERY_SECONDS.labels(kind="write").time(),
    ):
        return session.execute_write(_counting_retries(work, "write"))


def _counting_retries(work: Callable[[ManagedTransaction], T], kind: str) -> Callable[[ManagedTransaction], T]:
    """`work`, counting each time the driver runs it again (`GRAPH_RETRIES`): after a transient error
    (a deadlock, a lock wait that timed out) or a lost connection, raised by `work` or by the commit."""
    # Why the previous attempt failed: None before the first; "commit" when `work` returned and the commit failed.
    failure: str | None = None

    def attempt(tx: ManagedTransaction) -> T:
        nonlocal failure
        if failure is not None:
            GRAPH_RETRIES.labels(kind=kind, reason=failure).inc()
        failure = "commit"
        try:
            return work(tx)
        except Exception as exc:
            failure = retry_reason(exc)
            raise

    return attempt


class StatementRows(list[Any]):
    """A statement's list parameter, whose `repr` is its length. The driver (neo4j 6.4) builds the text of a debug
    log line with the `repr` of every RUN's parameters whether or not debug logging is on: a batch's rows, hundreds
    of kilobytes, cost about 5 % of apply's time to describe for a line nobody reads (docs/apply-throughput.md). The
    engine receives the same list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def _handed_over(params: dict[str, Any]) -> dict[str, Any]:
    """`params` as the driver gets them: each list a `StatementRows` copy, anything else as it is."""
    return {name: StatementRows(value) if isinstance(value, list) else value for name, value in params.items()}


def statement_run(tx: ManagedTransaction, query: str, **params: Any) -> Result:
    """Run `query` in `tx`, each list parameter handed over as `StatementRows` (a copy)."""
    return tx.run(query, _handed_over(params))


def records(tx: ManagedTransaction, query: str, **params: Any) -> list[dict[str, Any]]:
    """Run `query` in `tx` and return its rows as plain dicts.

    Statements here return only plain values (scalars, lists, maps), never node or relationship
    objects, so rows are built straight from the values: `Record.data()` would walk every nested
    value again to convert graph objects, which costs more than the query on large answers.

    The driver keeps every statement's parameters until its transaction ends (with the statement's result,
    consumed at commit): the lists passed are copies (`statement_run`'s), emptied once the answer is read, so a
    transaction that runs a statement per chunk of keys (a walk) does not hold every chunk it asked about.
    """
    handed = _handed_over(params)
    result = tx.run(query, handed)
    keys = result.keys()
    rows = [dict(zip(keys, record, strict=True)) for record in result]
    for value in handed.values():
        if isinstance(value, StatementRows):
            value.clear()
    return rows


def graph_ping() -> bool:
    """Whether the graph engine answers a trivial query, asked once: a health probe must answer
    within its own timeout, not wait out the driver's retries of a managed transaction (15 s)."""
    try:
        with graph_driver().session(database=settings.NEO4J_DATABASE) as session:
            session.run("RETURN 1 AS ok").consume()
    except Exception:
        return False
    return True


atexit.register(graph_driver_reset)
