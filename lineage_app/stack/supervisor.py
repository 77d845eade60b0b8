"""Child processes of the local stack: start them, wait until they answer, stop them all together."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO


class StopRequested(Exception):
    """Ctrl-C (or SIGTERM) arrived while waiting for a child to become ready."""


@dataclass
class Child:
    """One started process, the file its output goes to (if any), and whether it is meant to end."""

    name: str
    process: subprocess.Popen[bytes]
    log_path: Path | None = None
    oneshot: bool = False
    pump: threading.Thread | None = None
    log_file: IO[bytes] | None = None


@dataclass
class Supervisor:
    """Owns every process the stack started; `stop_all` ends them newest first.

    A child's stdout and stderr go to its own log file when `start` is given one (the terminal
    otherwise). With `on_line`, they are read line by line instead: each line is written to the
    log file (or the terminal) and handed to `on_line`, so the caller can report what it means.
    """

    children: list[Child] = field(default_factory=list)

    def start(
        self,
        name: str,
        argv: list[str],
        *,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
        on_line: Callable[[str], None] | None = None,
        oneshot: bool = False,
        cwd: Path | None = None,
    ) -> Child:
        """Start `argv` in its own session. A `oneshot` child may end without that counting as a death."""
        log_file = None
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_file = log_path.open("wb")
        if on_line is not None:
            out: int | IO[bytes] | None = subprocess.PIPE
        else:
            out = log_file  # None: inherit the terminal
        process = subprocess.Popen(
            argv,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT if out is not None else None,
        )
        child = Child(name, process, log_path, oneshot, log_file=log_file)
        if on_line is not None:
            child.pump = threading.Thread(
                target=_pump, args=(process, log_file, on_line), daemon=True, name=f"{name}-output"
            )
            child.pump.start()
        self.children.append(child)
        return child

    def wait_ready(
        self,
        name: str,
        ready: Callable[[], bool],
        *,
        timeout: float,
        what: str | None = None,
        stopping: threading.Event | None = None,
    ) -> None:
        """Poll `ready` until it is true. `RuntimeError` when a child dies or `timeout` passes (naming
        `what`, by default the child `name`, and its log file); `StopRequested` once `stopping` is set."""
        what = what or name
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if stopping is not None and stopping.is_set():
                raise StopRequested(what)
            if ready():
                return
            if died := self.died():
                raise RuntimeError(
                    f"{died.name} exited (status {died.process.returncode}) while waiting for "
                    f"{what}{self.log_hint(died)}"
                )
            time.sleep(0.5)
        raise RuntimeError(f"{what} did not answer within {timeout:.0f} s{self.log_hint(self.get(name))}")

    def get(self, name: str) -> Child | None:
        return next((c for c in self.children if c.name == name), None)

    def died(self) -> Child | None:
        """The first child that has ended and was not meant to, if any."""
        return next((c for c in self.children if not c.oneshot and c.process.poll() is not None), None)

    def exited(self) -> str | None:
        """The name of the first child that has died, if any."""
        died = self.died()
        return died.name if died else None

    @staticmethod
    def log_hint(child: Child | None) -> str:
        if child is None or child.log_path is None:
            return ""
        return f"; its log: {display_path(child.log_path)}"

    def stop_all(self, *, grace: float = 20) -> None:
        for child in reversed(self.children):
            if child.process.poll() is None:
                _signal_group(child.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for child in reversed(self.children):
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(child.process.pid, signal.SIGKILL)
                child.process.wait()
            if child.pump is not None:
                child.pump.join(timeout=5)
            if child.log_file is not None:
                child.log_file.close()
        self.children.clear()


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(pid, signum)


def _pump(process: subprocess.Popen[bytes], log_file: IO[bytes] | None, on_line: Callable[[str], None]) -> None:
    """Copy the child's output to its log file (or the terminal) and hand each line to `on_line`."""
    assert process.stdout is not None
    for raw in iter(process.stdout.readline, b""):
        if log_file is not None:
            log_file.write(raw)
            log_file.flush()
        else:
            sys.stdout.buffer.write(raw)
            sys.stdout.flush()
        on_line(raw.decode("utf-8", "replace").rstrip("\r\n"))
    process.stdout.close()


def display_path(path: Path) -> str:
    """`path` relative to the working directory when it lies below it (`var/log/web.log`), else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def log_tail(path: Path | None, lines: int = 15) -> list[str]:
    """The last `lines` lines of a log file (nothing if there is none)."""
    if path is None or not path.exists():
        return []
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 64 * 1024))
        text = handle.read().decode("utf-8", "replace")
    return text.splitlines()[-lines:]
