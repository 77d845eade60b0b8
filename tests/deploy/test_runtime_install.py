"""The production image's contents, built without Docker: a clean venv with only the runtime requirements
and the agent's wheel, the server's code copied as the Dockerfile copies it, migrated against PostgreSQL,
serving the built UI under gunicorn."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from tests.conftest import ROOT, free_port
from tests.events import run_lifecycle
from tests.packaging import agent_wheel_build, run_ok


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(python of a venv holding only the runtime requirements and the agent wheel, the app directory)."""
    index = ROOT / "frontend/dist/index.html"
    assert index.exists(), "build the UI first: make frontend (make test does)"
    base = tmp_path_factory.mktemp("runtime")
    wheel = agent_wheel_build(base / "wheels")
    venv = base / "venv"
    run_ok(sys.executable, "-m", "venv", venv)
    python = venv / "bin/python"
    run_ok(python, "-m", "pip", "install", "--quiet", "-r", ROOT / "requirements/runtime.txt", wheel)
    app = base / "app"  # what the Dockerfile's runtime stage copies, and nothing else
    app.mkdir()
    shutil.copy(ROOT / "manage.py", app / "manage.py")
    shutil.copytree(ROOT / "lineage_app", app / "lineage_app", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "frontend/dist", app / "frontend/dist")
    return python, app


def test_the_runtime_has_no_spark_no_embedded_engine_and_no_test_tools(runtime: tuple[Path, Path]) -> None:
    python, _ = runtime
    probe = "import importlib.util as u; print(sorted(m for m in {} if u.find_spec(m)))".format(
        ("pyspark", "arcadedb_embedded", "openlineage", "pytest", "playwright", "hypothesis")
    )
    assert run_ok(python, "-c", probe).stdout.strip() == "[]"
    assert (
        run_ok(python, "-c", "import spark_agent.protocol, django, celery, neo4j, psycopg; print('ok')").stdout.strip()
        == "ok"
    )


def test_the_runtime_migrates_postgresql_and_serves_the_ui(  # type: ignore[no-untyped-def]
    runtime: tuple[Path, Path], postgres_database: str, graph_engine, broker, tmp_path: Path
) -> None:
    python, app = runtime
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "SECRET_KEY": "deploy-test-" + uuid.uuid4().hex,
        "DATABASE_URL": postgres_database,
        "REDIS_URL": broker.url,
        "NEO4J_URI": settings.NEO4J_URI,
        "NEO4J_USER": settings.NEO4J_USER,
        "NEO4J_PASSWORD": settings.NEO4J_PASSWORD,
        "NEO4J_DATABASE": settings.NEO4J_DATABASE,
        "TRIBUTARY_VAR_DIR": str(tmp_path / "var"),
        "WEB_CONCURRENCY": "2",
    }
    run_ok(python, "manage.py", "migrate", "--noinput", cwd=app, env=env)
    run_ok(python, "manage.py", "collectstatic", "--noinput", cwd=app, env=env)
    with psycopg.connect(postgres_database) as conn:
        tables = {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"ingest_lineageevent", "catalog_owner", "signatures_producerkey"} <= tables
    token = run_ok(python, "manage.py", "create_token", "--scope", "ingest", cwd=app, env=env).stdout.strip()

    gunicorn = python.parent / "gunicorn"
    server = subprocess.Popen(
        [gunicorn, "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}"],
        cwd=app,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        health = _get_when_up(f"{base}/healthz", server)
        assert health[0] == 200, health
        login = urllib.request.urlopen(f"{base}/", timeout=10)  # the UI redirects to its login page
        assert login.status == 200 and "/login" in login.url
        page = urllib.request.urlopen(f"{base}/login/", timeout=10).read().decode()
        assert "csrfmiddlewaretoken" in page
        index = (app / "frontend/dist/index.html").read_text()
        asset = re.search(r'src="(/static/[^"]+\.js)"', index)
        assert asset, "the built index.html names its script under /static/"
        script = urllib.request.urlopen(base + asset.group(1), timeout=10)
        assert script.status == 200 and len(script.read()) > 1000
        # Ingest reads the agent's own facet schemas from its wheel, not from a source tree beside the server.
        event = run_lifecycle()[-1]
        event["run"]["facets"]["tributary_counters"] = {
            "_producer": "https://example.com/tests",
            "_schemaURL": "https://example.com/TributaryCountersRunFacet.json",
            **{"recordsIn": 10, "recordsOut": 9, "bytesIn": 800, "bytesOut": 720, "errorCount": 0},
        }
        post = urllib.request.Request(
            f"{base}/api/v1/lineage",
            data=json.dumps(event).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(post, timeout=30) as answer:
            assert (answer.status, json.loads(answer.read())["warnings"]) == (201, [])
    finally:
        server.terminate()
        server.wait(timeout=30)


def _get_when_up(url: str, server: subprocess.Popen[str], timeout: float = 60) -> tuple[int, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(
                f"gunicorn exited {server.returncode}: {server.stderr.read()[-3000:] if server.stderr else ''}"
            )
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {timeout} s")
