"""Lineage traversal against a plain breadth-first reference, on a random graph with cycles.

The traversal walks dataset and job lineage two hops per round trip; the reference takes one
hop at a time, as the API documents it (each hop keeps its new nodes in key order up to the
node budget). Both must reach the same nodes and edges, and agree on `truncated`.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

from lineage_app.graph.model import NOW, Label, natural_key
from lineage_app.graph.traversal import NodeRef, job_lineage_traverse, lineage_traverse
from tests.apply import accept_and_apply
from tests.events import dataset, new_run_id, run_event

pytestmark = pytest.mark.django_db

DATASETS, JOBS = 14, 12


def _random_graph(rng: random.Random) -> dict[str, dict[NodeRef, set[NodeRef]]]:
    """Apply one run per job (random inputs and outputs, so cycles occur); return the adjacency."""
    downstream: dict[NodeRef, set[NodeRef]] = defaultdict(set)
    upstream: dict[NodeRef, set[NodeRef]] = defaultdict(set)
    events = []
    for j in range(JOBS):
        inputs = rng.sample(range(DATASETS), rng.randint(1, 3))
        outputs = rng.sample(range(DATASETS), rng.randint(1, 2))
        job: NodeRef = (Label.JOB, natural_key("spark", f"job{j:02d}"))
        for i in inputs:
            downstream[(Label.DATASET, natural_key("db", f"t{i:02d}"))].add(job)
            upstream[job].add((Label.DATASET, natural_key("db", f"t{i:02d}")))
        for i in outputs:
            downstream[job].add((Label.DATASET, natural_key("db", f"t{i:02d}")))
            upstream[(Label.DATASET, natural_key("db", f"t{i:02d}"))].add(job)
        events.append(
            run_event(
                "COMPLETE",
                run_id=new_run_id(),
                job=f"job{j:02d}",
                inputs=[dataset("db", f"t{i:02d}") for i in inputs],
                outputs=[dataset("db", f"t{i:02d}") for i in outputs],
            )
        )
    accept_and_apply(*events)
    return {"downstream": downstream, "upstream": upstream}


def _reference(
    adjacency: dict[str, dict[NodeRef, set[NodeRef]]],
    start: NodeRef,
    depth: int,
    directions: tuple[str, ...],
    budget: int,
) -> tuple[set[NodeRef], set[tuple[NodeRef, NodeRef]], bool]:
    reached, edges, truncated = {start}, set(), False
    for direction in directions:
        frontier = {start}
        for _ in range(depth):
            rows = [(source, target) for source in frontier for target in adjacency[direction][source]]
            new = sorted({target for _, target in rows if target not in reached})
            if len(new) > budget - len(reached):
                truncated = True
                new = new[: max(budget - len(reached), 0)]
            reached |= set(new)
            edges |= {(s, t) if direction == "downstream" else (t, s) for s, t in rows if t in reached}
            frontier = set() if truncated else set(new)
            if not frontier:
                break
    return reached, edges, truncated


def test_two_hops_per_round_trip_reach_what_single_hops_reach(graph: Any) -> None:
    rng = random.Random(20261121)
    adjacency = _random_graph(rng)
    nodes = sorted(set(adjacency["downstream"]) | set(adjacency["upstream"]))
    checked_truncated = 0
    for _ in range(300):
        start = rng.choice(nodes)
        depth = rng.randint(1, 7)
        directions = rng.choice([("upstream",), ("downstream",), ("upstream", "downstream")])
        budget = rng.choice([2, 3, 5, 8, 13, 1000])
        found = lineage_traverse(start=start, depth=depth, directions=directions, moment=NOW, max_nodes=budget)
        reached, edges, truncated = _reference(adjacency, start, depth, directions, budget)
        case = (start, depth, directions, budget)
        assert set(found.nodes) == reached, case
        assert {(origin, destination) for origin, destination, _ in found.edges} == edges, case
        assert found.truncated is truncated, case
        checked_truncated += truncated
    assert checked_truncated >= 30  # the budget's edge cases were really exercised


def _reference_with_hubs(
    adjacency: dict[str, dict[NodeRef, set[NodeRef]]],
    start: NodeRef,
    depth: int,
    directions: tuple[str, ...],
    budget: int,
    over: int,
) -> tuple[set[NodeRef], set[tuple[NodeRef, NodeRef]], list[tuple[NodeRef, str, int]], bool]:
    """`_reference` one hop at a time, where a frontier node with more than `over` neighbours in a hop is a hub: its
    neighbours are counted (one cluster: the graph has one namespace per label), not reached, each cluster one node
    of the budget, taken before the hop's new nodes."""
    reached, edges, clusters, truncated = {start}, set(), [], False
    for direction in directions:
        frontier = {start}
        for _ in range(depth):
            hubs = sorted(source for source in frontier if len(adjacency[direction][source]) > over)
            found = [(hub, direction, len(adjacency[direction][hub])) for hub in hubs]
            room = max(budget - len(reached) - len(clusters), 0)
            truncated = truncated or len(found) > room
            clusters.extend(found[:room])
            rows = [(s, t) for s in frontier if s not in hubs for t in adjacency[direction][s]]
            new = sorted({target for _, target in rows if target not in reached})
            room = budget - len(reached) - len(clusters)
            if len(new) > room:
                truncated = True
                new = new[: max(room, 0)]
            reached |= set(new)
            edges |= {(s, t) if direction == "downstream" else (t, s) for s, t in rows if t in reached}
            frontier = set() if truncated else set(new)
            if not frontier:
                break
    return reached, edges, clusters, truncated


def test_a_walk_that_summarises_hubs_counts_them_as_single_hops_would(graph: Any) -> None:
    rng = random.Random(20261128)
    adjacency = _random_graph(rng)
    nodes = sorted(set(adjacency["downstream"]) | set(adjacency["upstream"]))
    clustered = 0
    for _ in range(150):
        start = rng.choice(nodes)
        depth = rng.randint(1, 6)
        directions = rng.choice([("upstream",), ("downstream",), ("upstream", "downstream")])
        budget = rng.choice([2, 3, 5, 8, 13, 1000])
        over = rng.choice([1, 2, 3])
        found = job_lineage_traverse(
            start=start,
            depth=depth,
            directions=directions,
            moment=NOW,
            max_nodes=budget,
            roll_up=False,
            cluster_over=over,
        )
        reached, edges, clusters, truncated = _reference_with_hubs(adjacency, start, depth, directions, budget, over)
        case = (start, depth, directions, budget, over)
        assert set(found.nodes) == reached, case
        assert {(origin, destination) for origin, destination, _ in found.edges} == edges, case
        assert [(c.hub, c.direction, c.members) for c in found.clusters] == clusters, case
        assert found.truncated is truncated, case
        assert len(found.nodes) + len(found.clusters) <= budget, case
        clustered += bool(clusters)
    assert clustered >= 30  # hubs were really met
