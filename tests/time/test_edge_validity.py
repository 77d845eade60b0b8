"""Edge validity: a job's edges are current while its latest completed run confirms them, stale after."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from lineage_app.explorer.selectors.lineage import column_lineage_for_node, lineage_for_node
from lineage_app.graph.model import NOW, Moment
from lineage_app.graph.validity import StaleGrace, stale_since
from lineage_app.ingest.models import StaleGrace as StaleGraceRow
from lineage_app.instants import utc_text
from lineage_app.reports.selectors import impact_report
from tests.apply import accept_and_apply
from tests.time.scenario import DAY_1, DAY_2, JOB_ID, dataset_id, field_id, one_run, two_days

pytestmark = pytest.mark.django_db


def _upstream(moment: Moment = NOW) -> dict[str, dict]:
    """The datasets upstream of OUT, each with its edge into `etl`."""
    body = lineage_for_node(node_id=dataset_id("OUT"), depth=2, direction="upstream", moment=moment)
    edges = {}
    for node in body["graph"]:
        for edge in node["outEdges"]:
            if edge["destination"] == JOB_ID:
                edges[edge["origin"]] = edge
    return edges


def _impacted(name: str, moment: Moment = NOW) -> list[str]:
    report = impact_report(node_ids=[dataset_id(name)], depth=4, moment=moment)
    return [row["id"] for row in report.rows() if row["type"] != "DATASET_FIELD"]


def test_the_current_graph_leaves_out_what_the_latest_completed_run_no_longer_reads(graph) -> None:
    accept_and_apply(*two_days())
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("C")]
    assert all(edge["current"] and edge["staleSince"] is None for edge in _upstream().values())


def test_stale_edges_come_back_marked_with_include_stale(graph) -> None:
    accept_and_apply(*two_days())
    edges = _upstream(Moment(stale=True))
    assert sorted(edges) == [dataset_id("A"), dataset_id("B"), dataset_id("C")]
    stale = edges[dataset_id("B")]
    assert stale["current"] is False
    assert stale["staleSince"] == utc_text(DAY_2 + timedelta(minutes=10))
    assert stale["firstSeen"] == utc_text(DAY_1)
    assert stale["lastSeen"] == utc_text(DAY_1 + timedelta(minutes=10))


def test_at_an_instant_the_graph_is_what_held_then(graph) -> None:
    accept_and_apply(*two_days())
    day_1 = utc_text(DAY_1 + timedelta(hours=1))
    assert sorted(_upstream(Moment(at=day_1))) == [dataset_id("A"), dataset_id("B")]
    day_2 = utc_text(DAY_2 + timedelta(hours=1))
    assert sorted(_upstream(Moment(at=day_2))) == [dataset_id("A"), dataset_id("C")]
    assert sorted(_upstream(Moment(at=day_2, stale=True))) == [dataset_id("A"), dataset_id("B"), dataset_id("C")]


def test_impact_of_a_table_no_longer_read_is_empty_and_counts_what_it_left_out(graph) -> None:
    accept_and_apply(*two_days())
    assert _impacted("B") == []
    report = impact_report(node_ids=[dataset_id("B")], depth=4)
    list(report.rows())
    assert report.summary()["staleLeftOut"] >= 1
    assert JOB_ID in _impacted("B", Moment(stale=True))
    assert _impacted("C") == [JOB_ID, dataset_id("OUT")]


def test_column_derivations_from_a_dropped_input_are_stale(graph) -> None:
    accept_and_apply(*two_days())
    body = column_lineage_for_node(node_id=field_id("OUT", "total"), depth=1, direction="upstream")
    assert sorted(node["id"] for node in body["graph"]) == [
        field_id("A", "amount"),
        field_id("C", "amount"),
        field_id("OUT", "total"),
    ]
    everything = column_lineage_for_node(
        node_id=field_id("OUT", "total"), depth=1, direction="upstream", moment=Moment(stale=True)
    )
    edges = {e["origin"]: e for node in everything["graph"] for e in node["outEdges"]}
    assert edges[field_id("B", "amount")]["current"] is False
    assert edges[field_id("A", "amount")]["current"] is True


@pytest.mark.parametrize("arrangement", ["reversed", "shuffled", "twice", "one_by_one"])
def test_every_arrival_order_answers_the_same(graph, arrangement: str) -> None:
    events = two_days()
    if arrangement == "reversed":
        events.reverse()
    elif arrangement == "shuffled":
        random.Random(21).shuffle(events)
    elif arrangement == "twice":
        events = events + events
    accept_and_apply(*events, one_by_one=arrangement in ("reversed", "one_by_one"))
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("C")]
    assert _upstream(Moment(stale=True))[dataset_id("B")]["staleSince"] == utc_text(DAY_2 + timedelta(minutes=10))


def test_a_late_day_one_event_never_makes_the_dropped_input_current_again(graph) -> None:
    day_1, day_2 = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"])
    accept_and_apply(*day_2, one_by_one=True)
    accept_and_apply(*day_1, one_by_one=True)
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("C")]


def test_a_late_start_alone_retires_nothing(graph) -> None:
    day_1 = one_run(DAY_1, ["A", "B"])
    day_2 = one_run(DAY_2, ["A", "C"])
    accept_and_apply(*day_1, day_2[0])  # day 2 has started (reading A and C), not completed
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("B"), dataset_id("C")]


def test_a_failed_run_retires_nothing_but_records_what_it_read(graph) -> None:
    accept_and_apply(*one_run(DAY_1, ["A", "B"]), *one_run(DAY_2, ["A", "C"], state="FAIL"))
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("B"), dataset_id("C")]


def test_an_input_read_again_later_is_current_again(graph) -> None:
    day_3 = DAY_2 + timedelta(days=1)
    accept_and_apply(*two_days(), *one_run(day_3, ["A", "B"]))
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("B")]


def test_the_grace_is_counted_in_completed_runs_and_days() -> None:
    runs = [(f"2026-01-0{d}T00:10:00.000000Z\x1frun{d}", f"2026-01-0{d}T00:10:00.000000Z") for d in range(2, 6)]
    last_seen = "2026-01-01T00:10:00.000000Z"
    assert stale_since(confirmed_order=None, last_seen=last_seen, later_runs=runs, grace=StaleGrace()) == runs[0][1]
    assert (
        stale_since(confirmed_order=None, last_seen=last_seen, later_runs=runs, grace=StaleGrace(runs=3)) == runs[2][1]
    )
    two_and_a_half_days = StaleGrace(days=2.5)
    assert (
        stale_since(confirmed_order=None, last_seen=last_seen, later_runs=runs, grace=two_and_a_half_days) == runs[2][1]
    )
    assert stale_since(confirmed_order=None, last_seen=last_seen, later_runs=runs, grace=StaleGrace(runs=5)) is None


def test_a_namespace_grace_keeps_an_input_that_varies_by_design_current(graph) -> None:
    StaleGraceRow.objects.create(namespace="spark", after_runs=2)
    day_3 = DAY_2 + timedelta(days=1)
    accept_and_apply(*two_days())
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("B"), dataset_id("C")]  # one run left B out
    accept_and_apply(*one_run(day_3, ["A", "C"]))
    assert sorted(_upstream()) == [dataset_id("A"), dataset_id("C")]
    assert _upstream(Moment(stale=True))[dataset_id("B")]["staleSince"] == utc_text(day_3 + timedelta(minutes=10))


def test_the_grace_in_days_comes_from_the_settings(graph, settings) -> None:
    settings.LINEAGE_STALE_AFTER_DAYS = 2.5
    day_3, day_4 = DAY_2 + timedelta(days=1), DAY_2 + timedelta(days=2)
    accept_and_apply(*two_days(), *one_run(day_3, ["A", "C"]))
    assert dataset_id("B") in _upstream()  # last seen on day 1: 2.5 days have not passed by day 3
    accept_and_apply(*one_run(day_4, ["A", "C"]))
    assert dataset_id("B") not in _upstream()
