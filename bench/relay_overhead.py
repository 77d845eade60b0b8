"""Edge relay cost: accept latency through the relay vs straight to the server, and how fast a backlog drains.

Starts its own server on free loopback ports (private SQLite, Redis, gunicorn with the product's
own settings; no graph engine and no worker: accepting and storing is what is measured) and a
relay (`python -m lineage_relay`) in front of it, then prints:

- accept latency, one event per request on a keep-alive connection, as a producer's HTTP transport
  posts: the relay (sign + durable commit to its buffer) and the server (validate + store), the
  two interleaved in the same run so that machine load drifts alike for both;
- relay accept throughput with several concurrent producers (`bench/http_load.py`);
- forward throughput: events/s the relay drains from a backlog of N to the server's batch endpoint
  (the backlog is built while the relay points at a port where nothing listens);
- write throughput (file mode): events/s the relay drains from the same size of backlog to its
  output files, each batch synced before it is recorded written.

    .venv/bin/python bench/relay_overhead.py [--events 400] [--clients 4] [--backlog 5000]
"""

from __future__ import annotations

import argparse
import http.client
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_event(i: int) -> bytes:
    """A COMPLETE run event reading one table and writing another, both with a 12-column schema (~2 KB)."""
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=i)
    fields = [{"name": f"c{k}", "type": "string"} for k in range(12)]
    facet = {"_producer": "https://example.com/bench", "_schemaURL": "https://example.com/schema.json"}
    event = {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat(),
        "producer": "https://example.com/bench",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4()), "facets": {}},
        "job": {"namespace": "bench", "name": f"job_{i % 200}", "facets": {}},
        "inputs": [
            {"namespace": "bench", "name": f"table_{i % 500}", "facets": {"schema": {**facet, "fields": fields}}}
        ],
        "outputs": [
            {"namespace": "bench", "name": f"out_{i % 500}", "facets": {"schema": {**facet, "fields": fields}}}
        ],
    }
    return json.dumps(event).encode()


class Bench:
    """The server (gunicorn, Redis, SQLite) and the relays, all in one temporary directory."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.web_port, self.redis_port = free_port(), free_port()
        self.env = {
            **os.environ,
            "TRIBUTARY_VAR_DIR": str(tmp),
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "NEO4J_URI": f"bolt://127.0.0.1:{free_port()}",  # never used: nothing applies events here
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "lineage_app.settings",
        }
        self.log = (tmp / "bench.log").open("ab")
        self.processes: list[subprocess.Popen[bytes]] = []
        self.token = ""
        self.key = tmp / "relay.key"

    @property
    def server_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def spawn(self, *argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(argv, cwd=ROOT, env=env or self.env, stdout=self.log, stderr=self.log)
        self.processes.append(process)
        return process

    def start(self) -> None:
        py = sys.executable
        self.spawn("redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "")
        subprocess.run([py, "manage.py", "migrate", "-v0"], cwd=ROOT, env=self.env, check=True)
        os.environ.update(self.env)
        import django

        django.setup()
        from lineage_app.accounts.services import token_create

        self.token = token_create(name="bench", scope="ingest")[1]
        subprocess.run(
            [py, "-m", "lineage_protocol.keygen", "--out", str(self.tmp), "--name", "relay"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        gunicorn = ["-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{self.web_port}"]
        self.spawn(py, *gunicorn)
        wait(lambda: status_of(f"{self.server_url}/api/v1/lineage/batch", self.token) == 405, "the server")

    def relay(
        self, *, buffer: Path, server_url: str | None, output_dir: Path | None = None
    ) -> tuple[subprocess.Popen[bytes], str]:
        port = free_port()
        argv = [sys.executable, "-m", "lineage_relay", "--port", str(port), "--buffer", str(buffer)]
        if output_dir is not None:
            argv += ["--output-dir", str(output_dir)]
        else:
            argv += ["--server-url", str(server_url), "--token", self.token]
        argv += ["--signing-key", str(self.key)]
        argv += ["--retry-max-seconds", "1", "--log-level", "WARNING"]
        process = self.spawn(*argv)
        url = f"http://127.0.0.1:{port}"
        wait(lambda: status_of(f"{url}/healthz") == 200, "the relay")
        return process, url

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            process.wait(timeout=60)


def status_of(url: str, token: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=2) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def metric(url: str, name: str) -> float:
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise SystemExit(f"no metric {name}")


def wait(predicate: Any, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not come up; see bench.log in the temp dir")
        time.sleep(0.1)


class Poster:
    """One keep-alive connection posting single events, as a producer's HTTP transport does."""

    def __init__(self, url: str, token: str) -> None:
        port = int(url.rsplit(":", 1)[1])
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}

    def post(self, body: bytes) -> float:
        started = time.perf_counter()
        self.connection.request("POST", "/api/v1/lineage", body=body, headers=self.headers)
        answer = self.connection.getresponse()
        answer.read()
        elapsed = time.perf_counter() - started
        if answer.status not in (200, 201):
            raise SystemExit(f"HTTP {answer.status} from a post")
        return elapsed


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def latency(bench: Bench, relay_url: str, events: int) -> None:
    relay, server = Poster(relay_url, bench.token), Poster(bench.server_url, bench.token)
    for i in range(20):  # warm both up: connections, imports, caches
        relay.post(make_event(10_000_000 + i))
        server.post(make_event(20_000_000 + i))
    through_relay, straight = [], []
    for i in range(events):
        through_relay.append(relay.post(make_event(2 * i)))
        straight.append(server.post(make_event(2 * i + 1)))
    for name, values in (("through the relay", through_relay), ("straight to the server", straight)):
        values.sort()
        p95 = values[int(0.95 * len(values))]
        print(f"  {name:24} median {ms(statistics.median(values))}, p95 {ms(p95)}  ({len(values)} events)")
    overhead = statistics.median(through_relay) - statistics.median(straight)
    print(f"  relay overhead per event (median through the relay minus median straight): {ms(overhead)}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def accept_throughput(bench: Bench, relay: subprocess.Popen[bytes], relay_url: str, events: int, clients: int) -> None:
    cpu_started = cpu_seconds(relay.pid)
    bodies = bench.tmp / "bodies.jsonl"
    bodies.write_bytes(b"\n".join(make_event(30_000_000 + i) for i in range(events)))
    load = [sys.executable, str(ROOT / "bench" / "http_load.py"), f"{relay_url}/api/v1/lineage", bench.token]
    done = subprocess.run([*load, str(bodies), "--clients", str(clients)], capture_output=True, check=True)
    results = json.loads(done.stdout)
    if any(status != 201 for _, _, status, _ in results):
        raise SystemExit("the relay refused some posts")
    span = max(sent + took for sent, took, _, _ in results) - min(sent for sent, _, _, _ in results)
    print(f"  {clients} producers: {events / span:.0f} events/s accepted ({events} events)")
    wait(lambda: metric(relay_url, "lineage_relay_backlog_events") == 0, "the relay to drain", timeout=600)
    cpu = cpu_seconds(relay.pid) - cpu_started
    print(f"  relay CPU per event, accepted, signed, stored and forwarded: {ms(cpu / events)}")


def forward_throughput(bench: Bench, backlog: int) -> None:
    buffer = bench.tmp / "backlog.sqlite3"
    build_backlog(bench, buffer, backlog)
    _, url = bench.relay(buffer=buffer, server_url=bench.server_url)
    started = time.perf_counter()
    wait(lambda: metric(url, "lineage_relay_backlog_events") == 0, "the drain", timeout=600)
    took = time.perf_counter() - started
    forwarded = metric(url, "lineage_events_forwarded_total")
    print(f"  drained {backlog} events in {took:.2f} s: {forwarded / took:.0f} events/s forwarded")


def write_throughput(bench: Bench, backlog: int) -> None:
    buffer = bench.tmp / "backlog-files.sqlite3"
    build_backlog(bench, buffer, backlog)
    out = bench.tmp / "outbox"
    # From the spawn: the writer starts before the relay answers /healthz. Start-up is included.
    started = time.perf_counter()
    relay, url = bench.relay(buffer=buffer, server_url=None, output_dir=out)
    wait(lambda: metric(url, "lineage_relay_backlog_events") == 0, "the drain to files", timeout=600)
    took = time.perf_counter() - started
    written = metric(url, "lineage_events_written_total")
    relay.terminate()
    relay.wait(timeout=60)
    size = sum(path.stat().st_size for path in out.glob("relay-*.jsonl"))
    print(
        f"  wrote {backlog} events in {took:.2f} s, the relay's start-up included: {written / took:.0f} events/s "
        f"to files ({size / 2**20:.1f} MiB)"
    )


def build_backlog(bench: Bench, buffer: Path, backlog: int) -> None:
    """`backlog` events pending in `buffer`, posted to a relay pointed at a port where nothing listens."""
    nowhere = f"http://127.0.0.1:{free_port()}"
    relay, url = bench.relay(buffer=buffer, server_url=nowhere)
    batch = 500
    for start in range(0, backlog, batch):
        body = b"[" + b",".join(make_event(40_000_000 + i) for i in range(start, min(backlog, start + batch))) + b"]"
        request = urllib.request.Request(
            f"{url}/api/v1/lineage/batch", data=body, headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(request, timeout=60).read()
    if metric(url, "lineage_relay_backlog_events") != backlog:
        raise SystemExit("the backlog is not what was posted")
    relay.terminate()
    relay.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=400, help="events per side in the latency run")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--accept-events", type=int, default=2000)
    parser.add_argument("--backlog", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tributary-relay-bench-") as tmp:
        bench = Bench(Path(tmp))
        bench.start()
        try:
            relay, relay_url = bench.relay(buffer=bench.tmp / "relay.sqlite3", server_url=bench.server_url)
            print(f"accept latency, one event per request, keep-alive, sequential ({os.cpu_count()} cores):")
            latency(bench, relay_url, args.events)
            print("relay accept throughput:")
            accept_throughput(bench, relay, relay_url, args.accept_events, args.clients)
            print("forward throughput:")
            forward_throughput(bench, args.backlog)
            print("write throughput (file mode):")
            write_throughput(bench, args.backlog)
        finally:
            bench.stop()


if __name__ == "__main__":
    main()
