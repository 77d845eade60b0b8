"""An audit end to end, with real processes: signed chained events through the real API, `manage.py audit_bundle`
as a process of its own, and `python -m spark_agent audit verify` where Django cannot even be imported."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from pypdf import PdfReader

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.verification import events_verify
from lineage_app.ledger.checkpoints import checkpoint_sign
from lineage_protocol import StreamChain
from tests.conftest import ROOT, database_url
from tests.ledger.chains import KEY, PRODUCER, contents, register

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = "lineage.test/log"
# What the verifier needs besides the agent's own packages: the agent wheel's dependencies, and reportlab
# (with what it loads) for --pdf. No Django, no DRF, nothing of the server.
AGENT_DEPENDENCIES = ("cryptography", "cffi", "_cffi_backend", "rfc8785", "reportlab", "PIL", "charset_normalizer")


@pytest.fixture(autouse=True)
def _log(settings: Any, tmp_path: Path) -> None:
    settings.LEDGER_ORIGIN = ORIGIN
    settings.LEDGER_SIGNING_KEY_PATH = tmp_path / "keys" / "ledger.key"
    register()


def _post(url: str, token: str, events: list[dict[str, Any]]) -> None:
    request = urllib.request.Request(
        f"{url}/api/v1/lineage/batch",
        data=json.dumps(events).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert {r["status"] for r in json.load(response)["results"]} == {"accepted"}


def _manage(*argv: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "DATABASE_URL": database_url(),
        "TRIBUTARY_VAR_DIR": str(tmp_path / "var"),
        "REDIS_URL": settings.CELERY_BROKER_URL,
        "LEDGER_ORIGIN": ORIGIN,
        "LEDGER_SIGNING_KEY_PATH": str(settings.LEDGER_SIGNING_KEY_PATH),
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def _agent_only(tmp_path: Path) -> dict[str, str]:
    """An environment whose Python sees the agent's packages and their dependencies, and not the server's."""
    path = tmp_path / "agent-only"
    path.mkdir()
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    for name in ("spark_agent", "lineage_relay", "lineage_protocol"):
        (path / name).symlink_to(ROOT / name)
    for entry in site.iterdir():
        if entry.name.split(".")[0] in AGENT_DEPENDENCIES and not entry.name.endswith((".dist-info", "-stubs")):
            (path / entry.name).symlink_to(entry)
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(path)}


def _verify(bundle: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    # -S: not the virtualenv's site-packages, only what PYTHONPATH names.
    return subprocess.run(
        [sys.executable, "-S", "-m", "spark_agent", "audit", "verify", str(bundle), *options],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_bundle_verifies_offline_and_one_edit_names_the_stream_and_seq(
    live_server: Any, ingest_token: str, tmp_path: Path
) -> None:
    chain = StreamChain(KEY, "spark:app-1:e2e")
    events = [chain.sign(event) for event in contents(6, tag="e2e")]
    _post(live_server.url, ingest_token, [*events, chain.heartbeat(namespace="spark")])
    # As a worker does before applying: the ledger records each verified event's chain position.
    events_verify(events=list(LineageEvent.objects.filter(status__in=LineageEvent.APPLYABLE)))
    checkpoint_sign()

    bundle = tmp_path / "audit.jsonl.gz"
    made = _manage(
        "audit_bundle", "--producer", PRODUCER, "--namespace", "spark", "--output", str(bundle), tmp_path=tmp_path
    )
    assert made.returncode == 0, made.stderr
    assert "wrote 7 event(s) with proofs against the checkpoint of tree size 7" in made.stderr
    assert not Path(f"{bundle}.partial").exists()

    env = _agent_only(tmp_path)
    no_django = subprocess.run([sys.executable, "-S", "-c", "import django"], env=env, capture_output=True, text=True)
    assert no_django.returncode == 1 and "No module named 'django'" in no_django.stderr

    html, pdf = tmp_path / "audit.html", tmp_path / "audit.pdf"
    done = _verify(bundle, env, "--html", str(html), "--pdf", str(pdf))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"stream {chain.stream} ({PRODUCER}): seq 1-6, 6 event(s), contiguous: ok" in done.stdout
    assert done.stdout.rstrip().endswith("verdict: ok")
    assert "verified" in html.read_text() and chain.stream in html.read_text()
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Verdict: verified" in text and PRODUCER in text

    # One edit: the fourth event's job renamed, in the (gunzipped) bundle.
    lines = gzip.decompress(bundle.read_bytes()).splitlines(keepends=True)
    lines[4] = lines[4].replace(b"job_3", b"job_9")
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"".join(lines))
    done = _verify(edited, env, "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "failed"
    [stream] = report["streams"]
    assert (stream["stream"], stream["verdict"], stream["gaps"]) == (chain.stream, "failed", [{"from": 4, "to": 4}])
    assert stream["problems"][0].startswith("seq 4, line 5 (leaf 3): ")
    assert any("seal does not match" in p for p in report["problems"])

    text_run = _verify(edited, env)
    assert text_run.returncode == 1
    assert f"stream {chain.stream} ({PRODUCER}): seq 1-6, 5 event(s), gap, gap 4-4: FAILED" in text_run.stdout
    assert "Traceback" not in text_run.stdout + text_run.stderr


def test_the_command_refuses_a_selection_it_cannot_prove_and_a_file_it_cannot_read(tmp_path: Path) -> None:
    made = _manage("audit_bundle", "--producer", "nobody", "--output", str(tmp_path / "x.jsonl"), tmp_path=tmp_path)
    assert made.returncode == 1 and "no accepted event matches the selection" in made.stderr
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path / "x.jsonl.partial").exists()
    made = _manage("audit_bundle", "--from", "yesterday", tmp_path=tmp_path)
    assert made.returncode == 1 and "--from: not an ISO 8601 date-time" in made.stderr
    done = _verify(tmp_path / "missing.jsonl", _agent_only(tmp_path))
    assert done.returncode == 2 and "cannot read" in done.stderr
