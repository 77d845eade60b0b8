"""What the packaging tests share: running a command that must succeed, and building the agent's wheel."""

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


def agent_wheel_build(out: Path) -> Path:
    """Build `tributary-spark-agent` from packaging/agent into `out`, as `make dist` does; its wheel."""
    run_ok(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        out,
        ROOT / "packaging/agent",
    )
    (wheel,) = out.glob("tributary_spark_agent-*.whl")
    return wheel
