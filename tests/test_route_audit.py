"""Route audit: every route of the project needs a permission, so a new route without one fails CI.

API routes (DRF views) must name a permission class other than `AllowAny` and answer an anonymous
GET with 401/403; every other route must send an anonymous visitor to a login page (or refuse),
except the few that are public on purpose. And docs/api.md's table of who may call what lists every
API route with exactly what its view's permission check allows each kind of caller.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from rest_framework.exceptions import NotAuthenticated, PermissionDenied
from rest_framework.permissions import AllowAny
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from lineage_app.accounts.roles import EDITOR, role_grant

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


# --- Who may call what: docs/api.md's table, checked against each view's own permission check -------------

CALLERS = ("`ingest` token", "`read` token", "viewer", "editor")
API_DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def _documented_access() -> dict[str, dict[str, bool]]:
    """docs/api.md's table of who may call what: `{"GET /api/v1/me": {"viewer": True, …}, …}`."""
    lines = API_DOC.read_text().splitlines()
    header = "| route | " + " | ".join(CALLERS) + " |"
    assert header in lines, f"docs/api.md has no table headed {header}"
    table: dict[str, dict[str, bool]] = {}
    for line in itertools.takewhile(lambda row: row.startswith("|"), lines[lines.index(header) + 2 :]):
        route, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        assert set(cells) <= {"yes", "no"} and len(cells) == len(CALLERS), f"docs/api.md: {line}"
        assert route not in table, f"docs/api.md lists {route} twice"
        table[route.strip("`")] = dict(zip(CALLERS, (cell == "yes" for cell in cells), strict=True))
    return table


def _endpoints() -> list[tuple[str, str, Callable[..., Any]]]:
    """Every (method, path, view) DRF serves, as the schema generator enumerates them (the docs page too)."""
    return [(method, path, callback) for path, _, method, callback in EndpointEnumerator().get_api_endpoints()]


def _may_call(method: str, path: str, callback: Callable[..., Any], credentials: dict[str, Any]) -> bool:
    """Whether the view's own permission check lets these credentials through (the view itself is not run)."""
    request = APIRequestFactory().generic(method, path, **credentials.get("headers", {}))
    if "user" in credentials:
        force_authenticate(request, user=credentials["user"])
    view = callback.cls(**getattr(callback, "initkwargs", {}))
    view.args, view.kwargs, view.format_kwarg = (), {}, None
    view.request = view.initialize_request(request)
    try:
        view.check_permissions(view.request)
    except (NotAuthenticated, PermissionDenied):
        return False
    return True


@pytest.fixture
def callers(ingest_token: str, read_token: str, django_user_model: Any) -> dict[str, dict[str, Any]]:
    viewer = django_user_model.objects.create_user("audit-viewer")
    editor = django_user_model.objects.create_user("audit-editor")
    role_grant(user=editor, role=EDITOR)
    return {
        "`ingest` token": {"headers": {"HTTP_AUTHORIZATION": f"Bearer {ingest_token}"}},
        "`read` token": {"headers": {"HTTP_AUTHORIZATION": f"Bearer {read_token}"}},
        "viewer": {"user": viewer},
        "editor": {"user": editor},
    }


def test_the_access_table_in_the_api_docs_lists_every_route_and_no_other() -> None:
    served = {f"{method} {path}" for method, path, _ in _endpoints()}
    schema = SchemaGenerator().get_schema(request=None, public=True)
    in_schema = {f"{method.upper()} {path}" for path, ops in schema["paths"].items() for method in ops}
    assert in_schema <= served
    assert set(_documented_access()) == served


def test_the_access_table_in_the_api_docs_is_what_each_view_allows(callers: dict[str, dict[str, Any]]) -> None:
    documented = _documented_access()
    actual = {
        f"{method} {path}": {who: _may_call(method, path, view, callers[who]) for who in CALLERS}
        for method, path, view in _endpoints()
    }
    wrong = {route: allowed for route, allowed in actual.items() if documented.get(route) != allowed}
    assert not wrong, f"docs/api.md's access table disagrees with the code on: {wrong}"
