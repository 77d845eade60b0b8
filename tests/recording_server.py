"""A real HTTP server on 127.0.0.1 standing in for Tributary's batch endpoint: it records what is posted, when,
and can be told to answer with errors first (a status, or a status with headers such as `Retry-After`)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lineage_protocol import FailedEvent, batch_receipt

Failure = int | tuple[int, dict[str, str]]


class RecordingServer:
    """Records each request (`path`, `headers`, `at`: its monotonic arrival time) and each accepted batch;
    answers the statuses in `fail_with` first, in order, then a batch receipt."""

    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.requests: list[dict[str, Any]] = []
        self.fail_with: list[Failure] = []  # answers to give, in order, before succeeding
        self.reject_indexes: set[int] = set()  # events answered as non-retriable failures
        self.retry_indexes: set[int] = set()  # events answered as retriable failures, once each
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "at": time.monotonic()})
                if outer.fail_with:
                    failure = outer.fail_with.pop(0)
                    status, headers = failure if isinstance(failure, tuple) else (failure, {})
                    self._reply(status, {"error": "told to fail"}, headers)
                    return
                batch = json.loads(body)
                outer.batches.append(batch)
                self._reply(200, outer.receipt(len(batch)))

            def _reply(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def receipt(self, size: int) -> dict[str, Any]:
        """OpenLineage's batch receipt for a batch of `size` events, with the failures it was told to answer."""
        failed = [
            FailedEvent(index=i, reason="told to reject", retriable=False) for i in sorted(self.reject_indexes)
        ] + [FailedEvent(index=i, reason="told to fail for now", retriable=True) for i in sorted(self.retry_indexes)]
        self.retry_indexes = set()
        results = [{"index": i, "status": "accepted", "id": i + 1} for i in range(size)]
        return {**batch_receipt(received=size, failed=[f for f in failed if f.index < size]), "results": results}

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e for batch in self.batches for e in batch]

    def gaps(self) -> list[float]:
        """Seconds between one request's arrival and the next's."""
        times = [request["at"] for request in self.requests]
        return [later - earlier for earlier, later in itertools.pairwise(times)]

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
