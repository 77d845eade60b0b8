"""What empties the relay's buffer: a thread that takes the oldest pending events, in arrival order and in
batches, and delivers them (to the server, or to files), backing off while delivery fails (at least as long as
the server asked)."""

from __future__ import annotations

import logging
import random
import sqlite3
import threading
from abc import ABC, abstractmethod

from lineage_relay.buffer import EventBuffer, Pending

log = logging.getLogger("lineage_relay")


class Drain(ABC):
    """The thread, its batches and its back-off; a subclass says how a batch is delivered (`_deliver`) and
    what to do while nothing is pending (`_idle`).

    A batch delivered but not recorded as such in the buffer (it could not be written) stays pending and
    is delivered again: the server stores an event once, by the content hash of its canonical form."""

    name = "drain"  # the thread's name and the word the logs use for delivering

    def __init__(
        self,
        *,
        buffer: EventBuffer,
        batch_events: int,
        batch_bytes: int,
        backoff_base_s: float,
        backoff_max_s: float,
    ) -> None:
        self.buffer = buffer
        self.batch_events = batch_events
        self.batch_bytes = batch_bytes
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"relay-{self.name}", daemon=True)
        self._failures = 0
        # Set by `_deliver` when the server said when to come back (its `Retry-After`): the next pause's least.
        self._retry_after: float | None = None

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Something new is pending: deliver it now rather than at the next idle check."""
        self._wake.set()

    def stop(self, *, timeout_s: float) -> None:
        """Stop after the batch being delivered (its outcome is recorded), or at once if none is."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)

    @abstractmethod
    def _deliver(self, batch: list[Pending]) -> bool:
        """Deliver `batch` and record the outcome in the buffer; False when it (or part of it) must wait."""

    @abstractmethod
    def _idle(self) -> None:
        """Nothing is pending: wait for new events."""

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                batch = self.buffer.oldest(limit=self.batch_events, max_bytes=self.batch_bytes)
            except sqlite3.Error as exc:
                log.error("relay: cannot read the buffer: %s", exc)
                self._pause()
                continue
            if not batch:
                self._idle()
                continue
            try:
                delivered = self._deliver(batch)
            except sqlite3.Error as exc:
                log.error("relay: cannot record the outcome of %s; the events stay pending: %s", self.name, exc)
                self._pause()
            except Exception:
                # Whatever went wrong, a relay that stopped delivering would keep accepting events into a
                # buffer nobody drains: log it and go on trying.
                log.exception("relay: %s failed unexpectedly", self.name)
                self._pause()
            else:
                if delivered:
                    self._failures = 0
                else:
                    self._pause()

    def _pause(self) -> None:
        """Full jitter: a uniform pause up to base * 2**failures, capped, and at least what the server asked for
        (`_retry_after`); cut short by `stop`."""
        ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** min(self._failures, 32))
        self._failures += 1
        pause = random.uniform(0, ceiling)
        if self._retry_after is not None:
            pause = max(pause, self._retry_after)
            self._retry_after = None
        self._stop.wait(pause)
