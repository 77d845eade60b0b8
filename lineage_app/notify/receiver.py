"""A small receiver of Tributary's generic webhooks: it checks each signature and hands on what it received
(`make run`'s example destination, `manage.py notify_receiver`, and the delivery benchmark)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lineage_app.notify.signing import IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signature_valid


def receiver_server(
    *, host: str, port: int, secret: str, record: Callable[[dict[str, Any]], None]
) -> ThreadingHTTPServer:
    """A server (not yet serving) answering 204 to a POST signed with `secret`, after passing `record`
    the message (`receivedAt`, `idempotencyKey`, `body`), and 401 to any other."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not signature_valid(secret=secret, header=self.headers.get(SIGNATURE_HEADER, ""), body=body):
                self._answer(401, b"bad or missing X-Tributary-Signature\n")
                return
            try:
                payload = json.loads(body)
            except ValueError:
                self._answer(400, b"body is not JSON\n")
                return
            record(
                {"receivedAt": time.time(), "idempotencyKey": self.headers.get(IDEMPOTENCY_HEADER, ""), "body": payload}
            )
            self._answer(204, b"")

        def _answer(self, status: int, text: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # `record` says what arrived; refusals are the sender's to report

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server
