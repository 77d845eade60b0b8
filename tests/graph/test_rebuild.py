"""Invariant 4: the graph is a projection; `rebuild_graph` replays the log into exactly the same graph."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_accept, events_apply
from lineage_app.ingest.validation import event_check
from tests.graph.test_order_independence import SCENARIO
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db


def test_rebuild_graph_replays_the_log_into_the_incremental_graph(graph):  # type: ignore[no-untyped-def]
    shuffled = random.Random(7).sample(SCENARIO, len(SCENARIO))
    accepted = events_accept(items=[(event_check(e), b"{}") for e in shuffled], token=None)
    for answer in accepted:
        events_apply(event_ids=[answer.id])
    incremental = graph_dump()
    out = StringIO()
    call_command("rebuild_graph", "--no-progress", "--batch-size", "4", stdout=out)
    assert out.getvalue().strip() == f"graph rebuilt from {len(SCENARIO)} event(s)"
    assert graph_dump() == incremental
    assert set(LineageEvent.objects.values_list("status", flat=True)) == {LineageEvent.Status.APPLIED}


def test_rebuild_skips_quarantined_events(graph):  # type: ignore[no-untyped-def]
    accepted = events_accept(items=[(event_check(e), b"{}") for e in SCENARIO[:3]], token=None)
    LineageEvent.objects.filter(id=accepted[0].id).update(status=LineageEvent.Status.QUARANTINED)
    call_command("rebuild_graph", "--no-progress", stdout=StringIO())
    statuses = dict(LineageEvent.objects.values_list("id", "status"))
    assert statuses[accepted[0].id] == LineageEvent.Status.QUARANTINED
    assert statuses[accepted[1].id] == statuses[accepted[2].id] == LineageEvent.Status.APPLIED
