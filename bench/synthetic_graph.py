"""Load a large synthetic lineage graph straight into the graph engine (batched UNWIND ... CREATE), for benchmarks.

The graph has the projection's shape (labels, relationship types, properties, node ids; each run's
properties are the projection's own fold of a START and an end event), and
`tests/graph/test_synthetic_graph.py` holds it to that: it writes the same small graph through
the projection and the graph writer and compares the two. The graph is a layered DAG of datasets
and jobs (Dataset -INPUT_TO-> Job -OUTPUTS-> Dataset) with skewed, power-law-ish fan-out (a few
hub datasets feed many jobs), fields with column lineage (Field -DERIVES-> Field), and one run
per job (Job -HAS_RUN-> Run -READ/WROTE-> Dataset).
Names are a pure function of the index, so a benchmark can pick start nodes without a query:
dataset i is `dataset:ns<i % NAMESPACES>:ds<i>`, its fields `col0`.., job j is `job:jobs<j % NAMESPACES>:job<j>`.

    python bench/synthetic_graph.py --datasets 100000 --jobs 100000 --seed 7 --uri bolt://127.0.0.1:7687
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import Driver, GraphDatabase, ManagedTransaction

from lineage_app.graph.driver import QUIET_NOTIFICATIONS
from lineage_app.graph.events import EventRecord
from lineage_app.graph.model import Label, NodeType, Rel, RunState, natural_key, run_order_key
from lineage_app.graph.node_ids import node_id
from lineage_app.graph.run_state import STATE_AFTER, TERMINAL, run_fold

NAMESPACES = 20
SYNTHETIC_MODEL = 6  # bumped when the graph model changes, so cached benchmark graphs are loaded again
LAYERS = 25
BATCH = 5000
T0 = datetime(2026, 1, 1, tzinfo=UTC)
TRANSFORMATIONS = [
    ("DIRECT", "IDENTITY", False),
    ("DIRECT", "TRANSFORMATION", False),
    ("DIRECT", "AGGREGATION", False),
    ("INDIRECT", "FILTER", True),
    ("INDIRECT", "JOIN", True),
]
TYPES = ["bigint", "string", "double", "timestamp", "boolean", "decimal(10,2)"]


def _time(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dataset_name(i: int) -> tuple[str, str]:
    return f"ns{i % NAMESPACES}", f"ds{i}"


def job_name(j: int) -> tuple[str, str]:
    return f"jobs{j % NAMESPACES}", f"job{j}"


def dataset_id(i: int) -> str:
    return node_id(NodeType.DATASET, *dataset_name(i))


def field_id(i: int, column: int) -> str:
    return node_id(NodeType.DATASET_FIELD, *dataset_name(i), f"col{column}")


@dataclass
class SyntheticGraph:
    """The generated graph as rows, ready for the load statements."""

    layer_of_dataset: list[int] = field(default_factory=list)
    fields_of_dataset: list[int] = field(default_factory=list)
    job_inputs: list[list[int]] = field(default_factory=list)
    job_outputs: list[list[int]] = field(default_factory=list)
    job_layer: list[int] = field(default_factory=list)
    # (source dataset, column, derived dataset, column, job, transformation index)
    derivations: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)
    run_states: list[str] = field(default_factory=list)

    def edge_count(self) -> int:
        lineage = sum(map(len, self.job_inputs)) + sum(map(len, self.job_outputs))
        runs = len(self.job_inputs) + lineage  # HAS_RUN, READ, WROTE
        return lineage + runs + sum(self.fields_of_dataset) + len(self.derivations)


def _dataset_layout(rng: random.Random, datasets: int) -> tuple[list[int], list[int]]:
    """Each dataset's layer (layer 0 holds a tenth of them, the sources) and its number of fields."""
    sources = max(1, datasets // 10)
    layers = [0] * sources + sorted(rng.randrange(1, LAYERS) for _ in range(datasets - sources))
    return layers, [rng.randint(2, 5) for _ in range(datasets)]


def synthetic_dataset_layout(*, datasets: int, seed: int) -> tuple[list[int], list[int]]:
    """Each dataset's layer and number of fields, as `synthetic_graph_generate` makes them (its first draws), without
    generating the rest: what a benchmark needs to pick start nodes, at a small fraction of the memory."""
    return _dataset_layout(random.Random(seed), datasets)


def synthetic_graph_generate(*, datasets: int, jobs: int, seed: int) -> SyntheticGraph:
    """A layered DAG: layer 0 holds sources; each job in layer k reads from earlier layers and writes layer k."""
    rng = random.Random(seed)
    graph = SyntheticGraph()
    graph.layer_of_dataset, graph.fields_of_dataset = _dataset_layout(rng, datasets)
    by_layer: list[list[int]] = [[] for _ in range(LAYERS)]
    for i, layer in enumerate(graph.layer_of_dataset):
        by_layer[layer].append(i)
    graph.job_layer = sorted(rng.randrange(1, LAYERS) for _ in range(jobs))
    jobs_by_layer: list[list[int]] = [[] for _ in range(LAYERS)]
    for j, layer in enumerate(graph.job_layer):
        jobs_by_layer[layer].append(j)
    graph.job_outputs = [[] for _ in range(jobs)]
    for layer in range(1, LAYERS):
        layer_jobs = jobs_by_layer[layer] or jobs_by_layer[layer - 1] or [0]
        for n, i in enumerate(by_layer[layer]):
            graph.job_outputs[layer_jobs[n % len(layer_jobs)]].append(i)
            if rng.random() < 0.15:  # a second writer now and then
                graph.job_outputs[rng.choice(layer_jobs)].append(i)
    graph.job_inputs = []
    for j in range(jobs):
        layer = graph.job_layer[j]
        if not graph.job_outputs[j]:  # a job with no dataset of its own writes one of its layer
            graph.job_outputs[j].append(rng.choice(by_layer[layer] or by_layer[0]))
        count = min(40, int(rng.paretovariate(1.6)) + 1)
        inputs: set[int] = set()
        for _ in range(count):
            source_layer = layer - 1 if rng.random() < 0.7 else rng.randrange(0, layer)
            candidates = by_layer[source_layer] or by_layer[0]
            inputs.add(candidates[int(len(candidates) * rng.random() ** 3)])  # skewed: hubs come first
        graph.job_inputs.append(sorted(inputs - set(graph.job_outputs[j])) or [by_layer[0][0]])
        for out in graph.job_outputs[j]:
            for column in range(graph.fields_of_dataset[out]):
                for _ in range(rng.choice((1, 1, 1, 2))):
                    src = rng.choice(graph.job_inputs[j])
                    graph.derivations.append(
                        (
                            src,
                            rng.randrange(graph.fields_of_dataset[src]),
                            out,
                            column,
                            j,
                            rng.randrange(len(TRANSFORMATIONS)),
                        )
                    )
    states = [RunState.COMPLETED.value, RunState.FAILED.value, RunState.ABORTED.value]
    graph.run_states = [rng.choices(states, weights=[90, 8, 2])[0] for _ in range(jobs)]
    return graph


LOAD_NAMESPACES = (
    f"UNWIND $rows AS row CREATE (:{Label.NAMESPACE} {{name: row.name, firstSeen: row.first, lastSeen: row.last}})"
)
LOAD_DATASETS = f"""
UNWIND $rows AS row
CREATE (n:{Label.DATASET} {{key: row.key, nodeId: row.nodeId, namespace: row.namespace, name: row.name,
        searchName: toLower(row.name), currentVersion: row.version, versionCount: 1, fieldCount: row.fieldCount,
        firstSeen: row.first, lastSeen: row.last}})
SET n += row.latestRun
"""
LOAD_JOBS = f"""
UNWIND $rows AS row
CREATE (n:{Label.JOB} {{key: row.key, nodeId: row.nodeId, namespace: row.namespace, name: row.name,
        searchName: toLower(row.name), jobType: 'JOB', firstSeen: row.first, lastSeen: row.last}})
SET n += row.latestRun
"""
LOAD_FIELDS = f"""
UNWIND $rows AS row
MATCH (d:{Label.DATASET} {{key: row.datasetKey}})
CREATE (d)-[:{Rel.HAS_FIELD}]->(:{Label.FIELD} {{key: row.key, nodeId: row.nodeId, namespace: row.namespace,
        dataset: row.dataset, name: row.name, searchName: toLower(row.name), type: row.type, current: true}})
"""
# A run's properties are the projection's own fold of its events (`RunFold.node_properties`).
LOAD_RUNS = f"""
UNWIND $rows AS row
MATCH (j:{Label.JOB} {{key: row.jobKey}})
CREATE (j)-[:{Rel.HAS_RUN}]->(r:{Label.RUN} {{runId: row.runId, nodeId: row.nodeId}})
SET r += row.props
"""


def _load_edges(
    start: Label, rel: Rel, end: Label, start_key: str = "key", end_key: str = "key", extra: str = ""
) -> str:
    return f"""
UNWIND $rows AS row
MATCH (a:{start} {{{start_key}: row.a}})
MATCH (b:{end} {{{end_key}: row.b}})
CREATE (a)-[:{rel} {{firstSeen: row.first, lastSeen: row.last{extra}}}]->(b)
"""


# A job edge its run confirmed, as `graph.validity` leaves it (current: no later run left it out).
_CONFIRMED = ", confirmedOrder: row.confirmedOrder, confirmedBy: row.confirmedBy, confirmedAt: row.confirmedAt"
LOAD_INPUT_TO = _load_edges(Label.DATASET, Rel.INPUT_TO, Label.JOB, extra=_CONFIRMED)
LOAD_OUTPUTS = _load_edges(Label.JOB, Rel.OUTPUTS, Label.DATASET, extra=_CONFIRMED)
LOAD_READ = _load_edges(Label.RUN, Rel.READ, Label.DATASET, start_key="runId")
LOAD_WROTE = _load_edges(Label.RUN, Rel.WROTE, Label.DATASET, start_key="runId")
LOAD_DERIVES = _load_edges(
    Label.FIELD,
    Rel.DERIVES,
    Label.FIELD,
    extra=", job: row.job, transformation: row.transformation, subtype: row.subtype, indirect: row.indirect"
    + _CONFIRMED,
)


def batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    rows = iter(rows)
    while batch := list(itertools.islice(rows, BATCH)):
        yield batch


def synthetic_run_id(seed: int, j: int) -> str:
    return str(uuid.UUID(int=random.Random(seed * 1_000_003 + j).getrandbits(128), version=4))


# The event that ends a run in each final state.
END_EVENTS = {state: event for event, state in STATE_AFTER.items() if event in TERMINAL}


def run_events(*, run_id: str, state: str, job: tuple[str, str], layer: int) -> list[dict[str, Any]]:
    """The START and end events of a synthetic run (its job's layer sets the time), as the minimal
    payloads a run's fold reads."""
    return [
        {
            "eventType": event_type,
            "eventTime": _time(hours),
            "run": {"runId": run_id},
            "job": {"namespace": job[0], "name": job[1]},
        }
        for event_type, hours in (("START", layer + 24), (END_EVENTS[state], layer + 24.5))
    ]


def _run_properties(*, run_id: str, state: str, job: tuple[str, str], layer: int) -> dict[str, Any]:
    records = [
        EventRecord(
            content_hash=f"{run_id}:{n}",
            event_time=datetime.fromisoformat(payload["eventTime"]),
            payload=payload,
        )
        for n, payload in enumerate(run_events(run_id=run_id, state=state, job=job, layer=layer))
    ]
    return run_fold(records).node_properties()


def latest_run_properties(run_id: str, state: str, time: str) -> dict[str, str]:
    """What the projection keeps on a job, and on each dataset its runs wrote, about its latest run."""
    return {
        "latestRunId": run_id,
        "latestRunState": state,
        "latestRunTime": time,
        "latestRunOrder": run_order_key(time, run_id),
    }


def synthetic_graph_load(
    *, driver: Driver, database: str, datasets: int, jobs: int, seed: int, log: bool = True
) -> SyntheticGraph:
    """Generate the graph and write it into an empty database, statement by statement in batches."""
    from lineage_app.graph.schema import SCHEMA_STATEMENTS

    began = time.monotonic()
    graph = synthetic_graph_generate(datasets=datasets, jobs=jobs, seed=seed)

    def say(what: str) -> None:
        if log:
            print(f"  {time.monotonic() - began:7.1f}s  {what}", flush=True)

    say(
        f"generated {datasets} datasets, {jobs} jobs, {sum(graph.fields_of_dataset)} fields, {graph.edge_count()} edges"
    )
    with driver.session(database=database) as session:
        for statement in SCHEMA_STATEMENTS:
            session.run(statement).consume()

        def write(query: str, rows: Iterable[dict[str, Any]], what: str) -> None:
            count = 0
            for batch in batches(rows):
                count += len(batch)

                def write_batch(tx: ManagedTransaction, b: list[dict[str, Any]] = batch) -> object:
                    return tx.run(query, rows=b).consume()

                session.execute_write(write_batch)
            say(f"{count:>9} {what}")

        job_runs = [
            latest_run_properties(synthetic_run_id(seed, j), graph.run_states[j], _time(graph.job_layer[j] + 24.5))
            for j in range(jobs)
        ]
        run_props = [
            _run_properties(
                run_id=synthetic_run_id(seed, j), state=graph.run_states[j], job=job_name(j), layer=graph.job_layer[j]
            )
            for j in range(jobs)
        ]
        confirmed = {j: run_confirmation(synthetic_run_id(seed, j), props) for j, props in enumerate(run_props)}
        namespaces = sorted(
            {dataset_name(i)[0] for i in range(min(datasets, NAMESPACES))}
            | {job_name(j)[0] for j in range(min(jobs, NAMESPACES))}
        )
        write(LOAD_NAMESPACES, [{"name": n, "first": _time(0), "last": _time(48)} for n in namespaces], "namespaces")
        # Every other statement's rows are made a batch at a time: at 1M datasets, lists of them all took the
        # loader past 10 GB (4.9M DERIVES, 3.5M fields, 3M+ of each run and job edge).
        write(LOAD_DATASETS, dataset_rows(graph, _dataset_runs(graph, job_runs)), "datasets")
        write(LOAD_JOBS, job_rows(graph, job_runs), "jobs")
        write(LOAD_FIELDS, field_rows(graph), "fields (with HAS_FIELD)")
        write(LOAD_RUNS, run_rows(graph, seed, run_props), "runs (with HAS_RUN)")
        for rel, statement in ((Rel.INPUT_TO, LOAD_INPUT_TO), (Rel.OUTPUTS, LOAD_OUTPUTS)):
            write(statement, job_edge_rows(graph, rel, confirmed), rel.value)
        for rel, statement in ((Rel.READ, LOAD_READ), (Rel.WROTE, LOAD_WROTE)):
            write(statement, run_edge_rows(graph, rel, seed), rel.value)
        write(LOAD_DERIVES, derive_rows(graph, confirmed), "DERIVES")
    return graph


def _dataset_runs(graph: SyntheticGraph, job_runs: list[dict[str, str]]) -> dict[int, dict[str, str]]:
    """Each written dataset's latest run: the latest of its writers' runs."""
    latest: dict[int, dict[str, str]] = {}
    for j, outputs in enumerate(graph.job_outputs):
        for i in outputs:
            if i not in latest or job_runs[j]["latestRunOrder"] > latest[i]["latestRunOrder"]:
                latest[i] = job_runs[j]
    return latest


def dataset_rows(graph: SyntheticGraph, latest_runs: dict[int, dict[str, str]]) -> Iterator[dict[str, Any]]:
    for i, layer in enumerate(graph.layer_of_dataset):
        namespace, name = dataset_name(i)
        yield {
            "key": natural_key(namespace, name),
            "nodeId": dataset_id(i),
            "namespace": namespace,
            "name": name,
            "version": f"{i:016x}",
            "fieldCount": graph.fields_of_dataset[i],
            "first": _time(layer),
            "last": _time(layer + 24),
            "latestRun": latest_runs.get(i, {}),
        }


def field_rows(graph: SyntheticGraph) -> Iterator[dict[str, Any]]:
    for i, count in enumerate(graph.fields_of_dataset):
        namespace, name = dataset_name(i)
        for column in range(count):
            yield {
                "datasetKey": natural_key(namespace, name),
                "key": natural_key(namespace, name, f"col{column}"),
                "nodeId": field_id(i, column),
                "namespace": namespace,
                "dataset": name,
                "name": f"col{column}",
                "type": TYPES[(i + column) % len(TYPES)],
            }


def job_rows(graph: SyntheticGraph, job_runs: list[dict[str, str]]) -> Iterator[dict[str, Any]]:
    for j, layer in enumerate(graph.job_layer):
        namespace, name = job_name(j)
        yield {
            "key": natural_key(namespace, name),
            "nodeId": node_id(NodeType.JOB, namespace, name),
            "namespace": namespace,
            "name": name,
            "first": _time(layer),
            "last": _time(layer + 24),
            "latestRun": job_runs[j],
        }


def run_rows(graph: SyntheticGraph, seed: int, run_props: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for j, props in enumerate(run_props):
        run_id = synthetic_run_id(seed, j)
        yield {
            "jobKey": natural_key(*job_name(j)),
            "runId": run_id,
            "nodeId": node_id(NodeType.RUN, run_id),
            "props": props,
        }


def _seen(graph: SyntheticGraph, j: int) -> dict[str, str]:
    layer = graph.job_layer[j]
    return {"first": _time(layer), "last": _time(layer + 24)}


def job_edge_rows(graph: SyntheticGraph, rel: Rel, confirmed: dict[int, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """`INPUT_TO` (dataset to job) or `OUTPUTS` (job to dataset) rows, each with its job's `run_confirmation`."""
    for j in range(len(graph.job_layer)):
        job = natural_key(*job_name(j))
        for i in graph.job_inputs[j] if rel is Rel.INPUT_TO else graph.job_outputs[j]:
            ends = (natural_key(*dataset_name(i)), job) if rel is Rel.INPUT_TO else (job, natural_key(*dataset_name(i)))
            yield {"a": ends[0], "b": ends[1], **_seen(graph, j), **confirmed[j]}


def run_edge_rows(graph: SyntheticGraph, rel: Rel, seed: int) -> Iterator[dict[str, Any]]:
    """`READ` or `WROTE` rows: each job's run to the datasets its job reads or writes."""
    for j in range(len(graph.job_layer)):
        run_id = synthetic_run_id(seed, j)
        for i in graph.job_inputs[j] if rel is Rel.READ else graph.job_outputs[j]:
            yield {"a": run_id, "b": natural_key(*dataset_name(i)), **_seen(graph, j)}


def run_confirmation(run_id: str, props: dict[str, Any]) -> dict[str, Any]:
    """What a job edge its run confirmed carries about that run (`graph.validity`), from the run's properties."""
    return {
        "confirmedOrder": props["completedOrder"],
        "confirmedBy": run_id if props["completedOrder"] else None,
        "confirmedAt": props["endedAt"] if props["completedOrder"] else None,
    }


def derive_rows(graph: SyntheticGraph, confirmed: dict[int, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The rows of `LOAD_DERIVES`, one per column derivation, each with its job's `run_confirmation`."""
    for src, src_col, dst, dst_col, j, t in graph.derivations:
        kind, subtype, indirect = TRANSFORMATIONS[t]
        src_ns, src_name = dataset_name(src)
        dst_ns, dst_name = dataset_name(dst)
        layer = graph.job_layer[j]
        yield {
            "a": natural_key(src_ns, src_name, f"col{src_col}"),
            "b": natural_key(dst_ns, dst_name, f"col{dst_col}"),
            "job": node_id(NodeType.JOB, *job_name(j)),
            "transformation": kind,
            "subtype": subtype,
            "indirect": indirect,
            "first": _time(layer),
            "last": _time(layer + 24),
            **confirmed[j],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--uri", default="bolt://127.0.0.1:7687")
    parser.add_argument("--user", default="root")
    parser.add_argument("--password", default="tributary-embedded")
    parser.add_argument("--database", default="lineage")
    args = parser.parse_args()
    with GraphDatabase.driver(
        args.uri, auth=(args.user, args.password), notifications_disabled_classifications=QUIET_NOTIFICATIONS
    ) as driver:
        synthetic_graph_load(
            driver=driver, database=args.database, datasets=args.datasets, jobs=args.jobs, seed=args.seed
        )


if __name__ == "__main__":
    main()
