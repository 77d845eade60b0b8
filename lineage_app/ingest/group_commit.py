"""Group commit: concurrent single-event accepts in one process share one transaction.

A commit's cost is dominated by the flush to disk, so N requests arriving together pay for
one flush instead of N. Each request still waits for the commit that holds its event before
it is answered: accept still means durable. Messages to the workers go out from a publisher
thread of their own (`Publisher`), so no request waits on the broker, and one message covers
every group (and batch) committed meanwhile.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from functools import cache
from typing import TYPE_CHECKING, Any

from django.db import connection

if TYPE_CHECKING:
    from lineage_app.ingest.services import Accepted

MAX_GROUP = 256
# How long a group stays open for more events after its first: a little latency buys fewer
# commits and fewer broker messages when requests arrive together (PostgreSQL's commit_delay).
GATHER_SECONDS = 0.002
ANSWER_TIMEOUT_SECONDS = 60
# How long the committer keeps its database connection with nothing to commit.
IDLE_CONNECTION_SECONDS = 2.0
# How long the publisher gathers committed ids into one message: costs the workers at most this
# much latency, and bounds the web process's broker messages to ten a second.
PUBLISH_GATHER_SECONDS = 0.1


class _BackgroundThread:
    """A daemon thread running `target`, started on first use (so after any fork) and again if it died."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self._target, self._name = target, name
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def ensure_running(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._target, name=self._name, daemon=True)
                self._thread.start()


class GroupCommitter:
    """One committer thread per process, started on first use (after any fork)."""

    def __init__(self) -> None:
        self._queue: queue.Queue[tuple[Any, Future[Accepted]]] = queue.Queue()
        self._thread = _BackgroundThread(self._run, "event-log-committer")

    def submit(self, row: Any) -> Accepted:
        answer: Future[Accepted] = Future()
        self._queue.put((row, answer))
        self._thread.ensure_running()
        return answer.result(timeout=ANSWER_TIMEOUT_SECONDS)

    def _run(self) -> None:
        from lineage_app.ingest.services import events_insert

        while True:
            group = [self._first_of_group()]
            closes = time.monotonic() + GATHER_SECONDS
            while len(group) < MAX_GROUP:
                try:
                    group.append(self._queue.get(timeout=max(0.0, closes - time.monotonic())))
                except queue.Empty:
                    break
            try:
                answers, new_ids = events_insert(rows=[row for row, _ in group])
            except Exception as exc:  # every waiting request gets the failure, none is left hanging
                connection.close()  # the next group starts on a fresh connection
                for _, answer in group:
                    answer.set_exception(exc)
                continue
            for (_, answer), accepted in zip(group, answers, strict=True):
                answer.set_result(accepted)
            if new_ids:
                publisher().add(new_ids)

    def _first_of_group(self) -> tuple[Any, Future[Accepted]]:
        """The next submitted row; the committer's database connection is let go while none comes."""
        while True:
            try:
                return self._queue.get(timeout=IDLE_CONNECTION_SECONDS)
            except queue.Empty:
                connection.close()


class Publisher:
    """Tells the workers about committed events: one message for everything committed while the
    previous message was being sent, and at most one per `PUBLISH_GATHER_SECONDS`.

    A message costs the web process far more than a commit does, and a worker applies whatever
    is pending when it runs anyway. Ids still waiting here when the process stops are durable
    in the log: the sweeper hands them on.
    """

    def __init__(self) -> None:
        self._ids: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
        self._thread = _BackgroundThread(self._run, "event-log-publisher")

    def add(self, event_ids: list[int]) -> None:
        self._ids.put(event_ids)
        self._thread.ensure_running()

    def _run(self) -> None:
        from lineage_app.ingest.services import events_enqueue

        while True:
            event_ids = list(self._ids.get())
            time.sleep(PUBLISH_GATHER_SECONDS)
            while True:
                try:
                    event_ids.extend(self._ids.get_nowait())
                except queue.Empty:
                    break
            events_enqueue(event_ids=sorted(event_ids))


@cache
def group_committer() -> GroupCommitter:
    return GroupCommitter()


@cache
def publisher() -> Publisher:
    return Publisher()
