"""Per-event cost of verifying signed OpenLineage run events, as the worker will do for each."""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lineage_protocol import (
    Signature,
    canonical_bytes,
    generate_private_key,
    parse_event,
    read_signature,
    sign_event,
    verify_event,
)

PRODUCER = "https://github.com/tributary/tributary/tree/0.1.0/spark_agent"
FACETS = "https://openlineage.io/spec/facets"
TYPES = ["long", "int", "string", "double", "decimal(18,2)", "timestamp", "date", "boolean"]
WORDS = [
    "order",
    "customer",
    "amount",
    "price",
    "country",
    "city",
    "region",
    "status",
    "created",
    "updated",
    "id",
    "code",
]
TRANSFORMS = [("DIRECT", "IDENTITY"), ("DIRECT", "TRANSFORMATION"), ("INDIRECT", "JOIN")]


def _columns(rng: random.Random, count: int) -> list[tuple[str, str]]:
    names = {f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{i}" for i in range(count)}
    return [(name, rng.choice(TYPES)) for name in sorted(names)]


def _dataset(rng: random.Random, columns: list[tuple[str, str]]) -> dict[str, Any]:
    table = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{rng.randrange(1000)}"
    return {
        "namespace": f"s3://lake-{rng.randrange(4)}",
        "name": f"warehouse/{rng.choice(['raw', 'staged', 'curated'])}/{table}",
        "facets": {
            "schema": {
                "_producer": PRODUCER,
                "_schemaURL": f"{FACETS}/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                "fields": [
                    {"name": name, "type": kind, "ordinal_position": position}
                    for position, (name, kind) in enumerate(columns, start=1)
                ],
            },
            "dataSource": {
                "_producer": PRODUCER,
                "_schemaURL": f"{FACETS}/1-0-1/DatasourceDatasetFacet.json#/$defs/DatasourceDatasetFacet",
                "name": f"s3://lake-{rng.randrange(4)}",
                "uri": f"s3://lake-{rng.randrange(4)}",
            },
        },
    }


def _column_lineage(rng: random.Random, inputs: list[dict[str, Any]], columns: list[tuple[str, str]]) -> dict[str, Any]:
    fields = {}
    for name, _ in columns:
        sources = []
        for _ in range(rng.choices([1, 2], weights=[3, 1])[0]):
            source = rng.choice(inputs)
            kind, subtype = rng.choice(TRANSFORMS)
            sources.append(
                {
                    "namespace": source["namespace"],
                    "name": source["name"],
                    "field": rng.choice(source["facets"]["schema"]["fields"])["name"],
                    "transformations": [{"type": kind, "subtype": subtype, "masking": False}],
                }
            )
        fields[name] = {"inputFields": sources}
    return {
        "_producer": PRODUCER,
        "_schemaURL": f"{FACETS}/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
        "fields": fields,
    }


def make_event(rng: random.Random) -> dict[str, Any]:
    """A run event shaped like the Spark agent's: schemas of ~20 fields and column lineage."""
    inputs = [_dataset(rng, _columns(rng, rng.randint(6, 22))) for _ in range(rng.randint(1, 3))]
    outputs = []
    for _ in range(rng.choices([1, 2], weights=[4, 1])[0]):
        columns = _columns(rng, rng.randint(4, 16))
        output = _dataset(rng, columns)
        output["facets"]["columnLineage"] = _column_lineage(rng, inputs, columns)
        output["outputFacets"] = {
            "outputStatistics": {
                "_producer": PRODUCER,
                "_schemaURL": f"{FACETS}/1-0-2/OutputStatisticsOutputDatasetFacet.json"
                "#/$defs/OutputStatisticsOutputDatasetFacet",
                "rowCount": rng.randrange(10**9),
                "size": rng.randrange(10**12),
            }
        }
        outputs.append(output)
    return {
        "eventType": rng.choice(["START", "RUNNING", "COMPLETE", "COMPLETE", "FAIL"]),
        "eventTime": f"2025-03-{rng.randint(1, 28):02d}T{rng.randrange(24):02d}:"
        f"{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {
            "runId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "facets": {
                "processing_engine": {
                    "_producer": PRODUCER,
                    "_schemaURL": f"{FACETS}/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet",
                    "version": "3.5.1",
                    "name": "spark",
                    "openlineageAdapterVersion": "0.1.0",
                },
                "spark_properties": {
                    "_producer": PRODUCER,
                    "_schemaURL": f"{PRODUCER}/facets/SparkPropertiesRunFacet.json",
                    "properties": {"spark.master": "yarn", "spark.app.name": "daily_etl"},
                },
            },
        },
        "job": {
            "namespace": "spark://etl",
            "name": f"daily_etl.{rng.choice(WORDS)}_{rng.randrange(200)}",
            "facets": {
                "jobType": {
                    "_producer": PRODUCER,
                    "_schemaURL": f"{FACETS}/2-0-3/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
                    "processingType": "BATCH",
                    "integration": "SPARK",
                    "jobType": "SQL_JOB",
                }
            },
        },
        "inputs": inputs,
        "outputs": outputs,
    }


def _micros(samples_ns: list[int]) -> str:
    cut = statistics.quantiles(samples_ns, n=20)
    return (
        f"median {statistics.median(samples_ns) / 1000:8.1f} us   "
        f"p95 {cut[18] / 1000:8.1f} us   mean {statistics.fmean(samples_ns) / 1000:8.1f} us"
    )


def _time_each(items: list[Any], step: Callable[[Any], object], repeat: int) -> list[int]:
    """Nanoseconds per item: the fastest of `repeat` passes, to keep scheduler noise out."""
    clock = time.perf_counter_ns
    best = [sys.maxsize] * len(items)
    for _ in range(repeat):
        for index, item in enumerate(items):
            start = clock()
            step(item)
            best[index] = min(best[index], clock() - start)
    return best


def _real_events(path: Path, count: int) -> list[dict[str, Any]]:
    recorded = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    events = []
    for index in range(count):
        event = json.loads(json.dumps(recorded[index % len(recorded)]))
        event["run"]["facets"].pop("tributary_signature", None)
        event["run"]["runId"] = str(uuid.UUID(int=_run_uuid_bits(index)))
        events.append(event)
    return events


def _run_uuid_bits(index: int) -> int:
    # A version-4-shaped UUID per index, deterministic across runs.
    return (random.Random(index).getrandbits(128) & ~(0xF000 << 64)) | (0x4000 << 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="passes; each event's best counts")
    parser.add_argument(
        "--from-jsonl",
        type=Path,
        help="real agent events (a file-transport output, e.g. of examples/pipeline.py), cycled to --events "
        "with a fresh runId each, instead of generated ones",
    )
    args = parser.parse_args()

    rng = random.Random(args.seed)
    key = generate_private_key()
    public_key = key.public_key()
    source = (
        _real_events(args.from_jsonl, args.events) if args.from_jsonl else (make_event(rng) for _ in range(args.events))
    )
    lines = [json.dumps(sign_event(event, key)) for event in source]
    events = [json.loads(line) for line in lines]
    sizes = sorted(len(line.encode()) for line in lines)
    signed = [(read_signature(event), event) for event in events]

    def verify(event: dict[str, Any]) -> None:
        if not verify_event(event, public_key):
            raise AssertionError("a signed event did not verify")

    print(
        f"python {platform.python_version()} on {platform.machine()}, {args.events} events, "
        f"best of {args.repeat} passes per event"
    )
    print(
        f"event size: min {sizes[0]} B, median {sizes[len(sizes) // 2]} B, "
        f"p95 {sizes[len(sizes) * 95 // 100]} B, max {sizes[-1]} B"
    )

    def measure(label: str, items: list[Any], step: Callable[[Any], object]) -> None:
        print(f"{label:<36}{_micros(_time_each(items, step, args.repeat))}")

    measure("verify_event (parsed event)", events, verify)
    measure("json.loads + verify_event", lines, lambda line: verify(json.loads(line)))
    measure("parse_event + verify_event", lines, lambda line: verify(parse_event(line)))
    measure("  of which canonical_bytes", events, canonical_bytes)
    # Every event here was signed above, so each has a signature.
    messages = [(cast(Signature, signature).signature, canonical_bytes(event)) for signature, event in signed]
    measure("  of which Ed25519 verify", messages, lambda message: public_key.verify(*message))


if __name__ == "__main__":
    main()
