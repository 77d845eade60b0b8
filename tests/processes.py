"""Stopping the servers and workers a test started, without letting a slow shutdown fail the test."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from typing import Any


def processes_stop(processes: Iterable[subprocess.Popen[Any]], *, grace: float = 60) -> None:
    """Ask each process to stop (a Celery worker's warm shutdown finishes the tasks it holds), then end those
    still at it after `grace` seconds: on a loaded machine a worker's warm shutdown has taken over 30 s, and
    the test that started it has made its assertions by then."""
    started = list(processes)
    for process in started:
        process.terminate()
    for process in started:
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
