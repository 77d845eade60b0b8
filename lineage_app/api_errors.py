"""One JSON error shape for every API failure: `{"error": code, "message": text, "path"?: where}`."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler


def error_response(code: str, message: str, *, http_status: int, path: str | None = None) -> Response:
    body: dict[str, Any] = {"error": code, "message": message}
    if path is not None:
        body["path"] = path
    return Response(body, status=http_status)


def json_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = exception_handler(exc, context)
    if response is None:
        return None
    detail = response.data.get("detail") if isinstance(response.data, dict) else None
    code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
    if detail is None:
        # Field errors from a serializer: name the first field.
        field, messages = next(iter(response.data.items())) if isinstance(response.data, dict) else ("$", response.data)
        message = messages[0] if isinstance(messages, list) and messages else str(messages)
        response.data = {"error": "invalid", "message": str(message), "path": field}
    else:
        response.data = {"error": str(code), "message": str(detail)}
    if response.status_code == status.HTTP_401_UNAUTHORIZED and "WWW-Authenticate" not in response:
        response["WWW-Authenticate"] = 'Bearer realm="tributary"'
    return response
