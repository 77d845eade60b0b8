"""Route one URL to a different API class per HTTP method (e.g. ingest POST vs. read GET)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt


def by_method(**views: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view that sends `GET` to `views["get"]`, `POST` to `views["post"]`, and so on."""
    handlers = {method.upper(): view for method, view in views.items()}

    @csrf_exempt  # each API class enforces CSRF itself for session-authenticated calls
    def dispatch(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        handler = handlers.get(request.method or "")
        if handler is None:
            response = JsonResponse(
                {"error": "method_not_allowed", "message": f"{request.method} is not allowed here"},
                status=405,
            )
            response["Allow"] = ", ".join(sorted(handlers))
            return response
        return handler(request, *args, **kwargs)

    return dispatch
