"""How the browser tests and `bench/render_lineage.py` start Debian's chromium, headless."""

from __future__ import annotations

from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_launch(playwright: Any) -> Any:
    """A headless Debian chromium through Playwright."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
