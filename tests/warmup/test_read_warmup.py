"""`manage.py warm_graph`'s read warm-up runs each kind of read the API answers most, from nodes of the graph, on
either engine, and says what it ran."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from lineage_app.graph.model import Label
from lineage_app.graph.node_ids import node_ref_id
from lineage_app.graph.warmup import WARM_NODES, warm_starts_light
from lineage_app.warmup import reads
from lineage_app.warmup.reads import COLUMN_DEPTHS, IMPACT_DEPTH, LINEAGE_DEPTHS, graph_reads_warm
from tests.apply import accept_and_apply
from tests.events import dataset, new_run_id, run_event
from tests.explorer.known_graph import build_known_graph

pytestmark = pytest.mark.django_db

KINDS = {
    *(f"lineage depth {depth}" for depth in LINEAGE_DEPTHS),
    "lineage of a job, depth 2",
    *(f"column lineage depth {depth}" for depth in COLUMN_DEPTHS),
    f"impact depth {IMPACT_DEPTH}",
    "search, a whole name",
    "search, a name's start",
    "search, a piece of a name",
    "dataset page",
    "job page",
}


def test_the_read_warm_up_runs_every_kind_of_read_each_round_from_nodes_of_the_graph(graph: Any) -> None:
    build_known_graph()
    done = graph_reads_warm(rounds=3)
    assert {read.name for read in done.reads} == KINDS
    assert done.rounds == 3 and not done.out_of_budget
    for read in done.reads:
        assert (read.name, read.skipped, read.reads, read.failed, read.error) == (read.name, None, 3, 0, None)
        assert read.first_ms is not None and read.last_ms is not None and read.seconds > 0


def test_on_an_empty_graph_each_kind_is_skipped_and_says_why(graph: Any) -> None:
    done = graph_reads_warm(rounds=2)
    assert {read.name for read in done.reads} == KINDS
    assert all(read.reads == 0 and read.skipped for read in done.reads)
    assert "skipped, no dataset in the graph that a job writes and another reads" in done.reads[0].line()


def test_a_spent_budget_stops_further_rounds_after_the_first_which_warmed_every_kind(graph: Any) -> None:
    build_known_graph()
    done = graph_reads_warm(rounds=5, budget=0)
    assert done.rounds == 1 and done.out_of_budget
    assert all(read.reads == 1 and not read.failed for read in done.reads)


def test_the_command_warms_the_pages_then_prints_a_line_per_kind_of_read(graph: Any) -> None:
    build_known_graph()
    out = StringIO()
    call_command("warm_graph", "--rounds", "2", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].endswith(WARM_NODES)  # the page warm-up first
    reads = [line for line in lines if line.startswith("read warm-up: ")]
    assert len(reads) == len(KINDS) + 1
    assert all(": 2 reads in " in line for line in reads[:-1]), reads
    assert reads[-1].startswith("read warm-up: 2 rounds in ")


def test_the_command_skips_either_part_when_asked(graph: Any) -> None:
    build_known_graph()
    out = StringIO()
    call_command("warm_graph", "--no-pages", "--rounds", "1", stdout=out)
    assert all(line.startswith("read warm-up: ") for line in out.getvalue().splitlines())
    out = StringIO()
    call_command("warm_graph", "--no-reads", stdout=out)
    assert not any("read warm-up" in line for line in out.getvalue().splitlines())


def _hub_and_light() -> None:
    """`db.hub`, read by four jobs, and `db.light`, read by one; each written by a job of its own (the hub first)."""
    events = [
        run_event("COMPLETE", run_id=new_run_id(), job="make_hub", outputs=[dataset("db", "hub")]),
        run_event("COMPLETE", run_id=new_run_id(), job="make_light", outputs=[dataset("db", "light")]),
        *(
            run_event("COMPLETE", run_id=new_run_id(), job=f"read_hub_{i}", inputs=[dataset("db", "hub")])
            for i in range(4)
        ),
        run_event("COMPLETE", run_id=new_run_id(), job="read_light", inputs=[dataset("db", "light")]),
    ]
    accept_and_apply(*events)


def test_impact_warms_up_from_the_datasets_with_the_fewest_consumers(graph: Any, monkeypatch: Any) -> None:
    _hub_and_light()
    assert [name for _, name in warm_starts_light(n=2)] == ["light", "hub"]
    assert [name for _, name in warm_starts_light(n=1)] == ["light"]
    started_from: list[list[str]] = []

    def impact_report(*, node_ids: list[str], depth: int) -> Any:
        started_from.append(node_ids)
        return real_impact_report(node_ids=node_ids, depth=depth)

    real_impact_report = reads.impact_report
    monkeypatch.setattr(reads, "impact_report", impact_report)
    done = graph_reads_warm(rounds=1)
    assert not any(read.failed for read in done.reads)
    light_key = warm_starts_light(n=1)[0][0]
    assert started_from == [[node_ref_id((Label.DATASET, light_key))]]
