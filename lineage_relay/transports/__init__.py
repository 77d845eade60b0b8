"""Transports: where events go (HTTP batch endpoint, JSON-Lines file, or HTTP with a file spill); the Spark agent's
emitter, the relay and `ship` send through them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

Event = dict[str, Any]
Deadline = Callable[[], float | None]  # the current flush deadline (monotonic), if any


@dataclass
class Outcome:
    """What happened to a batch: delivered, rejected by the backend, or not delivered; `refused` when the
    backend refused the request for its content (sending it again unchanged cannot succeed)."""

    delivered: int = 0
    rejected: int = 0
    failed: list[Event] = field(default_factory=list)
    refused: bool = False


class Sink(Protocol):
    """Something that takes a batch of events and reports what became of them."""

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome: ...
