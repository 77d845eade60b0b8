"""Forwarding: drains the buffer in arrival order, in batches, to the server's batch endpoint until it has answered."""

from __future__ import annotations

import http.client
import json
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lineage_protocol import BATCH_PATH, receipt_failures
from lineage_relay.buffer import Pending, Rejection
from lineage_relay.drain import Drain
from lineage_relay.transports.http import RETRY_AFTER_MAX_S, retry_after_seconds

log = logging.getLogger("lineage_relay")

# The server refuses a whole batch with these when one of its events is the problem (a body it cannot
# read, or too large): halving the batch finds that event, and only that one is recorded as rejected.
# Any other refusal (401, 403, 404, 429, 5xx) says the server or the relay's configuration is not
# ready, never that an event is bad, so the batch is retried: after the `Retry-After` of a 429 (the
# token's rate limit) or a 503, at the soonest.
_EVENT_REFUSALS = (400, 413)
_RETRY_AFTER_STATUSES = (429, 503)
_IDLE_PROBE_S = 30.0


class ServerUnavailable(Exception):
    """The server did not answer for the batch (`answered`: it did answer, but not with a result per
    event, e.g. 401 or 503); the batch stays pending and is retried, not before `retry_after` seconds
    when the server said so."""

    def __init__(
        self, message: str, *, answered: bool, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.answered = answered
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class Answer:
    """The server's answer to one request: its status, its body and, on a 429 or 503, its `Retry-After` in seconds."""

    status: int
    body: bytes
    retry_after: float | None = None


@dataclass
class ServerStatus:
    """What the relay knows about the server, for `/healthz` and `/metrics`."""

    url: str
    reachable: bool | None = None  # whether it answered the last request (any HTTP answer); None before the first
    last_contact_at: float | None = None
    last_error: str | None = None  # what went wrong with the last request, None when it succeeded


class ServerClient:
    """One keep-alive connection to the server; reconnects when the server has closed it."""

    def __init__(self, *, url: str, token: str | None, timeout_s: float) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the server URL must be http(s)://host[:port][/path], got {url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._headers = {"Content-Type": "application/json"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._timeout_s = timeout_s
        self._connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None = None) -> Answer:
        """The server's answer; `OSError` or `http.client.HTTPException` if there is none."""
        if self._connection is None:
            return self._exchange(method, path, body)
        try:
            return self._exchange(method, path, body)
        except (OSError, http.client.HTTPException):
            # The kept-alive connection may have been closed by the server meanwhile: one fresh try.
            # Posting a batch twice is harmless, the server deduplicates events by content.
            return self._exchange(method, path, body)

    def _exchange(self, method: str, path: str, body: bytes | None) -> Answer:
        connection = self._connection or self._connect()
        try:
            connection.request(method, self._prefix + path, body=body, headers=self._headers)
            answer = connection.getresponse()
            payload = answer.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if answer.will_close:
            self.close()
        retry_after = None
        if answer.status in _RETRY_AFTER_STATUSES:
            retry_after = retry_after_seconds(answer.getheader("Retry-After"))
        return Answer(answer.status, payload, retry_after)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        self._connection = kind(self._host, self._port, timeout=self._timeout_s)
        return self._connection


class Forwarder(Drain):
    """Forwards pending events to the server's batch endpoint, backing off (exponentially, with full
    jitter) while the server does not answer."""

    name = "forwarding"

    def __init__(self, *, client: ServerClient, status: ServerStatus, **drain: Any) -> None:
        super().__init__(**drain)
        self.client = client
        self.status = status

    def stop(self, *, timeout_s: float) -> None:
        super().stop(timeout_s=timeout_s)
        self.client.close()

    def _deliver(self, batch: list[Pending]) -> bool:
        try:
            self._forward(batch)
        except ServerUnavailable as exc:
            self._failed(str(exc), answered=exc.answered)
            if exc.retry_after is not None:
                self._retry_after = min(exc.retry_after, RETRY_AFTER_MAX_S)
                if exc.status == 429:
                    self._failures = 0  # a rate limit, not an outage: back after exactly the wait asked for
            return False
        return True

    def _forward(self, batch: list[Pending]) -> None:
        """Post `batch` and settle what the server answered for; `ServerUnavailable` if it did not answer."""
        body = b"[" + b",".join(event.body for event in batch) + b"]"
        try:
            answer = self.client.request("POST", BATCH_PATH, body)
        except (OSError, http.client.HTTPException) as exc:
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}", answered=False) from None
        status, payload = answer.status, answer.body
        if answer.retry_after is not None:
            raise ServerUnavailable(
                f"HTTP {status}: the server asks to wait {answer.retry_after:.0f} s",
                answered=True,
                status=status,
                retry_after=answer.retry_after,
            )
        if status in _EVENT_REFUSALS:
            if len(batch) == 1:
                self._settle([], [Rejection(batch[0], status, _json_or_text(payload))])
                self._answered()
                return
            half = len(batch) // 2
            self._forward(batch[:half])
            self._forward(batch[half:])
            return
        failures = receipt_failures(_json_or_text(payload), received=len(batch)) if status == 200 else None
        if failures is None:
            raise ServerUnavailable(f"HTTP {status} without a batch receipt: {payload[:200]!r}", answered=True)
        failed = {failure.index: failure for failure in failures}
        forwarded = [event for index, event in enumerate(batch) if index not in failed]
        rejected = [Rejection(batch[f.index], status, [f.as_dict()]) for f in failures if not f.retriable]
        self._settle(forwarded, rejected)
        if retriable := [f for f in failures if f.retriable]:
            # Taken apart from these: they stay pending, first in line, and are sent again after a pause.
            raise ServerUnavailable(
                f"HTTP {status}: {len(retriable)} event(s) to send again: {retriable[0].reason}", answered=True
            )
        self._answered()

    def _settle(self, forwarded: list[Pending], rejected: list[Rejection]) -> None:
        self.buffer.settle(forwarded=forwarded, rejected=rejected)
        for r in rejected:
            log.warning("relay: the server rejected buffered event %d: %s", r.event.id, json.dumps(r.errors)[:500])

    def _answered(self) -> None:
        if self.status.last_error is not None:
            log.info("relay: the server at %s answers again", self.status.url)
        self.status.reachable = True
        self.status.last_contact_at = time.time()
        self.status.last_error = None

    def _failed(self, error: str, *, answered: bool) -> None:
        if self.status.last_error is None:
            log.warning("relay: the server at %s does not take events (%s); they stay buffered", self.status.url, error)
        self.status.reachable = answered
        if answered:
            self.status.last_contact_at = time.time()
        self.status.last_error = error

    def _idle(self) -> None:
        """Wait for new events; when nothing has been heard from the server for a while, check it answers.

        The check is a GET of the batch endpoint with the relay's token: a cheap 405 when the server is up
        and takes the token, a 401 or 403 when it refuses the token, nothing when it is down.
        """
        last = self.status.last_contact_at
        if last is None or time.time() - last >= _IDLE_PROBE_S:
            try:
                status = self.client.request("GET", BATCH_PATH).status
            except (OSError, http.client.HTTPException) as exc:
                self._failed(f"{type(exc).__name__}: {exc}", answered=False)
            else:
                if status in (401, 403) or status >= 500:
                    self._failed(f"HTTP {status} to a check of {BATCH_PATH}", answered=True)
                else:
                    self._answered()
        self._wake.wait(_IDLE_PROBE_S)


def _json_or_text(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode("utf-8", "replace")[:2000]
