"""`python -m spark_agent run`: unmodified scripts, exit codes, failures and SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from agent_support import EventValidator, read_events

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PREAMBLE = """
import sys, time
from pathlib import Path
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("nightly")
         .config("spark.ui.enabled", "false").getOrCreate())
spark.range(3).write.parquet(sys.argv[1])
"""


def _start(tmp_path: Path, body: str) -> tuple[subprocess.Popen[bytes], Path]:
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(PREAMBLE) + textwrap.dedent(body))
    events = tmp_path / "events.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIBUTARY_")}
    env.update(
        TRIBUTARY_TRANSPORT="file",
        TRIBUTARY_FILE_PATH=str(events),
        TRIBUTARY_NAMESPACE="batch",
        PYTHONPATH=str(ROOT),
    )
    cmd = [sys.executable, "-m", "spark_agent", "run", str(script), str(tmp_path / "out")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    return proc, events


def test_run_keeps_the_scripts_exit_code_and_reports_its_failure(tmp_path: Path, validator: EventValidator) -> None:
    proc, path = _start(tmp_path, 'raise RuntimeError("job broke")\n')
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 1
    assert b"RuntimeError: job broke" in stderr
    assert b"events_dropped_total=0" in stderr
    events = read_events(path)
    for event in events:
        validator.validate(event)
    assert [(e["eventType"], e["job"]["name"]) for e in events] == [
        ("START", "nightly"),
        ("START", "nightly.write_parquet.out"),
        ("COMPLETE", "nightly.write_parquet.out"),
        ("FAIL", "nightly"),
    ]
    assert {e["job"]["namespace"] for e in events} == {"batch"}
    error = events[-1]["run"]["facets"]["errorMessage"]
    assert error["message"] == "RuntimeError: job broke"


def test_sigterm_aborts_the_application_run(tmp_path: Path, validator: EventValidator) -> None:
    marker = tmp_path / "ready"
    proc, path = _start(tmp_path, f"Path({str(marker)!r}).touch()\ntime.sleep(300)\n")
    deadline = time.monotonic() + 180
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    events = read_events(path)
    for event in events:
        validator.validate(event)
    assert [e["eventType"] for e in events if e["job"]["name"] == "nightly"] == ["START", "ABORT"]
    assert ("COMPLETE", "nightly.write_parquet.out") in [(e["eventType"], e["job"]["name"]) for e in events]
