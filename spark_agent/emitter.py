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

    Undelivered events go to `spill` when there is one, else they are counted as dropped. After a
    batch is delivered (the backend answers again), the spill is replayed to it, oldest first."""

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
        self._in_flight = 0
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
        """Flush within `timeout_s`, then spill or drop whatever is left and stop."""
        started = time.monotonic()
        self.flush(timeout_s)
        with self._cond:
            self._closed = True
            self._deadline = time.monotonic()
            leftovers = list(self._queue)
            self._queue.clear()
            self._cond.notify_all()
        self._settle(Outcome(failed=leftovers))
        self._thread.join(max(0.1, timeout_s - (time.monotonic() - started)))
        with self._cond:
            if self._thread.is_alive() and self._in_flight:
                # the sender is stuck past the deadline: its batch is lost; count it now
                self._counters.add("events_dropped_total", self._in_flight)
                self._abandoned = True

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                size = min(self._batch_size, len(self._queue))
                batch = [self._queue.popleft() for _ in range(size)]
                self._in_flight = size
            try:
                outcome = self._sink.send(batch, self._current_deadline) if self._sink else Outcome(failed=batch)
            except Exception:  # a sink bug must never kill the sender
                log.exception("tributary: transport error")
                outcome = Outcome(failed=batch)
            with self._cond:
                if self._abandoned:
                    return
                self._settle(outcome)
                self._in_flight = 0
                self._cond.notify_all()
            answered = outcome.delivered and not outcome.failed
            if answered and self._sink is not None and self._spill is not None and self._spill.holds_events():
                self._replay(self._sink, self._spill)

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
