"""`manage.py notify_receiver` (make run's example destination) as a process: it keeps each message signed
with its secret as a JSON line, and refuses one signed with another."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lineage_app.notify import services
from lineage_app.notify.models import Destination
from tests.conftest import ROOT, free_port, wait_until
from tests.notify.test_outbox import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    port, secret, out = free_port(), tmp_path / "secret", tmp_path / "webhook.jsonl"
    secret.write_text("example-secret\n")
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "notify_receiver",
            "--port",
            str(port),
            "--secret-file",
            str(secret),
            "--out",
            str(out),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin", "TRIBUTARY_VAR_DIR": str(tmp_path)},
    )
    try:
        wait_until(lambda: _answers(port), timeout=30, what="the receiver listening")
        yield port, out
    finally:
        process.terminate()
        process.wait(timeout=10)


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


def test_the_receiver_keeps_a_signed_message_and_refuses_a_badly_signed_one(receiver) -> None:  # type: ignore[no-untyped-def]
    port, out = receiver
    url = f"http://127.0.0.1:{port}/"
    good = Destination.objects.create(name="good", kind="webhook", url=url, secret="example-secret")
    bad = Destination.objects.create(name="bad", kind="webhook", url=url, secret="guessed")
    for destination in (good, bad):
        delivery = services.enqueue(destination=destination, message=MESSAGE, idempotency_key=f"{destination.name}:1")
        services.delivery_attempt(delivery_id=delivery.pk)
    [line] = out.read_text().splitlines()
    kept = json.loads(line)
    assert (kept["idempotencyKey"], kept["body"]) == ("good:1", MESSAGE.event)
    assert "HTTP 401" in bad.deliveries.get().last_error
