"""`manage.py warm_graph` reads the whole graph once, on either engine."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from lineage_app.graph.model import Label
from lineage_app.graph.warmup import WARM_KEYS, WARM_NODES, WARM_RELATIONSHIPS, graph_warm
from tests.explorer.known_graph import build_known_graph

pytestmark = pytest.mark.django_db


def test_warming_counts_every_node_relationship_and_key_it_read(graph: Any) -> None:
    build_known_graph()
    counted = {statement: count for statement, count, _ in graph_warm()}
    assert counted[WARM_NODES] > counted[WARM_KEYS[Label.DATASET]] > 0
    assert counted[WARM_RELATIONSHIPS] > 0
    assert counted[WARM_KEYS[Label.JOB]] > 0
    assert counted[WARM_KEYS[Label.RUN]] > 0


def test_the_command_prints_a_line_per_statement(graph: Any) -> None:
    out = StringIO()
    call_command("warm_graph", "--no-reads", stdout=out)
    assert len(out.getvalue().splitlines()) == 2 + len(WARM_KEYS)
