"""`manage.py run_stack` end to end: a few readable lines in the terminal, everything else in var/log/,
signed example runs that verify, owners from facets and the CSV, and Ctrl-C stops it all."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lineage_app.stack.ports import port_free
from tests.browser.example_pipeline import CLEAN_ORDERS_ADDED_INPUT, CLEAN_ORDERS_DROPPED_INPUT
from tests.conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]
LOGS = ("web", "worker", "beat", "graph", "redis", "example", "notify-receiver")


def _free() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stack_env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TRIBUTARY_", "NEO4J_", "GRAPH_EMBEDDED_", "REDIS_URL", "PORT"))
    }
    return {**env, "TRIBUTARY_VAR_DIR": str(var_dir), **extra}


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "run_stack", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def test_a_taken_port_stops_the_start_with_one_line_and_nothing_started(tmp_path: Path) -> None:
    with socket.socket() as other_program:
        other_program.bind(("127.0.0.1", 0))
        other_program.listen()
        bolt = other_program.getsockname()[1]
        env = _stack_env(tmp_path, NEO4J_URI=f"bolt://127.0.0.1:{bolt}", GRAPH_EMBEDDED_HTTP_PORT=str(_free()))
        process = _start(env, "--port", str(_free()), "--no-example")
        output, _ = process.communicate(timeout=120)
    assert process.returncode == 1
    assert output.splitlines() == [
        f"port {bolt} (embedded graph engine, Bolt) is in use by another program: "
        f"set NEO4J_URI=bolt://127.0.0.1:{output.split('127.0.0.1:')[1].split(' ')[0]} or stop that program"
    ]
    assert not (tmp_path / "log").exists()


@pytest.mark.spark
def test_make_run_shows_a_banner_one_line_per_example_job_and_keeps_the_rest_in_log_files(tmp_path: Path) -> None:
    web, bolt, http, redis_port = _free(), _free(), _free(), _free()
    env = _stack_env(
        tmp_path,
        NEO4J_URI=f"bolt://127.0.0.1:{bolt}",
        GRAPH_EMBEDDED_HTTP_PORT=str(http),
        REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
    )
    process = _start(env, "--port", str(web))
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 300
        while not (seen and seen[-1].startswith("Example pipeline: ")):
            line = lines.get(timeout=max(1.0, deadline - time.monotonic()))
            assert line is not None, "run_stack ended early:\n" + "\n".join(seen)
            seen.append(line)
        url = f"http://127.0.0.1:{web}"
        assert seen[:4] == [
            "starting Redis…",
            "starting the graph engine… (up to 120 s)",
            "starting web, worker and beat…",
            "",
        ]
        assert seen[4] == "Tributary is running"
        assert seen[5] == f"  UI            {url}/"
        assert seen[6].startswith("  admin login   user admin, password ")
        assert seen[6].split()[-1] == (tmp_path / "admin_password").read_text().strip()
        assert seen[7].startswith("  ingest token  trb_")
        assert seen[8:13] == [
            f"  API docs      {url}/api/v1/docs",
            f"  notifications {tmp_path / 'notifications'}/ (signed webhooks: webhook.jsonl; email: mail/)",
            f"  logs          {tmp_path / 'log'}/",
            "  Ctrl-C stops everything.",
            "",
        ]
        assert seen[13].startswith("Example pipeline (events signed with ed25519:")
        assert seen[14:] == [
            "  ✓ ingest_orders",
            "  ✓ ingest_customers",
            "  ✓ clean_orders",
            "  ✓ daily_revenue",
            "  ✓ clean_orders",
            "  ✓ daily_revenue",
            "  ✗ validate_orders — failed as designed: java.lang.RuntimeException: negative amount in order 250",
            f"Example pipeline: 7 runs sent, lineage at {url}/lineage?nodeId=job:spark:daily_revenue",
        ]
        for name in LOGS:
            assert (tmp_path / "log" / f"{name}.log").stat().st_size > 0, name
        assert "GET /healthz" in (tmp_path / "log" / "web.log").read_text()
        assert "ArcadeDB" in (tmp_path / "log" / "graph.log").read_text()
        assert "[pipeline] validate_orders" in (tmp_path / "log" / "example.log").read_text()

        database = sqlite3.connect(tmp_path / "tributary.sqlite3")
        deadline = time.monotonic() + 90
        while True:
            # The example's 28 lineage events, and the heartbeats its 7 applications' signed streams end with
            # (docs/ledger.md), verified and applied alike.
            states = database.execute(
                "SELECT verification, status, kind = 'heartbeat', count(*) FROM ingest_lineageevent GROUP BY 1, 2, 3"
            ).fetchall()
            if (
                len(states) == 2
                and states[0] == ("VERIFIED", "applied", 0, 28)
                and states[1][:3] == ("VERIFIED", "applied", 1)
            ) or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert states[0] == ("VERIFIED", "applied", 0, 28), states
        assert len(states) == 2 and states[1][:3] == ("VERIFIED", "applied", 1) and states[1][3] >= 7, states
        owners = database.execute(
            "SELECT o.name, a.source FROM catalog_ownershipassignment a JOIN catalog_owner o ON o.id = a.owner_id "
            "WHERE a.target_type = 'dataset' AND a.name LIKE '%/lake/bronze/customers' ORDER BY a.source"
        ).fetchall()
        assert owners == [("team:data-platform", "event"), ("team:customer-data", "manual")]
        reference = database.execute(
            "SELECT a.name, o.name, a.source FROM catalog_ownershipassignment a JOIN catalog_owner o "
            "ON o.id = a.owner_id WHERE a.target_type = 'dataset' AND a.name LIKE '%/lake/reference/%' ORDER BY a.name"
        ).fetchall()
        assert [(name.split("/lake/", 1)[1], owner, source) for name, owner, source in reference] == [
            (CLEAN_ORDERS_DROPPED_INPUT, "team:customer-data", "manual"),
            (CLEAN_ORDERS_ADDED_INPUT, "team:finance-analytics", "manual"),
        ]
        destinations = database.execute("SELECT name, kind FROM notify_destination ORDER BY name").fetchall()
        assert destinations == [("example mailbox", "email"), ("example webhook", "webhook")]
        # validate_orders' failure opened an incident telling the owners of what it breaks, through the
        # local receiver (docs/alerts.md).
        # (and clean_orders v2 dropping `currency`, which daily_revenue reads, one of a breaking schema change).
        # What applying events changed is told after they are marked applied (docs/alerts.md), so the
        # incidents may follow the applied events by a moment.
        wait_until(
            lambda: (
                database.execute(
                    "SELECT count(*) FROM alerts_incident WHERE kind IN ('run_failed', 'schema_breaking')"
                ).fetchone()[0]
                >= 2
            ),
            timeout=60,
            what="the example's incidents",
        )
        incidents = dict(database.execute("SELECT root, owners FROM alerts_incident WHERE kind = 'run_failed'"))
        assert list(incidents) == ["job:spark:validate_orders"], "the action's failure and its application's: one"
        assert {"team:finance-analytics", "team:data-quality"} <= set(
            json.loads(incidents["job:spark:validate_orders"])
        )
        breaking = database.execute("SELECT root, cause FROM alerts_incident WHERE kind = 'schema_breaking'").fetchall()
        assert [(root.rsplit("/", 1)[-1], cause) for root, cause in breaking] == [("orders_clean", "removed: currency")]
        received = tmp_path / "notifications" / "webhook.jsonl"
        wait_until(lambda: received.exists() and "validate_orders" in received.read_text(), timeout=60, what="alert")
        bodies = [json.loads(line)["body"] for line in received.read_text().splitlines()]
        told = {o for body in bodies if body["incident"]["root"] == "job:spark:validate_orders" for o in body["yours"]}
        assert {"team:finance-analytics", "team:data-quality"} <= told
        database.close()
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: run_stack stops every child itself
        process.wait(timeout=90)
    rest = []
    while (line := lines.get(timeout=10)) is not None:
        rest.append(line)
    assert rest == ["stopping…", "stopped."]
    assert process.returncode == 0
    for port in (web, bolt, http, redis_port):
        assert port_free(port), f"port {port} is still in use after Ctrl-C"
