"""Tributary: the Django project that ingests OpenLineage events into a lineage graph."""

from __future__ import annotations

from lineage_app.celery import app as celery_app

__all__ = ["celery_app"]
