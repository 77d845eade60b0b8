"""Who may read `/metrics`: this machine by default, else the networks in `METRICS_ALLOWED_NETWORKS`, with
`METRICS_TOKEN` as a bearer token when one is set; never anyone by default."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.test import Client

from tests.conftest import ROOT

pytestmark = pytest.mark.django_db


def status(remote_addr: str, authorization: str | None = None) -> int:
    headers = {"Authorization": authorization} if authorization is not None else {}
    return Client().get("/metrics", REMOTE_ADDR=remote_addr, headers=headers).status_code


def test_by_default_only_this_machine_reads_the_metrics() -> None:
    assert [status(a) for a in ("127.0.0.1", "::1", "::ffff:127.0.0.1")] == [200, 200, 200]
    assert [status(a) for a in ("10.1.2.3", "192.168.0.7", "2001:db8::1", "not-an-address")] == [403] * 4


def test_a_token_is_required_from_an_allowed_network_when_one_is_set(settings) -> None:  # type: ignore[no-untyped-def]
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8"]
    settings.METRICS_TOKEN = "scrape-secret"
    assert status("10.1.2.3", "Bearer scrape-secret") == 200
    assert status("10.1.2.3", "bearer scrape-secret") == 200
    refused = Client().get("/metrics", REMOTE_ADDR="10.1.2.3")
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"].startswith("Bearer")
    assert [status("10.1.2.3", a) for a in ("Bearer wrong", "Basic c2NyYXBlLXNlY3JldA==", "scrape-secret")] == [401] * 3
    assert status("127.0.0.1", "Bearer scrape-secret") == 403, "loopback is no longer in the allowed networks"


def test_with_no_network_limit_the_token_alone_guards_the_metrics(settings) -> None:  # type: ignore[no-untyped-def]
    settings.METRICS_ALLOWED_NETWORKS = []
    settings.METRICS_TOKEN = "scrape-secret"
    assert status("203.0.113.9", "Bearer scrape-secret") == 200
    assert status("203.0.113.9") == 401


def test_metrics_answer_get_only() -> None:
    assert Client().post("/metrics").status_code == 405


def _settings_error(**env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "lineage_app.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    return done.stderr


def test_settings_refuse_metrics_open_to_everyone_and_a_network_that_is_not_one() -> None:
    assert "metrics would be public" in _settings_error(METRICS_ALLOWED_NETWORKS="", METRICS_TOKEN="")
    assert "does not appear to be an IPv4 or IPv6 network" in _settings_error(METRICS_ALLOWED_NETWORKS="10.0.0.0/33")
    assert "LOG_FORMAT must be text or json" in _settings_error(LOG_FORMAT="xml")


def test_settings_refuse_a_worker_metrics_port_without_a_directory_for_its_pool_to_count_in(tmp_path) -> None:  # type: ignore[no-untyped-def]
    needs = "WORKER_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR"
    assert needs in _settings_error(WORKER_METRICS_PORT="9808")
    assert needs in _settings_error(WORKER_METRICS_PORT="9808", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "missing"))
