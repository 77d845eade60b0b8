"""Invariant 1: accept means durable. Events survive a dead graph engine and a dead broker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from lineage_app.explorer.selectors.jobs_and_runs import run_for_id
from lineage_app.ingest import services
from lineage_app.ingest.models import LineageEvent
from tests.conftest import ROOT, EmbeddedGraph, database_url, graph_env, wait_until
from tests.events import run_lifecycle
from tests.processes import processes_stop

pytestmark = pytest.mark.django_db(transaction=True)


class Celery:
    """Real Celery processes (worker, optionally beat) on the test database, broker and graph."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.processes: list[subprocess.Popen[bytes]] = []
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.CELERY_BROKER_URL,
            **graph_env(),
            "TRIBUTARY_VAR_DIR": str(tmp),
            "INGEST_RETRY_BACKOFF_MAX_SECONDS": "2",
            "INGEST_SWEEP_INTERVAL_SECONDS": "1",
            "INGEST_SWEEP_MIN_AGE_SECONDS": "0",
        }

    def start(self, *role: str) -> None:
        argv = [sys.executable, "-m", "celery", "-A", "lineage_app", *role, "--loglevel", "WARNING"]
        log = (self.tmp / f"{role[0]}.log").open("ab")
        self.processes.append(subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=log))

    def stop(self) -> None:
        processes_stop(self.processes)


@pytest.fixture
def celery(tmp_path: Path) -> Iterator[Celery]:
    processes = Celery(tmp_path)
    yield processes
    processes.stop()


def _post(client, events) -> list[int]:  # type: ignore[no-untyped-def]
    ids = []
    for event in events:
        response = client.post("/api/v1/lineage", data=json.dumps(event), content_type="application/json")
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])
    return ids


def _all_applied(ids: list[int]) -> bool:
    return LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.APPLIED).count() == len(ids)


def _all_retried(ids: list[int]) -> bool:
    return LineageEvent.objects.filter(id__in=ids, attempts__gte=2).count() == len(ids)


def test_events_accepted_while_the_graph_is_down_are_applied_once_it_is_back(graph, ingest_client, celery, client):  # type: ignore[no-untyped-def]
    if graph is None:
        pytest.skip("stops and restarts the session's own engine; an external NEO4J_URI cannot be stopped here")
    events = run_lifecycle()
    graph.stop()
    try:
        ids = _post(ingest_client, events)
        celery.start("worker", "--pool", "solo")
        # A second attempt is counted only after the first one failed and the task was retried.
        wait_until(lambda: _all_retried(ids), timeout=60, what="the worker to fail and retry every event")
        assert LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.PENDING).count() == 3
        asked = time.monotonic()
        health = client.get("/healthz")
        # A probe's own timeout (compose's web health check: 10 s) must not expire before the answer:
        # the graph is asked once, not retried like a managed transaction.
        assert time.monotonic() - asked < 10
        assert health.status_code == 503
        assert health.json()["services"]["graph"] == "down"
    finally:
        graph.start()
    wait_until(lambda: _all_applied(ids), timeout=90, what="the events to be applied after the graph came back")
    assert run_for_id(run_id=events[0]["run"]["runId"])["state"] == "COMPLETED"
    healthy = {"database": "up", "redis": "up", "graph": "up"}
    assert client.get("/healthz").json() == {"status": "ok", "services": healthy}


def test_events_accepted_while_the_broker_is_down_are_applied_by_the_sweeper(graph, ingest_client, celery, broker):  # type: ignore[no-untyped-def]
    events = run_lifecycle(fail=True)
    broker.stop()
    try:
        ids = _post(ingest_client, events)
        assert LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.PENDING).count() == 3
    finally:
        broker.start()
    celery.start("worker", "--pool", "solo")
    celery.start("beat", "--schedule", str(celery.tmp / "beat-schedule"))
    wait_until(lambda: _all_applied(ids), timeout=60, what="the sweeper to re-enqueue and the worker to apply")
    run = run_for_id(run_id=events[0]["run"]["runId"])
    assert (run["state"], run["errorMessage"]) == ("FAILED", "boom")


def test_accepting_does_not_wait_for_a_hung_broker(ingest_client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A broker that takes connections and never answers cannot be had on demand (a dead one fails
    fast), so the message send is replaced by one that blocks until the test lets it go."""
    sending, release = threading.Event(), threading.Event()

    def hung_send(*, event_ids: list[int]) -> None:
        sending.set()
        release.wait(timeout=30)
        sending.clear()

    monkeypatch.setattr(services, "events_enqueue", hung_send)
    first, second = run_lifecycle()[:2]
    try:
        _post(ingest_client, [first])
        assert sending.wait(timeout=30)  # the message about the first event is stuck in the broker
        [second_id] = _post(ingest_client, [second])
        assert sending.is_set(), "the second accept waited for the stuck message"
    finally:
        release.set()
    assert LineageEvent.objects.get(pk=second_id).status == LineageEvent.Status.PENDING


def _niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_workers_and_the_embedded_engine_yield_the_cpu_to_accepting(graph, celery) -> None:  # type: ignore[no-untyped-def]
    ours = _niceness(os.getpid())
    celery.start("worker", "--pool", "solo")
    worker = celery.processes[0].pid
    wait_until(lambda: _niceness(worker) != ours, timeout=60, what="the worker to lower its priority")
    assert _niceness(worker) == min(19, ours + settings.WORKER_NICENESS)
    if isinstance(graph, EmbeddedGraph):  # the session's embedded engine, started by `manage.py graph_server`
        assert _niceness(graph.process.pid) == min(19, ours + settings.GRAPH_EMBEDDED_NICENESS)
