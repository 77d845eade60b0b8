"""Shared fixtures: a real graph engine (embedded ArcadeDB, or the Neo4j at NEO4J_URI), tokens, events."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from lineage_app import celery_app
from lineage_app.accounts.services import token_create
from lineage_app.graph.driver import graph_driver_reset, graph_ping
from lineage_app.graph.schema import graph_schema_init
from lineage_app.graph.writer import graph_wipe

ROOT = Path(__file__).resolve().parent.parent
# py4j logs at INFO from its connections' finalisers while the interpreter shuts down, after pytest has
# closed the stream the log handler writes to: a "--- Logging error ---" trace at the end of every run.
logging.getLogger("py4j").setLevel(logging.WARNING)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def graph_env() -> dict[str, str]:
    """The graph engine the tests use, as the variables a server process the tests start reads."""
    return {
        "NEO4J_URI": settings.NEO4J_URI,
        "NEO4J_USER": settings.NEO4J_USER,
        "NEO4J_PASSWORD": settings.NEO4J_PASSWORD,
        "NEO4J_DATABASE": settings.NEO4J_DATABASE,
    }


def database_url() -> str:
    """The test database as the `DATABASE_URL` of a server process the tests start."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def wait_until(predicate, *, timeout: float, interval: float = 0.2, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class GraphEngineProcess(ABC):
    """A graph engine the test session runs as a child process (its output in `log`), which tests may
    stop and start again: the session's `uri` answers once `start` returns."""

    name = "the graph engine"
    start_timeout, stop_timeout = 90, 60

    def __init__(self, tmp: Path) -> None:
        self.bolt_port = free_port()
        self.log = tmp / "graph-engine.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.bolt_port}"

    @abstractmethod
    def command(self) -> tuple[list[str], dict[str, str] | None]:
        """The engine's argv and environment (None: this process's)."""

    def start(self) -> None:
        argv, env = self.command()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
        graph_driver_reset()
        wait_until(self._ready, timeout=self.start_timeout, interval=0.5, what=f"{self.name} (log: {self.log})")

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.process.returncode}; see {self.log}")
        return graph_ping()

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=self.stop_timeout)
            self.process = None
        graph_driver_reset()


class EmbeddedGraph(GraphEngineProcess):
    """The embedded ArcadeDB (`manage.py graph_server`)."""

    name = "the embedded graph engine"

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.env = {
            **os.environ,
            "NEO4J_URI": self.uri,
            "GRAPH_EMBEDDED_DIR": str(tmp / "graph"),
            "GRAPH_EMBEDDED_HTTP_PORT": str(free_port()),
            "TRIBUTARY_VAR_DIR": str(tmp),
        }

    def command(self) -> tuple[list[str], dict[str, str] | None]:
        return [sys.executable, str(ROOT / "manage.py"), "graph_server"], self.env


class Neo4jServer(GraphEngineProcess):
    """A real Neo4j 5 from `../shared/neo4j` (`serve.sh`), in a fresh folder on a free port for the session."""

    name = "Neo4j"
    start_timeout, stop_timeout = 180, 120
    PASSWORD = "tributary-test"

    def __init__(self, serve: Path, tmp: Path) -> None:
        super().__init__(tmp)
        self.serve = serve
        self.dir = tmp / "neo4j"

    def command(self) -> tuple[list[str], dict[str, str] | None]:
        return ["bash", str(self.serve), str(self.dir), str(self.bolt_port), self.PASSWORD], None


def neo4j_serve_script() -> Path:
    """`serve.sh` of the Neo4j that `make test-neo4j` runs (`NEO4J_SERVE`, else `../shared/neo4j`)."""
    return Path(os.environ.get("NEO4J_SERVE") or ROOT.parent / "shared" / "neo4j" / "serve.sh")


class PrivateRedis:
    """A redis-server owned by the test session, so tests can stop the broker and start it again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        wait_until(self.answers, timeout=20, what="redis-server")

    def answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)
            self.process = None


@pytest.fixture(scope="session", autouse=True)
def broker() -> Iterator[PrivateRedis]:
    """Every test publishes to a private Redis, never to a developer's running stack."""
    server = PrivateRedis()
    server.start()
    settings.REDIS_URL = settings.CELERY_BROKER_URL = server.url
    celery_app.conf.broker_url = server.url
    yield server
    server.stop()


@pytest.fixture(scope="session")
def graph_engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GraphEngineProcess | None]:
    """The graph engine for the session: the one at NEO4J_URI if set (tests WIPE it); else a Neo4j of
    our own under `--graph-engine neo4j` (`make test-neo4j`); else the embedded one."""
    if os.environ.get("NEO4J_URI"):
        graph_driver_reset()
        graph_schema_init()
        yield None
        return
    engine: GraphEngineProcess
    if request.config.getoption("--graph-engine") == "neo4j":
        engine = Neo4jServer(neo4j_serve_script(), tmp_path_factory.mktemp("engine"))
        settings.NEO4J_USER, settings.NEO4J_PASSWORD = "neo4j", Neo4jServer.PASSWORD
    else:
        engine = EmbeddedGraph(tmp_path_factory.mktemp("engine"))
    settings.NEO4J_URI = engine.uri
    engine.start()
    graph_schema_init()
    yield engine
    engine.stop()


@pytest.fixture
def graph(graph_engine: GraphEngineProcess | None) -> Iterator[GraphEngineProcess | None]:
    """An empty graph for one test."""
    if not graph_ping():
        assert graph_engine is not None, "the graph engine at NEO4J_URI does not answer"
        graph_engine.start()
        graph_schema_init()
    graph_wipe()
    yield graph_engine


@pytest.fixture
def ingest_token(db):  # type: ignore[no-untyped-def]
    return token_create(name="test ingest", scope="ingest")[1]


@pytest.fixture
def read_token(db):  # type: ignore[no-untyped-def]
    return token_create(name="test read", scope="read")[1]


@pytest.fixture
def ingest_client(ingest_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ingest_token}")
    return client


@pytest.fixture
def read_client(read_token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {read_token}")
    return client


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--graph-engine",
        choices=("embedded", "neo4j"),
        default="embedded",
        help="the graph engine the session starts (unless NEO4J_URI names one): embedded ArcadeDB, or Neo4j 5 "
        "from serve.sh (NEO4J_SERVE, else ../shared/neo4j/serve.sh)",
    )
    parser.addoption(
        "--graph-only",
        action="store_true",
        help="run only the tests that touch the graph engine (make test-neo4j: the same tests on another engine)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--graph-only"):
        return
    touching = [item for item in items if "graph_engine" in getattr(item, "fixturenames", ())]
    config.hook.pytest_deselected(items=[item for item in items if item not in touching])
    items[:] = touching
