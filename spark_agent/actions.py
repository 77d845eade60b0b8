"""Groups listener callbacks into one record per user action before it is emitted.

One user action can finish several SQL executions: `saveAsTable` runs a file write
inside its CTAS, a JDBC write runs a `foreachPartition`. Nested executions end first
and their `QueryExecution` ids are larger than the enclosing one's, so a record
absorbs every pending record with a larger id that wrote into one of its outputs (or
wrote nothing). Records wait at most `window_s` for an enclosing execution."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from spark_agent.plan.model import ActionFacts


class ActionAssembler:
    """Holds finished actions briefly, merges nested ones, and hands the rest on."""

    def __init__(self, emit: Callable[[ActionFacts], None], window_s: float) -> None:
        self._emit = emit
        self._window_s = window_s
        self._lock = threading.Lock()
        self._pending: list[tuple[float, ActionFacts]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick_loop, name="tributary-actions", daemon=True)
        self._thread.start()

    def add(self, facts: ActionFacts) -> None:
        with self._lock:
            if facts.outputs:
                mine = {d.id for d in facts.outputs}
                keep = []
                for arrived, other in self._pending:
                    nested = other.qe_id > facts.qe_id and {d.id for d in other.outputs} <= mine
                    if nested:
                        facts.absorb(other)
                    else:
                        keep.append((arrived, other))
                self._pending = keep
            self._pending.append((time.monotonic(), facts))
        self._release(time.monotonic() - self._window_s)

    def flush(self) -> None:
        """Hand on everything pending now."""
        self._release(float("inf"))

    def close(self) -> None:
        self._stop.set()
        self.flush()

    def _release(self, arrived_before: float) -> None:
        with self._lock:
            ready = [f for t, f in self._pending if t <= arrived_before]
            self._pending = [(t, f) for t, f in self._pending if t > arrived_before]
        for facts in ready:
            self._emit(facts)

    def _tick_loop(self) -> None:
        while not self._stop.wait(self._window_s / 2):
            self._release(time.monotonic() - self._window_s)
