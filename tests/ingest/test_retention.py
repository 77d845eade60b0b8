"""Retention: pruning old applied events leaves the graph as it was and never touches events not applied."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.tasks import prune_applied_events
from tests.apply import accept, accept_and_apply, as_json
from tests.events import T0, new_run_id, run_event, run_lifecycle
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db

Status = LineageEvent.Status


def _store(events: list[dict[str, Any]], *, days_ago: int, apply: bool = True) -> list[int]:
    ids = accept_and_apply(*events, raw=as_json) if apply else accept(*events, raw=as_json)
    LineageEvent.objects.filter(id__in=ids).update(received_at=timezone.now() - timedelta(days=days_ago))
    return ids


def _prune(*args: str) -> str:
    out = StringIO()
    call_command("prune_events", *args, stdout=out)
    return out.getvalue().strip()


@pytest.fixture
def log(graph) -> dict[str, list[int]]:  # type: ignore[no-untyped-def]
    """Old and recent applied runs, a run with an old and a recent event, and old events not applied."""
    split_run = new_run_id()
    return {
        "old": _store(run_lifecycle(), days_ago=40),
        "recent": _store(run_lifecycle(), days_ago=2),
        "split": _store([run_event("START", run_id=split_run)], days_ago=40)
        + _store([run_event("COMPLETE", run_id=split_run, at=T0 + timedelta(hours=1))], days_ago=1),
        "pending": _store([run_event("START", run_id=new_run_id())], days_ago=50, apply=False),
        "failed": _store([run_event("START", run_id=new_run_id(), job="etl.failed")], days_ago=50, apply=False),
        "quarantined": _store([run_event("START", run_id=new_run_id(), job="etl.held")], days_ago=50, apply=False),
    }


def test_pruning_deletes_only_old_applied_runs_and_keeps_the_graph_identical(log):  # type: ignore[no-untyped-def]
    LineageEvent.objects.filter(id__in=log["failed"]).update(status=Status.FAILED)
    LineageEvent.objects.filter(id__in=log["quarantined"]).update(status=Status.QUARANTINED)
    before = graph_dump()
    everything = set(LineageEvent.objects.values_list("id", flat=True))

    assert _prune("--days", "30", "--dry-run") == "would delete 3 applied event(s) received more than 30 day(s) ago"
    assert set(LineageEvent.objects.values_list("id", flat=True)) == everything

    assert _prune("--days", "30", "--batch-size", "2") == "deleted 3 applied event(s) received more than 30 day(s) ago"
    assert set(LineageEvent.objects.values_list("id", flat=True)) == everything - set(log["old"])
    # A run with a recent event keeps its old ones: a late event folds the run over what the log holds.
    assert LineageEvent.objects.filter(id__in=log["split"]).count() == 2
    assert dict(
        LineageEvent.objects.filter(id__in=log["pending"] + log["failed"] + log["quarantined"]).values_list(
            "id", "status"
        )
    ) == {log["pending"][0]: Status.PENDING, log["failed"][0]: Status.FAILED, log["quarantined"][0]: Status.QUARANTINED}
    assert graph_dump() == before


def test_the_beat_task_prunes_by_the_setting_and_zero_keeps_everything(log, settings):  # type: ignore[no-untyped-def]
    settings.EVENT_RETENTION_DAYS = 0
    assert prune_applied_events() == 0
    settings.EVENT_RETENTION_DAYS = 30
    assert prune_applied_events() == 3
    assert not LineageEvent.objects.filter(id__in=log["old"]).exists()
    assert prune_applied_events() == 0


def test_prune_events_refuses_to_run_without_a_retention_period(db, settings):  # type: ignore[no-untyped-def]
    settings.EVENT_RETENTION_DAYS = 0
    with pytest.raises(CommandError, match="0 keeps the log forever"):
        _prune()
