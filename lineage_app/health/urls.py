"""Health route."""

from __future__ import annotations

from django.urls import path

from lineage_app.health.views import healthz

urlpatterns = [path("", healthz, name="healthz")]
