"""The agent's emitter: a bounded in-memory queue drained by one background sender thread, which also replays the
spill file, over the sinks of `lineage_relay.transports` that the configuration asks for."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from lineage_relay.transports import Event, Outcome, Sink
from lineage_relay.transports.file import FileSink
from lineage_relay.transports.http import HttpSink
from spark_agent.config import AgentConfig
from spark_agent.counters import Counters

log = logging.getLogger("spark_agent")


class AsyncEmitter:
    """`put` never blocks: a full queue drops the event and counts it.

    Sending, back-off and spill writes all happen on the sender thread, never on the caller's. Undelivered
    events go to `spill` when there is one, else they are counted as dropped. After a batch is delivered
    (the backend answers again), the spill is replayed to it, oldest first."""

    def __init__(
        self,
        sink: Sink | None,
        counters: Counters,
        *,
        spill: FileSink | None = None,
        capacity: int = 10_000,
        batch_size: int = 50,
    ) -> None:
        self._sink = sink
        self._spill = spill
        self._counters = counters
        self._capacity = capacity
        self._batch_size = batch_size
        self._queue: deque[Event] = deque()
        self._cond = threading.Condition()
        self._in_flight: list[Event] = []  # taken from the queue, not yet settled
        self._sending = False  # the sender is inside `sink.send` (a request can hang until its timeout)
        self._closed = False
        self._deadline: float | None = None
        self._abandoned = False
        self._thread = threading.Thread(target=self._run, name="tributary-sender", daemon=True)
        self._thread.start()

    def put(self, event: Event) -> None:
        with self._cond:
            if self._sink is None or self._closed or len(self._queue) >= self._capacity:
                self._counters.add("events_dropped_total")
                return
            self._queue.append(event)
            self._cond.notify_all()

    def flush(self, timeout_s: float) -> bool:
        """Wait until everything queued was handled or `timeout_s` passed; retries stop
        at that deadline. Return whether the queue is empty and nothing is in flight."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            self._deadline = deadline
            self._cond.notify_all()
            while self._queue or self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            done = not self._queue and not self._in_flight
            self._deadline = None
            return done

    def close(self, timeout_s: float) -> None:
        """Deliver what is queued within `timeout_s`, then spill or drop the rest, and stop.

        A backend known to be down (`sink.down`: its last batch exhausted its retries) gets no further
        attempt: the sender spills everything at once. Returns within `timeout_s`, or at once when the
        backend is known down, plus the time to write the spill: when the sender is stuck in a request
        at that point, what it holds and what is queued are spilled (or counted as dropped) here, and its
        answer, if one comes, is ignored (a batch that did get through is sent again from the spill and
        absorbed by the server's deduplication)."""
        started = time.monotonic()
        with self._cond:
            self._closed = True
            down = _known_down(self._sink)
            self._deadline = started if down else started + timeout_s
            self._cond.notify_all()
        self._thread.join(0.0 if down else timeout_s)
        with self._cond:
            stuck = self._thread.is_alive() and self._sending
            if stuck:
                self._abandoned = True
                leftovers = [*self._in_flight, *self._queue]
                self._queue.clear()
                self._in_flight = []
        if not stuck:
            self._thread.join()  # it is spilling what was left, to a local file
            return
        self._settle(Outcome(failed=leftovers))

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                give_up = self._closed and (_known_down(self._sink) or time.monotonic() >= (self._deadline or 0.0))
                size = len(self._queue) if give_up else min(self._batch_size, len(self._queue))
                batch = [self._queue.popleft() for _ in range(size)]
                self._in_flight = batch
                self._sending = not give_up
            outcome = Outcome(failed=batch) if give_up else self._send(batch)
            with self._cond:
                self._sending = False
                if self._abandoned:
                    return
            self._settle(outcome)
            with self._cond:
                self._in_flight = []
                self._cond.notify_all()
            answered = outcome.delivered and not outcome.failed
            if answered and self._sink is not None and self._spill is not None and self._spill.holds_events():
                self._replay(self._sink, self._spill)

    def _send(self, batch: list[Event]) -> Outcome:
        if self._sink is None:
            return Outcome(failed=batch)
        try:
            return self._sink.send(batch, self._current_deadline)
        except Exception:  # a sink bug must never kill the sender
            log.exception("tributary: transport error")
            return Outcome(failed=batch)

    def _replay(self, sink: Sink, spill: FileSink) -> None:
        try:
            delivery = spill.replay(sink, batch_size=self._batch_size, deadline=self._current_deadline)
        except Exception:  # a replay error must never kill the sender; the spill stays for the next try
            log.exception("tributary: spill replay error")
            return
        # Spilled events reaching the backend count as emitted; those it rejects, as dropped.
        self._counters.add("events_emitted_total", delivery.delivered)
        self._counters.add("events_dropped_total", delivery.rejected)
        for problem in delivery.bad_lines[:3]:
            log.warning("tributary: spill replay skipped %s", problem)

    def _current_deadline(self) -> float | None:
        return self._deadline

    def _settle(self, outcome: Outcome) -> None:
        self._counters.add("events_emitted_total", outcome.delivered)
        self._counters.add("events_dropped_total", outcome.rejected)
        if not outcome.failed:
            return
        spilled = self._spill.write(outcome.failed) if self._spill is not None else 0
        self._counters.add("events_spilled_total", spilled)
        self._counters.add("events_dropped_total", len(outcome.failed) - spilled)


def _known_down(sink: Sink | None) -> bool:
    """Whether the sink's backend is known to be unreachable (the HTTP sink's `down`: its last batch exhausted
    its retries); a sink without that notion (a file) never is."""
    return bool(getattr(sink, "down", False))


def build_emitter(config: AgentConfig, counters: Counters) -> AsyncEmitter:
    """An `AsyncEmitter` over the configured sink; no sink (all events dropped) when the
    configuration is unusable."""
    sink: Sink | None = None
    spill: FileSink | None = None
    transport = config.resolved_transport
    if not config.problems():
        if transport in ("http", "http+spill") and config.url:
            sink = HttpSink(
                config.url,
                config.token,
                timeout_s=config.http_timeout_s,
                max_retries=config.http_max_retries,
            )
        if config.file_path and transport in ("file", "http+spill"):
            file_sink = FileSink(config.file_path, config.file_max_bytes, config.file_backups)
            if transport == "file":
                sink = file_sink
            else:
                spill = file_sink
    return AsyncEmitter(
        sink,
        counters,
        spill=spill,
        capacity=config.queue_capacity,
        batch_size=config.batch_size,
    )
