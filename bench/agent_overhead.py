"""Agent overhead on a Spark job of several seconds: no agent, backend up, backend down.

    python bench/agent_overhead.py [--runs 5] [--rows 1500000]

Each run is a fresh process (fresh JVM); modes are interleaved so that machine load
drifts alike for all three. The timed span is what the agent can affect: from just
before `install` through the job's actions to the end of `close()` (flush included);
JVM start-up is not timed. Prints per-mode medians of wall time and of CPU time (this
Python process plus the driver JVM, which on a shared machine is steadier than wall
time) and the overhead of each against no agent."""

from __future__ import annotations

import argparse
import json
import os
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
MODES = ("no agent", "backend up", "backend down")


def child(mode: str, url: str, rows: int, workdir: Path) -> None:
    """One measured run; prints `{"seconds": ...}`."""
    from pyspark.sql import SparkSession, Window
    from pyspark.sql import functions as F

    import spark_agent

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    out = str(workdir)
    jvm = cast(Any, spark.sparkContext._jvm)  # set once the context has started, as it has here
    jvm_pid = int(jvm.java.lang.ProcessHandle.current().pid())
    cpu_started = _cpu_seconds(jvm_pid)
    started = time.perf_counter()
    agent = spark_agent.install(spark, url=url, flush_timeout_s=10) if mode != "no agent" else None
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
    if agent is not None:
        agent.close()
    elapsed = time.perf_counter() - started
    cpu = _cpu_seconds(jvm_pid) - cpu_started
    spark.stop()
    print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu}))


def _cpu_seconds(jvm_pid: int) -> float:
    """CPU time used so far by this Python process and the Spark driver JVM (Linux)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stat = Path(f"/proc/{jvm_pid}/stat").read_text().rsplit(")", 1)[1].split()
    jvm_ticks = int(stat[11]) + int(stat[12])  # utime, stime
    return usage.ru_utime + usage.ru_stime + jvm_ticks / os.sysconf("SC_CLK_TCK")


class _Sink(BaseHTTPRequestHandler):
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


def _measure(mode: str, url: str, rows: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="tributary-bench-") as workdir:
        cmd = [sys.executable, __file__, "--child", mode, "--url", url, "--rows", str(rows)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRIBUTARY_")}
        env["PYTHONPATH"] = str(ROOT)
        done = subprocess.run([*cmd, "--workdir", workdir], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--url", default="")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.url, args.rows, args.workdir)
        return 0

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = {
        "no agent": "",
        "backend up": f"http://127.0.0.1:{server.server_address[1]}",
        "backend down": f"http://127.0.0.1:{_closed_port()}",
    }
    wall: dict[str, list[float]] = {mode: [] for mode in MODES}
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    for run in range(args.runs):
        order = MODES[run % 3 :] + MODES[: run % 3]
        for mode in order:
            measured = _measure(mode, urls[mode], args.rows)
            wall[mode].append(measured["seconds"])
            cpu[mode].append(measured["cpu_seconds"])
            print(
                f"run {run + 1}/{args.runs} {mode:>12}: {measured['seconds']:6.2f} s wall, "
                f"{measured['cpu_seconds']:6.2f} s CPU",
                flush=True,
            )
    server.shutdown()
    print(f"\nmedians of {args.runs} runs, {args.rows:,} rows, timed from install to close")
    print(f"(load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs):")
    for mode in MODES:
        print(f"  {mode:>12}: {_line(wall, mode, 's wall')}   {_line(cpu, mode, 's CPU')}")
    print(f"  events received by the backend: {_Sink.received}")
    return 0


def _line(samples: dict[str, list[float]], mode: str, unit: str) -> str:
    median = statistics.median(samples[mode])
    baseline = statistics.median(samples["no agent"])
    overhead = "" if mode == "no agent" else f" ({(median - baseline) / baseline * 100:+.1f} %)"
    return f"{median:6.2f} {unit}{overhead:<10}"


if __name__ == "__main__":
    sys.exit(main())
