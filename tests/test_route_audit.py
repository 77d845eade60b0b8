"""Route audit: every route of the project needs a permission, so a new route without one fails CI.

API routes (DRF views) must name a permission class other than `AllowAny` and answer an anonymous
GET with 401/403; every other route must send an anonymous visitor to a login page (or refuse),
except the few that are public on purpose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

pytestmark = pytest.mark.django_db

# Public on purpose. `metrics` is not behind a login but behind its own network / token check (loopback
# only by default, which is where this test client comes from): tests/observability/test_metrics_access.py.
PUBLIC = {"healthz", "login/", "logout/", "admin/login/", "admin/logout/", "metrics"}
PUBLIC_PREFIXES = ("static/",)
# Open today and flagged by this audit; the fix is one setting (SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]).
# Strict xfail: once they are closed these pass, and the mark must go.
KNOWN_OPEN: set[str] = set()
SAMPLE_VALUES = {"app_label": "auth", "path": "explore"}


def _walk(patterns: list[Any], prefix: str = "", namespace: str = "") -> Iterator[tuple[str, URLPattern, str]]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = ":".join(filter(None, [namespace, entry.namespace]))
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern), inner)
        else:
            yield prefix + str(entry.pattern), entry, namespace


ROUTES = sorted(_walk(get_resolver().url_patterns), key=lambda r: r[0])


def _api_classes(callback: Callable[..., Any]) -> list[type[APIView]]:
    """The DRF classes behind a view: its own, or each method's where one URL is served by several (`served_by`)."""
    cls = getattr(callback, "cls", None)
    if not (isinstance(cls, type) and issubclass(cls, APIView)):
        return []
    return list(getattr(cls, "served_by", {}).values()) or [cls]


def _url(route: str, pattern: URLPattern, namespace: str) -> str:
    names = list(getattr(pattern.pattern, "converters", {})) or list(pattern.pattern.regex.groupindex)
    kwargs = {name: SAMPLE_VALUES.get(name, "1") for name in names}
    if pattern.name:
        return reverse(f"{namespace}:{pattern.name}" if namespace else pattern.name, kwargs=kwargs)
    concrete = route.lstrip("^").rstrip("$")
    for name in names:
        concrete = concrete.replace(f"(?P<{name}>.*)", kwargs[name])
    return "/" + concrete


def _is_public(route: str) -> bool:
    return route in PUBLIC or route.startswith(PUBLIC_PREFIXES)


def _param(route: str) -> Any:
    open_today = pytest.mark.xfail(strict=True, reason="served with AllowAny; lead to close")
    marks = [open_today] if route in KNOWN_OPEN else []
    return pytest.param(route, id=route or "/", marks=marks)


API_ROUTES = [r for r in ROUTES if r[0].startswith("api/")]
OTHER_ROUTES = [r for r in ROUTES if not r[0].startswith("api/") and not _is_public(r[0])]


def test_the_audit_sees_the_routes_it_must() -> None:
    routes = {route for route, _, _ in ROUTES}
    assert {"api/v1/lineage", "api/v1/ownership", "api/v1/owners", "api/v1/me", "healthz"} <= routes
    assert any(route.startswith("admin/") for route in routes)


@pytest.mark.parametrize("route", [_param(r[0]) for r in API_ROUTES])
def test_every_api_route_names_a_permission_beyond_allow_any(route: str) -> None:
    _, pattern, _ = next(r for r in API_ROUTES if r[0] == route)
    classes = _api_classes(pattern.callback)
    assert classes, f"{route} is not a DRF view, so it has no permission classes to audit"
    for cls in classes:
        permissions = list(cls.permission_classes)
        assert permissions, f"{route} ({cls.__name__}) has no permission classes"
        assert any(p is not AllowAny for p in permissions), f"{route} ({cls.__name__}) allows anyone"


@pytest.mark.parametrize("route", [_param(r[0]) for r in API_ROUTES])
def test_every_api_route_refuses_an_anonymous_get(route: str) -> None:
    _, pattern, namespace = next(r for r in API_ROUTES if r[0] == route)
    response = Client().get(_url(route, pattern, namespace))
    assert response.status_code in (401, 403), f"anonymous GET {route} answered {response.status_code}"


@pytest.mark.parametrize("route", [r[0] for r in OTHER_ROUTES], ids=[r[0] or "/" for r in OTHER_ROUTES])
def test_every_other_route_sends_an_anonymous_visitor_to_log_in(route: str) -> None:
    _, pattern, namespace = next(r for r in OTHER_ROUTES if r[0] == route)
    url = _url(route, pattern, namespace)
    response = Client().get(url)
    if response.status_code in (401, 403):
        return
    assert response.status_code == 302, f"anonymous GET {url} ({route}) answered {response.status_code}"
    assert "login" in response["Location"], f"anonymous GET {url} went to {response['Location']}, not a login"


def test_the_allow_lists_name_only_routes_that_exist() -> None:
    routes = {route for route, _, _ in ROUTES}
    assert routes >= PUBLIC | KNOWN_OPEN, "an allow-listed route is gone: drop it from the list"
