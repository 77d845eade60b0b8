"""Serve the built single-page app to logged-in users, the API docs, and the login page once a lockout
refuses a sign-in."""

from __future__ import annotations

from typing import Any

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.views import SpectacularRedocView

LOGIN_TEMPLATE = "web/login.html"


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


# Redoc (served from this server: drf-spectacular-sidecar) writes its styles as inline <style> elements, some
# before any nonce could reach it, draws icons as data: images and searches in a blob: worker. Its page alone
# may do that; its scripts are still only this server's own.
REDOC_POLICY = {"style-src": [UNSAFE_INLINE], "img-src": ["data:"], "worker-src": ["blob:"]}
api_docs = csp_update(REDOC_POLICY)(
    SpectacularRedocView.as_view(url_name="openapi-schema", template_name="web/api_docs.html")
)


def login_locked_out(request: HttpRequest, original_response: HttpResponse | None, credentials: Any) -> HttpResponse:
    """django-axes' lockout answer (`AXES_LOCKOUT_CALLABLE`): the login page again, saying why, with 429."""
    minutes = settings.LOGIN_LOCKOUT_MINUTES
    context = {
        "form": AuthenticationForm(request),
        "next": request.POST.get("next") or request.GET.get("next", ""),
        "locked_out": True,
        "lockout_minutes": minutes,
    }
    return render(request, LOGIN_TEMPLATE, context, status=429)
