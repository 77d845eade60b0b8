"""What the packaging tests share: running a command that must succeed, and building the two wheels
(the agent's and the server's) as `make dist` does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def run_ok(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run `args` (text output captured); fail the test with the command's own output if it fails."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=900, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{args}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def wheel_build(project: Path, out: Path, name: str) -> Path:
    """Build the distribution in `project` into `out`; its wheel, `<name>-<version>-py3-none-any.whl`."""
    run_ok(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, project)
    (wheel,) = out.glob(f"{name}-*-py3-none-any.whl")
    return wheel


def agent_wheel_build(out: Path) -> Path:
    """The agent's wheel, built from packaging/agent into `out`."""
    return wheel_build(ROOT / "packaging/agent", out, "tributary_spark_agent")


def server_wheel_build(out: Path) -> Path:
    """The server's wheel, built from packaging/server into `out` (it holds the built UI: frontend/dist)."""
    return wheel_build(ROOT / "packaging/server", out, "tributary_server")
