"""Chaos: the production shape (two web processes, two workers, beat, PostgreSQL) under load while workers
are killed mid-task, the broker is down for a while and a web process dies and comes back. Nothing
accepted is lost, nothing is stored or built twice, and the graph is what a rebuild from the log gives.

The figures (what was done to the stack, what came out) are printed (`pytest -s`) and written to
`chaos-figures.json` in the test's tmp dir."""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lineage_app.graph.driver import graph_read, records
from tests.conftest import PrivateRedis, wait_until
from tests.deploy.production import ProductionStack, post_json
from tests.events import T0, dataset, facet, new_run_id, run_event
from tests.graph_dump import graph_dump

RUNS = 420
JOBS = 24
SENDERS = 2
# Events whose place in the load is moved up to this many posts later, so a run's events arrive out of order.
JITTER = 30
DUPLICATE_SHARE = 0.1
# The load is paced to last at least this long, so that every fault below happens during it.
LOAD_SECONDS = 30
KILL_EVERY = 2.0
# How long a kill waits for a worker to be settling a run, then for its worker to be applying events (a worker
# restarting, or the broker down, is not).
KILL_WAIT = 3.0
WEB_RESTART_AT = 3.0
BROKER_DOWN = (8.0, 20.0)
# How long a sender keeps retrying a post whose connection failed (a web process restarting).
RETRY_FOR = 60.0
DRAIN_TIMEOUT = 90.0
WORKERS = ("worker1", "worker2")
APPLY_TASK = re.compile(r"apply_events\[([0-9a-f-]{36})\] (received|succeeded|retry|raised)")
SETTLED = re.compile(r"settle_unfolded_runs\[[0-9a-f-]{36}\] succeeded in [0-9.e-]+s: (\d+)")


@dataclass(frozen=True)
class Run:
    run_id: str
    state: str
    events: list[dict[str, Any]]


def _runs() -> list[Run]:
    """Runs of `JOBS` jobs in three namespaces, START → RUNNING → COMPLETE (or FAIL, or still running);
    the job's input changes from run to run, some events name their datasets and some do not."""
    runs = []
    for n in range(RUNS):
        run_id, job, namespace = new_run_id(), f"chaos.job_{n % JOBS}", f"team{n % 3}"
        at = T0 + timedelta(minutes=n)
        source = dataset(f"postgres://db{n % 3}:5432", f"raw.table_{n % 8}", fields=[("id", "bigint")])
        extra = dataset("s3://lake", f"ref/lookup_{n % 5}")
        target = dataset("s3://lake", f"clean/job_{n % JOBS}", fields=[("id", "bigint")])
        inputs = [source, extra] if n % 4 == 0 else [source]
        events = [
            run_event("START", run_id=run_id, job=job, namespace=namespace, at=at, inputs=inputs if n % 2 else None),
            run_event("RUNNING", run_id=run_id, job=job, namespace=namespace, at=at + timedelta(seconds=20)),
        ]
        end = at + timedelta(minutes=3)
        if n % 11 == 0:
            state = "RUNNING"
        elif n % 6 == 0:
            state = "FAILED"
            failure = {"errorMessage": facet(message=f"boom {n}", programmingLanguage="python")}
            events.append(
                run_event(
                    "FAIL", run_id=run_id, job=job, namespace=namespace, at=end, inputs=inputs, run_facets=failure
                )
            )
        else:
            state = "COMPLETED"
            events.append(
                run_event(
                    "COMPLETE", run_id=run_id, job=job, namespace=namespace, at=end, inputs=inputs, outputs=[target]
                )
            )
        runs.append(Run(run_id=run_id, state=state, events=events))
    return runs


def _posts(events: list[dict[str, Any]]) -> list[list[int]]:
    """Each sender's posts (indexes into `events`): every event once, moved up to `JITTER` places later, and
    a tenth of them again some way later, through whichever sender (a producer retrying after a timeout)."""
    rng = random.Random(2026)
    keyed = [(n + rng.uniform(0, JITTER), n) for n in range(len(events))]
    keyed += [(n + rng.uniform(JITTER, 5 * JITTER), n) for n in range(len(events)) if rng.random() < DUPLICATE_SHARE]
    order = [n for _, n in sorted(keyed)]
    return [order[s::SENDERS] for s in range(SENDERS)]


@dataclass
class Sent:
    """What one sender saw: each post's answer and the event id it named, and the connections it retried."""

    answers: Counter[int] = field(default_factory=Counter)
    ids: dict[int, set[int]] = field(default_factory=lambda: defaultdict(set))
    retried: int = 0


def _send(stack: ProductionStack, token: str, events: list[dict[str, Any]], posts: list[int], sender: int) -> Sent:
    """Post one sender's events at a steady pace to both web processes in turn, retrying a post whose
    connection fails until it gets an answer."""
    sent = Sent()
    pace = LOAD_SECONDS / len(posts)
    started = time.monotonic()
    for n, index in enumerate(posts):
        time.sleep(max(0.0, started + n * pace - time.monotonic()))
        url = stack.url(f"web{(n + sender) % 2 + 1}", "/api/v1/lineage")
        deadline = time.monotonic() + RETRY_FOR
        while True:
            try:
                status, body = post_json(url, token, events[index])
                break
            except (OSError, http.client.HTTPException):  # no answer, or one cut off by the restart
                if time.monotonic() > deadline:
                    raise
                sent.retried += 1
                time.sleep(0.2)
        sent.answers[status] += 1
        if status in (200, 201):
            sent.ids[index].add(body["id"])
    return sent


class Chaos:
    """The faults, on a schedule from the load's start: one web process SIGKILLed and started again; the
    broker stopped for `BROKER_DOWN`; and a worker SIGKILLed and started again `KILL_EVERY` s after the
    last, alternating, in the middle of applying events: preferably at a moment a run is half-folded (its
    events marked applied, the run not yet settled), the narrow window the crash-safe apply exists for."""

    def __init__(self, stack: ProductionStack, broker: PrivateRedis) -> None:
        self.stack, self.broker = stack, broker
        self.kills = self.kills_mid_task = self.kills_half_folded = self.web_restarts = 0
        self.broker_down_seconds = 0.0
        self.log = psycopg.connect(stack.env["DATABASE_URL"], autocommit=True)
        self.seen: dict[Path, tuple[int, set[str]]] = {}

    def mid_task(self, worker: str) -> bool:
        """Whether the worker's log shows an apply it received and has not finished (read on from last time)."""
        path = self.stack.log(worker)
        offset, open_tasks = self.seen.get(path, (0, set()))
        with path.open("rb") as log:
            log.seek(offset)
            text = log.read()
        complete = text[: text.rfind(b"\n") + 1]
        for task_id, what in APPLY_TASK.findall(complete.decode(errors="replace")):
            (open_tasks.add if what == "received" else open_tasks.discard)(task_id)
        self.seen[path] = (offset + len(complete), open_tasks)
        return bool(open_tasks)

    def half_folded(self) -> bool:
        """Whether some event is marked applied while its run is not yet settled."""
        row = self.log.execute("SELECT EXISTS (SELECT 1 FROM ingest_lineageevent WHERE fold_pending)").fetchone()
        return bool(row and row[0])

    def victim(self, waited: float) -> str | None:
        """The worker to kill now, if any: a worker mid-task while a run is half-folded; after `KILL_WAIT` s,
        the next in turn once it is mid-task; after half as long again, the next in turn whatever it does."""
        turn = WORKERS[self.kills % len(WORKERS)]
        if self.half_folded() and (busy := [worker for worker in WORKERS if self.mid_task(worker)]):
            self.kills_half_folded += 1
            return turn if turn in busy else busy[0]
        if (waited >= KILL_WAIT and self.mid_task(turn)) or waited >= 1.5 * KILL_WAIT:
            return turn
        return None

    def kill_worker(self, worker: str) -> None:
        self.stack.kill(worker)
        self.kills += 1
        self.kills_mid_task += self.mid_task(worker)  # its log as it was when it died
        self.stack.restart(worker)

    def run(self, load_done: threading.Event) -> None:
        """Cause the faults until the load is done and each has happened; never waits on one to cause another."""
        started = time.monotonic()
        kill_due, down_at = started + KILL_EVERY, 0.0
        try:
            while not (load_done.is_set() and self.web_restarts and self.broker_down_seconds):
                now = time.monotonic()
                if not self.web_restarts and now - started >= WEB_RESTART_AT:
                    self.stack.kill("web1")
                    self.stack.restart("web1")
                    self.web_restarts += 1
                if not down_at and now - started >= BROKER_DOWN[0]:
                    down_at = now
                    self.broker.stop()
                if down_at and not self.broker_down_seconds and now - started >= BROKER_DOWN[1]:
                    self.broker.start()
                    self.broker_down_seconds = round(time.monotonic() - down_at, 1)
                if not load_done.is_set() and now >= kill_due and (worker := self.victim(now - kill_due)):
                    self.kill_worker(worker)
                    kill_due = time.monotonic() + KILL_EVERY
                time.sleep(0.01)
        finally:
            self.log.close()
            if self.broker.process is None:
                self.broker.start()


def _when_done(loads: list[futures.Future[Sent]], done: threading.Event) -> None:
    futures.wait(loads)
    done.set()


def _statuses(database_url: str) -> dict[str, int]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT CASE WHEN fold_pending THEN status || '+fold_pending' ELSE status END, count(*) "
            "FROM ingest_lineageevent GROUP BY 1"
        ).fetchall()
    return dict(rows)


def _log_rows(database_url: str) -> tuple[dict[int, str], int]:
    """Each logged event's status by id, and how many content hashes the log holds more than once."""
    with psycopg.connect(database_url) as conn:
        statuses: dict[int, str] = dict(conn.execute("SELECT id, status FROM ingest_lineageevent").fetchall())
        [(twice,)] = conn.execute("SELECT count(*) - count(DISTINCT content_hash) FROM ingest_lineageevent").fetchall()
    return statuses, int(twice)


def _run_of(line: str) -> str | None:
    """The run a graph dump line is about: a run's node, or an edge from or to one."""
    item = json.loads(line)
    if "labels" in item:
        return item["props"]["runId"] if item["labels"] == ["Run"] else None
    for end in (item["from"], item["to"]):
        if end.startswith("['Run']:"):
            return str(end.split(":", 1)[1])
    return None


@pytest.fixture
def running(tmp_path: Path, postgres_database: str, graph, broker) -> Iterator[tuple[ProductionStack, str]]:  # type: ignore[no-untyped-def]
    """The stack, running, and an ingest token for it."""
    stack = ProductionStack(
        tmp_path,
        postgres_database,
        INGEST_SWEEP_INTERVAL_SECONDS="1",
        INGEST_SWEEP_MIN_AGE_SECONDS="1",
        INGEST_RETRY_BACKOFF_MAX_SECONDS="2",
        # A killed worker's claim holds its events back this long: short, like the sweep above.
        INGEST_CLAIM_SECONDS="3",
    )
    stack.manage("migrate", "--noinput")
    with ThreadPoolExecutor(max_workers=1) as pool:
        token = pool.submit(stack.manage, "create_token", "--scope", "ingest", "--name", "chaos")
        # Solo workers logging each task: a SIGKILL takes the task with it, and the log says when one runs.
        stack.start(worker_options=("--pool", "solo", "-l", "INFO"))
    yield stack, token.result()
    stack.stop()


def test_killed_workers_a_broker_outage_and_a_web_restart_under_load_lose_and_double_nothing(
    running: tuple[ProductionStack, str], broker: PrivateRedis, tmp_path: Path
) -> None:
    began = time.monotonic()
    stack, token = running
    runs = _runs()
    events = [event for run in runs for event in run.events]
    posts = _posts(events)
    chaos, load_done = Chaos(stack, broker), threading.Event()
    with ThreadPoolExecutor(max_workers=SENDERS) as pool:
        loads = [pool.submit(_send, stack, token, events, posts[s], s) for s in range(SENDERS)]
        load_started = time.monotonic()
        threading.Thread(target=_when_done, args=(loads, load_done), daemon=True).start()
        chaos.run(load_done)
        sent = [f.result() for f in loads]
    load_seconds = time.monotonic() - load_started

    answers = sum((s.answers for s in sent), Counter())
    ids: dict[int, set[int]] = defaultdict(set)
    for s in sent:
        for index, named in s.ids.items():
            ids[index] |= named
    accepted = {i for named in ids.values() for i in named}

    drain_started = time.monotonic()
    url = stack.env["DATABASE_URL"]
    with contextlib.suppress(AssertionError):  # what is not applied by then is counted below, as lost
        wait_until(
            lambda: _statuses(url) == {"applied": len(events)},
            timeout=DRAIN_TIMEOUT,
            interval=0.5,
            what="every event applied and every run settled",
        )
    drain_seconds = time.monotonic() - drain_started
    statuses, stored_twice = _log_rows(url)
    event_log = _statuses(url)

    stack.stop()  # nothing may apply while the graph is rebuilt
    checking = time.monotonic()
    with ThreadPoolExecutor(max_workers=1) as pool:
        verifying = pool.submit(stack.manage_run, "verify_graph", "--sample", "100000")
        live = graph_dump()
        verified = verifying.result()
    rebuilding = time.monotonic()
    stack.manage("rebuild_graph", "--no-progress")
    rebuilt = graph_dump()
    rebuild_seconds = time.monotonic() - rebuilding
    differing = set(live) ^ set(rebuilt)
    runs_differing = {_run_of(line) for line in differing}
    states = {
        row["runId"]: row["state"]
        for row in graph_read(lambda tx: records(tx, "MATCH (r:Run) RETURN r.runId AS runId, r.state AS state"))
    }

    figures = {
        "events_sent": len(events),
        "posts": sum(answers.values()),
        "duplicates_posted": sum(answers.values()) - len(events),
        "answers": {str(status): count for status, count in sorted(answers.items())},
        "events_accepted": len(ids),
        "worker_kills": chaos.kills,
        "worker_kills_mid_task": chaos.kills_mid_task,
        "worker_kills_while_a_run_was_half_folded": chaos.kills_half_folded,
        "broker_outage_seconds": chaos.broker_down_seconds,
        "web_restarts": chaos.web_restarts,
        "connection_errors_retried": sum(s.retried for s in sent),
        "event_log": event_log,
        "events_lost": len(events) - len(ids) + sum(statuses.get(i) != "applied" for i in accepted),
        "events_unsettled": sum(n for status, n in event_log.items() if status.endswith("+fold_pending")),
        "events_stored_twice": stored_twice + sum(len(named) - 1 for named in ids.values()),
        "graph_elements_twice": len(live) - len(set(live)),
        "runs_inconsistent": len(runs_differing - {None}),
        "graph_differences_outside_runs": sum(_run_of(line) is None for line in differing),
        "runs_in_unexpected_state": sum(states.get(run.run_id) != run.state for run in runs),
        # Runs a killed worker left half-folded that beat's `settle_unfolded_runs` settled (when a kill
        # landed between marking events applied and settling their runs).
        "runs_settled_by_sweeper": sum(
            int(n) for log in stack.tmp.glob("worker*.log") for n in SETTLED.findall(log.read_text(errors="replace"))
        ),
        "verify_graph": f"exit {verified.returncode}: " + " ".join(verified.stdout.strip().splitlines()[-1:]),
        "load_seconds": round(load_seconds, 1),
        "drain_seconds": round(drain_seconds, 1),
        "verify_seconds": round(rebuilding - checking, 1),
        "rebuild_seconds": round(rebuild_seconds, 1),
        "test_seconds": round(time.monotonic() - began, 1),
    }
    (tmp_path / "chaos-figures.json").write_text(json.dumps(figures, indent=2))
    print("\nchaos figures:", json.dumps(figures, indent=2))

    assert set(answers) <= {200, 201}, figures
    assert chaos.kills_mid_task, "no worker was killed in the middle of a task"
    assert figures["events_lost"] == figures["events_unsettled"] == 0, (figures, stack.logs())
    assert verified.returncode == 0, verified.stdout[-3000:] + verified.stderr[-3000:]
    assert figures["events_stored_twice"] == figures["graph_elements_twice"] == 0, figures
    assert figures["runs_inconsistent"] == figures["graph_differences_outside_runs"] == 0, (
        figures,
        sorted(differing)[:10],
    )
    assert figures["runs_in_unexpected_state"] == 0, figures
