"""`GET /healthz`: no auth; 200 when every service is up, 503 (same body) when one is down."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from lineage_app.health.selectors import service_health


def healthz(request: HttpRequest) -> JsonResponse:
    services = service_health()
    healthy = all(state == "up" for state in services.values())
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", "services": services}, status=200 if healthy else 503
    )
