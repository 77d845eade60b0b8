"""The web process's gunicorn worker: gthread, with connections shared out between the workers.

Every worker polls the one listening socket. When several connections arrive together (a batch
of producers starting, a load balancer opening its pool), the worker that wakes first would
accept them all in a row while its siblings find the queue already empty; producers keep their
connections open, so one process (one core's worth of Python) then serves them all for good.
A worker that has just accepted a connection pauses for a moment, long enough for a sibling
woken by the same arrivals to take the next one.
"""

from __future__ import annotations

import time
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

ACCEPT_PAUSE_SECONDS = 0.002


class SharingThreadWorker(ThreadWorker):
    # The stubs describe gunicorn 26's `accept(listener)`; the pinned gunicorn 23 passes the
    # listener's address first, so the stub signature is wrong for the version that runs.
    def accept(self, server: Any, listener: Any) -> None:  # type: ignore[override]
        super().accept(server, listener)  # type: ignore[call-arg]
        time.sleep(ACCEPT_PAUSE_SECONDS)
