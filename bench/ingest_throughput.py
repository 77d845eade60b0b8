"""Ingestion benchmark: accept throughput and latency, apply rate (one worker vs. raw UNWIND MERGE), lag.

Starts its own stack on free loopback ports (private SQLite, Redis, embedded ArcadeDB, gunicorn
with the product's own settings, one Celery worker) so it never touches a running installation,
then prints its figures. `--graph-uri` and `--database-url` measure an external Neo4j and
PostgreSQL instead (the production shape); the benchmark writes only under namespaces of its own.
The HTTP clients run in a separate process (`bench/http_load.py`) on keep-alive connections, as
producers do, so that they take little of the server's CPU.

The apply figure is one worker draining a backlog; the raw baseline writes the same nodes and
edges (checked by counting both) with minimal hand-written `UNWIND … MERGE` statements, one
transaction per apply batch, so their ratio says what the apply path costs over the engine.
`--workers 1,2` drains a backlog of the same size with each number of workers in turn (each in
namespaces of its own), prints each rate against one worker's, and runs the lag test with the last;
the graph retries the workers made (`tributary_graph_retries_total`, read from each worker's metrics
port) are printed with each figure.

    .venv/bin/python bench/ingest_throughput.py [--events 3000] [--clients 4] [--workers 1,2] [--lag-rate 500]
        [--lag-batch 25]
    ALERTS_ENABLED=0 .venv/bin/python bench/ingest_throughput.py   # apply without the alerts consumer
    .venv/bin/python bench/ingest_throughput.py --database-url postgres://postgres@127.0.0.1:5432/bench
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
WARM_UP_EVENTS = 200
APPLIED_BEFORE = [0]  # events an external database had applied before this run: the counts are relative
EVENT_SHAPE = {"jobs": 200, "tables": 500}  # `make_event`'s, as `--jobs` and `--tables` ask
sys.path.insert(0, str(ROOT))

from bench.stack_options import stack_options_add, stack_options_describe, stack_options_env  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def make_event(
    i: int,
    when: datetime,
    namespace: str = "bench",
    *,
    jobs: int = 200,
    tables: int = 500,
    owner: str = "",
    fields: int = 12,
) -> dict:
    """Event `i`: a COMPLETE run of `job_<i % jobs>` reading `table_<i % tables>` and writing
    `table_<(i + 1) % tables>_out` (each with `fields` columns, the first four derived through column lineage),
    its output owned by `owner` if one is named (an `ownership` facet)."""
    run_id = str(uuid.uuid4())
    columns = [{"name": f"c{k}", "type": "string"} for k in range(fields)]
    facet = {"_producer": "https://example.com/bench", "_schemaURL": "https://example.com/schema.json"}
    # Descriptive facets, as Spark sends them: kept on the nodes, merged per facet name.
    data_source = {**facet, "name": namespace, "uri": f"file:///warehouse/{namespace}"}
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat(),
        "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id, "facets": {}},
        "job": {
            "namespace": namespace,
            "name": f"job_{i % jobs}",
            "facets": {"jobType": {**facet, "processingType": "BATCH", "integration": "SPARK", "jobType": "JOB"}},
        },
        "inputs": [
            {
                "namespace": namespace,
                "name": f"table_{i % tables}",
                "facets": {"schema": {**facet, "fields": columns}, "dataSource": data_source},
            }
        ],
        "outputs": [
            {
                "namespace": namespace,
                "name": f"table_{(i + 1) % tables}_out",
                "facets": {
                    **({"ownership": {**facet, "owners": [{"name": owner, "type": "MAINTAINER"}]}} if owner else {}),
                    "schema": {**facet, "fields": columns},
                    "dataSource": data_source,
                    "columnLineage": {
                        **facet,
                        "fields": {
                            f["name"]: {
                                "inputFields": [
                                    {"namespace": namespace, "name": f"table_{i % tables}", "field": f["name"]}
                                ]
                            }
                            for f in columns[:4]
                        },
                    },
                },
            }
        ],
    }


def bench_event(i: int, when: datetime, namespace: str = "bench") -> dict:
    """`make_event` with the run's `--jobs` and `--tables`."""
    return make_event(i, when, namespace, jobs=EVENT_SHAPE["jobs"], tables=EVENT_SHAPE["tables"])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stack:
    def __init__(self, tmp: Path, overrides: dict[str, str]) -> None:
        self.tmp = tmp
        self.external_graph = "NEO4J_URI" in overrides
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
            **overrides,
        }
        os.environ.update(self.env)
        self.processes: list[subprocess.Popen] = []
        self.workers: list[tuple[subprocess.Popen, int]] = []  # each running worker and its metrics port
        self.log = (tmp / "stack.log").open("ab")
        self.token = ""  # an ingest token, once the database is migrated

    def spawn(self, *argv: str) -> subprocess.Popen:
        process = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=self.log, stderr=self.log)
        self.processes.append(process)
        return process

    def start(self) -> None:
        py = sys.executable
        self.spawn("redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "")
        if not self.external_graph:
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
        self.start_workers(1)
        wait(lambda: _up(f"{self.url}/healthz"), 60)

    def start_workers(self, count: int) -> None:
        """`count` worker processes (solo pool: one task at a time each), each serving its metrics on a port."""
        for index in range(count):
            port = free_port()
            metrics = self.tmp / f"worker-metrics-{index}"
            metrics.mkdir(exist_ok=True)
            env = {**self.env, "WORKER_METRICS_PORT": str(port), "PROMETHEUS_MULTIPROC_DIR": str(metrics)}
            argv = [sys.executable, "-m", "celery", "-A", "lineage_app", "worker", *self.pool_options()]
            process = subprocess.Popen(
                [*argv, "--hostname", f"bench{index}@%h", "--loglevel", "WARNING"],
                cwd=ROOT,
                env=env,
                stdout=self.log,
                stderr=self.log,
            )
            self.processes.append(process)
            self.workers.append((process, port))
        for _, port in self.workers:
            wait(lambda port=port: _up(f"http://127.0.0.1:{port}/metrics"), 60)

    def pool_options(self) -> list[str]:
        return ["--pool", "solo"]

    def stop_workers(self) -> None:
        """Warm shutdown: each worker finishes its task (and lets go of the database) before it exits."""
        for process, _ in self.workers:
            process.terminate()
        for process, _ in self.workers:
            _wait_or_kill(process, 120)
        self.workers = []

    def retries(self) -> Counter[str]:
        """The graph retries the running workers have counted since they started, by `kind/reason`."""
        from prometheus_client.parser import text_string_to_metric_families

        found: Counter[str] = Counter()
        for _, port in self.workers:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
                text = response.read().decode()
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    if sample.name == "tributary_graph_retries_total":
                        found[f"{sample.labels['kind']}/{sample.labels['reason']}"] += int(sample.value)
        return found

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def web_cpu_seconds(self) -> float:
        """CPU the gunicorn master and its workers have used so far."""
        return sum(cpu_seconds(pid) for pid in [self.web.pid, *children(self.web.pid)])

    def worker_cpu_seconds(self) -> float:
        return sum(cpu_seconds(process.pid) for process, _ in self.workers)

    def engine_cpu_seconds(self) -> float | None:
        """CPU the graph engine has used so far: the embedded server this stack started, or the process on this
        machine that listens on `NEO4J_URI`'s port; `None` for an engine on another machine."""
        if not self.external_graph:
            server = self.processes[1]  # `start` spawns Redis, then the graph server
            return sum(cpu_seconds(pid) for pid in [server.pid, *children(server.pid)])
        pid = graph_engine_pid(self.env["NEO4J_URI"])
        return None if pid is None else cpu_seconds(pid)

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
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            _wait_or_kill(process, 60)


def _wait_or_kill(process: subprocess.Popen, timeout: float) -> None:
    """Wait for `process` to exit; kill it if it has not within `timeout` seconds (a worker still draining)."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def graph_engine_pid(uri: str) -> int | None:
    """The local process serving the graph engine at Bolt `uri`; `None` if it runs on another machine."""
    return listening_pid(urlsplit(uri).port or 7687)


def listening_pid(port: int) -> int | None:
    """The local process listening on TCP `port`, from /proc (Linux); `None` if none here is."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) in inodes:
                return int(fd.parent.parent.name)
        except OSError:
            continue  # the process or descriptor ended meanwhile
    return None


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
    """Wait until `total` events more than before the run are applied; the seconds it took."""
    started = time.perf_counter()
    total += APPLIED_BEFORE[0]
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
    parser.add_argument(
        "--batch-events", type=int, default=10_000, help="events posted batched, then applied by one worker"
    )
    parser.add_argument(
        "--workers",
        default="1",
        help="comma-separated worker counts to drain the backlog with, each in turn (say 1,2); the first is "
        "compared with the raw baseline, the lag run uses the last",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=200,
        help="event i runs job_<i %% jobs>: with the default every batch of 200 names every job, so concurrent "
        "batches share them all; more jobs than events gives each batch jobs of its own",
    )
    parser.add_argument("--tables", type=int, default=500, help="event i reads table_<i %% tables>")
    parser.add_argument("--lag-rate", type=int, default=200, help="events/s for the end-to-end lag run")
    parser.add_argument("--lag-seconds", type=int, default=15)
    parser.add_argument(
        "--lag-batch",
        type=int,
        default=1,
        help="events a post in the lag run: 1 posts each alone; more posts them together to the batch endpoint",
    )
    parser.add_argument(
        "--rate-limit",
        default="1000000000/minute",
        help="the bench token's rate limit (API_RATE_LIMIT_INGEST); the default is checked on every request, "
        "as in production, but never reached; `unlimited` skips the check",
    )
    stack_options_add(parser)
    args = parser.parse_args()
    args.workers = [int(count) for count in args.workers.split(",")]
    EVENT_SHAPE.update(jobs=args.jobs, tables=args.tables)
    print(
        f"{stack_options_describe(args)}; ingest rate limit: {args.rate_limit}; {args.jobs} jobs, {args.tables} tables"
    )
    with tempfile.TemporaryDirectory(prefix="tributary-bench-") as tmp:
        stack = Stack(Path(tmp), {**stack_options_env(args), "API_RATE_LIMIT_INGEST": args.rate_limit})
        stack.start()
        try:
            run(stack, args)
        finally:
            stack.stop()


def encoded_events(count: int, start: datetime) -> list[bytes]:
    return [json.dumps(bench_event(i, start + timedelta(seconds=i))).encode() for i in range(count)]


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
    from django.conf import settings

    from lineage_app.accounts.services import token_create

    # Neo4j warns, once per statement, of the relationship types the counts ask for that no edge has yet
    # (set here: Django's logging set-up, in `Stack.start`, configures the loggers afresh).
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    APPLIED_BEFORE[0] = applied_count()
    stack.token = token_create(name="bench", scope="ingest")[1]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    # Namespaces of this run's own, so that on an external graph every node the drain writes is new.
    tag = uuid.uuid4().hex[:8]

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
    stack.stop_workers()
    single_posts(stack, args, base + timedelta(hours=6), "accept only (worker stopped)")
    stack.start_workers(1)
    wait_applied(WARM_UP_EVENTS + 2 * args.events)
    total = WARM_UP_EVENTS + 2 * args.events

    # 3. Batched posts with the workers stopped, then one worker (then each other count) drains that backlog.
    rates: dict[int, float] = {}
    for count in args.workers:
        stack.stop_workers()
        post_backlog(stack, args, base + timedelta(days=1), f"drain{count}-{tag}")
        total += args.batch_events
        before = graph_counts()
        rates[count], worker_ms, retries, busy = drain_backlog(stack, total, count)
        written = count_delta(before, graph_counts())
        if count == args.workers[0]:
            applied = written
        elif written != applied:
            raise SystemExit(f"{count} workers wrote other counts than {args.workers[0]}: {written} vs {applied}")
        print(
            f"apply, {count} worker{'s' if count > 1 else ''} draining {args.batch_events} events (batches of "
            f"{settings.INGEST_APPLY_BATCH_SIZE}): {rates[count]:,.0f} events/s"
            + (f" ({rates[count] / rates[args.workers[0]]:.2f}x {args.workers[0]})" if count != args.workers[0] else "")
            + f"; worker CPU {worker_ms:.2f} ms/event ({busy}); graph retries {describe_retries(retries)}; "
            f"wrote {describe(written)}"
        )
    apply_rate = rates[args.workers[0]]

    # 4. The same nodes and edges written by hand-written UNWIND … MERGE, a transaction per apply batch.
    raw_events = [bench_event(i, base + timedelta(days=1, seconds=i), f"raw-{tag}") for i in range(args.batch_events)]
    before = graph_counts()
    raw_seconds = raw_unwind_merge(raw_events, settings.INGEST_APPLY_BATCH_SIZE)
    written = count_delta(before, graph_counts())
    raw_rate = args.batch_events / raw_seconds
    print(
        f"raw UNWIND … MERGE of the same events' nodes and edges: {raw_rate:,.0f} events/s "
        f"({sum(written.values()) / raw_seconds:,.0f} nodes+edges/s); wrote {describe(written)}"
    )
    if written != applied:
        raise SystemExit(f"raw baseline wrote other counts than the apply path: {written} vs {applied}")
    print(
        f"  apply / raw = {apply_rate / raw_rate:.2f} ({args.workers[0]} worker"
        f"{'s' if args.workers[0] > 1 else ''}; same node and edge counts, checked)"
    )

    # 5. End-to-end lag at a steady rate: time from POST to the event being applied.
    retries = stack.retries()
    cpu_before, lag_started = stack_cpu_seconds(stack), time.perf_counter()
    lags = lag_run(stack, args.lag_rate, args.lag_seconds, base + timedelta(days=2), args.lag_batch)
    workers = len(stack.workers)
    print(
        f"end-to-end lag at {args.lag_rate} events/s ({args.lag_batch} a post) for {args.lag_seconds}s, "
        f"{workers} worker"
        f"{'s' if workers > 1 else ''}: p50 {statistics.median(lags):.2f} s, p95 {percentile(lags, 0.95):.2f} s, "
        f"max {max(lags):.2f} s; graph retries {describe_retries(stack.retries() - retries)}"
    )
    lag_elapsed = time.perf_counter() - lag_started
    print(
        "  cores busy from the first post to the last event applied: "
        + ", ".join(
            f"{name} {(after - cpu_before[name]) / lag_elapsed:.2f}"
            for name, after in stack_cpu_seconds(stack).items()
            if name in cpu_before
        )
        + f" (of {os.cpu_count()})"
    )


def stack_cpu_seconds(stack: Stack) -> dict[str, float]:
    """CPU used so far by the web, the workers and (where it runs on this machine) the graph engine."""
    found = {"web": stack.web_cpu_seconds(), "workers": stack.worker_cpu_seconds()}
    engine = stack.engine_cpu_seconds()
    if engine is not None:
        found["graph engine"] = engine
    return found


def post_backlog(stack: Stack, args: argparse.Namespace, start: datetime, namespace: str) -> None:
    """Post `args.batch_events` events under `namespace` in batched requests (the workers stopped)."""
    events = [bench_event(i, start + timedelta(seconds=i), namespace) for i in range(args.batch_events)]
    batches = [json.dumps(events[i : i + args.batch]).encode() for i in range(0, len(events), args.batch)]
    web_cpu = stack.web_cpu_seconds()
    results = stack.post_all(batches, clients=args.clients, path="/api/v1/lineage/batch")
    web_cpu = stack.web_cpu_seconds() - web_cpu
    batch_elapsed = max(sent + latency for sent, latency, _, _ in results) - min(r[0] for r in results)
    print(
        f"batch posts ({args.batch}/request, {args.batch_events} events, workers stopped): "
        f"{args.batch_events / batch_elapsed:,.0f} events/s accepted; request p50 "
        f"{statistics.median(r[1] for r in results) * 1000:.0f} ms; web CPU "
        f"{web_cpu / args.batch_events * 1000:.2f} ms/event"
    )


def drain_backlog(stack: Stack, total: int, workers: int) -> tuple[float, float, Counter[str], str]:
    """Start `workers` workers on the waiting backlog; events/s from the first applied batch to the last,
    their CPU ms per event, the graph retries they counted, and how busy the workers and the graph engine kept
    the machine's cores. Timing starts at the first batch seen applied (worker start-up is not apply work), so
    that batch is left out of the count."""
    stack.start_workers(workers)
    first = applied_count()
    while (seen := applied_count()) == first:
        time.sleep(0.01)
    worker_cpu, engine_cpu = stack.worker_cpu_seconds(), stack.engine_cpu_seconds()
    elapsed = wait_applied(total)
    worker_cpu = stack.worker_cpu_seconds() - worker_cpu
    engine_after = stack.engine_cpu_seconds()
    count = total + APPLIED_BEFORE[0] - seen
    busy = f"workers {worker_cpu / elapsed:.2f}"
    if engine_cpu is not None and engine_after is not None:
        engine = (engine_after - engine_cpu) / elapsed
        busy += f" + graph engine {engine:.2f} = {worker_cpu / elapsed + engine:.2f}"
    return count / elapsed, worker_cpu / count * 1000, stack.retries(), f"{busy} of {os.cpu_count()} cores busy"


def describe_retries(retries: Counter[str]) -> str:
    """`0`, or the total and each kind/reason: `3 (write/DeadlockDetected 3)`."""
    total = sum(retries.values())
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{key} {n}" for key, n in sorted(retries.items()) if n) + ")"


def graph_counts() -> Counter[str]:
    """How many nodes of each label and relationships of each type the graph holds."""
    from lineage_app.graph.driver import graph_read, records
    from lineage_app.graph.model import Label, Rel

    def work(tx) -> Counter[str]:  # type: ignore[no-untyped-def]
        counts: Counter[str] = Counter()
        for label in Label:
            counts[f":{label}"] = records(tx, f"MATCH (n:{label}) RETURN count(n) AS c")[0]["c"]
        for rel in Rel:
            counts[f"-{rel}-"] = records(tx, f"MATCH ()-[e:{rel}]->() RETURN count(e) AS c")[0]["c"]
        return counts

    return graph_read(work)


def count_delta(before: Counter[str], after: Counter[str]) -> dict[str, int]:
    return {key: after[key] - before[key] for key in after if after[key] != before[key]}


def describe(counts: dict[str, int]) -> str:
    nodes = sum(v for k, v in counts.items() if k.startswith(":"))
    return f"{nodes:,} nodes, {sum(counts.values()) - nodes:,} edges"


def lag_run(stack: Stack, rate: int, seconds: int, start: datetime, batch: int = 1) -> list[float]:
    """Offer `rate` events/s for `seconds` and return each event's lag, from its post to its `applied_at`:
    one event a post, or with `batch` > 1 that many a post to the batch endpoint (`rate / batch` posts a
    second), as the relay and batching producers send."""
    from lineage_app.ingest.models import LineageEvent

    count = rate * seconds
    if batch > 1:
        events = [bench_event(i, start + timedelta(seconds=i)) for i in range(count)]
        bodies = [json.dumps(events[i : i + batch]).encode() for i in range(0, count, batch)]
        results = stack.post_all(bodies, rate=rate / batch, path="/api/v1/lineage/batch")
    else:
        results = stack.post_all(encoded_events(count, start), rate=rate)
    first, last = min(r[0] for r in results), max(r[0] for r in results)
    sent_rate = (len(results) - 1) / (last - first) * batch
    print(f"  (offered {rate} events/s, {batch} a post; the client sent {sent_rate:,.0f} events/s)")
    sent = {
        event_id: sent_at for sent_at, _, _, ids in results for event_id in (ids if isinstance(ids, list) else [ids])
    }
    deadline = time.time() + 120
    while time.time() < deadline:
        done = dict(LineageEvent.objects.filter(id__in=list(sent), status="applied").values_list("id", "applied_at"))
        if len(done) == len(sent):
            # Every applied event has its `applied_at`.
            return [cast(datetime, done[i]).timestamp() - sent[i] for i in sent]
        time.sleep(0.2)
    # The retries the workers counted may say why (a task waiting out a retry's back-off, say).
    raise SystemExit(
        f"lag run did not drain within 120 s; graph retries since the workers started: "
        f"{describe_retries(stack.retries())}"
    )


# The least a hand-written loader does for these events: MERGE each node by its key, each edge
# between its ends, and set the seen-times and names; no alias resolution, no fold, no guards.
RAW_STATEMENTS = (
    ("namespaces", "UNWIND $rows AS row MERGE (n:Namespace {name: row.name}) SET n.lastSeen = row.time"),
    (
        "datasets",
        "UNWIND $rows AS row MERGE (d:Dataset {key: row.key}) SET d.name = row.name, d.lastSeen = row.time "
        "MERGE (a:DatasetAlias {key: row.key}) SET a.lastSeen = row.time",
    ),
    ("jobs", "UNWIND $rows AS row MERGE (j:Job {key: row.key}) SET j.name = row.name, j.lastSeen = row.time"),
    (
        "runs",
        "UNWIND $rows AS row MATCH (j:Job {key: row.job}) MERGE (r:Run {runId: row.runId}) "
        "SET r.state = row.state, r.lastEventTime = row.time MERGE (j)-[:HAS_RUN]->(r)",
    ),
    (
        "io",
        "UNWIND $rows AS row MATCH (r:Run {runId: row.runId}) MATCH (i:Dataset {key: row.input}) "
        "MATCH (o:Dataset {key: row.output}) MATCH (j:Job {key: row.job}) "
        "MERGE (r)-[:READ]->(i) MERGE (r)-[:WROTE]->(o) MERGE (i)-[:INPUT_TO]->(j) MERGE (j)-[:OUTPUTS]->(o)",
    ),
    (
        "versions",
        "UNWIND $rows AS row MATCH (d:Dataset {key: row.dataset}) MERGE (v:DatasetVersion {key: row.key}) "
        "SET v.lastSeen = row.time MERGE (d)-[:HAS_VERSION]->(v)",
    ),
    (
        "fields",
        "UNWIND $rows AS row MATCH (d:Dataset {key: row.dataset}) MERGE (f:Field {key: row.key}) "
        "ON CREATE SET f.name = row.name MERGE (d)-[:HAS_FIELD]->(f)",
    ),
    (
        "derivations",
        "UNWIND $rows AS row MATCH (s:Field {key: row.source}) MATCH (t:Field {key: row.target}) "
        "MERGE (s)-[e:DERIVES {job: row.job}]->(t) SET e.lastSeen = row.time",
    ),
)


def raw_rows(events: list[dict]) -> dict[str, list[dict]]:
    """The rows of `RAW_STATEMENTS` for `events`, one per node or edge (the last event's time wins)."""
    rows: dict[str, dict[object, dict]] = {name: {} for name, _ in RAW_STATEMENTS}

    def key(*parts: str) -> str:
        return "\x1f".join(parts)

    for event in events:
        time_, job = event["eventTime"], event["job"]
        job_key = key(job["namespace"], job["name"])
        (source,), (target,) = event["inputs"], event["outputs"]
        source_key, target_key = key(source["namespace"], source["name"]), key(target["namespace"], target["name"])
        rows["namespaces"][job["namespace"]] = {"name": job["namespace"], "time": time_}
        rows["jobs"][job_key] = {"key": job_key, "name": job["name"], "time": time_}
        run_id = event["run"]["runId"]
        rows["runs"][run_id] = {"runId": run_id, "job": job_key, "state": event["eventType"], "time": time_}
        rows["io"][run_id] = {"runId": run_id, "input": source_key, "output": target_key, "job": job_key}
        for dataset, dataset_key in ((source, source_key), (target, target_key)):
            rows["datasets"][dataset_key] = {"key": dataset_key, "name": dataset["name"], "time": time_}
            schema = dataset["facets"]["schema"]["fields"]
            version = key(dataset_key, json.dumps(schema, sort_keys=True))
            rows["versions"][version] = {"key": version, "dataset": dataset_key, "time": time_}
            for field in schema:
                field_key = key(dataset_key, field["name"])
                rows["fields"][field_key] = {"key": field_key, "dataset": dataset_key, "name": field["name"]}
        for name, mapping in target["facets"]["columnLineage"]["fields"].items():
            for item in mapping["inputFields"]:
                edge = (key(item["namespace"], item["name"], item["field"]), key(target_key, name), job_key)
                rows["derivations"][edge] = {"source": edge[0], "target": edge[1], "job": job_key, "time": time_}
    return {name: list(found.values()) for name, found in rows.items()}


def raw_unwind_merge(events: list[dict], batch: int) -> float:
    """Write `events`' nodes and edges with `RAW_STATEMENTS`, `batch` events a transaction; the seconds taken."""
    from lineage_app.graph.driver import graph_write

    chunks = [raw_rows(events[i : i + batch]) for i in range(0, len(events), batch)]
    started = time.perf_counter()
    for rows in chunks:

        def work(tx, rows=rows) -> None:  # type: ignore[no-untyped-def]
            for name, statement in RAW_STATEMENTS:
                if rows[name]:
                    tx.run(statement, rows=rows[name]).consume()

        graph_write(work)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
