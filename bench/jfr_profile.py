"""Where a graph engine's JVM spends its CPU, from Java Flight Recorder's execution samples.

A benchmark records a span of its run (`Recording`: `jcmd <pid> JFR.start` / `JFR.stop`, the JDK's own
tools, no agent and no restart) and `breakdown` sorts the samples into the kinds of work a write path
does (index seeks, the commit, property reads and writes, ...) by the frames on each sample's stack.
`bench/apply_profile.py --engine-profile` uses it on a local Neo4j. Standalone, on any recording:

    python bench/jfr_profile.py recording.jfr
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

# A sample's kind is the first of these whose marker is a frame anywhere on its stack (class and
# method names of Neo4j 5's kernel and slotted runtime), so a seek inside a MERGE counts as a seek
# and the index updates of a commit as the commit.
KINDS = (
    ("commit (records, indexes, transaction log)", ("KernelTransactionImplementation.commit",)),
    ("index seeks", ("IndexSeek", "lockingNodeUniqueIndexSeek", "nodeIndexSeek")),
    ("relationship MERGE and expands", ("Expand", "LockingMerge", "relationshipsBetween", "RelationshipTraversal")),
    ("property writes", ("setProperties", "SetProperty", "SetPipe", "SetProperties")),
    ("property reads", ("PropertyCursor", "getProperty", "CachedProperty")),
    ("node MERGE and CREATE", ("MergePipe", "CreatePipe", "CreateNode")),
    ("query planning", ("CypherPlanner", "planner", "QueryCache", "Parser")),
    ("Cypher runtime, other", ("cypher.internal.runtime",)),
    ("Bolt and result streaming", ("bolt",)),
)
OTHER = "other (transaction state, locks, JIT-compiled glue)"


class Recording:
    """A JFR recording of `pid`'s samples while the `with` block runs; `path` holds it afterwards."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid, self.path, self.name = pid, path, f"tributary-{path.stem}"

    def __enter__(self) -> Recording:
        self._jcmd("JFR.start", f"name={self.name}", "settings=profile")
        return self

    def __exit__(self, *exc: object) -> None:
        self._jcmd("JFR.stop", f"name={self.name}", f"filename={self.path}")

    def _jcmd(self, *command: str) -> None:
        subprocess.run(["jcmd", str(self.pid), *command], check=True, capture_output=True)


def frame_name(frame: dict) -> str:
    method = frame["method"]
    return f"{method['type']['name'].replace('/', '.')}.{method['name']}"


def breakdown(path: Path) -> tuple[int, list[tuple[str, float]], list[tuple[str, float]]]:
    """How many execution samples `path` holds, each kind's share of them and the ten methods most often on top of
    the stack (engine-agnostic, where `KINDS` are Neo4j's), largest first."""
    printed = subprocess.run(
        ["jfr", "print", "--json", "--events", "jdk.ExecutionSample", "--stack-depth", "256", str(path)],
        check=True,
        capture_output=True,
    )
    events = json.loads(printed.stdout)["recording"]["events"]
    kinds: Counter[str] = Counter()
    tops: Counter[str] = Counter()
    for event in events:
        frames = [frame_name(f) for f in event["values"]["stackTrace"]["frames"]]
        stack = " ".join(frames)
        kinds[next((kind for kind, markers in KINDS if any(m in stack for m in markers)), OTHER)] += 1
        tops[frames[0] if frames else "?"] += 1
    total = sum(kinds.values()) or 1
    return (
        sum(kinds.values()),
        [(kind, count / total) for kind, count in kinds.most_common()],
        [(method, count / total) for method, count in tops.most_common(10)],
    )


def describe(path: Path) -> str:
    total, kinds, tops = breakdown(path)
    lines = [f"  {total} execution samples; by kind of work (Neo4j 5's classes):"]
    lines += [f"  {share * 100:5.1f} %  {kind}" for kind, share in kinds]
    lines.append("  on top of the stack:")
    lines += [f"  {share * 100:5.1f} %  {method}" for method, share in tops]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print(describe(Path(sys.argv[1])))
