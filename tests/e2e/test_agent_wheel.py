"""The agent as its own distribution: its wheel, in a clean venv with pyspark only, sends signed lineage to a server."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from lineage_app.ingest.models import LineageEvent
from lineage_app.ingest.services import events_apply
from lineage_app.signatures.models import ProducerKey, SignaturePolicy
from lineage_protocol import generate_private_key, key_id, load_public_key, private_key_pem, public_key_pem
from tests.conftest import ROOT
from tests.packaging import agent_wheel_build, run_ok

pytestmark = [pytest.mark.spark, pytest.mark.django_db(transaction=True)]

PYSPARK = "pyspark==3.5.9"  # the cluster's own Spark; the wheel does not bring it


@pytest.fixture(scope="module")
def agent_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return agent_wheel_build(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_agent_the_relay_and_the_protocol_and_nothing_of_the_server(agent_wheel: Path) -> None:
    names = zipfile.ZipFile(agent_wheel).namelist()
    tracked = subprocess.run(
        ["git", "ls-files", "spark_agent", "lineage_relay", "lineage_protocol"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "lineage_protocol/__init__.py" in names
    assert "spark_agent/lifecycle.py" in names
    assert "lineage_protocol/schemas/TributarySignatureRunFacet.json" in names
    assert "lineage_relay/command.py" in names
    assert not set(tracked) - set(names)
    packages = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    assert packages == {"spark_agent", "lineage_relay", "lineage_protocol"}
    assert not [n for n in names if n.startswith(("lineage_app/", "tests/")) or "__pycache__" in n]
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    requires = [
        line.split(":", 1)[1].strip()
        for line in zipfile.ZipFile(agent_wheel).read(metadata).decode().splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert sorted(r.split(">")[0].split("=")[0].split("<")[0] for r in requires) == ["cryptography", "rfc8785"]


def test_the_wheel_installs_a_command_for_the_agent_the_relay_ship_keygen_and_verify(agent_wheel: Path) -> None:
    wheel = zipfile.ZipFile(agent_wheel)
    entry_points = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")))
    scripts = [line for line in entry_points.decode().splitlines() if " = " in line]
    assert sorted(scripts) == [
        "tributary-agent = spark_agent.__main__:main",
        "tributary-keygen = lineage_protocol.keygen:main",
        "tributary-relay = lineage_relay.command:main",
        "tributary-ship = lineage_relay.ship:main",
        "tributary-verify = lineage_protocol.verify:main",
    ]


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
    # The relay's and the protocol's tools came with it, each as its command.
    made = run_ok(venv / "bin/tributary-keygen", "--out", tmp_path / "keys", cwd=tmp_path).stdout.strip()
    assert made == key_id(load_public_key(tmp_path / "keys/agent.pub.pem"))
    assert "--server-url" in run_ok(venv / "bin/tributary-relay", "--help", cwd=tmp_path).stdout
    assert "--url" in run_ok(venv / "bin/tributary-ship", "--help", cwd=tmp_path).stdout

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
