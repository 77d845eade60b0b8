"""The production shape without Docker: two web processes, two workers and beat on PostgreSQL, Redis and the
graph engine, fed by several producers at once. Every event is stored once and applied."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lineage_app.graph.driver import graph_read, records
from tests.conftest import wait_until
from tests.deploy.production import ProductionStack, post_json
from tests.events import T0, dataset, new_run_id, run_event

PRODUCERS = 4
RUNS_PER_PRODUCER = 12


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


def _send(producer: int, stack: ProductionStack, token: str) -> Counter[str]:
    """Post a producer's events out of order, half one by one and half in batches, to both web processes,
    then post a few of them again (a producer retrying after a timeout)."""
    shuffled = random.Random(producer).sample(_producer_events(producer), k=RUNS_PER_PRODUCER * 3)
    answers: Counter[str] = Counter()
    half = len(shuffled) // 2
    for n, event in enumerate(shuffled[:half]):
        status, body = post_json(stack.url(f"web{n % 2 + 1}", "/api/v1/lineage"), token, event)
        answers[f"{status} {body['status'] if isinstance(body, dict) else body}"] += 1
    for n, start in enumerate(range(half, len(shuffled), 6)):
        status, body = post_json(
            stack.url(f"web{n % 2 + 1}", "/api/v1/lineage/batch"), token, shuffled[start : start + 6]
        )
        assert status in (200, 201, 207), body
        answers.update(f"batch {result['status']}" for result in body["results"])
    for event in shuffled[:5]:
        status, body = post_json(stack.url("web2", "/api/v1/lineage"), token, event)
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
        answers = sum(pool.map(lambda p: _send(p, stack, token), range(PRODUCERS)), Counter())
    sent = PRODUCERS * RUNS_PER_PRODUCER * 3
    assert answers["201 accepted"] + answers["batch accepted"] == sent, answers
    assert answers["retry 200 duplicate"] == 5 * PRODUCERS, answers

    def statuses() -> dict[str, int]:
        """Events by status, and `fold pending` for the applied ones whose run a worker is still folding again
        (two workers applied a run's events in different batches: the later one refolds it after marking)."""
        with psycopg.connect(stack.env["DATABASE_URL"]) as conn:
            counted = conn.execute(
                "SELECT CASE WHEN fold_pending THEN 'fold pending' ELSE status END, count(*) "
                "FROM ingest_lineageevent GROUP BY 1"
            ).fetchall()
        return dict(counted)

    try:
        wait_until(lambda: statuses() == {"applied": sent}, timeout=180, what="every event applied, its run settled")
    except AssertionError:
        raise AssertionError(f"{statuses()}\n{stack.logs()}") from None

    runs = graph_read(lambda tx: records(tx, "MATCH (r:Run) RETURN r.state AS state, count(r) AS n"))
    assert runs == [{"state": "COMPLETED", "n": PRODUCERS * RUNS_PER_PRODUCER}]
    edges = graph_read(
        lambda tx: records(tx, "MATCH (:Dataset)-[:INPUT_TO]->(j:Job)-[:OUTPUTS]->(:Dataset) RETURN count(j) AS n")
    )
    assert edges == [{"n": PRODUCERS * 3}], "one clean_orders job per table per site, each read one and wrote one"
