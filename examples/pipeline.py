"""Example pipeline: raw -> bronze -> silver -> gold orders, run through the lineage agent.

`python -m examples.pipeline --data-dir var/example-data` (destination, and the signing key
`TRIBUTARY_SIGNING_KEY`, from `TRIBUTARY_*`). Each job is its own application run (its own
`spark_agent.install` lifecycle) in one SparkSession. `clean_orders` runs twice and changes
both its inputs and its output schema the second time: v1 drops the orders of the customers on
a hold list (`reference/blocked_customers.csv`); v2 retires that list and converts amounts to
EUR with the rates in `reference/eur_rates.csv` (`currency` dropped, `amount_eur` added), so
its edge from the hold list is left stale. `validate_orders` fails on purpose (a refund has a
negative amount). Bronze, silver and gold datasets and most jobs declare their owners
(`DATASET_OWNERS`, `JOB_OWNERS`: OpenLineage `ownership` facets). Prints one
`[pipeline] <job>: …` line per job; exits 0 when every job but that one succeeded."""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import sys
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import spark_agent

ORDERS_SCHEMA = "order_id INT, customer_id INT, amount DOUBLE, currency STRING, ordered_on STRING"
CUSTOMERS_SCHEMA = "id INT, name STRING, country STRING, email STRING"
BLOCKED_CUSTOMERS_SCHEMA = "customer_id INT, reason STRING, blocked_on STRING"
EUR_RATES_SCHEMA = "currency STRING, rate_to_eur DOUBLE"
# What `generate_raw` writes into the reference files (maintained by hand, not by a job).
EUR_RATES = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17}
BLOCKED_CUSTOMERS = ((4, "chargeback"), (17, "fraud review"), (31, "chargeback"))
COUNTRIES = ("FR", "DE", "GB", "US", "NL")


def generate_raw(lake: Path, seed: int = 7) -> None:
    """Deterministic source files: `raw/orders.csv` (with one refund), `raw/customers.json`, and
    the reference files `reference/blocked_customers.csv` and `reference/eur_rates.csv`."""
    rng = random.Random(seed)
    raw, reference = lake / "raw", lake / "reference"
    raw.mkdir(parents=True, exist_ok=True)
    reference.mkdir(parents=True, exist_ok=True)
    with (raw / "customers.json").open("w") as out:
        for cid in range(1, 41):
            name = f"customer {cid:02d}"
            record = {"id": cid, "name": name, "country": rng.choice(COUNTRIES)}
            out.write(json.dumps({**record, "email": f"c{cid}@example.com"}) + "\n")
    start = date(2026, 11, 1)
    with (raw / "orders.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["order_id", "customer_id", "amount", "currency", "ordered_on"])
        for oid in range(1, 501):
            amount = round(rng.uniform(5, 400), 2) if oid != 250 else -42.0  # one refund
            day = start + timedelta(days=rng.randrange(14))
            writer.writerow([oid, rng.randint(1, 40), amount, rng.choice(list(EUR_RATES)), day])
    with (reference / "blocked_customers.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["customer_id", "reason", "blocked_on"])
        writer.writerows((cid, reason, start - timedelta(days=30)) for cid, reason in BLOCKED_CUSTOMERS)
    with (reference / "eur_rates.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["currency", "rate_to_eur"])
        writer.writerows(EUR_RATES.items())


def ingest_orders(spark: SparkSession, lake: Path) -> None:
    orders = spark.read.schema(ORDERS_SCHEMA).option("header", True).csv(str(lake / "raw/orders.csv"))
    typed = orders.withColumn("ordered_on", F.to_date("ordered_on"))
    typed.write.mode("overwrite").parquet(str(lake / "bronze/orders"))


def ingest_customers(spark: SparkSession, lake: Path) -> None:
    customers = spark.read.schema(CUSTOMERS_SCHEMA).json(str(lake / "raw/customers.json"))
    masked = customers.select("id", "name", "country", F.sha2("email", 256).alias("email_hash"))
    masked.write.mode("overwrite").parquet(str(lake / "bronze/customers"))


def _orders_with_country(spark: SparkSession, lake: Path) -> DataFrame:
    orders = spark.read.parquet(str(lake / "bronze/orders"))
    customers = spark.read.parquet(str(lake / "bronze/customers"))
    joined = orders.join(customers, orders.customer_id == customers.id)
    return joined.where(orders.amount > 0)


def _reference(spark: SparkSession, lake: Path, name: str, schema: str) -> DataFrame:
    return spark.read.schema(schema).option("header", True).csv(str(lake / "reference" / f"{name}.csv"))


def clean_orders_v1(spark: SparkSession, lake: Path) -> None:
    """Drops the orders of the customers on the hold list."""
    blocked = _reference(spark, lake, "blocked_customers", BLOCKED_CUSTOMERS_SCHEMA)
    orders = _orders_with_country(spark, lake)
    cleaned = orders.join(blocked, orders.customer_id == blocked.customer_id, "left_anti").select(
        "order_id", "customer_id", "country", "amount", "currency", "ordered_on"
    )
    cleaned.write.mode("overwrite").parquet(str(lake / "silver/orders_clean"))


def clean_orders_v2(spark: SparkSession, lake: Path) -> None:
    """Inputs and schema change: the hold list is retired (its customers' orders count again);
    amounts are converted to EUR with the reference rates, `currency` dropped, `amount_eur` added."""
    rates = _reference(spark, lake, "eur_rates", EUR_RATES_SCHEMA)
    orders = _orders_with_country(spark, lake)
    cleaned = orders.join(rates, orders.currency == rates.currency).select(
        "order_id",
        "customer_id",
        "country",
        "amount",
        F.round(orders.amount * rates.rate_to_eur, 2).alias("amount_eur"),
        "ordered_on",
    )
    cleaned.write.mode("overwrite").parquet(str(lake / "silver/orders_clean"))


def daily_revenue(spark: SparkSession, lake: Path) -> None:
    orders = spark.read.parquet(str(lake / "silver/orders_clean"))
    revenue = orders.groupBy("ordered_on", "country").agg(
        F.round(F.sum("amount"), 2).alias("revenue"), F.count("order_id").alias("orders")
    )
    revenue.orderBy("ordered_on", "country").write.mode("overwrite").saveAsTable("daily_revenue")


def validate_orders(spark: SparkSession, lake: Path) -> None:
    """Fails by design: the raw data holds a refund with a negative amount. Before it fails it reports what
    it checked of bronze/orders (`Agent.report_quality`): row count, null and distinct counts, and its
    checks, the non-negative amount failing."""
    orders = spark.read.parquet(str(lake / "bronze/orders"))
    agent = spark_agent.current_agent()
    if agent is not None:
        agent.report_quality(str(lake / "bronze/orders"), **_orders_quality(orders))
    negative = F.concat(F.lit("negative amount in order "), F.col("order_id").cast("string"))
    amount = F.when(F.col("amount") < 0, F.raise_error(negative)).otherwise(F.col("amount"))
    checked = orders.select("order_id", amount.alias("amount"))
    checked.write.mode("overwrite").parquet(str(lake / "quality/orders_checked"))


def _orders_quality(orders: DataFrame) -> dict[str, Any]:
    """The checks and metrics `validate_orders` reports of the raw orders, counted in one pass."""
    columns = ("order_id", "customer_id", "amount")
    counts = orders.agg(
        F.count(F.lit(1)).alias("rows"),
        F.sum(F.when(F.col("amount") < 0, 1).otherwise(0)).alias("negative"),
        *(F.sum(F.col(c).isNull().cast("int")).alias(f"{c}_nulls") for c in columns),
        *(F.countDistinct(c).alias(f"{c}_distinct") for c in columns),
    ).first()
    assert counts is not None  # an aggregate has one row
    rows, negative = counts["rows"], counts["negative"] or 0
    return {
        "assertions": [
            {
                "assertion": "not_null",
                "column": "order_id",
                "success": counts["order_id_nulls"] == 0,
                "severity": "error",
            },
            {
                "assertion": "unique",
                "column": "order_id",
                "success": counts["order_id_distinct"] == rows,
                "severity": "error",
            },
            {
                "assertion": "non_negative",
                "name": "amount_non_negative",
                "column": "amount",
                "success": negative == 0,
                "severity": "error",
                "actual": str(negative),
                "expected": "0",
            },
        ],
        "metrics": {
            "rowCount": rows,
            "columnMetrics": {
                c: {"nullCount": counts[f"{c}_nulls"], "distinctCount": counts[f"{c}_distinct"]} for c in columns
            },
        },
    }


# Owners the pipeline declares itself (the agent's `dataset_owners` / `job_owners` options).
# `validate_orders` and the raw files declare none: `make run` assigns those by hand
# (examples/owners.csv), the way an admin would.
DATASET_OWNERS: dict[str, Any] = {
    "*/lake/bronze/*": "team:data-platform",
    "*/lake/silver/*": "team:data-platform",
    "default.daily_revenue": "team:finance-analytics",
}
JOB_OWNERS: dict[str, Any] = {
    "ingest_*": "team:data-platform",
    "clean_orders*": "team:data-platform",
    "daily_revenue*": "team:finance-analytics",
}

SPARK_LOGGING = Path(__file__).with_name("log4j2.properties")

JOBS: list[tuple[str, Callable[[SparkSession, Path], None], bool]] = [
    ("ingest_orders", ingest_orders, True),
    ("ingest_customers", ingest_customers, True),
    ("clean_orders", clean_orders_v1, True),
    ("daily_revenue", daily_revenue, True),
    ("clean_orders", clean_orders_v2, True),
    ("daily_revenue", daily_revenue, True),
    ("validate_orders", validate_orders, False),
]


def failure_reason(exc: Exception) -> str:
    """What went wrong, in one line: the innermost cause Spark reports (a Java error arrives
    wrapped in several exceptions, the outermost naming only the call that failed)."""
    lines = [line.strip() for line in str(exc).strip().splitlines()]
    causes = [line.removeprefix("Caused by: ") for line in lines if line.startswith("Caused by: ")]
    return causes[-1] if causes else (lines[0] if lines and lines[0] else type(exc).__name__)


def run(spark: SparkSession, data_dir: Path, **agent_options: Any) -> int:
    """Run every job under its own agent lifecycle; return the number of unexpected failures.

    `agent_options` go to `spark_agent.install` (the declared owners unless overridden)."""
    options = {"dataset_owners": DATASET_OWNERS, "job_owners": JOB_OWNERS, **agent_options}
    lake = data_dir / "lake"
    shutil.rmtree(lake, ignore_errors=True)
    generate_raw(lake)
    spark.sql("DROP TABLE IF EXISTS daily_revenue")
    unexpected = 0
    for name, job, should_succeed in JOBS:
        try:
            with spark_agent.install(spark, app_name=name, **options):
                job(spark, lake)
            print(f"[pipeline] {name}: ok", flush=True)
            unexpected += 0 if should_succeed else 1
        except Exception as exc:
            expected = "failed as designed" if not should_succeed else "FAILED"
            print(f"[pipeline] {name}: {expected}: {failure_reason(exc)[:160]}", flush=True)
            unexpected += 1 if should_succeed else 0
    return unexpected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.pipeline", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=Path("var/example-data"))
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    data_dir = args.data_dir.resolve()
    spark = (
        SparkSession.builder.master(args.master)
        .appName("tributary-example")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.warehouse.dir", str(data_dir / "lake" / "warehouse"))
        .config("spark.ui.showConsoleProgress", "false")
        .config(
            "spark.driver.extraJavaOptions",
            f"-Dderby.system.home={data_dir} -Dlog4j2.configurationFile={SPARK_LOGGING.as_uri()}",
        )
        .getOrCreate()
    )
    try:
        return 1 if run(spark, data_dir) else 0
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
