"""The Celery application: broker and task discovery for the ingestion workers, their metrics server and task logs."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery, Task
from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    task_postrun,
    task_prerun,
    task_retry,
    worker_init,
    worker_process_init,
    worker_ready,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")

app = Celery("tributary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The handlers below import the observability package when they run, not here: this module is
# imported by every process (it is the package's `celery_app`), long before Django is set up.


@worker_init.connect
def _apply_at_lower_priority(**_: Any) -> None:
    """A worker (and its pool processes, forked later) runs at `WORKER_NICENESS`."""
    from django.conf import settings

    if settings.WORKER_NICENESS:
        os.nice(settings.WORKER_NICENESS)


@worker_init.connect
def _metrics_prepare(**_: Any) -> None:
    """Before the pool forks, empty the directory its processes will count into (`WORKER_METRICS_PORT`)."""
    from django.conf import settings

    if settings.WORKER_METRICS_PORT:
        from lineage_app.observability.worker import worker_metrics_prepare

        worker_metrics_prepare()


@worker_ready.connect
def _metrics_serve(**_: Any) -> None:
    """Once the pool has forked, serve the metrics from the main process (the pool does not inherit the socket)."""
    from django.conf import settings

    if settings.WORKER_METRICS_PORT:
        from lineage_app.observability.worker import worker_metrics_serve

        worker_metrics_serve(addr=settings.WORKER_METRICS_ADDR, port=settings.WORKER_METRICS_PORT)


@worker_ready.connect
@worker_process_init.connect
def _heap_freeze(**_: Any) -> None:
    """Where tasks run (the main process of a solo or threads pool, each process of a prefork pool), once they are
    loaded: freeze what the process holds, so that no apply batch pays for a full collection traversing it."""
    from lineage_app.process_heap import heap_freeze

    heap_freeze()


@after_setup_logger.connect
@after_setup_task_logger.connect
def _json_logs(logger: logging.Logger, **_: Any) -> None:
    """With `LOG_FORMAT=json`, Celery's own handlers write JSON lines too (it replaces Django's on the root logger)."""
    from django.conf import settings

    if settings.LOG_FORMAT == "json":
        from lineage_app.observability.logs import JsonFormatter

        for handler in logger.handlers:
            handler.setFormatter(JsonFormatter())


@task_prerun.connect
def _task_log_open(task_id: str, task: Task, **_: Any) -> None:
    from lineage_app.observability.worker import task_log_open

    task_log_open(task_id=task_id, task_name=task.name)


@task_postrun.connect
def _task_log_close(task_id: str, state: str | None = None, **_: Any) -> None:
    from lineage_app.observability.worker import task_log_close

    task_log_close(task_id=task_id, state=state or "UNKNOWN")


@task_retry.connect
def _count_apply_retry(sender: Task | None = None, reason: BaseException | None = None, **_: Any) -> None:
    """An apply task failed transiently (once the driver's own retries gave up) and Celery runs it again later."""
    if sender is not None and sender.name == "lineage_app.ingest.tasks.apply_events" and reason is not None:
        from lineage_app.observability.metrics import GRAPH_RETRIES, retry_reason

        GRAPH_RETRIES.labels(kind="task", reason=retry_reason(reason)).inc()
