"""The production shape without Docker: two web processes, two workers and beat on PostgreSQL, Redis and the
graph engine, fed by several producers at once. Every event is stored once and applied."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings

from lineage_app.graph.driver import graph_read, records
from tests.conftest import ROOT, free_port, graph_env, wait_until
from tests.events import T0, dataset, new_run_id, run_event

PRODUCERS = 4
RUNS_PER_PRODUCER = 12


class ProductionStack:
    """Two web processes (gunicorn), two workers and beat (Celery), configured only by the variables compose sets."""

    def __init__(self, tmp: Path, database_url: str) -> None:
        self.tmp = tmp
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "SECRET_KEY": "production-shape-test",
            "DATABASE_URL": database_url,
            "REDIS_URL": settings.CELERY_BROKER_URL,
            **graph_env(),
            "TRIBUTARY_VAR_DIR": str(tmp / "var"),
            "WEB_CONCURRENCY": "1",
            "INGEST_SWEEP_INTERVAL_SECONDS": "2",
        }
        self.processes: list[subprocess.Popen[bytes]] = []
        self.ports: list[int] = []

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.strip()

    def spawn(self, name: str, *argv: str) -> None:
        log = (self.tmp / f"{name}.log").open("ab")
        self.processes.append(subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=log))

    def start(self) -> None:
        for n in (1, 2):
            port = free_port()
            self.ports.append(port)
            gunicorn = str(Path(sys.executable).parent / "gunicorn")
            self.spawn(f"web{n}", gunicorn, "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}")
            celery = [sys.executable, "-m", "celery", "-A", "lineage_app"]
            self.spawn(f"worker{n}", *celery, "worker", "-n", f"worker{n}@%h", "--concurrency", "1", "-l", "WARNING")
        schedule = str(self.tmp / "beat-schedule")
        self.spawn("beat", sys.executable, "-m", "celery", "-A", "lineage_app", "beat", "-s", schedule, "-l", "WARNING")
        for port in self.ports:
            wait_until(lambda p=port: _status(f"http://127.0.0.1:{p}/healthz") == 200, timeout=60, what="web")

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            process.wait(timeout=30)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted(self.tmp.glob("*.log")))


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def _post(url: str, token: str, body: Any) -> tuple[int, Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _producer_events(producer: int) -> list[dict[str, Any]]:
    """One site's runs: each reads the site's raw table and writes a clean one, START → RUNNING → COMPLETE."""
    events = []
    for run in range(RUNS_PER_PRODUCER):
        run_id = new_run_id()
        source = dataset(f"postgres://site{producer}:5432", f"raw.orders_{run % 3}", fields=[("id", "bigint")])
        target = dataset(f"s3://lake-{producer}", f"clean/orders_{run % 3}", fields=[("id", "bigint")])
        at = T0 + timedelta(hours=run)
        job = f"site{producer}.clean_orders_{run % 3}"
        events += [
            run_event("START", run_id=run_id, job=job, namespace=f"site{producer}", at=at, inputs=[source]),
            run_event("RUNNING", run_id=run_id, job=job, namespace=f"site{producer}", at=at + timedelta(seconds=30)),
            run_event(
                "COMPLETE",
                run_id=run_id,
                job=job,
                namespace=f"site{producer}",
                at=at + timedelta(minutes=2),
                inputs=[source],
                outputs=[target],
            ),
        ]
    return events


def _send(producer: int, ports: list[int], token: str) -> Counter[str]:
    """Post a producer's events out of order, half one by one and half in batches, to both web processes,
    then post a few of them again (a producer retrying after a timeout)."""
    shuffled = random.Random(producer).sample(_producer_events(producer), k=RUNS_PER_PRODUCER * 3)
    answers: Counter[str] = Counter()
    half = len(shuffled) // 2
    for n, event in enumerate(shuffled[:half]):
        status, body = _post(f"http://127.0.0.1:{ports[n % 2]}/api/v1/lineage", token, event)
        answers[f"{status} {body['status'] if isinstance(body, dict) else body}"] += 1
    for n, start in enumerate(range(half, len(shuffled), 6)):
        status, body = _post(
            f"http://127.0.0.1:{ports[n % 2]}/api/v1/lineage/batch", token, shuffled[start : start + 6]
        )
        assert status in (200, 201, 207), body
        answers.update(f"batch {result['status']}" for result in body["results"])
    for event in shuffled[:5]:
        status, body = _post(f"http://127.0.0.1:{ports[1]}/api/v1/lineage", token, event)
        answers[f"retry {status} {body['status'] if isinstance(body, dict) else body}"] += 1
    return answers


@pytest.fixture
def stack(tmp_path: Path, postgres_database: str, graph, broker) -> Iterator[ProductionStack]:  # type: ignore[no-untyped-def]
    running = ProductionStack(tmp_path, postgres_database)
    running.manage("migrate", "--noinput")
    running.start()
    yield running
    running.stop()


def test_two_web_processes_and_two_workers_on_postgresql_apply_every_event_once(stack: ProductionStack) -> None:
    token = stack.manage("create_token", "--scope", "ingest", "--name", "sites")
    with ThreadPoolExecutor(max_workers=PRODUCERS) as pool:
        answers = sum(pool.map(lambda p: _send(p, stack.ports, token), range(PRODUCERS)), Counter())
    sent = PRODUCERS * RUNS_PER_PRODUCER * 3
    assert answers["201 accepted"] + answers["batch accepted"] == sent, answers
    assert answers["retry 200 duplicate"] == 5 * PRODUCERS, answers

    def statuses() -> dict[str, int]:
        with psycopg.connect(stack.env["DATABASE_URL"]) as conn:
            return dict(conn.execute("SELECT status, count(*) FROM ingest_lineageevent GROUP BY status").fetchall())

    try:
        wait_until(lambda: statuses() == {"applied": sent}, timeout=180, what="every event applied")
    except AssertionError:
        raise AssertionError(f"{statuses()}\n{stack.logs()}") from None

    runs = graph_read(lambda tx: records(tx, "MATCH (r:Run) RETURN r.state AS state, count(r) AS n"))
    assert runs == [{"state": "COMPLETED", "n": PRODUCERS * RUNS_PER_PRODUCER}]
    edges = graph_read(
        lambda tx: records(tx, "MATCH (:Dataset)-[:INPUT_TO]->(j:Job)-[:OUTPUTS]->(:Dataset) RETURN count(j) AS n")
    )
    assert edges == [{"n": PRODUCERS * 3}], "one clean_orders job per table per site, each read one and wrote one"
