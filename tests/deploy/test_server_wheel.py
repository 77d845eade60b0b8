"""The server's wheel (packaging/server): everything the server reads at run time, the built UI, the
`tributary-server` command, and dependencies that are exactly requirements/runtime.txt."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT
from tests.packaging import server_wheel_build


@pytest.fixture(scope="module")
def server_wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    assert (ROOT / "frontend/dist/index.html").exists(), "build the UI first: make frontend (make test does)"
    return zipfile.ZipFile(server_wheel_build(tmp_path_factory.mktemp("wheel")))


def _metadata(wheel: zipfile.ZipFile, name: str) -> str:
    return wheel.read(next(n for n in wheel.namelist() if n.endswith(f".dist-info/{name}"))).decode()


def test_the_wheel_holds_every_file_of_the_server_package_and_nothing_else(server_wheel: zipfile.ZipFile) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "lineage_app"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert any(f.endswith(".json") for f in tracked) and any(f.endswith(".html") for f in tracked)
    packaged = {n for n in server_wheel.namelist() if not n.startswith(("lineage_app/ui/", "tributary_server-"))}
    # Migrations, templates and the OpenLineage schemas included: a file the server reads that the wheel
    # lacks fails here (and in test_runtime_install, which runs the installed server).
    assert not set(tracked) - packaged
    assert not [n for n in packaged if not n.startswith("lineage_app/") or "__pycache__" in n or n.endswith(".pyc")]


def test_the_wheel_carries_the_built_ui_where_the_installed_settings_find_it(server_wheel: zipfile.ZipFile) -> None:
    index = server_wheel.read("lineage_app/ui/index.html").decode()
    assert index == (ROOT / "frontend/dist/index.html").read_text()
    assets = re.findall(r'(?:src|href)="/static/([^"]+)"', index)
    assert assets and all(f"lineage_app/ui/{a}" in server_wheel.namelist() for a in assets)


def test_the_wheel_installs_the_tributary_server_command(server_wheel: zipfile.ZipFile) -> None:
    entry_points = _metadata(server_wheel, "entry_points.txt")
    assert "tributary-server = lineage_app.__main__:main" in entry_points.splitlines()


def test_the_wheel_depends_on_the_runtime_requirements_exactly_and_on_the_agent_at_its_version(
    server_wheel: zipfile.ZipFile,
) -> None:
    requires = [
        Requirement(line.split(":", 1)[1].strip())
        for line in _metadata(server_wheel, "METADATA").splitlines()
        if line.startswith("Requires-Dist:")
    ]
    lines = [line.split("#", 1)[0].strip() for line in (ROOT / "requirements/runtime.txt").read_text().splitlines()]
    runtime = [Requirement(line) for line in lines if line]
    agent = tomllib.loads((ROOT / "packaging/agent/pyproject.toml").read_text())["project"]
    expected = [*runtime, Requirement(f"{agent['name']}=={agent['version']}")]
    assert sorted(map(_key, requires)) == sorted(map(_key, expected))


def _key(requirement: Requirement) -> tuple[str, tuple[str, ...], str, str]:
    return (
        canonicalize_name(requirement.name),
        tuple(sorted(requirement.extras)),
        str(requirement.specifier),
        str(requirement.marker or ""),
    )


def test_the_wheel_is_not_built_without_the_ui(tmp_path: Path) -> None:
    """A wheel without frontend/dist would answer 503 on every page: the build refuses, and says why."""
    for part in ("packaging/server", "lineage_app"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("packaging/agent/pyproject.toml", "requirements/runtime.txt"):
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, tmp_path / part)
    out, project = tmp_path / "out", tmp_path / "packaging/server"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(project)]
    done = subprocess.run(build, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "build the web UI first (make frontend)" in done.stdout + done.stderr
    assert not out.exists() or not list(out.iterdir())
