"""File mode, for sites with no way to the server: the relay writes what it accepts to rotated JSON-Lines files,
which are carried across and loaded (`python -m lineage_relay.ship`, `manage.py import_events`), landing verified."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey
from lineage_protocol import public_key_pem, sign_event
from lineage_relay.config import relay_config_parse
from lineage_relay.writer import OPEN_NAME, event_line, output_sink
from tests.conftest import ROOT, wait_until
from tests.events import new_run_id, run_event
from tests.relay.conftest import EventKey, Producer, RelayProcess, http_call, post_json


def _relay(tmp_path: Path, key_path: Path, out: Path, *extra: str) -> RelayProcess:
    return RelayProcess(
        tmp_path, key_path=key_path, server_url=None, token=None, extra=["--output-dir", str(out), *extra]
    )


def _closed(out: Path) -> list[Path]:
    return sorted(out.glob("relay-*.jsonl"), key=lambda path: path.stat().st_mtime_ns)


def _lines(paths: list[Path]) -> list[dict[str, object]]:
    return [json.loads(line) for path in paths for line in path.read_bytes().splitlines()]


def _key(event: dict[str, object]) -> EventKey:
    run = event["run"]
    assert isinstance(run, dict)
    return (str(run["runId"]), str(event["eventType"]), str(event["eventTime"]))


def _ship(directory: Path, url: str, token: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "lineage_relay.ship", str(directory), "--url", url, "--token", token],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.django_db(transaction=True)
def test_killed_mid_stream_every_accepted_event_is_in_the_files_and_lands_once_verified(  # type: ignore[no-untyped-def]
    graph, live_server, ingest_token, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    key, key_path = relay_key
    ProducerKey.objects.create(producer="site-b relay", public_key=public_key_pem(key.public_key()))
    out = tmp_path / "outbox"
    # Small files and a short age, so that the stream is cut into many files, by size and by time.
    relay = _relay(tmp_path, key_path, out, "--file-max-bytes", "20000", "--file-max-seconds", "1")
    relay.start()
    producer = Producer(relay.url)
    producer.start()
    try:
        wait_until(lambda: len(producer.accepted) >= 60, timeout=30, what="a stream of events")
        relay.kill()
        killed_at = len(producer.accepted)
        time.sleep(0.3)
        relay.start()  # the same buffer and directory: what was accepted and not yet written is written now
        wait_until(lambda: len(producer.accepted) >= killed_at + 60, timeout=30, what="the stream to resume")
    finally:
        producer.stop()
    accepted = Counter(producer.accepted)
    assert set(accepted.values()) == {1}

    # Idle, the open file is closed once it is a second old: everything is in visible, closed files.
    wait_until(lambda: relay.metrics()["lineage_relay_backlog_events"] == 0, timeout=30, what="the files")
    wait_until(lambda: not (out / OPEN_NAME).exists() or not (out / OPEN_NAME).stat().st_size, timeout=10, what="age")
    metrics = relay.metrics()
    health = relay.health()
    assert relay.terminate() == 0, relay.logs()
    closed = _closed(out)
    assert metrics["lineage_relay_output_files"] == len(closed) > 2, relay.logs()
    assert metrics["lineage_relay_output_bytes"] == sum(path.stat().st_size for path in closed)
    assert metrics["lineage_relay_output_up"] == 1
    assert metrics["lineage_events_written_total"] == metrics["lineage_events_received_total"]
    assert "lineage_events_forwarded_total" not in metrics and "lineage_relay_server_up" not in metrics
    assert health["output"]["writable"] is True and health["output"]["directory"] == str(out), health
    assert max(path.stat().st_size for path in closed) <= 20000

    written = Counter(_key(event) for event in _lines(closed))
    assert set(written) == set(accepted), "every accepted event is in the files, and nothing else"
    # A kill between the sync of a file and the buffer's commit writes that batch again (at most 500 events,
    # --batch-size), and a producer that lost its answer to the kill posts its event again: copies, no loss.
    copies = sum(written.values()) - len(accepted)
    assert 0 <= copies <= 500 + 1
    order = [_key(event) for event in _lines(closed)]
    assert sorted(set(order), key=order.index) == list(accepted), "written in arrival order"

    report = _ship(out, live_server.url, ingest_token)
    assert f"{sum(written.values())} event(s) delivered" in report, report
    assert LineageEvent.objects.count() == len(accepted), "each event once"
    events_apply(event_ids=list(LineageEvent.objects.order_by("event_time").values_list("id", flat=True)))
    stored = LineageEvent.objects.all()
    assert {_key(event.payload) for event in stored} == set(accepted)
    assert {(event.status, event.verification) for event in stored} == {("applied", "VERIFIED")}
    assert "0 event(s) delivered" in _ship(out, live_server.url, ingest_token), "shipped once"


@pytest.mark.django_db(transaction=True)
def test_carried_files_load_with_import_events_once_and_the_open_file_stays_out_of_sight(  # type: ignore[no-untyped-def]
    graph, relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path
):
    key, key_path = relay_key
    ProducerKey.objects.create(producer="site-b relay", public_key=public_key_pem(key.public_key()))
    source = Ed25519PrivateKey.generate()
    ProducerKey.objects.create(producer="a signing producer", public_key=public_key_pem(source.public_key()))
    out = tmp_path / "outbox"
    relay = _relay(tmp_path, key_path, out)
    relay.start()
    # Signed at its source and pretty-printed: kept byte for byte in the buffer, written on one line.
    signed = sign_event(run_event("START", run_id=new_run_id()), source)
    pretty = json.dumps(signed, indent=2).encode()
    assert http_call(f"{relay.url}/api/v1/lineage", body=pretty, headers={"Content-Type": "application/json"})[0] == 201
    events = [run_event("COMPLETE", run_id=new_run_id()) for _ in range(20)]
    assert post_json(f"{relay.url}/api/v1/lineage/batch", events)[1]["summary"]["successful"] == 20
    wait_until(lambda: relay.metrics()["lineage_events_written_total"] == 21, timeout=30, what="writing")
    # Within the hour, the events are in the open file, which is hidden: nothing visible is half written.
    assert len((out / OPEN_NAME).read_bytes().splitlines()) == 21
    assert _closed(out) == []
    assert relay.terminate() == 0, relay.logs()
    (closed,) = _closed(out)  # a stop closes the open file
    assert not (out / OPEN_NAME).exists()

    for _ in range(2):
        call_command("import_events", str(closed), stdout=io.StringIO(), stderr=io.StringIO())
    assert LineageEvent.objects.count() == 21
    events_apply(event_ids=list(LineageEvent.objects.values_list("id", flat=True)))
    assert set(LineageEvent.objects.values_list("verification", flat=True)) == {"VERIFIED"}
    assert LineageEvent.objects.get(run_id=signed["run"]["runId"]).payload == signed


def test_a_second_relay_on_the_same_directory_is_refused(relay_key: tuple[Ed25519PrivateKey, Path], tmp_path: Path):
    out = tmp_path / "outbox"
    first = _relay(tmp_path, relay_key[1], out)
    first.start()
    try:
        second = subprocess.run(
            [sys.executable, "-m", "lineage_relay", "--output-dir", str(out), "--buffer", str(tmp_path / "b")],
            cwd=ROOT,
            env={**os.environ, "TRIBUTARY_SIGNING_KEY": str(relay_key[1])},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 2
        assert "another process writes to" in second.stderr
    finally:
        assert first.terminate() == 0


def test_file_mode_is_chosen_by_the_output_directory_alone(capsys: pytest.CaptureFixture[str]) -> None:
    # The agent on the node may point TRIBUTARY_URL at this relay: that is not a server to forward to.
    environ = {"TRIBUTARY_URL": "http://127.0.0.1:5050", "TRIBUTARY_SIGNING_KEY": "k"}
    config = relay_config_parse(argv=["--output-dir", "/spool/out"], environ=environ)
    assert (config.server_url, config.output_dir) == (None, Path("/spool/out"))
    assert (config.file_max_bytes, config.file_max_seconds) == (64 * 1024**2, 3600.0)
    relay_vars = {
        "TRIBUTARY_SIGNING_KEY": "k",
        "TRIBUTARY_RELAY_OUTPUT_DIR": "/o",
        "TRIBUTARY_RELAY_FILE_MAX_SECONDS": "60",
    }
    assert relay_config_parse(argv=[], environ=relay_vars).file_max_seconds == 60.0
    for argv, env in (
        (["--output-dir", "/o", "--server-url", "http://s"], {"TRIBUTARY_SIGNING_KEY": "k"}),
        (["--output-dir", "/o"], {"TRIBUTARY_SIGNING_KEY": "k", "TRIBUTARY_RELAY_SERVER_URL": "http://s"}),
    ):
        with pytest.raises(SystemExit):
            relay_config_parse(argv=argv, environ=env)
        assert "not both" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        relay_config_parse(argv=[], environ={"TRIBUTARY_SIGNING_KEY": "k"})
    assert "or --output-dir for file mode" in capsys.readouterr().err


def test_closed_files_keep_their_names_and_a_torn_tail_is_cut_before_appending(tmp_path: Path) -> None:
    sink = output_sink(tmp_path, max_bytes=100, max_age_s=3600)
    lines = [event_line(json.dumps({"n": n, "pad": "x" * 30}).encode()) for n in range(6)]
    assert sink.append(lines) == 6
    closed = sink.closed_files()
    assert [path.name.startswith("relay-") and path.suffix == ".jsonl" for path in closed] == [True, True]
    assert all(path.stat().st_size <= 100 for path in [*closed, sink.path])
    before = {path: path.read_bytes() for path in closed}
    # A crash in the middle of a line (its events were not recorded as written: they come again).
    with sink.path.open("ab") as handle:
        handle.write(b'{"n": 6, "pa')
    assert sink.append([event_line(b'{"n":6}')]) == 1
    assert sink.path.read_bytes().splitlines()[-1] == b'{"n":6}'
    assert [json.loads(line)["n"] for path in sink.files() for line in path.read_bytes().splitlines()] == [
        0,
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    assert {path: path.read_bytes() for path in closed} == before, "a closed file is never written again"
    assert sink.close_file(when_old=True) is None, "not an hour old"
    newest = sink.close_file(when_old=False)
    assert newest is not None and newest in sink.closed_files() and not sink.path.exists()
    assert event_line(b'{\n  "a": 1\n}') == b'{"a":1}\n'
