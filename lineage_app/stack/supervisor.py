"""Child processes of the local stack: start them, wait until they answer, stop them all together."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Supervisor:
    """Owns every process the stack started; `stop_all` ends them newest first."""

    children: list[tuple[str, subprocess.Popen[bytes]]] = field(default_factory=list)

    def start(self, name: str, argv: list[str], *, env: dict[str, str] | None = None) -> None:
        process = subprocess.Popen(argv, env={**os.environ, **(env or {})}, start_new_session=True)
        self.children.append((name, process))

    def wait_ready(self, name: str, ready: Callable[[], bool], *, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if ready():
                return
            if self.exited():
                raise RuntimeError(f"{self.exited()} exited while waiting for {name}")
            time.sleep(0.5)
        raise RuntimeError(f"{name} did not become ready within {timeout:.0f}s")

    def exited(self) -> str | None:
        """The name of the first child that has died, if any."""
        return next((name for name, process in self.children if process.poll() is not None), None)

    def stop_all(self, *, grace: float = 20) -> None:
        for _, process in reversed(self.children):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for _, process in reversed(self.children):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        self.children.clear()
