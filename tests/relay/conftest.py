"""Relay test helpers: the relay as a real process, a producer key, and a network link the tests can cut."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol import generate_private_key, private_key_pem
from tests.conftest import ROOT, free_port, wait_until
from tests.events import T0, new_run_id, run_event

EventKey = tuple[str, str, str]


def http_call(url: str, *, body: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Status and body of one request (0 when nothing answered)."""
    request = urllib.request.Request(
        url, data=body, headers=headers or {}, method="POST" if body is not None else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except OSError:
        return 0, b""


def post_json(url: str, document: Any, *, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    status, raw = http_call(url, body=json.dumps(document).encode(), headers=headers)
    return status, json.loads(raw) if raw else None


def metrics_of(text: str) -> dict[str, float]:
    """Prometheus text exposition: `name{labels}` -> value, comments left out."""
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


class RelayProcess:
    """`python -m lineage_relay` in a subprocess, on a fixed port and buffer so it can be restarted."""

    def __init__(
        self,
        tmp: Path,
        *,
        key_path: Path,
        server_url: str | None,
        token: str | None,
        extra: list[str] | None = None,
    ):
        self.port = free_port()
        self.buffer = tmp / "relay-buffer.sqlite3"
        self.log = tmp / "relay.log"
        self.argv = [
            sys.executable,
            "-m",
            "lineage_relay",
            "--port",
            str(self.port),
            "--buffer",
            str(self.buffer),
            "--retry-max-seconds",
            "1",
            *(extra or []),
        ]
        # No server URL: file mode (`extra` then gives --output-dir).
        given = {"TRIBUTARY_URL": server_url, "TRIBUTARY_TOKEN": token, "TRIBUTARY_SIGNING_KEY": str(key_path)}
        self.env = {**os.environ, **{name: value for name, value in given.items() if value is not None}}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=log, stderr=log)
        wait_until(lambda: http_call(f"{self.url}/healthz")[0] == 200, timeout=30, what="the relay")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def terminate(self) -> int:
        assert self.process is not None
        self.process.terminate()
        code = self.process.wait(timeout=30)
        self.process = None
        return code

    def health(self) -> dict[str, Any]:
        status, raw = http_call(f"{self.url}/healthz")
        assert status == 200, raw
        return dict(json.loads(raw))

    def metrics(self) -> dict[str, float]:
        status, raw = http_call(f"{self.url}/metrics")
        assert status == 200, raw
        return metrics_of(raw.decode())

    def logs(self) -> str:
        return self.log.read_text()[-3000:]


class Producer:
    """Posts distinct events to the relay one by one, as a producer's HTTP transport does, retrying each until
    it is accepted; remembers the accepted ones. An answer lost to a killed relay may mean the event was
    stored all the same: its retry is then answered as a duplicate (the relay remembers what it chained)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.accepted: list[EventKey] = []
        self.refusals = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        run_id, n = new_run_id(), 0
        while not self._stop.is_set():
            event = run_event("RUNNING", run_id=run_id, at=T0 + timedelta(seconds=n))
            # 200: a retry of an event the relay had chained before its answer was lost (a duplicate).
            while post_json(f"{self.url}/api/v1/lineage", event)[0] not in (200, 201):
                self.refusals += 1
                time.sleep(0.05)
            self.accepted.append((event["run"]["runId"], event["eventType"], event["eventTime"]))
            n += 1
            time.sleep(0.01)


class Cable:
    """A TCP link from a local port to the server that the test can unplug (refusing and cutting every
    connection, as a server that went down) and plug in again on the same port: a network fault that the
    in-process live server cannot cause by itself."""

    def __init__(self, upstream_port: int) -> None:
        self.port = free_port()
        self.upstream_port = upstream_port
        self._listener: socketserver.ThreadingTCPServer | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def plug(self) -> None:
        cable = self

        class Pump(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                upstream = socket.create_connection(("127.0.0.1", cable.upstream_port))
                with cable._lock:
                    cable._sockets.update((self.request, upstream))
                feeder = threading.Thread(target=_pump, args=(self.request, upstream), daemon=True)
                feeder.start()
                _pump(upstream, self.request)
                feeder.join()

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self._listener = socketserver.ThreadingTCPServer(("127.0.0.1", self.port), Pump)
        self._listener.daemon_threads = True
        threading.Thread(target=self._listener.serve_forever, daemon=True).start()

    def unplug(self) -> None:
        assert self._listener is not None
        self._listener.shutdown()
        self._listener.server_close()
        self._listener = None
        with self._lock:
            for sock in self._sockets:
                _close(sock)
            self._sockets.clear()


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        _close(target)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


@pytest.fixture
def relay_key(tmp_path: Path) -> tuple[Ed25519PrivateKey, Path]:
    key = generate_private_key()
    path = tmp_path / "relay.key"
    path.write_text(private_key_pem(key))
    return key, path


@pytest.fixture
def cable(live_server: Any) -> Iterator[Cable]:
    link = Cable(int(live_server.url.rsplit(":", 1)[1]))
    link.plug()
    yield link
    if link._listener is not None:
        link.unplug()
