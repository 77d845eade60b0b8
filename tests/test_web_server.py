"""The web process as gunicorn runs it (lineage_app/gunicorn_conf.py): gunicorn's own threaded
worker, whose processes serve the connections."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from gunicorn.util import load_class
from gunicorn.workers.gthread import ThreadWorker

from lineage_app import gunicorn_conf
from tests.conftest import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 2
CONNECTIONS = 8


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    port = free_port()
    env = {
        **os.environ,
        "WEB_CONCURRENCY": str(WORKERS),
        "TRIBUTARY_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}",
    }
    with (tmp_path / "gunicorn.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:lineage_app.gunicorn_conf", "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        wait_until(
            lambda: len(_children(process.pid)) == WORKERS and _answers(port),
            timeout=60,
            what="gunicorn and its workers",
        )
        yield port, process
    finally:
        process.terminate()
        process.wait(timeout=30)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            return _get(sock).startswith(b"HTTP/1.1 ")
    except OSError:
        return False


def _get(sock: socket.socket) -> bytes:
    """One keep-alive request (an unauthenticated API call: it needs no database) and its answer's head."""
    sock.sendall(b"GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(65536)
    return answer


def _children(pid: int) -> list[int]:
    return [
        int(child) for task in Path(f"/proc/{pid}/task").iterdir() for child in (task / "children").read_text().split()
    ]


def _server_side_inodes(port: int) -> dict[int, str]:
    """The socket inode of each established connection to `port`, by the client's port."""
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local_port, remote_port = int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16)
        if local_port == port and fields[3] == "01":  # ESTABLISHED
            found[remote_port] = fields[9]
    return found


def _owner(inode: str, pids: list[int]) -> int:
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if os.readlink(fd) == f"socket:[{inode}]":
                    return pid
            except OSError:
                continue
    raise AssertionError(f"no worker holds socket {inode}")


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc")
def test_every_connection_is_served_by_one_of_the_worker_processes(web) -> None:  # type: ignore[no-untyped-def]
    port, process = web
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(CONNECTIONS)]
    try:
        for sock in sockets:
            assert _get(sock).startswith(b"HTTP/1.1 401")
        inodes = _server_side_inodes(port)
        workers = _children(process.pid)
        owners = Counter(_owner(inodes[sock.getsockname()[1]], workers) for sock in sockets)
    finally:
        for sock in sockets:
            sock.close()
    assert sum(owners.values()) == CONNECTIONS and set(owners) <= set(workers)


def test_the_web_process_runs_gunicorn_s_own_threaded_worker() -> None:
    assert load_class(gunicorn_conf.worker_class) is ThreadWorker
