"""A Celery worker's side: a metrics server in its main process (adding up its pool's) and one log line a task."""

from __future__ import annotations

import logging
import os
import threading
import time
from contextvars import Token
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from prometheus_client.exposition import MetricsHandler

from lineage_app.observability.access import metrics_refusal
from lineage_app.observability.exposition import MULTIPROC_DIR_VARIABLE, metrics_dir_clear, process_registry
from lineage_app.observability.logs import log_context_close, log_context_open

logger = logging.getLogger(__name__)


def worker_metrics_prepare() -> None:
    """Before the pool forks: empty the directory the pool's processes count into of a previous run's values.

    The settings refuse `WORKER_METRICS_PORT` without the directory: tasks run in the pool's
    processes, not in the process that serves the scrape, which alone would report only zeros.
    """
    metrics_dir_clear(directory=Path(os.environ[MULTIPROC_DIR_VARIABLE]))


class _ScrapeHandler(MetricsHandler):
    """prometheus_client's handler behind the same access rules as the web's `/metrics`."""

    def do_GET(self) -> None:
        refusal = metrics_refusal(
            remote_addr=str(self.client_address[0]), authorization=self.headers.get("Authorization", "")
        )
        if refusal is None:
            super().do_GET()
            return
        self.send_response(refusal)
        if refusal == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="tributary-metrics"')
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds would drown the worker's log; Prometheus records their failures itself."""


def worker_metrics_serve(*, addr: str, port: int) -> ThreadingHTTPServer:
    """Serve the worker's metrics on `addr`:`port` from a daemon thread of this process."""
    handler = type("WorkerScrapeHandler", (_ScrapeHandler,), {"registry": process_registry()})
    server = ThreadingHTTPServer((addr, port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="worker-metrics", daemon=True).start()
    logger.info("worker metrics on %s:%d", addr, port)
    return server


_task: dict[str, tuple[Token[dict[str, Any] | None], float]] = {}


def task_log_open(*, task_id: str, task_name: str) -> None:
    """A task starts: open its log context (its id on every line it logs)."""
    _task[task_id] = (log_context_open(task_id=task_id, task=task_name), time.perf_counter())


def task_log_close(*, task_id: str, state: str) -> None:
    """A task ends (SUCCESS, RETRY, FAILURE): one line with its name, event ids, duration and outcome."""
    opened = _task.pop(task_id, None)
    if opened is None:
        return
    context, started = opened
    fields = log_context_close(context)
    seconds = time.perf_counter() - started
    logger.info(
        "task %s %s %.1f ms",
        fields.get("task"),
        state,
        seconds * 1000,
        extra={"fields": {**fields, "outcome": state, "duration_ms": round(seconds * 1000, 3)}},
    )
