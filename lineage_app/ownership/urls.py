"""Ownership routes."""

from __future__ import annotations

from django.urls import path

from lineage_app.ownership import apis

urlpatterns = [
    path("owners", apis.OwnerListApi.as_view(), name="owner-list"),
    path("ownership", apis.OwnershipApi.as_view(), name="ownership"),
]
