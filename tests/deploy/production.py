"""The production shape without Docker, for the deployment tests: gunicorn web processes, Celery workers
and beat, started as real processes configured only by the variables compose sets, which a test may
kill and start again; and the HTTP calls a producer makes to them."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from django.conf import settings

from tests.conftest import ROOT, free_port, graph_env, wait_until


class ProductionStack:
    """Web processes (gunicorn), workers and beat (Celery) on one database, the test session's broker and
    graph engine. Each process runs in a session of its own, so that killing one kills its children too
    (a gunicorn master's workers, a prefork worker's pool), as when its container dies."""

    def __init__(self, tmp: Path, database_url: str, **env: str) -> None:
        self.tmp = tmp
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp),
            "SECRET_KEY": "production-shape-test",
            "DATABASE_URL": database_url,
            "REDIS_URL": settings.CELERY_BROKER_URL,
            **graph_env(),
            "TRIBUTARY_VAR_DIR": str(tmp / "var"),
            "WEB_CONCURRENCY": "1",
            "INGEST_SWEEP_INTERVAL_SECONDS": "2",
            **env,
        }
        self.argv: dict[str, list[str]] = {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.starts: dict[str, int] = {}
        self.ports: dict[str, int] = {}

    def manage(self, *args: str) -> str:
        """Run a management command that must succeed; what it printed."""
        done = self.manage_run(*args)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stdout.strip()

    def manage_run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run a management command, whatever its exit status."""
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )

    def log(self, name: str) -> Path:
        """The log of the running (or last) process `name`: each start writes a new one."""
        return self.tmp / f"{name}.{self.starts[name]}.log"

    def spawn(self, name: str, *argv: str) -> None:
        self.argv[name] = list(argv)
        self.starts[name] = self.starts.get(name, 0) + 1
        with self.log(name).open("ab") as log:
            self.processes[name] = subprocess.Popen(
                argv, cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True
            )

    def web(self, name: str) -> None:
        port = self.ports.setdefault(name, free_port())
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        self.spawn(name, gunicorn, "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}")

    def worker(self, name: str, *options: str) -> None:
        celery = [sys.executable, "-m", "celery", "-A", "lineage_app", "worker", "-n", f"{name}@%h"]
        self.spawn(name, *celery, *(options or ("--concurrency", "1", "-l", "WARNING")))

    def beat(self) -> None:
        schedule = str(self.tmp / "beat-schedule")
        self.spawn("beat", sys.executable, "-m", "celery", "-A", "lineage_app", "beat", "-s", schedule, "-l", "WARNING")

    def start(self, *, worker_options: tuple[str, ...] = ()) -> None:
        """Two web processes, two workers (with `worker_options`, else prefork with one process) and beat."""
        for n in (1, 2):
            self.web(f"web{n}")
            self.worker(f"worker{n}", *worker_options)
        self.beat()
        for port in self.ports.values():
            wait_until(lambda p=port: http_status(f"http://127.0.0.1:{p}/healthz") == 200, timeout=60, what="web")

    def url(self, web: str, path: str) -> str:
        return f"http://127.0.0.1:{self.ports[web]}{path}"

    def kill(self, name: str) -> None:
        """SIGKILL the process `name` and everything it started, as a machine or container dying would."""
        process = self.processes[name]
        with contextlib.suppress(ProcessLookupError):  # it had died already
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def restart(self, name: str) -> None:
        """Start `name` again as it was started (a web process on its port), after it was killed."""
        self.spawn(name, *self.argv[name])

    def stop(self, *names: str) -> None:
        """Stop the processes `names` (every one if none) as an operator would, with SIGTERM."""
        stopping = [self.processes[name] for name in names or self.processes]
        for process in stopping:
            if process.poll() is None:
                process.terminate()
        for process in stopping:
            process.wait(timeout=30)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-1500:]}" for p in sorted(self.tmp.glob("*.log")))


def http_status(url: str) -> int:
    """The HTTP status `url` answers GET with; 0 if nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def post_json(url: str, token: str, body: Any) -> tuple[int, Any]:
    """POST `body` as JSON with a bearer token: the status and the decoded answer (its text if not JSON).
    A connection that fails (nothing listens, or the server died mid-request) raises `OSError`."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
