"""The Celery application: broker and task discovery for the ingestion workers."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")

app = Celery("tributary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _apply_at_lower_priority(**_: Any) -> None:
    """A worker (and its pool processes, forked later) runs at `WORKER_NICENESS`."""
    from django.conf import settings

    if settings.WORKER_NICENESS:
        os.nice(settings.WORKER_NICENESS)
