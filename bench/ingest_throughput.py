"""Ingestion benchmark: accept throughput and latency, end-to-end lag, and graph apply vs. raw UNWIND MERGE.

Starts its own stack on free loopback ports (private SQLite, Redis, embedded ArcadeDB, gunicorn
with the product's own settings, one Celery worker) so it never touches a running installation,
then prints its figures. The HTTP clients run in a separate process (`bench/http_load.py`) on
keep-alive connections, as producers do, so that they take little of the server's CPU.

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
import time
import urllib.request
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP_EVENTS = 200
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
        "eventType": "COMPLETE",
        "eventTime": when.isoformat(),
        "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id, "facets": {}},
        "job": {"namespace": "bench", "name": f"job_{i % 200}", "facets": {}},
        "inputs": [
            {"namespace": "bench", "name": f"table_{i % 500}", "facets": {"schema": {**facet, "fields": fields}}}
        ],
        "outputs": [
            {
                "namespace": "bench",
                "name": f"table_{(i + 1) % 500}_out",
                "facets": {
                    "schema": {**facet, "fields": fields},
                    "columnLineage": {
                        **facet,
                        "fields": {
                            f["name"]: {
                                "inputFields": [{"namespace": "bench", "name": f"table_{i % 500}", "field": f["name"]}]
                            }
                            for f in fields[:4]
                        },
                    },
                },
            }
        ],
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stack:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.web_port, self.bolt_port, self.redis_port = free_port(), free_port(), free_port()
        self.env = {
            **os.environ,
            "TRIBUTARY_VAR_DIR": str(tmp),
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "NEO4J_URI": f"bolt://127.0.0.1:{self.bolt_port}",
            "GRAPH_EMBEDDED_HTTP_PORT": str(free_port()),
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
        }
        os.environ.update(self.env)
        self.processes: list[subprocess.Popen] = []
        self.log = (tmp / "stack.log").open("ab")
        self.token = ""  # an ingest token, once the database is migrated

    def spawn(self, *argv: str) -> subprocess.Popen:
        process = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=self.log, stderr=self.log)
        self.processes.append(process)
        return process

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
        self.web = self.spawn(
            py, "-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{self.web_port}"
        )
        self.start_worker()
        wait(lambda: _up(f"{self.url}/healthz"), 60)

    def start_worker(self) -> None:
        self.worker = self.spawn(
            sys.executable, "-m", "celery", "-A", "lineage_app", "worker", "--pool", "solo", "--loglevel", "WARNING"
        )

    def stop_worker(self) -> None:
        """Warm shutdown: the worker finishes its task (and lets go of the database) before it exits."""
        self.worker.terminate()
        self.worker.wait(timeout=120)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def web_cpu_seconds(self) -> float:
        """CPU the gunicorn master and its workers have used so far."""
        return sum(cpu_seconds(pid) for pid in [self.web.pid, *children(self.web.pid)])

    def worker_cpu_seconds(self) -> float:
        return cpu_seconds(self.worker.pid)

    def post_all(
        self,
        bodies: list[bytes],
        *,
        clients: int | None = None,
        rate: float | None = None,
        path: str = "/api/v1/lineage",
    ) -> list[list]:
        """Send every body once from a separate client process: `[sent_at, latency, status, id]` each."""
        file = self.tmp / "bodies.jsonl"
        file.write_bytes(b"\n".join(bodies))
        mode = ["--clients", str(clients)] if clients else ["--rate", str(rate)]
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "http_load.py"), f"{self.url}{path}", self.token, str(file), *mode],
            capture_output=True,
            check=True,
        )
        results = json.loads(done.stdout)
        refused = [r for r in results if r[2] not in (200, 201)]
        if refused:
            raise SystemExit(f"{len(refused)} posts refused, e.g. HTTP {refused[0][2]}")
        return results

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            process.wait(timeout=60)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue  # the process ended meanwhile
    return found


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
    parser.add_argument("--batch-events", type=int, default=10_000, help="events posted in the batched run")
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


def encoded_events(count: int, start: datetime) -> list[bytes]:
    return [json.dumps(make_event(i, start + timedelta(seconds=i))).encode() for i in range(count)]


def single_posts(stack: Stack, args: argparse.Namespace, start: datetime, label: str) -> float:
    """Post `args.events` events one per request from `args.clients` clients; prints and returns the accept time."""
    web_cpu = stack.web_cpu_seconds()
    results = stack.post_all(encoded_events(args.events, start), clients=args.clients)
    web_cpu = stack.web_cpu_seconds() - web_cpu
    elapsed = max(sent + latency for sent, latency, _, _ in results) - min(r[0] for r in results)
    latencies = [latency for _, latency, _, _ in results]
    print(
        f"single posts, {label}: {args.events} events, {args.clients} clients: {args.events / elapsed:,.0f} events/s "
        f"accepted; latency p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms; web CPU {web_cpu / args.events * 1000:.2f} ms/event"
    )
    return elapsed


def run(stack: Stack, args: argparse.Namespace) -> None:
    from lineage_app.accounts.services import token_create

    stack.token = token_create(name="bench", scope="ingest")[1]
    base = datetime(2026, 1, 1, tzinfo=UTC)

    # 0. Warm-up on many connections, so that every web worker has compiled its validators and loaded its views.
    stack.post_all(encoded_events(WARM_UP_EVENTS, base - timedelta(days=1)), clients=16)
    wait_applied(WARM_UP_EVENTS)

    # 1. Single posts, several concurrent clients, while the worker applies them (the end-to-end figure).
    worker_cpu = stack.worker_cpu_seconds()
    single_elapsed = single_posts(stack, args, base, "worker applying concurrently")
    single_drain = wait_applied(WARM_UP_EVENTS + args.events)
    print(
        f"  end-to-end {args.events / (single_elapsed + single_drain):,.0f} events/s applied; worker CPU "
        f"{(stack.worker_cpu_seconds() - worker_cpu) / args.events * 1000:.2f} ms/event"
    )

    # 2. The same with no worker running: what accepting alone costs and reaches.
    stack.stop_worker()
    single_posts(stack, args, base + timedelta(hours=6), "accept only (worker stopped)")
    stack.start_worker()
    wait_applied(WARM_UP_EVENTS + 2 * args.events)

    # 3. Batched posts.
    events = [make_event(i, base + timedelta(days=1, seconds=i)) for i in range(args.batch_events)]
    batches = [json.dumps(events[i : i + args.batch]).encode() for i in range(0, len(events), args.batch)]
    web_cpu = stack.web_cpu_seconds()
    results = stack.post_all(batches, clients=args.clients, path="/api/v1/lineage/batch")
    web_cpu = stack.web_cpu_seconds() - web_cpu
    batch_elapsed = max(sent + latency for sent, latency, _, _ in results) - min(r[0] for r in results)
    batch_drain = wait_applied(WARM_UP_EVENTS + 2 * args.events + args.batch_events)
    print(
        f"batch posts ({args.batch}/request, {args.batch_events} events, worker applying concurrently): "
        f"{args.batch_events / batch_elapsed:,.0f} events/s accepted; request p50 "
        f"{statistics.median(r[1] for r in results) * 1000:.0f} ms; web CPU "
        f"{web_cpu / args.batch_events * 1000:.2f} ms/event; end-to-end "
        f"{args.batch_events / (batch_elapsed + batch_drain):,.0f} events/s applied"
    )

    # 4. End-to-end lag at a steady rate: time from POST to the event being applied.
    lags = lag_run(stack, args.lag_rate, args.lag_seconds, base + timedelta(days=2))
    print(
        f"end-to-end lag at {args.lag_rate} events/s for {args.lag_seconds}s: p50 {statistics.median(lags):.2f} s, "
        f"p95 {percentile(lags, 0.95):.2f} s, max {max(lags):.2f} s"
    )

    # 5. Raw engine throughput for comparison, same machine, same run.
    raw_rate = raw_unwind_merge(args.events)
    print(
        f"engine raw UNWIND … MERGE: {raw_rate:,.0f} nodes/s; graph apply end-to-end (batched above): "
        f"{args.batch_events / batch_drain if batch_drain else float('inf'):,.0f} events/s after accept"
    )


def lag_run(stack: Stack, rate: int, seconds: int, start: datetime) -> list[float]:
    from lineage_app.ingest.models import LineageEvent

    results = stack.post_all(encoded_events(rate * seconds, start), rate=rate)
    first, last = min(r[0] for r in results), max(r[0] for r in results)
    print(f"  (offered {rate} events/s; the client sent {(len(results) - 1) / (last - first):,.0f} events/s)")
    sent = {event_id: sent_at for sent_at, _, _, event_id in results}
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
        graph_write(
            lambda tx, c=chunk: tx.run(
                "UNWIND $rows AS row MERGE (d:Dataset {key: row.key}) SET d.name = row.name", rows=c
            ).consume()
        )
    return count / (time.perf_counter() - started)


if __name__ == "__main__":
    main()
