"""A batch that brings a job only news newer than its newest confirmation settles the job's edges with a
few set-based statements (`graph.validity`'s newest-news path) instead of working them all out again.
Both ways must give one graph: each scenario here is applied event by event, in the batches shown, and
compared with the same events applied in one batch (which always settles in full), and the test checks
which path each job took."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from lineage_app.graph import validity
from lineage_app.graph.writer import graph_wipe
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.instants import utc_text
from tests.apply import accept
from tests.events import PRODUCER, T0, dataset, facet, new_run_id, run_event
from tests.explorer.job_to_job import AIRFLOW, EXTRACT, LOAD, task_run
from tests.graph_dump import graph_dump
from tests.time.scenario import DAY_1, DAY_2, JOB, NAMESPACE, one_run

pytestmark = pytest.mark.django_db

DAY_3 = DAY_2 + timedelta(days=1)
ETL = f"spark\x1f{JOB}"


@pytest.fixture
def full_settles(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The job keys each batch settled in full, in order (the rest took the newest-news path)."""
    settled: list[str] = []
    settle = validity._settle_in_full

    def spy(tx: Any, *, keys: Any, grace_for: Any) -> None:
        settled.extend(keys)
        settle(tx, keys=keys, grace_for=grace_for)

    monkeypatch.setattr(validity, "_settle_in_full", spy)
    yield settled


def _apply(batches: list[list[dict[str, Any]]]) -> list[str]:
    graph_wipe()
    LineageEvent.objects.all().delete()
    for batch in batches:
        events_apply(event_ids=accept(*batch))
    return graph_dump()


def _same_graph_as_one_batch(batches: list[list[dict[str, Any]]]) -> None:
    stepwise = _apply(batches)
    assert stepwise == _apply([[event for batch in batches for event in batch]])


def _lineage_run(day: Any, derived: dict[str, list[str]], *, output: str = "OUT") -> list[dict[str, Any]]:
    """An `etl` run on `day` reading A and B into `output`, whose columns derive as `derived` says."""
    run_id = new_run_id()
    sources = [dataset(NAMESPACE, name, fields=[("amount", "double")]) for name in ("A", "B")]
    target = dataset(
        NAMESPACE,
        output,
        fields=[(column, "double") for column in derived],
        column_lineage={column: [(NAMESPACE, name, "amount") for name in names] for column, names in derived.items()},
    )
    return [
        run_event("START", run_id=run_id, job=JOB, at=day, inputs=sources, outputs=[target]),
        run_event("COMPLETE", run_id=run_id, job=JOB, at=day + timedelta(minutes=10), inputs=sources, outputs=[target]),
    ]


def test_changing_inputs_event_by_event(graph, full_settles) -> None:
    runs = [one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"]), one_run(DAY_3, ["A", "B"])]
    _same_graph_as_one_batch([[event] for run in runs for event in run])
    # Until the first run completes the job has no confirmation on record (its two events settle in
    # full); every later event is news. The last one is the one-batch reference.
    assert full_settles.count(ETL) == 3


def test_a_column_left_out_of_the_column_lineage_turns_stale_though_the_output_stays(graph, full_settles) -> None:
    first = _lineage_run(DAY_1, {"total": ["A", "B"], "share": ["B"]})
    second = _lineage_run(DAY_2, {"total": ["A"]})
    _same_graph_as_one_batch([first, second])
    assert full_settles.count(ETL) == 2


def test_a_job_writing_elsewhere_retires_the_old_output_and_its_derivations(graph, full_settles) -> None:
    _same_graph_as_one_batch([one_run(DAY_1, ["A"]), one_run(DAY_2, ["A"], output="OUT2")])
    assert full_settles.count(ETL) == 2


def test_a_sighting_after_the_newest_run_in_the_same_batch_stays_current(graph, full_settles) -> None:
    earlier = one_run(DAY_1 - timedelta(days=1), ["A"])
    first, second = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["C"])
    # The second run's START (reading C) comes with the first run's COMPLETE: C is current, seen after it.
    _same_graph_as_one_batch([earlier, [first[0]], [first[1], second[0]], [second[1]]])
    assert full_settles.count(ETL) == 2  # the job's first batch, then the one-batch reference


def test_late_news_settles_in_full(graph, full_settles) -> None:
    first, second = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"])
    _same_graph_as_one_batch([second, first])  # day 1 after day 2: older than the job's newest confirmation
    assert full_settles.count(ETL) == 3


def test_a_run_that_turns_out_to_have_failed_first_settles_in_full(graph, full_settles) -> None:
    first, second = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"])
    run_id = second[0]["run"]["runId"]
    # A FAIL timed before the day-2 run's COMPLETE arrives after it: the run failed, and its event is older
    # than the job's newest confirmation on record, so the job's edges are worked out again in full.
    _apply([first, second, [run_event("FAIL", run_id=run_id, job=JOB, at=DAY_2 + timedelta(minutes=5))]])
    assert full_settles.count(ETL) == 2  # the job's first batch, and the late FAIL's


def test_a_run_whose_fail_precedes_its_complete_confirms_nothing_whatever_order_they_arrive_in(graph) -> None:
    first, second = one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A", "C"])
    run_id = second[0]["run"]["runId"]
    fail = run_event("FAIL", run_id=run_id, job=JOB, at=DAY_2 + timedelta(minutes=5))
    # The day-2 run failed (its earliest terminal event): A, B and C stay as the day-1 run confirmed them,
    # A and B confirmed by it, C only seen; so whether the FAIL arrives before or after the COMPLETE.
    complete_first = _apply([first, second, [fail]])
    assert complete_first == _apply([first, [second[0], fail], [second[1]]])
    assert complete_first == _apply([[*first, *second, fail]])
    assert complete_first == _apply([[second[1]], [fail], second, first])


def test_a_confirmation_taken_back_falls_back_on_the_job_event_that_declared_the_edge(graph) -> None:
    declared = utc_text(DAY_1 - timedelta(hours=1))
    job_event = {
        "eventTime": declared,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": "spark", "name": JOB, "facets": {}},
        "inputs": [dataset(NAMESPACE, "A", fields=[("amount", "double")])],
        "outputs": [],
    }
    run = one_run(DAY_1, ["A", "C"])
    fail = run_event("FAIL", run_id=run[0]["run"]["runId"], job=JOB, at=DAY_1 + timedelta(minutes=5))
    complete_first = _apply([[job_event], run, [fail]])
    assert complete_first == _apply([[job_event, *run, fail]])
    (read_a,) = [row for row in complete_first if '"type": "INPUT_TO"' in row and "lake\\u001fA" in row]
    assert f'"confirmedAt": "{declared}"' in read_a  # the JobEvent's, not the failed run's


def test_a_dependency_a_failed_run_declared_falls_back_on_the_jobs_earlier_run(graph) -> None:
    audit = "orders_daily.audit"
    first = task_run(new_run_id(), LOAD, minutes=3, upstream=(EXTRACT,))
    second = task_run(new_run_id(), LOAD, minutes=24 * 60 + 3, upstream=(EXTRACT, audit))
    second_at = T0 + timedelta(minutes=24 * 60 + 3)
    # The day-2 run of `load` declared `extract` and `audit` upstream, and failed (its FAIL is timed before its
    # COMPLETE): `extract` -> `load` keeps the day-1 run's confirmation, `audit` -> `load` is only seen,
    # whatever order the events arrive in. When the FAIL comes last, the run's confirmations are taken back.
    fail = run_event("FAIL", run_id=second[0]["run"]["runId"], job=LOAD, namespace=AIRFLOW, at=second_at)
    complete_first = _apply([first, second, [fail]])
    assert complete_first == _apply([first, [second[0], fail], [second[1]]])
    assert complete_first == _apply([[*first, *second, fail]])
    assert complete_first == _apply([[second[1]], [fail], second, first])
    declared = {
        (edge["from"], edge["to"]): edge["props"]
        for edge in map(json.loads, complete_first)
        if edge.get("type") == "PRECEDES"
    }
    load = f"['Job']:{AIRFLOW}\x1f{LOAD}"
    from_extract, from_audit = (declared[(f"['Job']:{AIRFLOW}\x1f{name}", load)] for name in (EXTRACT, audit))
    assert from_extract["confirmedAt"] == utc_text(T0 + timedelta(minutes=4))  # the day-1 COMPLETE
    assert "confirmedAt" not in from_audit
    assert from_audit["lastSeen"] >= utc_text(second_at)


def _drop(at: Any, name: str) -> dict[str, Any]:
    table = dataset(NAMESPACE, name)
    table["facets"]["lifecycleStateChange"] = facet(lifecycleStateChange="DROP")
    return {
        "eventTime": utc_text(at),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
        "dataset": table,
    }


def test_a_drop_newer_than_the_jobs_news_is_heeded(graph, full_settles) -> None:
    first = one_run(DAY_1, ["A", "B"])
    # B is dropped on day 3; then a failed run's sighting of B from day 2 arrives: B stays retired by the drop.
    failed = run_event(
        "FAIL", run_id=new_run_id(), job=JOB, at=DAY_2, inputs=[dataset(NAMESPACE, "B", fields=[("amount", "double")])]
    )
    _same_graph_as_one_batch([first, [_drop(DAY_3, "B")], [failed]])
    assert full_settles.count(ETL) >= 3  # the drop's batch, the late sighting's, and the reference


def test_a_grace_other_than_the_default_settles_in_full(graph, full_settles, settings) -> None:
    settings.LINEAGE_STALE_AFTER_RUNS = 2
    _same_graph_as_one_batch([one_run(DAY_1, ["A", "B"]), one_run(DAY_2, ["A"]), one_run(DAY_3, ["A"])])
    assert full_settles.count(ETL) == 4


def test_a_job_first_seen_takes_its_newest_confirmation_from_the_graph(graph) -> None:
    _apply([one_run(T0, ["A"])])
    from lineage_app.graph.driver import graph_read

    latest = graph_read(
        lambda tx: tx.run("MATCH (j:Job {key: $key}) RETURN j.latestConfirmation AS latest", key=ETL).single()["latest"]
    )
    assert latest.startswith(utc_text(T0 + timedelta(minutes=10)))
