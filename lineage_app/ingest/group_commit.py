"""Group commit: concurrent single-event accepts in one process share one transaction.

A commit's cost is dominated by the flush to disk, so N requests arriving together pay for
one flush instead of N. There is no committer thread: the first request to find no commit
under way leads, and stores every row waiting (its own and those that arrived while the
previous group committed) in one call of the `store` it was given; the others wait for that
call and are answered from it. Each request still returns only after the transaction holding
its row has committed: accept still means durable. Messages to the workers go out from a
publisher thread of their own (`Publisher`), so no request waits on the broker, and one message
covers every group (and batch) committed meanwhile.

Neither class knows what it stores or how it tells the workers: `lineage_app.ingest.services`
hands them its functions, so this module imports nothing of the app.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Generic, TypeVar

Row = TypeVar("Row")
Answer = TypeVar("Answer")

MAX_GROUP = 256
# How long a leader keeps its group open for more rows before storing it: a little latency buys
# fewer commits and fewer broker messages when requests arrive together (PostgreSQL's commit_delay).
GATHER_SECONDS = 0.002
ANSWER_TIMEOUT_SECONDS = 60
# How long the publisher gathers committed ids into one message: costs the workers at most this
# much latency, and bounds the web process's broker messages to ten a second.
PUBLISH_GATHER_SECONDS = 0.1


class GroupCommitter(Generic[Row, Answer]):
    """Stores rows submitted concurrently in shared calls of `store`, one call at a time.

    `store` takes rows and answers each, in order, once they are committed; it must commit in a
    transaction of its own (a durable one), or a leader inside a larger transaction would answer
    the other callers before their rows are durable.
    """

    def __init__(self, store: Callable[[Sequence[Row]], list[Answer]]) -> None:
        self._store = store
        self._waiting: list[tuple[Row, Future[Answer]]] = []
        self._waiting_lock = threading.Lock()
        self._commit_lock = threading.Lock()

    def submit(self, row: Row) -> Answer:
        """Store `row`, with whatever else is waiting; returns its answer once it is committed."""
        answer: Future[Answer] = Future()
        with self._waiting_lock:
            self._waiting.append((row, answer))
        while not answer.done():
            # The holder of the commit lock is storing a group. Once it lets go, this row was either
            # in that group (answered) or still waits, and then this caller leads the next group.
            if not self._commit_lock.acquire(timeout=ANSWER_TIMEOUT_SECONDS):
                raise TimeoutError(f"no commit within {ANSWER_TIMEOUT_SECONDS} seconds")
            try:
                if not answer.done():
                    self._commit_group()
            finally:
                self._commit_lock.release()
        return answer.result()

    def waiting(self) -> int:
        """How many submitted rows are not yet in a group being stored."""
        with self._waiting_lock:
            return len(self._waiting)

    def _commit_group(self) -> None:
        time.sleep(GATHER_SECONDS)
        with self._waiting_lock:
            group, self._waiting = self._waiting[:MAX_GROUP], self._waiting[MAX_GROUP:]
        try:
            answers = self._store([row for row, _ in group])
        except BaseException as exc:  # every caller in the group gets the failure, none is left waiting
            for _, answer in group:
                answer.set_exception(exc)
            return
        for (_, answer), accepted in zip(group, answers, strict=True):
            answer.set_result(accepted)


class Publisher:
    """Tells the workers about committed events through `send`: one message for everything
    committed while the previous message was being sent, and at most one per `gather_seconds`.

    A message costs the web process far more than a commit does, and a worker applies whatever
    is pending when it runs anyway. Ids still waiting here when the process stops are durable
    in the log: the sweeper hands them on. The thread starts on first use (so after any fork)
    and again if it died.
    """

    def __init__(
        self,
        send: Callable[[list[int]], None],
        *,
        gather_seconds: float = PUBLISH_GATHER_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._send, self._gather_seconds, self._sleep = send, gather_seconds, sleep
        self._ids: queue.SimpleQueue[list[int]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._thread_lock = threading.Lock()

    def add(self, event_ids: list[int]) -> None:
        self._ids.put(event_ids)
        with self._thread_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="event-log-publisher", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            event_ids = list(self._ids.get())
            self._sleep(self._gather_seconds)
            while True:
                try:
                    event_ids.extend(self._ids.get_nowait())
                except queue.Empty:
                    break
            self._send(sorted(event_ids))
