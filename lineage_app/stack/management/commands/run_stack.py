"""`manage.py run_stack`: the whole product on this machine, with embedded defaults, until Ctrl-C."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from lineage_app.accounts.services import token_create
from lineage_app.graph.driver import graph_driver_reset, graph_ping
from lineage_app.graph.schema import graph_schema_init
from lineage_app.stack.supervisor import Supervisor

LOOPBACK = {"127.0.0.1", "localhost"}


def _redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


class Command(BaseCommand):
    help = "Start Redis (if needed), the embedded graph engine, web, worker and beat; feed the example pipeline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-example", action="store_true", help="Do not run the example Spark pipeline.")

    def handle(self, *args: Any, **options: Any) -> None:
        stack = Supervisor()
        stopping = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.set())
        try:
            self._start(stack, port=options["port"], example=not options["no_example"])
            self.stdout.write(self.style.SUCCESS("Tributary is running. Press Ctrl-C to stop everything."))
            while not stopping.wait(1):
                if name := stack.exited():
                    self.stderr.write(f"{name} exited; stopping the stack")
                    break
        finally:
            self.stdout.write("stopping…")
            stack.stop_all()

    def _start(self, stack: Supervisor, *, port: int, example: bool) -> None:
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        call_command("migrate", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        self._ensure_redis(stack)
        self._ensure_graph(stack, manage)
        graph_schema_init()
        celery = [sys.executable, "-m", "celery", "-A", "lineage_app"]
        stack.start("worker", [*celery, "worker", "--loglevel", "INFO", "--concurrency", "2"])
        stack.start("beat", [*celery, "beat", "--loglevel", "INFO",
                             "--schedule", str(settings.VAR_DIR / "celerybeat-schedule")])
        stack.start("web", [sys.executable, "-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf",
                            "--bind", f"127.0.0.1:{port}", "--access-logfile", "-"])
        url = f"http://127.0.0.1:{port}"
        stack.wait_ready("web", lambda: _http_ok(f"{url}/healthz"), timeout=60)
        password = self._ensure_admin()
        _, token = token_create(name="make run", scope="ingest")
        self.stdout.write(
            f"\n  UI / admin:   {url}/admin/  (user admin, password {password})\n"
            f"  API docs:     {url}/api/v1/docs\n"
            f"  Ingest token: {token}\n"
        )
        if example:
            self._run_example(url, token)

    def _ensure_redis(self, stack: Supervisor) -> None:
        if _redis_answers():
            return
        parsed = urlparse(settings.REDIS_URL)
        if parsed.hostname not in LOOPBACK:
            raise RuntimeError(f"Redis at {settings.REDIS_URL} does not answer")
        stack.start("redis", ["redis-server", "--bind", "127.0.0.1", "--port", str(parsed.port or 6379),
                              "--save", "", "--appendonly", "no"])
        stack.wait_ready("redis", _redis_answers, timeout=20)

    def _ensure_graph(self, stack: Supervisor, manage: list[str]) -> None:
        if graph_ping():
            return
        if urlparse(settings.NEO4J_URI).hostname not in LOOPBACK:
            raise RuntimeError(f"the graph engine at {settings.NEO4J_URI} does not answer")
        stack.start("graph", [*manage, "graph_server"])
        graph_driver_reset()
        stack.wait_ready("graph", graph_ping, timeout=120)

    def _ensure_admin(self) -> str:
        password_file = settings.VAR_DIR / "admin_password"
        if not password_file.exists():
            password_file.write_text(secrets.token_urlsafe(12))
            password_file.chmod(0o600)
        password = password_file.read_text().strip()
        user, _ = get_user_model().objects.get_or_create(username="admin", defaults={"is_staff": True})
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        return password

    def _run_example(self, url: str, token: str) -> None:
        self.stdout.write("running the example Spark pipeline through the agent…")
        env = {**os.environ, "TRIBUTARY_URL": url, "TRIBUTARY_TOKEN": token}
        data_dir = settings.VAR_DIR / "example-data"
        result = subprocess.run([sys.executable, "-m", "examples.pipeline", "--data-dir", str(data_dir)],
                                env=env, cwd=settings.BASE_DIR, check=False)
        if result.returncode != 0:
            self.stderr.write(f"the example pipeline exited with {result.returncode}")


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False
