"""The ledger's routes under `/api/v1/`."""

from __future__ import annotations

from django.urls import path

from lineage_app.ledger.apis import (
    CosignatureSubmitApi,
    LedgerStreamListApi,
    LogCheckpointApi,
    LogCheckpointListApi,
    LogConsistencyApi,
    LogProofApi,
    WitnessAlarmRaiseApi,
)

urlpatterns = [
    path("ledger/streams", LedgerStreamListApi.as_view(), name="ledger-streams"),
    path("ledger/checkpoint", LogCheckpointApi.as_view(), name="ledger-checkpoint"),
    path("ledger/proof", LogProofApi.as_view(), name="ledger-proof"),
    path("ledger/consistency", LogConsistencyApi.as_view(), name="ledger-consistency"),
    path("ledger/checkpoints", LogCheckpointListApi.as_view(), name="ledger-checkpoints"),
    path("ledger/cosignatures", CosignatureSubmitApi.as_view(), name="ledger-cosignatures"),
    path("ledger/witness-alarms", WitnessAlarmRaiseApi.as_view(), name="ledger-witness-alarms"),
]
