"""Invariant 4: the graph is a projection; `rebuild_graph` replays the log into exactly the same graph."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command

from lineage_app.ingest.models import LineageEvent
from tests.apply import accept, accept_and_apply
from tests.graph.test_order_independence import SCENARIO
from tests.graph_dump import graph_dump

pytestmark = pytest.mark.django_db


def test_rebuild_graph_replays_the_log_into_the_incremental_graph(graph):  # type: ignore[no-untyped-def]
    shuffled = random.Random(7).sample(SCENARIO, len(SCENARIO))
    accept_and_apply(*shuffled, one_by_one=True)
    incremental = graph_dump()
    out = StringIO()
    call_command("rebuild_graph", "--no-progress", "--batch-size", "4", stdout=out)
    assert out.getvalue().strip() == f"graph rebuilt from {len(SCENARIO)} event(s)"
    assert graph_dump() == incremental
    assert set(LineageEvent.objects.values_list("status", flat=True)) == {LineageEvent.Status.APPLIED}


def test_rebuild_skips_quarantined_events(graph):  # type: ignore[no-untyped-def]
    ids = accept(*SCENARIO[:3])
    LineageEvent.objects.filter(id=ids[0]).update(status=LineageEvent.Status.QUARANTINED)
    call_command("rebuild_graph", "--no-progress", stdout=StringIO())
    statuses = dict(LineageEvent.objects.values_list("id", "status"))
    assert statuses[ids[0]] == LineageEvent.Status.QUARANTINED
    assert statuses[ids[1]] == statuses[ids[2]] == LineageEvent.Status.APPLIED
