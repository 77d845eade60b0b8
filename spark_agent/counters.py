"""Thread-safe counters the agent keeps and reports at exit."""

from __future__ import annotations

import threading

NAMES = (
    "events_emitted_total",
    "events_dropped_total",
    "events_spilled_total",
    "events_signing_failed_total",
    "actions_total",
    "actions_failed_total",
    "actions_before_install_total",
    "unresolved_columns_total",
    "unknown_plan_nodes_total",
    "extraction_errors_total",
    "records_in_total",
    "records_out_total",
    "bytes_in_total",
    "bytes_out_total",
    "streaming_queries_total",
    "streaming_progress_skipped_total",
    "streaming_unknown_endpoints_total",
    "streaming_errors_total",
    # what the agent cost the job: milliseconds in install() and close() (on the job's thread), and spent
    # on Spark's listener thread reading finished actions' plans
    "agent_install_ms",
    "agent_close_ms",
    "agent_listener_ms_total",
)


class Counters:
    """Named monotonic counters; `snapshot()` returns a plain dict."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values = dict.fromkeys(NAMES, 0)

    def add(self, name: str, amount: int = 1) -> None:
        if amount:
            with self._lock:
                self._values[name] += amount

    def get(self, name: str) -> int:
        with self._lock:
            return self._values[name]

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)
