"""Times every request: a latency and a count per route pattern, a request id, and one log line when it is answered."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from lineage_app.observability.logs import log_context_close, log_context_open
from lineage_app.observability.metrics import HTTP_REQUEST_SECONDS, HTTP_REQUESTS

logger = logging.getLogger(__name__)

# A caller's own request id (a proxy's, say) is kept when it is short and plain; any other is replaced.
CALLER_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
# Labels come from a fixed set, so that no client can create series by inventing methods or paths.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"


class RequestObservationMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        offered = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = offered if CALLER_REQUEST_ID.fullmatch(offered) else uuid.uuid4().hex
        context = log_context_open(request_id=request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
        finally:
            fields = log_context_close(context)
        seconds = time.perf_counter() - started
        # The pattern that matched (`api/v1/runs/<str:run_id>`), never the path: one series per route.
        match = request.resolver_match
        route = f"/{match.route}" if match is not None and match.route else UNMATCHED
        method = request.method if request.method in METHODS else "other"
        HTTP_REQUESTS.labels(route=route, method=method, status=str(response.status_code)).inc()
        HTTP_REQUEST_SECONDS.labels(route=route, method=method).observe(seconds)
        response["X-Request-ID"] = request_id
        user = getattr(request, "user", None)
        logger.info(
            "%s %s %s %.1f ms",
            request.method,
            request.path,
            response.status_code,
            seconds * 1000,
            extra={
                "fields": {
                    "method": request.method,
                    "path": request.path,
                    "route": route,
                    "status": response.status_code,
                    "duration_ms": round(seconds * 1000, 3),
                    "user": str(user) if user is not None and user.is_authenticated else None,
                    **fields,
                }
            },
        )
        return response
