"""The one traversal's stepping (`graph_walk`): hop by hop, in a direction, to a depth, within a node budget."""

from __future__ import annotations

from typing import Any

import pytest

from lineage_app.graph.driver import graph_read, graph_write
from lineage_app.graph.model import NOW, Label, Rel, natural_key
from lineage_app.graph.traversal import Edge, NodeRef, Walk, element_ids, graph_walk

pytestmark = pytest.mark.django_db

# raw -> load -> (clean, dupes); clean -> report -> mart
CREATE_DATASET = f"CREATE (:{Label.DATASET} {{key: $key}})"
CREATE_JOB = f"CREATE (:{Label.JOB} {{key: $key}})"
CREATE_INPUT = f"MATCH (d:{Label.DATASET} {{key: $a}}), (j:{Label.JOB} {{key: $b}}) CREATE (d)-[:{Rel.INPUT_TO}]->(j)"
CREATE_OUTPUT = f"MATCH (j:{Label.JOB} {{key: $a}}), (d:{Label.DATASET} {{key: $b}}) CREATE (j)-[:{Rel.OUTPUTS}]->(d)"


def dataset(name: str) -> NodeRef:
    return (Label.DATASET, natural_key("db", name))


def job(name: str) -> NodeRef:
    return (Label.JOB, natural_key("etl", name))


@pytest.fixture
def chain(graph: Any) -> None:
    def work(tx: Any) -> None:
        for name in ("raw", "clean", "dupes", "mart"):
            tx.run(CREATE_DATASET, key=dataset(name)[1]).consume()
        for name in ("load", "report"):
            tx.run(CREATE_JOB, key=job(name)[1]).consume()
        for a, b in (("raw", "load"), ("clean", "report")):
            tx.run(CREATE_INPUT, a=dataset(a)[1], b=job(b)[1]).consume()
        for a, b in (("load", "clean"), ("load", "dupes"), ("report", "mart")):
            tx.run(CREATE_OUTPUT, a=job(a)[1], b=dataset(b)[1]).consume()

    graph_write(work)


def walked(
    *starts: NodeRef, depth: int, direction: str, max_nodes: int | None = None
) -> tuple[list[tuple[int, list[NodeRef]]], Walk]:
    """Each hop's distance and the nodes it newly reached, and the walk's final state."""
    hops: list[tuple[int, list[NodeRef]]] = []

    def on_hop(rows: list[Edge], new: list[NodeRef], distance: int) -> None:
        hops.append((distance, new))

    def work(tx: Any) -> Walk:
        state = Walk(reached=element_ids(tx, starts), max_nodes=max_nodes)
        graph_walk(tx, state, starts=starts, depth=depth, direction=direction, moment=NOW, on_hop=on_hop)
        return state

    return hops, graph_read(work)


def test_each_hop_reaches_new_nodes_in_key_order_one_distance_further(chain: None) -> None:
    hops, state = walked(dataset("raw"), depth=4, direction="downstream")
    assert hops == [
        (1, [job("load")]),
        (2, [dataset("clean"), dataset("dupes")]),
        (3, [job("report")]),
        (4, [dataset("mart")]),
    ]
    assert not state.truncated


def test_the_walk_stops_at_its_depth_and_goes_one_hop_when_one_is_left(chain: None) -> None:
    hops, state = walked(dataset("raw"), depth=3, direction="downstream")
    assert [distance for distance, _ in hops] == [1, 2, 3]
    assert dataset("mart") not in state.reached


def test_upstream_follows_the_edges_backwards(chain: None) -> None:
    hops, state = walked(dataset("mart"), depth=4, direction="upstream")
    assert hops == [(1, [job("report")]), (2, [dataset("clean")]), (3, [job("load")]), (4, [dataset("raw")])]
    assert dataset("dupes") not in state.reached  # a sibling output is not upstream


def test_the_node_budget_keeps_the_first_nodes_in_key_order_and_ends_the_walk(chain: None) -> None:
    hops, state = walked(dataset("raw"), depth=4, direction="downstream", max_nodes=3)
    assert hops == [(1, [job("load")]), (2, [dataset("clean")])]  # `dupes` would pass the budget
    assert state.truncated and set(state.reached) == {dataset("raw"), job("load"), dataset("clean")}


def test_a_node_already_reached_is_not_reached_again(chain: None) -> None:
    hops, _ = walked(dataset("raw"), dataset("clean"), depth=2, direction="downstream")
    assert hops == [(1, [job("load"), job("report")]), (2, [dataset("dupes"), dataset("mart")])]  # not `clean`


def test_a_walk_with_nothing_beyond_ends_before_its_depth(chain: None) -> None:
    hops, _ = walked(dataset("clean"), depth=6, direction="downstream")
    assert hops == [(1, [job("report")]), (2, [dataset("mart")]), (3, [])]
