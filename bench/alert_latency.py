"""Alert delivery latency: from a failure event's acceptance to its incident's message at a real webhook receiver.

Starts its own stack (`bench/ingest_throughput.py`'s: private SQLite, Redis, embedded ArcadeDB, gunicorn, a
Celery worker) and the product's own signed-webhook receiver (`notify.receiver`) in this process. Then:

1. builds a graph of `--datasets` datasets and `--jobs` jobs through the real ingest path (batched
   `POST /api/v1/lineage/batch`, applied by the worker): job `j` reads `table_<i>` and writes
   `table_<i+1>_out` for every `i ≡ j (mod jobs)`, each dataset with `--fields` columns (4 by default, all
   with column lineage: the graph engine's writes are what building costs, and a failure's blast radius
   walks datasets and jobs, not columns), each output owned (an `ownership` facet) by one of `--teams`
   teams, each team routed to its own webhook destination on the receiver;
2. fails every job once: a FAIL event per job, posted one per request at `--rate` per second;
3. waits until every incident's deliveries arrived, and prints the time from each failure's acceptance (its
   201 at the client) to its first message's receipt, p50 / p95 / max, split into accept -> applied and
   applied -> received, and how many incidents and messages resulted.

    .venv/bin/python bench/alert_latency.py [--datasets 10000] [--jobs 1000] [--fields 4] [--rate 5] [--concurrency 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-alert-secret"
sys.path.insert(0, str(ROOT))

from bench.ingest_throughput import Stack, make_event, percentile, wait_applied  # noqa: E402
from bench.stack_options import stack_options_add, stack_options_describe, stack_options_env  # noqa: E402


class AlertStack(Stack):
    """The benchmark stack, its worker with `concurrency` pool processes (1: the solo pool, as ingest's bench)."""

    concurrency = 1

    def pool_options(self) -> list[str]:
        return ["--pool", "solo"] if self.concurrency == 1 else ["--concurrency", str(self.concurrency)]


def failure_event(job: int, when: datetime, *, jobs: int, tables: int, fields: int) -> dict[str, Any]:
    """A FAIL of `job_<job>` (its first input and output), with the error a Spark job reports."""
    event = make_event(job, when, jobs=jobs, tables=tables, fields=fields)
    event["eventType"] = "FAIL"
    event["run"]["facets"]["errorMessage"] = {
        "_producer": "https://example.com/bench",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json",
        "message": "boom",
        "programmingLanguage": "python",
        "stackTrace": "Traceback...\nPermissionError: [Errno 13] Permission denied: '/warehouse/x'",
    }
    return event


def ms(values: list[float]) -> str:
    return (
        f"p50 {statistics.median(values) * 1000:7.0f} ms  p95 {percentile(values, 0.95) * 1000:7.0f} ms  "
        f"max {max(values) * 1000:7.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--datasets", type=int, default=10_000, help="datasets in the graph (even: half read, half written)"
    )
    parser.add_argument("--jobs", type=int, default=1000, help="jobs, each failed once")
    parser.add_argument("--teams", type=int, default=10, help="owner teams, each routed to its own destination")
    parser.add_argument(
        "--fields", type=int, default=4, help="columns per dataset (ingest_throughput's events have 12; 4 have lineage)"
    )
    parser.add_argument(
        "--rate", type=float, default=5, help="failure events posted per second (one solo worker handles about 6)"
    )
    parser.add_argument("--batch", type=int, default=100, help="events per batch post while building the graph")
    parser.add_argument("--concurrency", type=int, default=1, help="the worker's pool processes (1: solo pool)")
    stack_options_add(parser)
    args = parser.parse_args()
    print(f"{stack_options_describe(args)}; worker pool: {args.concurrency}")
    with tempfile.TemporaryDirectory(prefix="tributary-alert-bench-") as tmp:
        AlertStack.concurrency = args.concurrency
        stack = AlertStack(Path(tmp), {**stack_options_env(args), "API_RATE_LIMIT_INGEST": "1000000000/minute"})
        stack.start()
        try:
            run(stack, args)
        finally:
            stack.stop()


def run(stack: Stack, args: argparse.Namespace) -> None:
    from lineage_app.accounts.services import token_create
    from lineage_app.alerts.models import Incident
    from lineage_app.alerts.services import route_create
    from lineage_app.ingest.models import LineageEvent
    from lineage_app.notify.models import Delivery, Destination
    from lineage_app.notify.receiver import receiver_server

    stack.token = token_create(name="bench", scope="ingest")[1]
    received: dict[str, float] = {}
    arrivals: Counter[str] = Counter()
    lock = threading.Lock()

    def record(message: dict[str, Any]) -> None:
        with lock:
            arrivals[message["idempotencyKey"]] += 1
            received.setdefault(message["idempotencyKey"], message["receivedAt"])

    server = receiver_server(host="127.0.0.1", port=0, secret=SECRET, record=record)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    # 1. The graph, through the real ingest path.
    tables = args.datasets // 2
    count = max(tables, args.jobs)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    events = [
        make_event(
            i,
            base + timedelta(seconds=i),
            jobs=args.jobs,
            tables=tables,
            owner=f"team:t{i % args.teams}",
            fields=args.fields,
        )
        for i in range(count)
    ]
    started = time.perf_counter()
    stack.post_all(
        [json.dumps(events[i : i + args.batch]).encode() for i in range(0, count, args.batch)],
        clients=2,
        path="/api/v1/lineage/batch",
    )
    wait_applied(count, timeout=1800)
    build = time.perf_counter() - started
    print(
        f"graph: {count:,} events ({args.jobs:,} jobs, {2 * tables:,} datasets of {args.fields} columns, "
        f"{args.teams} teams) "
        f"accepted and applied in {build:.1f} s ({count / build:,.0f} events/s)"
    )
    for t in range(args.teams):
        hook = Destination.objects.create(name=f"team t{t}", kind="webhook", url=f"{url}t{t}", secret=SECRET)
        route_create(owner=f"team:t{t}", destination=hook.pk)

    # 2. Every job fails once, a post each, at a steady rate.
    failures = [
        failure_event(j, base + timedelta(days=1, seconds=j), jobs=args.jobs, tables=tables, fields=args.fields)
        for j in range(args.jobs)
    ]
    run_of_event: dict[int, str] = {}
    accepted: dict[str, float] = {}
    started = time.perf_counter()
    results = stack.post_all([json.dumps(e).encode() for e in failures], rate=args.rate)
    for event, (sent_at, latency, _, event_id) in zip(failures, results, strict=True):
        run_of_event[event_id] = event["run"]["runId"]
        accepted[event["run"]["runId"]] = sent_at + latency
    wait_applied(count + args.jobs, timeout=1800)

    # 3. Wait for the deliveries: every one the incidents wrote, sent (or dead) and received.
    def settled() -> bool:
        waiting = Delivery.objects.filter(idempotency_key__startswith="incident-").exclude(state__in=["sent", "dead"])
        return not waiting.exists()

    deadline = time.monotonic() + 1800
    while not settled():
        if time.monotonic() > deadline:
            raise SystemExit("deliveries still waiting after 1800 s")
        time.sleep(0.2)
    time.sleep(1)  # a message sent just now is still on its way to the receiver
    elapsed = time.perf_counter() - started

    applied_at = {
        run_of_event[pk]: when.timestamp()
        for pk, when in LineageEvent.objects.filter(pk__in=list(run_of_event)).values_list("pk", "applied_at")
        if when is not None  # every one is applied by now (`wait_applied`)
    }
    deliveries = list(
        Delivery.objects.filter(idempotency_key__startswith="incident-").values_list("idempotency_key", "state")
    )
    first_receipt: dict[int, float] = {}
    for key, _ in deliveries:
        if key in received:
            incident = int(key.split(":", 1)[0].removeprefix("incident-"))
            first_receipt[incident] = min(first_receipt.get(incident, received[key]), received[key])
    incidents = list(Incident.objects.values_list("pk", "run_id", "kind"))
    total, applying, delivering = [], [], []
    for pk, run_id, kind in incidents:
        if kind != "run_failed" or run_id not in accepted or pk not in first_receipt:
            continue
        total.append(first_receipt[pk] - accepted[run_id])
        applying.append(applied_at[run_id] - accepted[run_id])
        delivering.append(first_receipt[pk] - applied_at[run_id])
    states = Counter(state for _, state in deliveries)
    per_root = Counter(root for root in Incident.objects.values_list("root", flat=True))
    twice = {root: n for root, n in per_root.items() if n > 1}
    print(
        f"failures: {args.jobs:,} FAIL events posted at {args.rate:g}/s; {len(incidents):,} incidents opened "
        f"({Counter(k for _, _, k in incidents)}); {len(deliveries):,} messages {dict(states)}; "
        f"{sum(arrivals.values()):,} arrivals, {sum(1 for n in arrivals.values() if n > 1)} more than once; "
        f"all delivered {elapsed:.1f} s after the first post"
    )
    print(f"jobs with more than one incident for their one failure: {len(twice)} (want 0)")
    if twice:
        runs = Counter(Incident.objects.filter(root__in=list(twice)).values_list("run_id", flat=True))
        print(f"  e.g. {next(iter(twice))}; incidents per failing run: {Counter(runs.values())}")
    if not total:
        raise SystemExit("no incident's message arrived: nothing to measure")
    first = min(accepted.values())
    applying_rate = len(applied_at) / (max(applied_at.values()) - first)
    delivering_rate = len(first_receipt) / (max(first_receipt.values()) - first)
    backlog = " (below the offered rate: a backlog grew, and the latencies below are mostly its queueing)"
    print(
        f"offered {args.rate:g} failures/s; applied {applying_rate:.1f}/s, delivered {delivering_rate:.1f}/s end "
        f"to end{backlog if delivering_rate < 0.95 * args.rate else ''}"
    )
    print(f"accepted -> delivered ({len(total):,} incidents):  {ms(total)}")
    print(f"  accepted -> applied:                 {ms(applying)}")
    print(f"  applied -> delivered:                {ms(delivering)}")
    server.shutdown()


if __name__ == "__main__":
    main()
