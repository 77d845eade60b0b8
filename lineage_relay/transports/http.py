"""HTTP transport: POSTs batches to the Tributary batch endpoint, with bounded retries that wait as long as the
server's `Retry-After` asks."""

from __future__ import annotations

import json
import logging
import random
import time
from datetime import UTC
from typing import Any

from lineage_protocol import BATCH_PATH, receipt_failures
from lineage_relay.transports import Deadline, Event, Outcome

log = logging.getLogger("lineage_relay.transports")
_RETRYABLE_4XX = (408, 429)
# Answers that refuse the batch itself (malformed, too large, invalid): a smaller one may pass.
_CONTENT_REFUSED = (400, 413, 422)
# Answers whose `Retry-After` says when to send again (RFC 9110): a rate limit, a server (or relay) too busy.
_RETRY_AFTER_STATUSES = (429, 503)
# The longest single wait a `Retry-After` is followed for; a longer one is waited out in steps of this.
RETRY_AFTER_MAX_S = 60.0
# `_post`'s status when the backend accepted the connection but did not answer in time.
_TIMED_OUT = -1


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """The seconds a `Retry-After` header asks to wait (delay-seconds or an HTTP-date), or None when it has none
    that can be read."""
    import email.utils  # only for an answer that asks to wait: on the sender thread, not at import

    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class HttpSink:
    """Sends batches; retries 5xx, 408, 429 and connection errors with jittered backoff.

    An answer that says when to come back (429 or 503 with `Retry-After`) is waited for at least that
    long (at most `retry_after_max_s` at a time). A 429 is the server's rate limit, not an outage: it
    uses no retry, so a throttled batch is sent again for as long as the server keeps answering, within
    the flush deadline.

    A request that times out is not retried. After a batch has exhausted its retries (or timed out) the
    backend is considered down: later batches get a single attempt each (no backoff) until one succeeds,
    and the agent spills at exit without another attempt, so a dead or hanging backend costs the job
    nothing at exit."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        timeout_s: float = 5.0,
        max_retries: int = 4,
        backoff_base_s: float = 0.25,
        backoff_max_s: float = 5.0,
        retry_after_max_s: float = RETRY_AFTER_MAX_S,
    ) -> None:
        self.endpoint = url.rstrip("/") + BATCH_PATH
        self._headers = {"Content-Type": "application/json"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.retry_after_max_s = retry_after_max_s
        self.down = False

    def send(self, batch: list[Event], deadline: Deadline) -> Outcome:
        body = json.dumps(batch, separators=(",", ":")).encode()
        attempts = 1 if self.down else self.max_retries + 1
        attempt = 0
        throttled = False
        while attempt < attempts:
            timeout = _until(deadline, self.timeout_s)
            if timeout <= 0:
                break
            status, payload, retry_after = self._post(body, timeout)
            if status == _TIMED_OUT:
                throttled = False
                break  # a backend that does not answer in time is not asked again: each try would cost as long
            if status is not None and 200 <= status < 300:
                self.down = False
                return _outcome(batch, payload)
            if status is not None and 400 <= status < 500 and status not in _RETRYABLE_4XX:
                log.warning("tributary: backend refused a batch of %d events (HTTP %d)", len(batch), status)
                return Outcome(failed=batch, refused=status in _CONTENT_REFUSED)
            throttled = status == 429 and retry_after is not None
            if throttled:
                # The server answers and says when to come back: not an outage, and no retry used up.
                self.down = False
                attempts = max(attempts, self.max_retries + 1)
                pause = 0.0
            else:
                attempt += 1
                if attempt >= attempts:
                    break
                pause = random.uniform(0, min(self.backoff_max_s, self.backoff_base_s * 2 ** (attempt - 1)))
            if retry_after is not None:
                pause = max(pause, min(retry_after, self.retry_after_max_s))
                log.warning(
                    "tributary: backend asks to wait %.0f s before sending again (HTTP %d)", retry_after, status
                )
            if not _sleep(pause, deadline):
                break
        if throttled:
            log.warning("tributary: backend still throttling at the flush deadline; %d events not sent", len(batch))
            return Outcome(failed=batch)
        if not self.down:
            log.warning("tributary: lineage backend %s unavailable", self.endpoint)
        self.down = True
        return Outcome(failed=batch)

    def _post(self, body: bytes, timeout: float) -> tuple[int | None, Any, float | None]:
        """Status, parsed body and `Retry-After` (seconds, on a 429 or 503) of one POST; no status if no answer,
        `_TIMED_OUT` if none came in `timeout`."""
        # Imported at the first request, on the sender thread: `urllib.request` brings `http.client` and `ssl`,
        # tens of milliseconds that the Spark agent's `install()` would otherwise spend on the job's thread.
        import urllib.error
        import urllib.request

        request = urllib.request.Request(self.endpoint, data=body, headers=self._headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read()
                return int(response.status), _json_or_none(raw), None
        except urllib.error.HTTPError as exc:
            retry_after = (
                retry_after_seconds(exc.headers.get("Retry-After")) if exc.code in _RETRY_AFTER_STATUSES else None
            )
            return int(exc.code), None, retry_after
        except TimeoutError:
            return _TIMED_OUT, None, None
        except urllib.error.URLError as exc:
            return (_TIMED_OUT if isinstance(exc.reason, TimeoutError) else None), None, None
        except (OSError, ValueError):
            return None, None, None


def _until(deadline: Deadline, cap: float) -> float:
    """Seconds left before the flush deadline, at most `cap`."""
    limit = deadline()
    return cap if limit is None else min(cap, limit - time.monotonic())


def _sleep(pause: float, deadline: Deadline) -> bool:
    """Sleep `pause` seconds in short steps; False if a flush deadline cuts it short."""
    end = time.monotonic() + pause
    while (left := end - time.monotonic()) > 0:
        if _until(deadline, left) < left:
            return False
        time.sleep(min(left, 0.05))
    return True


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _outcome(batch: list[Event], payload: Any) -> Outcome:
    """What the batch receipt says became of each event: a non-retriable failure is dropped (rejected), a
    retriable one is handed back as not delivered; an answer without a receipt counts the batch delivered."""
    failures = receipt_failures(payload, received=len(batch))
    if failures is None:
        return Outcome(delivered=len(batch))
    rejected = [f for f in failures if not f.retriable]
    for f in rejected[:3]:
        log.warning("tributary: backend rejected event %d: %s", f.index, f.reason)
    again = [batch[f.index] for f in failures if f.retriable]
    return Outcome(delivered=len(batch) - len(failures), rejected=len(rejected), failed=again)
