"""The production image's contents, built without Docker as its runtime stage builds them: a clean venv with only
requirements/runtime.txt and the two wheels `make dist` writes (the server's, with the UI inside it, and the
agent's), run from a directory outside the checkout; `tributary-server` migrates a fresh PostgreSQL and gunicorn
serves the UI and the API."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT, free_port, graph_env, wait_until
from tests.events import run_lifecycle
from tests.packaging import run_ok
from tests.processes import processes_stop


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(python of a venv holding the runtime requirements and the two wheels only, a working directory outside
    the checkout, so that nothing can be imported from the source tree)."""
    assert (ROOT / "frontend/dist/index.html").exists(), "build the UI first: make frontend (make test does)"
    base = tmp_path_factory.mktemp("runtime")
    assert not base.resolve().is_relative_to(ROOT.resolve())
    # `make dist`, into a directory of the test's own (its prerequisites, the venv and the UI, are taken as built).
    dist = base / "dist"
    make = ["make", "-o", ".venv/.installed", "-o", "frontend/dist/index.html", "dist", f"DIST={dist}"]
    run_ok(*make, f"PY={sys.executable}", cwd=ROOT)
    wheels = [*dist.glob("tributary_server-*-py3-none-any.whl"), *dist.glob("tributary_spark_agent-*-py3-none-any.whl")]
    assert sorted(p.name for p in dist.iterdir()) == sorted(["tributary-ui.tar.gz", *(w.name for w in wheels)])
    assert len(wheels) == 2
    with tarfile.open(dist / "tributary-ui.tar.gz") as bundle:
        assert "dist/index.html" in bundle.getnames()
    venv = base / "venv"
    run_ok(sys.executable, "-m", "venv", venv)
    python = venv / "bin/python"
    # As the Dockerfile's runtime stage: the runtime requirements, then the two wheels with no index, so
    # that a dependency of the server's wheel not in requirements/runtime.txt fails here.
    run_ok(python, "-m", "pip", "install", "--quiet", "-r", ROOT / "requirements/runtime.txt", cwd=base)
    run_ok(python, "-m", "pip", "install", "--quiet", "--no-index", *wheels, cwd=base)
    work = base / "work"
    work.mkdir()
    return python, work


def test_the_runtime_is_the_installed_wheels_with_no_spark_no_embedded_engine_and_no_test_tools(
    runtime: tuple[Path, Path],
) -> None:
    python, work = runtime
    probe = "import importlib.util as u; print(sorted(m for m in {} if u.find_spec(m)))".format(
        ("pyspark", "arcadedb_embedded", "openlineage", "pytest", "playwright", "hypothesis", "hatchling")
    )
    assert run_ok(python, "-c", probe, cwd=work, env={"PATH": os.environ["PATH"]}).stdout.strip() == "[]"
    where = "import lineage_app, lineage_protocol, django, celery, neo4j, psycopg; print(lineage_app.__file__)"
    installed = Path(run_ok(python, "-c", where, cwd=work, env={"PATH": os.environ["PATH"]}).stdout.strip())
    assert installed.is_relative_to(python.parent.parent / "lib"), installed
    run_ok(python, "-m", "pip", "check", cwd=work)
    # With no TRIBUTARY_VAR_DIR the installed server keeps its files in the user's data directory,
    # never inside site-packages.
    home = work.parent / "home"
    var_dir = "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'lineage_app.settings'; " + (
        "from django.conf import settings; print(settings.VAR_DIR, settings.STATIC_ROOT, sep='|')"
    )
    plain = {"PATH": os.environ["PATH"], "HOME": str(home), "SECRET_KEY": "x"}
    assert run_ok(python, "-c", var_dir, cwd=work, env=plain).stdout.strip() == (
        f"{home}/.local/share/tributary|{home}/.local/share/tributary/staticfiles"
    )
    xdg = {**plain, "XDG_DATA_HOME": str(home / "data")}
    assert run_ok(python, "-c", var_dir, cwd=work, env=xdg).stdout.strip().split("|")[0] == f"{home}/data/tributary"


def test_the_runtime_migrates_postgresql_and_serves_the_ui_and_the_api(  # type: ignore[no-untyped-def]
    runtime: tuple[Path, Path], postgres_database: str, graph_engine, broker, tmp_path: Path
) -> None:
    python, work = runtime
    port = free_port()
    var = tmp_path / "var"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "SECRET_KEY": "deploy-test-" + uuid.uuid4().hex,
        "DATABASE_URL": postgres_database,
        "REDIS_URL": broker.url,
        **graph_env(),
        "TRIBUTARY_VAR_DIR": str(var),
        "WEB_CONCURRENCY": "2",
    }
    server = python.parent / "tributary-server"  # the installed product's manage.py
    run_ok(server, "migrate", "--noinput", cwd=work, env=env)
    run_ok(server, "collectstatic", "--noinput", cwd=work, env=env)
    with psycopg.connect(postgres_database) as conn:
        tables = {row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {"ingest_lineageevent", "catalog_owner", "signatures_producerkey"} <= tables
    ingest_token = run_ok(server, "create_token", "--scope", "ingest", cwd=work, env=env).stdout.strip()
    read_token = run_ok(server, "create_token", "--scope", "read", cwd=work, env=env).stdout.strip()
    password = uuid.uuid4().hex
    run_ok(
        server,
        *("createsuperuser", "--noinput", "--username", "operator", "--email", "operator@example.com"),
        cwd=work,
        env={**env, "DJANGO_SUPERUSER_PASSWORD": password},
    )
    # The UI comes from the package (lineage_app/ui) and is collected under the var directory.
    index = next(python.parent.parent.glob("lib/python*/site-packages/lineage_app/ui/index.html")).read_text()
    asset = re.search(r'src="/static/([^"]+\.js)"', index)
    assert asset, "the built index.html names its script under /static/"
    assert (var / "staticfiles" / asset.group(1)).is_file()
    assert not list(work.iterdir()), "nothing is written into the working directory"

    gunicorn = subprocess.Popen(
        [python.parent / "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}"],
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    worker_log = tmp_path / "worker.log"
    with worker_log.open("wb") as log:
        worker = subprocess.Popen(
            [python.parent / "celery", "-A", "lineage_app", "worker", "--concurrency", "1", "-l", "WARNING"],
            cwd=work,
            env=env,
            stdout=log,
            stderr=log,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        health = _get_when_up(f"{base}/healthz", gunicorn)
        assert health[0] == 200, health
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        login = browser.open(f"{base}/", timeout=10)  # the UI redirects to its login page
        assert login.status == 200 and "/login" in login.url
        form = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.read().decode())
        assert form, "the login page carries its CSRF token"
        fields = {"csrfmiddlewaretoken": form.group(1), "username": "operator", "password": password, "next": "/"}
        shell = browser.open(f"{base}/login/", data=urllib.parse.urlencode(fields).encode(), timeout=10)
        assert shell.status == 200 and shell.url == f"{base}/"
        assert shell.read().decode() == index == (ROOT / "frontend/dist/index.html").read_text()
        script = urllib.request.urlopen(f"{base}/static/{asset.group(1)}", timeout=10)
        assert script.status == 200 and len(script.read()) > 1000
        me = urllib.request.Request(f"{base}/api/v1/me", headers={"Authorization": f"Bearer {read_token}"})
        with urllib.request.urlopen(me, timeout=10) as answer:
            assert answer.status == 200 and json.loads(answer.read())
        # Ingest validates against the OpenLineage schemas in the server's wheel and the agent's own facet
        # schemas in the agent's wheel, not against a source tree beside the server.
        event = run_lifecycle()[-1]
        event["run"]["facets"]["tributary_counters"] = {
            "_producer": "https://example.com/tests",
            "_schemaURL": "https://example.com/TributaryCountersRunFacet.json",
            **{"recordsIn": 10, "recordsOut": 9, "bytesIn": 800, "bytesOut": 720, "errorCount": 0},
        }
        post = urllib.request.Request(
            f"{base}/api/v1/lineage",
            data=json.dumps(event).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {ingest_token}"},
        )
        with urllib.request.urlopen(post, timeout=30) as answer:
            assert (answer.status, json.loads(answer.read())["warnings"]) == (201, [])
        # The installed worker applies it to the graph, and the read API finds the run there.
        run_id = event["run"]["runId"]
        with psycopg.connect(postgres_database, autocommit=True) as conn:
            status = "SELECT status FROM ingest_lineageevent WHERE run_id = %s"
            wait_until(
                lambda: [r[0] for r in conn.execute(status, (run_id,))] == ["applied"] or worker.poll() is not None,
                timeout=90,
                what="the worker to apply the event",
            )
        assert worker.poll() is None, worker_log.read_text()[-3000:]
        run = urllib.request.Request(
            f"{base}/api/v1/jobs/runs/{run_id}", headers={"Authorization": f"Bearer {read_token}"}
        )
        with urllib.request.urlopen(run, timeout=30) as answer:
            assert answer.status == 200 and json.loads(answer.read())["runId"] == run_id
    finally:
        processes_stop((gunicorn, worker))


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
