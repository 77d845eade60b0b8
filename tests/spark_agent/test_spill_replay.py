"""`http+spill`: what was spilled while the server was down is replayed once it answers, each event once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_support import read_events

from lineage_relay.transports import Deadline, Event, Outcome
from lineage_relay.transports.file import FileSink
from lineage_relay.transports.http import HttpSink
from spark_agent.counters import Counters
from spark_agent.emitter import AsyncEmitter
from tests.conftest import wait_until
from tests.recording_server import RecordingServer
from tests.relay.conftest import Cable


def _event(i: int) -> dict[str, Any]:
    return {"eventType": "START", "run": {"runId": f"run-{i}"}, "payload": "x" * 200}


def _run_ids(events: list[dict[str, Any]]) -> list[str]:
    return [e["run"]["runId"] for e in events]


def _fast_http(url: str) -> HttpSink:
    return HttpSink(url, "tok", max_retries=1, backoff_base_s=0.01, backoff_max_s=0.02, timeout_s=2)


def _spilled(spill: FileSink) -> list[dict[str, Any]]:
    return [event for path in spill.files() for event in read_events(path)]


@pytest.fixture
def cable(server: RecordingServer) -> Iterator[Cable]:
    """The recording server behind a link the test plugs in: down until then (unplugged at the end)."""
    link = Cable(int(server.url.rsplit(":", 1)[1]))
    yield link
    link.unplug()


def test_events_spilled_while_the_server_was_down_are_replayed_when_it_answers_again(
    server: RecordingServer, cable: Cable, tmp_path: Path
) -> None:
    spill = FileSink(str(tmp_path / "spill.jsonl"), max_bytes=1_000, backups=5)
    counters = Counters()
    emitter = AsyncEmitter(_fast_http(cable.url), counters, spill=spill, batch_size=5)
    for i in range(12):
        emitter.put(_event(i))
    assert emitter.flush(10)
    assert counters.get("events_spilled_total") == 12
    assert len(spill.files()) > 1  # rotated while spilling
    assert server.events == []

    cable.plug()
    emitter.put(_event(12))
    assert emitter.flush(10)
    wait_until(lambda: len(server.events) == 13, timeout=10, what="the spill replayed")
    assert _run_ids(server.events) == ["run-12"] + [f"run-{i}" for i in range(12)]  # the spill oldest first
    assert spill.files() == [spill.path] and spill.path.stat().st_size == 0
    wait_until(lambda: counters.get("events_emitted_total") == 13, timeout=5, what="replayed events counted")

    emitter.put(_event(13))
    emitter.close(5)
    assert _run_ids(server.events)[13:] == ["run-13"]  # nothing replayed twice
    assert counters.get("events_dropped_total") == 0


class Crash(BaseException):
    """The process dies."""


class CrashAfter:
    """The agent's process dies right after the server took its `batches`-th batch, before the replay
    recorded it: a test double for a crash at the one moment where it costs duplicates."""

    def __init__(self, sink: HttpSink, *, batches: int) -> None:
        self.sink = sink
        self.left = batches

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome:
        outcome = self.sink.send(batch, deadline)
        self.left -= 1
        if self.left == 0:
            raise Crash
        return outcome


def test_a_replay_cut_by_a_crash_resumes_losing_nothing_and_resending_one_batch(
    server: RecordingServer, tmp_path: Path
) -> None:
    spill = FileSink(str(tmp_path / "spill.jsonl"))
    assert spill.write([_event(i) for i in range(10)]) == 10
    with pytest.raises(Crash):
        spill.replay(CrashAfter(_fast_http(server.url), batches=2), batch_size=3, deadline=lambda: None)
    assert len(server.events) == 6

    restarted = FileSink(str(tmp_path / "spill.jsonl"))
    delivery = restarted.replay(_fast_http(server.url), batch_size=3, deadline=lambda: None)
    assert delivery.delivered == 7  # the batch in flight at the crash, and the four after it
    assert sorted(set(_run_ids(server.events))) == sorted(f"run-{i}" for i in range(10))
    assert len(server.events) == 13
    assert _spilled(restarted) == []


def test_a_refused_batch_is_replayed_event_by_event_so_one_bad_event_costs_only_itself(
    server: RecordingServer, tmp_path: Path
) -> None:
    spill = FileSink(str(tmp_path / "spill.jsonl"))
    spill.write([_event(i) for i in range(3)])
    server.fail_with = [400, 400]  # the batch, then its first event alone
    delivery = spill.replay(_fast_http(server.url), batch_size=3, deadline=lambda: None)
    assert (delivery.delivered, delivery.rejected, delivery.stopped) == (2, 1, False)
    assert _run_ids(server.events) == ["run-1", "run-2"]
    assert _spilled(spill) == []


def test_a_replay_against_a_server_still_down_keeps_the_spill(server: RecordingServer, tmp_path: Path) -> None:
    spill = FileSink(str(tmp_path / "spill.jsonl"))
    spill.write([_event(i) for i in range(4)])
    server.fail_with = [503, 503]
    delivery = spill.replay(_fast_http(server.url), batch_size=10, deadline=lambda: None)
    assert (delivery.delivered, delivery.stopped) == (0, True)
    assert _run_ids(_spilled(spill)) == [f"run-{i}" for i in range(4)]
