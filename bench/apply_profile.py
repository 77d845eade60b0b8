"""Where one worker's apply time goes, statement by statement, next to the raw `UNWIND … MERGE` baseline.

Applies `--events` of `bench/ingest_throughput.py`'s events in this process (no web, no Celery), in
batches of `INGEST_APPLY_BATCH_SIZE`, after a warm-up that creates the jobs and tables, and prints:
the rate; the time outside the graph transaction (the event log, folds, verification, change
records), the Python inside it, its statements and its commit; and each Cypher statement's total
time, calls and rows, by its constant's name (`manage.py cypher_catalog`). Then the raw baseline on
the same events, timed the same way. Each statement's records are read in full before the next
starts, so its time is its own. With `--profile`, also each statement's PROFILE (db hits and
operators) for the last batch's rows, in a transaction rolled back. Where the graph engine runs on
this machine (the embedded one, or a Neo4j listening on `--graph-uri`'s port), each phase also prints
the engine's CPU per event, and with `--engine-profile` where that CPU went (Java Flight Recorder
samples of the engine's JVM, `bench/jfr_profile.py`; needs the JDK's `jcmd` and `jfr`).

    .venv/bin/python bench/apply_profile.py [--events 2000]                       # embedded ArcadeDB
    .venv/bin/python bench/apply_profile.py --graph-uri bolt://127.0.0.1:7687 --password … --graph-database lineage
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest_throughput import (  # noqa: E402
    RAW_STATEMENTS,
    cpu_seconds,
    free_port,
    graph_engine_pid,
    make_event,
    raw_unwind_merge,
    wait,
)
from bench.jfr_profile import Recording, describe  # noqa: E402
from bench.stack_options import stack_options_add, stack_options_describe, stack_options_env  # noqa: E402


class Timings:
    """Per statement: seconds, calls and rows; and the time of each write transaction's work function."""

    def __init__(self) -> None:
        self.seconds: defaultdict[str, float] = defaultdict(float)
        self.calls: defaultdict[str, int] = defaultdict(int)
        self.rows: defaultdict[str, int] = defaultdict(int)
        self.changes: defaultdict[str, int] = defaultdict(int)  # properties set, nodes and relationships made
        self.transactions = 0.0  # execute_write, start to commit
        self.work = 0.0  # the work functions alone
        self.last: dict[str, tuple[str, dict[str, Any]]] = {}  # each statement's last query and parameters

    def statements(self) -> float:
        return sum(self.seconds.values())


def statement_names() -> dict[str, str]:
    """Every Cypher constant of the graph package, by its text (`module.NAME`), and the raw baseline's (`raw.name`)."""
    import lineage_app.graph as graph

    names: dict[str, str] = {}
    for module in pkgutil.iter_modules(graph.__path__):
        for name, value in vars(importlib.import_module(f"lineage_app.graph.{module.name}")).items():
            if name.isupper() and isinstance(value, str) and ("MATCH" in value or "MERGE" in value):
                names.setdefault(value, f"{module.name}.{name}")
    names.update((text, f"raw.{name}") for name, text in RAW_STATEMENTS)
    return names


@contextmanager
def timed(timings: Timings) -> Iterator[None]:
    """Time every statement run in a transaction and every managed write transaction, while inside."""
    from neo4j._sync.work.session import Session
    from neo4j._sync.work.transaction import TransactionBase

    names = statement_names()
    run, execute_write = TransactionBase.run, Session.execute_write

    def timed_run(self, query, parameters=None, **kwargs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        result = run(self, query, parameters, **kwargs)
        result._buffer_all()  # the records now, so that the time is this statement's
        name = names.get(query, " ".join(query.split())[:60])
        counters = result._obtain_summary().counters  # read, records kept (`consume` would drop them)
        timings.changes[name] += counters.properties_set + counters.nodes_created + counters.relationships_created
        timings.seconds[name] += time.perf_counter() - started
        timings.calls[name] += 1
        params = {**(parameters or {}), **kwargs}
        timings.rows[name] += sum(len(params[key]) for key in ("rows", "keys") if isinstance(params.get(key), list))
        timings.last[name] = (query, params)
        return result

    def timed_write(self: Any, work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        def timed_work(tx: Any, *a: Any, **k: Any) -> Any:
            started = time.perf_counter()
            try:
                return work(tx, *a, **k)
            finally:
                timings.work += time.perf_counter() - started

        started = time.perf_counter()
        try:
            return execute_write(self, timed_work, *args, **kwargs)
        finally:
            timings.transactions += time.perf_counter() - started

    TransactionBase.run, Session.execute_write = timed_run, timed_write  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        TransactionBase.run, Session.execute_write = run, execute_write  # type: ignore[method-assign]


def store(count: int, start: datetime, namespace: str) -> list[int]:
    """Store `count` events in the event log (no broker: nothing is enqueued); their ids."""
    from lineage_app.ingest.services import events_insert
    from lineage_app.ingest.validation import event_check

    ids: list[int] = []
    events = [make_event(i, start + timedelta(seconds=i), namespace) for i in range(count)]
    for first in range(0, count, 500):
        rows = [(event_check(e), json.dumps(e).encode(), None) for e in events[first : first + 500]]
        ids += [answer.id for answer in events_insert(rows=rows)[0]]
    return ids


def apply(ids: list[int], batch: int) -> float:
    from lineage_app.ingest.services import events_apply

    started = time.perf_counter()
    for first in range(0, len(ids), batch):
        events_apply(event_ids=ids[first : first + batch])
    return time.perf_counter() - started


def report(title: str, events: int, seconds: float, timings: Timings, engine_cpu: float | None) -> None:
    in_python = timings.work - timings.statements()
    engine = "" if engine_cpu is None else f"; graph engine CPU {engine_cpu / events * 1000:.2f} ms/event"
    print(
        f"{title}: {events / seconds:,.0f} events/s ({seconds:.2f} s); outside the graph "
        f"{seconds - timings.transactions:.2f} s, Python in the transaction {in_python:.2f} s, "
        f"statements {timings.statements():.2f} s, commit (and begin) {timings.transactions - timings.work:.2f} s; "
        f"{sum(timings.changes.values()):,} changes (properties set, nodes and relationships made){engine}"
    )
    for name, spent in sorted(timings.seconds.items(), key=lambda item: -item[1]):
        print(
            f"  {spent * 1000:8.0f} ms {timings.calls[name]:5d} calls {timings.rows[name]:8d} rows "
            f"{timings.changes[name]:8d} changes  {name}"
        )


def profile(timings: Timings) -> None:
    """PROFILE each statement with its last parameters, in a transaction rolled back: db hits and operators."""
    from django.conf import settings

    from lineage_app.graph.driver import graph_driver

    def operators(plan: dict[str, Any]) -> Iterator[tuple[str, int]]:
        yield plan.get("operatorType", "?").split("@")[0], plan.get("dbHits", 0)
        for child in plan.get("children", []):
            yield from operators(child)

    print("PROFILE of each statement's last call (db hits, operators):")
    with graph_driver().session(database=settings.NEO4J_DATABASE) as session:
        for name, (query, params) in timings.last.items():
            tx = session.begin_transaction()
            try:
                result = tx.run("PROFILE " + query, params)
                found = list(operators(result.consume().profile or {}))
                print(f"  {sum(h for _, h in found):8d}  {name}: {', '.join(o for o, _ in found)}")
            except Exception as exc:  # an engine without PROFILE (the embedded one) says so once
                print(f"  {name}: {type(exc).__name__}: {exc}")
                return
            finally:
                tx.rollback()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--warm-up", type=int, default=600, help="events applied first (untimed)")
    parser.add_argument("--profile", action="store_true", help="PROFILE each statement (Neo4j)")
    parser.add_argument(
        "--engine-profile",
        action="store_true",
        help="sample the graph engine's JVM with Java Flight Recorder in each phase (an engine on this machine)",
    )
    stack_options_add(parser)
    args = parser.parse_args()
    print(stack_options_describe(args))
    with tempfile.TemporaryDirectory(prefix="tributary-apply-profile-") as tmp:
        env = {
            "TRIBUTARY_VAR_DIR": tmp,
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}",
            "GRAPH_EMBEDDED_HTTP_PORT": str(free_port()),
            # No broker: nothing here enqueues a task, and nothing may reach a Redis of someone else's.
            "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            **stack_options_env(args),
        }
        os.environ.update(env)
        with Path(tmp, "graph.log").open("ab") as log:
            engine = None
            if not args.graph_uri:
                argv = [sys.executable, "manage.py", "graph_server"]
                engine = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=log)
            try:
                run(args, engine.pid if engine is not None else None)
            finally:
                if engine is not None:
                    engine.terminate()
                    engine.wait(timeout=60)


def run(args: argparse.Namespace, embedded_pid: int | None) -> None:
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    import django

    django.setup()
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    from django.conf import settings

    from lineage_app.graph.driver import graph_ping
    from lineage_app.graph.schema import graph_schema_init

    wait(graph_ping, 120)
    graph_schema_init()
    engine = embedded_pid or graph_engine_pid(args.graph_uri)
    if args.engine_profile and engine is None:
        raise SystemExit("--engine-profile: the graph engine does not run on this machine")
    batch = settings.INGEST_APPLY_BATCH_SIZE
    tag, start = uuid.uuid4().hex[:8], datetime(2026, 1, 1, tzinfo=UTC)
    apply(store(args.warm_up, start - timedelta(days=1), f"profile-{tag}"), batch)
    ids = store(args.events, start, f"profile-{tag}")
    with tempfile.TemporaryDirectory(prefix="tributary-jfr-") as recordings:
        timings = Timings()
        with engine_watched(engine, Path(recordings, "apply.jfr"), args.engine_profile) as apply_engine, timed(timings):
            seconds = apply(ids, batch)
        report(f"apply, {args.events} events in batches of {batch}", args.events, seconds, timings, apply_engine.cpu)
        raw_timings = Timings()
        raw_unwind_merge([make_event(i, start - timedelta(days=1), f"raw-{tag}") for i in range(args.warm_up)], batch)
        with engine_watched(engine, Path(recordings, "raw.jfr"), args.engine_profile) as raw_engine, timed(raw_timings):
            raw_seconds = raw_unwind_merge([make_event(i, start, f"raw-{tag}") for i in range(args.events)], batch)
        report("raw UNWIND … MERGE, the same events", args.events, raw_seconds, raw_timings, raw_engine.cpu)
        print(f"  apply / raw = {raw_seconds / seconds:.2f}")
        if args.engine_profile:
            for phase, engine_cpu in (("apply", apply_engine.cpu), ("raw", raw_engine.cpu)):
                print(f"where the graph engine's CPU went, {phase} ({engine_cpu:.2f} s):")
                print(describe(Path(recordings, f"{phase}.jfr")))
    if args.profile:
        profile(timings)


class EngineCpu:
    cpu: float | None = None  # seconds the engine used inside the block; `None` when it is not on this machine


@contextmanager
def engine_watched(pid: int | None, recording: Path, sample: bool) -> Iterator[EngineCpu]:
    """The engine's CPU over the block and, with `sample`, a JFR recording of it at `recording`."""
    found = EngineCpu()
    if pid is None:
        yield found
        return
    with Recording(pid, recording) if sample else nullcontext():
        before = cpu_seconds(pid)
        yield found
        found.cpu = cpu_seconds(pid) - before


if __name__ == "__main__":
    main()
