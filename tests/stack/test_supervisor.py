"""The stack's supervisor: one log file per child, lines handed to the caller, deaths noticed, all stopped."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from lineage_app.stack.supervisor import StopRequested, Supervisor, log_tail

PRINT_BOTH = "import sys; print('to stdout', flush=True); print('to stderr', file=sys.stderr, flush=True)"


@pytest.fixture
def stack() -> Supervisor:
    supervisor = Supervisor()
    yield supervisor
    supervisor.stop_all(grace=5)


def test_a_childs_stdout_and_stderr_go_to_its_own_log_file(stack: Supervisor, tmp_path: Path) -> None:
    child = stack.start("talker", [sys.executable, "-c", PRINT_BOTH], log_path=tmp_path / "log" / "talker.log")
    other = stack.start("quiet", [sys.executable, "-c", "print('other')"], log_path=tmp_path / "log" / "quiet.log")
    child.process.wait(timeout=30)
    other.process.wait(timeout=30)
    stack.stop_all()
    assert (tmp_path / "log" / "talker.log").read_text().splitlines() == ["to stdout", "to stderr"]
    assert (tmp_path / "log" / "quiet.log").read_text() == "other\n"


def test_each_line_is_logged_and_handed_to_the_caller(stack: Supervisor, tmp_path: Path) -> None:
    seen: list[str] = []
    child = stack.start(
        "talker",
        [sys.executable, "-c", PRINT_BOTH],
        log_path=tmp_path / "talker.log",
        on_line=seen.append,
        oneshot=True,
    )
    child.process.wait(timeout=30)
    assert child.pump is not None
    child.pump.join(timeout=10)
    assert seen == ["to stdout", "to stderr"]
    assert (tmp_path / "talker.log").read_text() == "to stdout\nto stderr\n"


def test_a_oneshot_child_may_end_but_any_other_childs_end_is_a_death(stack: Supervisor, tmp_path: Path) -> None:
    done = stack.start("example", [sys.executable, "-c", "pass"], oneshot=True)
    done.process.wait(timeout=30)
    assert stack.died() is None
    crashed = stack.start(
        "worker", [sys.executable, "-c", "print('boom'); raise SystemExit(3)"], log_path=tmp_path / "worker.log"
    )
    crashed.process.wait(timeout=30)
    assert stack.exited() == "worker"
    with pytest.raises(
        RuntimeError,
        match=r"worker exited \(status 3\) while waiting for the web server; "
        r"its log: .*worker\.log",
    ):
        stack.wait_ready("web", lambda: False, timeout=5, what="the web server")
    assert log_tail(tmp_path / "worker.log") == ["boom"]


def test_waiting_names_what_did_not_answer_and_where_its_log_is(stack: Supervisor, tmp_path: Path) -> None:
    stack.start("graph", [sys.executable, "-c", "import time; time.sleep(60)"], log_path=tmp_path / "graph.log")
    with pytest.raises(RuntimeError, match=r"the graph engine did not answer within 1 s; its log: .*graph\.log"):
        stack.wait_ready("graph", lambda: False, timeout=1, what="the graph engine")
    stopping = threading.Event()
    stopping.set()
    with pytest.raises(StopRequested):
        stack.wait_ready("graph", lambda: False, timeout=30, stopping=stopping)


def test_stop_all_ends_every_child_and_its_own_children(stack: Supervisor, tmp_path: Path) -> None:
    # The child starts a grandchild in its process group: both must be gone after stop_all.
    script = (
        "import subprocess, sys, time; "
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        "print(p.pid, flush=True); time.sleep(120)"
    )
    pids: list[str] = []
    child = stack.start("parent", [sys.executable, "-c", script], on_line=pids.append)
    for _ in range(100):
        if pids:
            break
        threading.Event().wait(0.1)
    grandchild = int(pids[0])
    stack.stop_all(grace=10)
    assert child.process.returncode is not None
    assert not Path(f"/proc/{grandchild}").exists() or "Z" in Path(f"/proc/{grandchild}/stat").read_text().split()[2]
    assert stack.children == []
