"""An API answer is freed as soon as it has been sent, not left for the cycle collector."""

from __future__ import annotations

import gc
import io
import sys
import weakref
from typing import Any

import pytest
from django.test.client import ClientHandler

from tests.explorer.known_graph import CLEAN, build_known_graph

pytestmark = pytest.mark.django_db


def _get(handler: ClientHandler, path: str, query: str, token: str) -> Any:
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
    }
    response = handler(environ)  # the web process's handler, sparing the test database's connection
    assert response.status_code == 200, response.content[:300]
    return response


@pytest.mark.parametrize(
    "path, query",
    [
        ("/api/v1/lineage", f"nodeId={CLEAN}&depth=2"),
        ("/api/v1/datasets", "limit=10"),
    ],
)
def test_an_api_answer_is_freed_by_reference_counting_once_sent(
    graph: Any,
    read_token: str,
    path: str,
    query: str,
) -> None:
    build_known_graph()
    handler = ClientHandler()
    gc.collect()
    gc.disable()  # only reference counting frees anything now
    try:
        response = _get(handler, path, query, read_token)
        released = weakref.ref(response)  # and with it the answer's data and rendered bytes
        del response
        assert released() is None, "the answer outlived its request in a reference cycle"
    finally:
        gc.enable()
