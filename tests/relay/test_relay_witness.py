"""The edge relay as a witness (`--witness-log-key`), a real process against a real server: it cosigns the
server's checkpoints, refuses a rolled-back log and raises the alarm, and remembers across a restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_app.ingest.tasks import checkpoint_log
from lineage_app.ledger.models import Cosignature, LogCheckpoint, LogKey, LogLeaf, WitnessAlarm, WitnessKey
from lineage_protocol import cosigner_vkey
from lineage_relay.config import relay_config_parse
from tests.conftest import wait_until
from tests.events import new_run_id, run_event
from tests.relay.conftest import RelayProcess, post_json

pytestmark = pytest.mark.django_db(transaction=True)
NAME = "edge.test/relay"


@pytest.fixture(autouse=True)
def _log_settings(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = "lineage.test/log"
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"


def test_the_relay_cosigns_the_servers_checkpoints_and_refuses_a_rollback_even_after_a_restart(
    live_server: Any, ingest_token: str, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
) -> None:
    key, key_path = relay_key
    WitnessKey.objects.create(verifier_key=cosigner_vkey(NAME, key.public_key()))  # the relay's own key
    events = [run_event("START", run_id=new_run_id()) for _ in range(4)]
    assert post_json(f"{live_server.url}/api/v1/lineage/batch", events, token=ingest_token)[0] == 200
    checkpoint_log()
    extra = ["--witness-log-key", LogKey.objects.get().verifier_key, "--witness-name", NAME, "--witness-seconds", "0.3"]
    relay = RelayProcess(tmp_path, key_path=key_path, server_url=live_server.url, token=ingest_token, extra=extra)
    relay.start()
    try:
        wait_until(lambda: Cosignature.objects.filter(checkpoint__size=4).exists(), timeout=30, what="a cosignature")
        assert post_json(f"{relay.url}/api/v1/lineage/batch", [run_event("START", run_id=new_run_id())])[0] == 200
        wait_until(lambda: LogLeaf.objects.count() == 5, timeout=30, what="the relay's event in the log")
        checkpoint_log()
        wait_until(lambda: Cosignature.objects.filter(checkpoint__size__gt=4).exists(), timeout=30, what="cosigned")
        assert relay.terminate() == 0
        LogCheckpoint.objects.filter(size__gt=4).delete()  # the server went back to an older state
        relay.start()
        wait_until(lambda: WitnessAlarm.objects.filter(kind="rollback").exists(), timeout=30, what="the alarm")
        assert "REFUSED the checkpoint (rollback)" in relay.logs()
    finally:
        if relay.process is not None:
            relay.terminate()


def test_a_relay_writing_files_cannot_witness(tmp_path: Path) -> None:
    argv = ["--output-dir", str(tmp_path), "--signing-key", "k", "--witness-log-key", "a+00000000+AQ=="]
    with pytest.raises(SystemExit):
        relay_config_parse(argv=argv, environ={})
