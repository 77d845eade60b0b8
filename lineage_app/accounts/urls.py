"""Account routes."""

from __future__ import annotations

from django.urls import path

from lineage_app.accounts.apis import MeApi

urlpatterns = [path("me", MeApi.as_view(), name="me")]
