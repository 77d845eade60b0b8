"""A worker that stops anywhere in an apply never leaves a run half-folded: a retry or the sweeper
brings the graph back to what `rebuild_graph` gives (invariant 4).

A test cannot `kill -9` its own process in the middle of a call, so a worker's death is an exception
raised right after one of the apply's steps (`Stop`): the fault the tests cannot cause otherwise.
Everything else is real: the event log, the graph engine and the product's own functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.graph.driver import graph_write
from lineage_app.graph.events import EventRecord
from lineage_app.graph.projection import GraphWrites, writes_add_runs
from lineage_app.graph.run_state import run_fold
from lineage_app.graph.writer import graph_wipe, graph_writes_apply
from lineage_app.ingest import services, tasks
from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply, graph_rebuild
from lineage_app.ingest.validation import event_check
from tests.apply import accept
from tests.events import T0, dataset, new_run_id, run_event
from tests.graph_dump import graph_dump
from tests.observability.scrape import samples_of, value

pytestmark = pytest.mark.django_db

# The apply's steps a worker can stop after: writing graph rows (the batch, or a re-fold), marking
# events applied, recording runs settled.
STEPS = ("graph_writes_apply", "log_mark_applied", "log_mark_folded")


class Stop(Exception):
    """The worker died here."""


@dataclass
class Worker:
    """One worker's apply, which may stop for good after its `stop_after`-th step, and may let the other
    worker run its whole apply after its `yield_after`-th step (how two workers interleave)."""

    event_ids: list[int]
    stop_after: int | None = None
    yield_after: int | None = None
    other: Callable[[], object] | None = None
    steps: int = 0
    stopped: bool = False
    log: list[str] = field(default_factory=list)

    def after_step(self, name: str) -> None:
        self.steps += 1
        self.log.append(name)
        if self.steps == self.yield_after and self.other is not None:
            other, self.other = self.other, None
            other()
        if self.steps == self.stop_after:
            raise Stop(f"stopped after {name} (step {self.steps})")

    def apply(self) -> None:
        with _running(self):
            try:
                events_apply(event_ids=self.event_ids)
            except Stop:
                self.stopped = True


_current: list[Worker] = []


@contextmanager
def _running(worker: Worker) -> Iterator[None]:
    _current.append(worker)
    try:
        yield
    finally:
        _current.pop()


@pytest.fixture(autouse=True)
def steps_observed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each step of `ingest.services` tells the worker running it that it is done."""
    for name in STEPS:
        real = getattr(services, name)

        def step(*args: Any, _real: Callable[..., Any] = real, _name: str = name, **kwargs: Any) -> Any:
            result = _real(*args, **kwargs)
            if _current:
                _current[-1].after_step(_name)
            return result

        monkeypatch.setattr(services, name, step)


def _rebuilt() -> list[str]:
    graph_rebuild(batch_size=100)
    return graph_dump()


def test_a_worker_that_dies_after_marking_leaves_its_run_for_the_retry(graph) -> None:  # type: ignore[no-untyped-def]
    """The reported interleaving: two workers apply a run's START and COMPLETE at once; the START's
    worker marks its event applied after the other settled the run, and dies before re-folding."""
    run_id = new_run_id()
    start, complete = accept(
        run_event("START", run_id=run_id, at=T0),
        run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=3)),
    )
    b = Worker([complete])
    a = Worker([start], yield_after=1, stop_after=2, other=b.apply)  # B runs between A's write and A's marking
    a.apply()
    assert a.stopped and a.log == ["graph_writes_apply", "log_mark_applied"]
    assert LineageEvent.objects.filter(status="applied").count() == 2
    assert run_for_id(run_id=run_id)["eventCount"] == 1, "the run is half-folded until someone settles it"
    assert LineageEvent.objects.filter(fold_pending=True).count() == 1, "and the log says so"

    events_apply(event_ids=[start])  # Celery retries A's task: its event is applied already

    run = run_for_id(run_id=run_id)
    assert (run["state"], run["eventCount"], run["startedAt"], run["durationMs"]) == (
        "COMPLETED",
        2,
        "2026-01-05T08:00:00.000000Z",
        180000,
    )
    assert not LineageEvent.objects.filter(fold_pending=True).exists()
    assert graph_dump() == _rebuilt()


def test_the_sweeper_settles_a_run_whose_worker_never_came_back(graph, settings) -> None:  # type: ignore[no-untyped-def]
    settings.INGEST_SWEEP_MIN_AGE_SECONDS = 0
    run_id = new_run_id()
    start, complete = accept(
        run_event("START", run_id=run_id, at=T0),
        run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=3)),
    )
    b = Worker([complete])
    Worker([start], yield_after=1, stop_after=2, other=b.apply).apply()
    assert run_for_id(run_id=run_id)["eventCount"] == 1

    assert tasks.settle_unfolded_runs() == 1
    assert run_for_id(run_id=run_id)["eventCount"] == 2
    assert tasks.settle_unfolded_runs() == 0, "a settled run is not folded again"
    assert graph_dump() == _rebuilt()


def _metric(name: str) -> float:
    return value(samples_of(Client().get("/metrics").content.decode()), name)


def test_verify_graph_finds_a_run_that_differs_from_its_events_and_repairs_it(graph, capsys) -> None:  # type: ignore[no-untyped-def]
    run_id = new_run_id()
    events_apply(
        event_ids=accept(
            run_event("START", run_id=run_id, at=T0),
            run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=3)),
        )
    )
    call_command("verify_graph")
    assert "1 run(s) checked, 0 differ" in capsys.readouterr().out
    assert _metric("tributary_graph_check_runs_differing") == 0
    # Something other than an apply changed the run's node (a hand edit, a bug, a restore from backup).
    graph_write(lambda tx: tx.run("MATCH (r:Run {runId: $id}) SET r.state = 'RUNNING'", id=run_id).consume())

    with pytest.raises(CommandError, match="differs from the event log"):
        call_command("verify_graph")
    out = capsys.readouterr().out
    assert '"graph": "RUNNING"' in out and '"log": "COMPLETED"' in out and '"property": "state"' in out
    assert _metric("tributary_graph_check_runs_differing") == 1

    call_command("verify_graph", "--repair")
    assert "1 differ from their events, 1 repaired" in capsys.readouterr().out
    assert run_for_id(run_id=run_id)["state"] == "COMPLETED"
    call_command("verify_graph")
    assert _metric("tributary_graph_check_runs_differing") == 0


def test_metrics_count_the_events_whose_run_waits_to_be_settled(graph) -> None:  # type: ignore[no-untyped-def]
    run_id = new_run_id()
    start, complete = accept(
        run_event("START", run_id=run_id, at=T0), run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=3))
    )
    Worker([start, complete], stop_after=2).apply()  # marked both, then died
    assert _metric("tributary_events_fold_pending") == 2
    events_apply(event_ids=[start, complete])
    assert _metric("tributary_events_fold_pending") == 0


def test_a_smaller_fold_written_late_does_not_undo_a_larger_one(graph) -> None:  # type: ignore[no-untyped-def]
    """A slow worker's fold of fewer events, written after a fold of all of them, changes nothing."""
    run_id = new_run_id()
    events = [
        run_event("START", run_id=run_id, at=T0),
        run_event("COMPLETE", run_id=run_id, at=T0 + timedelta(minutes=3)),
    ]
    checked = [event_check(e) for e in events]
    records = [
        EventRecord(content_hash=c.content_hash, event_time=c.event_time, payload=e)
        for e, c in zip(events, checked, strict=True)
    ]
    for fold in (run_fold(records), run_fold(records[:1])):
        writes = GraphWrites()
        writes_add_runs(writes, [fold])
        graph_writes_apply(writes)
    run = run_for_id(run_id=run_id)
    assert (run["state"], run["eventCount"]) == ("COMPLETED", 2)


def _scenario() -> list[dict[str, Any]]:
    """Two runs of one job (the second fails) and a run of another job reading what the first wrote."""
    first, second, reader = new_run_id(), new_run_id(), new_run_id()
    out = dataset("file:///lake", "clean/orders", fields=[("id", "bigint"), ("amount", "double")])
    raw = dataset("file:///lake", "raw/orders", fields=[("id", "bigint")])
    return [
        run_event("START", run_id=first, at=T0, inputs=[raw]),
        run_event("RUNNING", run_id=first, at=T0 + timedelta(minutes=1)),
        run_event("COMPLETE", run_id=first, at=T0 + timedelta(minutes=2), inputs=[raw], outputs=[out]),
        run_event("START", run_id=second, at=T0 + timedelta(hours=1)),
        run_event("FAIL", run_id=second, at=T0 + timedelta(hours=1, minutes=1)),
        run_event("START", run_id=reader, job="report.daily", at=T0 + timedelta(minutes=5), inputs=[out]),
        run_event("COMPLETE", run_id=reader, job="report.daily", at=T0 + timedelta(minutes=6), inputs=[out]),
    ]


SCENARIO = _scenario()
# Up to how many steps one apply takes here: the batch's write, marking, a re-fold's write, settling.
MOST_STEPS = 6


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    split=st.lists(st.booleans(), min_size=len(SCENARIO), max_size=len(SCENARIO)),
    stop_a=st.one_of(st.none(), st.integers(1, MOST_STEPS)),
    stop_b=st.one_of(st.none(), st.integers(1, MOST_STEPS)),
    yield_after=st.integers(1, MOST_STEPS),
    recover_by_sweeper=st.booleans(),
)
def test_workers_stopping_at_any_step_end_equal_to_a_rebuild(  # type: ignore[no-untyped-def]
    graph, settings, split, stop_a, stop_b, yield_after, recover_by_sweeper
) -> None:
    settings.INGEST_SWEEP_MIN_AGE_SECONDS = 0
    graph_wipe()
    LineageEvent.objects.all().delete()
    ids = accept(*SCENARIO)
    mine = [i for i, to_a in zip(ids, split, strict=True) if to_a]
    theirs = [i for i, to_a in zip(ids, split, strict=True) if not to_a]
    b = Worker(theirs, stop_after=stop_b)
    a = Worker(mine, stop_after=stop_a, yield_after=yield_after, other=b.apply)
    a.apply()
    if a.other is not None:  # A finished (or stopped) before its turn to yield: B runs after it
        b.apply()
    # Recovery: Celery retries each task that did not finish (its events may be applied already),
    # or the beat's sweepers find what is left.
    if recover_by_sweeper:
        pending = list(LineageEvent.objects.filter(status="pending").values_list("id", flat=True))
        tasks.apply_events.apply(args=[pending]).get()  # what the sweeper re-enqueues, run by a worker
        tasks.settle_unfolded_runs()
    else:
        for worker in (a, b):
            if worker.stopped:
                events_apply(event_ids=worker.event_ids)
    assert not LineageEvent.objects.exclude(status="applied").exists()
    assert not LineageEvent.objects.filter(fold_pending=True).exists()
    assert graph_dump() == _rebuilt()
