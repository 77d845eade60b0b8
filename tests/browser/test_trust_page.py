"""The Trust page in a real browser: each producer's streams with their state and the seq ranges of gaps, forks
and truncated tails, and the producers whose events came unchained."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_protocol import StreamChain
from tests.browser.conftest import PageWatch, shot
from tests.events import new_run_id, run_event
from tests.ledger.chains import KEY, contents, record, register

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def streams() -> dict[str, str]:
    """Three streams of one producer: one with a gap (seqs 3 to 4), one whose tail is withheld, one complete;
    and an unsigned producer."""
    register()
    gapped, truncated, whole = (StreamChain(KEY, f"spark:app-{i}:0") for i in range(3))
    items = contents(6)
    gapped_events = [gapped.sign(item) for item in items]
    truncated_events = [truncated.sign(item) for item in items]
    record([*gapped_events[:2], *gapped_events[4:], gapped.heartbeat()])
    record([*truncated_events[:4], truncated.heartbeat()])
    record([*(whole.sign(item) for item in items), run_event("START", run_id=new_run_id())])
    return {"gap": gapped.stream, "truncated": truncated.stream, "contiguous": whole.stream}


def test_the_trust_page_shows_each_streams_state_with_its_seq_ranges(
    logged_in: Any, live_server: Any, streams: dict[str, str], watch: PageWatch
) -> None:
    page = logged_in
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Trust").click()
    page.wait_for_selector("section.ledger-producer[data-producer='edge-7']")
    rows = page.locator("tr[data-stream]")
    assert rows.count() == 3
    states = {row.get_attribute("data-stream"): row.get_attribute("data-state") for row in rows.all()}
    assert states == {stream: state for state, stream in streams.items()}
    gapped = page.locator(f"tr[data-stream='{streams['gap']}']")
    assert gapped.locator(".ledger-gap").all_inner_texts() == ["3\u20134"]
    truncated = page.locator(f"tr[data-stream='{streams['truncated']}']")
    assert truncated.locator(".ledger-truncated").inner_text() == "5\u20136"
    assert page.locator("section.ledger-producer h2 .badge").inner_text() == "gap"
    unchained = page.locator(".ledger-unchained tr[data-producer]")
    assert unchained.all_inner_texts()[0].startswith("https://example.com/tests/tributary")
    shot(page, "trust", readme="trust")

    page.locator("input[name=producer]").fill("nobody")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_selector("text=No chained streams.")
    assert watch.dialogs == [] and watch.errors == []
