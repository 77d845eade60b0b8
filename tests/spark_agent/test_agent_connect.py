"""A Spark Connect session: `install()` refuses it clearly, `run` lets the script go on without lineage."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from agent_support import spark_version

CONNECT_LIBRARIES = ("grpc", "pandas", "pyarrow", "zstandard")
pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(
        not all(importlib.util.find_spec(name) for name in CONNECT_LIBRARIES),
        reason="Spark Connect's client libraries (grpcio, pandas, pyarrow, ...) are installed only by "
        "make test-spark4 (requirements/spark4.txt)",
    ),
]
ROOT = Path(__file__).resolve().parents[2]


def test_a_connect_session_is_refused_by_install_and_run_lets_the_script_go_on(tmp_path: Path) -> None:
    # Spark 4.0 chooses Connect by a setting of the ordinary builder; 3.5 only by `remote()`. Either
    # way a local Connect server starts in this (fresh) process and the session is its client.
    builder = (
        'SparkSession.builder.master("local[1]").config("spark.api.mode", "connect")'
        if spark_version() >= (4, 0)
        else 'SparkSession.builder.remote("local[1]")'
    )
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(f"""
            from pyspark.sql import SparkSession

            import spark_agent

            spark = {builder}.getOrCreate()
            print("session:", type(spark).__module__)
            try:
                spark_agent.install(spark)
            except TypeError as exc:
                print(f"refused: {{type(exc).__name__}}: {{exc}}")
            print("rows:", spark.range(3).count())
            spark.stop()
        """)
    )
    events = tmp_path / "events.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIBUTARY_")}
    env.update(TRIBUTARY_TRANSPORT="file", TRIBUTARY_FILE_PATH=str(events), PYTHONPATH=str(ROOT))
    finished = subprocess.run(
        [sys.executable, "-m", "spark_agent", "run", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert finished.returncode == 0, finished.stderr[-3000:]
    lines = finished.stdout.splitlines()
    assert "session: pyspark.sql.connect.session" in lines
    refused = next(line for line in lines if line.startswith("refused: "))
    assert refused.startswith("refused: ConnectSessionError: spark_agent needs a classic SparkSession")
    assert "Spark Connect client session" in refused
    assert "rows: 3" in lines  # the job itself is untouched
    # `run` met the same session through the builder: a warning, no agent, no events.
    assert "tributary: no lineage for this session: spark_agent needs a classic SparkSession" in finished.stderr
    assert not events.exists()
