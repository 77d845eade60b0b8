"""The relay's HTTP side: the OpenLineage ingest endpoints (one event, a batch), `/healthz` and `/metrics`."""

from __future__ import annotations

import hmac
import json
import logging
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lineage_protocol import BATCH_PATH, EVENT_PATH, FailedEvent, StreamChain, batch_receipt
from lineage_relay.buffer import BufferRefused, EventBuffer
from lineage_relay.drain import Drain
from lineage_relay.events import EventRefused, NotABatch, Retried, Signed, batch_items, event_signed
from lineage_relay.forwarder import ServerStatus
from lineage_relay.metrics import CONTENT_TYPE, health_body, metrics_text
from lineage_relay.writer import OutputStatus

log = logging.getLogger("lineage_relay")

_IDLE_CONNECTION_S = 60.0  # a keep-alive connection the producer leaves idle this long is closed


@dataclass(frozen=True, slots=True)
class Stored:
    """Where one event is in the buffer; `duplicate` when it was there already (a producer's retry)."""

    id: int
    duplicate: bool


@dataclass
class Relay:
    """Everything a request handler needs."""

    buffer: EventBuffer
    chain: StreamChain
    status: ServerStatus | OutputStatus
    drain: Drain  # what empties the buffer: forwarding to the server, or writing files
    max_event_bytes: int
    max_batch_bytes: int
    producer_token: str | None
    # Held while events are signed and stored: the chain's order is the buffer's, and an event the buffer
    # refuses gives its seq back (`StreamChain.rewind`), so a refusal never leaves a gap.
    sealing: threading.Lock = field(default_factory=threading.Lock)

    def store(self, items: Sequence[bytes | str]) -> list[Stored | EventRefused]:
        """Sign `items` as the chain's next links and buffer them with the new head, as one step; per item its
        buffer id (a retry of an event already chained: the earlier one's) or why it was refused. Raises
        `BufferRefused` when the buffer cannot take them (and then gives their seqs back)."""
        with self.sealing:
            before = self.chain.head()
            signing: dict[str, int] = {}  # sources chained in this request, by index: a repeat is a retry too
            outcomes: list[Signed | Retried | EventRefused] = []
            for item in items:
                outcome: Signed | Retried | EventRefused
                try:
                    outcome = event_signed(
                        raw=item,
                        chain=self.chain,
                        chained=lambda source: source in signing or self.buffer.chained_id(source) is not None,
                    )
                except EventRefused as exc:
                    outcome = exc
                if isinstance(outcome, Signed) and outcome.source is not None:
                    signing[outcome.source] = len(outcomes)
                outcomes.append(outcome)
            new = [o for o in outcomes if isinstance(o, Signed)]
            try:
                ids = (
                    []
                    if not new
                    else self.buffer.add(
                        bodies=[o.body for o in new], head=self.chain.head(), sources=[o.source for o in new]
                    )
                )
            except BufferRefused:
                self.chain.rewind(before)
                raise
        if new:
            self.drain.wake()
        stored = dict(zip(map(id, new), ids, strict=True))
        answers: list[Stored | EventRefused] = []
        for outcome in outcomes:
            if isinstance(outcome, Signed):
                answers.append(Stored(stored[id(outcome)], duplicate=False))
            elif isinstance(outcome, Retried):
                earlier = signing.get(outcome.source)
                pending = (
                    stored[id(outcomes[earlier])] if earlier is not None else self.buffer.chained_id(outcome.source)
                )
                answers.append(Stored(pending or 0, duplicate=True))
            else:
                answers.append(outcome)
        return answers

    def heartbeat(self) -> None:
        """Buffer a signed heartbeat announcing the stream's head; forwarded or written like any event."""
        with self.sealing:
            self.buffer.add(bodies=[json.dumps(self.chain.heartbeat(), separators=(",", ":")).encode()])
        self.drain.wake()


class HttpError(Exception):
    """An answer other than success: the status and the JSON error body the server would give."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": code, "message": message}


class RelayHttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], relay: Relay) -> None:
        super().__init__(address, RelayHandler)
        self.relay = relay


class RelayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the producers' HTTP clients expect
    server_version = "tributary-relay"
    timeout = _IDLE_CONNECTION_S
    # The head and the body are written separately: with Nagle's algorithm the body would wait for the
    # ACK of the head, which the producer's TCP delays (~40 ms on Linux) on a kept-alive connection.
    disable_nagle_algorithm = True
    server: RelayHttpServer

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        self.body_read = False
        try:
            # The relay answers on the server's own paths, so a producer can be pointed at either.
            if path not in (EVENT_PATH, BATCH_PATH):
                raise HttpError(404, "not_found", f"no endpoint {path!r}: post events to {EVENT_PATH} or {BATCH_PATH}")
            self._authorise()
            if path == EVENT_PATH:
                status, body = self._accept_event()
            else:
                status, body = self._accept_batch()
        except HttpError as exc:
            # A body left unread would be taken for the next request on this connection.
            self.close_connection = self.close_connection or not self.body_read
            self._reply_json(exc.status, exc.body)
            return
        self._reply_json(status, body)

    def do_GET(self) -> None:
        relay = self.server.relay
        path = self.path.split("?", 1)[0]
        try:
            if path == "/healthz":
                self._reply_json(200, health_body(buffer=relay.buffer, status=relay.status))
            elif path == "/metrics":
                self._reply(200, metrics_text(buffer=relay.buffer, status=relay.status).encode(), CONTENT_TYPE)
            else:
                self._reply_json(404, {"error": "not_found", "message": f"no page {path!r}"})
        except BufferRefused as exc:  # closed: the relay is shutting down
            self._reply_json(503, {"error": "unavailable", "message": exc.message})

    def _accept_event(self) -> tuple[int, dict[str, Any]]:
        relay = self.server.relay
        raw = self._body(limit=relay.max_event_bytes)
        (outcome,) = self._store([raw])
        if isinstance(outcome, EventRefused):
            raise HttpError(400, "invalid_event", outcome.message)
        if outcome.duplicate:
            return 200, {"id": outcome.id, "status": "duplicate", "warnings": []}
        return 201, {"id": outcome.id, "status": "accepted", "warnings": []}

    def _accept_batch(self) -> tuple[int, dict[str, Any]]:
        relay = self.server.relay
        raw = self._body(limit=relay.max_batch_bytes)
        try:
            items = batch_items(raw=raw)
        except NotABatch as exc:
            raise HttpError(400, "invalid_batch", exc.message) from None
        if not items:
            raise HttpError(400, "invalid_batch", "the batch is empty: send an array of at least one event")
        fitting = [i for i, item in enumerate(items) if len(item.encode()) <= relay.max_event_bytes]
        outcomes: dict[int, Stored | EventRefused] = dict(
            zip(fitting, self._store([items[i] for i in fitting]), strict=True)
        )
        too_large = EventRefused(f"event is larger than the limit of {relay.max_event_bytes} bytes")
        results: list[dict[str, Any]] = []
        failed: list[FailedEvent] = []
        for index in range(len(items)):
            outcome = outcomes.get(index, too_large)
            if isinstance(outcome, EventRefused):
                error = {"path": f"$[{index}]", "message": outcome.message}
                results.append({"index": index, "status": "rejected", "id": None, "errors": [error], "warnings": []})
                failed.append(FailedEvent(index=index, reason=f"{outcome.message} (at $[{index}])", retriable=False))
            else:
                status = "duplicate" if outcome.duplicate else "accepted"
                results.append({"index": index, "status": status, "id": outcome.id, "errors": [], "warnings": []})
        return 200, {**batch_receipt(received=len(items), failed=failed), "results": results}

    def _store(self, items: list[bytes] | list[str]) -> list[Stored | EventRefused]:
        if not items:
            return []
        try:
            return self.server.relay.store(items)
        except BufferRefused as exc:
            # 503, not 507: the status that producers' HTTP clients retry (openlineage-python by default).
            raise HttpError(503, exc.reason, f"{exc.message}; retry later") from None

    def _authorise(self) -> None:
        token = self.server.relay.producer_token
        if token is None:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token.encode()):
            problem = "no bearer token" if not given else "unknown token"
            raise HttpError(401, "not_authenticated", f"{problem}: send Authorization: Bearer <producer token>")

    def _body(self, *, limit: int) -> bytes:
        """The request's JSON bytes (inflated when gzip-encoded), bounded by `limit`; `HttpError` otherwise."""
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        declared = self.headers.get("Content-Length")
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        if declared is not None and not declared.isdigit():
            raise HttpError(400, "invalid_request", f"Content-Length {declared!r} is not a number")
        if declared is not None and int(declared) > limit and not chunked:
            raise HttpError(413, "payload_too_large", f"body is {declared} bytes; the limit is {limit} bytes")
        raw = self._read_chunked(limit) if chunked else self.rfile.read(int(declared or 0))
        self.body_read = True
        if content_type != "application/json":
            raise HttpError(
                415,
                "unsupported_media_type",
                f"send events as application/json (got {content_type or 'no content type'})",
            )
        encoding = self.headers.get("Content-Encoding", "").strip().lower()
        if encoding in ("", "identity"):
            return raw
        if encoding not in ("gzip", "x-gzip"):
            raise HttpError(415, "unsupported_media_type", f"unsupported Content-Encoding {encoding!r}")
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:
            inflated = inflater.decompress(raw, limit + 1)
        except zlib.error as exc:
            raise HttpError(400, "invalid_event", f"body is not valid gzip: {exc}") from None
        if len(inflated) > limit:
            raise HttpError(413, "payload_too_large", f"body inflates to more than the limit of {limit} bytes")
        if not inflater.eof:
            raise HttpError(400, "invalid_event", "body is not valid gzip: it ends before the compressed stream")
        return inflated

    def _read_chunked(self, limit: int) -> bytes:
        """A `Transfer-Encoding: chunked` body (some producers' clients stream gzip that way)."""
        parts: list[bytes] = []
        size = 0
        while True:
            line = self.rfile.readline(1024).split(b";", 1)[0].strip()
            try:
                length = int(line, 16)
            except ValueError:
                raise HttpError(400, "invalid_request", "malformed chunked body") from None
            if length == 0:
                while self.rfile.readline(1024).strip():  # trailer fields, then the final empty line
                    pass
                return b"".join(parts)
            size += length
            if size > limit:
                raise HttpError(413, "payload_too_large", f"body is over the limit of {limit} bytes")
            parts.append(self.rfile.read(length))
            self.rfile.readline(1024)  # the CRLF after the chunk

    def _reply_json(self, status: int, body: dict[str, Any]) -> None:
        headers = {"WWW-Authenticate": 'Bearer realm="tributary-relay"'} if status == 401 else {}
        self._reply(status, json.dumps(body).encode(), "application/json", headers)

    def _reply(self, status: int, payload: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status == 503:
            self.send_header("Retry-After", "5")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("relay: %s %s", self.address_string(), format % args)
