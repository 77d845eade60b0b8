"""A real HTTP server on 127.0.0.1 standing in for Tributary's batch endpoint: it records what is posted, when,
and can be told to answer with errors first (a status, or a status with headers such as `Retry-After`)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Failure = int | tuple[int, dict[str, str]]


class RecordingServer:
    """Records each request (`path`, `headers`, `at`: its monotonic arrival time) and each accepted batch;
    answers the statuses in `fail_with` first, in order, then a result per event."""

    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.requests: list[dict[str, Any]] = []
        self.fail_with: list[Failure] = []  # answers to give, in order, before succeeding
        self.reject_indexes: set[int] = set()
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
                results = [
                    {
                        "index": i,
                        "status": "rejected" if i in outer.reject_indexes else "accepted",
                        "id": None if i in outer.reject_indexes else i + 1,
                        "errors": ["bad"] if i in outer.reject_indexes else [],
                    }
                    for i in range(len(batch))
                ]
                self._reply(200, {"results": results})

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
