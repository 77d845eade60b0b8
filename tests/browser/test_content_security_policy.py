"""The Content-Security-Policy in a real browser: the login page, the lineage explorer, the admin and the API docs
render under it, and chromium reports no violation on any of them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.browser.conftest import PASSWORD, USERNAME, shot
from tests.browser.scenario import AGGREGATE, CLEAN, LOAD, MART, RAW, build_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Reports every `securitypolicyviolation` event of every document the page loads, to the test (below).
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolation(
  `${e.effectiveDirective} refused ${e.blockedURI || "inline"} in ${e.sourceFile || e.documentURI}:${e.lineNumber}`));
"""


class Violations(list[str]):
    """What chromium refused under the policy: `securitypolicyviolation` events and its console's CSP errors."""


@pytest.fixture
def violations(page: Any) -> Iterator[Violations]:
    seen = Violations()
    page.expose_binding("__cspViolation", lambda _source, text: seen.append(text))
    page.add_init_script(REPORT_VIOLATIONS)
    page.on(
        "console",
        lambda message: seen.append(f"console: {message.text}") if "Content Security Policy" in message.text else None,
    )
    yield seen


def _log_in(page: Any, live_server: Any, path: str) -> Any:
    answer = page.goto(f"{live_server.url}{path}")
    assert "/login/" in page.url
    policy = answer.headers["content-security-policy"]
    # Directives in whatever order the middleware writes them (it varies between processes).
    directives = {name: values for name, *values in (part.split() for part in policy.split(";") if part.strip())}
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert "unsafe-inline" not in policy
    assert directives["frame-ancestors"] == ["'none'"]
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["referrer-policy"] == "same-origin"
    # The login page's style comes from its own file now: the button is drawn in the app's blue.
    assert (
        page.eval_on_selector("button[type=submit]", "b => getComputedStyle(b).backgroundColor") == "rgb(31, 111, 235)"
    )
    shot(page, "csp-login")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    return answer


def test_the_login_page_and_the_lineage_explorer_work_under_the_policy(
    page: Any, violations: Violations, live_server: Any, user: Any, graph: Any
) -> None:
    build_scenario()
    _log_in(page, live_server, f"/lineage?nodeId={quote(CLEAN)}")
    page.wait_for_url(re.compile(r"/lineage\?nodeId="))
    page.wait_for_selector("body[data-graph-ready='table']")
    assert set(page.evaluate("window.__tributaryGraph.nodeIds()")) == {RAW, LOAD, CLEAN, AGGREGATE, MART}
    # Drawn, not only loaded: the canvas shows each node where the graph says it is.
    for node_id in (RAW, MART):
        assert page.evaluate("id => window.__tributaryGraph.nodePoint(id)", node_id) is not None
    assert page.evaluate("window.__tributaryRendered") > 0
    shot(page, "csp-lineage-explorer")
    # The other pages, each with what it draws from the same scenario.
    pages = ["/", f"/dataset?nodeId={quote(CLEAN)}", f"/job?nodeId={quote(AGGREGATE)}", "/failures"]
    for path in [*pages, f"/impact?nodeId={quote(RAW)}"]:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        page.wait_for_selector("header.topbar")
    assert violations == [], "\n".join(violations)


def test_the_admin_works_under_the_policy(
    page: Any, violations: Violations, live_server: Any, django_user_model: Any
) -> None:
    admin = django_user_model.objects.create_superuser(username=USERNAME, password=PASSWORD)
    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    for path in ("/admin/accounts/apitoken/", "/admin/accounts/apitoken/add/", f"/admin/auth/user/{admin.pk}/change/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_selector("#content")
        assert page.locator(".errornote, .messagelist .error, .messagelist .warning").count() == 0, path
        assert page.eval_on_selector("#header", "h => getComputedStyle(h).display") != "inline", "admin CSS loaded"
    shot(page, "csp-admin")
    assert violations == [], "\n".join(violations)


def test_the_api_docs_render_from_this_server_under_the_policy(
    page: Any, violations: Violations, live_server: Any, user: Any
) -> None:
    fetched: list[str] = []
    page.on("requestfinished", lambda request: fetched.append(request.url))
    _log_in(page, live_server, "/login/?next=/api/v1/docs")  # a DRF view: refuses, does not redirect
    page.wait_for_url(re.compile(r"/api/v1/docs$"))
    page.get_by_text("Tributary API").first.wait_for()
    page.locator("[data-section-id^='operation/']").first.wait_for()
    shot(page, "csp-api-docs")
    assert [url for url in fetched if not url.startswith((live_server.url, "blob:"))] == []
    # Redoc's sidebar shows its maker's logo from their CDN; the policy refuses it, and Redoc then leaves it out.
    others = [v for v in violations if "https://cdn.redoc.ly/redoc/logo-mini.svg" not in v]
    assert others == [], "\n".join(others)
