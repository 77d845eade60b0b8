"""Real receivers for the notification tests: an HTTP server that checks the webhook signature, an SMTP server."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message as EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller

from lineage_app.notify.signing import IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signature_valid
from tests.conftest import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    signature_ok: bool | None  # None: the receiver has no secret to check with


@dataclass
class WebhookReceiver:
    """A threaded HTTP server on 127.0.0.1 recording every POST. With `secret` it answers 401 to a bad
    signature; `failures` answers that many POSTs with 503 first (a destination that is down, then up)."""

    secret: str | None = None
    failures: int = 0
    port: int = 0
    received: list[Received] = field(default_factory=list)
    refused: int = 0
    delay: float = 0.0  # seconds each answer takes: a slow receiver widens the window two workers could share

    def __post_init__(self) -> None:
        receiver = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                time.sleep(receiver.delay)
                ok = (
                    None
                    if receiver.secret is None
                    else signature_valid(
                        secret=receiver.secret, header=self.headers.get(SIGNATURE_HEADER, ""), body=body
                    )
                )
                with lock:
                    if receiver.failures > 0:
                        receiver.failures -= 1
                        receiver.refused += 1
                        status = 503
                    elif ok is False:
                        status = 401
                    else:
                        receiver.received.append(Received(self.path, dict(self.headers.items()), body, ok))
                        status = 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def keys(self) -> list[str]:
        return [r.headers[IDEMPOTENCY_HEADER] for r in self.received]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _Mailbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.original_content))
        return "250 OK"


class SmtpServer:
    """A real SMTP server (aiosmtpd) on 127.0.0.1, keeping every message it accepts."""

    def __init__(self) -> None:
        self.mailbox = _Mailbox()
        self.port = free_port()
        self.controller = Controller(self.mailbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    @staticmethod
    def unused_port() -> int:
        """A port nothing listens on: an SMTP server that is down."""
        return free_port()

    @property
    def messages(self) -> list[EmailMessage]:
        return self.mailbox.messages

    def stop(self) -> None:
        self.controller.stop()
