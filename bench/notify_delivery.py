"""Notification delivery benchmark: deliveries per second to a local signed webhook, and the time from
enqueue (its transaction committed) to receipt, p50 / p95.

Starts its own Redis, a private SQLite database and real Celery workers on free loopback ports, and the
product's own webhook receiver (`notify.receiver`, which checks every signature) in this process. Two
phases: a burst (every delivery enqueued in one transaction, as an incident with many recipients does:
throughput, and the latency of a queue draining) and a paced trickle (one delivery every `--interval`
seconds: the latency of a delivery when nothing waits).
It also counts what arrived more than once (want 0).

    .venv/bin/python bench/notify_delivery.py [--deliveries 1000] [--workers 2] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-secret"
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate, *, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.05)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=1000, help="deliveries in the burst")
    parser.add_argument("--paced", type=int, default=100, help="deliveries in the paced phase")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between paced deliveries")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes")
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes per worker")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="tributary-notify-bench-"))
    redis_port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TRIBUTARY_", "DATABASE_URL", "REDIS_URL"))},
        "TRIBUTARY_VAR_DIR": str(tmp),
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "WORKER_NICENESS": "0",
    }
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lineage_app.settings")
    children: list[subprocess.Popen[bytes]] = []
    try:
        children.append(
            subprocess.Popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port), "--save", "", "--appendonly", "no"],
                stdout=subprocess.DEVNULL,
            )
        )
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import transaction

        from lineage_app.notify.messages import Message
        from lineage_app.notify.models import Delivery, Destination
        from lineage_app.notify.receiver import receiver_server
        from lineage_app.notify.services import enqueue

        call_command("migrate", verbosity=0)
        received: Counter[str] = Counter()
        received_at: dict[str, float] = {}
        lock = threading.Lock()

        def record(message: dict[str, Any]) -> None:
            with lock:
                key = message["idempotencyKey"]
                received[key] += 1
                received_at.setdefault(key, message["receivedAt"])

        server = receiver_server(host="127.0.0.1", port=0, secret=SECRET, record=record)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        hook = Destination.objects.create(name="bench", kind="webhook", url=url, secret=SECRET)
        for n in range(args.workers):
            children.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "lineage_app",
                        "worker",
                        "--loglevel",
                        "WARNING",
                        "--concurrency",
                        str(args.concurrency),
                        "--hostname",
                        f"bench{n}@%h",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=(tmp / f"worker{n}.log").open("wb"),
                    stderr=subprocess.STDOUT,
                )
            )
        enqueued_at: dict[str, float] = {}

        def message_for(n: int) -> Message:
            return Message(
                title=f"bench {n}",
                summary="A run of job bench.job failed.",
                severity="critical",
                facts=(("Job", "bench.job"), ("Run", str(n))),
                sections=(("Downstream", tuple(f"dataset:bench:table_{i}" for i in range(20))),),
                links=(("Incident", f"http://127.0.0.1:8000/incidents/{n}"),),
                event={"type": "incident.opened", "incident": n, "datasets": [f"table_{i}" for i in range(20)]},
            )

        def send(keys: list[str]) -> None:
            """Enqueue `keys` in one transaction, as one incident notifying many recipients does."""
            with transaction.atomic():
                for n, key in enumerate(keys):
                    enqueue(destination=hook, message=message_for(n), idempotency_key=key)
            committed = time.time()
            enqueued_at.update(dict.fromkeys(keys, committed))

        def phase(name: str, keys: list[str], interval: float) -> None:
            start = time.time()
            if interval:
                for key in keys:
                    send([key])
                    time.sleep(interval)
            else:
                send(keys)
            enqueue_seconds = time.time() - start
            wait_for(lambda: all(k in received_at for k in keys), timeout=600, what=f"{name}: every delivery")
            last = max(received_at[k] for k in keys)
            latencies = [(received_at[k] - enqueued_at[k]) * 1000 for k in keys]
            print(
                f"{name:7} {len(keys):5} deliveries  enqueued in {enqueue_seconds:6.2f} s  "
                f"delivered {len(keys) / (last - start):7.1f}/s  "
                f"enqueue→receipt p50 {statistics.median(latencies):7.1f} ms  "
                f"p95 {percentile(latencies, 0.95):7.1f} ms  "
                f"max {max(latencies):7.1f} ms"
            )

        # Warm-up: the workers' first tasks import and connect; not measured.
        phase_keys = [f"warm:{n}" for n in range(20)]
        send(phase_keys)
        wait_for(lambda: all(k in received_at for k in phase_keys), timeout=120, what="the warm-up")
        print(
            f"notify delivery: {args.workers} worker(s) x {args.concurrency} processes, "
            f"SQLite outbox, Redis broker, signed webhook to 127.0.0.1"
        )
        phase("burst", [f"burst:{n}" for n in range(args.deliveries)], 0)
        phase("paced", [f"paced:{n}" for n in range(args.paced)], args.interval)
        time.sleep(2)  # anything sent twice would have arrived by now
        twice = sum(1 for count in received.values() if count > 1)
        states = Counter(Delivery.objects.values_list("state", flat=True))
        print(f"arrived more than once: {twice}; outbox: {dict(states)}")
        server.shutdown()
    finally:
        for child in reversed(children):
            child.terminate()
        for child in children:
            child.wait(timeout=30)


if __name__ == "__main__":
    main()
