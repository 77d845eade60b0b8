"""`python -m lineage_relay.ship`: the file transport's rotated files reach a live server, each event once."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from lineage_app.accounts.services import token_create
from lineage_app.ingest.models import LineageEvent
from lineage_relay.ship import STATE_NAME, directory_ship
from lineage_relay.ship import main as ship_main
from lineage_relay.transports import Deadline, Event, Outcome
from lineage_relay.transports.file import FileSink
from lineage_relay.transports.http import HttpSink
from tests.events import run_lifecycle
from tests.observability.scrape import samples_of, value

pytestmark = pytest.mark.django_db(transaction=True)


class OutageAfter:
    """The server stops answering after `batches` batches. A test double for the moment of an outage:
    cut by the wall clock, the point where the first run stops would be arbitrary."""

    def __init__(self, sink: HttpSink, *, batches: int) -> None:
        self.sink = sink
        self.left = batches

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome:
        if self.left == 0:
            return Outcome(failed=batch)
        self.left -= 1
        return self.sink.send(batch, deadline)


def _events(runs: int) -> Iterator[dict[str, Any]]:
    for _ in range(runs):
        yield from run_lifecycle()


def _ship(directory: Path, url: str, token: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    code = ship_main([str(directory), "--url", url, "--token", token, "--batch-size", "4", *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out.strip()


def test_rotated_files_are_shipped_once_resuming_after_an_outage_and_a_rotation(
    live_server: Any, ingest_token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lineage.jsonl"
    sink = FileSink(str(path), max_bytes=6_000, backups=5)
    events = list(_events(6))
    assert sink.write(events) == 18
    assert path.with_name("lineage.jsonl.2").exists()  # rotated at least twice
    torn = json.dumps(run_lifecycle()[0]).encode()
    with path.open("ab") as handle:  # a writer stopped mid-line
        handle.write(torn[:50])

    first = directory_ship(tmp_path, sink=OutageAfter(HttpSink(live_server.url, ingest_token), batches=2), batch_size=4)
    assert first.stopped
    assert 0 < first.delivered == LineageEvent.objects.count() < 18
    assert (tmp_path / STATE_NAME).exists()

    # The rest, and nothing twice: the server would answer a re-sent event as a delivered duplicate.
    out = _ship(tmp_path, live_server.url, ingest_token, capsys)
    rest = 18 - first.delivered
    assert (
        out
        == f"ship: {rest} event(s) delivered, 0 rejected by the server, 0 bad line(s) skipped, 1 torn line(s) waiting"
    )
    assert LineageEvent.objects.count() == 18
    out = _ship(tmp_path, live_server.url, ingest_token, capsys)
    assert out.startswith("ship: 0 event(s) delivered")

    # The writer finishes its line and writes more, rotating (renaming) the files already shipped.
    with path.open("ab") as handle:
        handle.write(torn[50:] + b"\n")
    assert sink.write(list(_events(2))) == 6
    out = _ship(tmp_path, live_server.url, ingest_token, capsys)
    assert out == "ship: 7 event(s) delivered, 0 rejected by the server, 0 bad line(s) skipped, 0 torn line(s) waiting"
    assert LineageEvent.objects.count() == 25
    assert _ship(tmp_path, live_server.url, ingest_token, capsys).startswith("ship: 0 event(s) delivered")


def test_bad_lines_are_reported_and_skipped_and_a_refused_token_stops_with_nothing_recorded(
    live_server: Any, ingest_token: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start, running, complete = run_lifecycle()
    invalid = {**running, "eventTime": "yesterday"}
    lines = [json.dumps(start), "{not json", json.dumps(invalid), json.dumps(complete)]
    (tmp_path / "agent.jsonl").write_text("\n".join(lines) + "\n")

    code = ship_main([str(tmp_path), "--url", live_server.url, "--token", "wrong", "--retries", "0"])
    assert code == 1
    assert "run again to resume" in capsys.readouterr().err
    assert LineageEvent.objects.count() == 0

    code = ship_main([str(tmp_path), "--url", live_server.url, "--token", ingest_token])
    out, err = capsys.readouterr()
    assert code == 0
    assert (
        out == "ship: 2 event(s) delivered, 1 rejected by the server, 1 bad line(s) skipped, 0 torn line(s) waiting\n"
    )
    assert f"ship: skipped {tmp_path / 'agent.jsonl'}:2: not a JSON event" in err
    assert LineageEvent.objects.count() == 2


def test_ship_waits_as_long_as_the_server_s_rate_limit_asks_and_delivers_every_event_once(
    live_server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = token_create(name="ship", scope="ingest", rate_limit="2/second")[1]
    assert FileSink(str(tmp_path / "lineage.jsonl")).write(list(_events(4))) == 12

    before, started = _throttled(), time.monotonic()
    out = _ship(tmp_path, live_server.url, token, capsys, "--batch-size", "2")  # six requests, two a second allowed
    elapsed, refused = time.monotonic() - started, _throttled() - before
    assert out == "ship: 12 event(s) delivered, 0 rejected by the server, 0 bad line(s) skipped, 0 torn line(s) waiting"
    assert LineageEvent.objects.count() == 12
    assert refused >= 1, "the server's limit was reached"
    # Each 429 said Retry-After: 1 (at least), and each was waited for before the batch was sent again.
    assert elapsed >= refused * 1.0


def _throttled() -> float:
    scraped = samples_of(Client().get("/metrics").content.decode())
    return value(scraped, "tributary_api_throttled_total", scope="ingest")
