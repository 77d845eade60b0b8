"""The server wheel's dependencies, read when it is built: requirements/runtime.txt (the one list of what
the server runs on, which the image and development install too) and the agent's distribution, pinned to
the version packaging/agent builds (the server imports its `lineage_protocol`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface


def runtime_requirements(path: Path) -> list[str]:
    """The requirement lines of `path`, without comments; nested files or options are refused."""
    requirements = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("-"):
            raise ValueError(f"{path}: {line!r}: the runtime requirements must be plain requirement lines")
        requirements.append(line)
    return requirements


def _repository(root: str) -> Path:
    return Path(root).resolve().parent.parent


class ServerDependencies(MetadataHookInterface):
    def update(self, metadata: dict[str, Any]) -> None:
        repository = _repository(self.root)
        agent = tomllib.loads((repository / "packaging/agent/pyproject.toml").read_text())["project"]
        metadata["dependencies"] = [
            *runtime_requirements(repository / "requirements/runtime.txt"),
            f"{agent['name']}=={agent['version']}",
        ]


class BuiltUi(BuildHookInterface):
    """A wheel without the built UI would serve 503 on every page: refuse to build it."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        index = _repository(self.root) / "frontend/dist/index.html"
        if not index.is_file():
            raise FileNotFoundError(f"{index} is missing: build the web UI first (make frontend)")
