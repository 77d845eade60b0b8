"""The agent as its own distribution: its wheel, in a clean venv with pyspark only, sends signed lineage to a server."""

from __future__ import annotations

import os
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from spark_agent.protocol import generate_private_key, private_key_pem, public_key_pem
from tests.packaging import agent_wheel_build, run_ok

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]

PYSPARK = "pyspark==3.5.9"  # the cluster's own Spark; the wheel does not bring it


@pytest.fixture(scope="module")
def agent_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agent_wheel_build(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_agent_and_the_protocol_and_nothing_of_the_server(agent_wheel: Path) -> None:
    names = zipfile.ZipFile(agent_wheel).namelist()
    assert "spark_agent/protocol/__init__.py" in names
    assert "spark_agent/lifecycle.py" in names
    assert "spark_agent/schemas/TributarySignatureRunFacet.json" in names
    assert not [n for n in names if n.startswith(("lineage_app/", "tests/")) or "__pycache__" in n]
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    requires = [
        line.split(":", 1)[1].strip()
        for line in zipfile.ZipFile(agent_wheel).read(metadata).decode().splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert sorted(r.split(">")[0].split("=")[0].split("<")[0] for r in requires) == ["cryptography", "rfc8785"]


def test_a_job_run_through_the_installed_wheel_lands_verified(  # type: ignore[no-untyped-def]
    agent_wheel: Path, graph, live_server, ingest_token, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    run_ok(sys.executable, "-m", "venv", venv)
    python = venv / "bin/python"
    run_ok(python, "-m", "pip", "install", "--quiet", agent_wheel, PYSPARK)
    # Nothing of the server came along.
    probe = run_ok(
        python,
        "-c",
        "import importlib.util as u; print([m for m in ('django', 'lineage_app', 'neo4j') if u.find_spec(m)])",
        cwd=tmp_path,  # not the repository, whose lineage_app/ would be found from the working directory
    )
    assert probe.stdout.strip() == "[]"

    key = generate_private_key()
    key_path = tmp_path / "agent.key"
    key_path.write_text(private_key_pem(key))
    ProducerKey.objects.create(producer="wheel test", public_key=public_key_pem(key.public_key()))
    SignaturePolicy.objects.create(namespace="wheel", mode=SignaturePolicy.Mode.ENFORCE)
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            f"""
            from pyspark.sql import SparkSession

            spark = SparkSession.builder.master("local[1]").appName("wheel_job").getOrCreate()
            frame = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "name"])
            frame.write.mode("overwrite").parquet({str(tmp_path / "out")!r})
            spark.stop()
            """
        )
    )
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "JAVA_HOME": os.environ.get("JAVA_HOME", ""),
        "TRIBUTARY_URL": live_server.url,
        "TRIBUTARY_TOKEN": ingest_token,
        "TRIBUTARY_NAMESPACE": "wheel",
        "TRIBUTARY_SIGNING_KEY": str(key_path),
    }
    run_ok(python, "-m", "spark_agent", "run", job, cwd=tmp_path, env={k: v for k, v in env.items() if v})

    events = LineageEvent.objects.filter(job_namespace="wheel")
    assert events.count() >= 3, "the application START and COMPLETE, and the write action"
    events_apply(event_ids=list(events.values_list("id", flat=True)))
    assert set(events.values_list("status", "verification")) == {("applied", "VERIFIED")}
    outputs = {
        name
        for payload in events.values_list("payload", flat=True)
        for name in (o["name"] for o in payload.get("outputs", []))
    }
    assert str(tmp_path / "out") in outputs
