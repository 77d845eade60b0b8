"""`init_graph` waits for the indexes it created to come online (Neo4j populates them in the background; the
embedded ArcadeDB builds them when it creates them), up to a timeout, and says what it waited for."""

from __future__ import annotations

import time
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from lineage_app.graph.driver import graph_write
from lineage_app.graph.model import Label
from lineage_app.graph.schema import (
    SCHEMA_STATEMENTS,
    TEXT_INDEXES,
    IndexState,
    graph_schema_init,
    index_states,
    indexes_await,
)
from tests.conftest import EmbeddedGraph

# The search box's substring index on datasets' names: a TEXT index, the slowest of ours to populate.
TEXT_INDEX = f"{Label.DATASET.value.lower()}_searchName_text"
DATASETS = 60_000


def _neo4j(graph: Any) -> bool:
    """Whether the session's engine is Neo4j 5 (its own server, or the one at NEO4J_URI), not the embedded one."""
    return not isinstance(graph, EmbeddedGraph)


def _datasets(n: int) -> None:
    graph_write(
        lambda tx: tx.run(
            f"UNWIND range(1, $n) AS i CREATE (:{Label.DATASET} "
            "{key: 'warm' + i, name: 'warm_' + i, namespace: 'warm', searchName: 'warm_' + i})",
            n=n,
        ).consume()
    )


def test_both_engines_list_every_index_of_the_schema_online_once_init_returns(graph: Any) -> None:
    states = index_states()
    # Neo4j keeps the names the schema gives; ArcadeDB names its indexes itself (`Dataset[key]`).
    assert len(states) >= len(SCHEMA_STATEMENTS) - len(TEXT_INDEXES)  # ArcadeDB may fold a text and a range index
    assert all(index.state == "ONLINE" and index.percent == 100 for index in states), states
    if _neo4j(graph):
        assert TEXT_INDEX in {index.name for index in states}
    assert graph_schema_init().indexes.message() == "every index was online already"


def test_init_returns_once_every_index_it_created_is_online(graph: Any) -> None:
    if not _neo4j(graph):
        pytest.skip("the embedded ArcadeDB builds an index within the CREATE that makes it: nothing populates")
    _datasets(DATASETS)
    graph_write(lambda tx: tx.run(f"DROP INDEX {TEXT_INDEX}").consume())
    try:
        done = graph_schema_init(index_timeout=120)
        after = {index.name: index.state for index in index_states()}
    finally:
        graph_schema_init(index_timeout=120)
    assert done.indexes.online and not done.indexes.not_online, done.indexes.message()
    assert after[TEXT_INDEX] == "ONLINE"
    assert set(after.values()) == {"ONLINE"}
    if done.indexes.waited_for:  # it found the index populating (on this machine it does: 60,000 names)
        assert TEXT_INDEX in done.indexes.waited_for
        assert done.indexes.message().startswith(f"waited {done.indexes.seconds:.1f}s for ")


def test_the_wait_gives_up_after_its_timeout_and_names_what_is_not_online() -> None:
    # A seam: an index that stays populating for as long as the test wants cannot be caused on a real engine.
    populating = [IndexState("dataset_search_order", "POPULATING", 42.0), IndexState("job_key_unique", "ONLINE", 100)]
    began = time.monotonic()
    wait = indexes_await(timeout=0.3, states=lambda: populating, poll=0.05)
    took = time.monotonic() - began
    assert 0.3 <= took < 2 and not wait.online
    assert wait.waited_for == ("dataset_search_order",)
    message = wait.message()
    assert message.startswith("gave up after 0.3s (timeout 0.3s); 1 of the 1 indexes waited for are not online: ")
    assert "dataset_search_order (POPULATING, 42%)" in message and "--index-timeout" in message


def test_a_failed_index_ends_the_wait_at_once() -> None:
    # A seam too: a FAILED index cannot be caused on demand.
    wait = indexes_await(timeout=30, states=lambda: [IndexState("dataset_search_order", "FAILED", 10.0)], poll=0.05)
    assert wait.seconds < 1 and not wait.online
    assert "dataset_search_order FAILED and will not come online" in wait.message()


def test_init_graph_says_what_it_waited_for(graph: Any) -> None:
    out = StringIO()
    call_command("init_graph", "--index-timeout", "60", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("graph schema ready (")
    assert lines[1].startswith("backfills: "), lines
    assert lines[2] == "indexes: every index was online already", lines
