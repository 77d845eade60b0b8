"""Process hooks: end live agents at exit, on uncaught exceptions, on SIGTERM and SIGINT."""

from __future__ import annotations

import atexit
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Protocol


class Endable(Protocol):
    def note_uncaught(self, exc: BaseException) -> None: ...
    def note_signal(self, signum: int) -> None: ...
    def close(self) -> None: ...


_live: list[Endable] = []
_lock = threading.Lock()
_installed = False


def track(agent: Endable) -> None:
    """Make sure `agent` is ended when the process ends, however it ends."""
    global _installed
    with _lock:
        _live.append(agent)
        if _installed:
            return
        _installed = True
    atexit.register(_at_exit)
    previous_hook = sys.excepthook

    def excepthook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        for live in list(_live):
            live.note_uncaught(exc)
        previous_hook(kind, exc, tb)

    sys.excepthook = excepthook
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            _chain(signum, signal.getsignal(signum))


def untrack(agent: Endable) -> None:
    with _lock:
        if agent in _live:
            _live.remove(agent)


def live_agents() -> list[Endable]:
    with _lock:
        return list(_live)


def _at_exit() -> None:
    for live in reversed(live_agents()):
        live.close()


def _chain(signum: int, previous: Any) -> None:
    def handler(received: int, frame: FrameType | None) -> None:
        for live in live_agents():
            live.note_signal(received)
        if callable(previous):
            previous(received, frame)
        elif previous == signal.SIG_IGN:
            return
        elif received == signal.SIGINT:
            raise KeyboardInterrupt
        else:
            sys.exit(128 + received)

    handler_fn: Callable[[int, FrameType | None], None] = handler
    signal.signal(signum, handler_fn)
