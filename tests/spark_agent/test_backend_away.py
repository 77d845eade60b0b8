"""A backend that is away costs the job nothing at close: a port that refuses connections, and one that
accepts them and never answers. `close()` returns within its bound, and every event is either spilled or
counted as dropped, as the configuration says. Real sockets, real files; no Spark needed."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_support import read_events

from lineage_relay.transports.file import FileSink
from lineage_relay.transports.http import HttpSink
from spark_agent.counters import Counters
from spark_agent.emitter import AsyncEmitter


class HangingPort:
    """A port that accepts connections (and reads what is sent) but never answers."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self._sock.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        for conn in self._held:
            conn.close()
        self._sock.close()


@pytest.fixture
def hanging() -> Iterator[HangingPort]:
    port = HangingPort()
    yield port
    port.close()


@pytest.fixture
def refusing() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"  # nothing listens once the socket is closed


def _event(i: int) -> dict[str, Any]:
    return {"eventType": "START", "run": {"runId": f"run-{i}"}}


def _wait_until(condition: Any, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _timed_close(emitter: AsyncEmitter, timeout_s: float) -> float:
    started = time.monotonic()
    emitter.close(timeout_s)
    return time.monotonic() - started


def _spilled_ids(spill: Path) -> list[str]:
    return [e["run"]["runId"] for e in read_events(spill)] if spill.exists() else []


@pytest.mark.parametrize("with_spill", [True, False], ids=["spill", "no_spill"])
def test_a_refusing_backend_known_down_is_spilled_at_close_without_another_attempt(
    refusing: str, tmp_path: Path, with_spill: bool
) -> None:
    sink = HttpSink(refusing, None, max_retries=2, backoff_base_s=0.01, backoff_max_s=0.02)
    spill = tmp_path / "spill.jsonl"
    counters = Counters()
    emitter = AsyncEmitter(sink, counters, spill=FileSink(str(spill)) if with_spill else None, batch_size=5)
    emitter.put(_event(0))
    _wait_until(lambda: sink.down)
    for i in range(1, 40):
        emitter.put(_event(i))
    took = _timed_close(emitter, 10.0)

    assert took < 0.5, f"close took {took:.2f} s with the backend known down"
    snapshot = counters.snapshot()
    if with_spill:
        assert sorted(_spilled_ids(spill)) == sorted(f"run-{i}" for i in range(40))
        assert (snapshot["events_spilled_total"], snapshot["events_dropped_total"]) == (40, 0)
    else:
        assert (snapshot["events_spilled_total"], snapshot["events_dropped_total"]) == (0, 40)


def test_a_hanging_backend_is_asked_once_and_close_spills_what_the_stuck_sender_holds(
    hanging: HangingPort, tmp_path: Path
) -> None:
    sink = HttpSink(hanging.url, None, timeout_s=0.5, max_retries=4)
    spill = tmp_path / "spill.jsonl"
    counters = Counters()
    emitter = AsyncEmitter(sink, counters, spill=FileSink(str(spill)), batch_size=5)
    emitter.put(_event(0))
    _wait_until(lambda: sink.down)
    assert hanging.accepted == 1, "a request that timed out was retried"
    for i in range(1, 30):
        emitter.put(_event(i))
    _wait_until(lambda: hanging.accepted >= 2)  # the sender is stuck in its next request
    took = _timed_close(emitter, 10.0)

    assert took < 0.3, f"close waited {took:.2f} s for a backend known down"
    assert sorted(_spilled_ids(spill)) == sorted(f"run-{i}" for i in range(30))
    assert counters.get("events_spilled_total") == 30 and counters.get("events_dropped_total") == 0
    time.sleep(0.7)  # the abandoned request times out now; what it held is not counted or spilled twice
    assert counters.get("events_spilled_total") == 30 and len(_spilled_ids(spill)) == 30


def test_close_returns_within_its_bound_when_the_backend_hangs_before_it_is_known_down(
    hanging: HangingPort, tmp_path: Path
) -> None:
    sink = HttpSink(hanging.url, None, timeout_s=30.0)
    counters = Counters()
    emitter = AsyncEmitter(sink, counters, batch_size=5)  # no spill: what is not delivered is dropped
    for i in range(12):
        emitter.put(_event(i))
    _wait_until(lambda: hanging.accepted >= 1)
    took = _timed_close(emitter, 1.0)

    assert 0.9 < took < 1.5, f"close took {took:.2f} s for a bound of 1 s"
    snapshot = counters.snapshot()
    assert (snapshot["events_emitted_total"], snapshot["events_dropped_total"]) == (0, 12)
