"""The ledger's routes under `/api/v1/`."""

from __future__ import annotations

from django.urls import path

from lineage_app.ledger.apis import LedgerStreamListApi

urlpatterns = [
    path("ledger/streams", LedgerStreamListApi.as_view(), name="ledger-streams"),
]
