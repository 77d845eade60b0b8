"""Requests through the web process's own WSGI application, for benchmarks that time the server in-process."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass
class WsgiAnswer:
    status_code: int
    content: bytes
    streaming = False

    def json(self) -> Any:
        return json.loads(self.content)


class WsgiClient:
    """Calls `lineage_app.wsgi` as gunicorn would, with a bearer token: every middleware,
    authentication, DRF, rendering, the body read to its end. Not Django's test client: that
    instruments each request and keeps every response alive in a reference cycle, which a web
    process does not."""

    def __init__(self, application: Callable[..., Any], token: str) -> None:
        self.application, self.token = application, token

    def get(self, url: str) -> WsgiAnswer:
        path, _, query = url.partition("?")
        return self._call("GET", path, query, b"")

    def get_sent(self, url: str) -> tuple[int, int]:
        """The status and the body's size, each piece of the body dropped once read, as a server drops
        what it has written to its socket: what the web process holds is the application's alone."""
        path, _, query = url.partition("?")
        status, result = self._start("GET", path, query, b"")
        try:
            return status, sum(len(piece) for piece in result)
        finally:
            if hasattr(result, "close"):
                result.close()

    def post(self, path: str, body: bytes) -> WsgiAnswer:
        return self._call("POST", path, "", body)

    def _call(self, method: str, path: str, query: str, body: bytes) -> WsgiAnswer:
        status, result = self._start(method, path, query, body)
        try:
            content = b"".join(result)
        finally:
            if hasattr(result, "close"):
                result.close()
        return WsgiAnswer(status, content)

    def _start(self, method: str, path: str, query: str, body: bytes) -> tuple[int, Iterable[bytes]]:
        """Call the application (Django starts its response before returning it): the status, the body unread."""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "HTTP_HOST": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_AUTHORIZATION": f"Bearer {self.token}",
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
        }
        if body:
            environ |= {"CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body))}
        status: list[str] = []
        result = self.application(environ, lambda line, headers, exc_info=None: status.append(line))
        return int(status[0].split()[0]), result
