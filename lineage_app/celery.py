"""The Celery application: broker and task discovery for the ingestion workers."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")

app = Celery("tributary")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
