"""HTTPS behind one switch, `TRIBUTARY_TLS`: Django's deployment checks pass in the configuration compose runs,
and a web process behind a TLS proxy redirects plain http, sends HSTS and secure cookies, but answers its probes."""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings

from tests.conftest import ROOT, database_url, free_port, graph_env, wait_until

pytestmark = pytest.mark.django_db


def _compose_web_environment() -> dict[str, str]:
    """The web service's environment as compose resolves it, with only the required SECRET_KEY supplied."""
    compose = shutil.which("docker-compose")
    assert compose, "scripts/test_services.sh installs Debian's docker-compose (it needs no engine for `config`)"
    resolved = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "SECRET_KEY": "placeholder"},
        cwd=ROOT,
        check=True,
    )
    return {k: str(v) for k, v in yaml.safe_load(resolved.stdout)["services"]["web"]["environment"].items()}


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _production_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """What compose gives the web process (DEBUG unset, so off), with a real secret key and a private var dir."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **_compose_web_environment(),
        "SECRET_KEY": secrets.token_urlsafe(50),
        "TRIBUTARY_VAR_DIR": str(tmp_path / "var"),
        **overrides,
    }


def test_compose_runs_the_web_process_behind_a_tls_proxy() -> None:
    environment = _compose_web_environment()
    assert environment["TRIBUTARY_TLS"] == "proxy"
    assert "DEBUG" not in environment


def test_django_deployment_checks_find_nothing_in_the_configuration_compose_runs(tmp_path: Path) -> None:
    done = _check_deploy(_production_env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout, done.stdout + done.stderr


def test_django_deployment_checks_find_nothing_when_the_web_server_speaks_tls_itself(tmp_path: Path) -> None:
    done = _check_deploy(_production_env(tmp_path, TRIBUTARY_TLS="direct"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_without_the_switch_the_deployment_checks_name_what_it_turns_on(tmp_path: Path) -> None:
    done = _check_deploy(_production_env(tmp_path, TRIBUTARY_TLS="off"))
    assert done.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in done.stderr, done.stderr


def test_an_unknown_tls_mode_is_refused_at_start(tmp_path: Path) -> None:
    done = _check_deploy(_production_env(tmp_path, TRIBUTARY_TLS="yes"))
    assert done.returncode != 0
    assert "TRIBUTARY_TLS must be off, proxy or direct" in done.stderr


@contextmanager
def _serving(tmp_path: Path, mode: str) -> Iterator[int]:
    """gunicorn as compose runs it, in one TLS mode, on the test database, Redis and graph engine."""
    port = free_port()
    env = _production_env(
        tmp_path,
        TRIBUTARY_TLS=mode,
        ALLOWED_HOSTS="tributary.example",
        DATABASE_URL=database_url(),
        REDIS_URL=settings.CELERY_BROKER_URL,
        **graph_env(),
        WEB_CONCURRENCY="1",
    )
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    with (tmp_path / "gunicorn.log").open("wb") as log:
        process = subprocess.Popen(
            [gunicorn, "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        wait_until(lambda: _get(port, "/login/")[0] > 0, timeout=60, what="gunicorn")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(params=["proxy", "direct"])
def web(request: pytest.FixtureRequest, tmp_path: Path, graph: Any) -> Iterator[int]:
    with _serving(tmp_path, request.param) as port:
        yield port


@pytest.fixture
def proxied_web(tmp_path: Path, graph: Any) -> Iterator[int]:
    with _serving(tmp_path, "proxy") as port:
        yield port


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage]:
    """One plain-http GET, redirects not followed (0: nothing answers yet)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": "tributary.example", **(headers or {})})
        answer = connection.getresponse()
        answer.read()
        return answer.status, answer.headers
    except OSError:
        return 0, http.client.HTTPMessage()
    finally:
        connection.close()


def test_plain_http_is_sent_to_https_but_probes_and_metrics_are_answered(web: int) -> None:
    port = web
    status, headers = _get(port, "/login/")
    assert (status, headers["Location"]) == (301, "https://tributary.example/login/")
    assert _get(port, "/api/v1/lineage")[0] == 301
    # Compose's health check and Prometheus speak plain http to the web process itself.
    assert _get(port, "/healthz")[0] == 200
    assert _get(port, "/metrics")[0] == 200


def test_behind_the_proxy_https_pages_carry_hsts_and_secure_cookies(proxied_web: int) -> None:
    status, headers = _get(proxied_web, "/login/", {"X-Forwarded-Proto": "https"})
    assert status == 200
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    cookie = next(c for c in headers.get_all("Set-Cookie") or [] if c.startswith("csrftoken="))
    assert "; Secure" in cookie
    assert "script-src 'self'" in headers["Content-Security-Policy"]
