"""Witnessing in a real browser: the Trust page's checkpoint history with each checkpoint's witness status and the
alarm of a witness that refused the log; a run's page with its events' chain positions and inclusion."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from lineage_app.ingest.tasks import checkpoint_log
from lineage_app.ledger.models import LogKey, WitnessKey
from lineage_protocol import (
    LogClient,
    StreamChain,
    Witness,
    WitnessState,
    cosigner_vkey,
    generate_private_key,
    parse_vkey,
    witness_state_save,
)
from tests.browser.conftest import PageWatch, shot
from tests.events import T0, new_run_id, run_event
from tests.ledger.chains import KEY, register

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
ORIGIN = "lineage.test/log"


@pytest.fixture(autouse=True)
def _log_settings(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = ORIGIN
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"


def _witness(name: str, url: str, token: str, state: Path) -> Witness:
    key = generate_private_key()
    WitnessKey.objects.create(verifier_key=cosigner_vkey(name, key.public_key()))
    log = parse_vkey(LogKey.objects.get().verifier_key)
    return Witness(client=LogClient(url=url, token=token), log=log, name=name, private_key=key, state_path=state)


def _run(chain: StreamChain, job: str) -> tuple[str, list[dict[str, Any]]]:
    run_id = new_run_id()
    events = [
        chain.sign(run_event(kind, run_id=run_id, job=job, at=T0 + timedelta(minutes=i)))
        for i, kind in enumerate(("START", "COMPLETE"))
    ]
    return run_id, events


def test_the_trust_page_shows_witnessed_checkpoints_and_the_alarm_of_a_refusing_witness(
    logged_in: Any, live_server: Any, send: Any, ingest_token: str, watch: PageWatch, tmp_path: Path
) -> None:
    register()
    chain = StreamChain(KEY, "spark:app-w:0")
    send(_run(chain, "witnessed_a")[1])
    checkpoint_log()
    honest = _witness("witness.test/honest", live_server.url, ingest_token, tmp_path / "honest.json")
    assert honest.round().refusal is None
    send(_run(chain, "witnessed_b")[1])
    checkpoint_log()
    assert honest.round().refusal is None
    send([run_event("START", run_id=new_run_id(), job="unwitnessed")])
    checkpoint_log()
    # A second witness remembers a larger log than the server now shows: it refuses (a rollback) and says so.
    remembering = _witness("witness.test/remembers", live_server.url, ingest_token, tmp_path / "remembers.json")
    witness_state_save(remembering.state_path, WitnessState(ORIGIN, 9, b"\x05" * 32))
    assert remembering.round().refusal is not None

    page = logged_in
    page.goto(f"{live_server.url}/trust")
    alarm = page.wait_for_selector(".witness-alarm[data-kind='rollback']")
    assert "witness.test/remembers refused the log: rolled back" in alarm.inner_text()
    assert "cosigned tree size 9 and was offered tree size 5" in alarm.inner_text()
    page.wait_for_selector("#checkpoint-history tr[data-tree-size]")
    rows = page.locator("#checkpoint-history tr[data-tree-size]")
    status = {row.get_attribute("data-tree-size"): row.get_attribute("data-witnessed") for row in rows.all()}
    assert status == {"5": "false", "4": "true", "2": "true"}
    assert page.locator("#checkpoint-history tr[data-tree-size='4'] .chip").inner_text() == "witness.test/honest"
    assert "1 newest checkpoint not witnessed yet" in page.locator("#checkpoint-summary").inner_text()
    shot(page, "trust-witnesses", readme="trust-witnesses")
    assert watch.dialogs == [] and watch.errors == []


def test_a_run_page_shows_its_events_chain_positions_and_inclusion(
    logged_in: Any, live_server: Any, send: Any, ingest_token: str, watch: PageWatch, tmp_path: Path
) -> None:
    register()
    chain = StreamChain(KEY, "spark:app-r:0")
    send([run_event("START", run_id=new_run_id(), job="before")])  # leaf 0, unchained
    run_id, events = _run(chain, "chained_job")
    send(events)  # leaves 1 and 2, seqs 1 and 2
    checkpoint_log()
    assert _witness("witness.test/w", live_server.url, ingest_token, tmp_path / "w.json").round().refusal is None
    late_run, late = _run(chain, "chained_job")
    send(late[:1])  # leaf 3, seq 3: not in a checkpoint yet

    page = logged_in
    page.goto(f"{live_server.url}/job?nodeId={quote('job:spark:chained_job', safe='')}&run={run_id}")
    page.wait_for_selector("#run-focus .ledger-positions tr[data-event]")
    rows = page.locator("#run-focus .ledger-positions tr[data-event]")
    cells = [
        [row.locator(f".ledger-{name}").inner_text() for name in ("stream", "seq", "leaf", "checkpoint", "witnessed")]
        for row in rows.all()
    ]
    assert cells == [
        ["spark:app-r:0", "1", "1", "tree size 3", "witnessed"],
        ["spark:app-r:0", "2", "2", "tree size 3", "witnessed"],
    ]
    page.locator("#run-focus").scroll_into_view_if_needed()
    shot(page, "run-ledger-positions", readme="run-ledger")

    page.goto(f"{live_server.url}/job?nodeId={quote('job:spark:chained_job', safe='')}&run={late_run}")
    page.wait_for_selector("#run-focus .ledger-positions tr[data-event]")
    row = page.locator("#run-focus .ledger-positions tr[data-event]")
    assert row.locator(".ledger-seq").inner_text() == "3"
    assert row.locator(".ledger-checkpoint").inner_text() == "pending the next checkpoint"
    assert row.locator(".ledger-witnessed").inner_text() == "not yet"
    assert watch.dialogs == [] and watch.errors == []
