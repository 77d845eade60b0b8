"""An API answer is freed as soon as it has been sent, not left for the cycle collector; and DRF
still makes the cycle that `ResponseReleaseMiddleware` cuts, through the attributes it cuts."""

from __future__ import annotations

import gc
import io
import sys
import weakref
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from django.test.client import ClientHandler
from rest_framework.views import APIView

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


def _views() -> list[APIView]:
    # By type, not isinstance: isinstance would evaluate the lazy objects among gc's.
    return [o for o in gc.get_objects() if issubclass(type(o), APIView)]


def test_after_the_request_no_view_holds_the_answer(graph: Any, read_token: str) -> None:
    """The view itself outlives the request until a collection (Django's `view.head = view.get` and
    DRF's `request.parser_context["view"]` make cycles of their own), but no longer with the answer."""
    build_known_graph()
    handler = ClientHandler()
    gc.collect()
    gc.disable()
    try:
        response = _get(handler, "/api/v1/lineage", f"nodeId={CLEAN}&depth=2", read_token)
        assert response.renderer_context is None
        assert [view for view in _views() if hasattr(view, "response")] == []
    finally:
        gc.enable()


def test_drf_still_ties_each_view_and_its_response_in_a_cycle(graph: Any, read_token: str) -> None:
    """Without the middleware, the pinned DRF leaves `view.response` and `response.renderer_context
    ["view"]` pointing at each other, so only the cycle collector frees an answer. Fails when an
    upgrade renames either (the middleware would silently cut nothing) or stops making the cycle
    (the middleware is then no longer needed)."""
    build_known_graph()
    without = [name for name in settings.MIDDLEWARE if not name.endswith(".ResponseReleaseMiddleware")]
    assert len(without) == len(settings.MIDDLEWARE) - 1
    handler = ClientHandler()
    with override_settings(MIDDLEWARE=without):
        handler.load_middleware()  # else loaded at the first request, from the settings of then
    gc.collect()
    gc.disable()
    try:
        response = _get(handler, "/api/v1/lineage", f"nodeId={CLEAN}&depth=2", read_token)
        view = response.renderer_context["view"]
        assert isinstance(view, APIView) and view.response is response
        kept = weakref.ref(response)
        del response, view
        assert kept() is not None, "DRF no longer makes the cycle: ResponseReleaseMiddleware can go"
        gc.collect()
        assert kept() is None
    finally:
        gc.enable()
