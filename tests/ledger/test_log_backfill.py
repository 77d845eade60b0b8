"""The migration that makes existing events the log's first leaves builds the tree accepting them would have."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from lineage_app.ledger.models import LogHead, LogLeaf
from tests.apply import accept
from tests.events import new_run_id, run_event

pytestmark = pytest.mark.django_db

backfill = importlib.import_module("lineage_app.ingest.migrations.0008_transparency_log_leaves").leaves_backfill


def test_backfilling_events_accepted_in_several_commits_rebuilds_the_same_leaves_and_frontier() -> None:
    for size in (3, 1, 6):
        accept(*[run_event("START", run_id=new_run_id()) for _ in range(size)])
    live = list(LogLeaf.objects.order_by("leaf_index").values_list("leaf_index", "event_id", "hash", "completes"))
    head = LogHead.objects.get(pk=1)
    LogLeaf.objects.all().delete()
    LogHead.objects.all().delete()
    backfill(apps, None)
    rebuilt = list(LogLeaf.objects.order_by("leaf_index").values_list("leaf_index", "event_id", "hash", "completes"))
    assert [(i, e, bytes(h), bytes(c)) for i, e, h, c in rebuilt] == [(i, e, bytes(h), bytes(c)) for i, e, h, c in live]
    again = LogHead.objects.get(pk=1)
    assert head.size == 10
    assert (again.size, bytes(again.frontier)) == (head.size, bytes(head.frontier))
