"""Agent overhead on a streaming query: micro-batch durations without and with the agent, in one Spark session.

    python bench/streaming_overhead.py [--batches 20] [--rows-per-second 2000] [--interval 0]

A rate source with a 1 s processing-time trigger, a small aggregation-free transformation and
the `noop` sink; first without the agent, then with it (file transport, RUNNING events every
`--interval` seconds; 0 is the worst case, an event per batch). Prints the median, p90 and max
of each query's `durationMs.triggerExecution` over its batches (the first batch, which
plans the query, is left out) and the median's difference."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def batch_durations(spark: Any, *, batches: int, rows_per_second: int, checkpoint: Path) -> list[int]:
    """`triggerExecution` of `batches` micro-batches after the first, in milliseconds."""
    query = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", rows_per_second)
        .load()
        .selectExpr("value", "value % 7 AS bucket", "cast(timestamp AS string) AS at")
        .where("bucket <> 3")
        .writeStream.format("noop")
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        while len(query.recentProgress) < batches + 1:
            if query.exception() is not None:
                raise RuntimeError(str(query.exception()))
            time.sleep(0.5)
        progress = query.recentProgress[1 : batches + 1]
    finally:
        query.stop()
    return [int(p["durationMs"]["triggerExecution"]) for p in progress]


def summary(label: str, values: list[int]) -> float:
    ordered = sorted(values)
    median = statistics.median(ordered)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    print(f"{label:<14} batches={len(values):>3}  median={median:7.1f} ms  p90={p90:6d} ms  max={ordered[-1]:6d} ms")
    return float(median)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--rows-per-second", type=int, default=2000)
    parser.add_argument("--interval", type=float, default=0.0, help="the agent's streaming progress interval (s)")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    import spark_agent

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("streaming_overhead")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory(prefix="tributary-streaming-bench-") as tmp:
        base = Path(tmp)
        without = batch_durations(
            spark, batches=args.batches, rows_per_second=args.rows_per_second, checkpoint=base / "without"
        )
        agent = spark_agent.install(
            spark,
            transport="file",
            file_path=str(base / "events.jsonl"),
            streaming_progress_interval_s=args.interval,
        )
        try:
            with_agent = batch_durations(
                spark, batches=args.batches, rows_per_second=args.rows_per_second, checkpoint=base / "with"
            )
        finally:
            agent.close()
        events = sum(1 for _ in (base / "events.jsonl").open())
    spark.stop()
    print(f"rate source {args.rows_per_second} rows/s, 1 s trigger, noop sink; agent interval {args.interval} s")
    base_median = summary("no agent", without)
    agent_median = summary("agent", with_agent)
    print(f"median difference: {agent_median - base_median:+.1f} ms per batch; the agent emitted {events} events")


if __name__ == "__main__":
    main()
