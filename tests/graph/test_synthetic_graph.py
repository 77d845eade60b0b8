"""The read benchmark's synthetic graph (`bench/synthetic_graph.py`) has the shape the projection writes.

The benchmark loads its graph with statements of its own, for speed; this test writes the same small
synthetic lineage twice, once through that loader and once as OpenLineage events through the
projection and the graph writer, and compares them: the same nodes and edges, the same node ids,
and the same properties on every label and relationship type, except what the loader leaves out on
purpose (`LEFT_OUT`). A change to the projection's shape fails here until the loader follows it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings

from bench.synthetic_graph import (
    END_EVENTS,
    T0,
    TRANSFORMATIONS,
    TYPES,
    SyntheticGraph,
    dataset_name,
    job_name,
    synthetic_graph_generate,
    synthetic_graph_load,
    synthetic_run_id,
)
from lineage_app.graph.driver import graph_driver, graph_read, records
from lineage_app.graph.events import EventRecord
from lineage_app.graph.model import Label, NodeType, Rel
from lineage_app.graph.node_ids import node_id, node_ref_id
from lineage_app.graph.projection import graph_writes_for
from lineage_app.graph.run_state import run_fold
from lineage_app.graph.writer import graph_wipe, graph_writes_apply
from lineage_app.ingest.validation import event_check
from tests.events import facet, run_event

pytestmark = pytest.mark.django_db

DATASETS, JOBS, SEED = 14, 6, 7

# What the loader does not write, because no lineage read the benchmark times looks at it: schema
# versions and the alias registry (their nodes and every edge to them), a job's facet blob, the
# facts beside it (its current tags among them) and its sighting lists, its newest confirmation (which
# only applying events reads), and a derivation's masking, transformation list and order key.
LEFT_OUT_LABELS = {Label.DATASET_VERSION, Label.DATASET_ALIAS}
LEFT_OUT: dict[Any, set[str]] = {
    Label.JOB: {
        "facetsJson",
        "facetNames",
        "facetOrders",
        "facetHashes",
        "tags",
        "processingType",
        "integration",
        "latestConfirmation",
    },
    (Label.FIELD, Rel.DERIVES.value, Label.FIELD): {"masking", "transformationsJson", "factsKey"},
}

NODES = "MATCH (n) RETURN labels(n)[0] AS label, keys(n) AS keys, n.key AS key, n.runId AS runId, n.nodeId AS nodeId"
EDGES = """
MATCH (a)-[r]->(b)
RETURN labels(a)[0] AS a, type(r) AS rel, labels(b)[0] AS b, keys(r) AS keys,
       coalesce(a.key, a.runId, a.name) AS origin, coalesce(b.key, b.runId, b.name) AS destination
"""


def _dataset(graph: SyntheticGraph, i: int, lineage: dict[str, Any] | None = None) -> dict[str, Any]:
    namespace, name = dataset_name(i)
    fields = [{"name": f"col{c}", "type": TYPES[(i + c) % len(TYPES)]} for c in range(graph.fields_of_dataset[i])]
    facets = {"schema": facet(fields=fields)}
    if lineage:
        facets["columnLineage"] = facet(fields=lineage)
    return {"namespace": namespace, "name": name, "facets": facets}


def synthetic_events(graph: SyntheticGraph) -> list[dict[str, Any]]:
    """A START and an end event per synthetic job's run; the end names its inputs, outputs, their
    schemas and column lineage."""
    lineage: dict[tuple[int, int], dict[str, Any]] = defaultdict(dict)
    for src, src_col, dst, dst_col, j, t in graph.derivations:
        kind, subtype, _ = TRANSFORMATIONS[t]
        namespace, name = dataset_name(src)
        inputs = lineage[(j, dst)].setdefault(f"col{dst_col}", {"inputFields": []})["inputFields"]
        inputs.append(
            {
                "namespace": namespace,
                "name": name,
                "field": f"col{src_col}",
                "transformations": [{"type": kind, "subtype": subtype}],
            }
        )
    events = []
    for j in range(len(graph.job_inputs)):
        namespace, name = job_name(j)
        layer, run_id = graph.job_layer[j], synthetic_run_id(SEED, j)
        start = run_event("START", run_id=run_id, job=name, namespace=namespace, at=T0 + timedelta(hours=layer + 24))
        end = run_event(
            END_EVENTS[graph.run_states[j]],
            run_id=run_id,
            job=name,
            namespace=namespace,
            at=T0 + timedelta(hours=layer + 24.5),
            inputs=[_dataset(graph, i) for i in graph.job_inputs[j]],
            outputs=[_dataset(graph, i, lineage.get((j, i))) for i in graph.job_outputs[j]],
        )
        for event in (start, end):
            event["job"]["facets"]["jobType"] = facet(processingType="BATCH", integration="SPARK", jobType="JOB")
        events += [start, end]
    return events


def graph_shape() -> tuple[dict[Any, set[str]], dict[str, set[tuple[str, str]]], list[tuple[str, str, str]]]:
    """Property names by label and by (label, type, label); edges by type as (origin, destination)
    natural keys; and each node's (label, key or runId, nodeId)."""
    nodes = graph_read(lambda tx: records(tx, NODES))
    edges = graph_read(lambda tx: records(tx, EDGES))
    properties: dict[Any, set[str]] = defaultdict(set)
    by_type: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for node in nodes:
        properties[Label(node["label"])].update(node["keys"])
    for edge in edges:
        properties[(Label(edge["a"]), edge["rel"], Label(edge["b"]))].update(edge["keys"])
        by_type[edge["rel"]].add((edge["origin"], edge["destination"]))
    ids = [(node["label"], node["key"] or node["runId"], node["nodeId"]) for node in nodes if node["nodeId"]]
    return properties, by_type, ids


@pytest.fixture
def both(graph: Any) -> tuple[Any, Any]:
    shape = synthetic_graph_generate(datasets=DATASETS, jobs=JOBS, seed=SEED)
    recorded = []
    for event in synthetic_events(shape):
        checked = event_check(event)
        recorded.append(EventRecord(content_hash=checked.content_hash, event_time=checked.event_time, payload=event))
    runs: dict[str, list[EventRecord]] = defaultdict(list)
    for record in recorded:
        runs[record.payload["run"]["runId"]].append(record)
    graph_writes_apply(graph_writes_for(recorded, [run_fold(events) for events in runs.values()]))
    projected = graph_shape()
    graph_wipe()
    synthetic_graph_load(
        driver=graph_driver(), database=settings.NEO4J_DATABASE, datasets=DATASETS, jobs=JOBS, seed=SEED, log=False
    )
    return projected, graph_shape()


def _left_out(kind: Any) -> bool:
    labels = {kind} if isinstance(kind, Label) else {kind[0], kind[2]}
    return bool(labels & LEFT_OUT_LABELS)


def test_the_synthetic_graph_has_the_labels_and_relationships_the_projection_writes(both: tuple[Any, Any]) -> None:
    (projected, _, _), (loaded, _, _) = both
    assert set(loaded) == {kind for kind in projected if not _left_out(kind)}


def test_the_synthetic_graph_has_the_properties_the_projection_writes(both: tuple[Any, Any]) -> None:
    (projected, _, _), (loaded, _, _) = both
    for kind in loaded:
        missing = projected[kind] - loaded[kind]
        assert missing <= LEFT_OUT.get(kind, set()), f"{kind}: the synthetic graph lacks {sorted(missing)}"
        invented = loaded[kind] - projected[kind]
        assert not invented, f"{kind}: the projection never writes {sorted(invented)}"


def test_the_synthetic_graph_has_the_edges_the_projection_writes(both: tuple[Any, Any]) -> None:
    (_, projected, _), (_, loaded, _) = both
    for rel in (Rel.INPUT_TO, Rel.OUTPUTS, Rel.DERIVES, Rel.READ, Rel.WROTE, Rel.HAS_RUN):
        assert loaded[rel] == projected[rel], rel
    # The loader gives every dataset its fields; the projection only those events name.
    named = {origin for origin, _ in projected[Rel.HAS_FIELD]}
    assert {edge for edge in loaded[Rel.HAS_FIELD] if edge[0] in named} == projected[Rel.HAS_FIELD]


def test_the_synthetic_graph_names_its_nodes_as_the_projection_does(both: tuple[Any, Any]) -> None:
    for _, _, ids in both:
        for label, key, written in ids:
            expected = node_id(NodeType.RUN, key) if label == Label.RUN else node_ref_id((Label(label), key))
            assert written == expected
