"""The offline verifier on file-transport JSON-Lines output."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lineage_protocol import SIGNATURE_FACET, public_key_pem, sign_event, verify

REPO = Path(__file__).resolve().parents[2]
EVENT_TYPES = ["START", "RUNNING", "RUNNING", "COMPLETE", "START", "FAIL"]


def write_pem(path: Path, key: Ed25519PrivateKey) -> Path:
    path.write_text(public_key_pem(key.public_key()))
    return path


def signed_lines(event: dict, key: Ed25519PrivateKey) -> list[str]:
    """Six events of two runs, one JSON document per line, as the file transport writes them."""
    lines = []
    for number, event_type in enumerate(EVENT_TYPES):
        this = copy.deepcopy(event)
        this.update(eventType=event_type, eventTime=f"2025-03-14T09:26:{number:02d}Z")
        this["run"]["runId"] = f"0195a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a{number // 4:02d}"
        lines.append(json.dumps(sign_event(this, key)))
    return lines


@pytest.fixture
def pub(tmp_path: Path, private_key: Ed25519PrivateKey) -> Path:
    return write_pem(tmp_path / "agent.pub.pem", private_key)


@pytest.fixture
def lines(event: dict, private_key: Ed25519PrivateKey) -> list[str]:
    return signed_lines(event, private_key)


def run_verify(capsys: pytest.CaptureFixture[str], *argv: Path | str) -> tuple[int, list[str]]:
    code = verify.main([str(arg) for arg in argv])
    return code, capsys.readouterr().out.splitlines()


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def test_a_file_where_every_line_verifies_exits_0(
    tmp_path: Path, pub: Path, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    events = write_lines(tmp_path / "events.jsonl", lines)
    code, out = run_verify(capsys, "--public-key", pub, events)
    assert code == 0
    assert out == [
        "1 file(s), 6 line(s): 6 verified, 0 failed (0 not JSON, 0 unsigned, "
        "0 malformed signature facet, 0 unknown key id, 0 signature mismatch)"
    ]


def test_one_altered_line_exits_1_and_is_reported_by_number(
    tmp_path: Path, pub: Path, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    lines[3] = lines[3].replace('"rowCount": 120544', '"rowCount": 12054')
    events = write_lines(tmp_path / "events.jsonl", lines)
    code, out = run_verify(capsys, "--public-key", pub, events)
    assert code == 1
    assert out[0].startswith(f"{events}:4: signature mismatch: event altered, or not signed by")
    assert len(out) == 2
    assert out[1].startswith("1 file(s), 6 line(s): 5 verified, 1 failed (")
    assert "1 signature mismatch" in out[1]


def test_each_kind_of_bad_line_is_reported_with_its_reason(
    tmp_path: Path,
    pub: Path,
    lines: list[str],
    event: dict,
    other_key: Ed25519PrivateKey,
    capsys: pytest.CaptureFixture[str],
) -> None:
    malformed = json.loads(lines[1])
    malformed["run"]["facets"][SIGNATURE_FACET]["signature"] = "not base64!"
    duplicated = lines[2][:-1] + ', "eventType": "COMPLETE"}'
    bad = [
        lines[0],
        json.dumps(malformed),
        duplicated,
        "{not json",
        "",
        json.dumps(event),
        json.dumps(sign_event(event, other_key)),
        '{"eventType": NaN}',
        "[1, 2]",
        lines[5],
    ]
    events = write_lines(tmp_path / "events.jsonl", bad)
    code, out = run_verify(capsys, "--public-key", pub, events)
    assert code == 1
    report = {int(line.split(":")[1]): line.split(": ", 1)[1] for line in out[:-1]}
    assert {number: line.split(":")[0] for number, line in report.items()} == {
        2: "malformed signature facet",
        3: "not JSON",
        4: "not JSON",
        5: "not JSON",
        6: "unsigned",
        7: "unknown key id",
        8: "not JSON",
        9: "not JSON",
    }
    assert "`signature` is not base64url" in report[2]
    assert "duplicate key 'eventType'" in report[3]
    assert "NaN is not valid JSON" in report[8]
    assert "expected a JSON object, got list" in report[9]
    assert out[-1] == (
        "1 file(s), 10 line(s): 2 verified, 8 failed (5 not JSON, 1 unsigned, "
        "1 malformed signature facet, 1 unknown key id, 0 signature mismatch)"
    )


def test_the_key_is_picked_by_key_id_among_several(
    tmp_path: Path,
    pub: Path,
    lines: list[str],
    event: dict,
    other_key: Ed25519PrivateKey,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rotated = write_lines(tmp_path / "events.jsonl", lines[:3] + signed_lines(event, other_key))
    other_pub = write_pem(tmp_path / "other.pub.pem", other_key)
    code, out = run_verify(capsys, "--public-key", pub, "--public-key", other_pub, rotated)
    assert code == 0
    assert out[-1].startswith("1 file(s), 9 line(s): 9 verified, 0 failed")


def test_rotated_and_gzipped_files_are_read_and_named_in_reports(
    tmp_path: Path, pub: Path, lines: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    older = tmp_path / "events.jsonl.1.gz"
    with gzip.open(older, "wt") as compressed:
        compressed.write("".join(line + "\n" for line in lines[:3]))
    current = write_lines(tmp_path / "events.jsonl", [lines[3], lines[4] + " x", lines[5]])
    code, out = run_verify(capsys, "--public-key", pub, older, current)
    assert code == 1
    assert out[0].startswith(f"{current}:2: not JSON")
    assert out[-1].startswith("2 file(s), 6 line(s): 5 verified, 1 failed")


def test_an_empty_file_verifies_nothing_and_exits_1(
    tmp_path: Path, pub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = write_lines(tmp_path / "events.jsonl", [])
    assert verify.main(["--public-key", str(pub), str(empty)]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("1 file(s), 0 line(s): 0 verified, 0 failed")
    assert "no events found" in captured.err


def test_an_unreadable_events_file_or_key_is_a_usage_error(
    tmp_path: Path, pub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = write_lines(tmp_path / "events.jsonl", ["{}"])
    assert verify.main(["--public-key", str(pub), str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key")
    assert verify.main(["--public-key", str(garbage), str(events)]) == 2
    assert "cannot load public key" in capsys.readouterr().err


def test_the_verifier_runs_as_a_module(tmp_path: Path, pub: Path, lines: list[str]) -> None:
    lines[4] = lines[4].replace('"eventType": "START"', '"eventType": "COMPLETE"')
    events = write_lines(tmp_path / "events.jsonl", lines)
    command = [sys.executable, "-m", "lineage_protocol.verify", "--public-key", str(pub), str(events)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr
    report = done.stdout.splitlines()
    assert report[0].startswith(f"{events}:5: signature mismatch")
    assert report[1].startswith("1 file(s), 6 line(s): 5 verified, 1 failed")
    del lines[4]
    write_lines(events, lines)
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout
