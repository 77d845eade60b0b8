"""Gunicorn settings of the web process, one place for the Dockerfile, `manage.py run_stack` and the benchmarks.

Use as `gunicorn -c python:lineage_app.gunicorn_conf --bind HOST:PORT`. `WEB_CONCURRENCY`
(worker processes, default one per core) and `WEB_THREADS` (threads per worker) tune it.
"""

from __future__ import annotations

import os

wsgi_app = "lineage_app.wsgi"
# Threads, not a process per request: requests mostly wait on the shared commit (group_commit).
worker_class = "lineage_app.gunicorn_worker.SharingThreadWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or os.cpu_count() or 2)
threads = int(os.environ.get("WEB_THREADS") or 4)
# Producers post event after event: keep their connections open between posts (gthread parks
# an idle connection in its poller, not in a thread) rather than paying a TCP handshake each time.
keepalive = 75
