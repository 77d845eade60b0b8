"""Metrics of real server processes: gunicorn's workers add up through `PROMETHEUS_MULTIPROC_DIR` (and a dead
worker's counts stay), and a Celery worker serves its pool's counts on `WORKER_METRICS_PORT`; both log JSON lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from lineage_app.ingest.models import LineageEvent
from tests.conftest import ROOT, database_url, free_port, graph_env, wait_until
from tests.events import new_run_id, run_event, run_lifecycle
from tests.observability.scrape import Samples, samples_of, value
from tests.test_web_server import _children

pytestmark = pytest.mark.django_db(transaction=True)

ACCEPTED = {"outcome": "accepted", "reason": ""}


def previous_run_counted(directory: Path, count: str) -> None:
    """Leave in `directory` the files of an earlier server's process that ran `count` (as after a container
    restart): a server must start from zero, not add them to its own."""
    code = f"import django; django.setup(); from lineage_app.observability import metrics; metrics.{count}"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory), "DJANGO_SETTINGS_MODULE": "lineage_app.settings"}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=60)
    assert list(directory.glob("counter_*.db"))


class Server:
    """One server process (gunicorn or a Celery worker) on the test database, broker and graph, logging JSON;
    its metrics directory holds an earlier run's `stale` count when it starts."""

    def __init__(self, tmp: Path, name: str, argv: list[str], *, stale: str, **env: str) -> None:
        self.metrics_dir = tmp / f"{name}-metrics"
        self.metrics_dir.mkdir()
        previous_run_counted(self.metrics_dir, stale)
        self.log = tmp / f"{name}.log"
        environment = {
            "PATH": os.environ["PATH"],
            "DATABASE_URL": database_url(),
            "REDIS_URL": settings.CELERY_BROKER_URL,
            **graph_env(),
            "TRIBUTARY_VAR_DIR": str(tmp),
            "LOG_FORMAT": "json",
            # As the image runs them: each line written whole as it is logged, so the processes sharing
            # one output do not interleave parts of their block-buffered lines.
            "PYTHONUNBUFFERED": "1",
            "PROMETHEUS_MULTIPROC_DIR": str(self.metrics_dir),
            **env,
        }
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(argv, cwd=ROOT, env=environment, stdout=log, stderr=log)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)

    def log_lines(self) -> list[dict[str, Any]]:
        """Every line the process wrote, each parsed as JSON (a line that is not JSON fails the test)."""
        text = self.log.read_text()
        complete = text[: text.rfind("\n") + 1]  # the process may be writing its next line right now
        lines = []
        for line in complete.splitlines():
            if not line.strip():
                continue
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                raise AssertionError(f"a log line that is not JSON: {line!r}") from None
        return lines


def frozen_heaps(server: Server) -> dict[int, int]:
    """The processes that froze their start-up heap (`lineage_app.process_heap`), with how many objects each froze:
    the application loaded (a bare interpreter holds some 20,000), never twice in one process."""
    lines = [line for line in server.log_lines() if line["logger"] == "lineage_app.process_heap"]
    frozen = {line["pid"]: line["frozen_objects"] for line in lines}
    assert len(frozen) == len(lines), "a process froze its heap twice"
    assert all(count > 100_000 for count in frozen.values()), frozen
    return frozen


def get(url: str, token: str | None = None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


def scrape(url: str, token: str | None = None) -> Samples:
    status, text = get(url, token)
    assert status == 200, status
    return samples_of(text)


@pytest.fixture
def web(tmp_path: Path, graph) -> Iterator[tuple[Server, int]]:  # type: ignore[no-untyped-def]
    port = free_port()
    gunicorn = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "python:lineage_app.gunicorn_conf",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    stale = 'INGEST_EVENTS.labels(outcome="accepted", reason="").inc(1000)'
    server = Server(tmp_path, "web", gunicorn, stale=stale, WEB_CONCURRENCY="2", WEB_THREADS="2")
    try:
        wait_until(
            lambda: len(_children(server.process.pid)) == 2 and get(f"http://127.0.0.1:{port}/healthz")[0] == 200,
            timeout=60,
            what="gunicorn and its two workers",
        )
        yield server, port
    finally:
        server.stop()


def _post(port: int, token: str, event: dict[str, Any]) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/lineage",
        data=json.dumps(event).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return int(answer.status)


def test_gunicorn_workers_report_every_worker_s_counts_even_after_one_dies(web, ingest_token: str) -> None:  # type: ignore[no-untyped-def]
    server, port = web
    posted = 0

    def serving_pids() -> set[int]:
        lines = server.log_lines()
        return {line["pid"] for line in lines if line.get("route") == "/api/v1/lineage" and line["status"] == 201}

    # Whichever worker wakes first takes a new connection; post rounds of concurrent events (a
    # connection each) until each worker has stored some.
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(10):
            events = [run_event("START", run_id=new_run_id()) for _ in range(8)]
            assert list(pool.map(lambda e: _post(port, ingest_token, e), events)) == [201] * 8
            posted += len(events)
            if len(serving_pids()) == 2:
                break
    assert serving_pids() == set(_children(server.process.pid)), "both workers stored events"

    url = f"http://127.0.0.1:{port}/metrics"
    for _ in range(4):  # whichever worker answers, the counts are the sum over both
        samples = scrape(url)
        assert value(samples, "tributary_ingest_events_total", **ACCEPTED) == posted
        route = {"route": "/api/v1/lineage", "method": "POST"}
        assert value(samples, "tributary_http_requests_total", **route, status="201") == posted
        assert value(samples, "tributary_events_backlog") == posted, "a gauge read from the event log"

    gone = _children(server.process.pid)[0]
    os.kill(gone, signal.SIGTERM)
    wait_until(
        lambda: gone not in _children(server.process.pid) and len(_children(server.process.pid)) == 2,
        timeout=60,
        what="gunicorn to replace the stopped worker",
    )
    wait_until(lambda: get(url)[0] == 200, timeout=30, what="the web to answer again")
    assert value(scrape(url), "tributary_ingest_events_total", **ACCEPTED) == posted, "a dead worker's counts stay"
    requests = [line for line in server.log_lines() if line.get("route") == "/api/v1/lineage"]
    assert len(requests) == posted
    assert {r["pid"] for r in requests} <= set(frozen_heaps(server)), "each worker froze its heap before serving"
    wait_until(
        lambda: set(_children(server.process.pid)) <= set(frozen_heaps(server)),
        timeout=30,
        what="the replacement worker to freeze its heap",
    )
    assert all({"request_id", "method", "status", "duration_ms", "user", "event_ids"} <= set(r) for r in requests)
    assert {r["user"] for r in requests} == {"token:test ingest"}


@pytest.fixture
def worker(tmp_path: Path, graph) -> Iterator[tuple[Server, int]]:  # type: ignore[no-untyped-def]
    port = free_port()
    # --quiet: no banner, as docker-compose.yml runs it (the banner is printed, not logged, so it is not JSON).
    celery = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "lineage_app",
        "--quiet",
        "worker",
        "--concurrency",
        "2",
        "-l",
        "INFO",
    ]
    server = Server(
        tmp_path,
        "worker",
        celery,
        stale="EVENTS_APPLIED.inc(1000)",
        WORKER_METRICS_PORT=str(port),
        WORKER_METRICS_ADDR="127.0.0.1",
        METRICS_TOKEN="worker-scrape",
        # The tests may run as root, which Celery warns about on stderr (the production image does not).
        PYTHONWARNINGS="ignore:You're running the worker with superuser privileges",
    )
    try:
        wait_until(lambda: get(f"http://127.0.0.1:{port}/metrics")[0] == 401, timeout=60, what="the worker's metrics")
        yield server, port
    finally:
        server.stop()


def test_a_celery_worker_serves_its_pool_s_apply_counts_and_lag(worker, ingest_client: APIClient) -> None:  # type: ignore[no-untyped-def]
    server, port = worker
    url = f"http://127.0.0.1:{port}/metrics"
    events = [*run_lifecycle(), *run_lifecycle()]
    ids = [
        ingest_client.post("/api/v1/lineage", data=json.dumps(e), content_type="application/json").json()["id"]
        for e in events
    ]

    def all_applied() -> bool:
        return LineageEvent.objects.filter(id__in=ids, status=LineageEvent.Status.APPLIED).count() == len(ids)

    wait_until(all_applied, timeout=90, what="the worker to apply the events")
    assert get(url)[0] == 401, "the worker's port is guarded like /metrics"
    samples = scrape(url, "worker-scrape")
    assert value(samples, "tributary_events_applied_total") == len(ids)
    assert value(samples, "tributary_event_apply_lag_seconds_count") == len(ids)
    assert value(samples, "tributary_event_apply_lag_seconds_bucket", le="+Inf") == len(ids)
    assert value(samples, "tributary_event_apply_lag_seconds_sum") > 0
    assert value(samples, "tributary_graph_query_duration_seconds_count", kind="write") > 0

    def applying() -> list[dict[str, Any]]:
        tasks = [line for line in server.log_lines() if line["logger"] == "lineage_app.observability.worker"]
        return [t for t in tasks if t.get("task") == "lineage_app.ingest.tasks.apply_events"]

    # A task logs when it ends, which is after it marked its events applied and told what happened.
    wait_until(
        lambda: set(ids) <= {i for t in applying() for i in t["event_ids"]},
        timeout=30,
        what="the worker to log the tasks that applied the events",
    )
    assert {t["outcome"] for t in applying()} == {"SUCCESS"}
    assert {t["pid"] for t in applying()} <= set(frozen_heaps(server)), "each pool process froze its heap first"
    assert all(t["task_id"] and t["duration_ms"] > 0 for t in applying())
