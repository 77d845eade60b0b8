"""Transparency-log benchmark: build a log of a million leaves, time proofs; and accept rates before and after.

`build` (the default) appends `--leaves` leaves straight through the storage service (`log_append`, in
transactions of `--chunk`, as accepts would), signs a checkpoint, then times inclusion proofs of random
leaves by event id and consistency proofs from random sizes, as the API's selectors make them (no HTTP).
It prints the build rate and each proof's p50 and p95.

`--baseline DIR` instead compares accepting with and without the log: it starts two web servers (gunicorn,
the product's settings, a private SQLite file and Redis each; no worker), one from the checkout at DIR
(say a worktree of the commit before the log) and one from this one, and posts the same single events
and batches to both in alternating rounds, so that the machine's load drifts alike for both. It prints
each side's median accept rate and the ratio.

    .venv/bin/python bench/tlog.py [--leaves 1000000] [--database-url postgres://…/empty]
    git worktree add /tmp/before <commit>; .venv/bin/python bench/tlog.py --baseline /tmp/before [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ingest_throughput import free_port, make_event, percentile, wait  # noqa: E402


def build(args: argparse.Namespace, tmp: Path) -> None:
    os.environ.update(
        {
            "TRIBUTARY_VAR_DIR": str(tmp),
            "DATABASE_URL": args.database_url or f"sqlite:///{tmp}/tlog.sqlite3",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            "LEDGER_ORIGIN": "bench.tributary/log",
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    from lineage_app.ledger.checkpoints import checkpoint_sign
    from lineage_app.ledger.log_append import log_append
    from lineage_app.ledger.proofs import proof_consistency, proof_inclusion

    call_command("migrate", verbosity=0)
    accepted_at = datetime(2026, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    for start in range(0, args.leaves, args.chunk):
        entries = [
            (hashlib.sha256(i.to_bytes(8, "big")).hexdigest(), i + 1)
            for i in range(start, min(args.leaves, start + args.chunk))
        ]
        with transaction.atomic():
            log_append(entries=entries, accepted_at=accepted_at + timedelta(seconds=start))
    built = time.perf_counter() - started
    checkpoint = checkpoint_sign()
    assert checkpoint is not None and checkpoint.size == args.leaves
    print(f"built {args.leaves:,} leaves in {built:.1f} s: {args.leaves / built:,.0f} leaves/s")
    pick = random.Random(7)
    inclusion = _timed(lambda: proof_inclusion(event=str(pick.randrange(args.leaves) + 1), tree_size=None), args.proofs)
    consistency = _timed(lambda: proof_consistency(first=pick.randrange(1, args.leaves), second=None), args.proofs)
    for name, timings in (("inclusion", inclusion), ("consistency", consistency)):
        p50, p95 = statistics.median(timings) * 1000, percentile(timings, 0.95) * 1000
        print(f"{name} proof at {args.leaves:,} leaves, {args.proofs} random: p50 {p50:.2f} ms, p95 {p95:.2f} ms")


def _timed(call, count: int) -> list[float]:  # type: ignore[no-untyped-def]
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        timings.append(time.perf_counter() - started)
    return timings


class Server:
    """A web server of one checkout (`root`): private SQLite and Redis, no worker."""

    def __init__(self, root: Path, tmp: Path) -> None:
        self.root, self.port, redis_port = root, free_port(), free_port()
        self.env = {
            **os.environ,
            "TRIBUTARY_VAR_DIR": str(tmp),
            "DATABASE_URL": f"sqlite:///{tmp}/accept.sqlite3",
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "LOG_LEVEL": "WARNING",
            "API_RATE_LIMIT_INGEST": "1000000000/minute",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
            "PYTHONPATH": str(root),
        }
        log = (tmp / "server.log").open("ab")
        py = sys.executable
        self.processes = [
            subprocess.Popen(
                ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", ""], stdout=log
            )
        ]
        try:
            subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=root, env=self.env, check=True)
            made = subprocess.run(
                [py, "manage.py", "create_token", "--scope", "ingest", "--name", "bench"],
                cwd=root,
                env=self.env,
                check=True,
                capture_output=True,
                text=True,
            )
            self.token = made.stdout.strip().splitlines()[-1]
            bind = f"127.0.0.1:{self.port}"
            self.processes.append(
                subprocess.Popen(
                    [py, "-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", bind],
                    cwd=root,
                    env=self.env,
                    stdout=log,
                    stderr=log,
                )
            )
            wait(lambda: _answers(f"http://{bind}/healthz"), 60)
        except BaseException:  # stop what was started, or Redis and gunicorn outlive the benchmark
            self.stop()
            raise

    def post(self, bodies: list[bytes], path: str, clients: int, tmp: Path) -> float:
        """Post every body once from `clients` keep-alive clients; accepted events per second."""
        file = tmp / "bodies.jsonl"
        file.write_bytes(b"\n".join(bodies))
        url = f"http://127.0.0.1:{self.port}{path}"
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "http_load.py"),
                url,
                self.token,
                str(file),
                "--clients",
                str(clients),
            ],
            capture_output=True,
            check=True,
        )
        results = json.loads(done.stdout)
        if any(status not in (200, 201) for _, _, status, _ in results):
            raise SystemExit(f"{path}: some posts were refused")
        return max(sent + latency for sent, latency, _, _ in results) - min(r[0] for r in results)

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
            process.wait(timeout=60)


def _answers(url: str) -> bool:
    """Whether the server answers at all: with no graph engine running, /healthz says 503, and accepting works."""
    try:
        urllib.request.urlopen(url, timeout=2).close()
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
    return True


def accept_rates(args: argparse.Namespace, tmp: Path) -> None:
    sides = {"before": args.baseline.resolve(), "after": ROOT}
    servers = {}
    try:
        for name, root in sides.items():
            (tmp / name).mkdir()
            servers[name] = Server(root, tmp / name)
        rates: dict[tuple[str, str], list[float]] = {(n, kind): [] for n in sides for kind in ("single", "batch")}
        start = datetime(2026, 1, 1, tzinfo=UTC)
        for round_ in range(args.rounds + 1):  # round 0 warms both up and is not counted
            at = start + timedelta(days=round_)
            events = [json.dumps(make_event(i, at + timedelta(seconds=i))).encode() for i in range(args.events)]
            batches = [b"[" + b",".join(events[i : i + args.batch]) + b"]" for i in range(0, len(events), args.batch)]
            order = list(sides) if round_ % 2 else list(sides)[::-1]
            for name in order:
                single = servers[name].post(events, "/api/v1/lineage", args.clients, tmp / name)
                batch = servers[name].post(batches, "/api/v1/lineage/batch", args.clients, tmp / name)
                if round_:
                    rates[(name, "single")].append(len(events) / single)
                    rates[(name, "batch")].append(len(events) / batch)
        for kind in ("single", "batch"):
            before, after = (statistics.median(rates[(n, kind)]) for n in sides)
            print(
                f"{kind} accept, {args.rounds} interleaved rounds of {args.events} events, {args.clients} clients: "
                f"median before {before:,.0f} events/s, after {after:,.0f} events/s; after takes "
                f"{before / after:.3f}x the time of before"
            )
            for name in sides:
                print(f"  {name}, each round: {', '.join(f'{rate:,.0f}' for rate in rates[(name, kind)])} events/s")
    finally:
        for server in servers.values():
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=1_000_000)
    parser.add_argument("--chunk", type=int, default=1000, help="leaves per append transaction")
    parser.add_argument("--proofs", type=int, default=1000, help="proofs of each kind to time")
    parser.add_argument("--database-url", default=None, help="an empty database to build in; default private SQLite")
    parser.add_argument("--baseline", type=Path, help="compare accept rates with the checkout at this directory")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=2000, help="events per round and side")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tributary-tlog-") as tmp:
        if args.baseline:
            accept_rates(args, Path(tmp))
        else:
            build(args, Path(tmp))


if __name__ == "__main__":
    main()
