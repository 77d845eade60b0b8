"""Ingestion benchmark: accept throughput and latency, end-to-end lag, and graph apply vs. raw UNWIND MERGE.

Starts its own stack on free loopback ports (private SQLite, Redis, embedded ArcadeDB, gunicorn,
one Celery worker) so it never touches a running installation, then prints its figures.

    .venv/bin/python bench/ingest_throughput.py [--events 3000] [--clients 4]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_event(i: int, when: datetime) -> dict:
    run_id = str(uuid.uuid4())
    fields = [{"name": f"c{k}", "type": "string"} for k in range(12)]
    facet = {"_producer": "https://example.com/bench", "_schemaURL": "https://example.com/schema.json"}
    return {
        "eventType": "COMPLETE", "eventTime": when.isoformat(), "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id, "facets": {}},
        "job": {"namespace": "bench", "name": f"job_{i % 200}", "facets": {}},
        "inputs": [{"namespace": "bench", "name": f"table_{i % 500}",
                    "facets": {"schema": {**facet, "fields": fields}}}],
        "outputs": [{"namespace": "bench", "name": f"table_{(i + 1) % 500}_out",
                     "facets": {"schema": {**facet, "fields": fields}, "columnLineage": {**facet, "fields": {
                         f["name"]: {"inputFields": [{"namespace": "bench", "name": f"table_{i % 500}",
                                                      "field": f["name"]}]} for f in fields[:4]}}}}],
    }


def post(url: str, token: str, body: bytes) -> float:
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stack:
    def __init__(self, tmp: Path) -> None:
        self.web_port, self.bolt_port, self.redis_port = free_port(), free_port(), free_port()
        self.env = {**os.environ, "TRIBUTARY_VAR_DIR": str(tmp), "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
                    "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
                    "NEO4J_URI": f"bolt://127.0.0.1:{self.bolt_port}", "GRAPH_EMBEDDED_HTTP_PORT": str(free_port()),
                    "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "lineage_app.settings"}
        os.environ.update(self.env)
        self.processes: list[subprocess.Popen] = []
        self.log = (tmp / "stack.log").open("ab")

    def spawn(self, *argv: str) -> None:
        self.processes.append(subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=self.log, stderr=self.log))

    def start(self) -> None:
        py = sys.executable
        self.spawn("redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "")
        self.spawn(py, "manage.py", "graph_server")
        subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=self.env, check=True)
        import django

        django.setup()
        from lineage_app.graph.driver import graph_ping
        from lineage_app.graph.schema import graph_schema_init

        wait(graph_ping, 120)
        graph_schema_init()
        self.spawn(py, "-m", "gunicorn", "lineage_app.wsgi", "-b", f"127.0.0.1:{self.web_port}",
                   "-w", "2", "--threads", "4")
        self.spawn(py, "-m", "celery", "-A", "lineage_app", "worker", "--pool", "solo", "--loglevel", "WARNING")
        wait(lambda: _up(f"{self.url}/healthz"), 60)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            process.wait(timeout=60)


def _up(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait(predicate, timeout: float) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("stack did not start; see the stack.log in the temp dir")
        time.sleep(0.3)


def applied_count() -> int:
    from lineage_app.ingest.models import LineageEvent

    return LineageEvent.objects.filter(status="applied").count()


def wait_applied(total: int, timeout: float = 600) -> float:
    started = time.perf_counter()
    while applied_count() < total:
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"only {applied_count()} of {total} applied after {timeout}s")
        time.sleep(0.05)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--lag-rate", type=int, default=200, help="events/s for the end-to-end lag run")
    parser.add_argument("--lag-seconds", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tributary-bench-") as tmp:
        stack = Stack(Path(tmp))
        stack.start()
        try:
            run(stack, args)
        finally:
            stack.stop()


def run(stack: Stack, args: argparse.Namespace) -> None:
    from lineage_app.accounts.services import token_create

    token = token_create(name="bench", scope="ingest")[1]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    single_url, batch_url = f"{stack.url}/api/v1/lineage", f"{stack.url}/api/v1/lineage/batch"
    bodies = [json.dumps(make_event(i, base + timedelta(seconds=i))).encode() for i in range(args.events)]

    # 1. Single posts, several concurrent clients.
    started = time.perf_counter()
    with ThreadPoolExecutor(args.clients) as pool:
        latencies = list(pool.map(lambda b: post(single_url, token, b), bodies))
    single_elapsed = time.perf_counter() - started
    single_drain = wait_applied(args.events)
    p50, p99 = statistics.median(latencies) * 1000, percentile(latencies, 0.99) * 1000
    print(f"single posts: {args.events} events, {args.clients} clients: {args.events / single_elapsed:,.0f} events/s "
          f"accepted; latency p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
          f"end-to-end {args.events / (single_elapsed + single_drain):,.0f} events/s applied")

    # 2. Batched posts.
    events = [make_event(i, base + timedelta(days=1, seconds=i)) for i in range(args.events)]
    batches = [json.dumps(events[i : i + args.batch]).encode() for i in range(0, len(events), args.batch)]
    started = time.perf_counter()
    with ThreadPoolExecutor(args.clients) as pool:
        batch_latencies = list(pool.map(lambda b: post(batch_url, token, b), batches))
    batch_elapsed = time.perf_counter() - started
    batch_drain = wait_applied(2 * args.events)
    print(f"batch posts ({args.batch}/request): {args.events / batch_elapsed:,.0f} events/s accepted; request p50 "
          f"{statistics.median(batch_latencies) * 1000:.0f} ms; end-to-end "
          f"{args.events / (batch_elapsed + batch_drain):,.0f} events/s applied")

    # 3. End-to-end lag at a steady rate: time from POST to the event being applied.
    lags = lag_run(stack, token, args.lag_rate, args.lag_seconds, base + timedelta(days=2))
    print(f"end-to-end lag at {args.lag_rate} events/s for {args.lag_seconds}s: p50 {statistics.median(lags):.2f} s, "
          f"p95 {percentile(lags, 0.95):.2f} s, max {max(lags):.2f} s")

    # 4. Raw engine throughput for comparison, same machine, same run.
    raw_rate = raw_unwind_merge(args.events)
    print(f"engine raw UNWIND … MERGE: {raw_rate:,.0f} nodes/s; graph apply end-to-end (batched above): "
          f"{args.events / batch_drain if batch_drain else float('inf'):,.0f} events/s after accept")


def lag_run(stack: Stack, token: str, rate: int, seconds: int, base: datetime) -> list[float]:
    from lineage_app.ingest.models import LineageEvent

    sent: dict[int, float] = {}
    lock = threading.Lock()
    url = f"{stack.url}/api/v1/lineage"

    def send(i: int) -> None:
        body = json.dumps(make_event(i, base + timedelta(seconds=i))).encode()
        request = urllib.request.Request(url, data=body, method="POST", headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        started = time.time()
        with urllib.request.urlopen(request, timeout=60) as response:
            event_id = json.loads(response.read())["id"]
        with lock:
            sent[event_id] = started

    with ThreadPoolExecutor(16) as pool:
        begin = time.perf_counter()
        for i in range(rate * seconds):
            delay = begin + i / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            pool.submit(send, 10_000_000 + i)
    achieved = rate * seconds / (time.perf_counter() - begin)
    print(f"  (offered {rate} events/s; the senders achieved {achieved:,.0f} events/s)")
    deadline = time.time() + 120
    while time.time() < deadline:
        done = dict(LineageEvent.objects.filter(id__in=list(sent), status="applied").values_list("id", "applied_at"))
        if len(done) == len(sent):
            return [done[i].timestamp() - sent[i] for i in sent]
        time.sleep(0.2)
    raise SystemExit("lag run did not drain within 120 s")


def raw_unwind_merge(count: int) -> float:
    from lineage_app.graph.driver import graph_write

    rows = [{"key": f"raw\x1f{i}", "name": f"raw_{i}"} for i in range(count)]
    started = time.perf_counter()
    for i in range(0, count, 500):
        chunk = rows[i : i + 500]
        graph_write(lambda tx, c=chunk: tx.run(
            "UNWIND $rows AS row MERGE (d:Dataset {key: row.key}) SET d.name = row.name", rows=c).consume())
    return count / (time.perf_counter() - started)


if __name__ == "__main__":
    main()
