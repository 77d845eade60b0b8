"""Metrics route."""

from __future__ import annotations

from django.urls import path

from lineage_app.observability.views import metrics

urlpatterns = [path("", metrics, name="metrics")]
