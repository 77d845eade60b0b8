"""Browser fixtures: Debian's chromium driven by Playwright against the live server (serving the UI's test
build), a logged-in page."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from tests.browser.chromium import CHROMIUM, chromium_launch
from tests.browser.example_pipeline import ExamplePipeline, example_pipeline_run

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make between
# browser steps are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "browser"
USERNAME, PASSWORD = "explorer", "correct horse battery staple"
# The UI as `npm run build:test` builds it (`make frontend`): the production build with the test hooks the tests read
# on `window` (`window.__tributaryGraph`, `window.__tributaryRendered`), which the production build in
# frontend/dist does not have.
UI_TEST_BUILD = Path(settings.BASE_DIR) / "frontend" / "dist-test"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        # In CI a missing browser is a failure, not a reason to pass without the UI tests.
        missing = pytest.fail if os.environ.get("CI") else pytest.skip
        missing(f"{CHROMIUM} is missing: scripts/test_services.sh installs Debian's chromium")
    if not (UI_TEST_BUILD / "index.html").exists():
        pytest.fail("frontend/dist-test is not built: run `make frontend` (npm ci && npm run build:test in frontend/)")
    from playwright.sync_api import sync_playwright

    # The live server serves the test build: its index.html for the UI's routes, its assets under /static/.
    with (
        override_settings(FRONTEND_DIST=UI_TEST_BUILD, STATICFILES_DIRS=[UI_TEST_BUILD]),
        sync_playwright() as playwright,
    ):
        browser = chromium_launch(playwright)
        yield browser
        browser.close()


class PageWatch:
    """What a page did that a test must notice: dialogs (an XSS would open one) and script errors."""

    def __init__(self) -> None:
        self.dialogs: list[str] = []
        self.errors: list[str] = []


@pytest.fixture
def watch() -> PageWatch:
    return PageWatch()


@pytest.fixture
def page(browser: Any, watch: PageWatch, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)

    def on_dialog(dialog: Any) -> None:
        watch.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.-]+", "_", request.node.name)
    try:
        page.screenshot(path=str(ARTIFACTS / f"{name}-final.png"))
    finally:
        context.close()


@pytest.fixture
def user(transactional_db: None, django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username=USERNAME, password=PASSWORD)


@pytest.fixture
def logged_in(page: Any, live_server: Any, user: Any) -> Any:
    """The page, logged in through the real login form, on the app's overview."""
    page.goto(f"{live_server.url}/lineage")
    assert "/login/" in page.url  # the UI is behind the login
    page.fill("#id_username", USERNAME)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/lineage$"))
    page.wait_for_selector("header.topbar")
    return page


README_SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"


def shot(page: Any, name: str, *, readme: str | None = None) -> Path:
    """A screenshot in `test-artifacts/browser/`; with `README_SCREENSHOTS=1` (`make screenshots`)
    the ones named `readme` also replace the README's pictures in `docs/screenshots/`."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    if readme and os.environ.get("README_SCREENSHOTS") == "1":
        README_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(README_SCREENSHOTS / f"{readme}.png"))
    return path


@pytest.fixture(scope="session")
def example_run(tmp_path_factory: pytest.TempPathFactory) -> ExamplePipeline:
    """The real example pipeline, run once per session (`tests/browser/example_pipeline.py`)."""
    return example_pipeline_run(tmp_path_factory.mktemp("example") / "example-data")


@pytest.fixture
def example(graph: Any, example_run: ExamplePipeline) -> Iterator[ExamplePipeline]:
    """The example pipeline's events applied to this test's fresh graph."""
    example_run.apply()
    yield example_run


@pytest.fixture
def send(graph: Any, live_server: Any, ingest_token: str, page: Any) -> Any:
    """Post events to `POST /api/v1/lineage` over HTTP, as a producer does, then apply them as a worker would."""

    def post(events: list[dict[str, Any]]) -> None:
        for event in events:
            response = page.request.post(
                f"{live_server.url}/api/v1/lineage", data=event, headers={"Authorization": f"Bearer {ingest_token}"}
            )
            assert response.status == 201, response.text()
        events_apply(
            event_ids=list(LineageEvent.objects.filter(status=LineageEvent.Status.PENDING).values_list("id", flat=True))
        )

    return post
