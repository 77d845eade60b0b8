"""Serve the built single-page app to logged-in users; everything else is the read API."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie


@login_required
@ensure_csrf_cookie
def app_shell(request: HttpRequest, path: str = "") -> HttpResponse:
    """The explorer's `index.html` for every UI route, so deep links work after a reload."""
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(
            "The web UI is not built yet: run `make frontend` (npm ci && npm run build in frontend/).",
            status=503,
            content_type="text/plain",
        )
    return HttpResponse(index.read_bytes(), content_type="text/html; charset=utf-8")
