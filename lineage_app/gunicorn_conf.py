"""Gunicorn settings of the web process, one place for the Dockerfile, `manage.py run_stack` and the benchmarks.

Use as `gunicorn -c python:lineage_app.gunicorn_conf --bind HOST:PORT`. `WEB_CONCURRENCY`
(worker processes, default one per core) and `WEB_THREADS` (threads per worker) tune it;
`PROMETHEUS_MULTIPROC_DIR` is where the workers share their metrics (docs/observability.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from gunicorn.arbiter import Arbiter
from gunicorn.workers.base import Worker

wsgi_app = "lineage_app.wsgi"
# Threads, not a process per request: requests mostly wait on the shared commit (group_commit).
# gunicorn's own gthread, unaltered: a subclass that paused 2 ms after each accept, so that
# connections arriving together were shared between the workers, overrode gunicorn's private
# `accept` for no measured gain (2 workers: the same accept throughput with keep-alive producers,
# 12% less with a connection per request), and was removed.
worker_class = "gthread"
workers = int(os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 2)
threads = int(os.environ.get("WEB_THREADS") or 4)
# Producers post event after event: keep their connections open between posts (gthread parks
# an idle connection in its poller, not in a thread) rather than paying a TCP handshake each time.
keepalive = 75

if os.environ.get("LOG_FORMAT", "text").lower() == "json":
    # gunicorn's own lines (workers booting, timeouts) as JSON too, like the application's.
    logconfig_dict = {
        "formatters": {"json": {"()": "lineage_app.observability.logs.JsonFormatter"}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
            "error_console": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
        },
        # gunicorn's defaults let these propagate to the root's handler as well: every line twice.
        "loggers": {
            "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
        },
    }

# The metrics directory this master made (and removes at exit), when none was given.
_made_metrics_dir: list[str] = []


def on_starting(server: Arbiter) -> None:
    """Before any worker forks: give the workers one directory to count their metrics into, so that
    whichever worker answers /metrics reports them all. A directory given in `PROMETHEUS_MULTIPROC_DIR`
    may hold a previous run's values (a restarted container): those are forgotten."""
    given = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        for stale in Path(given).glob("*.db"):
            stale.unlink()
        return
    _made_metrics_dir.append(tempfile.mkdtemp(prefix="tributary-metrics-"))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _made_metrics_dir[0]


def post_worker_init(worker: Worker) -> None:
    """A worker has loaded the application: load the views too and freeze what it holds (`process_heap`)."""
    from lineage_app.process_heap import web_worker_heap_freeze

    web_worker_heap_freeze()


def child_exit(server: Arbiter, worker: Worker) -> None:
    """A worker is gone: drop its live gauges (its counters stay counted, in its files)."""
    # Imported here, not above: prometheus_client picks its multi-process storage when first
    # imported, which must come after the directory is set (the workers inherit the choice).
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: Arbiter) -> None:
    for directory in _made_metrics_dir:
        shutil.rmtree(directory, ignore_errors=True)
