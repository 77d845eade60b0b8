"""`manage.py run_stack`: the whole product on this machine, with embedded defaults, until Ctrl-C.

The terminal gets a few lines: what is starting, the banner (URLs, login, token), one line per
example job and a summary. Each component's output goes to its own file under `var/log/`
(`--verbose` streams it to the terminal instead).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import sys
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from lineage_app.accounts.services import token_create
from lineage_app.graph.driver import graph_driver_reset, graph_ping
from lineage_app.graph.schema import graph_schema_init
from lineage_app.notify.services import ExampleDestinations, example_destinations_get_or_create
from lineage_app.ownership.services import CsvImportInvalid
from lineage_app.stack.example import (
    ExampleReport,
    example_owners_import,
    example_routes_create,
    example_signing_key,
)
from lineage_app.stack.ports import PortNeed, bolt_answers, free_port_after, port_free
from lineage_app.stack.supervisor import Child, StopRequested, Supervisor, display_path, log_tail

LOOPBACK = {"127.0.0.1", "localhost"}
GRAPH_TIMEOUT_S = 120
EXAMPLE_JOB = "job:spark:daily_revenue"


class StackError(Exception):
    """Why the stack cannot start, in one line for the terminal."""


def _redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def _explicit(name: str) -> bool:
    return bool(os.environ.get(name) or os.environ.get(f"{name}_FILE"))


@contextlib.contextmanager
def _driver_quiet() -> Iterator[None]:
    """Hold back the `neo4j` driver's retry warnings ("Transaction failed and will be retried…")."""
    driver_log = logging.getLogger("neo4j")
    level = driver_log.level
    driver_log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        driver_log.setLevel(level)


def _graph_answers(host: str, port: int) -> bool:
    """A Bolt handshake first (silent, instant), then a real query with the driver's warnings held back."""
    if not bolt_answers(host, port):
        return False
    with _driver_quiet():
        return graph_ping()


@dataclass
class Plan:
    """What this start will run, decided before anything starts."""

    port: int
    start_redis: bool = False
    redis_port: int = 6379
    start_graph: bool = False
    neo4j_uri: str = ""
    graph_http_port: int = 0
    notes: list[str] = field(default_factory=list)  # one line each, e.g. a port chosen instead of a taken one


def plan_stack(*, port: int) -> Plan:
    """Check every port the stack would listen on; `StackError` names a taken one and how to move it.

    The embedded graph engine's ports move by themselves to free ones when the user did not set them.
    """
    plan = Plan(port=port, neo4j_uri=settings.NEO4J_URI)
    taken: list[str] = []
    if not _redis_answers():
        parsed = urlparse(settings.REDIS_URL)
        if parsed.hostname not in LOOPBACK:
            raise StackError(f"Redis at {settings.REDIS_URL} does not answer: start it, or unset REDIS_URL")
        plan.start_redis, plan.redis_port = True, parsed.port or 6379
        if not port_free(plan.redis_port):
            db = parsed.path or "/0"
            need = PortNeed(plan.redis_port, "Redis", "set REDIS_URL=redis://127.0.0.1:{port}" + db)
            taken.append(need.taken_message(free_port_after(plan.redis_port)))
    bolt = urlparse(settings.NEO4J_URI)
    bolt_port = bolt.port or 7687
    if not _graph_answers(bolt.hostname or "127.0.0.1", bolt_port):
        if bolt.hostname not in LOOPBACK:
            raise StackError(f"the graph engine at {settings.NEO4J_URI} does not answer: start it, or unset NEO4J_URI")
        plan.start_graph = True
        plan.graph_http_port = settings.GRAPH_EMBEDDED_HTTP_PORT
        if not port_free(bolt_port):
            if _explicit("NEO4J_URI"):
                need = PortNeed(bolt_port, "embedded graph engine, Bolt", "set NEO4J_URI=bolt://127.0.0.1:{port}")
                taken.append(need.taken_message(free_port_after(bolt_port)))
            else:
                previous, bolt_port = bolt_port, free_port_after(bolt_port, avoid={port, plan.graph_http_port})
                plan.notes.append(
                    f"port {previous} is in use by another program: the embedded graph engine "
                    f"listens on bolt://127.0.0.1:{bolt_port} instead (set NEO4J_URI to choose)"
                )
        plan.neo4j_uri = f"bolt://127.0.0.1:{bolt_port}"
        if not port_free(plan.graph_http_port):
            if _explicit("GRAPH_EMBEDDED_HTTP_PORT"):
                need = PortNeed(
                    plan.graph_http_port, "embedded graph engine, HTTP", "set GRAPH_EMBEDDED_HTTP_PORT={port}"
                )
                taken.append(need.taken_message(free_port_after(plan.graph_http_port)))
            else:
                previous = plan.graph_http_port
                plan.graph_http_port = free_port_after(previous, avoid={port, bolt_port})
                plan.notes.append(
                    f"port {previous} is in use by another program: the embedded graph engine's HTTP "
                    f"listener takes {plan.graph_http_port} instead (set GRAPH_EMBEDDED_HTTP_PORT "
                    f"to choose)"
                )
    if not port_free(port):
        need = PortNeed(port, "web server", "set PORT={port} (make run PORT={port})")
        taken.append(need.taken_message(free_port_after(port)))
    if taken:
        raise StackError("\n".join(taken))
    return plan


class Command(BaseCommand):
    help = (
        "Start Redis (if needed), the embedded graph engine, web, worker and beat; feed the example "
        "pipeline. Output of each goes to var/log/<name>.log unless --verbose."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--no-example", action="store_true", help="Do not run the example Spark pipeline.")
        parser.add_argument(
            "--verbose",
            action="store_true",
            help="Stream every component's output to the terminal instead of var/log/.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbose = bool(options["verbose"])
        self.log_dir = Path(settings.VAR_DIR) / "log"
        try:
            plan = plan_stack(port=options["port"])
        except StackError as exc:
            self.stderr.write(str(exc))
            raise SystemExit(1) from None
        stack = Supervisor()
        stopping = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stopping.set())
        failed = False
        try:
            for note in plan.notes:
                self.stdout.write(note)
            example = self._start(stack, plan, example=not options["no_example"], stopping=stopping)
            failed = self._watch(stack, example, stopping)
        except StopRequested:
            pass
        except (StackError, RuntimeError) as exc:
            failed = True
            self.stderr.write(f"error: {exc}")
            self._show_tail(stack.died())
        finally:
            self.stdout.write("stopping…")
            stack.stop_all()
            self.stdout.write("stopped.")
        if failed:
            raise SystemExit(1)

    # ----- starting ------------------------------------------------------------------------------

    def _log(self, name: str) -> Path | None:
        return None if self.verbose else self.log_dir / f"{name}.log"

    def _start(self, stack: Supervisor, plan: Plan, *, example: bool, stopping: threading.Event) -> Child | None:
        manage = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        call_command("migrate", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        if plan.start_redis:
            self.stdout.write("starting Redis…")
            stack.start(
                "redis",
                [
                    "redis-server",
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(plan.redis_port),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                log_path=self._log("redis"),
            )
            stack.wait_ready("redis", _redis_answers, timeout=20, what="Redis")
        # Every child gets the graph engine's address: its ports may have moved (see `plan_stack`).
        child_env = {"NEO4J_URI": plan.neo4j_uri}
        settings.NEO4J_URI = plan.neo4j_uri
        graph_driver_reset()
        if plan.start_graph:
            self.stdout.write(f"starting the graph engine… (up to {GRAPH_TIMEOUT_S} s)")
            stack.start(
                "graph",
                [*manage, "graph_server"],
                log_path=self._log("graph"),
                env={**child_env, "GRAPH_EMBEDDED_HTTP_PORT": str(plan.graph_http_port)},
            )
            bolt = urlparse(plan.neo4j_uri)
            stack.wait_ready(
                "graph",
                lambda: _graph_answers(bolt.hostname or "127.0.0.1", bolt.port or 7687),
                timeout=GRAPH_TIMEOUT_S,
                what="the graph engine",
                stopping=stopping,
            )
        else:
            self.stdout.write(f"using the graph engine already answering at {plan.neo4j_uri}")
        with _driver_quiet():
            graph_schema_init()
        if not _explicit("EMAIL_BACKEND"):
            # No mail server here: messages to email destinations are written as files under var/mail/.
            child_env |= {"EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend"}
        if not _explicit("ALERTS_UI_URL"):
            child_env |= {"ALERTS_UI_URL": f"http://127.0.0.1:{plan.port}"}  # where alerts link to
        self.notifications = self._start_receiver(stack, plan, child_env)
        self.stdout.write("starting web, worker and beat…")
        celery = [sys.executable, "-m", "celery", "-A", "lineage_app"]
        stack.start(
            "worker",
            [*celery, "worker", "--loglevel", "INFO", "--concurrency", "2"],
            env=child_env,
            log_path=self._log("worker"),
        )
        stack.start(
            "beat",
            [*celery, "beat", "--loglevel", "INFO", "--schedule", str(Path(settings.VAR_DIR) / "celerybeat-schedule")],
            env=child_env,
            log_path=self._log("beat"),
        )
        stack.start(
            "web",
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                "python:lineage_app.gunicorn_conf",
                "--bind",
                f"127.0.0.1:{plan.port}",
                "--access-logfile",
                "-",
            ],
            env=child_env,
            log_path=self._log("web"),
        )
        url = f"http://127.0.0.1:{plan.port}"
        stack.wait_ready(
            "web", lambda: _http_ok(f"{url}/healthz"), timeout=60, what="the web server", stopping=stopping
        )
        password = self._ensure_admin()
        _, token = token_create(name="make run", scope="ingest")
        logs = f"{display_path(self.log_dir)}/" if not self.verbose else "this terminal (--verbose)"
        self.stdout.write(self.style.SUCCESS("\nTributary is running"))
        self.stdout.write(
            f"  UI            {url}/\n"
            f"  admin login   user admin, password {password}\n"
            f"  ingest token  {token}\n"
            f"  API docs      {url}/api/v1/docs\n"
            f"  notifications {display_path(self.notifications_dir)}/ (signed webhooks: webhook.jsonl; email: mail/)\n"
            f"  logs          {logs}\n"
            f"  Ctrl-C stops everything.\n\n"
        )
        if not example:
            return None
        return self._start_example(stack, url, token, child_env)

    def _start_receiver(self, stack: Supervisor, plan: Plan, child_env: dict[str, str]) -> ExampleDestinations:
        """The example's destinations: a local receiver of signed webhooks, and a mailbox written to files."""
        self.notifications_dir = Path(settings.VAR_DIR) / "notifications"
        secret_file = Path(settings.VAR_DIR) / "notify_receiver_secret"
        if not secret_file.exists():
            secret_file.write_text(secrets.token_urlsafe(32))
            secret_file.chmod(0o600)
        port = free_port_after(8100, avoid={plan.port, plan.redis_port, plan.graph_http_port})
        stack.start(
            "notify-receiver",
            [
                sys.executable,
                str(Path(settings.BASE_DIR) / "manage.py"),
                "notify_receiver",
                "--port",
                str(port),
                "--secret-file",
                str(secret_file),
                "--out",
                str(self.notifications_dir / "webhook.jsonl"),
            ],
            log_path=self._log("notify-receiver"),
        )
        return example_destinations_get_or_create(
            webhook_url=f"http://127.0.0.1:{port}/", webhook_secret=secret_file.read_text().strip()
        )

    def _start_example(self, stack: Supervisor, url: str, token: str, child_env: dict[str, str]) -> Child:
        data_dir = (Path(settings.VAR_DIR) / "example-data").resolve()
        try:
            private_key, key = example_signing_key(keys_dir=Path(settings.VAR_DIR) / "keys")
        except ValidationError as exc:
            raise StackError(f"cannot register the example's signing key: {' '.join(exc.messages)}") from None
        try:
            example_owners_import(lake=data_dir / "lake")
        except CsvImportInvalid as exc:
            raise StackError(f"examples/owners.csv: {'; '.join(str(p) for p in exc.problems)}") from None
        # Its owners' alerts (validate_orders' failure: team:finance-analytics, team:data-quality) reach the
        # local receiver and the mailbox under var/.
        example_routes_create(destinations=[self.notifications.webhook, self.notifications.mailbox])
        self.stdout.write(
            f"Example pipeline (events signed with {key.key_id}; owners from its facets and examples/owners.csv):"
        )
        self.report = ExampleReport(write=self.stdout.write)
        env = {**child_env, "TRIBUTARY_URL": url, "TRIBUTARY_TOKEN": token, "TRIBUTARY_SIGNING_KEY": str(private_key)}
        self.lineage_url = f"{url}/lineage?nodeId={EXAMPLE_JOB}"
        return stack.start(
            "example",
            [sys.executable, "-m", "examples.pipeline", "--data-dir", str(data_dir)],
            env=env,
            cwd=Path(settings.BASE_DIR),
            log_path=self._log("example"),
            on_line=self.report.line,
            oneshot=True,
        )

    # ----- running -------------------------------------------------------------------------------

    def _watch(self, stack: Supervisor, example: Child | None, stopping: threading.Event) -> bool:
        """Until Ctrl-C or a death: report the example when it ends. Returns whether a child died."""
        while not stopping.wait(1):
            if example is not None and example.process.poll() is not None:
                if example.pump is not None:
                    example.pump.join(timeout=10)
                log = display_path(example.log_path) if example.log_path else "the output above"
                self.stdout.write(
                    self.report.summary(returncode=example.process.returncode, lineage_url=self.lineage_url, log=log)
                )
                example = None
            if died := stack.died():
                self.stderr.write(
                    f"{died.name} exited (status {died.process.returncode}); stopping everything{stack.log_hint(died)}"
                )
                self._show_tail(died)
                return True
        return False

    def _show_tail(self, child: Child | None) -> None:
        tail = log_tail(child.log_path if child else None, lines=10)
        if tail and child is not None and child.log_path is not None:
            self.stderr.write(f"last lines of {display_path(child.log_path)}:")
            for line in tail:
                self.stderr.write(f"  {line}")

    def _ensure_admin(self) -> str:
        password_file = Path(settings.VAR_DIR) / "admin_password"
        if not password_file.exists():
            password_file.write_text(secrets.token_urlsafe(12))
            password_file.chmod(0o600)
        password = password_file.read_text().strip()
        user, _ = get_user_model().objects.get_or_create(username="admin", defaults={"is_staff": True})
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        return password


def _http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False
