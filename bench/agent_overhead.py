"""Agent overhead on a Spark job of several seconds: no agent, backend up, backend down, backend hanging.

    python bench/agent_overhead.py [--runs 5] [--rows 1500000,6000000] [--agent-root DIR] [--earlier-root DIR]

Each run is a fresh process (fresh JVM); modes are interleaved so that machine load
drifts alike for all of them. The timed span is what the agent can affect: from just
before the agent is imported and installed, through the job's actions, to the end of
`close()` (flush included); JVM start-up is not timed. The agent's packages are byte-compiled
first, as installing its wheel does. Prints, per job size, the medians of wall time and of
CPU time (this Python process plus the driver JVM, which on a shared machine is steadier than
wall time) and the overhead of each mode against no agent, then the agent's own
account of where its time went: the fixed part (import, `install()`, `close()`, on the job's
thread) and the per-action part (reading each finished action's plan, on Spark's listener thread),
and the driver JVM's CPU by kind of thread (the JIT compiler's, Spark's tasks', py4j's connections', where the
job's own driver-side calls run as well as the agent's) with the JIT's own account of its compile time:
what an agent's JVM calls cost beyond the threads that make them.

Backend down is a port that refuses connections; backend hanging, one that accepts them and never
answers. `--agent-root` runs the agent of another checkout (an earlier commit's worktree);
`--earlier-root` adds that checkout's agent as one more mode (backend up), interleaved with the others,
for a before and after that drifts alike."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parents[1]
# What the agent imports from a checkout: compiled before the runs, as installing its wheel compiles them.
AGENT_PACKAGES = ("spark_agent", "lineage_protocol", "lineage_relay")
MODES = ("no agent", "backend up", "backend down", "backend hangs")
EARLIER = "up, earlier agent"  # backend up, with the agent of `--earlier-root`
ACCOUNT = ("agent_install_ms", "agent_close_ms", "agent_listener_ms_total", "actions_total")
# The driver JVM's threads by what they do, from the names the JVM gives them (cut to 15 characters by Linux).
THREAD_KINDS = (
    ("JIT compiler", re.compile(r"C\d CompilerThre")),
    ("Spark tasks", re.compile(r"Executor task l")),
    ("py4j connections", re.compile(r"Thread-\d+")),
    ("garbage collector", re.compile(r"GC Thread|G1 ")),
    ("listener bus", re.compile(r"spark-listener-")),
)


def child(mode: str, url: str, rows: int, workdir: Path) -> None:
    """One measured run; prints `{"seconds": ..., "cpu_seconds": ..., "account": {...}}`."""
    from pyspark.sql import SparkSession, Window
    from pyspark.sql import functions as F

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    # The session's state (analyzer, catalog) is made by its first query: the agent's install makes one (its
    # mark), the job's first action otherwise. Made here, untimed, in every mode, it is not counted as the agent's.
    spark._jsparkSession.range(0)
    out = str(workdir)
    jvm = cast(Any, spark.sparkContext._jvm)  # set once the context has started, as it has here
    jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    compiler = jvm.java.lang.management.ManagementFactory.getCompilationMXBean()
    compile_started, threads_started = int(compiler.getTotalCompilationTime()), _jvm_threads(jvm_pid)
    cpu_started = _cpu_seconds(jvm_pid)
    started = time.perf_counter()
    agent = None
    import_ms = 0.0
    if mode != "no agent":
        import spark_agent

        agent = spark_agent.install(spark, url=url, flush_timeout_s=10)
        # an earlier agent keeps no account of its own: its import and install are then one figure
        import_ms = (time.perf_counter() - started) * 1000 - agent.counters.snapshot().get("agent_install_ms", 0)
    base = spark.range(0, rows).selectExpr("id", "id % 1000 AS k", "rand(42) * 100 AS v", "cast(id AS string) AS s")
    base.write.mode("overwrite").parquet(f"{out}/base")
    facts = spark.read.parquet(f"{out}/base")
    totals = facts.groupBy("k").agg(F.sum("v").alias("total"), F.count("id").alias("n"))
    totals.write.mode("overwrite").parquet(f"{out}/totals")
    joined = facts.join(spark.read.parquet(f"{out}/totals"), "k").where("v > total / n")
    joined.select("id", "k", "v", (F.col("v") / F.col("total")).alias("share")).write.mode("overwrite").parquet(
        f"{out}/above_average"
    )
    ranked = spark.read.parquet(f"{out}/above_average").withColumn(
        "rank", F.row_number().over(Window.partitionBy("k").orderBy(F.desc("share")))
    )
    ranked.where("rank <= 10").write.mode("overwrite").orc(f"{out}/top10")
    account: dict[str, float] = {}
    if agent is not None:
        agent.close()
        values = agent.counters.snapshot()
        account = {name: values[name] for name in ACCOUNT if name in values}  # an earlier agent keeps no account
        account["import_ms"] = import_ms
    elapsed = time.perf_counter() - started
    cpu = _cpu_seconds(jvm_pid) - cpu_started
    threads = _jvm_threads(jvm_pid)
    jvm_threads = {kind: threads.get(kind, 0.0) - threads_started.get(kind, 0.0) for kind in threads}
    jvm_threads["JIT compile time"] = (int(compiler.getTotalCompilationTime()) - compile_started) / 1000
    spark.stop()
    print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu, "account": account, "jvm": jvm_threads}))


def _cpu_seconds(jvm_pid: int) -> float:
    """CPU time used so far by this Python process and the Spark driver JVM (Linux)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stat = Path(f"/proc/{jvm_pid}/stat").read_text().rsplit(")", 1)[1].split()
    jvm_ticks = int(stat[11]) + int(stat[12])  # utime, stime
    return usage.ru_utime + usage.ru_stime + jvm_ticks / os.sysconf("SC_CLK_TCK")


def _jvm_threads(jvm_pid: int) -> dict[str, float]:
    """CPU seconds used so far by the driver JVM's live threads, summed by kind (`THREAD_KINDS`; the rest is
    "other"). A thread that has ended is in no kind: the process's total still counts it."""
    used: dict[str, float] = {}
    for task in Path(f"/proc/{jvm_pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:  # ended while listed
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        kind = next((kind for kind, pattern in THREAD_KINDS if pattern.match(name)), "other")
        used[kind] = used.get(kind, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


class _Backend(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self) -> None:
        batch = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        type(self).received += len(batch)
        body = json.dumps(
            {"results": [{"index": i, "status": "accepted", "id": i} for i in range(len(batch))]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _hanging_port() -> int:
    """A port that accepts connections and never answers (the connections are held until exit)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(256)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            held.append(sock.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    return int(sock.getsockname()[1])


def _measure(mode: str, url: str, rows: int, agent_root: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tributary-bench-") as workdir:
        cmd = [sys.executable, __file__, "--child", mode, "--url", url, "--rows", str(rows)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRIBUTARY_")}
        env["PYTHONPATH"] = str(agent_root)
        done = subprocess.run([*cmd, "--workdir", workdir], env=env, capture_output=True, text=True, check=True)
    return cast(dict[str, Any], json.loads(done.stdout.strip().splitlines()[-1]))


def _compile(root: Path) -> None:
    """Byte-compile the agent's packages in `root` (into their `__pycache__`), as `pip install` does for a wheel:
    otherwise, where `PYTHONDONTWRITEBYTECODE` is set, every run would compile them again within the timed span."""
    packages = [str(root / name) for name in AGENT_PACKAGES if (root / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True, stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", default="1500000,6000000", help="job sizes, comma-separated")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated, from: " + ", ".join(MODES))
    parser.add_argument("--agent-root", type=Path, default=ROOT, help="the checkout whose agent is measured")
    parser.add_argument(
        "--earlier-root", type=Path, help=f"also measure this checkout's agent, backend up, interleaved ('{EARLIER}')"
    )
    parser.add_argument("--child", choices=[*MODES, EARLIER])
    parser.add_argument("--url", default="")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.url, int(args.rows), args.workdir)
        return 0

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Backend)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = {
        "no agent": "",
        "backend up": f"http://127.0.0.1:{server.server_address[1]}",
        "backend down": f"http://127.0.0.1:{_closed_port()}",
        "backend hangs": f"http://127.0.0.1:{_hanging_port()}",
    }
    urls[EARLIER] = urls["backend up"]
    roots = {mode: args.agent_root for mode in urls} | ({EARLIER: args.earlier_root} if args.earlier_root else {})
    modes = tuple(m for m in MODES if m in args.modes.split(",")) + ((EARLIER,) if args.earlier_root else ())
    for root in {args.agent_root, *([args.earlier_root] if args.earlier_root else [])}:
        _compile(root)
    print(f"agent from {args.agent_root}, {args.runs} runs per mode and size", flush=True)
    for rows in (int(r) for r in args.rows.split(",")):
        samples: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        for run in range(args.runs):
            order = modes[run % len(modes) :] + modes[: run % len(modes)]
            for mode in order:
                measured = _measure(mode, urls[mode], rows, roots[mode])
                samples[mode].append(measured)
                print(
                    f"  {rows:,} rows, run {run + 1}/{args.runs} {mode:>13}: {measured['seconds']:6.2f} s wall, "
                    f"{measured['cpu_seconds']:6.2f} s CPU",
                    flush=True,
                )
        _report(rows, args.runs, samples)
    server.shutdown()
    print(f"events received by the backend that is up: {_Backend.received}")
    return 0


def _report(rows: int, runs: int, samples: dict[str, list[dict[str, Any]]]) -> None:
    print(f"\n{rows:,} rows: medians of {runs} runs, timed from install to close")
    print(f"(load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    wall = {mode: statistics.median(s["seconds"] for s in runs_) for mode, runs_ in samples.items()}
    cpu = {mode: statistics.median(s["cpu_seconds"] for s in runs_) for mode, runs_ in samples.items()}
    for mode in samples:
        print(f"  {mode:>13}: {_figure(wall, mode, 's wall')}   {_figure(cpu, mode, 's CPU')}")
    if "no agent" in samples:
        # The machine's speed drifts over a run: each mode against the no-agent run of the same round
        # (minutes apart at most) is steadier than one median against another.
        print("  paired with the same round's no-agent run, median of the rounds' overheads:")
        for mode, runs_ in samples.items():
            if mode != "no agent":
                print(
                    f"  {mode:>13}: {_paired(runs_, samples['no agent'], 'seconds')} wall   "
                    f"{_paired(runs_, samples['no agent'], 'cpu_seconds')} CPU"
                )
    if "no agent" in samples:
        _report_jvm(samples)
    for mode, runs_ in samples.items():
        accounts = [s["account"] for s in runs_ if s["account"].get("agent_install_ms") is not None]
        if not accounts:
            continue
        part = {name: statistics.median(a[name] for a in accounts) for name in ("import_ms", *ACCOUNT)}
        fixed = part["import_ms"] + part["agent_install_ms"] + part["agent_close_ms"]
        per_action = part["agent_listener_ms_total"] / max(part["actions_total"], 1)
        print(
            f"  {mode:>13}: fixed {fixed:4.0f} ms (import {part['import_ms']:.0f}, install "
            f"{part['agent_install_ms']:.0f}, close {part['agent_close_ms']:.0f}) on the job's thread; "
            f"per action {per_action:.0f} ms ({part['actions_total']:.0f} actions) on Spark's listener thread"
        )


def _report_jvm(samples: dict[str, list[dict[str, Any]]]) -> None:
    """Where each mode's extra JVM CPU went: per kind of driver thread, median against no agent's median, and the
    JIT compiler's own account of its time (compiling the code an agent makes hot: py4j, Spark's plan JSON)."""
    kinds = [kind for kind, _ in THREAD_KINDS] + ["other", "JIT compile time"]
    median = {
        mode: {kind: statistics.median(s.get("jvm", {}).get(kind, 0.0) for s in runs_) for kind in kinds}
        for mode, runs_ in samples.items()
    }
    print("  driver JVM CPU by thread kind, median s (against no agent):")
    print("  " + " " * 15 + "".join(f"{kind:>19}" for kind in kinds))
    for mode in samples:
        cells = [
            f"{median[mode][kind]:6.2f}"
            + ("" if mode == "no agent" else f" ({median[mode][kind] - median['no agent'][kind]:+.2f})")
            for kind in kinds
        ]
        print(f"  {mode:>13}: " + "".join(f"{cell:>19}" for cell in cells))


def _paired(runs_: list[dict[str, Any]], baseline: list[dict[str, Any]], key: str) -> str:
    overheads = [(run[key] - base[key]) / base[key] * 100 for run, base in zip(runs_, baseline, strict=False)]
    return f"{statistics.median(overheads):+5.1f} %"


def _figure(samples: dict[str, float], mode: str, unit: str) -> str:
    if "no agent" not in samples or mode == "no agent":
        return f"{samples[mode]:6.2f} {unit}{'':<10}"
    overhead = (samples[mode] - samples["no agent"]) / samples["no agent"] * 100
    return f"{samples[mode]:6.2f} {unit} ({overhead:+.1f} %)"


if __name__ == "__main__":
    sys.exit(main())
